"""Issue 22: the game's page, served by aiohttp without a browser — games of each rule set played through the
referee (the console's, forced dice, a fake clock) on a store in the test's folder (and on PostgreSQL with
`pytest --postgres`): what each page shows, escaping, the capability link (404s alike, rotation), methods, headers,
the ledger's filters and CSV, live updates, the rate limit, the size of a long game's page, the chart as SVG, an
ended game's page, and no Discord id on a Discord game's page."""

from __future__ import annotations

import asyncio
import csv
import io
import re

import aiohttp
import pytest
from pagehelpers import GODDICE, GODSFIRE, HOSTILE, LONG_ID, NATIONS, serving

from service.ledger import write_ledger
from web.render import STORY_LINES
from web.server import PAGE_CSP, SVG_CSP, GamePages, page_url


def section(html: str, name: str) -> str:
    """The HTML of `<section id="name">`."""
    found = re.search(f'<section id="{name}">(.*?)</section>', html, re.S)
    assert found is not None, name
    return found.group(1)


def rows(html: str) -> list[str]:
    return re.findall(r'<tr class="roll">(.*?)</tr>', html, re.S)


async def get_page(client, token: str, query: str = "") -> str:
    response = await client.get(f"/g/{token}{query}")
    assert response.status == 200, await response.text()
    return await response.text()


def test_the_page_url_is_public_url_g_token():
    assert page_url("https://referee.example.org/", "abc") == "https://referee.example.org/g/abc"
    class Unheard:  # a referee the pages need only to subscribe to
        def on_commit(self, listener: object) -> object:
            return lambda: None

    assert GamePages(Unheard(), "https://x.org/bot").url("tok") == "https://x.org/bot/g/tok"  # type: ignore[arg-type]


async def test_a_nations_page_shows_every_nation_its_units_land_and_open_battles(table):
    await table.play(NATIONS)
    token = await table.token()
    async with serving(table) as (client, _):
        html = await get_page(client, token)
    standings = section(html, "standings")
    for nation in ("Gracchan Republic", "Charon", "&lt;script&gt;alert(1)&lt;/script&gt;"):
        assert f"<h3>{nation} — played by " in standings
    assert "LAND 20 (E+M 20)" in standings and "MILITARY 9 (-1)" in standings  # Gracchan grew MILITARY 8 → 9
    assert "<li>#1 infantry GREEN 3/3 HP</li>" in standings
    assert "#10 armour GREEN 2/2 HP, in battle #1" in standings
    assert "Battle #1, turn 1: Charon against Gracchan Republic — waits for Gracchan Republic to commit units" \
        in standings
    assert "Workers +2 until <time datetime=\"2030-01-02T12:00:00Z\">2030-01-02 12:00 UTC</time>" in standings
    assert '<pre class="table">ECONOMY' in standings  # the stat block's rows in a monospaced block
    # the standings as a table: a header a column, a row a nation (its name the row's header), numbers right-aligned
    grid = re.search(r'<table class="grid">.*?</table>', standings, re.S).group(0)
    headers = re.findall(r'<th scope="col"( class="num")?>([^<]*)</th>', grid)
    assert [h for _, h in headers] == ["nation", "player", "E", "S", "M", "P", "L", "units", "actions"]
    assert [bool(num) for num, _ in headers] == [False, False] + [True] * 7
    assert ('<tr><th scope="row">Gracchan Republic</th><td>alice</td><td class="num">11</td><td class="num">10</td>'
            '<td class="num">9</td><td class="num">10</td><td class="num">20</td><td class="num">5</td>'
            '<td class="num">0</td></tr>') in grid
    assert grid.count('<th scope="row">') == 3 and "&lt;script&gt;alert(1)&lt;/script&gt;</th>" in grid
    assert "Gracchan Republic — alice: E" not in standings  # the lines the table replaces (the console's)
    clock = section(html, "clock")
    assert '<time id="countdown" datetime="2030-01-01T04:00:00Z">' in clock  # the battle's commit is due first
    assert "Waiting for: actions left: &lt;script&gt;alert(1)&lt;/script&gt; 2 (mallory), Charon 1 (bob)" in clock
    ledger = rows(section(html, "ledger"))
    assert len(ledger) == 2 and "grow military: d10 9 (GM die) + mod(E) +1 = <strong>10</strong>" in ledger[1]
    story = section(html, "story")
    assert "The story of turn 1 (so far: it is the current turn) — Nations" in html
    assert "— bob: /attack declare target:Gracchan units:10" in story
    assert 'id="ledger-filter"' in html and '<img src="' in section(html, "charts")
    assert "<main" in html and "</main>" in html


