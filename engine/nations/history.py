"""What the stat history of a Nations game follows (`engine.history`): each nation's five stats, and the marks
its LAND chart shows — battles won and lost, provinces conquered, eliminations; and /nation chart."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from engine.chartspec import Chart, panel, safe_file_word
from engine.errors import BadInput
from engine.events import Event
from engine.history import HistoryEntry, Point
from engine.nations import events as ev
from engine.nations.common import find_nation
from engine.nations.describe import STAT_LABEL
from engine.nations.state import GameState

STATS = ("land", "economy", "stability", "military", "propaganda")
HISTORY_STATS = tuple((stat, STAT_LABEL[stat]) for stat in STATS)
CONQUEST = "province conquered"  # the reason `war._end_battle` gives the winner's land


def history_point(state: GameState) -> Point:
    """Every nation's stats as they stand (base STABILITY: foreign patches are a stat of their own)."""
    return {(nation.name, stat): getattr(nation, stat) for nation in state.nations.values() for stat in STATS}


def history_marks(event: Event[Any]) -> list[tuple[str, str]]:
    """A battle's end marks its winner and loser; a province conquered, its conqueror; an elimination, its
    nation."""
    if isinstance(event, ev.BattleEnded) and event.winner and event.loser:
        return [(event.winner, "battle won"), (event.loser, "battle lost")]
    if isinstance(event, ev.StatChanged) and event.stat == "land" and event.delta > 0 \
            and event.reason.startswith(CONQUEST):
        return [(event.nation, "conquest")]
    if isinstance(event, ev.NationEliminated):
        return [(event.nation, "eliminated")]
    return []


def nation_chart(state: GameState, entries: Sequence[HistoryEntry], options: dict[str, Any]) -> Chart:
    """/nation chart [nation] [stat]: one stat of every nation (LAND, with battles and conquests marked, when
    neither is named), every stat of one nation, or one stat of one nation — turn by turn."""
    name, stat = options.get("nation"), options.get("stat")
    if stat is not None and stat not in STATS:
        raise BadInput(f"stat is one of {', '.join(STATS)}, not {stat!r}")
    sides = [find_nation(state, name).name] if name else None
    stats = [stat] if stat else list(STATS) if name else ["land"]
    label = dict(HISTORY_STATS)
    panels = tuple(panel(entries, s, f"{label[s]} by turn", state.turn, sides, marked=s == "land") for s in stats)
    if not any(p.series for p in panels):
        raise BadInput("nothing to chart yet: no nation has a history in this game")
    whose = sides[0] if sides else "every nation"
    what = label[stat] if stat else "stats" if name else "LAND"
    file_name = "-".join(["nation-chart", *(sides or []), *([stat] if stat else [])])
    return Chart(f"{whose} — {what} by turn (turn {state.turn})", panels, f"{safe_file_word(file_name)}.png")
