"""The map on a Godsfire game's page in a real browser (headless Chromium, tests/support/browserkit.py): the
picture loads above the charts at its own proportions, nothing scrolls sideways on a phone, the browser's console
stays clean (the SVG's own CSP included); photographed on a desktop, on a phone, light and dark, into
$REFEREE_SCREENSHOTS (default: a temporary folder). Skipped without chromium and chromedriver."""

from __future__ import annotations

import io

import pytest
from browserkit import DESKTOP, PHONE, Tab, browsing, chromium_session, screenshot_dir, serving
from pagehelpers import GODSFIRE_ON_THE_MAP
from storehelpers import RULES, FakeClock

from console.app import CHANNEL, Console
from data.store import Store
from engine.dice import ForcedRoller
from service.referee import Referee

pytestmark = pytest.mark.sqlite_only

ON_THE_MAP = [
    *GODSFIRE_ON_THE_MAP,
    "gm /godsfire counter add kind:AG at:C3 owner:alice",
    "gm /godsfire counter add kind:SQD at:G4 owner:bob count:3",
]
SCREENS = [("desktop", DESKTOP, False, False), ("desktop-dark", DESKTOP, False, True), ("phone", PHONE, True, False),
           ("phone-dark", PHONE, True, True)]


async def test_the_map_on_the_page_in_a_browser(tmp_path, tmp_path_factory):
    store = await Store.open(tmp_path / "godsfire.db")
    clock, out = FakeClock(), io.StringIO()
    referee = Referee(store, RULES, ForcedRoller(), clock)
    console = Console(referee, out)
    try:
        for line in ON_THE_MAP:
            await console.handle(line)
        assert "error:" not in out.getvalue(), out.getvalue()
        token = await store.page_token(await referee.game_id(CHANNEL), clock())
        folder = screenshot_dir(tmp_path_factory.mktemp("screenshots"))
        with chromium_session() as driver:
            async with serving(referee) as site, browsing(driver) as tab:
                for screen, (width, height), mobile, dark in SCREENS:
                    await tab.viewport(width, height, mobile)
                    await tab.dark(dark)
                    await tab.open(site.url(token))
                    shown = await map_loaded(tab)
                    assert shown["above"], shown  # above the charts
                    assert abs(shown["ratio"] - shown["natural"]) < 0.02, shown  # its own proportions
                    widths = await tab.js("return [document.documentElement.scrollWidth, window.innerWidth];")
                    assert widths[0] <= widths[1], (screen, widths)
                    await tab.js("document.getElementById('map').scrollIntoView();")
                    path = await tab.screenshot(folder / f"godsfire-map-{screen}.png", width, height, mobile)
                    assert path.stat().st_size > 10_000
                problems = [e["message"] for e in await tab.logs() if e["level"] in ("SEVERE", "WARNING")]
                assert not problems and await tab.seen() == []
        print(f"\nthe map's screenshots: {folder}")
    finally:
        await store.close()


async def map_loaded(tab: Tab) -> dict[str, float | bool]:
    """Wait until the map's picture has loaded; where it is and its proportions (shown, and its own)."""
    await tab.wait("return document.readyState === 'complete' && !!document.querySelector('#map img')",
                   what="the page and its map")
    return await tab.wait(
        "const i = document.querySelector('#map img');"
        "if (!i.complete || !i.naturalWidth) return null;"
        "const r = i.getBoundingClientRect();"
        "return {ratio: r.height / r.width, natural: i.naturalHeight / i.naturalWidth,"
        " above: i.compareDocumentPosition(document.getElementById('charts')) === Node.DOCUMENT_POSITION_FOLLOWING};",
        timeout=30, what="the map to load")
