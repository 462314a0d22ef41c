"""The data layer: rule tables and house settings (TOML, one file per game) and the SQLite store."""

from __future__ import annotations

import tomllib
from functools import cache
from pathlib import Path

from engine.rules import Rules, rules_from_dict

DATA_DIR = Path(__file__).resolve().parent


def read_toml(name: str) -> dict:
    """Parse one data file of this folder."""
    with open(DATA_DIR / name, "rb") as handle:
        return tomllib.load(handle)


@cache
def nations_rules() -> Rules:
    """The Nations rules from `nations.toml`, validated (cached: the file is read once)."""
    return rules_from_dict(read_toml("nations.toml"))
