"""C. The last chance to declare war; money in transit (D.3); the end of the game (the scenario's victory
condition, set by the GM at the start; nobody wins with a loan outstanding)."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from engine.core import Tx, require_gm
from engine.errors import BadInput, RuleViolation
from engine.events import GameEnded
from engine.godsfire import table
from engine.godsfire.common import PLAYER_PARAM, acting_player, handles
from engine.godsfire.events import change_game, change_player, change_system
from engine.godsfire.rules import GodsfireRules
from engine.godsfire.state import MAX_SHIPMENTS, Counter, GodsfireState, Shipment
from engine.godsfire.steps import open_step, take_step
from engine.names import name_key
from engine.vocabulary import Command, Param

VICTORIES = ("gm", "last-ng", "most-systems")
VICTORY_WORDS = {"gm": "the GM's call", "last-ng": "the last National Government standing",
                 "most-systems": "the most systems after turn {turns}"}
MAX_TURNS = 10_000
MAX_CELLS = 100


# --- C. war ----------------------------------------------------------------------------------------


@dataclass
class DeclareWar:
    target: str
    player: str | None = None


@handles(DeclareWar)
def declare_war(tx: Tx[GodsfireState], action: DeclareWar) -> None:
    """War is declared in the Movement Phase, or in C, "the last chance … until the next Movement Phase" (the
    rulings, "The board"); a war declared in the Movement Phase may be fought in that turn's Combat Phase."""
    state: GodsfireState = tx.state
    player = acting_player(tx, action.player, "declare war").name
    if state.phase not in ("movement", "war"):
        raise RuleViolation(f"C: war is declared in the Movement Phase or the Last Chance to Declare War phase, "
                            f"never in Combat or the Social Interphase; it is now turn {state.turn}'s {state.phase} "
                            "phase")
    target = state.player(action.target).name
    if name_key(target) == name_key(player):
        raise BadInput("a player does not declare war on themselves")
    if state.player(target).out or state.player(player).out:
        raise RuleViolation(f"{target if state.player(target).out else player} is out of the game")
    if state.at_war(player, target):
        raise RuleViolation(f"{player} and {target} are already at war")
    wars = [*state.wars, sorted([player, target])]
    change_game(tx, f"{player} declares war on {target} (C): subversion money between them must now be carried "
                "to a cell next to the target system", wars=wars)


# --- D.3 money in transit ----------------------------------------------------------------------------


@dataclass
class SendMoney:
    amount: int
    source: str  # a system, or "ng"
    to: str
    cells: int | None
    ship: int | None = None
    turns: int | None = None
    player: str | None = None


@dataclass
class CarryMoney:
    amount: int
    source: str  # a system, or "ng"
    player: str | None = None


def travel_turns(rules: GodsfireRules, cells: int, ship: bool) -> int:
    """Whole turns a shipment needs: at speed 3 by itself (GB), or a ship's allowance; at least one (it lands
    in a later turn's transfer step)."""
    speed = int(rules.movement["SQD" if ship else "GB"])
    return max(1, math.ceil(cells / speed))


