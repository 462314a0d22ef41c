"""The one injectable source of dice, and the records of the roll ledger every rule set writes."""

from __future__ import annotations

import random
from collections import deque
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import Protocol


class Roller(Protocol):
    """Anything that rolls one die of `sides` faces (1..sides)."""

    def roll(self, sides: int) -> int: ...


class RandomRoller:
    """Fair dice from a `random.Random` (seed it for reproducible games)."""

    def __init__(self, rng: random.Random | None = None) -> None:
        self.rng = rng or random.SystemRandom()

    def roll(self, sides: int) -> int:
        return self.rng.randint(1, sides)


class ForcedRoller:
    """Dice from a fixed queue; rolling past its end is an error (tests use it to prove no die is used)."""

    def __init__(self, values: Iterable[int] = ()) -> None:
        self.queue: deque[int] = deque(values)
        self.used = 0

    def push(self, *values: int) -> None:
        self.queue.extend(values)

    def roll(self, sides: int) -> int:
        if not self.queue:
            raise AssertionError("ForcedRoller: no die left in the queue")
        value = self.queue.popleft()
        if not 1 <= value <= sides:
            raise AssertionError(f"ForcedRoller: {value} is not a d{sides} face")
        self.used += 1
        return value


@dataclass
class RollRecord:
    """One numbered die, in the open: why it was rolled, every modifier by name, and what it decided."""

    nation: str | None
    purpose: str
    die: int
    modifiers: dict[str, int]
    total: int
    target: int | None
    comparison: str | None  # ">" (better than), ">=" (at or above), or None (no target)
    success: bool | None
    forced: bool
    turn: int
    at: datetime
    battle: int | None = None
    unit: int | None = None
    sides: int = 10  # the die: a d10 in Nations, a d6 in Godsfire


@dataclass
class FacesRecord:
    """Several dice with named faces rolled together (God Dice): who, why, the faces, and which were entered."""

    player: str | None
    purpose: str
    faces: list[str]
    forced: list[bool]
    turn: int
    at: datetime

    @property
    def any_forced(self) -> bool:
        return any(self.forced)
