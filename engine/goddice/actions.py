"""The God Dice actions: one for each move a player or the GM makes (each module applies its own)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass
class Join:
    player: str | None = None  # a GM may seat someone else


@dataclass
class Begin:
    pass


@dataclass
class ChooseFirst:
    choice: str  # "attack" or "select"


@dataclass
class Pick:
    character: str


@dataclass
class Declare:
    attacker: str | None = None
    target: str | None = None  # Free for All: the player attacked


@dataclass
class Defend:
    character: str


@dataclass
class Roll:
    type: str | None = None  # None: the opening roll


@dataclass
class Favor:
    choice: str  # "keep" or "reroll"


@dataclass
class MakeAttack:
    name: str
    targets: str | None = None
    heal: str | None = None


@dataclass
class Resurrect:
    character: str  # or "decline"


@dataclass
class LoadCards:
    cards: dict[str, Any]


@dataclass
class SetLife:
    player: str
    character: str
    life: int
