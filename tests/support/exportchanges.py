"""Changes to an export (a JSON dict) by dotted path, for the hostile-import tests: `set_at("systems.0.loans",
[...])`, `delete_at("game.current")`, `all_of(change, change)`."""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

Change = Callable[[dict[str, Any]], Any]


def node_at(data: Any, parts: list[str]) -> Any:
    """What `parts` (`["nations", "0", "units"]`) lead to in `data` (list indexes as digits)."""
    for part in parts:
        data = data[int(part)] if isinstance(data, list) else data[part]
    return data


def set_at(path: str, value: Any, copied: bool = True) -> Change:
    """A change that sets `path` (`nations.0.units.1.hp`) to a copy of `value` (`copied=False`: to `value`
    itself, e.g. a list nested too deep to copy)."""
    def change(data: dict[str, Any]) -> None:
        *parents, last = path.split(".")
        node = node_at(data, parents)
        new = copy.deepcopy(value) if copied else value
        if isinstance(node, list):
            node[int(last)] = new
        else:
            node[last] = new
    return change


def delete_at(path: str) -> Change:
    """A change that removes `path`."""
    def change(data: dict[str, Any]) -> None:
        *parents, last = path.split(".")
        del node_at(data, parents)[last]
    return change


def all_of(*changes: Change) -> Change:
    """The changes one after another."""
    def change(data: dict[str, Any]) -> None:
        for one in changes:
            one(data)
    return change
