"""Godsfire on Discord: the real bot (discord.py) against the fake Discord.

The console transcript's key points through `/godsfire`: systems set up with entered dice (the sheet
embed after each), autocomplete of systems and of the chosen system's regions, a chart result as an embed
(column, die, result in words), a refusal shown to its author alone that changes nothing, the phases
stepped to the Social Interphase, a tax, and the status, phase and interphase embeds (the interphase's
checklist: each player's steps D.1–D.14 marked done, compulsory or left, within Discord's limits for 8 players).
Players are their Discord ids: the bot writes them as mentions, read back here as @names.
"""

from __future__ import annotations

from datetime import UTC, datetime

from discordkit import field, table, texts

from cogs.render import message_batches, view_embeds
from engine.commands import COMMANDS
from engine.godsfire.rules import GodsfireHouse
from engine.godsfire.state import GodsfireState, Loan, Player, Region, System
from engine.godsfire.views import interphase_view
from engine.rulesets import ruleset_of


def named(t, *items) -> str:
    """`texts` with each member's mention as @name."""
    text = texts(*items)
    for member in (t.gm, t.alice, t.bob):
        text = text.replace(f"<@{member.id}>", f"@{member.user.name}")
    return text


def snapshot(state) -> dict:
    return ruleset_of(state).state_to_dict(state)


def test_every_godsfire_command_has_its_discord_command():
    paths = {c.path for c in COMMANDS if c.ruleset == "godsfire"}
    top = {path.split()[1] for path in paths}
    assert len(top) <= 25  # Discord's limit on one group's commands and subgroups


