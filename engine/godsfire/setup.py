"""Godsfire setup: a new game, players, systems rolled from the sheet's starting tables (or neutral), a
conquered neutral re-rolled, and the GM's hand edits of any field (`/godsfire set`).

Rulings (the sheet is silent; docs/godsfire.md words them):
- A system's owner joins as a player if new, with every national allegiance at the house start level
  (`national_allegiance_start`), and its National Government on that first system (movable with
  `/godsfire player add name:<p> government:<system>`).
- A system has 1 region unless told (`regions:N`); a neutral system's regions are rolled like any other.
- A conquered neutral loses its units (the conqueror's are placed by hand) and its subversion marks.
"""

from __future__ import annotations

from dataclasses import dataclass, fields, replace
from typing import Any

from engine.core import Context, Outcome, Tx, require_gm
from engine.errors import BadInput, RuleViolation
from engine.godsfire import table
from engine.godsfire.common import handles
from engine.godsfire.events import (
    GodsfireStarted,
    PlayerAdded,
    SystemAdded,
    change_game,
    change_player,
    change_region,
    change_system,
    system_to_dict,
)
from engine.godsfire.rules import ECONOMY, PARTIES, UNIT_TYPES, Band, GodsfireRules
from engine.godsfire.state import (
    MAX_BOX_UNITS,
    MAX_PLANETS,
    MAX_PLAYERS,
    MAX_REGIONS,
    MAX_SYSTEMS,
    GodsfireState,
    Player,
    Region,
    System,
)
from engine.names import MAX_NAME, clean_name, name_key, refuse_look_alike

MAX_COUNT = 999  # any count a GM sets by hand: units, money, loans
MAX_LOANS = 20

# --- starting a game -----------------------------------------------------------------------------


def start_game(ctx: Context, options: dict[str, Any]) -> Outcome[GodsfireState]:
    """A new Godsfire game, run by `ctx.actor`: turn 1's Movement Phase, no players or systems yet."""
    if options.get("turn_hours") is not None:
        raise BadInput("Godsfire has no turn clock: turn_hours is for Nations (the GM steps the phases)")
    if options.get("options"):
        raise BadInput("Godsfire has no optional rules here: options is for God Dice")
    event = GodsfireStarted(gm=ctx.actor, started_at=ctx.now, house=ctx.rules.house.as_dict())
    return Outcome(event.apply(None), [event])


def forced_dice(values: list[int | str], tx: Tx[GodsfireState]) -> list[int]:
    """GM-entered Godsfire dice: d6 faces 1 to 6."""
    try:
        numbers = [int(v) for v in values]
    except (TypeError, ValueError):
        raise BadInput(f"Godsfire dice are d6 faces 1 to 6, not {' '.join(map(str, values))}") from None
    bad = [v for v in numbers if not 1 <= v <= 6]
    if bad:
        raise BadInput(f"a d6 shows 1 to 6; not {', '.join(map(str, bad))}")
    return numbers


# --- actions -------------------------------------------------------------------------------------


@dataclass
class AddPlayer:
    name: str
    government: str | None = None  # the system its National Government is on (one of its own)


@dataclass
class AddSystem:
    name: str
    owner: str | None = None
    planets: int = 1
    regions: int = 1
    neutral: bool = False


@dataclass
class ConquerSystem:
    name: str
    player: str


@dataclass
class SetField:
    field: str
    value: str
    system: str | None = None
    region: int | None = None
    player: str | None = None


# --- the starting tables -------------------------------------------------------------------------


def read_band(bands: tuple[Band, ...], total: int, what: str, party: str | None = None) -> Any:
    """The value a die total reads in a table (a Moderate's own value where the row gives one)."""
    for band in bands:
        if band.low <= total <= band.high:
            return band.moderate if party == "M" and band.moderate is not None else band.value
    raise RuleViolation(f"the {what} table has no row for {total}")


