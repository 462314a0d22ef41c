"""The PostgreSQL backend's own behaviour (run by `pytest --postgres`): one line when the server cannot be reached,
a lost connection refused once and reconnected, a game's row locked across processes, the clock's catch-up and
reminders taken by one process only, an undo refused when another process logged an action meanwhile."""

from __future__ import annotations

import asyncio
import itertools
from datetime import timedelta

import psycopg
import pytest
from storehelpers import FakeClock, assert_snapshot_is_replay, scalar

from data.postgres import redacted, split_schema
from data.store import ChannelTaken, GameMovedOn, Store, StoreUnavailable
from engine.dice import ForcedRoller
from engine.nations import peace as nat
from service.referee import Referee

pytestmark = pytest.mark.postgres_only
_schemas = itertools.count(1)


@pytest.fixture
def pg_url(request: pytest.FixtureRequest) -> str:
    """A fresh schema of the test server."""
    return f"{request.config.pg_url}?schema=pgstore{next(_schemas)}"  # type: ignore[attr-defined]


async def start_game(ref: Referee, channel: str = "chan") -> int:
    report = await ref.start_game(channel, "gm")
    await ref.act(channel, "gm", nat.ClaimPreset("Gracchan Republic", "alice"), '/nation claim "Gracchan Republic"')
    await ref.act(channel, "gm", nat.ClaimPreset("Charon", "bob"), "/nation claim Charon")
    return report.game_id


def raw(url: str) -> psycopg.Connection:
    """A connection of "another process": autocommit off, in the store's schema."""
    dsn, schema = split_schema(url)
    con = psycopg.connect(dsn)
    con.execute(f'SET search_path TO "{schema}"')
    con.commit()
    return con


def test_a_url_is_shown_without_its_password():
    assert redacted("postgresql://referee:s3cret@db.example.org/referee") == "postgresql://referee:***@db.example.org/referee"
    assert redacted("postgresql://db.example.org/referee") == "postgresql://db.example.org/referee"


async def test_a_server_that_cannot_be_reached_is_one_line_without_the_password():
    with pytest.raises(StoreUnavailable) as refused:
        await Store.open("postgresql://referee:s3cret@127.0.0.1:1/referee")
    message = str(refused.value)
    assert "\n" not in message and "s3cret" not in message
    assert message.startswith("cannot open postgresql://referee:***@127.0.0.1:1/referee: ")


async def test_a_bad_schema_name_is_refused_in_one_line(request):
    with pytest.raises(StoreUnavailable, match="schema must be a plain lower-case name"):
        await Store.open(f"{request.config.pg_url}?schema=Robert'); DROP TABLE games;--")


async def test_a_new_database_is_at_the_latest_schema_and_reopens_without_migrating_again(pg_url):
    store = await Store.open(pg_url)
    try:
        assert store.dialect == "postgresql"
        assert await scalar(store, "SELECT MAX(version) FROM referee_schema") == await store.migrate()
    finally:
        await store.close()
    again = await Store.open(pg_url)
    try:
        assert await scalar(again, "SELECT COUNT(*) FROM referee_schema") == 1
    finally:
        await again.close()


async def test_a_second_live_game_in_a_channel_is_refused_by_the_unique_index(pg_url):
    """The store's own guard (two processes starting a game in one channel at once): ChannelTaken, nothing left."""
    store = await Store.open(pg_url)
    try:
        ref = Referee(store, None, ForcedRoller(), FakeClock())
        first = await ref.start_game("chan", "gm")
        games = await scalar(store, "SELECT COUNT(*) FROM games")
        with pytest.raises(ChannelTaken):
            await store.create_game("chan", None, first.state, [], "gm", "/game start", FakeClock()())
        assert await scalar(store, "SELECT COUNT(*) FROM games") == games
    finally:
        await store.close()


async def test_a_lost_connection_refuses_one_write_and_the_next_reconnects(pg_url):
    store = await Store.open(pg_url)
    ref = Referee(store, None, ForcedRoller(), FakeClock())
    try:
        game_id = await start_game(ref)
        [pid] = (await store._fetchall("SELECT pg_backend_pid()"))[0]
        with raw(pg_url) as other:
            other.execute("SELECT pg_terminate_backend(%s)", (pid,))
            other.commit()
        gone = r"^the referee cannot (read|save) right now \(the database server is shutting down or restarting\); "
        with pytest.raises(StoreUnavailable, match=gone + "nothing changed"):
            await ref.act("chan", "alice", nat.GrowMilitary(), "/economy military")
        await ref.act("chan", "gm", nat.ClaimPreset("Zombiestan", "carol"), "/nation claim Zombiestan")  # reconnected
        assert "Zombiestan" in (await store.load(game_id)).nations
        await assert_snapshot_is_replay(store, game_id)
    finally:
        await store.close()


