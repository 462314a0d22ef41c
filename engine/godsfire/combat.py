"""B. The Combat Phase: attacks announced, then resolved together on the counters there; losses chosen by the
enemy, retreats made by the loser; the deadline's default for a choice left unmade; landing's checks (B.2.1-2).

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

import re
from collections.abc import Iterable
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from typing import Any

from engine import core
from engine.core import Tx, require_gm
from engine.errors import BadInput, NotYourNation, RuleViolation
from engine.godsfire import charts, table
from engine.godsfire.common import acting_player
from engine.godsfire.events import change_game
from engine.godsfire.phases import require_phase
from engine.godsfire.state import FIGHTING, Attack, Counter, GodsfireState, LossChoice, System
from engine.names import name_key
from engine.vocabulary import Command, Param

RULESET = "godsfire"
"""An unresolved attack's `column` while it is marked as in a nebula (the record has no field of its own for
it yet); resolving writes the odds' column there."""
VOID = "void"  # an attack's result when, at resolution, one side has nothing left to fight with
MAX_REASON = 300  # a choice's reason (the export's limit)
KEY = "the key: 1, 2 = units lost (enemy's choice)"
NOT_PRESSING = ("Ar", "AE", VOID)  # results after which an attack no longer presses its target


def handles(action_type: type) -> Any:
    return core.handles(action_type, RULESET)


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


def _same(a: str | None, b: str | None) -> bool:
    return (a is None and b is None) or (a is not None and b is not None and name_key(a) == name_key(b))


def _system_at(state: GodsfireState, at: str) -> System | None:
    """The system a position is in (its cell or one of its regions), without refusing."""
    for system in state.systems:
        if at == system.name:
            return system
        rest = at[len(system.name):] if at.startswith(system.name + " ") else ""
        if rest.strip().isdecimal() and any(r.number == int(rest) for r in system.regions):
            return system
    return None


def _place(state: GodsfireState, at: str) -> table.Place:
    try:
        return table.place_of(state, at)
    except Exception:  # a region since removed: an ordinary cell of that name
        return table.Place(at, False)


def _foes(state: GodsfireState, at: str, owner: str | None) -> list[Counter]:
    """The fighting counters at `at` that are not `owner`'s."""
    return [c for c in state.counters_at(at) if c.kind in FIGHTING and not _same(c.owner, owner)]


def _owner_words(state: GodsfireState, owner: str | None, at: str) -> str:
    if owner is not None:
        return owner
    system = _system_at(state, at)
    return f"neutral {system.name}" if system is not None else "a neutral"


def side_words(state: GodsfireState, counters: Iterable[Counter]) -> str:
    """`alice's AG #3, AG #4 and carol's SQD #9` (`nothing` when empty)."""
    groups: dict[str, list[str]] = {}
    for c in counters:
        groups.setdefault(_owner_words(state, c.owner, c.at), []).append(table.short(c))
    if not groups:
        return "nothing"
    parts = [f"{who}'s {', '.join(units)}" for who, units in groups.items()]
    return parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]


def _numbers(counters: Iterable[Counter]) -> str:
    return ", ".join(table.short(c) for c in counters) or "none"


def _defender_words(state: GodsfireState, attack: Attack) -> str:
    return _owner_words(state, attack.defender, attack.target)


def _attack_words(state: GodsfireState, attack: Attack) -> str:
    """`alice and carol against bob at Sol`."""
    return f"{' and '.join(attack.attackers)} against {_defender_words(state, attack)} at {attack.target}"


def _find_attack(state: GodsfireState, number: int) -> Attack:
    found = next((a for a in state.attacks if a.number == number), None)
    if found is None:
        listed = ", ".join(str(a.number) for a in state.attacks) or "none"
        raise BadInput(f"there is no attack {number} this phase (attacks: {listed})")
    return found


def _controller(state: GodsfireState, at: str) -> str | None:
    system = _system_at(state, at)
    return state.neutral_control.get(system.name) if system is not None else None


def _decider(state: GodsfireState, attack: Attack, side: str) -> str:
    """Who decides for a side of an attack: the announcer for the attackers ("A"); for the defender ("D") the
    defending player, or a neutral's controller, else the GM."""
    if side == "A":
        return attack.attackers[0]
    if attack.defender is not None:
        return attack.defender
    return _controller(state, attack.target) or state.gm


def _reason(text: str) -> str:
    return text if len(text) <= MAX_REASON else text[:MAX_REASON - 1] + "…"


# --- strengths -----------------------------------------------------------------------------------


