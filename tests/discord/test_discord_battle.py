"""Battles on Discord: the choice messages with their selects, who may use them, and a restart in between.

Gracchan Republic (alice): infantry #1-#3 (GREEN, 3 HP: infantry is its STRENGTH), #4 bomber, #5 armour; M 8.
Charon (bob): armour #6-#8 (GREEN, 2 HP, COMBAT +3, +1 against infantry), #9 bomber; M 9, S 10, E 11.
"""

from __future__ import annotations

from discordkit import at, mention, start_war, table, texts

from engine.nations.snapshot import state_to_dict


def choice_message(t, battle: int, since: int = 0):
    """The newest message offering a choice in that battle (posted after the `since` mark)."""
    found = [m for m in t.messages() if m.id > since and m.content.startswith(f"⚔ Battle #{battle}:")]
    assert found, [m.content for m in t.messages()]
    return found[-1]


async def test_a_battle_fought_with_selects(tmp_path):
    async with table(tmp_path) as t, t.bot() as rb:
        await start_war(t)
        carol = t.fake.add_member(t.guild, t.fake.add_user("carol"))  # no nation
        declared = await t.run(t.alice, "attack declare", target="Charon", units="1 2")
        assert declared.embed["description"].splitlines() == [
            "⚔ Gracchan Republic attacks Charon with #1, #2 (battle #1).",
            f"⏳ Battle #1 waits for Charon to commit 1-3 units (/attack commit), until {at(1)}.",
        ]
        game = await rb.bot.referee.game_id(t.key())

        # The defender is asked, by mention, with a select of its free units.
        commit = choice_message(t, 1)
        assert commit.content == f"⚔ Battle #1: {mention(t.bob)}, commit 1 to 3 units (default {at(1)})."
        assert commit.mention_ids == [t.bob.id]
        assert commit.custom_ids == [f"referee:commit:{game}:1"]
        select = commit.find_component(f"referee:commit:{game}:1")
        assert (select["min_values"], select["max_values"]) == (1, 3)
        assert [o["label"] for o in select["options"]] == [
            "#6 armour GREEN 2 HP", "#7 armour GREEN 2 HP", "#8 armour GREEN 2 HP", "#9 bomber GREEN 2 HP"]

        # Someone else's select: an ephemeral refusal, and nothing changes.
        before = state_to_dict(await t.state(rb))
        for intruder in (t.alice, carol):
            refused = await t.select(intruder, commit, commit.custom_ids[0], ["6"])
            assert refused.ephemeral
            assert texts(refused) == "⛔ Charon is not your nation"
        assert state_to_dict(await t.state(rb)) == before
        assert commit.custom_ids == [f"referee:commit:{game}:1"]

        mark = t.fake.mark()
        t.dice.push(10, 8)  # initiative: attacker 10 - 1 = 9, defender 8 - 1 = 7
        committed = await t.select(t.bob, commit, commit.custom_ids[0], ["6", "7"])
        assert not committed.ephemeral
        assert committed.embed["description"].splitlines() == [
            f"🛡 #6, #7 defend in battle #1 (committed by {mention(t.bob)}).",
            "🎲 Gracchan Republic, initiative (attacker), battle #1: d10 10 + mod(M) -1 = **9**",
            "🎲 Charon, initiative (defender), battle #1: d10 8 + mod(M) -1 = **7**",
            "The attacker wins the initiative in battle #1 and picks the pairings.",
            f"⏳ Battle #1 waits for Gracchan Republic to pair two units (/attack pair), until {at(1)}.",
        ]
        assert commit.custom_ids == []  # used: its select is gone

        pairing = choice_message(t, 1, since=mark)
        assert pairing.content == f"⚔ Battle #1: {mention(t.alice)}, pick the next pairing (default {at(1)})."
        assert pairing.custom_ids == [f"referee:pair:{game}:1", f"referee:retreat-ask:{game}:1"]
        pair_id, ask_id = pairing.custom_ids
        assert [(o["label"], o["value"]) for o in pairing.find_component(pair_id)["options"]] == [
            ("#1 infantry GREEN against #6 armour GREEN", "1:6"), ("#1 infantry GREEN against #7 armour GREEN", "1:7"),
            ("#2 infantry GREEN against #6 armour GREEN", "2:6"), ("#2 infantry GREEN against #7 armour GREEN", "2:7")]
        # "Order a retreat" answers each player alone with their own units in the fight (issue 11).
        asked = {}
        for member in (t.alice, t.bob):
            asked[member.id] = await t.click(member, pairing, ask_id)
            assert asked[member.id].ephemeral and asked[member.id].custom_ids == [f"referee:retreat:{game}:1"]
        retreat_id = f"referee:retreat:{game}:1"
        assert [o["label"] for o in asked[t.alice.id].message.find_component(retreat_id)["options"]] == [
            "Retreat #1 infantry GREEN (Gracchan Republic)", "Retreat #2 infantry GREEN (Gracchan Republic)"]
        assert [o["label"] for o in asked[t.bob.id].message.find_component(retreat_id)["options"]] == [
            "Retreat #6 armour GREEN (Charon)", "Retreat #7 armour GREEN (Charon)"]

        # The loser of the initiative may not pair; nobody may order another nation's unit to retreat.
        refused = await t.select(t.bob, pairing, pair_id, ["1:6"])
        assert refused.ephemeral
        assert texts(refused) == ("⛔ Gracchan Republic won the initiative in battle #1: "
                                  "only its player pairs the units")
        refused = await t.select(t.alice, asked[t.bob.id].message, retreat_id, ["7"])  # bob's select, forged
        assert refused.ephemeral and texts(refused) == "⛔ Charon is not your nation"
        assert (await t.state(rb)).battles[1].retreat_orders == {}

        # Bob orders #7 to retreat from his own select; the pairing message keeps its controls.
        ordered = await t.select(t.bob, asked[t.bob.id].message, retreat_id, ["7"])
        assert not ordered.ephemeral and texts(ordered) == "Unit #7 retreats now (battle #1)."
        assert pairing.custom_ids == [pair_id, ask_id]

        # Duel 1, #1 against #6: infantry d10 against armour d10 + 3 (COMBAT) + 1 (WINS vs infantry).
        mark = t.fake.mark()
        t.dice.push(10, 1, 1,  # round 1: 10 against 5, #6 loses 1 HP; demotion roll 1 (needs 6): stays GREEN
                    10, 1,  # round 2: 10 against 5, #6 dies
                    6)  # #1's promotion roll (needs 6): REGULAR
        paired = await t.select(t.alice, pairing, pair_id, ["1:6"])
        assert paired.embed["description"].splitlines() == [
            "Duel in battle #1: #1 infantry against #6 armour (paired by Gracchan Republic).",
            "🎲 Gracchan Republic, combat, #1 infantry vs #6 armour: d10 10",
            "🎲 Charon, combat, #6 armour vs #1 infantry: d10 1 + COMBAT +3 + WINS vs infantry +1 = **5**",
            "Round: attacker 10 against defender 5; #6 loses 1 HP.",
            "Charon: #6 armour GREEN 2 HP → GREEN 1 HP (wounded in battle #1).",
            "🎲 Charon, demotion of #6 armour (needs 6+): d10 1 vs >= 6: **failure**",
            "🎲 Gracchan Republic, combat, #1 infantry vs #6 armour: d10 10",
            "🎲 Charon, combat, #6 armour vs #1 infantry: d10 1 + COMBAT +3 + WINS vs infantry +1 = **5**",
            "Round: attacker 10 against defender 5; #6 loses 1 HP.",
            "Charon: #6 armour GREEN 1 HP → GREEN 0 HP (wounded in battle #1).",
            "Charon: #6 armour killed in battle #1.",
            "The duel is over: the defender's #6 armour was killed.",
            "🎲 Gracchan Republic, promotion of #1 infantry (needs 6+): d10 6 vs >= 6: **success**",
            "Gracchan Republic: #1 infantry GREEN 3 HP → REGULAR 3 HP (promoted).",
            f"⏳ Battle #1 waits for Gracchan Republic to pair two units (/attack pair), until {at(1)}.",
        ]
        assert pairing.custom_ids == []

        # Duel 2, #2 against #7: #7's standing order is tried before the first round.
        second = choice_message(t, 1, since=mark)
        assert second is not pairing and second.content.startswith(f"⚔ Battle #1: {mention(t.alice)}, pick")
        pair_id, _ = second.custom_ids
        assert [o["value"] for o in second.find_component(pair_id)["options"]] == ["1:7", "2:7"]
        t.dice.push(10,  # #7's retreat: 10 + mod(S 10) 0 > Charon's M 9: it leaves the battle
                    1, 1)  # promotions: #2 (needs 6) and #7 (needs 6, -2 for retreating) fail
        won = await t.select(t.alice, second, pair_id, ["2:7"])
        assert won.embed["description"].splitlines() == [
            "Duel in battle #1: #2 infantry against #7 armour (paired by Gracchan Republic).",
            "🎲 Charon, retreat of #7 armour, battle #1: d10 10 vs > 9: **success**",
            "Charon's #7 armour retreats from battle #1.",
            "The duel is over: the defender's #7 armour retreated.",
            "🎲 Gracchan Republic, promotion of #2 infantry (needs 6+): d10 1 vs >= 6: **failure**",
            "🎲 Charon, promotion of #7 armour (needs 6+): d10 1 + retreated -2 = **-1** vs >= 6: **failure**",
            "🏁 Battle #1 is over: attacker won; Gracchan Republic wins.",
            "Gracchan Republic: #1 infantry REGULAR 3 HP → REGULAR 4 HP (back to full HP after the battle).",
            "Gracchan Republic: PROPAGANDA +1 (won battle #1).",
            "Charon: PROPAGANDA -1 (lost battle #1).",
            "Charon: LAND -5 (province lost to Gracchan Republic).",
            "Charon: ECONOMY -3 (cut to fit land (province lost to Gracchan Republic)).",
            "Charon: MILITARY -2 (cut to fit land (province lost to Gracchan Republic)).",
            "Gracchan Republic: LAND +5 (province conquered from Charon).",
            "Gracchan Republic: foreign patches +1 (province of Charon).",
        ]
        assert second.custom_ids == []
        assert t.dice.all_used()

        state = await t.state(rb)
        gracchan, charon = state.nations["Gracchan Republic"], state.nations["Charon"]
        assert (gracchan.land, gracchan.propaganda, gracchan.foreign_patches, gracchan.effective_stability) == (
            25, 11, 1, 9)
        assert (charon.land, charon.economy, charon.military, charon.propaganda) == (15, 8, 7, 9)
        assert (gracchan.units[1].rank, gracchan.units[1].hp, gracchan.units[1].battle) == ("regular", 4, None)
        assert sorted(charon.units) == [7, 8, 9] and charon.units[7].battle is None
        assert state.battles[1].result == "attacker won"

        status = t.status_message().embeds[0]
        assert [f["name"] for f in status["fields"]] == ["Gracchan Republic", "Charon"]  # no battle left
        assert status["fields"][0]["value"].startswith("E 12 S 9 M 8 P 11 L 25")
        assert status["fields"][1]["value"].startswith("E 8 S 10 M 7 P 9 L 15")
        report = await t.run(t.bob, "attack status")
        assert report.embed["description"] == "#1 Gracchan Republic → Charon: attacker won"
        assert report.embed["fields"][0]["value"].splitlines() == [
            "attacking #1, #2; defending none",
            "#1 infantry vs #6 armour: 2 rounds — the defender's #6 armour was killed",
            "#2 infantry vs #7 armour: 0 rounds — the defender's #7 armour retreated",
        ]

        # The old messages' selects are gone; a stale copy of one (a client that missed the edit) is refused.
        stale = t.fake.get_message(pairing.id)
        stale.components = [{"type": 1, "components": [{"type": 3, "custom_id": pair_id,
                                                        "options": [{"label": "x", "value": "1:7"}]}]}]
        refused = await t.select(t.alice, stale, pair_id, ["1:7"])
        assert refused.ephemeral and texts(refused) == "⛔ battle #1 is over"