@handles(SendMoney)
def send_money(tx: Tx[GodsfireState], action: SendMoney) -> None:
    """D.3.2: money for another planet moves through space, carried by a ship or at speed 3 by itself; it
    waits in the Money in Transit box and lands in the transfer step of the turn it arrives."""
    state: GodsfireState = tx.state
    if state.phase != "interphase":
        raise RuleViolation("D.3: money is sent in the Social Interphase's transfer step")
    player = acting_player(tx, action.player, "send money")
    open_step(tx, player.name, "transfer")  # it lands the money due this turn (D.3.1)
    player = tx.state.player(player.name)
    if len(tx.state.shipments) >= MAX_SHIPMENTS:
        raise RuleViolation(f"the Money in Transit box holds at most {MAX_SHIPMENTS} sums at once; wait for some to "
                            "land")
    if not 1 <= action.amount <= 1_000_000:
        raise BadInput("amount: 1 GB or more")
    to = state.system(action.to)
    cells = _distance(tx, action, to.name, player.name)
    if to.owner is None or name_key(to.owner) != name_key(player.name):
        raise RuleViolation(f"D.3: money goes to one of {player.name}'s own systems; {to.name} is not")
    carrier = None
    if action.ship is not None:
        carrier = state.counter(action.ship)
        if carrier.kind not in ("SQD", "AG") or carrier.owner != player.name:
            raise RuleViolation(f"D.3.2: money is carried by one of {player.name}'s ships (SQD or AG); "
                                f"{table.label(carrier)} is not")
    needed = travel_turns(tx.rules, cells, carrier is not None)
    if action.turns is not None and action.turns < needed:
        speed = tx.rules.movement["SQD" if carrier else "GB"]
        raise RuleViolation(f"D.3.2: {'a ship' if carrier else 'money by itself'} moves at speed {speed}: "
                            f"{cells} cells take {needed} turn{'s' if needed > 1 else ''}, not {action.turns}")
    turns = action.turns if action.turns is not None else needed
    if not 1 <= turns <= MAX_TURNS:
        raise BadInput(f"turns: 1 to {MAX_TURNS}")
    raw = action.source.strip()
    if raw.lower() in ("ng", "national government"):
        if player.ng_money < action.amount:
            raise RuleViolation(f"{player.name}'s National Government holds {player.ng_money} GB, not "
                                f"{action.amount}")
        take_step(tx, player.name, "transfer")
        change_player(tx, player.name, f"{action.amount} GB leave the NG for {to.name}",
                      ng_money=player.ng_money - action.amount, in_transit=player.in_transit + action.amount)
        source = "the NG"
    else:
        system = state.system(raw)
        if system.owner is None or name_key(system.owner) != name_key(player.name):
            raise RuleViolation(f"{system.name} is not {player.name}'s")
        if system.name == to.name:
            raise BadInput("the money is already there")
        if system.bank < action.amount:
            raise RuleViolation(f"{system.name}'s bank holds {system.bank} GB, not {action.amount}")
        take_step(tx, player.name, "transfer")
        change_system(tx, system.name, f"{action.amount} GB leave for {to.name}", bank=system.bank - action.amount)
        change_player(tx, player.name, f"{action.amount} GB in transit", in_transit=player.in_transit + action.amount)
        source = system.name
    shipment = Shipment(player.name, action.amount, source, to.name, state.turn + turns,
                        carrier.number if carrier else None)
    change_game(tx, f"{action.amount} GB from {source} to {to.name} ({cells} cells"
                f"{f', carried by {table.short(carrier)}' if carrier else ', at speed 3'}): lands in turn "
                f"{state.turn + turns}'s transfer step (D.3)", shipments=[*state.shipments, shipment])


def _opt(options: dict[str, Any], name: str) -> int | None:
    return None if options.get(name) is None else int(options[name])


def _distance(tx: Tx[GodsfireState], action: SendMoney, to: str, player: str) -> int:
    """The space cells money crosses (D.3.2): on a map the cheapest path of touching cells from where it leaves
    (a system, the NG's system) to `to`, a nebula cell counting as the Movement chart says; else the player's
    `cells`."""
    state: GodsfireState = tx.state
    if state.board is None:
        if action.cells is None:
            raise BadInput("cells: the space cells between the systems (the game has no map to count them)")
        if not 1 <= action.cells <= MAX_CELLS:
            raise BadInput(f"cells: the space cells between the systems, 1 to {MAX_CELLS}")
        return action.cells
    if action.cells is not None:
        raise BadInput("the map counts the cells between the systems: leave cells: out")
    raw = action.source.strip()
    if raw.lower() in ("ng", "national government"):
        seat = state.player(player).government
        if seat is None:
            raise RuleViolation(f"{player} has no National Government on the table")
        start = seat
    else:
        start = state.system(raw).name
    extra = -int(tx.rules.movement["nebula"])
    path = state.board.path(start, to, extra)
    return max(1, len(path) + extra * sum(1 for cell in path if cell.nebula))


