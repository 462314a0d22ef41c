"""Godsfire's refereed procedure on Discord: the real bot (discord.py) against the fake Discord.

An initiative go played with the buttons every Godsfire answer carries (the holder clicks Move, fills the
modal, then Done; the responder clicks Pass; a bystander's and an out-of-turn click refused to their author
alone, nothing changed; the GM's click plays the go for the awaited player; the buttons survive a restart);
a combat's loss choice made with the select under the resolution; rolls naming the player, the region's party
roll with its sum and the party it gives. Every die is entered, so the order is exact.
"""

from __future__ import annotations

import pytest
from discordkit import settle, table, texts

from cogs.godsfire.cog import COMBAT
from engine.rulesets import ruleset_of


def named(t, *items) -> str:
    """`texts` with each member's mention as @name."""
    text = texts(*items)
    for member in t.members:
        text = text.replace(f"<@{member.id}>", f"@{member.user.name}")
    return text


def snapshot(state) -> dict:
    return ruleset_of(state).state_to_dict(state)


async def godsfire_table(t, rb) -> int:
    """alice: Sol (2 SQD and an AG in its cell); bob: Vega (a SQD). Counters #1-#3 alice's, #4 bob's, #5-#6 the
    NGs, once initiative starts. Returns the game's id."""
    t.members = [t.gm, t.alice, t.bob, *getattr(t, "extra", [])]
    await t.run(t.gm, "game start", ruleset="godsfire")
    # Sol region 1: party 3+4 = 7 (M), allegiance 5, economy 3; Vega region 1: 6+6 = 12 (E), 1, 1 (S).
    await t.run(t.gm, "gm dice", values="3 4 5 3 6 6 1 1")
    added = await t.run(t.gm, "godsfire system add", name="Sol", owner=t.alice)
    assert "🎲 @alice, Sol region 1 party: 2d6 3 + 4 (GM dice) = **7**: Moderate (M)" in named(t, added)
    assert "🎲 @alice, Sol region 1 allegiance: d6 5 (GM die)" in named(t, added)
    await t.run(t.gm, "godsfire system add", name="Vega", owner=t.bob)
    await t.run(t.gm, "godsfire set", field="units", value="SQD=2 AG=1", system="Sol")
    await t.run(t.gm, "godsfire set", field="units", value="SQD=1", system="Vega")
    return await rb.bot.referee.game_id(t.key())


