"""The God Dice clock: no turn clock and no forced moves, only the reminder of the player whose move it
is.
"""

from __future__ import annotations

from datetime import timedelta

from engine.clock import Deadline
from engine.core import Tx
from engine.goddice.events import PlayerReminded
from engine.goddice.state import GoddiceState


def deadlines(state: GoddiceState) -> list[Deadline]:
    """The reminder of the player whose move it is (God Dice has no turn clock and no forced moves)."""
    hours = state.house.reminder_hours
    if state.ended or state.active is None or state.move_since is None or hours <= 0:
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
