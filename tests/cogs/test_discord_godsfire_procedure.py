"""Godsfire's refereed procedure on Discord: the real bot (discord.py) against the fake Discord.

An initiative go played with the buttons every Godsfire answer carries (the holder clicks Move, fills the
modal, then Done; the responder clicks Pass; a bystander's and an out-of-turn click refused to their author
alone, nothing changed; the GM's click plays the go for the awaited player; the buttons survive a restart);
a move through stationary enemy units answered with the transit's buttons (Attack reads the Transit Attacks
chart; Block… asks where the blockers retreat; a click of anyone else refused, by the engine, nothing changed;
the buttons survive a restart); a combat's loss choice made with the select under the resolution; rolls naming
the player, the region's party roll with its sum and the party it gives. Every die is entered, so the order is
exact.
"""

from __future__ import annotations

from discordkit import field, settle, table, texts

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
    await t.run(t.gm, "gm dice", values="3 4 5 3 6 6 1 1", purpose="any")
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
            await t.run(t.gm, "gm dice", values="2 5", purpose="any")
            started = await t.run(t.gm, "godsfire movement initiative")
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
            shown = await t.run(t.alice, "godsfire movement move", counters="1 2", to="K1")
            assert "▸ @alice moves SQD #1, SQD #2 to K1." in named(t, shown)
            assert gm_pass.message.custom_ids == []
            assert shown.custom_ids[1] == f"referee:godsfire:go:done:{game}:1-1-1-1"
            assert t.dice.all_used()


