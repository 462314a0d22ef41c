"""The Social Interphase's money steps (the sheet's D.1-D.5 and D.14) and "Change Ministers!": tax and
extortion, transfers and money in transit, purchases, loyalty and economy raises, and the placing of new
units (the loans, D.1's repayment and D.2, are in `engine.godsfire.loans`; the money in transit that lands
this turn, D.3.1, in `engine.godsfire.dues`). Every number comes from `data/godsfire.toml`
(`rules.table(...)`); every change is a `RegionChanged` / `SystemChanged` / `PlayerChanged` with its reason.
Rulings where the sheet is silent are in docs/godsfire.md (and noted at the function that applies them).

Each action is a step of its owner's interphase, taken in the sheet's order (`steps.open_step` refuses a
closed step or one whose compulsory earlier step is not taken; `steps.take_step` closes the earlier ones). A
spend that would make regional jealousy (D.9) lower other regions is refused, saying what it will cost, unless
confirmed (`confirm`).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from engine.core import Tx
from engine.errors import BadInput, NotYourNation, RuleViolation
from engine.godsfire.common import OWN_SYSTEM_PARAM, REGION_PARAM, RULESET, acting_player, handles
from engine.godsfire.dues import on_the_way
from engine.godsfire.events import change_player, change_region, change_system
from engine.godsfire.rules import ECONOMY, UNIT_TYPES, GodsfireRules
from engine.godsfire.state import MAX_BOX_UNITS, PHASE_NAMES, GodsfireState, Player, Region, System
from engine.godsfire.steps import open_step, take_step
from engine.godsfire.table import require_room
from engine.names import name_key
from engine.vocabulary import NUMBERS, Command, Param

INDUSTRIAL = ("I-1", "I-2")
PLACES = ("ng", "transit")  # transfer ends other than a system: the NG's money, the Money in Transit box


# --- actions -------------------------------------------------------------------------------------


@dataclass
class Tax:
    """D.1: collect the system's revenue; `extort` lists regions taxed once more (allegiance -1 each)."""

    system: str
    extort: str | None = None


@dataclass
class Transfer:
    """D.3: move money between a system's bank, the NG's money and the Money in Transit box."""

    source: str
    target: str
    amount: int
    player: str | None = None  # whose NG / transit box, when neither end is a system (GM: anyone's)


@dataclass
class Buy:
    """D.4: buy units of the type the region's party wants (placed at D.14)."""

    system: str
    region: int
    type: str
    count: int
    confirm: bool = False  # spend even if regional jealousy (D.9) will lower other regions


@dataclass
class Loyalty:
    """D.5: spend on the region's Loyalty box: +1 allegiance (at most once a turn); more for jealousy."""

    system: str
    region: int
    amount: int | None = None
    confirm: bool = False  # spend even if regional jealousy (D.9) will lower other regions


@dataclass
class Develop:
    """D.5: raise a Moderate region's economy one level, paying the house cost between the levels."""

    system: str
    region: int
    confirm: bool = False  # spend even if regional jealousy (D.9) will lower other regions


@dataclass
class Place:
    """D.14: place units bought this interphase (SQD in the system cell, AG and PDF in the region)."""

    system: str
    region: int
    type: str
    count: int


@dataclass
class ChangeMinisters:
    """"Change Ministers!" (once a game): every regional allegiance not in revolt up one step."""

    player: str | None = None  # GM: for whom


# --- shared checks (the loans' too) --------------------------------------------------------------


def require_interphase(tx: Tx[GodsfireState], step: str) -> None:
    """Refuse `step` outside the Social Interphase."""
    state: GodsfireState = tx.state
    if state.phase != "interphase":
        raise RuleViolation(f"the sheet: {step} is part of the Social Interphase (D); the game is in turn "
                            f"{state.turn}'s {PHASE_NAMES.get(state.phase, state.phase)}")


def _active(player: Player) -> None:
    if player.out:
        raise RuleViolation(f"{player.name} has lost the National Government and is out of the game")