async def test_a_battle_fought_with_slash_commands(tmp_path):
    async with table(tmp_path) as t, t.bot() as rb:
        await start_war(t)
        declared = await t.run(t.alice, "attack declare", target="charon", units="#1")
        assert texts(declared).startswith("⚔ Gracchan Republic attacks Charon with #1 (battle #1).")
        wrong = await t.run(t.bob, "attack commit", units="1")
        assert wrong.ephemeral and texts(wrong) == "⛔ unit #1 belongs to Gracchan Republic, not Charon"

        t.dice.push(1, 1)  # initiative 0 against 0: the defender wins ties
        committed = await t.run(t.bob, "attack commit", units="6 7", battle=1)
        assert "The defender wins the initiative in battle #1 and picks the pairings." in texts(committed)
        waiting = await t.run(t.alice, "attack status", battle=1)
        assert waiting.embed["description"] == (
            f"#1 Gracchan Republic → Charon: waits for Charon to pair, default {at(1)}")
        assert waiting.embed["fields"] == [{"name": "Battle #1", "value": "attacking #1; defending #6, #7",
                                            "inline": False}]
        not_yours = await t.run(t.alice, "attack pair", attacker=1, defender=6)
        assert not_yours.ephemeral
        assert texts(not_yours) == "⛔ no battle is waiting for a pairing from Gracchan Republic"
        not_yours = await t.run(t.alice, "attack pair", attacker=1, defender=6, battle=1)
        assert not_yours.ephemeral and texts(not_yours) == (
            "⛔ Charon won the initiative in battle #1: only its player pairs the units")
        ordered = await t.run(t.alice, "attack retreat", unit=1)
        assert texts(ordered) == "Unit #1 retreats now (battle #1)."

        t.dice.push(10,  # #1's retreat: 10 + mod(S 10) 0 > Gracchan's M 8
                    1, 6)  # promotions: #1 (needs 6, -2) fails; #6 (needs 6) rises to REGULAR
        paired = await t.run(t.bob, "attack pair", attacker=1, defender=6)
        assert paired.embed["description"].splitlines() == [
            "Duel in battle #1: #1 infantry against #6 armour (paired by Charon).",
            "🎲 Gracchan Republic, retreat of #1 infantry, battle #1: d10 10 vs > 8: **success**",
            "Gracchan Republic's #1 infantry retreats from battle #1.",
            "The duel is over: the attacker's #1 infantry retreated.",
            ("🎲 Gracchan Republic, promotion of #1 infantry (needs 6+): d10 1 + retreated -2 = **-1** vs >= 6: "
             "**failure**"),
            "🎲 Charon, promotion of #6 armour (needs 6+): d10 6 vs >= 6: **success**",
            "Charon: #6 armour GREEN 2 HP → REGULAR 2 HP (promoted).",
            "🏁 Battle #1 is over: defender won; Charon wins.",
            "Charon: #6 armour REGULAR 2 HP → REGULAR 3 HP (back to full HP after the battle).",
            "Charon: PROPAGANDA +1 (won battle #1).",
            "Gracchan Republic: PROPAGANDA -1 (lost battle #1).",
        ]
        state = await t.state(rb)
        assert (state.nations["Charon"].propaganda, state.nations["Gracchan Republic"].propaganda) == (11, 9)
        assert state.nations["Charon"].land == state.nations["Gracchan Republic"].land == 20

        # The GM makes a pending choice, then cancels the battle.
        await t.run(t.bob, "attack declare", target="Gracchan Republic", units="8", retreat_at=1)
        t.dice.push(10, 1)  # initiative: 10 - 1 = 9 against 1 - 1 = 0, the attacker picks
        decided = await t.run(t.gm, "gm decide", battle=2, units="2 3")
        lines = texts(decided).splitlines()
        assert lines[0] == f"🛡 #2, #3 defend in battle #2 (committed by {mention(t.gm)})."
        assert lines[1:4] == [
            "🎲 Charon, initiative (attacker), battle #2: d10 10 + mod(M) -1 = **9**",
            "🎲 Gracchan Republic, initiative (defender), battle #2: d10 1 + mod(M) -1 = **0**",
            "The attacker wins the initiative in battle #2 and picks the pairings.",
        ]
        assert choice_message(t, 2).content.startswith(f"⚔ Battle #2: {mention(t.bob)}, pick the next pairing")
        cancelled = await t.run(t.gm, "gm battle cancel", battle=2)
        assert texts(cancelled) == "🏁 Battle #2 is over: cancelled."
        again = await t.run(t.gm, "gm battle cancel", battle=2)
        assert again.ephemeral and texts(again) == "⛔ battle #2 is over (cancelled)"
        assert t.dice.all_used()
        state = await t.state(rb)
        assert all(u.battle is None for n in state.nations.values() for u in n.units.values())