def unit_strength(state: GodsfireState, counter: Counter, target: table.Place) -> int:
    """A unit's strength in a combat at `target`: the house value; an AG large when it or the target is on a
    system (B.1.4); a SQD nothing against a planet (B.1.3)."""
    if counter.kind == "SQD" and target.ground:
        return 0
    on_system = target.system is not None or _system_at(state, counter.at) is not None
    return int(state.house.strength(counter.kind, on_system))


def defenders(state: GodsfireState, attack: Attack) -> list[Counter]:
    """The defending side's fighting units in an attack: at the target, and against a system cell also on the
    ground of its regions (B.1.5)."""
    target = _place(state, attack.target)
    found = [c for c in state.counters_at(target.at) if c.kind in FIGHTING and _same(c.owner, attack.defender)]
    if not target.ground and target.system is not None:
        for region in target.system.regions:
            found += [c for c in state.counters_at(f"{target.system.name} {region.number}")
                      if c.kind in FIGHTING and _same(c.owner, attack.defender)]
    return found


def strengths(state: GodsfireState, attack: Attack) -> tuple[list[Counter], int, list[Counter], int]:
    """The attacking units still on the table and their strength, the defending units and theirs."""
    target = _place(state, attack.target)
    attackers = [c for c in state.counters if c.number in attack.units]
    defending = defenders(state, attack)
    return (attackers, sum(unit_strength(state, c, target) for c in attackers),
            defending, sum(unit_strength(state, c, target) for c in defending))


# --- announcing ----------------------------------------------------------------------------------


def _names_list(raw: str | None) -> list[str]:
    return [w for w in re.split(r"[,;]+|\s+and\s+|\s+", raw or "") if w.strip()]


def _check_positions(state: GodsfireState, units: list[Counter], target: table.Place) -> None:
    """B.1.1 (one cell, not the target), B.2.2-4 (the ground), refusing what the sheet does not allow."""
    space: list[Counter] = []
    for c in units:
        where = _place(state, c.at)
        if c.kind == "PDF" and where.system is None:
            raise RuleViolation(f"B.2.4: a PDF can only attack when on a system; {table.short(c)} is at {c.at}")
        if target.ground:
            assert target.system is not None
            if c.at == target.at:
                continue  # on the ground of the region attacked (B.2.3: combat within a region)
            if c.at == target.system.name and not c.ground:
                if c.kind == "PDF":
                    raise RuleViolation(f"B.2.2: from space only AGs attack units on the ground; {table.short(c)} "
                                        f"is in {c.at}")
                continue
            raise RuleViolation(f"B.2.3: on a planet combat occurs within a region: units attacking {target.at} are "
                                f"on its ground or, AGs, in {target.system.name}'s cell above it (B.2.2); "
                                f"{table.short(c)} is at {c.at}")
        if c.ground:
            if target.system is not None and where.system is target.system and c.kind == "AG":
                continue  # B.2.2: AGs on the ground can attack the system cell
            raise RuleViolation(f"B.2.2: AGs on the ground attack their system cell or units in their region; "
                                f"{table.short(c)} on {c.at} cannot attack {target.at}")
        space.append(c)
    cells = list(dict.fromkeys(c.at for c in space))
    if len(cells) > 1:
        raise RuleViolation(f"B.1.1: combat is cell-to-cell, no splitting of forces: the units are at "
                            f"{', '.join(cells)}; announce one attack from one cell")
    if cells and name_key(cells[0]) == name_key(target.at):
        raise RuleViolation(f"B.1.1: combat is between adjacent cells: the units are in {target.at} itself")


