"""The console's forum output (issue 17): a stat block's columns kept in a code block (BBCode, markdown), no
4-byte character with `--no-emoji`, usage errors readable in markdown."""

from __future__ import annotations

import io
import json
import re
import subprocess

import pytest
from storehelpers import REPO, RULES, FakeClock, bot_command, console_env, console_on, said

from console.app import Console
from console.format import EMOJI_MARKS, Formatter, no_emoji
from data.store import Store
from engine.dice import ForcedRoller
from engine.view import Line, Strong, line, table_rows
from service.referee import Referee

SETUP = ("gm /game start", 'gm /nation claim preset:"Gracchan Republic" player:alice', 'gm /gm dice values:"9"',
         "alice /economy military")


async def answers(tmp_path, fmt: str, lines: list[str], emoji: bool = True) -> str:
    """What the console prints for `lines` after SETUP, in `fmt`."""
    store = await Store.open(tmp_path / f"{fmt}-{emoji}.db")
    try:
        out = io.StringIO()
        console = Console(Referee(store, RULES, ForcedRoller(), FakeClock()), out, fmt=fmt, emoji=emoji)
        for line_ in SETUP:
            await console.handle(line_)
        out.truncate(0)
        out.seek(0)
        for line_ in lines:
            await console.handle(line_)
        return out.getvalue()
    finally:
        await store.close()


# --- a stat block keeps its columns ----------------------------------------------------------------


async def test_bbcode_puts_a_nations_stat_block_in_a_code_block(tmp_path):
    assert await answers(tmp_path, "bbcode", ["alice /nation show"]) == (
        "Gracchan Republic — played by alice\n"
        "[code]ECONOMY 11 (+0)  STABILITY 10 (+0)\n"
        "MILITARY 9 (-1)  PROPAGANDA 10 (+0)  LAND 20 (E+M 20)\n"
        "STRENGTH infantry, WEAKNESS bomber[/code]\n"
        "Actions: 1 of 2 left this turn (used: ECONOMY)\n"
        "Army of Gracchan Republic: 8 of 9 MP\n"
        "[list]\n"
        "[*]#1 infantry GREEN 3/3 HP\n"
        "[*]#2 infantry GREEN 3/3 HP\n"
        "[*]#3 infantry GREEN 3/3 HP\n"
        "[*]#4 bomber GREEN 2/2 HP\n"
        "[*]#5 armour GREEN 2/2 HP\n"
        "[/list]\n"
        "\n"
    )


async def test_markdown_puts_a_stat_block_in_a_fenced_code_block_and_text_is_unchanged(tmp_path):
    markdown = await answers(tmp_path, "markdown", ["alice /nation show"])
    assert markdown.startswith(
        "Gracchan Republic — played by alice\n"
        "\n"
        "```\n"
        "ECONOMY 11 (+0)  STABILITY 10 (+0)\n"
        "MILITARY 9 (-1)  PROPAGANDA 10 (+0)  LAND 20 (E+M 20)\n"
        "STRENGTH infantry, WEAKNESS bomber\n"
        "```\n"
        "\n"
        "Actions: 1 of 2 left this turn (used: ECONOMY)  \n")
    text = await answers(tmp_path, "text", ["alice /nation show"])
    assert text.splitlines()[1:4] == ["ECONOMY 11 (+0)  STABILITY 10 (+0)",
                                      "MILITARY 9 (-1)  PROPAGANDA 10 (+0)  LAND 20 (E+M 20)",
                                      "STRENGTH infantry, WEAKNESS bomber"]


def test_table_rows_line_up_their_columns():
    rows = table_rows(("ECONOMY 5 (-2)", "STABILITY 10 (+0)"),
                      ("MILITARY 12 (+1)", "PROPAGANDA 9 (-1)", "LAND 20 (E+M 17)"), ("STRENGTH armour",))
    assert [row.text for row in rows] == ["ECONOMY 5 (-2)    STABILITY 10 (+0)",
                                          "MILITARY 12 (+1)  PROPAGANDA 9 (-1)  LAND 20 (E+M 17)",
                                          "STRENGTH armour"]
    assert all(row.table and not row.item for row in rows)


