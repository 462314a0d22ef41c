"""The store's fast paths write what the general ones wrote (issue 35): a logged roll's ledger row read straight from
its record, and a Nations snapshot built and written without walking it generically (its house settings shared)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import orjson
import pytest

import engine  # noqa: F401  (registers every rule set)
from data.store.ledger import record_row, roll_row
from engine.dice import FacesRecord, RollRecord
from engine.events import to_jsonable
from engine.nations.rules import HouseSettings
from engine.nations.snapshot import state_from_dict, state_to_dict
from engine.nations.state import Battle, Bonus, GameState, Nation, Unit

NOW = datetime(2030, 1, 1, 12, tzinfo=UTC)

ROLLS = [
    RollRecord("Rome", "grow economy", 7, {"mod(E)": 1, "Workers": 2}, 10, 8, ">", True, False, 3, NOW),
    RollRecord(None, "duel", 1, {}, 1, None, None, None, True, 1, NOW, battle=4, unit=17, sides=6),
    RollRecord("Rome", "morale", 5, {}, 5, 5, ">=", False, False, 0, datetime.min),
    FacesRecord("bob", "attack", ["sword", "shield", "skull"], [True, False, False], 2, NOW),
    FacesRecord(None, "heal", [], [], 0, NOW),
]


@pytest.mark.parametrize("roll", ROLLS)
def test_a_logged_roll_has_the_row_its_plain_form_had(roll: RollRecord | FacesRecord) -> None:
    assert record_row(roll) == roll_row(to_jsonable(roll))


def _state() -> GameState:
    state = GameState(gm="gm", turn=3, turn_hours=12.0, turn_started_at=NOW, turn_ends_at=NOW + timedelta(hours=12),
                      house=HouseSettings(), paused=True, paused_remaining=300.0, paused_at=NOW, cogms=["ann"],
                      forced_dice=[4])
    rome = Nation("Rome", "p1", 8, 6, 5, 4, 30, "infantry", "bomber", foreign_patches=1, preset_slot=2,
                  actions_used=["economy"], extra_actions=1, battles_won=2)
    rome.bonuses["workers"] = Bonus("workers", 2, NOW + timedelta(hours=30))
    rome.units[9] = Unit(9, "infantry", "green", 3, battle=1)
    rome.units[2] = Unit(2, "bomber", "veteran", 2)  # out of id order: written sorted
    state.nations["Rome"] = rome
    state.nations["Gaul"] = Nation("Gaul", None, 5, 5, 5, 5, 20, "armour", "warships", eliminated=True)
    state.battles[1] = Battle(1, "Rome", "Gaul", 3, "commit", [9], deadline=NOW + timedelta(hours=2))
    state.next_unit_id, state.next_battle_id = 10, 2
    return state


def test_a_nations_snapshot_round_trips_in_the_same_text() -> None:
    document = state_to_dict(_state())
    again = state_from_dict(orjson.loads(orjson.dumps(document)))
    assert state_to_dict(again) == document
    assert orjson.dumps(state_to_dict(again)) == orjson.dumps(document)
    assert [u["id"] for u in document["nations"][0]["units"]] == [2, 9]
    assert again.paused_at == NOW and again.nations["Rome"].bonuses["workers"].value == 2


def test_house_settings_are_shared_only_when_equal_in_type_too() -> None:
    document = state_to_dict(_state())
    first, second = state_from_dict(document), state_from_dict(document)
    assert first.house is second.house  # (frozen: sharing is safe)
    whole = {**document, "game": {**document["game"], "house": {**document["game"]["house"], "turn_hours": 12}}}
    assert state_to_dict(state_from_dict(whole))["game"]["house"]["turn_hours"] == 12
    assert type(state_to_dict(state_from_dict(whole))["game"]["house"]["turn_hours"]) is int
    assert type(state_to_dict(state_from_dict(document))["game"]["house"]["turn_hours"]) is float
