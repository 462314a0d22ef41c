"""What the stat history of a Godsfire game follows (`engine.history`): each player's systems and money (its
National Government's money, its money in transit and its systems' banks), each system's bank, and each
region's allegiance and economy ("Sol 2"). A system changing hands is marked on its new owner's chart."""

from __future__ import annotations

from typing import Any

from engine.events import Event
from engine.godsfire import events as ev
from engine.godsfire.state import GodsfireState
from engine.history import Point

HISTORY_STATS = (("systems", "systems"), ("money", "money"), ("bank", "bank"), ("allegiance", "allegiance"))


def history_point(state: GodsfireState) -> Point:
    point: Point = {}
    for player in state.players:
        owned = state.systems_of(player.name)
        point[(player.name, "systems")] = len(owned)
        point[(player.name, "money")] = player.ng_money + player.in_transit + sum(s.bank for s in owned)
    for system in state.systems:
        point[(system.name, "bank")] = system.bank
        for region in system.regions:
            point[(f"{system.name} {region.number}", "allegiance")] = region.allegiance
            point[(f"{system.name} {region.number}", "economy")] = region.economy
    return point


def history_marks(event: Event[Any]) -> list[tuple[str, str]]:
    if isinstance(event, ev.SystemChanged) and event.changes.get("owner"):
        return [(str(event.changes["owner"]), "system taken")]
    return []
