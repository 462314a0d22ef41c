"""Issue 33's benchmark: the page server under the attacks that starved it — idle connections from one address,
and downloads of a long ledger's CSV.

    python -m bench.web_starve [--files 1024] [--idle 2000] [--rolls 100000] [--downloads 30] [--seconds 5]

The server runs in a process of its own (`--serve`, started by this one), as the bot serves it: `GamePages.start`
on 127.0.0.1, its file limit set to `--files` first (1,024: what systemd allowed the attacked bot), on a store
whose one Nations game's ledger holds `--rolls` rolls (built as bench.export builds it). This process is the
attacker and the readers; it reads the server's open files and memory in /proc.

1. `--idle` connections opened from 127.0.0.1 that send nothing: how many the server keeps, its open files, and
   the latency of a page read from other addresses (127.0.0.2 and on, a new connection each) meanwhile, beside
   the same read with no attack; then the same with every connection reopened as soon as the server closes it,
   for `--seconds` (the server's CPU and its log's size told too).
2. `--downloads` downloads of `/g/<token>/rolls.csv`, each from an address of its own, all at once, then 8 at a
   time (the server's cap): their answers, the server's resident memory before, at its peak and after, and a
   page read meanwhile.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import resource
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from bench.build import ms, percentile

ROOT = Path(__file__).resolve().parent.parent
MIB = 1024 * 1024
PAGE_READS = 100  # page requests timed in each phase (from 20 addresses: under the limit of requests per address)
READERS = 20
SPREAD = 100  # addresses of the attack from many addresses
DOWNLOADS_AT_ONCE = 8  # the server's cap on downloads at once (`GamePages.max_downloads`)
HANG = 60.0


# --- the server's process -----------------------------------------------------------------------------------


async def serve(db: str, files: int) -> None:
    """The page server on `db` (its one game's page), its file limit `files`; prints {"port", "path", "limits"},
    then answers "stats" lines on stdin with its guard's counts until stdin ends."""
    import logging

    from data.store import Store
    from service.referee import Referee
    from web.server import GamePages

    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    _, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(files, hard), hard))
    store = await Store.open(Path(db))
    loop = asyncio.get_running_loop()
    try:
        game_id = await store.live_game("export")
        assert game_id is not None
        from bench.build import T0

        token = await store.page_token(game_id, T0)
        pages = GamePages(Referee(store), "http://127.0.0.1")
        await pages.start("127.0.0.1", 0)
        port = pages._runner.addresses[0][1] if pages._runner is not None else 0
        limits = getattr(pages, "server_limits", None)
        print(json.dumps({"port": port, "path": f"/g/{token}", "pid": os.getpid(),
                          "limits": None if limits is None else {"connections": limits.connections,
                                                                 "per_address": limits.per_address,
                                                                 "streams": pages.max_listeners,
                                                                 "head_seconds": limits.head_seconds}}), flush=True)
        while (await loop.run_in_executor(None, sys.stdin.readline)).strip():
            guard = getattr(pages, "guard", None)
            print(json.dumps({"open": None if guard is None else guard.open,
                              "counts": None if guard is None else dict(guard.counts)}), flush=True)
        await pages.close()
    finally:
        await store.close()


class Server:
    """The server's process, seen from here: its stats, open files, memory, CPU and log."""

    def __init__(self, db: Path, files: int, root: Path) -> None:
        self.db, self.files, self.root = db, files, root
        self.log_bytes = 0
        self.log_lines = 0

    async def __aenter__(self) -> Server:
        self.process = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "bench.web_starve", "--serve", str(self.db), "--files", str(self.files),
            cwd=self.root, stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE, env={**os.environ, "PYTHONUNBUFFERED": "1"})
        self._drain = asyncio.create_task(self._count_log())
        self.info = await self._line()
        self.pid, self.port, self.path = self.info["pid"], self.info["port"], self.info["path"]
        return self

    async def __aexit__(self, *exc: object) -> None:
        assert self.process.stdin is not None
        try:
            self.process.stdin.write(b"\n")
            self.process.stdin.close()
            await asyncio.wait_for(self.process.wait(), HANG)
        except (OSError, TimeoutError):
            self.process.kill()
            await self.process.wait()
        await self._drain

    async def _count_log(self) -> None:
        assert self.process.stderr is not None
        while line := await self.process.stderr.readline():
            self.log_bytes += len(line)
            self.log_lines += 1
            if os.environ.get("BENCH_SHOW_LOG"):
                print("server:", line.decode().rstrip()[:300], file=sys.stderr)

    async def _line(self) -> dict[str, Any]:
        assert self.process.stdout is not None
        line = await asyncio.wait_for(self.process.stdout.readline(), HANG)
        if not line:
            raise RuntimeError(f"the server ended (exit status {await self.process.wait()})")
        return dict(json.loads(line))

    async def stats(self) -> dict[str, Any]:
        assert self.process.stdin is not None
        self.process.stdin.write(b"stats\n")
        return await self._line()

    def files_open(self) -> int:
        return len(os.listdir(f"/proc/{self.pid}/fd"))

    def status(self, field: str) -> int:
        """Bytes of /proc/<pid>/status's `field` (VmRSS, VmHWM)."""
        with open(f"/proc/{self.pid}/status") as status:
            for line in status:
                if line.startswith(field + ":"):
                    return int(line.split()[1]) * 1024
        return 0

    def reset_peak(self) -> None:
        with open(f"/proc/{self.pid}/clear_refs", "w") as refs:
            refs.write("5")

    def cpu(self) -> float:
        """Seconds of CPU the server has used."""
        with open(f"/proc/{self.pid}/stat") as stat:
            fields = stat.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


