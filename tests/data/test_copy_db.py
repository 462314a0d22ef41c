"""`python bot.py --copy-db FROM TO`: every game, its log and ledger copied between SQLite and PostgreSQL (or
SQLite to SQLite), ids and all; checked on arrival; refused into a database that has games."""

from __future__ import annotations

import asyncio
import io
import itertools
import json
import os
import sqlite3
from datetime import timedelta
from pathlib import Path

import pytest
from goddicehelpers import drafted
from storehelpers import (
    RULES,
    FakeClock,
    assert_every_game_is_its_replay,
    assert_snapshot_is_replay,
    read_snapshot,
    scalar,
    state_to_dict,
    write_snapshot,
)

import bot
import data.copydb as copydb
from console.app import Console
from data.copydb import TABLE_NAMES, CopyError, copy_database, copy_report
from data.store import QuietHours, Store
from engine.clock import EndGame
from engine.dice import ForcedRoller
from engine.nations import gm, war
from engine.nations import peace as nat
from service.referee import Referee

NATIONS = ("Gracchan Republic", "Charon")
GODSFIRE = [
    "gm /game start ruleset:godsfire",
    "gm /godsfire player add name:bob",
    'gm /gm dice values:"3 4 5 3 1 1 6 6"',
    "gm /godsfire system add name:Sol owner:alice planets:2 regions:2",
]
_schemas = itertools.count(1)


def sqlite_file(path: Path) -> str:
    """A SQLite database file that exists (empty: `Store.open` makes it a referee database). Existing, it stays
    SQLite on the PostgreSQL pass too (conftest moves only stores at new paths to PostgreSQL)."""
    sqlite3.connect(path).close()
    return str(path)


def pg_schema(request: pytest.FixtureRequest) -> str:
    """A fresh schema of the test server."""
    url = request.config.pg_url  # type: ignore[attr-defined]
    return f"{url}{'&' if '?' in url else '?'}schema=copy{next(_schemas)}_{os.getpid()}"


async def nations_game(ref: Referee, channel: str) -> int:
    report = await ref.start_game(channel, "gm")
    await ref.act(channel, "gm", nat.ClaimPreset(NATIONS[0], "alice"), "/nation claim")
    await ref.act(channel, "gm", nat.ClaimPreset(NATIONS[1], "bob"), "/nation claim")
    return report.game_id


async def dice(ref: Referee, channel: str, *values: int) -> None:
    await ref.act(channel, "gm", gm.QueueDice(list(values)), f"/gm dice {' '.join(map(str, values))}")


async def build(path: Path) -> str:
    """A SQLite database with a game of each rule set — Nations with a battle, an undone action, free rolls,
    the front-end's messages, reminders by DM, page links and an announcement not sent yet; God Dice drafted;
    Godsfire set up through the console — plus an ended game and an imported one."""
    db = sqlite_file(path)
    store = await Store.open(db)
    try:
        clock, roller = FakeClock(), ForcedRoller()
        ref = Referee(store, RULES, roller, clock)
        old = await nations_game(ref, "old")
        await ref.act("old", "gm", EndGame(), "/game end")

        game_id = await nations_game(ref, "nations")
        clock.advance(minutes=5)
        # initiative 5 / 5; round 10 v 1 (armour wounded), demotion 1; round 10 v 1 (armour killed); promotion 1
        await dice(ref, "nations", 5, 5, 10, 1, 1, 10, 1, 1)
        await ref.act("nations", "alice", war.DeclareAttack("Charon", [1]), "/attack declare Charon 1")
        report = await ref.act("nations", "bob", war.CommitUnits([6]), "/attack commit 6")
        await store.note_report_message(report.action_ids, 42, 777)
        await store.choice_message(game_id, 1, 555)
        await dice(ref, "nations", 9)
        await ref.act("nations", "bob", nat.Encourage("workers"), "/propaganda encourage")
        await ref.undo("nations", "gm")  # an action, its events, its roll and its history undone
        roller.push(3, 4)
        await ref.free_roll("nations", "alice", "2d6")
        await store.set_dm_reminder(game_id, "bob", timedelta(hours=2))
        await store.set_dm_reminder(game_id, "alice", timedelta(hours=1), ("turn-1",))
        await store.set_dm_reminder(game_id, "bob", timedelta(hours=3))  # again: bob comes last now
        await store.set_dm_reminder(old, "carol", timedelta(minutes=30))
        await store.set_quiet_hours(QuietHours("bob", 23 * 60, 7 * 60 + 30, "Europe/Paris"))  # (migration 021)
        await store.set_guild_gm_role(99, 1234567890123456789, clock())  # a server's GM role (migration 019)
        await store.note_command_set("42:99", "d1g3st", clock())  # the commands registered there (migration 022)
        await store.set_front_end(game_id, status_message_id=1234, reminded_turn=1, remind_at=clock() + timedelta(1))
        await store.set_digest_mark(game_id, clock())
        await store.page_token(game_id, clock())  # its page's link given (issue 22)
        await store.rotate_page_token(old, clock())
        clock.advance(hours=13)
        await ref.catch_up(game_id, announce=True)  # turn 2, its announcement still in the outbox

        await drafted(ref, "dice")
        roller.push(6)
        await ref.free_roll("dice", "bob", "1d6")

        out = io.StringIO()
        console = Console(ref, out)
        for line in GODSFIRE:
            await console.handle(line)
        assert "error:" not in out.getvalue(), out.getvalue()

        await ref.import_game("imported", "gm", await ref.export("nations"))
    finally:
        await store.close()
    return db


