"""Godsfire's Social Interphase, its politics: the actions and commands of party changes (D.6), revolts (D.7),
subversion acting (D.8), allegiance and economy drops (D.9, D.10), a step marked done, and the interphase's end.
What the checks do to a player's systems, and what the end applies of the compulsory steps left, are in
`engine.godsfire.checks`; a whole system in revolt (D.7.4) in `engine.godsfire.revolts`; each player's steps in
the sheet's order in `engine.godsfire.steps`; placing money (D.11-13) in `engine.godsfire.subversion`.

Every number comes from `data/godsfire.toml` (`rules.table(...)`); every change is a generic
`RegionChanged`/`SystemChanged`/`PlayerChanged`/`GameChanged` with its reason. Rulings where the sheet is
silent are marked "ruling" here and listed in docs/godsfire.md.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from engine.core import Tx, require_gm
from engine.errors import BadInput, NotYourNation, RuleViolation
from engine.godsfire import checks, loans, phases, views
from engine.godsfire.common import (
    PLAYER_PARAM,
    REGION_PARAM,
    RULESET,
    SYSTEM_PARAM,
    acting_player,
    handles,
    owned_system,
    region_name,
)
from engine.godsfire.events import (
    StepDone,
    change_player,
    change_region,
    change_system,
)
from engine.godsfire.revolts import whole_system_revolts
from engine.godsfire.rules import ECONOMY, PARTY_NAMES
from engine.godsfire.state import STEPS, GodsfireState, System
from engine.godsfire.steps import (
    CHECK_COMMANDS,
    CHECKED,
    STEP_NAMES,
    closed_by,
    in_interphase,
    open_step,
    take_step,
)
from engine.names import name_key
from engine.vocabulary import LIST, Command, Param

WAYS = ("negotiate", "bribe", "police")
PAYMENTS = ("ng", "loyalty")
ADJACENT_PARTY = {"R": "M", "E": "M"}  # ruling: R and E each have one neighbour, M

# --- actions -------------------------------------------------------------------------------------


@dataclass
class ChangeParty:
    """D.6: attempt to change a region's party (allegiance 2 only); paid from the NG or national loyalty."""

    system: str
    region: int
    pay: str = "ng"


@dataclass
class DealWithRevolt:
    """D.7: one way of dealing with a region's revolt this turn: negotiate, bribe or police."""

    system: str
    region: int
    way: str


@dataclass
class ResolveSubversion:
    """D.8 for one player's systems (the GM: every player not yet resolved, or the one named)."""

    player: str | None = None


@dataclass
class CheckAllegiance:
    """D.9: allegiance drops next to revolts and for regional jealousy."""

    player: str | None = None


@dataclass
class CheckEconomy:
    """D.10: economy drops (revolt, unfed industry, occupation) and the voluntary ones listed."""

    lower: str | None = None
    player: str | None = None


@dataclass
class MarkDone:
    """A player marks an interphase step done (the GM may for anyone)."""

    step: str
    player: str | None = None


@dataclass
class EndInterphase:
    """The GM ends the Social Interphase: the next turn's Movement Phase begins."""


# --- shared checks -------------------------------------------------------------------------------


def _players_for(tx: Tx[GodsfireState], named: str | None, step: str) -> list[str]:
    """Whose systems a whole-step check covers: the actor's; the GM's named player, or every player with
    systems who has not done the step yet."""
    state: GodsfireState = tx.state
    if named is not None:
        player = state.player(named).name
        if not tx.ctx.is_gm and name_key(player) != name_key(tx.ctx.actor):
            raise NotYourNation(f"only the GM may run {STEP_NAMES[step]} for {player}")
    elif tx.ctx.is_gm:
        waiting = [p.name for p in state.players
                   if not p.out and step not in state.done.get(p.name, []) and state.systems_of(p.name)]
        if not waiting:
            raise RuleViolation(f"{STEP_NAMES[step]} is done for every player this interphase")
        return waiting
    else:
        player = state.player(tx.ctx.actor).name
    if state.player(player).out:
        raise RuleViolation(f"{player} has lost the National Government and is out of the game")
    if step in state.done.get(player, []):
        raise RuleViolation(f"{STEP_NAMES[step]} is already done for {player} this interphase (once a turn)")
    return [player]


