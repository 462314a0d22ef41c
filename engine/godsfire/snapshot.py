"""A Godsfire game's state as the export format's plain dict (what `/gm export` writes), and back."""

from __future__ import annotations

import copy
from dataclasses import fields
from datetime import datetime
from typing import Any

from engine.godsfire import schema
from engine.godsfire.events import from_plain, system_from_dict, system_to_dict, to_plain
from engine.godsfire.rules import ECONOMY, PARTIES, UNIT_TYPES, GodsfireHouse
from engine.godsfire.state import KINDS, PHASES, STEPS, GodsfireState, Player
from engine.names import name_key
from engine.rulesets import register_schema

register_schema("godsfire", schema.validate_export)  # imports are checked by it before `state_from_dict`

LEVELS = (0, 5)  # allegiance levels a region or a national government can hold (0: in revolt)


PROCEDURE = ("counters", "next_counter", "initiative", "transit", "attacks", "next_attack", "choices",
             "shipments", "neutral_control", "victory", "victory_turns", "winner")
"""The game's fields the refereed procedure adds (the table, initiative, combat, money in transit, victory)."""


def state_to_dict(state: GodsfireState) -> dict[str, Any]:
    """`{"game": {...}, "players": [...], "systems": [...]}` — the export format without its rolls."""
    return {
        "game": {
            "ruleset": state.ruleset, "gm": state.gm, "started_at": state.started_at.isoformat(),
            "ended": state.ended, "turn": state.turn, "phase": state.phase,
            "forced_dice": list(state.forced_dice), "house": state.house.as_dict(),
            "wars": [list(pair) for pair in state.wars], "order": list(state.order),
            "done": {name: list(steps) for name, steps in state.done.items()},
            **{key: to_plain(getattr(state, key)) for key in PROCEDURE},
        },
        "players": [{f.name: copy.deepcopy(getattr(p, f.name)) for f in fields(Player)} for p in state.players],
        "systems": [system_to_dict(s) for s in state.systems],
    }


def roll_to_dict(roll: dict[str, Any]) -> dict[str, Any]:
    """A ledger row as the export writes it: a d6 also gives its `faces` (the export's contract: each roll's
    purpose, faces and whether it was entered by the GM)."""
    return {**roll, "faces": [str(roll["die"])]} if "die" in roll else roll


def state_from_dict(data: dict[str, Any]) -> GodsfireState:
    """The inverse of `state_to_dict` (malformed data raises KeyError, TypeError or ValueError)."""
    game = data["game"]
    if game.get("ruleset") != "godsfire":
        raise ValueError(f"not a Godsfire game: ruleset {game.get('ruleset')!r}")
    state = GodsfireState(
        gm=str(game.get("gm", "gm")), house=GodsfireHouse(**game.get("house", {})),
        started_at=datetime.fromisoformat(game["started_at"]), ended=bool(game.get("ended", False)),
        forced_dice=[int(v) for v in game.get("forced_dice", [])], turn=int(game.get("turn", 1)),
        phase=str(game.get("phase", "movement")),
        wars=[[str(a), str(b)] for a, b in game.get("wars", [])],
        order=[str(name) for name in game.get("order", [])],
        done={str(name): [str(s) for s in steps] for name, steps in game.get("done", {}).items()},
    )
    for key in PROCEDURE:
        if key in game:
            setattr(state, key, from_plain(key, game[key]))
    known = {f.name for f in fields(Player)}
    for raw in data.get("players", []):
        state.players.append(Player(**{k: copy.deepcopy(v) for k, v in raw.items() if k in known}))
    state.systems = [system_from_dict(raw) for raw in data.get("systems", [])]
    return state


