"""The Nations rule tables and house settings, as typed values validated at load.

The numbers themselves live in `data/nations.toml`; `rules_from_dict` checks them and builds `Rules`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, ClassVar

from engine.house import House, RulesError

STATS = ("economy", "stability", "military", "propaganda", "land")
STAT_CODES = {"e": "economy", "s": "stability", "m": "military", "p": "propaganda", "l": "land"}
BONUS_KINDS = ("workers", "patriotism", "morale")
ACTION_KINDS = ("attack", "economy", "propaganda")
CHANGE_KEYS = ("rd", "mp", "combat", "attack", "defence", "hp")


MIN_TURN_HOURS = 0.1
"""The shortest turn: six minutes (the Discord option's floor too)."""
MAX_TURN_HOURS = 24.0 * 14
"""The longest turn: two weeks."""
MIN_BONUS_HOURS = 0.1
MAX_BONUS_HOURS = 24.0 * 30
MIN_CHOICE_HOURS = 0.1
"""A battle choice waits at least six minutes for its person ..."""
MAX_CHOICE_HOURS = 24.0 * 14
"""... and at most two weeks (a share of the turn is held to the same bounds)."""
MAX_CHOICE_TURN_DIVISOR = 100
"""A choice's default wait is at least a hundredth of the turn (data file: `war.choice_turn_divisor`)."""
MIN_REMINDER_HOURS = 0.1
MAX_REMINDER_HOURS = 24.0 * 14
MAX_NEW_NATION_STAT = 1000
"""The largest stat (and land) a new nation may start with."""
MAX_SPOILS_MULTIPLIER = 100
"""The largest multiplier of a propaganda attack's spoils die."""


def check_turn_hours(hours: Any, what: str = "turn_hours") -> float:
    """`hours` as a turn length, or RulesError naming it `what`: a finite number from MIN_TURN_HOURS to
    MAX_TURN_HOURS."""
    try:
        HouseSettings.check_value("turn_hours", 12.0, hours)
    except RulesError as err:
        raise RulesError(what + str(err).removeprefix("turn_hours")) from None
    return float(hours)


@dataclass(frozen=True)
class HouseSettings(House):
    """The rulings' [house] values: a GM may change each one per game."""

    RANGES: ClassVar[dict[str, tuple[float, float]]] = {
        "turn_hours": (MIN_TURN_HOURS, MAX_TURN_HOURS),
        "actions_per_turn": (1, len(ACTION_KINDS)),
        "bonus_hours": (MIN_BONUS_HOURS, MAX_BONUS_HOURS),
        "new_nation_total": (0, MAX_NEW_NATION_STAT),
        "new_nation_stability": (0, MAX_NEW_NATION_STAT),
        "new_nation_propaganda": (0, MAX_NEW_NATION_STAT),
        "new_nation_land": (1, MAX_NEW_NATION_STAT),
        "choice_deadline_hours": (MIN_CHOICE_HOURS, MAX_CHOICE_HOURS),
        "reminder_hours": (MIN_REMINDER_HOURS, MAX_REMINDER_HOURS),
        "spoils_multiplier": (1, MAX_SPOILS_MULTIPLIER),
    }
    OFF_AT_ZERO: ClassVar[dict[str, str]] = {"reminder_hours": "no reminder",
                                             "choice_deadline_hours": "a share of the turn"}
    UNITS: ClassVar[dict[str, str]] = {
        "turn_hours": "hours", "bonus_hours": "hours", "choice_deadline_hours": "hours", "reminder_hours": "hours",
    }
    CHOICES: ClassVar[dict[str, tuple[str, ...]]] = {"land_cut_tie": ("economy", "military")}

    turn_hours: float = 12.0
    actions_per_turn: int = 2
    bonus_hours: float = 36.0
    recruit_meets_difficulty: bool = True
    land_cut_tie: str = "military"
    military_cost_on_success: bool = True
    new_nation_total: int = 20
    new_nation_stability: int = 10
    new_nation_propaganda: int = 10
    new_nation_land: int = 20
    preset_unit_rank: str = "green"
    choice_deadline_hours: float = 0.0  # 0: a share of the turn (`Rules.choice_hours`), following its length
    full_hp_after_battle: bool = True
    reminder_hours: float = 1.0
    end_turn_when_all_done: bool = False
    spoils_multiplier: int = 3

    def validate(self) -> None:
        super().validate()
        if self.new_nation_total > self.new_nation_land:
            raise RulesError("new_nation_total cannot exceed new_nation_land (E + M <= L)")

    def check_rules(self, rules: Rules) -> None:
        """The starting units' rank must be one of the rules' ranks."""
        if self.preset_unit_rank not in rules.ranks:
            raise RulesError(f"preset_unit_rank must be one of {', '.join(rules.ranks)}, "
                             f"not {self.preset_unit_rank[:40]!r}")


@dataclass(frozen=True)
class UnitProfile:
    """One unit type as a given nation fields it (after its STRENGTH/WEAKNESS change)."""

    type: str
    rd: int
    mp: int
    combat: int
    attack: int
    defence: int
    hp_bonus: int
    wins: dict[str, int]
    fails: dict[str, int]


@dataclass(frozen=True)
class UnitType:
    name: str
    code: str
    rd: int
    mp: int
    combat: int
    wins: dict[str, int]
    fails: dict[str, int]
    strength: dict[str, int]
    weakness: dict[str, int]


@dataclass(frozen=True)
class Preset:
    slot: int
    name: str
    economy: int
    stability: int
    military: int
    propaganda: int
    strength: str
    weakness: str
    units: dict[str, int]


@dataclass(frozen=True)
class Rules:
    house: HouseSettings
    die_sides: int
    stat_modifiers: dict[int, int]
    propaganda_bonus: dict[int, int]
    propaganda_success_change: int
    propaganda_failure_change: int
    province_land: int
    max_battle_units: int
    choice_turn_divisor: int
    choice_reminder_share: float
    trade_military: int
    trade_stability: int
    units: dict[str, UnitType]
    ranks: tuple[str, ...]
    rank_hp: dict[str, int]
    promotion: dict[str, dict[str, int]]
    promotion_retreat_penalty: int
    demotion: dict[str, dict[str, int]]
    presets: tuple[Preset, ...] = field(default=())

    # --- lookups -------------------------------------------------------------------------------
    def modifier(self, score: int) -> int:
        """A score's modifier: the seed's table for 1..20, floor((score - 10) / 2) outside it."""
        if score in self.stat_modifiers:
            return self.stat_modifiers[score]
        return math.floor((score - 10) / 2)

    def choice_hours(self, house: HouseSettings, turn_hours: float) -> float:
        """How long a battle choice waits for its person: the house's `choice_deadline_hours`, or, when that is 0
        (the default), the turn's length divided by `choice_turn_divisor` (a third: 4 hours of a 12-hour turn), held
        within MIN_CHOICE_HOURS..MAX_CHOICE_HOURS. The turn's length is the game's current one, so a choice opened
        after `/gm clock length` waits its share of the new length (one already open keeps the deadline it was
        given)."""
        if house.choice_deadline_hours:
            return house.choice_deadline_hours
        share = turn_hours / self.choice_turn_divisor
        return min(MAX_CHOICE_HOURS, max(MIN_CHOICE_HOURS, share)) if math.isfinite(share) else MAX_CHOICE_HOURS

    def encourage_bonus(self, total: int) -> int | None:
        """The PROPAGANDA table: the bonus for a check total, or None below the table."""
        rows = sorted(self.propaganda_bonus)
        if total < rows[0]:
            return None
        if total > rows[-1]:
            return self.propaganda_bonus[rows[-1]]
        return self.propaganda_bonus[max(r for r in rows if r <= total)]

    def unit_type(self, text: str) -> str:
        """The canonical type name for a name or seed code ("IN", "armor", "Bombers")."""
        key = text.strip().lower()
        for name, unit in self.units.items():
            if key in (name, unit.code.lower(), name.rstrip("s"), name + "s") or (
                name == "armour" and key in ("armor", "armors", "armours")
            ):
                return name
        codes = ", ".join(u.code for u in self.units.values())
        raise RulesError(f"unknown unit type {text!r}; types: {', '.join(self.units)} (or {codes})")

    def profile(self, unit_type: str, strength: str, weakness: str) -> UnitProfile:
        """The unit type with the nation's STRENGTH or WEAKNESS change applied (seed UNITS table)."""
        base = self.units[unit_type]
        change = base.strength if unit_type == strength else base.weakness if unit_type == weakness else {}
        return UnitProfile(
            type=unit_type,
            rd=change.get("rd", base.rd),
            mp=change.get("mp", base.mp),
            combat=base.combat + change.get("combat", 0),
            attack=change.get("attack", 0),
            defence=change.get("defence", 0),
            hp_bonus=change.get("hp", 0),
            wins=base.wins,
            fails=base.fails,
        )

    def max_hp(self, unit_type: str, rank: str, strength: str, weakness: str) -> int:
        return self.rank_hp[rank] + self.profile(unit_type, strength, weakness).hp_bonus

    def rank_name(self, text: str) -> str:
        key = text.strip().lower()
        aliases = {r[:3]: r for r in self.ranks} | {"grn": "green", "elt": "elite", "grd": "guard"}
        key = aliases.get(key, key)
        if key not in self.ranks:
            raise RulesError(f"unknown rank {text!r}; ranks: {', '.join(self.ranks)}")
        return key

    def preset(self, text: str) -> Preset:
        """The preset named by its slot, its name, or an unambiguous start of its name (any case and spacing:
        "gracchan", "7"); RulesError naming the matches when several presets start so."""
        key = " ".join(str(text).split()).lower()
        if key:
            for preset in self.presets:
                if key in (str(preset.slot), preset.name.lower()):
                    return preset
            matches = [p for p in self.presets if p.name and p.name.lower().startswith(key)]
            if len(matches) == 1:
                return matches[0]
            if matches:
                found = ", ".join(f"{p.name} ({p.slot})" for p in matches)
                raise RulesError(f"{str(text)[:40]!r} matches more than one preset: {found}; "
                                 "give more of the name, or the slot")
        names = ", ".join(f"{p.slot}: {p.name or '(unnamed)'}" for p in self.presets)
        raise RulesError(f"no preset {str(text)[:40]!r}; presets: {names}")


# --- validation ----------------------------------------------------------------------------------


def _int_table(raw: dict[str, Any], what: str) -> dict[int, int]:
    try:
        return {int(k): int(v) for k, v in raw.items()}
    except (TypeError, ValueError):
        raise RulesError(f"{what}: keys and values must be whole numbers") from None


def rules_from_dict(raw: dict[str, Any]) -> Rules:
    """Build and validate `Rules` from the parsed nations data file."""
    try:
        house = HouseSettings.from_data(dict(raw.get("house", {})))
        ranks = tuple(raw["ranks"]["order"])
        rank_hp = {str(k): int(v) for k, v in raw["ranks"]["hp"].items()}
        units = {}
        for name, u in raw["units"].items():
            for key in ("strength", "weakness"):
                bad = set(u[key]) - set(CHANGE_KEYS)
                if bad:
                    raise RulesError(f"units.{name}.{key}: unknown change {', '.join(bad)}")
            units[name] = UnitType(
                name=name, code=str(u["code"]), rd=int(u["rd"]), mp=int(u["mp"]), combat=int(u["combat"]),
                wins=dict(u["wins"]), fails=dict(u["fails"]),
                strength=dict(u["strength"]), weakness=dict(u["weakness"]),
            )
        promotion_raw = dict(raw["promotion"])
        retreat_penalty = int(promotion_raw.pop("retreat_penalty"))
        rules = Rules(
            house=house,
            die_sides=int(raw["dice"]["sides"]),
            stat_modifiers=_int_table(raw["stat_modifiers"], "stat_modifiers"),
            propaganda_bonus=_int_table(raw["propaganda_bonus"], "propaganda_bonus"),
            propaganda_success_change=int(raw["propaganda"]["success_change"]),
            propaganda_failure_change=int(raw["propaganda"]["failure_change"]),
            province_land=int(raw["land"]["province"]),
            max_battle_units=int(raw["war"]["max_units"]),
            choice_turn_divisor=int(raw["war"]["choice_turn_divisor"]),
            choice_reminder_share=float(raw["war"]["choice_reminder_share"]),
            trade_military=int(raw["stability"]["trade_military"]),
            trade_stability=int(raw["stability"]["trade_stability"]),
            units=units,
            ranks=ranks,
            rank_hp=rank_hp,
            promotion={r: {c: int(v) for c, v in row.items()} for r, row in promotion_raw.items()},
            promotion_retreat_penalty=retreat_penalty,
            demotion={r: {c: int(v) for c, v in row.items()} for r, row in raw["demotion"].items()},
            presets=tuple(
                Preset(
                    slot=int(p["slot"]), name=str(p["name"]), economy=int(p["economy"]),
                    stability=int(p["stability"]), military=int(p["military"]),
                    propaganda=int(p["propaganda"]), strength=str(p["strength"]),
                    weakness=str(p["weakness"]), units={str(k): int(v) for k, v in p["units"].items()},
                )
                for p in raw.get("presets", [])
            ),
        )
    except KeyError as missing:
        raise RulesError(f"nations rules: missing {missing}") from None
    except (AttributeError, TypeError, ValueError) as err:
        raise RulesError(f"nations rules: {type(err).__name__}: {err}") from None
    _check(rules)
    return rules


def _check(rules: Rules) -> None:
    if rules.max_battle_units < 1:
        raise RulesError("war.max_units must be at least 1")
    if not 1 <= rules.choice_turn_divisor <= MAX_CHOICE_TURN_DIVISOR:
        raise RulesError(f"war.choice_turn_divisor must be 1 to {MAX_CHOICE_TURN_DIVISOR}")
    if not 0 <= rules.choice_reminder_share < 1:
        raise RulesError("war.choice_reminder_share must be 0 (no reminder) or more, and less than 1")
    if rules.die_sides < 2:
        raise RulesError("dice.sides must be at least 2")
    if not rules.propaganda_bonus:
        raise RulesError("propaganda_bonus: the table is empty")
    bonuses = [rules.propaganda_bonus[k] for k in sorted(rules.propaganda_bonus)]
    if bonuses != sorted(bonuses):
        raise RulesError("propaganda_bonus: a bonus cannot fall as the check total rises")
    for name, unit in rules.units.items():
        for role, change in (("", {}), (".strength", unit.strength), (".weakness", unit.weakness)):
            if change.get("rd", unit.rd) < 0 or change.get("mp", unit.mp) < 1:
                raise RulesError(f"units.{name}{role}: RD must be 0 or more and MP 1 or more")
    for score, mod in rules.stat_modifiers.items():
        if mod != math.floor((score - 10) / 2):
            raise RulesError(f"stat_modifiers: {score} -> {mod} breaks floor((score - 10) / 2)")
    if set(rules.rank_hp) != set(rules.ranks):
        raise RulesError("ranks.hp must name every rank in ranks.order")
    for table_name, table, rows in (
        ("promotion", rules.promotion, rules.ranks),
        ("demotion", rules.demotion, rules.ranks[1:]),
    ):
        if set(table) != set(rows):
            raise RulesError(f"{table_name}: rows must be {', '.join(rows)}")
        for rank, row in table.items():
            if set(row) != set(rules.ranks):
                raise RulesError(f"{table_name}.{rank}: columns must be every rank")
    for name, unit in rules.units.items():
        for ref in list(unit.wins) + list(unit.fails):
            if ref not in rules.units:
                raise RulesError(f"units.{name}: {ref!r} is not a unit type")
    rules.house.check_rules(rules)
    slots = [p.slot for p in rules.presets]
    if len(slots) != len(set(slots)):
        raise RulesError("presets: two presets share a slot")
    for p in rules.presets:
        for t in (p.strength, p.weakness, *p.units):
            if t not in rules.units:
                raise RulesError(f"preset {p.slot}: {t!r} is not a unit type")
        if p.strength == p.weakness:
            raise RulesError(f"preset {p.slot}: STRENGTH and WEAKNESS must differ")
        if p.economy + p.military > rules.house.new_nation_land:
            raise RulesError(f"preset {p.slot}: E + M = {p.economy + p.military} is over its land "
                             f"{rules.house.new_nation_land}")
