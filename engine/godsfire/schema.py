"""The import schema of a Godsfire export (`snapshot.state_to_dict` plus the rolls): strict types, bounded
sizes and ranges, and every cross-reference (owners, governments, subverters, wars, the interphase's order)
checked before any state is built from it."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, Literal

from pydantic import Field

from engine.errors import BadInput
from engine.godsfire.board import read_map
from engine.godsfire.rules import ECONOMY, PARTIES, GodsfireHouse
from engine.godsfire.state import (
    MAX_ATTACKS,
    MAX_BOX_UNITS,
    MAX_COUNTER_NUMBER,
    MAX_COUNTERS,
    MAX_LISTED,
    MAX_PLAYERS,
    MAX_REGIONS,
    MAX_SHIPMENTS,
    MAX_SYSTEMS,
    PHASES,
    STEPS,
    cached_key,
)
from engine.schema import (
    MAX_FORCED_DICE,
    CoGMs,
    EnteredFor,
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

MAX_LOANS = 20
MAX_COUNT = 1_000_000  # money and other counts that are only numbers (the play's own bounds are in `state`)

Count = Annotated[int, count(0, MAX_COUNT)]
Level = Annotated[int, count(0, 5)]
UnitType = Literal["SQD", "AG", "PDF"]
Party = Literal[PARTIES]  # type: ignore[valid-type]  # the tuple's words: pydantic reads them, mypy cannot
Units = Annotated[dict[UnitType, Annotated[int, count(0, MAX_BOX_UNITS)]], Field(max_length=3)]
ByPlayer = Annotated[dict[Name, Count], Field(max_length=MAX_PLAYERS)]


class Region(Strict):
    number: Annotated[int, count(1, MAX_REGIONS)]
    party: Party
    allegiance: Level
    economy: Literal[ECONOMY]  # type: ignore[valid-type]  # (as Party)
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


Kind = Literal["SQD", "AG", "PDF", "NG", "GB"]
Cell = Annotated[str, Field(min_length=1, max_length=60)]
CounterNumber = Annotated[int, count(1, MAX_COUNTER_NUMBER - 1)]
Numbers = Annotated[list[CounterNumber], Field(max_length=MAX_COUNTERS)]
Listed = Annotated[list[CounterNumber], Field(max_length=MAX_LISTED)]  # counters named in one command
Names = Annotated[list[Name], Field(max_length=MAX_PLAYERS)]
HowMany = Annotated[int, count(0, MAX_COUNTERS)]


class Counter(Strict):
    number: CounterNumber
    kind: Kind
    owner: Name | None = None
    at: Cell
    ground: bool = False
    moved: Annotated[int, count(0, MAX_COUNT)] = 0
    amount: Count = 0
    came_from: Annotated[str, Field(max_length=60)] = ""
    size: Annotated[int, count(1, 12)] = 1


class Initiative(Strict):
    holder: Name
    round: Annotated[int, count(1, 10)] = 1
    awaiting: Name | None = None
    since: TimeText | None = None
    moved: bool = False
    held: Names = []
    reminded: bool = False


class Transit(Strict):
    mover: Name
    counters: Listed
    cell: Cell
    to: Cell
    ground: bool = False
    stationary: Name
    came_from: Annotated[str, Field(max_length=60)] = ""
    rest: Annotated[list[Cell], Field(max_length=40)] = []
    since: TimeText | None = None
    origin: Annotated[str, Field(max_length=60)] = ""


class Attack(Strict):
    number: Annotated[int, count(1, MAX_COUNT)]
    attackers: Names
    units: Listed
    target: Cell
    ground: bool = False
    defender: Name | None = None
    result: Annotated[str, Field(max_length=4)] = ""
    column: Annotated[str, Field(max_length=4)] = ""
    die: Annotated[int, count(0, 6)] = 0
    attack: Annotated[float, Field(ge=0, le=MAX_COUNT)] = 0
    defence: Annotated[float, Field(ge=0, le=MAX_COUNT)] = 0
    nebula: bool = False


class LossChoice(Strict):
    chooser: Name
    kind: Literal["losses", "retreat"]
    counters: Numbers
    count: HowMany = 0
    reason: Annotated[str, Field(max_length=300)] = ""
    since: TimeText | None = None
    attack: Count = 0


class Shipment(Strict):
    owner: Name
    amount: Annotated[int, count(1, MAX_COUNT)]
    source: Cell
    to: Cell
    arrives: Annotated[int, count(1, MAX_COUNT)]
    carrier: CounterNumber | None = None


class Game(Strict):
    ruleset: Literal["godsfire"]
    gm: Annotated[str, Field(max_length=200)] = "gm"
    cogms: CoGMs = []
    started_at: TimeText
    ended: bool = False
    turn: Annotated[Turn, Field(ge=1)] = 1
    phase: Literal[PHASES]  # type: ignore[valid-type]  # (as Party)
    forced_dice: Annotated[list[Annotated[int, count(1, 6)]], Field(max_length=MAX_FORCED_DICE)] = []
    forced_for: EnteredFor = []
    house: dict[str, Any] = {}
    wars: Annotated[list[Annotated[list[Name], Field(min_length=2, max_length=2)]],
                    Field(max_length=MAX_PLAYERS * MAX_PLAYERS)] = []
    order: Annotated[list[Name], Field(max_length=MAX_PLAYERS)] = []
    # the steps' words, as Party's: pydantic reads them, mypy cannot
    done: Annotated[dict[Name, Annotated[list[Literal[STEPS]], Field(max_length=len(STEPS))]],  # type: ignore[valid-type]
                    Field(max_length=MAX_PLAYERS)] = {}
    counters: Annotated[list[Counter], Field(max_length=MAX_COUNTERS)] = []
    next_counter: Annotated[int, count(1, MAX_COUNTER_NUMBER)] = 1
    initiative: Initiative | None = None
    transit: Transit | None = None
    attacks: Annotated[list[Attack], Field(max_length=MAX_ATTACKS)] = []
    next_attack: Annotated[int, count(1, MAX_COUNT)] = 1
    choices: Annotated[list[LossChoice], Field(max_length=MAX_ATTACKS)] = []
    shipments: Annotated[list[Shipment], Field(max_length=MAX_SHIPMENTS)] = []
    neutral_control: Annotated[dict[Name, Name], Field(max_length=MAX_SYSTEMS)] = {}
    victory: Literal["gm", "last-ng", "most-systems"] = "gm"
    victory_turns: Annotated[int, count(0, 10_000)] = 0
    winner: Name | None = None
    board: dict[str, Any] | None = None  # the map, in its normal form (`engine.godsfire.board`)
    paused_at: TimeText | None = None  # /gm clock pause: when (its deadlines move on by the pause on resume)


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
    export: Export = validate(Export, data, now)
    game = export.game
    house = house_from(GodsfireHouse, game.house, "game.house")
    if game.board is not None:
        try:
            game.board = read_map(game.board).plain()
        except BadInput as err:
            raise refuse("game.board", str(err)) from None
    players, systems = export.players, export.systems
    unique([cached_key(p.name) for p in players], lambda i: f"players[{i}].name", "that name")
    unique([cached_key(s.name) for s in systems], lambda i: f"systems[{i}].name", "that name")
    player_names = {cached_key(p.name): p.name for p in players}
    system_owner = {cached_key(s.name): s for s in systems}

    def player(name: str, path: str) -> str:
        found = player_names.get(cached_key(name))
        if found is None:
            raise refuse(path, f"{name!r} is not a player of this game")
        return found

    for i, system in enumerate(systems):
        if system.owner is not None:
            system.owner = player(system.owner, f"systems[{i}].owner")

        def number_path(j: int, i: int = i) -> str:
            return f"systems[{i}].regions[{j}].number"

        unique([r.number for r in system.regions], number_path, "that region number")
        for j, region in enumerate(system.regions):
            for field in ("subversion", "subversion_step"):
                raw = getattr(region, field)
                _once(list(raw), f"systems[{i}].regions[{j}].{field}")
                setattr(region, field, {player(k, f"systems[{i}].regions[{j}].{field}"): v for k, v in raw.items()})
    for i, each in enumerate(players):
        if each.government is not None:
            seat = system_owner.get(cached_key(each.government))
            if seat is None:
                raise refuse(f"players[{i}].government", f"{each.government!r} is not a system of this game")
            if seat.owner is None or cached_key(seat.owner) != cached_key(each.name):
                raise refuse(f"players[{i}].government", f"{seat.name} is not {each.name}'s")
            each.government = seat.name
    game.wars = [sorted(player(n, f"game.wars[{i}]") for n in pair) for i, pair in enumerate(game.wars)]
    game.order = [player(n, f"game.order[{i}]") for i, n in enumerate(game.order)]
    _once(list(game.done), "game.done")
    game.done = {player(n, "game.done"): steps for n, steps in game.done.items()}
    _spell_procedure(game, player_names, {cached_key(s.name): s.name for s in systems})
    clean = export.model_dump(exclude={"rolls"})
    clean["game"]["house"] = house.as_dict()
    clean["rolls"] = rolls_from(data, now)
    return clean


def _once(names: list[str], path: str) -> None:
    """Refuse a player named twice among an object's keys (as "alice" and "ALICE": one would be lost)."""
    seen: dict[str, str] = {}
    for name in names:
        first = seen.setdefault(cached_key(name), name)
        if first != name:
            raise refuse(f"{path}.{name}", f"{name!r} and {first!r} are one player, named twice")


