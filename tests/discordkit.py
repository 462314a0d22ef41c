"""Helpers for tests of the project's Discord bot against the fake Discord (tests/fakediscord.py)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path

from fakediscord import FakeDiscord, RunningBot

from bot import Settings, create_bot
from engine.dice import ForcedRoller, RandomRoller

START = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)


class FakeClock:
    """The bot's clock, moved by hand (the scheduler waits real time for the difference)."""

    def __init__(self, now: datetime = START) -> None:
        self.now = now

    def __call__(self) -> datetime:
        return self.now

    def advance(self, **delta: float) -> None:
        self.now += timedelta(**delta)


class Dice(ForcedRoller):
    """Forced dice that fall back to fair ones when the queue is empty (so a slip does not hang a test)."""

    def __init__(self) -> None:
        super().__init__()
        self.fallback = RandomRoller()

    def roll(self, sides: int) -> int:
        return super().roll(sides) if self.queue else self.fallback.rng.randint(1, sides)


def settings(db: Path, clock: FakeClock, dice: Dice | None = None, **extra: object) -> Settings:
    return Settings(token="fake-bot-token", db_path=str(db), clock=clock, roller=dice or Dice(), **extra)


@asynccontextmanager
async def running(fake: FakeDiscord, config: Settings, **options: object) -> AsyncIterator[RunningBot]:
    """The project's bot, connected to the fake until the block ends."""
    bot = create_bot(config, guild_ready_timeout=0.05, **options)
    running_bot = await fake.start_bot(bot)
    try:
        yield running_bot
    finally:
        await running_bot.close()


async def quiet(fake: FakeDiscord, period: float = 0.15, timeout: float = 5.0) -> None:
    """Wait until the bot has sent the fake nothing for `period` seconds (its follow-up work is done)."""
    import asyncio
    import time

    deadline = time.monotonic() + timeout
    seen = len(fake.requests)
    while time.monotonic() < deadline:
        await asyncio.sleep(period)
        if len(fake.requests) == seen:
            return
        seen = len(fake.requests)
    raise AssertionError("the bot never went quiet")
