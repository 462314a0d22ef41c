"""The Godsfire chart sheet as typed values (`data/godsfire.toml`), validated at load.

The tables keep the sheet's numbers exactly; what the sheet leaves open is a house value (see the data
file's `house = [...]` notes, and `GodsfireHouse` for what a GM may change per game).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar

from engine.house import House, RulesError

PARTIES = ("R", "M", "E")
PARTY_NAMES = {"R": "Reactionary", "M": "Moderate", "E": "Extremist"}
ECONOMY = ("S", "A-1", "A-2", "I-1", "I-2")
ECONOMY_NAMES = {"S": "Subsistence", "A-1": "Agriculture-1", "A-2": "Agriculture-2", "I-1": "Industrial-1",
                 "I-2": "Industrial-2"}
UNIT_TYPES = ("SQD", "AG", "PDF")
MOVERS = ("SQD", "AG", "PDF", "NG", "GB")


@dataclass(frozen=True)
class GodsfireHouse(House):
    """Godsfire's house settings a GM may change per game."""

    RANGES: ClassVar[dict[str, tuple[float, float]]] = {
        "national_allegiance_start": (1, 5),
        "economy_cost_s": (0, 100), "economy_cost_a1": (0, 100), "economy_cost_a2": (0, 100),
        "economy_cost_i1": (0, 100),
        "response_hours": (0.1, 168),
        "sqd_strength": (0, 50), "ag_strength": (0, 50), "ag_strength_small": (0, 50), "pdf_strength": (0, 50),
        "ng_strength": (0, 50), "build_up_most": (1, 12),
    }
    CHOICES: ClassVar[dict[str, tuple[str, ...]]] = {"transit_column": ("-2", "-1", "0")}
    UNITS: ClassVar[dict[str, str]] = {**{f"economy_cost_{level}": "GB" for level in ("s", "a1", "a2", "i1")},
                                       "response_hours": "hours"}

    national_allegiance_start: int = 5
    # The costs between economic levels (D.5.4): the sheet's Economic Scale is not included.
    economy_cost_s: int = 2  # S -> A-1
    economy_cost_a1: int = 3  # A-1 -> A-2
    economy_cost_a2: int = 4  # A-2 -> I-1
    economy_cost_i1: int = 6  # I-1 -> I-2
    # How long a player has to answer: a go at initiative, a transit attack, losses or a retreat to choose
    # (then the default applies: pass, no attack, the first units listed, the first cell offered).
    response_hours: float = 12.0
    # The Transit Attacks column is the referee's call: this one unless the GM names another.
    transit_column: str = "0"
    # Each unit type's combat strength (the counters' numbers are not on the sheet). An AG has two: the
    # larger on a system sheet or cell, the smaller elsewhere (B.1.4).
    sqd_strength: int = 2
    ag_strength: int = 4
    ag_strength_small: int = 2
    pdf_strength: int = 3
    ng_strength: int = 0
    # A.2.5: the most units one counter may hold when units are built up (the counters are not on the sheet).
    build_up_most: int = 3

    def strength(self, kind: str, on_system: bool) -> int:
        """A unit's combat strength (B.1.4: an AG uses the smaller number unless on a system sheet or cell)."""
        if kind == "AG":
            return self.ag_strength if on_system else self.ag_strength_small
        return {"SQD": self.sqd_strength, "PDF": self.pdf_strength, "NG": self.ng_strength}.get(kind, 0)

    def economy_cost(self, level: str) -> int | None:
        """What raising a region from `level` to the next costs (None: `level` is the highest)."""
        return {"S": self.economy_cost_s, "A-1": self.economy_cost_a1, "A-2": self.economy_cost_a2,
                "I-1": self.economy_cost_i1}.get(level)


@dataclass(frozen=True)
class Band:
    """One row of a die table: `low`..`high` reads `value` (and `moderate` for a Moderate, if given)."""

    low: int
    high: int
    value: Any
    moderate: Any = None


@dataclass(frozen=True)
class Chart:
    """A results table: columns left to right, one row per die face (row 0 = die 1)."""

    columns: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]

    def read(self, column: str, die: int) -> str:
        return self.rows[die - 1][self.columns.index(column)]