@handles(CarryMoney)
def carry_money(tx: Tx[GodsfireState], action: CarryMoney) -> None:
    """D.3: money taken out as a GB counter on the table, at its system's cell (the NG's system for the NG's
    money), moved like any counter (speed 3 by itself, A.2) — how players at war carry subversion money to a
    cell next to the target system (C, D.11.1), where `/godsfire subversion subvert carried:` spends it."""
    state: GodsfireState = tx.state
    if state.phase != "interphase":
        raise RuleViolation("D.3: money is taken out in the Social Interphase's transfer step")
    player = acting_player(tx, action.player, "take money out")
    if not 1 <= action.amount <= 1_000_000:
        raise BadInput("amount: 1 GB or more")
    raw = action.source.strip()
    open_step(tx, player.name, "transfer")  # it lands the money due this turn (D.3.1)
    player = tx.state.player(player.name)
    if raw.lower() in ("ng", "national government"):
        if player.government is None:
            raise RuleViolation(f"{player.name} has no National Government on the table")
        if player.ng_money < action.amount:
            raise RuleViolation(f"{player.name}'s National Government holds {player.ng_money} GB, not "
                                f"{action.amount}")
        at, source = state.system(player.government).name, "the NG"
        take_step(tx, player.name, "transfer")
        change_player(tx, player.name, f"{action.amount} GB leave the NG as a counter",
                      ng_money=player.ng_money - action.amount)
    else:
        system = state.system(raw)
        if system.owner is None or name_key(system.owner) != name_key(player.name):
            raise RuleViolation(f"{system.name} is not {player.name}'s")
        if system.bank < action.amount:
            raise RuleViolation(f"{system.name}'s bank holds {system.bank} GB, not {action.amount}")
        at = source = system.name
        take_step(tx, player.name, "transfer")
        change_system(tx, system.name, f"{action.amount} GB leave the bank as a counter",
                      bank=system.bank - action.amount)
    table.reconcile(tx)
    number = tx.state.next_counter
    counters = [*table.copy_counters(tx.state), Counter(number, "GB", player.name, at, False, 0, action.amount)]
    change_game(tx, f"{player.name} takes {action.amount} GB out of {source}: GB #{number} at {at}, to be "
                "moved like any counter", counters=counters, next_counter=number + 1)


# --- the end of the game ---------------------------------------------------------------------------


@dataclass
class SetVictory:
    condition: str
    turns: int = 0


@dataclass
class DeclareWinner:
    player: str


def loans_outstanding(state: GodsfireState, player: str) -> int:
    """GB borrowed and not yet repaid on the player's systems (D.1.4: nobody wins with loans outstanding)."""
    return sum(loan.amount for s in state.systems_of(player) for loan in s.loans)


@handles(SetVictory)
def set_victory(tx: Tx[GodsfireState], action: SetVictory) -> None:
    """The scenario's victory condition, set by the GM at the start (turn 1)."""
    require_gm(tx, "set the victory condition")
    state: GodsfireState = tx.state
    condition = action.condition.strip().lower()
    if condition not in VICTORIES:
        raise BadInput(f"condition: one of {', '.join(VICTORIES)}")
    if state.turn != 1 or state.phase != "movement":
        raise RuleViolation("the scenario's victory condition is set at the start: in turn 1's Movement Phase")
    if condition == "most-systems" and not 1 <= action.turns <= MAX_TURNS:
        raise BadInput(f"turns: most-systems names the last turn, 1 to {MAX_TURNS}")
    turns = action.turns if condition == "most-systems" else 0
    change_game(tx, f"victory: {VICTORY_WORDS[condition].format(turns=turns)}", victory=condition,
                victory_turns=turns)


def standings(state: GodsfireState) -> dict[str, Any]:
    """Every player's systems, planets, banks, loans outstanding and whether still in, and the winner."""
    rows: list[dict[str, Any]] = []
    for p in state.players:
        systems = state.systems_of(p.name)
        rows.append({"player": p.name, "systems": len(systems), "planets": sum(s.planets for s in systems),
                     "money": sum(s.bank for s in systems) + p.ng_money + p.in_transit,
                     "loans": loans_outstanding(state, p.name), "out": p.out})
    rows.sort(key=lambda r: (r["out"], -r["systems"], -r["planets"], r["player"]))
    return {"ruleset": "godsfire", "turn": state.turn, "victory": state.victory, "players": rows,
            "winner": state.winner}


def _end(tx: Tx[GodsfireState], winner: str | None, why: str) -> None:
    change_game(tx, why, winner=winner)
    tx.emit(GameEnded(standings=standings(tx.state)))


