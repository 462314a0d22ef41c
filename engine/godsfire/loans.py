"""The loans: D.1's loan repayment and default, and D.2's borrowing. A loan repayment not made by the end of the
tax step is a default of the whole amount due (`default_unpaid`; which repayments are due, D.1.4, is
`engine.godsfire.dues.repayments_due`). The numbers are the `[loans]` table of `data/godsfire.toml`; the
rulings are in docs/godsfire.md."""

from __future__ import annotations

import functools
import heapq
import re
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from engine.core import Tx
from engine.errors import BadInput, RuleViolation
from engine.godsfire.common import OWN_SYSTEM_PARAM, RULESET, handles
from engine.godsfire.dues import repayments_due
from engine.godsfire.economy import lower_allegiance, own_system, require_interphase, require_positive
from engine.godsfire.events import change_player, change_region, change_system
from engine.godsfire.rules import ECONOMY, GodsfireRules
from engine.godsfire.state import GodsfireState, Loan, Player, System
from engine.godsfire.steps import open_step, take_step
from engine.names import name_key
from engine.vocabulary import LIST, Command, Param

P = Param


@dataclass
class Repay:
    """D.1: pay the marked box of every loan of the system; a shortfall is a default. `lower` (a default
    of more than 4): the regions whose economy drops, "<system> <region>, …", one entry per level."""

    system: str
    lower: str | None = None


@dataclass
class Borrow:
    """D.2: borrow money onto the system (a new loan, its marker on the bottom box)."""

    system: str
    amount: int


# --- D.1 loan repayment and default --------------------------------------------------------------


