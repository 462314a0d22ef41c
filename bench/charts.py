"""Charts (issue 19): a chart of a long Nations game built from the stored stat history and drawn as a PNG, and
the bot's interaction latency while charts are being drawn.

    python -m bench.charts [--turns 500] [--nations 8]   # about 20 s
    python -m bench                                     # runs it in a subprocess of its own

The game is built fast but through the store's own code: a real game is started on the referee and its nations
claimed (five presets, the others created), then each turn (1 … N-1) gets a few hundred synthetic stat changes
(random walks of the five stats of every nation; a few battles won/lost and conquests, as marks), written with
`data.store.insert_history` in one store transaction, followed by a real `/gm turn end` through the referee
(so the game's turn is N and the rows are in the order a played game would write them). The live state's
stats stay the claims' (a chart reads the history only).

Measured:
- the chart spec: `store.history` + `chartspec.game_chart` (and `nation_chart`), median of 5;
- its PNG: `charts.render_png` inline (median of 5 after one warm-up), and `await charts.render` in the worker
  process (the first call, which spawns the worker and imports matplotlib there, then the median of 5);
- latency: the real bot (discord.py) against the fake Discord of tests/support/fakediscord.py, as bench/scale.py's
  `commands` row measures it (interaction written to the bot's socket → initial response received): a no-op
  slash command and /game status, idle, then while a background task posts `/game chart` back to back (each
  one waiting for the chart's follow-up message before the next).
"""

from __future__ import annotations

import argparse
import asyncio
import io
import random
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from datetime import timedelta
from pathlib import Path
from typing import Any

from bench.build import PRESETS, T0, TURN_HOURS, _discord, _keys, bot_with_noop, percentile
from bench.export import lag_probe, lag_text

SECOND = 1.0  # the goal: a chart of a 500-turn game rendered in under a second
STATS = ("land", "economy", "stability", "military", "propaganda")
CUSTOM = ["Ostmark", "Valdoria", "Kessel", "Thule", "Aurel", "Brask", "Corvin", "Dalmar", "Eskar", "Fenwick",
          "Galdor", "Hesper", "Istria", "Jorvik", "Kalmar", "Lysse", "Morrow", "Norland", "Orsk"]


# --- building the game -------------------------------------------------------------------------------------


def walk_turn(rng: random.Random, turn: int, values: dict[tuple[str, str], int], nations: list[str],
              at: Any) -> list[Any]:
    """One turn's history: each nation's stats drift (land a third of the turns, the others a fifth), and now and
    then a battle (its winner and loser marked) or a conquest (land up, marked)."""
    from engine.history import HistoryEntry

    found = []
    if rng.random() < 0.04 and len(nations) > 1:
        winner, loser = rng.sample(nations, 2)
        found += [HistoryEntry(turn, at, winner, "", None, "battle won"),
                  HistoryEntry(turn, at, loser, "", None, "battle lost")]
        if rng.random() < 0.5:
            found.append(HistoryEntry(turn, at, winner, "", None, "conquest"))
            values[(winner, "land")] += rng.randint(2, 5)
            values[(loser, "land")] = max(5, values[(loser, "land")] - rng.randint(2, 5))
            found += [HistoryEntry(turn, at, side, "land", values[(side, "land")]) for side in (winner, loser)]
    for nation in nations:
        for stat in STATS:
            if rng.random() < (0.33 if stat == "land" else 0.2):
                low, high = (5, 200) if stat == "land" else (0, 40)
                values[(nation, stat)] = min(high, max(low, values[(nation, stat)] + rng.choice((-2, -1, 1, 1, 2))))
                found.append(HistoryEntry(turn, at, nation, stat, values[(nation, stat)]))
    return found


