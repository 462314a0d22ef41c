"""Issue 22's benchmark: the game's pages served by the bot itself while it answers commands.

    python -m bench.web [--pages-per-second 200] [--seconds 5] [--games 20] [--commands 100] [--rounds 3]
                        [--addresses 50] [--commands-elsewhere] [--turns 0]

This process runs as the bot does: the bot (discord.py) against the fake Discord (`tests/support/fakediscord.py`)
and the web server of the game pages (`web/server.py`), all in one event loop, on 127.0.0.1 only. A second process (its
CPU not the bot's loop) requests the pages over keep-alive connections, paced at the target rate, spread over
the games' pages and over many client addresses (127.0.0.2, 127.0.0.3, …: as many readers, each under the
server's limit of requests per address). Rounds alternate, without pages then with them, so that drift in the
machine's load falls on both alike; each round times `--commands` `/economy grow` interactions (from the
interaction written to the bot's socket to its initial response), each beside a no-op slash command, spread
evenly over the round's `--seconds`. Every timed command is accepted: the GM gives the action back through the
referee (untimed) after each. The commands land on the games whose pages are read (each change makes the next
request of its page render it afresh) unless `--commands-elsewhere`; `--turns` plays every game on first.

"Within noise": the median of the rounds with pages at most `NOISE` times the median of the rounds without (the
line says when the rounds without pages differ among themselves by more than that: too busy a machine to judge).
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import json
import math
import os
import random
import shutil
import socket
import statistics
import sys
import tempfile
import time
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from bench.build import (
    ROOT,
    T0,
    TURN_HOURS,
    _discord,
    _keys,
    _table,
    bot_with_noop,
    build_store,
    ms,
    percentile,
    verdict,
)

GOAL_PAGES = 200.0  # pages a second (issue 22)
NOISE = 1.2  # "unchanged within noise": the median with pages at most this many times the median without
SERVED = 0.99  # "200 pages a second served": at least this share of the paced requests answered 200, in time
REQUEST_TIMEOUT = 10.0  # seconds for one page, connection included
IN_FLIGHT = 256  # the load generator's most requests at once (beyond: the server has fallen behind; counted)
RAMP = 0.25  # seconds into a round before its first timed command (the load is running by then)
WARMUP_COMMANDS = 10
KIB = 1024


def _free_port(host: str) -> int:
    with socket.socket() as probe:
        probe.bind((host, 0))
        return int(probe.getsockname()[1])


# --- the load generator: a process of its own -------------------------------------------------------------


class Load:
    """The paced page requests of one round, in the load process: one aiohttp session a client address, each a
    small pool of keep-alive connections."""

    def __init__(self, urls: list[str], addresses: int) -> None:
        import aiohttp

        self.urls = urls
        self.sessions = [
            aiohttp.ClientSession(
                connector=aiohttp.TCPConnector(limit=8, local_addr=(f"127.0.0.{2 + i}", 0), keepalive_timeout=120),
                timeout=aiohttp.ClientTimeout(total=REQUEST_TIMEOUT), auto_decompress=True)
            for i in range(addresses)]

    async def close(self) -> None:
        for session in self.sessions:
            await session.close()

    async def burst(self, rate: float, seconds: float) -> dict[str, Any]:
        """`rate` requests a second for `seconds` (open loop: each request at its own time, whatever the answers
        before it), then every answer awaited (bounded)."""
        import aiohttp

        loop = asyncio.get_running_loop()
        count = max(1, round(rate * seconds))
        order = [i % len(self.urls) for i in range(count)]
        random.Random(count).shuffle(order)
        statuses: collections.Counter[int] = collections.Counter()
        failures: collections.Counter[str] = collections.Counter()
        latencies: list[float] = []
        sizes: list[int] = []
        in_flight, skipped, last_done = 0, 0, 0.0

        async def fetch(i: int) -> None:
            nonlocal in_flight, last_done
            session = self.sessions[i % len(self.sessions)]
            began = time.perf_counter()
            try:
                async with session.get(self.urls[order[i]]) as response:
                    body = await response.read()
                    statuses[response.status] += 1
                    if response.status == 200:
                        latencies.append(time.perf_counter() - began)
                        sizes.append(len(body))
            except (aiohttp.ClientError, TimeoutError, OSError) as error:
                failures[type(error).__name__] += 1
            finally:
                in_flight -= 1
                last_done = max(last_done, time.perf_counter())

        cpu = time.process_time()
        began = time.perf_counter()
        start = loop.time()
        tasks = []
        for i in range(count):
            delay = start + i / rate - loop.time()
            if delay > 0:
                await asyncio.sleep(delay)
            if in_flight >= IN_FLIGHT:
                skipped += 1
                continue
            in_flight += 1
            tasks.append(asyncio.create_task(fetch(i)))
        if tasks:
            await asyncio.wait(tasks, timeout=REQUEST_TIMEOUT + 5)
        unfinished = sum(not task.done() for task in tasks)
        for task in tasks:
            task.cancel()
        elapsed = max(seconds, (last_done or time.perf_counter()) - began)
        return {"requested": count, "statuses": {str(k): v for k, v in sorted(statuses.items())},
                "failures": dict(failures), "skipped": skipped, "unfinished": unfinished, "latencies": latencies,
                "bytes": statistics.median(sizes) if sizes else 0, "elapsed": elapsed,
                "cpu": time.process_time() - cpu}


async def load_main(urls: list[str], addresses: int) -> None:
    """The load process: a line on stdin `{"rate": …, "seconds": …}` runs a burst (answered "started", then its
    figures as one JSON line); an empty line or the end of stdin stops it."""
    load = Load(urls, addresses)
    loop = asyncio.get_running_loop()
    try:
        while True:
            line = await loop.run_in_executor(None, sys.stdin.readline)
            if not line.strip():
                break
            order = json.loads(line)
            print(json.dumps({"started": True}), flush=True)
            print(json.dumps(await load.burst(order["rate"], order["seconds"])), flush=True)
    finally:
        await load.close()


class LoadProcess:
    """The bot's side of the load process."""

    def __init__(self, urls: list[str], addresses: int) -> None:
        self.urls, self.addresses = urls, addresses
        self.process: asyncio.subprocess.Process | None = None

    async def __aenter__(self) -> LoadProcess:
        self.process = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "bench.web", "--load", json.dumps({"urls": self.urls, "addresses": self.addresses}),
            cwd=ROOT, stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
            env={**os.environ, "PYTHONUNBUFFERED": "1"})
        return self

    async def __aexit__(self, *exc: object) -> None:
        process = self.process
        assert process is not None and process.stdin is not None
        try:
            process.stdin.write(b"\n")
            await process.stdin.drain()
            process.stdin.close()
            await asyncio.wait_for(process.wait(), timeout=REQUEST_TIMEOUT + 5)
        except (OSError, TimeoutError):
            process.kill()
            await process.wait()

    async def _line(self, timeout: float) -> dict[str, Any]:
        assert self.process is not None and self.process.stdout is not None
        line = await asyncio.wait_for(self.process.stdout.readline(), timeout=timeout)
        if not line:
            raise RuntimeError(f"the load process ended (exit status {await self.process.wait()})")
        return dict(json.loads(line))

    async def start(self, rate: float, seconds: float) -> None:
        """Start a burst; returns once the load process has begun it."""
        assert self.process is not None and self.process.stdin is not None
        self.process.stdin.write(json.dumps({"rate": rate, "seconds": seconds}).encode() + b"\n")
        await self.process.stdin.drain()
        await self._line(timeout=60)  # (its first start imports aiohttp)

    async def result(self, seconds: float) -> dict[str, Any]:
        return await self._line(timeout=seconds + REQUEST_TIMEOUT + 30)


