"""The command vocabulary's machinery, shared by every front-end: a command path and typed options → an
engine action.

The console parses a typed line into a path and options; a Discord cog receives them as typed slash
options. Both call `build_action`, so a command means the same thing everywhere. Commands whose
`action` is None are queries or store-level operations the front-end answers itself (status, export…).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from engine.errors import BadInput


@dataclass(frozen=True)
class Param:
    name: str
    kind: type = str
    required: bool = False
    help: str = ""
    choices: tuple[str, ...] = ()  # offered as choices on Discord; the engine checks the value


MAX_TOML_FILE = 200_000
"""The largest TOML file a command reads (`Command.toml_option`: God Dice's card file, 5 kB as shipped), in bytes."""


@dataclass(frozen=True)
class Command:
    path: str
    help: str
    params: tuple[Param, ...] = ()
    action: Callable[[dict[str, Any]], Any] | None = None
    gm_only: bool = False
    ruleset: str | None = None  # the rule set it belongs to (None: every game)
    # a query: what it shows, from (state, rules, actor, typed options); the front-ends lay the view out
    view: Callable[[Any, Any, str, dict[str, Any]], Any] | None = None
    shows_ended: bool = False  # the query shows the channel's last ended game when none runs (a status)
    toml_option: str | None = None  # an option naming a TOML file: the front-end reads it into a dict first


def parse_dice(text: str) -> list[int | str]:
    """Entered dice as typed: numbers ("7 3 10") or face names ("B R O 5", "H C"); each rule set checks them."""
    tokens = [t for t in re.split(r"[\s,]+", text.strip()) if t]
    return [int(t) if t.isdecimal() else t.upper() for t in tokens]


def coerce_options(command: Command, raw: dict[str, Any]) -> dict[str, Any]:
    """Check names, required options, types and choices; returns typed options."""
    params = {p.name: p for p in command.params}
    unknown = set(raw) - set(params)
    if unknown:
        raise BadInput(
            f"/{command.path} has no option {', '.join(sorted(unknown))}"
            + (f"; its options: {', '.join(params)}" if params else "")
        )
    typed: dict[str, Any] = {}
    for name, param in params.items():
        value = raw.get(name)
        if value is None or value == "":
            if param.required:
                raise BadInput(f"/{command.path} needs {name}:")
            continue
        if param.kind is not str and isinstance(value, str):
            try:
                value = param.kind(value)
            except ValueError:
                kind = {int: "a whole number", float: "a number"}.get(param.kind, param.kind.__name__)
                raise BadInput(f"{name} must be {kind}, not {value!r}") from None
        typed[name] = value
    return typed


def build_action(command: Command, options: dict[str, Any]) -> Any:
    """The engine action a command with typed options stands for."""
    if command.action is None:
        raise ValueError(f"/{command.path} is not an engine action")
    return command.action(options)
