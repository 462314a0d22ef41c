"""A Godsfire game's state as the export format's plain dict (what `/gm export` writes), and back."""

from __future__ import annotations

import copy
from dataclasses import fields
from datetime import datetime
from typing import Any

from engine.errors import RefereeError
from engine.game import entered_export
from engine.godsfire import schema
from engine.godsfire.events import from_plain, system_from_dict, system_to_dict, to_plain
from engine.godsfire.rules import ECONOMY, PARTIES, UNIT_TYPES, GodsfireHouse, GodsfireRules
from engine.godsfire.state import (
    FIGHTING,
    KINDS,
    PHASES,
    STEPS,
    Counter,
    GodsfireState,
    Initiative,
    LossChoice,
    Player,
    Region,
    cached_key,
)
from engine.godsfire.table import place_of, room_problem
from engine.names import look_alike_problems
from engine.rulesets import register_schema

register_schema("godsfire", schema.validate_export)  # imports are checked by it before `state_from_dict`

LEVELS = (0, 5)  # allegiance levels a region or a national government can hold (0: in revolt)


PROCEDURE = ("counters", "next_counter", "initiative", "transit", "attacks", "next_attack", "choices",
             "shipments", "neutral_control", "victory", "victory_turns", "winner", "board", "paused_at")
"""The game's fields the refereed procedure adds (the table, initiative, combat, money in transit, victory)."""


