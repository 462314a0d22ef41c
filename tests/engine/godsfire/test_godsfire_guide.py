"""docs/godsfire.md's short session runs as printed: every line is answered without a refusal, and the game
ends the session where the guide says (turn 2's Movement Phase, bob first, alice and bob at war)."""

from __future__ import annotations

import re

from storehelpers import REPO, console_on, said

GUIDE = (REPO / "docs" / "godsfire.md").read_text(encoding="utf-8")


def session_lines(heading: str = "## A short session (console)") -> list[str]:
    """The command lines of one of the guide's session blocks (indented four spaces)."""
    section = GUIDE.split(heading, 1)[1].split("\n## ", 1)[0]
    return [line[4:] for line in section.splitlines() if re.match(r"    \w+ /", line)]


async def played(lines: list[str], db) -> dict[str, list[str]]:
    """Each line (its comment off) → what the console answered it; every line is answered."""
    console, store, out = await console_on(db)
    answers: dict[str, list[str]] = {}
    try:
        for line in lines:
            await console.handle(line)
            command = line.split("  #", 1)[0].strip()
            answers[command] = said(out)
            assert answers[command], line
    finally:
        await store.close()
    return answers


def refusals(answers: dict[str, list[str]]) -> list[str]:
    return [command for command, said in answers.items() if any(a.startswith("error:") for a in said)]


async def test_the_guides_short_session_runs_as_printed(tmp_path):
    lines = session_lines()
    assert len(lines) >= 30 and lines[0] == "gm /game start ruleset:godsfire"
    answers = await played(lines, tmp_path / "r.db")
    assert refusals(answers) == []
    # what the comments in the guide say
    assert any("odds 1-3; die 1: Ar" in a for a in answers["gm /godsfire combat resolve"])
    assert any("odds 3-1; die 4: D1" in a for a in answers["alice /godsfire chart combat attack:7 defence:3"])
    assert any("bank 0 → 3" in a for a in answers["alice /godsfire money tax system:Sol"])
    assert any("bank 0 → 1" in a for a in answers["bob /godsfire money tax system:Vega"])
    status = answers["alice /godsfire status"]
    assert status[0].startswith("Godsfire — turn 2, Movement Phase")
    assert "At war: alice and bob" in status
    assert "Turn 2's player order: bob, alice." in status


def test_every_command_line_in_the_guide_reads_as_a_command():
    """The guide's other examples (fragments of a game) name real commands with their real options."""
    from console.app import parse_line
    from engine.vocabulary import coerce_options

    lines = [line[4:] for line in GUIDE.splitlines() if re.match(r"    \w+ /", line)]
    assert len(lines) > len(session_lines())
    for line in lines:
        _, command, options = parse_line(line)
        assert command.ruleset in (None, "godsfire"), line
        coerce_options(command, options)  # every option known and of its type


async def test_the_guides_map_session_runs_as_printed(tmp_path, monkeypatch):
    """docs/godsfire.md's map session: every line answered, the one refusal the guide announces, the path,
    the block and the picture written."""
    monkeypatch.chdir(tmp_path)
    lines = session_lines("## A session on the map (console)")
    assert lines[0] == "gm /game start ruleset:godsfire" and len(lines) == 17
    answers = await played(lines, tmp_path / "m.db")
    refused = refusals(answers)
    assert refused == ['alice /godsfire movement move counters:"3 4" to:E3']
    assert "(3 + 2 × 1 = 5) is more than its 4" in answers[refused[0]][0]
    moved = answers['alice /godsfire movement move counters:"3 4" to:Dusk']
    assert any("pass through D3 by the path Aster → C3 → D3 → Dusk" in a for a in moved)
    assert any("Bob blocks at D3 and retreats to D2" in a
               for a in answers["bob /godsfire movement transit answer:block retreat:D2"])
    assert any("Bob declares war on alice" in a for a in answers["bob /godsfire war declare target:alice"])
    assert (tmp_path / "table.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