async def test_a_hostile_name_is_text_everywhere(table):
    await table.play(NATIONS)
    token = await table.token()
    async with serving(table) as (client, _):
        html = await get_page(client, token)
        filtered = await get_page(client, token, "?who=%3Cscript%3Ealert(1)%3C/script%3E&purpose=%22%3E%3Cb%3E")
    for page in (html, filtered):
        assert HOSTILE not in page and "<script>alert" not in page
        assert page.count("<script") == 1  # the page's own script, from /static
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in section(html, "story")
    assert 'value="&lt;script&gt;alert(1)&lt;/script&gt;"' in filtered  # the filter's own value, escaped
    assert 'value="&#34;&gt;&lt;b&gt;"' in filtered


async def test_god_dice_page_shows_every_characters_life_and_whose_move(table):
    await table.play(GODDICE)
    token = await table.token()
    async with serving(table) as (client, _):
        html = await get_page(client, token)
    standings = section(html, "standings")
    assert "God Dice — GM gm — turn 1" in standings
    assert "alice&#39;s move: make the opening roll" in standings
    # every character's life as a table: a row a character, by seat (the lines with bars are the console's)
    assert "Seat 1: alice" not in standings and standings.count('<table class="grid">') == 1
    assert ('<tr><th scope="row">1</th><td>alice</td><td>Hero</td><td class="num">75/75</td></tr>\n'
            '<tr><th scope="row">1</th><td>alice</td><td>Cleric</td><td class="num">65/65</td></tr>') in standings
    assert '<tr><th scope="row">2</th><td>bob</td><td>Monk</td><td class="num">55/55</td></tr>' in standings
    assert "alice&#39;s Hero attacks bob&#39;s Monk" in standings
    assert [r.split("<td>")[-1] for r in rows(html)] == [  # the newest first
        "🎲 alice, god: S* A* (* entered by the GM)</td>",
        "🎲 bob, rolloff: B* B* B* B* B* B* B* B* B* (* entered by the GM)</td>",
        "🎲 alice, rolloff: Y* Y* Y* B* B* B* B* B* B* (* entered by the GM)</td>"]


async def test_godsfire_page_shows_systems_regions_money_and_the_phase(table):
    await table.play(GODSFIRE)
    token = await table.token()
    async with serving(table) as (client, _):
        html = await get_page(client, token)
    standings = section(html, "standings")
    assert "Godsfire — turn 1, Social Interphase; GM: gm" in standings
    assert "alice: NG on Sol, 0 GB, in transit 0 GB" in standings
    assert "<h3>Sol — alice&#39;s system, 2 planets; bank 0 GB; space none; loans none</h3>" in standings
    assert "Region 1: Moderate (M), allegiance 5" in standings and "Region 2: Reactionary (R)" in standings
    assert "D.1 tax and loan repayment (tax): next" in standings  # the interphase's steps
    assert "systems" in section(html, "charts")


