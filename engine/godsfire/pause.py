"""The Godsfire clock's pause (/gm clock pause and resume, `engine.clock`): while paused, no answer's deadline
falls due (a go at initiative and its half-time reminder, a transit attack, losses or a retreat to choose); on
resume each counts from a moment moved on by the pause, so each has the time it had left."""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime, timedelta

from engine.core import Tx
from engine.godsfire.events import change_game
from engine.godsfire.state import GodsfireState


def paused_since(state: GodsfireState) -> datetime | None:
    return state.paused_at


def pause(tx: Tx[GodsfireState]) -> None:
    change_game(tx, "the clock is paused: every deadline waits until it resumes", paused_at=tx.ctx.now)


def resume(tx: Tx[GodsfireState]) -> None:
    state = tx.state
    assert state.paused_at is not None
    shift = max(timedelta(0), tx.ctx.now - state.paused_at)

    def moved(since: datetime | None) -> datetime | None:
        return None if since is None else since + shift

    ini, transit = state.initiative, state.transit
    change_game(tx, "the clock runs again: every deadline has the time it had left", paused_at=None,
                initiative=None if ini is None else replace(ini, since=moved(ini.since)),
                transit=None if transit is None else replace(transit, since=moved(transit.since)),
                choices=[replace(c, since=moved(c.since)) for c in state.choices])
