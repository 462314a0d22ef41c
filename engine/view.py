"""A view as structured text: what a query shows (a status, a nation, a party, a system sheet, a battle),
written once by its rule set and laid out by each front-end — the console as text, markdown or BBCode,
Discord as an embed.

A view is a title and sections; a section is an optional heading and lines; a line is parts, some of
them marked `Strong` (a roll's total, a verdict, an alarm), and may be an item of a list under the line
before it. No front-end adds emphasis to finished text: what is strong is said here.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime


@dataclass(frozen=True)
class Strong:
    """A part of a line shown with emphasis (bold on Discord, in markdown and in BBCode)."""

    text: str


@dataclass(frozen=True)
class At:
    """A moment, shown by each front-end its own way (the console as UTC text, Discord as a timestamp)."""

    moment: datetime


@dataclass(frozen=True)
class Person:
    """A player or GM as stored (a name in the console, a user id on Discord, shown as a mention)."""

    who: str


Part = str | Strong | At | Person


def part_text(part: Part) -> str:
    """One part's words as the console shows them: no emphasis, a moment in UTC, a person by name."""
    if isinstance(part, Strong):
        return part.text
    if isinstance(part, At):
        return part.moment.strftime("%Y-%m-%d %H:%M UTC")
    if isinstance(part, Person):
        return part.who
    return part


@dataclass(frozen=True)
class Line:
    """One line of a view: its parts in order; `item` when it is an entry of a list under the line before;
    `table` when it is a row of a stat block, whose columns a front-end keeps (in a forum's proportional font:
    a run of such rows in a code block, as plain monospaced text with no emphasis)."""

    parts: tuple[Part, ...]
    item: bool = False
    table: bool = False

    @property
    def text(self) -> str:
        """The line's words without emphasis, as the console shows them."""
        return "".join(part_text(p) for p in self.parts)


def line(*parts: Part, item: bool = False, table: bool = False) -> Line:
    """`line("LAND ", Strong("25"))`: empty parts are left out."""
    return Line(tuple(p for p in parts if not isinstance(p, str) or p), item, table)


def table_rows(*rows: Sequence[str], gap: int = 2) -> list[Line]:
    """Rows of a stat block as `table` lines whose columns line up: each cell but a row's last padded to its
    column's widest, `gap` spaces between (`ECONOMY 5 (-2)   STABILITY 10 (+0)`)."""
    widths: dict[int, int] = {}
    for row in rows:
        for column, cell in enumerate(row[:-1]):
            widths[column] = max(widths.get(column, 0), len(cell))
    spacer = " " * gap
    return [Line((spacer.join([*(cell.ljust(widths[c]) for c, cell in enumerate(row[:-1])), *row[-1:]]),),
                 table=True) for row in rows]


def item(*parts: Part) -> Line:
    """A list entry: `line(..., item=True)`."""
    return line(*parts, item=True)


def lines_of(texts: Iterable[str]) -> tuple[Line, ...]:
    """Plain lines; one starting with two spaces is a list item (the console's indent), as `Line.item`."""
    return tuple(Line((t[2:],), True) if t.startswith("  ") else Line((t,)) for t in texts)


@dataclass(frozen=True)
class Section:
    """A part of a view: on Discord an embed field when it has a heading, else the embed's text."""

    heading: str | None
    lines: tuple[Line, ...]


@dataclass(frozen=True)
class View:
    """What one query shows. `title` heads it; `sections` follow in order."""

    title: Line
    sections: tuple[Section, ...] = ()
    loud: bool = False  # the view shows something alarming (eliminated, game over): Discord colours it

    @property
    def lines(self) -> list[Line]:
        """Every line after the title, headings included as lines of their own."""
        found: list[Line] = []
        for section in self.sections:
            if section.heading is not None:
                found.append(Line((section.heading,)))
            found.extend(section.lines)
        return found


def view(title: str | Line, *texts: str | Line, loud: bool = False) -> View:
    """A view of one untitled section from lines or plain texts (two leading spaces: a list item)."""
    lines = tuple(t if isinstance(t, Line) else lines_of([t])[0] for t in texts)
    head = title if isinstance(title, Line) else Line((title,))
    return View(head, (Section(None, lines),) if lines else (), loud)


def text_lines(shown: View) -> list[str]:
    """The view as the console's plain text: the title, then each line (a list item indented two spaces)."""
    return [shown.title.text, *(("  " if ln.item else "") + ln.text for ln in shown.lines)]