def own_system(tx: Tx[GodsfireState], name: str, what: str) -> tuple[System, Player]:
    """The system (by name) and its owner, if the actor is its owner or the GM; refusals otherwise."""
    system = tx.state.system(name)
    if system.owner is None:
        raise RuleViolation(f"{system.name} is neutral: nobody may {what} there")
    if not tx.ctx.is_gm and name_key(system.owner) != name_key(tx.ctx.actor):
        raise NotYourNation(f"{system.name} belongs to {system.owner}: only its owner or the GM may {what} there")
    owner = tx.state.player(system.owner)
    _active(owner)
    return system, owner


def _acting_player(tx: Tx[GodsfireState], named: str | None, what: str) -> Player:
    """The player acting (the actor; the GM must name one), still in the game."""
    player = acting_player(tx, named, what)
    _active(player)
    return player


def require_positive(value: int, what: str) -> None:
    """Refuse a count or an amount below 1."""
    if value < 1:
        raise BadInput(f"{what} must be at least 1, not {value}")


def _pay(tx: Tx[GodsfireState], system: System, cost: int, what: str) -> None:
    if cost > system.bank:
        raise RuleViolation(f"{what} costs {cost} GB and {system.name}'s bank holds {system.bank} GB")


def lower_allegiance(tx: Tx[GodsfireState], system: System, region: Region, by: int, reason: str) -> None:
    """The region's allegiance `by` levels lower; below the lowest level it revolts (allegiance 0)."""
    if region.revolt:
        return
    allegiance, revolt = region.allegiance - by, False
    if allegiance < tx.rules.allegiance_lowest:
        allegiance, revolt = 0, True
        reason += f"; below level {tx.rules.allegiance_lowest} the region revolts"
    change_region(tx, system.name, region.number, reason, allegiance=allegiance, revolt=revolt)


def jealousy(system: System, spent: dict[int, int] | None = None) -> dict[int, int]:
    """D.9.2, regional jealousy: each region's drop, 1 for every GB it was shorted against the region of its
    system on which most was spent this interphase (`spent`: the regions' spending, if not as it stands)."""
    spending = spent if spent is not None else {r.number: r.spent for r in system.regions}
    most = max(spending.values(), default=0)
    return {number: most - money for number, money in spending.items()}


def _jealousy_warning(tx: Tx[GodsfireState], system: System, region: Region, cost: int, confirm: bool) -> None:
    """Refuse a spend that would make regional jealousy (D.9) lower other regions of the system, saying
    what it will cost, unless confirmed. The drops are the D.9 check's at this moment: each other region's
    shortfall against the system's new highest spending (regions in revolt cannot fall)."""
    if confirm or cost <= 0:
        return
    spent = {r.number: r.spent for r in system.regions}
    before = max(spent.values(), default=0)
    spent[region.number] += cost
    if max(spent.values()) <= before:
        return  # the spend raises nobody's shortfall
    drops = jealousy(system, spent)
    hits = []
    for other in system.regions:
        drop = drops[other.number]
        if other.number == region.number or other.revolt or drop <= 0:
            continue
        level = other.allegiance - drop
        revolt = level < tx.rules.allegiance_lowest
        hits.append(f"{system.name} {other.number} by {drop}: allegiance {other.allegiance} → "
                    f"{0 if revolt else level}{', in revolt' if revolt else ''}")
    if hits:
        raise RuleViolation(f"regional jealousy (D.9): spending {cost} in {system.name} {region.number} will "
                            f"lower {'; '.join(hits)} — add confirm:true to spend")


def _region_numbers(raw: str, system: System) -> list[int]:
    numbers: list[int] = []
    for token in (t for t in re.split(r"[\s,;]+", raw.strip()) if t):
        if not token.isdecimal():
            raise BadInput(f"regions are numbers, e.g. \"1 3\", not {token!r}")
        number = int(token)
        system.region(number)  # refuses an unknown region
        if number in numbers:
            raise BadInput(f"region {number} is listed twice: the sheet allows one extra tax per region")
        numbers.append(number)
    return numbers


