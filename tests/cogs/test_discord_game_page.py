"""The game's page on Discord (issue 22), the real bot against the fake Discord: `/game page` answers anyone with the
link, privately; `/gm page rotate` is the GM's, answers them with a new link and tells the channel that the old one
died; the pinned status and the final results link to the page; a bot that serves no pages says so and changes
nothing. With pages on, the bot serves them itself (WEB_PORT): the link opens the page, a rotated one answers 404."""

from __future__ import annotations

import re
import socket

import aiohttp
from discordkit import config, running, start_war, table, texts
from storehelpers import scalar

from service.referee import PAGE_ABOUT, PAGE_ROTATED

PUBLIC = "https://referee.example.org"
LINK = re.compile(r"<(https?://[^>\s]+/g/([A-Za-z0-9_-]+))>")


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def with_pages(t, public_url: str = PUBLIC, port: int | None = None):
    """The table's bot serving the game pages on 127.0.0.1 (a free port), its links under `public_url`."""
    return running(t.fake, config(t.db, t.clock, t.dice, web_port=port or free_port(), public_url=public_url))


def link_of(result) -> tuple[str, str]:
    """The page link in an answer, and its token."""
    found = LINK.search(texts(result))
    assert found, texts(result)
    return found.group(1), found.group(2)


async def test_game_page_gives_anyone_the_link_privately_and_the_pin_links_to_it(tmp_path):
    async with table(tmp_path) as t, with_pages(t) as rb:
        await start_war(t)
        asked = await t.run(t.bob, "game page")
        assert asked.ephemeral
        link, token = link_of(asked)
        assert link == f"{PUBLIC}/g/{token}"
        assert PAGE_ABOUT in texts(asked) and "This game's page:" in texts(asked)
        game_id = await rb.bot.referee.game_id(t.key())
        assert await rb.bot.store.page_game(token) == game_id
        again = await t.run(t.alice, "game page")
        assert link_of(again)[0] == link  # one link per game, the same for everyone
        assert all(link not in texts(m) for m in t.messages() if m is not t.status_message())  # never in public

        pin = t.status_message().embeds[0]
        assert f"[Game page]({link})" in pin["description"]
        if pin.get("title"):
            assert pin["url"] == link


async def test_gm_page_rotate_is_the_gms_gives_a_new_link_and_tells_the_channel(tmp_path):
    async with table(tmp_path) as t, with_pages(t) as rb:
        await start_war(t)
        old, old_token = link_of(await t.run(t.alice, "game page"))

        t.fake.allow(t.guild, "gm", t.alice)  # the server shows /gm to alice: the bot still refuses her
        before = len(t.messages())
        refused = await t.run(t.alice, "gm page rotate")
        assert refused.ephemeral and texts(refused) == "⛔ only the game's GM or a co-GM may use /gm commands"
        assert len(t.messages()) == before
        assert link_of(await t.run(t.bob, "game page"))[0] == old  # nothing changed

        rotated = await t.run(t.gm, "gm page rotate")
        assert rotated.ephemeral
        new, new_token = link_of(rotated)
        assert new != old and new.startswith(f"{PUBLIC}/g/")
        assert "The old one no longer works" in texts(rotated)
        [note] = [m for m in t.messages()[before:] if PAGE_ROTATED in texts(m)]
        assert not note.ephemeral and new not in texts(note) and old not in texts(note)
        assert await rb.bot.store.page_game(old_token) is None
        assert await rb.bot.store.page_game(new_token) == await rb.bot.referee.game_id(t.key())
        assert link_of(await t.run(t.bob, "game page"))[0] == new
        pin = t.status_message().embeds[0]["description"]
        assert f"({new})" in pin and old not in pin  # the pinned status links to the new page at once


async def test_without_pages_both_commands_say_so_and_change_nothing(tmp_path):
    async with table(tmp_path) as t, t.bot() as rb:
        assert rb.bot.pages is None
        await start_war(t)
        before = len(t.messages())
        for user, command in ((t.alice, "game page"), (t.gm, "gm page rotate")):
            refused = await t.run(user, command)
            said = texts(refused).replace("\\_", "_")  # (as Discord shows it: markdown's escapes undone)
            assert refused.ephemeral
            assert "serves no game pages" in said and "WEB_PORT" in said and "PUBLIC_URL" in said, said
        assert len(t.messages()) == before
        assert await scalar(rb.bot.store, "SELECT COUNT(*) FROM game_pages") == 0  # no link was made
        assert "Game page" not in texts(t.status_message())


async def test_the_final_results_link_to_the_page_and_an_ended_games_link_stays(tmp_path):
    async with table(tmp_path) as t, with_pages(t) as rb:
        await start_war(t)
        link, token = link_of(await t.run(t.alice, "game page"))
        asked = await t.run(t.gm, "game end")
        before = len(t.messages())
        await t.click(t.gm, asked.message, asked.custom_ids[0])
        [results] = [m for m in t.messages()[before - 1:] if m.embeds
                     and m.embeds[0].get("title") == "🏁 Game over — final results"]
        assert f"[Game page]({link})" in results.embeds[0]["description"]
        assert results.embeds[0]["url"] == link
        after = await t.run(t.bob, "game page")
        assert link_of(after)[0] == link and "its page stays readable" in texts(after)
        rotated = await t.run(t.gm, "gm page rotate")  # the ended game's GM may still retire a leaked link
        assert link_of(rotated)[0] != link and await rb.bot.store.page_game(token) is None


async def test_no_game_no_page(tmp_path):
    async with table(tmp_path) as t, with_pages(t):
        refused = await t.run(t.alice, "game page")
        assert refused.ephemeral and "there is no game in this channel" in texts(refused)


async def test_the_bot_serves_the_page_and_a_rotated_link_is_404(tmp_path):
    port = free_port()
    async with table(tmp_path) as t, with_pages(t, f"http://127.0.0.1:{port}", port) as rb:
        await start_war(t)
        link, _ = link_of(await t.run(t.alice, "game page"))
        async with aiohttp.ClientSession() as http:
            async with http.get(link) as page:
                assert page.status == 200
                body = await page.text()
            assert "Gracchan Republic" in body and "Charon" in body
            new, _ = link_of(await t.run(t.gm, "gm page rotate"))
            async with http.get(link) as gone:
                assert gone.status == 404
            async with http.get(new) as page:
                assert page.status == 200
        await rb.bot.close()  # the server closes with the bot
        async with aiohttp.ClientSession() as http:
            try:
                async with http.get(new) as late:
                    assert late.status != 200
            except aiohttp.ClientConnectionError:
                pass


async def test_page_names_are_members_display_names_from_the_cache(tmp_path):
    async with table(tmp_path) as t, with_pages(t) as rb:
        bot = rb.bot
        name = bot.page_name(t.guild.id, str(t.alice.id))
        cached = bot.get_guild(t.guild.id).get_member(t.alice.id) or bot.get_user(t.alice.id)
        assert name == (cached.display_name if cached is not None else f"player …{str(t.alice.id)[-4:]}")
        assert bot.page_name(t.guild.id, "123456789012345678") == "player …5678"  # no one the bot knows
        assert bot.page_name(None, "gm") == "gm"  # a name that is not a user id: as stored
