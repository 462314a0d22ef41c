"""D.11 to D.13: subversion money placed in other players' regions (using the initiative system's order; at
war carried to a cell next to the target system, C and D.11.1), de-subversion money (removed after placement,
with the subversion it cancels) and counter-subversion money. D.8, where subversion acts, is in
`engine.godsfire.checks` (its action in `engine.godsfire.politics`); the rulings are in docs/godsfire.md."""

from __future__ import annotations

from dataclasses import dataclass

from engine.core import Tx
from engine.errors import BadInput, RuleViolation
from engine.godsfire.common import (
    REGION_PARAM,
    RULESET,
    SYSTEM_PARAM,
    acting_player,
    handles,
    owned_system,
    region_name,
)
from engine.godsfire.events import change_game, change_player, change_region, change_system
from engine.godsfire.state import Counter as TableCounter
from engine.godsfire.state import GodsfireState, Region, System
from engine.godsfire.steps import in_interphase, open_step, take_step
from engine.godsfire.table import copy_counters
from engine.names import name_key
from engine.vocabulary import Command, Param

P = Param
_AMOUNT = P("amount", int, True, help="how much money to place", low=1, high=999)


@dataclass
class Subvert:
    """D.11: place subversion money in a region of another player's system (paid from the payer's NG)."""

    system: str
    region: int
    amount: int
    player: str | None = None  # the GM names the payer
    carried: int | None = None  # the payer's GB counter the money comes from (at war: required, D.11.1)


@dataclass
class Desubvert:
    """D.12: place de-subversion money (from the system bank); it and the subversion it meets are removed."""

    system: str
    region: int
    amount: int


@dataclass
class Counter:
    """D.13: place counter-subversion money (from the system bank)."""

    system: str
    region: int
    amount: int


# --- D.11-13 subversion, de-subversion, counter-subversion ---------------------------------------


def _amount(amount: int) -> int:
    if amount < 1:
        raise BadInput("amount: must be 1 or more")
    return amount


@handles(Subvert)
def subvert(tx: Tx[GodsfireState], action: Subvert) -> None:
    state = in_interphase(tx, "D.11 placing subversion money")
    amount = _amount(action.amount)
    payer = acting_player(tx, action.player, "place subversion money")
    system = state.system(action.system)
    region = system.region(action.region)
    where = region_name(system, region)
    if system.owner is not None and name_key(system.owner) == name_key(payer.name):
        raise RuleViolation(f"{system.name} is {payer.name}'s own system: subversion is placed in other "
                            f"players' systems")
    open_step(tx, payer.name, "subvert")
    target = state.player(system.owner) if system.owner is not None else None
    if target is not None and not target.out and "subversion" not in state.done.get(target.name, []):
        # ruling: subversion placed at D.11 first acts at the next turn's D.8, so it waits for its target's
        # D.8 of this turn
        raise RuleViolation(f"subversion placed at D.11 first acts at the next turn's D.8: {target.name} has "
                            f"not resolved this turn's subversion (D.8) yet, so it cannot be placed in "
                            f"{system.name} before that (/godsfire subversion resolve)")
    _in_order(state, payer.name)
    per = int(tx.rules.table("subversion")["cost"][region.economy])
    cost = per * amount
    at_war = system.owner is not None and state.at_war(payer.name, system.owner)
    carrier = _carried_money(state, payer.name, system, action.carried, at_war)
    if carrier is None and payer.ng_money < cost:
        raise RuleViolation(f"the sheet (D.11.2): subversion in a {region.economy} region costs {per} a "
                            f"placement, {cost} for {amount}; {payer.name}'s NG has {payer.ng_money}")
    if carrier is not None and carrier.amount < cost:
        raise RuleViolation(f"the sheet (D.11.2): subversion in a {region.economy} region costs {per} a "
                            f"placement, {cost} for {amount}; GB #{carrier.number} carries {carrier.amount}")
    war = f" (carried by GB #{carrier.number} from {carrier.at}, C and D.11.1)" if carrier is not None else ""
    take_step(tx, payer.name, "subvert")
    if carrier is None:
        change_player(tx, payer.name, f"D.11: {cost} paid for subversion in {where}", ng_money=payer.ng_money - cost)
    else:
        counters = [c for c in copy_counters(state) if c.number != carrier.number or c.amount > cost]
        for c in counters:
            if c.number == carrier.number:
                c.amount -= cost
        left = f"{carrier.amount - cost} GB left on it" if carrier.amount > cost else "the counter is spent"
        change_game(tx, f"D.11: {cost} of GB #{carrier.number} paid for subversion in {where} ({left})",
                    counters=counters)
    money = dict(region.subversion)
    money[payer.name] = money.get(payer.name, 0) + amount
    steps = dict(region.subversion_step)
    steps[payer.name] = 0  # ruling: added money takes the whole stack back to the top circle
    change_region(tx, system.name, region.number, f"D.11: {payer.name} places {amount} subversion money at "
                  f"the top circle{war}", subversion=money, subversion_step=steps)