async def build_game(path: Path, channel: str, guild_id: int | None, gm: str, players: list[str],
                     turns: int, seed: int = 19) -> dict[str, Any]:
    """The game of the module's docstring; returns its id, the rows of its history and how long it took."""
    from data.store import Store, insert_history
    from engine.dice import RandomRoller
    from engine.nations.clock import EndTurn
    from engine.nations.peace import ClaimPreset, CreateNation
    from service.referee import Referee

    began = time.perf_counter()
    store = await Store.open(path)
    try:
        now = [T0]
        referee = Referee(store, roller=RandomRoller(random.Random(seed)), clock=lambda: now[0])
        report = await referee.start_game(channel, gm, guild_id=guild_id)
        game_id = report.game_id
        for i, player in enumerate(players):
            if i < len(PRESETS):
                name = "Merewyn" if PRESETS[i] == "11" else None
                action: Any = ClaimPreset(PRESETS[i], player, name)
            else:
                action = CreateNation(CUSTOM[i - len(PRESETS)], 12, 8, "armour", "fighter",
                                      {"armour": 1, "fighter": 1}, player=player)
            report = await referee.act(channel, gm, action, "/nation claim")
        state = report.state
        nations = [n.name for n in state.nations.values()]
        values = {(n.name, stat): getattr(n, stat) for n in state.nations.values() for stat in STATS}
        rng = random.Random(seed)
        rows = 0
        for turn in range(1, turns + 1):
            entries = walk_turn(rng, turn, values, nations, now[0])
            rows += len(entries)
            await store._transaction(lambda con, e=entries: insert_history(con, game_id, None, e))
            if turn < turns:
                now[0] += timedelta(hours=TURN_HOURS - 1)  # before the turn's deadline: no catch-up rolls one
                await referee.act(channel, gm, EndTurn(), "/gm turn end")
        state = await store.load(game_id)
        stored = len(await store.history(game_id))
    finally:
        await store.close()
    return {"game_id": game_id, "turn": state.turn, "nations": nations, "synthetic": rows, "stored": stored,
            "seconds": time.perf_counter() - began, "now": now[0]}


# --- timing ------------------------------------------------------------------------------------------------


def ms(seconds: float) -> str:
    return f"{seconds * 1000:.2f} ms" if seconds < 0.1 else f"{seconds * 1000:.0f} ms"


def under(seconds: float) -> str:
    return f"under 1 s — {'met' if seconds < SECOND else 'missed'}"


def timed(function: Callable[[], Any], repeats: int = 5) -> tuple[float, Any]:
    """The median of `repeats` calls, after one warm-up call; and the last call's result."""
    result = function()
    times = []
    for _ in range(repeats):
        began = time.perf_counter()
        result = function()
        times.append(time.perf_counter() - began)
    return statistics.median(times), result


async def timed_async(function: Callable[[], Awaitable[Any]], repeats: int = 5) -> tuple[float, float, Any]:
    """(the first call, the median of the next `repeats`, the last call's result)."""
    began = time.perf_counter()
    result = await function()
    first = time.perf_counter() - began
    times = []
    for _ in range(repeats):
        began = time.perf_counter()
        result = await function()
        times.append(time.perf_counter() - began)
    return first, statistics.median(times), result


def png_size(png: bytes) -> str:
    from matplotlib.image import imread

    height, width = imread(io.BytesIO(png), format="png").shape[:2]
    return f"{len(png):,} bytes, {width}×{height} px"


