"""The console front-end: a whole game as a subprocess transcript, and the line parser in-process."""

from __future__ import annotations

import io
import json

import pytest
from storehelpers import (
    RULES,
    FakeClock,
    check_export_contract,
    normalize_times,
    run_console,
)

from console import Console, parse_line
from data.store import Store
from engine.commands import BY_PATH, coerce_options
from engine.dice import ForcedRoller
from engine.errors import BadInput
from referee import Referee

GAME_END = "Turn 1 lasts 12 hours and ends <T>."
ALICE_LEFT_1 = "Gracchan Republic: 1 of 2 actions left; turn 1 ends <T>."


def transcript(export_file: str) -> list[tuple[str, list[str]]]:
    """(input line, the exact output lines it gives) for a short game; times shown as <T>."""
    return [
        ("# a short game: every die is entered by the GM, so every outcome is exact", []),
        ("", []),
        ("gm /game start", [f"A Nations game begins, refereed by the bot; GM: gm. {GAME_END}"]),
        ('gm /nation claim preset:"Gracchan Republic" player:alice', [
            ("🏳 Gracchan Republic joins the game, played by alice: E 12, S 10, M 8, P 10, L 20; "
             "STRENGTH infantry, WEAKNESS bomber."),
            "Gracchan Republic: GREEN infantry #1 (3 HP), starting army.",
            "Gracchan Republic: GREEN infantry #2 (3 HP), starting army.",
            "Gracchan Republic: GREEN infantry #3 (3 HP), starting army.",
            "Gracchan Republic: GREEN bomber #4 (2 HP), starting army.",
            "Gracchan Republic: GREEN armour #5 (2 HP), starting army.",
        ]),
        ("gm /nation claim Charon bob   # positional options: preset, then player", [
            "🏳 Charon joins the game, played by bob: E 11, S 10, M 9, P 10, L 20; STRENGTH armour, WEAKNESS bomber.",
            "Charon: GREEN armour #6 (2 HP), starting army.",
            "Charon: GREEN armour #7 (2 HP), starting army.",
            "Charon: GREEN armour #8 (2 HP), starting army.",
            "Charon: GREEN bomber #9 (2 HP), starting army.",
        ]),
        ('gm /gm dice values:"9 8 6 10"', ["GM gm entered the next 4 dice."]),
        ("alice /economy military", [
            "🎲 Gracchan Republic, grow military: d10 9 (GM die) + mod(E) +1 = 10 vs > 8: success",
            "Gracchan Republic: MILITARY +1 (grow military).",
            "Gracchan Republic: ECONOMY -1 (cost of growing military).",
            ALICE_LEFT_1,
        ]),
        # refusals: no die is used (the 8 waits for the next roll) and nothing changes
        ("alice /economy grow", ["error: no room: E+M = 20 already equals your land 20"]),
        ("alice /propaganda encourage workers", [
            "🎲 Gracchan Republic, encourage workers: d10 8 (GM die) vs >= 5: success",
            "✨ Gracchan Republic: Workers +2 until <T>.",
            "Gracchan Republic: 0 of 2 actions left; turn 1 ends <T>.",
        ]),
        ("bob /economy recruit armour", [
            "error: no MP to spare: your army costs 9 MP, one armour unit 2 more, and M is 9",
        ]),
        ("alice /gm turn end", ["error: only the GM may end the turn"]),
        ("carol /economy grow", [
            "error: you have no nation in this game: claim one with /nation claim or /nation create",
        ]),
        ("hello there", ["error: write `<your name> /command options`, e.g. `alice /economy grow`"]),
        ("alice /economy grow bogus:1", ["error: /economy grow has no option bogus; its options: nation"]),
        ("alice /conquer world", ["error: unknown command /conquer; try /help"]),
        ("gm /gm turn end", [
            ("⏰ Turn 1 is over (ended by the GM). Turn 2 begins and ends <T>. "
             "Last turn — Gracchan Republic: ECONOMY, PROPAGANDA; Charon: nothing."),
        ]),
        ("alice /economy recruit infantry", [
            "🎲 Gracchan Republic, recruit infantry: d10 6 (GM die) + Workers +2 = 8 vs >= 7: success",
            "Gracchan Republic: GREEN infantry #10 (3 HP), recruited.",
            "Gracchan Republic: 1 of 2 actions left; turn 2 ends <T>.",
        ]),
        ('bob /propaganda attack "gracchan republic"', [
            "🎲 Charon, propaganda attack on Gracchan Republic: d10 10 (GM die) vs > 10: failure",
            "Charon: PROPAGANDA -1 (failed propaganda attack).",
            "Charon: 1 of 2 actions left; turn 2 ends <T>.",
        ]),
        ("gm /gm undo", ['↩ GM gm undid bob\'s “/propaganda attack "gracchan republic"” and all its rolls.']),
        ("alice /nation show", NATION_SHOW),
        ("alice /log", LOG),
        (f"gm /gm export file:{export_file}", [f"Game exported to {export_file}."]),
        ("gm /game status", STATUS),
    ]


