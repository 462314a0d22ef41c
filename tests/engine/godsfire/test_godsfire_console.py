"""Godsfire in the console: a transcript with every die entered by the GM, so each printed line is exact.

Two players and a neutral system set up from the starting tables, the charts (combat, in and out of a
nebula, a transit attack, a money die, a movement check), the phases stepped to the Social Interphase, a
tax with extortion, and the queries (`system show`, `phase`, `interphase`, `status`); refusals change nothing.
"""

from __future__ import annotations

import io
from pathlib import Path

from storehelpers import console_on, said

from console.app import Console
from data.store import Store

INTERPHASE_STEPS = [  # a player's checklist before any step (no loans: D.8-D.10 are the compulsory ones)
    "  D.1 tax and loan repayment (tax): next",
    "  D.1 loan repayment (loans): done — nothing due",
    "  D.2 borrowing (borrow): left",
    "  D.3 transfers (transfer): left",
    "  D.4 purchases (purchase): left",
    "  D.5 loyalty and economy raises (raise): left",
    "  D.6 party changes (party): left",
    "  D.7 revolts (revolts): left",
    "  D.8 subversion (subversion): left — compulsory",
    "  D.9 allegiance drops (allegiance): left — compulsory",
    "  D.10 economy drops (economy): left — compulsory",
    "  D.11 subversion placing (subvert): left",
    "  D.12 de-subversion (desubvert): left",
    "  D.13 counter-subversion (counter): left",
    "  D.14 new units (units): left",
]
SOL_BEFORE = [
    "Sol — alice's system, 2 planets; bank 0 GB; space none; loans none",
    "  Region 1: Moderate (M), allegiance 5, Agriculture-1 (A-1); ground none",
    "  Region 2: Reactionary (R), allegiance 4, Agriculture-2 (A-2); ground none",
]