async def bench_render(path: Path, game_id: int, nation: str, out: Callable[[str], None]) -> None:
    """The chart spec from the stored history, its PNG inline and in the worker; /nation chart both ways."""
    from data.store import Store
    from engine.chartspec import game_chart
    from engine.nations.history import nation_chart
    from service import charts

    store = await Store.open(path)
    try:
        state = await store.load(game_id)
        first, read, entries = await timed_async(lambda: store.history(game_id))
        spec, chart = timed(lambda: game_chart(state, entries, {}))
        out(f"  chart spec (/game chart): store.history {len(entries):,} entries median {ms(read)} (first "
            f"{ms(first)}) + chartspec.game_chart median {ms(spec)} = {ms(read + spec)}; {len(chart.panels)} panel, "
            f"{sum(len(s.points) for p in chart.panels for s in p.series):,} points, "
            f"{sum(len(p.marks) for p in chart.panels)} marks")
        began = time.perf_counter()
        charts.render_png(chart)
        cold = time.perf_counter() - began
        inline, png = timed(lambda: charts.render_png(chart))
        out(f"  render_png inline: median {ms(inline)} (the first, with matplotlib's import: {ms(cold)}); "
            f"spec + PNG {ms(read + spec + inline)}, {under(read + spec + inline)}; PNG {png_size(png)}")
        try:
            first, worker, png = await timed_async(lambda: charts.render(chart))
            out(f"  await charts.render (worker process): first {ms(first)} (spawns the worker, imports matplotlib "
                f"there), then median {ms(worker)}, {under(worker)}; spec + PNG {ms(read + spec + worker)}, "
                f"{under(read + spec + worker)}")
            for options, what in (({}, "/nation chart (LAND of every nation)"),
                                  ({"nation": nation}, f"/nation chart nation:{nation} (all five stats)")):
                spec, drawn = timed(lambda o=options: nation_chart(state, entries, o))
                inline, png = timed(lambda d=drawn: charts.render_png(d))
                _, worker, _ = await timed_async(lambda d=drawn: charts.render(d))
                total = read + spec + worker
                out(f"  {what}: spec {ms(spec)}, {len(drawn.panels)} panel{'s' * (len(drawn.panels) > 1)}; "
                    f"render_png inline median {ms(inline)}; charts.render median {ms(worker)}; "
                    f"history + spec + render {ms(total)}, {under(total)}; PNG {png_size(png)}")
        finally:
            charts.close_pool()
    finally:
        await store.close()


# --- latency through discord.py ------------------------------------------------------------------------------


