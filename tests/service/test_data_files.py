"""Every data file under data/ is valid, and a broken rule table is refused at load with RulesError.

To add a data file (e.g. another game's TOML), register it in VALIDATORS with a function that raises on
bad content: a .toml file under data/ without a validator fails `test_every_data_file_has_a_validator`.
"""

from __future__ import annotations

import copy
import tomllib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from data import DATA_DIR, rules_for
from engine.goddice.cards import rules_from_dict as goddice_rules_from_dict
from engine.goddice.commands import CHARACTER_TYPES as GODDICE_CHARACTERS
from engine.godsfire.board import read_map
from engine.godsfire.rules import rules_from_dict as godsfire_rules_from_dict
from engine.house import RulesError
from engine.nations.rules import Rules, rules_from_dict


def validate_nations(raw: dict[str, Any]) -> None:
    rules = rules_from_dict(raw)
    assert rules.presets, "nations.toml lists the seed's presets"


def parses_only(raw: dict[str, Any]) -> None:
    """For a data file whose content has no validator in the engine yet: parsing is all we check."""
    assert isinstance(raw, dict)


def validate_goddice(raw: dict[str, Any]) -> None:
    rules = goddice_rules_from_dict(raw)
    assert set(rules.cards.characters) == set(GODDICE_CHARACTERS), "goddice.toml has the rulebook's six characters"


def validate_godsfire(raw: dict[str, Any]) -> None:
    rules = godsfire_rules_from_dict(raw)
    assert rules.combat.columns == ("1-3", "1-2", "1-1", "2-1", "3-1", "4-1"), "the sheet's CRT columns"


VALIDATORS: dict[str, Callable[[dict[str, Any]], None]] = {
    "nations.toml": validate_nations,
    "goddice.toml": validate_goddice,
    "godsfire.toml": validate_godsfire,
    "maps/twin-reaches.toml": lambda data: None if read_map(data) else None,  # issue 32: the shipped maps
    "maps/four-winds.toml": lambda data: None if read_map(data) else None,
}
"""data file name (relative to data/) -> a function that raises if its parsed content is invalid."""


def data_files(folder: Path = DATA_DIR) -> list[Path]:
    return sorted(folder.rglob("*.toml"))


def check_file(path: Path, name: str, validators: dict[str, Callable[[dict[str, Any]], None]]) -> list[str]:
    """The problems of one TOML file: unparsable, without a validator, or rejected by its validator."""
    try:
        with open(path, "rb") as handle:
            raw = tomllib.load(handle)
    except tomllib.TOMLDecodeError as err:
        return [f"{name}: not valid TOML ({err})"]
    validator = validators.get(name)
    if validator is None:
        return [f"{name}: no validator; register one in tests/service/test_data_files.py VALIDATORS"]
    try:
        validator(raw)
    except (RulesError, AssertionError, ValueError, KeyError, TypeError) as err:
        return [f"{name}: {type(err).__name__}: {err}"]
    return []


def check_folder(folder: Path, validators: dict[str, Callable[[dict[str, Any]], None]]) -> list[str]:
    """The problems of every TOML file under `folder` (names relative to it)."""
    problems = []
    for path in data_files(folder):
        problems += check_file(path, path.relative_to(folder).as_posix(), validators)
    return problems


def test_there_is_a_nations_data_file():
    assert (DATA_DIR / "nations.toml") in data_files()


def test_every_data_file_has_a_validator():
    registered = set(VALIDATORS)
    found = {p.relative_to(DATA_DIR).as_posix() for p in data_files()}
    assert found - registered == set(), "register a validator for these data files in VALIDATORS"


@pytest.mark.parametrize("name", [p.relative_to(DATA_DIR).as_posix() for p in data_files()])
def test_data_file_is_valid(name):
    assert check_file(DATA_DIR / name, name, VALIDATORS) == []


def test_registered_files_exist():
    missing = [name for name in VALIDATORS if not (DATA_DIR / name).is_file()]
    assert missing == []


def test_the_folder_check_catches_bad_and_unregistered_files(tmp_path):
    (tmp_path / "good.toml").write_text("a = 1\n")
    (tmp_path / "stray.toml").write_text("a = 1\n")
    (tmp_path / "broken.toml").write_text("a = = 1\n")
    (tmp_path / "nations.toml").write_text("[house]\nturn_hours = 12.0\n")
    problems = check_folder(tmp_path, {"good.toml": parses_only, "broken.toml": parses_only,
                                       "nations.toml": validate_nations})
    assert [p.split(":")[0] for p in problems] == ["broken.toml", "nations.toml", "stray.toml"]


