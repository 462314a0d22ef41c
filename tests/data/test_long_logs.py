"""A long game's log read without holding the database thread (issue 33): the events a page at a time, the
actions undo never takes back found by their events' kind, and an undo that marks only its own game's rows."""

from __future__ import annotations

import pytest
from storehelpers import RULES

import data.store.ledger as ledger
from engine.dice import ForcedRoller
from engine.nations import gm
from engine.nations import peace as nat
from service.referee import Referee


@pytest.fixture
def ref(store, clock) -> Referee:
    return Referee(store, RULES, ForcedRoller(), clock)


async def played(ref: Referee, channel: str) -> int:
    await ref.start_game(channel, "gm")
    await ref.act(channel, "gm", nat.ClaimPreset("Gracchan Republic", "alice"), "/nation claim")
    for change in (1, -1, 1, -1):
        await ref.act(channel, "gm", gm.SetStat("Gracchan Republic", "stability", change, relative=True), "/gm set")
    return await ref.game_id(channel)


async def test_the_log_is_read_a_page_at_a_time_and_whole(ref, store, monkeypatch):
    game_id = await played(ref, "chan")
    whole = await store.events(game_id)
    monkeypatch.setattr(ledger, "EVENTS_PAGE", 3)
    reads = []
    read = store._read

    async def counted(*args):
        reads.append(args[0])
        return await read(*args)

    monkeypatch.setattr(store, "_read", counted)
    paged = await store.events(game_id)
    assert [(e.id, e.action_id, e.event) for e in paged] == [(e.id, e.action_id, e.event) for e in whole]
    assert len(reads) == 1 + len(whole) // 3 + 1  # the rule set, then every page (the last one short)


async def test_undo_finds_the_actions_it_never_takes_back_without_reading_the_log(ref, store):
    game_id = await played(ref, "chan")
    started = (await store.actions(game_id, limit=100))[-1].id
    assert await store.actions_with(game_id, ("game_started",)) == {started}
    await ref.undo("chan", "gm")
    undone = await store.actions_with(game_id, ("action_undone",))
    assert len(undone) == 1 and undone.isdisjoint({started})


async def test_an_undo_marks_its_own_games_rows_only(ref, store):
    await played(ref, "other")
    game_id = await played(ref, "chan")
    await ref.undo("chan", "gm")
    events = await store.events(game_id, include_undone=True)
    assert sum(e.undone for e in events) == 1  # the last /gm set's one StatChanged
    other = await store.events(await ref.game_id("other"), include_undone=True)
    assert not any(e.undone for e in other)
