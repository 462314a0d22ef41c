"""Events: every change to a game's state, as a typed record — the shared machinery and the events every
rule set uses (dice, house settings, import, end, undo, notices).

An event's `apply` is the only code that changes a game's state; the engine emits events and applies
them as it goes, so a state is always exactly the replay of its events (`replay`). Events are immutable.

Each rule-set package adds its own events, named within it: they derive from one base class of its own, declared
with the rule set's name (`class NationsEvent(Event[GameState], ruleset="nations")`); the events every game
shares derive from `Event` itself. Every event class registers itself by (rule set, kind) for (de)serialisation:
its kind, as stored, is its class name in snake case ("battle_declared"), and a game's log is read with its rule
set (`event_from_dict`), so two rule sets may each have a `TurnStarted` — but no rule set an event named like one
every game shares.
"""

from __future__ import annotations

import dataclasses
import typing
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from functools import cache
from typing import Any, ClassVar, Generic

from engine.dice import FacesRecord, RollRecord
from engine.game import ANYONE, GameState, S, entered_for, set_entered_for

EVENT_TYPES: dict[tuple[str | None, str], type[Event[Any]]] = {}
"""Every event class by (its rule set's name, None for the events every game shares; its kind)."""


@dataclass(frozen=True)
class Event(Generic[S]):
    """A change to a game whose state is an `S`: a rule set's event (`S`: its state) or every game's (any
    `GameState`)."""

    kind: ClassVar[str] = ""  # as stored: the class name in snake case
    ruleset: ClassVar[str | None] = None  # the rule set whose event it is (None: every game's)
    starts_game: ClassVar[bool] = False  # the first event of a game's log (undo never takes it back)

    def __init_subclass__(cls, ruleset: str | None = None, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if ruleset is not None:  # a rule set's base class (NationsEvent): its subclasses are its rule set's events
            cls.ruleset = ruleset
            return
        cls.kind = _snake(cls.__name__)
        for (owner, kind), other in EVENT_TYPES.items():
            if kind == cls.kind and (owner == cls.ruleset or None in (owner, cls.ruleset)):
                whose = "every game's" if owner is None else f"the {owner} rule set's"
                raise TypeError(f"{cls.__qualname__}: {whose} event {other.__qualname__} is called {kind} already")
        EVENT_TYPES[(cls.ruleset, cls.kind)] = cls

    def apply(self, state: S) -> S:
        """Change `state` in place (events that start a game return a new one: their `state` is None)."""
        return state


def _snake(name: str) -> str:
    return "".join("_" + c.lower() if c.isupper() else c for c in name).lstrip("_")


# --- every game ----------------------------------------------------------------------------------

IMPORTERS: dict[str, Callable[[dict[str, Any]], GameState]] = {}
"""Each registered rule set's state from its export (`RuleSet.state_from_dict`), the main game's first: the registry
fills it (`engine.rulesets.register`), so that an imported game's log replays here without the registry."""


@dataclass(frozen=True)
class GameImported(Event[GameState]):
    snapshot: dict[str, Any]
    starts_game: ClassVar[bool] = True

    def apply(self, state: GameState | None) -> GameState:
        name = self.snapshot["game"].get("ruleset") or next(iter(IMPORTERS), "")  # (an export of before rule sets)
        importer = IMPORTERS.get(str(name).strip().lower())
        if importer is None:
            raise ValueError(f"no rule set {name!r} to import the game into")
        return importer(self.snapshot)


@dataclass(frozen=True)
class GameEnded(Event[GameState]):
    """The GM ended the game. `standings` records how it ended, for the results shown to the players (Nations:
    every nation's LAND, stats and battles won, and the winner); the log keeps it as it was then."""

    standings: dict[str, Any] = field(default_factory=dict)

    def apply(self, state: GameState) -> GameState:
        state.ended = True
        return state


@dataclass(frozen=True)
class HouseChanged(Event[GameState]):
    key: str
    value: Any

    def apply(self, state: GameState) -> GameState:
        if state.house is None:
            raise ValueError(f"a {state.ruleset} game has no house settings to change")
        # checked when it was set; `with_logged_value` keeps the rule set's own class (the protocol only reads it)
        setattr(state, "house", state.house.with_logged_value(self.key, self.value))  # noqa: B010
        return state


# --- who runs the game ----------------------------------------------------------------------------


@dataclass(frozen=True)
class CoGMAdded(Event[GameState]):
    """The GM made `player` a co-GM: the GM's powers in this game."""

    player: str
    by: str

    def apply(self, state: GameState) -> GameState:
        state.cogms = [*state.cogms, self.player]
        return state


@dataclass(frozen=True)
class CoGMRemoved(Event[GameState]):
    """The GM took `player`'s co-GM powers back."""

    player: str
    by: str

    def apply(self, state: GameState) -> GameState:
        key = self.player.strip().lower()
        state.cogms = [c for c in state.cogms if c.strip().lower() != key]
        return state


@dataclass(frozen=True)
class GameHandedOver(Event[GameState]):
    """The GM handed the game to `to`, who is its GM from now on; `old`, the GM before, stays a co-GM."""

    to: str
    old: str
    by: str

    def apply(self, state: GameState) -> GameState:
        key = self.to.strip().lower()
        cogms = [c for c in state.cogms if c.strip().lower() != key]
        if self.old.strip().lower() != key and all(c.strip().lower() != self.old.strip().lower() for c in cogms):
            cogms.append(self.old)
        state.gm, state.cogms = self.to, cogms
        return state


# --- dice ----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class DiceQueued(Event[GameState]):
    """A GM entered the next dice by hand (numbers, or face names such as B or H)."""

    values: list[int | str]
    by: str
    bound: str = ANYONE  # whose or which roll takes them (`engine.game.entered_for`)

    def apply(self, state: GameState) -> GameState:
        binds = entered_for(state) + [self.bound] * len(self.values)
        state.forced_dice.extend(self.values)
        set_entered_for(state, binds)
        return state


@dataclass(frozen=True)
class DiceCleared(Event[GameState]):
    by: str

    def apply(self, state: GameState) -> GameState:
        state.forced_dice = []
        set_entered_for(state, [])
        return state


@dataclass(frozen=True)
class DieRolled(Event[GameState]):
    """One numbered die with its modifiers (Nations)."""

    roll: RollRecord
    bound: str = ANYONE  # the binding of the entered die it took (the first waiting one with it)

    def apply(self, state: GameState) -> GameState:
        if self.roll.forced:
            _take_entered(state, self.bound, 1)
        return state


@dataclass(frozen=True)
class DiceRolled(Event[GameState]):
    """Several dice with named faces, rolled together (God Dice)."""

    roll: FacesRecord
    bound: str = ANYONE  # the binding of the entered dice it took (the first waiting ones with it)

    def apply(self, state: GameState) -> GameState:
        _take_entered(state, self.bound, sum(self.roll.forced))
        return state


def _take_entered(state: GameState, bound: str, count: int) -> None:
    """Take the first `count` waiting entered dice bound `bound` off the queue."""
    binds = entered_for(state)
    taken = [i for i, b in enumerate(binds) if b == bound][:count]
    if len(taken) < count:  # (a log replayed without the act that entered them: an undo that cannot be)
        raise IndexError(f"no GM-entered {'die' if count == 1 else 'dice'} waiting for the roll that used them")
    state.forced_dice[:] = [d for i, d in enumerate(state.forced_dice) if i not in taken]
    set_entered_for(state, [b for i, b in enumerate(binds) if i not in taken])


# --- the log -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ActionUndone(Event[GameState]):
    """The GM undid action `action_id`; the store marks its events and rolls undone."""

    action_id: int
    summary: str  # the command undone
    by: str
    undone_actor: str = ""


@dataclass(frozen=True)
class Notice(Event[GameState]):
    """Words for the players that change no state (e.g. "over its MP cap")."""

    text: str
    nation: str | None = None


# --- replay and (de)serialisation ----------------------------------------------------------------


def replay(events: typing.Iterable[Event[Any]], state: GameState | None = None) -> GameState:
    """The state that a sequence of events produces, from nothing (or from `state`, changed in place)."""
    for event in events:
        state = event.apply(state)
    if state is None:
        raise ValueError("an event log must start with a game's start or GameImported")
    return state


def to_jsonable(value: Any) -> Any:
    """Dataclasses, datetimes and containers as plain JSON values (datetimes as ISO-8601 UTC)."""
    if isinstance(value, datetime):
        return value.isoformat()
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: to_jsonable(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, dict):
        return {str(k): to_jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [to_jsonable(v) for v in value]
    return value


@cache
def _hints(cls: type) -> dict[str, Any]:
    return typing.get_type_hints(cls)


def from_jsonable(cls: type, data: dict[str, Any]) -> Any:
    """Rebuild a dataclass of `cls` written by `to_jsonable`."""
    hints = _hints(cls)
    values = {}
    for f in dataclasses.fields(cls):
        if f.name not in data:
            continue
        values[f.name] = _coerce(hints[f.name], data[f.name])
    return cls(**values)


def _coerce(hint: Any, value: Any) -> Any:
    if value is None:
        return None
    args = typing.get_args(hint)
    if hint is datetime or datetime in args:
        return datetime.fromisoformat(value)
    if isinstance(hint, type) and dataclasses.is_dataclass(hint):
        return from_jsonable(hint, value)
    return value


def event_to_dict(event: Event[Any]) -> dict[str, Any]:
    return {"kind": event.kind, **to_jsonable(event)}


def event_type(ruleset: str, kind: str) -> type[Event[Any]]:
    """The event class of `kind` in a game of rule set `ruleset`: its own, or one every game shares."""
    found = EVENT_TYPES.get((ruleset, kind)) or EVENT_TYPES.get((None, kind))
    if found is None:
        raise KeyError(f"no event {kind!r} in a {ruleset} game")
    return found


def event_from_dict(data: dict[str, Any], ruleset: str) -> Event[Any]:
    """An event as `event_to_dict` wrote it, read in a game of rule set `ruleset` (the game's `ruleset`)."""
    body = dict(data)
    kind = body.pop("kind")
    event: Event[Any] = from_jsonable(event_type(ruleset, kind), body)
    return event
