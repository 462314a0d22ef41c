"""Issue 34 in the console: a paused clock holds a battle choice — five hours on, nothing times out and the status
says paused, with the time each deadline has left — and resuming gives the choice its time back."""

from __future__ import annotations

import io

from storehelpers import RULES, FakeClock

from console.app import Console
from data.store import Store
from engine.dice import ForcedRoller
from service.referee import Referee


async def test_a_paused_clock_holds_a_battle_choice_in_the_console(tmp_path):
    store = await Store.open(tmp_path / "c.db")
    out, clock, dice = io.StringIO(), FakeClock(), ForcedRoller()
    console = Console(Referee(store, RULES, dice, clock), out)

    async def said(*lines: str) -> list[str]:
        out.truncate(0)
        out.seek(0)
        for line in lines:
            await console.handle(line)
        return out.getvalue().splitlines()

    try:
        await said("gm /game start turn_hours:12", "alice /nation claim preset:Charon",
                   "bob /nation claim preset:Gracchan Republic", "alice /attack declare target:Gracchan units:1")
        clock.advance(hours=1)
        assert await said("gm /gm clock pause") == ["⏸ The clock is paused: every deadline waits until it resumes."]
        clock.advance(hours=5)  # the choice's deadline (a third of the turn: 4 hours) is 2 hours gone
        status = await said("bob /game status")
        assert not [line for line in status if "Time is up" in line]
        assert status[0] == "Nations — turn 1 (12 h), paused: 11 h left of the turn; GM: gm"
        assert status[-1] == ("Battle #1 waits for Gracchan Republic to commit units (default 3 h left when the clock "
                              "resumes)")
        resumed = await said("gm /gm clock resume")
        ends = "2030-01-01 17:00 UTC"  # resumed at +6 h with 11 h of the turn left
        assert resumed == [f"▶ The clock runs again: this turn ends {ends}; every deadline has its time left."]
        clock.advance(hours=3, minutes=-1)
        assert not [line for line in await said("bob /game status") if "Time is up" in line]
        clock.advance(minutes=2)
        dice.push(10, 8)
        shown = await said("bob /game status")
        assert shown[0].startswith("⌛ Time is up for Gracchan Republic's commit in battle #1")
    finally:
        await store.close()