# --- the attacker and the readers ---------------------------------------------------------------------------


async def read_pages(port: int, path: str, count: int = PAGE_READS, pace: float = 0.0,
                     budget: float = 30.0) -> dict[str, Any]:
    """`count` page reads, one after another (`pace` seconds apart at most), from `READERS` addresses in turn, a
    new connection each, for `budget` seconds at most: their latencies (200 OK) and the other outcomes."""
    import aiohttp

    sessions = [aiohttp.ClientSession(connector=aiohttp.TCPConnector(force_close=True,
                                                                      local_addr=(f"127.0.0.{2 + i}", 0)),
                                      timeout=aiohttp.ClientTimeout(total=5)) for i in range(READERS)]
    latencies: list[float] = []
    other: dict[str, int] = {}
    end = time.perf_counter() + budget
    try:
        for i in range(count):
            if time.perf_counter() > end:
                other["not tried (out of time)"] = count - i
                break
            began = time.perf_counter()
            try:
                async with sessions[i % READERS].get(f"http://127.0.0.1:{port}{path}") as response:
                    await response.read()
                    if response.status == 200:
                        latencies.append(time.perf_counter() - began)
                    else:
                        other[str(response.status)] = other.get(str(response.status), 0) + 1
            except (aiohttp.ClientError, OSError, TimeoutError) as error:
                other[type(error).__name__] = other.get(type(error).__name__, 0) + 1
            rest = pace - (time.perf_counter() - began)
            if rest > 0:
                await asyncio.sleep(rest)
    finally:
        for session in sessions:
            await session.close()
    return {"latencies": latencies, "other": other, "count": count}


def pages_text(r: dict[str, Any]) -> str:
    lat, other = r["latencies"], r["other"]
    said = f"{len(lat)} of {r['count']} answered 200"
    if other:
        said += " (" + ", ".join(f"{n} × {what}" for what, n in sorted(other.items())) + ")"
    if not lat:
        return said
    return f"{said}; p50 {ms(statistics.median(lat))}, p99 {ms(percentile(lat, 0.99))}"


async def open_idle(port: int, count: int, addresses: int = 1) -> list[tuple[asyncio.StreamReader,
                                                                               asyncio.StreamWriter]]:
    """`count` connections that send nothing (opened 100 at a time), from 127.0.0.1 or from `addresses` addresses
    (127.0.1.1 and on)."""
    opened: list[tuple[asyncio.StreamReader, asyncio.StreamWriter]] = []

    def connect(i: int) -> Any:
        where = ("127.0.0.1", 0) if addresses == 1 else (f"127.0.1.{1 + i % addresses}", 0)
        return asyncio.wait_for(asyncio.open_connection("127.0.0.1", port, local_addr=where), 5)

    for start in range(0, count, 100):
        batch = await asyncio.gather(*(connect(i) for i in range(start, min(count, start + 100))),
                                     return_exceptions=True)
        opened += [pair for pair in batch if not isinstance(pair, BaseException)]
    return opened


async def settled(server: Server, pairs: list[Any]) -> int:
    """How many of `pairs` the server still holds, once it has dealt with them all: what it does not keep it
    closes at once (the reading side sees the end), so wait until its count stops moving."""
    await asyncio.sleep(0.2)
    last = -1
    for _ in range(50):
        held = sum(1 for reader, _ in pairs if not reader.at_eof())
        if held == last:
            return held
        last = held
        await asyncio.sleep(0.1)
    return last


