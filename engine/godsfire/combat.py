"""B. The Combat Phase: its actions and commands, the strengths on the table, landing's checks (B.2.1-2), a
neutral's starting strength and the phase's end. Announcing and breaking off an attack are in
`engine.godsfire.attacks`; resolving the attacks, the losses, the retreats and the deadline's default for a choice
left unmade in `engine.godsfire.results`.

All attacks are announced before any is rolled (B: "All simultaneous; announce all attacks beforehand"). The
GM resolves them in the order announced. Every refusal names the sheet's rule and changes nothing.

Rulings (the sheet is silent, or the bot has no map):
- Adjacency is the players' word: the bot has no map, so "between adjacent cells" (B.1.1) is not checked.
  The attacking units must be in one cell (no splitting of forces), not the cell attacked. The exceptions
  B.2.2 allows: against a region (Sol 2) the units are on its ground or, AGs (and SQDs, which count
  nothing, B.1.3), in the system cell above it (Sol); against a system cell, AGs on the ground of its
  regions may join the units in one other cell. A PDF attacks only from a system cell or region (B.2.4).
- An attack on a player's units needs the attackers whose own units attack to be at war with that player
  (C: war is declared in the Last Chance to Declare War phase). A neutral's units are anybody's foe.
- Strengths are the house values (`GodsfireHouse.strength`): an AG is large when it or the target is on a
  system (cell or region), small otherwise (B.1.4); a SQD counts nothing against a region (B.1.3). The
  defence is the defending side's SQDs, AGs and PDFs at the target, and against a system cell also its units
  on the ground of that system's regions (B.1.5). In a nebula both sides are halved without rounding (B.1.2).
- Simultaneous: every attack's strengths are counted from the table as it stands when the GM resolves, before
  any result is applied; results then apply in order to the units still on the table.
- B.2.4 "PDFs don't take losses unless at least half the enemy is also on the ground" holds for every loss:
  the chart's 1, 2 (PDFs are not among the units to choose; with nothing to choose the loss is void) and
  E (the PDFs stay).
- A side's losses are chosen by the enemy (the key: "1, 2 = units lost (enemy's choice)"): the announcer
  for the defender's, the defending player (a neutral's: its controller, else the GM) for the attackers'.
  When the side has no more units than it must lose, they all go at once (there is nothing to choose).
- A retreat (r) moves every unit of the losing side in that attack to one position the loser names (units on
  the ground below a system cell attacked stay on their planet: the defender's counted in its defence, the
  attackers' AGs that attacked it from below): not the target, not
  where enemy units are, not where they all already are; a unit on the ground goes to its system cell or
  another region of the same system; a unit lands only from its system cell and as landing allows.
- The GM may make any pending choice for its chooser.
- A choice not made within the house's response time (`response_hours`) takes its default: losses, the
  first units listed; a retreat, for each unit: an attacker not in the cell attacked stays where it attacked
  from (it is already one cell away; the attack is over); a unit on the ground goes to its system cell, or
  else the first region of that system free of enemy units; a unit in a system cell lands on the first
  region of that system free of enemy units where landing is allowed; a unit the bot cannot place
  otherwise (it has no map) cannot retreat and is eliminated.
- "If the attack is broken off, neutrals go back to starting strength": when an attack on a neutral system's
  units is cancelled, or its attackers retreat (Ar), and no other attack of the phase still presses that
  system, the neutral's units at the system are brought back up to `rules.neutral_units` (3 SQD, 3 AG,
  3 PDF), the new counters in its system cell.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from engine.core import Tx
from engine.errors import BadInput
from engine.godsfire import charts, table
from engine.godsfire.common import RULESET
from engine.godsfire.events import change_game
from engine.godsfire.state import FIGHTING, Attack, Counter, GodsfireState, LossChoice, System
from engine.names import name_key
from engine.vocabulary import LIST, NUMBERS, TEXT, Command, Param

VOID = "void"  # an attack's result when, at resolution, one side has nothing left to fight with
MAX_REASON = 300  # a choice's reason (the export's limit)
KEY = "the key: 1, 2 = units lost (enemy's choice)"
NOT_PRESSING = ("Ar", "AE", VOID)  # results after which an attack no longer presses its target

# --- actions -------------------------------------------------------------------------------------


@dataclass
class AnnounceAttack:
    """B: announce an attack of these units on the units at `target` (allies named combine, B.2.5)."""

    units: str
    target: str
    allies: str | None = None  # `with:` — the players combining with the announcer
    nebula: bool = False
    player: str | None = None  # the GM: the player announcing


@dataclass
class CancelAttack:
    number: int


@dataclass
class ResolveAttacks:
    pass


@dataclass
class ChooseLosses:
    units: str
    number: int | None = None  # the attack whose losses are chosen


@dataclass
class Retreat:
    to: str
    number: int | None = None  # the attack whose retreat is made


# --- small helpers -------------------------------------------------------------------------------


def is_nebula(attack: Attack) -> bool:
    """Whether an attack was announced as in a nebula."""
    return attack.nebula


def choice_attack(choice: LossChoice) -> int | None:
    """The number of the attack a choice comes from."""
    return choice.attack or None


def same_name(a: str | None, b: str | None) -> bool:
    return (a is None and b is None) or (a is not None and b is not None and name_key(a) == name_key(b))


def system_at(state: GodsfireState, at: str) -> System | None:
    """The system a position is in (its cell or one of its regions), without refusing."""
    for system in state.systems:
        if at == system.name:
            return system
        rest = at[len(system.name):] if at.startswith(system.name + " ") else ""
        if rest.strip().isdecimal() and any(r.number == int(rest) for r in system.regions):
            return system
    return None


def place_at(state: GodsfireState, at: str) -> table.Place:
    try:
        return table.place_of(state, at)
    except Exception:  # a region since removed: an ordinary cell of that name
        return table.Place(at, False)


def foes_at(state: GodsfireState, at: str, owner: str | None) -> list[Counter]:
    """The fighting counters at `at` that are not `owner`'s."""
    return [c for c in state.counters_at(at) if c.kind in FIGHTING and not same_name(c.owner, owner)]