def _spend(tx: Tx[GodsfireState], system: System, region: Region, cost: int, reason: str) -> None:
    """Take `cost` from the bank and count it as spent on the region (regional jealousy, D.9b)."""
    change_system(tx, system.name, reason, bank=tx.state.system(system.name).bank - cost)
    change_region(tx, system.name, region.number, reason, spent=region.spent + cost)


# --- D.1 tax -------------------------------------------------------------------------------------


def taxable(region: Region) -> bool:
    """Regions in revolt or with enemy units produce no revenue (D.1.1)."""
    return not region.revolt and region.enemy_units == 0


def revenue(rules: GodsfireRules, system: System) -> tuple[int, list[str]]:
    """The system's tax (D.1.1-2) and its items in words. Ruling: a system whose every region is in revolt
    or occupied is not taxable (no planet revenue either); a system without regions pays for its planets."""
    table = rules.table("tax")
    if system.regions and not any(taxable(r) for r in system.regions):
        return 0, ["no region can be taxed"]
    total = int(table["per_planet"]) * system.planets
    items = [f"{system.planets} planet{'s' if system.planets != 1 else ''} +{total}"]
    for region in system.regions:
        if not taxable(region):
            why = "in revolt" if region.revolt else "enemy units"
            items.append(f"region {region.number} {why} +0")
            continue
        gain = int(table["by_economy"].get(region.economy, 0))
        total += gain
        if gain:
            items.append(f"region {region.number} {region.economy} +{gain}")
    return total, items


@handles(Tax)
def tax(tx: Tx[GodsfireState], action: Tax) -> None:
    require_interphase(tx, "the tax (D.1)")
    system, owner = own_system(tx, action.system, "tax")
    open_step(tx, owner.name, "tax")
    if system.taxed_turn == tx.state.turn:
        raise RuleViolation(f"{system.name} has already paid its tax this turn (D.1: once per interphase)")
    table = tx.rules.table("tax")
    extorted = _region_numbers(action.extort, system) if action.extort else []
    for number in extorted:
        region = system.region(number)
        if not taxable(region):
            why = "is in revolt" if region.revolt else "holds enemy units"
            raise RuleViolation(f"the sheet: regions in revolt or with enemy units produce no revenue: region "
                                f"{number} of {system.name} {why} and cannot be extorted")
    total, items = revenue(tx.rules, system)
    extra = int(table["extortion"])
    for number in extorted:
        total += extra
        items.append(f"extortion in region {number} +{extra}")
    reason = f"tax of turn {tx.state.turn}: " + ", ".join(items) + f" = {total} GB"
    take_step(tx, owner.name, "tax")
    change_system(tx, system.name, reason, bank=system.bank + total, taxed_turn=tx.state.turn)
    drop = int(table["extortion_allegiance"])
    for number in extorted:
        lower_allegiance(tx, system, system.region(number), -drop, f"extortion (D.1.3): allegiance {drop:+d}")


# --- D.3 transfers -------------------------------------------------------------------------------


def _end(tx: Tx[GodsfireState], raw: str, what: str) -> tuple[str, System | None]:
    key = raw.strip().casefold()
    if key in PLACES:
        return key, None
    system = tx.state.find_system(raw)
    if system is None:
        raise BadInput(f"{what}: is a system, ng (the National Government's money) or transit (the Money in "
                       f"Transit box), not {raw!r}")
    return "system", system


def _ng_reaches(player: Player, system: System) -> None:
    if player.government is not None and name_key(player.government) != name_key(system.name):
        raise RuleViolation(f"the sheet: other than for subversion, money must move through space to reach "
                            f"another planet: {player.name}'s National Government is on {player.government}, "
                            f"not {system.name} (use the Money in Transit box)")