REACHED = ("economy", "subvert", "desubvert", "counter", "units")  # D.10 done, or a later step: at D.11 or past it


def _in_order(state: GodsfireState, payer: str) -> None:
    """D.11: subversion money is placed using the initiative system — in the turn's player order (A.1.1): a
    player places once every player before them has reached D.11 (D.1 to D.10 done) or passed it."""
    order = [p for p in state.order if state.find_player(p) is not None and not state.player(p).out]
    if payer not in order:
        return
    waiting = [p for p in order[:order.index(payer)] if not set(REACHED) & set(state.done.get(p, []))]
    if waiting:
        raise RuleViolation(f"D.11: subversion is placed in the turn's player order ({', '.join(order)}): "
                            f"{waiting[0]} reaches D.11 first (D.8 to D.10 done)")


def _carried_money(state: GodsfireState, payer: str, system: System, number: int | None,
                   at_war: bool) -> TableCounter | None:
    """The GB counter subversion money comes from: the sheet (C, D.11.1) has players at war carry it to a cell
    next to the target system: a cell of space outside the system (not its cell, not its ground) that touches its
    cell on the map (without a map, that it is next to it is the players' word)."""
    if number is None:
        if at_war:
            raise RuleViolation(f"C, D.11.1: {payer} is at war with {system.owner}: subversion money for "
                                f"{system.name} is carried to a cell next to it — take it out as a GB counter "
                                f"(/godsfire money carry), move it there, and name it (carried:<counter>)")
        return None
    counter = state.counter(number)
    if counter.kind != "GB" or counter.owner is None or name_key(counter.owner) != name_key(payer):
        raise RuleViolation(f"carried: #{counter.number} is not a GB counter of {payer}'s")
    found = state.find_system(counter.at.rsplit(" ", 1)[0] if counter.ground else counter.at)
    if found is system:
        raise RuleViolation(f"C, D.11.1: GB #{counter.number} is at {counter.at}, in {system.name}: the money "
                            f"is placed from a cell next to the system")
    if found is not None:
        raise RuleViolation(f"C, D.11.1: GB #{counter.number} is at {counter.at}, a system: carry it to a cell "
                            f"of space next to {system.name}")
    if state.board is not None and not state.board.touching(counter.at, system.name):
        raise RuleViolation(f"C, D.11.1: GB #{counter.number} is at {counter.at}, which does not touch "
                            f"{system.name} on the map: carry it to a cell next to the system")
    return counter


def _bank_cost(tx: Tx[GodsfireState], system: System, region: Region, amount: int, table_key: str, rule: str,
               what: str) -> int:
    """What `amount` of de- or counter-subversion money costs in `region` (the `[subversion]` table's
    `table_key`, by its economy), refused when the system's bank cannot pay it."""
    per = int(tx.rules.table("subversion")[table_key][region.economy])
    cost = per * amount
    if system.bank < cost:
        raise RuleViolation(f"the sheet ({rule}): {what} in a {region.economy} region costs {per} each, "
                            f"{cost} for {amount}; {system.name}'s bank has {system.bank}")
    return cost


