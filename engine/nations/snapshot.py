"""A game's state as the export format's plain dict (the contract `/gm export` writes), and back."""

from __future__ import annotations

from dataclasses import fields, replace
from datetime import datetime, timedelta
from operator import attrgetter
from typing import Any

from engine.game import entered_export
from engine.house import RulesError
from engine.names import look_alike_problems
from engine.nations import schema
from engine.nations.rules import ACTION_KINDS, BONUS_KINDS, STATS, HouseSettings, Rules, check_turn_hours
from engine.nations.state import Battle, Bonus, GameState, Nation, Unit
from engine.rulesets import register_schema

fromisoformat = datetime.fromisoformat

register_schema("nations", schema.validate_export)  # imports are checked by it before `state_from_dict`


def _iso(value: datetime) -> str:
    return value.isoformat()


def state_to_dict(state: GameState) -> dict[str, Any]:
    """`{"game": {...}, "nations": [...]}` — the export format without its rolls."""
    paused_at = state.paused_at
    return {
        "game": {
            "ruleset": state.ruleset,
            "turn": state.turn,
            "turn_hours": state.turn_hours,
            "turn_started_at": state.turn_started_at.isoformat(),
            "turn_ends_at": state.turn_ends_at.isoformat(),
            "paused": state.paused,
            "paused_remaining": state.paused_remaining,
            "paused_at": paused_at.isoformat() if paused_at is not None else None,
            "ended": state.ended,
            "gm": state.gm,
            "cogms": list(state.cogms),
            "next_unit_id": state.next_unit_id,
            "forced_dice": list(state.forced_dice), **entered_export(state),
            "house": _house_dict(state.house),
            "next_battle_id": state.next_battle_id,
        },
        "nations": [_nation_to_dict(n) for n in state.nations.values()],
        "battles": [battle_to_dict(b) for b in kept_battles(state)] if state.battles else [],
    }


_unit_id = attrgetter("id")
_HOUSE_FIELDS = tuple(f.name for f in fields(HouseSettings))


def _house_dict(house: HouseSettings) -> dict[str, Any]:
    """`house.as_dict()`, its field names looked up once (a snapshot is written on every command)."""
    if type(house) is not HouseSettings:
        return house.as_dict()
    return {name: getattr(house, name) for name in _HOUSE_FIELDS}


_HOUSES: dict[tuple[tuple[str, type, Any], ...], HouseSettings] = {}
MAX_HOUSES = 256  # distinct house settings kept built (a server's games mostly share a few)


def _house(raw: dict[str, Any]) -> HouseSettings:
    """`HouseSettings(**raw)`, one frozen instance shared by the snapshots that have the same settings (each
    value's type part of the key: 12 and 12.0 stay apart); settings that are not plain values are built anew."""
    try:
        key = tuple((name, type(value), value) for name, value in raw.items())
        found = _HOUSES.get(key)
    except TypeError:  # an unhashable value
        return HouseSettings(**raw)
    if found is None:
        found = HouseSettings(**raw)
        if len(_HOUSES) >= MAX_HOUSES:
            _HOUSES.clear()
        _HOUSES[key] = found
    return found


def kept_battles(state: GameState) -> list[Battle]:
    """The battles a game keeps: every one under way and the newest `schema.MAX_KEPT_BATTLES` over. Each command
    loads and saves the state, so the battles of a long game are not all kept in it: the log tells every one. (A
    command's own report still sees those it ended: they leave when the state is saved.)"""
    over = sorted(b.id for b in state.battles.values() if b.over)
    if len(over) <= schema.MAX_KEPT_BATTLES:
        return list(state.battles.values())
    dropped = set(over[:-schema.MAX_KEPT_BATTLES])
    return [b for b in state.battles.values() if b.id not in dropped]


def saved_state(state: GameState) -> GameState:
    """The state as the store keeps it between commands (`RuleSet.saved_state`): what the export format keeps of it
    (`kept_battles`): the state itself, or a copy of it without its oldest battles over (the state given is not
    changed: a command's report still shows the battles it ended)."""
    if len(state.battles) <= schema.MAX_KEPT_BATTLES:
        return state
    kept = kept_battles(state)
    return state if len(kept) == len(state.battles) else replace(state, battles={b.id: b for b in kept})


