"""How the store writes values into rows and reads them back: times, JSON, snapshot documents (compressed),
events."""

from __future__ import annotations

import zlib
from datetime import datetime
from typing import Any

import orjson

from engine.events import (
    Event,
)


def _iso(value: datetime) -> str:
    return value.isoformat()


def _json(value: Any) -> str:
    """JSON text of plain values (orjson: a snapshot is written on every command)."""
    return orjson.dumps(value).decode()


# zlib's fastest level, with a 16 KB window (zlib's default 32 KB costs twice the time on a 4 KB document, for
# the same size): a 3.8 KB five-nation snapshot becomes 0.9 KB in about 15 µs. A plain `zlib.decompress` reads it.
SNAPSHOT_LEVEL = 1
SNAPSHOT_WBITS = 14


def pack_snapshot(document: dict[str, Any]) -> bytes:
    """A snapshot document as it is written (`games.snapshot_z`): zlib-compressed JSON."""
    return zlib.compress(orjson.dumps(document), SNAPSHOT_LEVEL, SNAPSHOT_WBITS)


def snapshot_document(text: str | bytes | None, packed: bytes | memoryview | None) -> dict[str, Any]:
    """A snapshot document from its row, either form: `snapshot_z` (compressed) when there is one, else the JSON
    text of `snapshot` (a row not written since migration 015). Every read of a snapshot goes through here."""
    if packed is not None:
        return orjson.loads(zlib.decompress(packed))
    if text is None:
        raise ValueError("the game has no snapshot")
    return orjson.loads(text)


def event_json(event: Event) -> str:
    """The logged text of an event: `_json(event_to_dict(event))`, written by orjson straight from the
    dataclass (datetimes as ISO 8601, keys as text) instead of walking it in Python first."""
    body = orjson.dumps(event, option=orjson.OPT_NON_STR_KEYS)
    head = b'{"kind":' + orjson.dumps(event.kind)
    return (head + (b"," + body[1:] if body != b"{}" else b"}")).decode()
