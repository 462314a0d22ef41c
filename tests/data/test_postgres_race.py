"""Two referee processes on one PostgreSQL database: commands and clock catch-ups race, and one process is killed.

Each test sets up a few Nations games (several nations each) in a fresh schema through a Referee in this process,
then runs referee processes (tests/support/pgworker.py: their own connection, event loop, seeded dice) against them.
Time is a shared fake "now" in a file that this process moves on while the workers play, so both cross the
same turn ends (and bonus expiries) at the same moments, and both clock loops race to apply them.

The race test checks that every command applied once (and each refused one not at all), that every rollover and
expiry was applied once and announced by exactly one process, and that each game's snapshot is its log's replay.
The kill test kills one process with SIGKILL at random moments (once or twice while it is paused inside a
transaction, just before COMMIT) and checks that nothing is half-applied, and that the survivor alone applies
what falls due afterwards: every game's turn advances exactly once. The undo test is the race test's finding
made deterministic: a `/gm undo` confirmed for one action must not take back another process's newer one.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import queue
import random
import signal
import subprocess
import sys
import threading
import time
import uuid
from collections import Counter, defaultdict
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from pgworker import clock_signature
from storehelpers import REPO, assert_snapshot_is_replay, console_env

from data.store import Store
from engine.dice import RandomRoller
from engine.errors import RefereeError
from engine.nations.peace import ClaimPreset, Encourage
from service.referee import CLOCK_ACTOR, Referee

pytestmark = pytest.mark.postgres_only

T0 = datetime(2030, 1, 1, tzinfo=UTC)
TURN = timedelta(hours=12)  # the rules' default turn length
PRESETS = (("Gracchan Republic", "p1"), ("Charon", "p2"), ("Zombiestan", "p3"), ("Sovatank", "p4"))
WORKER = REPO / "tests" / "support" / "pgworker.py"
PAUSE_MESSAGE = "store: pausing before commit"


# --- helpers ------------------------------------------------------------------------------------------------


def schema_url(request: pytest.FixtureRequest) -> str:
    """The test server's URL in a schema of this test's own."""
    base = request.config.pg_url  # type: ignore[attr-defined]
    assert base, "the PostgreSQL pass (pytest --postgres) has no server"
    return f"{base}{'&' if '?' in base else '?'}schema=race_{uuid.uuid4().hex[:12]}"


class SharedClock:
    """The fake "now" the workers read from a file (rewritten atomically); callable as a Referee's clock."""

    def __init__(self, path: Path, start: datetime = T0) -> None:
        self.path = path
        self.set(start)

    def __call__(self) -> datetime:
        return self.now

    def set(self, moment: datetime) -> None:
        self.now = moment
        part = self.path.with_suffix(".part")
        part.write_text(moment.isoformat())
        os.replace(part, self.path)

    def advance(self, delta: timedelta) -> datetime:
        self.set(self.now + delta)
        return self.now


class Ticker:
    """Moves the shared clock on by `step` every `interval` seconds, in a thread, until stopped."""

    def __init__(self, clock: SharedClock, step: timedelta, interval: float) -> None:
        self.clock, self.step, self.interval = clock, step, interval
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        while not self._stop.wait(self.interval):
            self.clock.advance(self.step)

    def __enter__(self) -> Ticker:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join(timeout=10)


class Proc:
    """A worker process whose stdout lines are read in a thread (`wait_for` a line)."""

    def __init__(self, argv: list[str], env: dict[str, str]) -> None:
        self.argv = argv
        self.process = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                        encoding="utf-8", cwd=REPO, env=env)
        self.lines: queue.Queue[str | None] = queue.Queue()
        self.seen: list[str] = []
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in iter(self.process.stdout.readline, ""):
            self.lines.put(line.rstrip("\n"))
        self.lines.put(None)

    def wait_for(self, text: str, timeout: float) -> None:
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            assert left > 0, f"no {text!r} from {self.argv} within {timeout} s; got {self.seen}"
            try:
                line = self.lines.get(timeout=left)
            except queue.Empty:
                continue
            if line is None:
                self.process.wait(timeout=10)
                stderr = self.process.stderr.read() if self.process.stderr else ""
                raise AssertionError(f"the worker ended (code {self.process.returncode}) before {text!r}; "
                                     f"got {self.seen}; stderr: {stderr[-3000:]}")
            self.seen.append(line)
            if line == text:
                return

    def kill(self) -> None:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGKILL)
        self.process.wait(timeout=10)

    def finish(self, timeout: float = 30) -> None:
        """Wait for a clean exit (after the stop file)."""
        try:
            code = self.process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.kill()
            raise AssertionError(f"{self.argv} did not stop within {timeout} s") from None
        stderr = self.process.stderr.read() if self.process.stderr else ""
        assert code == 0, f"the worker failed (code {code}): {stderr[-3000:]}"


