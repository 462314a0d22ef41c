"""Events are named within their rule set: each rule set's event classes derive from its own base (`NationsEvent`…),
the shared ones from `Event`, and a log is read with its game's rule set, so two rule sets may each have an event of
the same name; the stored kind is the class name in snake case, as it always was. Events are immutable."""

from __future__ import annotations

import dataclasses
import types
from dataclasses import dataclass

import pytest
from dicerace import RaceEvent, RaceState

from engine.events import EVENT_TYPES, Event, GameEnded, event_from_dict, event_to_dict
from engine.goddice.events import GoddiceEvent
from engine.goddice.events import TurnStarted as GoddiceTurnStarted
from engine.nations.events import BattleDeclared, NationsEvent
from engine.rulesets import GameState


def test_an_event_named_like_another_rule_sets_is_its_own():
    @dataclass(frozen=True)
    class TurnStarted(RaceEvent):  # God Dice has an event of this name: in Dice Race it is another
        racer: str

        def apply(self, state: RaceState) -> RaceState:
            return state

    try:
        race, goddice = TurnStarted("alice"), GoddiceTurnStarted("bob", 3)
        assert (race.kind, goddice.kind) == ("turn_started", "turn_started")
        assert event_to_dict(race) == {"kind": "turn_started", "racer": "alice"}
        assert event_to_dict(goddice) == {"kind": "turn_started", "player": "bob", "turn": 3}
        assert event_from_dict(event_to_dict(race), "dicerace") == race
        assert event_from_dict(event_to_dict(goddice), "goddice") == goddice
        assert type(event_from_dict(event_to_dict(race), "dicerace")) is TurnStarted
        assert type(event_from_dict(event_to_dict(goddice), "goddice")) is GoddiceTurnStarted
    finally:
        EVENT_TYPES.pop(("dicerace", "turn_started"))


def test_the_events_every_game_shares_are_read_in_any_game():
    ended = GameEnded(standings={"winner": "alice"})
    for ruleset in ("nations", "goddice", "godsfire", "dicerace"):
        assert event_from_dict(event_to_dict(ended), ruleset) == ended


def test_a_kind_is_read_in_its_own_rule_set_only():
    with pytest.raises(KeyError, match="no event 'turn_started' in a nations game"):
        event_from_dict({"kind": "turn_started", "player": "bob", "turn": 3}, "nations")
    with pytest.raises(KeyError, match="no event 'no_such_thing' in a goddice game"):
        event_from_dict({"kind": "no_such_thing"}, "goddice")


def test_a_name_taken_in_the_same_rule_set_or_by_every_game_is_refused():
    with pytest.raises(TypeError, match="the nations rule set's event BattleDeclared is called battle_declared"):
        types.new_class("BattleDeclared", (NationsEvent,))
    with pytest.raises(TypeError, match="every game's event GameEnded is called game_ended already"):
        types.new_class("GameEnded", (GoddiceEvent,))
    with pytest.raises(TypeError, match="the nations rule set's event BattleDeclared is called battle_declared"):
        types.new_class("BattleDeclared", (Event[GameState],))  # an event every game shared would shadow it
    assert EVENT_TYPES[("nations", "battle_declared")] is BattleDeclared


def test_each_event_class_belongs_to_its_rule_set_and_is_frozen():
    for (ruleset, kind), cls in EVENT_TYPES.items():
        assert cls.ruleset == ruleset and cls.kind == kind
        assert dataclasses.is_dataclass(cls) and cls.__dataclass_params__.frozen, cls  # type: ignore[attr-defined]
        if cls.__module__.startswith("engine."):
            assert cls.__module__.split(".")[1] == ruleset or (ruleset is None and cls.__module__ == "engine.events")
    assert GoddiceTurnStarted.ruleset == "goddice" and BattleDeclared.ruleset == "nations" and GameEnded.ruleset is None
    with pytest.raises(dataclasses.FrozenInstanceError):
        GoddiceTurnStarted("bob", 3).turn = 4  # type: ignore[misc]