def owner_words(state: GodsfireState, owner: str | None, at: str) -> str:
    if owner is not None:
        return owner
    system = system_at(state, at)
    return f"neutral {system.name}" if system is not None else "a neutral"


def side_words(state: GodsfireState, counters: Iterable[Counter], taken: dict[int, int] | None = None) -> str:
    """`alice's AG #3, AG #4 and carol's SQD #9` (`nothing` when empty). `taken`: the units lost from each counter,
    where fewer than a built-up counter holds (`bob's 2 units of SQD #4 ×3`, A.2.5)."""
    groups: dict[str, list[str]] = {}
    for c in counters:
        k = (taken or {}).get(c.number, c.size)
        words = table.short(c) if k >= c.size else f"{k} unit{'s' if k > 1 else ''} of {table.short(c)}"
        groups.setdefault(owner_words(state, c.owner, c.at), []).append(words)
    if not groups:
        return "nothing"
    parts = [f"{who}'s {', '.join(units)}" for who, units in groups.items()]
    return parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]


def counter_numbers(counters: Iterable[Counter]) -> str:
    return ", ".join(table.short(c) for c in counters) or "none"


def defender_words(state: GodsfireState, attack: Attack) -> str:
    return owner_words(state, attack.defender, attack.target)


def attack_words(state: GodsfireState, attack: Attack) -> str:
    """`alice and carol against bob at Sol`."""
    return f"{' and '.join(attack.attackers)} against {defender_words(state, attack)} at {attack.target}"


def find_attack(state: GodsfireState, number: int) -> Attack:
    found = next((a for a in state.attacks if a.number == number), None)
    if found is None:
        listed = ", ".join(str(a.number) for a in state.attacks) or "none"
        raise BadInput(f"there is no attack {number} this phase (attacks: {listed})")
    return found


def _controller(state: GodsfireState, at: str) -> str | None:
    system = system_at(state, at)
    return state.neutral_control.get(system.name) if system is not None else None


def decider(state: GodsfireState, attack: Attack, side: str) -> str:
    """Who decides for a side of an attack: the announcer for the attackers ("A"); for the defender ("D") the
    defending player, or a neutral's controller, else the GM."""
    if side == "A":
        return attack.attackers[0]
    if attack.defender is not None:
        return attack.defender
    return _controller(state, attack.target) or state.gm


def reason_text(text: str) -> str:
    return text if len(text) <= MAX_REASON else text[:MAX_REASON - 1] + "…"


# --- strengths -----------------------------------------------------------------------------------