# --- the bot's process ------------------------------------------------------------------------------------


async def play_turns(path: Path, keys: list[str], gm: str, players: list[str], turns: int) -> datetime:
    """Every game played on through `turns` more turns before the bot starts (through the referee, as the clock
    and the players would): each turn two players grow their economy, the GM gives the actions back, and the turn
    ends. Returns a moment an hour into the turn after them (the bot's clock)."""
    from data.store import Store
    from engine.dice import RandomRoller
    from engine.nations.gm import GrantAction
    from engine.nations.peace import GrowEconomy
    from service.referee import Referee

    moment = T0 + timedelta(hours=1)
    if turns <= 0:
        return moment
    store = await Store.open(path)
    try:
        referee = Referee(store, roller=RandomRoller(random.Random(5)), clock=lambda: moment)
        state = await referee.state(keys[0])
        nations = [state.nation_of(player).name for player in players]
        for turn in range(turns):
            for key in keys:
                for who in (turn % len(players), (turn + 1) % len(players)):
                    await referee.act(key, players[who], GrowEconomy(), "/economy grow")
                    await referee.act(key, gm, GrantAction(nations[who], "economy"), "/gm action grant")
            moment = T0 + timedelta(hours=TURN_HOURS * (turn + 1), seconds=1)
            await referee.catch_up_due()
    finally:
        await store.close()
    return moment + timedelta(hours=1)