TRANSCRIPT: list[tuple[str, list[str]]] = [
    ("gm /game start ruleset:godsfire", [
        ("A Godsfire game begins, refereed by the bot; GM: gm. The GM adds systems with /godsfire system add "
        "(their owners join as players); turn 1's Movement Phase.")]),
    ("gm /godsfire player add name:bob", ["🪐 bob joins the game (national allegiances R 5, M 5, E 5)."]),
    ("alice /godsfire system add name:Sol owner:alice", ["error: only the GM may add systems"]),
    # Sol: region 1 party 3+4 = 7 (M), allegiance 5 (a Moderate's 5 on 5-6), economy 3;
    #      region 2 party 1+1 = 2 (R), allegiance 6 (4: not a Moderate), economy 6 (A-2).
    ('gm /gm dice values:"3 4 5 3 1 1 6 6"', ["GM gm entered the next 8 dice."]),
    ("gm /godsfire system add name:Sol owner:alice planets:2 regions:2", [
        "🪐 alice joins the game (national allegiances R 5, M 5, E 5).",
        "🎲 alice, Sol region 1 party: d6 3 (GM die)",
        "🎲 alice, Sol region 1 party: d6 4 (GM die)",
        "🎲 alice, Sol region 1 allegiance: d6 5 (GM die)",
        "🎲 alice, Sol region 1 economy: d6 3 (GM die)",
        "🎲 alice, Sol region 2 party: d6 1 (GM die)",
        "🎲 alice, Sol region 2 party: d6 1 (GM die)",
        "🎲 alice, Sol region 2 allegiance: d6 6 (GM die)",
        "🎲 alice, Sol region 2 economy: d6 6 (GM die)",
        "✨ Sol (alice's, 2 planets): regions 1: M 5 A-1; 2: R 4 A-2.",
        "alice: government none → Sol (National Government on the first system).",
    ]),
    # Vega: party 6+6 = 12 (E), allegiance 1 (2), economy 1 (S).
    ('gm /gm dice values:"6 6 1 1"', ["GM gm entered the next 4 dice."]),
    ("gm /godsfire system add name:Vega owner:bob", [
        "🎲 bob, Vega region 1 party: d6 6 (GM die)",
        "🎲 bob, Vega region 1 party: d6 6 (GM die)",
        "🎲 bob, Vega region 1 allegiance: d6 1 (GM die)",
        "🎲 bob, Vega region 1 economy: d6 1 (GM die)",
        "✨ Vega (bob's, 1 planet): regions 1: E 2 S.",
    ]),
    ("alice /godsfire system show name:Sol", SOL_BEFORE),
    # The Combat Results Table: 7 against 3 is 2.33 to 1, read (in the attacker's favour) on 3-1; die 4: D1.
    ("gm /gm dice values:4", ["GM gm entered the next 1 die."]),
    ("alice /godsfire chart combat attack:7 defence:3", [
        "🎲 alice, combat: d6 4 (GM die)",
        "⚔ Combat, 7 against 3: odds 3-1; die 4: D1: the defender loses 1 unit, the attacker chooses.",
    ]),
    # In a nebula both halve (rounded up): 1 against 4, worse than 1-3, reads 1-3; die 6: AE.
    ("gm /gm dice values:6", ["GM gm entered the next 1 die."]),
    ("alice /godsfire chart combat attack:2 defence:7 nebula:true", [
        "🎲 alice, combat: d6 6 (GM die)",
        ("⚔ Combat, 2 against 7, halved in the nebula to 1 against 3½: odds 1-3; die 6: AE: the "
        "attacker is eliminated."),
    ]),
    ("gm /gm dice values:3", ["GM gm entered the next 1 die."]),
    ("bob /godsfire chart transit column:-1", [
        "🎲 bob, transit attack: d6 3 (GM die)",
        "☄ Transit attack, column -1; die 3: M1: the movers lose 1 unit, the stationary units choose.",
    ]),
    ("bob /godsfire chart transit column:-3", ["error: a Transit Attacks column is -2, -1, 0, not '-3'"]),
    ("gm /gm dice values:5", ["GM gm entered the next 1 die."]),
    ("bob /godsfire chart money die:red",
     ["🎲 bob, money (red die): d6 5 (GM die)", "💰 Money, red die: 5 + 6: 11 GB."]),
    ("bob /godsfire chart move unit:PDF cells:2 nebula:1", [
        ("🧭 Move check (PDF, 2 cells, 1 in a nebula): not allowed: a planetary defense force (PDF) moves 3; "
        "2 cells, 1 in a nebula (2 + 2 × 1 = 4) is more than its 3.")]),
    # The phases: the tax is refused outside the Social Interphase; only the GM steps them.
    ("alice /godsfire money tax system:Sol", [
        ("error: the sheet: the tax (D.1) is part of the Social Interphase (D); the game is in turn 1's Movement "
        "Phase")]),
    ("alice /godsfire phase show", ["Turn 1: Movement Phase (next: Combat Phase)."]),
    ("bob /godsfire phase next", ["error: only the GM may step the phases"]),
    # A.1: the Movement Phase is never skipped: the first step starts initiative, every player holds it in turn
    ("gm /gm dice values:\"6 2\"", ["GM gm entered the next 2 dice."]),
    ("gm /godsfire phase next", ["🎲 bob, turn 1 player order: d6 6 (GM die)",
                                 "🎲 alice, turn 1 player order: d6 2 (GM die)",
                                 "🎲 Turn 1's player order (A.1.1): bob, alice.",
                                 "▸ The counters match the sheet's boxes.",
                                 "▸ Bob holds initiative (A.1.2): move at least one counter, or pass."]),
    ("bob /godsfire movement pass", ["▸ Bob passes; initiative passes to alice (A.1.4)."]),
    ("alice /godsfire movement pass", ["▸ Alice passes; every player has held initiative (A.1.5): movement is over."]),
    ("gm /godsfire phase next", ["⏭ Turn 1: the Combat Phase begins."]),
    ("gm /godsfire phase next", ["⏭ Turn 1: the Last Chance to Declare War begins."]),
    ("gm /godsfire phase next", ["⏭ Turn 1: the Social Interphase begins."]),
    ("gm /godsfire phase show", ["Turn 1: Social Interphase (next: Movement Phase of turn 2)."]),
    ("alice /godsfire interphase show", [
        ("Social Interphase, turn 1: each player's steps in the sheet's order (a step skipped: /godsfire "
         "interphase done step:<step>; the compulsory ones left are applied when it ends):"),
        "bob: next D.1 tax and loan repayment (tax)", *INTERPHASE_STEPS,
        "alice: next D.1 tax and loan repayment (tax)", *INTERPHASE_STEPS,
    ]),
    # Tax: 2 planets +2, region 2 (A-2) +1, extortion in region 2 +1 and its allegiance 4 → 3.
    ("bob /godsfire money tax system:Sol", ["error: Sol belongs to alice: only its owner or the GM may tax there"]),
    ("alice /godsfire money tax system:Sol extort:2", [
        ("Sol: bank 0 → 4 (tax of turn 1: 2 planets +2, region 2 A-2 +1, extortion in region 2 "
        "+1 = 4 GB)."),
        "Sol region 2: allegiance 4 → 3 (extortion (D.1.3): allegiance -1).",
    ]),
    ("alice /godsfire money tax system:Sol",
     ["error: Sol has already paid its tax this turn (D.1: once per interphase)"]),
    ("alice /godsfire system show Sol", [
        "Sol — alice's system, 2 planets; bank 4 GB; space none; loans none",
        "  Region 1: Moderate (M), allegiance 5, Agriculture-1 (A-1); ground none",
        "  Region 2: Reactionary (R), allegiance 3, Agriculture-2 (A-2); ground none",
    ]),
    ("alice /godsfire system show name:Nowhere",
     ["error: no system called 'Nowhere' in this game (systems: Sol, Vega)"]),
    ("gm /godsfire status", [
        "Godsfire — turn 1, Social Interphase; GM: gm",
        "bob: NG on no system yet, 0 GB, in transit 0 GB; national allegiance R 5 M 5 E 5; systems: Vega",
        "alice: NG on Sol, 0 GB, in transit 0 GB; national allegiance R 5 M 5 E 5; systems: Sol",
        "Sol (alice): 2 regions, bank 4 GB, space none",
        "Vega (bob): 1 region, bank 0 GB, space none",
        "Turn 1's player order: bob, alice.",
    ]),
]


