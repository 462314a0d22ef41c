"""The game's page in a real browser (issue 22's done-when): Debian's Chromium, headless, driven by Selenium, on a
`GamePages` server in the test's event loop (tests/support/browserkit.py).

A Nations game played through the referee shows its standings, a live countdown, its charts and its ledger with
a filter applied; the page updates by itself when a command lands; a rotated link answers 404; hostile names
render as text and run nothing; at 375 px wide nothing scrolls sideways; times are the reader's (the browser runs
in Tokyo's zone); the browser's console stays clean (no CSP violation, no script error). Then each rule set's
page is photographed, on a desktop and on a phone, into $REFEREE_SCREENSHOTS (default: a temporary folder).

Skipped without chromium and chromedriver (`.ci/run` installs them), and on the PostgreSQL pass (`sqlite_only`:
the page is the same on either store, and the browser is the slow part).
"""

from __future__ import annotations

import io
import re
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

import pytest
from browserkit import DESKTOP, PHONE, READER_TZ, Tab, browsing, chromium_session, screenshot_dir, serving
from goddicehelpers import SEAT_AND_DRAFT
from storehelpers import RULES, FakeClock

from console.app import CHANNEL, Console
from data.store import Store
from engine.dice import ForcedRoller
from engine.gm import QueueDice
from engine.goddice import actions as goddice
from engine.godsfire import setup as godsfire
from engine.nations import peace as nat
from service.referee import Referee

pytestmark = pytest.mark.sqlite_only

HOSTILE_PLAYER = "<script>window.pwned=1</script>"  # names have at most 40 characters: two hostile names
HOSTILE_NATION = '<img src=x onerror="window.pwned=2">'

# --- the games ----------------------------------------------------------------------------------------------

NATIONS = [  # three turns of a Nations game, each die entered by the GM but one; the clock moves 12 hours a turn
    "gm /game start",
    'gm /nation claim preset:"Gracchan Republic" player:alice',
    "gm /nation claim Charon bob",
    'gm /gm dice values:"9 8"',
    "alice /economy military",              # 9 + 1 > 8: MILITARY +1, ECONOMY -1
    "alice /propaganda encourage workers",  # 8 >= 5: Workers +2
    "+12h",
    'gm /gm dice values:"4"',
    "alice /economy recruit infantry",      # 4 + 2 < 7: failure
    'bob /propaganda attack "gracchan republic"',  # the roller's 6 (not the GM's): failure, PROPAGANDA -1
    "+12h",
    "alice /attack declare Charon '1 2 3'",  # an open battle, waiting for Charon
]

NATIONS_DICE = (6,)  # the one die not entered by the GM

GODDICE = [
    *SEAT_AND_DRAFT,
    "alice /goddice declare attacker:hero",
    'gm /gm dice values:"S A B B B R O O 5 5 5"',
    "bob /goddice defend character:monk",
    "alice /goddice roll",
    "alice /goddice attack name:basic",
]

GODSFIRE = [
    "gm /game start ruleset:godsfire",
    'gm /gm dice values:"3 4 4 5 3 3 2 3 1 2 4 6"',
    "gm /godsfire system add name:Sol owner:alice planets:2 regions:3",
    'gm /gm dice values:"2 4 1 1"',
    "gm /godsfire system add name:Altair owner:alice regions:1",
    'gm /gm dice values:"6 5 4 5 2 2 1 2"',
    "gm /godsfire system add name:Vega owner:bob regions:2",
    'gm /gm dice values:"1 1 4 4"',
    "gm /godsfire system add name:Rigel neutral:true regions:1",
    'gm /godsfire set system:Sol field:units value:"SQD=2 AG=1"',
    "gm /godsfire set system:Sol field:bank value:3",
    'gm /godsfire set system:Vega field:units value:"SQD=2"',
    "gm /godsfire set system:Vega field:bank value:6",
    'gm /godsfire set system:Vega field:loans value:"8=0"',
    "gm /godsfire set system:Vega region:2 field:revolt value:true",
    "gm /godsfire set player:alice field:ng_money value:5",
    "gm /godsfire set player:bob field:ng_money value:3",
]