def _level_ok(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and LEVELS[0] <= value <= LEVELS[1]


def check_state(state: GodsfireState, rules: Any) -> list[str]:
    """What in an imported state breaks the rules; empty when all is well."""
    problems: list[str] = []
    if state.phase not in PHASES:
        problems.append(f"unknown phase {state.phase!r} (phases: {', '.join(PHASES)})")
    if state.turn < 1:
        problems.append(f"turn {state.turn} is before turn 1")
    if any(not 1 <= d <= 6 for d in state.forced_dice):
        problems.append(f"entered dice {state.forced_dice} are not all d6 faces")
    player_keys = [name_key(p.name) for p in state.players]
    if len(player_keys) != len(set(player_keys)):
        problems.append("two players share a name")
    system_keys = [name_key(s.name) for s in state.systems]
    if len(system_keys) != len(set(system_keys)):
        problems.append("two systems share a name")
    for player in state.players:
        if player.government is not None:
            system = state.find_system(player.government)
            if system is None:
                problems.append(f"{player.name}'s National Government is on {player.government!r}, no system")
            elif system.owner is None or name_key(system.owner) != name_key(player.name):
                problems.append(f"{player.name}'s National Government is on {system.name}, not one of theirs")
        if set(player.national_allegiance) - set(PARTIES):
            problems.append(f"{player.name}: national allegiances are by party {', '.join(PARTIES)}")
        if not all(_level_ok(v) for v in player.national_allegiance.values()):
            problems.append(f"{player.name}: a national allegiance is outside 0..5")
        if player.ng_money < 0 or player.in_transit < 0:
            problems.append(f"{player.name}: negative money")
    for system in state.systems:
        where = system.name
        if system.owner is not None and state.find_player(system.owner) is None:
            problems.append(f"{where} is owned by {system.owner!r}, who is not a player")
        if system.planets < 1:
            problems.append(f"{where} has {system.planets} planets")
        if system.bank < 0 or system.enemy_units < 0:
            problems.append(f"{where}: a negative bank or count")
        if set(system.units) - set(UNIT_TYPES) or any(v < 0 for v in system.units.values()):
            problems.append(f"{where}: units are counts of {', '.join(UNIT_TYPES)}")
        numbers = [r.number for r in system.regions]
        if len(numbers) != len(set(numbers)) or any(n < 1 for n in numbers):
            problems.append(f"{where}: region numbers must be distinct, from 1")
        for loan in system.loans:
            if loan.amount < 1 or loan.box < 0:
                problems.append(f"{where}: a loan of {loan.amount} at box {loan.box}")
        for region in system.regions:
            at = f"{where} region {region.number}"
            if region.party not in PARTIES:
                problems.append(f"{at}: unknown party {region.party!r}")
            if not _level_ok(region.allegiance):
                problems.append(f"{at}: allegiance {region.allegiance} is outside 0..5")
            if region.economy not in ECONOMY:
                problems.append(f"{at}: unknown economy level {region.economy!r}")
            if set(region.units) - set(UNIT_TYPES) or any(v < 0 for v in region.units.values()):
                problems.append(f"{at}: units are counts of {', '.join(UNIT_TYPES)}")
            counts = [region.enemy_units, region.desubversion, region.counter_subversion, region.bought,
                      region.spent, *region.subversion.values(), *region.subversion_step.values()]
            if any(v < 0 for v in counts):
                problems.append(f"{at}: a negative count")
            for name in [*region.subversion, *region.subversion_step]:
                if state.find_player(name) is None:
                    problems.append(f"{at}: subversion by {name!r}, who is not a player")
    for pair in state.wars:
        if len(pair) != 2 or any(state.find_player(name) is None for name in pair):
            problems.append(f"a war between {pair}, not two players")
    for name in [*state.order, *state.done]:
        if state.find_player(name) is None:
            problems.append(f"the interphase names {name!r}, who is not a player")
    for name, steps in state.done.items():
        if set(steps) - set(STEPS):
            problems.append(f"{name}: unknown interphase steps {sorted(set(steps) - set(STEPS))}")
    problems += _procedure_problems(state)
    return problems


def _procedure_problems(state: GodsfireState) -> list[str]:
    """What in the refereed procedure (counters, initiative, transit, attacks, choices, shipments) names a player,
    system or counter the game does not have."""
    problems: list[str] = []

    def player_ok(name: str | None, what: str, gm: bool = False) -> None:
        if name is not None and state.find_player(name) is None and not (gm and name_key(name) == name_key(state.gm)):
            problems.append(f"{what} names {name!r}, who is not a player")

    numbers = [c.number for c in state.counters]
    if len(numbers) != len(set(numbers)) or any(not 1 <= n < state.next_counter for n in numbers):
        problems.append(f"counter numbers must be distinct, from 1 and below next_counter {state.next_counter}")
    for counter in state.counters:
        player_ok(counter.owner, f"counter #{counter.number}")
        if counter.kind not in KINDS:
            problems.append(f"counter #{counter.number}: unknown kind {counter.kind!r} ({', '.join(KINDS)})")
        elif (counter.kind == "GB") != (counter.amount > 0):
            problems.append(f"counter #{counter.number}: a GB counter carries 1 GB or more, and only a GB counter")
    on_table = set(numbers)
    if state.initiative is not None:
        player_ok(state.initiative.holder, "initiative")
        player_ok(state.initiative.awaiting, "initiative")
    if state.transit is not None:
        player_ok(state.transit.mover, "the transit")
        player_ok(state.transit.stationary, "the transit")
        if set(state.transit.counters) - on_table:
            problems.append("the transit moves counters not on the table")
    attack_numbers = [a.number for a in state.attacks]
    if len(attack_numbers) != len(set(attack_numbers)) or any(not 1 <= n < state.next_attack
                                                                for n in attack_numbers):
        problems.append(f"attack numbers must be distinct, from 1 and below next_attack {state.next_attack}")
    for attack in state.attacks:
        if not attack.attackers:
            problems.append(f"attack {attack.number} has no attacker")
        for name in attack.attackers:
            player_ok(name, f"attack {attack.number}")
        player_ok(attack.defender, f"attack {attack.number}")
    for choice in state.choices:
        player_ok(choice.chooser, "a pending choice", gm=True)
        if choice.kind not in ("losses", "retreat"):
            problems.append(f"a pending choice of unknown kind {choice.kind!r}")
        if set(choice.counters) - on_table:
            problems.append(f"a pending {choice.kind} choice among counters not on the table")
    for shipment in state.shipments:
        player_ok(shipment.owner, "money in transit")
        if state.find_system(shipment.to) is None:
            problems.append(f"money in transit to {shipment.to!r}, no system")
        if shipment.amount < 1:
            problems.append(f"money in transit of {shipment.amount} GB")
    for system, player in state.neutral_control.items():
        if state.find_system(system) is None:
            problems.append(f"neutral control of {system!r}, no system")
        player_ok(player, f"neutral control of {system}")
    player_ok(state.winner, "the winner")
    return problems