@handles(Transfer)
def transfer(tx: Tx[GodsfireState], action: Transfer) -> None:
    """Ruling: money goes system ↔ transit, transit ↔ NG, and system ↔ NG only on the NG's own system
    (anywhere if its system is not recorded); never straight from one system to another: the sheet has it
    moved through space, so it goes system → transit, is moved on the map, then transit → system."""
    require_interphase(tx, "a transfer (D.3)")
    require_positive(action.amount, "amount")
    source_kind, source = _end(tx, action.source, "from")
    target_kind, target = _end(tx, action.target, "to")
    if source_kind == target_kind and (source is None or source is target):
        raise BadInput("a transfer needs two different places")
    if source is not None and target is not None:
        raise RuleViolation("the sheet: other than for subversion, money must move through space to reach "
                            "another planet: transfer it to transit, move it, then from transit to "
                            f"{target.name}")
    end = source or target
    if end is not None:
        system, player = own_system(tx, end.name, "move money")
        if action.player is not None and name_key(action.player) != name_key(player.name):
            raise BadInput(f"{system.name} is {player.name}'s: its money moves only to {player.name}'s NG "
                           f"or transit box")
    else:
        system, player = None, _acting_player(tx, action.player, "move money")
    open_step(tx, player.name, "transfer")  # it lands the money due this turn (D.3.1): read the places again
    player = tx.state.player(player.name)
    source = tx.state.system(source.name) if source is not None else None
    target = tx.state.system(target.name) if target is not None else None
    system = tx.state.system(system.name) if system is not None else None
    if system is not None and "ng" in (source_kind, target_kind):
        _ng_reaches(player, system)
    held = {"ng": player.ng_money, "transit": player.in_transit - on_the_way(tx.state, player.name),
            "system": source.bank if source is not None else 0}[source_kind]
    if action.amount > held:
        travelling = on_the_way(tx.state, player.name)
        box = (f"the Money in Transit box holds, besides the {travelling} GB still on its way,"
               if travelling else "the Money in Transit box holds")
        where = {"ng": f"{player.name}'s National Government holds", "transit": box,
                 "system": f"{source.name}'s bank holds" if source else ""}[source_kind]
        raise RuleViolation(f"{where} {held} GB, less than {action.amount}")
    take_step(tx, player.name, "transfer")
    names = {"ng": "the National Government", "transit": "the Money in Transit box"}
    reason = (f"transfer of {action.amount} GB (D.3) from {source.name if source else names[source_kind]} "
              f"to {target.name if target else names[target_kind]}")
    player_fields = {"ng": "ng_money", "transit": "in_transit"}
    money = {"ng_money": player.ng_money, "in_transit": player.in_transit}
    if source is not None:
        change_system(tx, source.name, reason, bank=source.bank - action.amount)
    else:
        money[player_fields[source_kind]] -= action.amount
    if target is not None:
        change_system(tx, target.name, reason, bank=target.bank + action.amount)
    else:
        money[player_fields[target_kind]] += action.amount
    change_player(tx, player.name, reason, **money)


# --- D.4 purchases -------------------------------------------------------------------------------


def _unit_type(raw: str) -> str:
    kind = raw.strip().upper()
    if kind not in UNIT_TYPES:
        raise BadInput(f"type: is one of {', '.join(UNIT_TYPES)}, not {raw!r}")
    return kind


