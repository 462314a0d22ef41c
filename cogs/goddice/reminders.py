"""What a God Dice player is awaited for, as their reminders by DM say it (/remind me, `cogs.remind`): their
move, when it passes to them, and again at each of the engine's reminders of it."""

from __future__ import annotations

from cogs.frontends import Nudge
from engine.events import Event
from engine.goddice.common import waiting_for
from engine.goddice.describe import MOVES
from engine.goddice.state import GoddiceState


def nudges(state: GoddiceState, events: list[Event]) -> list[Nudge]:
    """The move awaited (one key while it stays with the same player), and its reminders so far."""
    player = waiting_for(state)
    if state.ended or player is None or state.phase not in MOVES:
        return []
    found = [Nudge(player, f"move {player}", f"it's your move: {MOVES[state.phase]}.")]
    if state.reminders and state.move_since is not None:
        found.append(Nudge(player, f"move {player} {state.move_since.isoformat()} reminder {state.reminders}",
                           f"it's still your move: {MOVES[state.phase]}."))
    return found
