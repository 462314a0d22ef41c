"""A.2.5: "You may build up or break down units during Movement." A counter holds one unit, or several of one type
built up together (at most the house's `build_up_most`): it takes one place in a stack (stacking counts counters),
fights with the strength of all its units, and a loss takes one of its units (the enemy names it once a unit). It
is broken down again into one counter a unit. Both are done on the player's go at initiative, like a move.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from engine.core import Tx
from engine.errors import BadInput, RuleViolation
from engine.godsfire import table
from engine.godsfire.common import PLAYER_PARAM, acting_player, handles
from engine.godsfire.events import change_game
from engine.godsfire.movement import awaited
from engine.godsfire.state import FIGHTING, GodsfireState
from engine.names import name_key
from engine.vocabulary import NUMBERS, Command, Param


@dataclass
class BuildUp:
    counters: str
    player: str | None = None


@dataclass
class BreakDown:
    counter: int
    player: str | None = None


@handles(BuildUp)
def build_up(tx: Tx[GodsfireState], action: BuildUp) -> None:
    """A.2.5: on your go, units of one type standing together become one counter (at most the house's
    `build_up_most` units): one place in a stack, the strength of all its units; it has moved if any part had."""
    player = acting_player(tx, action.player, "build up units").name
    awaited(tx, player, "build up units")
    table.reconcile(tx)
    state: GodsfireState = tx.state
    numbers = table.parse_numbers(action.counters)
    parts = [state.counter(n) for n in numbers]
    if len(parts) < 2:
        raise BadInput("counters: two or more counters to build up into one")
    for c in parts:
        if c.owner is None or name_key(c.owner) != name_key(player):
            raise RuleViolation(f"{table.label(c)} is not {player}'s")
        if c.kind not in FIGHTING:
            raise RuleViolation(f"A.2.5: units (SQD, AG, PDF) are built up; {table.label(c)} is not a unit")
    if len({(c.kind, c.at, c.ground) for c in parts}) > 1:
        raise RuleViolation("A.2.5: the units built up into one counter are of one type and stand together")
    most = int(state.house.build_up_most)
    total = table.units(parts)
    if total > most:
        raise RuleViolation(f"A.2.5: a counter holds at most {most} units (house); these hold {total}")
    keep = min(parts, key=lambda c: c.number)
    moved = max(parts, key=lambda c: c.moved)
    counters = []
    for c in table.copy_counters(state):
        if c.number == keep.number:
            c.size, c.moved, c.came_from = total, moved.moved, moved.came_from
        if c.number == keep.number or c.number not in numbers:
            counters.append(c)
    table.set_counters(tx, counters, f"{player} builds up {', '.join(table.short(c) for c in parts)} into "
                       f"{keep.kind} #{keep.number} ×{total} at {keep.at} (A.2.5)")


@handles(BreakDown)
def break_down(tx: Tx[GodsfireState], action: BreakDown) -> None:
    """A.2.5: on your go, a built-up counter becomes one counter a unit (new numbers), as long as the stack stays
    within the limits."""
    player = acting_player(tx, action.player, "break down units").name
    awaited(tx, player, "break down units")
    table.reconcile(tx)
    state: GodsfireState = tx.state
    counter = state.counter(action.counter)
    if counter.owner is None or name_key(counter.owner) != name_key(player):
        raise RuleViolation(f"{table.label(counter)} is not {player}'s")
    if counter.size < 2:
        raise RuleViolation(f"A.2.5: {table.short(counter)} is one unit: nothing to break down")
    limit = int(tx.rules.stacking["ground" if counter.ground else "space"])
    stack = [c for c in state.counters_at(counter.at) if c.kind in FIGHTING and c.ground == counter.ground
             and c.owner == counter.owner]
    if len(stack) - 1 + counter.size > limit:
        raise RuleViolation(f"the sheet (Stacking): {limit} counters at most there; breaking down "
                            f"{table.short(counter)} would make {len(stack) - 1 + counter.size}")
    number = max([state.next_counter - 1, *(c.number for c in state.counters)]) + 1
    counters = table.copy_counters(state)
    new = []
    for c in counters:
        if c.number == counter.number:
            c.size = 1
    for i in range(counter.size - 1):
        new.append(replace(counter, number=number + i, size=1))
    change_game(tx, f"{player} breaks down {table.short(counter)} at {counter.at} into "
                f"{', '.join(f'#{n}' for n in [counter.number, *(c.number for c in new)])} (A.2.5)",
                counters=[*counters, *new], next_counter=number + len(new))
    table.sync(tx)


P = Param
COMMANDS: tuple[Command, ...] = (
    Command("godsfire movement build", "A.2.5: build units of one type standing together up into one counter",
            (P("counters", required=True, help='the counters, e.g. "3 4"', words=NUMBERS, complete="counters"),
             PLAYER_PARAM),
            action=lambda o: BuildUp(o["counters"], o.get("player"))),
    Command("godsfire movement split", "A.2.5: break a built-up counter down into one counter a unit",
            (P("counter", int, True, help="the built-up counter's number", low=1, high=99999), PLAYER_PARAM),
            action=lambda o: BreakDown(int(o["counter"]), o.get("player"))),
)
