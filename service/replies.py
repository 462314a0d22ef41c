"""What one command answers, whatever the front-end: the dispatcher (`service.dispatch`) returns one of these, and
each front-end renders it its own way — the console as text (markdown, BBCode), Discord as embeds, files and
buttons. A reply holds what was decided and what is to be shown, never how it looks.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import IO, Any

from data.store import LedgerFilter
from engine.chartspec import Chart
from engine.dice import FreeRoll
from engine.fairness import DieFairness
from engine.mapspec import MapPicture
from engine.rulesets import GameState
from engine.view import View
from service.gmlog import GmPage
from service.ledger import LedgerPage
from service.reports import Digest, GameList, Report, UndoPreview
from service.story import Story


@dataclass(frozen=True, kw_only=True)
class Reply:
    """A command's answer. `private`: for the one who asked alone (ephemeral on Discord)."""

    private: bool = False


@dataclass(frozen=True, kw_only=True)
class Changed(Reply):
    """An action applied: its report (the clock's catch-up first, then its events; the state after). `lead`: a
    line said first (what a file held, what an import brought in); `events`: whether its events are shown."""

    report: Report
    lead: str | None = None
    events: bool = True


@dataclass(frozen=True, kw_only=True)
class Shown(Reply):
    """A view (a status, a sheet, a list, a link). `over`: the game shown has ended (the front-end says so)."""

    view: View
    over: bool = False
    subject: GameState | None = None  # the state it shows (for a front-end that lays a query out its own way)


@dataclass(frozen=True, kw_only=True)
class Asked(Reply):
    """A GM's step that asks first (`what`: "undo" or "end"): what it would do, and what a confirmation names —
    the game, and for an undo the actions previewed (`preview`); for an end, the final standings it would post."""

    what: str
    game_id: int
    preview: UndoPreview | None = None
    standings: dict[str, Any] | None = None  # `GameEnded.standings` as the game stands now
    subject: GameState | None = None  # the state of the game it asks about


@dataclass(frozen=True, kw_only=True)
class Attached(Reply):
    """A file to hand over (an export): its name, and either its bytes or a writer that streams it into a binary
    handle and returns how many items it wrote; `caption` says what it is."""

    name: str
    caption: str
    data: bytes | None = None
    write: Callable[[IO[bytes]], Awaitable[int]] | None = None
    what: str = "file"  # the caption's noun for a count ("roll": "… (12 rolls)")
    written: str = "Wrote {path}"  # what a front-end that writes it to a file says then ({file}, {path}, {count})


@dataclass(frozen=True, kw_only=True)
class Drawn(Reply):
    """A chart, or a board's picture (a map), to draw as a picture (`service.charts`)."""

    chart: Chart | MapPicture


@dataclass(frozen=True, kw_only=True)
class RollsPage(Reply):
    """/log rolls: one page of the filtered ledger of a game."""

    game_id: int
    where: LedgerFilter
    size: int
    page: LedgerPage


@dataclass(frozen=True, kw_only=True)
class GmLogPage(Reply):
    """/log gm: one page of the GM's log of a game, each act with its lines."""

    game_id: int
    page: GmPage
    lines: list[list[str]] = field(default_factory=list)


@dataclass(frozen=True, kw_only=True)
class Told(Reply):
    """/log game: the story of one turn of a game."""

    game_id: int
    story: Story


@dataclass(frozen=True, kw_only=True)
class Digested(Reply):
    """/game digest: the log since a moment (what fell due first, in `digest.caught_up`)."""

    digest: Digest


@dataclass(frozen=True, kw_only=True)
class Rolled(Reply):
    """/roll: a free roll, and whether it went into the game's ledger."""

    roll: FreeRoll
    logged: bool
    secret: bool = False  # a secret roll: shown to its roller alone (and to the GM in /log secret)
    number: int | None = None  # a secret roll's number, for /log reveal (None: a retry's answer)


@dataclass(frozen=True, kw_only=True)
class Listed(Reply):
    """/game list: the live games (of the asker's server)."""

    games: GameList


@dataclass(frozen=True, kw_only=True)
class Helped(Reply):
    """/help: one group's commands (`topic`), or the groups, in a channel whose game is of rule set `game`."""

    topic: str | None
    game: str | None


@dataclass(frozen=True, kw_only=True)
class Linked(Reply):
    """A game's page link: /game page (`ended`: the channel's last game, ended) or, `rotated`, /gm page rotate's
    new one (the channel is told the old one died)."""

    url: str
    game_id: int
    ended: bool = False
    rotated: bool = False



@dataclass(frozen=True, kw_only=True)
class Judged(Reply):
    """/log fairness: each kind of die of a game against a fair die."""

    judged: list[DieFairness]