async def test_godsfire_setup_charts_refusals_phases_and_tax_on_discord(tmp_path):
    async with table(tmp_path) as t, t.bot() as rb:
        started = await t.run(t.gm, "game start", ruleset="godsfire")
        assert named(t, started).startswith("A Godsfire game begins, refereed by the bot; GM: @gm.")

        # Sol: region 1 party 3+4 (M), allegiance 5 (5: a Moderate), economy 3; region 2 party 1+1 (R),
        # allegiance 6 (4), economy 6. The answer: the rolls, then Sol's sheet.
        await t.run(t.gm, "gm dice", values="3 4 5 3 1 1 6 6", purpose="any")
        added = await t.run(t.gm, "godsfire system add", name="Sol", owner=t.alice, planets=2, regions=2)
        assert not added.ephemeral
        sheet = added.embeds[-1]  # the system's sheet: its regions' rows in a code block (their columns kept)
        assert sheet["title"] == "Sol"
        assert named(t, type("M", (), {"embeds": [sheet]})()).splitlines()[1:] == [
            "@alice's system, 2 planets; bank 0 GB; space none; loans none", "```",
            "• Region 1: Moderate (M), allegiance 5, Agriculture-1 (A-1); ground none",
            "• Region 2: Reactionary (R), allegiance 4, Agriculture-2 (A-2); ground none", "```"]
        assert "✨ Sol (@alice's, 2 planets): regions 1: M 5 A-1; 2: R 4 A-2." in named(t, added)
        await t.run(t.gm, "gm dice", values="6 6 1 1", purpose="any")
        await t.run(t.gm, "godsfire system add", name="Vega", owner=t.bob)

        # Autocomplete: the systems (alice's own first), then the chosen system's regions.
        systems = await t.fake.autocomplete(t.guild, t.channel, t.bob, "godsfire money tax", focused="system")
        assert [c["value"] for c in systems] == ["Vega", "Sol"]
        assert systems[0]["name"] == "Vega (bob (you), 1 region, bank 0 GB)"
        regions = await t.fake.autocomplete(t.guild, t.channel, t.alice, "godsfire region buy", focused="region",
                                            options={"system": "sol"})
        assert [(c["name"], c["value"]) for c in regions] == [
            ("Region 1: M, allegiance 5, A-1", 1), ("Region 2: R, allegiance 4, A-2", 2)]

        # A chart: 7 against 3 reads the 3-1 column; die 4: D1.
        await t.run(t.gm, "gm dice", values="4", purpose="any")
        fought = await t.run(t.alice, "godsfire chart combat", attack=7, defence=3)
        chart = fought.embeds[-1]
        assert chart["title"] == "Combat Results Table"
        assert field(chart, "Column") == "3-1"
        assert field(chart, "Die") == "4"
        assert field(chart, "Result") == "**D1** — the defender loses 1 unit, the attacker chooses"

        # A refusal: to its author alone, and nothing changes.
        before = snapshot(await t.state(rb))
        refused = await t.run(t.bob, "godsfire phase next")
        assert refused.ephemeral and texts(refused) == "⛔ only the GM may step the phases"
        assert snapshot(await t.state(rb)) == before

        shown = await t.run(t.bob, "godsfire system show", name="vega")
        assert shown.embed["title"] == "Vega"
        assert "• Region 1: Extremist (E), allegiance 2, Subsistence (S); ground none" in texts(shown)

        phase = await t.run(t.alice, "godsfire phase show")
        assert phase.embed["title"] == "Turn 1: Movement Phase (next: Combat Phase)."
        await t.run(t.gm, "gm dice", values="3 5", purpose="any")  # the turn's player order: alice 3, bob 5
        started = await t.run(t.gm, "godsfire phase next")  # A.1: turn 1's initiative starts, never skipped
        assert "@bob holds initiative" in named(t, started)
        await t.run(t.bob, "godsfire movement pass")
        await t.run(t.alice, "godsfire movement pass")
        for _ in range(3):
            await t.run(t.gm, "godsfire phase next")
        left = await t.run(t.alice, "godsfire interphase show")
        assert left.embed["title"].startswith("Social Interphase, turn 1: each player's steps in the sheet's order")
        whose = [line for line in named(t, left).splitlines() if line.startswith("@")]
        assert whose == ["@bob: next D.1 tax and loan repayment (tax)",  # bob rolled 5, alice 3
                         "@alice: next D.1 tax and loan repayment (tax)"]

        # Tax: 2 planets +2, region 2 (A-2) +1, extortion in region 2 +1 (its allegiance 4 → 3).
        taxed = await t.run(t.alice, "godsfire money tax", system="Sol", extort="2")
        assert "Sol: bank 0 → 4" in named(t, taxed)
        sol = (await t.state(rb)).system("Sol")
        assert sol.bank == 4 and sol.region(2).allegiance == 3

        # alice skips to D.3 (marked done: D.1's repayment and D.2 close with it); the checklist shows it.
        await t.run(t.alice, "godsfire interphase done", step="transfer")
        checklist = await t.run(t.bob, "godsfire interphase show")
        shown = named(t, checklist).splitlines()
        at = shown.index("@alice: next D.4 purchases (purchase)")
        assert shown[at + 1:at + 16] == [
            "• D.1 tax and loan repayment (tax): done",
            "• D.1 loan repayment (loans): done — nothing due",
            "• D.2 borrowing (borrow): done",
            "• D.3 transfers (transfer): done",
            "• D.4 purchases (purchase): next",
            "• D.5 loyalty and economy raises (raise): left",
            "• D.6 party changes (party): left",
            "• D.7 revolts (revolts): left",
            "• D.8 subversion (subversion): left — compulsory",
            "• D.9 allegiance drops (allegiance): left — compulsory",
            "• D.10 economy drops (economy): left — compulsory",
            "• D.11 subversion placing (subvert): left",
            "• D.12 de-subversion (desubvert): left",
            "• D.13 counter-subversion (counter): left",
            "• D.14 new units (units): left"]
        assert shown[shown.index("@bob: next D.1 tax and loan repayment (tax)") + 1] == (
            "• D.1 tax and loan repayment (tax): next")

        status = await t.run(t.bob, "godsfire status")
        assert status.embed["title"] == "Godsfire — turn 1, Social Interphase"
        assert "Sol (@alice): 2 regions, bank 4 GB, space none" in named(t, status)
        game_status = await t.run(t.bob, "game status")
        assert game_status.embed["title"] == status.embed["title"]
        assert t.dice.all_used()