@handles(Desubvert)
def desubvert(tx: Tx[GodsfireState], action: Desubvert) -> None:
    in_interphase(tx, "D.12 placing de-subversion money")
    amount = _amount(action.amount)
    system, owner = owned_system(tx, action.system, "place de-subversion money")
    open_step(tx, owner, "desubvert")
    region = system.region(action.region)
    where = region_name(system, region)
    present = sum(m for m in region.subversion.values() if m > 0)
    if present <= 0:
        raise RuleViolation(f"the sheet (D.12): there is no subversion money in {where} to remove")
    if amount > present:
        raise RuleViolation(f"{where} holds {present} subversion money: place at most {present} de-subversion")
    cost = _bank_cost(tx, system, region, amount, "desubversion_cost", "D.12.1", "de-subversion")
    take_step(tx, owner, "desubvert")
    change_system(tx, system.name, f"D.12: {cost} paid for de-subversion in {where}", bank=system.bank - cost)
    # ruling: each de-subversion money removes one subversion money, the largest stack first (then by name);
    # then the de-subversion money itself is removed (D.12.2): nothing of it stays on the region
    money = {p: m for p, m in region.subversion.items() if m > 0}
    left = amount
    for player in sorted(money, key=lambda p: (-money[p], p)):
        taken = min(left, money[player])
        money[player] -= taken
        left -= taken
    steps = {p: s for p, s in region.subversion_step.items() if money.get(p, 0) > 0}
    change_region(tx, system.name, region.number, f"D.12: {amount} de-subversion money placed; it and "
                  f"{amount} subversion money are removed (D.12.2)",
                  subversion={p: m for p, m in money.items() if m > 0}, subversion_step=steps, desubversion=0)


@handles(Counter)
def counter(tx: Tx[GodsfireState], action: Counter) -> None:
    in_interphase(tx, "D.13 placing counter-subversion money")
    amount = _amount(action.amount)
    system, owner = owned_system(tx, action.system, "place counter-subversion money")
    open_step(tx, owner, "counter")
    region = system.region(action.region)
    where = region_name(system, region)
    cost = _bank_cost(tx, system, region, amount, "counter_cost", "D.13", "counter-subversion")
    take_step(tx, owner, "counter")
    change_system(tx, system.name, f"D.13: {cost} paid for counter-subversion in {where}",
                  bank=system.bank - cost)
    change_region(tx, system.name, region.number, f"D.13: {amount} counter-subversion money placed",
                  counter_subversion=region.counter_subversion + amount)


COMMANDS: tuple[Command, ...] = (
    Command("godsfire subversion subvert", "D.11: place subversion money in another player's region (from your NG)",
            (SYSTEM_PARAM, REGION_PARAM, _AMOUNT, P("player", help="GM: the player who pays", complete="player"),
             P("carried", int, help="the GB counter the money comes from (at war it must be carried, D.11.1)", low=1,
               high=9999)),
            action=lambda o: Subvert(o["system"], o["region"], o["amount"], o.get("player"),
                                     None if o.get("carried") is None else int(o["carried"])), ruleset=RULESET),
    Command("godsfire subversion desubvert", "D.12: place de-subversion money (from the system bank)",
            (SYSTEM_PARAM, REGION_PARAM, _AMOUNT),
            action=lambda o: Desubvert(o["system"], o["region"], o["amount"]), ruleset=RULESET),
    Command("godsfire subversion counter", "D.13: place counter-subversion money (from the system bank)",
            (SYSTEM_PARAM, REGION_PARAM, _AMOUNT),
            action=lambda o: Counter(o["system"], o["region"], o["amount"]), ruleset=RULESET),
)
