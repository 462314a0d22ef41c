"""The data layer: rule tables and house settings (TOML, one file per rule set) and the SQLite store."""

from __future__ import annotations

import tomllib
from collections.abc import Callable
from functools import cache
from pathlib import Path
from typing import Any

from engine.goddice.cards import GoddiceRules
from engine.goddice.cards import rules_from_dict as goddice_rules_from_dict
from engine.godsfire.rules import GodsfireRules
from engine.godsfire.rules import rules_from_dict as godsfire_rules_from_dict
from engine.house import RulesError
from engine.nations.rules import Rules, rules_from_dict

DATA_DIR = Path(__file__).resolve().parent


def read_toml(name: str) -> dict:
    """Parse one data file of this folder."""
    with open(DATA_DIR / name, "rb") as handle:
        return tomllib.load(handle)


@cache
def nations_rules() -> Rules:
    """The Nations rules from `nations.toml`, validated (cached: the file is read once)."""
    return rules_from_dict(read_toml("nations.toml"))


@cache
def goddice_rules() -> GoddiceRules:
    """The God Dice card file `goddice.toml` and its house settings, validated (read once)."""
    return goddice_rules_from_dict(read_toml("goddice.toml"))


@cache
def godsfire_rules() -> GodsfireRules:
    """The Godsfire chart sheet `godsfire.toml` and its house settings, validated (read once)."""
    return godsfire_rules_from_dict(read_toml("godsfire.toml"))


RULE_LOADERS: dict[str, Callable[[], Any]] = {"nations": nations_rules, "goddice": goddice_rules,
                                              "godsfire": godsfire_rules}


def rules_for(ruleset: str) -> Any:
    """The validated rules of one rule set, from its data file."""
    loader = RULE_LOADERS.get(ruleset)
    if loader is None:
        raise RulesError(f"no data file for rule set {ruleset!r}")
    return loader()
