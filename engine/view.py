"""A view as structured text: what a query shows (a status, a nation, a party, a system sheet, a battle),
written once by its rule set and laid out by each front-end — the console as text, markdown or BBCode,
Discord as embeds, the game's page as HTML.

A view is a title and sections; a section is an optional heading and lines; a line is parts, some of
them marked `Strong` (a roll's total, a verdict, an alarm), and may be an item of a list under the line
before it, or a row of a stat block whose columns a front-end keeps. No front-end adds emphasis to finished
text: what is strong is said here.

A view also carries how it is best laid out, for the front-ends that can (`View.loud`, `View.colour`):
hints, never words. The console reads a section's heading as a line of its own, so a view
prints the same wherever its lines are cut into sections.
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


PERSON_MARK = "\x1f"
"""Around a player's name in words written by a `who` that marks them (`marking_who`), for `with_people`."""
STRONG_MARK = "\x1e"
"""Around a strong part of words written by a `bold` that marks it (`marking_strong`), for `with_people`."""


def marking_who(player: str) -> str:
    """A `who` for words written as text (`engine.describe`'s): the player marked, to be made a `Person`."""
    return f"{PERSON_MARK}{player}{PERSON_MARK}"


def marking_strong(text: str) -> str:
    """A `bold` for words written as text: the part marked, to be made `Strong`."""
    return f"{STRONG_MARK}{text}{STRONG_MARK}"


def with_people(text: str, item: bool = False) -> Line:
    """A line from text written with `marking_who` (and `marking_strong`): each marked player a `Person` part, each
    marked part `Strong` (two leading spaces: a list item, as `lines_of` reads them)."""
    if text.startswith("  "):
        text, item = text[2:], True
    parts: list[Part] = []
    for i, piece in enumerate(text.split(STRONG_MARK)):
        for j, word in enumerate(piece.split(PERSON_MARK)):
            parts.append(Person(word) if j % 2 else Strong(word) if i % 2 and word else word)
    return line(*parts, item=item)


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
class Grid:
    """Rows of the same columns (a game's standings), one a line of its section: a front-end that draws tables
    (the page) shows them as a table under `headers`, right-aligning the `numeric` columns; the others show the
    section's lines."""

    headers: tuple[str, ...]
    rows: tuple[tuple[Part, ...], ...]
    numeric: frozenset[int] = frozenset()

    def __post_init__(self) -> None:
        if any(len(row) != len(self.headers) for row in self.rows):
            raise ValueError("every row of a grid has a cell for each of its headers")


@dataclass(frozen=True)
class Section:
    """A part of a view: on Discord an embed field when it has a heading, else the embed's text; in the console,
    its heading is a line of its own. `grid`: its lines as a table's rows, for a front-end that draws tables."""

    heading: str | Line | None
    lines: tuple[Line, ...]
    grid: Grid | None = None

    @property
    def head(self) -> Line | None:
        """The heading as a line (None: none)."""
        if self.heading is None or isinstance(self.heading, Line):
            return self.heading
        return Line((self.heading,))


COLOURS = ("neutral", "success", "failure", "gm", "clock", "results")
"""The colours a view may ask for (`View.colour`): what it shows, not a shade."""


@dataclass(frozen=True)
class View:
    """What one query shows. `title` heads it; `sections` follow in order. Layout hints: `loud` (it shows
    something alarming: eliminated, game over), `colour` (one of `COLOURS`: what it is, e.g. "results" for a
    game's final standings)."""

    title: Line
    sections: tuple[Section, ...] = ()
    loud: bool = False
    colour: str | None = None

    def __post_init__(self) -> None:
        if self.colour is not None and self.colour not in COLOURS:
            raise ValueError(f"a view's colour is one of {', '.join(COLOURS)}, not {self.colour!r}")

    @property
    def untitled(self) -> bool:
        """Whether it has no title (its sections' headings are what a front-end shows first)."""
        return not self.title.parts

    @property
    def head(self) -> list[str]:
        """The title's words as a line of text, or nothing when it is untitled."""
        return [] if self.untitled else [self.title.text]

    @property
    def lines(self) -> list[Line]:
        """Every line after the title, headings included as lines of their own."""
        found: list[Line] = []
        for section in self.sections:
            if section.head is not None:
                found.append(section.head)
            found.extend(section.lines)
        return found


def view(title: str | Line | None, *texts: str | Line | Section, loud: bool = False, colour: str | None = None
         ) -> View:
    """A view from lines or plain texts (two leading spaces: a list item) and sections, in order: the lines
    between sections make untitled sections of their own. A view without a title (None) starts with its first
    section (a list whose every entry is a section: each battle, each player)."""
    sections: list[Section] = []
    run: list[Line] = []
    for text in texts:
        if isinstance(text, Section):
            if run:
                sections.append(Section(None, tuple(run)))
                run = []
            sections.append(text)
        else:
            run.append(text if isinstance(text, Line) else lines_of([text])[0])
    if run:
        sections.append(Section(None, tuple(run)))
    head = title if isinstance(title, Line) else Line(()) if title is None else Line((title,))
    return View(head, tuple(sections), loud, colour)


def section(heading: str | Line, *texts: str | Line) -> Section:
    """A titled section from lines or plain texts (two leading spaces: a list item)."""
    return Section(heading, tuple(t if isinstance(t, Line) else lines_of([t])[0] for t in texts))


def text_lines(shown: View) -> list[str]:
    """The view as the console's plain text: the title (an untitled view has none), then each line (a list item
    indented two spaces)."""
    return [*shown.head, *(("  " if ln.item else "") + ln.text for ln in shown.lines)]



def cogm_parts(cogms: Iterable[str]) -> tuple[Part, ...]:
    """A status title's co-GMs after its GM (`; co-GMs: @a, @b`), or nothing when the game has none."""
    names = list(cogms)
    if not names:
        return ()
    parts: list[Part] = ["; co-GM: " if len(names) == 1 else "; co-GMs: "]
    for index, name in enumerate(names):
        parts += [", "] if index else []
        parts.append(Person(name))
    return tuple(parts)