@handles(AnnounceAttack)
def announce(tx: Tx, action: AnnounceAttack) -> None:
    """Record an attack (B). Adjacency is the players' word (no map)."""
    require_phase(tx, "combat", "announcing an attack (B)")
    state: GodsfireState = tx.state
    done = [a for a in state.attacks if a.result]
    if done:
        raise RuleViolation(f"B: all attacks are announced before any is rolled; attack {done[0].number} is "
                            "already resolved this phase")
    player = acting_player(tx, action.player, "announce an attack")
    if player.out:
        raise RuleViolation(f"{player.name} is out of the game (the sheet: National Government lost)")
    attackers = [player.name]
    for raw in _names_list(action.allies):
        ally = state.player(raw)
        if ally.out:
            raise RuleViolation(f"{ally.name} is out of the game")
        if ally.name not in attackers:
            attackers.append(ally.name)
    numbers = table.parse_numbers(action.units, "units")
    target = table.place_of(state, action.target)
    table.reconcile(tx)
    state = tx.state
    units = [state.counter(n) for n in numbers]
    keys = {name_key(a) for a in attackers}
    for c in units:
        if c.kind not in FIGHTING:
            raise RuleViolation(f"B: only SQDs, AGs and PDFs fight; {table.label(c)} does not")
        side = table.side_of(state, c)
        if side is None or name_key(side) not in keys:
            whose = f"{c.owner}'s" if c.owner else (f"{_owner_words(state, None, c.at)}'s, controlled by "
                                                    f"{side or 'nobody yet'}")
            raise NotYourNation(f"B.2.5: {table.short(c)} is {whose}; an attack uses the announcer's units, a "
                                "neutral's the announcer controls, or an ally's named in with:")
        taken = next((a for a in state.attacks if c.number in a.units), None)
        if taken is not None:
            raise RuleViolation(f"B: each unit attacks once a phase; {table.short(c)} is in attack {taken.number}")
    sides = {name_key(table.side_of(state, c) or "") for c in units}
    for ally in attackers[1:]:
        if name_key(ally) not in sides:
            raise BadInput(f"with: {ally} has no units in this attack (B.2.5: allies combine their forces)")
    _check_positions(state, units, target)
    friends = {c.owner for c in units}
    here = [c for c in state.counters_at(target.at) if c.kind in FIGHTING]
    controlled = [c for c in here if c.owner is None and None not in friends
                  and name_key(table.side_of(state, c) or "") in keys]
    enemies = [c for c in here if c.owner not in friends and c not in controlled]
    if not enemies:
        if controlled:
            raise RuleViolation(f"the sheet (Neutrals): the neutral units at {target.at} are controlled by "
                                f"{table.side_of(state, controlled[0])}, an attacker; the GM names another "
                                "controller first (/godsfire neutral control)")
        raise RuleViolation(f"B: an attack is on enemy units; {target.at} holds none of the attackers' enemies")
    owners = list(dict.fromkeys(c.owner for c in enemies))
    if len(owners) > 1:
        raise RuleViolation(f"B.2.5: players combine against a common foe; {target.at} holds units of "
                            f"{' and '.join(_owner_words(state, o, target.at) for o in owners)}: one defender an "
                            "attack")
    defender = owners[0]
    if defender is not None:
        for attacker in attackers:
            if any(_same(c.owner, attacker) for c in units) and not state.at_war(attacker, defender):
                raise RuleViolation(f"C: {attacker} is not at war with {defender} (war is declared in the Last "
                                    "Chance to Declare War phase)")
    attack = Attack(state.next_attack, attackers, numbers, target.at, target.ground, defender,
                    nebula=bool(action.nebula))
    _, strength, _, _ = strengths(state, attack)
    if strength == 0:
        raise RuleViolation(f"B.1.3: a SQD has no effect on a planet: {_numbers(units)} would attack "
                            f"{target.at} with 0")
    where = ", ".join(dict.fromkeys(c.at for c in units))
    nebula = " in a nebula (both sides halved, B.1.2)" if action.nebula else ""
    change_game(tx, f"{player.name} announces attack {attack.number}: {side_words(state, units)} from {where} "
                f"against {_owner_words(state, defender, target.at)}'s units at {target.at}{nebula} (B: every "
                "attack is announced before any is rolled)",
                attacks=[*state.attacks, attack], next_attack=attack.number + 1)


# --- breaking off, and a neutral's starting strength -----------------------------------------------


def _pressed(state: GodsfireState, system: System, leaving: int) -> bool:
    """Whether an attack of this phase other than `leaving` still presses the neutral `system`'s units."""
    return any(a.number != leaving and a.defender is None and _system_at(state, a.target) is system
               and a.result not in NOT_PRESSING for a in state.attacks)


def restore_neutral(tx: Tx, system: System, why: str) -> None:
    """The sheet (Neutrals): "If the attack is broken off, neutrals go back to starting strength" — the
    neutral's units at the system brought back up to `rules.neutral_units`, the new ones in its cell."""
    state: GodsfireState = tx.state
    if system.owner is not None:
        return
    counters = table.copy_counters(state)
    number = max([state.next_counter - 1, *(c.number for c in counters)]) + 1
    added = []
    for kind, want in tx.rules.neutral_units.items():
        have = sum(1 for c in counters if c.owner is None and c.kind == kind and _system_at(state, c.at) is system)
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


def _broken_off(tx: Tx, attack: Attack, why: str) -> None:
    state: GodsfireState = tx.state
    system = _system_at(state, attack.target)
    if attack.defender is None and system is not None and system.owner is None and not _pressed(
            state, system, attack.number):
        restore_neutral(tx, system, why)