async def test_a_game_locked_by_another_process_waits_then_is_refused_and_nothing_changes(pg_url):
    store = await Store.open(pg_url, busy_timeout=0.3)
    ref = Referee(store, None, ForcedRoller(), FakeClock())
    try:
        game_id = await start_game(ref)
        before = await scalar(store, "SELECT COUNT(*) FROM actions")
        with raw(pg_url) as other:
            other.execute("SELECT id FROM games WHERE id = %s FOR UPDATE", (game_id,))  # its command, under way
            locked = r"\(the game is locked by another referee process\); nothing changed"
            with pytest.raises(StoreUnavailable, match=locked):
                await ref.act("chan", "gm", nat.ClaimPreset("Zombiestan", "carol"), "/nation claim Zombiestan")
            other.rollback()
        assert await scalar(store, "SELECT COUNT(*) FROM actions") == before
        await ref.act("chan", "gm", nat.ClaimPreset("Zombiestan", "carol"), "/nation claim Zombiestan")
        await assert_snapshot_is_replay(store, game_id)
    finally:
        await store.close()


async def test_a_command_waits_for_another_process_to_finish_with_its_game(pg_url):
    """Serialised, not refused: a lock released within the wait lets the command apply after it."""
    store = await Store.open(pg_url)
    ref = Referee(store, None, ForcedRoller(), FakeClock())
    try:
        game_id = await start_game(ref)
        with raw(pg_url) as other:
            other.execute("SELECT id FROM games WHERE id = %s FOR UPDATE", (game_id,))
            command = asyncio.ensure_future(ref.act("chan", "gm", nat.ClaimPreset("Zombiestan", "carol"),
                                                    "/nation claim Zombiestan"))
            await asyncio.sleep(0.3)
            assert not command.done()  # it waits for the row
            other.rollback()
        await command
        assert "Zombiestan" in (await store.load(game_id)).nations
    finally:
        await store.close()


async def test_the_clock_catch_up_leaves_a_game_another_process_holds_to_it(pg_url):
    clock = FakeClock()
    store = await Store.open(pg_url)
    ref = Referee(store, None, ForcedRoller(), clock)
    try:
        first, second = await start_game(ref, "one"), await start_game(ref, "two")
        clock.advance(hours=13)
        with raw(pg_url) as other:
            other.execute("SELECT id FROM games WHERE id = %s FOR UPDATE", (first,))
            caught = await ref.catch_up_due()
            assert set(caught) == {second}  # the held game is the other process's to catch up
            other.rollback()
        caught = await ref.catch_up_due()
        assert set(caught) == {first}
        assert await ref.catch_up_due() == {}  # nothing twice
        for game_id in (first, second):
            assert (await store.load(game_id)).turn == 2
            await assert_snapshot_is_replay(store, game_id)
    finally:
        await store.close()


async def test_two_stores_catching_up_at_once_apply_each_turn_end_once(pg_url):
    clock = FakeClock()
    stores = [await Store.open(pg_url), await Store.open(pg_url)]
    referees = [Referee(s, None, ForcedRoller(), clock) for s in stores]
    try:
        games = [await start_game(referees[0], f"chan{n}") for n in range(12)]
        clock.advance(hours=13)
        caught = await asyncio.gather(*(r.catch_up_due(batch=3) for r in referees))
        assert sorted([*caught[0], *caught[1]]) == sorted(games)  # each game caught up by one of them
        for game_id in games:
            assert await scalar(stores[0], "SELECT COUNT(*) FROM actions WHERE game_id = ? AND actor = 'clock'",
                                game_id) == 1
            assert (await stores[0].load(game_id)).turn == 2
    finally:
        for store in stores:
            await store.close()


async def test_a_reminder_due_is_taken_by_one_process(pg_url):
    clock = FakeClock()
    stores = [await Store.open(pg_url), await Store.open(pg_url)]
    try:
        ref = Referee(stores[0], None, ForcedRoller(), clock)
        games = [await start_game(ref, f"chan{n}") for n in range(6)]
        for game_id in games:
            await stores[0].set_front_end(game_id, remind_at=clock() + timedelta(minutes=5))
        taken = await asyncio.gather(*(s.take_reminders_due(clock() + timedelta(minutes=6)) for s in stores))
        assert sorted(game_id for game_id, _ in [*taken[0], *taken[1]]) == games
    finally:
        for store in stores:
            await store.close()


async def test_an_undo_planned_before_another_process_acted_is_refused(pg_url):
    store = await Store.open(pg_url)
    ref = Referee(store, None, ForcedRoller(), FakeClock())
    try:
        game_id = await start_game(ref)
        [newest] = await store.actions(game_id, limit=1)
        state = await store.load(game_id)
        # another process's command, logged after the undo was worked out
        await ref.act("chan", "gm", nat.ClaimPreset("Zombiestan", "carol"), "/nation claim Zombiestan")
        with pytest.raises(GameMovedOn, match="nothing changed"):
            await store.undo(game_id, newest.id, state, [], "gm", "/gm undo", FakeClock()(), last_action=newest.id)
        assert "Zombiestan" in (await store.load(game_id)).nations
        await assert_snapshot_is_replay(store, game_id)
    finally:
        await store.close()
