"""How the store writes values into rows and reads them back: times, JSON, snapshots (typed or as documents, both
compressed), events."""

from __future__ import annotations

import dataclasses
import hashlib
import os
import typing
import zlib
from datetime import datetime
from typing import Any

import msgspec
import orjson

from engine.events import (
    Event,
)
from engine.rulesets import RULESETS, RuleSet


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
    """A snapshot document (the export format) from its row, any form: `snapshot_z` when there is one (typed, or a
    compressed document), else the JSON text of `snapshot` (a row not written since migration 015)."""
    if packed is not None and is_typed(packed):
        rules, state = _typed_state(packed)
        return rules.state_to_dict(state)
    if packed is not None:
        return orjson.loads(zlib.decompress(packed))
    if text is None:
        raise ValueError("the game has no snapshot")
    return orjson.loads(text)


# --- typed snapshots --------------------------------------------------------------------------------------------

TYPED = b"\x00"
"""The first byte of a typed snapshot in `snapshot_z` (a compressed document's, zlib's, is never 0). Then the state
class's fingerprint (`FINGERPRINT_SIZE` bytes), then the state encoded with msgspec's MessagePack, compressed."""
FINGERPRINT_SIZE = 8
_BODY = 1 + FINGERPRINT_SIZE  # where the encoded state starts
CHECK_TYPED = "REFEREE_CHECK_SNAPSHOTS"
"""When set (the tests set it), every typed snapshot written is checked against the export format's round trip: what
the next load gives must equal `state_from_dict(state_to_dict(state))`, the state the export format would give."""


class StaleSnapshot(ValueError):
    """A typed snapshot written by a version of the referee whose state class was shaped otherwise (or by a rule set
    not installed): the store rebuilds the state from the game's log instead."""


@dataclasses.dataclass(frozen=True)
class _Codec:
    rules: RuleSet[Any]
    fingerprint: bytes
    encoder: msgspec.msgpack.Encoder
    decoder: msgspec.msgpack.Decoder[Any]


def is_typed(packed: bytes | memoryview) -> bool:
    """Whether a `snapshot_z` value is a typed snapshot (else a compressed document)."""
    return bool(packed[:1] == TYPED)


def pack_state(rules: RuleSet[Any], state: Any) -> bytes:
    """A game's state as `snapshot_z` keeps it: typed when its rule set names its state's class (`RuleSet.state_class`:
    what of it is kept is `RuleSet.saved_state`; ~35 µs against ~70 for the document of a five-nation game), else
    its document, compressed (`pack_snapshot`)."""
    codec = _codec(rules)
    if codec is None or type(state) is not rules.state_class:
        return pack_snapshot(rules.state_to_dict(state))
    packed = TYPED + codec.fingerprint + zlib.compress(codec.encoder.encode(rules.saved_state(state)), SNAPSHOT_LEVEL,
                                                       SNAPSHOT_WBITS)
    if os.environ.get(CHECK_TYPED):
        _check_typed(rules, state, packed)
    return packed


def unpack_state(rules: RuleSet[Any], text: str | bytes | None, packed: bytes | memoryview | None) -> Any:
    """A game's state from its row's snapshot, any form (`StaleSnapshot`: a typed one this version cannot read)."""
    if packed is not None and is_typed(packed):
        codec = _codec(rules)
        if codec is None or packed[1:_BODY] != codec.fingerprint:
            raise StaleSnapshot(f"the {rules.name} snapshot was written by a version of the referee whose game state is"
                                " shaped otherwise")
        return codec.decoder.decode(zlib.decompress(packed[_BODY:]))
    return rules.state_from_dict(snapshot_document(text, packed))


def _typed_state(packed: bytes | memoryview) -> tuple[RuleSet[Any], Any]:
    """A typed snapshot's rule set (found by its fingerprint) and state."""
    codec = _by_fingerprint(bytes(packed[1:_BODY]))
    if codec is None:
        raise StaleSnapshot("the snapshot was written by a version of the referee whose game state is shaped otherwise")
    return codec.rules, codec.decoder.decode(zlib.decompress(packed[_BODY:]))


def _check_typed(rules: RuleSet[Any], state: Any, packed: bytes) -> None:
    loaded = unpack_state(rules, None, packed)
    expected = rules.state_from_dict(rules.state_to_dict(state))
    if loaded != expected:
        differ = [f.name for f in dataclasses.fields(expected) if getattr(loaded, f.name) != getattr(expected, f.name)]
        raise AssertionError(f"a typed {rules.name} snapshot loads otherwise than its document would: {differ}")


_CODECS: dict[int, _Codec] = {}  # by the id of its rule set (which the codec holds)
_BY_FINGERPRINT: dict[bytes, _Codec] = {}


def _codec(rules: RuleSet[Any]) -> _Codec | None:
    """The rule set's typed-snapshot codec (None: its snapshots are documents), made once."""
    codec = _CODECS.get(id(rules))
    if codec is None and rules.state_class is not None:
        codec = _Codec(rules, fingerprint(rules.state_class), msgspec.msgpack.Encoder(),
                       msgspec.msgpack.Decoder(rules.state_class))
        _CODECS[id(rules)] = _BY_FINGERPRINT[codec.fingerprint] = codec
    return codec


def _by_fingerprint(mark: bytes) -> _Codec | None:
    """The codec of the installed rule set whose state class has this fingerprint, if any."""
    codec = _BY_FINGERPRINT.get(mark)
    if codec is None or RULESETS.get(codec.rules.name) is not codec.rules:
        codec = next((made for made in map(_codec, RULESETS.values()) if made and made.fingerprint == mark), None)
    return codec


def fingerprint(state_class: type) -> bytes:
    """What a typed snapshot is checked against: a hash of the state class's shape (every dataclass it holds: its
    fields' names and types, in order). A change to any of them makes older typed snapshots stale."""
    return hashlib.sha256(f"msgpack 1 {_shape(state_class, set())}".encode()).digest()[:FINGERPRINT_SIZE]


def _shape(kind: Any, seen: set[type]) -> str:
    if isinstance(kind, type) and dataclasses.is_dataclass(kind):
        name = f"{kind.__module__}.{kind.__qualname__}"
        if kind in seen:
            return name
        seen.add(kind)
        hints = typing.get_type_hints(kind)
        return name + "(" + ",".join(f"{f.name}:{_shape(hints[f.name], seen)}" for f in dataclasses.fields(kind)) + ")"
    args = typing.get_args(kind)
    if args:
        return f"{_shape(typing.get_origin(kind), seen)}[{','.join(_shape(arg, seen) for arg in args)}]"
    return f"{getattr(kind, '__module__', '')}.{getattr(kind, '__qualname__', repr(kind))}"


def event_json(event: Event) -> str:
    """The logged text of an event: `_json(event_to_dict(event))`, written by orjson straight from the
    dataclass (datetimes as ISO 8601, keys as text) instead of walking it in Python first."""
    body = orjson.dumps(event, option=orjson.OPT_NON_STR_KEYS)
    head = b'{"kind":' + orjson.dumps(event.kind)
    return (head + (b"," + body[1:] if body != b"{}" else b"}")).decode()