def close_all(pairs: list[Any]) -> None:
    for _, writer in pairs:
        writer.close()


async def reopening(port: int, count: int, seconds: float) -> dict[str, int]:
    """`count` connections from 127.0.0.1 kept open for `seconds`: each reopened as soon as the server closes it
    (in a process of its own: `--attack`, so that the page reads are not timed through a busy loop)."""
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "bench.web_starve", "--attack", json.dumps([port, count, seconds]), cwd=ROOT,
        stdout=asyncio.subprocess.PIPE)
    out, _ = await asyncio.wait_for(process.communicate(), seconds + HANG)
    return dict(json.loads(out))


def attack(port: int, count: int, seconds: float) -> None:
    """The attacker's process: prints how many connections it opened, and how many connects were unfinished."""
    resource.setrlimit(resource.RLIMIT_NOFILE, (resource.getrlimit(resource.RLIMIT_NOFILE)[1],) * 2)
    print(json.dumps(asyncio.run(_reopen(port, count, seconds))))


async def _reopen(port: int, count: int, seconds: float) -> dict[str, int]:
    deadline = time.perf_counter() + seconds
    opened = [0]
    failed: dict[str, int] = {}

    async def one() -> None:
        while time.perf_counter() < deadline:
            try:
                reader, writer = await asyncio.wait_for(asyncio.open_connection("127.0.0.1", port),
                                                        max(0.01, deadline - time.perf_counter()))
            except TimeoutError:  # (still connecting at the end)
                break
            except OSError as error:
                failed[type(error).__name__] = failed.get(type(error).__name__, 0) + 1
                await asyncio.sleep(0.05)
                continue
            opened[0] += 1
            try:
                await asyncio.wait_for(reader.read(), max(0.01, deadline - time.perf_counter()))
            except (OSError, TimeoutError):
                pass
            writer.close()

    await asyncio.gather(*(one() for _ in range(count)))
    return {"opened": opened[0], **failed}


async def downloads(server: Server, count: int, at_once: int) -> dict[str, Any]:
    """`count` downloads of the CSV, `at_once` at a time, each from an address of its own (127.0.0.100 and on)."""
    import aiohttp

    turns = asyncio.Semaphore(at_once)

    async def one(i: int) -> tuple[int, int]:
        async with turns:
            return await fetch(i)

    async def fetch(i: int) -> tuple[int, int]:
        connector = aiohttp.TCPConnector(force_close=True, local_addr=(f"127.0.0.{100 + i}", 0))
        async with aiohttp.ClientSession(connector=connector, timeout=aiohttp.ClientTimeout(total=300)) as session:
            async with session.get(f"http://127.0.0.1:{server.port}{server.path}/rolls.csv") as response:
                size = 0
                async for data in response.content.iter_chunked(1 << 16):
                    size += len(data)
                return response.status, size

    before = server.status("VmRSS")
    server.reset_peak()
    began = time.perf_counter()
    answers = await asyncio.gather(*(one(i) for i in range(count)), return_exceptions=True)
    took = time.perf_counter() - began
    statuses: dict[str, int] = {}
    sizes = []
    for answer in answers:
        key = type(answer).__name__ if isinstance(answer, BaseException) else str(answer[0])
        statuses[key] = statuses.get(key, 0) + 1
        if not isinstance(answer, BaseException) and answer[0] == 200:
            sizes.append(answer[1])
    await asyncio.sleep(0.5)
    return {"before": before, "peak": server.status("VmHWM"), "after": server.status("VmRSS"), "took": took,
            "statuses": statuses, "size": statistics.median(sizes) if sizes else 0}


# --- the run ------------------------------------------------------------------------------------------------


async def build(folder: Path, rolls: int) -> Path:
    from bench.export import grow_ledger, play_rolls

    path = folder / "starve.db"
    game_id = await play_rolls(path, commands=100)
    grow_ledger(path, game_id, rolls)
    return path


