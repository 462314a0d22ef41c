"""A board's picture (`engine.mapspec.MapPicture`) drawn by `service.charts` like a chart: PNG and SVG, inline and
in the worker process — from a real Godsfire game on the shipped map, and by hand (stacks of three sides, a ground
stack, a move, an attack); its size follows the map and is capped; circles for named cells, a label per level; the
front-ends' relabelling of players."""

from __future__ import annotations

import io
import xml.etree.ElementTree as ET
from dataclasses import replace

import pytest
from godsfirehelpers import Table
from matplotlib import image

from engine.godsfire import maps
from engine.godsfire.board import read_map
from engine.godsfire.state import Counter
from engine.mapspec import Arrow, MapPicture, Spot, Stack
from engine.rulesets import ruleset
from service import charts, mappicture

PNG = b"\x89PNG\r\n\x1a\n"
BLUE, ORANGE, GREEN, GREY = "#5DA5F5", "#F5A623", "#57D9A3", "#9AA0A6"


@pytest.fixture(scope="module", autouse=True)
def _chart_worker():
    yield
    charts.close_pool()


def twin_reaches_game() -> Table:
    """A Godsfire game on the shipped map: alice at Aster, bob at Brand, three neutral systems; counters in space
    and on the ground, alice's AG moved this turn from Aster to C3."""
    table = Table()
    table.system("Aster", "alice", planets=2)
    table.system("Brand", "bob", planets=2)
    for name in ("Cinder", "Dusk", "Ember"):
        table.system(name, None)
    state = replace(table.state, board=maps.shipped("twin-reaches"))
    state.counters = [Counter(1, "SQD", "alice", "Aster"), Counter(2, "SQD", "alice", "Aster"),
                      Counter(3, "AG", "alice", "C3", moved=1, came_from="Aster"),
                      Counter(4, "SQD", "bob", "G4"), Counter(5, "PDF", None, "Dusk 1", ground=True),
                      Counter(6, "GB", "bob", "Brand", amount=4)]
    state.next_counter = 7
    table.state = state
    return table


def by_hand() -> MapPicture:
    """The shipped map with three sides' stacks, a ground stack, two moves and two attacks."""
    board = maps.shipped("twin-reaches")
    owners = {"Aster": BLUE, "Brand": ORANGE, "Dusk": GREY}
    spots = tuple(Spot(c.name, c.x, c.y, c.nebula, c.system, f"{c.planets} planets" if c.system else c.grid,
                       owners.get(c.name), c.level) for c in board.cells)
    links = tuple(sorted({tuple(sorted((c.name, t))) for c in board.cells for t in c.touches}))
    stacks = (Stack("Aster", "alice", BLUE, "2 SQD, 1 AG"), Stack("Aster", "alice", BLUE, "1 PDF, 1 NG", ground=True),
              Stack("C3", "alice", BLUE, "1 AG, 4 GB"), Stack("G4", "bob", ORANGE, "3 SQD"),
              Stack("Dusk", "neutral", GREY, "3 PDF", ground=True), Stack("Dusk", "alice", BLUE, "2 SQD"),
              Stack("F3", "carol", GREEN, "1 SQD"), Stack("Nowhere", "carol", GREEN, "1 AG"))
    arrows = (Arrow("Aster", "C3", BLUE), Arrow("H4", "G4", ORANGE), Arrow("C3", "Dusk", BLUE, "attack"),
              Arrow("G4", "Dusk", ORANGE, "attack"), Arrow("Atlantis", "Dusk", GREEN))  # (no such cell: left out)
    return MapPicture(board.title, spots, links, True, stacks, arrows,
                      (("alice", BLUE), ("bob", ORANGE), ("carol", GREEN), ("neutral", GREY)), "Turn 3: Combat Phase")


def png_shape(png: bytes) -> tuple[int, ...]:
    assert png.startswith(PNG)
    return tuple(image.imread(io.BytesIO(png), format="png").shape)


def svg_ids(svg: bytes) -> set[str]:
    root = ET.fromstring(svg)  # well-formed XML
    assert root.tag.endswith("svg")
    assert not any(element.tag.endswith("script") for element in root.iter())
    assert b"<script" not in svg and b"javascript:" not in svg.lower()
    return {element.get("id", "") for element in root.iter()}


def test_a_godsfire_game_s_map_is_drawn_as_a_png_and_an_svg():
    state = twin_reaches_game().state
    picture = ruleset("godsfire").board_picture(state)
    assert picture == maps.picture(state)
    assert picture.caption == "Turn 1: Movement Phase" and picture.file_name == "map.png"
    assert [(s.at, s.side, s.text, s.ground) for s in picture.stacks if s.at in ("Aster", "Dusk", "Brand")] == [
        ("Aster", "alice", "2 SQD", False), ("Brand", "bob", "4 GB", False), ("Dusk", "neutral", "1 PDF", True)]

    png = charts.render_png(picture)
    shape = mappicture.layout(picture)
    assert png_shape(png) == (shape.height, shape.width, 4)
    assert 900 <= shape.width <= mappicture.MAX_PIXELS and shape.height <= mappicture.MAX_PIXELS

    ids = svg_ids(charts.render_svg(picture))
    assert {"stack:Aster:space", "stack:Dusk:ground", "stack:C3:space", "move:Aster>C3"} <= ids