class Played:
    """A game played line by line in the in-process console (each line through the referee, as a Discord
    command would be): its referee, store, clock and game id. "+12h" moves the clock on."""

    def __init__(self, store: Store, clock: FakeClock, dice: tuple[int, ...] = ()) -> None:
        self.store, self.clock, self.out = store, clock, io.StringIO()
        self.referee = Referee(store, RULES, ForcedRoller(dice), clock)
        self.console = Console(self.referee, self.out)

    async def play(self, lines: list[str]) -> None:
        for line in lines:
            if line.startswith("+") and line.endswith("h"):
                self.clock.advance(hours=float(line[1:-1]))
                continue
            await self.console.handle(line)
            said = self.out.getvalue().splitlines()
            self.out.truncate(0)
            self.out.seek(0)
            assert not [s for s in said if s.startswith("error:")], (line, said)

    async def game_id(self) -> int:
        return await self.referee.game_id(CHANNEL)

    async def token(self) -> str:
        return await self.store.page_token(await self.game_id(), self.clock())


def started_before(hours: float) -> FakeClock:
    """A clock `hours` before the real time (to the minute): after the game's turns it stands near now, so the
    current turn's countdown counts down to a real moment."""
    return FakeClock(datetime.now(UTC).replace(second=0, microsecond=0) - timedelta(hours=hours))


@pytest.fixture(scope="module")
def chromium() -> Any:
    with chromium_session() as driver:
        yield driver


@pytest.fixture
async def tab(chromium) -> AsyncIterator[Tab]:
    async with browsing(chromium) as opened:
        yield opened


@pytest.fixture(scope="module")
def screenshots(tmp_path_factory) -> Any:
    """The screenshots' folder: $REFEREE_SCREENSHOTS, else one under pytest's temporary folder (said at the end)."""
    folder = screenshot_dir(tmp_path_factory.mktemp("screenshots"))
    yield folder
    print(f"\nthe game pages' screenshots: {folder}")


@pytest.fixture
async def nations(tmp_path) -> AsyncIterator[Played]:
    store = await Store.open(tmp_path / "nations.db")
    game = Played(store, started_before(24), NATIONS_DICE)
    await game.play(NATIONS)
    yield game
    await store.close()


# --- what every page must be ---------------------------------------------------------------------------------

async def assert_clean(tab: Tab, expected_404: bool = False) -> None:
    """Nothing went wrong in the browser: no CSP violation, script error or failed load in its console (a 404 only
    when the test asked for one), nothing caught by the watcher in the current document."""
    problems = [entry["message"] for entry in await tab.logs()
                if entry["level"] in ("SEVERE", "WARNING")  # /favicon.ico, asked for by Chromium itself, is a 204
                and not (expected_404 and "404" in entry["message"])]
    assert not problems, problems
    assert await tab.seen() == []


async def open_page(tab: Tab, url: str) -> None:
    await tab.open(url)
    await tab.wait("return document.readyState === 'complete' && !!document.querySelector('main')",
                   what="the page to load")


async def charts_loaded(tab: Tab) -> int:
    """Wait until every chart of the page has loaded (drawn: naturalWidth > 0); how many. The charts load lazily,
    so the reader scrolls to them first, then back to the top."""
    await tab.js("document.getElementById('charts').scrollIntoView();")
    count = await tab.wait("const imgs = Array.from(document.querySelectorAll('#charts img'));"
                           "return imgs.every(i => i.complete && i.naturalWidth > 0) && imgs.length + 1;",
                           timeout=30, what="every chart to load")
    await tab.js("window.scrollTo(0, 0);")
    return int(count) - 1


def filtered(url: str, **query: str) -> str:
    from urllib.parse import urlencode

    return url + "?" + urlencode(query)


# --- the Nations page -----------------------------------------------------------------------------------------