@handles(CancelAttack)
def cancel(tx: Tx, action: CancelAttack) -> None:
    """Break off an announced attack before it is resolved (its announcer or the GM)."""
    require_phase(tx, "combat", "breaking off an attack (B)")
    state: GodsfireState = tx.state
    attack = _find_attack(state, action.number)
    if not tx.ctx.is_gm and not _same(tx.ctx.actor, attack.attackers[0]):
        raise NotYourNation(f"attack {attack.number} is {attack.attackers[0]}'s: only they or the GM break it off")
    if attack.result:
        raise RuleViolation(f"B: attack {attack.number} is already resolved ({attack.result}); it cannot be "
                            "broken off")
    table.reconcile(tx)
    who = "the GM" if tx.ctx.is_gm and not _same(tx.ctx.actor, attack.attackers[0]) else attack.attackers[0]
    why = f"{who} breaks off attack {attack.number} ({_attack_words(tx.state, attack)})"
    change_game(tx, why, attacks=[a for a in tx.state.attacks if a.number != attack.number])
    _broken_off(tx, attack, f"attack {attack.number} was broken off")


# --- resolving -----------------------------------------------------------------------------------


@dataclass
class _Plan:
    attack: Attack
    attackers: list[Counter]
    strength: int
    defenders: list[Counter]
    defence: int


def _pdf_rule(losers: list[Counter], enemy: list[Counter]) -> tuple[list[Counter], list[Counter]]:
    """B.2.4: (the losers' PDFs spared, the losers that can take losses)."""
    ground = sum(1 for c in enemy if c.ground)
    if enemy and 2 * ground >= len(enemy):
        return [], losers
    return [c for c in losers if c.kind == "PDF"], [c for c in losers if c.kind != "PDF"]


PDF_RULE = "PDFs take no losses unless at least half the enemy is also on the ground (B.2.4)"


def _apply(tx: Tx, plan: _Plan, code: str, counters: list[Counter], choices: list[LossChoice]) -> str:
    """Apply a result to the working counters and choices; its words."""
    state: GodsfireState = tx.state
    attack = plan.attack
    if code == "ne":
        return "no effect"
    side, what = code[0], code[1:]
    on_table = {c.number for c in counters}
    losers = [c for c in (plan.attackers if side == "A" else plan.defenders) if c.number in on_table]
    enemy = plan.defenders if side == "A" else plan.attackers
    loser = " and ".join(attack.attackers) if side == "A" else _defender_words(state, attack)
    if not losers:
        return f"{loser} has no units left in it"
    if what == "r":
        at_target = [c for c in losers if name_key(c.at) == name_key(attack.target)]
        movers = [c for c in losers if not c.ground or c in at_target] if side == "A" else at_target
        if not movers:
            return f"{loser} has no units left at {attack.target} to retreat"
        chooser = _decider(state, attack, side)
        choices.append(LossChoice(chooser, "retreat", [c.number for c in movers], 0, _reason(
            f"attack {attack.number}: {loser} must retreat {_numbers(movers)} one cell (r = retreat); "
            f"{chooser} names where"), tx.ctx.now, attack.number))
        return f"{loser} retreats: {chooser} names where (/godsfire retreat to:<cell> number:{attack.number})"
    spared, takes = _pdf_rule(losers, enemy)
    spare = f"; {_numbers(spared)} stay: {PDF_RULE}" if spared else ""
    if what == "E" or (what.isdecimal() and 0 < len(takes) <= int(what)):
        gone = {c.number for c in takes}
        counters[:] = [c for c in counters if c.number not in gone]
        if what == "E":
            return f"{side_words(state, takes) if takes else 'nothing'} eliminated{spare}"
        return f"{side_words(state, takes)} lost (all that can be lost){spare}"
    if what.isdecimal():
        if not takes:
            return f"the loss is void: {loser} has only PDFs there, and {PDF_RULE}"
        chooser = _decider(state, attack, "D" if side == "A" else "A")
        count = int(what)
        choices.append(LossChoice(chooser, "losses", [c.number for c in takes], count, _reason(
            f"attack {attack.number}: {loser} loses {count}, {chooser} chooses ({KEY})"), tx.ctx.now, attack.number))
        return (f"{chooser} chooses {count} of {side_words(state, takes)} to lose (/godsfire losses choose "
                f"units:<n> number:{attack.number}){spare}")
    return code


