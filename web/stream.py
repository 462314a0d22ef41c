"""The roll ledger's CSV written to its reader a page of rows at a time (issue 33): read from the store a bounded
page at a time (`Store.ledger_chunk`), each page made into CSV in a thread and sent before the next is read, so
that the server's memory does not grow with the ledger (built whole in memory, 30 downloads of a 100,000-roll
ledger took the server from 81 MB to 684 MB). The bytes are those of /log export's CSV (`service.ledger`).

Each write of a streamed answer (this one, the live updates') is bounded in time: a reader who takes none of it
is cut off."""

from __future__ import annotations

import asyncio
import csv
import io
from collections.abc import Awaitable, Callable

from aiohttp import web

from data.store import Store
from engine.describe import same
from engine.dice import FacesRecord, RollRecord
from service.ledger import CSV_COLUMNS, csv_rows
from web.guard import Guard

CSV_ROWS = 500  # rolls a page


def csv_bytes(first: int, rolls: list[RollRecord | FacesRecord], head: bool, who: Callable[[str], str] = same) -> bytes:
    """A page of the CSV: its rolls numbered from `first`, after the byte-order mark and the header (`head`)."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\r\n")
    if head:
        out.write("\ufeff")  # (for spreadsheets, as the export writes it)
        writer.writerow(CSV_COLUMNS)
    for number, roll in enumerate(rolls, first):
        writer.writerows(csv_rows(number, roll, who))
    return out.getvalue().encode("utf-8")


async def stream_csv(store: Store, game_id: int, write: Callable[[bytes], Awaitable[None]],
                     who: Callable[[str], str] = same, rows: int = CSV_ROWS) -> int:
    """The game's live ledger (free rolls included) as CSV, given to `write` a page of `rows` rolls at a time (the
    header alone for an empty ledger). Returns how many rolls."""
    after, count = 0, 0
    while True:
        chunk = await store.ledger_chunk(game_id, after, rows)
        if chunk or not count:
            await write(await asyncio.to_thread(csv_bytes, count + 1, [roll for _, roll in chunk], not count, who))
        count += len(chunk)
        if len(chunk) < rows:
            return count
        after = chunk[-1][0]


async def send(request: web.BaseRequest, response: web.StreamResponse, data: bytes, seconds: float,
               guard: Guard | None = None) -> None:
    """One write of a streamed answer; ConnectionResetError, the connection closed, when the reader has taken none
    of it in `seconds` (counted by `guard`)."""
    try:
        async with asyncio.timeout(seconds):
            await response.write(data)
    except TimeoutError:
        if guard is not None:
            guard.note("stalled")
        if request.transport is not None:
            request.transport.abort()
        raise ConnectionResetError("the reader reads nothing") from None