def roll_party(tx: Tx[GodsfireState], who: str | None, system: str, number: int) -> str:
    rules: GodsfireRules = tx.rules
    first = tx.roll(f"{system} region {number} party", who).die
    second = tx.roll(f"{system} region {number} party", who).die
    return str(read_band(rules.party, first + second, "party"))


def roll_allegiance(tx: Tx[GodsfireState], who: str | None, system: str, number: int, party: str) -> int:
    die = tx.roll(f"{system} region {number} allegiance", who).die
    return int(read_band(tx.rules.allegiance, die, "allegiance", party))


def roll_economy(tx: Tx[GodsfireState], who: str | None, system: str, number: int) -> str:
    die = tx.roll(f"{system} region {number} economy", who).die
    return str(read_band(tx.rules.economy, die, "economy"))


def join(tx: Tx[GodsfireState], name: str, government: str | None = None) -> Player:
    """Add a new player (every national allegiance at the house start level); returns it."""
    if len(tx.state.players) >= MAX_PLAYERS:
        raise RuleViolation(f"a game has at most {MAX_PLAYERS} players; {name} would be one more")
    level = int(tx.state.house.national_allegiance_start)
    tx.emit(PlayerAdded(name, {party: level for party in PARTIES}, government))
    return tx.state.player(name)


def _owner(tx: Tx[GodsfireState], raw: str) -> str:
    """An existing player's name as written in the game, or a new player's cleaned name."""
    found = tx.state.find_player(raw)
    return found.name if found is not None else _new_player(tx.state, raw)


def _new_player(state: GodsfireState, raw: str) -> str:
    """A new player's cleaned name, unless it looks like the GM's or another player's (`engine.names`)."""
    name = clean_name(raw, "a player's name", MAX_NAME)
    refuse_look_alike(name, [state.gm, *(p.name for p in state.players)], "a player's name in this game")
    return name


@handles(AddPlayer)
def add_player(tx: Tx[GodsfireState], action: AddPlayer) -> None:
    """A new player, or (with `government`) an existing player's National Government moved."""
    require_gm(tx, "add players")
    state: GodsfireState = tx.state
    name = clean_name(action.name, "a player's name", MAX_NAME)
    existing = state.find_player(name)
    government = None
    if action.government is not None:
        system = state.system(action.government)
        if system.owner is None or name_key(system.owner) != name_key(name):
            raise RuleViolation(f"{system.name} is not {name}'s: a National Government is on one of its "
                                "player's own systems (add the system first with /godsfire system add)")
        government = system.name
    if existing is None:
        join(tx, _new_player(state, name), government)
    elif government is None:
        raise RuleViolation(f"{existing.name} is already playing")
    else:
        change_player(tx, existing.name, "National Government moved", government=government)


