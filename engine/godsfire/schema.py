"""The import schema of a Godsfire export (`snapshot.state_to_dict` plus the rolls): strict types, bounded
sizes and ranges, and every cross-reference (owners, governments, subverters, wars, the interphase's order)
checked before any state is built from it."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, Literal

from pydantic import Field

from engine.godsfire.rules import ECONOMY, PARTIES, GodsfireHouse
from engine.godsfire.state import PHASES, STEPS
from engine.names import name_key
from engine.schema import (
    MAX_FORCED_DICE,
    Name,
    Strict,
    TimeText,
    Turn,
    at_most,
    count,
    house_from,
    refuse,
    rolls_from,
    unique,
    validate,
)

MAX_PLAYERS = 50
MAX_SYSTEMS = 500
MAX_REGIONS = 12
MAX_LOANS = 20
MAX_COUNT = 1_000_000  # money and unit counts

Count = Annotated[int, count(0, MAX_COUNT)]
Level = Annotated[int, count(0, 5)]
UnitType = Literal["SQD", "AG", "PDF"]
Party = Literal[PARTIES]  # type: ignore[valid-type]
Units = Annotated[dict[UnitType, Count], Field(max_length=3)]
ByPlayer = Annotated[dict[Name, Count], Field(max_length=MAX_PLAYERS)]


class Region(Strict):
    number: Annotated[int, count(1, MAX_REGIONS)]
    party: Party
    allegiance: Level
    economy: Literal[ECONOMY]  # type: ignore[valid-type]
    revolt: bool = False
    units: Units = {}
    enemy_units: Count = 0
    subversion: ByPlayer = {}
    subversion_step: ByPlayer = {}
    desubversion: Count = 0
    counter_subversion: Count = 0
    bought: Count = 0
    raised: bool = False
    spent: Count = 0
    revolt_tried: bool = False
    to_place: Units = {}


class Loan(Strict):
    amount: Annotated[int, count(1, MAX_COUNT)]
    box: Annotated[int, count(0, 100)] = 0


class System(Strict):
    name: Name
    owner: Name | None = None
    planets: Annotated[int, count(1, 100)] = 1
    bank: Count = 0
    units: Units = {}
    enemy_units: Count = 0
    regions: Annotated[list[Region], Field(max_length=MAX_REGIONS)] = []
    loans: Annotated[list[Loan], Field(max_length=MAX_LOANS)] = []
    taxed_turn: Annotated[Turn, Field(ge=0)] = 0
    repaid_turn: Annotated[Turn, Field(ge=0)] = 0


class Player(Strict):
    name: Name
    government: Name | None = None
    national_allegiance: Annotated[dict[Party, Level], Field(max_length=3)] = {}
    ministers_changed: bool = False
    failed_repayment: bool = False
    loans_barred: bool = False
    ng_money: Count = 0
    in_transit: Count = 0
    out: bool = False


class Game(Strict):
    ruleset: Literal["godsfire"]
    gm: Annotated[str, Field(max_length=200)] = "gm"
    started_at: TimeText
    ended: bool = False
    turn: Annotated[Turn, Field(ge=1)] = 1
    phase: Literal[PHASES]  # type: ignore[valid-type]
    forced_dice: Annotated[list[Annotated[int, count(1, 6)]], Field(max_length=MAX_FORCED_DICE)] = []
    house: dict[str, Any] = {}
    wars: Annotated[list[Annotated[list[Name], Field(min_length=2, max_length=2)]],
                    Field(max_length=MAX_PLAYERS * MAX_PLAYERS)] = []
    order: Annotated[list[Name], Field(max_length=MAX_PLAYERS)] = []
    done: Annotated[dict[Name, Annotated[list[Literal[STEPS]], Field(max_length=len(STEPS))]],  # type: ignore
                    Field(max_length=MAX_PLAYERS)] = {}


class Export(Strict):
    game: Game
    players: Annotated[list[Player], Field(max_length=MAX_PLAYERS)] = []
    systems: Annotated[list[System], Field(max_length=MAX_SYSTEMS)] = []
    rolls: Any = None  # validated one by one (`engine.schema.rolls_from`)


def validate_export(data: dict[str, Any], now: datetime) -> dict[str, Any]:
    """`data` checked field by field and as a whole, in the export format with every name cleaned and every
    reference spelled as its player or system is, or BadInput naming the first field that is wrong."""
    at_most(data.get("players"), MAX_PLAYERS, "players")
    at_most(data.get("systems"), MAX_SYSTEMS, "systems")
    export = validate(Export, data, now)
    game = export.game
    house = house_from(GodsfireHouse, game.house, "game.house")
    players, systems = export.players, export.systems
    unique([name_key(p.name) for p in players], lambda i: f"players[{i}].name", "that name")
    unique([name_key(s.name) for s in systems], lambda i: f"systems[{i}].name", "that name")
    player_names = {name_key(p.name): p.name for p in players}
    system_owner = {name_key(s.name): s for s in systems}

    def player(name: str, path: str) -> str:
        found = player_names.get(name_key(name))
        if found is None:
            raise refuse(path, f"{name!r} is not a player of this game")
        return found

    for i, system in enumerate(systems):
        if system.owner is not None:
            system.owner = player(system.owner, f"systems[{i}].owner")
        unique([r.number for r in system.regions], lambda j, i=i: f"systems[{i}].regions[{j}].number",
               "that region number")
        for j, region in enumerate(system.regions):
            for field in ("subversion", "subversion_step"):
                raw = getattr(region, field)
                setattr(region, field, {player(k, f"systems[{i}].regions[{j}].{field}"): v for k, v in raw.items()})
    for i, each in enumerate(players):
        if each.government is not None:
            system = system_owner.get(name_key(each.government))
            if system is None:
                raise refuse(f"players[{i}].government", f"{each.government!r} is not a system of this game")
            if system.owner is None or name_key(system.owner) != name_key(each.name):
                raise refuse(f"players[{i}].government", f"{system.name} is not {each.name}'s")
            each.government = system.name
    game.wars = [sorted(player(n, f"game.wars[{i}]") for n in pair) for i, pair in enumerate(game.wars)]
    game.order = [player(n, f"game.order[{i}]") for i, n in enumerate(game.order)]
    game.done = {player(n, "game.done"): steps for n, steps in game.done.items()}
    clean = export.model_dump(exclude={"rolls"})
    clean["game"]["house"] = house.as_dict()
    clean["rolls"] = rolls_from(data, now)
    return clean