def unit_strength(state: GodsfireState, counter: Counter, target: table.Place) -> int:
    """A unit's strength in a combat at `target`: the house value; an AG large when it or the target is on a
    system (B.1.4); a SQD nothing against a planet (B.1.3)."""
    if counter.kind == "SQD" and target.ground:
        return 0
    on_system = target.system is not None or system_at(state, counter.at) is not None
    return int(state.house.strength(counter.kind, on_system)) * counter.size  # a built-up counter: its units


def defenders(state: GodsfireState, attack: Attack, by_place: dict[str, list[Counter]] | None = None,
              ) -> list[Counter]:
    """The defending side's fighting units in an attack: at the target, and against a system cell also on the
    ground of its regions (B.1.5). `by_place`: `state.counters_by_place()`, for many attacks at once."""
    target = place_at(state, attack.target)
    places = [target.at]
    if not target.ground and target.system is not None:
        places += [f"{target.system.name} {region.number}" for region in target.system.regions]
    places_by_key = by_place if by_place is not None else state.counters_by_place()
    return [c for at in places for c in places_by_key.get(name_key(at), [])
            if c.kind in FIGHTING and same_name(c.owner, attack.defender)]


def strengths(state: GodsfireState, attack: Attack, by_place: dict[str, list[Counter]] | None = None,
              ) -> tuple[list[Counter], int, list[Counter], int]:
    """The attacking units still on the table and their strength, the defending units and theirs (`by_place`:
    as `defenders`)."""
    target = place_at(state, attack.target)
    units = set(attack.units)
    attackers = [c for c in state.counters if c.number in units]
    defending = defenders(state, attack, by_place)
    return (attackers, sum(unit_strength(state, c, target) for c in attackers),
            defending, sum(unit_strength(state, c, target) for c in defending))


# --- breaking off, and a neutral's starting strength -----------------------------------------------


def _pressed(state: GodsfireState, system: System, leaving: int) -> bool:
    """Whether an attack of this phase other than `leaving` still presses the neutral `system`'s units."""
    return any(a.number != leaving and a.defender is None and system_at(state, a.target) is system
               and a.result not in NOT_PRESSING for a in state.attacks)


def restore_neutral(tx: Tx[GodsfireState], system: System, why: str) -> None:
    """The sheet (Neutrals): "If the attack is broken off, neutrals go back to starting strength" — the
    neutral's units at the system brought back up to `rules.neutral_units`, the new ones in its cell."""
    state: GodsfireState = tx.state
    if system.owner is not None:
        return
    counters = table.copy_counters(state)
    number = max([state.next_counter - 1, *(c.number for c in counters)]) + 1
    added = []
    for kind, want in tx.rules.neutral_units.items():
        have = table.units(c for c in counters
                           if c.owner is None and c.kind == kind and system_at(state, c.at) is system)
        for _ in range(int(want) - have):
            counters.append(Counter(number, kind, None, system.name, False))
            added.append(f"{kind} #{number}")
            number += 1
    if not added:
        return
    change_game(tx, f"{why}: neutral {system.name} goes back to its starting strength "
                f"({', '.join(f'{n} {k}' for k, n in tx.rules.neutral_units.items())}; the sheet, Neutrals): "
                f"{', '.join(added)} in {system.name}", counters=counters, next_counter=number)
    table.sync(tx)


def broken_off(tx: Tx[GodsfireState], attack: Attack, why: str) -> None:
    state: GodsfireState = tx.state
    system = system_at(state, attack.target)
    if attack.defender is None and system is not None and system.owner is None and not _pressed(
            state, system, attack.number):
        restore_neutral(tx, system, why)


def drop_choice(state: GodsfireState, choice: LossChoice) -> list[LossChoice]:
    return [c for c in state.choices if c is not choice]


# --- landing (B.2.1, B.2.2) -------------------------------------------------------------------------


def landing_allowed(state: GodsfireState, counter: Counter, place: table.Place) -> str | None:
    """None if `counter` may land on `place` (a region), else the refusal with its rule: SQDs never go on the
    ground (A.2.4); the system cell must be held, no enemy fighting units on it (B.2.1); only AGs land on a
    hostile planet, one owned by someone else or neutral (B.2.2)."""
    if not place.ground or place.system is None:
        return None
    system = place.system
    if counter.kind == "SQD":
        return f"A.2.4: SQDs never go on the ground ({table.short(counter)})"
    held = [c for c in state.counters_at(system.name) if c.kind != "GB" and not same_name(c.owner, counter.owner)]
    if held:  # an enemy National Government holds it too
        return (f"B.2.1: it is necessary to hold the system cell in order to land on a planet; "
                f"{table.label(held[0])} is on {system.name}")
    if not same_name(system.owner, counter.owner) and counter.kind != "AG":
        whose = f"{system.owner}'s" if system.owner else "neutral"
        return (f"B.2.2: only AGs can land on hostile planets; {system.name} is {whose} and {table.short(counter)} "
                "is not an AG")
    return None


