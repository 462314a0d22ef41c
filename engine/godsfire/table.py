"""The counters on the table: where each unit is, as the players name it.

The bot has no map geometry. A position is a system's cell ("Sol": space), a region of a system on the
ground ("Sol 2"), or any other cell of the group's map ("K12"). Within a system the sheet's boxes (a
system's units in its cell, a region's on its ground, the enemy units that stop taxes and builds) are
counted from the counters there: `reconcile` first makes the counters match the boxes (a GM's hand edit, the
units placed at D.14), each table action moves counters, and `sync` writes the boxes back from them.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, replace

from engine.core import Tx, require_gm
from engine.errors import BadInput, RuleViolation
from engine.godsfire.common import handles
from engine.godsfire.events import change_game, change_region, change_system
from engine.godsfire.rules import GodsfireRules
from engine.godsfire.state import FIGHTING, KINDS, MAX_COUNTERS, Counter, GodsfireState, LossChoice, System
from engine.godsfire.state import MAX_LISTED as MAX_LISTED
from engine.names import name_key

MAX_CELL = 60  # the longest cell name


@dataclass(frozen=True)
class Place:
    """A resolved position: its canonical text, whether it is on the ground, and its system (if any)."""

    at: str
    ground: bool
    system: System | None = None
    region: int | None = None


def place_of(state: GodsfireState, raw: str) -> Place:
    """`Sol` → Sol's cell; `Sol 2` → region 2 of Sol on the ground; anything else → a cell of that name."""
    text = " ".join(str(raw).split())
    if not text:
        raise BadInput("name a position: a system (Sol), a region (Sol 2) or a cell of your map (K12)")
    if len(text) > MAX_CELL:
        raise BadInput(f"a position's name is at most {MAX_CELL} characters")
    system = state.find_system(text)
    if system is not None:
        return Place(system.name, False, system)
    match = re.fullmatch(r"(.+?)\s*(\d+)", text)
    if match:
        system = state.find_system(match.group(1))
        if system is not None:
            region = system.region(int(match.group(2)))
            return Place(f"{system.name} {region.number}", True, system, region.number)
    if state.board is not None:  # on a map, a position is one of its cells (a system's by the system's name)
        cell = state.board.cell(text)
        return Place(cell.name, False, state.find_system(cell.name))
    return Place(text, False)


def parse_numbers(raw: str, what: str = "counters", repeats: bool = False) -> list[int]:
    """`"3 4, #7"` → [3, 4, 7] (each once, unless `repeats`: a unit lost from a built-up counter each time)."""
    words = [w.lstrip("#") for w in re.split(r"[\s,]+", str(raw).strip()) if w]
    if not words or not all(w.isdecimal() for w in words):
        raise BadInput(f"{what}: give counter numbers, e.g. \"3 4\" (/godsfire counters lists them)")
    numbers = [int(w) for w in words] if repeats else list(dict.fromkeys(int(w) for w in words))
    if len(numbers) > MAX_LISTED:
        raise BadInput(f"{what}: at most {MAX_LISTED} counters at once")
    return numbers


def label(counter: Counter) -> str:
    """`AG #4 (alice) at Sol 2` — money shows its amount, a built-up counter its units (`AG #4 ×3`)."""
    owner = counter.owner or "neutral"
    kind = f"{counter.amount} GB" if counter.kind == "GB" else counter.kind
    return (f"{kind} #{counter.number}{_times(counter)} ({owner}) at {counter.at}"
            f"{' (ground)' if counter.ground else ''}")


def short(counter: Counter) -> str:
    return f"{counter.kind} #{counter.number}{_times(counter)}"


def _times(counter: Counter) -> str:
    return f" ×{counter.size}" if counter.size > 1 else ""


def units(counters: Iterable[Counter]) -> int:
    """The units the counters hold (a built-up counter holds several, A.2.5)."""
    return sum(c.size for c in counters)


def take_units(counters: list[Counter], numbers: Iterable[int]) -> list[Counter]:
    """The counters (working copies) after one unit is lost from each counter named, once for each time it is
    named (a counter with no unit left is gone)."""
    left = {c.number: c.size for c in counters}
    for n in numbers:
        left[n] = left.get(n, 0) - 1
    kept = []
    for c in counters:
        if left[c.number] > 0:
            c.size = left[c.number]
            kept.append(c)
    return kept


def is_enemy(counter: Counter, player: str | None) -> bool:
    """Whether a counter is an enemy unit to `player` (money is not a unit)."""
    if counter.kind == "GB":
        return False
    return counter.owner is None or player is None or name_key(counter.owner) != name_key(player)


