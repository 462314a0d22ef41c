"""What a game's page shows, as HTML fragments for its template: a rule set's views (`engine.view`), the roll ledger,
the story of a turn, the turn clock — every name and word escaped here or by the template (Jinja2, autoescaping
on), moments as `<time datetime="…">` elements reading as UTC until the page's script shows them in the reader's
time zone, and, on Discord (`names` given), every player shown by name: a bare user id anywhere in the engine's
words becomes the player's name, so no id reaches the page.

Nothing here names a rule set: each game's rule set is found through the registry (`engine.rulesets`).
"""

from __future__ import annotations

import functools
import re
import secrets
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

import orjson
from markupsafe import Markup, escape

from data.store import LedgerFilter
from engine.describe import faces_line, roll_line, utc_text
from engine.dice import FacesRecord, RollRecord
from engine.errors import BadInput, RefereeError
from engine.history import MAX_TURN
from engine.rulesets import GameState, RuleSet
from engine.view import At, Grid, Line, Part, Person, Strong, View
from service.chartstyle import Look
from service.ledger import FREE, MAX_PAGE, MAX_PURPOSE, checked_filter

Names = Callable[[int | None, str], str]

USER_ID = re.compile(r"(?<![\w@])\d{15,21}(?![\w])")  # a bare Discord user id (on Discord players are their ids)
_NONCE = secrets.token_hex(6)  # the engine's words are marked with it: no name can forge a mark
STRONG_OPEN, STRONG_CLOSE = f"\ue000{_NONCE}", f"\ue001{_NONCE}"
TIME_OPEN, TIME_CLOSE = f"\ue002{_NONCE}", f"\ue003{_NONCE}"
_MARKS = re.compile(f"{STRONG_OPEN}|{STRONG_CLOSE}|{TIME_OPEN}([0-9TZ:+-]+){TIME_CLOSE}")

LEDGER_ROWS = 25  # rolls a page of the ledger shows (the most /log rolls shows)
STORY_LINES = 400  # lines of a turn's story shown (the rest: /log game tells it)
STORY_BYTES = 40_000  # … and at most about this much of their HTML (the page stays under 100 KB)
MAX_WHO = 64  # characters of the ledger's side filter
MAX_QUERY = 1000  # characters of a query string
YES, NO = ("1", "on", "true", "yes"), ("0", "off", "false", "no")

# A chart's looks on the page, by the suffix of its file's name, each with the media that asks for it: the browser
# takes the first source that matches (a phone's width, then the reader's light or dark theme).
PHONE = "(max-width: 40rem)"
LIGHT_READER = "(prefers-color-scheme: light)"
CHART_LOOKS: dict[str, tuple[Look, str | None]] = {
    "-narrow-light": (Look("light", narrow=True), f"{PHONE} and {LIGHT_READER}"),
    "-narrow": (Look("dark", narrow=True), PHONE),
    "-light": (Look("light"), LIGHT_READER),
    "": (Look("dark"), None),
}


@dataclass(frozen=True)
class ChartSource:
    src: str
    media: str | None


def chart_sources(base: str, version: str) -> list[ChartSource]:
    """A chart's `<picture>` sources for the page, the fallback (dark, wide: Discord's look) last."""
    return [ChartSource(f"{base}{suffix}.svg?v={version}", media) for suffix, (_, media) in CHART_LOOKS.items()]


def chart_look(name: str, charts: tuple[str, ...]) -> tuple[str, Look] | None:
    """The chart and its look that a file's name asks for (`game-narrow-light`), or None when it names none."""
    for suffix, (look, _) in CHART_LOOKS.items():
        if name.endswith(suffix) and name[:len(name) - len(suffix)] in charts:
            return name[:len(name) - len(suffix)], look
    return None


def iso(moment: datetime) -> str:
    """A moment as the `datetime` of a `<time>` element: UTC, to the second."""
    moment = moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment.astimezone(UTC)
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


def time_html(moment: datetime, element_id: str | None = None) -> Markup:
    """`<time datetime="2030-01-01T12:00:00Z">2030-01-01 12:00 UTC</time>` (the script shows it in local time)."""
    moment = moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment.astimezone(UTC)
    if element_id is not None:
        return Markup(f'<time id="{escape(element_id)}" datetime="{iso(moment)}">{utc_text(moment)}</time>')
    return Markup(_iso_time_html(iso(moment)))


@functools.lru_cache(maxsize=4096)
def _iso_time_html(stamp: str) -> str:
    """`time_html` of an `iso` stamp (digits only: nothing to escape); a page repeats its moments (a story's
    actions, the ledger's rolls), so each is written once."""
    moment = datetime.fromisoformat(stamp.replace("Z", "+00:00"))
    return f'<time datetime="{stamp}">{utc_text(moment)}</time>'