@handles(AddSystem)
def add_system(tx: Tx[GodsfireState], action: AddSystem) -> None:
    """A system with its regions rolled in order (party 2d6, allegiance 1d6, economy 1d6), or a neutral one."""
    require_gm(tx, "add systems")
    state: GodsfireState = tx.state
    name = clean_name(action.name, "a system's name", MAX_NAME)
    if state.find_system(name) is not None:
        raise RuleViolation(f"there is already a system called {state.system(name).name}")
    refuse_look_alike(name, [s.name for s in state.systems], "a system in this game")
    if state.board is not None:  # on a map, the game's systems are the map's
        cell = state.board.find(name)
        if cell is None or not cell.system:
            raise RuleViolation(f"{name} is not a system of the map {state.board.title!r} (its systems: "
                                f"{', '.join(c.name for c in state.board.systems())})")
        name = cell.name
        if action.planets != cell.planets and action.planets != 1:
            raise RuleViolation(f"{name} has {cell.planets} planet{'s' if cell.planets != 1 else ''} on the map")
        action = replace(action, planets=cell.planets)
        if state.find_system(name) is not None:
            raise RuleViolation(f"there is already a system called {name}")
    if len(state.systems) >= MAX_SYSTEMS:
        raise RuleViolation(f"a game has at most {MAX_SYSTEMS} systems; {name} would be one more")
    if not 1 <= action.planets <= MAX_PLANETS:
        raise BadInput(f"a system has 1 to {MAX_PLANETS} planets, not {action.planets}")
    if not 1 <= action.regions <= MAX_REGIONS:
        raise BadInput(f"a system has 1 to {MAX_REGIONS} regions, not {action.regions}")
    rules: GodsfireRules = tx.rules
    owner: str | None = None
    if action.neutral:
        if action.owner:
            raise BadInput("a neutral system has no owner (another player moves its units in combat)")
        units = dict(rules.neutral_units)
    else:
        if not action.owner:
            raise BadInput("name the system's owner (owner:<player>), or make it neutral (neutral:true)")
        owner = _owner(tx, action.owner)
        units = {}
    new_player = owner is not None and state.find_player(owner) is None
    if new_player:
        assert owner is not None
        join(tx, owner)
    who = owner  # a neutral's rolls are nobody's
    regions = []
    for number in range(1, action.regions + 1):
        party = roll_party(tx, who, name, number)
        allegiance = roll_allegiance(tx, who, name, number, party)
        economy = roll_economy(tx, who, name, number)
        regions.append(Region(number, party, allegiance, economy))
    system = System(name, owner, planets=action.planets, units=units, regions=regions)
    tx.emit(SystemAdded(system_to_dict(system)))
    if units:
        table.require_room(tx.state, f"neutral {name}'s starting units")
    if new_player:
        assert owner is not None
        change_player(tx, owner, "National Government on the first system", government=name)


@handles(ConquerSystem)
def conquer_system(tx: Tx[GodsfireState], action: ConquerSystem) -> None:
    """A conquered neutral: a new owner; each region's allegiance and economy rolled again, every party R."""
    require_gm(tx, "record a conquest")
    state: GodsfireState = tx.state
    system = state.system(action.name)
    if system.owner is not None:
        raise RuleViolation(f"{system.name} is {system.owner}'s, not neutral: the sheet re-rolls a conquered "
                            "neutral system (change an owner by hand with /godsfire set)")
    owner = _owner(tx, action.player)
    if state.find_player(owner) is None:
        join(tx, owner)
    conquer(tx, system.name, owner, f"conquered by {owner}")


def conquer(tx: Tx[GodsfireState], system_name: str, owner: str, why: str, reconciled: bool = False) -> None:
    """A system taken: the sheet's conquered neutral (Neutrals: allegiance and economic levels rolled, every party
    Reactionary), and the rulings' conquest by force of a player's system. The loser's counters left in the
    system go (its National Government with them: the loser is out); the boxes are written from the counters
    left, so nothing is duplicated; the loser's loans and everyone's subversion there go. `reconciled`: the counters
    are known to match every box (as after an earlier conquest of the same phase): only this system's are written."""
    if not reconciled:
        table.reconcile(tx)
    state: GodsfireState = tx.state
    system = state.system(system_name)
    loser = system.owner
    party = tx.rules.conquered_party
    rolled = []
    for region in system.regions:
        allegiance = roll_allegiance(tx, owner, system.name, region.number, party)
        economy = roll_economy(tx, owner, system.name, region.number)
        rolled.append((region.number, allegiance, economy))
    inside = {system.name, *(f"{system.name} {r.number}" for r in system.regions)}
    gone = [c for c in state.counters if c.at in inside and c.owner == loser]
    if gone:
        kept = [c for c in table.copy_counters(state) if c not in gone]
        change_game(tx, f"{why}: {'neutral' if loser is None else loser + chr(39) + 's'} counters in {system.name} "
                    f"are removed ({', '.join(table.short(c) for c in gone)})", counters=kept)
    change_system(tx, system.name, why, owner=owner, loans=[])
    for number, allegiance, economy in rolled:
        change_region(tx, system.name, number, why, party=party, allegiance=allegiance,
                      economy=economy, revolt=False, subversion={}, subversion_step={}, desubversion=0,
                      counter_subversion=0)
    table.sync(tx, system.name if reconciled else None)
    if gone:  # a GM's conquest in the Combat Phase: the loser's units leave the losses and retreats pending
        table.tidy_pending(tx)
    for c in gone:
        if c.kind == "NG" and c.owner is not None and not tx.state.player(c.owner).out:
            lose_government(tx, system.name, c.owner)
    if loser is not None:
        seat = tx.state.player(loser)
        if not seat.out and seat.government is not None and name_key(seat.government) == name_key(system.name):
            lose_government(tx, system.name, loser)
    offer_government(tx, owner, system.name)