def _resolve_one(tx: Tx, plan: _Plan) -> None:
    state: GodsfireState = tx.state
    attack = plan.attack
    nebula = is_nebula(attack)
    target = attack.target
    head = (f"attack {attack.number}: {side_words(state, plan.attackers)} ({plan.strength}) against "
            f"{side_words(state, plan.defenders)} at {target} ({plan.defence})" + (" in a nebula" if nebula else ""))
    if plan.strength == 0 or plan.defence == 0:
        missing = "the attackers" if plan.strength == 0 else "the defenders"
        done = replace(attack, result=VOID, column="", die=0, attack=plan.strength, defence=plan.defence)
        change_game(tx, f"{head}: void — {missing} have nothing left to fight with there",
                    attacks=[done if a.number == attack.number else a for a in state.attacks])
        return
    read = charts.read_combat(tx, plan.strength, plan.defence, nebula,
                              f"attack {attack.number}: {_attack_words(state, attack)}", attack.attackers[0],
                              f"attack {attack.number} ({_attack_words(state, attack)}): ")
    state = tx.state
    counters = table.copy_counters(state)
    choices = list(state.choices)
    words = _apply(tx, plan, read.result, counters, choices)
    done = replace(attack, result=read.result, column=read.column, die=read.die, attack=plan.strength,
                   defence=plan.defence)
    change_game(tx, f"{head}: {read.column}, die {read.die}: {read.result} — {words}",
                attacks=[done if a.number == attack.number else a for a in state.attacks], choices=choices,
                counters=counters)
    table.sync(tx)


def _tidy_choices(tx: Tx) -> None:
    """Drop from the pending choices the counters no longer on the table; a choice left with nothing is void,
    and losses with no more units than they take are taken at once."""
    state: GodsfireState = tx.state
    on_table = {c.number for c in state.counters}
    kept: list[LossChoice] = []
    gone: list[int] = []
    notes: list[str] = []
    for choice in state.choices:
        left = [n for n in choice.counters if n in on_table and n not in gone]
        if left == choice.counters:
            kept.append(choice)
        elif not left:
            notes.append(f"{choice.reason.split(':')[0]}'s {choice.kind} is void: its units are gone")
        elif choice.kind == "losses" and len(left) <= choice.count:
            gone += left
            notes.append(f"{choice.reason.split(':')[0]}: {_numbers(state.counter(n) for n in left)} lost (all that "
                         "is left to choose from)")
        else:
            kept.append(replace(choice, counters=left))
    changed = [(c.kind, c.counters) for c in kept] != [(c.kind, c.counters) for c in state.choices]
    if notes or changed:
        counters = [c for c in table.copy_counters(state) if c.number not in gone]
        change_game(tx, "; ".join(notes) or "units no longer on the table are no longer among the choices",
                    choices=kept, counters=counters)
        table.sync(tx)


@handles(ResolveAttacks)
def resolve(tx: Tx, action: ResolveAttacks) -> None:
    """Roll every announced attack in order (the GM): strengths counted first for all (simultaneous)."""
    require_gm(tx, "resolve the attacks")
    require_phase(tx, "combat", "resolving the attacks (B)")
    if not [a for a in tx.state.attacks if not a.result]:
        raise RuleViolation("B: no attack is announced and unresolved (/godsfire attack announce)")
    table.reconcile(tx)
    state: GodsfireState = tx.state
    plans = []
    for attack in state.attacks:
        if not attack.result:
            attackers, strength, defending, defence = strengths(state, attack)
            plans.append(_Plan(attack, attackers, strength, defending, defence))
    for plan in plans:
        _resolve_one(tx, plan)
    _tidy_choices(tx)


# --- losses and retreats ---------------------------------------------------------------------------


def _find_choice(tx: Tx, kind: str, number: int | None) -> LossChoice:
    state: GodsfireState = tx.state
    mine = [c for c in state.choices if c.kind == kind]
    if number is not None:
        found = next((c for c in mine if choice_attack(c) == number), None)
        if found is None:
            raise BadInput(f"attack {number} has no {'losses to choose' if kind == 'losses' else 'retreat'} "
                           f"pending{_pending_words(mine)}")
    else:
        own = [c for c in mine if _same(c.chooser, tx.ctx.actor)] or (mine if tx.ctx.is_gm else [])
        if len(own) != 1:
            what = "losses to choose" if kind == "losses" else "retreat to make"
            if not own:
                if mine:
                    raise NotYourNation(_wrong_chooser(mine[0]))
                raise BadInput(f"there is no {what} pending")
            raise BadInput(f"several {what}: name the attack (number:){_pending_words(own)}")
        found = own[0]
    if not tx.ctx.is_gm and not _same(found.chooser, tx.ctx.actor):
        raise NotYourNation(_wrong_chooser(found))
    return found