def _count_made(pages: Any) -> list[float]:
    """Times each page made afresh (not from the server's cache: its game had changed), in seconds from the start
    to the end of `render_page` (the store's reads included): a list that grows as the pages are made."""
    made: list[float] = []
    render = pages.render_page

    async def timed(*args: Any, **kwargs: Any) -> bytes:
        began = time.perf_counter()
        try:
            return bytes(await render(*args, **kwargs))
        finally:
            made.append(time.perf_counter() - began)

    pages.render_page = timed
    return made


def _pooled(rounds: list[list[float]]) -> list[float]:
    return [value for values in rounds for value in values]


async def measure(pages_per_second: float, seconds: float, games: int, commands: int, rounds: int,
                  addresses: int, elsewhere: bool = False, turns: int = 0) -> dict[str, Any]:
    """Alternate rounds without and with pages; every figure of the report. The commands are played on the games
    whose pages are read (each changes its game: the next request of its page makes it afresh), or, `elsewhere`,
    on as many other games (every page from the server's cache). `turns`: every game played through so many
    turns first (a longer story, ledger and history on each page)."""
    fakediscord, kit = _discord()
    folder = Path(tempfile.mkdtemp(prefix="bench-web-"))
    try:
        async with fakediscord.FakeDiscord(error_loggers=kit.ERROR_LOGGERS) as fake:
            guild, rooms, gm, players = await _table(fake, 2 * games if elsewhere else games)
            keys = _keys(guild, rooms)
            await build_store(folder / "referee.db", keys, guild.id, str(gm.id), [str(p.id) for p in players])
            now = await play_turns(folder / "referee.db", keys, str(gm.id), [str(p.id) for p in players], turns)
            # the pages served as the bot serves them (WEB_PORT, PUBLIC_URL): started with it, closed with it;
            # what starting made frozen, as a real run (bot.REAL_RUN) does
            host = "127.0.0.1"
            port = _free_port(host)
            bot = bot_with_noop(folder / "referee.db", now, freeze_startup=True, web_host=host, web_port=port,
                                public_url=f"http://{host}:{port}")
            running = await fake.start_bot(bot)
            try:
                referee, pages = bot.referee, bot.pages
                if pages is None:
                    raise RuntimeError("the bot serves no pages (its settings' web_port)")
                made = _count_made(pages)
                nations = [(await referee.state(keys[0])).nation_of(str(p.id)).name for p in players]
                urls = [pages.url(await referee.store.page_token(await referee.store.live_game(key), now))
                        for key in keys[:games]]
                table = Table(fake, kit, bot, guild, rooms[games:] if elsewhere else rooms, gm, players, nations, made)
                async with LoadProcess(urls, addresses) as load:
                    figures = await _rounds(table, load, pages_per_second, seconds, commands, rounds)
            finally:
                await running.close()
        return {"pages_per_second": pages_per_second, "seconds": seconds, "games": games, "commands": commands,
                "rounds": rounds, "addresses": addresses, "elsewhere": elsewhere, "turns": turns, **figures}
    finally:
        shutil.rmtree(folder, ignore_errors=True)