async def bench_latency(turns: int, nations: int, idle_seconds: float, busy_seconds: float,
                        out: Callable[[str], None], gap: float = 0.01) -> None:
    """A no-op slash command and /game status through discord.py against the fake Discord, idle and while a
    background task posts /game chart back to back; the latency as bench/scale.py's `commands` row takes it."""

    from service import charts

    fakediscord, kit = _discord()
    folder = Path(tempfile.mkdtemp(prefix="bench-charts-"))
    try:
        async with fakediscord.FakeDiscord(error_loggers=kit.ERROR_LOGGERS) as fake:
            guild = fake.add_guild("Bench")
            room = fake.add_channel(guild, "game")
            gm, *players = [fake.add_member(guild, fake.add_user(name))
                            for name in ["gm", *(f"player{i}" for i in range(nations))]]
            built = await build_game(folder / "referee.db", _keys(guild, [room])[0], guild.id, str(gm.id),
                                     [str(p.id) for p in players], turns)
            out(f"charts (issue 19): a Nations game of {len(built['nations'])} nations at turn {built['turn']}, "
                f"{built['stored']:,} history rows ({built['synthetic']:,} synthetic stat changes and marks "
                f"written with insert_history, the rest from the start, claims and {built['turn'] - 1} "
                f"/gm turn end through the referee), built in {built['seconds']:.1f} s")
            await bench_render(folder / "referee.db", built["game_id"], built["nations"][0], out)

            running = await fake.start_bot(bot_with_noop(folder / "referee.db", built["now"] + timedelta(hours=1)))
            try:
                async def latency(member: Any, command: str) -> float:
                    result = await fake.invoke(guild, room, member, command)
                    if result.ephemeral:  # a refusal: every timed command must be accepted
                        raise RuntimeError(f"/{command} was refused: {kit.texts(result)}")
                    return result.acknowledged_at - result.sent_at

                async def chart_once() -> float:
                    began = time.perf_counter()
                    result = await fake.invoke(guild, room, gm, "game chart")
                    message = await result.wait_for_followup(timeout=60)
                    if not message.attachments:
                        raise RuntimeError(f"/game chart sent no picture: {message.content!r}")
                    return time.perf_counter() - began

                async def sample(seconds: float) -> dict[str, list[float]]:
                    """Pairs (no-op, /game status) by players in turn for `seconds`, `gap` apart; and the
                    event-loop lag meanwhile (bench/export.py's probe: 1 ms sleeps)."""
                    found: dict[str, list[float]] = {"noop": [], "game status": [], "lag": []}
                    halt = asyncio.Event()
                    probe = asyncio.create_task(lag_probe(halt, found["lag"]))
                    stop = time.perf_counter() + seconds
                    i = 0
                    while time.perf_counter() < stop:
                        member = players[i % len(players)]
                        for command in ("noop", "game status"):
                            found[command].append(await latency(member, command))
                        await asyncio.sleep(gap)
                        i += 1
                    halt.set()
                    await probe
                    return found

                for _ in range(10):  # warm-up: discord.py's and the fake's one-time work
                    await latency(players[0], "noop")
                    await latency(players[0], "game status")
                first_chart = await chart_once()  # the worker is spawned and imports matplotlib
                await kit.settle(fake)
                idle = await sample(idle_seconds)
                await kit.settle(fake)

                chart_times: list[float] = []
                done = asyncio.Event()

                async def chart_loop() -> None:
                    while not done.is_set():
                        chart_times.append(await chart_once())

                background = asyncio.create_task(chart_loop())
                await asyncio.sleep(0.05)
                busy = await sample(busy_seconds)
                done.set()
                await background
                await kit.settle(fake, timeout=30)
            finally:
                await running.close()
                charts.close_pool()
        out(f"  /game chart through discord.py (invoke → the chart's message received): the bot's first "
            f"{ms(first_chart)} (spawns its worker); back to back {len(chart_times)} charts, median "
            f"{ms(statistics.median(chart_times))}, max {ms(max(chart_times))}")
        for command in ("noop", "game status"):
            a, b = idle[command], busy[command]
            ratio = statistics.median(b) / statistics.median(a)
            label = "a no-op slash command" if command == "noop" else "/game status"
            out(f"  {label}: idle median {ms(statistics.median(a))}, p95 {ms(percentile(a, 0.95))} "
                f"(max {ms(max(a))}, {len(a)} commands); while /game chart renders median "
                f"{ms(statistics.median(b))}, p95 {ms(percentile(b, 0.95))} (max {ms(max(b))}, {len(b)} "
                f"commands); median ×{ratio:.2f}, p95 ×{percentile(b, 0.95) / percentile(a, 0.95):.2f}")
        out(f"  event-loop lag (bot and fake Discord share the loop): idle {lag_text(idle['lag'])}; while /game "
            f"chart renders {lag_text(busy['lag'])}")
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.charts", description=__doc__.split("\n\n")[0])
    parser.add_argument("--turns", type=int, default=500, help="turns of the game (default 500)")
    parser.add_argument("--nations", type=int, default=8, help=f"its nations (default 8, at most "
                                                               f"{len(PRESETS) + len(CUSTOM)})")
    parser.add_argument("--idle-seconds", type=float, default=3.0, help="idle latency sampling (default 3 s)")
    parser.add_argument("--busy-seconds", type=float, default=6.0, help="latency sampling while charts render "
                                                                        "(default 6 s)")
    args = parser.parse_args(argv)
    if not 1 <= args.nations <= len(PRESETS) + len(CUSTOM) or args.turns < 1:
        parser.error(f"--nations is 1 to {len(PRESETS) + len(CUSTOM)}, --turns at least 1")
    began = time.perf_counter()
    asyncio.run(bench_latency(args.turns, args.nations, args.idle_seconds, args.busy_seconds,
                              out=lambda line: print(line, flush=True)))
    print(f"  charts benchmark took {time.perf_counter() - began:.0f} s", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
