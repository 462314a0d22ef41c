"""The Social Interphase's steps in the sheet's order, D.1 to D.14, each player's own: their names and numbers,
the compulsory ones, a step opened (`open_step`: refused when closed or when a compulsory earlier step is not
taken) and taken (`take_step`: the earlier steps closed, the revolts step with its whole-system check, D.7.4),
each player's checklist and what is left (`interphase_checklist`, `interphase_left`). The interphase's actions
are in `economy` (D.1, D.3-D.5, D.14), `loans` (D.1-D.2), `war` (D.3's money sent), `politics` (D.6-D.10 and
the interphase's end) and `subversion` (D.11-D.13).
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.core import Tx
from engine.errors import RuleViolation
from engine.godsfire.dues import land_shipments, repayments_due, shipments_due
from engine.godsfire.events import StepDone
from engine.godsfire.revolts import whole_system_revolts
from engine.godsfire.state import PHASE_NAMES, STEPS, GodsfireState
from engine.names import name_key

CHECKED = {"subversion": "subversion resolve", "allegiance": "allegiance check", "economy": "economy check"}
"""The steps a check applies to every system of a player at once: done by running it, not by saying so."""
CHECK_COMMANDS = {"subversion": "subversion resolve", "allegiance": "interphase allegiance",
                  "economy": "interphase economy"}
"""The command that runs each check."""

PENDING_NAMES = {"loans": "loan repayment", "transfer": "transfers (money lands this turn)"}
"""How a refusal names a step still to take that is not a check."""

STEP_RULE = dict(zip(STEPS, (1, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14), strict=True))
"""Each interphase step's number on the sheet (D.1 holds both the tax and the loan repayment)."""

COMPULSORY = ("loans", "subversion", "allegiance", "economy")
"""The steps a player cannot leave out: a due loan repayment (D.1.4), D.8, D.9 and D.10. An action of a
later step is refused while one is not taken; the end of the interphase applies those left."""

STEP_NAMES = {
    "tax": "D.1 tax and loan repayment", "loans": "D.1 loan repayment", "borrow": "D.2 borrowing",
    "transfer": "D.3 transfers", "purchase": "D.4 purchases", "raise": "D.5 loyalty and economy raises",
    "party": "D.6 party changes", "revolts": "D.7 revolts", "subversion": "D.8 subversion",
    "allegiance": "D.9 allegiance drops", "economy": "D.10 economy drops", "subvert": "D.11 subversion placing",
    "desubvert": "D.12 de-subversion", "counter": "D.13 counter-subversion", "units": "D.14 new units",
}


def in_interphase(tx: Tx[GodsfireState], what: str) -> GodsfireState:
    """Refuse `what` outside the Social Interphase; the state, in it."""
    state: GodsfireState = tx.state
    if state.phase != "interphase":
        raise RuleViolation(f"the sheet: {what} belongs to the Social Interphase (D); the game is in the "
                            f"{PHASE_NAMES.get(state.phase, state.phase)} of turn {state.turn}")
    return state


def interphase_players(state: GodsfireState) -> list[str]:
    """The players still in the game: in the interphase's order, then the rest as they joined."""
    named = [state.player(p).name for p in state.order if state.find_player(p)]
    players = named + [p.name for p in state.players if p.name not in named]
    return [name for name in players if not state.player(name).out]


def step_label(step: str) -> str:
    """`D.9` for the allegiance step."""
    return f"D.{STEP_RULE[step]}"


def closed_by(state: GodsfireState, player: str, step: str) -> str | None:
    """The latest step after `step` the player has taken (which closed it), or None."""
    done = state.done.get(player, [])
    later = [s for s in STEPS[STEPS.index(step) + 1:] if s in done]
    return later[-1] if later else None


def _pending(state: GodsfireState, player: str, step: str) -> str | None:
    """The command that takes `step`, if it is a compulsory step the player has not taken: a due loan
    repayment, or D.8, D.9, D.10 for a player with systems. None otherwise."""
    if step in state.done.get(player, []):
        return None
    if step == "loans":
        due = repayments_due(state, player)
        return f"/godsfire money repay system:{due[0].name}" if due else None
    if step == "transfer" and shipments_due(state, player):
        return "/godsfire interphase done step:transfer (or a transfer)"
    if step in CHECKED and state.systems_of(player):
        return f"/godsfire {CHECK_COMMANDS[step]}"
    return None