async def test_unknown_malformed_and_rotated_tokens_are_the_same_404(table):
    await table.play(NATIONS[:2])
    game_id = await table.game_id()
    old = await table.token()
    async with serving(table) as (client, _):
        assert (await client.get(f"/g/{old}")).status == 200
        new = await table.store.rotate_page_token(game_id, table.clock())
        answers = []
        for path in (f"/g/{old}", f"/g/{old}/rolls.csv", f"/g/{old}/chart/game.svg", f"/g/{old}/events",
                     "/g/" + "A" * 24, "/g/short", "/g/%3Cscript%3E", "/", "/g/", "/static/secret.txt",
                     f"/g/{new}/chart/nothing.svg", "/robots.txt"):
            response = await client.get(path)
            answers.append((response.status, await response.text()))
        assert set(answers) == {(404, "404: not found\n")}
        assert (await client.get(f"/g/{new}")).status == 200
        assert old not in await get_page(client, new)


async def test_only_get_and_head(table):
    await table.play(NATIONS[:2])
    token = await table.token()
    async with serving(table) as (client, _):
        for method in ("POST", "PUT", "DELETE", "PATCH"):
            response = await client.request(method, f"/g/{token}", data=b"x")
            assert response.status == 405 and response.headers["Allow"] == "GET,HEAD"
            assert await response.text() == "405: method not allowed\n"
        head = await client.head(f"/g/{token}")
        assert head.status == 200 and await head.read() == b""


async def test_strict_headers_on_every_response(table):
    await table.play(NATIONS[:2])
    token = await table.token()
    async with serving(table) as (client, _):
        for path in (f"/g/{token}", "/static/page.css", "/static/page.js", "/nothing", f"/g/{token}?page=x"):
            response = await client.get(path)
            headers = response.headers
            assert headers["Content-Security-Policy"] == PAGE_CSP, path
            assert headers["Referrer-Policy"] == "no-referrer"
            assert headers["X-Content-Type-Options"] == "nosniff"
            assert headers["X-Robots-Tag"].startswith("noindex")
        page = await client.get(f"/g/{token}")
        assert page.headers["Cache-Control"] == "no-store"
        assert page.headers["Content-Type"] == "text/html; charset=utf-8"
        assert "aiohttp" not in page.headers.get("Server", "")
        assert (await client.get("/static/page.js")).headers["Content-Type"].startswith("text/javascript")


async def test_the_ledger_filters_narrow_the_rows_and_bad_queries_are_refused_in_one_line(table):
    await table.play(NATIONS)
    table.roller.push(3, 4)
    await table.play(["bob /roll 1d6", "bob /roll 1d6"])
    token = await table.token()
    async with serving(table) as (client, _):
        everything = rows(await get_page(client, token))
        assert len(everything) == 4
        gracchan = rows(await get_page(client, token, "?who=gracch"))  # a start of a name will do, as in /log
        assert len(gracchan) == 2 and all("Gracchan Republic" in r for r in gracchan)
        free = rows(await get_page(client, token, "?free=only"))
        assert len(free) == 2 and all("free roll" in r for r in free)
        grow = rows(await get_page(client, token, "?purpose=GROW&gm_entered=1"))
        assert len(grow) == 1 and "grow military" in grow[0]
        paged = await get_page(client, token, "?free=exclude&who=&turn_from=1&turn_to=1")
        assert len(rows(paged)) == 2 and 'value="exclude"' not in paged and "<option selected>exclude" in paged
        assert "No rolls match those filters." in await get_page(client, token, "?purpose=nothing")
        for query, said in (("?page=0", "400: page: a whole number from 1 to 100000\n"),
                            ("?page=abc", "400: page: a whole number from 1 to 100000\n"),
                            ("?page=2", "400: page 2 is past the end: there is 1 page of 4 rolls\n"),
                            ("?turn_from=3", "400: turn_from: turn 3 does not exist: this game's turns are 1 to 1\n"),
                            ("?turn=2", "400: turn 2 does not exist: this game's turns are 1 to 1\n"),
                            ("?free=all", "400: free: one of include, only, exclude\n"),
                            ("?gm_entered=maybe", "400: gm_entered: 1 or 0\n"),
                            ("?purpose=" + "x" * 17,
                             "400: purpose: at most 16 characters (a part of the purpose will do)\n"),
                            ("?who=" + "x" * 2000, "400: the query is too long (at most 1000 characters)\n")):
            response = await client.get(f"/g/{token}{query}")
            assert (response.status, await response.text()) == (400, said), query
        unknown = await client.get(f"/g/{token}?who=Nobody")
        assert unknown.status == 400 and (await unknown.text()).count("\n") == 1
        assert (await client.get(f"/g/{token}?unknown=1&utm=x")).status == 200  # unknown parameters are ignored


