"""The state of one Godsfire game: typed dataclasses, nothing else (every field a plain JSON value)."""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Protocol, TypeVar

from engine.errors import UnknownName
from engine.godsfire.board import MAX_MAP_SYSTEMS, Board
from engine.godsfire.board import MAX_PLANETS as MAX_PLANETS
from engine.godsfire.rules import GodsfireHouse
from engine.names import name_key, named_item

PHASES = ("movement", "combat", "war", "interphase")
"""The turn's phases in order: A. Movement, B. Combat, C. the last chance to declare war, D. the Social
Interphase."""
PHASE_NAMES = {"movement": "Movement Phase", "combat": "Combat Phase",
               "war": "Last Chance to Declare War", "interphase": "Social Interphase"}
STEPS = ("tax", "loans", "borrow", "transfer", "purchase", "raise", "party", "revolts", "subversion",
         "allegiance", "economy", "subvert", "desubvert", "counter", "units")
"""The Social Interphase's steps in the sheet's order (D.1 tax and loan repayment … D.14 new units)."""


@dataclass
class Region:
    number: int  # 1, 2, … within its system
    party: str  # R, M or E
    allegiance: int  # 1..5 (0 while in revolt)
    economy: str  # S, A-1, A-2, I-1, I-2
    revolt: bool = False
    units: dict[str, int] = field(default_factory=dict)  # own ground units by type (AG, PDF)
    enemy_units: int = 0  # enemy units present in the region
    subversion: dict[str, int] = field(default_factory=dict)  # player -> subversion money on the track
    subversion_step: dict[str, int] = field(default_factory=dict)  # player -> its circle (0 = the top)
    desubversion: int = 0  # de-subversion money placed this interphase
    counter_subversion: int = 0  # counter-subversion money
    bought: int = 0  # units bought this interphase (the purchase limits)
    raised: bool = False  # allegiance raised this interphase (at most +1 a turn)
    spent: int = 0  # money spent for the region this interphase (regional jealousy)
    revolt_tried: bool = False  # one way of dealing with its revolt tried this interphase
    to_place: dict[str, int] = field(default_factory=dict)  # bought units not yet placed (D.14), by type


@dataclass
class Loan:
    amount: int  # borrowed
    box: int = 0  # the marker's box on the loan track (0 = the bottom box)


MAX_REGIONS = 12  # a system's regions at the most (numbered from 1)
# The largest game, kept so that its slowest command stays small (bench/godsfire_worst.py measures it): every
# command, the import and the GM's hand edits hold to these.
MAX_PLAYERS = 50
MAX_SYSTEMS = MAX_MAP_SYSTEMS  # 60, as a map holds: the sheet's games have tens
MAX_COUNTERS = 2_000  # on the table: a player's whole force is tens of units, 50 players' under 2,000
MAX_BOX_UNITS = 300  # units of one type in one box (a system cell's or a region's): ten times any sheet force
MAX_LISTED = 40  # counters named in one command
MAX_COUNTER_NUMBER = 1_000_000  # the numbers a game's counters are given (never reused) run below this
MAX_ATTACKS = 50  # announced in one Combat Phase: a few a player is the sheet's use
MAX_SHIPMENTS = 100  # in the Money in Transit box at once: two a player


@dataclass
class System:
    name: str
    owner: str | None  # None: neutral
    planets: int = 1
    bank: int = 0
    units: dict[str, int] = field(default_factory=dict)  # units in the system cell (space): SQD, AG, PDF
    enemy_units: int = 0  # enemy units on the system cell ("under siege"; no squadrons bought)
    regions: list[Region] = field(default_factory=list)
    loans: list[Loan] = field(default_factory=list)
    taxed_turn: int = 0  # the turn whose tax (D.1) the system paid (once per interphase)
    repaid_turn: int = 0  # the turn whose loan repayments (D.1) the system made

    def region(self, number: int) -> Region:
        if 0 < number <= len(self.regions) and self.regions[number - 1].number == number:
            return self.regions[number - 1]  # (regions are numbered 1, 2, … in order)
        found = next((r for r in self.regions if r.number == number), None)
        if found is None:
            raise UnknownName(f"{self.name} has no region {number} (its regions: "
                                f"{', '.join(str(r.number) for r in self.regions) or 'none'})")
        return found


@dataclass
class Player:
    name: str
    government: str | None = None  # the system its National Government is on
    national_allegiance: dict[str, int] = field(default_factory=dict)  # party -> national allegiance level
    ministers_changed: bool = False  # "Change Ministers!" used (once a game)
    failed_repayment: bool = False  # failed a loan repayment this turn: no borrowing this turn
    loans_barred: bool = False  # defaulted: no new loans until every allegiance is 3 or better
    ng_money: int = 0  # money with the National Government
    in_transit: int = 0  # money in the Money in Transit box
    out: bool = False  # lost its National Government: out of the game


