"""What a picture of a game's board shows, as plain data (`service.charts` draws it, PNG or SVG): the cells where
the picture puts them, which touch, the stacks of counters on them in their sides' colours, and arrows for this
turn's moves and announced attacks. A rule set builds it from its state; the front-ends only draw it.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Spot:
    """A cell: its name, where it is drawn (x right, y down; a hex is 1 across), and what it is."""

    name: str
    x: float
    y: float
    nebula: bool = False
    system: bool = False  # a star system's cell
    note: str = ""  # a second, smaller line: a grid name, planets, its owner
    colour: str | None = None  # its owner's colour (a system), None: nobody's
    level: int = 1


@dataclass(frozen=True)
class Stack:
    """Counters of one side in one cell, in words (`2 AG, 1 SQD`); `ground`: on the planets below the cell."""

    at: str
    side: str
    colour: str
    text: str
    ground: bool = False


@dataclass(frozen=True)
class Arrow:
    """A move made this turn (`move`) or an attack announced (`attack`), from one cell to another."""

    start: str
    end: str
    colour: str
    kind: str = "move"


@dataclass(frozen=True)
class MapPicture:
    title: str
    spots: tuple[Spot, ...]
    links: tuple[tuple[str, str], ...]  # cells that touch, drawn as lines (a hex grid's are its shared edges)
    hexes: bool  # cells drawn as hexes (a grid) or as circles (named cells)
    stacks: tuple[Stack, ...] = ()
    arrows: tuple[Arrow, ...] = ()
    legend: tuple[tuple[str, str], ...] = ()  # (side, colour) in the order shown
    caption: str = ""  # under the title: the turn and phase
    file_name: str = "map.png"
