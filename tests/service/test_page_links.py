"""The game's page through the referee (issue 22): `/game page`'s token for the channel's shown game (live, else its
last ended one), and `/gm page rotate`, the GM's alone, that makes a new one and kills the old."""

from __future__ import annotations

import pytest
from storehelpers import FakeClock

from engine import clock as game_clock
from engine.errors import NoGame, NotGM
from engine.nations import peace as nat
from service.referee import NO_GAME, Referee


@pytest.fixture
async def ref(store) -> Referee:
    referee = Referee(store, clock=FakeClock())
    await referee.start_game("chan", "gm")
    await referee.act("chan", "gm", nat.ClaimPreset("Gracchan Republic", "alice"), '/nation claim "Gracchan Republic"')
    return referee


async def test_no_game_no_page(store):
    referee = Referee(store, clock=FakeClock())
    with pytest.raises(NoGame, match=NO_GAME):
        await referee.page_token("empty")
    with pytest.raises(NoGame):
        await referee.rotate_page_token("empty", "gm", gm_role=True)


async def test_anyone_gets_the_same_link_of_the_channels_game(ref):
    token = await ref.page_token("chan")
    assert await ref.page_token("chan") == token
    assert await ref.store.page_game(token) == await ref.game_id("chan")


async def test_only_the_gm_rotates_the_link(ref):
    token = await ref.page_token("chan")
    with pytest.raises(NotGM, match="only the GM"):
        await ref.rotate_page_token("chan", "alice")
    assert await ref.page_token("chan") == token  # refused: nothing changed
    new = await ref.rotate_page_token("chan", "GM")  # the GM, however written
    assert new != token and await ref.page_token("chan") == new
    assert await ref.store.page_game(token) is None
    by_role = await ref.rotate_page_token("chan", "carol", gm_role=True)  # the GM role, Manage Server
    assert by_role != new and await ref.store.page_game(new) is None


async def test_an_ended_game_keeps_its_link_and_a_new_game_has_another(ref):
    token = await ref.page_token("chan")
    ended = await ref.game_id("chan")
    await ref.act("chan", "gm", game_clock.EndGame(), "/game end")
    assert await ref.page_token("chan") == token  # the channel's last game, ended: the same page
    assert await ref.store.page_game(token) == ended
    with pytest.raises(NotGM):
        await ref.rotate_page_token("chan", "alice")
    rotated = await ref.rotate_page_token("chan", "gm")  # its GM may still retire a leaked link
    assert await ref.store.page_game(rotated) == ended and await ref.store.page_game(token) is None

    await ref.start_game("chan", "bob")
    fresh = await ref.page_token("chan")
    assert fresh != rotated and await ref.store.page_game(fresh) == await ref.game_id("chan")
    assert await ref.store.page_game(rotated) == ended  # the old game's page stays readable
    with pytest.raises(NotGM):
        await ref.rotate_page_token("chan", "gm")  # the new game's GM is bob
