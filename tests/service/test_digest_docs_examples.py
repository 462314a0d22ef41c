"""Issue 34: every `/game digest since:` the players' docs show works in a game that has just begun (a date
before the game, such as since:2026-03-01T12:00 in a game started later, is refused, and says why)."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from engine.errors import BadInput
from service.digest import parse_since

REPO = Path(__file__).resolve().parents[2]
NOW = datetime(2027, 6, 1, 12, 0, tzinfo=UTC)  # a game begun an hour ago, long after any date a doc could show


def examples() -> list[tuple[str, str]]:
    found = []
    for path in [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]:
        for given in re.findall(r"since:([^\s`\]\)\"',;]+)", path.read_text(encoding="utf-8")):
            found.append((path.name, given))
    return found


def test_the_docs_show_digest_examples():
    assert examples()


@pytest.mark.parametrize(("doc", "given"), examples())
def test_every_digest_since_in_the_docs_works_in_a_new_game(doc: str, given: str):
    moment = parse_since(given, NOW, began=NOW - timedelta(hours=1))
    assert moment <= NOW, (doc, given)


def test_a_time_before_the_game_began_is_refused_and_says_when_it_began():
    with pytest.raises(BadInput, match=r"since is before this game began \(2027-06-01 11:00 UTC\)"):
        parse_since("2026-03-01T12:00", NOW, began=NOW - timedelta(hours=1))
