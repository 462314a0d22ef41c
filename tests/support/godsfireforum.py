"""The console in-process as a forum thread, for the Godsfire scripts played line by line (`Forum`)."""

from __future__ import annotations

import io
import re
from typing import Any

from storehelpers import RULES, FakeClock

from console.app import CHANNEL, Console
from data.store import Store
from engine.dice import ForcedRoller
from engine.godsfire.snapshot import state_to_dict
from service.referee import Referee


class Forum:
    """The console in-process, as a forum thread: each line's printed answer; refusals change nothing."""

    def __init__(self, console: Console, store: Store, out: io.StringIO) -> None:
        self.console, self.store, self.out = console, store, out
        self.entered = 0

    def _said(self) -> list[str]:
        said = self.out.getvalue().splitlines()
        self.out.truncate(0)
        self.out.seek(0)
        return said

    async def say(self, line: str, *words: str) -> list[str]:
        """Run a line that must succeed (and print these words); its printed lines."""
        await self.console.handle(line)
        said = self._said()
        errors = [s for s in said if s.startswith("error:")]
        assert not errors, (line, errors)
        text = "\n".join(said)
        for word in words:
            assert word in text, (word, said)
        return said

    async def refused(self, line: str, *words: str) -> str:
        """Run a line that must be refused with these words, changing nothing and using no die."""
        before = state_to_dict(await self.state())
        await self.console.handle(line)
        said = self._said()
        assert len(said) == 1 and said[0].startswith("error:"), (line, said)
        for word in words:
            assert word in said[0], (word, said[0])
        assert state_to_dict(await self.state()) == before, line
        return said[0]

    async def dice(self, *values: int) -> None:
        """The GM enters the next dice (`/gm dice`)."""
        await self.say(f'gm /gm dice values:"{" ".join(map(str, values))}"')
        self.entered += len(values)

    async def rolled(self, line: str, dice: list[tuple[str, int]], *words: str) -> list[str]:
        """Enter `dice` (purpose, value), run the line, find each roll printed by its purpose and value (in
        order), and check every entered die was used."""
        await self.dice(*(value for _, value in dice))
        said = await self.say(line, *words)
        rolls = [s for s in said if re.search(r": d6 \d \(GM die\)$", s)]
        assert len(rolls) == len(dice), (rolls, dice)
        for roll, (purpose, value) in zip(rolls, dice, strict=True):
            assert purpose in roll and re.search(rf": d6 {value} \(GM die\)", roll), (purpose, value, roll)
        assert not (await self.state()).forced_dice, "an entered die was not used"
        return said

    async def state(self) -> Any:
        return await self.console.referee.state(CHANNEL)


async def opened(tmp_path: Any, name: str) -> Forum:
    store = await Store.open(tmp_path / f"{name}.db")
    out = io.StringIO()
    return Forum(Console(Referee(store, RULES, ForcedRoller(), FakeClock()), out), store, out)