def lose_government(tx: Tx[GodsfireState], system: str, player: str) -> None:
    """The sheet (National Government): if lost, the player is out of the game — whether its system went
    neutral, changed hands or its NG counter was destroyed. Its NG counter leaves the table."""
    change_player(tx, player, f"the sheet: {player}'s National Government on {system} is lost: {player} is out "
                  "of the game", out=True, government=None)
    ngs = [c for c in tx.state.counters if c.kind == "NG" and c.owner is not None and name_key(c.owner) ==
           name_key(player)]
    if ngs:
        table.set_counters(tx, [c for c in table.copy_counters(tx.state) if c not in ngs],
                           f"{player}'s NG counter leaves the table")
        table.tidy_pending(tx)  # an NG moving through enemy units no longer moves


def offer_government(tx: Tx[GodsfireState], player: str, system: str) -> None:
    """A player without a National Government who gains a system sets it up there (the sheet: the NG starts
    on the system of the player's choice; the GM moves it with /godsfire player add government:)."""
    found = tx.state.find_player(player)
    if found is not None and found.government is None and not found.out:
        change_player(tx, found.name, f"{found.name} had no National Government: it is set up on {system} (the GM "
                      "may move it to another of their systems with /godsfire player add government:)",
                      government=system)


# --- the GM's hand edits -------------------------------------------------------------------------

_INT = "int"
_BOOL = "bool"
_UNITS = "units"
_BY_PLAYER = "by player"
REGION_FIELDS = {
    "party": "party", "allegiance": "level", "economy": "economy", "revolt": _BOOL, "units": _UNITS,
    "enemy_units": _INT, "subversion": _BY_PLAYER, "subversion_step": _BY_PLAYER, "desubversion": _INT,
    "counter_subversion": _INT, "bought": _INT, "raised": _BOOL, "spent": _INT, "revolt_tried": _BOOL,
}
SYSTEM_FIELDS = {"owner": "owner", "planets": "planets", "bank": _INT, "units": _UNITS, "enemy_units": _INT,
                 "loans": "loans"}
PLAYER_FIELDS = {"government": "government", "national_allegiance": "national", "ministers_changed": _BOOL,
                 "failed_repayment": _BOOL, "loans_barred": _BOOL, "ng_money": _INT, "in_transit": _INT,
                 "out": _BOOL}
FIELDS = {"region": REGION_FIELDS, "system": SYSTEM_FIELDS, "player": PLAYER_FIELDS}
for _kind, _cls in (("region", Region), ("system", System), ("player", Player)):
    assert set(FIELDS[_kind]) <= {f.name for f in fields(_cls)}, _kind


def _int(text: str, field: str, low: int = 0, high: int = MAX_COUNT) -> int:
    try:
        value = int(text.strip())
    except ValueError:
        raise BadInput(f"{field} is a whole number, not {text!r}") from None
    if not low <= value <= high:
        raise BadInput(f"{field} is {low} to {high}, not {value}")
    return value


def _bool(text: str, field: str) -> bool:
    key = text.strip().lower()
    if key in ("true", "yes", "on", "1"):
        return True
    if key in ("false", "no", "off", "0"):
        return False
    raise BadInput(f"{field} is true or false, not {text!r}")