def test_bbcode_puts_a_godsfire_system_sheets_rows_in_a_code_block():
    """The rows keep their indent and lose their emphasis inside the block (BBCode shows no tag there)."""
    from engine.godsfire.state import Region, System
    from engine.godsfire.views import system_view

    sol = System("Sol", None, bank=3, units={"SQD": 2},
                 regions=[Region(1, "M", 4, "A-1"), Region(2, "R", 0, "S", revolt=True, enemy_units=2)])
    shown = system_view(sol)
    assert Formatter("bbcode").answer([shown.title, *shown.lines]) == (
        "Sol — a neutral system, 1 planet; bank 3 GB; space 2 SQD; loans none\n"
        "[code]  Region 1: Moderate (M), allegiance 4, Agriculture-1 (A-1); ground none\n"
        "  Region 2: Reactionary (R), allegiance 0, Subsistence (S); IN REVOLT; ground none; enemy units 2[/code]")


def test_a_code_block_cannot_be_closed_or_fenced_by_what_it_shows():
    rows = [Line(("a [/code] b",), table=True), Line(("``` x",), table=True)]
    assert Formatter("bbcode").answer(rows) == "[code]a [\u200b/code] b\n``` x[/code]"
    assert Formatter("markdown").answer(rows) == "````\na [/code] b\n``` x\n````"


def test_lines_around_a_stat_block_keep_their_emphasis():
    shown = [line("Sol — ", Strong("UNDER SIEGE")), *table_rows(("A 1", "B 2"), ("AA 1", "B 2")),
             line("#3 moved")]
    assert Formatter("bbcode").answer(shown) == "Sol — [b]UNDER SIEGE[/b]\n[code]A 1   B 2\nAA 1  B 2[/code]\n#3 moved"
    assert Formatter("markdown").answer(shown) == (
        "Sol — **UNDER SIEGE**\n\n```\nA 1   B 2\nAA 1  B 2\n```\n\n`#3` moved")


# --- --no-emoji ------------------------------------------------------------------------------------


def four_byte(text: str) -> list[str]:
    return sorted({ch for ch in text if ord(ch) > 0xFFFF})


def test_no_emoji_marks_the_referees_emoji_and_leaves_out_any_other():
    assert no_emoji("🎲 alice, opening roll: B R 5") == "[die] alice, opening roll: B R 5"
    assert no_emoji("⚔ Charon attacks Tyre; 🪐 bob joins; ✨ Sol; 💰 Money; 🧭 Move") == (
        "[battle] Charon attacks Tyre; [planet] bob joins; [+] Sol; [money] Money; [move] Move")
    assert no_emoji("alice🐉 and 👍🏽 ⚔️") == "alice and  [battle]"  # a name's emoji, a skin tone, a selector
    assert no_emoji("E+M → 20, ≥ 5, █░ 30/55 — “x”") == "E+M → 20, ≥ 5, █░ 30/55 — “x”"  # text, not emoji
    assert not four_byte("".join(EMOJI_MARKS.values()))


def test_every_emoji_the_referee_writes_has_a_mark():
    """Every character outside the BMP in the referee's own words (the engine, the console) has its mark."""
    sources = [*REPO.joinpath("engine").rglob("*.py"), *REPO.joinpath("console").rglob("*.py"),
               *REPO.joinpath("service").rglob("*.py")]
    used = {ch for path in sources for ch in path.read_text(encoding="utf-8") if ord(ch) > 0xFFFF}
    assert used <= set(EMOJI_MARKS), used - set(EMOJI_MARKS)


@pytest.mark.parametrize("fmt", ["text", "markdown", "bbcode"])
async def test_no_emoji_plays_the_godsfire_guides_session_without_a_4_byte_character(tmp_path, fmt):
    """A whole scripted game (docs/godsfire.md's short session: 🎲 🪐 ✨ 💰 🧭 and more with emoji)."""
    guide = (REPO / "docs" / "godsfire.md").read_text(encoding="utf-8")
    section = guide.split("## A short session (console)", 1)[1].split("\n## ", 1)[0]
    session = [text[4:] for text in section.splitlines() if re.match(r"    \w+ /", text)]
    assert session[0] == "gm /game start ruleset:godsfire"
    console, store, out = await console_on(tmp_path / "r.db")
    console.formatter = Formatter(fmt, emoji=False)
    try:
        for text in session:
            await console.handle(text)
        await console.handle("gm /gm export")
        shown = "\n".join(said(out))
    finally:
        await store.close()
    assert "[die]" in shown and "[planet]" in shown and "error:" not in shown
    assert not four_byte(shown), four_byte(shown)