async def run(files: int, idle: int, rolls: int, count: int, seconds: float, root: Path, out: Any = print) -> None:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))  # (this process holds the attacker's connections)
    idle = min(idle, hard - 200)
    with tempfile.TemporaryDirectory() as folder:
        db = await build(Path(folder), rolls)
        async with Server(db, files, root) as server:
            limits = server.info["limits"]
            shown = (f"at most {limits['connections']:,} connections, {limits['per_address']} an address, "
                     f"{limits['streams']:,} live streams, a request within {limits['head_seconds']:g} s"
                     if limits else "no limits of its own")
            out(f"page server under attack (issue 33): file limit {files:,}; {shown}; "
                f"{idle:,} idle connections from one address")
            quiet = await read_pages(server.port, server.path)
            out(f"  no attack: {server.files_open()} files open; a page read: {pages_text(quiet)}")
            log_before = server.log_bytes
            for addresses, whence in ((1, ""), (SPREAD, f" from {SPREAD} addresses")):
                pairs = await open_idle(server.port, idle, addresses)
                held = await settled(server, pairs)
                files_held = server.files_open()
                during = await read_pages(server.port, server.path)
                stats = await server.stats()
                out(f"  {len(pairs):,} idle connections opened{whence}: the server keeps {held:,} "
                    f"({stats['open'] if stats['open'] is not None else '?'} by its own count), {files_held:,} "
                    f"files open; a page read meanwhile: {pages_text(during)}")
                close_all(pairs)
            cpu = server.cpu()
            attack = asyncio.create_task(reopening(server.port, idle, seconds))
            await asyncio.sleep(min(1.0, seconds / 4))
            files_mid = server.files_open()
            reads = await read_pages(server.port, server.path, count=max(20, int(seconds * 10)), pace=0.1)
            opened = await attack
            cpu = server.cpu() - cpu
            stats = await server.stats()
            await asyncio.sleep(0.5)
            out(f"  {idle:,} connections reopened as soon as closed, for {seconds:g} s: {opened['opened']:,} opened "
                f"({opened['opened'] / seconds:,.0f}/s"
                + "".join(f", {n:,} × {what}" for what, n in opened.items() if what != "opened")
                + f"), {files_mid:,} files open; the server used {cpu / seconds:.0%} of a core; a page read "
                f"meanwhile: {pages_text(reads)}")
            out(f"  the server's log during the attack: {server.log_bytes - log_before:,} bytes"
                + (f"; its counts: {json.dumps(stats['counts'])}" if stats["counts"] is not None else ""))
            for at_once in (count, DOWNLOADS_AT_ONCE) if count > DOWNLOADS_AT_ONCE else (count,):
                loading = asyncio.create_task(downloads(server, count, at_once))
                await asyncio.sleep(0.5)
                reads = await read_pages(server.port, server.path, count=50, pace=0.1)
                r = await loading
                answers = ", ".join(f"{n} × {status}" for status, n in sorted(r["statuses"].items()))
                out(f"  {count} downloads of rolls.csv ({rolls:,} rolls, {r['size'] / MIB:.1f} MiB each) from "
                    f"{count} addresses, " + ("all at once" if at_once >= count else f"{at_once} at a time")
                    + f": {answers} in {r['took']:.1f} s; the server's memory {r['before'] / MIB:.0f} MiB before, "
                    f"{r['peak'] / MIB:.0f} MiB at its peak, {r['after'] / MIB:.0f} MiB after; a page read "
                    f"meanwhile: {pages_text(reads)}")
    resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.web_starve", description=__doc__.split("\n\n")[0])
    parser.add_argument("--files", type=int, default=1024, help="the server's file limit (default 1024)")
    parser.add_argument("--idle", type=int, default=2000, help="idle connections from one address (default 2000)")
    parser.add_argument("--rolls", type=int, default=100_000, help="rolls in the ledger (default 100000)")
    parser.add_argument("--downloads", type=int, default=30, help="CSV downloads at once (default 30)")
    parser.add_argument("--seconds", type=float, default=5.0, help="the reopening attack's length (default 5 s)")
    parser.add_argument("--server-root", type=Path, default=ROOT, help="the checkout the server runs from (another "
                        "one's figures: before and after)")
    parser.add_argument("--serve", help=argparse.SUPPRESS)  # (the server's process: its database)
    parser.add_argument("--attack", help=argparse.SUPPRESS)  # (the reopening attacker's process)
    args = parser.parse_args(argv)
    if not (64 <= args.files <= 1 << 20 and 1 <= args.idle <= 100_000 and 100 <= args.rolls <= 1_000_000
            and 1 <= args.downloads <= 150 and 0 < args.seconds <= 120):
        parser.error("--files 64..1048576, --idle 1..100000, --rolls 100..1000000, --downloads 1..150, "
                     "--seconds up to 120")
    if args.attack:
        attack(*json.loads(args.attack))
        return 0
    if args.serve:
        asyncio.run(serve(args.serve, args.files))
        return 0
    asyncio.run(run(args.files, args.idle, args.rolls, args.downloads, args.seconds, args.server_root.resolve(),
                    out=lambda line: print(line, flush=True)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
