"""One referee process of the PostgreSQL race tests (tests/data/test_postgres_race.py); not a test module.

    python tests/support/pgworker.py URL --name A --seed 1 --channels g0,g1 --clock-file now.txt --out a.jsonl \
        --stop-file stop [--commands 200] [--commands-stop-file enough] [--pause SECONDS] [--undo]

Opens `Store.open(URL)`, builds a `Referee` with a seeded `RandomRoller` and a clock that reads the shared fake
"now" (an ISO time the test writes to `--clock-file`), prints `ready`, and then, as the bot does, runs two
things at once: a command loop (random Nations actions by the games' players, some of which the rules refuse:
two actions a turn, never two of a kind; now and then a GM's `/gm undo` confirmed against a preview) and a clock
loop calling `catch_up_due` every few milliseconds. It writes one JSON line to `--out` for each command
(applied, with its action id; or refused, with the message) and for each catch-up that applied something, with
the signature of the clock's events (`clock_signature`). After its commands (`--commands`, or until
`--commands-stop-file` exists) it prints `done`; it stops when `--stop-file` exists, after one last catch-up.

`--pause SECONDS` sets REFEREE_TEST_PAUSE_BEFORE_COMMIT once the store is open: every transaction then sleeps
before its COMMIT and prints "store: pausing before commit" (the kill test kills the process there).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import sys
import traceback
from datetime import datetime
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from data.store import PAUSE_BEFORE_COMMIT, Plan, Store  # noqa: E402
from engine.dice import RandomRoller  # noqa: E402
from engine.errors import RefereeError  # noqa: E402
from engine.events import Event  # noqa: E402
from engine.nations import peace  # noqa: E402
from service.referee import CLOCK_ACTOR, Referee  # noqa: E402

BONUS_KINDS = ("workers", "patriotism", "morale")


def clock_signature(events: list[Event]) -> list[list[Any]]:
    """What identifies a catch-up's events, the same from a report and from the log: each event's kind and, for
    a turn end, the turn it ended (and how many turns); for a bonus expiry, whose bonus of which kind."""
    signature: list[list[Any]] = []
    for event in events:
        if event.kind == "turn_ended":
            signature.append([event.kind, event.ended, event.turns])  # type: ignore[attr-defined]
        elif event.kind == "bonus_expired":
            signature.append([event.kind, event.nation, event.bonus])  # type: ignore[attr-defined]
        else:
            signature.append([event.kind])
    return signature


class FileClock:
    """The shared fake "now": the ISO time in a file the test rewrites (atomically) as time goes by."""

    def __init__(self, path: str) -> None:
        self.path = Path(path)

    def __call__(self) -> datetime:
        return datetime.fromisoformat(self.path.read_text().strip())


class Worker:
    def __init__(self, args: argparse.Namespace, store: Store) -> None:
        self.args = args
        self.store = store
        self.name = args.name
        self.rng = random.Random(args.seed)
        self.referee = Referee(store, roller=RandomRoller(random.Random(args.seed + 1000)),
                               clock=FileClock(args.clock_file))
        self.out = open(args.out, "a", encoding="utf-8", buffering=1)  # one line at a time
        self.games: dict[str, int] = {}
        self.players: dict[str, list[tuple[str, str]]] = {}  # channel -> (player, nation)
        self.committed: list[Plan] = []  # the plans `run_game` committed for the current command
        self._wrap_run_game()

    def emit(self, **line: Any) -> None:
        self.out.write(json.dumps({"worker": self.name, **line}, default=str) + "\n")

    def _wrap_run_game(self) -> None:
        """Keep every plan `run_game` committed for the current command: a command refused after its catch-up
        committed (`run_game` raises the refusal after the commit; `/gm undo` catches up first, then may refuse)
        returns no report, and nothing else says what the clock applied (the plan is seen here instead)."""
        def wrapped(original: Any, plan_of: Any) -> Any:
            async def run(target: Any, plan: Any, *args: Any, **options: Any) -> Any:
                seen: list[Plan] = []

                def recording(state: Any) -> Plan:
                    result = plan(state)
                    seen.append(result)
                    return result

                try:
                    done = await original(target, recording, *args, **options)
                except BaseException as err:
                    if seen and seen[-1].refusal is err:  # raised after its entries committed
                        self.committed.append(seen[-1])
                    raise
                self.committed.append(plan_of(done))
                return done

            return run

        # (`run_channel`: a command, the channel's game found in the same call; `run_game`: a catch-up, an undo's)
        self.store.run_game = wrapped(self.store.run_game, lambda done: done)  # type: ignore[method-assign]
        self.store.run_channel = wrapped(self.store.run_channel, lambda done: done[1])  # type: ignore[method-assign]

    async def load_games(self) -> None:
        for channel in self.args.channels.split(","):
            game_id = await self.referee.game_id(channel)
            state = await self.store.load(game_id)
            self.games[channel] = game_id
            self.players[channel] = sorted((n.player, n.name) for n in state.nations.values() if n.player)

    # --- the command loop ----------------------------------------------------------------------------------

    def pick(self, i: int) -> tuple[str, str, Any, str]:
        """A random command: (channel, actor, action or "undo", command text tagged with who sent it)."""
        channel = self.rng.choice(sorted(self.games))
        player, nation = self.rng.choice(self.players[channel])
        others = [name for _, name in self.players[channel] if name != nation]
        tag = f"[{self.name}#{i}]"
        roll = self.rng.random()
        if self.args.undo and roll < 0.03:
            return channel, "gm", "undo", f"/gm undo {tag}"
        choices: list[tuple[Any, str]] = [
            (peace.GrowEconomy(), "/economy economy"),
            (peace.GrowMilitary(), "/economy military"),
            (peace.Recruit("infantry"), "/economy recruit infantry"),
            (peace.PropagandaAttack(self.rng.choice(others)), "/propaganda attack"),
            (peace.Encourage(self.rng.choice(BONUS_KINDS)), "/propaganda encourage"),
            (peace.RaiseStability(), "/stability raise"),
        ]
        action, text = self.rng.choices(choices, weights=(3, 2, 1, 3, 3, 1))[0]
        return channel, player, action, f"{text} {tag}"

    async def command(self, i: int) -> None:
        channel, actor, action, text = self.pick(i)
        game_id = self.games[channel]
        line: dict[str, Any] = {"type": "command", "i": i, "game": game_id, "actor": actor, "command": text}
        self.committed = []
        try:
            if action == "undo":
                preview = await self.referee.preview_undo(channel, actor)
                line["undo"] = list(preview.action_ids)
                report = await self.referee.undo(channel, actor, expected=preview.action_ids)
                clock = [{"action_id": None, "sig": clock_signature(report.caught_up)}] if report.caught_up else []
                self.emit(**line, result="applied", clock=clock)
                return
            report = await self.referee.act(channel, actor, action, text)
        except RefereeError as refusal:
            clock = [{"action_id": plan.action_ids[0], "sig": clock_signature(plan.entries[0].events)}
                     for plan in self.committed if plan.entries and plan.entries[0].actor == CLOCK_ACTOR]
            self.emit(**line, result="refused", error=type(refusal).__name__, message=str(refusal), clock=clock)
            return
        except Exception as err:  # not a clean refusal: the test fails on it
            self.emit(**line, result="error", error=type(err).__name__, message=str(err),
                      traceback=traceback.format_exc())
            return
        clock = []
        if report.caught_up:
            clock = [{"action_id": report.action_ids[0], "sig": clock_signature(report.caught_up)}]
        self.emit(**line, result="applied", action_id=report.action_ids[-1], clock=clock)

    async def commands(self) -> None:
        enough = Path(self.args.commands_stop_file) if self.args.commands_stop_file else None
        for i in range(self.args.commands):
            if enough is not None and enough.exists():
                break
            await self.command(i)
            await asyncio.sleep(0)  # let the clock loop in

    # --- the clock loop ------------------------------------------------------------------------------------

    async def catch_up(self) -> None:
        ids: dict[int, int] = {}
        try:
            caught = await self.referee.catch_up_due(action_ids=ids)
        except RefereeError as refusal:
            self.emit(type="catch_up", result="refused", error=type(refusal).__name__, message=str(refusal))
            return
        except Exception as err:
            self.emit(type="catch_up", result="error", error=type(err).__name__, message=str(err),
                      traceback=traceback.format_exc())
            return
        if caught:
            self.emit(type="catch_up", result="applied",
                      games={str(g): {"action_id": ids.get(g), "sig": clock_signature(events)}
                             for g, events in caught.items()})

    async def clock_loop(self, stop: asyncio.Event) -> None:
        while not stop.is_set():
            await self.catch_up()
            try:
                await asyncio.wait_for(stop.wait(), 0.02)
            except TimeoutError:
                pass


async def main(args: argparse.Namespace) -> None:
    store = await Store.open(args.url)
    worker = Worker(args, store)
    await worker.load_games()
    if args.pause:
        os.environ[PAUSE_BEFORE_COMMIT] = str(args.pause)
    print("ready", flush=True)
    go = Path(args.go_file) if args.go_file else None
    while go is not None and not go.exists():
        await asyncio.sleep(0.01)
    stop = asyncio.Event()
    clock = asyncio.create_task(worker.clock_loop(stop))
    await worker.commands()
    worker.emit(type="done")
    print("done", flush=True)
    stop_file = Path(args.stop_file)
    while not stop_file.exists():
        await asyncio.sleep(0.02)
    stop.set()
    await clock
    await worker.catch_up()
    worker.emit(type="stopped")
    worker.out.close()
    await store.close()
    print("stopped", flush=True)


def arguments(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    parser.add_argument("url")
    parser.add_argument("--name", required=True)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--channels", required=True)
    parser.add_argument("--clock-file", required=True)
    parser.add_argument("--out", required=True)
    parser.add_argument("--stop-file", required=True)
    parser.add_argument("--commands", type=int, default=200)
    parser.add_argument("--commands-stop-file", default=None)
    parser.add_argument("--go-file", default=None)
    parser.add_argument("--pause", type=float, default=0.0)
    parser.add_argument("--undo", action="store_true")
    return parser.parse_args(argv)


if __name__ == "__main__":
    asyncio.run(main(arguments()))