def test_bot_no_emoji_writes_a_whole_nations_game_in_bbcode_without_a_4_byte_character(tmp_path):
    script = ["gm /game start", 'gm /nation claim preset:"Gracchan Republic" player:alice',
              "gm /nation claim Charon bob", 'gm /gm dice values:"9 8 6"', "alice /economy military",
              "alice /propaganda encourage workers", "alice /nation show", 'bob /attack declare "Gracchan Republic" 6',
              "gm /game status", "alice /log rolls", "gm /gm export", "gm /game end confirm:true"]
    done = subprocess.run([*bot_command(tmp_path / "g.db"), "--format", "bbcode", "--no-emoji"],
                          input="".join(f"{x}\n" for x in script), capture_output=True, text=True, encoding="utf-8",
                          timeout=60, cwd=REPO, env=console_env())
    assert done.returncode == 0 and done.stderr == "", done.stderr
    assert not four_byte(done.stdout), four_byte(done.stdout)
    assert "[flag] Gracchan Republic joins the game" in done.stdout
    assert re.search(r"\[die\] Gracchan Republic, grow military: .* = \[b\]10\[/b\]", done.stdout)
    assert "[+] Gracchan Republic: Workers +2" in done.stdout
    with_emoji = subprocess.run([*bot_command(tmp_path / "h.db"), "--format", "bbcode"], input=script[0] + "\n"
                                + script[1] + "\n", capture_output=True, text=True, encoding="utf-8", timeout=60,
                                cwd=REPO, env=console_env())
    assert "🏳 Gracchan Republic joins the game" in with_emoji.stdout


async def test_no_emoji_prints_an_export_with_its_emoji_escaped_so_it_reads_back_the_same(tmp_path):
    exported = await answers(tmp_path, "bbcode", ["gm /gm export"], emoji=False)
    assert not four_byte(exported)
    body = exported.removeprefix("[code]").removesuffix("[/code]\n\n")
    assert "\\ud83c\\udfb2" not in body or json.loads(body)  # (a roll's purpose carries no emoji today)
    assert json.loads(body)["game"]["turn"] == 1
    from console.format import json_no_emoji

    assert json.loads(json_no_emoji(json.dumps({"name": "🐉 Sol"}, ensure_ascii=False))) == {"name": "🐉 Sol"}


def test_the_no_emoji_option_reaches_the_console():
    from bot import parse_args

    assert parse_args(["--console", "--no-emoji", "--format", "bbcode"]).no_emoji is True
    assert parse_args(["--console"]).no_emoji is False


# --- markdown: usage errors readable ---------------------------------------------------------------


def test_markdown_shows_a_usage_error_as_written():
    md = Formatter("markdown")
    assert md.answer(["error: write `<your name> /command options`, e.g. `alice /economy grow`"]) == (
        "**error:** write `<your name> /command options`, e.g. `alice /economy grow`")
    assert md.answer(["error: declare which of your characters attacks: /goddice declare attacker:<character>"]) == (
        "**error:** declare which of your characters attacks: `/goddice declare attacker:<character>`")
    assert md.answer(["a step skipped: /godsfire interphase done step:<step>; the compulsory ones left"]) == (
        "a step skipped: `/godsfire interphase done step:<step>`; the compulsory ones left")
    assert md.answer(['claim it with name: (/nation claim preset:3 name:"its name").']) == (
        'claim it with name: (`/nation claim preset:3 name:"its name"`).')
    assert md.answer(["total: is the whole of a ground combat (with combat:<n>) for *alice_b*"]) == (
        "total: is the whole of a ground combat (with combat:\\<n>) for \\*alice\\_b\\*")
    # what markdown would read as a list or a heading at a line's start stays text
    assert md.answer(["1. Charon (bob): LAND 22", "# 3", "- x"]) == "1\\. Charon (bob): LAND 22  \n\\# 3  \n\\- x"
    bb = Formatter("bbcode")
    assert bb.answer(["error: write `<your name> /command options`, e.g. `alice /economy grow`"]) == (
        "[b]error:[/b] write `<your name> /command options`, e.g. `alice /economy grow`")


async def test_markdown_shows_the_consoles_own_usage_error_with_code_spans(tmp_path):
    shown = await answers(tmp_path, "markdown", ["alice economy grow"])
    assert shown.startswith("**error:** ") and "\\`" not in shown and "\\<" not in shown, shown
    assert re.search(r"`[^`]*/economy grow[^`]*`", shown), shown
