"""The game's page shows the picture of the game's board (its rule set's `board_picture`) above its charts, as an SVG
served like the charts (`/g/<token>/chart/map.svg`): a Godsfire game on the shipped map has it, its players by their
shown names; a Godsfire game without a map, a Nations and a God Dice game have none (the route answers 404)."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from dataclasses import replace

import pytest
from pagehelpers import GODDICE, GODSFIRE, GODSFIRE_ON_THE_MAP, LONG_ID, NATIONS, serving

from engine.mapspec import MapPicture, Spot, Stack
from engine.rulesets import RULESETS
from web.render import Namer
from web.server import SVG_CSP

ON_THE_MAP = [  # two players' home systems on the shipped map, a stack in space at each and one beside Aster
    *GODSFIRE_ON_THE_MAP,
    "gm /godsfire counter add kind:AG at:C3 owner:alice",
    "gm /godsfire counter add kind:SQD at:Brand owner:bob",
]


def section(html: str, name: str) -> str | None:
    found = re.search(f'<section id="{name}">(.*?)</section>', html, re.S)
    return found.group(1) if found else None


async def page_and_map(client, token: str) -> tuple[str, int, bytes, dict[str, str]]:
    response = await client.get(f"/g/{token}")
    assert response.status == 200, await response.text()
    picture = await client.get(f"/g/{token}/chart/map.svg")
    return await response.text(), picture.status, await picture.read(), dict(picture.headers)


def svg_ids(svg: bytes) -> set[str]:
    root = ET.fromstring(svg)
    assert not any(element.tag.endswith("script") for element in root.iter()) and b"<script" not in svg
    return {element.get("id", "") for element in root.iter()}


async def test_a_godsfire_game_on_a_map_shows_the_map_above_its_charts(table):
    await table.play(ON_THE_MAP)
    token = await table.token()
    async with serving(table) as (client, _):
        html, status, svg, headers = await page_and_map(client, token)
    shown = section(html, "map")
    assert shown is not None and html.index('<section id="map">') < html.index('<section id="charts">')
    image = re.search(r'<img src="([^"]+)" alt="([^"]+)" width="(\d+)" height="(\d+)">', shown)
    assert image is not None
    assert image.group(1).startswith(f"{token}/chart/map.svg?v=")
    assert image.group(2).startswith("The Twin Reaches: the map")
    assert 900 <= int(image.group(3)) <= 1600 and int(image.group(4)) <= 1600
    assert "<figcaption>The Twin Reaches — Turn 1: Movement Phase</figcaption>" in shown
    assert status == 200 and headers["Content-Type"] == "image/svg+xml"
    assert headers["Content-Security-Policy"] == SVG_CSP
    assert {"stack:Aster:space", "stack:C3:space", "stack:Brand:space"} <= svg_ids(svg)


async def test_players_on_the_map_of_a_discord_game_are_shown_by_name(table):
    ids = {"gm": "111111111111111111", "alice": "222222222222222222", "bob": "333333333333333333"}
    names = {ids["gm"]: "Game Master", ids["alice"]: "Alice", ids["bob"]: "Bob"}
    await table.play([re.sub(r"(?<!/)\b(gm|alice|bob)\b", lambda m: ids[m.group()], line) for line in ON_THE_MAP])
    token = await table.token()
    async with serving(table, names=lambda guild, who: names.get(who, "someone")) as (client, pages):
        html, status, svg, _ = await page_and_map(client, token)
        state = await table.store.load(await table.game_id())
        picture = pages.board_picture(state, Namer(pages.names, None))
    assert status == 200 and not LONG_ID.search(html) and not LONG_ID.search(svg.decode())
    assert picture is not None and ("Alice", "#5DA5F5") in picture.legend


@pytest.mark.parametrize("script", [GODSFIRE[:3], ON_THE_MAP[:5], NATIONS, GODDICE],
                         ids=["godsfire", "godsfire-before-its-map", "nations", "goddice"])
async def test_a_game_without_a_map_has_no_map_on_its_page(table, script):
    await table.play(script)
    token = await table.token()
    async with serving(table) as (client, _):
        html, status, _, _ = await page_and_map(client, token)
    assert section(html, "map") is None and "map.svg" not in html
    assert status == 404
    assert section(html, "charts") is not None


async def test_any_rule_set_that_offers_a_board_picture_has_it_shown(table, monkeypatch):
    """Through the registry alone: the page names no rule set."""
    picture = MapPicture("Two Cells", (Spot("Here", 0, 0, system=True, note="home"), Spot("There", 1.5, 0.866)),
                         (("Here", "There"),), True, (Stack("There", "alice", "#5DA5F5", "1 SQD"),),
                         legend=(("alice", "#5DA5F5"),), caption="Turn 1")
    monkeypatch.setitem(RULESETS, "nations", replace(RULESETS["nations"], board_picture=lambda state: picture))
    await table.play(NATIONS)
    token = await table.token()
    async with serving(table) as (client, _):
        html, status, svg, _ = await page_and_map(client, token)
    shown = section(html, "map")
    assert shown is not None and 'alt="Two Cells: the map' in shown and "Two Cells — Turn 1" in shown
    assert status == 200 and "stack:There:space" in svg_ids(svg)
