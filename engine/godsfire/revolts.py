"""D.7.4, a whole system in revolt: a system with every region in revolt goes neutral, or (a d6) to the one
player with subversion money in it; a player whose National Government was on a system lost is out of the game.
Closing the revolts step applies it (`engine.godsfire.steps.take_step`), as do marking it done and the end of
the interphase; dealing with a region's revolt (D.7.1-3) is an action in `engine.godsfire.politics`."""

from __future__ import annotations

from engine.core import Tx
from engine.godsfire.events import change_player, change_region, change_system
from engine.godsfire.state import GodsfireState, System
from engine.names import name_key


def whole_system_revolts(tx: Tx[GodsfireState], player: str) -> None:
    """D.7.4 for one player's systems: a system with every region in revolt goes neutral, unless exactly one
    player has subversion money in it: then on a d6 of 4-6 (the sheet's 50%) it becomes his."""
    rules = tx.rules
    for system in list(tx.state.systems_of(player)):
        if not system.regions or not all(r.revolt for r in system.regions):
            continue
        subverters = sorted({p for r in system.regions for p, money in r.subversion.items() if money > 0})
        if len(subverters) == 1:
            chance = int(tx.rules.table("revolts")["sole_subverter_chance"])
            need = rules.die_sides - rules.die_sides * chance // 100 + 1  # 50% on a d6: 4-6
            die = tx.roll(f"revolt: whole system to its sole subverter ({system.name})", subverters[0]).die
            if die >= need:
                _to_subverter(tx, system, subverters[0], die)
                continue
            reason = f"D.7.4: every region in revolt, die {die} (not {need}+): {system.name} goes neutral"
        else:
            reason = f"D.7.4: every region of {system.name} in revolt: it goes neutral"
        _goes_neutral(tx, system, reason)


def _to_subverter(tx: Tx[GodsfireState], system: System, subverter: str, die: int) -> None:
    # ruling: the subverter takes it over with its revolts ended at allegiance 2 (the level bribery and
    # police action restore) and the subversion money in it spent.
    level = int(tx.rules.table("revolts")["police_to"])
    previous = system.owner
    change_system(tx, system.name, f"D.7.4: every region in revolt, die {die}: {system.name} goes to its "
                  f"sole subverter {subverter}", owner=subverter)
    for region in system.regions:
        change_region(tx, system.name, region.number, f"D.7.4: {subverter} takes over: the revolt ends",
                      allegiance=level, revolt=False, subversion={}, subversion_step={})
    _government_lost(tx, system, previous)


def _goes_neutral(tx: Tx[GodsfireState], system: System, reason: str) -> None:
    owner = system.owner
    # ruling: a system gone neutral takes its loans with it (a neutral system has none)
    change_system(tx, system.name, reason, owner=None, units=dict(tx.rules.gone_neutral_units), loans=[])
    for region in system.regions:
        if region.units:
            change_region(tx, system.name, region.number, f"{system.name} went neutral: its units are gone",
                          units={})
    _government_lost(tx, system, owner)


def _government_lost(tx: Tx[GodsfireState], system: System, owner: str | None) -> None:
    """The sheet: a player whose National Government was on a system he lost is out of the game."""
    player = tx.state.find_player(owner) if owner else None
    if player is not None and player.government is not None and \
            name_key(player.government) == name_key(system.name):
        change_player(tx, player.name, f"the sheet: {player.name}'s National Government was on {system.name}, "
                      f"which is lost: {player.name} is out of the game", out=True, government=None)
