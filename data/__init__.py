"""The data layer: rule tables and house settings (TOML, one file per rule set, named by the rule set's
`rules_file`) and the store."""

from __future__ import annotations

import tomllib
from functools import cache
from pathlib import Path
from typing import Any

import engine  # noqa: F401  (registers every rule set)
from engine.house import RulesError
from engine.rulesets import RULESETS

DATA_DIR = Path(__file__).resolve().parent


def read_toml(name: str) -> dict:
    """Parse one data file of this folder."""
    with open(DATA_DIR / name, "rb") as handle:
        return tomllib.load(handle)


@cache
def _rules(ruleset: str, rules_file: str | None) -> Any:
    found = RULESETS[ruleset]
    if found.rules_from_dict is None:
        return None
    return found.rules_from_dict(read_toml(rules_file) if rules_file else {})


def rules_for(ruleset: str) -> Any:
    """The validated rules of one rule set, from its data file (each file is read once)."""
    found = RULESETS.get(ruleset)
    if found is None:
        raise RulesError(f"no rule set {ruleset!r}")
    return _rules(found.name, found.rules_file)
