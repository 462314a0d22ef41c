"""The scale benchmarks of issue 8: one line per row of its table, each beside its reference measured in the
same run, with the goal and whether it is met.

    python -m bench.scale                 # SCALE 1000 (make bench)
    python -m bench.scale --scale 10000   # the large rows (make bench SCALE=10000)

Each measurement runs in a fresh subprocess of its own (`--worker NAME`), so that peak memory figures do not
mix and one row's garbage does not slow the next; `--inline` runs them all in this process (a smoke test).
The Discord rows run the real bot (discord.py) against the fake Discord of `tests/support/fakediscord.py`, on
127.0.0.1 only. Many games are built fast: one game is played through the referee, then its `games` row and
its log are cloned with SQL.
"""

import argparse
import asyncio
import json
import math
import random
import shutil
import sqlite3
import statistics
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from bench.build import (
    ANNOUNCED_PER_SECOND,
    GUILD_ID,
    MB,
    PRESETS,
    T0,
    TURN_HOURS,
    _discord,
    _keys,
    _table,
    bot_with_noop,
    build_store,
    grow_or_grant,
    mib,
    ms,
    peak_rss,
    percentile,
    play_template,
    reset_peak,
    verdict,
    worker_in_process,
    worker_or_report,
)

# --- the workers (each runs in a fresh process unless --inline) -------------------------------------------


async def worker_throughput(actions: int, rounds: int = 3) -> dict[str, Any]:
    """Persisted actions a second through `Referee.act` (engine + store, one transaction each), beside raw
    single-row sqlite3 commits with the same journal mode and synchronous setting; medians of `rounds`."""
    from data.store import Store
    from engine.dice import RandomRoller
    from engine.errors import RefereeError
    from service.referee import Referee

    folder = Path(tempfile.mkdtemp(prefix="bench-scale-"))
    try:
        players = [f"p{i}" for i in range(len(PRESETS))]
        await play_template(folder / "referee.db", "bench", None, "gm", players)
        store = await Store.open(folder / "referee.db")
        raw = sqlite3.connect(folder / "raw.db", isolation_level=None)
        try:
            referee = Referee(store, roller=RandomRoller(random.Random(2)), clock=lambda: T0 + timedelta(hours=1))
            async with store.db.execute("PRAGMA journal_mode") as cursor:
                journal = str((await cursor.fetchone())[0])
            async with store.db.execute("PRAGMA synchronous") as cursor:
                synchronous = int((await cursor.fetchone())[0])
            state = await referee.state("bench")
            nations = [state.nation_of(player).name for player in players]
            refused = 0

            async def referee_round() -> float:
                # a player grows its economy, then the GM gives that action back: every action is accepted
                nonlocal refused
                began = time.perf_counter()
                for i in range(actions):
                    try:
                        await grow_or_grant(referee, "bench", i, players, nations)
                    except RefereeError:
                        refused += 1
                return actions / (time.perf_counter() - began)

            raw.execute(f"PRAGMA journal_mode = {journal}")
            raw.execute(f"PRAGMA synchronous = {synchronous}")
            raw.execute("CREATE TABLE rows (id INTEGER PRIMARY KEY, data TEXT NOT NULL)")
            payload = json.dumps({"kind": "EconomyGrown", "nation": "Gracchan Republic", "roll": list(range(20))})

            def raw_round() -> float:
                began = time.perf_counter()
                for _ in range(actions):
                    raw.execute("BEGIN IMMEDIATE")
                    raw.execute("INSERT INTO rows (data) VALUES (?)", (payload,))
                    raw.execute("COMMIT")
                return actions / (time.perf_counter() - began)

            referee_rates, raw_rates = [], []
            for _ in range(rounds):
                referee_rates.append(await referee_round())
                raw_rates.append(raw_round())
        finally:
            raw.close()
            await store.close()
        return {"referee": statistics.median(referee_rates), "raw": statistics.median(raw_rates),
                "actions": actions, "rounds": rounds, "refused": refused, "journal": journal,
                "synchronous": synchronous}
    finally:
        shutil.rmtree(folder, ignore_errors=True)