def start_worker(url: str, folder: Path, name: str, seed: int, channels: list[str], *extra: str) -> Proc:
    argv = [sys.executable, str(WORKER), url, "--name", name, "--seed", str(seed), "--channels", ",".join(channels),
            "--clock-file", str(folder / "now.txt"), "--out", str(folder / f"{name}.jsonl"),
            "--stop-file", str(folder / "stop"), *extra]
    return Proc(argv, console_env())


def read_reports(folder: Path, pattern: str = "*.jsonl") -> list[dict[str, Any]]:
    """Every complete line every worker wrote (a killed worker may leave half a line: not a report)."""
    lines = []
    for path in sorted(folder.glob(pattern)):
        for text in path.read_text(encoding="utf-8").splitlines():
            with contextlib.suppress(json.JSONDecodeError):
                lines.append(json.loads(text))
    return lines


async def set_up_games(url: str, clock: SharedClock, count: int) -> list[str]:
    """`count` Nations games (channels g0, g1, …), GM "gm", the four named presets claimed by p1..p4."""
    store = await Store.open(url)
    try:
        referee = Referee(store, roller=RandomRoller(random.Random(0)), clock=clock)
        channels = [f"g{k}" for k in range(count)]
        for channel in channels:
            await referee.start_game(channel, "gm")
            for preset, player in PRESETS:
                await referee.act(channel, "gm", ClaimPreset(preset, player), f"/nation claim {preset}")
    finally:
        await store.close()
    return channels


async def rows(store: Store, sql: str, *params: Any) -> list[Any]:
    return list(await store._fetchall(sql, params))


def turns_since_start(now: datetime) -> int:
    """The turn every game is in at `now` when the clock applied each turn end once (the games began at T0)."""
    return 1 + (now - T0) // TURN


# --- the checks both tests share ----------------------------------------------------------------------------


def no_errors(reports: list[dict[str, Any]]) -> None:
    errors = [r for r in reports if r.get("result") == "error"]
    assert not errors, "not a clean refusal:\n" + "\n".join(
        f"{r['worker']} {r.get('command', 'catch-up')}: {r['error']} {r['message']}\n{r.get('traceback', '')}"
        for r in errors[:5])


async def check_commands(store: Store, reports: list[dict[str, Any]], all_reported: bool) -> Counter[str]:
    """(a) Each command applied at most once: an applied one is logged exactly once, as its action id, by its
    actor, in its game; a refused one not at all; an undo took back each action once. `all_reported`: every
    command was reported (no worker was killed) so none is in the log unreported. Returns the results' counts."""
    logged = {r["id"]: r for r in await rows(store, "SELECT id, game_id, actor, command FROM actions")}
    by_command = Counter(r["command"] for r in logged.values())
    results: Counter[str] = Counter()
    reported: set[str] = set()
    for report in reports:
        if report.get("type") != "command":
            continue
        results[report["result"]] += 1
        command = report["command"]
        reported.add(command)
        if "undo" in report:  # logged as "/gm undo": checked through the undone actions below
            continue
        if report["result"] == "applied":
            assert by_command[command] == 1, (command, by_command[command])
            row = logged[report["action_id"]]
            assert (row["game_id"], row["actor"], row["command"]) == (report["game"], report["actor"], command)
        else:
            assert by_command[command] == 0, f"refused but logged: {report}"
    tagged = [c for c in by_command if c.endswith("]") and "#" in c]
    assert all(by_command[c] == 1 for c in tagged), [c for c in tagged if by_command[c] > 1]
    if all_reported:
        assert set(tagged) <= reported, set(tagged) - reported
    undone = Counter()
    for row in await rows(store, "SELECT data FROM events WHERE kind = 'action_undone'"):
        undone[json.loads(row["data"])["action_id"]] += 1
    assert all(count == 1 for count in undone.values()), [a for a, c in undone.items() if c > 1]
    marked = {r["id"] for r in await rows(store, "SELECT id FROM actions WHERE undone = 1")}
    assert marked == set(undone)
    # an applied undo took back what the GM confirmed (checked last by the tests: see the undo test below)
    results["undo took back another action"] = sum(
        1 for r in reports if r.get("type") == "command" and "undo" in r and r["result"] == "applied"
        and not set(r["undo"]) <= marked)
    return results