@handles(DeclareWinner)
def declare_winner(tx: Tx[GodsfireState], action: DeclareWinner) -> None:
    """The GM's call ends the game with a winner, never one with loans outstanding."""
    require_gm(tx, "declare the winner")
    state: GodsfireState = tx.state
    player = state.player(action.player)
    owed = loans_outstanding(state, player.name)
    if owed:
        raise RuleViolation(f"D.1.4: {player.name} cannot win with loans outstanding ({owed} GB)")
    if player.out:
        raise RuleViolation(f"{player.name} is out of the game")
    _end(tx, player.name, f"the GM declares {player.name} the winner")


def check_victory(tx: Tx[GodsfireState]) -> None:
    """At the end of each turn: the scenario's condition, if it is met, ends the game."""
    state: GodsfireState = tx.state
    if state.ended or state.victory == "gm":
        return
    standing = [p.name for p in state.active_players()]
    if state.victory == "last-ng" and len(state.players) > 1 and len(standing) <= 1:
        winner = standing[0] if standing else None
        if winner and loans_outstanding(state, winner):
            change_game(tx, f"{winner}'s is the last National Government, but D.1.4: nobody wins with loans "
                        "outstanding: the game goes on until they are repaid")
            return
        _end(tx, winner, f"the last National Government standing: {winner or 'nobody'}")
    elif state.victory == "most-systems" and state.turn >= state.victory_turns:
        eligible = [p for p in standing if not loans_outstanding(state, p)]
        counts = {p: len(state.systems_of(p)) for p in eligible}
        best = max(counts.values(), default=0)
        leaders = [p for p, n in counts.items() if n == best]
        winner = leaders[0] if len(leaders) == 1 and best > 0 else None
        why = (f"turn {state.turn} is over: {winner} holds the most systems ({best})" if winner else
               f"turn {state.turn} is over: no single winner (tied, or loans outstanding): the GM decides")
        _end(tx, winner, why)


# --- commands --------------------------------------------------------------------------------------

P = Param
COMMANDS: tuple[Command, ...] = (
    Command("godsfire war declare", "C: declare war on a player (in the Last Chance to Declare War phase)",
            (P("target", required=True, help="the player", complete="player"), PLAYER_PARAM),
            action=lambda o: DeclareWar(o["target"], o.get("player"))),
    Command("godsfire money send", "D.3: send money to another of your systems through space (lands later)",
            (P("amount", int, True, help="GB", low=1, high=999),
             P("from", required=True, help="a system of yours, or ng", complete="purse"),
             P("to", required=True, help="the system it goes to", complete="system"),
             P("cells", int, help="space cells between them (on a map: counted by the bot)", low=1, high=100),
             P("ship", int, help="the SQD or AG counter carrying it (else speed 3 by itself)", low=1, high=9999),
             P("turns", int, help="turns on the way (at least what its speed needs)", low=1, high=99), PLAYER_PARAM),
            action=lambda o: SendMoney(int(o["amount"]), o["from"], o["to"], _opt(o, "cells"),
                                       None if o.get("ship") is None else int(o["ship"]),
                                       None if o.get("turns") is None else int(o["turns"]), o.get("player"))),
    Command("godsfire money carry", "D.3: take money out as a GB counter, to move it (at war: subversion money is "
            "carried, D.11.1)",
            (P("amount", int, True, help="GB", low=1, high=999),
             P("from", required=True, help="a system of yours, or ng", complete="purse"), PLAYER_PARAM),
            action=lambda o: CarryMoney(int(o["amount"]), o["from"], o.get("player"))),
    Command("godsfire victory set", "the scenario's victory condition (GM, at the start)",
            (P("condition", required=True, choices=VICTORIES, help="gm, last-ng or most-systems"),
             P("turns", int, help="most-systems: the last turn", low=1, high=999)),
            action=lambda o: SetVictory(o["condition"], int(o.get("turns") or 0)), gm_only=True),
    Command("godsfire victory declare", "end the game with the GM's winner (no loans outstanding)",
            (P("player", required=True, help="the winner", complete="player"),),
            action=lambda o: DeclareWinner(o["player"]), gm_only=True),
)
