"""What the referee's calls return, for every front-end: a change's report (`Report`), the games listed, the digest
of a game's log, the preview of an undo."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from data.store import ActionRow, LoggedAction
from engine.describe import event_line, same, utc_text
from engine.dice import RollRecord
from engine.events import Event
from engine.rulesets import GameState
from engine.view import Line, View, line, view

CLOCK_ACTOR = "clock"  # who the log names for what the clock applies
MAX_LISTED = 25  # the most games one /game list shows


@dataclass(frozen=True)
class GameList:
    """/game list: each live game shown, as its channel (the store's key) and its line, and how many more there
    are than were shown."""

    games: list[tuple[str, Line]]
    more: int = 0

    @property
    def count(self) -> int:
        """How many live games there are in all."""
        return len(self.games) + self.more

    def view(self, where: str) -> View:
        """The list as text front-ends show it: a title, then each game under its channel's key."""
        if not self.count:
            return view(f"No game is running in {where}: /game start starts one.")
        more = [line(f"…and {self.more} more (at most {MAX_LISTED} are shown).")] if self.more else []
        return view(f"Games running in {where}: {self.count}",
                    *[line(f"{key}: ", *shown.parts, item=True) for key, shown in self.games], *more)


@dataclass
class Report:
    """What one call did: the game, its events in order (catch-up first) and the state after, and the logged
    actions it reports (catch-up first), whose announcing message a front-end may record for /log rolls."""

    game_id: int
    # the game's state after the call, of its rule set's own class (the front-ends' rule-set code reads its own
    # fields); None in the clock's rollover reports to the listeners (`Referee.on_commit`, `by_clock`)
    state: Any
    events: list[Event] = field(default_factory=list)
    caught_up: list[Event] = field(default_factory=list)
    action_ids: list[int] = field(default_factory=list)


Listener = Callable[[Report, bool], Awaitable[None]]
"""What hears of each commit (`Referee.on_commit`): (the report, whether it is the clock's rollover)."""


@dataclass(frozen=True)
class UndoneAction:
    """One action an undo would take back: its log row and its live events (its rolls among them)."""

    action: ActionRow
    events: list[Event]


@dataclass(frozen=True)
class UndoPreview:
    """What `/gm undo steps:N` would take back now, newest first (`Referee.preview_undo`)."""

    game_id: int
    actions: list[UndoneAction]

    @property
    def action_ids(self) -> tuple[int, ...]:
        return tuple(a.action.id for a in self.actions)

    @property
    def steps(self) -> int:
        return len(self.actions)

    def lines(self, words: Callable[[Event], str | None] = event_line, when: Callable[[datetime], str] = utc_text,
              who: Callable[[str], str] = same) -> list[str]:
        """The preview in words, the same on every front-end: a heading, then each action (its actor, command
        and time) and under it its events' lines — its rolls and every change it made. `words` words one event
        (the console: `event_line`; Discord marks rolls its own way)."""
        count = "the last action" if self.steps == 1 else f"the last {self.steps} actions"
        lines = [f"Undo {count}? It takes back, newest first, with their rolls and every change they made:"
                 if self.steps > 1 else f"Undo {count}? It takes back, with its rolls and every change it made:"]
        for number, undone in enumerate(self.actions, 1):
            row = undone.action
            lines.append(f"{number}. {who(row.actor)}: “{row.command}” ({when(row.at)})")
            shown = [line for event in undone.events if (line := words(event))]
            lines += [f"    {line}" for line in shown] or ["    (no roll and no change to show)"]
        return lines


@dataclass
class Digest:
    """What /game digest lists: the game's log since `since`, in order (actions with their events, and free
    rolls), how many later actions were left out, where a next page starts, and whether the mark moved."""

    state: GameState
    since: datetime
    items: list[LoggedAction | RollRecord]
    left_out: int = 0
    next_since: datetime | None = None
    marked: bool = False
    caught_up: Report | None = None  # what fell due and was applied first (its events are in `items` too)