def _spell_procedure(game: Game, players: dict[str, str], systems: dict[str, str]) -> None:
    """The procedure's references spelled as the game spells its players and systems (a name the game does not
    have is left as written: `snapshot.check_state` refuses it, naming the field)."""

    def who(name: str | None) -> str | None:
        return None if name is None else players.get(cached_key(name), name)

    for counter in game.counters:
        counter.owner = who(counter.owner)
    if game.initiative is not None:
        ini = game.initiative
        ini.holder, ini.awaiting = who(ini.holder) or ini.holder, who(ini.awaiting)
        ini.held = [who(n) or n for n in ini.held]
    if game.transit is not None:
        game.transit.mover = who(game.transit.mover) or game.transit.mover
        game.transit.stationary = who(game.transit.stationary) or game.transit.stationary
    for attack in game.attacks:
        attack.attackers = [who(n) or n for n in attack.attackers]
        attack.defender = who(attack.defender)
    for choice in game.choices:
        choice.chooser = who(choice.chooser) or choice.chooser
    for shipment in game.shipments:
        shipment.owner = who(shipment.owner) or shipment.owner
        shipment.to = systems.get(cached_key(shipment.to), shipment.to)
    unique([cached_key(k) for k in game.neutral_control], lambda i: "game.neutral_control", "that system")
    game.neutral_control = {systems.get(cached_key(k), k): who(v) or v for k, v in game.neutral_control.items()}
    game.winner = who(game.winner)