def test_a_game_without_a_map_has_no_picture():
    table = twin_reaches_game()
    table.state = replace(table.state, board=None)
    assert ruleset("godsfire").board_picture(table.state) is None
    assert ruleset("nations").board_picture is None and ruleset("goddice").board_picture is None


def test_stacks_arrows_and_a_cell_off_the_map_are_drawn():
    picture = by_hand()
    ids = svg_ids(charts.render_svg(picture))
    assert {"stack:Aster:space", "stack:Aster:ground", "stack:Dusk:ground", "stack:Dusk:space", "stack:F3:space",
            "stack:Nowhere:space", "move:Aster>C3", "attack:C3>Dusk", "attack:G4>Dusk"} <= ids
    assert not any(i.startswith("move:Atlantis") for i in ids)
    assert "move:H4>G4" not in ids  # H4 is Brand's cell: the picture names it Brand

    figure = charts.draw(picture)
    words = [t.get_text() for t in figure.texts] + [t.get_text() for t in figure.legends[0].get_texts()]
    assert words[:2] == ["The Twin Reaches", "Turn 3: Combat Phase"]
    assert words[2:] == ["alice", "bob", "carol", "neutral", "nebula", "star system", "moved this turn",
                         "attack announced", "▼ on the planets"]
    texts = [t.get_text() for t in figure.axes[0].texts]
    assert "▼ 1 PDF, 1 NG" in texts and "2 SQD, 1 AG" in texts and "Nowhere: 1 AG" in texts
    assert "Aster" in texts and "2 planets" in texts and "C4" in texts
    assert not any(t.startswith("Level") for t in texts)  # one level: no level's label


async def test_the_worker_draws_a_map_picture_in_either_format():
    picture = by_hand()
    png = await charts.render(picture)
    assert png_shape(png)[1] == mappicture.layout(picture).width
    svg = await charts.render(picture, fmt="svg")
    assert "attack:G4>Dusk" in svg_ids(svg)


def test_named_cells_are_circles_joined_by_lines_and_levels_are_labelled():
    named = read_map({"title": "Ring", "cell": [{"name": n, "touches": [m]} for n, m in
                                                [("Alpha", "Beta"), ("Beta", "Gamma"), ("Gamma", "Alpha")]],
                      "system": [{"name": "Alpha"}]})
    picture = MapPicture("Ring", tuple(Spot(c.name, c.x, c.y, system=c.system) for c in named.cells),
                         (("Alpha", "Beta"), ("Beta", "Gamma"), ("Alpha", "Gamma")), False,
                         (Stack("Beta", "alice", BLUE, "1 SQD"),), (Arrow("Beta", "Gamma", BLUE),), (("alice", BLUE),))
    figure = charts.draw(picture)
    axes = figure.axes[0]
    assert len(axes.collections) == 1 and len(axes.collections[0].get_segments()) == 3  # the links
    assert png_shape(charts.render_png(picture))[1] == mappicture.MIN_WIDTH

    decks = read_map({"title": "Decks", "grid": {"columns": 3, "rows": 2, "levels": 2}})
    picture = MapPicture("Decks", tuple(Spot(c.name, c.x, c.y, level=c.level) for c in decks.cells), (), True)
    texts = [t.get_text() for t in charts.draw(picture).axes[0].texts]
    assert "Level 1" in texts and "Level 2" in texts
    assert png_shape(charts.render_png(picture))[0] == mappicture.layout(picture).height


def test_a_large_map_is_capped_in_size():
    big = read_map({"title": "Expanse", "grid": {"columns": 26, "rows": 23}})
    picture = MapPicture("Expanse", tuple(Spot(c.name, c.x, c.y) for c in big.cells), (), True,
                         (Stack("A1", "alice", BLUE, "1 SQD"),), (), (("alice", BLUE),), "Turn 9: Movement Phase")
    shape = mappicture.layout(picture)
    assert max(shape.width, shape.height) <= mappicture.MAX_PIXELS
    height, width, _ = png_shape(charts.render_png(picture))
    assert (width, height) == (shape.width, shape.height)


def test_a_front_end_shows_players_by_its_names():
    picture = replace(by_hand(), spots=(Spot("Aster", 0, 0, system=True, note="2 planets · 123456789012345678"),),
                      legend=(("123456789012345678", BLUE),), caption="Turn 1: 123456789012345678 moves")
    assert charts.sides(picture) == ["123456789012345678", "alice", "bob", "neutral", "carol"]
    shown = charts.relabel(picture, lambda text: text.replace("123456789012345678", "Ann"))
    assert isinstance(shown, MapPicture)
    assert shown.legend == (("Ann", BLUE),) and shown.spots[0].note == "2 planets · Ann"
    assert shown.caption == "Turn 1: Ann moves" and shown.stacks[0].side == "alice"


def test_hostile_words_are_only_drawn():
    hostile = "<script>alert('x')</script> & \"q\""
    picture = MapPicture(hostile, (Spot(hostile, 0, 0, system=True, note=hostile), Spot("B", 1.5, 0.866)),
                         ((hostile, "B"),), True, (Stack(hostile, hostile, BLUE, hostile),
                                                   Stack(hostile, hostile, BLUE, hostile, ground=True)),
                         (Arrow(hostile, "B", BLUE, "attack"),), ((hostile, BLUE),), hostile)
    svg = charts.render_svg(picture)
    ids = svg_ids(svg)  # (no script element, no "<script" in the text)
    assert f"stack:{hostile}:space" in ids and f"attack:{hostile}>B" in ids  # escaped in the attributes