async def test_a_transit_answered_with_the_buttons(tmp_path):
    async with table(tmp_path) as t:
        carol = t.fake.add_member(t.guild, t.fake.add_user("carol"))
        t.extra = [carol]
        async with t.bot() as rb:
            game = await godsfire_table(t, rb)
            await t.run(t.gm, "godsfire counter add", kind="AG", at="K5", owner=str(t.bob.id))  # #7, stationary
            await t.run(t.gm, "gm dice", values="6 1", purpose="any")  # alice 6, bob 1: alice holds initiative
            await t.run(t.gm, "godsfire movement initiative")

            # alice moves SQD #1 and #2 through K5, where bob's AG waits: bob is asked, with his three buttons.
            moved = await t.run(t.alice, "godsfire movement move", counters="1 2", to="K6", through="K5")
            assert "▸ @bob's units at K5 may make a transit attack on them or block them (A.2.3)." in named(t, moved)
            assert moved.content == (f"⏳ <@{t.bob.id}> may make a transit attack on <@{t.alice.id}>'s SQD #1, SQD "
                                     "#2 passing through K5, block them or let them pass (A.2.3): Attack, Block… or "
                                     "Allow.")
            assert moved.message.allowed_mentions["users"] == [t.bob.id]
            transit = moved.custom_ids[0].rsplit(":", 1)[1]
            assert moved.custom_ids == [f"referee:godsfire:transit:{what}:{game}:{transit}"
                                        for what in ("attack", "block", "allow")]
            assert transit.startswith("1-") and len(transit) == 10  # the turn, then the transit's digest
            assert [b["label"] for b in moved.message.components[0]["components"]] == ["Attack", "Block…", "Allow"]

        # The buttons outlive a restart.
        async with t.bot() as rb:
            attack, block, allow = moved.custom_ids
            # Anyone but bob is refused by the engine, to themselves alone (no form opens); nothing changes.
            before = snapshot(await t.state(rb))
            refused = await t.click(t.alice, moved.message, attack)
            assert refused.ephemeral
            assert named(t, refused) == "⛔ A.2.3: the transit through K5 is @bob's to answer"
            no_form = await t.click(t.alice, moved.message, block)
            assert no_form.ephemeral and no_form.modal is None
            assert named(t, no_form) == "⛔ A.2.3: the transit through K5 is @bob's to answer"
            stranger = await t.click(carol, moved.message, allow)
            assert stranger.ephemeral and named(t, stranger) == "⛔ only the GM may play a go for @bob"
            assert snapshot(await t.state(rb)) == before
            assert moved.message.custom_ids == [attack, block, allow]

            # bob attacks on the house's column 0: SQD #1 rolls 1 (ME, gone), SQD #2 rolls 4 (ne, goes on to K6).
            await t.run(t.gm, "gm dice", values="1 4", purpose="any")
            attacked = await t.click(t.bob, moved.message, attack)
            assert not attacked.ephemeral
            text = named(t, attacked)
            assert "🎲 @bob, transit attack on @alice's SQD #1 at K5: d6 1 (GM die)" in text
            assert "▸ @alice moves SQD #2 to K6." in text
            assert attacked.embeds[0]["title"] == "Transit attack on SQD #1 at K5"
            charts = [e for e in attacked.embeds if e.get("title") == "Transit Attack"]
            assert [(c["description"], field(c, "Column"), field(c, "Die"), field(c, "Result")) for c in charts] == [
                (f"<@{t.bob.id}> attacks SQD #1 in transit", "0", "1", "**ME** — the movers are eliminated"),
                (f"<@{t.bob.id}> attacks SQD #2 in transit", "0", "4", "**ne** — no effect")]
            state = await t.state(rb)
            assert state.transit is None and [c.number for c in state.counters_at("K6")] == [2]
            assert not any(c.number == 1 for c in state.counters)
            # The controls moved on: alice's go again (she has moved: Done, or Pass).
            assert moved.message.custom_ids == []
            assert attacked.content == f"⏳ <@{t.alice.id}> holds initiative (round 1): Done, or Pass."
            assert attacked.custom_ids[1] == f"referee:godsfire:go:done:{game}:1-0-1-0"

            done = await t.click(t.alice, attacked.message, attacked.custom_ids[1])
            passed = await t.click(t.bob, done.message, done.custom_ids[2])
            assert "round 2: @alice holds initiative" in named(t, passed)

            # Round 2: AG #3 through K5. bob clicks Block…: a form asks where his units at K5 retreat.
            again = await t.run(t.alice, "godsfire movement move", counters="3", to="K6", through="K5")
            second = again.custom_ids[0].rsplit(":", 1)[1]
            assert second != transit  # another transit: the first one's buttons answer nothing now
            opened = await t.click(t.bob, again.message, f"referee:godsfire:transit:block:{game}:{second}")
            assert opened.modal is not None and opened.modal["title"] == "Block the move"
            assert opened.modal["custom_id"] == f"referee:godsfire:blocking:{game}:{second}"
            inputs = [c for row in opened.modal["components"] for c in row["components"]]
            assert [(c["custom_id"], c["placeholder"]) for c in inputs] == [
                ("retreat", "the cell your units at K5 retreat to (e.g. K12)")]
            # Back to Sol, where the AG came from: the engine refuses, to bob alone; nothing changes.
            before = snapshot(await t.state(rb))
            wrong = await t.submit(opened, {"retreat": "Sol"})
            assert wrong.ephemeral
            assert named(t, wrong) == ("⛔ A.2.3: blocking units retreat 1 cell away, not to the cell the movers came "
                                       "from (Sol)")
            assert snapshot(await t.state(rb)) == before
            # The GM's click answers for bob: his AG retreats to K4, alice's AG stops at K5.
            opened = await t.click(t.gm, again.message, f"referee:godsfire:transit:block:{game}:{second}")
            blocked = await t.submit(opened, {"retreat": "K4"})
            assert "▸ @bob blocks at K5 and retreats to K4." in named(t, blocked)
            state = await t.state(rb)
            assert (state.counter(3).at, state.counter(7).at, state.transit) == ("K5", "K4", None)
            assert again.message.custom_ids == []
            assert blocked.content == f"⏳ <@{t.alice.id}> holds initiative (round 2): Done, or Pass."
            assert t.dice.all_used()