def rows_of(db: str) -> dict[str, list[tuple]]:
    """Every row of every table of a SQLite database, every column, ids (and rowids) included."""
    with sqlite3.connect(db) as con:
        found = {}
        for table in TABLE_NAMES:
            order = "game_id, battle" if table == "choice_messages" else "rowid"
            found[table] = con.execute(f"SELECT rowid, * FROM {table} ORDER BY {order}").fetchall()
            if table == "choice_messages":  # (its rowid is SQLite's own: the order is its key's)
                found[table] = [row[1:] for row in found[table]]
        return found


async def copy_db(capsys: pytest.CaptureFixture[str], source: str, dest: str) -> tuple[int, str, str]:
    """`bot.main(["--copy-db", source, dest])` (in a thread: it runs its own event loop): status, out, err."""
    capsys.readouterr()
    status = await asyncio.to_thread(bot.main, ["--copy-db", source, dest])
    out, err = capsys.readouterr()
    return status, out, err


# --- the round trips ---------------------------------------------------------------------------------------


async def test_a_sqlite_to_sqlite_copy_is_row_for_row_the_original_and_replays(tmp_path, capsys):
    source = await build(tmp_path / "from.db")
    original = rows_of(source)
    assert {table for table, rows in original.items() if not rows} == set()  # every table has rows to copy
    dest = sqlite_file(tmp_path / "to.db")

    status, out, err = await copy_db(capsys, source, dest)

    assert (status, err) == (0, "")
    games = len(original["games"])
    assert out == (f"copied {games} games (3 rule sets), {len(original['actions'])} actions, "
                   f"{len(original['rolls'])} rolls from {source} to {dest}; every game replays\n")
    assert rows_of(dest) == original
    assert len(await assert_every_game_is_its_replay(dest)) == games


@pytest.mark.postgres_only
async def test_sqlite_to_postgresql_and_back_is_row_for_row_the_original(tmp_path, capsys, request):
    source = await build(tmp_path / "from.db")
    original = rows_of(source)
    url = pg_schema(request)
    back = sqlite_file(tmp_path / "back.db")

    status, out, err = await copy_db(capsys, source, url)
    assert (status, err) == (0, ""), err
    assert out.startswith(f"copied {len(original['games'])} games (3 rule sets)") and f" to {url};" in out
    status, out, err = await copy_db(capsys, url, back)
    assert (status, err) == (0, ""), err

    assert rows_of(back) == original  # every table, every column, ids included; times as text
    assert len(await assert_every_game_is_its_replay(url)) == len(original["games"])
    assert len(await assert_every_game_is_its_replay(back)) == len(original["games"])

    # PostgreSQL plays on: the new rows' ids follow the copied ones (each sequence was set past them)
    store = await Store.open(url)
    try:
        ref = Referee(store, RULES, ForcedRoller([6, 2]), FakeClock())
        game_id = await ref.game_id("nations")
        report = await ref.act("nations", "alice", nat.Encourage("workers"), "/propaganda encourage")
        assert report.action_ids == [max(row[0] for row in original["actions"]) + 1]
        await ref.free_roll("nations", "bob", "1d6")
        assert await scalar(store, "SELECT MAX(id) FROM rolls") == max(row[0] for row in original["rolls"]) + 2
        new_game = (await ref.start_game("fresh", "gm")).game_id
        assert new_game == max(row[0] for row in original["games"]) + 1
        await store.set_dm_reminder(game_id, "alice", timedelta(hours=4))  # opts in again: comes last
        assert [r.player for r in await store.dm_reminders(game_id)] == ["bob", "alice"]
        for game in (game_id, new_game):
            await assert_snapshot_is_replay(store, game)
    finally:
        await store.close()


@pytest.mark.postgres_only
async def test_postgresql_to_postgresql(tmp_path, request):
    source = await build(tmp_path / "from.db")
    first, second = pg_schema(request), pg_schema(request)
    assert (await copy_database(source, first)).counts["games"] == 5
    result = await copy_database(first, second)
    assert result.counts == (await copy_database(second, back := sqlite_file(tmp_path / "back.db"))).counts
    assert rows_of(back) == rows_of(source)