async def test_ledger_pages_link_to_each_other(table):
    await table.play(NATIONS[:2])
    table.roller.push(*([2] * 30))
    await table.play(["alice /roll 1d6"] * 30)
    token = await table.token()
    async with serving(table) as (client, _):
        first = await get_page(client, token, "?free=only")
        assert len(rows(first)) == 25 and "Page 1 of 2 · 30 rolls" in first
        assert f'href="{token}?free=only&amp;page=2#ledger"' in first
        second = await get_page(client, token, "?free=only&page=2")
        assert len(rows(second)) == 5 and f'href="{token}?free=only#ledger"' in second


async def test_the_csv_is_the_ledger_export(table):
    await table.play(NATIONS)
    table.roller.push(5)
    await table.play(["bob /roll 1d6"])
    token = await table.token()
    async with serving(table) as (client, _):
        response = await client.get(f"/g/{token}/rolls.csv")
        body = await response.read()
    assert response.status == 200 and response.headers["Content-Type"] == "text/csv; charset=utf-8"
    assert "attachment" in response.headers["Content-Disposition"]
    exported = io.BytesIO()
    await write_ledger(table.store, await table.game_id(), "csv", exported)
    assert body == exported.getvalue()
    found = list(csv.DictReader(io.StringIO(body.decode("utf-8-sig"))))
    assert [(r["who"], r["purpose"], r["value"] or r["total"]) for r in found] == [
        ("Gracchan Republic", "grow military", "9"), ("Gracchan Republic", "encourage workers", "8"),
        ("bob", "free roll 1d6", "5")]


async def read_event(response, timeout: float = 5.0) -> tuple[str, str]:
    """The next event of a server-sent stream: (event, data); comments (heartbeats) are skipped."""
    event, data = "message", []
    while True:
        line = (await asyncio.wait_for(response.content.readline(), timeout)).decode().rstrip("\n")
        if line.startswith(":") or line.startswith("retry:"):
            continue
        if line.startswith("event: "):
            event = line[7:]
        elif line.startswith("data: "):
            data.append(line[6:])
        elif not line and data:
            return event, "\n".join(data)


async def test_live_updates_tell_every_listener_of_a_new_version_once_a_command_lands(table):
    await table.play(NATIONS[:3])
    token = await table.token()
    async with serving(table, poll_seconds=0.05, heartbeat_seconds=0.2) as (client, pages):
        first = await client.get(f"/g/{token}/events")
        second = await client.get(f"/g/{token}/events")
        assert first.headers["Content-Type"] == "text/event-stream; charset=utf-8"
        event, version = await read_event(first)
        assert event == "version" and await read_event(second) == ("version", version)
        assert f'data-version="{version}"' in await get_page(client, token)
        assert len(pages._watches) == 1 and pages.listeners == 2  # one poller for the game's two listeners
        await table.play(["bob /nation claim preset:Charon"])
        event, newer = await read_event(first)
        assert event == "version" and newer != version
        assert await read_event(second) == ("version", newer)
        assert "Charon" in section(await get_page(client, token), "standings")
        await asyncio.sleep(0.5)  # heartbeats go on while nothing changes
        first.close()
        second.close()
        for _ in range(100):
            if not pages._watches:
                break
            await asyncio.sleep(0.05)
        assert pages.listeners == 0 and not pages._watches  # the poller stops with its last listener


