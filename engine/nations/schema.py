"""The import schema of a Nations export (`snapshot.state_to_dict` plus the rolls): strict types, bounded
sizes and ranges, and every cross-reference checked, before any state is built from it."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, Literal

from pydantic import Field

from engine.names import name_key
from engine.nations.rules import ACTION_KINDS, BONUS_KINDS, HouseSettings
from engine.schema import (
    MAX_FORCED_DICE,
    MAX_TURN,
    CoGMs,
    EnteredFor,
    Id,
    Name,
    Number,
    Player,
    Short,
    Strict,
    Text,
    Time,
    TimeText,
    Turn,
    at_most,
    checked_value,
    count,
    house_from,
    refuse,
    rolls_from,
    unique,
    validate,
)

MAX_NATIONS = 100
MAX_UNITS = 500  # per nation
MAX_GAME_UNITS = 10_000  # every nation's together: each command of a game loads and saves them all
MAX_LIVE_BATTLES = 200  # under way at once
MAX_KEPT_BATTLES = 100  # over, kept in the state (the newest; the log keeps every one)
MAX_BATTLES = 2_000  # in an export (an older one may hold more battles over: the newest MAX_KEPT_BATTLES are kept)
MAX_DUELS = 200  # per battle
MAX_ROUNDS = 500  # per duel
MAX_STAT = 10_000  # what a GM sets a stat to, at the most
MAX_STAT_HELD = 1_000_000  # what a stat may come to in play: every nation's land conquered, a long game's points
MAX_HP = 10_000
MAX_PAUSED_SECONDS = 366 * 24 * 3600

Stat = Annotated[int, count(0, MAX_STAT_HELD)]
UnitIds = Annotated[list[Id], Field(max_length=MAX_UNITS)]


class Bonus(Strict):
    kind: Literal[BONUS_KINDS]  # type: ignore[valid-type]  # the tuple's words: pydantic reads them, mypy cannot
    value: Annotated[int, count(-100, 100)]
    expires_at: Time


class Unit(Strict):
    id: Id
    type: Short
    rank: Short
    hp: Annotated[int, count(0, MAX_HP)]
    battle: Id | None = None


class Nation(Strict):
    name: Name
    player: Player | None = None
    economy: Stat
    stability: Stat
    military: Stat
    propaganda: Stat
    land: Stat
    strength: Short
    weakness: Short
    foreign_patches: Stat = 0
    eliminated: bool = False
    preset_slot: Annotated[int, count(0, 1000)] | None = None
    actions_used: Annotated[list[Literal[ACTION_KINDS]],  # type: ignore[valid-type]  # (as Bonus.kind)
                            Field(max_length=len(ACTION_KINDS))] = []
    extra_actions: Annotated[int, count(0, 100)] = 0
    battles_won: Annotated[int, count(0, MAX_STAT_HELD)] = 0
    bonuses: Annotated[list[Bonus], Field(max_length=len(BONUS_KINDS))] = []
    units: Annotated[list[Unit], Field(max_length=MAX_UNITS)] = []


class FightRound(Strict):
    kind: Literal["round"]
    attacker_total: Number
    defender_total: Number
    loser: Id


class RetreatRound(Strict):
    kind: Literal["retreat"]
    unit: Id
    side: Literal["attacker", "defender"]
    total: Number
    target: Number | None = None
    success: bool | None = None


class Duel(Strict):
    attacker_unit: Id
    defender_unit: Id
    attacker_type: Short
    defender_type: Short
    chosen_by: Text
    rounds: Annotated[list[Annotated[FightRound | RetreatRound, Field(discriminator="kind")]],
                      Field(max_length=MAX_ROUNDS)] = []
    outcome: Text | None = None


class RetreatOrder(Strict):
    unit: Id
    at_hp: Annotated[int, count(0, MAX_HP)] | None = None


class Battle(Strict):
    id: Id
    attacker: Name
    defender: Name
    state: Literal["commit", "pairing", "duel", "over"]
    result: Literal["attacker won", "defender won", "cancelled"] | None = None
    duels: Annotated[list[Duel], Field(max_length=MAX_DUELS)] = []
    turn: Turn = 0
    attacking: UnitIds = []
    defending: UnitIds = []
    in_fight_attacking: UnitIds = []
    in_fight_defending: UnitIds = []
    retreat_orders: Annotated[list[RetreatOrder], Field(max_length=MAX_UNITS)] = []
    initiative: Literal["attacker", "defender"] | None = None
    deadline: Time | None = None
    reminder_at: Time | None = None  # when the pending choice's person is reminded (None: reminded, or none)


class Game(Strict):
    ruleset: Literal["nations"] = "nations"
    turn: Annotated[int, count(1, MAX_TURN)]
    turn_hours: float
    turn_started_at: TimeText | None = None
    turn_ends_at: Time
    paused: bool
    paused_remaining: Annotated[float, Field(ge=0, le=MAX_PAUSED_SECONDS)] | None = None
    paused_at: Time | None = None  # when the clock was paused (its deadlines move on by the pause on resume)
    ended: bool = False
    gm: Text = "gm"
    cogms: CoGMs = []
    next_unit_id: Id = 1
    forced_dice: Annotated[list[Annotated[int, count(1, 1000)]], Field(max_length=MAX_FORCED_DICE)] = []
    forced_for: EnteredFor = []
    house: dict[str, Any] = {}
    next_battle_id: Id = 1


class Export(Strict):
    game: Game
    nations: Annotated[list[Any], Field(max_length=MAX_NATIONS)]  # each a Nation, validated one by one
    battles: Annotated[list[Any], Field(max_length=MAX_BATTLES)] = []  # each a Battle, one by one
    rolls: Any = None  # validated one by one (`engine.schema.rolls_from`)


def validate_export(data: dict[str, Any], now: datetime) -> dict[str, Any]:
    """`data` checked field by field and as a whole, in the export format with every name cleaned, or
    BadInput naming the first field that is wrong. The result's `rolls` are checked too."""
    at_most(data.get("nations"), MAX_NATIONS, "nations")
    at_most(data.get("battles"), MAX_BATTLES, "battles")
    listed = [n.get("units") if isinstance(n, dict) else None for n in data.get("nations") or []]
    for i, units in enumerate(listed):
        at_most(units, MAX_UNITS, f"nations[{i}].units")
    held = sum(len(units) for units in listed if isinstance(units, list))
    if held > MAX_GAME_UNITS:
        raise refuse("nations", f"at most {MAX_GAME_UNITS:,} units in all, not {held:,}")
    export: Export = validate(Export, data, now)
    # the nations and battles one by one: no single call of the validator holds the interpreter for long (an
    # import is checked in a thread of its own while the other games play)
    nations: list[Nation] = [validate(Nation, n, now, ("nations", i)) for i, n in enumerate(export.nations)]
    battles: list[Battle] = [validate(Battle, b, now, ("battles", i)) for i, b in enumerate(export.battles)]
    game = export.game
    house = house_from(HouseSettings, game.house, "game.house")
    checked_value(house, "turn_hours", game.turn_hours, "game.turn_hours")
    if game.turn_started_at is not None and datetime.fromisoformat(game.turn_started_at) > datetime.fromisoformat(
            game.turn_ends_at):
        raise refuse("game.turn_started_at", "is after game.turn_ends_at")
    unique([name_key(n.name) for n in nations], lambda i: f"nations[{i}].name", "that name")
    owner: dict[int, str] = {}  # unit id -> nation name
    for i, nation in enumerate(nations):
        def bonus_path(j: int, i: int = i) -> str:
            return f"nations[{i}].bonuses[{j}].kind"

        unique([b.kind for b in nation.bonuses], bonus_path, "that kind")
        for j, unit in enumerate(nation.units):
            if unit.id in owner:
                raise refuse(f"nations[{i}].units[{j}].id", f"unit #{unit.id} is already {owner[unit.id]}'s")
            owner[unit.id] = nation.name
    by_key = {name_key(n.name): n.name for n in nations}
    unique([b.id for b in battles], lambda i: f"battles[{i}].id", "that id")
    for i, battle in enumerate(battles):
        for side in ("attacker", "defender"):
            named = by_key.get(name_key(getattr(battle, side)))
            if named is None:
                raise refuse(f"battles[{i}].{side}", f"{getattr(battle, side)!r} is not a nation of this game")
            setattr(battle, side, named)
        if battle.attacker == battle.defender:
            raise refuse(f"battles[{i}].defender", "a nation cannot fight itself")
        if battle.state == "over":
            continue
        sides = {"attacking": battle.attacker, "in_fight_attacking": battle.attacker,
                 "defending": battle.defender, "in_fight_defending": battle.defender}
        for field, nation_name in sides.items():
            ids: list[int] = getattr(battle, field)

            def unit_path(j: int, i: int = i, field: str = field) -> str:
                return f"battles[{i}].{field}[{j}]"

            unique(ids, unit_path, "that unit")
            # a side's list keeps the units that fell in the battle (gone from their nation); the units still in
            # the fight must all be the side's own
            fell_allowed = not field.startswith("in_fight")
            for j, unit_id in enumerate(ids):
                held_by = owner.get(unit_id)
                fell = fell_allowed and held_by is None and unit_id < (game.next_unit_id or 1)
                if held_by != nation_name and not fell:
                    raise refuse(f"battles[{i}].{field}[{j}]", f"unit #{unit_id} is not {nation_name}'s")
        for field, whole in (("in_fight_attacking", "attacking"), ("in_fight_defending", "defending")):
            for j, unit_id in enumerate(getattr(battle, field)):
                if unit_id not in getattr(battle, whole):
                    raise refuse(f"battles[{i}].{field}[{j}]", f"unit #{unit_id} is not in battles[{i}].{whole}")
        fighting = {*battle.attacking, *battle.defending}
        for j, order in enumerate(battle.retreat_orders):
            if order.unit not in fighting:
                raise refuse(f"battles[{i}].retreat_orders[{j}].unit", f"unit #{order.unit} is not in this battle")
    live = {b.id: b for b in battles if b.state != "over"}
    if len(live) > MAX_LIVE_BATTLES:
        raise refuse("battles", f"at most {MAX_LIVE_BATTLES} under way at once, not {len(live):,}")
    for i, nation in enumerate(nations):
        for j, unit in enumerate(nation.units):
            if unit.battle is not None and unit.battle not in live:
                raise refuse(f"nations[{i}].units[{j}].battle", f"battle #{unit.battle} is not being fought")
            if unit.battle is not None and nation.name not in (live[unit.battle].attacker, live[unit.battle].defender):
                raise refuse(f"nations[{i}].units[{j}].battle", f"{nation.name} does not fight in battle "
                                                                f"#{unit.battle}")
    clean = export.model_dump(exclude={"rolls", "nations", "battles"})
    clean["nations"] = [n.model_dump() for n in nations]
    clean["battles"] = [b.model_dump() for b in battles]
    clean["game"]["house"] = house.as_dict()
    clean["rolls"] = rolls_from(data, now)
    return clean
