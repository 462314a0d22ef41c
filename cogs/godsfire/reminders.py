"""What a Godsfire player is awaited for, as their reminders by DM say it (/remind me, `cogs.remind`): their go
at initiative when it comes (A.1), and again at its half-time reminder."""

from __future__ import annotations

from datetime import timedelta

from cogs.frontends import Nudge
from cogs.godsfire.controls import go_of
from cogs.render import when
from engine.events import Event
from engine.godsfire.state import GodsfireState


def nudges(state: GodsfireState, events: list[Event]) -> list[Nudge]:
    """The awaited go (one key per go), and its half-time reminder once the engine has given it."""
    go, ini = go_of(state), state.initiative
    if go is None or ini is None or not ini.awaiting:
        return []
    until = ini.since + timedelta(hours=float(state.house.response_hours)) if ini.since is not None else None
    by = f", until {when(until)}" if until is not None else ""
    key = f"go {go} {ini.since.isoformat() if ini.since else ''}"
    found = [Nudge(ini.awaiting, key, f"it's your go at initiative (turn {state.turn}, round {ini.round}): Move "
                                      f"(then Done), or Pass{by}.", until=until)]
    if ini.reminded:
        found.append(Nudge(ini.awaiting, key + " reminded", f"your go at initiative still waits for you{by}: then "
                           "it ends (a pass, if you have not moved).", until=until))
    return found
