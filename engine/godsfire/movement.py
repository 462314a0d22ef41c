"""A. The Movement Phase: the turn's player order (A.1.1), initiative rounds (A.1), moves of the counters on
the table (A.2) and the transit attacks or blocks on a move through stationary enemy units (A.2.3).

Initiative: the holder moves at least one counter (then `done`) or passes; if it moved, each other player in
the turn's order may move or pass; after 3 such rounds (4 with two players), or when the holder passes,
initiative goes to the next player in order, until every player has held it. Only the player whose go it
is may move. A go not taken within the house's response time is a pass.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, replace
from datetime import timedelta

from engine.clock import Deadline
from engine.core import Tx
from engine.errors import BadInput, NotYourNation, RefereeError, RuleViolation
from engine.godsfire import table
from engine.godsfire.charts import move_verdict, result_words
from engine.godsfire.common import PLAYER_PARAM, acting_player, clock_now, handles
from engine.godsfire.events import ChartRead, change_game
from engine.godsfire.rules import GodsfireRules
from engine.godsfire.setup import lose_government
from engine.godsfire.state import FIGHTING, Counter, GodsfireState, Initiative, Transit
from engine.names import name_key
from engine.vocabulary import LIST, NUMBERS, TEXT, Command, Param

MAX_ORDER_ROLLS = 20  # roll-offs for the order before ties are left in joining order


# --- the turn's player order (A.1.1) -------------------------------------------------------------


def roll_order(tx: Tx[GodsfireState]) -> list[str]:
    """Each player still in the game rolls a d6; highest first; tied players roll again among themselves
    (A.1.1: the order of players is determined randomly at the start of each turn)."""
    players = [p.name for p in tx.state.active_players()]
    return _order(tx, players, 0)


def _order(tx: Tx[GodsfireState], players: list[str], depth: int) -> list[str]:
    if len(players) < 2 or depth >= MAX_ORDER_ROLLS:
        return players
    dice = {name: tx.roll(f"turn {tx.state.turn} player order", name).die for name in players}
    ordered: list[str] = []
    for face in sorted(set(dice.values()), reverse=True):
        tied = [name for name in players if dice[name] == face]
        ordered += _order(tx, tied, depth + 1) if len(tied) > 1 else tied
    return ordered


def begin_turn(tx: Tx[GodsfireState]) -> None:
    """The start of a turn's Movement Phase: the order rolled and initiative to its first player."""
    state: GodsfireState = tx.state
    order = roll_order(tx)
    change_game(tx, f"turn {state.turn}'s player order (A.1.1): {', '.join(order) or 'nobody'}", order=order)
    table.reconcile(tx)
    if order:  # every player holds initiative in turn (A.1.5), a table of National Governments alone included
        change_game(tx, f"{order[0]} holds initiative (A.1.2): move at least one counter, or pass",
                    initiative=Initiative(order[0], awaiting=order[0], since=clock_now(tx)))


def rounds_of(state: GodsfireState) -> int:
    """A.1.4: 3 rounds, 4 in a two-player game."""
    return 4 if len(state.order) == 2 else 3


def _responders(state: GodsfireState, holder: str) -> list[str]:
    """The other players in the turn's order, from the one after the holder (A.1.3, A.1.4: the original
    first player responds too)."""
    order = [p for p in state.order if not state.player(p).out]
    at = order.index(holder) if holder in order else 0
    return [p for p in order[at + 1:] + order[:at] if p != holder]