KINDS = ("SQD", "AG", "PDF", "NG", "GB")
"""The counters on the table: squadrons, attack groups, planetary defence forces, a National Government,
and money carried (GB)."""
FIGHTING = ("SQD", "AG", "PDF")


@dataclass
class Counter:
    """One counter on the table at a position the players name: a system's cell ("Sol"), a region of a
    system on the ground ("Sol 2"), or any other cell of the group's map ("K12")."""

    number: int  # shown as #number; never reused in a game
    kind: str  # SQD, AG, PDF, NG or GB
    owner: str | None  # None: a neutral system's
    at: str
    ground: bool = False  # on the ground of a region (`at` is "System N")
    moved: int = 0  # the turn it last moved (A.2.1: once a turn)
    amount: int = 0  # GB: the money it is
    came_from: str = ""  # the cell its move of that turn started from (the map's picture draws the move)
    size: int = 1  # the units it holds (A.2.5: built up; a loss takes one unit)


@dataclass
class Initiative:
    """The Movement Phase's initiative (A.1): who holds it, the round, and whose go is awaited."""

    holder: str  # the player holding initiative
    round: int = 1  # 1.. (3 rounds, 4 in a two-player game)
    awaiting: str | None = None  # whose go it is (the holder first, then each responder in order)
    since: datetime | None = None  # when that go began (the response deadline counts from it)
    moved: bool = False  # the awaited player moved a counter in this go
    held: list[str] = field(default_factory=list)  # players who have held initiative this turn
    reminded: bool = False  # the awaited player was reminded at half time


@dataclass
class Transit:
    """A transit attack or block the stationary player may declare on a move through their cell (A.2.3)."""

    mover: str  # the moving player
    counters: list[int]  # the moving counters (they wait in `cell`)
    cell: str  # the cell passed through
    to: str  # where the move was going
    ground: bool  # whether `to` is on the ground
    stationary: str  # the player whose stationary units are there
    came_from: str = ""  # the cell the movers entered it from (a blocking force may not retreat there)
    rest: list[str] = field(default_factory=list)  # the cells still to pass through after this one
    since: datetime | None = None  # when the stationary player was asked
    origin: str = ""  # the cell the move started from


@dataclass
class Attack:
    """An attack announced in the Combat Phase (B), resolved with all the others."""

    number: int
    attackers: list[str]  # the players combining (B.2.5)
    units: list[int]  # the attacking counters
    target: str  # the cell (or region, "Sol 2") attacked
    ground: bool
    defender: str | None  # the defending player (None: a neutral's units)
    result: str = ""  # the chart's result once resolved
    column: str = ""
    die: int = 0
    attack: float = 0
    defence: float = 0
    nebula: bool = False  # announced as in a nebula (B.1.2: both sides halved)


@dataclass
class LossChoice:
    """Units a side must lose, chosen by its enemy (the chart's 1, 2), or a retreat the loser must make (r)."""

    chooser: str  # the player who chooses (the enemy for losses; the loser for a retreat)
    kind: str  # "losses" or "retreat"
    counters: list[int]  # the counters to choose among (the losing side's)
    count: int = 0  # losses: how many
    reason: str = ""
    since: datetime | None = None
    attack: int = 0  # the attack it comes from


@dataclass
class Shipment:
    """Money in transit (D.3): on its way to a system, landing in a later turn's transfer step."""

    owner: str
    amount: int
    source: str  # where it left from (a system, or the NG)
    to: str  # the system it lands on
    arrives: int  # the turn in whose Social Interphase it lands
    carrier: int | None = None  # the ship counter carrying it (None: at speed 3 by itself)