async def test_a_nations_page_shows_its_standings_clock_charts_and_ledger(nations, tab):
    async with serving(nations.referee) as site:
        url = site.url(await nations.token())
        await open_page(tab, url)
        assert await tab.js("return document.title")

        # the standings: every nation, its player and its stats as the bot writes them
        standings = await tab.text("#standings")
        for shown in ("Gracchan Republic", "alice", "Charon", "bob", "LAND 20", "ECONOMY 11", "MILITARY 9",
                      "PROPAGANDA 9", "infantry", "Battle #1"):
            assert shown in standings, (shown, standings)

        # the clock: a countdown that ticks by itself
        before = await tab.text("#countdown")
        await tab.js("return new Promise(done => setTimeout(done, 1300));")
        after = await tab.text("#countdown")
        assert before and after and before != after, (before, after)
        ends = datetime.fromisoformat(await tab.js("return document.getElementById('countdown').dateTime"))
        assert ends > datetime.now(UTC), ends

        # times in the reader's zone: each <time> with a moment shows Tokyo's hour and minute, never UTC's
        await assert_times_are_local(tab)

        # the charts: each an <img> of an SVG served by the page, loaded
        charts = await tab.js("return Array.from(document.querySelectorAll('#charts img'), i => i.src);")
        assert charts and all(re.search(r"/chart/[^/?]+\.svg(\?|$)", src) for src in charts), charts
        await charts_loaded(tab)

        # the ledger: every roll, the newest first; then one side's, as a reader filters it:
        # typing the side's name in the filter form and pressing its button
        rows = await tab.texts("#ledger tr.roll")
        assert len(rows) == 4, rows
        assert [row.split("\t")[0] for row in rows] == ["2", "2", "1", "1"], rows
        await tab.type_into("#ledger-filter [name=who]", "Charon")
        await tab.click("#ledger-filter button[type=submit]")
        await tab.wait("return document.readyState === 'complete' && "
                       "new URLSearchParams(location.search).get('who') === 'Charon'", what="the filtered page")
        rows = await tab.texts("#ledger tr.roll")
        assert len(rows) == 1 and "Charon, propaganda attack on Gracchan Republic" in rows[0], rows
        assert await tab.js("return document.querySelector('#ledger-filter [name=who]').value") == "Charon"
        assert "Gracchan Republic" in await tab.text("#standings")  # the rest of the page is all there
        # the same filters as /log rolls, as query parameters: a turn range and a purpose
        await open_page(tab, filtered(url, turn_from="2", turn_to="2"))
        rows = await tab.texts("#ledger tr.roll")
        assert len(rows) == 2 and all(row.startswith("2\t") for row in rows), rows
        await open_page(tab, filtered(url, gm_entered="1"))
        rows = await tab.texts("#ledger tr.roll")
        assert len(rows) == 3 and all("(GM die)" in row and "Charon" not in row for row in rows), rows
        await open_page(tab, filtered(url, purpose="ENCOURAGE", free="exclude"))
        rows = await tab.texts("#ledger tr.roll")
        assert len(rows) == 1 and "encourage workers" in rows[0], rows
        # … and the whole ledger as CSV, a link away
        csv = await tab.js("return Array.from(document.querySelectorAll('#ledger a'), a => a.href)"
                           ".find(h => /\\.csv/.test(h));")
        assert csv is not None
        assert await tab.status(csv) == 200
        await assert_clean(tab)


async def assert_times_are_local(tab: Tab) -> None:
    moments = await tab.js("return Array.from(document.querySelectorAll('time[datetime]'))"
                           ".filter(t => t.id !== 'countdown' && t.dateTime.includes('T'))"
                           ".map(t => [t.dateTime, t.innerText]);")
    assert moments, "no <time datetime=…> on the page"
    tokyo = ZoneInfo(READER_TZ)
    for stamp, text in moments:
        moment = datetime.fromisoformat(stamp.replace("Z", "+00:00"))
        local, utc = moment.astimezone(tokyo), moment.astimezone(UTC)
        forms = {local.strftime("%H:%M"), local.strftime("%-I:%M")}
        assert any(form in text for form in forms), (stamp, text, forms)
        assert utc.strftime("%H:%M") not in text, (stamp, text)