async def test_a_change_committed_here_is_told_at_once_without_waiting_for_the_poll(table):
    """The pages hear of this process's commits (`Referee.on_commit`): a listener learns of a command at once, though
    the poller looks only every minute (for another process's changes)."""
    await table.play(NATIONS[:3])
    token = await table.token()
    async with serving(table, poll_seconds=60, heartbeat_seconds=60) as (client, _):
        stream = await client.get(f"/g/{token}/events")
        _, version = await read_event(stream)
        await table.play(["bob /nation claim preset:Charon"])
        event, newer = await asyncio.wait_for(read_event(stream), 30)  # (a bound for a failure; it comes at once)
        assert event == "version" and newer != version
        stream.close()


async def test_a_rotated_links_stream_ends(table):
    await table.play(NATIONS[:2])
    token = await table.token()
    async with serving(table, poll_seconds=0.05, heartbeat_seconds=0.1) as (client, _):
        stream = await client.get(f"/g/{token}/events")
        await read_event(stream)
        await table.store.rotate_page_token(await table.game_id(), table.clock())
        assert await asyncio.wait_for(stream.content.read(), 5) is not None  # the stream ends
        assert stream.content.at_eof()


async def test_live_listeners_are_bounded(table):
    await table.play(NATIONS[:2])
    token = await table.token()
    async with serving(table, max_listeners_per_address=2) as (client, _):
        open_ = [await client.get(f"/g/{token}/events") for _ in range(2)]
        refused = await client.get(f"/g/{token}/events")
        assert refused.status == 503 and refused.headers["Retry-After"] == "30"
        for stream in open_:
            stream.close()


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


async def test_requests_per_address_are_limited(table):
    await table.play(NATIONS[:2])
    token = await table.token()
    clock = Clock()
    async with serving(table, rate=1.0, burst=3, clock=clock) as (client, _):
        assert [(await client.get(f"/g/{token}")).status for _ in range(3)] == [200] * 3
        limited = await client.get(f"/g/{token}")
        assert limited.status == 429 and limited.headers["Retry-After"] == "1"
        assert (await limited.text()).startswith("429: too many requests")
        assert (await client.get("/static/page.css")).status == 429  # every request counts
        # not behind a proxy: X-Forwarded-For is the client's own words, and ignored
        assert (await client.get(f"/g/{token}", headers={"X-Forwarded-For": "10.0.0.9"})).status == 429
        clock.now += 1.0
        assert (await client.get(f"/g/{token}")).status == 200


async def test_behind_a_proxy_the_address_is_the_last_forwarded_one(table):
    await table.play(NATIONS[:2])
    token = await table.token()
    async with serving(table, rate=1.0, burst=1, clock=Clock(), trust_proxy=True) as (client, _):
        one = {"X-Forwarded-For": "6.6.6.6, 10.0.0.1"}
        assert (await client.get(f"/g/{token}", headers=one)).status == 200
        # the client wrote a new first entry: the proxy's last entry still names it
        assert (await client.get(f"/g/{token}", headers={"X-Forwarded-For": "7.7.7.7, 10.0.0.1"})).status == 429
        assert (await client.get(f"/g/{token}", headers={"X-Forwarded-For": "10.0.0.2"})).status == 200


async def test_a_long_games_page_stays_under_100_kb(table):
    await table.play(NATIONS[:2] + ["bob /nation claim preset:Charon"])
    for _ in range(30):
        table.roller.push(*([4] * 6))
        await table.play([*(["bob /roll 1d6", "alice /roll 1d6", "alice /roll 1d6"] * 2), "gm /gm turn end"])
    table.roller.push(*([1] * 400))
    await table.play(["bob /roll 1d6"] * 400)  # a turn whose story is longer than a page shows
    token = await table.token()
    async with serving(table) as (client, _):
        html = await get_page(client, token)
        older = await get_page(client, token, "?turn=12")
    assert 30_000 < len(html.encode()) < 100_000, len(html.encode())  # a full page, and not too full
    assert len(rows(html)) == 25 and "Page 1 of 24 · 580 rolls" in html
    assert "more lines: /log game turn:31 tells the whole turn" in html
    assert section(html, "story").count("<li>") <= STORY_LINES
    assert "The story of turn 12 — Nations" in older and 'href="' + token + '?turn=11#story"' in older


