"""The kill -9 tests of every write path (tests/data/test_crash_paths.py): the games and commands the test and its
child process share, the child process itself, and what the test reads back. Not a test module.

    python tests/support/crashpaths.py TARGET SCENARIO --now ISO --commit N --when before|after [--rooms a,b,…]

The child opens `Store.open(TARGET)` (a SQLite file or a `postgresql://` URL the test has set up), prints `ready`
(on PostgreSQL first `backend <pid>`, its server process), then runs SCENARIO on a `Referee` with forced dice and a
clock stopped at `--now`:

- `command`: alice's /economy military (one die, a 9) in the first room, with its idempotency key;
- `group`: the same in every room at once: the first commits alone, the others arrive meanwhile and are committed
  together as one group (it prints `group <size>` as each group starts);
- `rollover`: the clock's catch-up of every due game, `BATCH` games a transaction (it prints `batch <ids>` as
  each batch is answered);
- `link`: the command in the first room, then the message that announced it noted (`note_report_message`: a
  deferred row, `LINK`), then the command in the second room, whose transaction carries that row;
- `link-alone`: the command in the first room, the message noted, then the deferred row's transaction of its own
  (`flush_deferred`).

It is stopped at its N-th COMMIT (counted from 1): `before` arms the store's own hook (REFEREE_TEST_PAUSE_BEFORE_COMMIT)
just before that transaction, which prints "store: pausing before commit" and waits inside it; `after` lets the COMMIT
happen, then prints "store: pausing after commit" and waits before anything is answered. The test kills it there.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import queue
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Sequence
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
SUPPORT = Path(__file__).resolve().parent
for folder in (SUPPORT, REPO):
    if str(folder) not in sys.path:
        sys.path.insert(0, str(folder))

from storehelpers import RULES, T0, FakeClock, read_lines, state_to_dict, wait_for  # noqa: E402

import data.store.connection as connection  # noqa: E402
from data.store import PAUSE_BEFORE_COMMIT, Store  # noqa: E402
from engine.dice import ForcedRoller  # noqa: E402
from engine.events import Event, event_to_dict, to_jsonable  # noqa: E402
from engine.nations import peace as nat  # noqa: E402
from service.referee import Referee  # noqa: E402

PAUSED_BEFORE = "store: pausing before commit"  # printed by the store's hook (data/store/connection.py)
PAUSED_AFTER = "store: pausing after commit"  # printed by this module's hook
WAIT = 300  # seconds the child waits where it is stopped: the test kills it long before (a safety net if not)
DIE = 9  # the forced die of alice's /economy military: 9 + 1 > 8, a success
BATCH = 200  # games the rollover catches up in one transaction
LINK = (5150, 777)  # the channel and message that announced the first room's command, in the `link` scenarios

# --- the games and commands (run by the child and, for the reference, by the test) ------------------------------


def referee(store: Store, now: datetime) -> Referee:
    """A referee on `store` with no dice waiting (a die rolled without one pushed fails), its clock stopped at `now`."""
    return Referee(store, RULES, ForcedRoller(), FakeClock(now))


def key_of(room: str) -> str:
    """The idempotency key of the command in `room`."""
    return f"crash-{room}"


async def command_games(ref: Referee, rooms: list[str]) -> None:
    """A Nations game in each room, started at T0 (12-hour turns): Gracchan Republic for alice, Charon for bob."""
    assert isinstance(ref.clock, FakeClock)
    ref.clock.set(T0)
    for room in rooms:
        await ref.start_game(room, "gm")
        await ref.act(room, "gm", nat.ClaimPreset("Gracchan Republic", "alice"), '/nation claim "Gracchan Republic"')
        await ref.act(room, "gm", nat.ClaimPreset("Charon", "bob"), "/nation claim Charon")


async def grow(ref: Referee, rooms: list[str]) -> None:
    """alice's /economy military in each room at once, each with its key and its die."""
    assert isinstance(ref.roller, ForcedRoller)
    ref.roller.push(*[DIE] * len(rooms))
    await asyncio.gather(*(ref.act(room, "alice", nat.GrowMilitary(), "/economy military", key=key_of(room))
                           for room in rooms))


ROLLOVER_NOW = T0 + timedelta(hours=19, minutes=20)
"""When the rollover runs: every game of `rollover_games` has a turn end due, and nothing else."""


def rollover_turns(index: int) -> float:
    """The turn length of the rollover's game number `index`: every 10th has 6-hour turns."""
    return 6.0 if index % 10 == 5 else 12.0