NATION_SHOW = [
    "Gracchan Republic — played by alice",
    "ECONOMY 11 (+0)  STABILITY 10 (+0)",
    "MILITARY 9 (-1)  PROPAGANDA 10 (+0)  LAND 20 (E+M 20)",
    "STRENGTH infantry, WEAKNESS bomber",
    "Actions: 1 of 2 left this turn (used: ECONOMY)",
    "Workers +2 until <T>",
    "Army of Gracchan Republic: 9 of 9 MP",
    "  #1 infantry GREEN 3/3 HP",
    "  #2 infantry GREEN 3/3 HP",
    "  #3 infantry GREEN 3/3 HP",
    "  #4 bomber GREEN 2/2 HP",
    "  #5 armour GREEN 2/2 HP",
    "  #10 infantry GREEN 3/3 HP",
]
LOG = [
    "turn 1: 🎲 Gracchan Republic, grow military: d10 9 (GM die) + mod(E) +1 = 10 vs > 8: success",
    "turn 1: 🎲 Gracchan Republic, encourage workers: d10 8 (GM die) vs >= 5: success",
    "turn 2: 🎲 Gracchan Republic, recruit infantry: d10 6 (GM die) + Workers +2 = 8 vs >= 7: success",
]
STATUS = [
    "Nations — turn 2 (12 h), ends <T>; GM: gm",
    "1 GM-entered die waiting.",  # the undone propaganda attack gave its die back
    "Gracchan Republic — alice: E 11 S 10 M 9 P 10 L 20; 6 units; 1 action left",
    "Charon — bob: E 11 S 10 M 9 P 10 L 20; 4 units; 2 actions left",
]


def output_lines(stdout: str) -> list[str]:
    return normalize_times(stdout).splitlines()


def test_console_transcript_and_a_second_run_on_the_same_database(tmp_path):
    db = tmp_path / "game.db"
    export_file = str(tmp_path / "export.json")
    script = transcript(export_file)
    done = run_console(db, [line for line, _ in script])
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""
    assert output_lines(done.stdout) == [out for _, lines in script for out in lines]

    export = json.loads((tmp_path / "export.json").read_text())
    check_export_contract(export)
    assert export["game"]["turn"] == 2
    assert [(r["purpose"], r["die"], r["success"], r["forced"]) for r in export["rolls"]] == [
        ("grow military", 9, True, True), ("encourage workers", 8, True, True), ("recruit infantry", 6, True, True),
    ]
    assert export["game"]["forced_dice"] == [10]

    # a second run on the same database sees the saved game, and the die the undo gave back
    again = run_console(db, ["gm /game status", "alice /log", "alice /nation show",
                             'bob /propaganda attack "gracchan republic"', "gm /game status"], seed=2)
    assert again.returncode == 0, again.stderr
    assert output_lines(again.stdout) == [
        *STATUS, *LOG, *NATION_SHOW,
        "🎲 Charon, propaganda attack on Gracchan Republic: d10 10 (GM die) vs > 10: failure",
        "Charon: PROPAGANDA -1 (failed propaganda attack).",
        "Charon: 1 of 2 actions left; turn 2 ends <T>.",
        "Nations — turn 2 (12 h), ends <T>; GM: gm",
        "Gracchan Republic — alice: E 11 S 10 M 9 P 10 L 20; 6 units; 1 action left",
        "Charon — bob: E 11 S 10 M 9 P 9 L 20; 4 units; 1 action left",
    ]


def test_console_seeded_dice_are_reproducible(tmp_path):
    lines = ["gm /game start", "gm /nation claim 1 alice", "alice /economy military", "alice /log"]
    first = run_console(tmp_path / "a.db", lines, seed=7)
    second = run_console(tmp_path / "b.db", lines, seed=7)
    assert first.returncode == second.returncode == 0
    rolls = [line for line in output_lines(first.stdout) if line.startswith("🎲")]
    assert len(rolls) == 1 and "(GM die)" not in rolls[0]
    assert output_lines(first.stdout) == output_lines(second.stdout)


def test_console_errors_never_stop_the_session(tmp_path):
    done = run_console(tmp_path / "e.db", [
        "alice /game status",           # no game yet
        'gm /nation claim "unbalanced',  # a quote left open
        "/economy grow",                # no actor
        "gm /game start turn_hours:abc",
        "gm /game start turn_hours:6",
        "gm /game start",               # one live game per channel
        "gm /gm import file:/nonexistent/x.json",
        "gm /game end",
        "gm /game status",
    ])
    assert done.returncode == 0, done.stderr
    lines = output_lines(done.stdout)
    assert lines[:4] == [
        "error: there is no game in this channel: start one with /game start",
        "error: cannot read that line: No closing quotation",
        "error: write `<your name> /command options`, e.g. `alice /economy grow`",
        "error: turn_hours must be a number, not 'abc'",
    ]
    assert lines[4] == "A Nations game begins, refereed by the bot; GM: gm. Turn 1 lasts 6 hours and ends <T>."
    assert lines[5] == "error: this channel already has a game running: /game status shows it"
    assert lines[6].startswith("error: ")
    assert lines[7:] == ["The game is over.", "error: there is no game in this channel: start one with /game start"]