async def test_the_copy_streams_in_chunks_and_shows_progress_at_a_terminal(tmp_path, monkeypatch):
    source = await build(tmp_path / "from.db")
    dest = sqlite_file(tmp_path / "to.db")
    seen: list[tuple[str, int, int]] = []
    result = await copy_database(source, dest, lambda *step: seen.append(step), chunk=7)
    assert [step for step in seen if step[0] == "events"][-1] == ("events", result.counts["events"],
                                                                  result.counts["events"])
    assert len([step for step in seen if step[0] == "events"]) > 3  # chunk by chunk
    assert rows_of(dest) == rows_of(source)

    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    shown, quiet = Terminal(), io.StringIO()
    status, line = await asyncio.to_thread(copy_report, source, sqlite_file(tmp_path / "again.db"), shown)
    assert status == 0 and line.startswith("copied 5 games")
    assert "copying rolls" in shown.getvalue() and "[####################]" in shown.getvalue()
    assert shown.getvalue().endswith("\r")  # the bar is wiped before the final line
    status, _ = await asyncio.to_thread(copy_report, source, sqlite_file(tmp_path / "third.db"), quiet)
    assert status == 0 and quiet.getvalue() == ""  # not a terminal: nothing but the final line


# --- refusals and failures ---------------------------------------------------------------------------------


async def test_a_copy_into_a_database_with_games_is_refused_and_changes_nothing(tmp_path, capsys):
    source = await build(tmp_path / "from.db")
    dest = await build(tmp_path / "to.db")
    before = rows_of(dest)
    status, out, err = await copy_db(capsys, source, dest)
    assert (status, out) == (1, "")
    assert err == (f"error: {dest} already holds games: a copy goes only into a database with none (it never "
                   "merges); give a new file or an empty database\n")
    assert rows_of(dest) == before


async def test_a_missing_source_or_the_same_database_is_refused(tmp_path, capsys):
    missing, dest = tmp_path / "missing.db", tmp_path / "to.db"
    status, out, err = await copy_db(capsys, str(missing), str(dest))
    assert (status, out, err) == (1, "", f"error: there is no database at {missing}\n")
    assert not missing.exists() and not dest.exists()  # nothing created, neither end

    source = await build(tmp_path / "from.db")
    status, out, err = await copy_db(capsys, source, f"{tmp_path}/./from.db")
    assert (status, out, err) == (1, "", f"error: FROM and TO are the same database ({source})\n")


async def test_a_copy_that_fails_its_check_leaves_no_game_behind(tmp_path, monkeypatch):
    source = await build(tmp_path / "from.db")
    with sqlite3.connect(source) as con:  # a snapshot that is not its log's replay
        [(game_id,)] = con.execute("SELECT id FROM games WHERE channel = 'nations'").fetchall()
        snapshot = read_snapshot(con, game_id)
        write_snapshot(con, game_id, json.loads(json.dumps(snapshot).replace('"turn": 1', '"turn": 2', 1)))
    dest = sqlite_file(tmp_path / "to.db")
    with pytest.raises(CopyError, match=rf"game {game_id} \(nations\): its state is not the replay of its log"):
        await copy_database(source, dest)
    assert all(not rows for rows in rows_of(dest).values())

    # a failure in the middle (a chunk that cannot be written) rolls back every table copied before it
    monkeypatch.setattr(copydb, "_check", lambda con, counts: (_ for _ in ()).throw(sqlite3.OperationalError("x")))
    with sqlite3.connect(source) as con:
        write_snapshot(con, game_id, snapshot)
    with pytest.raises(CopyError, match="nothing was copied: x"):
        await copy_database(source, dest)
    assert all(not rows for rows in rows_of(dest).values())


async def test_state_to_dict_of_the_copy_is_the_originals(tmp_path):
    source = await build(tmp_path / "from.db")
    dest = sqlite_file(tmp_path / "to.db")
    await copy_database(source, dest)
    stores = [await Store.open(source), await Store.open(dest)]
    try:
        for row in await stores[0].games(live_only=False):
            assert state_to_dict(await stores[1].load(row.id)) == state_to_dict(await stores[0].load(row.id))
    finally:
        for store in stores:
            await store.close()


@pytest.mark.postgres_only
async def test_a_failed_copy_into_postgresql_leaves_no_game_and_a_retry_works(tmp_path, request, monkeypatch):
    source = await build(tmp_path / "from.db")
    url = pg_schema(request)

    def failing(con, counts):
        raise CopyError("the check failed")

    check = copydb._check
    monkeypatch.setattr(copydb, "_check", failing)
    with pytest.raises(CopyError, match="nothing was copied: the check failed"):
        await copy_database(source, url)
    store = await Store.open(url)
    try:
        for table in TABLE_NAMES:
            assert await scalar(store, f"SELECT COUNT(*) FROM {table}") == 0, table
    finally:
        await store.close()
    monkeypatch.setattr(copydb, "_check", check)
    assert (await copy_database(source, url)).counts["games"] == 5
    assert len(await assert_every_game_is_its_replay(url)) == 5


async def test_a_table_or_column_the_copy_does_not_know_is_refused(tmp_path):
    source = await build(tmp_path / "from.db")
    with sqlite3.connect(source) as con:  # as a migration newer than the copy would
        con.execute("CREATE TABLE newer (id INTEGER PRIMARY KEY)")
        con.execute("ALTER TABLE rolls ADD COLUMN colour TEXT")
    dest = sqlite_file(tmp_path / "to.db")
    with pytest.raises(CopyError, match=r"has the table newer and the column rolls\.colour that the copy does not"):
        await copy_database(source, dest)
    assert all(not rows for rows in rows_of(dest).values())