def side_of(state: GodsfireState, counter: Counter) -> str | None:
    """Who moves and fights with a counter: its owner, or for a neutral's the player the GM named."""
    if counter.owner is not None:
        return counter.owner
    system = next((s for s in state.systems if counter.at == s.name or counter.at.startswith(s.name + " ")), None)
    return state.neutral_control.get(system.name) if system is not None else None


# --- the boxes and the counters ------------------------------------------------------------------


def _boxes(state: GodsfireState) -> list[tuple[str, bool, str | None, dict[str, int]]]:
    """Every box of the sheet (a system's cell, then its regions' ground): position, ground, owner, units."""
    boxes: list[tuple[str, bool, str | None, dict[str, int]]] = []
    for system in state.systems:
        boxes.append((system.name, False, system.owner, system.units))
        for region in system.regions:
            boxes.append((f"{system.name} {region.number}", True, system.owner, region.units))
    return boxes


def reconciled(state: GodsfireState, limit: int = MAX_COUNTERS) -> tuple[list[Counter], int, int]:
    """The counters once they match the sheet's boxes (copies), the next counter number, and how many counters
    that is. One pass over the counters and one over the boxes; past `limit` counters the new ones are only
    counted (the list is then short: the caller refuses), so a box of any size costs no more than the limit."""
    counters = copy_counters(state)
    first = state.next_counter
    number = max([first - 1, *(c.number for c in counters)]) + 1
    groups: dict[tuple[str, str, str | None], list[Counter]] = {}
    for c in counters:
        groups.setdefault((c.at, c.kind, c.owner), []).append(c)
    gone: set[int] = set()  # the counters given up (by id)
    total = len(counters)
    for at, ground, owner, box in _boxes(state):
        for kind in FIGHTING:
            here = groups.setdefault((at, kind, owner), [])
            want = int(box.get(kind, 0))
            have = units(here)
            if want - have > limit - total:  # over the limit: counted, not made
                total += want - have
                continue
            for _ in range(want - have):
                new = Counter(number, kind, owner, at, ground)
                number += 1
                here.append(new)
                counters.append(new)
            total += max(want - have, 0)
            excess = have - want
            while excess > 0 and here:  # fewer units in the box: the last counters give them up
                extra = here[-1]
                taken = min(extra.size, excess)
                excess -= taken
                if taken == extra.size:
                    gone.add(id(here.pop()))
                    total -= 1
                else:
                    extra.size -= taken
    with_ng = {c.owner for c in counters if c.kind == "NG"}
    for player in state.players:
        if player.government and not player.out and player.name not in with_ng:
            counters.append(Counter(number, "NG", player.name, player.government, False))
            number += 1
            total += 1
    kept = [c for c in counters if id(c) not in gone]
    return kept, max([first - 1, *(c.number for c in kept)]) + 1, total


def room_problem(state: GodsfireState) -> str | None:
    """Why the table would hold too many counters once the boxes are counters (`reconciled`), or None."""
    total = reconciled(state)[2]
    if total <= MAX_COUNTERS:
        return None
    return (f"the table holds at most {MAX_COUNTERS:,} counters, and the sheet's boxes and the counters would "
            f"make {total:,} (take some off with /godsfire counter remove, or lower a box with /godsfire set)")


def require_room(state: GodsfireState, why: str) -> None:
    """Refuse (one line) when the boxes and counters would make more than MAX_COUNTERS counters."""
    problem = room_problem(state)
    if problem is not None:
        raise RuleViolation(f"{why}: {problem}")


def reconcile(tx: Tx[GodsfireState]) -> None:
    """Make the counters match the sheet's boxes (the boxes change by hand edits and D.14's placing): a box
    with more units than counters gets new counters there; one with fewer loses its last counters."""
    state: GodsfireState = tx.state
    counters, number, total = reconciled(state)
    if total > MAX_COUNTERS:
        require_room(state, "the counters cannot match the sheet's boxes")
    if number != state.next_counter or len(counters) != len(state.counters) or any(
            a.number != b.number or a.size != b.size for a, b in zip(counters, state.counters, strict=False)):
        change_game(tx, "the counters match the sheet's boxes", counters=counters, next_counter=number)
        tidy_pending(tx)  # a box lowered by hand may have given up counters waiting in a transit or a choice


