"""The one injectable source of dice."""

from __future__ import annotations

import random
from collections import deque
from collections.abc import Iterable
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
