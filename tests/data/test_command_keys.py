"""Idempotency keys (issue 33): a keyed command records its key in its own transaction, so that a commit whose
connection is cut at COMMIT is answered truthfully (saved: its real answer; not saved: nothing changed), and a
retry with the same key answers the first outcome without applying twice. On both backends (`pytest --postgres`
runs this file on PostgreSQL, where the cut is the server's connection closed under the store)."""

from __future__ import annotations

import asyncio
from datetime import timedelta
from typing import Any

import pytest
from commitcut import cut_commits, lost_connection
from storehelpers import RULES, FakeClock, assert_snapshot_is_replay, scalar

import data.store.keys as keys
from data.store import Store, StoreUnavailable
from engine.dice import ForcedRoller
from engine.errors import RuleViolation
from engine.events import DieRolled
from engine.nations import gm
from engine.nations import peace as nat
from service.referee import Referee
from service.reports import Report

SAVE_FAILED = r"^the referee cannot save right now \(.+\); nothing changed — try again later$"


@pytest.fixture
async def ref(store):
    return Referee(store, RULES, ForcedRoller(), FakeClock())


async def two_nations(ref: Referee, channel: str = "chan") -> int:
    report = await ref.start_game(channel, "gm")
    await ref.act(channel, "gm", nat.ClaimPreset("Gracchan Republic", "alice"), '/nation claim "Gracchan Republic"')
    await ref.act(channel, "gm", nat.ClaimPreset("Charon", "bob"), "/nation claim Charon")
    return report.game_id


async def room_to_grow(ref: Referee) -> None:
    """Land enough for alice's /economy grow, and its die."""
    await ref.act("chan", "gm", gm.SetStat("Gracchan Republic", "land", 40), "/gm set")
    ref.roller.push(5)


def heard(ref: Referee) -> list[Report]:
    """The reports the referee's listeners hear from now on."""
    reports: list[Report] = []

    async def listen(report: Report, by_clock: bool) -> None:
        reports.append(report)

    ref.on_commit(listen)
    return reports


async def test_a_commit_cut_after_the_server_committed_answers_that_it_was_saved(ref, store, monkeypatch):
    game_id = await two_nations(ref)
    await room_to_grow(ref)
    listened = heard(ref)
    before = await scalar(store, "SELECT COUNT(*) FROM actions")
    cut_commits(monkeypatch, landed=True)
    report = await ref.act("chan", "alice", nat.GrowEconomy(), "/economy grow", key="discord:1001")
    [die] = [e for e in report.events if isinstance(e, DieRolled)]
    assert die.roll.die == 5  # the real answer: the command's own events, not "nothing changed"
    assert await scalar(store, "SELECT COUNT(*) FROM actions") == before + 1
    assert (await store.load(game_id)).nations["Gracchan Republic"].economy == report.state.nations[
        "Gracchan Republic"].economy
    assert [r.action_ids for r in listened] == [report.action_ids]  # the front-ends follow up, once
    monkeypatch.undo()
    await assert_snapshot_is_replay(store, game_id)


async def test_a_retry_with_the_same_key_answers_the_first_outcome_and_applies_once(ref, store, monkeypatch):
    game_id = await two_nations(ref)
    await room_to_grow(ref)
    cut_commits(monkeypatch, landed=True)
    first = await ref.act("chan", "alice", nat.GrowEconomy(), "/economy grow", key="discord:1002")
    monkeypatch.undo()
    listened = heard(ref)
    before = await scalar(store, "SELECT COUNT(*) FROM actions")
    again = await ref.act("chan", "alice", nat.GrowEconomy(), "/economy grow", key="discord:1002")  # no die left
    assert again.events == first.events and again.action_ids == first.action_ids
    assert again.state.nations["Gracchan Republic"].economy == first.state.nations["Gracchan Republic"].economy
    assert await scalar(store, "SELECT COUNT(*) FROM actions") == before
    assert listened == [] and ref.roller.used == 1
    await assert_snapshot_is_replay(store, game_id)


async def test_a_commit_cut_before_it_landed_answers_nothing_changed_and_a_retry_applies_once(ref, store,
                                                                                              monkeypatch):
    game_id = await two_nations(ref)
    before = await scalar(store, "SELECT COUNT(*) FROM actions")
    cut_commits(monkeypatch, landed=False)
    with pytest.raises(StoreUnavailable, match=SAVE_FAILED):
        await ref.act("chan", "gm", gm.SetStat("Charon", "land", 1, relative=True), "/gm set", key="console:ab:3")
    assert await scalar(store, "SELECT COUNT(*) FROM actions") == before
    monkeypatch.undo()
    report = await ref.act("chan", "gm", gm.SetStat("Charon", "land", 1, relative=True), "/gm set",
                           key="console:ab:3")
    assert report.state.nations["Charon"].land == 21
    again = await ref.act("chan", "gm", gm.SetStat("Charon", "land", 1, relative=True), "/gm set",
                          key="console:ab:3")
    assert again.action_ids == report.action_ids
    assert (await store.load(game_id)).nations["Charon"].land == 21  # once
    assert await scalar(store, "SELECT COUNT(*) FROM actions") == before + 1
    await assert_snapshot_is_replay(store, game_id)