# --- the phase's end ---------------------------------------------------------------------------------


def combat_left(state: GodsfireState) -> list[str]:
    """What keeps the Combat Phase open: attacks announced and unresolved, losses and retreats pending."""
    left = [f"attack {a.number} ({attack_words(state, a)}) is announced but not resolved (/godsfire combat "
            "resolve, or cancel it)" for a in state.attacks if not a.result]
    for choice in state.choices:
        what = (f"choose {choice.count} {'loss' if choice.count == 1 else 'losses'}" if choice.kind == "losses"
                else "name a retreat")
        left.append(f"{choice.chooser} must {what} for {choice.reason.split(':')[0]}")
    return left


def clear_combat(tx: Tx[GodsfireState]) -> None:
    """The Combat Phase ends: its attacks are cleared (numbers start at 1 again next phase)."""
    state: GodsfireState = tx.state
    if state.attacks or state.next_attack != 1:
        change_game(tx, "the Combat Phase is over: its attacks are cleared", attacks=[], next_attack=1)


def combat_lines(state: GodsfireState) -> list[str]:
    """The phase's attacks and pending choices in words, for a status view."""
    lines = []
    for a in state.attacks:
        units = counter_numbers(c for c in state.counters if c.number in a.units)
        head = f"attack {a.number}: {attack_words(state, a)} with {units}"
        if a.result == VOID:
            lines.append(f"{head}: void")
        elif a.result:
            lines.append(f"{head}: {charts.strength_text(a.attack)} against {charts.strength_text(a.defence)}, "
                         f"{a.column}, die {a.die}: {a.result}")
        else:
            lines.append(f"{head}: announced" + (" (in a nebula)" if is_nebula(a) else ""))
    for choice in state.choices:
        among = counter_numbers(c for c in state.counters if c.number in choice.counters)
        lines.append(f"pending: {choice.reason} — among {among}")
    return lines


# --- commands ------------------------------------------------------------------------------------

P = Param


def _flag(options: dict[str, Any], name: str) -> bool:
    return str(options.get(name, "false")).strip().lower() in ("true", "yes", "1")


_NUMBER = P("number", int, help="the attack's number (when you have several choices pending)", low=1, high=9999)
COMMANDS: tuple[Command, ...] = (
    Command("godsfire combat announce", "B: announce an attack; all are announced before any is rolled",
            (P("units", required=True, help='the attacking counters, e.g. "3 4" (all in one cell, B.1.1)',
               words=NUMBERS, complete="counters"),
             P("target", required=True, help="the position attacked: a cell (K12), a system (Sol) or region (Sol 2)",
               words=TEXT, complete="position"),
             P("with", help='allies combining against a common foe (B.2.5), e.g. "carol, dave"', words=LIST),
             P("nebula", bool, help="true: the combat is in a nebula (both sides halved, B.1.2)"),
             P("player", help="GM: the player announcing", complete="player")),
            action=lambda o: AnnounceAttack(o["units"], o["target"], o.get("with"), _flag(o, "nebula"),
                                            o.get("player")), ruleset=RULESET),
    Command("godsfire combat cancel", "B: break off an announced attack before it is resolved",
            (P("number", int, True, help="the attack's number", low=1, high=9999),),
            action=lambda o: CancelAttack(o["number"]), ruleset=RULESET),
    Command("godsfire combat resolve", "B: roll every announced attack, in order (GM)",
            action=lambda o: ResolveAttacks(), gm_only=True, ruleset=RULESET),
    Command("godsfire combat losses", "B: choose the units your enemy loses (the key: enemy's choice)",
            (P("units", required=True, help='the units lost, e.g. "5 6"', words=NUMBERS, complete="losses"), _NUMBER),
            action=lambda o: ChooseLosses(o["units"], o.get("number")), ruleset=RULESET),
    Command("godsfire combat retreat", "B: retreat your units after an r result, to a position one cell away",
            (P("to", required=True, help="where: a cell (K12), a system cell (Sol) or, from the ground, a region",
               words=TEXT, complete="position"),
             _NUMBER),
            action=lambda o: Retreat(o["to"], o.get("number")), ruleset=RULESET),
)