def _next_go(tx: Tx[GodsfireState], moved: bool, why: str) -> None:
    """The awaited player's go ends (having moved or not): the next responder, the holder's next round, the
    next holder, or the end of initiative."""
    state: GodsfireState = tx.state
    ini = state.initiative
    assert ini is not None and ini.awaiting is not None
    now = clock_now(tx)
    if ini.awaiting == ini.holder:
        if not moved:  # A.1.4: the holder passed
            _pass_initiative(tx, why)
            return
        nxt = _responders(state, ini.holder)
        if nxt:
            change_game(tx, f"{why}; {nxt[0]} may respond (A.1.3)",
                        initiative=replace(ini, awaiting=nxt[0], since=now, moved=False, reminded=False))
            return
    else:
        responders = _responders(state, ini.holder)
        later = responders[responders.index(ini.awaiting) + 1:] if ini.awaiting in responders else []
        if later:
            change_game(tx, f"{why}; {later[0]} may respond (A.1.3)",
                        initiative=replace(ini, awaiting=later[0], since=now, moved=False, reminded=False))
            return
    if ini.round >= rounds_of(state):
        _pass_initiative(tx, f"{why}; {rounds_of(state)} rounds are over (A.1.4)")
        return
    change_game(tx, f"{why}; round {ini.round + 1}: {ini.holder} holds initiative",
                initiative=replace(ini, round=ini.round + 1, awaiting=ini.holder, since=now, moved=False,
                                   reminded=False))


def _pass_initiative(tx: Tx[GodsfireState], why: str) -> None:
    state: GodsfireState = tx.state
    ini = state.initiative
    assert ini is not None
    held = [*ini.held, ini.holder]
    left = [p for p in state.order if p not in held and not state.player(p).out]
    if not left:
        change_game(tx, f"{why}; every player has held initiative (A.1.5): movement is over", initiative=None)
        over = table.stacks_over(state, tx.rules)
        if over:
            change_game(tx, "stacking must be met before the Movement Phase ends (the GM takes off what is over): "
                        + "; ".join(over))
        return
    change_game(tx, f"{why}; initiative passes to {left[0]} (A.1.4)",
                initiative=Initiative(left[0], 1, left[0], tx.ctx.now, False, held))


def movement_left(state: GodsfireState, rules: GodsfireRules) -> list[str]:
    """What keeps the Movement Phase from ending: initiative still running, a transit waiting, stacks over."""
    left = []
    if state.initiative is not None:
        left.append(f"initiative: {state.initiative.awaiting}'s go (A.1; the GM may /godsfire movement pass player:)")
    if state.transit is not None:
        left.append(f"a transit through {state.transit.cell} waits on {state.transit.stationary} (A.2.3)")
    left += table.stacks_over(state, rules)
    return left


# --- actions ---------------------------------------------------------------------------------------


@dataclass
class StartInitiative:
    """The GM starts the turn's initiative (turn 1, once the players are set up; later turns start on
    their own)."""


@dataclass
class Move:
    counters: str
    to: str
    through: str = ""
    cells: int | None = None
    nebula: int = 0
    player: str | None = None


@dataclass
class EndGo:
    passing: bool = False
    player: str | None = None


@dataclass
class TransitAnswer:
    answer: str  # attack, block or allow
    retreat: str = ""
    column: str | None = None
    player: str | None = None


def _require_movement(state: GodsfireState, what: str) -> None:
    if state.phase != "movement":
        raise RuleViolation(f"A: {what} is done in the Movement Phase; it is now turn {state.turn}'s "
                            f"{state.phase} phase")


def awaited(tx: Tx[GodsfireState], player: str, what: str) -> Initiative:
    state: GodsfireState = tx.state
    _require_movement(state, what)
    if state.transit is not None:
        raise RuleViolation(f"A.2.3: a move through {state.transit.cell} waits on {state.transit.stationary}'s "
                            "transit attack or block first")
    ini = state.initiative
    if ini is None:
        raise RuleViolation("A.1: initiative has not started this turn (the GM: /godsfire movement initiative)"
                            if not state.order else "A.1: every player has held initiative: movement is over "
                            "this turn")
    if name_key(ini.awaiting or "") != name_key(player):
        raise RuleViolation(f"A.1: it is {ini.awaiting}'s go ({ini.holder} holds initiative, round {ini.round}); "
                            f"{player} may not {what} now")
    return ini


@handles(StartInitiative)
def start_initiative(tx: Tx[GodsfireState], action: StartInitiative) -> None:
    if not tx.ctx.is_gm:
        raise NotYourNation("only the GM starts the turn's initiative")
    state: GodsfireState = tx.state
    _require_movement(state, "starting initiative")
    if state.initiative is not None or state.order:
        raise RuleViolation(f"A.1: turn {state.turn}'s order is already rolled ({', '.join(state.order)}); "
                            "initiative starts once a turn")
    if not state.active_players():
        raise RuleViolation("no players yet: add them with /godsfire player add or /godsfire system add")
    begin_turn(tx)