def box_payment(rules: GodsfireRules, loan: Loan) -> int:
    """The amount on each box of a loan's track (house: ceil(amount × (1 + interest) / payments))."""
    table = rules.table("loans")
    rate = _rate(str(table["interest"]))  # 1 + interest, as a fraction n / d: the box is ceil(amount n / (d payments))
    return -(-loan.amount * rate.numerator // (rate.denominator * int(table["payments"])))


@functools.lru_cache(maxsize=16)
def _rate(interest: str) -> Fraction:
    return 1 + Fraction(interest)


def _parse_lower(raw: str, state: GodsfireState) -> list[tuple[System, int]]:
    entries: list[tuple[System, int]] = []
    for part in (p.strip() for p in re.split(r"[,;]", raw) if p.strip()):
        name, _, number = part.rpartition(" ")
        if not name or not number.isdecimal():
            raise BadInput(f"lower: each entry is \"<system> <region>\", e.g. \"Sol 2\", not {part!r}")
        system = state.system(name.strip())
        system.region(int(number))
        entries.append((system, int(number)))
    return entries


def _levels_to_deduct(tx: Tx[GodsfireState], player: Player, count: int, chosen: str | None) -> list[tuple[str, int]]:
    """Which regions lose the default's economic levels, one entry per level (D.1.5). Ruling: the
    player (or GM) may list them with `lower:`; otherwise the highest levels go first (ties: systems in
    the game's order, regions by number). A region at S has no level to lose; if the player's regions
    have fewer levels than the default, all of them go."""
    systems = tx.state.systems_of(player.name)
    available = sum(ECONOMY.index(r.economy) for s in systems for r in s.regions)
    due = min(count, available)
    if chosen is not None:
        entries = _parse_lower(chosen, tx.state)
        left: dict[tuple[str, int], int] = {}
        for system, number in entries:
            if system.owner is None or name_key(system.owner) != name_key(player.name):
                raise RuleViolation(f"the sheet: the levels are deducted from regions in {player.name}'s "
                                    f"systems, and {system.name} is not one")
            key = (system.name, number)
            left.setdefault(key, ECONOMY.index(system.region(number).economy))
            left[key] -= 1
            if left[key] < 0:
                raise RuleViolation(f"region {number} of {system.name} has no economic level left to lose "
                                    f"(S is the lowest)")
        if len(entries) != due:
            raise BadInput(f"the default costs {due} economic level{'s' if due != 1 else ''}: list {due} "
                           f"regions in lower: (one entry per level), not {len(entries)}")
        return [(s.name, n) for s, n in entries]
    # the highest level first, ties in the game's order: a heap of (-level, position), one level off a pop
    heap = [(-ECONOMY.index(r.economy), i, (s.name, r.number))
            for i, (s, r) in enumerate((s, r) for s in systems for r in s.regions)]
    heapq.heapify(heap)
    picked: list[tuple[str, int]] = []
    for _ in range(due):
        level, i, key = heapq.heappop(heap)
        picked.append(key)
        heapq.heappush(heap, (level + 1, i, key))
    return picked


def _default(tx: Tx[GodsfireState], player: Player, shortfall: int, lower: str | None) -> None:
    """D.1.5: a repayment short by `shortfall`."""
    state: GodsfireState = tx.state
    table = tx.rules.table("loans")
    over = int(table["default_levels_over"])
    deducted = _levels_to_deduct(tx, player, shortfall, lower) if shortfall > over else []
    reason = f"loan default of {shortfall} GB (D.1.5): every allegiance falls by 1"
    for system in state.systems_of(player.name):
        for region in system.regions:
            lower_allegiance(tx, system, region, 1, reason)
    national = {party: max(0, level - 1) for party, level in player.national_allegiance.items()}
    change_player(tx, player.name, reason, national_allegiance=national)
    for name, number in deducted:
        region = tx.state.system(name).region(number)
        lowered = ECONOMY[ECONOMY.index(region.economy) - 1]
        change_region(tx, name, number, f"loan default of {shortfall} GB, more than {over} (D.1.5): "
                      f"{len(deducted)} economic level{'s' if len(deducted) != 1 else ''} deducted", economy=lowered)
    change_player(tx, player.name, f"loan default (D.1.5): no further loans until every regional and "
                  f"national allegiance is {table['barred_until']} or better; no borrowing this turn",
                  failed_repayment=True, loans_barred=True)


def _repayment(tx: Tx[GodsfireState], system: System, player: str, paid: int, lower: str | None,
               note: str = "") -> None:
    """Pay `paid` of the system's due boxes; every marker moves up one box (ruling: the box is gone, paid or
    defaulted); a shortfall is a default (D.1.5)."""
    payments = int(tx.rules.table("loans")["payments"])
    due = sum(box_payment(tx.rules, loan) for loan in system.loans)
    shortfall = due - paid
    loans = [{"amount": loan.amount, "box": loan.box + 1} for loan in system.loans]
    kept = [loan for loan in loans if loan["box"] < payments]
    cleared = len(loans) - len(kept)
    reason = (f"loan repayment of turn {tx.state.turn}{note}: {due} GB due, {paid} GB paid"
              + (f", {shortfall} GB short" if shortfall else "")
              + (f"; {cleared} loan{'s' if cleared != 1 else ''} {'fully paid' if not shortfall else 'off the track'}"
                 if cleared else ""))
    change_system(tx, system.name, reason, bank=system.bank - paid, loans=kept, repaid_turn=tx.state.turn)
    if shortfall:
        _default(tx, tx.state.player(player), shortfall, lower)


@handles(Repay)
def repay(tx: Tx[GodsfireState], action: Repay) -> None:
    require_interphase(tx, "loan repayment (D.1)")
    system, player = own_system(tx, action.system, "repay loans")
    open_step(tx, player.name, "loans")
    if not system.loans:
        raise RuleViolation(f"{system.name} has no loans to repay")
    if system.repaid_turn == tx.state.turn:
        raise RuleViolation(f"{system.name}'s loan repayments of this turn are done (D.1.4: one box a turn)")
    due = sum(box_payment(tx.rules, loan) for loan in system.loans)
    paid = min(due, system.bank)  # ruling: the bank pays what it can; the shortfall is the default
    shortfall = due - paid
    if action.lower is not None and shortfall <= int(tx.rules.table("loans")["default_levels_over"]):
        raise BadInput(f"lower: is for a default of more than "
                       f"{tx.rules.table('loans')['default_levels_over']} GB; this repayment is "
                       + (f"{shortfall} GB short" if shortfall else "paid in full"))
    take_step(tx, player.name, "loans")
    _repayment(tx, system, player.name, paid, action.lower)


def default_unpaid(tx: Tx[GodsfireState], player: str) -> None:
    """The ruling: a loan repayment not made by the end of the tax step (D.1) is a default of the whole
    amount due. For each of the player's systems whose repayment is still due: nothing is paid, every marker
    moves up one box as in any repayment, and the whole amount due is that system's default (D.1.5; the
    economic levels of a default over 4 are taken highest first)."""
    for system in repayments_due(tx.state, player):
        _repayment(tx, system, player, 0, None, " not made by the end of the tax step (D.1)")


# --- D.2 borrowing -------------------------------------------------------------------------------


def allegiances_at_least(state: GodsfireState, player: Player, level: int) -> bool:
    """Every regional (of the player's systems) and national allegiance is `level` or better."""
    regional = [r.allegiance if not r.revolt else 0 for s in state.systems_of(player.name) for r in s.regions]
    return all(a >= level for a in regional + list(player.national_allegiance.values()))


@handles(Borrow)
def borrow(tx: Tx[GodsfireState], action: Borrow) -> None:
    require_interphase(tx, "borrowing (D.2)")
    system, player = own_system(tx, action.system, "borrow")
    open_step(tx, player.name, "borrow")
    require_positive(action.amount, "amount")
    table = tx.rules.table("loans")
    if player.failed_repayment:
        raise RuleViolation("the sheet: you may not borrow money if you failed a loan repayment this turn")
    lift = False
    if player.loans_barred:
        if not allegiances_at_least(tx.state, player, int(table["barred_until"])):
            raise RuleViolation(f"the sheet: after a default you cannot get further loans until all regional "
                                f"and national allegiances are at {table['barred_until']} or better")
        lift = True
    most = int(table["most"])
    if action.amount > most:
        raise RuleViolation(f"a loan is at most {most} GB (house rule), not {action.amount}")
    take_step(tx, player.name, "borrow")  # D.1 (its repayments, compulsory) comes first: see open_step
    if lift:
        change_player(tx, player.name, f"every allegiance is {table['barred_until']} or better: loans allowed "
                      f"again (D.1.5)", loans_barred=False)
    loan = Loan(action.amount)
    loans = [{"amount": x.amount, "box": x.box} for x in system.loans] + [{"amount": loan.amount, "box": 0}]
    change_system(tx, system.name, f"borrowed {action.amount} GB (D.2): {int(table['payments'])} boxes of "
                  f"{box_payment(tx.rules, loan)} GB, the first due next turn",
                  bank=system.bank + action.amount, loans=loans, repaid_turn=tx.state.turn)


def _command(path: str, help: str, params: tuple[Param, ...], action: Callable[[dict[str, Any]], object]) -> Command:
    return Command(path, help, params, action=action, ruleset=RULESET)


COMMANDS: tuple[Command, ...] = (
    _command("godsfire money repay", "D.1: pay the marked box of each loan of the system (a shortfall defaults)",
             (OWN_SYSTEM_PARAM, P("lower", help="a default over 4: regions losing a level, \"<system> <region>, …\"",
                         words=LIST, complete="lower")),
             lambda o: Repay(o["system"], o.get("lower"))),
    _command("godsfire money borrow", "D.2: borrow money onto the system",
             (OWN_SYSTEM_PARAM, P("amount", int, True, help="GB borrowed", low=1, high=999)),
             lambda o: Borrow(o["system"], o["amount"])),
)