@handles(Buy)
def buy(tx: Tx[GodsfireState], action: Buy) -> None:
    require_interphase(tx, "purchasing (D.4)")
    system, owner = own_system(tx, action.system, "buy units")
    open_step(tx, owner.name, "purchase")
    region = system.region(action.region)
    kind = _unit_type(action.type)
    require_positive(action.count, "count")
    table = tx.rules.table("purchase")
    wanted = table["wanted"][region.party]
    if kind != wanted:
        raise RuleViolation(f"the sheet: each region can only purchase units of the type wanted by the party "
                            f"in power: region {region.number}'s party {region.party} wants {wanted}, not {kind}")
    most = {level: int(n) for level, n in table["most"].items()}
    if region.economy not in most:
        limits = " and ".join(f"{level} up to {n}" for level, n in most.items())
        raise RuleViolation(f"the sheet: only industrial regions produce units ({limits}); region "
                            f"{region.number} of {system.name} is {region.economy}")
    if region.enemy_units:
        raise RuleViolation(f"the sheet: you may not purchase units in regions containing enemy units "
                            f"(region {region.number} of {system.name} holds {region.enemy_units})")
    if kind == "SQD" and system.enemy_units:
        raise RuleViolation(f"the sheet: you may not purchase squadrons if enemy units are on the system cell "
                            f"({system.name}'s holds {system.enemy_units})")
    if region.bought + action.count > most[region.economy]:
        raise RuleViolation(f"the sheet: {region.economy} regions may produce up to {most[region.economy]} units "
                            f"a turn; region {region.number} of {system.name} has bought {region.bought}")
    if region.to_place.get(kind, 0) + action.count > MAX_BOX_UNITS:
        raise RuleViolation(f"region {region.number} of {system.name} has {region.to_place.get(kind, 0)} {kind} "
                            f"waiting to be placed: at most {MAX_BOX_UNITS} a type (place them at D.14 first)")
    cost = int(table["cost"]) * action.count
    _pay(tx, system, cost, f"{action.count} {kind}")
    _jealousy_warning(tx, system, region, cost, action.confirm)
    take_step(tx, owner.name, "purchase")
    reason = f"bought {action.count} {kind} in region {region.number} for {cost} GB (D.4), placed at D.14"
    _spend(tx, system, region, cost, reason)
    to_place = dict(region.to_place)
    to_place[kind] = to_place.get(kind, 0) + action.count
    change_region(tx, system.name, region.number, reason, bought=region.bought + action.count, to_place=to_place)


# --- D.5 loyalty and economy ---------------------------------------------------------------------


@handles(Loyalty)
def loyalty(tx: Tx[GodsfireState], action: Loyalty) -> None:
    """Ruling: without `amount` the point is the raise, so a region that cannot rise (raised this turn,
    or at the highest level, 5, for every party) is refused; with `amount` the money is spent even then,
    for regional jealousy (D.5.2), and the region rises by 1 if it can."""
    require_interphase(tx, "the Loyalty box (D.5)")
    system, owner = own_system(tx, action.system, "spend on loyalty")
    open_step(tx, owner.name, "raise")
    region = system.region(action.region)
    cost = int(tx.rules.table("raise")["loyalty_cost"])
    amount = cost if action.amount is None else action.amount
    if amount < cost:
        raise RuleViolation(f"the sheet: raising allegiance costs {cost} GB, not {amount}")
    if region.revolt:
        raise RuleViolation(f"region {region.number} of {system.name} is in revolt: deal with it at D.7 "
                            f"(negotiate, bribery or police action), not with the Loyalty box")
    top = tx.rules.allegiance_highest  # the rulings: allegiance runs 0-5 for every party
    blocked = ("the sheet: maximum increase is 1 per turn" if region.raised
               else f"allegiance {region.allegiance} is the highest level ({top})"
               if region.allegiance >= top else None)
    if blocked and action.amount is None:
        raise RuleViolation(f"{blocked}: region {region.number} of {system.name} cannot rise (give amount: to "
                            f"spend money on it for regional jealousy anyway)")
    _pay(tx, system, amount, "the Loyalty box")
    _jealousy_warning(tx, system, region, amount, action.confirm)
    take_step(tx, owner.name, "raise")
    if blocked:
        reason = f"{amount} GB on region {region.number}'s Loyalty box (D.5.2: regional jealousy; {blocked})"
        _spend(tx, system, region, amount, reason)
        return
    reason = f"{amount} GB on region {region.number}'s Loyalty box (D.5.1): allegiance +1"
    _spend(tx, system, region, amount, reason)
    change_region(tx, system.name, region.number, reason, allegiance=region.allegiance + 1, raised=True)