def _pairs(text: str, field: str) -> list[tuple[str, str]]:
    """`"AG=2 PDF=1"` (or with colons or commas) → [("AG", "2"), ("PDF", "1")]; "none" → []."""
    if text.strip().lower() in ("", "none", "0", "{}"):
        return []
    pairs = []
    for word in text.replace(",", " ").split():
        key, sep, value = word.replace(":", "=").partition("=")
        if not sep or not key or not value:
            raise BadInput(f"{field} is written like \"AG=2 PDF=1\", not {text!r}")
        pairs.append((key, value))
    return pairs


def parse_value(tx: Tx[GodsfireState], kind: str, field: str, text: str) -> Any:
    """A typed, checked value for one field of a region, system or player (BadInput naming the rule)."""
    state: GodsfireState = tx.state
    kinds = FIELDS[kind]
    if field not in kinds:
        raise BadInput(f"a {kind} has no field {field!r} that can be set; its fields: {', '.join(kinds)}")
    how = kinds[field]
    text = str(text)
    if how == _INT:
        return _int(text, field)
    if how == _BOOL:
        return _bool(text, field)
    if how == "level":
        return _int(text, field, 0, 5)
    if how == "planets":
        return _int(text, field, 1, MAX_PLANETS)
    if how == "party":
        word = text.strip().upper()
        party = {"REACTIONARY": "R", "MODERATE": "M", "EXTREMIST": "E"}.get(word, word)
        if party not in PARTIES:
            raise BadInput(f"a party is R, M or E, not {text!r}")
        return party
    if how == "economy":
        level = text.strip().upper().replace("_", "-")
        level = {"A1": "A-1", "A2": "A-2", "I1": "I-1", "I2": "I-2"}.get(level, level)
        if level not in ECONOMY:
            raise BadInput(f"an economy level is {', '.join(ECONOMY)}, not {text!r}")
        return level
    if how == _UNITS:
        units: dict[str, int] = {}
        for key, value in _pairs(text, field):
            unit = key.upper()
            if unit not in UNIT_TYPES:
                raise BadInput(f"unit types are {', '.join(UNIT_TYPES)}, not {key!r}")
            if unit == "SQD" and kind == "region":
                raise BadInput("the sheet (A.2.4): SQDs never go on the ground: a region's units are AG and PDF "
                               "(a system's SQDs are in its cell: set them without region:)")
            units[unit] = _int(value, f"{field} {unit}", high=MAX_BOX_UNITS)
        return {k: v for k, v in units.items() if v}
    if how == _BY_PLAYER:
        money: dict[str, int] = {}
        last = int(tx.rules.table("subversion")["track"]) - 1  # the track's bottom circle (0 = the top)
        for key, value in _pairs(text, field):
            money[state.player(key).name] = (_int(value, f"{field} of {key}", high=last) if field == "subversion_step"
                                             else _int(value, f"{field} of {key}"))
        return {k: v for k, v in money.items() if v} if field == "subversion" else money
    if how == "national":
        levels = {}
        for key, value in _pairs(text, field):
            party = key.upper()
            if party not in PARTIES:
                raise BadInput(f"national allegiances are by party R, M, E, not {key!r}")
            levels[party] = _int(value, f"national allegiance {party}", 0, 5)
        return levels
    if how == "owner":
        if text.strip().lower() in ("none", "neutral", ""):
            return None
        return state.player(text).name
    if how == "government":
        if text.strip().lower() in ("none", ""):
            return None
        return state.system(text).name
    if how == "loans":
        loans = []
        for amount, box in _pairs(text.replace("/", "="), field):
            last = int(tx.rules.table("loans")["payments"]) - 1  # the track's top box (counted from 0 here)
            loans.append({"amount": _int(amount, "a loan's amount", 1), "box": _int(box, "a loan's box", 0, last)})
        if len(loans) > MAX_LOANS:
            raise BadInput(f"at most {MAX_LOANS} loans")
        return loans
    raise AssertionError(how)


