"""What a chart shows, as plain data (`charts.py` draws it): panels of lines, one a side, turn by turn, from the
stored stat history (`engine.history`), with marks where something happened (a battle, a conquest).

A side has one colour on every chart of its game: its place in the order the history first names the sides.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any

from engine.errors import BadInput
from engine.history import HistoryEntry, marks_of, series_by_turn, sides_in_order
from engine.rulesets import GameState, ruleset_of

# Bright enough on Discord's dark theme (#313338), told apart by most colour-blind readers in the first eight.
PALETTE = ("#5DA5F5", "#F5A623", "#57D9A3", "#F25F5C", "#B18CF2", "#F2E35C", "#4FD1E5", "#F28CCB",
           "#A3E635", "#E0E0E0", "#FF8A65", "#9FA8DA")
MAX_SIDES = 24  # lines on one panel; more would be unreadable (the first ones by the history's order)


@dataclass(frozen=True)
class Series:
    side: str
    colour: str
    points: tuple[tuple[int, float], ...]  # (turn, value), every turn from the side's first


@dataclass(frozen=True)
class Mark:
    side: str
    colour: str
    turn: int
    value: float  # where on the side's line it sits
    kind: str  # "battle won", "conquest", …


@dataclass(frozen=True)
class Panel:
    title: str
    series: tuple[Series, ...]
    marks: tuple[Mark, ...] = ()


@dataclass(frozen=True)
class Chart:
    title: str
    panels: tuple[Panel, ...]
    file_name: str = "chart.png"

    def relabel(self, label: Callable[[str], str]) -> Chart:
        """The chart with every side shown as `label(side)` (a front-end's names for its players)."""
        return replace(self, panels=tuple(
            replace(p, series=tuple(replace(s, side=label(s.side)) for s in p.series),
                    marks=tuple(replace(m, side=label(m.side)) for m in p.marks)) for p in self.panels))

    def sides(self) -> list[str]:
        return list(dict.fromkeys(s.side for p in self.panels for s in p.series))


def colours(entries: Sequence[HistoryEntry]) -> dict[str, str]:
    """Each side's colour: the same on every chart of the game."""
    return {side: PALETTE[index % len(PALETTE)] for index, side in enumerate(sides_in_order(entries))}


def panel(entries: Sequence[HistoryEntry], stat: str, title: str, last_turn: int,
          sides: Sequence[str] | None = None, marked: bool = True) -> Panel:
    """One stat of `sides` (every side that has it when None) turn by turn, with the sides' marks."""
    colour = colours(entries)
    found = series_by_turn(entries, stat, last_turn, sides)
    shown = list(found)[:MAX_SIDES]
    series = tuple(Series(side, colour.get(side, PALETTE[0]), tuple(found[side])) for side in shown)
    marks = []
    if marked:
        for mark in marks_of(entries, shown):
            at = dict(found[mark.side])
            if mark.turn in at:
                marks.append(Mark(mark.side, colour.get(mark.side, PALETTE[0]), mark.turn, at[mark.turn],
                                  str(mark.mark)))
    return Panel(title, series, tuple(marks))


def renamed(entries: Sequence[HistoryEntry], names: dict[str, str]) -> Sequence[HistoryEntry]:
    """`entries` with each side by its name now (`names`: its stored name → its name now, for the renamed ones):
    a side renamed during the game is one line, its whole history under its last name."""
    if not names:
        return entries
    return [replace(e, side=names[e.side]) if e.side in names else e for e in entries]


def safe_file_word(text: str) -> str:
    """`text` as a file name's word: letters, digits and dashes only, at most 60 characters."""
    word = "".join(ch if ch.isascii() and ch.isalnum() else "-" for ch in text.lower())
    return "-".join(part for part in word.split("-") if part)[:60] or "chart"


def stat_title(state: GameState, stat: str) -> str:
    return dict(ruleset_of(state).history_stats).get(stat, stat)


def game_chart(state: GameState, entries: Sequence[HistoryEntry], options: dict[str, Any]) -> Chart:
    """/game chart: each side's strength over the game, one panel for each stat its rule set names."""
    rules = ruleset_of(state)
    if not rules.game_chart:
        raise BadInput(f"{rules.title} games have no chart")
    entries = renamed(entries, rules.history_names(state) if rules.history_names else {})
    panels = tuple(panel(entries, stat, f"{stat_title(state, stat)} by turn", state.turn)
                   for stat in rules.game_chart)
    if not any(p.series for p in panels):
        raise BadInput("nothing to chart yet: the game has no " + " or ".join(rules.game_chart) + " so far")
    return Chart(f"{rules.title} — " + ", ".join(stat_title(state, s) for s in rules.game_chart)
                 + f" by turn (turn {state.turn})", panels, "game-chart.png")