@pytest.mark.parametrize("landed", [False, True])
async def test_a_command_without_a_key_is_told_that_no_one_can_tell(ref, store, monkeypatch, landed):
    """With no key to look up, a cut COMMIT may or may not have landed: the answer says so, never "nothing
    changed"."""
    await two_nations(ref)
    cut_commits(monkeypatch, landed=landed)
    with pytest.raises(StoreUnavailable) as refused:
        await ref.act("chan", "gm", gm.SetStat("Charon", "land", 1, relative=True), "/gm set")
    said = str(refused.value)
    assert "cannot tell yet whether it was saved" in said and "nothing changed" not in said
    monkeypatch.undo()
    await ref.act("chan", "gm", gm.SetStat("Charon", "land", 1, relative=True), "/gm set")
    assert await scalar(store, "SELECT COUNT(*) FROM command_keys") == 0


async def test_a_cut_when_the_database_cannot_be_read_either_says_it_cannot_tell(ref, store, monkeypatch):
    await two_nations(ref)
    cut_commits(monkeypatch, landed=True)
    recorded, calls = keys.recorded, []

    def unreadable(con: Any, key: str) -> Any:
        calls.append(key)
        if len(calls) == 1:  # (the command's own check, before its commit)
            return recorded(con, key)
        raise lost_connection(con)

    monkeypatch.setattr(keys, "recorded", unreadable)
    with pytest.raises(StoreUnavailable) as refused:
        await ref.act("chan", "gm", gm.SetStat("Charon", "land", 1, relative=True), "/gm set", key="discord:1003")
    said = str(refused.value)
    assert "cannot tell yet whether it was saved" in said and "nothing changed" not in said and "\n" not in said
    monkeypatch.undo()
    again = await ref.act("chan", "gm", gm.SetStat("Charon", "land", 1, relative=True), "/gm set",
                          key="discord:1003")
    assert again.state.nations["Charon"].land == 21  # it had been saved: the retry answers it, once


async def test_a_refusal_after_a_catch_up_is_its_first_outcome_too(ref, store):
    game_id = await two_nations(ref)
    ref.clock.advance(hours=13)  # the turn ends: a catch-up commits with the refused command
    claim = nat.ClaimPreset("Charon", "carol")
    with pytest.raises(RuleViolation) as first:
        await ref.act("chan", "gm", claim, "/nation claim Charon", key="discord:1004")
    actions = await scalar(store, "SELECT COUNT(*) FROM actions")
    with pytest.raises(RuleViolation) as again:
        await ref.act("chan", "gm", claim, "/nation claim Charon", key="discord:1004")
    assert str(again.value) == str(first.value)
    assert await scalar(store, "SELECT COUNT(*) FROM actions") == actions
    assert await scalar(store, "SELECT action_id FROM command_keys WHERE key = ?", "discord:1004") is None
    await assert_snapshot_is_replay(store, game_id)


async def test_a_group_cut_at_its_commit_answers_each_keyed_command_truthfully(ref, store, monkeypatch):
    channels = [f"room{n}" for n in range(5)]
    games = [await two_nations(ref, channel) for channel in channels]
    cut_commits(monkeypatch, landed=True, which=lambda n: n == 2)  # the group's commit (the first goes alone)
    reports = await asyncio.gather(*(ref.act(c, "gm", gm.SetStat("Charon", "land", 1, relative=True), "/gm set",
                                             key=f"discord:{2000 + n}") for n, c in enumerate(channels)))
    monkeypatch.undo()
    assert [r.state.nations["Charon"].land for r in reports] == [21] * len(channels)
    for game_id in games:
        assert (await store.load(game_id)).nations["Charon"].land == 21
        await assert_snapshot_is_replay(store, game_id)


async def test_a_game_start_cut_after_it_committed_is_answered_and_its_retry_too(ref, store, monkeypatch):
    cut_commits(monkeypatch, landed=True)
    report = await ref.start_game("chan", "gm", key="discord:1005")
    monkeypatch.undo()
    assert await store.live_game("chan") == report.game_id
    again = await ref.repeated("discord:1005")
    assert again is not None and again.game_id == report.game_id and again.action_ids == report.action_ids
    assert await ref.repeated("discord:1006") is None