async def test_the_game_chart_is_served_as_svg_and_cached(table):
    await table.play(NATIONS[:3] + ["gm /gm turn end"])
    token = await table.token()
    async with serving(table) as (client, pages):
        html = await get_page(client, token)
        version = re.search(r'data-version="([^"]+)"', html).group(1)
        src = f"{token}/chart/game.svg?v={version}"
        assert f'<img src="{src}"' in section(html, "charts")
        response = await client.get("/g/" + src)
        body = await response.read()
        assert response.status == 200 and response.headers["Content-Type"] == "image/svg+xml"
        assert response.headers["Content-Security-Policy"] == SVG_CSP
        assert body.lstrip().startswith(b"<?xml") and b"<svg" in body and b"<script" not in body
        again = await client.get(f"/g/{token}/chart/game.svg")
        assert await again.read() == body and len(pages.charts.entries) == 1


async def test_an_ended_games_page_shows_its_results_and_stays_readable(table):
    await table.play(NATIONS[:4] + ["gm /game end confirm:true"])
    token = await table.token()
    async with serving(table) as (client, _):
        html = await get_page(client, token)
        assert (await client.get(f"/g/{token}/rolls.csv")).status == 200
    assert "game over" in html and "The game is over" in section(html, "clock")
    assert 'id="countdown"' not in html
    results = section(html, "results")
    assert ("A tie: <strong>&lt;script&gt;alert(1)&lt;/script&gt;</strong> and <strong>Charon</strong> and "
            "<strong>Gracchan Republic</strong>") in results
    assert ("3. Gracchan Republic (alice): LAND <strong>20</strong> · E 12 S 10 M 8 P 10 · <strong>0</strong> "
            "battles won") in results
    assert "GAME OVER" in section(html, "standings")


async def test_a_discord_games_page_shows_names_and_no_id(table):
    gm, alice, bob = "111111111111111111", "222222222222222222", "333333333333333333"
    shown = {gm: "Game Master", alice: "Alice", bob: f"Bob {HOSTILE}"}
    asked = []

    def names(guild_id, who):
        asked.append(guild_id)
        return shown.get(who, "someone")

    await table.play([f"{gm} /game start turn_hours:12", f'{alice} /nation claim preset:"Gracchan Republic"',
                      f"{bob} /nation claim preset:Charon"])
    table.roller.push(2, 5)
    await table.play([f"{alice} /roll 1d6", f"{bob} /roll 1d6"])
    token = await table.token()
    async with serving(table, names=names) as (client, _):
        html = await get_page(client, token)
        alices = await get_page(client, token, "?who=alice")  # a player by their shown name
        response = await client.get(f"/g/{token}/rolls.csv")
        csv_ok, csv_text = response.status, (await response.read()).decode("utf-8-sig")
    assert csv_ok == 200
    assert not LONG_ID.search(html) and not LONG_ID.search(alices) and not LONG_ID.search(csv_text)
    assert ",Alice,free roll 1d6," in csv_text and ",Bob <script>alert(1)</script>,free roll 1d6," in csv_text
    assert '<th scope="row">Gracchan Republic</th><td>Alice</td><td class="num">12</td>' in html
    assert "GM: Game Master" in html
    assert "Bob &lt;script&gt;alert(1)&lt;/script&gt;" in html and HOSTILE not in html
    assert "— Alice: /nation claim" in section(html, "story")
    found = rows(alices)
    assert len(found) == 1 and "Alice, free roll" in found[0]
    assert set(asked) == {None}  # the console's game has no server