def test_loaded_rules_are_cached_and_valid():
    rules = rules_for("nations")
    assert isinstance(rules, Rules)
    assert rules_for("nations") is rules


# --- broken tables are refused -------------------------------------------------------------------


def _raw() -> dict[str, Any]:
    with open(DATA_DIR / "nations.toml", "rb") as handle:
        return tomllib.load(handle)


def _broken(change: Callable[[dict[str, Any]], None]) -> dict[str, Any]:
    raw = copy.deepcopy(_raw())
    change(raw)
    return raw


BROKEN = {
    "stat modifier breaking the formula": lambda r: r["stat_modifiers"].__setitem__("13", 2),
    "stat modifier not a number": lambda r: r["stat_modifiers"].__setitem__("13", "one"),
    "demotion table missing a row": lambda r: r["demotion"].pop("elite"),
    "demotion row for conscripts": lambda r: r["demotion"].__setitem__("conscript", dict(r["demotion"]["green"])),
    "demotion row missing a column": lambda r: r["demotion"]["guard"].pop("conscript"),
    "promotion table missing a row": lambda r: r["promotion"].pop("guard"),
    "promotion without a retreat penalty": lambda r: r["promotion"].pop("retreat_penalty"),
    "rank without hp": lambda r: r["ranks"]["hp"].pop("elite"),
    "unknown house key": lambda r: r["house"].__setitem__("turns_per_day", 2),
    "house actions per turn 0": lambda r: r["house"].__setitem__("actions_per_turn", 0),
    "house actions per turn 4": lambda r: r["house"].__setitem__("actions_per_turn", 4),
    "house turn length 0": lambda r: r["house"].__setitem__("turn_hours", 0.0),
    "house land cut tie": lambda r: r["house"].__setitem__("land_cut_tie", "stability"),
    "house new nation over its land": lambda r: r["house"].__setitem__("new_nation_total", 25),
    "house preset rank unknown": lambda r: r["house"].__setitem__("preset_unit_rank", "veteran"),
    "missing section": lambda r: r.pop("propaganda"),
    "die with one side": lambda r: r["dice"].__setitem__("sides", 1),
    "unit change with an unknown key": lambda r: r["units"]["armour"]["strength"].__setitem__("speed", 1),
    "wins against an unknown type": lambda r: r["units"]["armour"]["wins"].__setitem__("cavalry", 1),
    "preset with strength == weakness": lambda r: r["presets"][0].__setitem__("weakness", "infantry"),
    "preset with an unknown unit": lambda r: r["presets"][0]["units"].__setitem__("zeppelin", 1),
    "two presets in one slot": lambda r: r["presets"][1].__setitem__("slot", 1),
}


ONCE_NOT_CAUGHT = [  # cases the first loader let through
    pytest.param(lambda r: r.__setitem__("propaganda_bonus", {}), id="empty propaganda bonus table"),
    pytest.param(lambda r: r["presets"][0].__setitem__("economy", 15), id="preset with E+M over its land"),
    pytest.param(lambda r: r["house"].__setitem__("recruit_meets_difficulty", "false"),
                 id="house bool given as a string"),
    pytest.param(lambda r: r["units"]["armour"].__setitem__("mp", -1), id="negative unit MP"),
    pytest.param(lambda r: r["units"]["armour"].__setitem__("rd", "x"), id="unit RD not a number"),
    pytest.param(lambda r: r.__setitem__("units", []), id="units not a table"),
]


@pytest.mark.parametrize("change", [*BROKEN.values(), *ONCE_NOT_CAUGHT],
                         ids=[*BROKEN, *(p.id for p in ONCE_NOT_CAUGHT)])
def test_a_broken_table_raises_rules_error(change):
    with pytest.raises(RulesError):
        rules_from_dict(_broken(change))


def test_the_unchanged_table_loads():
    assert rules_from_dict(_raw()) == rules_for("nations")


def test_the_commands_offer_exactly_the_unit_types_and_ranks_of_the_data():
    from engine.nations import commands

    rules = rules_for("nations")
    assert commands.UNIT_TYPES == tuple(rules.units)
    assert commands.RANKS == rules.ranks