@dataclass(frozen=True)
class GodsfireRules:
    """Every table of the sheet (and the house values where it is silent)."""

    house: GodsfireHouse
    party: tuple[Band, ...]
    allegiance: tuple[Band, ...]
    economy: tuple[Band, ...]
    neutral_units: dict[str, int]
    gone_neutral_units: dict[str, int]
    conquered_party: str
    allegiance_lowest: int
    allegiance_highest: int
    combat: Chart
    nebula_divisor: int
    transit: Chart
    result_words: dict[str, str]
    movement: dict[str, int]
    stacking: dict[str, int]
    money: dict[str, int]
    tables: dict[str, dict[str, Any]] = field(default_factory=dict)
    """The interphase's tables as in the data file: tax, loans, purchase, raise, party_change, revolts,
    subversion (each module that uses one reads it through `table`)."""
    die_sides: int = 6

    def table(self, name: str) -> dict[str, Any]:
        """One of the interphase tables (`tax`, `loans`, …) as written in the data file."""
        try:
            return self.tables[name]
        except KeyError:
            raise RulesError(f"data/godsfire.toml has no [{name}] table") from None


INTERPHASE_TABLES = ("tax", "loans", "purchase", "raise", "party_change", "revolts", "subversion")


def _bands(rows: list[dict[str, Any]], key: str, where: str) -> tuple[Band, ...]:
    bands = tuple(Band(int(r["from"]), int(r["to"]), r[key], r.get("moderate")) for r in rows)
    for band in bands:
        if band.low > band.high:
            raise RulesError(f"{where}: {band.low}-{band.high} is not a range")
    return bands


def _chart(raw: dict[str, Any], where: str) -> Chart:
    columns = tuple(str(c) for c in raw["columns"])
    rows = tuple(tuple(str(cell) for cell in row) for row in raw["rows"])
    if len(rows) != 6 or any(len(row) != len(columns) for row in rows):
        raise RulesError(f"{where}: a chart has 6 rows (one per die face) of {len(columns)} results")
    return Chart(columns, rows)


def rules_from_dict(data: dict[str, Any]) -> GodsfireRules:
    """The sheet's tables from the data file's dict; RulesError naming what is wrong."""
    try:
        setup = data["setup"]
        allegiance = data["allegiance"]
        rules = GodsfireRules(
            house=GodsfireHouse.from_data(data.get("house", {})),
            party=_bands(setup["party"], "party", "setup.party"),
            allegiance=_bands(setup["allegiance"], "level", "setup.allegiance"),
            economy=_bands(setup["economy"], "level", "setup.economy"),
            neutral_units=dict(setup["neutral_units"]),
            gone_neutral_units=dict(setup["gone_neutral_units"]),
            conquered_party=setup["conquered_party"],
            allegiance_lowest=int(allegiance["lowest"]),
            allegiance_highest=int(allegiance["highest"]),
            combat=_chart(data["combat"], "combat"),
            nebula_divisor=int(data["combat"]["nebula_divisor"]),
            transit=_chart(data["transit"], "transit"),
            result_words=dict(data["results"]),
            movement={k: int(v) for k, v in data["movement"].items()},
            stacking={k: int(v) for k, v in data["stacking"].items()},
            money={k: int(v) for k, v in data["money"].items()},
            tables={name: dict(data[name]) for name in INTERPHASE_TABLES},
        )
    except (KeyError, TypeError, ValueError) as err:
        raise RulesError(f"data/godsfire.toml: {type(err).__name__} {err}") from None
    if {b.value for b in rules.party} != set(PARTIES) or rules.conquered_party not in PARTIES:
        raise RulesError("setup.party must name the parties R, M and E")
    if any(b.value not in ECONOMY for b in rules.economy):
        raise RulesError(f"setup.economy levels must be among {', '.join(ECONOMY)}")
    for units in (rules.neutral_units, rules.gone_neutral_units):
        if set(units) - set(UNIT_TYPES):
            raise RulesError(f"unit types are {', '.join(UNIT_TYPES)}")
    return rules
