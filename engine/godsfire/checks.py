"""The Social Interphase's compulsory checks, applied to one player's systems at a time: subversion acting
(D.8), allegiance drops next to revolts and for regional jealousy (D.9), economy drops (D.10, with the A regions
feeding the I regions); and, before the interphase ends, every compulsory step a player left
(`compulsory_left_over`). The actions that run them are in `engine.godsfire.politics`.

Every number comes from `data/godsfire.toml` (`rules.table(...)`); every change a check makes is a
`RegionChanged` with its reason. Rulings where the sheet is silent are marked "ruling" here and listed in
docs/godsfire.md.
"""

from __future__ import annotations

from typing import Any

from engine.core import Tx
from engine.godsfire.dues import land_shipments, repayments_due
from engine.godsfire.economy import jealousy
from engine.godsfire.events import StepDone, change_region
from engine.godsfire.loans import default_unpaid
from engine.godsfire.revolts import whole_system_revolts
from engine.godsfire.rules import ECONOMY
from engine.godsfire.state import GodsfireState, Region, System
from engine.godsfire.steps import interphase_players


def _lowered(rules: Any, region: Region, by: int) -> dict[str, Any]:
    """The fields of a region whose allegiance falls `by` levels: below the lowest level it is in revolt."""
    if by <= 0 or region.revolt:
        return {}
    level = region.allegiance - by
    if level < rules.allegiance_lowest:
        return {"allegiance": 0, "revolt": True}
    return {"allegiance": level}


def _economy_down(level: str) -> str:
    return ECONOMY[max(ECONOMY.index(level) - 1, 0)]


# --- D.8 subversion ------------------------------------------------------------------------------


def resolve_player_subversion(tx: Tx[GodsfireState], player: str) -> None:
    """D.8 for one player's systems; the step marked done."""
    track = int(tx.rules.table("subversion")["track"])
    for system in list(tx.state.systems_of(player)):
        for region in system.regions:
            money = {p: m for p, m in region.subversion.items() if m > 0}
            fields: dict[str, Any] = {}
            notes = []
            if money and region.counter_subversion <= 0:
                fields.update(_lowered(tx.rules, region, 1))
                notes.append("undefended subversion lowers allegiance by 1")
            if region.counter_subversion:
                fields["counter_subversion"] = 0
                notes.append("counter-subversion money removed")
            if money:
                steps = {p: region.subversion_step.get(p, 0) + 1 for p in money}
                fields["subversion"] = {p: m for p, m in money.items() if steps[p] < track}
                fields["subversion_step"] = {p: s for p, s in steps.items() if s < track}
                gone = sorted(p for p in money if steps[p] >= track)
                notes.append("subversion money moves down 1" + (f" ({', '.join(gone)}'s off the track)"
                                                                 if gone else ""))
            if fields:
                change_region(tx, system.name, region.number, "D.8: " + "; ".join(notes), **fields)
    tx.emit(StepDone(player, "subversion"))


# --- D.9 allegiance ------------------------------------------------------------------------------


def check_player_allegiance(tx: Tx[GodsfireState], player: str) -> None:
    """D.9 for one player's systems; the step marked done."""
    for system in list(tx.state.systems_of(player)):
        # ruling: adjacency and money as they stand when the check starts; regions of one system whose
        # numbers differ by 1 are adjacent (the maps are not in the seed)
        in_revolt = {r.number for r in system.regions if r.revolt}
        shorted = jealousy(system)
        for region in system.regions:
            next_to = sorted(n for n in (region.number - 1, region.number + 1) if n in in_revolt)
            short = shorted[region.number]
            drop = (1 if next_to else 0) + short
            fields = _lowered(tx.rules, region, drop)
            if not fields:
                continue
            notes = []
            if next_to:
                notes.append(f"next to region {next_to[0]} in revolt")
            if short:
                notes.append(f"regional jealousy: {short} less spent than in the system's best-served region")
            change_region(tx, system.name, region.number, f"D.9: {', '.join(notes)}", **fields)
    tx.emit(StepDone(player, "allegiance"))


# --- D.10 economy --------------------------------------------------------------------------------


def feeders(system: System) -> dict[int, int | None]:
    """Which A region feeds each I region (D.10.3, each A region feeds one I region). Ruling: I-2 regions
    first, in number order, each taking the lowest-numbered free A-2; then I-1 regions, each taking the
    lowest-numbered free A-1, else A-2. None: unfed."""
    free = {level: [r.number for r in system.regions if r.economy == level] for level in ("A-1", "A-2")}
    fed: dict[int, int | None] = {}
    for level, sources in (("I-2", ("A-2",)), ("I-1", ("A-1", "A-2"))):
        for region in (r for r in system.regions if r.economy == level):
            source = next((s for s in sources if free[s]), None)
            fed[region.number] = free[source].pop(0) if source else None
    return fed


def check_player_economy(tx: Tx[GodsfireState], player: str, wanted: set[tuple[str, int]]) -> None:
    """D.10 for one player's systems, with the drops the player wants (`wanted`); the step marked done."""
    for system in list(tx.state.systems_of(player)):
        fed = feeders(system)
        for region in system.regions:
            why = []
            if region.revolt:
                why.append("in revolt")
            if region.economy == "I-2" and fed.get(region.number) is None:
                why.append("I-2 with no A-2 to feed it")
            if region.economy == "I-1" and fed.get(region.number) is None:
                why.append("I-1 with no A-1 or A-2 to feed it")
            if region.enemy_units > 0:
                why.append("occupied by enemy units")
            if (system.name, region.number) in wanted:
                why.append("lowered by its owner")
            new = _economy_down(region.economy)
            if why and new != region.economy:
                change_region(tx, system.name, region.number, f"D.10: {', '.join(why)}", economy=new)
    tx.emit(StepDone(player, "economy"))


# --- the interphase's end ------------------------------------------------------------------------


def compulsory_left_over(tx: Tx[GodsfireState]) -> None:
    """Before the interphase ends (`/godsfire interphase end`, or the GM stepping the phase on): for each player
    in the interphase's order, every compulsory step not yet taken, in the sheet's order, as if the player
    had run it — a due loan repayment not made is a default of the whole amount due (D.1.4-5), the money in
    transit due this turn landed (D.3.1), then the whole-system revolt check (D.7.4), D.8 subversion resolve,
    D.9 allegiance check and D.10 economy check (no voluntary lowering)."""
    for player in interphase_players(tx.state):
        for step in ("loans", "transfer", "revolts", "subversion", "allegiance", "economy"):
            if tx.state.player(player).out:
                break  # its National Government lost on the way (D.7.4)
            if step == "transfer":
                land_shipments(tx, player)  # even once closed: nothing due is left in the box
                continue
            if step in tx.state.done.get(player, []):
                continue
            if step == "loans":
                if repayments_due(tx.state, player):
                    default_unpaid(tx, player)
                    tx.emit(StepDone(player, "loans"))
            elif step == "revolts":
                whole_system_revolts(tx, player)
            elif step == "subversion":
                resolve_player_subversion(tx, player)
            elif step == "allegiance":
                check_player_allegiance(tx, player)
            else:
                check_player_economy(tx, player, set())
    land_shipments(tx)  # what is left (a player out of the game): out of the box