async def clock_actions(store: Store, game_id: int) -> list[tuple[int, list[Any]]]:
    """The game's clock actions, oldest first, each with the signature of its events."""
    events = defaultdict(list)
    for logged in await store.events(game_id, include_undone=True):
        events[logged.action_id].append(logged.event)
    actions = await store.actions(game_id, limit=100_000)
    return [(a.id, clock_signature(events[a.id])) for a in reversed(actions) if a.actor == CLOCK_ACTOR]


async def check_clock(store: Store, game_ids: list[int], reports: list[dict[str, Any]], now: datetime,
                      exactly_once: bool) -> None:
    """(b) Every rollover and expiry applied once: each game's turn ends cover turns 1.. in order, each once; its
    turn is the one `now` implies; nothing is due; a bonus expired at most once per setting; no nation made more
    than two actions in a turn, or two of a kind; and each clock action was announced by exactly one worker (at
    most one, with `exactly_once` False: a killed worker may commit and die before it says so)."""
    assert await store.due(now) == []
    announced: dict[tuple[int, str], list[int | None]] = defaultdict(list)
    for report in reports:
        if report.get("type") == "command":
            for clock in report.get("clock", []):
                announced[(report["game"], json.dumps(clock["sig"]))].append(clock["action_id"])
        elif report.get("type") == "catch_up" and report["result"] == "applied":
            for game, done in report["games"].items():
                announced[(int(game), json.dumps(done["sig"]))].append(done["action_id"])
    for game_id in game_ids:
        state = await store.load(game_id)
        assert state.turn == turns_since_start(now), (game_id, state.turn, now)
        assert all(bonus.expires_at > now for n in state.nations.values() for bonus in n.bonuses.values())
        ended: list[int] = []
        in_log: Counter[str] = Counter()
        for action_id, signature in await clock_actions(store, game_id):
            assert signature, f"clock action {action_id} has no events"
            in_log[json.dumps(signature)] += 1
            for item in signature:
                if item[0] == "turn_ended":
                    ended += range(item[1] - item[2] + 1, item[1] + 1)
            ids = announced.get((game_id, json.dumps(signature)), [])
            assert action_id in ids or None in ids or (not exactly_once and not ids), \
                f"game {game_id}: clock action {action_id} {signature} announced as {ids}"
        assert ended == list(range(1, state.turn)), (game_id, ended)
        for (game, signature), ids in announced.items():
            if game == game_id:
                assert len(ids) == in_log[signature] if exactly_once else len(ids) <= in_log[signature], \
                    f"game {game_id}: {signature} announced {len(ids)} times, logged {in_log[signature]} times"
        # the log's own order: turn ends, expiries and actions per turn
        held: dict[tuple[str, str], bool] = {}
        used: dict[str, list[str]] = defaultdict(list)
        for logged in await store.events(game_id):
            event = logged.event
            if event.kind == "turn_ended":
                assert event.reason == "clock"  # type: ignore[attr-defined]
                used.clear()
            elif event.kind == "bonus_set":
                held[(event.nation, event.bonus)] = True  # type: ignore[attr-defined]
            elif event.kind == "bonus_expired":
                key = (event.nation, event.bonus)  # type: ignore[attr-defined]
                assert held.get(key), f"game {game_id}: {key} expired twice"
                held[key] = False
            elif event.kind == "action_used":
                kinds = used[event.nation]  # type: ignore[attr-defined]
                assert event.action not in kinds and len(kinds) < 2, (game_id, event, kinds)  # type: ignore
                kinds.append(event.action)  # type: ignore[attr-defined]