async def test_an_unexpected_failure_is_a_plain_500_and_logged(table, monkeypatch, caplog):
    await table.play(NATIONS[:2])
    token = await table.token()

    async def broken(game_id):
        raise RuntimeError("disk on fire at /var/lib/referee.db")

    monkeypatch.setattr(table.store, "load", broken)
    async with serving(table) as (client, _):
        response = await client.get(f"/g/{token}")
        text = await response.text()
    assert response.status == 500 and text == "500: the page could not be made; try again later\n"
    assert "Traceback" not in text and "referee.db" not in text
    assert any("failed" in r.getMessage() and token not in r.getMessage() for r in caplog.records)


async def test_pages_are_cached_by_version_and_query(table, monkeypatch):
    await table.play(NATIONS[:2])
    token = await table.token()
    async with serving(table) as (client, pages):
        made = []
        original = pages.render_page

        async def counted(*args):
            made.append(args[-1])
            return await original(*args)

        monkeypatch.setattr(pages, "render_page", counted)
        await asyncio.gather(*(client.get(f"/g/{token}") for _ in range(10)))
        await get_page(client, token, "?free=include&who=")  # the same query, written another way
        assert len(made) == 1
        await get_page(client, token, "?free=only")
        assert len(made) == 2
        await table.play(["bob /nation claim preset:Charon"])
        assert "Charon" in await get_page(client, token)
        assert len(made) == 3


async def test_a_page_is_sent_gzipped_to_a_browser_that_takes_it(table):
    await table.play(NATIONS[:2])
    token = await table.token()
    async with serving(table) as (client, _):
        packed = await client.get(f"/g/{token}", headers={"Accept-Encoding": "gzip, deflate, br"})
        plain_page = await client.get(f"/g/{token}", headers={"Accept-Encoding": "identity"})
        assert packed.headers["Content-Encoding"] == "gzip" and "Content-Encoding" not in plain_page.headers
        assert packed.headers["Vary"] == plain_page.headers["Vary"] == "Accept-Encoding"
        body = await plain_page.read()
        assert await packed.read() == body and b"Gracchan Republic" in body  # (the client unpacks it)
        assert int(packed.headers["Content-Length"]) < len(body) / 2


async def test_the_store_is_asked_what_a_token_opens_at_most_every_recheck_seconds(table, monkeypatch):
    """Many requests for a page are one question to the store every `recheck_seconds`; a link this process rotated
    answers 404 at once all the same."""
    await table.play(NATIONS[:2])
    token = await table.token()
    now = [1000.0]
    async with serving(table, recheck_seconds=0.5, clock=lambda: now[0]) as (client, _):
        asked = []
        page_of = table.store.page_of

        async def counted(token):
            asked.append(token)
            return await page_of(token)

        monkeypatch.setattr(table.store, "page_of", counted)
        first = await get_page(client, token)
        for _ in range(5):
            assert await get_page(client, token) == first
        assert len(asked) == 1
        await table.play(["bob /nation claim preset:Charon"])
        now[0] += 0.4
        assert "Charon" not in await get_page(client, token)  # asked 0.4 s ago: not yet
        now[0] += 0.2
        assert "Charon" in await get_page(client, token) and len(asked) == 2
        await table.store.rotate_page_token(await table.store.page_game(token), table.clock())
        assert (await client.get(f"/g/{token}")).status == 404  # within the 0.5 s, rotated here: at once
        assert len(asked) == 3


