"""God Dice, the character dice-battle game: seating and roll-off, the draft, and turns of declare, God dice
and attack, with the optional rules Campaign, Resurrection and Free for All.

Modules: `cards` (the card file and house settings), `state`, `events`, `actions`, `common` (lookups and the
attack dice), `setup` (the start, seating, roll-off and draft), `turn` (declare and the God dice), `attack` (the
attack phase), `end` (the end of a turn and of a game), `gm` (the GM's powers), `clock` (the reminder),
`snapshot` (the export format), `describe` (words), `views` (what its queries show), `commands` (the
vocabulary).
"""

from __future__ import annotations

from engine.fairness import Die
from engine.goddice import attack, clock, commands, describe, events, gm, setup, snapshot, turn, views  # noqa: F401  (handlers)
from engine.goddice import history as goddice_history
from engine.goddice.cards import GoddiceRules, rules_from_dict
from engine.goddice.common import RULESET, find_player, waiting_for
from engine.goddice.describe import MOVES, STAGES
from engine.goddice.state import SEATING, GoddiceState
from engine.ledgercheck import LedgerTerms
from engine.rulesets import Glance, RuleSet, register
from engine.view import Person, line
from engine.vocabulary import LIST, Param


def glance(state: GoddiceState) -> Glance:
    """/game list's line: the turn and its step (or the seating, the roll-off choice, the draft), whose move it
    is and what it is. No deadline: God Dice has no forced moves (the clock only reminds)."""
    stage = STAGES.get(state.phase, state.phase)
    player = waiting_for(state)
    if player is not None and state.phase in MOVES:
        awaiting = line(Person(player), " to " + MOVES[state.phase].split(" (")[0])
    elif state.phase == SEATING:
        awaiting = line(f"players to take a seat ({len(state.players)} seated), then the GM to begin")
    else:
        awaiting = None
    return Glance(f"turn {state.turn}, {stage}" if state.turn else stage, awaiting)


def faces_die(state: GoddiceState, purpose: str) -> Die:
    """The die a ledger row rolled (/log fairness): the God dice (purpose "god"), else the attack dice, with the
    faces of the game's card file."""
    if purpose == "god":
        return Die("God die", tuple(state.cards.god_faces))
    return Die("attack die", tuple(state.cards.attack_faces))


GOD_DICE = 2  # the God dice rolled together each turn (`turn`)
MOST_ATTACK_DICE = 30  # a card file's most attack dice (`cards.cards_from_dict`)


def ledger_terms(state: GoddiceState, rules: GoddiceRules) -> LedgerTerms:
    """What a God Dice ledger may hold: the game's dice with named faces, rolled by its players, two God dice or
    the card file's attack dice at a time (the roll-off's may be another card file's: cards change after it), up
    to the turn; its turns count again from 1 in each campaign game, one after each game won."""

    def faces(purpose: str) -> tuple[Die, int]:
        most = GOD_DICE if purpose == "god" else MOST_ATTACK_DICE if purpose == "rolloff" else state.cards.attack_count
        return faces_die(state, purpose), most

    return LedgerTerms(faces=faces, rollers=frozenset(p.name for p in state.players), turn=state.turn,
                       restarts=sum(p.wins for p in state.players))


RULES = register(RuleSet(
    name=RULESET,
    title="God Dice",
    start=setup.start_game,
    state_to_dict=snapshot.state_to_dict,
    state_from_dict=snapshot.state_from_dict,
    state_class=GoddiceState,
    check_state=snapshot.check_state,
    deadlines=clock.deadlines,
    apply_deadline=clock.apply_deadline,
    pause=clock.pause,
    resume=clock.resume,
    paused_since=clock.paused_since,
    forced_dice=gm.forced_dice,
    event_line=describe.event_line,
    change_line=describe.change_line,
    start_params=(Param("options", help='optional rules, e.g. "campaign resurrection free_for_all"', words=LIST),),
    commands=commands.COMMANDS,
    groups=commands.GROUPS,
    rank=1,
    rules_file="goddice.toml",
    rules_from_dict=rules_from_dict,
    summary=lambda state: f"{len(state.players)} players",
    status=views.status_view,
    find_side=lambda state, name: find_player(state, name).name,
    discord="cogs.goddice",
    help_topic="docs/goddice.md",
    glance=glance,
    turn_mark=lambda event: event.turn if isinstance(event, events.TurnStarted) else None,
    history_point=goddice_history.history_point,
    history_stats=goddice_history.HISTORY_STATS,
    history_turn=goddice_history.history_turn,
    history_names=goddice_history.history_names,
    game_chart=("life",),
    faces_die=faces_die,
    ledger_terms=ledger_terms,
    page=lambda state, rules: [views.status_view(state, rules)],  # seats, whose move, every character's life
))
