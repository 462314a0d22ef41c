"""The state of one Godsfire game: typed dataclasses, nothing else (every field a plain JSON value)."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from engine.errors import UnknownName
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


@dataclass
class GodsfireState:
    gm: str
    house: GodsfireHouse
    started_at: datetime
    ruleset: str = "godsfire"
    ended: bool = False
    forced_dice: list[int] = field(default_factory=list)
    turn: int = 1
    phase: str = "movement"
    players: list[Player] = field(default_factory=list)
    systems: list[System] = field(default_factory=list)
    wars: list[list[str]] = field(default_factory=list)  # pairs of players at war, each sorted
    order: list[str] = field(default_factory=list)  # the interphase's player order
    done: dict[str, list[str]] = field(default_factory=dict)  # player -> interphase steps done

    def find_player(self, name: str) -> Player | None:
        key = name_key(name)
        return next((p for p in self.players if name_key(p.name) == key), None) if key else None

    def player(self, name: str) -> Player:
        """A player by name (case, spacing and invisible characters aside) or an unambiguous start of it; a
        refusal naming the players."""
        found = named_item(name, self.players, lambda p: p.name, "player")
        if found is None:
            raise UnknownName(f"no player called {name!r} in this game (players: "
                                f"{', '.join(p.name for p in self.players) or 'none yet'})")
        return found

    def find_system(self, name: str) -> System | None:
        key = name_key(name)
        return next((s for s in self.systems if name_key(s.name) == key), None) if key else None

    def system(self, name: str) -> System:
        """A system by name or an unambiguous start of it; a refusal naming the systems."""
        found = named_item(name, self.systems, lambda s: s.name, "system")
        if found is None:
            raise UnknownName(f"no system called {name!r} in this game (systems: "
                                f"{', '.join(s.name for s in self.systems) or 'none yet'})")
        return found

    def systems_of(self, player: str) -> list[System]:
        key = name_key(player)
        return [s for s in self.systems if s.owner is not None and name_key(s.owner) == key]

    def at_war(self, a: str, b: str) -> bool:
        return sorted([a, b]) in self.wars
