"""The Godsfire events. Most steps of the sheet change a few fields of a region, a system or a player: the
generic `RegionChanged`, `SystemChanged` and `PlayerChanged` carry the new values (and the old ones, for
the words) with the reason, so the log says what changed and why, and replays to the same state."""

from __future__ import annotations

import copy
from dataclasses import dataclass, field, fields
from datetime import datetime
from typing import Any, ClassVar

from engine.core import Tx
from engine.errors import RuleViolation
from engine.events import Event
from engine.godsfire.board import Board, board_from_plain
from engine.godsfire.rules import GodsfireHouse
from engine.godsfire.state import (
    MAX_COUNTER_NUMBER,
    MAX_COUNTERS,
    Attack,
    Counter,
    GodsfireState,
    Initiative,
    Loan,
    LossChoice,
    Player,
    Region,
    Shipment,
    System,
    Transit,
)

LISTS: dict[str, type] = {"counters": Counter, "attacks": Attack, "choices": LossChoice, "shipments": Shipment,
                          "loans": Loan}
"""The game's fields that are lists of records, and the record each item is."""
SINGLE: dict[str, type] = {"initiative": Initiative, "transit": Transit}
"""The game's fields that are one record or None."""
TIMES = ("since",)  # record fields that are moments (ISO text in their plain form)
GAME_TIMES = ("paused_at",)  # the game's own fields that are moments (ISO text in their plain form)


_FLAT = frozenset({str, int, float, bool, type(None)})


def _copied(item: Any) -> Any:
    """`item` as its own copy: a flat value is itself (immutable), lists and dicts of plain values copied
    (faster than `copy.deepcopy`), anything else deep-copied."""
    kind = type(item)
    if kind in _FLAT:
        return item
    if kind is list:
        return [_copied(x) for x in item]
    if kind is dict:
        return {k: _copied(v) for k, v in item.items()}
    return copy.deepcopy(item)


def to_plain(value: Any) -> Any:
    """A record (or a list of them) as plain JSON values: what the log and the export hold."""
    if type(value) in _FLAT:
        return value
    if isinstance(value, list):
        return [to_plain(v) for v in value]
    if isinstance(value, Board):
        return value.plain()
    if isinstance(value, datetime):
        return value.isoformat()
    if hasattr(value, "__dataclass_fields__"):
        names = _known(type(value))
        fast = getattr(value, "__dict__", None)
        if fast is not None and len(fast) == len(names) and _FLAT.issuperset(map(type, fast.values())):
            return dict(fast)  # (a record of flat values, a counter say: its fields as they are, in order)
        out = {}
        for name in names:
            item = getattr(value, name)
            out[name] = item.isoformat() if isinstance(item, datetime) else _copied(item)
        return out
    return _copied(value)


def _record(cls: type, raw: dict[str, Any]) -> Any:
    known = _known(cls)
    if cls not in _TIMED and len(raw) == len(known) and _FLAT.issuperset(map(type, raw.values())) and \
            raw.keys() == _KNOWN_SET[cls]:
        return cls(**raw)  # (every field, each a flat value and none a moment: nothing to copy or read)
    values = {k: _copied(v) for k, v in raw.items() if k in known}
    for key in TIMES:
        if isinstance(values.get(key), str):
            values[key] = datetime.fromisoformat(values[key])
    return cls(**values)


def from_plain(key: str, value: Any) -> Any:
    """The inverse of `to_plain` for the game's field `key`."""
    if key in LISTS:
        return [_record(LISTS[key], v) for v in value]
    if key in SINGLE:
        return None if value is None else _record(SINGLE[key], value)
    if key == "board":
        return board_from_plain(value)
    if key in GAME_TIMES:
        return None if value is None else datetime.fromisoformat(value)
    return copy.deepcopy(value)


class GodsfireEvent(Event[GodsfireState], ruleset="godsfire"):
    """An event of a Godsfire game."""


@dataclass(frozen=True)
class GodsfireStarted(GodsfireEvent):
    starts_game: ClassVar[bool] = True
    gm: str
    started_at: datetime
    house: dict[str, Any]

    def apply(self, state: GodsfireState | None) -> GodsfireState:
        return GodsfireState(gm=self.gm, house=GodsfireHouse(**self.house), started_at=self.started_at)