async def test_a_page_is_made_again_at_most_every_remake_seconds(table):
    """A game played fast while many read it: a change within `remake_seconds` of the last page made waits for
    that time (the last page is served meanwhile, its version with it); then the newest version is made."""
    await table.play(NATIONS[:2])
    token = await table.token()
    now = [1000.0]
    async with serving(table, remake_seconds=2.0, clock=lambda: now[0]) as (client, _):
        first = await get_page(client, token)
        await table.play(["bob /nation claim preset:Charon"])
        now[0] += 1.5
        held = await get_page(client, token)
        assert "Charon" not in held and held == first  # the page made 1.5 s ago, its own version in it
        assert await get_page(client, token, "?free=only") != first  # another query is another page
        now[0] += 0.6
        fresh = await get_page(client, token)
        assert "Charon" in fresh and 'data-version="' in fresh
        assert fresh.split('data-version="')[1].split('"')[0] != first.split('data-version="')[1].split('"')[0]
        now[0] += 2.5  # the page last made longer ago than that: the next change is made at once
        table.roller.push(4)
        await table.play(["alice /roll 1d6"])
        assert len(rows(section(await get_page(client, token), "ledger"))) == 1  # the free roll, shown at once


async def test_start_serves_on_a_port_and_a_port_taken_is_an_oserror_closed_cleanly(table):
    await table.play(NATIONS[:2])
    token = await table.token()
    pages = GamePages(table.referee, "http://127.0.0.1", remake_seconds=0)
    await pages.start("127.0.0.1", 0)
    try:
        host, port = pages._runner.addresses[0][:2]
        # started, the pages read through a connection of their own: what the referee commits, they see
        reader = pages.reads.store
        assert reader is not table.store and pages.reads is not table.referee and not reader.closed
        async with aiohttp.ClientSession() as session:
            async with session.get(f"http://{host}:{port}/g/{token}") as response:
                assert response.status == 200 and "Gracchan Republic" in await response.text()
            await table.play(["bob /nation claim preset:Charon"])
            await asyncio.sleep(0.6)  # (what a token opens is asked again after recheck_seconds)
            async with session.get(f"http://{host}:{port}/g/{token}") as response:
                assert response.status == 200 and "Charon — played by bob" in await response.text()
        taken = GamePages(table.referee, "http://127.0.0.1")
        with pytest.raises(OSError):
            await taken.start(host, port)
        await taken.close()
        assert taken._runner is None and taken.reads is table.referee
    finally:
        await pages.close()
    assert pages._runner is None and reader.closed and pages.reads is table.referee and not table.store.closed


@pytest.mark.parametrize("ruleset", ["nations", "goddice", "godsfire"])
async def test_a_game_just_started_has_a_page_with_no_chart_yet(table, ruleset):
    await table.play([f"gm /game start ruleset:{ruleset}"])
    token = await table.token()
    async with serving(table) as (client, _):
        html = await get_page(client, token)
        chart = await client.get(f"/g/{token}/chart/game.svg")
    charts_html = section(html, "charts")
    assert "<img" not in charts_html and "nothing to chart yet" in charts_html
    assert chart.status == 404
    assert "No rolls yet." in section(html, "ledger")
    assert "<h3>" in section(html, "standings")


@pytest.mark.parametrize("script", [GODDICE, GODSFIRE], ids=["goddice", "godsfire"])
async def test_players_of_a_discord_game_are_shown_by_name(table, script):
    ids = {"gm": "111111111111111111", "alice": "222222222222222222", "bob": "333333333333333333"}
    shown = {ids["gm"]: "Game Master", ids["alice"]: "Alice", ids["bob"]: "Bob"}
    played = [re.sub(r"(?<!/)\b(gm|alice|bob)\b", lambda m: ids[m.group()], line) for line in script]
    await table.play(played)
    token = await table.token()
    async with serving(table, names=lambda guild, who: shown.get(who, "someone")) as (client, _):
        html = await get_page(client, token)
        chart = await client.get(f"/g/{token}/chart/game.svg")
        svg = await chart.read()
        csv_text = (await (await client.get(f"/g/{token}/rolls.csv")).read()).decode("utf-8-sig")
    assert not LONG_ID.search(html) and not LONG_ID.search(svg.decode()) and not LONG_ID.search(csv_text)
    assert "Alice" in section(html, "standings") and "Alice" in section(html, "story")
    assert chart.status == 200
