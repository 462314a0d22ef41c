"""Stat history: what each side's numbers were, turn by turn, for /nation chart, /game chart and the game's page.

Each rule set says what its history follows (`RuleSet.history_point`: a state → {(side, stat): value}, e.g.
("Rome", "land") → 7) and which events are worth a mark on a chart (`RuleSet.history_marks`: a battle won, a
province conquered). The store records, for every logged action, each value that changed and each mark, with
the turn and time: one `HistoryEntry` each. An undone action's entries are undone with it; an export carries
the live entries and an import brings them back, so the history of a game survives all three.

A value is a number, or a word where the rules have words (a Godsfire region's economy "A-1").
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from engine.errors import BadInput
from engine.names import clean_name

Value = float | int | str
Point = dict[tuple[str, str], Value]  # (side, stat) → value

MAX_HISTORY = 500_000  # entries an import may carry
MAX_TURN = 1_000_000
MAX_WORD = 100  # a side's name, a stat, a mark or a worded value, in characters


@dataclass(frozen=True)
class HistoryEntry:
    """One change: `side`'s `stat` became `value` in turn `turn` (a mark, when `mark` is set, has no value)."""

    turn: int
    at: datetime
    side: str
    stat: str
    value: Value | None = None
    mark: str | None = None


def changes(before: Point | None, after: Point) -> list[tuple[str, str, Value]]:
    """The values of `after` that differ from `before` (all of them with no `before`), in `after`'s order. A
    series that `after` no longer has (a side removed) keeps its last value: nothing is written for it."""
    before = before or {}
    return [(side, stat, value) for (side, stat), value in after.items()
            if (side, stat) not in before or before[(side, stat)] != value]


def entries_of(point_before: Point | None, point_after: Point | None, marks: Iterable[tuple[str, str]],
               turn: int, at: datetime) -> list[HistoryEntry]:
    """One action's history: its marks, then each value it changed."""
    found = [HistoryEntry(turn, at, side, "", None, label) for side, label in marks]
    if point_after is not None:
        found += [HistoryEntry(turn, at, side, stat, value) for side, stat, value in changes(point_before, point_after)]
    return found


def last_point(entries: Iterable[HistoryEntry]) -> Point:
    """The latest value of every series in `entries` (oldest first)."""
    point: Point = {}
    for entry in entries:
        if entry.mark is None and entry.value is not None:
            point[(entry.side, entry.stat)] = entry.value
    return point


def sides_in_order(entries: Iterable[HistoryEntry]) -> list[str]:
    """Every side of the history in the order it first appears (its colour on every chart follows it)."""
    seen: dict[str, None] = {}
    for entry in entries:
        if entry.mark is None:
            seen.setdefault(entry.side, None)
    return list(seen)


def series_by_turn(entries: Sequence[HistoryEntry], stat: str, last_turn: int,
                   sides: Sequence[str] | None = None) -> dict[str, list[tuple[int, float]]]:
    """Each side's numeric `stat` turn by turn: (turn, its value at that turn's end), from the turn it first
    has a value to `last_turn`. A turn with no change repeats the last value."""
    changes_at: dict[str, dict[int, float]] = {}
    for entry in entries:
        if entry.mark is None and entry.stat == stat and isinstance(entry.value, int | float):
            if sides is None or entry.side in sides:
                changes_at.setdefault(entry.side, {})[entry.turn] = float(entry.value)
    found: dict[str, list[tuple[int, float]]] = {}
    order = list(sides) if sides is not None else sides_in_order(entries)
    for side in order:
        by_turn = changes_at.get(side)
        if not by_turn:
            continue
        first = min(by_turn)
        value, points = by_turn[first], []
        for turn in range(first, max(last_turn, max(by_turn)) + 1):
            value = by_turn.get(turn, value)
            points.append((turn, value))
        found[side] = points
    return found


def marks_of(entries: Iterable[HistoryEntry], sides: Sequence[str] | None = None) -> list[HistoryEntry]:
    """The marks (battles, conquests…) of `sides` (every side when None), oldest first."""
    return [e for e in entries if e.mark is not None and (sides is None or e.side in sides)]


# --- the export format ------------------------------------------------------------------------------


def entry_to_dict(entry: HistoryEntry) -> dict[str, Any]:
    item: dict[str, Any] = {"turn": entry.turn, "at": entry.at.isoformat(), "side": entry.side}
    if entry.mark is not None:
        item["mark"] = entry.mark
    else:
        item["stat"], item["value"] = entry.stat, entry.value
    return item


def check_history(raw: Any, now: datetime) -> list[HistoryEntry]:
    """An export's `history` checked at the edge: a list of at most MAX_HISTORY entries, each with a turn
    (0…MAX_TURN), a time no later than `now`, a side, and a stat with a value (a finite number or a short
    word) or a mark. BadInput names the first bad entry."""
    if raw is None:
        return []
    if not isinstance(raw, list):
        raise BadInput("history must be a list of entries")
    if len(raw) > MAX_HISTORY:
        raise BadInput(f"history has {len(raw):,} entries; at most {MAX_HISTORY:,}")
    found = []
    for index, item in enumerate(raw, 1):
        where = f"history entry {index}"
        if not isinstance(item, dict):
            raise BadInput(f"{where} must be an object")
        unknown = set(item) - {"turn", "at", "side", "stat", "value", "mark"}
        if unknown:
            raise BadInput(f"{where} has unknown field {sorted(unknown)[0]!r}")
        turn = item.get("turn")
        if not isinstance(turn, int) or isinstance(turn, bool) or not 0 <= turn <= MAX_TURN:
            raise BadInput(f"{where}: turn must be a whole number from 0 to {MAX_TURN:,}")
        try:
            at = datetime.fromisoformat(str(item.get("at")))
        except ValueError:
            raise BadInput(f"{where}: at must be an ISO-8601 time") from None
        if at.tzinfo is None:
            raise BadInput(f"{where}: at must give its time zone (UTC)")
        if at > now:
            raise BadInput(f"{where}: at is in the future")
        side = _word(item.get("side"), f"{where}: side")
        if "mark" in item:
            if "stat" in item or "value" in item:
                raise BadInput(f"{where}: a mark has no stat or value")
            found.append(HistoryEntry(turn, at, side, "", None, _word(item["mark"], f"{where}: mark")))
            continue
        stat = _word(item.get("stat"), f"{where}: stat")
        value = item.get("value")
        if isinstance(value, bool) or not isinstance(value, int | float | str):
            raise BadInput(f"{where}: value must be a number or a word")
        if isinstance(value, float) and not math.isfinite(value):
            raise BadInput(f"{where}: value must be a finite number")
        if isinstance(value, int) and abs(value) > 10**15:
            raise BadInput(f"{where}: value is too large")
        if isinstance(value, str):
            value = _word(value, f"{where}: value")
        found.append(HistoryEntry(turn, at, side, stat, value))
    return found


def _word(value: Any, what: str) -> str:
    """A name or word of an import, in its stored form (`engine.names.clean_name`)."""
    return clean_name(value, what, MAX_WORD)