def _pdfs(system: System) -> int:
    return system.units.get("PDF", 0) + sum(r.units.get("PDF", 0) for r in system.regions)


def _band(pair: list[int], die: int) -> bool:
    return int(pair[0]) <= die <= int(pair[1])


# --- D.6 party change ----------------------------------------------------------------------------


@handles(ChangeParty)
def change_party(tx: Tx[GodsfireState], action: ChangeParty) -> None:
    in_interphase(tx, "D.6 changing a party")
    system, owner_name = owned_system(tx, action.system, "attempt a party change")
    open_step(tx, owner_name, "party")
    region = system.region(action.region)
    table = tx.rules.table("party_change")
    where = region_name(system, region)
    if region.revolt:
        raise RuleViolation(f"the sheet (D.6): {where} is in revolt; a party change needs allegiance "
                            f"{table['allegiance']}")
    if region.allegiance != int(table["allegiance"]):
        raise RuleViolation(f"the sheet (D.6.1): a party change is only allowed at regional allegiance "
                            f"{table['allegiance']}; {where} is at {region.allegiance}")
    if action.pay not in PAYMENTS:
        raise BadInput(f"pay: must be ng (pay {table['ng_cost']} from the National Government) or loyalty "
                       f"(lower your national allegiance for the region's party by 1)")
    owner = tx.state.player(owner_name)
    party = region.party
    if action.pay == "ng":
        cost = int(table["ng_cost"])
        if owner.ng_money < cost:
            raise RuleViolation(f"the sheet (D.6.2): a party change costs {cost} from the National "
                                f"Government; {owner.name}'s NG has {owner.ng_money}")
        take_step(tx, owner.name, "party")
        change_player(tx, owner.name, f"D.6: paid {cost} for a party change in {where}",
                      ng_money=owner.ng_money - cost)
        change_region(tx, system.name, region.number, f"D.6: {cost} spent on a party change",
                      spent=region.spent + cost)
    else:
        level = owner.national_allegiance.get(party, 0)
        if level <= 0:  # ruling: as a loan default, national allegiance goes no lower than 0
            raise RuleViolation(f"the sheet (D.6.2): {owner.name}'s national allegiance for the "
                                f"{PARTY_NAMES[party]}s is {level}: nothing left to lower; pay from the NG instead")
        take_step(tx, owner.name, "party")
        national = dict(owner.national_allegiance)
        national[party] = level - 1
        change_player(tx, owner.name, f"D.6: national {PARTY_NAMES[party]} allegiance lowered for a party "
                      f"change in {where}", national_allegiance=national)
    die = tx.roll(f"party change ({where})", owner.name).die
    low = _band(table["revolt"], die)
    if party == "M":
        new = table["moderate_low"] if low else table["moderate_high"]
    elif low:
        change_region(tx, system.name, region.number, f"D.6: party change die {die}: the region revolts",
                      allegiance=0, revolt=True)
        return
    else:
        new = ADJACENT_PARTY[party]
    change_region(tx, system.name, region.number, f"D.6: party change die {die}: {PARTY_NAMES[party]} "
                  f"becomes {PARTY_NAMES[new]}", party=new)


# --- D.7 revolts ---------------------------------------------------------------------------------