def sync(tx: Tx[GodsfireState], only: str | None = None) -> None:
    """Write each system's and region's boxes from the counters there: its owner's units by type, the
    enemy units present (a system cell's make it "under siege"). `only`: one system's (the rest are known to
    match their counters)."""
    state: GodsfireState = tx.state
    by_at: dict[str, list[Counter]] = {}
    for c in state.counters:
        if c.kind in FIGHTING:
            by_at.setdefault(c.at, []).append(c)
    for system in state.systems if only is None else [state.system(only)]:
        own, enemy = _box(by_at.get(system.name, []), system.owner)
        if own != system.units or enemy != system.enemy_units:
            change_system(tx, system.name, "the counters on its cell", units=own, enemy_units=enemy)
        for region in system.regions:
            mine, foes = _box(by_at.get(f"{system.name} {region.number}", []), system.owner)
            if mine != region.units or foes != region.enemy_units:
                change_region(tx, system.name, region.number, "the counters on its ground", units=mine,
                              enemy_units=foes)


def _box(here: list[Counter], owner: str | None) -> tuple[dict[str, int], int]:
    """A box's own units by type and the enemy units in it, from the fighting counters at its position."""
    own = [c for c in here if c.owner == owner]
    return _by_kind(own), units(here) - units(own)


def _by_kind(counters: list[Counter]) -> dict[str, int]:
    found = {kind: units(c for c in counters if c.kind == kind) for kind in FIGHTING}
    return {kind: n for kind, n in found.items() if n}


def set_counters(tx: Tx[GodsfireState], counters: list[Counter], reason: str) -> None:
    """Replace the table's counters (one logged change) and write the boxes back."""
    change_game(tx, reason, counters=counters)
    sync(tx)


def tidy_transit(tx: Tx[GodsfireState]) -> None:
    """Drop from a pending transit (A.2.3) the movers no longer on the table (the GM took them off, a box lowered
    by hand gave them up): the rest still wait on the stationary player. A transit left with no mover is over,
    and the move counts as made this go, as when a transit attack takes every mover."""
    state: GodsfireState = tx.state
    pending = state.transit
    if pending is None:
        return
    on_table = {c.number for c in state.counters}
    left = [n for n in pending.counters if n in on_table]
    if left == pending.counters:
        return
    gone = ", ".join(f"#{n}" for n in pending.counters if n not in on_table)
    if left:
        change_game(tx, f"{gone} left the table: no longer moving through {pending.cell}",
                    transit=replace(pending, counters=left))
        return
    change_game(tx, f"the transit through {pending.cell} is over: its movers ({gone}) left the table",
                transit=None)
    ini = tx.state.initiative
    if ini is not None and ini.awaiting == pending.mover and not ini.moved:
        change_game(tx, f"{pending.mover} has moved this go", initiative=replace(ini, moved=True))


def tidy_choices(tx: Tx[GodsfireState]) -> None:
    """Drop from the pending choices of the Combat Phase (losses, retreats: B) the counters no longer on the
    table (destroyed in another attack, taken off by the GM, given up by a box lowered by hand); a choice left
    with nothing is void, and losses with no more units than they take are taken at once (units, not counters:
    a box lowered by hand may leave a built-up counter on the table holding fewer units, A.2.5)."""
    state: GodsfireState = tx.state
    if not state.choices:
        return
    size = {c.number: c.size for c in state.counters}  # the counters on the table, and the units each holds
    kept: list[LossChoice] = []
    gone: list[int] = []
    notes: list[str] = []
    for choice in state.choices:
        left = [n for n in choice.counters if n in size and n not in gone]
        if not left:
            notes.append(f"{choice.reason.split(':')[0]}'s {choice.kind} is void: its units are gone")
        elif choice.kind == "losses" and sum(size[n] for n in dict.fromkeys(left)) <= choice.count:
            gone += left
            lost = ", ".join(short(state.counter(n)) for n in left)
            notes.append(f"{choice.reason.split(':')[0]}: {lost} lost (all that is left to choose from)")
        elif left == choice.counters:
            kept.append(choice)
        else:
            kept.append(replace(choice, counters=left))
    changed = [(c.kind, c.counters) for c in kept] != [(c.kind, c.counters) for c in state.choices]
    if notes or changed:
        counters = [c for c in copy_counters(state) if c.number not in gone]
        change_game(tx, "; ".join(notes) or "units no longer on the table are no longer among the choices",
                    choices=kept, counters=counters)
        sync(tx)


def tidy_pending(tx: Tx[GodsfireState]) -> None:
    """After counters left the table: the pending transit (A.2.3) and the pending losses and retreats (B) drop
    them (`tidy_transit`, `tidy_choices`). Whatever takes counters off the table calls it (the GM may take
    units off at any time, RULINGS: GM powers): nothing pending is left waiting on a counter that is gone."""
    tidy_choices(tx)
    tidy_transit(tx)


def copy_counters(state: GodsfireState) -> list[Counter]:
    return [Counter(**vars(c)) for c in state.counters]


