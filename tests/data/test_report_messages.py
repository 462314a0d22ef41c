"""Migration 013: the message that announced a logged action, and /log rolls' page that carries it. The message is
noted without a transaction of its own (issue 35): it rides on the next commit, whatever it is, or gets one of its
own when none comes soon, or is written on closing."""

from __future__ import annotations

import asyncio
from unittest import mock

import pytest
from storehelpers import RULES, scalar

import data.store.connection as connection
from data.store import LedgerFilter, ReportMessage, Store
from engine.dice import ForcedRoller
from engine.nations import peace as nat
from service import ledger
from service.referee import Referee


async def test_a_report_carries_its_action_ids_and_the_ledger_its_recorded_message(store, clock):
    ref = Referee(store, RULES, ForcedRoller([7, 9]), clock)
    game_id = (await ref.start_game("chan", "gm")).game_id
    await ref.act("chan", "gm", nat.ClaimPreset("Gracchan Republic", "alice"), "/nation claim")
    first = await ref.act("chan", "alice", nat.Encourage("morale"), "/propaganda encourage")
    assert first.action_ids == [await scalar(store, "SELECT MAX(id) FROM actions")]
    clock.advance(hours=12)  # the turn ends first: the report carries the clock's action, then the command's
    second = await ref.act("chan", "alice", nat.Encourage("workers"), "/propaganda encourage")
    assert len(second.caught_up) > 0 and len(second.action_ids) == 2
    assert second.action_ids == [r[0] for r in await store._fetchall(
        "SELECT id FROM actions ORDER BY id DESC LIMIT 2")][::-1]

    await store.note_report_message(first.action_ids, 55, 1001)
    await store.note_report_message(first.action_ids, 55, 2002)  # the first message stays (both waiting)
    await store.note_report_message([], 55, 3003)  # nothing to record
    shown = await ledger.ledger_page(store, game_id, LedgerFilter())  # (the ledger writes what waits first)
    assert shown.messages == [ReportMessage(55, 1001), None]
    await store.note_report_message(first.action_ids, 55, 4004)  # the first message stays (the one written)
    await store.flush_deferred()
    found, total = await store.ledger_page(game_id, LedgerFilter(), 0, 10)
    assert total == 2
    assert [message for _, message in found] == [ReportMessage(55, 1001), None]
    assert [roll.purpose for roll, _ in found] == ["encourage morale", "encourage workers"]


async def played(store: Store, clock) -> tuple[Referee, list[int]]:
    """A game where alice encouraged morale: the referee and the action ids of that report."""
    ref = Referee(store, RULES, ForcedRoller([7, 9]), clock)
    await ref.start_game("chan", "gm")
    await ref.act("chan", "gm", nat.ClaimPreset("Gracchan Republic", "alice"), "/nation claim")
    report = await ref.act("chan", "alice", nat.Encourage("morale"), "/propaganda encourage")
    return ref, report.action_ids


async def messages(store: Store) -> list[tuple[int, int | None, int]]:
    return [tuple(r) for r in await store._fetchall(
        "SELECT action_id, channel_id, message_id FROM report_messages ORDER BY action_id")]


@pytest.fixture
def commits(monkeypatch) -> list[int]:
    """Each COMMIT the store makes from now on."""
    made: list[int] = []
    real = connection._commit

    def counted(con) -> None:
        real(con)
        made.append(1)

    monkeypatch.setattr(connection, "_commit", counted)
    return made


async def test_a_noted_message_rides_on_the_next_command_in_its_one_commit(store, clock, commits):
    store.defer_delay = 3600  # (no transaction of its own meanwhile, however slow the machine)
    ref, action_ids = await played(store, clock)
    commits.clear()
    await store.note_report_message(action_ids, 55, 1001)
    assert commits == [] and await messages(store) == []
    clock.advance(hours=12)  # (a new turn: another encourage)
    await ref.act("chan", "alice", nat.Encourage("workers"), "/propaganda encourage")
    assert commits == [1]  # the command and the message: one transaction
    assert await messages(store) == [(action_ids[0], 55, 1001)]
    await store.flush_deferred()  # nothing waits: no transaction
    assert commits == [1]


async def test_a_failed_write_leaves_the_noted_message_to_the_next_one(store, clock, commits):
    store.defer_delay = 3600
    _, action_ids = await played(store, clock)
    await store.note_report_message(action_ids, 55, 1001)

    def refused(con) -> None:
        raise ValueError("refused")

    with pytest.raises(ValueError):
        await store._transaction(refused)
    await store.note_report_message(action_ids, 66, 2002)  # noted later: the first one still stays
    assert await messages(store) == []
    commits.clear()
    await store.flush_deferred()
    assert commits == [1] and await messages(store) == [(action_ids[0], 55, 1001)]


async def test_a_row_that_cannot_be_written_spoils_nothing_else(store, clock, caplog):
    ref, action_ids = await played(store, clock)
    store.defer_delay = 3600
    await store.note_report_message([action_ids[0] + 1000], 55, 1001)  # no such action: refused by its key
    await store.note_report_message(action_ids, 55, 2002)  # (with the other: one statement, dropped with it)
    clock.advance(hours=12)
    report = await ref.act("chan", "alice", nat.Encourage("workers"), "/propaganda encourage")
    assert report.action_ids[-1] == await scalar(store, "SELECT MAX(id) FROM actions")  # the command committed
    assert await messages(store) == []
    assert any("deferred row(s) dropped" in r.getMessage() for r in caplog.records)


async def test_with_no_write_coming_the_noted_message_gets_a_transaction_of_its_own(store, clock, commits):
    _, action_ids = await played(store, clock)
    store.defer_delay = 0  # (its timer fires at the loop's next turn)
    commits.clear()
    await store.note_report_message(action_ids, 55, 1001)
    while store._defer_flush is None:
        await asyncio.sleep(0)
    await store._defer_flush
    assert commits == [1] and await messages(store) == [(action_ids[0], 55, 1001)]


async def test_closing_writes_the_noted_messages_still_waiting(tmp_path, clock):
    store = await Store.open(tmp_path / "referee.db")
    try:
        store.defer_delay = 3600
        _, action_ids = await played(store, clock)
        await store.note_report_message(action_ids, 55, 1001)
    finally:
        await store.close()
    again = await Store.open(tmp_path / "referee.db")
    try:
        assert await messages(again) == [(action_ids[0], 55, 1001)]
    finally:
        await again.close()


async def test_the_ledger_waits_for_a_commit_under_way_that_carries_a_noted_message(store, clock):
    store.defer_delay = 3600
    ref, action_ids = await played(store, clock)
    await store.note_report_message(action_ids, 55, 1001)
    game_id = await ref.game_id("chan")
    with mock.patch.object(store, "_write_lock", asyncio.Lock()) as lock:
        await lock.acquire()  # another write holds the lock: the commit carrying the message waits behind it
        carrying = asyncio.ensure_future(store.flush_deferred())
        await asyncio.sleep(0)
        assert store._carrying and not store._deferred
        reading = asyncio.ensure_future(ledger.ledger_page(store, game_id, LedgerFilter()))
        await asyncio.sleep(0)
        lock.release()
        shown = await reading
        await carrying
    assert shown.messages == [ReportMessage(55, 1001)]
