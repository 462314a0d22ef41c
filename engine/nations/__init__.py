"""Nations, the d10 nation war game: stats, two actions per turn, propaganda bonuses, units, battles, conquest.

Modules: `rules` (tables and house settings), `state`, `events`, `common` (lookups and the land rules),
`peace` (nations, economy, stability, propaganda, the army), `war`, `gm` (the GM's powers), `clock` (the
turn clock), `snapshot` (the export format), `describe` (words), `commands` (the vocabulary).
"""

from __future__ import annotations

from typing import Any

from engine.core import Context, Outcome
from engine.errors import BadInput
from engine.nations import clock, commands, describe, gm, peace, snapshot, views, war  # noqa: F401  (handlers)
from engine.nations.common import RULESET, find_nation
from engine.nations.rules import rules_from_dict
from engine.rulesets import RuleSet, register


def _start(ctx: Context, options: dict[str, Any]) -> Outcome:
    if options.get("options"):
        raise BadInput("Nations has no optional rules to agree at the start: options: is for God Dice")
    return clock.start_game(ctx, options.get("turn_hours"))


RULES = register(RuleSet(
    name=RULESET,
    title="Nations",
    start=_start,
    state_to_dict=snapshot.state_to_dict,
    state_from_dict=snapshot.state_from_dict,
    check_state=snapshot.check_state,
    deadlines=clock.deadlines,
    apply_deadline=clock.apply_deadline,
    forced_dice=gm.forced_dice,
    event_line=describe.event_line,
    commands=commands.COMMANDS,
    fixed_house_keys=("turn_hours",),
    quick_catch_up=clock.quick_catch_up,
    rank=0,
    rules_file="nations.toml",
    rules_from_dict=rules_from_dict,
    summary=lambda state: f"turn {state.turn}, {len(state.nations)} nations",
    status=views.status_view,
    find_side=lambda state, name: find_nation(state, name).name,
    side_word="nation",
    actor_note=views.actor_note,
    final_standings=lambda state: state.final_standings(),
    results=views.results_view,
    discord="cogs.nations",
    help_topic="docs/nations.md",
))