def _cells_moved(state: GodsfireState, counter: Counter, origin: table.Place, dest: table.Place,
                 through: list[str], cells: int | None) -> tuple[int, int]:
    """(space cells, ground areas) a move crosses without a map: within one system, space to ground and back is
    free and ground to ground is 1 area; otherwise the cells passed through and the destination (or `cells`)."""
    if _same_system(origin, dest):
        return 0, (1 if origin.ground and dest.ground else 0)
    return (cells if cells is not None else len(through) + 1), 0


def _same_system(origin: table.Place, dest: table.Place) -> bool:
    return origin.system is not None and dest.system is not None and origin.system.name == dest.system.name


def cell_of(place: table.Place) -> str:
    """The map cell a position is in: a region's is its system's cell (ground/space/ground is free)."""
    return place.system.name if place.ground and place.system is not None else place.at


def read_cells(state: GodsfireState, raw: str) -> list[str]:
    """`"K2 K3"`, `"K2, K3"` → ["K2", "K3"]: cells are parted by commas or spaces, as counters are; a part between
    commas that is one name the game knows (a system "Alpha Centauri", a cell of the map) stays whole."""
    found: list[str] = []
    for part in (" ".join(p.split()) for p in re.split(r"[,;]", raw or "") if p.strip()):
        whole = False
        if " " in part:
            try:
                whole = table.place_of(state, part).system is not None or (
                    state.board is not None and state.board.find(part) is not None)
            except RefereeError:
                whole = False
        found += [part] if whole else part.split()
        if len(found) > table.MAX_LISTED:
            raise BadInput(f"through: at most {table.MAX_LISTED} cells")
    return found


def _on_map(tx: Tx[GodsfireState], player: str, origin: table.Place, dest: table.Place,
            through: list[str]) -> tuple[list[str], int, int, int]:
    """A move on the map (A.2): the path of touching cells from the movers' cell to the destination's, through
    the cells named in order (the cheapest between them, passing enemy units only when no other way costs as
    little); (the cells passed before the last, space cells, nebula cells, ground areas)."""
    state: GodsfireState = tx.state
    board = state.board
    assert board is not None
    if _same_system(origin, dest) and not through:
        return [], 0, 0, (1 if origin.ground and dest.ground else 0)
    extra = -int(tx.rules.movement["nebula"])
    enemy_cells = {cell_of(table.place_of(state, c.at)) for c in state.counters
                   if c.kind in FIGHTING and table.is_enemy(c, player)}
    path = board.route(cell_of(origin), through, cell_of(dest), extra, avoid=enemy_cells)
    if not path:
        raise BadInput(f"the counters are already in {cell_of(dest)}")
    nebula = sum(1 for cell in path if cell.nebula)
    return [cell.name for cell in path[:-1]], len(path), nebula, 0