@handles(Develop)
def develop(tx: Tx[GodsfireState], action: Develop) -> None:
    """Ruling: the sheet sets no limit of levels a turn: each raise pays its own cost."""
    require_interphase(tx, "the Econ box (D.5)")
    system, owner = own_system(tx, action.system, "raise economic levels")
    open_step(tx, owner.name, "raise")
    region = system.region(action.region)
    if region.party != "M" or region.revolt:
        raise RuleViolation(f"the sheet: only Moderate (M) governments not in revolt can raise economic levels "
                            f"(region {region.number} of {system.name}: party {region.party}"
                            f"{', in revolt' if region.revolt else ''})")
    if system.enemy_units:
        raise RuleViolation(f"the sheet: cannot raise economic level if the system is under siege ("
                            f"{system.enemy_units} enemy units on {system.name}'s cell)")
    if region.enemy_units:
        raise RuleViolation(f"the sheet: cannot raise economic level if enemy units are in the region "
                            f"(region {region.number} of {system.name} holds {region.enemy_units})")
    cost = tx.state.house.economy_cost(region.economy)  # house: the sheet's Economic Scale is not included
    index = ECONOMY.index(region.economy)
    if index + 1 >= len(ECONOMY) or cost is None:
        raise RuleViolation(f"region {region.number} of {system.name} is {region.economy}, the highest level")
    raised = ECONOMY[index + 1]
    _pay(tx, system, cost, f"raising {region.economy} to {raised}")
    _jealousy_warning(tx, system, region, cost, action.confirm)
    take_step(tx, owner.name, "raise")
    reason = f"{cost} GB on region {region.number}'s Econ box (D.5.4): {region.economy} → {raised}"
    _spend(tx, system, region, cost, reason)
    change_region(tx, system.name, region.number, reason, economy=raised)


# --- D.14 new units ------------------------------------------------------------------------------


@handles(Place)
def place(tx: Tx[GodsfireState], action: Place) -> None:
    """Ruling: a unit's type is fixed when bought (party changes do not affect builds); bought units not
    placed stay in the region's box for a later D.14; an industrial region that fell from I-2 to I-1
    still places them all (it has not lost its industrial capacity)."""
    require_interphase(tx, "placing new units (D.14)")
    system, owner = own_system(tx, action.system, "place units")
    open_step(tx, owner.name, "units")
    region = system.region(action.region)
    kind = _unit_type(action.type)
    require_positive(action.count, "count")
    waiting = region.to_place.get(kind, 0)
    if action.count > waiting:
        raise RuleViolation(f"region {region.number} of {system.name} has {waiting} {kind} bought and not yet "
                            f"placed, not {action.count}")
    if region.revolt:
        raise RuleViolation(f"the sheet: cannot place new units if the region is in revolt (region "
                            f"{region.number} of {system.name})")
    if region.economy not in INDUSTRIAL:
        raise RuleViolation(f"the sheet: cannot place new units if the region has lost its industrial capacity "
                            f"(region {region.number} of {system.name} is now {region.economy})")
    take_step(tx, owner.name, "units")
    to_place = dict(region.to_place)
    to_place[kind] -= action.count
    if not to_place[kind]:
        del to_place[kind]
    where = f"{system.name}'s system cell" if kind == "SQD" else f"region {region.number}"
    reason = f"{action.count} new {kind} placed in {where} (D.14)"
    change_region(tx, system.name, region.number, reason, to_place=to_place)
    units = dict(system.units if kind == "SQD" else region.units)  # squadrons never go on the ground
    units[kind] = units.get(kind, 0) + action.count
    if units[kind] > MAX_BOX_UNITS:
        raise RuleViolation(f"{where} would hold {units[kind]} {kind}: a box holds at most {MAX_BOX_UNITS} of a type "
                            "(move some out first)")
    if kind == "SQD":
        change_system(tx, system.name, reason, units=units)
    else:
        change_region(tx, system.name, region.number, reason, units=units)
    require_room(tx.state, f"placing {action.count} {kind}")


# --- "Change Ministers!" -------------------------------------------------------------------------