async def _console(tmp_path) -> tuple[Console, Store, io.StringIO]:
    return await console_on(tmp_path / "godsfire.db")


_said = said


async def test_a_godsfire_game_in_the_console_prints_exactly_these_lines(tmp_path):
    console, store, out = await _console(tmp_path)
    try:
        for line, expected in TRANSCRIPT:
            await console.handle(line)
            assert _said(out) == expected, line
    finally:
        await store.close()


async def test_a_neutral_system_and_the_status_and_sheet_show_its_units(tmp_path):
    console, store, out = await _console(tmp_path)
    try:
        # Rigel: party 2+2 = 4 (R), allegiance 2 (3), economy 2 (S); the sheet's 3 SQD, 3 AG and 3 PDF.
        for line in ("gm /game start ruleset:godsfire", 'gm /gm dice values:"2 2 2 2"',
                     "gm /godsfire system add name:Rigel neutral:true"):
            await console.handle(line)
        said = _said(out)
        assert said[-1] == "✨ Rigel (neutral, 1 planet): regions 1: R 3 S; units SQD 3, AG 3, PDF 3."
        await console.handle("gm /godsfire system show name:rigel")
        await console.handle("gm /godsfire status")
        assert _said(out) == [
            "Rigel — a neutral system, 1 planet; bank 0 GB; space 3 SQD, 3 AG, 3 PDF; loans none",
            "  Region 1: Reactionary (R), allegiance 3, Subsistence (S); ground none",
            "Godsfire — turn 1, Movement Phase; GM: gm",
            "No players yet: the GM adds systems with /godsfire system add.",
            "Rigel (neutral): 1 region, bank 0 GB, space 3 SQD, 3 AG, 3 PDF",
        ]
        await console.handle("gm /godsfire interphase show")
        assert _said(out) == ["Not in the Social Interphase: turn 1 is in the Movement Phase."]
    finally:
        await store.close()


async def test_godsfire_commands_are_refused_in_another_rule_sets_game(tmp_path):
    console, store, out = await _console(tmp_path)
    try:
        await console.handle("gm /game start ruleset:goddice")
        _said(out)
        await console.handle("gm /godsfire status")
        await console.handle("gm /godsfire chart combat attack:3 defence:1")
        assert _said(out) == [
            "error: /godsfire status is a Godsfire command, and this channel's game is God Dice",
            "error: /godsfire chart combat is a Godsfire command, and this channel's game is God Dice",
        ]
    finally:
        await store.close()


def test_the_readme_godsfire_example_runs_as_printed(tmp_path):
    """The README's Godsfire console block, line for line: no refusal, and the tax it works out."""
    from storehelpers import run_console

    readme = (Path(__file__).resolve().parents[3] / "README.md").read_text()
    section = readme[readme.index("## Playing Godsfire"):]
    block = [line[4:] for line in section.split("\n\n")[2].splitlines()]
    assert block[0] == "gm /game start ruleset:godsfire" and len(block) > 8
    done = run_console(tmp_path / "readme.db", block)
    assert done.returncode == 0 and done.stderr == "", done.stderr
    assert not [line for line in done.stdout.splitlines() if line.startswith("error:")]
    assert ("Sol: bank 0 → 4 (tax of turn 1: 2 planets +2, region 2 A-2 +1, extortion in "
            "region 2 +1 = 4 GB).") in done.stdout
    assert "⚔ Combat, 7 against 3: odds 3-1;" in done.stdout