def _wrong_chooser(choice: LossChoice) -> str:
    label = choice.reason.split(":")[0]
    if choice.kind == "losses":
        return f"B: losses are chosen by the enemy ({KEY}); {label}'s are {choice.chooser}'s to choose (or the GM's)"
    return f"B: a retreat is made by the side that lost (r = retreat); {label}'s is {choice.chooser}'s (or the GM's)"


def _pending_words(choices: list[LossChoice]) -> str:
    numbers = [str(choice_attack(c)) for c in choices]
    return f" (pending: attack {', '.join(numbers)})" if numbers else ""


def _drop_choice(state: GodsfireState, choice: LossChoice) -> list[LossChoice]:
    return [c for c in state.choices if c is not choice]


@handles(ChooseLosses)
def choose_losses(tx: Tx, action: ChooseLosses) -> None:
    """The enemy picks exactly the units lost among those listed (the key: enemy's choice)."""
    choice = _find_choice(tx, "losses", action.number)
    numbers = table.parse_numbers(action.units, "units")
    table.reconcile(tx)
    state: GodsfireState = tx.state
    on_table = {c.number for c in state.counters}
    among = [n for n in choice.counters if n in on_table]
    count = min(choice.count, len(among))
    wrong = [n for n in numbers if n not in among]
    listed = _numbers(state.counter(n) for n in among)
    if wrong:
        raise RuleViolation(f"B: #{wrong[0]} is not among the units that can be lost ({listed}; {PDF_RULE})")
    if len(numbers) != count:
        raise BadInput(f"choose exactly {count} of {listed}, not {len(numbers)}")
    lost = [state.counter(n) for n in numbers]
    who = "the GM" if tx.ctx.is_gm and not _same(tx.ctx.actor, choice.chooser) else choice.chooser
    counters = [c for c in table.copy_counters(state) if c.number not in numbers]
    change_game(tx, f"{choice.reason.split(':')[0]}: {who} chooses the losses ({KEY}): {side_words(state, lost)} "
                "eliminated", choices=_drop_choice(state, choice), counters=counters)
    table.sync(tx)
    _tidy_choices(tx)


def retreat_refusal(state: GodsfireState, units: list[Counter], dest: table.Place, target: str) -> str | None:
    """Why units may not retreat to `dest` from an attack on `target` (None: they may)."""
    if name_key(dest.at) == name_key(target):
        return f"r = retreat: the units leave {target}, the position attacked"
    owners = {c.owner for c in units}
    foes = [c for c in state.counters_at(dest.at) if c.kind in FIGHTING and c.owner not in owners]
    if foes:
        return f"r = retreat: not into enemy units; {table.label(foes[0])} is there"
    if all(name_key(c.at) == name_key(dest.at) for c in units):
        return f"r = retreat: the units are already at {dest.at}; a retreat moves them one cell away"
    for c in units:
        where = _place(state, c.at)
        if dest.ground:
            assert dest.system is not None
            if c.kind == "SQD":
                return f"A.2.4: SQDs never go on the ground ({table.short(c)} retreats with them: name a cell)"
            if c.ground:
                if where.system is not dest.system:
                    return (f"a unit on the ground retreats to its system cell or another region of its system "
                            f"(ground movement); {table.short(c)} is on {c.at}")
            elif name_key(c.at) == name_key(dest.system.name):
                refusal = landing_allowed(state, c, dest)
                if refusal:
                    return refusal
            elif name_key(c.at) != name_key(dest.at):
                return f"B.2.1: units land from the system cell; {table.short(c)} is at {c.at}"
        elif c.ground and (where.system is None or name_key(dest.at) != name_key(where.system.name)):
            return (f"a unit on the ground retreats to its system cell ({where.system.name if where.system else '?'}) "
                    f"or another region of it; {table.short(c)} is on {c.at}")
    return None


def _move(counters: list[Counter], numbers: Iterable[int], at: str, ground: bool) -> None:
    wanted = set(numbers)
    for c in counters:
        if c.number in wanted:
            c.at, c.ground = at, ground


def _after_retreat(tx: Tx, choice: LossChoice) -> None:
    """A retreat made: the attackers' (Ar) breaks the attack off (a neutral back to starting strength)."""
    number = choice_attack(choice)
    attack = next((a for a in tx.state.attacks if a.number == number), None)
    if attack is not None and attack.result == "Ar":
        _broken_off(tx, attack, f"the attackers of attack {attack.number} retreated")
    _tidy_choices(tx)