def test_the_interphase_checklist_keeps_within_discord_s_limits():
    """8 players, each with 12 systems owing a loan repayment (a long note): the view laid out within Discord's
    limits (each embed within 6000 characters, its text within 4096, a message's embeds within 6000), every
    player's 15 steps there."""
    state = GodsfireState(gm="100000000000000000", house=GodsfireHouse(), started_at=datetime(2026, 3, 1, tzinfo=UTC),
                          phase="interphase")
    for i in range(8):
        player = str(100000000000000001 + i)
        state.players.append(Player(player))
        state.done[player] = ["tax", "loans", "borrow"][:i % 4]
        state.systems += [System(f"A system with a long name {i}-{j}", player, regions=[Region(1, "M", 3, "S")],
                                 loans=[Loan(3)]) for j in range(12)]
    embeds = view_embeds(interphase_view(state))
    assert all(len(e) <= 6000 and len(e.description or "") <= 4096 for e in embeds)
    assert all(sum(len(e) for e in batch) <= 6000 for batch in message_batches(embeds))
    lines = [line for e in embeds for line in (e.description or "").splitlines()]
    for i in range(8):  # whose, then D.1 … D.14 (15 steps)
        at = next(n for n, line in enumerate(lines) if line.startswith(f"<@{100000000000000001 + i}>: "))
        assert all(line.startswith("• ") for line in lines[at + 1:at + 16])


async def test_godsfire_commands_are_refused_in_a_god_dice_game(tmp_path):
    async with table(tmp_path) as t, t.bot():
        await t.run(t.gm, "game start", ruleset="goddice")
        # a Godsfire game elsewhere in the server: its commands are offered here too
        await t.run(t.gm, "game start", ruleset="godsfire", channel=t.fake.add_channel(t.guild, "stars"))
        refused = await t.run(t.alice, "godsfire status")
        assert refused.ephemeral
        assert texts(refused) == "⛔ /godsfire status is a Godsfire command, and this channel's game is God Dice"
        assert await t.fake.autocomplete(t.guild, t.channel, t.alice, "godsfire money tax", focused="system") == []