@dataclass(frozen=True)
class PlayerAdded(GodsfireEvent):
    name: str
    national_allegiance: dict[str, int]
    government: str | None = None

    def apply(self, state: GodsfireState) -> GodsfireState:
        state.players.append(Player(self.name, self.government, dict(self.national_allegiance)))
        state.done.setdefault(self.name, [])
        return state


@dataclass(frozen=True)
class SystemAdded(GodsfireEvent):
    """A system with its regions (as `system_to_dict` writes it), set up by the GM or from the tables."""

    system: dict[str, Any]

    def apply(self, state: GodsfireState) -> GodsfireState:
        state.systems.append(system_from_dict(self.system))
        return state


def _set(target: object, changes: dict[str, Any]) -> None:
    for key, value in changes.items():
        setattr(target, key, from_plain(key, value))


@dataclass(frozen=True)
class RegionChanged(GodsfireEvent):
    system: str
    region: int
    changes: dict[str, Any]  # field -> new value
    before: dict[str, Any]  # field -> old value
    reason: str

    def apply(self, state: GodsfireState) -> GodsfireState:
        _set(state.system(self.system).region(self.region), self.changes)
        return state


@dataclass(frozen=True)
class SystemChanged(GodsfireEvent):
    system: str
    changes: dict[str, Any]
    before: dict[str, Any]
    reason: str

    def apply(self, state: GodsfireState) -> GodsfireState:
        _set(state.system(self.system), self.changes)
        return state


@dataclass(frozen=True)
class PlayerChanged(GodsfireEvent):
    player: str
    changes: dict[str, Any]
    before: dict[str, Any]
    reason: str

    def apply(self, state: GodsfireState) -> GodsfireState:
        _set(state.player(self.player), self.changes)
        return state


@dataclass(frozen=True)
class GameChanged(GodsfireEvent):
    """Fields of the game itself (wars, the interphase's order)."""

    changes: dict[str, Any]
    before: dict[str, Any]
    reason: str

    def apply(self, state: GodsfireState) -> GodsfireState:
        _set(state, self.changes)
        return state


@dataclass(frozen=True)
class GodsfirePhaseChanged(GodsfireEvent):
    turn: int
    phase: str

    def apply(self, state: GodsfireState) -> GodsfireState:
        state.turn, state.phase = self.turn, self.phase
        return state


@dataclass(frozen=True)
class StepDone(GodsfireEvent):
    player: str
    step: str

    def apply(self, state: GodsfireState) -> GodsfireState:
        done = state.done.setdefault(self.player, [])
        if self.step not in done:
            done.append(self.step)
        return state


@dataclass(frozen=True)
class InterphaseReset(GodsfireEvent):
    """The interphase's per-turn marks cleared (what was bought, raised, spent; steps done; a failed
    repayment), at the start of a Social Interphase."""

    turn: int

    def apply(self, state: GodsfireState) -> GodsfireState:
        for system in state.systems:
            for region in system.regions:
                region.bought, region.raised, region.spent, region.revolt_tried = 0, False, 0, False
                region.desubversion = 0
        for player in state.players:
            player.failed_repayment = False
        state.done = {p.name: [] for p in state.players}
        return state


@dataclass(frozen=True)
class ChartRead(GodsfireEvent):
    """A chart looked up: its column, the die (in the ledger), the result and its words. Changes nothing."""

    chart: str
    column: str
    die: int
    result: str
    words: str
    detail: str = ""

    def apply(self, state: GodsfireState) -> GodsfireState:
        return state


# --- emitting changes ----------------------------------------------------------------------------


