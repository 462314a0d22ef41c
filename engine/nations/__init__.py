"""Nations, the d10 nation war game: stats, two actions per turn, propaganda bonuses, units, battles, conquest.

Modules: `rules` (tables and house settings), `state`, `events`, `common` (lookups and the land rules),
`peace` (nations, economy, stability, propaganda, the army), `war`, `gm` (the GM's powers), `clock` (the
turn clock), `snapshot` (the export format), `describe` (words), `commands` (the vocabulary).
"""

from __future__ import annotations

from typing import Any

from engine.core import Context, Outcome
from engine.errors import BadInput
from engine.ledgercheck import LedgerTerms
from engine.nations import clock, commands, describe, events, gm, peace, snapshot, views, war  # noqa: F401  (handlers)
from engine.nations import history as nations_history
from engine.nations.common import RULESET, actions_left, find_nation, paused_since
from engine.nations.rules import Rules, rules_from_dict
from engine.nations.state import GameState
from engine.rulesets import Glance, RuleSet, register
from engine.view import Part, Person, View, line
from engine.vocabulary import Param


def _start(ctx: Context, options: dict[str, Any]) -> Outcome[GameState]:
    if options.get("options"):
        raise BadInput("Nations has no optional rules to agree at the start: options: is for God Dice")
    return clock.start_game(ctx, options.get("turn_hours"))


def page(state: GameState, rules: Rules) -> list[View]:
    """The game's web page: the status, then every nation's sheet (stats, LAND, bonuses, army and units), then
    each open battle with what it waits for."""
    shown = [views.status_view(state, rules)]
    shown += [views.nation_view(nation, state, rules) for nation in state.nations.values()]
    shown += [views.battles_view(state, rules, "", {"battle": b.id}) for b in state.battles.values() if not b.over]
    return shown


def glance(state: GameState) -> Glance:
    """/game list's line: the turn (paused or not), the nations with actions left this turn and their players,
    and the next deadline for them: the turn's end, or a battle choice due sooner."""
    owing: list[Part] = []
    for nation in state.nations.values():
        left = 0 if nation.eliminated else actions_left(state, nation)
        if left:
            owing += [", " if owing else "actions left: ", f"{nation.name} {left}",
                      *((" (", Person(nation.player), ")") if nation.player else ())]
    awaiting = line(*owing) if owing else None if state.nations else line("no nations yet: /nation claim")
    due = [b.deadline for b in state.battles.values() if b.deadline is not None and not b.over]
    due.append(state.turn_ends_at)
    if state.paused:  # every deadline is held: none is shown (the status says how long each has left)
        due = []
    return Glance(f"turn {state.turn}" + (", paused" if state.paused else ""), awaiting, min(due, default=None))


def ledger_terms(state: GameState, rules: Rules) -> LedgerTerms:
    """What a Nations ledger may hold: the data file's numbered die, rolled by the nations, up to the game's turn,
    in the battles and for the units it has numbered."""
    return LedgerTerms(sides=frozenset({rules.die_sides}), rollers=frozenset(n.name for n in state.nations.values()),
                       turn=state.turn, battles=state.next_battle_id - 1, units=state.next_unit_id - 1)


RULES = register(RuleSet(
    name=RULESET,
    title="Nations",
    start=_start,
    state_to_dict=snapshot.state_to_dict,
    state_from_dict=snapshot.state_from_dict,
    state_class=GameState,
    saved_state=snapshot.saved_state,
    check_state=snapshot.check_state,
    deadlines=clock.deadlines,
    apply_deadline=clock.apply_deadline,
    forced_dice=gm.forced_dice,
    event_line=describe.event_line,
    change_line=describe.change_line,
    ledger_terms=ledger_terms,
    start_params=(Param("turn_hours", float, help="turn length in hours", low=0.1, high=336.0),),
    commands=commands.COMMANDS,
    groups=commands.GROUPS,
    fixed_house_keys=("turn_hours",),
    clock_fields=clock.clock_fields,
    quick_catch_up=clock.quick_catch_up,
    pause=clock.pause,
    resume=clock.resume,
    paused_since=paused_since,
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
    glance=glance,
    turn_mark=lambda event: event.ended + 1 if isinstance(event, events.TurnEnded) else None,  # the next turn
    history_point=nations_history.history_point,
    history_marks=nations_history.history_marks,
    history_stats=nations_history.HISTORY_STATS,
    game_chart=("land",),
    page=page,
))