@dataclass
class GodsfireState:
    gm: str
    house: GodsfireHouse
    started_at: datetime
    ruleset: str = "godsfire"
    ended: bool = False
    cogms: list[str] = field(default_factory=list)  # co-GMs (/gm cogm add): the GM's powers in this game
    forced_dice: list[int] = field(default_factory=list)
    forced_for: list[str] = field(default_factory=list)  # each entered die's binding (engine.game.entered_for)
    turn: int = 1
    phase: str = "movement"
    players: list[Player] = field(default_factory=list)
    systems: list[System] = field(default_factory=list)
    wars: list[list[str]] = field(default_factory=list)  # pairs of players at war, each sorted
    order: list[str] = field(default_factory=list)  # the turn's player order, rolled at its start (A.1.1)
    done: dict[str, list[str]] = field(default_factory=dict)  # player -> interphase steps done
    counters: list[Counter] = field(default_factory=list)
    next_counter: int = 1
    initiative: Initiative | None = None  # None outside the Movement Phase's initiative
    transit: Transit | None = None  # a move through enemy units waiting on their owner
    attacks: list[Attack] = field(default_factory=list)  # this Combat Phase's announced attacks
    next_attack: int = 1
    choices: list[LossChoice] = field(default_factory=list)  # losses and retreats still to be chosen
    shipments: list[Shipment] = field(default_factory=list)  # the Money in Transit box
    neutral_control: dict[str, str] = field(default_factory=dict)  # neutral system -> the player moving its units
    victory: str = "gm"  # the scenario's condition: "last-ng", "most-systems" or "gm"
    victory_turns: int = 0  # most-systems: the game ends after this turn
    winner: str | None = None
    board: Board | None = None  # the map the GM loaded (None: positions are named freely)
    paused_at: datetime | None = None  # /gm clock pause: when (every deadline is held until /gm clock resume)

    def find_player(self, name: str) -> Player | None:
        exact = _exact(self.players, name, self.__dict__, "_player_at")
        if exact is not None:
            return exact
        key = cached_key(name)
        return next((p for p in self.players if cached_key(p.name) == key), None) if key else None

    def player(self, name: str) -> Player:
        """A player by name (case, spacing and invisible characters aside) or an unambiguous start of it; a
        refusal naming the players."""
        found = _exact(self.players, name, self.__dict__, "_player_at") or named_item(
            name, self.players, lambda p: p.name, "player")
        if found is None:
            raise UnknownName(f"no player called {name!r} in this game (players: "
                                f"{', '.join(p.name for p in self.players) or 'none yet'})")
        return found

    def find_system(self, name: str) -> System | None:
        exact = _exact(self.systems, name, self.__dict__, "_system_at")
        if exact is not None:
            return exact
        key = cached_key(name)
        return next((s for s in self.systems if cached_key(s.name) == key), None) if key else None

    def system(self, name: str) -> System:
        """A system by name or an unambiguous start of it; a refusal naming the systems."""
        found = _exact(self.systems, name, self.__dict__, "_system_at") or named_item(
            name, self.systems, lambda s: s.name, "system")
        if found is None:
            raise UnknownName(f"no system called {name!r} in this game (systems: "
                                f"{', '.join(s.name for s in self.systems) or 'none yet'})")
        return found

    def systems_of(self, player: str) -> list[System]:
        found = self.find_player(player)
        if found is not None:  # (an owner is written as its player is)
            return [s for s in self.systems if s.owner == found.name]
        key = name_key(player)
        return [s for s in self.systems if s.owner is not None and name_key(s.owner) == key]

    def at_war(self, a: str, b: str) -> bool:
        return sorted([a, b]) in self.wars

    def counter(self, number: int) -> Counter:
        """A counter by number; a refusal naming how to list them."""
        found = next((c for c in self.counters if c.number == number), None)
        if found is None:
            raise UnknownName(f"no counter #{number} on the table (/godsfire counters lists them)")
        return found

    def counters_at(self, at: str) -> list[Counter]:
        key = name_key(at)
        there = {where for where in {c.at for c in self.counters} if cached_key(where) == key}
        return [c for c in self.counters if c.at in there]

    def counters_by_place(self) -> dict[str, list[Counter]]:
        """Every counter under its position's `name_key` (one pass: for a look at many positions)."""
        found: dict[str, list[Counter]] = {}
        for c in self.counters:
            found.setdefault(cached_key(c.at), []).append(c)
        return found

    def active_players(self) -> list[Player]:
        return [p for p in self.players if not p.out]


@functools.lru_cache(maxsize=4096)
def cached_key(name: str) -> str:
    """A name's `name_key` (a position's, system's or player's), remembered: a game has a few hundred names, and
    the engine compares them over and over."""
    return name_key(name)


class _Named(Protocol):
    name: str


N = TypeVar("N", bound=_Named)


def _exact(items: list[N], name: str, cache: dict[str, Any], slot: str) -> N | None:
    """The item of `items` whose stored name is exactly `name`, or None: a lookup by position kept beside the
    state (not a field), checked on each hit and rebuilt when stale, so that an engine step naming systems and
    players by their stored names (every event does) is not a scan of them with `name_key` each."""
    at: dict[str, int] | None = cache.get(slot)
    if at is not None:
        i = at.get(name)
        if i is not None and i < len(items) and items[i].name == name:
            return items[i]
        if i is None and len(at) == len(items):
            return None  # (not a stored name: the caller looks further)
    at = cache[slot] = {item.name: i for i, item in enumerate(items)}
    i = at.get(name)
    return items[i] if i is not None else None