# --- parse_line, in-process ----------------------------------------------------------------------


def test_parse_line_named_options_with_quotes():
    actor, command, options = parse_line('gm /nation claim preset:"Gracchan Republic" player:alice')
    assert (actor, command.path, options) == ("gm", "nation claim", {"preset": "Gracchan Republic",
                                                                     "player": "alice"})
    actor, command, options = parse_line("gm /gm dice values:'7 3 10'")
    assert (command.path, options) == ("gm dice", {"values": "7 3 10"})


def test_parse_line_positional_options_fill_the_free_parameters_in_order():
    assert parse_line("gm /gm unit add Charon infantry")[1:] == (BY_PATH["gm unit add"],
                                                               {"nation": "Charon", "type": "infantry"})
    assert parse_line('bob /propaganda attack "Gracchan Republic"')[2] == {"target": "Gracchan Republic"}
    # named options take their parameter; positional values fill the others in order
    _, command, options = parse_line('gm /nation claim name:"New Land" 11 bob')
    assert command.path == "nation claim"
    assert options == {"name": "New Land", "preset": "11", "player": "bob"}
    assert parse_line("alice /attack declare Charon '1 2 3'")[2] == {"target": "Charon", "units": "1 2 3"}


def test_parse_line_command_words_are_case_insensitive_and_option_names_too():
    actor, command, options = parse_line("Alice /GM Turn End")
    assert (actor, command.path, options) == ("Alice", "gm turn end", {})
    assert parse_line("a /economy grow NATION:Charon")[2] == {"nation": "Charon"}


def test_parse_line_blank_and_comment_lines():
    assert parse_line("") is None
    assert parse_line("   ") is None
    assert parse_line("# just a comment") is None
    assert parse_line("alice /economy grow   # with a comment")[1].path == "economy grow"


def test_parse_line_unknown_command():
    with pytest.raises(BadInput, match=r"unknown command /conquer; try /help"):
        parse_line("alice /conquer world")
    with pytest.raises(BadInput, match="unknown command"):
        parse_line("alice /economy")  # a prefix is not a command


def test_parse_line_unknown_option_is_refused_by_its_command():
    actor, command, options = parse_line("alice /economy grow bogus:1")
    assert options == {"bogus": "1"}
    with pytest.raises(BadInput, match="/economy grow has no option bogus; its options: nation"):
        coerce_options(command, options)


def test_parse_line_too_many_positional_values_and_malformed_lines():
    with pytest.raises(BadInput, match="too much"):
        parse_line("alice /economy grow Charon extra")
    with pytest.raises(BadInput, match="too much"):
        parse_line("gm /gm dice 7 3 10")  # several dice need quotes
    with pytest.raises(BadInput, match="No closing quotation"):
        parse_line('gm /nation claim "Gracchan')
    for line in ("alice", "alice economy grow", "/economy grow"):
        with pytest.raises(BadInput, match="write `<your name> /command options`"):
            parse_line(line)


def test_coerce_options_types_and_required():
    with pytest.raises(BadInput, match="needs unit:"):
        coerce_options(BY_PATH["economy recruit"], {})
    with pytest.raises(BadInput, match="hours must be a number"):
        coerce_options(BY_PATH["gm clock length"], {"hours": "soon"})
    assert coerce_options(BY_PATH["gm clock length"], {"hours": "6"}) == {"hours": 6.0}


# --- the console in-process: a refusal changes nothing -------------------------------------------


async def test_console_handle_refusal_changes_nothing(tmp_path):
    store = await Store.open(tmp_path / "c.db")
    out = io.StringIO()
    try:
        console = Console(Referee(store, RULES, ForcedRoller(), FakeClock()), out)
        for line in ("gm /game start", "gm /nation claim 1 alice", "gm /gm dice 4"):
            await console.handle(line)
        game_id = await store.live_game("console")
        before = (await store.load(game_id), len(await store.events(game_id)))
        out.truncate(0)
        out.seek(0)
        for line in ("alice /economy grow", "alice /stability raise", "bob /economy grow", "alice /gm dice 3",
                     "alice /army disband 99", "alice /economy recruit tanks"):
            await console.handle(line)
        assert all(line.startswith("error: ") for line in out.getvalue().splitlines()), out.getvalue()
        assert len(out.getvalue().splitlines()) == 6
        assert (await store.load(game_id), len(await store.events(game_id))) == before
    finally:
        await store.close()