async def test_an_initiative_go_played_with_the_buttons(tmp_path):
    async with table(tmp_path) as t:
        carol = t.fake.add_member(t.guild, t.fake.add_user("carol"))
        t.extra = [carol]
        async with t.bot() as rb:
            game = await godsfire_table(t, rb)

            # The order: alice 2, bob 5 — bob holds initiative. The rolls name the players.
            await t.run(t.gm, "gm dice", values="2 5")
            started = await t.run(t.gm, "godsfire initiative start")
            text = named(t, started)
            assert "🎲 @alice, turn 1 player order: d6 2 (GM die)" in text
            assert "🎲 @bob, turn 1 player order: d6 5 (GM die)" in text
            assert started.content == f"⏳ <@{t.bob.id}> holds initiative (round 1): Move (then Done), or Pass."
            assert started.message.allowed_mentions["users"] == [t.bob.id]  # bob is pinged
            go = f"{game}:1-0-1-0"
            assert started.custom_ids == [f"referee:godsfire:go:move:{go}", f"referee:godsfire:go:done:{go}",
                                          f"referee:godsfire:go:pass:{go}"]
            done_button = started.message.find_component(f"referee:godsfire:go:done:{go}")
            assert done_button["disabled"]  # A.1.2: the holder moves before being done

        # The buttons outlive a restart.
        async with t.bot() as rb:
            # Out of turn: alice (not her go) and carol (no player) are refused, to themselves alone; no modal.
            before = snapshot(await t.state(rb))
            early = await t.click(t.alice, started.message, f"referee:godsfire:go:move:{go}")
            assert early.ephemeral and early.modal is None
            assert named(t, early) == ("⛔ A.1: it is @bob's go (@bob holds initiative, round 1); @alice may not move "
                                       "or pass now")
            stranger = await t.click(carol, started.message, f"referee:godsfire:go:pass:{go}")
            assert stranger.ephemeral
            assert named(t, stranger) == ("⛔ A.1: it is @bob's go (@bob holds initiative, round 1); @carol may not "
                                          "move or pass now")
            assert snapshot(await t.state(rb)) == before

            # bob clicks Move: a modal asks for the counters (his unmoved ones hinted), where to, through.
            opened = await t.click(t.bob, started.message, f"referee:godsfire:go:move:{go}")
            assert opened.modal is not None and opened.modal["title"] == "Move counters"
            inputs = [c for row in opened.modal["components"] for c in row["components"]]
            assert [c["custom_id"] for c in inputs] == ["counters", "to", "through"]
            assert inputs[0]["placeholder"] == "not moved yet: 4 6 (SQD, NG)"
            moved = await t.submit(opened, {"counters": "4", "to": "K9", "through": ""})
            assert not moved.ephemeral
            assert "▸ @bob moves SQD #4 to K9." in named(t, moved)
            assert moved.content == f"⏳ <@{t.bob.id}> holds initiative (round 1): Done, or Pass."
            assert started.message.custom_ids == []  # the controls moved to the new answer
            assert not moved.message.find_component(f"referee:godsfire:go:done:{go}")["disabled"]
            assert (await t.state(rb)).counter(4).at == "K9"

            # bob clicks Done: alice may respond.
            done = await t.click(t.bob, moved.message, f"referee:godsfire:go:done:{go}")
            assert "▸ @bob moved; @alice may respond (A.1.3)." in named(t, done)
            assert done.content == (f"⏳ <@{t.alice.id}> may respond to <@{t.bob.id}>'s initiative (round 1): "
                                    "Move (then Done), or Pass.")
            assert done.message.allowed_mentions["users"] == [t.alice.id]
            responding = f"{game}:1-0-1-1"
            assert done.custom_ids[2] == f"referee:godsfire:go:pass:{responding}"

            # carol clicks alice's Pass: refused, nothing changed; alice clicks it: round 2, bob's go.
            before = snapshot(await t.state(rb))
            refused = await t.click(carol, done.message, f"referee:godsfire:go:pass:{responding}")
            assert refused.ephemeral and "@alice's go" in named(t, refused)
            assert snapshot(await t.state(rb)) == before
            passed = await t.click(t.alice, done.message, f"referee:godsfire:go:pass:{responding}")
            assert "▸ @alice passes; round 2: @bob holds initiative." in named(t, passed)
            assert done.message.custom_ids == []
            ini = (await t.state(rb)).initiative
            assert (ini.holder, ini.round, ini.awaiting) == (str(t.bob.id), 2, str(t.bob.id))

            # The GM's click plays the go for the awaited player: bob passes, initiative goes to alice.
            gm_pass = await t.click(t.gm, passed.message, f"referee:godsfire:go:pass:{game}:1-0-2-0")
            assert "▸ @bob passes; initiative passes to @alice (A.1.4)." in named(t, gm_pass)
            assert gm_pass.content.startswith(f"⏳ <@{t.alice.id}> holds initiative (round 1)")
            ini = (await t.state(rb)).initiative
            assert (ini.holder, ini.awaiting, ini.held) == (str(t.alice.id), str(t.alice.id), [str(t.bob.id)])

            # A slash command during the go answers with the controls too (and takes them from the last answer).
            shown = await t.run(t.alice, "godsfire move", counters="1 2", to="K1")
            assert "▸ @alice moves SQD #1, SQD #2 to K1." in named(t, shown)
            assert gm_pass.message.custom_ids == []
            assert shown.custom_ids[1] == f"referee:godsfire:go:done:{game}:1-1-1-1"
            assert t.dice.all_used()


