"""Typed snapshots (data/store/encoding.py): a game's state is stored between commands as its rule set's own
dataclass (msgspec's MessagePack, compressed), marked with a fingerprint of the state class's shape. It loads as the
export format's round trip would; a row of an older form still loads; a typed row whose fingerprint this version does
not know (its state class changed since) gives way to the replay of the game's whole log, and its next write is
typed again. On both backends."""

from __future__ import annotations

import dataclasses
import logging

import pytest
from helpers import Game
from storehelpers import assert_snapshot_is_replay, read_snapshot, state_to_dict, write_snapshot

from data.store import encoding
from engine.dice import ForcedRoller
from engine.nations import gm, schema
from engine.nations import peace as nat
from engine.nations.snapshot import saved_state
from engine.nations.state import Battle
from engine.rulesets import RULESETS, ruleset
from service.referee import Referee

NATIONS = ruleset("nations")


@pytest.fixture
def ref(store, clock):
    return Referee(store, None, ForcedRoller(), clock)


async def snapshot_bytes(store, game_id: int) -> bytes:
    [row] = await store._fetchall("SELECT snapshot, snapshot_z FROM games WHERE id = ?", (game_id,))
    assert row[0] is None
    return bytes(row[1])


async def nations_game(ref: Referee, channel: str = "chan") -> int:
    report = await ref.start_game(channel, "gm")
    await ref.act(channel, "gm", nat.ClaimPreset("Gracchan Republic", "alice"), "/nation claim")
    await ref.act(channel, "gm", nat.ClaimPreset("Charon", "bob"), "/nation claim")
    return report.game_id


@pytest.mark.parametrize("name", sorted(RULESETS))
async def test_every_rule_set_stores_its_state_typed_and_loads_it_as_its_export_would(ref, store, name):
    report = await ref.start_game("chan", "gm", ruleset_name=name)
    rules = ruleset(name)
    packed = await snapshot_bytes(store, report.game_id)
    assert rules.state_class is not None and packed[:1] == encoding.TYPED
    assert packed[1:1 + encoding.FINGERPRINT_SIZE] == encoding.fingerprint(rules.state_class)
    loaded = await store.load(report.game_id)
    assert type(loaded) is rules.state_class
    assert loaded == rules.state_from_dict(rules.state_to_dict(report.state))
    assert (await store.export(report.game_id))["game"] == rules.state_to_dict(report.state)["game"]
    await assert_snapshot_is_replay(store, report.game_id)


async def test_a_snapshot_of_an_older_form_loads_and_its_next_write_is_typed(ref, store):
    game_id = await nations_game(ref)
    before = state_to_dict(await store.load(game_id))

    def as_document(con):
        write_snapshot(con, game_id, read_snapshot(con, game_id))  # the compressed export document, as before

    await store._transaction(as_document)
    assert not encoding.is_typed(await snapshot_bytes(store, game_id))
    assert state_to_dict(await store.load(game_id)) == before
    await ref.act("chan", "gm", gm.SetStat("Charon", "land", 30), "/gm set")
    assert encoding.is_typed(await snapshot_bytes(store, game_id))
    await assert_snapshot_is_replay(store, game_id)


async def test_a_typed_snapshot_of_another_shape_gives_way_to_the_replay_of_the_log(ref, store, caplog):
    """A typed row written when the state class was shaped otherwise (its fingerprint unknown now): every read
    rebuilds the state from the log (a warning says so), the export too; the next write is typed again."""
    game_id = await nations_game(ref)
    await ref.act("chan", "gm", gm.SetStat("Charon", "land", 30), "/gm set")
    before = state_to_dict(await store.load(game_id))
    packed = await snapshot_bytes(store, game_id)
    stale = encoding.TYPED + b"\xff" * encoding.FINGERPRINT_SIZE + packed[1 + encoding.FINGERPRINT_SIZE:]
    await store._transaction(lambda con: con.execute("UPDATE games SET snapshot_z = ? WHERE id = ?", (stale, game_id)))

    with caplog.at_level(logging.WARNING, logger="referee.store"):
        assert state_to_dict(await store.load(game_id)) == before
        assert state_to_dict(await store.load(game_id)) == before
    told = [record for record in caplog.records if "rebuilt from its log" in record.getMessage()]
    assert len(told) == 1  # (once a game, however often it is read)
    assert (await store.export(game_id))["nations"] == before["nations"]
    report = await ref.act("chan", "gm", gm.SetStat("Charon", "land", 31), "/gm set")
    assert encoding.is_typed(await snapshot_bytes(store, game_id))
    assert state_to_dict(await store.load(game_id)) == state_to_dict(report.state)
    await assert_snapshot_is_replay(store, game_id)


def test_a_change_to_the_state_class_changes_its_fingerprint():
    def shaped(value_type: type) -> type:
        inner = dataclasses.make_dataclass("Inner", [("value", value_type)])
        return dataclasses.make_dataclass("State", [("inner", dict[str, inner]),  # type: ignore[valid-type]
                                                    ("turn", int, dataclasses.field(default=1))])

    first = encoding.fingerprint(shaped(int))
    assert encoding.fingerprint(shaped(int)) == first and len(first) == encoding.FINGERPRINT_SIZE
    assert encoding.fingerprint(shaped(str)) != first  # (same names; a field's type changed in the class it holds)


def test_nations_keeps_only_the_battles_its_export_keeps():
    """The typed snapshot keeps what the export format keeps: the newest `MAX_KEPT_BATTLES` battles over and every one
    under way; the state given (a command's report) is left whole."""
    state = Game().state
    over = schema.MAX_KEPT_BATTLES + 3
    for number in range(1, over + 2):
        stage = "over" if number <= over else "commit"
        state.battles[number] = Battle(number, "A", "B", 1, stage, [], result="cancelled" if stage == "over" else None)
    state.next_battle_id = over + 2
    saved = saved_state(state)
    assert len(state.battles) == over + 1  # untouched
    assert sorted(saved.battles) == list(range(4, over + 2))
    assert saved == NATIONS.state_from_dict(NATIONS.state_to_dict(state))
    assert saved_state(saved) is saved


def test_the_tests_check_every_typed_snapshot_against_its_export(monkeypatch):
    """REFEREE_CHECK_SNAPSHOTS (set for every test): a typed snapshot that would load otherwise than its export
    document refuses to be written."""
    state = Game().state
    monkeypatch.setenv(encoding.CHECK_TYPED, "1")
    assert encoding.is_typed(encoding.pack_state(NATIONS, state))
    lossy = dataclasses.replace(NATIONS, saved_state=lambda s: dataclasses.replace(s, turn=s.turn + 1))
    with pytest.raises(AssertionError, match="turn"):
        encoding.pack_state(lossy, state)
