"""A Nations report embed (issue 35: ≤ 100 µs): what `cogs.nations.render.nations_report_embeds` costs the answer
of an `/economy grow` in a five-nation game, beside a one-field `discord.Embed` built in the same run.

    python -m bench.embed [--calls 2000] [--blocks 15]

The game is played through the engine with forced dice (five presets claimed by players who are Discord user ids,
each given LAND 40, then the first grows its economy: a die of 9). Blocks of the report alternate with blocks of
the reference; each figure is the median of its blocks, in CPU µs.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable
from datetime import timedelta
from typing import Any

GOAL_US = 100.0
PLAYERS = [str(310_000_000_000_000_000 + i) for i in range(5)]  # Discord user ids, as on Discord


def grown_game() -> tuple[list[Any], Any, str]:
    """The events and state of an `/economy grow` in a five-nation game, and who grew."""
    from bench.build import PRESETS, T0
    from data import rules_for
    from engine.core import Context, execute
    from engine.dice import ForcedRoller
    from engine.nations.clock import start_game
    from engine.nations.gm import SetStat
    from engine.nations.peace import ClaimPreset, GrowEconomy

    rules = rules_for("nations")
    gm = Context(T0, "gm", rules, True, ForcedRoller())
    state = start_game(gm).state
    for player, preset in zip(PLAYERS, PRESETS, strict=True):
        state = execute(state, ClaimPreset(preset, player, "Merewyn" if preset == "11" else None), gm).state
        nation = state.nation_of(player)
        assert nation is not None
        state = execute(state, SetStat(nation.name, "land", 40), gm).state
    grower = PLAYERS[0]
    out = execute(state, GrowEconomy(), Context(T0 + timedelta(hours=1), grower, rules, False, ForcedRoller([9])))
    return list(out.events), out.state, grower


def _block(function: Callable[[], object], calls: int) -> float:
    """CPU microseconds a call over `calls` calls: this thread's CPU time, which other processes on a shared
    machine do not lengthen as they do the wall clock's."""
    start = time.thread_time()
    for _ in range(calls):
        function()
    return (time.thread_time() - start) / calls * 1e6


def measure(calls: int = 2000, blocks: int = 15) -> tuple[float, float]:
    """(CPU µs a Nations report's embeds after `/economy grow`, CPU µs a one-field `discord.Embed`), medians of
    alternating blocks in this process."""
    import discord

    from cogs.nations.render import nations_report_embeds

    events, state, grower = grown_game()

    def report() -> object:
        return nations_report_embeds(events, state, grower)

    def one_field() -> object:
        return discord.Embed(title="Grow economy", description="a line").add_field(name="Actions", value="1 of 2")

    report(), one_field()  # warm: imports, caches
    reports, references = [], []
    for _ in range(blocks):
        reports.append(_block(report, calls))
        references.append(_block(one_field, calls))
    return statistics.median(reports), statistics.median(references)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=2000, help="calls a block (default 2000)")
    parser.add_argument("--blocks", type=int, default=15, help="blocks of each (default 15)")
    args = parser.parse_args(argv)
    report, reference = measure(max(1, args.calls), max(1, args.blocks))
    met = "met" if report <= GOAL_US else "missed"
    print(f"Nations report embed: {report:.0f} µs (a one-field embed: {reference:.1f} µs) "
          f"— goal ≤ {GOAL_US:.0f} µs: {met}")


if __name__ == "__main__":
    main()
