"""The God Dice clock: no turn clock and no forced moves, only the reminder of the player whose move it
is.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from engine.clock import Deadline
from engine.core import Tx
from engine.goddice.events import ClockPaused, ClockResumed, PlayerReminded
from engine.goddice.state import GoddiceState


def deadlines(state: GoddiceState) -> list[Deadline]:
    """The reminder of the player whose move it is (God Dice has no turn clock and no forced moves)."""
    hours = state.house.reminder_hours
    if state.ended or state.paused_at is not None or state.active is None or state.move_since is None or hours <= 0:
        return []
    return [Deadline(state.move_since + timedelta(hours=hours * (state.reminders + 1)), "reminder", state.active)]


def apply_deadline(tx: Tx[GoddiceState], due: Deadline) -> None:
    """Remind the player once for however long they have kept the game waiting."""
    state = tx.state
    assert state.move_since is not None
    hours = state.house.reminder_hours
    waited = (tx.ctx.now - state.move_since).total_seconds() / 3600
    count = max(state.reminders + 1, int(waited // hours))
    tx.emit(PlayerReminded(state.active or "", state.phase, round(count * hours, 2), count))


def paused_since(state: GoddiceState) -> datetime | None:
    return state.paused_at


def pause(tx: Tx[GoddiceState]) -> None:
    """/gm clock pause: the move's reminders wait."""
    tx.emit(ClockPaused(tx.ctx.now))


def resume(tx: Tx[GoddiceState]) -> None:
    """/gm clock resume: the move awaited has the time it had left before its next reminder."""
    assert tx.state.paused_at is not None
    tx.emit(ClockResumed(max(0.0, (tx.ctx.now - tx.state.paused_at).total_seconds())))