def battle_to_dict(battle: Battle) -> dict[str, Any]:
    """A battle as the export's `battles` item (`state` is its stage: commit, pairing, duel or over)."""
    return {
        "id": battle.id,
        "attacker": battle.attacker,
        "defender": battle.defender,
        "state": battle.stage,
        "result": battle.result,
        "duels": [dict(d, rounds=[dict(r) for r in d["rounds"]]) for d in battle.duels],
        "turn": battle.turn,
        "attacking": list(battle.attacking),
        "defending": list(battle.defending),
        "in_fight_attacking": list(battle.in_fight_attacking),
        "in_fight_defending": list(battle.in_fight_defending),
        "retreat_orders": [{"unit": u, "at_hp": hp} for u, hp in battle.retreat_orders.items()],
        "initiative": battle.initiative,
        "deadline": _iso(battle.deadline) if battle.deadline else None,
        "reminder_at": _iso(battle.reminder_at) if battle.reminder_at else None,
    }


def battle_from_dict(raw: dict[str, Any]) -> Battle:
    return Battle(
        id=int(raw["id"]), attacker=raw["attacker"], defender=raw["defender"], turn=int(raw.get("turn", 0)),
        stage=raw["state"], attacking=[int(u) for u in raw.get("attacking", [])],
        defending=[int(u) for u in raw.get("defending", [])],
        in_fight_attacking=[int(u) for u in raw.get("in_fight_attacking", [])],
        in_fight_defending=[int(u) for u in raw.get("in_fight_defending", [])],
        retreat_orders={int(o["unit"]): o["at_hp"] for o in raw.get("retreat_orders", [])},
        initiative=raw.get("initiative"),
        deadline=datetime.fromisoformat(raw["deadline"]) if raw.get("deadline") else None,
        reminder_at=datetime.fromisoformat(raw["reminder_at"]) if raw.get("reminder_at") else None,
        result=raw.get("result"),
        duels=[dict(d, rounds=[dict(r) for r in d["rounds"]]) for d in raw.get("duels", [])],
    )


def _nation_to_dict(nation: Nation) -> dict[str, Any]:
    return {
        "name": nation.name,
        "player": nation.player,
        "economy": nation.economy,
        "stability": nation.stability,
        "military": nation.military,
        "propaganda": nation.propaganda,
        "land": nation.land,
        "strength": nation.strength,
        "weakness": nation.weakness,
        "foreign_patches": nation.foreign_patches,
        "eliminated": nation.eliminated,
        "preset_slot": nation.preset_slot,
        "actions_used": list(nation.actions_used),
        "extra_actions": nation.extra_actions,
        "battles_won": nation.battles_won,
        "bonuses": [
            {"kind": b.kind, "value": b.value, "expires_at": b.expires_at.isoformat()} for b in nation.bonuses.values()
        ],
        "units": [{"id": u.id, "type": u.type, "rank": u.rank, "hp": u.hp, "battle": u.battle}
                  for u in sorted(nation.units.values(), key=_unit_id)],
    }