async def test_a_transit_let_through_with_allow(tmp_path):
    async with table(tmp_path) as t, t.bot() as rb:
        game = await godsfire_table(t, rb)
        await t.run(t.gm, "godsfire counter add", kind="AG", at="K5", owner=str(t.bob.id))
        await t.run(t.gm, "gm dice", values="6 1", purpose="any")
        await t.run(t.gm, "godsfire movement initiative")
        moved = await t.run(t.alice, "godsfire movement move", counters="3", to="K6", through="K5")
        allowed = await t.click(t.bob, moved.message, moved.custom_ids[2])
        assert moved.message.custom_ids == []
        text = named(t, allowed)
        assert "▸ The transit through K5 is settled (allow)." in text and "▸ @alice moves AG #3 to K6." in text
        assert (await t.state(rb)).counter(3).at == "K6"
        assert allowed.custom_ids[1] == f"referee:godsfire:go:done:{game}:1-0-1-0"
        assert t.dice.all_used()


async def test_the_status_shows_whose_go_it_is(tmp_path):
    async with table(tmp_path) as t, t.bot() as rb:
        await godsfire_table(t, rb)
        await t.run(t.gm, "gm dice", values="2 5", purpose="any")
        await t.run(t.gm, "godsfire movement initiative")
        status = await t.run(t.alice, "godsfire status")
        shown = status.embed["description"]
        for member in t.members:
            shown = shown.replace(f"<@{member.id}>", f"@{member.user.name}")
        until = "<t:1772409600:f> (<t:1772409600:R>)"  # 12 hours after the start
        at = shown.splitlines().index("Turn 1's player order: @bob, @alice.")
        assert shown.splitlines()[at + 1] == (
            f"Initiative: @bob (round 1); awaiting @bob (move, done or pass) — until {until}.")


async def test_a_loss_choice_made_with_the_select(tmp_path):
    async with table(tmp_path) as t:
        async with t.bot() as rb:
            await combat_loss_choice(t, rb)


async def combat_loss_choice(t, rb) -> None:
    """Two neutral systems of 3 SQDs each (6), each attacked by two of alice's AGs (8: odds 2-1). Attack 1 rolls
    3: D1, alice chooses the SQD lost; attack 2 rolls 4: Dr, the neutral's units retreat where the GM says."""
    game = await godsfire_table(t, rb)
    await t.run(t.gm, "gm dice", values="2 2 3 3 2 2 3 3", purpose="any")
    for name in ("Rigel", "Altair"):
        await t.run(t.gm, "godsfire system add", name=name, neutral=True)
        await t.run(t.gm, "godsfire set", field="units", value="SQD=3", system=name)
    await t.run(t.gm, "godsfire counter add", kind="AG", at="K1", owner=str(t.alice.id), count=2)
    await t.run(t.gm, "godsfire counter add", kind="AG", at="K2", owner=str(t.alice.id), count=2)
    await t.run(t.gm, "gm dice", values="6 1", purpose="any")  # the order: alice, bob
    await t.run(t.gm, "godsfire phase next")  # A.1: initiative starts; both pass
    await t.run(t.alice, "godsfire movement pass")
    await t.run(t.bob, "godsfire movement pass")
    await t.run(t.gm, "godsfire phase next")  # the Combat Phase
    counters = named(t, await t.run(t.alice, "godsfire counters"))
    assert "• Rigel: SQD #5 (neutral), SQD #6 (neutral), SQD #7 (neutral)" in counters
    assert "• Altair: SQD #8 (neutral), SQD #9 (neutral), SQD #10 (neutral)" in counters
    assert "• K1: AG #13 (@alice), AG #14 (@alice)" in counters
    await t.run(t.alice, "godsfire combat announce", units="13 14", target="Rigel")
    await t.run(t.alice, "godsfire combat announce", units="15 16", target="Altair")

    await t.run(t.gm, "gm dice", values="3 4", purpose="any")
    resolved = await t.run(t.gm, "godsfire combat resolve")
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
        await t.run(t.gm, "gm dice", values="2 5", purpose="any")
        started = await t.run(t.gm, "godsfire movement initiative")
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