@handles(DealWithRevolt)
def deal_with_revolt(tx: Tx[GodsfireState], action: DealWithRevolt) -> None:
    in_interphase(tx, "D.7 dealing with revolts")
    system, owner = owned_system(tx, action.system, "deal with a revolt")
    open_step(tx, owner, "revolts")
    region = system.region(action.region)
    table = tx.rules.table("revolts")
    where = region_name(system, region)
    if action.way not in WAYS:
        raise BadInput(f"way: must be one of {', '.join(WAYS)}")
    if not region.revolt:
        raise RuleViolation(f"the sheet (D.7): {where} is not in revolt")
    if region.revolt_tried:
        raise RuleViolation(f"the sheet (D.7): ONE option per region per turn; {where}'s revolt was already "
                            f"dealt with this turn")
    if action.way == "bribe" and region.party != "R":
        raise RuleViolation(f"the sheet (D.7.2): bribery only works for Reactionary (R) revolts; {where} "
                            f"is {PARTY_NAMES[region.party]} ({region.party})")
    if action.way == "bribe" and system.bank < int(table["bribe_cost"]):
        raise RuleViolation(f"the sheet (D.7.2): bribery costs {table['bribe_cost']} from the system bank; "
                            f"{system.name}'s bank has {system.bank}")
    if action.way == "police" and _pdfs(system) <= 0:
        raise RuleViolation(f"the sheet (D.7.3): police action needs a die at most the number of PDFs in "
                            f"the system; {system.name} has none")
    take_step(tx, owner, "revolts")
    if action.way == "negotiate":
        die = tx.roll(f"revolt: negotiate ({where})", owner).die
        success, level = _band(table["negotiate"], die), int(table["negotiate_to"])
    elif action.way == "bribe":
        cost = int(table["bribe_cost"])
        # bribes are not "spent" for regional jealousy (the sheet, D.9.2)
        change_system(tx, system.name, f"D.7: bribe of {cost} in {where}", bank=system.bank - cost)
        die = tx.roll(f"revolt: bribery ({where})", owner).die
        success, level = _band(table["bribe"], die), int(table["bribe_to"])
    else:
        pdfs = _pdfs(system)
        die = tx.roll(f"revolt: police action, {pdfs} PDF ({where})", owner).die
        success, level = die <= pdfs, int(table["police_to"])
    words = {"negotiate": "negotiation", "bribe": "bribery", "police": "police action"}[action.way]
    if success:
        change_region(tx, system.name, region.number, f"D.7: {words} die {die}: the revolt ends, allegiance "
                      f"{level}", allegiance=level, revolt=False, revolt_tried=True)
    else:
        change_region(tx, system.name, region.number, f"D.7: {words} die {die}: the revolt goes on",
                      revolt_tried=True)


# --- D.8 subversion ------------------------------------------------------------------------------


@handles(ResolveSubversion)
def resolve_subversion(tx: Tx[GodsfireState], action: ResolveSubversion) -> None:
    in_interphase(tx, "D.8 resolving subversion")
    players = _players_for(tx, action.player, "subversion")
    for player in players:
        open_step(tx, player, "subversion")
    for player in players:
        take_step(tx, player, "subversion")
        checks.resolve_player_subversion(tx, player)


# --- D.9 allegiance ------------------------------------------------------------------------------


@handles(CheckAllegiance)
def check_allegiance(tx: Tx[GodsfireState], action: CheckAllegiance) -> None:
    in_interphase(tx, "D.9 lowering allegiance")
    players = _players_for(tx, action.player, "allegiance")
    for player in players:
        open_step(tx, player, "allegiance")
    for player in players:
        take_step(tx, player, "allegiance")
        checks.check_player_allegiance(tx, player)


# --- D.10 economy --------------------------------------------------------------------------------


def parse_regions(state: GodsfireState, text: str) -> list[tuple[str, int]]:
    """`"Sol 2, Alpha Centauri 1"` (or `Sol:2`) → [("Sol", 2), ("Alpha Centauri", 1)]; BadInput if unclear."""
    found: list[tuple[str, int]] = []
    for part in (p.strip() for p in re.split(r"[,;]", text)):
        if not part:
            continue
        match = re.fullmatch(r"(.+?)\s*[:#\s]\s*(\d+)", part)
        if match is None:
            raise BadInput(f"{part!r}: name a region as \"<system> <number>\", e.g. \"Sol 2\"")
        system = state.system(match.group(1))
        system.region(int(match.group(2)))
        found.append((system.name, int(match.group(2))))
    return found


@handles(CheckEconomy)
def check_economy(tx: Tx[GodsfireState], action: CheckEconomy) -> None:
    in_interphase(tx, "D.10 lowering economic levels")
    players = _players_for(tx, action.player, "economy")
    for player in players:
        open_step(tx, player, "economy")
    wished = parse_regions(tx.state, action.lower) if action.lower else []
    keys = {name_key(p) for p in players}
    for system_name, number in wished:
        system = tx.state.system(system_name)
        if system.owner is None or name_key(system.owner) not in keys:
            raise NotYourNation(f"{system.name} is not among the systems of this check "
                                f"({', '.join(players)}): only its owner may lower its economy")
        if system.region(number).economy == ECONOMY[0]:
            raise RuleViolation(f"the sheet (D.10): {system.name} region {number} is at Subsistence (S), the "
                                f"lowest economic level")
    for player in players:
        take_step(tx, player, "economy")
        checks.check_player_economy(tx, player, set(wished))