async def worker_rollover(games: int, held: bool = False) -> dict[str, Any]:
    """A rollover of `games` five-nation games whose turn has ended, all at once, as the Discord clock does it:
    `Referee.catch_up_due_each`, each batch's games queued for the clock's `Announcer` as the batch commits
    (which keeps at most `HELD_EVENTS` games' events; it sends nothing here: its follow-up is a no-op).
    `held`: the dict-returning `Referee.catch_up_due` instead, every game's events held to the end (before
    issue 21)."""
    from cogs.announcer import Announcer
    from data.store import Store
    from engine.dice import RandomRoller
    from service.referee import Referee

    folder = Path(tempfile.mkdtemp(prefix="bench-scale-"))
    try:
        path = folder / "referee.db"
        channels = [f"discord:{GUILD_ID}:{i}" for i in range(games)]
        await build_store(path, channels, GUILD_ID, "gm", [f"p{i}" for i in range(len(PRESETS))])
        now = T0 + timedelta(hours=TURN_HOURS, seconds=1)
        store = await Store.open(path)
        try:
            referee = Referee(store, roller=RandomRoller(random.Random(3)), clock=lambda: now)
            due_before = len(await store.due(now))

            async def sent(game_id: int, action_id: int | None, events: Any) -> None:
                pass

            announcer = Announcer(per_second=ANNOUNCED_PER_SECOND, follow=sent)
            queued = 0

            async def queue(events: dict[int, Any], logged: dict[int, int]) -> None:
                nonlocal queued
                for game_id, game_events in events.items():
                    announcer.put_caught(game_id, logged.get(game_id), game_events)
                queued += len(events)

            windowed = reset_peak()
            began = time.perf_counter()
            if held:
                rolled = len(await referee.catch_up_due())
            else:
                rolled = await referee.catch_up_due_each(queue, announce=True)
            spent = time.perf_counter() - began
            peak = peak_rss()
            pending = len(announcer)
            announcer.close()
            left = len(await store.due(now))
        finally:
            await store.close()
        return {"games": games, "seconds": spent, "due_before": due_before, "rolled": rolled,
                "left_due": left, "peak_rss": peak, "peak_window": windowed, "held": held, "queued": queued,
                "pending": pending}
    finally:
        shutil.rmtree(folder, ignore_errors=True)