def rollover_start(index: int) -> datetime:
    """When the rollover's game number `index` started: a second after the one before, the 6-hour games six hours
    later, so that every game's first turn ends at T0 + 13 h + `index` s (the games' due times interleave), the 12-hour
    games' second at T0 + 25 h (after the rollover: one turn ends, the quick catch-up) and the 6-hour games' second at
    T0 + 19 h (before it: two turns end, the engine's full catch-up)."""
    return T0 + timedelta(hours=13 - rollover_turns(index), seconds=index)


def rollover_ends(index: int) -> list[int]:
    """The turns the rollover ends in the game number `index`."""
    return [1, 2] if rollover_turns(index) == 6.0 else [1]


async def unsynced(store: Store) -> None:
    """Setting up only: this connection's commits not waited onto the disk (the machine does not crash here; a killed
    process loses nothing committed either way)."""
    sql = "SET synchronous_commit TO off" if store.dialect == "postgresql" else "PRAGMA synchronous = OFF"
    await store._read(lambda con: con.execute(sql))


async def rollover_games(ref: Referee, count: int) -> dict[int, int]:
    """`count` Nations games, each alice's Gracchan Republic, every third with her /economy military done this
    turn (the turn end resets it). Returns each game's id with its number."""
    assert isinstance(ref.clock, FakeClock) and isinstance(ref.roller, ForcedRoller)
    numbers = {}
    for index in range(count):
        ref.clock.set(rollover_start(index))
        report = await ref.start_game(f"roll{index}", "gm", turn_hours=rollover_turns(index))
        numbers[report.game_id] = index
    ref.clock.set(T0 + timedelta(hours=12))  # before the first turn end
    rooms = [f"roll{index}" for index in range(count)]
    await asyncio.gather(*(ref.act(room, "gm", nat.ClaimPreset("Gracchan Republic", "alice"), "/nation claim")
                           for room in rooms))
    ref.roller.push(*[DIE] * len(rooms[::3]))
    await asyncio.gather(*(ref.act(room, "alice", nat.GrowMilitary(), "/economy military") for room in rooms[::3]))
    return numbers


# --- what the test reads back: only through the store's public reads -----------------------------------------


async def ledger_of(store: Store, game_id: int, keys: Sequence[str] = ()) -> dict[str, Any]:
    """Everything a game is, read through the store's API, with no row id in it (two databases that did the same
    agree): its state as loaded, its actions, its live events by the action they belong to, its rolls, its next due
    time, and which of its actions each of `keys` answers (None: the key never committed)."""
    actions = list(reversed(await store.actions(game_id, limit=1_000_000)))
    position = {action.id: number for number, action in enumerate(actions)}
    outcomes: dict[str, list[int] | None] = {}
    for key in keys:
        first = await store.first_outcome(key)
        outcomes[key] = None if first is None else [position[i] for i in first[1].action_ids]
    return {
        "state": state_to_dict(await store.load(game_id)),
        "actions": [(a.actor, a.command, a.at.isoformat(), a.undone) for a in actions],
        "events": [(position[e.action_id], event_to_dict(e.event)) for e in await store.events(game_id)],
        "rolls": [to_jsonable(roll) for roll in await store.rolls(game_id)],
        "next_due": (await store.game(game_id)).next_deadline,
        "keys": outcomes,
    }


async def turns_ended(store: Store, game_id: int) -> list[int]:
    """The turns the game's live log says have ended, in order (a turn ended twice is listed twice)."""
    ended: list[int] = []
    for logged in await store.events(game_id):
        if logged.event.kind == "turn_ended":
            last = logged.event.ended  # type: ignore[attr-defined]
            ended += range(last - logged.event.turns + 1, last + 1)  # type: ignore[attr-defined]
    return ended


async def wait_for_backend_gone(store: Store, pid: int, timeout: float = 60) -> None:
    """On PostgreSQL, until the server has ended the killed child's server process (and so rolled back what it held
    and let go of its rows' locks)."""
    deadline = time.monotonic() + timeout
    while (await store._fetchall("SELECT COUNT(*) FROM pg_stat_activity WHERE pid = ?", (pid,)))[0][0]:
        assert time.monotonic() < deadline, f"the server still runs the killed child's backend {pid}"
        await asyncio.sleep(0.05)


# --- the test's side of the child ---------------------------------------------------------------------------------


