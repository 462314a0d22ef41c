"""Shared pytest setup: the project root on sys.path (so `engine` and `data` import under plain `pytest`),
and fixtures over `helpers` (import `helpers` directly for the `Game` class, `NOW`, `hours`, `snap`)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from helpers import Game, rules  # noqa: E402
from storehelpers import FakeClock  # noqa: E402

from data.store import Store  # noqa: E402
from engine.nations.rules import Rules  # noqa: E402


@pytest.fixture
def game() -> Game:
    """A fresh Nations game: GM "gm", 12-hour turns, turn 1 starting at helpers.NOW, no nations."""
    return Game()


@pytest.fixture
def nations_rules() -> Rules:
    """The validated rules of data/nations.toml."""
    return rules()


@pytest.fixture
async def store(tmp_path):
    """A fresh store in the test's folder, closed after it."""
    opened = await Store.open(tmp_path / "referee.db")
    yield opened
    await opened.close()


@pytest.fixture
def clock() -> FakeClock:
    """A clock that moves only when told (`advance`)."""
    return FakeClock()