async def test_every_godsfire_command_answers_on_discord(tmp_path):
    """Each Godsfire command of the vocabulary once, by its name (the same on Discord as in the console),
    mostly in the Social Interphase: each reaches the engine (or its query) and is answered — its result or a
    one-line refusal — with nothing logged as an error."""
    async with table(tmp_path) as t, t.bot():
        await t.run(t.gm, "game start", ruleset="godsfire")
        await t.run(t.gm, "gm dice", values="3 4 5 3 1 1 6 6 6 6 1 1 2 2 2 2", purpose="any")
        runs = [
            (t.gm, "godsfire system add", {"name": "Sol", "owner": t.alice, "planets": 2, "regions": 2}),
            (t.gm, "godsfire system add", {"name": "Vega", "owner": t.bob}),
            (t.gm, "godsfire system add", {"name": "Rigel", "neutral": True}),
            (t.gm, "godsfire player add", {"name": t.alice, "government": "Sol"}),
            (t.gm, "godsfire system conquer", {"name": "Vega", "player": str(t.alice.id)}),
            (t.gm, "godsfire set", {"field": "bank", "value": "20", "system": "Sol"}),
            (t.alice, "godsfire system show", {"name": "Sol"}),
            (t.alice, "godsfire chart combat", {"attack": 3, "defence": 1, "nebula": True}),
            (t.alice, "godsfire chart transit", {"column": "0"}),
            (t.alice, "godsfire chart money", {"die": "black"}),
            (t.alice, "godsfire chart move", {"unit": "NG", "cells": 3, "ground": 1}),
            (t.alice, "godsfire chart stack", {"space": 4, "combat": 7, "total": 13}),
            (t.alice, "godsfire phase show", {}),
            (t.gm, "godsfire phase next", {}),
            (t.gm, "godsfire phase next", {}),
            (t.gm, "godsfire phase next", {}),
            (t.alice, "godsfire status", {}),
            (t.alice, "godsfire money tax", {"system": "Sol", "extort": "1"}),
            (t.alice, "godsfire money repay", {"system": "Sol"}),
            (t.alice, "godsfire money borrow", {"system": "Sol", "amount": 4}),
            (t.alice, "godsfire money transfer", {"from": "Sol", "to": "transit", "amount": 1}),
            (t.alice, "godsfire region buy", {"system": "Sol", "region": 1, "type": "AG", "count": 1}),
            (t.alice, "godsfire region loyalty", {"system": "Sol", "region": 2, "amount": 1}),
            (t.alice, "godsfire region develop", {"system": "Sol", "region": 1}),
            (t.alice, "godsfire region place", {"system": "Sol", "region": 1, "type": "AG", "count": 1}),
            (t.alice, "godsfire interphase ministers", {}),
            (t.alice, "godsfire region party", {"system": "Sol", "region": 2, "pay": "ng"}),
            (t.alice, "godsfire region revolt", {"system": "Sol", "region": 1, "way": "negotiate"}),
            (t.alice, "godsfire subversion resolve", {}),
            (t.bob, "godsfire subversion subvert", {"system": "Sol", "region": 1, "amount": 1}),
            (t.alice, "godsfire subversion desubvert", {"system": "Sol", "region": 1, "amount": 1}),
            (t.alice, "godsfire subversion counter", {"system": "Sol", "region": 1, "amount": 1}),
            (t.alice, "godsfire interphase allegiance", {}),
            (t.alice, "godsfire interphase economy", {"lower": "Sol 2"}),
            (t.alice, "godsfire interphase show", {}),
            (t.alice, "godsfire interphase done", {"step": "borrow"}),
            (t.gm, "godsfire interphase end", {}),
            # the table, the Movement Phase and war (refused here, out of their phase, or done)
            (t.alice, "godsfire counters", {}),
            (t.gm, "godsfire counter add", {"kind": "AG", "at": "K1", "owner": str(t.alice.id)}),
            (t.gm, "godsfire counter remove", {"counters": "999"}),
            (t.gm, "godsfire system control", {"system": "Rigel", "player": str(t.alice.id)}),
            (t.gm, "godsfire movement initiative", {}),
            (t.alice, "godsfire movement move", {"counters": "1", "to": "K2", "through": "K1"}),
            (t.alice, "godsfire movement done", {}),
            (t.alice, "godsfire movement pass", {}),
            (t.bob, "godsfire movement transit", {"answer": "block", "retreat": "K3"}),
            (t.alice, "godsfire war declare", {"target": str(t.bob.id)}),
            (t.alice, "godsfire money send", {"amount": 1, "from": "Sol", "to": "Vega", "cells": 3}),
            (t.alice, "godsfire money carry", {"amount": 1, "from": "Sol"}),
            (t.gm, "godsfire victory set", {"condition": "last-ng"}),
        ]
        runs += [
            (t.alice, "godsfire combat announce", {"units": "1", "target": "Vega"}),
            (t.alice, "godsfire combat cancel", {"number": 1}),
            (t.gm, "godsfire combat resolve", {}),
            (t.bob, "godsfire combat losses", {"units": "1"}),
            (t.bob, "godsfire combat retreat", {"to": "K4"}),
        ]
        runs += [(t.alice, "godsfire movement build", {"counters": "1 2"}),  # refused: not the Movement Phase
                 (t.alice, "godsfire movement split", {"counter": 1}),
                 (t.gm, "godsfire map load", {"name": "twin-reaches"}),  # refused: Sol is not on it
                 (t.alice, "godsfire map show", {})]  # refused: no map
        runs.append((t.gm, "godsfire victory declare", {"player": str(t.alice.id)}))
        for user, path, options in runs:
            result = await t.run(user, path, **options)
            assert result.acknowledged and texts(*result.messages), path
        assert {c.path for c in COMMANDS if c.ruleset == "godsfire"} == {path for _, path, _ in runs}
