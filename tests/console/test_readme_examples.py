"""Every console example of README.md runs as printed: no refusal, and its key results.

A console example is an indented block (4 spaces, after a blank line) whose every line reads
`<name> /<command> …`; each runs through `python bot.py --console` on a fresh database, in a fresh working
folder (so `/gm export file:` writes there), exactly as a reader would paste it.
"""

from __future__ import annotations

import re
import subprocess
import sys

import pytest
from storehelpers import REPO, console_env

README = REPO / "README.md"
CONSOLE_LINE = re.compile(r"^\S+ /\w")

# the first line of each example → lines its output must hold (besides having no `error:` line)
EXPECTED: dict[str, list[str]] = {
    "gm /game start turn_hours:12": [
        "⚔ Gracchan Republic attacks Charon with #1, #5, retreating at 1 HP (battle #1).",
        "🛡 #6 defends in battle #1 (committed by bob).",
        "The defender wins the initiative in battle #1 and picks the pairings.",
        "Duel in battle #1: #5 armour against #6 armour (paired by Charon).",
        "The duel is over: the defender's #6 armour was killed.",
        "🏁 Battle #1 is over: attacker won; Gracchan Republic wins.",
        "Battle #1, turn 1: Gracchan Republic against Charon — attacker won",
        "MILITARY 9 (-1)  PROPAGANDA 11 (+0)  LAND 25 (E+M 20)",
        "Game exported to game.json.",
    ],
    "gm /game start ruleset:goddice": [
        "💥 alice's Hero: Lacerate for 25 damage to bob's Monk.",
    ],
    "gm /game start ruleset:godsfire": [
        ("Sol: bank 0 → 4 (tax of turn 1: 2 planets +2, region 2 A-2 +1, extortion in "
         "region 2 +1 = 4 GB)."),
    ],
}


def console_examples(text: str) -> list[list[str]]:
    """Each indented block of `text` whose lines are all console lines, as lines without the indent."""
    blocks: list[list[str]] = []
    current: list[str] = []
    previous_blank = True
    for line in [*text.splitlines(), ""]:
        if line.startswith("    ") and (current or previous_blank):
            current.append(line[4:])
        else:
            if current and all(CONSOLE_LINE.match(x) for x in current):
                blocks.append(current)
            current = []
        previous_blank = not line.strip()
    return blocks


def test_the_readme_has_the_console_examples_expected():
    firsts = [block[0] for block in console_examples(README.read_text(encoding="utf-8"))]
    assert sorted(firsts) == sorted(EXPECTED), firsts


def test_a_block_that_is_not_console_lines_is_not_an_example():
    text = "intro\n\n    make run\n\n    gm /game start\n    alice /economy grow\n\n    DISCORD_TOKEN=x\n"
    assert console_examples(text) == [["gm /game start", "alice /economy grow"]]


@pytest.mark.parametrize("block", console_examples(README.read_text(encoding="utf-8")), ids=lambda b: b[0])
def test_every_readme_console_example_runs_as_printed(block, tmp_path):
    script = "".join(line + "\n" for line in block)
    done = subprocess.run([sys.executable, str(REPO / "bot.py"), "--console", "--db", str(tmp_path / "readme.db")],
                          input=script, capture_output=True, text=True, encoding="utf-8", timeout=60,
                          cwd=tmp_path, env=console_env())
    assert done.returncode == 0 and done.stderr == "", done.stderr
    lines = done.stdout.splitlines()
    assert [line for line in lines if line.startswith("error:")] == [], done.stdout
    assert not [line for line in lines if line.startswith("⚠")], done.stdout  # no warning the text omits
    for expected in EXPECTED[block[0]]:
        assert expected in lines, f"{expected!r} not in:\n{done.stdout}"


# --- issue 17: an example typed without its quotes is read as printed, or refused naming the stray word ------

DOCS = [README, *sorted((REPO / "docs").glob("*.md"))]
COMMAND_LINE = re.compile(r"^[A-Za-z][\w-]* /[a-z]")
QUOTED = re.compile(r"""(["'])(.*?)\1""")


def example_lines(text: str) -> list[str]:
    """Every command line of a page: the lines of its code blocks (fenced or indented) and the backtick spans
    that read `<name> /command …`."""
    found: list[str] = []
    fenced = False
    for line in text.splitlines():
        if line.strip().startswith("```"):
            fenced = not fenced
            continue
        candidates = [line.strip()] if fenced or line.startswith("    ") else []
        candidates += re.findall(r"`([^`]+)`", line)
        found += [c for c in candidates if COMMAND_LINE.match(c)]
    return found


QUOTED_EXAMPLES = [(page.name, line) for page in DOCS for line in example_lines(page.read_text(encoding="utf-8"))
                   if QUOTED.search(line.split("#")[0])]


def test_the_pages_have_quoted_examples_to_try_unquoted():
    assert len(QUOTED_EXAMPLES) >= 20, QUOTED_EXAMPLES
    assert ("README.md", 'alice /nation claim preset:"Gracchan Republic"') in QUOTED_EXAMPLES


@pytest.mark.parametrize(("page", "line"), QUOTED_EXAMPLES, ids=[f"{p}: {x}" for p, x in QUOTED_EXAMPLES])
def test_an_example_typed_without_its_quotes_is_read_as_printed_or_refused_naming_the_stray_word(page, line):
    from console.app import parse_line
    from engine.commands import coerce_options
    from engine.errors import BadInput

    command_part = line.split("#")[0]
    bare = QUOTED.sub(lambda m: m.group(2), command_part)
    actor, command, options = parse_line(line)
    try:
        read = parse_line(bare)
    except BadInput as err:  # refused: naming a word that was inside the quotes, after its first
        strays = {w for m in QUOTED.finditer(command_part) for w in m.group(2).split()[1:]}
        assert any(repr(w) in str(err) for w in strays), (bare, str(err))
        return
    assert read is not None and (read[0], read[1], read[2]) == (actor, command, options), bare
    assert coerce_options(read[1], read[2]) == coerce_options(command, options)


@pytest.mark.parametrize("block", console_examples(README.read_text(encoding="utf-8")), ids=lambda b: b[0])
def test_every_readme_console_example_plays_the_same_without_its_quotes(block, tmp_path):
    def play(lines: list[str], folder: str) -> str:
        (tmp_path / folder).mkdir()
        done = subprocess.run([sys.executable, str(REPO / "bot.py"), "--console", "--seed", "5", "--db",
                               str(tmp_path / folder / "readme.db")], input="".join(x + "\n" for x in lines),
                              capture_output=True, text=True, encoding="utf-8", timeout=60, cwd=tmp_path / folder,
                              env=console_env())
        assert done.returncode == 0 and done.stderr == "", done.stderr
        return re.sub(r"\d{4}-\d\d-\d\d \d\d:\d\d UTC", "<T>", done.stdout)

    bare = [QUOTED.sub(lambda m: m.group(2), x.split("#")[0]) for x in block]
    assert bare != block
    assert play(bare, "bare") == play(block, "quoted")