async def check_log_whole(store: Store, game_ids: list[int]) -> None:
    """Nothing half-applied: each snapshot is its log's replay, every action has its events, every event and
    roll belongs to an action that exists."""
    for game_id in game_ids:
        await assert_snapshot_is_replay(store, game_id)
    assert await rows(store, "SELECT a.id FROM actions a WHERE NOT EXISTS "
                             "(SELECT 1 FROM events e WHERE e.action_id = a.id)") == []
    assert await rows(store, "SELECT e.id FROM events e LEFT JOIN actions a ON a.id = e.action_id "
                             "WHERE a.id IS NULL OR a.game_id <> e.game_id") == []
    assert await rows(store, "SELECT r.id FROM rolls r LEFT JOIN actions a ON a.id = r.action_id "
                             "WHERE r.action_id IS NOT NULL AND a.id IS NULL") == []


# --- the tests ----------------------------------------------------------------------------------------------


async def test_two_processes_race_on_the_same_games(request, tmp_path):
    url = schema_url(request)
    clock = SharedClock(tmp_path / "now.txt")
    channels = await set_up_games(url, clock, 4)
    workers = [start_worker(url, tmp_path, name, seed, channels, "--commands", "200", "--undo",
                            "--go-file", str(tmp_path / "go")) for name, seed in (("A", 1), ("B", 2))]
    try:
        for worker in workers:
            worker.wait_for("ready", timeout=60)
        (tmp_path / "go").touch()  # both start together
        with Ticker(clock, timedelta(hours=2), 0.02):  # a turn end every ~0.12 s, a bonus expiry now and then
            for worker in workers:
                worker.wait_for("done", timeout=120)
        clock.advance(TURN)  # one more turn end, for the clock loops alone
        time.sleep(0.3)
        (tmp_path / "stop").touch()
        for worker in workers:
            worker.finish()
    finally:
        for worker in workers:
            worker.kill()

    reports = read_reports(tmp_path)
    no_errors(reports)
    store = await Store.open(url)
    try:
        game_ids = [await store.live_game(channel) for channel in channels]
        results = await check_commands(store, reports, all_reported=True)
        assert results["applied"] + results["refused"] == 400
        assert results["applied"] > 50 and results["refused"] > 50, results
        refusals = [r["message"] for r in reports if r.get("result") == "refused"]
        assert any("no doubling up" in m or "used all its actions" in m for m in refusals)
        await check_clock(store, game_ids, reports, clock.now, exactly_once=True)
        assert clock.now - T0 >= 3 * TURN  # the workers crossed several turn ends while they played
        await check_log_whole(store, game_ids)
        assert results["undo took back another action"] == 0, "see test_a_confirmed_undo_takes_back_only_…"
    finally:
        await store.close()


