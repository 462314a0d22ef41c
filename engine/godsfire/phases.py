"""The turn's phases: A. Movement, B. Combat, C. the last chance to declare war, D. the Social Interphase,
then the next turn's Movement. The GM steps them (`/godsfire phase next`); a phase whose procedure is not
finished (initiative running, attacks unresolved, losses to choose) is not left.

The player order is rolled at the start of each turn (A.1.1) and used for initiative and for the interphase
(D.11 places subversion in it); turn 1's is rolled when the GM starts initiative, or at the interphase.
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.core import Tx, require_gm
from engine.errors import RuleViolation
from engine.godsfire import combat, conquest, movement, war
from engine.godsfire.checks import compulsory_left_over
from engine.godsfire.common import handles
from engine.godsfire.events import GodsfirePhaseChanged, InterphaseReset, change_game
from engine.godsfire.state import PHASE_NAMES, PHASES, GodsfireState


@dataclass
class NextPhase:
    pass


def require_phase(tx: Tx[GodsfireState], phase: str, what: str) -> None:
    """Refuse `what` outside `phase` (e.g. an interphase step during the Movement Phase)."""
    state: GodsfireState = tx.state
    if state.phase != phase:
        raise RuleViolation(f"{what} is done in the {PHASE_NAMES[phase]}; it is now turn {state.turn}'s "
                            f"{PHASE_NAMES[state.phase]}")


def enter_interphase(tx: Tx[GodsfireState]) -> None:
    """The Social Interphase begins: its per-turn marks cleared and the players' order set."""
    state: GodsfireState = tx.state
    tx.emit(GodsfirePhaseChanged(state.turn, "interphase"))
    tx.emit(InterphaseReset(state.turn))
    if not [p for p in tx.state.order if tx.state.find_player(p)]:
        order = movement.roll_order(tx)
        change_game(tx, f"turn {state.turn}'s player order (A.1.1): {', '.join(order)}", order=order)


def leave_interphase(tx: Tx[GodsfireState]) -> None:
    """The Social Interphase ends: the steps done are cleared and the next turn's Movement Phase begins."""
    state: GodsfireState = tx.state
    change_game(tx, "the interphase is over", done={p.name: [] for p in state.players})
    war.check_victory(tx)
    if tx.state.ended:
        return
    tx.emit(GodsfirePhaseChanged(state.turn + 1, "movement"))
    change_game(tx, "a new turn", order=[])
    if tx.state.active_players():
        movement.begin_turn(tx)


def advance(tx: Tx[GodsfireState]) -> None:
    """Step to the next phase (from the interphase: the next turn's Movement Phase)."""
    state: GodsfireState = tx.state
    following = PHASES[(PHASES.index(state.phase) + 1) % len(PHASES)]
    if state.phase == "interphase":
        compulsory_left_over(tx)  # not skipped by stepping on: the same as /godsfire interphase end
        leave_interphase(tx)
    elif state.phase == "movement" and not state.order and state.initiative is None and state.active_players():
        movement.begin_turn(tx)  # A.1: never skipped; the GM steps on once every player has held initiative
        if tx.state.initiative is not None:
            return
    elif following == "interphase":
        enter_interphase(tx)
    else:
        _leave(tx, state.phase)
        tx.emit(GodsfirePhaseChanged(state.turn, following))


def _leave(tx: Tx[GodsfireState], phase: str) -> None:
    """Refuse to leave the Movement or Combat Phase before its procedure is done."""
    state = tx.state
    if phase == "movement":
        left = movement.movement_left(state, tx.rules)
        if left:
            raise RuleViolation("the Movement Phase is not over: " + _first(left))
    elif phase == "combat":
        left = combat.combat_left(state)
        if left:
            raise RuleViolation("the Combat Phase is not over: " + _first(left))
        combat.clear_combat(tx)
        conquest.take_systems(tx)


def _first(left: list[str], most: int = 5) -> str:
    """The first few of what is left, in one line (a large game may have dozens of stacks over)."""
    more = f"; and {len(left) - most} more" if len(left) > most else ""
    return "; ".join(left[:most]) + more


@handles(NextPhase)
def next_phase(tx: Tx[GodsfireState], action: NextPhase) -> None:
    require_gm(tx, "step the phases")
    advance(tx)


def phase_line(state: GodsfireState) -> str:
    """`Turn 2: Combat Phase (next: Last Chance to Declare War)`."""
    following = PHASES[(PHASES.index(state.phase) + 1) % len(PHASES)]
    nxt = PHASE_NAMES[following] + (f" of turn {state.turn + 1}" if state.phase == "interphase" else "")
    return f"Turn {state.turn}: {PHASE_NAMES[state.phase]} (next: {nxt})"
