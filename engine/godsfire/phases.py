"""The turn's phases: A. Movement, B. Combat, C. the last chance to declare war, D. the Social Interphase,
then the next turn's Movement. The GM steps them (`/godsfire phase next`).

Ruling: the interphase's player order is the order the players were added (players out of the game left
out); the sheet's initiative order is for movement, which the bot does not track.
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.core import Tx, require_gm
from engine.errors import RuleViolation
from engine.godsfire.events import GodsfirePhaseChanged, InterphaseReset, change_game
from engine.godsfire.setup import handles
from engine.godsfire.state import PHASE_NAMES, PHASES, GodsfireState


@dataclass
class NextPhase:
    pass


def require_phase(tx: Tx, phase: str, what: str) -> None:
    """Refuse `what` outside `phase` (e.g. an interphase step during the Movement Phase)."""
    state: GodsfireState = tx.state
    if state.phase != phase:
        raise RuleViolation(f"{what} is done in the {PHASE_NAMES[phase]}; it is now turn {state.turn}'s "
                            f"{PHASE_NAMES[state.phase]}")


def enter_interphase(tx: Tx) -> None:
    """The Social Interphase begins: its per-turn marks cleared and the players' order set."""
    state: GodsfireState = tx.state
    tx.emit(GodsfirePhaseChanged(state.turn, "interphase"))
    tx.emit(InterphaseReset(state.turn))
    change_game(tx, "the interphase's order: the players in the order they joined",
                order=[p.name for p in tx.state.players if not p.out])


def leave_interphase(tx: Tx) -> None:
    """The Social Interphase ends: the steps done are cleared and the next turn's Movement Phase begins."""
    state: GodsfireState = tx.state
    change_game(tx, "the interphase is over", done={p.name: [] for p in state.players})
    tx.emit(GodsfirePhaseChanged(state.turn + 1, "movement"))


def advance(tx: Tx) -> None:
    """Step to the next phase (from the interphase: the next turn's Movement Phase)."""
    state: GodsfireState = tx.state
    following = PHASES[(PHASES.index(state.phase) + 1) % len(PHASES)]
    if state.phase == "interphase":
        from engine.godsfire.politics import revolts_left_over  # (politics imports this module)

        revolts_left_over(tx)  # D.7.4 is not skipped by stepping on: the same as /godsfire interphase end
        leave_interphase(tx)
    elif following == "interphase":
        enter_interphase(tx)
    else:
        tx.emit(GodsfirePhaseChanged(state.turn, following))


@handles(NextPhase)
def next_phase(tx: Tx, action: NextPhase) -> None:
    require_gm(tx, "step the phases")
    advance(tx)


def phase_line(state: GodsfireState) -> str:
    """`Turn 2: Combat Phase (next: Last Chance to Declare War)`."""
    following = PHASES[(PHASES.index(state.phase) + 1) % len(PHASES)]
    nxt = PHASE_NAMES[following] + (f" of turn {state.turn + 1}" if state.phase == "interphase" else "")
    return f"Turn {state.turn}: {PHASE_NAMES[state.phase]} (next: {nxt})"
