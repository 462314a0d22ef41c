"""Battles on Discord: the choice messages with their selects, who may use them, and a restart in between.

Gracchan Republic (alice): infantry #1-#3 (GREEN, 3 HP: infantry is its STRENGTH), #4 bomber, #5 armour; M 8.
Charon (bob): armour #6-#8 (GREEN, 2 HP, COMBAT +3, +1 against infantry), #9 bomber; M 9, S 10, E 11.
"""

from __future__ import annotations

from datetime import timedelta

import discord
from discordkit import START, at, mention, settle, start_war, table, texts

from cogs.nations.render import battle_embed
from engine.nations.events import BattleEnded, DuelEnded, DuelStarted, RoundFought, UnitLeftFight
from engine.nations.rules import HouseSettings
from engine.nations.snapshot import state_to_dict
from engine.nations.state import Battle, GameState, Nation

NEUTRAL, GREEN, ORANGE, PURPLE = (discord.Colour.dark_gold().value, discord.Colour.green().value,
                                  discord.Colour.orange().value, discord.Colour.purple().value)


def fields_of(embed) -> list[tuple[str, str, bool]]:
    return [(f["name"], f["value"], f["inline"]) for f in embed.get("fields", [])]


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
            f"⏳ Battle #1 waits for Charon to commit 1-3 units (/attack commit), until {at(4)}.",
        ]
        game = await rb.bot.referee.game_id(t.key())

        # The defender is asked, by mention, with a select of its free units.
        commit = choice_message(t, 1)
        assert commit.content == f"⚔ Battle #1: {mention(t.bob)}, commit 1 to 3 units (default {at(4)})."
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
            f"⏳ Battle #1 waits for Gracchan Republic to pair two units (/attack pair), until {at(4)}.",
        ]
        assert commit.custom_ids == []  # used: its select is gone

        pairing = choice_message(t, 1, since=mark)
        assert pairing.content == f"⚔ Battle #1: {mention(t.alice)}, pick the next pairing (default {at(4)})."
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
        # A battle's report is an embed of fields (issue 17): the sides, each duel named by its winner, what comes next;
        # gold (neutral) while the battle goes on.
        [embed] = paired.embeds
        assert (embed["title"], embed["color"]) == ("⚔ Battle #1: Gracchan Republic attacks Charon", NEUTRAL)
        assert "description" not in embed  # the commitment and initiative were an earlier report's
        assert fields_of(embed) == [
            ("Attacker: Gracchan Republic", f"{mention(t.alice)}\n`#1` infantry REGULAR\n`#2` infantry GREEN", True),
            ("Defender: Charon", f"{mention(t.bob)}\n`#6` armour — killed\n`#7` armour GREEN", True),
            ("Duel 1 — Gracchan Republic's #1 infantry wins", "\n".join([
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
            ]), False),
            ("Next choice",
             f"⏳ Battle #1 waits for Gracchan Republic to pair two units (/attack pair), until {at(4)}.", False),
        ]
        assert embed["footer"]["text"] == "Gracchan Republic · Turn 1"
        assert pairing.custom_ids == []

        # Duel 2, #2 against #7: #7's standing order is tried before the first round.
        second = choice_message(t, 1, since=mark)
        assert second is not pairing and second.content.startswith(f"⚔ Battle #1: {mention(t.alice)}, pick")
        pair_id, _ = second.custom_ids
        assert [o["value"] for o in second.find_component(pair_id)["options"]] == ["1:7", "2:7"]
        t.dice.push(10,  # #7's retreat: 10 + mod(S 10) 0 > Charon's M 9: it leaves the battle
                    1, 1)  # promotions: #2 (needs 6) and #7 (needs 6, -2 for retreating) fail
        won = await t.select(t.alice, second, pair_id, ["2:7"])
        # Green: the attacker won. Duel 2 (numbered on from the earlier report's), then the result with the conquest.
        [embed] = won.embeds
        assert (embed["title"], embed["color"]) == ("⚔ Battle #1: Gracchan Republic attacks Charon", GREEN)
        assert fields_of(embed) == [
            ("Attacker: Gracchan Republic", f"{mention(t.alice)}\n`#1` infantry REGULAR\n`#2` infantry GREEN", True),
            ("Defender: Charon", f"{mention(t.bob)}\n`#6` armour — killed\n`#7` armour GREEN — retreated", True),
            ("Duel 2 — Gracchan Republic's #2 infantry wins", "\n".join([
                "Duel in battle #1: #2 infantry against #7 armour (paired by Gracchan Republic).",
                "🎲 Charon, retreat of #7 armour, battle #1: d10 10 vs > 9: **success**",
                "Charon's #7 armour retreats from battle #1.",
                "The duel is over: the defender's #7 armour retreated.",
                "🎲 Gracchan Republic, promotion of #2 infantry (needs 6+): d10 1 vs >= 6: **failure**",
                "🎲 Charon, promotion of #7 armour (needs 6+): d10 1 + retreated -2 = **-1** vs >= 6: **failure**",
            ]), False),
            ("Result — Gracchan Republic wins", "\n".join([
                "🏁 Battle #1 is over: attacker won; Gracchan Republic wins.",
                "Gracchan Republic: #1 infantry REGULAR 3 HP → REGULAR 4 HP (back to full HP after the battle).",
                "Gracchan Republic: PROPAGANDA +1 (won battle #1).",
                "Charon: PROPAGANDA -1 (lost battle #1).",
                "Charon: LAND -5 (province lost to Gracchan Republic).",
                "Charon: ECONOMY -3 (cut to fit land (province lost to Gracchan Republic)).",
                "Charon: MILITARY -2 (cut to fit land (province lost to Gracchan Republic)).",
                "Gracchan Republic: LAND +5 (province conquered from Charon).",
                "Gracchan Republic: foreign patches +1 (province of Charon).",
            ]), False),
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
        assert status["description"].splitlines()[1:] == [  # no battle left
            f"Gracchan Republic — {mention(t.alice)}: E 12 S 9 M 8 P 11 L 25; 5 units; 1 action left",
            f"Charon — {mention(t.bob)}: E 8 S 10 M 7 P 9 L 15; 3 units; 2 actions left"]
        report = await t.run(t.bob, "attack status")
        [battle] = report.embed["fields"]
        assert battle["name"] == "Battle #1, turn 1: Gracchan Republic against Charon — attacker won"
        assert battle["value"].splitlines() == [
            "• attacking: #1; #2",
            "• defending: #6 (out); #7 (out), retreat now",
            "• duel: #1 infantry vs #6 armour, 2 rounds — the defender's #6 armour was killed",
            "• duel: #2 infantry vs #7 armour, 0 rounds — the defender's #7 armour retreated",
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
        [battle] = waiting.embed["fields"]  # a heading with a moment: at the head of the field's text, in bold
        assert battle["value"].splitlines() == [
            f"**Battle #1, turn 1: Gracchan Republic against Charon — waits for Charon to pair units (until {at(4)})**",
            "• attacking: #1", "• defending: #6; #7"]
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
        # Orange: the attacker lost (the defender held); the colour is the attacker's outcome, whoever reads it.
        [embed] = paired.embeds
        assert (embed["title"], embed["color"]) == ("⚔ Battle #1: Gracchan Republic attacks Charon", ORANGE)
        assert fields_of(embed) == [
            ("Attacker: Gracchan Republic", f"{mention(t.alice)}\n`#1` infantry GREEN — retreated", True),
            ("Defender: Charon", f"{mention(t.bob)}\n`#6` armour REGULAR\n`#7` armour GREEN", True),
            ("Duel 1 — Charon's #6 armour wins", "\n".join([
                "Duel in battle #1: #1 infantry against #6 armour (paired by Charon).",
                "🎲 Gracchan Republic, retreat of #1 infantry, battle #1: d10 10 vs > 8: **success**",
                "Gracchan Republic's #1 infantry retreats from battle #1.",
                "The duel is over: the attacker's #1 infantry retreated.",
                ("🎲 Gracchan Republic, promotion of #1 infantry (needs 6+): d10 1 + retreated -2 = **-1** vs >= 6: "
                 "**failure**"),
                "🎲 Charon, promotion of #6 armour (needs 6+): d10 6 vs >= 6: **success**",
                "Charon: #6 armour GREEN 2 HP → REGULAR 2 HP (promoted).",
            ]), False),
            ("Result — Charon wins", "\n".join([
                "🏁 Battle #1 is over: defender won; Charon wins.",
                "Charon: #6 armour REGULAR 2 HP → REGULAR 3 HP (back to full HP after the battle).",
                "Charon: PROPAGANDA +1 (won battle #1).",
                "Gracchan Republic: PROPAGANDA -1 (lost battle #1).",
            ]), False),
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
        [embed] = cancelled.embeds  # purple: the GM cancelled it
        assert (embed["title"], embed["color"]) == ("⚔ Battle #2: Charon attacks Gracchan Republic", PURPLE)
        assert fields_of(embed)[-1] == ("Result — cancelled", "🏁 Battle #2 is over: cancelled.", False)
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
            assert pairing.content == f"⚔ Battle #1: {mention(t.bob)}, pick the next pairing (default {at(4)})."
            assert t.dice.all_used()
            battle = (await t.state(rb)).battles[1]
            assert (battle.stage, battle.in_fight_defending, battle.initiative) == ("pairing", [8, 9], "defender")


# --- issue 17: a choice waits a third of the turn, its chooser is reminded half-way; big battles; turn ends -----


async def wake(rb, t) -> None:
    """What the scheduler does at a deadline: wake the channel's game."""
    await rb.bot.get_cog("Clock").wake(await rb.bot.referee.game_id(t.key()))
    await settle(t.fake)


async def test_a_choice_waits_a_third_of_the_turn_and_its_chooser_is_reminded_half_way(tmp_path):
    async with table(tmp_path) as t, t.bot() as rb:
        await start_war(t)  # a 12-hour turn: a choice waits 4 hours, its reminder at 2
        await t.run(t.alice, "attack declare", target="Charon", units="1 2")
        battle = (await t.state(rb)).battles[1]
        assert (battle.deadline, battle.reminder_at) == (START + timedelta(hours=4), START + timedelta(hours=2))
        assert choice_message(t, 1).content == f"⚔ Battle #1: {mention(t.bob)}, commit 1 to 3 units (default {at(4)})."
        # The pinned status shows the open choice and its deadline, absolute and relative.
        status = t.status_message().embeds[0]
        assert status["description"].splitlines()[-1] == (
            f"Battle #1 waits for Charon to commit units (default at {at(4)})")

        posted = len(t.messages())
        t.clock.advance(hours=1, minutes=59)
        await wake(rb, t)
        assert len(t.messages()) == posted  # not yet
        t.clock.advance(minutes=1)
        await wake(rb, t)
        [reminder] = t.messages()[posted:]
        assert reminder.content == (f"⏰ Reminder: battle #1 still waits for {mention(t.bob)} (Charon) to commit 1-3 "
                                    f"units (/attack commit); the default applies {at(4)}.")
        assert reminder.mention_ids == [t.bob.id] and reminder.embeds == []
        assert (await t.state(rb)).battles[1].reminder_at is None
        await wake(rb, t)
        assert len(t.messages()) == posted + 1  # once
        assert t.status_message().embeds[0]["description"].endswith(f"(default at {at(4)})")

        # At 4 hours the default applies; the commitment's choice message loses its select.
        t.clock.advance(hours=2)
        t.dice.push(10, 8)  # initiative: the attacker pairs, by 8 hours, reminded at 6
        await wake(rb, t)
        assert "⌛ Time is up for Charon's commit in battle #1: its strongest free units #6, #7, #8." in texts(
            *t.messages()[posted + 1:])
        battle = (await t.state(rb)).battles[1]
        assert (battle.stage, battle.deadline, battle.reminder_at) == (
            "pairing", START + timedelta(hours=8), START + timedelta(hours=6))
        assert t.dice.all_used()


async def test_a_reminder_missed_while_down_is_not_sent_and_a_turn_end_gets_its_own_embed(tmp_path):
    async with table(tmp_path) as t:
        async with t.bot() as rb:
            await start_war(t)
            t.clock.advance(hours=9)
            await t.run(t.alice, "attack declare", target="Charon", units="1 2")
            t.dice.push(10, 8)  # initiative: Gracchan Republic pairs, by 13 hours (reminder at 11)
            await t.run(t.bob, "attack commit", units="6")
            posted = len(t.messages())
        # Down from 9 h to 13 h 01: the reminder (11 h) and the turn end (12 h) and the pairing's deadline pass.
        t.clock.advance(hours=4, minutes=1)
        t.dice.push(10, 1, 1,  # round 1: #1 10 against #6 1 + 4 = 5; #6's demotion roll fails
                    10, 1,  # round 2: #6 dies
                    1)  # #1's promotion fails
        async with t.bot() as rb:
            await settle(t.fake)
            new = t.messages()[posted:]
            assert not [m for m in new if "Reminder" in texts(m)]  # too late to be of use
            [announcement] = [m for m in new if m.embeds and m.embeds[0].get("title") == "Turn over"]
            turn, fought = announcement.embeds
            assert turn["description"] == (f"⏰ Turn 1 is over (time is up). Turn 2 begins and ends {at(24)}. "
                                           "Last turn — Gracchan Republic: ATTACK; Charon: nothing.")
            assert turn["color"] == discord.Colour.blue().value and "fields" not in turn
            assert (fought["title"], fought["color"]) == ("⚔ Battle #1: Gracchan Republic attacks Charon", GREEN)
            assert fought["description"] == ("⌛ Time is up for Gracchan Republic's pairing in battle #1: strongest "
                                             "against strongest: #1 against #6.")
            assert [f["name"] for f in fought["fields"]] == [
                "Attacker: Gracchan Republic", "Defender: Charon", "Duel 1 — Gracchan Republic's #1 infantry wins",
                "Result — Gracchan Republic wins"]
            assert "Turn" not in texts(announcement).split("Attacker:")[1]  # the turn end is not in the battle's
            assert (await t.state(rb)).battles[1].result == "attacker won"
            assert t.dice.all_used()


def test_a_battle_of_many_long_duels_stays_within_discords_limits():
    """50 duels of 30 rounds each: the embed keeps to 25 fields, 1024 characters a field and 6000 in all; the
    duels that do not fit are folded, one line each, into one field, and the result is still shown."""
    nations = {name: Nation(name, player, 10, 10, 10, 10, 20, "infantry", "bomber")
               for name, player in (("Avalon" * 6, "1" * 18), ("Brigid" * 6, "2" * 18))}
    attacker, defender = nations
    battle = Battle(1, attacker, defender, 1, "over", attacking=list(range(1, 51)), defending=list(range(51, 101)),
                    result="attacker won")
    state = GameState("gm", 1, 12.0, START, START + timedelta(hours=12), HouseSettings(), nations=nations,
                      battles={1: battle})
    events: list = []
    for duel in range(50):
        a, d = 1 + duel, 51 + duel
        events.append(DuelStarted(1, a, d, "infantry", "armour", attacker))
        battle.duels.append({"attacker_unit": a, "defender_unit": d, "attacker_type": "infantry",
                             "defender_type": "armour", "chosen_by": attacker, "rounds": [], "outcome": "x"})
        events += [RoundFought(1, {"kind": "round", "attacker_total": 10, "defender_total": 5, "loser": d})] * 30
        events += [UnitLeftFight(1, defender, d, "killed", "armour"), DuelEnded(1, "the defender's unit was killed")]
    events.append(BattleEnded(1, "attacker won", attacker, defender))
    embed = battle_embed(state, 1, events)
    assert len(embed.fields) <= 25 and len(embed) <= 6000
    assert all(len(f.value) <= 1024 and len(f.name) <= 256 for f in embed.fields)
    names = [f.name for f in embed.fields]
    shown = [n for n in names if n.startswith("Duel ")]
    assert names == [f"Attacker: {attacker}", f"Defender: {defender}", *shown, "More duels (" + str(50 - len(shown))
                     + ")", f"Result — {attacker} wins"]
    assert shown[0] == f"Duel 1 — {attacker}'s #1 infantry wins" and len(shown) >= 2
    assert embed.fields[2].value.endswith(" more lines")  # a duel too long for its field is cut, and says so
    folded = embed.fields[-2].value.splitlines()
    assert folded[0] == f"Duel {len(shown) + 1} — {attacker}'s #{len(shown) + 1} infantry wins"
    assert len(embed.fields[-2].value) <= 1024
