"""The roll ledger for every front-end and rule set: /log rolls' filters and pages, and /log export's CSV and JSON.

A page counts from the newest rolls (page 1: the latest), each page shown oldest first. The export streams: the
ledger is read a bounded chunk at a time (`EXPORT_CHUNK` rows) and each chunk written in a thread, so an export
of 100,000 rolls holds neither the event loop nor much memory.
"""

from __future__ import annotations

import asyncio
import csv
import io
import math
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import IO, TYPE_CHECKING, Any

import orjson

from data.store import LedgerFilter, ReportMessage, Store
from engine.commands import DEFAULT_PAGE_SIZE, MAX_PAGE, MAX_PAGE_SIZE, MAX_PURPOSE
from engine.describe import same
from engine.dice import HIDDEN, FacesRecord, RollRecord
from engine.errors import BadInput
from engine.events import to_jsonable
from engine.rulesets import GameState, ruleset_of

if TYPE_CHECKING:
    from service.referee import Referee

__all__ = ["CSV_COLUMNS", "EXPORT_CHUNK", "FORMATS", "FREE", "MAX_PAGE_SIZE", "MAX_PURPOSE", "LedgerFilter",
           "LedgerPage", "csv_rows", "filter_for", "ledger_page", "write_ledger"]

FREE = ("include", "only", "exclude")
FORMATS = ("csv", "json")
EXPORT_CHUNK = 2000
CSV_COLUMNS = ("roll", "die", "turn", "at", "who", "purpose", "sides", "value", "face", "modifiers", "total",
               "target", "comparison", "success", "gm_entered", "free_roll", "battle", "unit")


@dataclass(frozen=True)
class LedgerPage:
    """One page of the filtered ledger: its rolls (oldest first), its number, how many pages and rolls match, and
    beside each roll the message that announced it, when the front-end recorded one (Discord: a link to it)."""

    rolls: list[RollRecord | FacesRecord]
    page: int
    pages: int
    total: int
    messages: list[ReportMessage | None] = field(default_factory=list)


def filtered(where: LedgerFilter) -> bool:
    return where != LedgerFilter()


async def filter_for(referee: Referee, channel: str, *, who: str | None = None, purpose: str | None = None,
                     turn_from: int | None = None, turn_to: int | None = None, gm_entered: bool = False,
                     free: str | None = None) -> tuple[int, LedgerFilter]:
    """The channel's shown game and /log rolls' filters, checked (`checked_filter`)."""
    game_id = await referee.shown_game_id(channel)
    state = await referee.store.load(game_id)
    if who:
        find = ruleset_of(state).find_side
        who = find(state, who) if find is not None else who
    return game_id, checked_filter(state, who, purpose, turn_from, turn_to, gm_entered, free)


def checked_filter(state: GameState, who: str | None = None, purpose: str | None = None, turn_from: int | None = None,
                   turn_to: int | None = None, gm_entered: bool = False, free: str | None = None) -> LedgerFilter:
    """/log rolls' filters checked against the game (the side `who` found already, as stored): a bounded purpose,
    turns the game has had, from before to, a known free-roll choice. BadInput in one line otherwise (the game's
    page checks its query with it too)."""
    purpose = " ".join(str(purpose).split()) if purpose else None
    if purpose and len(purpose) > MAX_PURPOSE:
        raise BadInput(f"purpose: at most {MAX_PURPOSE} characters (a part of the purpose will do)")
    last = max(int(getattr(state, "turn", 0) or 0), 1)
    for name, turn in (("turn_from", turn_from), ("turn_to", turn_to)):
        if turn is not None and not 1 <= turn <= last:
            raise BadInput(f"{name}: turn {turn} does not exist: this game's turns are 1 to {last}")
    if turn_from is not None and turn_to is not None and turn_from > turn_to:
        raise BadInput(f"turn_from {turn_from} is after turn_to {turn_to}")
    free = free or "include"
    if free not in FREE:
        raise BadInput(f"free is one of {', '.join(FREE)}, not {free}")
    return LedgerFilter(who or None, purpose or None, turn_from, turn_to, bool(gm_entered), free)


async def ledger_page(store: Store, game_id: int, where: LedgerFilter, page: int = 1,
                      size: int = DEFAULT_PAGE_SIZE) -> LedgerPage:
    """One page of the game's filtered ledger (page 1: the newest `size` rolls). A page past the end is refused
    in one line; no roll at all is an empty page 1 (the front-end says whether filters matched nothing)."""
    if not 1 <= size <= MAX_PAGE_SIZE:
        raise BadInput(f"limit is how many rolls a page shows: 1 to {MAX_PAGE_SIZE}, not {size}")
    if not 1 <= page <= MAX_PAGE:
        raise BadInput(f"page is 1 or more (at most {MAX_PAGE}), not {page}")
    found, total = await store.ledger_page(game_id, where, (page - 1) * size, size)
    pages = max(1, math.ceil(total / size))
    if page > pages:
        raise BadInput(f"page {page} is past the end: {'there is 1 page' if pages == 1 else f'there are {pages} pages'}"
                       f" of {total} roll{'' if total == 1 else 's'}")
    return LedgerPage([roll for roll, _ in found], page, pages, total, [message for _, message in found])