@handles(ChangeMinisters)
def change_ministers(tx: Tx[GodsfireState], action: ChangeMinisters) -> None:
    """Ruling: it may be announced at any time (the sheet puts it under the National Government, not in
    the interphase: no interphase step); every region not in revolt rises up to 5, the highest level for
    every party, and one already at 5 stays there."""
    player = _acting_player(tx, action.player, "announce \"Change Ministers!\"")
    if player.ministers_changed:
        raise RuleViolation(f"the sheet: \"Change Ministers!\" is once per game, and {player.name} has "
                            f"announced it already")
    reason = f"{player.name} announced \"Change Ministers!\": every regional allegiance up one step"
    for system in tx.state.systems_of(player.name):
        for region in system.regions:
            if region.revolt:
                continue
            top = tx.rules.allegiance_highest
            change_region(tx, system.name, region.number, reason,
                          allegiance=max(region.allegiance, min(top, region.allegiance + 1)))
    change_player(tx, player.name, reason, ministers_changed=True)


# --- commands ------------------------------------------------------------------------------------

P = Param
_CONFIRM = P("confirm", bool,
             help="true: spend even if regional jealousy (D.9) will lower other regions of the system")


def _confirmed(o: dict[str, Any]) -> bool:
    return str(o.get("confirm") or "false").strip().lower() in ("true", "yes", "1")


def _command(path: str, help: str, params: tuple[Param, ...], action: Callable[[dict[str, Any]], object]) -> Command:
    return Command(path, help, params, action=action, ruleset=RULESET)


COMMANDS: tuple[Command, ...] = (
    _command("godsfire money tax", "D.1: collect the system's tax (once a turn); extort: regions taxed once more",
             (OWN_SYSTEM_PARAM, P("extort", help="regions to extort, e.g. \"1 3\" (allegiance -1 each)", words=NUMBERS,
                         complete="region_list")),
             lambda o: Tax(o["system"], o.get("extort"))),
    _command("godsfire money transfer", "D.3: move money between a system's bank, the NG and the transit box",
             (P("from", required=True, help="a system, ng or transit", complete="purse"),
              P("to", required=True, help="a system, ng or transit", complete="purse"),
              P("amount", int, True, help="GB moved", low=1, high=999),
              P("player", help="GM: whose NG / transit box (when neither end is a system)", complete="player")),
             lambda o: Transfer(o["from"], o["to"], o["amount"], o.get("player"))),
    _command("godsfire region buy", "D.4: buy units of the type the region's party wants, placed at D.14",
             (OWN_SYSTEM_PARAM, REGION_PARAM, P("type", required=True, choices=UNIT_TYPES, help="SQD, AG or PDF"),
              P("count", int, True, help="how many", low=1, high=999), _CONFIRM),
             lambda o: Buy(o["system"], o["region"], o["type"], o["count"], _confirmed(o))),
    _command("godsfire region loyalty", "D.5: spend on the region's Loyalty box (+1 allegiance, once a turn)",
             (OWN_SYSTEM_PARAM, REGION_PARAM,
              P("amount", int, help="GB spent (more than 1: regional jealousy)", low=1, high=999), _CONFIRM),
             lambda o: Loyalty(o["system"], o["region"], o.get("amount"), _confirmed(o))),
    _command("godsfire region develop", "D.5: raise a Moderate region's economy one level",
             (OWN_SYSTEM_PARAM, REGION_PARAM, _CONFIRM), lambda o: Develop(o["system"], o["region"], _confirmed(o))),
    _command("godsfire region place", "D.14: place units bought this interphase",
             (OWN_SYSTEM_PARAM, REGION_PARAM, P("type", required=True, choices=UNIT_TYPES, help="SQD, AG or PDF"),
              P("count", int, True, help="how many", low=1, high=999)),
             lambda o: Place(o["system"], o["region"], o["type"], o["count"])),
    _command("godsfire interphase ministers",
             "\"Change Ministers!\" (once a game): every regional allegiance up one step",
             (P("player", help="GM: for whom", complete="player"),), lambda o: ChangeMinisters(o.get("player"))),
)
