"""Issue 34 through the referee and the store: undoing /gm clock resume pauses the game again with every deadline
where it was, undoing /gm clock pause lets them run as before, and an export and import keep a pause."""

from __future__ import annotations

from datetime import timedelta

from storehelpers import RULES, T0, FakeClock

from data.store import Store
from engine.clock import PauseClock, ResumeClock
from engine.dice import ForcedRoller
from engine.nations import peace, war
from engine.nations.snapshot import state_to_dict
from service.referee import Referee


async def test_undo_of_a_resume_and_of_a_pause_restores_every_deadline_exactly(tmp_path):
    store = await Store.open(tmp_path / "u.db")
    clock = FakeClock()
    try:
        referee = Referee(store, RULES, ForcedRoller(), clock)
        game_id = (await referee.start_game("chan", "gm")).game_id
        for preset, who in (("Gracchan Republic", "alice"), ("Charon", "bob")):
            await referee.act("chan", "gm", peace.ClaimPreset(preset, who), "/nation claim")
        await referee.act("chan", "alice", war.DeclareAttack("Charon", [1]), "/attack declare")  # default at +4 h
        running = state_to_dict(await store.load(game_id))
        clock.advance(hours=1)
        await referee.act("chan", "gm", PauseClock(), "/gm clock pause")
        paused = state_to_dict(await store.load(game_id))
        clock.advance(hours=5)
        await referee.act("chan", "gm", ResumeClock(), "/gm clock resume")
        state = await store.load(game_id)
        assert state.battles[1].deadline == T0 + timedelta(hours=9) and state.turn_ends_at == T0 + timedelta(hours=17)

        await referee.undo("chan", "gm")  # the resume taken back: paused again, every deadline where it was
        assert state_to_dict(await store.load(game_id)) == paused
        assert state_to_dict(await store.replayed(game_id)) == paused
        await referee.undo("chan", "gm")  # the pause taken back: the clock runs as before it (the choice is due)
        assert state_to_dict(await store.load(game_id)) == running
    finally:
        await store.close()