@handles(MarkDone)
def mark_done(tx: Tx[GodsfireState], action: MarkDone) -> None:
    """A step marked done is taken with nothing more done in it: it closes the earlier steps (see
    `take_step`). The loan repayment marked done with a repayment due is a default of the whole amount due
    (the rulings); the revolts step applies the whole-system check (D.7.4)."""
    state = in_interphase(tx, "marking a step done")
    step = action.step.strip().lower()
    if step not in STEPS:
        raise BadInput(f"step: must be one of {', '.join(STEPS)}")
    if step in CHECKED:
        raise RuleViolation(f"{STEP_NAMES[step]} is not skipped: /godsfire {CHECK_COMMANDS[step]} applies it and "
                            "marks it done")
    player = acting_player(tx, action.player, "mark steps done")
    if step in state.done.get(player.name, []) and closed_by(state, player.name, step) is None:
        raise RuleViolation(f"{STEP_NAMES[step]} is already done for {player.name} this interphase")
    take_step(tx, player.name, step)
    if step == "loans":
        loans.default_unpaid(tx, player.name)
    if step == "revolts":
        whole_system_revolts(tx, player.name)
    tx.emit(StepDone(player.name, step))


@handles(EndInterphase)
def end_interphase(tx: Tx[GodsfireState], action: EndInterphase) -> None:
    require_gm(tx, "end the Social Interphase")
    in_interphase(tx, "ending the interphase")
    checks.compulsory_left_over(tx)
    phases.leave_interphase(tx)


# --- commands ------------------------------------------------------------------------------------

P = Param

COMMANDS: tuple[Command, ...] = (
    Command("godsfire region party", "D.6: try to change a region's party (allegiance 2 only; a d6)",
            (SYSTEM_PARAM, REGION_PARAM, P("pay", choices=PAYMENTS, help="ng: 1 from the NG; loyalty: national -1")),
            action=lambda o: ChangeParty(o["system"], o["region"], o.get("pay") or "ng"), ruleset=RULESET),
    Command("godsfire region revolt", "D.7: deal with a revolt: negotiate, bribe or police (one a region a turn)",
            (SYSTEM_PARAM, REGION_PARAM, P("way", required=True, choices=WAYS, help="negotiate, bribe or police")),
            action=lambda o: DealWithRevolt(o["system"], o["region"], o["way"]), ruleset=RULESET),
    Command("godsfire subversion resolve", "D.8: undefended subversion lowers allegiance; the money moves down",
            (PLAYER_PARAM,), action=lambda o: ResolveSubversion(o.get("player")), ruleset=RULESET),
    Command("godsfire interphase allegiance", "D.9: allegiance drops next to revolts and for regional jealousy",
            (PLAYER_PARAM,), action=lambda o: CheckAllegiance(o.get("player")), ruleset=RULESET),
    Command("godsfire interphase economy", "D.10: economy drops (revolt, unfed industry, occupation, your wish)",
            (P("lower", help="regions you lower by choice, e.g. \"Sol 2, Vega 1\"", words=LIST, complete="lower"),
             PLAYER_PARAM),
            action=lambda o: CheckEconomy(o.get("lower"), o.get("player")), ruleset=RULESET),
    Command("godsfire interphase done", "mark a Social Interphase step done",
            (P("step", required=True, choices=STEPS, help="the step"), PLAYER_PARAM),
            action=lambda o: MarkDone(o["step"], o.get("player")), ruleset=RULESET),
    Command("godsfire interphase show", "what each player has left to do in the Social Interphase",
            view=views.interphase_view, ruleset=RULESET),
    Command("godsfire interphase end", "end the Social Interphase: the next turn's Movement Phase (GM)",
            action=lambda o: EndInterphase(), gm_only=True, ruleset=RULESET),
)
