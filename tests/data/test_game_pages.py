"""The game's page in the store (issue 22): one secret token per game, made once and kept, a new one when the GM
rotates it (the old one opens nothing any more), a token of the wrong shape never looked up, and a version that
changes whenever the page would (an action, an undo, a free roll, the game's end). On SQLite, and on PostgreSQL
with `pytest --postgres`."""

from __future__ import annotations

import re

import pytest
from storehelpers import FakeClock

from data.store import PAGE_TOKEN
from engine import clock as game_clock
from engine.dice import ForcedRoller
from engine.nations import peace as nat
from service.referee import Referee


async def two_games(store) -> tuple[Referee, int, int]:
    ref = Referee(store, roller=ForcedRoller([3]), clock=FakeClock())  # one die: the free roll's
    first = (await ref.start_game("one", "gm")).game_id
    second = (await ref.start_game("two", "gm")).game_id
    return ref, first, second


async def test_a_games_token_is_made_once_and_kept(store):
    ref, first, second = await two_games(store)
    token = await store.page_token(first, ref.clock())
    assert PAGE_TOKEN.fullmatch(token) and re.fullmatch(r"[A-Za-z0-9_-]{24}", token)
    assert await store.page_token(first, ref.clock()) == token  # the same link every time
    other = await store.page_token(second, ref.clock())
    assert other != token
    assert await store.page_game(token) == first and await store.page_game(other) == second


async def test_a_rotated_token_opens_nothing_and_the_new_one_opens_the_game(store):
    ref, first, second = await two_games(store)
    old = await store.page_token(first, ref.clock())
    kept = await store.page_token(second, ref.clock())
    new = await store.rotate_page_token(first, ref.clock())
    assert new != old and PAGE_TOKEN.fullmatch(new)
    assert await store.page_game(old) is None
    assert await store.page_game(new) == first
    assert await store.page_token(first, ref.clock()) == new  # the new one is the link from now on
    assert await store.page_game(kept) == second  # another game's link is untouched
    # a game never asked for its link: rotation makes its first
    third = (await ref.start_game("three", "gm")).game_id
    made = await store.rotate_page_token(third, ref.clock())
    assert await store.page_token(third, ref.clock()) == made


@pytest.mark.parametrize("token", ["", "short", "x" * 65, "abc/def" + "x" * 20, "a b" + "x" * 20, "../../etc/passwd",
                                   "' OR 1=1 --" + "x" * 10, "é" * 24, "x" * 23 + "\n"])
async def test_a_token_of_the_wrong_shape_opens_nothing(store, token):
    ref, first, _ = await two_games(store)
    await store.page_token(first, ref.clock())
    assert await store.page_game(token) is None


async def test_an_unknown_token_of_the_right_shape_opens_nothing(store):
    ref, first, _ = await two_games(store)
    token = await store.page_token(first, ref.clock())
    assert await store.page_game(("A" if token[0] != "A" else "B") + token[1:]) is None


async def test_the_version_changes_after_an_action_an_undo_a_free_roll_and_the_end(store):
    ref, first, _ = await two_games(store)
    seen = [await store.page_version(first)]
    assert await store.page_version(first) == seen[0]  # nothing happened: the same

    await ref.act("one", "gm", nat.ClaimPreset("Gracchan Republic", "alice"), '/nation claim "Gracchan Republic"')
    seen.append(await store.page_version(first))
    await ref.undo("one", "gm")
    seen.append(await store.page_version(first))
    await ref.free_roll("one", "alice", "1d6")
    seen.append(await store.page_version(first))
    await ref.act("one", "gm", game_clock.EndGame(), "/game end")
    seen.append(await store.page_version(first))
    assert len(set(seen)) == len(seen), seen
    with pytest.raises(KeyError):
        await store.page_version(10**6)


async def test_page_of_is_the_game_and_its_version_in_one_read(store):
    """What every request for a page asks: the game a token opens and its page's version, one statement."""
    ref, first, second = await two_games(store)
    token, other = await store.page_token(first, ref.clock()), await store.page_token(second, ref.clock())
    assert await store.page_of(token) == (first, await store.page_version(first))
    await ref.act("one", "gm", nat.ClaimPreset("Gracchan Republic", "alice"), '/nation claim "Gracchan Republic"')
    assert await store.page_of(token) == (first, await store.page_version(first))
    assert await store.page_of(other) == (second, await store.page_version(second))
    assert (await store.page_of(token))[1] != (await store.page_of(other))[1]
    rotated = await store.rotate_page_token(first, ref.clock())
    assert await store.page_of(token) is None and await store.page_of("x") is None
    assert await store.page_of(rotated) == (first, await store.page_version(first))