@handles(Retreat)
def retreat(tx: Tx, action: Retreat) -> None:
    """The loser moves all its units of that attack to a position one step away (the bot cannot check the
    step: no map)."""
    choice = _find_choice(tx, "retreat", action.number)
    dest = table.place_of(tx.state, action.to)
    table.reconcile(tx)
    state: GodsfireState = tx.state
    number = choice_attack(choice)
    attack = next((a for a in state.attacks if a.number == number), None)
    units = [c for c in state.counters if c.number in choice.counters]
    refusal = retreat_refusal(state, units, dest, attack.target if attack else "")
    if refusal:
        raise RuleViolation(refusal)
    who = "the GM" if tx.ctx.is_gm and not _same(tx.ctx.actor, choice.chooser) else choice.chooser
    counters = table.copy_counters(state)
    _move(counters, choice.counters, dest.at, dest.ground)
    change_game(tx, f"{choice.reason.split(':')[0]}: {who} retreats {side_words(state, units)} to {dest.at} "
                "(r = retreat)", choices=_drop_choice(state, choice), counters=counters)
    table.sync(tx)
    _after_retreat(tx, choice)


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
    held = _foes(state, system.name, counter.owner)
    if held:
        return (f"B.2.1: it is necessary to hold the system cell in order to land on a planet; "
                f"{table.label(held[0])} is on {system.name}")
    if not _same(system.owner, counter.owner) and counter.kind != "AG":
        whose = f"{system.owner}'s" if system.owner else "neutral"
        return (f"B.2.2: only AGs can land on hostile planets; {system.name} is {whose} and {table.short(counter)} "
                "is not an AG")
    return None


# --- the deadline's default ------------------------------------------------------------------------


def choice_deadlines(state: GodsfireState) -> list[tuple[datetime, LossChoice]]:
    """When each pending choice's default applies (its start + the house's response hours), earliest first."""
    hours = float(state.house.response_hours)
    found = [(c.since + timedelta(hours=hours), c) for c in state.choices if c.since is not None]
    return sorted(found, key=lambda pair: pair[0])


def _free_region(state: GodsfireState, system: System, counter: Counter, landing: bool) -> str | None:
    for region in system.regions:
        at = f"{system.name} {region.number}"
        if name_key(at) == name_key(counter.at) or _foes(state, at, counter.owner):
            continue
        if landing and landing_allowed(state, counter, table.Place(at, True, system, region.number)):
            continue
        return at
    return None


def default_retreat(state: GodsfireState, counter: Counter, target: str) -> tuple[str, bool] | None:
    """Where a unit goes when its retreat is not named in time (position, ground), or None: eliminated."""
    if name_key(counter.at) != name_key(target):
        return counter.at, counter.ground  # an attacker not in the cell attacked: already a cell away
    system = _system_at(state, counter.at)
    if system is None:
        return None  # no map: no cell the bot can name
    if counter.ground:
        if not _foes(state, system.name, counter.owner):
            return system.name, False
        region = _free_region(state, system, counter, landing=False)
        return (region, True) if region else None
    if counter.kind == "SQD":
        return None
    region = _free_region(state, system, counter, landing=True)
    return (region, True) if region else None


def _default(tx: Tx, choice: LossChoice) -> None:
    state: GodsfireState = tx.state
    label = choice.reason.split(":")[0]
    late = f"{label}: {choice.chooser} did not choose within {state.house.response_hours:g} hours"
    on_table = [c for c in state.counters if c.number in choice.counters]
    rest = [c for c in state.choices if c is not choice]
    counters = table.copy_counters(state)
    if choice.kind == "losses":
        lost = on_table[:choice.count]
        counters = [c for c in counters if c.number not in {x.number for x in lost}]
        change_game(tx, f"{late}: the first listed are lost ({KEY}): {side_words(state, lost)}",
                    choices=rest, counters=counters)
        table.sync(tx)
        _tidy_choices(tx)
        return
    number = choice_attack(choice)
    attack = next((a for a in state.attacks if a.number == number), None)
    target = attack.target if attack else ""
    moves: list[str] = []
    lost: list[Counter] = []
    for c in on_table:
        goes = default_retreat(state, c, target)
        if goes is None:
            lost.append(c)
        elif goes != (c.at, c.ground):
            _move(counters, [c.number], *goes)
            moves.append(f"{table.short(c)} to {goes[0]}")
        else:
            moves.append(f"{table.short(c)} stays at {c.at}")
    counters = [c for c in counters if c.number not in {x.number for x in lost}]
    words = "; ".join(moves)
    if lost:
        words += ("; " if words else "") + (f"{_numbers(lost)} cannot retreat without a cell named (the bot has "
                                            "no map) and " + ("is" if len(lost) == 1 else "are") + " eliminated")
    change_game(tx, f"{late}: the default retreat (r = retreat): {words}", choices=rest, counters=counters)
    table.sync(tx)
    _after_retreat(tx, choice)


