"""What the benchmarks share: their constants, how they measure (memory, percentiles), how they build many games
fast (one game played through the referee, then copied), the action a throughput row repeats, the bot on the fake
Discord with a no-op command beside the real ones, and how a figure is printed."""

from __future__ import annotations

import asyncio
import json
import math
import os
import random
import sqlite3
import subprocess
import sys
from collections.abc import Callable, Coroutine
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
TESTS = ROOT / "tests" / "support"
T0 = datetime(2030, 1, 1, 12, 0, tzinfo=UTC)  # turn 1 of every built game starts here (12-hour turns)
TURN_HOURS = 12.0
PRESETS = ["1", "7", "9", "10", "11"]  # five nations; preset 11 has no name of its own
GUILD_ID = 4242  # the server of the games that need no fake Discord (rollover, throughput)
MB = 1_000_000
MIB = 1024 * 1024
RESULT = "RESULT "
ANNOUNCED_PER_SECOND = 40  # the clock's pace (cogs.clock.ANNOUNCEMENTS_PER_SECOND), for the rollover's announcer


# --- measuring ------------------------------------------------------------------------------------------


def _status_kib(field: str) -> int:
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    raise KeyError(field)


def reset_peak() -> bool:
    """Start a new peak RSS window (Linux: writing 5 to clear_refs resets VmHWM); False when not possible."""
    try:
        with open("/proc/self/clear_refs", "w") as refs:
            refs.write("5")
        return True
    except OSError:
        return False


def peak_rss() -> int:
    """Bytes: the resident set's high-water mark since the last `reset_peak` (or since the process began)."""
    try:
        return _status_kib("VmHWM") * 1024
    except (OSError, KeyError):
        import resource

        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, math.ceil(fraction * len(ordered)) - 1))]


# --- building many games fast -----------------------------------------------------------------------------


async def play_template(path: Path, channel: str, guild_id: int | None, gm: str, players: list[str],
                        start: datetime = T0, turn_hours: float = TURN_HOURS) -> None:
    """One five-nation Nations game played through the referee into a new store: started, five nations
    claimed, each with land 40 (room to grow)."""
    from data.store import Store
    from engine.dice import RandomRoller
    from engine.nations.gm import SetStat
    from engine.nations.peace import ClaimPreset
    from service.referee import Referee

    store = await Store.open(path)
    try:
        referee = Referee(store, roller=RandomRoller(random.Random(1)), clock=lambda: start)
        await referee.start_game(channel, gm, turn_hours=turn_hours, guild_id=guild_id)
        for player, preset in zip(players, PRESETS, strict=True):
            name = "Merewyn" if preset == "11" else None
            report = await referee.act(channel, gm, ClaimPreset(preset, player, name), "/nation claim")
            nation = report.state.nation_of(player).name
            await referee.act(channel, gm, SetStat(nation, "land", 40), "/gm set")
    finally:
        await store.close()


def clone_games(path: Path, channels: list[str]) -> None:
    """Copy the store's one game (its `games` row, actions, events and rolls) once per channel, with SQL."""
    con = sqlite3.connect(path, isolation_level=None)
    try:
        con.execute("BEGIN IMMEDIATE")
        [(template,)] = con.execute("SELECT id FROM games").fetchall()
        columns = [row[1] for row in con.execute("PRAGMA table_info(games)") if row[1] not in ("id", "channel")]
        listed = ", ".join(columns)
        con.executemany(f"INSERT INTO games (id, channel, {listed}) SELECT ?, ?, {listed} FROM games WHERE id = ?",
                        [(template + i, channel, template) for i, channel in enumerate(channels, 1)])
        spans = {table: con.execute(f"SELECT COALESCE(MAX(id), 0) FROM {table}").fetchone()[0]
                 for table in ("actions", "events", "rolls")}
        for table in ("actions", "events", "rolls"):
            names = [row[1] for row in con.execute(f"PRAGMA table_info({table})")]
            values = []
            for name in names:
                if name == "id":
                    values.append(f"t.id + (g.id - {template}) * {spans[table]}")
                elif name == "game_id":
                    values.append("g.id")
                elif name == "action_id":
                    values.append(f"t.action_id + (g.id - {template}) * {spans['actions']}")
                else:
                    values.append(f"t.{name}")
            con.execute(f"INSERT INTO {table} ({', '.join(names)}) SELECT {', '.join(values)}"
                        f" FROM games g JOIN {table} t ON t.game_id = {template} WHERE g.id != {template}")
        con.execute("COMMIT")
    finally:
        con.close()


async def build_store(path: Path, channels: list[str], guild_id: int | None, gm: str, players: list[str],
                      start: datetime = T0, turn_hours: float = TURN_HOURS) -> None:
    """A store holding one game per channel, all alike: the first played, the others cloned."""
    await play_template(path, channels[0], guild_id, gm, players, start, turn_hours)
    clone_games(path, channels[1:])