async def test_the_page_updates_by_itself_when_a_command_lands(nations, tab):
    async with serving(nations.referee) as site:
        await open_page(tab, site.url(await nations.token()))
        assert len(await tab.texts("#ledger tr.roll")) == 4
        assert "ECONOMY 11" in await tab.text("#standings")
        await tab.js("window.__same_document = true;")
        await nations.play(['gm /gm dice values:"10"', "bob /economy military"])  # 10 > 9: M +1, E -1
        await tab.wait("return document.querySelectorAll('#ledger tr.roll').length === 5", timeout=60,
                       what="the new roll in the ledger")
        rows = await tab.texts("#ledger tr.roll")  # the newest first
        assert "Charon, grow military: d10 10" in rows[0], rows
        await tab.wait("return document.getElementById('standings').innerText.includes('ECONOMY 10')",
                       what="Charon's new ECONOMY")
        assert await tab.js("return window.__same_document === true"), "the page reloaded instead of updating"
        await assert_clean(tab)


async def test_a_rotated_link_answers_404_and_the_new_one_works(nations, tab):
    async with serving(nations.referee) as site:
        old = site.url(await nations.token())
        await open_page(tab, old)
        new = site.url(await nations.store.rotate_page_token(await nations.game_id(), nations.clock()))
        assert new != old
        assert await tab.status(old) == 404
        # a page still open at the old link shows no more of the game: at the next change it is marked stale
        await nations.play(['gm /gm dice values:"10"', "bob /economy military"])
        await tab.wait("return document.querySelector('main').classList.contains('stale')", timeout=60,
                       what="the open page at the old link marked stale")
        assert len(await tab.texts("#ledger tr.roll")) == 4
        await tab.open(old)
        assert "Gracchan Republic" not in await tab.js("return document.body.innerText")
        await open_page(tab, new)
        assert "Gracchan Republic" in await tab.text("#standings")
        await assert_clean(tab, expected_404=True)


async def hostile_games(referee: Referee) -> dict[str, list[str]]:
    """A game of each rule set where hostile names are played, each in its own channel: channel → the sections
    that must show the hostile nation's (system's) name as text (God Dice has none: a player is all it names)."""
    await referee.start_game("nations", "gm")
    await referee.act("nations", "gm", QueueDice([5]), "/gm dice")
    await referee.act("nations", "gm", nat.CreateNation(HOSTILE_NATION, 20, 0, "infantry", "bomber", {},
                                                         player=HOSTILE_PLAYER), "/nation create")
    await referee.act("nations", HOSTILE_PLAYER, nat.Encourage("workers"), "/propaganda encourage")
    await referee.start_game("goddice", "gm", ruleset_name="goddice")
    await referee.act("goddice", HOSTILE_PLAYER, goddice.Join(), "/goddice join")
    await referee.act("goddice", "bob", goddice.Join(), "/goddice join")
    await referee.start_game("godsfire", "gm", ruleset_name="godsfire")
    await referee.act("godsfire", "gm", QueueDice([3, 4, 5, 3]), "/gm dice")
    await referee.act("godsfire", "gm", godsfire.AddSystem(HOSTILE_NATION, HOSTILE_PLAYER), "/godsfire system add")
    return {"nations": ["#standings", "#ledger", "#story"], "goddice": [], "godsfire": ["#standings", "#story"]}


