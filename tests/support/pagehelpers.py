"""Helpers of the game-page tests (issue 22), not a test module itself: games of each rule set played through the
console's referee (forced dice, a fake clock) on a store in the test's folder, and their page served by aiohttp's
test server."""

from __future__ import annotations

import io
import re
import sys
from collections.abc import AsyncIterator, Iterable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

TESTS = Path(__file__).resolve().parents[1]
if str(TESTS) not in sys.path:
    sys.path.insert(0, str(TESTS))

from aiohttp.test_utils import TestClient, TestServer  # noqa: E402
from goddicehelpers import SEAT_AND_DRAFT  # noqa: E402
from storehelpers import RULES, FakeClock, said  # noqa: E402

from console.app import Console  # noqa: E402
from data.store import Store  # noqa: E402
from engine.dice import ForcedRoller  # noqa: E402
from service.referee import Referee  # noqa: E402
from web.server import GamePages  # noqa: E402

HOSTILE = "<script>alert(1)</script>"
NATIONS = [
    "gm /game start turn_hours:12",
    'alice /nation claim preset:"Gracchan Republic"',
    (f'mallory /nation create name:"{HOSTILE}" economy:10 military:10 strength:infantry weakness:bomber '
     'units:"infantry:3 bomber:1"'),
    "bob /nation claim preset:Charon",
    'gm /gm dice values:"9 8"',
    "alice /economy military",
    "alice /propaganda encourage workers",
    "bob /attack declare target:Gracchan units:10",
]
GODDICE = [*SEAT_AND_DRAFT, "alice /goddice declare attacker:hero", 'gm /gm dice values:"S A"',
           "bob /goddice defend character:monk"]
GODSFIRE = [
    "gm /game start ruleset:godsfire", 'gm /gm dice values:"3 4 5 3 1 1 6 6"',
    "gm /godsfire system add name:Sol owner:alice planets:2 regions:2", "gm /godsfire phase next",
    "alice /godsfire movement pass",  # A.1: turn 1's initiative starts at the GM's first step
    "gm /godsfire phase next", "gm /godsfire phase next", "gm /godsfire phase next",
]
GODSFIRE_ON_THE_MAP = [  # alice's Aster and bob's Brand on the shipped map The Twin Reaches, 2 SQD at Aster
    "gm /game start ruleset:godsfire",
    'gm /gm dice values:"3 4 5 3 1 1 6 6"',
    "gm /godsfire system add name:Aster owner:alice planets:2 regions:2",
    'gm /gm dice values:"3 4 5 3 1 1 6 6"',
    "gm /godsfire system add name:Brand owner:bob planets:2 regions:2",
    "gm /godsfire map load name:twin-reaches",
    "gm /godsfire counter add kind:SQD at:Aster owner:alice count:2",
]
LONG_ID = re.compile(r"\d{15,}")


class Table:
    """A game played through the console's referee on a store at `path`: `play(lines)` runs console lines (each
    must be answered without an error), `roller` gives the dice of rules rolls and free rolls."""

    def __init__(self, store: Store, console: Console, out: io.StringIO, roller: ForcedRoller,
                 clock: FakeClock) -> None:
        self.store, self.console, self.out, self.roller, self.clock = store, console, out, roller, clock
        self.referee: Referee = console.referee

    @classmethod
    async def open(cls, path: Path) -> Table:
        store = await Store.open(path)
        roller, clock, out = ForcedRoller(), FakeClock(), io.StringIO()
        return cls(store, Console(Referee(store, RULES, roller, clock), out), out, roller, clock)

    async def play(self, lines: Iterable[str]) -> list[str]:
        answers = []
        for line in lines:
            await self.console.handle(line)
            answer = said(self.out)
            assert not any(a.startswith("error:") for a in answer), (line, answer)
            answers += answer
        return answers

    async def game_id(self) -> int:
        found = await self.store.live_game("console")
        if found is None:
            found = await self.store.last_ended_game("console")
        assert found is not None
        return found

    async def token(self) -> str:
        return await self.store.page_token(await self.game_id(), self.clock())


@asynccontextmanager
async def serving(table: Table, **options: Any) -> AsyncIterator[tuple[TestClient, GamePages]]:
    """The table's game pages served by aiohttp's test server: (client, pages). Each change is shown at once (the
    store asked and the page made again at every request: `recheck_seconds=0`, `remake_seconds=0`) unless a test
    says otherwise."""
    options.setdefault("remake_seconds", 0)
    options.setdefault("recheck_seconds", 0)
    pages = GamePages(table.referee, "https://referee.example.org", **options)
    client = TestClient(TestServer(pages.app))
    await client.start_server()
    try:
        yield client, pages
    finally:
        await client.close()
        await pages.close()