async def worker_commands(commands: int, warmup: int = 10) -> dict[str, Any]:
    """`/economy grow` as real interactions through discord.py against the fake Discord, each beside a no-op
    slash command on the same bot, same player and channel; times from the interaction written to the bot's
    socket to its initial response received by the fake."""
    fakediscord, kit = _discord()
    folder = Path(tempfile.mkdtemp(prefix="bench-scale-"))
    try:
        async with fakediscord.FakeDiscord(error_loggers=kit.ERROR_LOGGERS) as fake:
            players_count = len(PRESETS)
            warm_rooms = math.ceil(warmup / players_count)
            guild, rooms, gm, players = await _table(fake, math.ceil(commands / players_count) + warm_rooms)
            await build_store(folder / "referee.db", _keys(guild, rooms), guild.id, str(gm.id),
                              [str(p.id) for p in players])
            running = await fake.start_bot(bot_with_noop(folder / "referee.db", T0 + timedelta(hours=1)))
            try:
                async def timed(room: Any, player: Any, command: str) -> float:
                    result = await fake.invoke(guild, room, player, command)
                    await kit.settle(fake)
                    if result.ephemeral:  # a refusal: every timed command must be accepted
                        raise RuntimeError(f"/{command} was refused: {kit.texts(result)}")
                    return result.acknowledged_at - result.sent_at

                grow, noop_times = [], []
                for i in range(warmup + commands):
                    room, player = rooms[i // players_count], players[i % players_count]
                    pair = (await timed(room, player, "noop"), await timed(room, player, "economy grow"))
                    if i >= warmup:
                        noop_times.append(pair[0])
                        grow.append(pair[1])
            finally:
                await running.close()
        return {"commands": commands, "grow_median": statistics.median(grow), "grow_p99": percentile(grow, 0.99),
                "grow_max": max(grow), "noop_median": statistics.median(noop_times),
                "noop_p99": percentile(noop_times, 0.99)}
    finally:
        shutil.rmtree(folder, ignore_errors=True)


async def worker_restart(games: int, repeats: int = 3) -> dict[str, Any]:
    """From `create_bot` to the bot ready (its clock's `cog_load` done, the timer armed), with `games` games
    stored whose deadlines are pending and none due, beside the same with an empty store; medians."""
    fakediscord, kit = _discord()
    folder = Path(tempfile.mkdtemp(prefix="bench-scale-"))
    try:
        async with fakediscord.FakeDiscord(error_loggers=kit.ERROR_LOGGERS) as fake:
            guild, _, gm, players = await _table(fake, 0)
            full, empty = folder / "full.db", folder / "empty.db"
            await build_store(full, [f"discord:{guild.id}:{900_000 + i}" for i in range(games)], guild.id,
                              str(gm.id), [str(p.id) for p in players])
            clock = kit.FakeClock(T0 + timedelta(hours=1))

            async def restart(path: Path) -> tuple[float, bool]:
                began = time.perf_counter()
                bot = kit.create_bot(*kit.config(path, clock, kit.Dice()), guild_ready_timeout=0.05)
                running = await fake.start_bot(bot)
                spent = time.perf_counter() - began
                armed = bot.get_cog("Clock").scheduler.get_job("clock") is not None
                await running.close()
                return spent, armed

            await restart(folder / "warmup.db")  # first start: discord.py's and the fake's one-time work
            empty_times, full_times, armed = [], [], True
            for _ in range(repeats):
                empty_times.append((await restart(empty))[0])
                spent, ok = await restart(full)
                full_times.append(spent)
                armed = armed and ok
        return {"games": games, "seconds": statistics.median(full_times), "empty": statistics.median(empty_times),
                "armed": armed, "repeats": repeats}
    finally:
        shutil.rmtree(folder, ignore_errors=True)


class _CommitWatcher(threading.Thread):
    """Polls the store from a connection of its own (a thread, so the bot's loop is not held) and notes the
    wall time at which each game's count of clock catch-ups grows."""

    def __init__(self, path: Path, interval: float = 0.002) -> None:
        super().__init__(daemon=True)
        self.path, self.interval = path, interval
        self.seen: dict[int, list[float]] = {}
        self.stop = threading.Event()

    def run(self) -> None:
        con = sqlite3.connect(self.path, isolation_level=None)
        try:
            while not self.stop.is_set():
                rows = con.execute("SELECT game_id, COUNT(*) FROM actions WHERE actor = 'clock' GROUP BY game_id")
                now = time.time()
                for game_id, count in rows.fetchall():
                    times = self.seen.setdefault(game_id, [])
                    times.extend([now] * (count - len(times)))
                self.stop.wait(self.interval)
        finally:
            con.close()


async def worker_lateness(games: int, turns: int, turn_seconds: float) -> dict[str, Any]:
    """With real time: `games` games whose turns last `turn_seconds`, started on the running bot (as /game
    start does: the referee, then the clock's `after_change`); how late after each deadline the rollover is
    committed (seen by a reader of the store) and announced (the fake Discord's message time)."""
    from cogs.util import holding
    from engine.nations.peace import ClaimPreset
    from engine.nations.rules import HouseSettings

    # Turns of seconds, far under a real game's least (HouseSettings.RANGES): this worker process only.
    bounds = HouseSettings.RANGES["turn_hours"]
    HouseSettings.RANGES["turn_hours"] = (min(bounds[0], turn_seconds / 3600), bounds[1])
    fakediscord, kit = _discord()
    folder = Path(tempfile.mkdtemp(prefix="bench-scale-"))
    watcher = _CommitWatcher(folder / "referee.db")
    try:
        async with fakediscord.FakeDiscord(error_loggers=kit.ERROR_LOGGERS) as fake:
            guild, rooms, gm, players = await _table(fake, games)
            bot = kit.create_bot(kit.Settings(token=fake.token, db_path=str(folder / "referee.db")),
                                 kit.Runtime(roller=kit.Dice()), guild_ready_timeout=0.05)
            running = await fake.start_bot(bot)
            try:
                referee, clock = bot.referee, bot.get_cog("Clock")
                deadlines: dict[int, datetime] = {}
                for key in _keys(guild, rooms):
                    with holding():  # (the game made through the referee: its follow-up once, below)
                        report = await referee.start_game(key, str(gm.id), turn_hours=turn_seconds / 3600,
                                                          guild_id=guild.id)
                        for player, preset in zip(players, PRESETS, strict=True):
                            name = "Merewyn" if preset == "11" else None
                            report = await referee.act(key, str(gm.id), ClaimPreset(preset, str(player.id), name),
                                                       "/nation claim")
                    await clock.after_change(report)
                    deadlines[report.game_id] = report.state.turn_ends_at
                watcher.start()
                ends = {game_id: [(first + timedelta(seconds=turn_seconds * turn)).timestamp()
                                  for turn in range(turns)] for game_id, first in deadlines.items()}
                rooms_of = dict(zip(deadlines, rooms, strict=True))

                def announced_at(game_id: int) -> list[float]:
                    """When each turn end was announced: the first message with embeds at or after it (the
                    rollover's announcement comes before its reminder and status edit)."""
                    sent = sorted(fakediscord.snowflake_time_ms(m.id) / 1000
                                  for m in fake.channel_messages(rooms_of[game_id]) if m.embeds)
                    return [next((at for at in sent if at >= end), math.inf) for end in ends[game_id]]

                def done() -> bool:
                    return all(len(watcher.seen.get(g, [])) >= turns and math.inf not in announced_at(g)
                               for g in ends)

                give_up = max(max(e) for e in ends.values()) + 10
                while time.time() < give_up and not done():
                    await asyncio.sleep(0.05)
                await kit.settle(fake, timeout=10)
            finally:
                watcher.stop.set()
                await running.close()
            committed, announced, missing = [], [], 0
            for game_id, turn_ends in ends.items():
                seen, sent = watcher.seen.get(game_id, []), announced_at(game_id)
                for turn, end in enumerate(turn_ends):
                    if turn < len(seen):
                        committed.append(seen[turn] - end)
                    if turn >= len(seen) or sent[turn] == math.inf:
                        missing += 1
                    else:
                        announced.append(sent[turn] - end)
        return {"games": games, "turns": turns, "turn_seconds": turn_seconds, "committed": committed,
                "announced": announced, "missing": missing}
    finally:
        watcher.stop.set()
        shutil.rmtree(folder, ignore_errors=True)


async def worker_memory(stored: int, active: int, commands_each: int = 2) -> dict[str, Any]:
    """Peak RSS of the bot's process (the fake Discord runs in it too) with `stored` games in the store and
    `commands_each` /economy grow on each of `active` of them, through discord.py."""
    fakediscord, kit = _discord()
    folder = Path(tempfile.mkdtemp(prefix="bench-scale-"))
    try:
        active = min(active, stored)
        async with fakediscord.FakeDiscord(error_loggers=kit.ERROR_LOGGERS) as fake:
            guild, rooms, gm, players = await _table(fake, active)
            channels = _keys(guild, rooms) + [f"discord:{guild.id}:{900_000 + i}" for i in range(stored - active)]
            await build_store(folder / "referee.db", channels, guild.id, str(gm.id), [str(p.id) for p in players])
            windowed = reset_peak()
            clock = kit.FakeClock(T0 + timedelta(hours=1))
            bot = kit.create_bot(*kit.config(folder / "referee.db", clock, kit.Dice()), guild_ready_timeout=0.05)
            running = await fake.start_bot(bot)
            try:
                refused = 0
                for turn in range(commands_each):
                    for room in rooms:
                        result = await fake.invoke(guild, room, players[turn % len(players)], "economy grow")
                        await kit.settle(fake)
                        refused += result.ephemeral
                peak = peak_rss()
            finally:
                await running.close()
        return {"stored": stored, "active": active, "commands": active * commands_each, "refused": refused,
                "peak_rss": peak, "peak_window": windowed}
    finally:
        shutil.rmtree(folder, ignore_errors=True)


async def worker_announce(channels: int, bounded: bool = True, marks: int = 5) -> dict[str, Any]:
    """One message sent to each of `channels` channels through discord.py (the bot against the fake Discord),
    one after another and unpaced (the clock's announcer adds a constant wait a message): the time of each
    fifth of them, and the size of discord.py's rate-limit table at the end. `bounded`: with the referee's
    pruning (`cogs.ratelimits`, as the bot runs); else discord.py's own (a scan of the table a new bucket past
    256 of them)."""
    fakediscord, kit = _discord()
    folder = Path(tempfile.mkdtemp(prefix="bench-scale-"))
    try:
        async with fakediscord.FakeDiscord(error_loggers=kit.ERROR_LOGGERS) as fake:
            _, rooms, _, _ = await _table(fake, channels)
            bot = bot_with_noop(folder / "referee.db", T0 + timedelta(hours=1))
            if not bounded:
                vars(bot.http).pop("_try_clear_expired_ratelimits", None)  # discord.py's own method again
            running = await fake.start_bot(bot)
            try:
                await kit.settle(fake)
                http = bot.http
                scans = 0
                clear = http._try_clear_expired_ratelimits

                def counted() -> None:
                    nonlocal scans
                    scans += len(http._buckets) >= 256  # (a scan can happen only then)
                    clear()

                http._try_clear_expired_ratelimits = counted
                step = max(1, channels // marks)
                times, largest = [], 0
                began = last = time.perf_counter()
                for i, room in enumerate(rooms, 1):
                    await bot.get_partial_messageable(room.id).send("⏰ Turn 1 is over (time is up).")
                    largest = max(largest, len(http._buckets))
                    if i % step == 0 or i == channels:
                        now = time.perf_counter()
                        times.append((i, now - last))
                        last = now
                spent = time.perf_counter() - began
                buckets = len(http._buckets)
                sent = sum(len(fake.channel_messages(room)) for room in rooms)
            finally:
                await running.close()
        return {"channels": channels, "bounded": bounded, "seconds": spent, "per_message": spent / channels,
                "marks": times, "buckets": buckets, "largest": largest, "sent": sent, "scans": scans}
    finally:
        shutil.rmtree(folder, ignore_errors=True)


async def worker_load(in_flight: int, seconds: float, rounds: int) -> dict[str, Any]:
    """Persisted actions a second with `in_flight` commands at once (group commit), beside raw commits (bench.load)."""
    from bench.load import measure

    return await measure(in_flight, seconds, rounds)


WORKERS: dict[str, Callable[..., Any]] = {
    "throughput": worker_throughput, "rollover": worker_rollover, "commands": worker_commands,
    "restart": worker_restart, "lateness": worker_lateness, "memory": worker_memory, "announce": worker_announce,
    "load": worker_load,
}


def run_worker(name: str, inline: bool, timeout: float, **kwargs: Any) -> dict[str, Any]:
    """One measurement: in a fresh Python process (its result the last line of its output), or here."""
    if inline:
        return asyncio.run(WORKERS[name](**kwargs))
    return worker_in_process("bench.scale", name, timeout, **kwargs)


# --- the report --------------------------------------------------------------------------------------------


JUDGED_AT = 10_000  # the size-bound goals (rollover < 0.5 s, restart < 2 s) are stated at 10,000 games
ROLLOVER_SECONDS = 0.5  # issue 21's goal for 10,000 games (issue 8's was 1 s)
LARGE = 100_000  # issue 21: the rollover of 100,000 games, < 5 s, in the peak RSS of 10,000 (< 150 MB)
LARGE_ROLLOVER_SECONDS = 5
ANNOUNCE_CHANNELS = 10_000  # the announcement row's channels at most (discord.py's own table: quadratic)


def size_goal(games: int, largest: int, seconds: float, goal: float) -> str:
    """A goal stated at 10,000 games: judged there (or above), not at a smaller size."""
    if games >= JUDGED_AT:
        return f"(goal < {goal:g} s at {JUDGED_AT:,} games) — {verdict(seconds < goal)}"
    if largest >= JUDGED_AT:
        return f"(the reference size; the goal is at {JUDGED_AT:,} games)"
    return f"(goal < {goal:g} s at {JUDGED_AT:,} games, judged at that size: make bench SCALE={JUDGED_AT})"


def report(args: argparse.Namespace, out: Callable[[str], None] = print) -> float:
    """Run every row and print its line; returns the seconds it took."""
    began = time.perf_counter()
    big = args.scale
    small = min(args.small, big)
    sizes = sorted({small, big})
    timeout = 300 + big / 20

    def run(name: str, **kwargs: Any) -> dict[str, Any]:
        return run_worker(name, args.inline, timeout, **kwargs)

    out(f"scale benchmarks (issue 8), SCALE={big}" + (" (inline: one process, peaks mixed)" if args.inline else ""))

    # 1. /economy grow through discord.py, beside a no-op slash command
    r = run("commands", commands=args.commands)
    ratio = r["grow_median"] / r["noop_median"]
    out(f"/economy grow through discord.py, {r['commands']} commands: median {ms(r['grow_median'])}, "
        f"p99 {ms(r['grow_p99'])} (max {ms(r['grow_max'])}); a no-op slash command: median "
        f"{ms(r['noop_median'])}, p99 {ms(r['noop_p99'])}; {ratio:.1f}× the no-op "
        f"(goal median ≤ 3× the no-op, p99 < 20 ms) — {verdict(ratio <= 3 and r['grow_p99'] < 0.020)}")

    # 2. persisted actions a second, beside raw single-row commits
    r = run("throughput", actions=args.actions)
    share = r["referee"] / r["raw"]
    out(f"persisted actions: {r['referee']:,.0f}/s through the referee (engine + store, one transaction each); "
        f"raw single-row sqlite3 commits (journal {r['journal']}, synchronous={r['synchronous']}): "
        f"{r['raw']:,.0f}/s; {share:.0%}" + (f" ({r['refused']} refused)" if r["refused"] else "")
        + f" (goal ≥ 50%) — {verdict(share >= 0.5)}")

    # 2b. persisted actions under load: commands in flight share a transaction (group commit), beside raw commits
    r = run("load", in_flight=args.in_flight, seconds=args.load_seconds, rounds=3)
    share = r["loaded"] / r["raw"]
    out(f"persisted actions under load, {r['in_flight']} commands in flight: {r['loaded']:,.0f}/s (group commit, "
        f"{r['mean_group']:.1f} commands a transaction on average); raw single-row sqlite3 commits (journal "
        f"{r['journal']}, synchronous={r['synchronous']}): {r['raw']:,.0f}/s; {share:.0%}; one after another: "
        f"{r['single']:,.0f}/s (goal ≥ 150%, every command still all-or-nothing) — {verdict(share >= 1.5)}")

    # 3. rollover of every game at once, and its peak memory (above 10,000 games: beside 10,000 games too)
    roll_sizes = sorted(set(sizes) | ({JUDGED_AT} if big > JUDGED_AT else set()))
    rolled = {n: run("rollover", games=n) for n in roll_sizes}
    for n in roll_sizes:
        r = rolled[n]
        complete = r["rolled"] == n and r["due_before"] == n and r["left_due"] == 0
        beside = ""
        if n != small:
            ref = JUDGED_AT if n > JUDGED_AT else small
            base = rolled[ref]["seconds"]
            beside = f"; {ref} games: {base:.2f} s, ×{r['seconds'] / base:.1f} the time for ×{n / ref:g} the games"
        what = "all committed" if complete else f"only {r['rolled']} of {n} rolled, {r['left_due']} still due"
        fast = r["seconds"] < LARGE_ROLLOVER_SECONDS
        goal = (f"(goal < {LARGE_ROLLOVER_SECONDS:g} s at {LARGE:,} games) — {verdict(fast)}" if n >= LARGE
                else size_goal(n, big, r["seconds"], ROLLOVER_SECONDS))
        out(f"rollover {n} games: {r['seconds']:.2f} s, {what}{beside} {goal}" + ("" if complete else " — INCOMPLETE"))
    r = rolled[big]
    whole = "" if r["peak_window"] else " (whole-process peak: VmHWM could not be reset)"
    if big > JUDGED_AT:  # issue 21: 100,000 games in the memory of 10,000, each batch's events let go
        ref = rolled[JUDGED_AT]
        out(f"peak RSS during the {big}-game rollover: {mib(r['peak_rss'])}; {JUDGED_AT} games: "
            f"{mib(ref['peak_rss'])}, ×{r['peak_rss'] / ref['peak_rss']:.2f}{whole} (goal < 150 MB = "
            f"{mib(150 * MB)}, about that of 10,000 games) — {verdict(r['peak_rss'] < 150 * MB)}")
    else:
        beside = f"; {small} games: {mib(rolled[small]['peak_rss'])}" if big != small else ""
        out(f"peak RSS during the {big}-game rollover: {mib(r['peak_rss'])}{beside}{whole} "
            f"(goal < 100 MB = {mib(100 * MB)}) — {verdict(r['peak_rss'] < 100 * MB)}")

    # 3b. announcements to many channels through discord.py: linear with the referee's bucket pruning
    channels = min(big, ANNOUNCE_CHANNELS)
    mine, theirs = (run("announce", channels=channels, bounded=b) for b in (True, False))

    def flat(r: dict[str, Any]) -> float:
        """The last fifth's time a message over the first fifth's."""
        (n0, t0), (n1, t1) = r["marks"][0], r["marks"][-1]
        return (t1 / (n1 - r["marks"][-2][0])) / (t0 / n0) if len(r["marks"]) > 1 else 1.0

    out(f"announcements to {channels} channels through discord.py: {ms(mine['per_message'])} a message, "
        f"{mine['seconds']:.2f} s, the last fifth ×{flat(mine):.1f} the first's time a message, at most "
        f"{mine['largest']} rate-limit buckets; discord.py's own table: {ms(theirs['per_message'])} a message, "
        f"{theirs['seconds']:.2f} s, ×{flat(theirs):.1f}, {theirs['largest']} buckets (goal: linear, the last "
        f"fifth within 1.5× the first) — {verdict(flat(mine) <= 1.5 and mine['sent'] == channels)}")

    # 4. restart to ready
    for n in sizes:
        r = run("restart", games=n)
        armed = "" if r["armed"] else " — the clock was NOT armed"
        out(f"restart to ready with {n} games pending: {r['seconds']:.2f} s; empty store: {r['empty']:.2f} s, "
            f"{r['seconds'] / r['empty']:.1f}× {size_goal(n, big, r['seconds'], 2)}{armed}")

    # 5. deadline lateness, real time
    r = run("lateness", games=args.lateness_games, turns=args.turns, turn_seconds=args.turn_seconds)
    committed, announced = r["committed"], r["announced"]
    if committed and announced:
        worst = max(committed + announced)
        met = worst <= 1 and not r["missing"]
        out(f"deadline lateness, {r['games']} games × {r['turns']} turns of {r['turn_seconds']:g} s: rollover "
            f"committed median {ms(statistics.median(committed))}, max {ms(max(committed))}; announced median "
            f"{ms(statistics.median(announced))}, max {ms(max(announced))}"
            + (f"; {r['missing']} never seen" if r["missing"] else "") + f" (goal ≤ 1 s) — {verdict(met)}")
    else:
        out(f"deadline lateness: no rollover seen ({r['missing']} missing) (goal ≤ 1 s) — missed")

    # 6. peak RSS with many games stored and some active
    r = run("memory", stored=big, active=args.active)
    ref = run("memory", stored=args.active, active=args.active)
    refused = f" ({r['refused']} refused)" if r["refused"] else ""
    refused += "" if r["peak_window"] else " (whole-process peak: VmHWM could not be reset)"
    out(f"peak RSS, {r['stored']} games stored, {r['active']} active ({r['commands']} commands){refused}: "
        f"{mib(r['peak_rss'])}; {ref['stored']} stored, all active: {mib(ref['peak_rss'])} "
        f"(bot and fake Discord in one process) (goal < 100 MB = {mib(100 * MB)}) — "
        f"{verdict(r['peak_rss'] < 100 * MB)}")
    spent = time.perf_counter() - began
    out(f"scale benchmarks took {spent:.0f} s")
    return spent


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m bench.scale", description=__doc__.split("\n\n")[0])
    parser.add_argument("--scale", type=int, default=1000, help="games for the large rows (default 1000)")
    parser.add_argument("--small", type=int, default=1000, help="games for the reference rows (default 1000)")
    parser.add_argument("--commands", type=int, default=250, help="timed /economy grow commands (default 250)")
    parser.add_argument("--actions", type=int, default=1000, help="actions a throughput round (default 1000)")
    parser.add_argument("--active", type=int, default=100, help="active games of the memory row (default 100)")
    parser.add_argument("--in-flight", type=int, default=50, help="commands at once of the load row (default 50)")
    parser.add_argument("--load-seconds", type=float, default=2.0, help="each load round's length (default 2 s)")
    parser.add_argument("--lateness-games", type=int, default=5, help="games of the lateness row (default 5)")
    parser.add_argument("--turns", type=int, default=2, help="turns each lateness game plays (default 2)")
    parser.add_argument("--turn-seconds", type=float, default=3.6, help="their turn length (default 3.6 s)")
    parser.add_argument("--inline", action="store_true", help="run every measurement in this process")
    parser.add_argument("--worker", choices=sorted(WORKERS), help=argparse.SUPPRESS)
    parser.add_argument("--kwargs", default="{}", help=argparse.SUPPRESS)
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    return worker_or_report(parse_args(argv), WORKERS, report)


if __name__ == "__main__":
    sys.exit(main())