async def test_the_status_shows_whose_go_it_is(tmp_path):
    async with table(tmp_path) as t, t.bot() as rb:
        await godsfire_table(t, rb)
        await t.run(t.gm, "gm dice", values="2 5")
        await t.run(t.gm, "godsfire initiative start")
        status = await t.run(t.alice, "godsfire status")
        table_field = next(f["value"] for f in status.embed["fields"] if f["name"] == "The table")
        for member in t.members:
            table_field = table_field.replace(f"<@{member.id}>", f"@{member.user.name}")
        until = "<t:1772409600:f> (<t:1772409600:R>)"  # 12 hours after the start
        assert table_field.splitlines()[:2] == [
            "Turn 1's player order: @bob, @alice.",
            f"Initiative: @bob (round 1); awaiting @bob (move, done or pass) — until {until}."]


@pytest.mark.skipif(not COMBAT, reason="the Combat Phase's commands (godsfire attack announce/resolve, losses "
                    "choose, retreat) are not in the engine's command table yet (engine/godsfire/commands.py)")
async def test_a_loss_choice_made_with_the_select(tmp_path):
    async with table(tmp_path) as t:
        async with t.bot() as rb:
            await combat_loss_choice(t, rb)


async def combat_loss_choice(t, rb) -> None:
    """Two neutral systems of 3 SQDs each (6), each attacked by two of alice's AGs (8: odds 2-1). Attack 1 rolls
    3: D1, alice chooses the SQD lost; attack 2 rolls 4: Dr, the neutral's units retreat where the GM says."""
    game = await godsfire_table(t, rb)
    await t.run(t.gm, "gm dice", values="2 2 3 3 2 2 3 3")
    for name in ("Rigel", "Altair"):
        await t.run(t.gm, "godsfire system add", name=name, neutral=True)
        await t.run(t.gm, "godsfire set", field="units", value="SQD=3", system=name)
    await t.run(t.gm, "godsfire counter add", kind="AG", at="K1", owner=str(t.alice.id), count=2)
    await t.run(t.gm, "godsfire counter add", kind="AG", at="K2", owner=str(t.alice.id), count=2)
    await t.run(t.gm, "godsfire phase next")  # no initiative this turn: straight to the Combat Phase
    counters = named(t, await t.run(t.alice, "godsfire counters"))
    assert "• Rigel: SQD #5 (neutral), SQD #6 (neutral), SQD #7 (neutral)" in counters
    assert "• Altair: SQD #8 (neutral), SQD #9 (neutral), SQD #10 (neutral)" in counters
    assert "• K1: AG #13 (@alice), AG #14 (@alice)" in counters
    await t.run(t.alice, "godsfire attack announce", units="13 14", target="Rigel")
    await t.run(t.alice, "godsfire attack announce", units="15 16", target="Altair")

    await t.run(t.gm, "gm dice", values="3 4")
    resolved = await t.run(t.gm, "godsfire attack resolve")
    text = named(t, resolved)
    assert "2-1, die 3: D1 — @alice chooses 1 of neutral Rigel's SQD #5, SQD #6, SQD #7 to lose" in text
    assert "2-1, die 4: Dr — neutral Altair retreats: @gm names where" in text
    charts = [e for e in resolved.embeds if e.get("title") == "Combat Results Table"]
    assert [c["description"] for c in charts] == [  # the chart's detail names the player, not a user id
        f"attack 1 (<@{t.alice.id}> against neutral Rigel at Rigel): 8 against 6: odds 2-1",
        f"attack 2 (<@{t.alice.id}> against neutral Altair at Altair): 8 against 6: odds 2-1"]
    assert resolved.content == (f"⏳ <@{t.alice.id}> chooses the unit lost in attack 1 (of 3).\n"
                                f"⏳ <@{t.gm.id}> retreats the units of attack 2: Retreat… names where.")
    assert resolved.custom_ids == [f"referee:godsfire:losses:{game}:1", f"referee:godsfire:retreat:{game}:2"]
    select = resolved.message.find_component(f"referee:godsfire:losses:{game}:1")
    assert (select["min_values"], select["max_values"]) == (1, 1)
    assert [(o["label"], o["value"]) for o in select["options"]] == [
        ("SQD #5 at Rigel", "5"), ("SQD #6 at Rigel", "6"), ("SQD #7 at Rigel", "7")]

    # bob is not the chooser: the engine refuses him, to him alone; nothing changes.
    before = snapshot(await t.state(rb))
    refused = await t.select(t.bob, resolved.message, f"referee:godsfire:losses:{game}:1", ["6"])
    assert refused.ephemeral
    assert named(t, refused) == ("⛔ B: losses are chosen by the enemy (the key: 1, 2 = units lost (enemy's choice)); "
                                 "attack 1's are @alice's to choose (or the GM's)")
    no_modal = await t.click(t.bob, resolved.message, f"referee:godsfire:retreat:{game}:2")
    assert no_modal.ephemeral and no_modal.modal is None
    assert "attack 2's is @gm's (or the GM's)" in named(t, no_modal)
    assert snapshot(await t.state(rb)) == before

    # alice picks SQD #6: it is gone; the retreat is still awaited, its button on the new answer.
    chosen = await t.select(t.alice, resolved.message, f"referee:godsfire:losses:{game}:1", ["6"])
    assert named(t, chosen).splitlines()[1] == ("▸ Attack 1: @alice chooses the losses (the key: 1, 2 = units lost "
                                                "(enemy's choice)): neutral Rigel's SQD #6 eliminated.")
    assert resolved.message.custom_ids == []
    assert chosen.custom_ids == [f"referee:godsfire:retreat:{game}:2"]
    state = await t.state(rb)
    assert [c.number for c in state.counters_at("Rigel")] == [5, 7]

    # The GM retreats Altair's SQDs: the modal asks where.
    opened = await t.click(t.gm, chosen.message, f"referee:godsfire:retreat:{game}:2")
    assert opened.modal is not None and opened.modal["title"] == "Retreat: attack 2"
    retreated = await t.submit(opened, {"to": "K3"})
    assert "▸ Attack 2: @gm retreats neutral Altair's SQD #8, SQD #9, SQD #10 to K3 (r = retreat)." in (
        named(t, retreated))
    assert chosen.message.custom_ids == [] and retreated.custom_ids == [] and retreated.content == ""
    state = await t.state(rb)
    assert state.choices == [] and [c.number for c in state.counters_at("K3")] == [8, 9, 10]
    assert t.dice.all_used()


async def test_a_go_run_out_is_announced_with_the_next_go_s_buttons(tmp_path):
    async with table(tmp_path) as t, t.bot() as rb:
        game = await godsfire_table(t, rb)
        await t.run(t.gm, "gm dice", values="2 5")
        started = await t.run(t.gm, "godsfire initiative start")
        # bob lets his 12 hours run out: a pass; initiative goes to alice, her buttons on the clock's message.
        t.clock.advance(hours=12)
        await rb.bot.get_cog("Clock").wake(game)
        await settle(t.fake)
        announced = t.messages()[-1]
        assert announced.content == f"⏳ <@{t.alice.id}> holds initiative (round 1): Move (then Done), or Pass."
        assert announced.allowed_mentions["users"] == [t.alice.id]
        assert "@bob's time ran out: a pass (A.1); initiative passes to @alice (A.1.4)" in named(t, announced)
        assert announced.custom_ids[0] == f"referee:godsfire:go:move:{game}:1-1-1-1"
        assert started.message.custom_ids == []
        # The GM ends the game: no controls are left.
        await t.run(t.gm, "game end")
        confirm = t.fake.interactions[-1]
        await t.click(t.gm, confirm.message, confirm.custom_ids[0])
        assert announced.custom_ids == []