def time_mark(moment: datetime) -> str:
    """A moment marked in the engine's words (a `when` for `story_lines`): a `<time>` once `marked`."""
    return f"{TIME_OPEN}{iso(moment)}{TIME_CLOSE}"


def strong_mark(text: str) -> str:
    """A part of the engine's words marked strong (a `strong` for `roll_line`): `<strong>` once `marked`."""
    return f"{STRONG_OPEN}{text}{STRONG_CLOSE}"


@dataclass(frozen=True)
class Namer:
    """How players are shown: `names(guild_id, who)` (Discord: a member's name), or as stored (None: the console)."""

    names: Names | None = None
    guild_id: int | None = None

    def person(self, who: str) -> str:
        if self.names is None or not who:
            return who
        try:
            return str(self.names(self.guild_id, who))
        except Exception:  # a name that cannot be found is never a reason for the page to fail
            return f"player …{who[-4:]}" if who.isdigit() else who

    def text(self, words: str) -> str:
        """The engine's words with each bare user id shown as its player's name."""
        if self.names is None:
            return words
        return USER_ID.sub(lambda m: self.person(m.group()), words)


def marked(words: str, namer: Namer) -> Markup:
    """The engine's words as HTML: players by name, everything escaped, then its marks as `<strong>` and `<time>`."""
    text = str(escape(namer.text(words)))

    def mark(match: re.Match[str]) -> str:
        if match.group(1) is not None:
            return _iso_time_html(match.group(1))
        return "<strong>" if match.group(0) == STRONG_OPEN else "</strong>"

    return Markup(_MARKS.sub(mark, text))


def part_html(part: Part, namer: Namer) -> Markup:
    if isinstance(part, Strong):
        return Markup("<strong>{}</strong>").format(namer.text(part.text))
    if isinstance(part, At):
        return time_html(part.moment)
    if isinstance(part, Person):
        return escape(namer.person(part.who))
    return escape(namer.text(part))


def line_html(shown: Line, namer: Namer) -> Markup:
    return Markup("").join(part_html(part, namer) for part in shown.parts)


# --- views ---------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Block:
    """Lines laid out one way: "p" (paragraphs), "ul" (a list's items) or "pre" (a stat block's rows)."""

    kind: str
    lines: list[Markup]


@dataclass(frozen=True)
class ShownGrid:
    """A section's table: its headers and rows as HTML, and which columns hold numbers."""

    headers: list[Markup]
    rows: list[list[Markup]]
    numeric: frozenset[int]


@dataclass(frozen=True)
class ShownSection:
    heading: Markup | None
    blocks: list[Block]
    grid: ShownGrid | None = None


@dataclass(frozen=True)
class ShownView:
    title: Markup
    sections: list[ShownSection]
    loud: bool = False


def blocks_of(lines: tuple[Line, ...], namer: Namer) -> list[Block]:
    """Runs of lines of one kind: a stat block's rows in one monospaced block, list items in one list."""
    found: list[Block] = []
    for shown in lines:
        kind = "pre" if shown.table else "ul" if shown.item else "p"
        if not found or found[-1].kind != kind:
            found.append(Block(kind, []))
        found[-1].lines.append(line_html(shown, namer))
    return found


def grid_html(grid: Grid | None, namer: Namer) -> ShownGrid | None:
    if grid is None:
        return None
    return ShownGrid([escape(h) for h in grid.headers],
                     [[part_html(cell, namer) for cell in row] for row in grid.rows], grid.numeric)


def view_html(shown: View, namer: Namer) -> ShownView:
    """A view as HTML: a section with a grid shows it as a table (its lines say the same, for the other front-ends)."""
    sections = [ShownSection(line_html(s.head, namer) if s.head is not None else None,
                             [] if s.grid is not None else blocks_of(s.lines, namer), grid_html(s.grid, namer))
                for s in shown.sections]
    return ShownView(line_html(shown.title, namer), sections, shown.loud)


# --- the query: the ledger's filters and page, the story's turn ----------------------------------------------


@dataclass(frozen=True)
class Query:
    """A page's query parameters, checked for their form (what the game allows is checked by `ledger_filter`)."""

    who: str | None = None
    purpose: str | None = None
    turn_from: int | None = None
    turn_to: int | None = None
    gm_entered: bool = False
    free: str = "include"
    page: int = 1
    turn: int | None = None

    def key(self) -> tuple[Any, ...]:
        return (self.who, self.purpose, self.turn_from, self.turn_to, self.gm_entered, self.free, self.page,
                self.turn)

    def params(self, **changed: Any) -> dict[str, str]:
        """The query as parameters (defaults left out), with `changed` ones changed: for links."""
        values = {"who": self.who, "purpose": self.purpose, "turn_from": self.turn_from, "turn_to": self.turn_to,
                  "gm_entered": "1" if self.gm_entered else None, "free": None if self.free == "include" else self.free,
                  "page": None if self.page == 1 else self.page, "turn": self.turn}
        values.update(changed)
        if values["page"] in (1, "1"):
            values["page"] = None
        return {k: str(v) for k, v in values.items() if v is not None and v != ""}

    @property
    def filtered(self) -> bool:
        return (self.who, self.purpose, self.turn_from, self.turn_to, self.gm_entered, self.free) != \
            (None, None, None, None, False, "include")


