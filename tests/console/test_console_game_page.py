"""The game's page in the console (issue 22): `/game page` prints the link of the console's game when the console
serves pages (`python bot.py --web`), `/gm page rotate` is the GM's and prints the new one; without pages both say
how to turn them on and change nothing. (`--web` itself, serving for real: tests/cogs/test_page_hosting.py.)"""

from __future__ import annotations

from storehelpers import console_on, said, scalar

from console.app import NO_PAGES
from service.referee import PAGE_ABOUT
from web.server import page_url

PUBLIC = "https://forum-referee.example.org"


class Links:
    """The page server as the console uses it: a game's link from its token."""

    def url(self, token: str) -> str:
        return page_url(PUBLIC, token)


async def test_without_pages_both_commands_say_how_to_turn_them_on(tmp_path):
    console, store, out = await console_on(tmp_path / "c.db")
    try:
        await console.handle("gm /game start")
        said(out)
        await console.handle("alice /game page")
        await console.handle("gm /gm page rotate")
        assert said(out) == [f"error: {NO_PAGES}"] * 2
        assert "python bot.py --web" in NO_PAGES
        assert await scalar(store, "SELECT COUNT(*) FROM game_pages") == 0
    finally:
        await store.close()


async def test_game_page_prints_the_link_and_the_gm_rotates_it(tmp_path):
    console, store, out = await console_on(tmp_path / "c.db")
    console.pages = Links()
    try:
        await console.handle("alice /game page")
        assert said(out)[-1].startswith("error: there is no game in this channel")
        await console.handle("gm /game start")
        said(out)
        await console.handle("alice /game page")
        first, about = said(out)
        assert first.startswith(f"The game's page: {PUBLIC}/g/") and about == PAGE_ABOUT
        link = first.split(": ", 1)[1]
        token = link.rsplit("/", 1)[1]
        assert await store.page_game(token) == await store.live_game("console")

        await console.handle("alice /gm page rotate")
        assert said(out) == ["error: only the GM may change the game's page link"]
        await console.handle("gm /gm page rotate")
        rotated, after = said(out)
        new = rotated.split("new link: ", 1)[1]
        assert new != link and new.startswith(f"{PUBLIC}/g/")
        assert after == "The old one no longer works."
        assert await store.page_game(token) is None

        # the game ends: its page stays, with the same link
        await console.handle("gm /game end confirm:true")
        said(out)
        await console.handle("bob /game page")
        assert said(out)[0] == f"The last game, ended: its page stays readable: {new}"
    finally:
        await store.close()
