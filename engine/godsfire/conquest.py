"""Conquest by force (the rulings, "The board"; the sheet is silent on a player's system): at the end of a Combat
Phase a system passes to the one player who holds its system cell (that player's fighting units are the only
counters there) and whose ground units are the only units left on every region of it, as a conquered neutral
does (`setup.conquer`: allegiance and economic levels rolled, every party Reactionary; the loser's counters
left in the system are removed, a National Government with them, and its player is out).
"""

from __future__ import annotations

from engine.core import Tx
from engine.godsfire.setup import conquer
from engine.godsfire.state import FIGHTING, Counter, GodsfireState, System, cached_key
from engine.names import name_key


def taker(state: GodsfireState, system: System, by_place: dict[str, list[Counter]] | None = None) -> str | None:
    """The player who has taken `system` by force, if one has (`by_place`: `state.counters_by_place()`, for a
    look at every system)."""
    places = state.counters_by_place() if by_place is None else by_place

    def counters_at(at: str) -> list[Counter]:
        return places.get(cached_key(at), [])

    in_cell = [c for c in counters_at(system.name) if c.kind != "GB"]
    holders = {c.owner for c in in_cell}
    if len(holders) != 1 or None in holders or not any(c.kind in FIGHTING for c in in_cell):
        return None
    winner = next(iter(holders))
    assert winner is not None
    if system.owner is not None and name_key(system.owner) == name_key(winner):
        return None
    player = state.find_player(winner)
    if player is None or player.out or not system.regions:
        return None
    if system.owner is not None and not state.at_war(winner, system.owner):
        return None
    for region in system.regions:
        here = [c for c in counters_at(f"{system.name} {region.number}") if c.kind != "GB"]
        if not here or any(c.owner is None or name_key(c.owner) != name_key(winner) for c in here):
            return None
    return winner


def take_systems(tx: Tx[GodsfireState]) -> None:
    """Every system taken by force this Combat Phase changes hands."""
    by_place = tx.state.counters_by_place()
    reconciled = False  # (the counters made to match the boxes once, by the first conquest)
    for system in list(tx.state.systems):
        current = tx.state.system(system.name)
        winner = taker(tx.state, current, by_place)
        if winner is not None:
            whose = f"{current.owner}'s" if current.owner else "neutral"
            conquer(tx, current.name, winner, f"{winner} holds {current.name}'s cell and every region of it: "
                    f"{whose} {current.name} is taken by force", reconciled)
            reconciled = True
            by_place = tx.state.counters_by_place()