@handles(Move)
def move(tx: Tx[GodsfireState], action: Move) -> None:
    """A.2: move counters (together) to a position: on a map along a path of touching cells (through the cells
    named, in order), without one through the cells the player names."""
    player = acting_player(tx, action.player, "move").name
    awaited(tx, player, "move")
    table.reconcile(tx)
    state: GodsfireState = tx.state
    numbers = table.parse_numbers(action.counters)
    dest = table.place_of(state, action.to)
    through = read_cells(state, action.through)
    if state.board is not None and (action.cells is not None or action.nebula):
        raise BadInput("the map counts the cells and the nebulae of a move: leave cells: and nebula: out (name "
                       "the way with through: if you like)")
    if action.cells is not None and not 1 <= action.cells <= 100:
        raise BadInput("cells: 1 to 100")
    if not 0 <= action.nebula <= 100:
        raise BadInput("nebula: 0 to 100 cells")
    movers = [state.counter(n) for n in numbers]
    origins = {c.at for c in movers}
    if len(origins) > 1:
        raise RuleViolation("counters moving together start in one position; move the others on their own")
    for c in movers:
        if c.owner is None or name_key(c.owner) != name_key(player):
            raise RuleViolation(f"{table.label(c)} is not {player}'s to move")
        if c.moved == state.turn:
            raise RuleViolation(f"A.2.1: each counter moves once a turn; {table.short(c)} has moved this turn")
        if c.kind == "SQD" and dest.ground:
            raise RuleViolation("A.2.4: SQDs never go on the ground")
        if c.at == dest.at:
            raise BadInput(f"{table.short(c)} is already at {dest.at}")
    enemies = [c for c in state.counters_at(dest.at) if table.is_enemy(c, player)]
    if enemies:
        raise RuleViolation(f"A.2.2: a move cannot end on an enemy unit ({table.label(enemies[0])})")
    origin = table.place_of(state, movers[0].at)
    if dest.ground and dest.system is not None and not (origin.ground and origin.system is dest.system):
        _check_landing(state, player, movers, dest)
    if state.board is not None:
        passed, space, nebula, ground = _on_map(tx, player, origin, dest, through)
    else:
        space, ground = _cells_moved(state, movers[0], origin, dest, through, action.cells)
        passed, nebula = through, min(action.nebula, space)
    for c in movers:
        ok, why = move_verdict(tx.rules, c.kind, space, nebula, ground)
        if not ok:
            path = f" (the path: {' → '.join([cell_of(origin), *passed, cell_of(dest)])})" if state.board else ""
            raise RuleViolation(f"{table.short(c)}: {why}{path}")
    carrier_ok = any(c.kind in ("SQD", "AG") for c in movers)
    if any(c.kind == "GB" for c in movers) and not carrier_ok and space > tx.rules.movement["GB"]:
        raise RuleViolation(f"D.3.2: money by itself moves at speed {tx.rules.movement['GB']}")
    _check_stacking(tx, player, movers, dest)
    start = cell_of(origin)
    route = f" by the path {' → '.join([start, *passed, cell_of(dest)])}" if state.board is not None and passed else ""
    _travel(tx, player, numbers, start, dest, passed, start, route)


def _check_stacking(tx: Tx[GodsfireState], player: str, movers: list[Counter], dest: table.Place) -> None:
    """The sheet (Stacking): space 3, ground 6 at the end of each move; a move does not overstack (only builds and
    the start of the game may)."""
    moving = [c for c in movers if c.kind in FIGHTING]
    if not moving:
        return
    state: GodsfireState = tx.state
    there = [c for c in state.counters_at(dest.at) if c.kind in FIGHTING and c.ground == dest.ground
             and c.owner is not None and name_key(c.owner) == name_key(player) and c not in movers]
    limit = int(tx.rules.stacking["ground" if dest.ground else "space"])
    if len(there) + len(moving) > limit:
        where = "on the ground of a region" if dest.ground else "in a space cell"
        raise RuleViolation(f"the sheet (Stacking): {limit} units at most {where}; {player} has {len(there)} at "
                            f"{dest.at} and {len(moving)} would arrive")


def _check_landing(state: GodsfireState, player: str, movers: list[Counter], dest: table.Place) -> None:
    system = dest.system
    assert system is not None
    held = [c for c in state.counters_at(system.name) if table.is_enemy(c, player)]  # an enemy NG too
    if held:
        raise RuleViolation(f"B.2.1: landing on {system.name} needs its system cell held; "
                            f"{table.label(held[0])} is there")
    hostile = system.owner is None or name_key(system.owner) != name_key(player)
    if hostile:
        others = [c for c in movers if c.kind != "AG"]
        if others:
            raise RuleViolation(f"B.2.2: only AGs land on hostile planets ({table.short(others[0])} cannot)")


