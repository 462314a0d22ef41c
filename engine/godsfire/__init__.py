"""Godsfire, the referee's assistant for the chart sheet: players, star systems and their regions, the
sheet's charts on request, the turn's phases and the Social Interphase.

Modules: `rules` (the sheet as data), `state`, `events`, `setup` (the game, players, systems, hand edits),
`charts`, `phases`, `economy` and `politics` (the interphase's steps), `snapshot` and `schema` (the export
format), `describe` (words), `commands` (the vocabulary).
"""

from __future__ import annotations

from typing import Any

from engine.godsfire import charts, commands, describe, phases, setup, snapshot, views  # noqa: F401  (handlers)
from engine.godsfire.rules import rules_from_dict
from engine.rulesets import RuleSet, register


def deadlines(state: Any) -> list[Any]:
    """Godsfire has no clock: the GM steps the phases."""
    return []


def apply_deadline(tx: Any, deadline: Any) -> None:
    """Never called (no deadlines)."""


RULES = register(RuleSet(
    name=setup.RULESET,
    title="Godsfire",
    start=setup.start_game,
    state_to_dict=snapshot.state_to_dict,
    state_from_dict=snapshot.state_from_dict,
    check_state=snapshot.check_state,
    deadlines=deadlines,
    apply_deadline=apply_deadline,
    forced_dice=setup.forced_dice,
    event_line=describe.event_line,
    commands=commands.COMMANDS,
    roll_to_dict=snapshot.roll_to_dict,
    rank=2,
    rules_file="godsfire.toml",
    rules_from_dict=rules_from_dict,
    summary=lambda state: f"turn {state.turn}, {len(state.players)} players, {len(state.systems)} systems",
    status=views.status_view,
    find_side=lambda state, name: state.player(name).name,
    discord="cogs.godsfire",
    help_topic="docs/godsfire.md",
))