class Table:
    """The bot's side of the rounds: the fake server's table and the commands played at it, each game's five
    players in turn."""

    def __init__(self, fake: Any, kit: Any, bot: Any, guild: Any, rooms: list[Any], gm: Any, players: list[Any],
                 nations: list[str], made: list[float]) -> None:
        from engine.nations.gm import GrantAction

        self.fake, self.kit, self.referee, self.guild = fake, kit, bot.referee, guild
        self.rooms, self.keys, self.gm, self.players, self.nations = rooms, _keys(guild, rooms), gm, players, nations
        self.grant, self.made = GrantAction, made
        self.done = 0  # commands so far: the next one's game and player

    async def timed(self, room: Any, player: Any, command: str) -> float:
        result = await self.fake.invoke(self.guild, room, player, command)
        await self.kit.settle(self.fake)
        if result.ephemeral:  # a refusal: every timed command must be accepted
            raise RuntimeError(f"/{command} was refused: {self.kit.texts(result)}")
        return float(result.acknowledged_at - result.sent_at)

    async def command(self) -> tuple[float, float]:
        """A no-op beside an /economy grow, then the GM gives the action back (through the referee, untimed)."""
        game, who = (self.done // len(self.players)) % len(self.rooms), self.done % len(self.players)
        self.done += 1
        noop = await self.timed(self.rooms[game], self.players[who], "noop")
        grow = await self.timed(self.rooms[game], self.players[who], "economy grow")
        from cogs.util import holding

        with holding():  # (untimed, and not followed up on Discord: the action given back for the next round)
            await self.referee.act(self.keys[game], str(self.gm.id), self.grant(self.nations[who], "economy"),
                                   "/gm action grant")
        return noop, grow

    async def round_of(self, count: int, length: float) -> dict[str, Any]:
        """`count` commands spread evenly over `length` seconds: their no-op and grow latencies, the CPU seconds
        this process spent in the round and the pages made afresh in it."""
        loop = asyncio.get_running_loop()
        cpu, made = time.process_time(), len(self.made)
        start = loop.time()
        step = max(0.0, length - 2 * RAMP) / max(1, count)
        noops, grows = [], []
        for i in range(count):
            delay = start + RAMP + i * step - loop.time()
            if delay > 0:
                await asyncio.sleep(delay)
            noop, grow = await self.command()
            noops.append(noop)
            grows.append(grow)
        rest = start + length - loop.time()
        if rest > 0:
            await asyncio.sleep(rest)
        return {"noop": noops, "grow": grows, "cpu": time.process_time() - cpu, "made": self.made[made:]}


async def _rounds(table: Table, load: LoadProcess, rate: float, seconds: float, commands: int,
                  rounds: int) -> dict[str, Any]:
    """A warm-up, then `rounds` rounds without pages and as many with them, alternating."""
    warmup = min(seconds, 1.0)  # discord.py's and the server's first calls, the load process's imports, connections
    await load.start(rate, warmup)
    await table.round_of(WARMUP_COMMANDS, warmup)
    warm = await load.result(warmup)
    if warm["statuses"].get("200", 0) == 0:
        raise RuntimeError(f"no page was served in the warm-up: {warm}")
    quiet, loaded = [], []
    for _ in range(rounds):
        quiet.append(await table.round_of(commands, seconds))
        await load.start(rate, seconds)
        loaded.append(await table.round_of(commands, seconds))
        loaded[-1]["load"] = await load.result(seconds)
    return {"quiet": quiet, "loaded": loaded}


# --- the report -------------------------------------------------------------------------------------------


def report(r: dict[str, Any], out: Any = print) -> bool:
    """The figures, one line each; returns whether the goal is met."""
    quiet, loaded = r["quiet"], r["loaded"]
    bursts = [each["load"] for each in loaded]
    requested = sum(b["requested"] for b in bursts)
    statuses: collections.Counter[str] = collections.Counter()
    failures: collections.Counter[str] = collections.Counter()
    for b in bursts:
        statuses.update(b["statuses"])
        failures.update(b["failures"])
    ok = statuses.get("200", 0)
    skipped, unfinished = sum(b["skipped"] for b in bursts), sum(b["unfinished"] for b in bursts)
    served = ok / sum(b["elapsed"] for b in bursts)
    latencies = _pooled([b["latencies"] for b in bursts])
    others = ", ".join(f"{count} × {status}" for status, count in sorted(statuses.items()) if status != "200")
    broke = ", ".join(f"{count} × {name}" for name, count in sorted(failures.items()))
    wrong = "; ".join(part for part in (
        others and f"other answers: {others}", broke and f"failed: {broke}",
        skipped and f"{skipped} not sent ({IN_FLIGHT} already waiting)",
        unfinished and f"{unfinished} unanswered {REQUEST_TIMEOUT + 5:g} s after the round") if part)
    played = f" (each played through {r['turns']} turns first)" if r["turns"] else ""
    out(f"game pages (issue 22): {r['games']} games'{played} pages at {r['pages_per_second']:g} pages/s from "
        f"{r['addresses']} client addresses, {r['rounds']} rounds of {r['seconds']:g} s with pages and {r['rounds']} "
        f"without, alternating, {r['commands']} /economy grow a round "
        + ("on as many other games" if r["elsewhere"] else "on the games whose pages are read")
        + "; bot, fake Discord and web server in one process")
    out(f"pages served: {served:,.1f}/s ({ok:,} of {requested:,} requests answered 200 OK"
        + (f"; {wrong}" if wrong else "; no other status, no failure") + ")"
        + (f", {statistics.median([b['bytes'] for b in bursts]) / KIB:.1f} KiB a page" if ok else ""))
    if latencies:
        out(f"page latency (as the client sees it): median {ms(statistics.median(latencies))}, "
            f"p99 {ms(percentile(latencies, 0.99))}, max {ms(max(latencies))}")
    else:
        out("page latency (as the client sees it): no page served")
    made = _pooled([each["made"] for each in loaded])
    if made:
        out(f"pages made afresh (their game had changed since its page was cached): {len(made):,} of {ok:,}, "
            f"{len(made) / r['rounds'] / r['seconds']:.1f}/s; render_page median {ms(statistics.median(made))}, "
            f"p99 {ms(percentile(made, 0.99))}, max {ms(max(made))}")
    else:
        out(f"pages made afresh (their game had changed since its page was cached): none of {ok:,}")
    medians = {}
    for name, rounds in (("without pages", quiet), ("with pages", loaded)):
        grow, noop = _pooled([each["grow"] for each in rounds]), _pooled([each["noop"] for each in rounds])
        medians[name] = statistics.median(grow)
        out(f"/economy grow {name}: median {ms(statistics.median(grow))}, p99 {ms(percentile(grow, 0.99))} "
            f"({len(grow)} commands; round medians "
            f"{', '.join(ms(statistics.median(each['grow'])) for each in rounds)}); a no-op slash command: "
            f"median {ms(statistics.median(noop))}, p99 {ms(percentile(noop, 0.99))}")
    length = r["seconds"] * r["rounds"]
    cpu_quiet, cpu_loaded = sum(each["cpu"] for each in quiet), sum(each["cpu"] for each in loaded)
    per_page = (cpu_loaded - cpu_quiet) / ok if ok else math.nan
    out(f"the bot's process: {cpu_quiet / length:.0%} of a core without pages, {cpu_loaded / length:.0%} with them: "
        f"{per_page * 1000:.2f} ms of CPU a page; the load process: "
        f"{sum(b['cpu'] for b in bursts) / length:.0%} of a core")
    ratio = medians["with pages"] / medians["without pages"]
    spread = [statistics.median(each["grow"]) for each in quiet]
    met_pages = ok >= SERVED * requested and served >= SERVED * r["pages_per_second"] and not wrong
    goal_pages = r["pages_per_second"] >= GOAL_PAGES
    met = met_pages and ratio <= NOISE and goal_pages
    drift = max(spread) / min(spread)
    noisy = (f" (the rounds without pages differ by ×{drift:.2f} among themselves: the machine was busy, the ratio "
             "is not to be trusted)") if drift > NOISE else ""
    out(f"pages while the bot answers: {served:,.1f} pages/s served; /economy grow median ×{ratio:.2f} with pages "
        f"(rounds without pages: {ms(min(spread))} to {ms(max(spread))}; within noise: ≤ ×{NOISE:g}) "
        f"(goal: {GOAL_PAGES:g} pages/s, interaction latency unchanged within noise) — {verdict(met)}"
        + ("" if goal_pages else f" (at {r['pages_per_second']:g} pages/s: judged at {GOAL_PAGES:g})") + noisy)
    return met


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m bench.web", description=__doc__.split("\n\n")[0])
    parser.add_argument("--pages-per-second", type=float, default=GOAL_PAGES, help="the pace (default 200)")
    parser.add_argument("--seconds", type=float, default=5.0, help="each round's length (default 5 s)")
    parser.add_argument("--games", type=int, default=20, help="games, whose pages are read (default 20)")
    parser.add_argument("--commands", type=int, default=100, help="timed /economy grow a round (default 100)")
    parser.add_argument("--rounds", type=int, default=3, help="rounds with pages, and as many without (default 3)")
    parser.add_argument("--addresses", type=int, default=50, help="the client addresses the pages are read from, "
                        "127.0.0.2 and on (default 50)")
    parser.add_argument("--commands-elsewhere", action="store_true", help="play the commands on other games than "
                        "those whose pages are read (every page from the server's cache)")
    parser.add_argument("--turns", type=int, default=0, help="turns every game is played through before the rounds "
                        "(default 0: turn 1; longer games, longer pages)")
    parser.add_argument("--load", help=argparse.SUPPRESS)  # (the load process)
    args = parser.parse_args(argv)
    if not (0 < args.pages_per_second <= 5000 and 0 < args.seconds <= 120 and 1 <= args.games <= 10_000
            and 1 <= args.commands <= 10_000 and 1 <= args.rounds <= 20 and 1 <= args.addresses <= 250
            and 0 <= args.turns <= 1000):
        parser.error("--pages-per-second up to 5000, --seconds up to 120, --games 1..10000, --commands 1..10000, "
                     "--rounds 1..20, --addresses 1..250, --turns 0..1000")
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    if args.load:
        setup = json.loads(args.load)
        asyncio.run(load_main(setup["urls"], setup["addresses"]))
        return 0
    limit = (120 + args.turns * args.games * 0.05 + 2 * args.rounds * (args.seconds + REQUEST_TIMEOUT + 30)
             + args.commands * args.rounds * 0.2)
    found = asyncio.run(asyncio.wait_for(
        measure(args.pages_per_second, args.seconds, args.games, args.commands, args.rounds, args.addresses,
                args.commands_elsewhere, args.turns),
        timeout=limit))
    report(found, out=lambda line: print(line, flush=True))
    return 0


if __name__ == "__main__":
    sys.exit(main())