def _travel(tx: Tx[GodsfireState], player: str, numbers: list[int], came_from: str, dest: table.Place,
            through: list[str], origin: str, route: str = "") -> None:
    """Move the counters along `through` to `dest`, stopping where stationary enemy units may attack (A.2.3).
    `came_from`: the cell before the first of `through`; `origin`: where the move started."""
    state: GodsfireState = tx.state
    before = came_from
    for i, cell in enumerate(through):
        at = table.place_of(state, cell).at
        stationary = [c for c in state.counters_at(at) if c.kind in FIGHTING and table.is_enemy(c, player)]
        # a neutral's units answer through the player the GM named, never the mover itself
        sides = {side for c in stationary if (side := table.side_of(state, c)) is not None} - {player}
        if stationary and sides:
            who = sorted(sides)[0]
            _put(tx, numbers, at, False, f"{player}'s {_names(state, numbers)} pass through {at}{route}", mark=False)
            change_game(tx, f"{who}'s units at {at} may make a transit attack on them or block them (A.2.3)",
                        transit=Transit(player, numbers, at, dest.at, dest.ground, who, before,
                                        through[i + 1:], clock_now(tx), origin))
            return
        before = at
    _arrive(tx, player, numbers, dest.at, dest.ground, origin, route)


def _names(state: GodsfireState, numbers: list[int]) -> str:
    return ", ".join(table.short(state.counter(n)) for n in numbers)


def _put(tx: Tx[GodsfireState], numbers: list[int], at: str, ground: bool, reason: str, mark: bool,
         origin: str = "") -> None:
    counters = table.copy_counters(tx.state)
    for c in counters:
        if c.number in numbers:
            c.at, c.ground = at, ground
            if mark:
                c.moved = tx.state.turn
                c.came_from = origin
    table.set_counters(tx, counters, reason)


def _arrive(tx: Tx[GodsfireState], player: str, numbers: list[int], at: str, ground: bool, origin: str = "",
            route: str = "") -> None:
    state: GodsfireState = tx.state
    _put(tx, numbers, at, ground, f"{player} moves {_names(state, numbers)} to {at}{route}", mark=True,
         origin=origin)
    if state.initiative is not None and state.initiative.awaiting == player:
        change_game(tx, f"{player} has moved this go", initiative=replace(state.initiative, moved=True))


@handles(EndGo)
def end_go(tx: Tx[GodsfireState], action: EndGo) -> None:
    """A.1: the awaited player ends the go: `done` after moving, or `pass`."""
    player = acting_player(tx, action.player, "play a go").name
    ini = awaited(tx, player, "pass" if action.passing else "end the go")
    if not action.passing and not ini.moved and ini.awaiting == ini.holder:
        raise RuleViolation("A.1.2: the player with initiative moves at least one counter or passes")
    moved = ini.moved and not action.passing
    _next_go(tx, moved, f"{player} {'moved' if moved else 'passes'}")


@handles(TransitAnswer)
def transit_answer(tx: Tx[GodsfireState], action: TransitAnswer) -> None:
    """A.2.3: the stationary player's answer to a move through its units: a transit attack (each mover
    defends as an individual counter: one die each), a block (the movers stop; the stationary units retreat
    one cell, not to where the movers came from), or letting it pass."""
    state: GodsfireState = tx.state
    pending = state.transit
    if pending is None:
        raise RuleViolation("A.2.3: no move is passing through enemy units now")
    player = acting_player(tx, action.player, "play a go").name
    if name_key(player) != name_key(pending.stationary):
        raise RuleViolation(f"A.2.3: the transit through {pending.cell} is {pending.stationary}'s to answer")
    answer = action.answer.strip().lower()
    if answer not in ("attack", "block", "allow"):
        raise BadInput("answer: attack, block or allow")
    table.reconcile(tx)
    if tx.state.transit is None:  # the boxes gave up every mover: nothing is left to answer (table.tidy_transit)
        return
    apply_transit(tx, answer, action.retreat, action.column)