def kill_child(target: str, scenario: str, now: datetime, commit: int, when: str, rooms: Sequence[str] = (),
               timeout: float = 300) -> list[str]:
    """Run the child, wait for it to say it has stopped where told (a generous `timeout` as a safety net only), kill
    it there with SIGKILL. Returns the lines it printed, the last one the pause's."""
    command = [sys.executable, str(Path(__file__).resolve()), target, scenario, "--now", now.isoformat(),
               "--commit", str(commit), "--when", when, "--rooms", ",".join(rooms)]
    env = {k: v for k, v in os.environ.items() if k != PAUSE_BEFORE_COMMIT}
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, encoding="utf-8",
                               cwd=REPO, env={**env, "PYTHONUNBUFFERED": "1", "PYTHONIOENCODING": "utf-8"})
    lines: queue.Queue[str | None] = queue.Queue()
    reader = threading.Thread(target=read_lines, args=(process.stdout, lines), daemon=True)
    reader.start()
    try:
        seen = wait_for(lines, PAUSED_BEFORE if when == "before" else PAUSED_AFTER, timeout, process)
        process.send_signal(signal.SIGKILL)
        process.wait(timeout=30)
        assert process.returncode == -signal.SIGKILL
    finally:
        if process.poll() is None:
            process.kill()
            process.wait(timeout=30)
        assert process.stdout is not None and process.stderr is not None
        process.stdout.close()
        process.stderr.close()
    reader.join(timeout=30)
    return seen


# --- the child ----------------------------------------------------------------------------------------------------


def stop_at(commit: int, when: str) -> None:
    """Stop this process at its `commit`-th COMMIT: just before it (the store's own hook, armed once the one before
    has committed) or just after it."""
    real = connection._commit
    count = 0

    def counted(con: Any) -> None:
        nonlocal count
        count += 1
        real(con)
        if when == "before" and count == commit - 1:
            os.environ[PAUSE_BEFORE_COMMIT] = str(WAIT)
        elif when == "after" and count == commit:
            print(PAUSED_AFTER, flush=True)
            time.sleep(WAIT)

    if when == "before" and commit == 1:
        os.environ[PAUSE_BEFORE_COMMIT] = str(WAIT)
    connection._commit = counted  # type: ignore[assignment]


def printing_groups(store: Store) -> None:
    """Print each group's size as the store starts committing it."""
    commit_group = store._commit_group

    async def printed(group: list[Any]) -> None:
        print(f"group {len(group)}", flush=True)
        await commit_group(group)

    store._commit_group = printed  # type: ignore[method-assign]


async def child(args: argparse.Namespace) -> None:
    store = await Store.open(args.target)
    if store.dialect == "postgresql":
        print(f"backend {(await store._fetchall('SELECT pg_backend_pid()'))[0][0]}", flush=True)
    ref = referee(store, datetime.fromisoformat(args.now))
    rooms = [room for room in args.rooms.split(",") if room]
    print("ready", flush=True)
    stop_at(args.commit, args.when)
    if args.scenario == "command":
        await grow(ref, rooms[:1])
    elif args.scenario == "group":
        printing_groups(store)
        await grow(ref, rooms)
    elif args.scenario == "rollover":
        async def each(events: dict[int, list[Event[Any]]], logged: dict[int, int]) -> None:
            print(f"batch {json.dumps(sorted(events))}", flush=True)

        await ref.catch_up_due_each(each, batch=BATCH)
    elif args.scenario in ("link", "link-alone"):
        store.defer_delay = WAIT  # (the row waits for the next write, not for its own timer)
        await grow(ref, rooms[:1])
        game_id = await store.live_game(rooms[0])
        assert game_id is not None
        [newest] = await store.actions(game_id, limit=1)
        await store.note_report_message([newest.id], *LINK)
        print("noted", flush=True)
        if args.scenario == "link":
            await grow(ref, rooms[1:2])
        else:
            await store.flush_deferred()
    else:
        raise SystemExit(f"no scenario {args.scenario!r}")
    print("done", flush=True)  # (never reached when the test kills it)
    await store.close()


def arguments(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("target")
    parser.add_argument("scenario", choices=("command", "group", "rollover", "link", "link-alone"))
    parser.add_argument("--now", required=True)
    parser.add_argument("--commit", type=int, required=True)
    parser.add_argument("--when", choices=("before", "after"), required=True)
    parser.add_argument("--rooms", default="")
    return parser.parse_args(argv)


if __name__ == "__main__":
    asyncio.run(child(arguments()))