def state_from_dict(data: dict[str, Any]) -> GameState:
    """The inverse of `state_to_dict`; fields the contract does not require get their defaults. (Written for speed:
    every command builds its game's state from its snapshot.)"""
    game = data["game"]
    get = game.get
    if get("ruleset", "nations") != "nations":
        raise ValueError(f"not a Nations game: ruleset {get('ruleset')!r}")
    house = _house(get("house", {}))
    turn_hours = float(game["turn_hours"])
    ends_at = fromisoformat(game["turn_ends_at"])
    started = get("turn_started_at")
    paused = bool(game["paused"])
    paused_at = get("paused_at")
    state = GameState(
        gm=get("gm", "gm"),
        cogms=[str(c) for c in get("cogms", ())],
        turn=int(game["turn"]),
        turn_hours=turn_hours,
        turn_started_at=fromisoformat(started) if started else ends_at - timedelta(hours=turn_hours),
        turn_ends_at=ends_at,
        house=house,
        paused=paused,
        paused_remaining=get("paused_remaining"),
        paused_at=fromisoformat(paused_at) if paused_at and paused else None,
        ended=bool(get("ended", False)),
        forced_dice=[int(v) for v in get("forced_dice", ())],
        forced_for=[str(b) for b in get("forced_for") or ()],
    )
    max_unit = 0
    nations = state.nations
    for raw in data["nations"]:
        more = raw.get
        nation = Nation(
            raw["name"], more("player"), int(raw["economy"]), int(raw["stability"]), int(raw["military"]),
            int(raw["propaganda"]), int(raw["land"]), raw["strength"], raw["weakness"],
            int(more("foreign_patches", 0)), bool(more("eliminated", False)), more("preset_slot"),
            list(more("actions_used", ())), int(more("extra_actions", 0)), int(more("battles_won", 0)),
        )
        bonuses = more("bonuses")
        if bonuses:
            held = nation.bonuses
            for b in bonuses:
                held[b["kind"]] = Bonus(b["kind"], int(b["value"]), fromisoformat(b["expires_at"]))
        units = nation.units
        for u in more("units", ()):
            unit_id = int(u["id"])
            units[unit_id] = Unit(unit_id, u["type"], u["rank"], int(u["hp"]), u.get("battle"))
            if unit_id > max_unit:
                max_unit = unit_id
        nations[nation.name] = nation
    state.next_unit_id = max(int(get("next_unit_id", 1)), max_unit + 1)
    battles = data.get("battles")
    if battles:
        for raw in battles:
            battle = battle_from_dict(raw)
            state.battles[battle.id] = battle
    state.next_battle_id = max([int(get("next_battle_id", 1)), *(b + 1 for b in state.battles)])
    return state


def check_state(state: GameState, rules: Rules) -> list[str]:
    """What in a state breaks the rules (an import must not bring it in); empty when all is well."""
    problems = []
    try:
        state.house.check_rules(rules)
    except RulesError as err:
        problems.append(f"game.house.{err}")
    if state.turn < 1:
        problems.append(f"turn {state.turn} is before the first")
    try:
        check_turn_hours(state.turn_hours)
    except RulesError as err:
        problems.append(str(err))
    bad_dice = [d for d in state.forced_dice if not 1 <= d <= rules.die_sides]
    if bad_dice:
        problems.append(f"entered dice {bad_dice} are not d{rules.die_sides} faces")
    problems.extend(f"nations: {p}" for p in look_alike_problems([n.name for n in state.nations.values()], "nation"))
    players = [state.gm, *dict.fromkeys(n.player for n in state.nations.values() if n.player)]
    problems.extend(f"players: {p}" for p in look_alike_problems(players, "player"))
    for nation in state.nations.values():
        name = nation.name
        for stat in (*STATS, "foreign_patches"):
            if nation.stat(stat) < 0:
                problems.append(f"{name}: {stat} {nation.stat(stat)} is below 0")
        # E + M over the land is not refused: a GM may set it so (a warning is shown), and an export of that
        # game must import again, as an army over its MP cap does.
        if nation.strength not in rules.units or nation.weakness not in rules.units:
            problems.append(f"{name}: unknown STRENGTH or WEAKNESS ({nation.strength}, {nation.weakness})")
            continue
        if nation.strength == nation.weakness:
            problems.append(f"{name}: STRENGTH and WEAKNESS are the same")
        unknown_actions = [a for a in nation.actions_used if a not in ACTION_KINDS]
        if unknown_actions or len(set(nation.actions_used)) != len(nation.actions_used):
            problems.append(f"{name}: actions used {nation.actions_used} are not distinct kinds of {ACTION_KINDS}")
        problems += [f"{name}: unknown bonus {kind!r}" for kind in nation.bonuses if kind not in BONUS_KINDS]
        for unit in nation.units.values():
            if unit.type not in rules.units or unit.rank not in rules.ranks:
                problems.append(f"{name}: unit #{unit.id} is an unknown {unit.rank} {unit.type}")
                continue
            top = rules.max_hp(unit.type, unit.rank, nation.strength, nation.weakness)
            if not 1 <= unit.hp <= top:
                problems.append(f"{name}: unit #{unit.id} has {unit.hp} HP, not 1..{top}")
            if unit.battle is not None and (unit.battle not in state.battles or state.battles[unit.battle].over):
                problems.append(f"{name}: unit #{unit.id} is in battle #{unit.battle}, which is not being fought")
    return problems