async def test_losses_from_a_built_up_counter_chosen_with_the_select(tmp_path):
    """A.2.5: a loss takes one unit of a built-up counter, so the select offers such a counter once for each unit it
    holds: 2 losses from bob's one SQD ×3 are two of its options (the counter named twice)."""
    async with table(tmp_path) as t:
        async with t.bot() as rb:
            game = await godsfire_table(t, rb)
            await t.run(t.gm, "godsfire set", field="units", value="SQD=3", system="Vega")
            await t.run(t.gm, "godsfire counter add", kind="AG", at="K1", owner=str(t.alice.id), count=3)
            await t.run(t.gm, "gm dice", values="2 5", purpose="any")  # the order: bob, alice
            await t.run(t.gm, "godsfire movement initiative")
            state = await t.state(rb)
            sqds = sorted(c.number for c in state.counters if c.kind == "SQD" and c.at == "Vega")
            ags = sorted(c.number for c in state.counters if c.kind == "AG" and c.at == "K1")
            assert len(sqds) == 3 and len(ags) == 3
            declared = await t.run(t.bob, "godsfire war declare", target=str(t.alice.id))
            assert "▸ @bob declares war on @alice (C)" in named(t, declared)
            await t.run(t.bob, "godsfire movement build", counters=" ".join(map(str, sqds)))
            await t.run(t.bob, "godsfire movement done")
            for _ in range(12):  # every other go passed, to the end of the initiative rounds
                ini = (await t.state(rb)).initiative
                if ini is None:
                    break
                await t.run(t.alice if ini.awaiting == str(t.alice.id) else t.bob, "godsfire movement pass")
            await t.run(t.gm, "godsfire phase next")  # the Combat Phase
            state = await t.state(rb)
            assert state.phase == "combat" and [(c.number, c.size) for c in state.counters_at("Vega")
                                                if c.kind == "SQD"] == [(sqds[0], 3)]
            await t.run(t.alice, "godsfire combat announce", units=" ".join(map(str, ags)), target="Vega")
            await t.run(t.gm, "gm dice", values="2", purpose="any")
            resolved = await t.run(t.gm, "godsfire combat resolve")
            # 3 AGs against a system cell, large: 12 against SQD ×3, 6: 2-1; die 2: D2
            assert "2-1, die 2: D2" in named(t, resolved)
            assert resolved.content == f"⏳ <@{t.alice.id}> chooses the 2 units lost in attack 1 (of 3)."
            select = resolved.message.find_component(f"referee:godsfire:losses:{game}:1")
            assert (select["min_values"], select["max_values"]) == (2, 2)
            n = sqds[0]
            assert [(o["label"], o["value"]) for o in select["options"]] == [
                (f"SQD #{n} ×3 at Vega — unit {k} of 3", value) for k, value in
                [(1, f"{n}"), (2, f"{n}.2"), (3, f"{n}.3")]]
            # typed by hand, the counter is offered again while it has units not yet named
            offered = await t.fake.autocomplete(t.guild, t.channel, t.alice, "godsfire combat losses",
                                                focused="units", options={"units": f"{n} "})
            assert [o["value"] for o in offered] == [f"{n} {n}"]
            offered = await t.fake.autocomplete(t.guild, t.channel, t.alice, "godsfire combat losses",
                                                focused="units", options={"units": f"{n} {n} {n} "})
            assert offered == []
            chosen = await t.select(t.alice, resolved.message, f"referee:godsfire:losses:{game}:1",
                                    [f"{n}", f"{n}.3"])
            assert (f"@alice chooses the losses (the key: 1, 2 = units lost (enemy's choice)): @bob's 2 units of "
                    f"SQD #{n} ×3 eliminated.") in named(t, chosen)
            state = await t.state(rb)
            assert state.choices == [] and [(c.number, c.size) for c in state.counters_at("Vega")
                                            if c.kind == "SQD"] == [(n, 1)]
            assert t.dice.all_used()