def open_step(tx: Tx[GodsfireState], player: str, step: str) -> None:
    """Refuse an action of `step` for `player` (whoever acts: the GM for a player counts for him) when the
    step is closed — a later step was taken — or a compulsory earlier step has not been taken (the sheet's
    order: each player's interphase runs D.1 to D.14)."""
    state: GodsfireState = tx.state
    player = state.player(player).name
    if step in state.done.get(player, []):
        later = closed_by(state, player, step)
        why = (f"a later step ({step_label(later)}) was taken" if later is not None
               else "it is done (marked done, or closed by the step taken after it)")
        raise RuleViolation(f"{step_label(step)} is closed for {player}: {why}")
    for earlier in STEPS[:STEPS.index(step)]:
        command = _pending(state, player, earlier)
        if command is None:
            continue
        name = PENDING_NAMES.get(earlier) or CHECKED[earlier]
        whose = (f" player:{player}" if earlier not in ("loans", "transfer")
                 and name_key(player) != name_key(tx.ctx.actor) else "")
        raise RuleViolation(f"{step_label(earlier)} {name} comes first: {command}{whose}")
    if step == "transfer":
        land_shipments(tx, player)


def take_step(tx: Tx[GodsfireState], player: str, step: str) -> None:
    """`player` takes `step`: refused as `open_step` says; otherwise every earlier step not yet done is closed
    (marked done), the revolts step with its whole-system check (D.7.4). Call it once the action is known to
    be allowed, before its first change."""
    open_step(tx, player, step)
    player = tx.state.player(player).name
    for earlier in STEPS[:STEPS.index(step)]:
        if earlier in tx.state.done.get(player, []):
            continue
        if earlier == "revolts":
            whole_system_revolts(tx, player)
        tx.emit(StepDone(player, earlier))


@dataclass(frozen=True)
class StepState:
    """One line of a player's interphase checklist."""

    step: str
    state: str  # done, next or left
    compulsory: bool
    note: str = ""


def _step_done(state: GodsfireState, player: str, step: str) -> bool:
    """Done: marked (taken, skipped, or closed by a later step); the tax also once every system of the player
    paid it this turn, the loan repayment once every box due this turn is paid."""
    if step in state.done.get(player, []):
        return True
    systems = state.systems_of(player)
    if step == "tax":
        return bool(systems) and all(s.taxed_turn == state.turn for s in systems)
    if step == "loans":
        return not repayments_due(state, player)  # nothing due (no loans, or every box paid)
    return False


def interphase_checklist(state: GodsfireState) -> dict[str, list[StepState]]:
    """Each player's Social Interphase, step by step in the sheet's order (players in the interphase's order,
    those out of the game left out): done, next (the first step not done) or left, the compulsory ones
    marked (a loan repayment due this turn, D.8, D.9, D.10). Empty outside the interphase."""
    if state.phase != "interphase":
        return {}
    checklist: dict[str, list[StepState]] = {}
    for player in interphase_players(state):
        due = repayments_due(state, player)
        rows: list[StepState] = []
        seen_next = False
        for step in STEPS:
            done = _step_done(state, player, step)
            word = "done" if done else "left" if seen_next else "next"
            seen_next = seen_next or not done
            note = ""
            if step == "loans":
                compulsory = any(s.loans for s in state.systems_of(player))
                if due and not done:
                    note = "due on " + ", ".join(s.name for s in due)
                elif not due and not compulsory:
                    note = "nothing due"
            elif step == "transfer" and shipments_due(state, player) and not done:
                compulsory = True
                note = "money lands: " + ", ".join(f"{s.amount} GB in {s.to}"
                                                   for s in shipments_due(state, player))
            else:
                compulsory = step in COMPULSORY
            rows.append(StepState(step, word, compulsory, note))
        checklist[player] = rows
    return checklist


def interphase_left(state: GodsfireState) -> dict[str, list[str]]:
    """What each player still in the game has left to do this interphase, in the sheet's order (players in
    the interphase's order, then the rest as they joined): the checklist's steps not done. Empty lists
    outside the interphase."""
    if state.phase != "interphase":
        return {name: [] for name in interphase_players(state)}
    return {player: [row.step for row in rows if row.state != "done"]
            for player, rows in interphase_checklist(state).items()}