def _number(name: str, text: str, top: int) -> int:
    if not (text.isascii() and text.isdigit() and len(text) <= len(str(top))) or not 1 <= int(text) <= top:
        raise BadInput(f"{name}: a whole number from 1 to {top}")
    return int(text)


def parse_query(raw: Mapping[str, str], query_string: str = "") -> Query:
    """The page's query parameters, each checked for its form and bounds (BadInput in one line); unknown ones and
    empty ones (a form's blank fields) are ignored."""
    if len(query_string) > MAX_QUERY:
        raise BadInput(f"the query is too long (at most {MAX_QUERY} characters)")

    def given(name: str) -> str | None:
        value = raw.get(name)
        if value is None:
            return None
        value = " ".join(value.split())
        return value or None

    who, purpose = given("who"), given("purpose")
    if who is not None and len(who) > MAX_WHO:
        raise BadInput(f"who: at most {MAX_WHO} characters")
    if purpose is not None and len(purpose) > MAX_PURPOSE:
        raise BadInput(f"purpose: at most {MAX_PURPOSE} characters (a part of the purpose will do)")
    numbers: dict[str, int | None] = {}
    for name, top in (("turn_from", MAX_TURN), ("turn_to", MAX_TURN), ("turn", MAX_TURN), ("page", MAX_PAGE)):
        text = given(name)
        numbers[name] = None if text is None else _number(name, text, top)
    gm = (given("gm_entered") or "0").lower()
    if gm not in YES + NO:
        raise BadInput("gm_entered: 1 or 0")
    free = (given("free") or "include").lower()
    if free not in FREE:
        raise BadInput(f"free: one of {', '.join(FREE)}")
    return Query(who, purpose, numbers["turn_from"], numbers["turn_to"], gm in YES, free, numbers["page"] or 1,
                 numbers["turn"])


def known_players(state: GameState, found: RuleSet[Any], namer: Namer) -> dict[str, str]:
    """On Discord: each player id the game holds → the player's shown name (what a reader types in the filter)."""
    if namer.names is None:
        return {}
    text = orjson.dumps(found.state_to_dict(state)).decode()
    return {who: namer.person(who) for who in dict.fromkeys(USER_ID.findall(text))}


def ledger_filter(state: GameState, found: RuleSet[Any], query: Query, namer: Namer) -> LedgerFilter:
    """The query's ledger filters checked against the game, as /log rolls checks its options: the side by its shown
    name or found by its rule set (a start will do), turns the game has had, from before to."""
    who = query.who
    if who is not None:
        shown = {name.casefold(): stored for stored, name in known_players(state, found, namer).items()}
        if who.casefold() in shown:
            who = shown[who.casefold()]
        elif found.find_side is not None:
            try:
                who = found.find_side(state, who)
            except RefereeError as err:
                raise BadInput(namer.text(str(err))) from None
    return checked_filter(state, who, query.purpose, query.turn_from, query.turn_to, query.gm_entered, query.free)


# --- the ledger and the story ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class LedgerRow:
    turn: int
    at: Markup
    line: Markup


def ledger_row(roll: RollRecord | FacesRecord, namer: Namer) -> LedgerRow:
    if isinstance(roll, FacesRecord):
        words = faces_line(roll, namer.person)
    else:
        words = roll_line(roll, strong_mark)  # a free /roll row too
    at = time_html(roll.at) if roll.at.year > 2000 else Markup("")
    return LedgerRow(int(roll.turn or 0), at, marked(words, namer))


@dataclass
class StoryEntry:
    head: Markup
    events: list[Markup] = field(default_factory=list)


def story_entries(lines: list[str], namer: Namer, limit: int = STORY_LINES,
                  budget: int = STORY_BYTES) -> tuple[list[StoryEntry], int]:
    """A turn's story (`story_lines` without its head) as entries, each an action (when, who, the command) with
    its events under it; at most `limit` lines and about `budget` characters of HTML, and how many lines were
    left out."""
    entries: list[StoryEntry] = []
    size = 0
    for count, text in enumerate(lines[:limit]):
        if size > budget:
            return entries, len(lines) - count
        if text.startswith("  ") and entries:
            shown = marked(text[2:], namer)
            entries[-1].events.append(shown)
        else:
            shown = marked(text, namer)
            entries.append(StoryEntry(shown))
        size += len(shown) + 10
    return entries, max(0, len(lines) - limit)