def empty_text(where: LedgerFilter) -> str:
    return "No rolls match those filters." if filtered(where) else "No rolls yet."


# --- the export -----------------------------------------------------------------------------------------


def _cell(value: Any) -> Any:
    """A text cell a spreadsheet shows as text (never a formula: a leading = + - @ gets a quote)."""
    if isinstance(value, str) and value[:1] in ("=", "+", "-", "@", "\t", "\r"):
        return "'" + value
    return value


def _moment(at: datetime) -> str:
    return "" if at.year <= 2000 else at.isoformat()


def csv_rows(number: int, roll: RollRecord | FacesRecord, who: Callable[[str], str] = same) -> list[list[Any]]:
    """The CSV rows of one roll, one a die (`CSV_COLUMNS`): God Dice's faces a row each; a free roll one row, its
    dice in `free_roll`. Booleans as true/false, nothing as an empty cell. `who`: how a player or side is written
    (the game's page: a Discord id as the player's name)."""
    def flag(value: bool | None) -> str:
        return "" if value is None else str(bool(value)).lower()

    if isinstance(roll, FacesRecord):
        return [[number, index, roll.turn, _moment(roll.at), _cell(who(roll.player or "")), _cell(roll.purpose), "", "",
                 _cell(face), "", "", "", "", "", flag(forced), "", "", ""]
                for index, (face, forced) in enumerate(zip(roll.faces, roll.forced, strict=False), 1)]
    modifiers = "; ".join(f"{name} {value:+d}" for name, value in roll.modifiers.items())
    free = roll.free is not None
    return [[number, 1, roll.turn, _moment(roll.at), _cell(who(roll.nation or "")), _cell(roll.purpose),
             "" if free else roll.sides, "" if free else roll.die, "", _cell(modifiers),
             "" if roll.free == HIDDEN else roll.total,
             "" if roll.target is None else roll.target, roll.comparison or "", flag(roll.success),
             flag(roll.forced), _cell(roll.free or ""), "" if roll.battle is None else roll.battle,
             "" if roll.unit is None else roll.unit]]


def _json_roll(roll: RollRecord | FacesRecord) -> dict[str, Any]:
    item = to_jsonable(roll)
    item["kind"] = "faces" if isinstance(roll, FacesRecord) else "free" if roll.free is not None else "die"
    item["at"] = _moment(roll.at) or None
    if isinstance(roll, RollRecord) and roll.free == HIDDEN:  # a secret roll: no die, no total to show
        item["die"] = item["total"] = None
    return item


def _csv_chunk(first: int, rolls: list[RollRecord | FacesRecord], head: bool,
               who: Callable[[str], str] = same) -> bytes:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\r\n")
    if head:
        writer.writerow(CSV_COLUMNS)
    for number, roll in enumerate(rolls, first):
        writer.writerows(csv_rows(number, roll, who))
    return out.getvalue().encode("utf-8-sig" if head else "utf-8")


def _json_chunk(rolls: list[RollRecord | FacesRecord], first: bool) -> bytes:
    """The chunk's rolls as JSON items, one a line, each written out as it is made: orjson's result keeps a buffer
    of about 4 KiB however short its text, so 5,000 results held until a join cost ~20 MiB."""
    out = io.BytesIO()
    separator = b"" if first else b",\n"
    for roll in rolls:
        out.write(separator)
        out.write(orjson.dumps(_json_roll(roll)))
        separator = b",\n"
    return out.getvalue()


def _write_chunk(handle: IO[bytes], make: Any, *args: Any) -> None:
    """Make a chunk's bytes and write them: one thread hop a chunk."""
    handle.write(make(*args))


async def write_ledger(store: Store, game_id: int, fmt: str, handle: IO[bytes],
                       who: Callable[[str], str] = same) -> int:
    """Write the game's whole live ledger (free rolls included) to `handle` as CSV (one row a die, a header of
    named columns, UTF-8 with a BOM for spreadsheets) or JSON (`{"game", "ruleset", "rolls": [...]}`), a chunk
    at a time, each written in a thread. Returns how many rolls. `who` (CSV): how a player or side is written."""
    if fmt not in FORMATS:
        raise BadInput(f"format is csv or json, not {fmt}")
    state = await store.load(game_id)
    if fmt == "json":
        head = orjson.dumps({"game": game_id, "ruleset": state.ruleset})[:-1] + b', "rolls": [\n'
        await asyncio.to_thread(handle.write, head)
    after, count = 0, 0
    while True:
        chunk = await store.ledger_chunk(game_id, after, EXPORT_CHUNK)
        if not chunk and count:
            break
        rolls = [roll for _, roll in chunk]
        if fmt == "csv":
            await asyncio.to_thread(_write_chunk, handle, _csv_chunk, count + 1, rolls, count == 0 and after == 0,
                                    who)
        else:
            await asyncio.to_thread(_write_chunk, handle, _json_chunk, rolls, count == 0)
        if not chunk:
            break
        after, count = chunk[-1][0], count + len(chunk)
    if fmt == "json":
        await asyncio.to_thread(handle.write, b"\n]}\n")
    return count