def apply_transit(tx: Tx[GodsfireState], answer: str, retreat: str = "", column: str | None = None) -> None:
    """Apply a transit answer (also the deadline's default, `allow`)."""
    state: GodsfireState = tx.state
    pending = state.transit
    assert pending is not None
    going = [n for n in pending.counters if any(c.number == n for c in state.counters)]
    stopped: list[int] = []
    if answer == "attack":
        if column is not None and not tx.ctx.is_gm:
            raise NotYourNation("the Transit Attacks column is the referee's call: only the GM names it")
        col = str(column if column is not None else state.house.transit_column).strip()
        if col not in tx.rules.transit.columns:
            raise BadInput(f"column: one of {', '.join(tx.rules.transit.columns)}")
        stationary = [c.number for c in state.counters_at(pending.cell)
                      if c.kind in FIGHTING and table.is_enemy(c, pending.mover)]
        lost_movers: list[int] = []
        worn: list[int] = []
        lost_stationary = 0
        for n in list(going):
            die = tx.roll(f"transit attack on {pending.mover}'s {table.short(state.counter(n))} at {pending.cell}",
                          pending.stationary).die
            code = tx.rules.transit.read(col, die)
            tx.emit(ChartRead("transit", col, die, code, result_words(tx.rules, code),
                              f"{pending.stationary} attacks {table.short(state.counter(n))} in transit"))
            if code == "ME" or (code == "M1" and state.counter(n).size == 1):  # an individual counter
                lost_movers.append(n)
            elif code == "M1":  # a built-up counter loses one unit and goes on
                worn.append(n)
            elif code == "Ms":
                stopped.append(n)
            elif code == "S1":
                lost_stationary += 1
        if lost_movers:
            _remove(tx, lost_movers, f"lost in the transit attack at {pending.cell}")
        if worn:
            table.set_counters(tx, table.take_units(table.copy_counters(tx.state), worn),
                               f"M1: {', '.join(f'#{n}' for n in worn)} lose one unit in the transit attack")
        if lost_stationary and stationary:
            _lose_units(tx, stationary, lost_stationary,
                        f"S1: the stationary units at {pending.cell} lose {lost_stationary} (the first listed)")
        going = [n for n in going if n not in lost_movers and n not in stopped]
    elif answer == "block":
        cell = table.place_of(state, retreat) if retreat else None
        if cell is None:
            raise BadInput("retreat: the cell one step away the blocking units retreat to")
        if cell.ground:
            raise RuleViolation("A.2.3: the blocking units retreat to a cell in space")
        if cell.at == pending.cell:
            raise RuleViolation(f"A.2.3: blocking units retreat 1 cell away from {pending.cell}")
        if cell.at == (pending.came_from or pending.origin):
            raise RuleViolation(f"A.2.3: blocking units retreat 1 cell away, not to the cell the movers came from "
                                f"({cell.at})")
        if state.board is not None and not state.board.touching(pending.cell, cell.at):
            raise RuleViolation(f"A.2.3: blocking units retreat 1 cell away; {cell.at} does not touch {pending.cell}")
        foes = [c for c in state.counters_at(cell.at) if c.kind in FIGHTING and table.is_enemy(c, pending.stationary)
                and table.side_of(state, c) != pending.stationary]
        if foes:
            raise RuleViolation(f"A.2.3: blocking units do not retreat onto enemy units ({table.label(foes[0])})")
        blockers = [c.number for c in state.counters_at(pending.cell)
                    if c.kind in FIGHTING and table.side_of(state, c) == pending.stationary]
        _put(tx, blockers, cell.at, False, f"{pending.stationary} blocks at {pending.cell} and retreats to {cell.at}",
             mark=False)
        stopped, going = going, []
    mover = pending.mover
    if stopped:
        _put(tx, stopped, pending.cell, False, f"{_names(tx.state, stopped)} stop at {pending.cell}", mark=True,
             origin=pending.origin)
    change_game(tx, f"the transit through {pending.cell} is settled ({answer})", transit=None)
    if going:
        dest = table.Place(pending.to, pending.ground)
        _travel(tx, mover, going, pending.cell, dest, pending.rest, pending.origin)
    elif tx.state.initiative is not None and tx.state.initiative.awaiting == mover:
        change_game(tx, f"{mover} has moved this go", initiative=replace(tx.state.initiative, moved=True))


def _lose_units(tx: Tx[GodsfireState], numbers: list[int], count: int, reason: str) -> None:
    """`count` units lost from the counters `numbers`, the first listed first (a counter with none left goes)."""
    taken: list[int] = []
    for n in numbers:
        taken += [n] * min(tx.state.counter(n).size, count - len(taken))
    gone = [n for n in dict.fromkeys(taken) if taken.count(n) >= tx.state.counter(n).size]
    worn = [n for n in taken if n not in gone]
    if gone:
        _remove(tx, gone, reason)
    if worn:
        table.set_counters(tx, table.take_units(table.copy_counters(tx.state), worn), reason)