async def test_keys_older_than_a_day_are_deleted_as_commands_come(ref, store):
    await two_nations(ref)
    await ref.act("chan", "gm", gm.SetStat("Charon", "land", 1, relative=True), "/gm set", key="old")
    ref.clock.advance(hours=2)
    await ref.act("chan", "gm", gm.SetStat("Charon", "land", 1, relative=True), "/gm set", key="newer")
    assert await scalar(store, "SELECT COUNT(*) FROM command_keys") == 2
    ref.clock.advance(hours=23)
    await ref.act("chan", "gm", gm.SetStat("Charon", "land", 1, relative=True), "/gm set", key="newest")
    assert [r[0] for r in await store._fetchall("SELECT key FROM command_keys ORDER BY key")] == ["newer", "newest"]
    assert keys.KEEP == timedelta(days=1)


async def test_a_prune_deletes_a_bounded_batch_oldest_first(ref, store, monkeypatch):
    """However many keys a busy day left, one prune holds the database thread for a batch alone."""
    await two_nations(ref)
    monkeypatch.setattr(keys, "PRUNE_BATCH", 3)
    for n in range(5):
        await ref.act("chan", "gm", gm.SetStat("Charon", "land", 1, relative=True), "/gm set", key=f"old{n}")
        ref.clock.advance(seconds=1)
    ref.clock.advance(days=1, seconds=5)
    await ref.act("chan", "gm", gm.SetStat("Charon", "land", 1, relative=True), "/gm set", key="now1")
    assert [r[0] for r in await store._fetchall("SELECT key FROM command_keys ORDER BY key")] == [
        "now1", "old3", "old4"]
    ref.clock.advance(seconds=keys.PRUNE_EVERY.total_seconds())
    await ref.act("chan", "gm", gm.SetStat("Charon", "land", 1, relative=True), "/gm set", key="now2")
    assert [r[0] for r in await store._fetchall("SELECT key FROM command_keys ORDER BY key")] == ["now1", "now2"]


async def test_a_key_is_bounded(ref, store):
    await two_nations(ref)
    with pytest.raises(ValueError, match="idempotency key"):
        await ref.act("chan", "gm", gm.SetStat("Charon", "land", 1, relative=True), "/gm set", key="k" * 201)


async def test_two_stores_delivering_one_key_at_once_apply_it_once(ref, store, tmp_path):
    """Two processes given one interaction (on PostgreSQL: both may miss the key and race to insert it; the
    primary key lets one through and the other answers its outcome)."""
    game_id = await two_nations(ref)
    other = await store.another() or store
    try:
        refs = [ref, Referee(other, RULES, ForcedRoller(), FakeClock())]
        reports = await asyncio.gather(*(r.act("chan", "gm", gm.SetStat("Charon", "land", 1, relative=True),
                                               "/gm set", key="discord:1007") for r in refs))
        assert reports[0].action_ids == reports[1].action_ids
        assert (await store.load(game_id)).nations["Charon"].land == 21
    finally:
        if other is not store:
            await other.close()


def test_the_keys_migration_is_numbered_18_for_both_backends():
    from data.store import migration_files

    for dialect in ("sqlite", "postgresql"):
        numbers = dict(migration_files(dialect))
        assert numbers[18].name == "018_command_keys.sql"


async def test_a_new_store_has_the_keys_table(tmp_path):
    store = await Store.open(tmp_path / "fresh.db")
    try:
        assert await scalar(store, "SELECT COUNT(*) FROM command_keys") == 0
    finally:
        await store.close()


async def test_a_free_roll_retried_with_its_key_answers_the_first_roll_and_logs_it_once(ref, store):
    game_id = await two_nations(ref)
    ref.roller.push(3, 4)
    first, logged = await ref.free_roll("chan", "alice", "2d6", key="discord:1101")
    assert logged and first.total == 7
    ref.roller.push(6, 6)
    again, logged = await ref.free_roll("chan", "alice", "2d6", key="discord:1101")
    assert logged and again == first  # the first roll, not the 12 a second roll would have made
    assert await scalar(store, f"SELECT COUNT(*) FROM rolls WHERE game_id = {game_id} AND free IS NOT NULL") == 1


@pytest.mark.parametrize("landed", [True, False])
async def test_a_free_roll_whose_commit_is_cut_is_answered_truthfully(ref, store, monkeypatch, landed):
    game_id = await two_nations(ref)
    cut_commits(monkeypatch, landed=landed)
    ref.roller.push(2, 5)
    if landed:
        rolled, logged = await ref.free_roll("chan", "alice", "2d6", key="discord:1102")
        assert logged and rolled.total == 7
    else:
        with pytest.raises(StoreUnavailable, match=SAVE_FAILED):
            await ref.free_roll("chan", "alice", "2d6", key="discord:1102")
    monkeypatch.undo()
    logged = await scalar(store, f"SELECT COUNT(*) FROM rolls WHERE game_id = {game_id} AND free IS NOT NULL")
    assert logged == int(landed)