@handles(SetField)
def set_field(tx: Tx[GodsfireState], action: SetField) -> None:
    """The GM sets one field of a system, a region or a player by hand (checked, logged with the old value)."""
    require_gm(tx, "set fields by hand")
    state: GodsfireState = tx.state
    field = action.field.strip().lower().replace(" ", "_").replace("-", "_")
    reason = f"set by GM {tx.ctx.actor}"
    if action.player is not None:
        if action.system is not None or action.region is not None:
            raise BadInput("set a player's field (player:) or a system's or region's (system:), not both")
        player = state.player(action.player)
        value = parse_value(tx, "player", field, action.value)
        if field == "government" and value is not None:
            owner = state.system(value).owner
            if owner is None or name_key(owner) != name_key(player.name):
                raise RuleViolation(f"{value} is not {player.name}'s: a National Government is on its own system")
        if change_player(tx, player.name, reason, **{field: value}) is None:
            raise RuleViolation(f"{player.name}'s {field} is already {action.value}")
        return
    if action.system is None:
        raise BadInput("name the system: (and region:) or the player: whose field is set")
    system = state.system(action.system)
    if action.region is not None:
        region = system.region(action.region)
        value = parse_value(tx, "region", field, action.value)
        if change_region(tx, system.name, region.number, reason, **{field: value},
                         **_subversion_kept(system, region, field, value)) is None:
            raise RuleViolation(f"{system.name} region {region.number}'s {field} is already {action.value}")
        if field == "units":
            table.require_room(tx.state, f"{system.name} region {region.number}'s units")
        return
    value = parse_value(tx, "system", field, action.value)
    if field == "owner":
        table.reconcile(tx)  # the boxes are the old owner's units: counters for them first, then the new owner's
    if field == "loans" and value and system.owner is None:
        raise RuleViolation(f"{system.name} is neutral: a neutral system has no loans")
    if change_system(tx, system.name, reason, **{field: value}) is None:
        raise RuleViolation(f"{system.name}'s {field} is already {action.value}")
    if field == "units":
        table.require_room(tx.state, f"{system.name}'s units")
    if field == "owner" and value is None and system.loans:
        change_system(tx, system.name, f"{system.name} is neutral: its loans go with its owner", loans=[])
    if field == "owner" and value is not None:
        _drop_own_subversion(tx, system.name, value)
    if field == "owner":
        table.sync(tx)
        previous = next((p for p in state.players if p.government is not None
                         and name_key(p.government) == name_key(system.name)), None)
        if previous is not None and (value is None or name_key(value) != name_key(previous.name)):
            lose_government(tx, system.name, previous.name)
        if value is not None:
            offer_government(tx, value, system.name)


def _subversion_kept(system: System, region: Region, field: str, value: Any) -> dict[str, Any]:
    """A region's subversion steps kept with its money (a step is the circle a player's money is on): a step
    set for a player with no money there is refused, and the steps of money set to none go with it."""
    if field == "subversion_step":
        idle = [p for p in value if region.subversion.get(p, 0) <= 0]
        if idle:
            raise RuleViolation(f"{idle[0]} has no subversion money in {system.name} region {region.number}: a step "
                                "is the circle a player's money is on (set subversion first)")
    if field == "subversion":
        steps = {p: step for p, step in region.subversion_step.items() if value.get(p, 0) > 0}
        if steps != region.subversion_step:
            return {"subversion_step": steps}
    return {}


def _drop_own_subversion(tx: Tx[GodsfireState], system_name: str, owner: str) -> None:
    """A system's new owner has no subversion in it (subversion is placed in other players' systems): theirs
    goes (a conquest, a hand edit)."""
    system = tx.state.system(system_name)
    for region in system.regions:
        mine = [p for p in {**region.subversion, **region.subversion_step} if name_key(p) == name_key(owner)]
        if mine:
            change_region(tx, system.name, region.number, f"{owner} owns {system.name}: their subversion there goes",
                          subversion={p: m for p, m in region.subversion.items() if p not in mine},
                          subversion_step={p: c for p, c in region.subversion_step.items() if p not in mine})
