"""Shared pytest setup: the project root on sys.path (so `engine` and `data` import under plain `pytest`),
and fixtures over `helpers` (import `helpers` directly for the `Game` class, `NOW`, `hours`, `snap`)."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent
SUPPORT = Path(__file__).resolve().parent / "support"  # the tests' helpers: `from helpers import Game`
for folder in (SUPPORT, ROOT):
    if str(folder) not in sys.path:
        sys.path.insert(0, str(folder))

from helpers import Game, rules  # noqa: E402
from storehelpers import FakeClock  # noqa: E402

from data.store import Store  # noqa: E402
from engine.nations.rules import Rules  # noqa: E402

# Every typed snapshot any test writes is checked to load as its export document would (data/store/encoding.py); the
# tests' own subprocesses (the bot, the console, the crash tests' children) inherit it.
os.environ.setdefault("REFEREE_CHECK_SNAPSHOTS", "1")


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


# --- the PostgreSQL pass: `pytest --postgres` ----------------------------------------------------------------
# Runs the tests against PostgreSQL: a throwaway server (tests/support/pgserver.py) unless REFEREE_TEST_POSTGRES names
# one, and every store a test opens at a SQLite path opened instead in a fresh schema of that server (the same
# path again: the same schema). Tests marked `sqlite_only` (SQLite's files, pragmas and faults) are skipped.

def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--postgres", action="store_true",
                     help="run the tests against PostgreSQL (a throwaway server started from initdb/pg_ctl)")


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "sqlite_only: a test of SQLite itself (files, pragmas, its faults)")
    config.addinivalue_line("markers", "postgres_only: a test that needs PostgreSQL (run by `pytest --postgres`)")
    config.pg_url = None  # type: ignore[attr-defined]
    config.pg_reason = None  # type: ignore[attr-defined]
    if not config.getoption("--postgres"):
        return
    from pgserver import PgServer, unavailable

    url = os.environ.get("REFEREE_TEST_POSTGRES")
    if not url:
        reason = unavailable()
        if reason is not None:
            config.pg_reason = f"no PostgreSQL here: {reason}"  # type: ignore[attr-defined]
            return
        server = PgServer()
        url = server.start()
        config.pg_server = server  # type: ignore[attr-defined]
    config.pg_url = url  # type: ignore[attr-defined]
    os.environ["REFEREE_TEST_POSTGRES"] = url  # (for the tests' own subprocesses)


def pytest_unconfigure(config: pytest.Config) -> None:
    server = getattr(config, "pg_server", None)
    if server is not None:
        server.stop()


def pytest_report_header(config: pytest.Config) -> str | None:
    if config.getoption("--postgres"):
        return f"PostgreSQL pass: {config.pg_url or config.pg_reason}"  # type: ignore[attr-defined]
    return None


def pytest_sessionstart(session: pytest.Session) -> None:
    reason = session.config.pg_reason  # type: ignore[attr-defined]
    if reason:  # (-q hides the report header: said here, and again at the end)
        print(f"\nthe PostgreSQL pass is skipped: {reason}", file=sys.stderr, flush=True)


def pytest_terminal_summary(terminalreporter: Any, exitstatus: int, config: pytest.Config) -> None:
    reason = config.pg_reason  # type: ignore[attr-defined]
    if reason:
        terminalreporter.write_line(f"the PostgreSQL pass was skipped: {reason}", yellow=True, bold=True)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    on_postgres = config.getoption("--postgres")
    for item in items:
        if on_postgres and config.pg_reason:  # type: ignore[attr-defined]
            item.add_marker(pytest.mark.skip(reason=config.pg_reason))  # type: ignore[attr-defined]
        elif on_postgres and item.get_closest_marker("sqlite_only"):
            item.add_marker(pytest.mark.skip(reason="a test of SQLite itself"))
        elif not on_postgres and item.get_closest_marker("postgres_only"):
            item.add_marker(pytest.mark.skip(reason="needs PostgreSQL: run `pytest --postgres`"))


_schemas = iter(range(1, 10**9))


@pytest.fixture(autouse=True)
def _stores_on_postgres(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    """On the PostgreSQL pass, a store opened at a SQLite path opens in a schema of the test server instead."""
    url = request.config.pg_url  # type: ignore[attr-defined]
    if url is None or request.node.get_closest_marker("sqlite_only"):
        return
    opened: dict[str, str] = {}
    original = Store.open.__func__  # type: ignore[attr-defined]

    async def open_on_postgres(cls: type[Store], path: Any, **options: Any) -> Store:
        target = str(path)
        # (a database file a test's subprocess wrote — a console run — stays SQLite)
        if not target.startswith("postgresql://") and not Path(target).exists():
            key = str(Path(target).resolve())
            if key not in opened:
                opened[key] = f"{url}{'&' if '?' in url else '?'}schema=t{next(_schemas)}_{os.getpid()}"
            target = opened[key]
        return await original(cls, target, **options)

    monkeypatch.setattr(Store, "open", classmethod(open_on_postgres))