async def test_a_killed_process_leaves_nothing_half_done(request, tmp_path):
    url = schema_url(request)
    clock = SharedClock(tmp_path / "now.txt")
    channels = await set_up_games(url, clock, 3)
    rng = random.Random(7)
    survivor = start_worker(url, tmp_path, "A", 1, channels, "--commands", "100000",
                            "--commands-stop-file", str(tmp_path / "enough"))
    victims: list[Proc] = []
    kills = {"random": 0, "paused": 0}
    try:
        survivor.wait_for("ready", timeout=60)
        with Ticker(clock, timedelta(hours=4), 0.1):
            for round_number in range(6):
                paused = round_number in (2, 5)
                victim = start_worker(url, tmp_path, f"B{round_number}", 10 + round_number, channels,
                                      "--commands", "100000", *(["--pause", "1.5"] if paused else []))
                victims.append(victim)
                victim.wait_for("ready", timeout=60)
                if paused:
                    victim.wait_for(PAUSE_MESSAGE, timeout=30)  # inside a transaction, before its COMMIT
                else:
                    time.sleep(rng.uniform(0.05, 0.5))
                assert victim.process.poll() is None, "the victim ended before it was killed"
                victim.kill()
                assert victim.process.returncode == -signal.SIGKILL
                kills["paused" if paused else "random"] += 1
            (tmp_path / "enough").touch()
            survivor.wait_for("done", timeout=60)

        store = await Store.open(url)
        try:
            game_ids = [await store.live_game(channel) for channel in channels]
            # the survivor alone: first it catches up on whatever is due now
            await wait_until(lambda: nothing_due(store, clock.now), "the survivor to catch up")
            before = {g: (await store.load(g)).turn for g in game_ids}
            [last] = (await rows(store, "SELECT COALESCE(MAX(id), 0) FROM actions"))[0]
            said_before = len(read_reports(tmp_path, "A.jsonl"))
            # then one turn end more: every game's turn advances exactly once, by the survivor
            clock.advance(TURN)
            await wait_until(lambda: nothing_due(store, clock.now), "the survivor to apply the turn end")
            for game_id in game_ids:
                assert (await store.load(game_id)).turn == before[game_id] + 1
                new = [(a, s) for a, s in await clock_actions(store, game_id) if a > last]
                assert len(new) == 1 and [i[0] for i in new[0][1]].count("turn_ended") == 1, new
            (tmp_path / "stop").touch()
            survivor.finish()
            reports = read_reports(tmp_path)
            no_errors(reports)
            later = [r for r in read_reports(tmp_path, "A.jsonl")[said_before:]
                     if r.get("type") == "catch_up" and r["result"] == "applied"]
            announced = {(int(g), d["action_id"]) for r in later for g, d in r["games"].items()}
            for game_id in game_ids:
                [(action_id, _)] = [(a, s) for a, s in await clock_actions(store, game_id) if a > last]
                assert (game_id, action_id) in announced or (game_id, None) in announced

            results = await check_commands(store, reports, all_reported=False)
            assert results["applied"] > 20, results
            await check_clock(store, game_ids, reports, clock.now, exactly_once=False)
            await check_log_whole(store, game_ids)
            assert kills == {"random": 4, "paused": 2}
        finally:
            await store.close()
    finally:
        for proc in [survivor, *victims]:
            proc.kill()


async def nothing_due(store: Store, now: datetime) -> bool:
    return await store.due(now) == []


async def wait_until(condition: Any, what: str, timeout: float = 20) -> None:
    deadline = time.monotonic() + timeout
    while not await condition():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        await asyncio.sleep(0.05)


async def test_a_confirmed_undo_takes_back_only_what_was_confirmed(request, tmp_path):
    """The race test's finding, made deterministic: another process logs an action while `/gm undo` runs, after
    the undo checked the GM's confirmed ids and before it read the game's newest action. The undo must refuse
    (the game moved on); it must never take back the other process's action in place of the confirmed one."""
    url = schema_url(request)
    clock = SharedClock(tmp_path / "now.txt")
    [channel] = await set_up_games(url, clock, 1)
    first, second = await Store.open(url), await Store.open(url)
    try:
        gm_side = Referee(first, roller=RandomRoller(random.Random(1)), clock=clock)
        other = Referee(second, roller=RandomRoller(random.Random(2)), clock=clock)
        confirmed = await gm_side.act(channel, "p1", Encourage("workers"), "/propaganda encourage workers")
        preview = await gm_side.preview_undo(channel, "gm")
        assert preview.action_ids == (confirmed.action_ids[-1],)
        meanwhile: list[int] = []
        actions = first.actions

        async def actions_with_another_process(game_id: int, limit: int = 20, include_undone: bool = True) -> Any:
            if limit == 1 and not meanwhile:  # the undo reads the newest action: the other process got in first
                report = await other.act(channel, "p2", Encourage("morale"), "/propaganda encourage morale")
                meanwhile.append(report.action_ids[-1])
            return await actions(game_id, limit, include_undone)

        first.actions = actions_with_another_process  # type: ignore[method-assign]
        with contextlib.suppress(RefereeError):  # refused: the right answer (GameMovedOn, or "moved on")
            await gm_side.undo(channel, "gm", expected=preview.action_ids)
        assert meanwhile, "the interleaving did not happen"
        game_id = await first.live_game(channel)
        undone = [a.id for a in await second.actions(game_id, limit=100) if a.undone]
        assert meanwhile[0] not in undone, (f"/gm undo confirmed for action {preview.action_ids} took back "
                                            f"action {meanwhile[0]}, logged by another process meanwhile")
        assert undone in ([], list(preview.action_ids))
        await assert_snapshot_is_replay(second, game_id)
    finally:
        await first.close()
        await second.close()