def state_to_dict(state: GodsfireState) -> dict[str, Any]:
    """`{"game": {...}, "players": [...], "systems": [...]}` — the export format without its rolls."""
    return {
        "game": {
            "ruleset": state.ruleset, "gm": state.gm, "cogms": list(state.cogms),
            "started_at": state.started_at.isoformat(),
            "ended": state.ended, "turn": state.turn, "phase": state.phase,
            "forced_dice": list(state.forced_dice), **entered_export(state), "house": state.house.as_dict(),
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
        gm=str(game.get("gm", "gm")), cogms=[str(c) for c in game.get("cogms", [])],
        house=GodsfireHouse(**game.get("house", {})),
        started_at=datetime.fromisoformat(game["started_at"]), ended=bool(game.get("ended", False)),
        forced_dice=[int(v) for v in game.get("forced_dice", [])],
        forced_for=[str(b) for b in game.get("forced_for") or []], turn=int(game.get("turn", 1)),
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


def _level_ok(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and LEVELS[0] <= value <= LEVELS[1]


def loan_payments(rules: GodsfireRules | None) -> int | None:
    """How many boxes a loan's track has (the `[loans]` table's `payments`); None without the rules."""
    if rules is None:
        return None
    try:
        return int(rules.table("loans")["payments"])
    except (AttributeError, KeyError, TypeError, ValueError):
        return None


def subversion_track(rules: GodsfireRules | None) -> int | None:
    """How many circles the subversion track has (the `[subversion]` table's `track`); None without the rules."""
    if rules is None:
        return None
    try:
        return int(rules.table("subversion")["track"])
    except (AttributeError, KeyError, TypeError, ValueError):
        return None


def _step_problems(region: Region, path: str, at: str, track: int | None) -> list[str]:
    """A region's subversion steps: each the circle of a player's money there (D.8 moves it down a circle a
    turn, off the track past the last), so one only for money, and on the track."""
    problems = []
    for name, step in region.subversion_step.items():
        if region.subversion.get(name, 0) <= 0:
            problems.append(f"{path}: {at}: a subversion step for {name}, who has no subversion money there")
        elif track is not None and not 0 <= step < track:
            problems.append(f"{path}: {at}: {name}'s money on circle {step} of a {track}-circle track (circles 0 to "
                            f"{track - 1}; money past the last is off the track)")
    return problems


def check_state(state: GodsfireState, rules: GodsfireRules | None) -> list[str]:
    """What in a state breaks what the rules guarantee of a live game, each problem naming its field first
    (`game.wars[0]: …`); empty when all is well. The import refuses a state with any (the first named), and
    the property test asserts there are none after every command (`invariants` is this function)."""
    problems: list[str] = []
    _game_problems(state, problems)
    _player_problems(state, problems)
    _system_problems(state, rules, problems)
    _order_problems(state, problems)
    problems += _procedure_problems(state)
    return problems


invariants = check_state
"""Everything the rules guarantee of a live Godsfire game, as problems naming their fields (see `check_state`)."""


def _names(state: GodsfireState) -> set[str]:
    return {p.name for p in state.players}


def _game_problems(state: GodsfireState, problems: list[str]) -> None:
    if state.board is not None:
        for i, system in enumerate(state.systems):
            cell = state.board.find(system.name)
            if cell is None or not cell.system or cell.name != system.name:
                problems.append(f"systems[{i}].name: {system.name} is not a system of the game's map "
                                f"{state.board.title!r}")
    if state.phase not in PHASES:
        problems.append(f"game.phase: unknown phase {state.phase!r} (phases: {', '.join(PHASES)})")
    if state.turn < 1:
        problems.append(f"game.turn: turn {state.turn} is before turn 1")
    if any(not 1 <= d <= 6 for d in state.forced_dice):
        problems.append(f"game.forced_dice: entered dice {state.forced_dice} are not all d6 faces")
    if state.victory not in ("gm", "last-ng", "most-systems"):
        problems.append(f"game.victory: unknown victory condition {state.victory!r}")
    elif state.victory == "most-systems":
        if state.victory_turns < 1:
            problems.append("game.victory_turns: most-systems names the last turn, 1 or later")
        elif not state.ended and state.turn > state.victory_turns:
            problems.append(f"game.victory_turns: the game was to end after turn {state.victory_turns}, but it is "
                            f"turn {state.turn} and it has not ended")
    elif state.victory_turns != 0:
        problems.append(f"game.victory_turns: {state.victory_turns} turns, but only most-systems counts turns")
    if state.winner is not None:
        if not state.ended:
            problems.append(f"game.winner: {state.winner!r} won a game that has not ended")
        elif state.winner not in _names(state):
            problems.append(f"game.winner: the winner names {state.winner!r}, who is not a player")
    names = _names(state)
    seen: set[tuple[str, ...]] = set()
    for i, pair in enumerate(state.wars):
        at = f"game.wars[{i}]"
        if len(pair) != 2 or any(name not in names for name in pair):
            problems.append(f"{at}: a war between {pair}, not two players")
        elif cached_key(pair[0]) == cached_key(pair[1]):
            problems.append(f"{at}: {pair[0]} is at war with themselves")
        elif list(pair) != sorted(pair):
            problems.append(f"{at}: a war's pair is written sorted ({sorted(pair)})")
        elif tuple(pair) in seen:
            problems.append(f"{at}: {pair[0]} and {pair[1]} are already at war")
        seen.add(tuple(pair))
    for name, steps in state.done.items():
        at = f"game.done.{name}"
        if name not in names:
            problems.append(f"{at}: the interphase names {name!r}, who is not a player")
        if set(steps) - set(STEPS):
            problems.append(f"{at}: unknown interphase steps {sorted(set(steps) - set(STEPS))}")
        elif len(steps) != len(set(steps)):
            problems.append(f"{at}: a step done twice")
        elif steps and state.phase != "interphase":
            problems.append(f"{at}: steps done in the {state.phase} phase; only the interphase has steps")


def _player_problems(state: GodsfireState, problems: list[str]) -> None:
    player_keys = [cached_key(p.name) for p in state.players]
    if len(player_keys) != len(set(player_keys)):
        problems.append("players: two players share a name")
    problems.extend(f"players: {p}" for p in look_alike_problems([p.name for p in state.players], "player"))
    for i, player in enumerate(state.players):
        at = f"players[{i}]"
        if player.government is not None:
            system = state.find_system(player.government)
            if system is None:
                problems.append(f"{at}.government: {player.name}'s National Government is on "
                                f"{player.government!r}, no system")
            elif system.owner is None or cached_key(system.owner) != cached_key(player.name):
                problems.append(f"{at}.government: {player.name}'s National Government is on {system.name}, "
                                "not one of theirs")
        if set(player.national_allegiance) - set(PARTIES):
            problems.append(f"{at}.national_allegiance: {player.name}: national allegiances are by party "
                            f"{', '.join(PARTIES)}")
        if not all(_level_ok(v) for v in player.national_allegiance.values()):
            problems.append(f"{at}.national_allegiance: {player.name}: a national allegiance is outside 0..5")
        if player.ng_money < 0 or player.in_transit < 0:
            problems.append(f"{at}: {player.name}: negative money")


def _system_problems(state: GodsfireState, rules: GodsfireRules | None, problems: list[str]) -> None:
    system_keys = [cached_key(s.name) for s in state.systems]
    if len(system_keys) != len(set(system_keys)):
        problems.append("systems: two systems share a name")
    problems.extend(f"systems: {p}" for p in look_alike_problems([s.name for s in state.systems], "system"))
    names = _names(state)
    payments = loan_payments(rules)
    track = subversion_track(rules)
    for i, system in enumerate(state.systems):
        where, path = system.name, f"systems[{i}]"
        if system.owner is not None and system.owner not in names:
            problems.append(f"{path}.owner: {where} is owned by {system.owner!r}, who is not a player")
        if system.planets < 1:
            problems.append(f"{path}.planets: {where} has {system.planets} planets")
        if system.bank < 0 or system.enemy_units < 0:
            problems.append(f"{path}: {where}: a negative bank or count")
        if set(system.units) - set(UNIT_TYPES) or any(v < 0 for v in system.units.values()):
            problems.append(f"{path}.units: {where}: units are counts of {', '.join(UNIT_TYPES)}")
        numbers = [r.number for r in system.regions]
        if numbers != list(range(1, len(numbers) + 1)):
            problems.append(f"{path}.regions: {where}'s regions are numbered 1 to {len(numbers)} in order, not "
                            f"{numbers}")
        for turn_field in ("taxed_turn", "repaid_turn"):
            value = getattr(system, turn_field)
            if not 0 <= value <= state.turn:
                problems.append(f"{path}.{turn_field}: turn {value} is after the current turn {state.turn}")
        if system.loans and system.owner is None:
            problems.append(f"{path}.loans: {where} is neutral: nobody owes a loan on it")
        for j, loan in enumerate(system.loans):
            if loan.amount < 1 or loan.box < 0:
                problems.append(f"{path}.loans[{j}]: {where}: a loan of {loan.amount} at box {loan.box}")
            elif payments is not None and loan.box >= payments:
                problems.append(f"{path}.loans[{j}].box: box {loan.box} of a {payments}-box loan track (boxes 0 to "
                                f"{payments - 1}; a loan whose marker passes the top box is repaid)")
        for j, region in enumerate(system.regions):
            at, rpath = f"{where} region {region.number}", f"{path}.regions[{j}]"
            if region.party not in PARTIES:
                problems.append(f"{rpath}.party: {at}: unknown party {region.party!r}")
            if not _level_ok(region.allegiance):
                problems.append(f"{rpath}.allegiance: {at}: allegiance {region.allegiance} is outside 0..5")
            if region.economy not in ECONOMY:
                problems.append(f"{rpath}.economy: {at}: unknown economy level {region.economy!r}")
            for box in ("units", "to_place"):
                units = getattr(region, box)
                if set(units) - set(UNIT_TYPES) or any(v < 0 for v in units.values()):
                    problems.append(f"{rpath}.{box}: {at}: units are counts of {', '.join(UNIT_TYPES)}")
            counts = [region.enemy_units, region.desubversion, region.counter_subversion, region.bought,
                      region.spent, *region.subversion.values(), *region.subversion_step.values()]
            if any(v < 0 for v in counts):
                problems.append(f"{rpath}: {at}: a negative count")
            for field in ("subversion", "subversion_step"):
                for name in getattr(region, field):
                    if name not in names:
                        problems.append(f"{rpath}.{field}: {at}: subversion by {name!r}, who is not a player")
                    elif system.owner is not None and cached_key(name) == cached_key(system.owner):
                        problems.append(f"{rpath}.{field}: {at} is subverted by its own owner {name}")
            problems += _step_problems(region, f"{rpath}.subversion_step", at, track)
            if "SQD" in region.units:
                problems.append(f"{rpath}.units: {at} holds {region.units['SQD']} SQD on the ground (A.2.4: SQDs never "
                                "land; a system's SQDs are in its cell)")


def _order_problems(state: GodsfireState, problems: list[str]) -> None:
    """The turn's player order (A.1.1): rolled among the players still in at the start of the turn's Movement
    Phase (turn 1: when the GM starts initiative, or at the interphase), each once; a player who joined
    later is not in it (so an empty order is no problem: nobody was playing when it was rolled)."""
    names = _names(state)
    for i, name in enumerate(state.order):
        if name not in names:
            problems.append(f"game.order[{i}]: the order names {name!r}, who is not a player")
        elif name in state.order[:i]:
            problems.append(f"game.order[{i}]: {name} is in the order twice")
    active = [p.name for p in state.active_players()]
    index = {p.name: i for i, p in enumerate(state.players)}
    last = max((index[n] for n in state.order if n in index), default=-1)
    missing = [n for n in active if n not in state.order and index[n] < last]
    if missing:
        problems.append(f"game.order: {missing[0]} is playing but not in the player order")


def _procedure_problems(state: GodsfireState) -> list[str]:
    """What in the refereed procedure (counters, initiative, transit, attacks, choices, shipments, neutral
    control) breaks the rules: a player, system or counter the game does not have, or a step of the procedure
    outside its phase."""
    problems: list[str] = []
    names = _names(state)

    def player_ok(name: str | None, path: str, what: str, gm: bool = False) -> None:
        if name is not None and name not in names and not (gm and cached_key(name) == cached_key(state.gm)):
            problems.append(f"{path}: {what} names {name!r}, who is not a player")

    positions: dict[str, tuple[str, bool] | None] = {}  # each position read once
    numbers = [c.number for c in state.counters]
    if len(numbers) != len(set(numbers)) or any(not 1 <= n < state.next_counter for n in numbers):
        problems.append(f"game.counters: counter numbers must be distinct, from 1 and below next_counter "
                        f"{state.next_counter}")
    for i, counter in enumerate(state.counters):
        path = f"game.counters[{i}]"
        player_ok(counter.owner, f"{path}.owner", f"counter #{counter.number}")
        if counter.kind not in KINDS:
            problems.append(f"{path}.kind: counter #{counter.number}: unknown kind {counter.kind!r} "
                            f"({', '.join(KINDS)})")
        elif (counter.kind == "GB") != (counter.amount > 0):
            problems.append(f"{path}.amount: counter #{counter.number}: a GB counter carries 1 GB or more, and only "
                            "a GB counter")
        if not 0 <= counter.moved <= state.turn:
            problems.append(f"{path}.moved: counter #{counter.number} moved in turn {counter.moved}, after the "
                            f"current turn {state.turn}")
        where = positions[counter.at] if counter.at in positions else positions.setdefault(
            counter.at, _position(state, counter.at))
        if where is None:
            problems.append(f"{path}.at: counter #{counter.number} is at {counter.at!r}, which names no region of "
                            "that system" + (" and no cell of the map" if state.board is not None else ""))
        elif where[0] != counter.at:
            problems.append(f"{path}.at: counter #{counter.number} is at {counter.at!r}, which the table writes "
                            f"{where[0]!r}")
        elif where[1] != counter.ground:
            problems.append(f"{path}.ground: counter #{counter.number} at {counter.at} is "
                            f"{'on the ground' if where[1] else 'in space'}")
        elif counter.ground and counter.kind == "SQD":
            problems.append(f"{path}.ground: SQD #{counter.number} is on the ground (A.2.4: SQDs never land)")
    on_table = set(numbers)
    by_number = {c.number: c for c in state.counters}
    problems += _counter_problems(state)
    ini = state.initiative
    if ini is not None:
        path = "game.initiative"
        player_ok(ini.holder, f"{path}.holder", "initiative")
        player_ok(ini.awaiting, f"{path}.awaiting", "initiative")
        rounds = 4 if len(state.order) == 2 else 3
        if state.phase != "movement":
            problems.append(f"{path}: initiative is held in the Movement Phase, not the {state.phase} phase")
        elif ini.holder not in state.order:
            problems.append(f"{path}.holder: {ini.holder} holds initiative but is not in the player order")
        elif ini.awaiting is None or ini.awaiting not in state.order:
            problems.append(f"{path}.awaiting: the go awaited ({ini.awaiting!r}) is not a player in the order")
        elif any(name not in state.order for name in ini.held) or len(set(ini.held)) != len(ini.held):
            problems.append(f"{path}.held: those who held initiative are players in the order, each once")
        elif ini.holder in ini.held:
            problems.append(f"{path}.held: {ini.holder} holds initiative a second time this turn")
        elif not 1 <= ini.round <= rounds:
            problems.append(f"{path}.round: round {ini.round} of {rounds} (A.1.4)")
        else:
            problems += _held_problems(state, ini)
    transit = state.transit
    if transit is not None:
        path = "game.transit"
        player_ok(transit.mover, f"{path}.mover", "the transit")
        player_ok(transit.stationary, f"{path}.stationary", "the transit")
        if state.phase != "movement" or ini is None:
            problems.append(f"{path}: a move passes through enemy units only on a go at initiative in the Movement "
                            "Phase")
        elif ini.awaiting != transit.mover:
            problems.append(f"{path}.mover: {transit.mover} moves, but it is {ini.awaiting}'s go")
        if not transit.counters or set(transit.counters) - on_table or \
                len(set(transit.counters)) != len(transit.counters):
            problems.append(f"{path}.counters: the transit moves counters not on the table")
    if state.phase != "combat" and (state.attacks or state.next_attack != 1):
        problems.append(f"game.attacks: attacks are announced in the Combat Phase, not the {state.phase} phase")
    if state.phase != "combat" and state.choices:
        problems.append(f"game.choices: losses and retreats are chosen in the Combat Phase, not the {state.phase} "
                        "phase")
    attack_numbers = [a.number for a in state.attacks]
    if len(attack_numbers) != len(set(attack_numbers)) or any(not 1 <= n < state.next_attack
                                                                for n in attack_numbers):
        problems.append(f"game.attacks: attack numbers must be distinct, from 1 and below next_attack "
                        f"{state.next_attack}")
    attacking: set[int] = set()
    for i, attack in enumerate(state.attacks):
        path = f"game.attacks[{i}]"
        if not attack.attackers:
            problems.append(f"{path}.attackers: attack {attack.number} has no attacker")
        for j, name in enumerate(attack.attackers):
            player_ok(name, f"{path}.attackers[{j}]", f"attack {attack.number}")
        if len({cached_key(n) for n in attack.attackers}) != len(attack.attackers):
            problems.append(f"{path}.attackers: attack {attack.number} names an attacker twice")
        player_ok(attack.defender, f"{path}.defender", f"attack {attack.number}")
        if attack.defender is not None and any(cached_key(n) == cached_key(attack.defender) for n in attack.attackers):
            problems.append(f"{path}.defender: {attack.defender} attacks themselves in attack {attack.number}")
        if not attack.units or len(set(attack.units)) != len(attack.units) or \
                any(not 1 <= n < state.next_counter for n in attack.units):
            problems.append(f"{path}.units: attack {attack.number}'s units are counters of the game, each once")
        elif set(attack.units) & attacking:
            problems.append(f"{path}.units: a unit attacks once a phase (B); attack {attack.number} reuses one")
        attacking |= set(attack.units)
        where = _position(state, attack.target)
        if where is None or where != (attack.target, attack.ground):
            written = "names no region of that system" if where is None else f"the table writes {where[0]!r}" + (
                " on the ground" if where[1] else " in space")
            problems.append(f"{path}.target: attack {attack.number} is on {attack.target!r}"
                            f"{' on the ground' if attack.ground else ''}, which {written}")
    resolved = {a.number for a in state.attacks if a.result}
    for i, choice in enumerate(state.choices):
        path = f"game.choices[{i}]"
        player_ok(choice.chooser, f"{path}.chooser", "a pending choice", gm=True)
        if choice.kind not in ("losses", "retreat"):
            problems.append(f"{path}.kind: a pending choice of unknown kind {choice.kind!r}")
        if not choice.counters or set(choice.counters) - on_table:
            problems.append(f"{path}.counters: a pending {choice.kind} choice among counters not on the table")
        elif choice.kind == "losses" and not 1 <= choice.count <= _units_among(by_number, choice):
            among = _units_among(by_number, choice)
            problems.append(f"{path}.count: {choice.count} losses to choose among {among} "
                            f"unit{'s' if among != 1 else ''} ({len(choice.counters)} "
                            f"counter{'s' if len(choice.counters) != 1 else ''})")
        if choice.attack and choice.attack not in resolved:
            problems.append(f"{path}.attack: a pending {choice.kind} choice of attack {choice.attack}, which is no "
                            "attack resolved this phase")
    for i, shipment in enumerate(state.shipments):
        path = f"game.shipments[{i}]"
        player_ok(shipment.owner, f"{path}.owner", "money in transit")
        if shipment.to not in {s.name for s in state.systems}:
            problems.append(f"{path}.to: money in transit to {shipment.to!r}, no system")
        if shipment.amount < 1:
            problems.append(f"{path}.amount: money in transit of {shipment.amount} GB")
        if shipment.arrives < state.turn:  # what is due lands in its turn's interphase, at the latest at its end
            problems.append(f"{path}.arrives: money due in turn {shipment.arrives} landed at the end of that turn's "
                            f"interphase; it is turn {state.turn} (D.3)")
        if shipment.carrier is not None and not 1 <= shipment.carrier < state.next_counter:
            problems.append(f"{path}.carrier: #{shipment.carrier} is no counter of the game")
        carrier = by_number.get(shipment.carrier) if shipment.carrier is not None else None
        if carrier is not None and (carrier.kind not in ("SQD", "AG") or carrier.owner != shipment.owner):
            problems.append(f"{path}.carrier: #{carrier.number} is {carrier.owner or 'no one'}'s {carrier.kind}, not "
                            f"one of {shipment.owner}'s ships (SQD or AG, D.3.2)")
    systems = {s.name for s in state.systems}
    for system, player in state.neutral_control.items():
        path = f"game.neutral_control.{system}"
        if system not in systems:
            problems.append(f"{path}: neutral control of {system!r}, no system")
        player_ok(player, path, f"neutral control of {system}")
    return problems


def _held_problems(state: GodsfireState, ini: Initiative) -> list[str]:
    """A.1.4-5: initiative passes down the order, each player in it holding it once (one gone out of the game is
    passed over): those who held it are the players before the holder, all of them but those out."""
    before = state.order[:state.order.index(ini.holder)]
    later = next((name for name in ini.held if name not in before), None)
    if later is not None:
        return [(f"game.initiative.held: {later} held initiative before {ini.holder}, but comes after them in the "
                 f"order ({', '.join(state.order)})")]
    out = {p.name for p in state.players if p.out}
    skipped = next((name for name in before if name not in ini.held and name not in out), None)
    if skipped is not None:
        return [(f"game.initiative.held: {skipped} comes before {ini.holder} in the order "
                 f"({', '.join(state.order)}) but has not held initiative")]
    return []


def _counter_problems(state: GodsfireState) -> list[str]:
    """What the table's counters break beyond their own fields: a National Government or money counter is one
    player's (one NG each), only units are built up, and the boxes and counters fit on the table."""
    problems = []
    governments: dict[str, int] = {}
    for i, counter in enumerate(state.counters):
        path = f"game.counters[{i}]"
        if counter.kind in ("NG", "GB") and counter.owner is None:
            problems.append(f"{path}.owner: {counter.kind} #{counter.number} is no player's (a National Government "
                            "or money counter is a player's)")
        if counter.kind == "NG" and counter.owner is not None:
            if counter.owner in governments:
                problems.append(f"{path}: {counter.owner} has a second NG counter (#{governments[counter.owner]} and "
                                f"#{counter.number}); a player has one")
            governments.setdefault(counter.owner, counter.number)
        if counter.size != 1 and counter.kind not in FIGHTING:
            problems.append(f"{path}.size: {counter.kind} #{counter.number} holds {counter.size}: only units (SQD, AG, "
                            "PDF) are built up (A.2.5)")
    room = room_problem(state)
    if room is not None:
        problems.append(f"game.counters: {room}")
    return problems


def _units_among(by_number: dict[int, Counter], choice: LossChoice) -> int:
    """The units a pending loss choice is among: the key's 1, 2 are units lost, and a loss takes one unit of a
    built-up counter (A.2.5), so units count, not counters (one SQD ×3 may lose 2)."""
    return sum(by_number[n].size for n in dict.fromkeys(choice.counters))


def _position(state: GodsfireState, at: str) -> tuple[str, bool] | None:
    """A counter's position as the table writes it (`table.place_of`): (its text, whether on the ground), or
    None when it names a region its system does not have."""
    try:
        place = place_of(state, at)
    except RefereeError:
        return None
    return place.at, place.ground
