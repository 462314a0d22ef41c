"""The Nations turn clock: what falls due when (turn ends, bonus expiries, battle choices) and how each
deadline is applied; the GM's clock powers. The shared catch-up (`engine.clock.Tick`) runs it."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta

from engine.clock import Deadline, EndGame, Tick, next_deadline  # noqa: F401  (shared; one import for Nations)
from engine.core import Context, Outcome, Tx, require_gm
from engine.errors import BadInput, RuleViolation
from engine.nations.common import handles, turn_summary
from engine.nations.events import (
    BonusExpired,
    ClockPaused,
    ClockResumed,
    GameStarted,
    TurnEnded,
    TurnLengthChanged,
)
from engine.nations.state import GameState
from engine.nations.war import apply_default, chooser

MAX_TURN_HOURS = 24 * 14


@dataclass
class EndTurn:
    """GM: end the current turn now."""


@dataclass
class PauseClock:
    pass


@dataclass
class ResumeClock:
    pass


@dataclass
class SetTurnLength:
    hours: float


def start_game(ctx: Context, turn_hours: float | None = None) -> Outcome:
    """A new Nations game, run by `ctx.actor`, turn 1 starting now."""
    house = ctx.rules.house
    if turn_hours is not None:
        house = house.with_value("turn_hours", _check_hours(turn_hours))
    event = GameStarted(gm=ctx.actor, started_at=ctx.now, house=house.as_dict())
    return Outcome(event.apply(None), [event])


def _check_hours(hours: float) -> float:
    if not 0 < hours <= MAX_TURN_HOURS:
        raise BadInput(f"a turn lasts more than 0 and at most {MAX_TURN_HOURS} hours, not {hours:g}")
    return float(hours)


def deadlines(state: GameState) -> list[Deadline]:
    """Everything that will fall due in this game, earliest first."""
    due = []
    if not state.ended:
        if not state.paused:
            due.append(Deadline(state.turn_ends_at, "turn end"))
        for nation in state.nations.values():
            for bonus in nation.bonuses.values():
                due.append(Deadline(bonus.expires_at, "bonus expiry", nation.name, bonus.kind))
        for battle in state.battles.values():
            if battle.deadline is not None and not battle.over:
                due.append(Deadline(battle.deadline, "battle choice", chooser(battle), battle=battle.id))
    order = {"battle choice": 0, "turn end": 1, "bonus expiry": 2}
    return sorted(due, key=lambda d: (d.at, order[d.what]))


def apply_deadline(tx: Tx, due: Deadline) -> None:
    """Apply one due deadline (a rollover starts the next turn at the old deadline)."""
    if due.what == "turn end":
        state = tx.state
        tx.emit(TurnEnded(state.turn, state.turn_ends_at,
                          state.turn_ends_at + timedelta(hours=state.turn_hours), "clock", turn_summary(state)))
    elif due.what == "battle choice":
        assert due.battle is not None
        apply_default(tx, tx.state.battles[due.battle])
    else:
        assert due.nation is not None and due.bonus is not None
        held = tx.state.nations[due.nation].bonuses[due.bonus]
        tx.emit(BonusExpired(due.nation, due.bonus, held.value))


@handles(EndTurn)
def end_turn(tx: Tx, action: EndTurn) -> None:
    require_gm(tx, "end the turn")
    state, now = tx.state, tx.ctx.now
    tx.emit(TurnEnded(state.turn, now, now + timedelta(hours=state.turn_hours), "gm", turn_summary(state)))
    if state.paused:
        tx.emit(ClockPaused(state.turn_hours * 3600))


@handles(PauseClock)
def pause_clock(tx: Tx, action: PauseClock) -> None:
    require_gm(tx, "pause the clock")
    if tx.state.paused:
        raise RuleViolation("the clock is already paused")
    remaining = max(0.0, (tx.state.turn_ends_at - tx.ctx.now).total_seconds())
    tx.emit(ClockPaused(remaining))


@handles(ResumeClock)
def resume_clock(tx: Tx, action: ResumeClock) -> None:
    require_gm(tx, "resume the clock")
    if not tx.state.paused:
        raise RuleViolation("the clock is not paused")
    tx.emit(ClockResumed(tx.ctx.now + timedelta(seconds=tx.state.paused_remaining or 0)))


@handles(SetTurnLength)
def set_turn_length(tx: Tx, action: SetTurnLength) -> None:
    """Change the turn length; the current turn's end moves by the difference (paused time stays counted)."""
    require_gm(tx, "change the turn length")
    hours = _check_hours(action.hours)
    state = tx.state
    shift = timedelta(hours=hours - state.turn_hours)
    remaining = None
    if state.paused:
        remaining = max(0.0, (state.paused_remaining or 0) + shift.total_seconds())
    tx.emit(TurnLengthChanged(hours, state.turn_ends_at + shift, remaining))
