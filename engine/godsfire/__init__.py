"""Godsfire, the referee's assistant for the chart sheet: players, star systems and their regions, the
sheet's charts on request, the turn's phases and the Social Interphase.

Modules, by the sheet's sections (they import one another in one direction only, imports inside functions
counted: tests/engine/godsfire/test_godsfire_layers.py keeps it so): `rules` (the sheet as data), `state`, `events`,
`common` (who acts), `setup` (the game, players, systems, hand edits), `charts`, `table` (the counters),
`phases` (the turn's phases); A. `movement`; B. `combat`, `attacks`, `results`; C. `war` (with D.3's money sent
and the end of the game); D. the Social Interphase: `dues` (what it has due), `revolts` (D.7.4), `steps` (each
player's steps in the sheet's order), `economy` and `loans` (the money steps), `checks` (D.8-D.10, and what the
interphase's end applies), `politics` (D.6-D.10's actions, the interphase's end), `subversion` (D.11-D.13);
`snapshot` and `schema` (the export format), `views`, `tableviews`, `describe` and `history` (words), `commands`
(the vocabulary).
"""

from __future__ import annotations

from engine.clock import Deadline
from engine.core import Tx
from engine.godsfire import (  # noqa: F401  (handlers)
    attacks,
    charts,
    combat,
    commands,
    describe,
    events,
    loans,
    maps,
    movement,
    pause,
    phases,
    results,
    setup,
    snapshot,
    subversion,
    table,
    tableviews,
    views,
    war,
)
from engine.godsfire import history as godsfire_history
from engine.godsfire.common import RULESET
from engine.godsfire.rules import GodsfireRules, rules_from_dict
from engine.godsfire.state import PHASE_NAMES, GodsfireState
from engine.godsfire.steps import interphase_left
from engine.ledgercheck import LedgerTerms
from engine.rulesets import Glance, RuleSet, register
from engine.view import Line, Part, Person, View, line


def deadlines(state: GodsfireState) -> list[Deadline]:
    """No turn clock (the GM steps the phases), but every answer awaited has its deadline: a go at
    initiative (reminded at half time), a transit attack, losses or a retreat to choose."""
    if state.ended or state.paused_at is not None:  # a paused clock holds every deadline
        return []
    choices = [Deadline(at, "choice", choice.chooser, choice.attack)
               for at, choice in results.choice_deadlines(state)]
    return sorted([*movement.deadlines(state), *choices], key=lambda d: d.at)


def apply_deadline(tx: Tx[GodsfireState], deadline: Deadline) -> None:
    """The default when an answer is late: a pass, a transit allowed, the first units, the nearest cell."""
    if deadline.what == "choice":
        results.choice_defaults(tx, tx.ctx.now)
    else:
        movement.apply_deadline(tx, deadline)



def awaiting(state: GodsfireState) -> Line | None:
    """Who the phase waits for: a transit's stationary player, the player whose go it is at initiative, the
    players choosing losses or a retreat, the players with interphase steps left; else the GM steps on."""
    if state.transit is not None:
        return line(Person(state.transit.stationary), f": transit attack, block or allow at {state.transit.cell}")
    ini = state.initiative
    if state.phase == "movement" and ini is not None and ini.awaiting:
        return line(Person(ini.awaiting), f"'s go at initiative (round {ini.round})")
    parts: list[Part] = []
    if state.choices:
        for choice in state.choices:
            parts += [", " if parts else "", Person(choice.chooser), f" to choose {choice.kind}"]
        return line(*parts)
    if state.phase == "interphase":
        for player, steps in interphase_left(state).items():
            if steps:
                parts += [", " if parts else "interphase steps left: ", Person(player), f" {len(steps)}"]
        return line(*parts) if parts else line("the GM to end the interphase")
    if state.phase == "movement" and not state.order:
        return line("the GM to start initiative")
    if state.phase == "combat":
        return line("attacks to announce; the GM resolves them and steps on")
    if state.phase == "war":
        return line("war to declare, or the GM steps on")
    return line("the GM to step the phase on")


def page(state: GodsfireState, rules: GodsfireRules) -> list[View]:
    """The game's web page: the status (players, money, systems, wars, the procedure), every system's sheet
    with its regions and loans, then the phase (in the Social Interphase: each player's steps left)."""
    shown = [views.status_view(state, rules), *(views.system_view(system) for system in state.systems)]
    shown.append(views.interphase_view(state, rules) if state.phase == "interphase" else views.phase_view(state, rules))
    return shown


def glance(state: GodsfireState) -> Glance:
    """/game list's line: the turn and phase, who the phase waits for, the next answer's deadline."""
    due = [d.at for d in deadlines(state) if d.what != "reminder"]
    return Glance(f"turn {state.turn}, {PHASE_NAMES.get(state.phase, state.phase)}", awaiting(state),
                  min(due, default=None))


def ledger_terms(state: GodsfireState, rules: GodsfireRules) -> LedgerTerms:
    """What a Godsfire ledger may hold: the sheet's d6, rolled by the players (a neutral's by no one), up to the
    turn; a chart read by hand (`charts`: combat, transit, a money die) by whoever asked for it."""
    by_hand = frozenset({"combat", "transit attack", *(f"money ({colour} die)" for colour in rules.money)})
    return LedgerTerms(sides=frozenset({rules.die_sides}), rollers=frozenset(p.name for p in state.players),
                       unnamed=True, open_purpose=by_hand.__contains__, turn=state.turn)


RULES = register(RuleSet(
    name=RULESET,
    title="Godsfire",
    start=setup.start_game,
    state_to_dict=snapshot.state_to_dict,
    state_from_dict=snapshot.state_from_dict,
    state_class=GodsfireState,
    check_state=snapshot.check_state,
    deadlines=deadlines,
    apply_deadline=apply_deadline,
    pause=pause.pause,
    resume=pause.resume,
    paused_since=pause.paused_since,
    forced_dice=setup.forced_dice,
    event_line=describe.event_line,
    change_line=describe.change_line,
    ledger_terms=ledger_terms,
    commands=commands.COMMANDS,
    groups=commands.GROUPS,
    renamed=commands.RENAMED,
    roll_to_dict=snapshot.roll_to_dict,
    rank=2,
    final_standings=war.standings,
    results=tableviews.results_view,
    rules_file="godsfire.toml",
    rules_from_dict=rules_from_dict,
    summary=lambda state: f"turn {state.turn}, {len(state.players)} players, {len(state.systems)} systems",
    status=views.status_view,
    find_side=lambda state, name: state.player(name).name,
    discord="cogs.godsfire",
    help_topic="docs/godsfire.md",
    glance=glance,
    turn_mark=lambda event: event.turn if isinstance(event, events.GodsfirePhaseChanged) else None,
    history_point=godsfire_history.history_point,
    history_marks=godsfire_history.history_marks,
    history_stats=godsfire_history.HISTORY_STATS,
    game_chart=("systems", "money"),
    page=page,
    board_picture=lambda state: maps.picture(state) if state.board is not None else None,
))