async def test_a_select_still_works_after_a_restart(tmp_path):
    async with table(tmp_path) as t:
        async with t.bot():
            await start_war(t)
            await t.run(t.alice, "attack declare", target="Charon", units="1")
            commit = choice_message(t, 1)
            posted = len(t.messages())
        # A new process on the same database: the old message's select is routed to it by its custom id.
        async with t.bot() as rb:
            assert len(t.messages()) == posted  # nothing fell due: the restart announces nothing
            t.dice.push(3, 9)  # initiative: 3 - 1 = 2 against 9 - 1 = 8: the defender picks
            mark = t.fake.mark()
            committed = await t.select(t.bob, commit, commit.custom_ids[0], ["8", "9"])
            assert not committed.ephemeral
            assert committed.embed["description"].splitlines()[0] == (
                f"🛡 #8, #9 defend in battle #1 (committed by {mention(t.bob)}).")
            assert commit.custom_ids == []
            pairing = choice_message(t, 1, since=mark)  # posted by the new process
            assert pairing.content == f"⚔ Battle #1: {mention(t.bob)}, pick the next pairing (default {at(1)})."
            assert t.dice.all_used()
            battle = (await t.state(rb)).battles[1]
            assert (battle.stage, battle.in_fight_defending, battle.initiative) == ("pairing", [8, 9], "defender")