def choice_defaults(tx: Tx, now: datetime) -> None:
    """Every choice whose time is up by `now` takes its default (see the module's rulings)."""
    table.reconcile(tx)
    for due, choice in choice_deadlines(tx.state):
        if due > now:
            break
        current = next((c for c in tx.state.choices if c.reason == choice.reason and c.kind == choice.kind
                        and c.chooser == choice.chooser), None)
        if current is not None:
            _default(tx, current)


# --- the phase's end ---------------------------------------------------------------------------------


def combat_left(state: GodsfireState) -> list[str]:
    """What keeps the Combat Phase open: attacks announced and unresolved, losses and retreats pending."""
    left = [f"attack {a.number} ({_attack_words(state, a)}) is announced but not resolved (/godsfire attack "
            "resolve, or cancel it)" for a in state.attacks if not a.result]
    for choice in state.choices:
        what = (f"choose {choice.count} {'loss' if choice.count == 1 else 'losses'}" if choice.kind == "losses"
                else "name a retreat")
        left.append(f"{choice.chooser} must {what} for {choice.reason.split(':')[0]}")
    return left


def clear_combat(tx: Tx) -> None:
    """The Combat Phase ends: its attacks are cleared (numbers start at 1 again next phase)."""
    state: GodsfireState = tx.state
    if state.attacks or state.next_attack != 1:
        change_game(tx, "the Combat Phase is over: its attacks are cleared", attacks=[], next_attack=1)


def combat_lines(state: GodsfireState) -> list[str]:
    """The phase's attacks and pending choices in words, for a status view."""
    lines = []
    for a in state.attacks:
        units = _numbers(c for c in state.counters if c.number in a.units)
        head = f"attack {a.number}: {_attack_words(state, a)} with {units}"
        if a.result == VOID:
            lines.append(f"{head}: void")
        elif a.result:
            lines.append(f"{head}: {charts.strength_text(a.attack)} against {charts.strength_text(a.defence)}, "
                         f"{a.column}, die {a.die}: {a.result}")
        else:
            lines.append(f"{head}: announced" + (" (in a nebula)" if is_nebula(a) else ""))
    for choice in state.choices:
        among = _numbers(c for c in state.counters if c.number in choice.counters)
        lines.append(f"pending: {choice.reason} — among {among}")
    return lines


# --- commands ------------------------------------------------------------------------------------

P = Param
TRUE = ("true", "false")


def _flag(options: dict[str, Any], name: str) -> bool:
    return str(options.get(name, "false")).strip().lower() in ("true", "yes", "1")


_NUMBER = P("number", int, help="the attack's number (when you have several choices pending)")
COMMANDS: tuple[Command, ...] = (
    Command("godsfire attack announce", "B: announce an attack; all are announced before any is rolled",
            (P("units", required=True, help='the attacking counters, e.g. "3 4" (all in one cell, B.1.1)'),
             P("target", required=True, help="the position attacked: a cell (K12), a system (Sol) or region (Sol 2)"),
             P("with", help='allies combining against a common foe (B.2.5), e.g. "carol, dave"'),
             P("nebula", choices=TRUE, help="true: the combat is in a nebula (both sides halved, B.1.2)"),
             P("player", help="GM: the player announcing")),
            action=lambda o: AnnounceAttack(o["units"], o["target"], o.get("with"), _flag(o, "nebula"),
                                            o.get("player")), ruleset=RULESET),
    Command("godsfire attack cancel", "B: break off an announced attack before it is resolved",
            (P("number", int, True, help="the attack's number"),),
            action=lambda o: CancelAttack(o["number"]), ruleset=RULESET),
    Command("godsfire attack resolve", "B: roll every announced attack, in order (GM)",
            action=lambda o: ResolveAttacks(), gm_only=True, ruleset=RULESET),
    Command("godsfire losses choose", "B: choose the units your enemy loses (the key: enemy's choice)",
            (P("units", required=True, help='the units lost, e.g. "5 6"'), _NUMBER),
            action=lambda o: ChooseLosses(o["units"], o.get("number")), ruleset=RULESET),
    Command("godsfire retreat", "B: retreat your units after an r result, to a position one cell away",
            (P("to", required=True, help="where: a cell (K12), a system cell (Sol) or, from the ground, a region"),
             _NUMBER),
            action=lambda o: Retreat(o["to"], o.get("number")), ruleset=RULESET),
)
