"""B.1 announcing an attack, and breaking it off: every attack of the Combat Phase is announced before any is
rolled (B: "All simultaneous; announce all attacks beforehand"). The rulings are in `engine.godsfire.combat`."""

from __future__ import annotations

import re

from engine.core import Tx
from engine.errors import BadInput, NotYourNation, RuleViolation
from engine.godsfire import table
from engine.godsfire.combat import (
    AnnounceAttack,
    CancelAttack,
    attack_words,
    broken_off,
    counter_numbers,
    find_attack,
    owner_words,
    place_at,
    same_name,
    side_words,
    strengths,
)
from engine.godsfire.common import acting_player, handles
from engine.godsfire.events import change_game
from engine.godsfire.phases import require_phase
from engine.godsfire.state import FIGHTING, MAX_ATTACKS, Attack, Counter, GodsfireState
from engine.names import name_key

# --- announcing ----------------------------------------------------------------------------------


def _names_list(raw: str | None) -> list[str]:
    return [w for w in re.split(r"[,;]+|\s+and\s+|\s+", raw or "") if w.strip()]


def _check_positions(state: GodsfireState, units: list[Counter], target: table.Place) -> None:
    """B.1.1 (one cell, not the target), B.2.2-4 (the ground), refusing what the sheet does not allow."""
    space: list[Counter] = []
    for c in units:
        where = place_at(state, c.at)
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
    if cells and state.board is not None and not target.ground and not state.board.touching(cells[0], target.at):
        raise RuleViolation(f"B.1.1: combat is between adjacent cells: {cells[0]} does not touch {target.at} on the "
                            "map")


@handles(AnnounceAttack)
def announce(tx: Tx[GodsfireState], action: AnnounceAttack) -> None:
    """Record an attack (B). Adjacency is the players' word (no map)."""
    require_phase(tx, "combat", "announcing an attack (B)")
    state: GodsfireState = tx.state
    done = [a for a in state.attacks if a.result]
    if done:
        raise RuleViolation(f"B: all attacks are announced before any is rolled; attack {done[0].number} is "
                            "already resolved this phase")
    player = acting_player(tx, action.player, "announce an attack")
    if len(state.attacks) >= MAX_ATTACKS:
        raise RuleViolation(f"a Combat Phase has at most {MAX_ATTACKS} attacks; {len(state.attacks)} are announced")
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
            whose = f"{c.owner}'s" if c.owner else (f"{owner_words(state, None, c.at)}'s, controlled by "
                                                    f"{side or 'nobody yet'}")
            raise NotYourNation(f"B.2.5: {table.short(c)} is {whose}; an attack uses the announcer's units, a "
                                "neutral's the announcer controls, or an ally's named in with:")
        taken = next((a for a in state.attacks if c.number in a.units), None)
        if taken is not None:
            raise RuleViolation(f"B: each unit attacks once a phase; {table.short(c)} is in attack {taken.number}")
    sides = {name_key(table.side_of(state, c) or "") for c in units}
    for ally_name in attackers[1:]:
        if name_key(ally_name) not in sides:
            raise BadInput(f"with: {ally_name} has no units in this attack (B.2.5: allies combine their forces)")
    _check_positions(state, units, target)
    friends = {c.owner for c in units}
    here = [c for c in state.counters_at(target.at) if c.kind in FIGHTING]
    if not target.ground and target.system is not None:  # B.1.5: the units on its ground defend a system cell
        for region in target.system.regions:
            here += [c for c in state.counters_at(f"{target.system.name} {region.number}") if c.kind in FIGHTING
                     and same_name(c.owner, target.system.owner)]
    controlled = [c for c in here if c.owner is None and None not in friends
                  and name_key(table.side_of(state, c) or "") in keys]
    enemies = [c for c in here if c.owner not in friends and c not in controlled]
    # a National Government is attacked with its side's units, or alone (the rulings: it is then destroyed)
    enemies += [c for c in state.counters_at(target.at) if c.kind == "NG" and c.owner not in friends
                and c.owner is not None and not any(e.owner == c.owner for e in enemies)]
    if not enemies:
        if controlled:
            raise RuleViolation(f"the sheet (Neutrals): the neutral units at {target.at} are controlled by "
                                f"{table.side_of(state, controlled[0])}, an attacker; the GM names another "
                                "controller first (/godsfire system control)")
        raise RuleViolation(f"B: an attack is on enemy units; {target.at} holds none of the attackers' enemies")
    owners = list(dict.fromkeys(c.owner for c in enemies))
    if len(owners) > 1:
        raise RuleViolation(f"B.2.5: players combine against a common foe; {target.at} holds units of "
                            f"{' and '.join(owner_words(state, o, target.at) for o in owners)}: one defender an "
                            "attack")
    defender = owners[0]
    if defender is not None:
        for attacker in attackers:
            if any(same_name(c.owner, attacker) for c in units) and not state.at_war(attacker, defender):
                raise RuleViolation(f"C: {attacker} is not at war with {defender} (war is declared in the Last "
                                    "Chance to Declare War phase)")
    nebula = bool(action.nebula)
    if state.board is not None:  # the map says (ruling: the cell attacked decides, B.1.2)
        if action.nebula:
            raise BadInput("the map says whether a combat is in a nebula: leave nebula: out")
        nebula = not target.ground and state.board.cell(target.at).nebula
    attack = Attack(state.next_attack, attackers, numbers, target.at, target.ground, defender, nebula=nebula)
    _, strength, _, _ = strengths(state, attack)
    if strength == 0:
        raise RuleViolation(f"B.1.3: a SQD has no effect on a planet: {counter_numbers(units)} would attack "
                            f"{target.at} with 0")
    where = ", ".join(dict.fromkeys(c.at for c in units))
    in_nebula = " in a nebula (both sides halved, B.1.2)" if attack.nebula else ""
    change_game(tx, f"{player.name} announces attack {attack.number}: {side_words(state, units)} from {where} "
                f"against {owner_words(state, defender, target.at)}'s units at {target.at}{in_nebula} (B: every "
                "attack is announced before any is rolled)",
                attacks=[*state.attacks, attack], next_attack=attack.number + 1)


@handles(CancelAttack)
def cancel(tx: Tx[GodsfireState], action: CancelAttack) -> None:
    """Break off an announced attack before it is resolved (its announcer or the GM)."""
    require_phase(tx, "combat", "breaking off an attack (B)")
    state: GodsfireState = tx.state
    attack = find_attack(state, action.number)
    if not tx.ctx.is_gm and not same_name(tx.ctx.actor, attack.attackers[0]):
        raise NotYourNation(f"attack {attack.number} is {attack.attackers[0]}'s: only they or the GM break it off")
    if attack.result:
        raise RuleViolation(f"B: attack {attack.number} is already resolved ({attack.result}); it cannot be "
                            "broken off")
    table.reconcile(tx)
    who = "the GM" if tx.ctx.is_gm and not same_name(tx.ctx.actor, attack.attackers[0]) else attack.attackers[0]
    why = f"{who} breaks off attack {attack.number} ({attack_words(tx.state, attack)})"
    change_game(tx, why, attacks=[a for a in tx.state.attacks if a.number != attack.number])
    broken_off(tx, attack, f"attack {attack.number} was broken off")