async def test_hostile_names_render_as_text_and_run_nothing(tmp_path, tab):
    """A player named `<script>…</script>` and a nation (a system) named `<img src=x onerror=…>`, in a game of each
    rule set: every page shows them as text, has no element made of them, runs nothing and meets no CSP violation
    (the page's CSP would block an inline script: a violation in the console would show an escape missed)."""
    store = await Store.open(tmp_path / "hostile.db")
    try:
        referee = Referee(store, RULES, ForcedRoller(), started_before(0))
        games = await hostile_games(referee)
        async with serving(referee) as site:
            for channel, sections in games.items():
                await open_page(tab, site.url(await store.page_token(await referee.game_id(channel),
                                                                     referee.clock())))
                await tab.js("return new Promise(done => setTimeout(done, 300));")  # any handler would have run
                assert await tab.js("return typeof window.pwned") == "undefined", channel
                assert HOSTILE_PLAYER in await tab.text("#standings"), channel
                for section in sections:
                    assert HOSTILE_NATION in await tab.text(section), (channel, section)
                assert await tab.js("return document.querySelectorAll('main script, main img[src$=\"/x\"], "
                                    "main [onerror]').length") == 0, channel
                charts = await tab.js("return Array.from(document.querySelectorAll('#charts img'), i => i.src);")
                assert charts or channel != "nations", "no chart to open"
                await assert_clean(tab)
                # a chart opened by itself (a document, where an SVG's script would run) runs nothing either
                for chart in charts:
                    await tab.open(chart)
                    assert await tab.js("return typeof window.pwned") == "undefined"
                    assert await tab.js("return document.querySelector('parsererror') === null"), chart
                    await assert_clean(tab)
    finally:
        await store.close()


async def test_the_page_at_phone_width_does_not_scroll_sideways(nations, tab):
    async with serving(nations.referee) as site:
        await tab.viewport(*PHONE, mobile=True)
        await open_page(tab, site.url(await nations.token()))
        assert await tab.js("return window.innerWidth") == PHONE[0], "the page has no viewport meta for phones"
        await charts_loaded(tab)
        widths = await tab.js("return [document.documentElement.scrollWidth, window.innerWidth];")
        assert widths[0] <= widths[1], widths
        await assert_clean(tab)


# --- each rule set's page, photographed --------------------------------------------------------------------


PAGE_WEIGHT = """
const entries = [performance.getEntriesByType('navigation')[0], ...performance.getEntriesByType('resource')];
return entries.filter(e => e.initiatorType !== 'img' && !/\\/events$/.test(e.name))
              .reduce((sum, e) => sum + e.decodedBodySize, 0);
"""  # the page, its stylesheet and its script as read (not the charts, not the event stream)

SCREENS = [("desktop", DESKTOP, False, False), ("desktop-dark", DESKTOP, False, True), ("phone", PHONE, True, False),
           ("phone-dark", PHONE, True, True)]
CHART_SUFFIX = {"desktop": "-light", "desktop-dark": "", "phone": "-narrow-light", "phone-dark": "-narrow"}


@pytest.mark.parametrize("name, lines, dice, hours", [("nations", NATIONS, NATIONS_DICE, 24),
                                                       ("goddice", GODDICE, (), 0), ("godsfire", GODSFIRE, (), 0)])
async def test_screenshots_of_each_rule_sets_page(tmp_path, tab, screenshots, name, lines, dice, hours):
    """Each rule set's page on a desktop and on a phone, each in a light and a dark theme, to be looked at, its chart
    the one drawn for that screen; and none of them scrolls sideways or troubles the browser's console."""
    store = await Store.open(tmp_path / f"{name}.db")
    try:
        game = Played(store, started_before(hours), dice)
        await game.play(lines)
        async with serving(game.referee) as site:
            url = site.url(await game.token())
            for screen, (width, height), mobile, dark in SCREENS:
                await tab.viewport(width, height, mobile)
                await tab.dark(dark)
                await open_page(tab, url)
                await charts_loaded(tab)
                widths = await tab.js("return [document.documentElement.scrollWidth, window.innerWidth];")
                assert widths[0] <= widths[1], (screen, widths)
                shown = await tab.js("const i = document.querySelector('#charts img'); return i && i.currentSrc;")
                if shown:  # the chart drawn for the screen: a phone's narrow one, the reader's theme
                    assert f"/chart/game{CHART_SUFFIX[screen]}.svg?" in shown, (screen, shown)
                weight = await tab.js(PAGE_WEIGHT)
                assert 1024 < weight < 100 * 1024, (screen, weight)  # the "one page under 100 KB before charts"
                path = await tab.screenshot(screenshots / f"{name}-{screen}.png", width, height, mobile)
                assert path.stat().st_size > 10_000
            await assert_clean(tab)
    finally:
        await store.close()
