"""What a parsed-state cache could save a command (issue 21): the cost of each step a snapshot goes through in
`Store.run_channel`, on a five-nation game played through the referee, beside the copies a safe cache would need.

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

import orjson

from bench.build import PRESETS, build_store


def micro(function: Callable[[], Any], repeat: int) -> float:
    """Microseconds a call: the best of three runs of `repeat` calls."""
    return min(timeit.repeat(function, number=repeat, repeat=3)) / repeat * 1e6


async def measure(repeat: int) -> dict[str, float]:
    from data.store import Store, pack_snapshot, snapshot_document
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
    document = snapshot_document(text, packed)
    state = rules.state_from_dict(document)
    written = rules.state_to_dict(state)
    return {
        "stored_bytes": len(packed), "json_bytes": len(orjson.dumps(document)),
        "read": micro(lambda: snapshot_document(text, packed), repeat),
        "build": micro(lambda: rules.state_from_dict(document), repeat),
        "to_dict": micro(lambda: rules.state_to_dict(state), repeat),
        "pack": micro(lambda: pack_snapshot(written), repeat),
        "deepcopy": micro(lambda: copy.deepcopy(state), max(1, repeat // 10)),
    }


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=2000, help="calls a timing (default 2000)")
    args = parser.parse_args(argv)
    r = asyncio.run(measure(max(1, min(args.repeat, 1_000_000))))
    saved = r["read"] + r["build"]
    print(f"a five-nation snapshot: {r['json_bytes']:,} bytes of JSON, {r['stored_bytes']:,} stored (zlib)")
    print(f"load: decompress and parse {r['read']:.0f} µs + build the state {r['build']:.0f} µs = {saved:.0f} µs "
          "(what a cache hit saves)")
    print(f"write: state to document {r['to_dict']:.0f} µs + JSON and zlib {r['pack']:.0f} µs "
          f"= {r['to_dict'] + r['pack']:.0f} µs (a cache saves none of it)")
    print(f"a private copy for the cache: copy.deepcopy {r['deepcopy']:.0f} µs, rebuilt from the written document "
          f"{r['build']:.0f} µs: a safe hit saves at most {saved - r['build']:.0f} µs")


if __name__ == "__main__":
    main()