def stacks_over(state: GodsfireState, rules: GodsfireRules) -> list[str]:
    """The players' stacks over the limits (per player and position: space 3, ground 6), in words. A neutral's
    are not counted (ruling: nobody moves a neutral's units in the Movement Phase, so its starting 3 SQD, 3 AG
    and 3 PDF in its system cell are the sheet's "overstack at start of game" and cannot be made to comply)."""
    over = []
    limits = {False: int(rules.stacking["space"]), True: int(rules.stacking["ground"])}
    seen: dict[tuple[str, str | None, bool], int] = {}
    for c in state.counters:
        if c.kind in FIGHTING and c.owner is not None:
            key = (c.at, c.owner, c.ground)
            seen[key] = seen.get(key, 0) + 1
    for (at, owner, ground), n in seen.items():
        if n > limits[ground]:
            over.append(f"{owner or 'neutral'} has {n} units at {at} ({'ground' if ground else 'space'} "
                        f"stacking: {limits[ground]} at most)")
    return over


# --- GM's hand on the table ----------------------------------------------------------------------


@dataclass
class AddCounters:
    kind: str
    at: str
    owner: str | None = None
    count: int = 1
    amount: int = 0


@dataclass
class RemoveCounters:
    counters: str
    reason: str = ""


@dataclass
class SetNeutralControl:
    system: str
    player: str


@handles(AddCounters)
def add_counters(tx: Tx[GodsfireState], action: AddCounters) -> None:
    """Put counters on the table (GM): any position, owned by a player or a neutral's."""
    require_gm(tx, "put counters on the table")
    kind = action.kind.strip().upper()
    if kind not in KINDS:
        raise BadInput(f"kind: one of {', '.join(KINDS)}")
    if not 1 <= action.count <= MAX_LISTED:
        raise BadInput(f"count: 1 to {MAX_LISTED}")
    owner = None
    if action.owner and action.owner.strip().lower() not in ("none", "neutral"):
        owner = tx.state.player(action.owner).name
    place = place_of(tx.state, action.at)
    if kind == "SQD" and place.ground:
        raise RuleViolation("the sheet (A.2.4): SQDs never go on the ground")
    if kind == "GB" and not 1 <= action.amount <= 1_000_000:
        raise BadInput("amount: the money the GB counter is, 1 or more")
    if kind in ("NG", "GB") and owner is None:
        raise BadInput(f"owner: a {kind} counter is a player's (a neutral has no {kind})")
    reconcile(tx)
    if kind == "NG":
        _require_no_government_counter(tx.state, owner, action.count)
    counters = copy_counters(tx.state)
    number = tx.state.next_counter
    for i in range(action.count):
        counters.append(Counter(number + i, kind, owner, place.at, place.ground, 0,
                                action.amount if kind == "GB" else 0))
    change_game(tx, f"the GM put {action.count} {kind} at {place.at}", counters=counters,
                next_counter=number + action.count)
    sync(tx)


def _require_no_government_counter(state: GodsfireState, owner: str | None, count: int) -> None:
    """A player has one NG counter, while in the game (the sheet: National Government)."""
    player = state.player(owner or "")
    if player.out:
        raise RuleViolation(f"{player.name} is out of the game: no National Government counter")
    has = next((c for c in state.counters if c.kind == "NG" and c.owner == player.name), None)
    if has is not None or count > 1:
        raise RuleViolation(f"a player has one NG counter{f' ({player.name} has NG #{has.number})' if has else ''}")


@handles(RemoveCounters)
def remove_counters(tx: Tx[GodsfireState], action: RemoveCounters) -> None:
    """Take counters off the table (GM)."""
    require_gm(tx, "take counters off the table")
    numbers = parse_numbers(action.counters)
    reconcile(tx)
    for n in numbers:
        tx.state.counter(n)
    kept = [c for c in copy_counters(tx.state) if c.number not in numbers]
    set_counters(tx, kept, f"the GM took off {', '.join(f'#{n}' for n in numbers)}"
                 + (f": {action.reason}" if action.reason else ""))
    tidy_pending(tx)


@handles(SetNeutralControl)
def set_neutral_control(tx: Tx[GodsfireState], action: SetNeutralControl) -> None:
    """Name the player who controls a neutral system's units (the sheet: neutrals are controlled by another
    player)."""
    require_gm(tx, "name who controls a neutral")
    system = tx.state.system(action.system)
    if system.owner is not None:
        raise RuleViolation(f"{system.name} is {system.owner}'s, not neutral")
    player = tx.state.player(action.player).name
    control = dict(tx.state.neutral_control)
    control[system.name] = player
    change_game(tx, f"{player} controls neutral {system.name}'s units", neutral_control=control)