def _diff(target: object, new: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    changes, before = {}, {}
    for key, value in new.items():
        old = getattr(target, key)
        if type(old) is list and type(value) is list:  # the records both lists hold are written once
            memo: dict[int, Any] = {}
            plain_old, plain_new = _plain_items(old, memo), _plain_items(value, memo)
        else:
            plain_old, plain_new = to_plain(old), to_plain(value)
        if plain_old != plain_new:
            changes[key], before[key] = plain_new, plain_old
    return changes, before


def _plain_items(items: list[Any], memo: dict[int, Any]) -> list[Any]:
    """`to_plain` of each item, an item met before (by identity: both lists are alive) written once."""
    out = []
    for item in items:
        found = memo.get(id(item))
        if found is None:
            found = memo[id(item)] = to_plain(item)
        out.append(found)
    return out


def change_region(tx: Tx[GodsfireState], system: str, region: int, reason: str, **new: Any) -> RegionChanged | None:
    """Emit a RegionChanged setting these fields (those that change); returns it, or None if none did."""
    target = tx.state.system(system).region(region)
    _check_fields(Region, new)
    changes, before = _diff(target, new)
    if not changes:
        return None
    event = RegionChanged(tx.state.system(system).name, region, changes, before, reason)
    tx.emit(event)
    return event


def change_system(tx: Tx[GodsfireState], system: str, reason: str, **new: Any) -> SystemChanged | None:
    """Emit a SystemChanged (loans as a list of {"amount", "box"} dicts)."""
    target = tx.state.system(system)
    _check_fields(System, new)
    changes, before = _diff(target, new)
    if not changes:
        return None
    event = SystemChanged(target.name, changes, before, reason)
    tx.emit(event)
    return event


def change_player(tx: Tx[GodsfireState], player: str, reason: str, **new: Any) -> PlayerChanged | None:
    target = tx.state.player(player)
    _check_fields(Player, new)
    changes, before = _diff(target, new)
    if not changes:
        return None
    event = PlayerChanged(target.name, changes, before, reason)
    tx.emit(event)
    return event


def change_game(tx: Tx[GodsfireState], reason: str, **new: Any) -> GameChanged | None:
    _check_fields(GodsfireState, new)
    counters = new.get("counters")
    if counters is not None and len(counters) > max(MAX_COUNTERS, len(tx.state.counters)):
        raise RuleViolation(f"the table holds at most {MAX_COUNTERS:,} counters, and this would make "
                            f"{len(counters):,} (the GM takes some off with /godsfire counter remove)")
    if new.get("next_counter", 0) > MAX_COUNTER_NUMBER:
        raise RuleViolation(f"this game has used up its counter numbers (they run below {MAX_COUNTER_NUMBER:,} and are "
                            "never reused)")
    changes, before = _diff(tx.state, new)
    if not changes:
        return None
    event = GameChanged(changes, before, reason)
    tx.emit(event)
    return event


def _known(cls: type) -> tuple[str, ...]:
    """The field names of a record class in order (looked up once a class)."""
    found = _KNOWN.get(cls)
    if found is None:
        found = _KNOWN[cls] = tuple(f.name for f in fields(cls))
        _KNOWN_SET[cls] = frozenset(found)
        if _KNOWN_SET[cls] & set(TIMES):
            _TIMED.add(cls)
    return found


_KNOWN: dict[type, tuple[str, ...]] = {}
_KNOWN_SET: dict[type, frozenset[str]] = {}
_TIMED: set[type] = set()  # record classes with a moment among their fields


def _check_fields(cls: type, new: dict[str, Any]) -> None:
    known = _known(cls)
    unknown = set(new) - set(known)
    if unknown:
        raise TypeError(f"{cls.__name__} has no field {', '.join(sorted(unknown))}")


# --- the export form of a system (also SystemAdded's) ----------------------------------------------


def system_to_dict(system: System) -> dict[str, Any]:
    """A system as plain JSON values: every field (new fields included), regions and loans as dicts."""
    raw = {name: _copied(getattr(system, name)) for name in _known(System) if name not in ("regions", "loans")}
    raw["regions"] = [region_to_dict(r) for r in system.regions]
    raw["loans"] = [{"amount": loan.amount, "box": loan.box} for loan in system.loans]
    return raw


def region_to_dict(region: Region) -> dict[str, Any]:
    return {name: _copied(getattr(region, name)) for name in _known(Region)}


def system_from_dict(raw: dict[str, Any]) -> System:
    """The inverse of `system_to_dict` (fields it lacks take their defaults)."""
    known = {f.name for f in fields(System)} - {"regions", "loans"}
    system = System(**{k: _copied(v) for k, v in raw.items() if k in known})
    system.regions = [Region(**_copied(r)) for r in raw.get("regions", [])]
    system.loans = [Loan(**loan) for loan in raw.get("loans", [])]
    return system


__all__ = ["field"]  # (re-exported for modules that define their own events)
