"""The console front-end: a whole game as a subprocess transcript, and the line parser in-process."""

from __future__ import annotations

import io
import json
import logging
import os
import sqlite3
import subprocess

import pytest
from storehelpers import (
    REPO,
    RULES,
    FakeClock,
    bot_command,
    check_export_contract,
    console_env,
    console_on,
    normalize_times,
    run_console,
    said,
)

from console.app import MAX_CARD_FILE, Console, decode_line, parse_line, read_line
from console.app import run_console as run_console_in_process
from console.terminal import MAX_LINE, MAX_LINE_BYTES
from data.store import Store, StoreUnavailable
from engine.commands import BY_PATH, COMMANDS, coerce_options
from engine.dice import ForcedRoller
from engine.errors import BadInput
from service.imports import MAX_EXPORT_BYTES
from service.referee import Referee

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
            "Gracchan Republic: #1 infantry GREEN (3 HP), starting army.",
            "Gracchan Republic: #2 infantry GREEN (3 HP), starting army.",
            "Gracchan Republic: #3 infantry GREEN (3 HP), starting army.",
            "Gracchan Republic: #4 bomber GREEN (2 HP), starting army.",
            "Gracchan Republic: #5 armour GREEN (2 HP), starting army.",
        ]),
        ("gm /nation claim Charon bob   # positional options: preset, then player", [
            "🏳 Charon joins the game, played by bob: E 11, S 10, M 9, P 10, L 20; STRENGTH armour, WEAKNESS bomber.",
            "Charon: #6 armour GREEN (2 HP), starting army.",
            "Charon: #7 armour GREEN (2 HP), starting army.",
            "Charon: #8 armour GREEN (2 HP), starting army.",
            "Charon: #9 bomber GREEN (2 HP), starting army.",
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
            "Gracchan Republic: #10 infantry GREEN (3 HP), recruited.",
            "Gracchan Republic: 1 of 2 actions left; turn 2 ends <T>.",
        ]),
        ('bob /propaganda attack "gracchan republic"', [
            "🎲 Charon, propaganda attack on Gracchan Republic: d10 10 (GM die) vs > 10: failure",
            "Charon: PROPAGANDA -1 (failed propaganda attack).",
            "Charon: 1 of 2 actions left; turn 2 ends <T>.",
        ]),
        # undo shows what it would take back and changes nothing; confirm:true takes it back
        ("gm /gm undo", [
            "Undo the last action? It takes back, with its rolls and every change it made:",
            '1. bob: “/propaganda attack "gracchan republic"” (<T>)',
            "    🎲 Charon, propaganda attack on Gracchan Republic: d10 10 (GM die) vs > 10: failure",
            "    Charon: PROPAGANDA -1 (failed propaganda attack).",
            "Nothing is undone yet: /gm undo confirm:true undoes it.",
        ]),
        ("gm /gm undo confirm:true", [
            '↩ GM gm undid bob\'s “/propaganda attack "gracchan republic"” and all its rolls.',
        ]),
        ("alice /nation show", NATION_SHOW),
        ("alice /log rolls", LOG),
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
    done = run_console(db, [line for line, _ in script], env={"REFEREE_EXPORT_DIR": str(tmp_path)})
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
    again = run_console(db, ["gm /game status", "alice /log rolls", "alice /nation show",
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
    lines = ["gm /game start", "gm /nation claim 1 alice", "alice /economy military", "alice /log rolls"]
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
        "gm /game import file:/nonexistent/x.json",
        "gm /game end confirm:true",
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
    assert lines[5] == ("error: this channel already has a game running: /game status shows it; its GM ends "
                        "it with /game end confirm:true, or start the console with --new to start over")
    assert lines[6].startswith("error: ")
    # issue 11: /game status shows the channel's last game, ended, instead of "no game"
    assert lines[7:] == ["🏁 The game is over. Final results:", "No winner: no nation is left in the game.",
                         "Nations — turn 1 (6 h), over; GM: gm — GAME OVER", "No nations yet.",
                         "Game over: this is the channel's last game, ended. /game start starts a new one here."]


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
    with pytest.raises(BadInput) as info:
        parse_line("alice /economy")  # a group is not a command: its subcommands are named
    assert str(info.value) == "/economy needs a subcommand: /economy grow, /economy military, /economy recruit"


@pytest.mark.parametrize(("line", "said"), [
    ("alice /godsfire war", "/godsfire war needs a subcommand: /godsfire war declare"),
    ("alice /godsfire war target:bob", "/godsfire war needs a subcommand: /godsfire war declare"),
    ("alice /godsfire war decl target:bob",
     ("unknown command /godsfire war decl — did you mean /godsfire war declare? /godsfire war has: "
     "/godsfire war declare")),
    ("alice /economy grwo", ("unknown command /economy grwo — did you mean /economy grow? /economy has: "
     "/economy grow, /economy military, /economy recruit")),
    ("alice /economy xyz", ("unknown command /economy xyz; /economy has: /economy grow, /economy military, "
     "/economy recruit")),
    ("alice /gam start", "unknown command /gam — did you mean /game? try /help"),
])
def test_an_unknown_subcommand_names_what_the_group_has(line, said):
    with pytest.raises(BadInput) as info:
        parse_line(line)
    assert str(info.value) == said


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


# --- hostile input: bytes, control characters, long lines (issue 9, finding 11) ------------------


def run_console_bytes(db, script: bytes, timeout: float = 60, cwd=None, env=None) -> subprocess.CompletedProcess:
    """Feed raw bytes to `python bot.py --console`."""
    return subprocess.run(bot_command(db, 1), input=script, capture_output=True, timeout=timeout,
                          cwd=cwd or REPO, env=console_env(env))


def test_console_refuses_lines_that_are_not_utf8_or_hold_control_characters(tmp_path):
    script = b"".join([
        b"gm /game start\n",
        b"gm /nation claim 1 alice\n",
        b"alice /nation rename name:\xff\xfeBad\n",             # not UTF-8
        b"alice /nation rename name:\xed\xa0\x80x\n",           # an encoded surrogate: not UTF-8 either
        b"alice /nation rename name:Bad\x00Land\n",             # NUL
        b"alice /nation rename name:Bad\x1b[31mLand\n",         # an escape sequence
        b"alice /nation show\r\n",                              # CRLF is fine
        b"alice\t/game status\n",                               # so is a tab
        b"gm /gm dice values:" + b"1 " * 10_000 + b"\n",        # too long
        b"gm /game status",                                     # the last line without a newline
    ])
    done = run_console_bytes(tmp_path / "b.db", script)
    assert done.returncode == 0, done.stderr
    assert done.stderr == b""
    lines = output_lines(done.stdout.decode("utf-8"))
    errors = [line for line in lines if line.startswith("error:")]
    assert errors == [
        "error: that line is not UTF-8 text; nothing changed",
        "error: that line is not UTF-8 text; nothing changed",
        "error: that line has a control character (U+0000, column 30); nothing changed",
        "error: that line has a control character (U+001B, column 30); nothing changed",
        "error: that line is too long: at most 4,000 characters; nothing changed",
    ]
    assert "Gracchan Republic — played by alice" in lines
    assert lines.count("Nations — turn 1 (12 h), ends <T>; GM: gm") == 2
    assert "Traceback" not in done.stdout.decode() + done.stderr.decode()


async def test_console_line_reader_skips_the_rest_of_an_endless_line():
    raw = io.BytesIO(b"a" * 1_000_000 + b"\ngm /game status\n")
    first = read_line(raw)
    assert first is not None and len(first) == MAX_LINE_BYTES + 1
    with pytest.raises(BadInput, match="too long"):
        decode_line(first)
    assert read_line(raw) == b"gm /game status\n"
    assert read_line(raw) is None
    # a text stream works the same way
    text = io.StringIO("é" * (MAX_LINE + 1) + "\nx /help\n")
    with pytest.raises(BadInput, match="too long"):
        decode_line(read_line(text))
    assert decode_line(read_line(text)) == "x /help"


# --- start-up failures and unexpected errors (finding 5) -----------------------------------------


def test_console_start_up_on_a_file_that_is_not_sqlite_prints_one_line_and_exits_1(tmp_path):
    bad = tmp_path / "not.db"
    bad.write_bytes(b"this is not a database, only text that goes on " * 200)
    done = run_console(bad, ["gm /game status"], timeout=30)
    assert done.returncode == 1
    assert done.stdout == ""
    assert len(done.stderr.splitlines()) == 1 and done.stderr.startswith("error: "), done.stderr
    assert "Traceback" not in done.stderr


async def test_run_console_reports_a_store_that_cannot_open_in_one_line(tmp_path, monkeypatch):
    async def refuse(path):
        raise StoreUnavailable("the referee cannot open its database: it is locked by another process")

    out, err = io.StringIO(), io.StringIO()
    monkeypatch.setattr(Store, "open", refuse)
    assert await run_console_in_process(str(tmp_path / "x.db"), io.StringIO("gm /game status\n"), out,
                                        stderr=err) == 1
    assert err.getvalue() == "error: the referee cannot open its database: it is locked by another process\n"
    assert out.getvalue() == ""

    async def broken(path):
        raise sqlite3.DatabaseError("file is not a database")

    monkeypatch.setattr(Store, "open", broken)
    err = io.StringIO()
    assert await run_console_in_process("x.db", io.StringIO(""), io.StringIO(), stderr=err) == 1
    assert err.getvalue() == "error: cannot open the database x.db: file is not a database\n"


async def test_console_unexpected_error_is_logged_once_answered_once_and_the_loop_goes_on(tmp_path, monkeypatch,
                                                                                        caplog):
    store = await Store.open(tmp_path / "u.db")
    out = io.StringIO()
    try:
        console = Console(Referee(store, RULES, ForcedRoller(), FakeClock()), out)
        await console.handle("gm /game start")
        real_run = Console.run

        async def run(self, actor, command, raw, command_text, key=None):
            if command.path == "game status":
                raise KeyError("boom")
            await real_run(self, actor, command, raw, command_text, key)

        monkeypatch.setattr(Console, "run", run)
        out.truncate(0)
        out.seek(0)
        with caplog.at_level(logging.ERROR, logger="referee.console"):
            await console.handle("gm /game status")
            await console.handle("gm /help")
        lines = out.getvalue().splitlines()
        assert lines[0] == ("error: the referee hit a problem with that line (KeyError) and nothing changed; the "
                            "details are in the log. /game status shows where the game stands")
        assert lines[1:3] == ["Referee commands (/help topic:<group> for one group's options):",
                              "Nations (this game):"]  # issue 17: the game's rule set first
        assert "/game: start, status, list, digest, chart, page, end, import" in lines  # issue 11: /game digest
        assert [r.levelno for r in caplog.records] == [logging.ERROR]
    finally:
        await store.close()


# --- import, export and card files (finding 10) --------------------------------------------------


async def _console(tmp_path) -> tuple[Console, Store, io.StringIO]:
    return await console_on(tmp_path / "f.db")


_said = said


async def test_console_export_writes_only_under_the_export_folders_and_never_over_a_file(tmp_path, monkeypatch):
    work, exports, elsewhere = tmp_path / "work", tmp_path / "exports", tmp_path / "elsewhere"
    for folder in (work, exports, elsewhere):
        folder.mkdir()
    (work / "out").symlink_to(elsewhere)
    monkeypatch.chdir(work)
    console, store, out = await _console(tmp_path)
    console.export_dir = str(exports)  # REFEREE_EXPORT_DIR, as bot.py reads it with the settings
    try:
        for line in ("gm /game start", "gm /nation claim 1 alice"):
            await console.handle(line)
        _said(out)
        await console.handle("alice /gm export file:mine.json")
        assert _said(out) == ["error: only the GM may export the game"]
        await console.handle("gm /gm export file:game.json")
        await console.handle(f"gm /gm export file:{exports / 'game.json'}")
        await console.handle(f"gm /gm export file:{exports}/sub/../again.json")
        assert _said(out) == ["Game exported to game.json.", f"Game exported to {exports / 'game.json'}.",
                              f"Game exported to {exports}/sub/../again.json."]
        assert json.loads((work / "game.json").read_text())["game"]["gm"] == "gm"
        assert (exports / "again.json").is_file()

        refused = [f"file:{elsewhere / 'x.json'}", "file:../elsewhere/x.json", "file:out/x.json",
                   f"file:{exports}/../elsewhere/x.json", "file:/etc/x.json", "file:.", f"file:{exports}"]
        for option in refused:
            await console.handle(f"gm /gm export {option}")
        answers = _said(out)
        assert len(answers) == len(refused)
        assert all(a.startswith("error: cannot write ") and "exports are written only under" in a
                   for a in answers), answers
        assert list(elsewhere.iterdir()) == []

        before = (work / "game.json").read_text()
        await console.handle("gm /nation claim 7 bob")
        _said(out)
        await console.handle("gm /gm export file:game.json")
        await console.handle("gm /gm export game.json overwrite:maybe")
        assert _said(out) == ["error: game.json exists already: add overwrite:true to replace it",
                              "error: overwrite must be true or false, not 'maybe'"]
        assert (work / "game.json").read_text() == before
        (work / "folder.json").mkdir()
        await console.handle("gm /gm export file:folder.json overwrite:true")
        assert _said(out) == ["error: cannot write folder.json: it exists and is not a regular file"]
        await console.handle("gm /gm export file:game.json overwrite:true")
        assert _said(out) == ["Game exported to game.json."]
        assert len(json.loads((work / "game.json").read_text())["nations"]) == 2
        await console.handle("gm /gm export file:nofolder/game.json")
        assert _said(out)[0].startswith("error: cannot write nofolder/game.json: there is no folder")
        # no temporary file is left behind
        assert sorted(p.name for p in work.iterdir()) == ["folder.json", "game.json", "out"]
        assert sorted(p.name for p in exports.iterdir()) == ["again.json", "game.json"]
    finally:
        await store.close()


async def test_console_import_reads_only_small_regular_files(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    console, store, out = await _console(tmp_path)
    try:
        for line in ("gm /game start", "gm /nation claim 1 alice"):
            await console.handle(line)
        export = await store.export(await store.live_game("console"))
        (tmp_path / "game.json").write_text(json.dumps(export))
        await console.handle("gm /game end confirm:true")
        fifo = tmp_path / "pipe"
        os.mkfifo(fifo)
        big = tmp_path / "big.json"
        with big.open("wb") as handle:
            handle.truncate(MAX_EXPORT_BYTES + 1)
        (tmp_path / "list.json").write_text("[1, 2]")
        (tmp_path / "deep.json").write_text("[" * 100_000)
        (tmp_path / "latin1.json").write_bytes(b'{"game": "\xe9"}')
        _said(out)
        for file in ("/dev/zero", "/dev/null", str(fifo), str(tmp_path), "big.json", "list.json", "deep.json",
                     "latin1.json", "missing.json"):
            await console.handle(f"carol /game import file:{file}")
        answers = _said(out)
        assert answers[:4] == [f"error: cannot read {f}: an export must be a regular file"
                               for f in ("/dev/zero", "/dev/null", str(fifo), str(tmp_path))]
        assert answers[4] == f"error: cannot read big.json: an export has at most {MAX_EXPORT_BYTES:,} bytes"
        assert answers[5].startswith("error: cannot import list.json: that export is not a game export")
        assert answers[6].startswith("error: cannot import deep.json: that export is not valid JSON")
        assert answers[7].startswith("error: cannot import latin1.json: that export is not valid UTF-8")
        assert answers[8] == "error: cannot read missing.json: No such file or directory"
        assert await store.live_game("console") is None

        await console.handle("carol /game import file:game.json")
        assert _said(out) == ["Nations game imported from game.json: turn 1, 1 nations; GM: carol."]
        # with a game live, no file is even opened
        await console.handle("dave /game import file:/dev/zero")
        assert _said(out) == ["error: this channel already has a game running: end it first with /game end"]
    finally:
        await store.close()


async def test_console_card_files_follow_the_same_read_rules_and_only_the_gm_may_load_them(tmp_path):
    console, store, out = await _console(tmp_path)
    try:
        for line in ("gm /game start ruleset:goddice", "alice /goddice join"):
            await console.handle(line)
        big = tmp_path / "big.toml"
        big.write_text("# " + "x" * MAX_CARD_FILE)
        _said(out)
        await console.handle("alice /gm cards file:/dev/zero")
        await console.handle("gm /gm cards file:/dev/zero")
        await console.handle(f"gm /gm cards file:{big}")
        await console.handle(f"gm /gm cards file:{tmp_path}")
        assert _said(out) == [
            "error: only the GM may use /gm cards",
            "error: cannot read /dev/zero: a card file must be a regular file",
            f"error: cannot read {big}: a card file has at most {MAX_CARD_FILE:,} bytes",
            f"error: cannot read {tmp_path}: a card file must be a regular file",
        ]
    finally:
        await store.close()


async def test_console_help_lists_the_groups_then_one_group_with_its_options(tmp_path):
    store = await Store.open(tmp_path / "referee.db")
    try:
        out = io.StringIO()
        console = Console(Referee(store, None), out)
        await console.handle("alice /help")
        await console.handle("alice /help topic:gm")
        await console.handle("alice /help topic:chess")
        lines = out.getvalue().splitlines()
        assert "/godsfire: " + ", ".join(c.path.split(" ", 1)[1] for c in COMMANDS
                                         if c.path.startswith("godsfire ")) in lines
        assert ("/gm dice values: [player:] [purpose:] — enter the next dice by hand, secret until rolled "
                "(\"clear\" empties, \"waiting\" lists) (GM)") in lines
        assert lines[-1].startswith("error: no command group 'chess'; groups: game, nation, economy")
    finally:
        await store.close()


# --- issue 11: first run (--new, the startup line), line editing, forum formats ---------------------------


class _Terminal(io.StringIO):
    """Standard input that says it is a terminal (the console's interactive path, without a real one)."""

    def isatty(self) -> bool:
        return True


async def _session(db, lines: str, **options) -> list[str]:
    out = io.StringIO()
    status = await run_console_in_process(str(db), stdin=_Terminal(lines), stdout=out, clock=FakeClock(), **options)
    assert status == 0
    text = out.getvalue().removesuffix("> ")  # the prompt that met the end of input
    return [line.removeprefix("> ") for line in text.splitlines()]  # the prompt before each answer


async def test_console_startup_line_names_the_database_and_new_starts_over(tmp_path):
    db = tmp_path / "referee.db"
    first = await _session(db, "gm /game start\n")
    assert first[0] == (f"Referee — console on {db}. No game is running: `gm /game start` starts one (the one who "
                        "starts it is its GM). Lines are `<your name> /command options`; /help lists them.")
    assert first[1].startswith("A Nations game begins, refereed by the bot; GM: gm.")

    # a second run: the startup line says a game is running, and /game start says how to start over
    second = await _session(db, "alice /game start\n")
    assert second == [
        (f"Referee — console on {db}. A Nations game is running (turn 1, GM: gm); /game status shows it, and "
         "`--new` starts over. Lines are `<your name> /command options`; /help lists them."),
        ("error: this channel already has a game running: /game status shows it; its GM ends it with "
         "/game end confirm:true, or start the console with --new to start over"),
    ]

    # --new ends that game (as its GM, in the log) before the first line; the new game has its own GM
    third = await _session(db, "alice /game start\nalice /game status\n", new=True)
    assert third[0] == "--new: ended the running Nations game (turn 1, GM: gm); a new one starts with /game start."
    assert third[1].startswith(f"Referee — console on {db}. No game is running:")
    assert third[2].startswith("A Nations game begins, refereed by the bot; GM: alice.")
    assert third[3].startswith("Nations — turn 1 (12 h), ends ") and third[3].endswith("; GM: alice")
    store = await Store.open(db)
    try:
        assert [g.ended for g in await store.games(live_only=False)] == [True, False]
    finally:
        await store.close()

    # --new with no game running says so, and changes nothing
    fourth = await _session(tmp_path / "empty.db", "", new=True)
    assert fourth[0] == "--new: no game was running; a new one starts with /game start."


def test_bot_new_and_format_options_reach_the_console(tmp_path):
    db = tmp_path / "game.db"
    assert run_console(db, ["gm /game start"]).returncode == 0
    done = subprocess.run([*bot_command(db), "--new", "--format", "bbcode"], input="carol /game start\n",
                          capture_output=True, text=True, encoding="utf-8", timeout=60, cwd=REPO, env=console_env())
    assert done.returncode == 0 and done.stderr == "", done.stderr
    lines = output_lines(done.stdout)
    assert lines[:2] == ["--new: ended the running Nations game (turn 1, GM: gm); a new one starts with /game start.",
                         ""]
    assert lines[2] == "A Nations game begins, refereed by the bot; GM: carol. Turn 1 lasts 12 hours and ends <T>."
    bad = subprocess.run([*bot_command(db), "--format", "html"], input="", capture_output=True, text=True,
                         timeout=60, cwd=REPO, env=console_env())
    assert bad.returncode == 2 and "invalid choice: 'html'" in bad.stderr


def test_console_on_a_terminal_has_line_editing_and_history(tmp_path):
    """Through a real pseudo-terminal: Up recalls the last line (without readline it would arrive as ^[[A)."""
    import pty
    import select
    import time

    controller, terminal = pty.openpty()
    process = subprocess.Popen(bot_command(tmp_path / "tty.db"), stdin=terminal, stdout=terminal, stderr=terminal,
                               cwd=REPO, env=console_env({"TERM": "dumb"}), close_fds=True)
    os.close(terminal)
    seen = b""

    def read_until(text: bytes, start: int = 0) -> int:
        """Read until `text` shows after `start`; the position just after it."""
        nonlocal seen
        deadline = time.monotonic() + 30  # a guard against a hang, not a timing assertion
        while text not in seen[start:] and time.monotonic() < deadline:
            ready, _, _ = select.select([controller], [], [], 1)
            if ready:
                try:
                    seen += os.read(controller, 4096)
                except OSError:
                    break
        found = seen.find(text, start)
        return found + len(text) if found >= 0 else len(seen)

    def answer(keys: bytes, expected: bytes) -> None:
        """Type `keys` at the prompt, then wait for `expected` and the next prompt (typed only when asked)."""
        os.write(controller, keys)
        read_until(b"> ", read_until(expected, len(seen)))

    try:
        read_until(b"> ", read_until(b"lists them."))
        answer(b"gm /game start\r", b"A Nations game begins")
        answer(b"\x1b[A\r", b"already has a game running")  # Up, Enter: the same line again
        answer(b"gm /game statuz\x7fs\r", b"Nations \xe2\x80\x94 turn 1")  # a typo fixed with Backspace
        os.write(controller, b"\x04")  # Ctrl-D: the end of input
        assert process.wait(timeout=30) == 0
    finally:
        if process.poll() is None:
            process.kill()
        os.close(controller)
    text = seen.decode("utf-8", "replace")
    assert "No game is running" in text
    assert "error: this channel already has a game running" in text
    assert "U+001B" not in text  # the arrow key was not sent as a line


async def _formatted(tmp_path, fmt: str, lines: list[str]) -> str:
    store = await Store.open(tmp_path / f"{fmt}.db")
    try:
        out = io.StringIO()
        console = Console(Referee(store, RULES, ForcedRoller(), FakeClock()), out, fmt=fmt)
        for line in ("gm /game start", 'gm /nation claim preset:"Gracchan Republic" player:alice',
                     'gm /gm dice values:"9"'):
            await console.handle(line)
        _said(out)
        for line in lines:
            await console.handle(line)
        return out.getvalue()
    finally:
        await store.close()


COMMANDS_TO_FORMAT = ["alice /economy military", "alice /army show", "carol /economy grow"]


async def test_console_format_text_is_the_answer_as_it_was(tmp_path):
    assert await _formatted(tmp_path, "text", COMMANDS_TO_FORMAT) == (
        "🎲 Gracchan Republic, grow military: d10 9 (GM die) + mod(E) +1 = 10 vs > 8: success\n"
        "Gracchan Republic: MILITARY +1 (grow military).\n"
        "Gracchan Republic: ECONOMY -1 (cost of growing military).\n"
        "Gracchan Republic: 1 of 2 actions left; turn 1 ends 2030-01-01 12:00 UTC.\n"
        "Army of Gracchan Republic: 8 of 9 MP\n"
        "  #1 infantry GREEN 3/3 HP\n"
        "  #2 infantry GREEN 3/3 HP\n"
        "  #3 infantry GREEN 3/3 HP\n"
        "  #4 bomber GREEN 2/2 HP\n"
        "  #5 armour GREEN 2/2 HP\n"
        "error: you have no nation in this game: claim one with /nation claim or /nation create\n"
    )


async def test_console_format_markdown_pastes_into_a_forum_post(tmp_path):
    assert await _formatted(tmp_path, "markdown", COMMANDS_TO_FORMAT) == (
        "🎲 Gracchan Republic, grow military: d10 9 (GM die) + mod(E) +1 = **10** vs > 8: **success**  \n"
        "Gracchan Republic: MILITARY +1 (grow military).  \n"
        "Gracchan Republic: ECONOMY -1 (cost of growing military).  \n"
        "Gracchan Republic: 1 of 2 actions left; turn 1 ends 2030-01-01 12:00 UTC.\n"
        "\n"
        "Army of Gracchan Republic: 8 of 9 MP\n"
        "\n"
        "- `#1` infantry GREEN 3/3 HP\n"
        "- `#2` infantry GREEN 3/3 HP\n"
        "- `#3` infantry GREEN 3/3 HP\n"
        "- `#4` bomber GREEN 2/2 HP\n"
        "- `#5` armour GREEN 2/2 HP\n"
        "\n"
        "**error:** you have no nation in this game: claim one with `/nation claim` or `/nation create`\n"
        "\n"
    )


async def test_console_format_bbcode_pastes_into_a_forum_post(tmp_path):
    assert await _formatted(tmp_path, "bbcode", COMMANDS_TO_FORMAT) == (
        "🎲 Gracchan Republic, grow military: d10 9 (GM die) + mod(E) +1 = [b]10[/b] vs > 8: [b]success[/b]\n"
        "Gracchan Republic: MILITARY +1 (grow military).\n"
        "Gracchan Republic: ECONOMY -1 (cost of growing military).\n"
        "Gracchan Republic: 1 of 2 actions left; turn 1 ends 2030-01-01 12:00 UTC.\n"
        "\n"
        "Army of Gracchan Republic: 8 of 9 MP\n"
        "[list]\n"
        "[*]#1 infantry GREEN 3/3 HP\n"
        "[*]#2 infantry GREEN 3/3 HP\n"
        "[*]#3 infantry GREEN 3/3 HP\n"
        "[*]#4 bomber GREEN 2/2 HP\n"
        "[*]#5 armour GREEN 2/2 HP\n"
        "[/list]\n"
        "\n"
        "[b]error:[/b] you have no nation in this game: claim one with /nation claim or /nation create\n"
        "\n"
    )


async def test_console_markdown_escapes_names_and_bbcode_prints_an_export_as_code(tmp_path):
    from console.format import Formatter

    assert Formatter("markdown").answer(["alice_2 made *this* [link](x) <b>", "  #3 `x`"]) == (
        "alice\\_2 made \\*this\\* \\[link\\](x) \\<b>\n\n- `#3` `x`")  # backticks: a code span, shown as written
    exported = await _formatted(tmp_path, "bbcode", ["gm /gm export"])
    assert exported.startswith("[code]{\n") and exported.endswith("}[/code]\n\n")
    assert json.loads(exported.removeprefix("[code]").removesuffix("[/code]\n\n"))["game"]["turn"] == 1
    with pytest.raises(BadInput):
        Formatter("html")


# --- issue 17: nothing misread — a word is read for the option it was written for, or refused by name ---------


@pytest.mark.parametrize(("line", "options"), [
    # after an unquoted name:value, an option of several words reads on to the next name: (spaces as typed)
    ("alice /attack declare target:Charon units:1 5 retreat_at:1", {"target": "Charon", "units": "1 5",
                                                                     "retreat_at": "1"}),
    ("alice /roll dice:1d20 advantage", {"dice": "1d20 advantage"}),
    ("alice /goddice attack name:flying kick", {"name": "flying kick"}),
    ('gm /gm dice values:Y Y  B   # two spaces kept', {"values": "Y Y  B"}),
    ("gm /nation claim preset:Gracchan Republic player:alice", {"preset": "Gracchan Republic", "player": "alice"}),
    # a space after the colon: the next word is the value
    ("gm /nation claim preset: Charon player: bob", {"preset": "Charon", "player": "bob"}),
    # quoted, and positional values first: as before
    ("alice /attack declare target:Charon units:'1 5'", {"target": "Charon", "units": "1 5"}),
    ('gm /nation claim name:"New Land" 11 bob', {"name": "New Land", "preset": "11", "player": "bob"}),
    ("alice /attack declare Charon '1 2 3'", {"target": "Charon", "units": "1 2 3"}),
    ("/help", {}),
    ("/help topic:gm dice", {"topic": "gm dice"}),
])
def test_a_value_of_several_words_is_read_whole(line, options):
    assert parse_line(line)[2] == options


@pytest.mark.parametrize(("line", "said"), [
    ("alice /attack declare target:Charon retreat_at:1 5 units:3",
     "'5' after retreat_at:1 is not an option: retreat_at: takes one word (write each option as name:value)"),
    ("gm /nation claim player: alice bob",
     "'bob' after player:alice is not an option: player: takes one word (write each option as name:value)"),
    ("alice /attack declare Charon 1 5", "'5' after units 1 is not an option: quote a list, units:\"1 5\""),
    ("alice /attack declare Charon 1 5 7 retreat_at:1",
     "'5' after units 1 is not an option: quote a list, units:\"1 5 7\""),
    ("gm /gm dice 7 3 10", "/gm dice takes values; '3 10' is too much: quote it, values:\"7 3 10\""),
    ("alice /roll 1d20 advantage", "/roll takes dice; 'advantage' is too much: quote it, dice:\"1d20 advantage\""),
    ("alice /economy grow Charon extra", ("/economy grow takes nation; 'extra' is too much: quote it, "
                                          "nation:\"Charon extra\"")),
    ("alice /economy grow bogus:1 x", "/economy grow has no option bogus; its options: nation"),
    ("alice /economy grow nation:a NATION:b", "nation: is given twice on this line; give each option once"),
    ("/economy grow", "write `<your name> /command options`, e.g. `alice /economy grow`"),
    ("/roll 1d20", "write `<your name> /command options`, e.g. `alice /roll 1d20`"),
    ("/conquer world", "write `<your name> /command options`, e.g. `alice /economy grow`"),
    ('"" /economy grow', "write `<your name> /command options`, e.g. `alice /economy grow`"),
])
def test_a_stray_word_is_refused_by_name_never_given_to_another_option(line, said):
    with pytest.raises(BadInput) as info:
        parse_line(line)
    assert str(info.value) == said


def test_a_list_of_numbers_names_the_word_that_is_not_one():
    with pytest.raises(BadInput) as info:
        coerce_options(BY_PATH["attack declare"], {"target": "Charon", "units": "1 5 x"})
    assert str(info.value) == "units: 'x' is not a number; give numbers, e.g. units:\"1 5\""
    with pytest.raises(BadInput) as info:
        coerce_options(BY_PATH["godsfire movement move"], {"counters": "3 " + "9" * 40, "to": "K5"})
    assert str(info.value) == "counters: '9999999999999999999999999999999999999999' is too large for a number here"
    assert coerce_options(BY_PATH["attack commit"], {"units": "#1, 2 3"}) == {"units": "#1, 2 3"}


def test_only_a_text_option_takes_several_words():
    from engine.vocabulary import LIST, NUMBERS, ONE, TEXT, Param

    with pytest.raises(ValueError, match="only a text option may take several words"):
        Param("count", int, words=LIST)
    with pytest.raises(ValueError, match="only a text option may take several words"):
        Param("flag", bool, words=TEXT)
    assert Param("topic", choices=("a", "b"), words=TEXT).offered == ("a", "b")  # /help topic:gm unit
    with pytest.raises(ValueError, match="words is one of"):
        Param("x", words="many")
    several = {(c.path, p.name): p.words for c in COMMANDS for p in c.params if p.words != ONE}
    assert several[("attack declare", "units")] == several[("godsfire movement move", "counters")] == NUMBERS
    assert several[("nation claim", "preset")] == several[("roll", "dice")] == TEXT
    assert several[("gm dice", "values")] == LIST


def test_the_words_of_a_line_are_read_as_the_shell_reads_them():
    """`split_words` is `shlex.split(line, comments=True)` with the words' places: on random lines of quotes,
    escapes, comments and spaces, the same words or the same refusal."""
    import random
    import shlex

    from engine.vocabulary import split_words

    rng = random.Random(17)
    for _ in range(20_000):
        line = "".join(rng.choice(["a", "b", ":", " ", "  ", "\t", '"', "'", "\\", "#", "é", "1"])
                       for _ in range(rng.randrange(0, 14)))
        try:
            expected: object = shlex.split(line, comments=True)
        except ValueError as err:
            expected = str(err)
        try:
            got: object = [w.text for w in split_words(line)]
        except ValueError as err:
            got = str(err)
        assert got == expected, line


async def test_a_bare_help_answers_and_a_bare_command_says_how_to_write_it(tmp_path):
    store = await Store.open(tmp_path / "help.db")
    try:
        out = io.StringIO()
        console = Console(Referee(store, None), out)
        await console.handle("/help")
        await console.handle("/help topic:roll")
        await console.handle("/roll 1d20")
        lines = out.getvalue().splitlines()
        assert lines[0].startswith("Referee commands")
        assert ("/roll dice: [secret:] — roll any dice — a free roll, not a rule roll (shown in /log when a game runs "
                "here)") in lines
        assert lines[-1] == "error: write `<your name> /command options`, e.g. `alice /roll 1d20`"
    finally:
        await store.close()


def test_a_line_separator_is_refused_as_a_line_break():
    with pytest.raises(BadInput) as info:
        decode_line("gm /godsfire \u2028")
    assert str(info.value) == "that line has a line separator (U+2028, column 14); nothing changed"


def test_help_shows_a_command_that_is_not_a_group_by_what_it_does():
    from engine.commands import help_lines

    _, lines = help_lines()
    assert any(line.startswith("/log: rolls, export") for line in lines)  # issue 19: /log is a group
    assert not any(line.startswith(("/roll:", "/help:")) for line in lines)
    assert "/game: start, status, list, digest, chart, page, end, import" in lines


def test_a_gms_command_is_marked_gm_once():
    """/help and Discord's descriptions mark a GM's command (GM), once: not again after a help that says
    "(GM, at the start)"."""
    from engine.commands import COMMANDS, help_lines

    assert all(c.described.count("(GM") == 1 for c in COMMANDS if c.gm_only)
    _, lines = help_lines("godsfire")
    assert "/godsfire victory set condition: [turns:] — the scenario's victory condition (GM, at the start)" in lines