# --- the actions a row repeats, and the bot on the fake Discord -------------------------------------


async def grow_or_grant(referee: Any, channel: str, i: int, players: list[str], nations: list[str]) -> None:
    """Action `i` of the throughput rows: a player grows its economy (even `i`), then the GM gives that action back
    (odd `i`), the players in turn: every action is accepted and commits one transaction."""
    from engine.nations.gm import GrantAction
    from engine.nations.peace import GrowEconomy

    who = (i // 2) % len(players)
    if i % 2 == 0:
        await referee.act(channel, players[who], GrowEconomy(), "/economy grow")
    else:
        await referee.act(channel, "gm", GrantAction(nations[who], "economy"), "/gm action grant")


def postgres_server(url: str | None, skip: str | None = None) -> tuple[str | None, Any, str | None]:
    """A PostgreSQL server for a bench's rows: (its URL, the throwaway server started for them or None when `url`
    was given, None) — or (None, None, the reason the rows are skipped: `skip`, or why none could start). Stop a
    throwaway server with `.stop()`."""
    if skip is not None:
        return None, None, skip
    if url:
        return url, None, None
    if str(TESTS) not in sys.path:
        sys.path.insert(0, str(TESTS))
    from pgserver import PgServer, unavailable  # tests/support/pgserver.py: the throwaway server

    reason = unavailable()
    if reason is not None:
        return None, None, reason
    server = PgServer()
    try:
        return server.start(), server, None
    except RuntimeError as err:
        server.stop()
        return None, None, str(err).splitlines()[0]


def _discord() -> Any:
    """The fake Discord and the test kit (tests/ on the path)."""
    if str(TESTS) not in sys.path:
        sys.path.insert(0, str(TESTS))
    import discordkit
    import fakediscord

    return fakediscord, discordkit


def bot_with_noop(db: Path, now: datetime, **settings: Any) -> Any:
    """The bot on `db` with its clock standing still at `now` (no turn ends) and a /noop command that answers at
    once: the reference a command's latency is set against. `settings`: more of `discordkit.config`'s."""
    import discord
    from discord import app_commands

    _, kit = _discord()
    bot = kit.create_bot(*kit.config(db, kit.FakeClock(now), kit.Dice(), **settings), guild_ready_timeout=0.05)

    async def noop(interaction: discord.Interaction) -> None:
        await interaction.response.send_message("ok")

    bot.tree.add_command(app_commands.Command(name="noop", description="answers at once (benchmark)", callback=noop))
    return bot


async def _table(fake: Any, channels: int) -> tuple[Any, list[Any], Any, list[Any]]:
    """One fake server with `channels` channels, a GM and five players."""
    guild = fake.add_guild("Bench")
    rooms = [fake.add_channel(guild, f"game-{i}") for i in range(channels)]
    gm, *players = [fake.add_member(guild, fake.add_user(name)) for name in ["gm", *(f"p{i}" for i in range(5))]]
    return guild, rooms, gm, players


def _keys(guild: Any, rooms: list[Any]) -> list[str]:
    return [f"discord:{guild.id}:{room.id}" for room in rooms]


# --- printing a figure ---------------------------------------------------------------------------------


def verdict(met: bool) -> str:
    return "met" if met else "missed"


def ms(seconds: float) -> str:
    return f"{seconds * 1000:.2f} ms" if seconds < 0.1 else f"{seconds * 1000:.0f} ms"


def mib(size: float) -> str:
    return f"{size / MIB:.0f} MiB"


def worker_in_process(module: str, name: str, timeout: float, prefix: list[str] | None = None,
                      **kwargs: Any) -> dict[str, Any]:
    """One measurement in a fresh Python process, `python -m <module> --worker <name>` (under `prefix`, e.g.
    strace): its result, the last RESULT line of its output."""
    command = [*(prefix or []), sys.executable, "-m", module, "--worker", name, "--kwargs", json.dumps(kwargs)]
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=timeout,
                          stdin=subprocess.DEVNULL, env={**os.environ, "PYTHONUNBUFFERED": "1"})
    lines = [line for line in done.stdout.splitlines() if line.startswith(RESULT)]
    if done.returncode != 0 or not lines:
        raise RuntimeError(f"worker {name} {kwargs} failed ({done.returncode}):\n{done.stdout}\n{done.stderr[-3000:]}")
    return dict(json.loads(lines[-1][len(RESULT):]))


def worker_or_report(args: Any, workers: dict[str, Callable[..., Coroutine[Any, Any, Any]]],
                     report: Callable[..., Any]) -> int:
    """A benchmark module's `main`: run the worker `args.worker` asks for (printing its RESULT line), else the
    report, each line printed as it comes."""
    if args.worker:
        result: Any = asyncio.run(workers[args.worker](**json.loads(args.kwargs)))
        print(RESULT + json.dumps(result), flush=True)
        return 0
    report(args, out=lambda line: print(line, flush=True))
    return 0
