"""The page server's bounded bookkeeping: a least-recently-used cache, per-address request buckets and slots held
at once, each with a fixed size, so that no visitor can make them grow."""

from __future__ import annotations

import time
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Any


class Lru:
    """A bounded cache: the least recently used entry goes first."""

    def __init__(self, size: int) -> None:
        self.size = size
        self.entries: OrderedDict[Hashable, Any] = OrderedDict()

    def get(self, key: Hashable) -> Any:
        found = self.entries.get(key)
        if found is not None:
            self.entries.move_to_end(key)
        return found

    def put(self, key: Hashable, value: Any) -> None:
        self.entries[key] = value
        self.entries.move_to_end(key)
        while len(self.entries) > self.size:
            self.entries.popitem(last=False)


class TokenBuckets:
    """Requests per address: `burst` at once, then `rate` a second. The table is bounded (`size` addresses, the
    longest idle forgotten first: a forgotten address starts again with a full bucket)."""

    def __init__(self, rate: float, burst: float, size: int = 10_000,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.rate, self.burst, self.size, self.clock = rate, burst, size, clock
        self.buckets: OrderedDict[str, tuple[float, float]] = OrderedDict()

    def take(self, address: str) -> float:
        """0 when the request may go on (a token taken), else the seconds until the next token."""
        now = self.clock()
        tokens, then = self.buckets.pop(address, (self.burst, now))
        tokens = min(self.burst, tokens + (now - then) * self.rate)
        wait = 0.0
        if tokens >= 1:
            tokens -= 1
        else:
            wait = (1 - tokens) / self.rate
        self.buckets[address] = (tokens, now)
        while len(self.buckets) > self.size:
            self.buckets.popitem(last=False)
        return wait


class Slots:
    """Things held at once (live streams, downloads), bounded in all and per key (an address)."""

    def __init__(self, total: int, per_key: int) -> None:
        self.total, self.per_key = total, per_key
        self.held: dict[str, int] = {}
        self.count = 0

    def take(self, key: str) -> bool:
        """A slot for `key`, or False: none left in all or for it."""
        held = self.held.get(key, 0)
        if self.count >= self.total or held >= self.per_key:
            return False
        self.held[key] = held + 1
        self.count += 1
        return True

    def give(self, key: str) -> None:
        """The slot `take` gave back."""
        self.count -= 1
        held = self.held.pop(key, 1) - 1
        if held > 0:
            self.held[key] = held
