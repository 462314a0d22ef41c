"""What each step a snapshot goes through in `Store.run_channel` costs a command, on a five-nation game played through
the referee: as the export document (compressed JSON: the form before issue 35) and typed (msgspec, compressed: the
form the store writes now), beside the private copies a parsed-state cache would need (issue 21).

    python -m bench.snapshot [--repeat 2000]
"""

from __future__ import annotations

import argparse
import asyncio
import copy
import shutil
import tempfile
import timeit
from collections.abc import Callable
from pathlib import Path
from typing import Any

import msgspec
import orjson

from bench.build import PRESETS, build_store


def micro(function: Callable[[], Any], repeat: int) -> float:
    """Microseconds a call: the best of three runs of `repeat` calls."""
    return min(timeit.repeat(function, number=repeat, repeat=3)) / repeat * 1e6


async def measure(repeat: int) -> dict[str, float]:
    from data.store import Store, pack_snapshot, snapshot_document
    from data.store.encoding import pack_state, unpack_state
    from engine.rulesets import ruleset

    folder = Path(tempfile.mkdtemp(prefix="bench-snapshot-"))
    try:
        await build_store(folder / "referee.db", ["snapshot"], None, "gm", [f"p{i}" for i in range(len(PRESETS))])
        store = await Store.open(folder / "referee.db")
        try:
            name, text, packed = (await store._fetchall("SELECT ruleset, snapshot, snapshot_z FROM games"))[0]
        finally:
            await store.close()
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    rules = ruleset(name)
    state = unpack_state(rules, text, packed)
    document = rules.state_to_dict(state)
    written = pack_snapshot(document)
    typed = pack_state(rules, state)
    encoder, decoder = msgspec.msgpack.Encoder(), msgspec.msgpack.Decoder(type(state))
    return {
        "json_bytes": len(orjson.dumps(document)), "document_bytes": len(written), "typed_bytes": len(typed),
        "read": micro(lambda: snapshot_document(None, written), repeat),
        "build": micro(lambda: rules.state_from_dict(document), repeat),
        "to_dict": micro(lambda: rules.state_to_dict(state), repeat),
        "pack": micro(lambda: pack_snapshot(document), repeat),
        "typed_load": micro(lambda: unpack_state(rules, None, typed), repeat),
        "typed_write": micro(lambda: pack_state(rules, state), repeat),
        "typed_copy": micro(lambda: decoder.decode(encoder.encode(state)), repeat),
        "deepcopy": micro(lambda: copy.deepcopy(state), max(1, repeat // 10)),
    }


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=2000, help="calls a timing (default 2000)")
    args = parser.parse_args(argv)
    r = asyncio.run(measure(max(1, min(args.repeat, 1_000_000))))
    load, write = r["read"] + r["build"], r["to_dict"] + r["pack"]
    print(f"a five-nation snapshot: {r['json_bytes']:,} bytes of JSON; stored {r['document_bytes']:,} bytes as the "
          f"compressed document, {r['typed_bytes']:,} typed")
    print(f"as the document: load {load:.0f} µs (decompress and parse {r['read']:.0f} + build the state "
          f"{r['build']:.0f}), write {write:.0f} µs (state to document {r['to_dict']:.0f} + JSON and zlib "
          f"{r['pack']:.0f})")
    print(f"typed (what the store writes): load {r['typed_load']:.0f} µs, write {r['typed_write']:.0f} µs: "
          f"{load + write - r['typed_load'] - r['typed_write']:.0f} µs less a command")
    print(f"a private copy for a parsed-state cache: copy.deepcopy {r['deepcopy']:.0f} µs, msgspec encode and "
          f"decode {r['typed_copy']:.0f} µs, against a typed load of {r['typed_load']:.0f} µs")


if __name__ == "__main__":
    main()
