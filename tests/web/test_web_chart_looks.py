"""The page's chart in each look (issue 34): a `<picture>` whose sources ask for the phone's narrow chart and the
light theme's chart by media queries, the dark, wide one (Discord's) as the fallback; each served as SVG with its
own background; a name that is no chart's look answers 404."""

from __future__ import annotations

import re

from pagehelpers import NATIONS, serving
from test_web_pages import get_page, section

from web.render import CHART_LOOKS


async def test_the_page_offers_the_chart_for_a_phone_and_for_a_light_theme(table):
    await table.play(NATIONS[:3] + ["gm /gm turn end"])
    token = await table.token()
    async with serving(table) as (client, pages):
        html = await get_page(client, token)
        version = re.search(r'data-version="([^"]+)"', html).group(1)
        charts = section(html, "charts")
        assert charts.count("<picture>") == 1
        sources = re.findall(r'<source media="([^"]+)" srcset="([^"]+)">', charts)
        assert sources == [("(max-width: 40rem) and (prefers-color-scheme: light)",
                            f"{token}/chart/game-narrow-light.svg?v={version}"),
                           ("(max-width: 40rem)", f"{token}/chart/game-narrow.svg?v={version}"),
                           ("(prefers-color-scheme: light)", f"{token}/chart/game-light.svg?v={version}")]
        assert f'<img src="{token}/chart/game.svg?v={version}"' in charts
        bodies = {}
        for suffix in CHART_LOOKS:
            response = await client.get(f"/g/{token}/chart/game{suffix}.svg")
            assert response.status == 200 and response.headers["Content-Type"] == "image/svg+xml"
            bodies[suffix] = await response.read()
        assert len(set(bodies.values())) == 4 and len(pages.charts.entries) == 4
        for suffix, body in bodies.items():
            light = "light" in suffix
            assert (b"fill: #ffffff" in body) == light and (b"fill: #2b2d31" in body) != light, suffix
        width = {s: float(re.search(rb'<svg[^>]* width="([0-9.]+)pt"', b).group(1)) for s, b in bodies.items()}
        assert width["-narrow"] < 0.6 * width[""] and width["-narrow-light"] == width["-narrow"]
        for wrong in ("game-dark", "game-narrow-narrow", "gamey", "-light", "map-light"):
            assert (await client.get(f"/g/{token}/chart/{wrong}.svg")).status == 404, wrong