def _remove(tx: Tx[GodsfireState], numbers: list[int], reason: str) -> None:
    state: GodsfireState = tx.state
    gone = [c for c in state.counters if c.number in numbers]
    table.set_counters(tx, [c for c in table.copy_counters(state) if c.number not in numbers], reason)
    for c in gone:
        if c.kind == "NG" and c.owner is not None and not tx.state.player(c.owner).out:
            lose_government(tx, c.at, c.owner)


# --- the clock -------------------------------------------------------------------------------------


def deadlines(state: GodsfireState) -> list[Deadline]:
    """The awaited go's reminder (half time) and its deadline; a waiting transit's deadline."""
    hours = float(state.house.response_hours)
    found: list[Deadline] = []
    ini = state.initiative
    if ini is not None and ini.since is not None and ini.awaiting and state.transit is None:
        if not ini.reminded:
            found.append(Deadline(ini.since + timedelta(hours=hours / 2), "reminder", ini.awaiting, "initiative"))
        found.append(Deadline(ini.since + timedelta(hours=hours), "go", ini.awaiting, "initiative"))
    if state.transit is not None and state.transit.since is not None:
        found.append(Deadline(state.transit.since + timedelta(hours=hours), "transit", state.transit.stationary))
    return found


def apply_deadline(tx: Tx[GodsfireState], due: Deadline) -> None:
    state: GodsfireState = tx.state
    if due.what == "reminder" and state.initiative is not None:
        left = math.ceil(state.house.response_hours / 2 * 60)
        change_game(tx, f"reminder: it is {due.who}'s go at initiative; about {left} minutes left before it counts "
                    "as a pass", initiative=replace(state.initiative, reminded=True))
    elif due.what == "go" and state.initiative is not None:
        ini = state.initiative
        _next_go(tx, ini.moved, f"{due.who}'s time ran out: {'done' if ini.moved else 'a pass'} (A.1)")
    elif due.what == "transit" and state.transit is not None:
        change_game(tx, f"{due.who} did not answer in time: the movers pass through {state.transit.cell}")
        apply_transit(tx, "allow")


# --- commands --------------------------------------------------------------------------------------

P = Param
COMMANDS: tuple[Command, ...] = (
    Command("godsfire movement initiative", "A.1: roll the turn's player order and start initiative (GM, turn 1)",
            action=lambda o: StartInitiative(), gm_only=True),
    Command("godsfire movement move", "A.2: move counters on your go: to a system (Sol), region (Sol 2) or cell",
            (P("counters", required=True, help='the counters, e.g. "3 4"', words=NUMBERS, complete="counters"),
             P("to", required=True, help="where: a system, a region (Sol 2) or a cell of your map", words=TEXT,
               complete="position"),
             P("through", help='the cells to pass, in order, e.g. "K11 K12" (on a map: the way to take)', words=LIST),
             P("cells", int, help="space cells moved, if not the cells named plus one", low=1, high=100),
             P("nebula", int, help="how many of them are in a nebula (each costs 2 more)", low=0, high=100),
             PLAYER_PARAM),
            action=lambda o: Move(o["counters"], o["to"], o.get("through") or "",
                                  None if o.get("cells") is None else int(o["cells"]), int(o.get("nebula") or 0),
                                  o.get("player"))),
    Command("godsfire movement done", "A.1: end your go at initiative after moving",
            (PLAYER_PARAM,), action=lambda o: EndGo(False, o.get("player"))),
    Command("godsfire movement pass", "A.1: pass your go (the holder passes initiative on)",
            (PLAYER_PARAM,), action=lambda o: EndGo(True, o.get("player"))),
    Command("godsfire movement transit", "A.2.3: a move passes your units: attack it, block it, or allow it",
            (P("answer", required=True, choices=("attack", "block", "allow"), help="attack, block or allow"),
             P("retreat", help="block: the cell your blocking units retreat to", complete="position"),
             P("column", choices=("-2", "-1", "0"), help="GM: the Transit Attacks column"), PLAYER_PARAM),
            action=lambda o: TransitAnswer(o["answer"], o.get("retreat") or "", o.get("column"), o.get("player"))),
)
