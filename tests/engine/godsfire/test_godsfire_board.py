"""The Godsfire map reader (`engine.godsfire.board.read_map`) as a hostile map maker would try it, and the paths on
a board: every shipped map loads, is bounded, symmetric and connected, and is read back equal from its normal form;
a map file at or past every bound, with broken names, touches, systems, keys or types, is refused with one line
naming its fault (and the table it was given is left as it was); a TOML text nested 10,000 deep is refused before
the reader sees it; cycles are legal and a path search on them ends; paths are the cheapest with a nebula costing
1 + 2, routes go through their stops in order, and two islands are refused with one line."""

from __future__ import annotations

import copy
import heapq
import json
from collections import deque
from pathlib import Path
from typing import Any

import pytest

from engine.errors import BadInput
from engine.godsfire import board as board_module
from engine.godsfire.board import (
    MAX_COLUMNS,
    MAX_LEVELS,
    MAX_MAP_CELLS,
    MAX_MAP_FILE,
    MAX_MAP_SYSTEMS,
    MAX_PLANETS,
    MAX_ROWS,
    MAX_TOUCHES,
    Board,
    MapError,
    board_from_plain,
    read_map,
)
from engine.godsfire.maps import MAPS_DIR, shipped, shipped_names
from engine.toml_text import MAX_TOML_DEPTH, parse_toml

MAPS_HERE = Path(__file__).resolve().parent / "maps"
NEBULA = 2  # the Movement chart's "Nebula = -2": entering a nebula cell costs 1 + 2
HOMES = {"four-winds": ("Boreas", "Euros", "Notos", "Zephyr")}  # the home systems of each map for 3-4 players


def ring() -> Board:
    """The docs' example of named cells: Hub (a nebula) touching a ring Alder-Birch-Cedar-Damson-Elm-Fir; Lantern on
    Alder (2 planets), Harbour on Damson (1)."""
    return read_map(parse_toml((MAPS_HERE / "ring.toml").read_text(encoding="utf-8")), "ring")


def refused(data: Any, fault: str) -> str:
    """`data` is refused by the reader with one line that says `fault`; `data` is left as it was."""
    before = repr(copy.deepcopy(data))
    with pytest.raises(MapError) as info:
        read_map(data)
    text = str(info.value)
    assert isinstance(info.value, BadInput)
    assert "\n" not in text and "\r" not in text, text
    assert fault in text, text
    assert repr(data) == before
    return text


def grid_map(columns: int = 4, rows: int = 3, **changes: Any) -> dict[str, Any]:
    """A small grid map that loads (A1 to D3, Sol on A1 with 2 planets), with `changes` made to it."""
    data: dict[str, Any] = {"name": "small", "title": "Small", "grid": {"columns": columns, "rows": rows},
                            "system": [{"name": "Sol", "cell": "A1", "planets": 2}]}
    data.update(changes)
    return data


def cell_map(*cells: dict[str, Any], systems: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    """A map in named cells: `cells` (Alpha touching Beta when none are given), and `systems`."""
    data: dict[str, Any] = {"cell": list(cells) or [{"name": "Alpha", "touches": ["Beta"]}, {"name": "Beta"}]}
    if systems is not None:
        data["system"] = systems
    return data


def numbered(count: int, prefix: str = "c") -> list[dict[str, Any]]:
    return [{"name": f"{prefix}{i}"} for i in range(count)]


def cost(board: Board, path: list[Any]) -> int:
    return sum(board.cost(cell, NEBULA) for cell in path)


def cheapest(board: Board, start: str) -> dict[str, int]:
    """Every cell's cheapest cost from `start`, worked out here apart from `Board.path` (a plain Dijkstra)."""
    origin = board.cell(start).name
    best = {origin: 0}
    queue = [(0, origin)]
    while queue:
        spent, name = heapq.heappop(queue)
        if spent > best[name]:
            continue
        for other in board.cell(name).touches:
            step = spent + board.cost(board.cell(other), NEBULA)
            if step < best.get(other, 1 << 30):
                best[other] = step
                heapq.heappush(queue, (step, other))
    return best


def reachable(board: Board, start: str) -> set[str]:
    seen = {board.cell(start).name}
    queue = deque(seen)
    while queue:
        for other in board.cell(queue.popleft()).touches:
            if other not in seen:
                seen.add(other)
                queue.append(other)
    return seen


def assert_chain(board: Board, start: str, path: list[Any], end: str) -> None:
    """`path` is a chain of touching cells from `start` (not in it) to `end` (its last)."""
    assert path and path[-1] is board.cell(end)
    here = board.cell(start)
    for cell in path:
        assert cell.name in here.touches, (here.name, cell.name)
        here = cell


# --- the shipped maps -------------------------------------------------------------------------------------------


def test_there_are_shipped_maps_for_two_and_for_three_or_four_players() -> None:
    names = shipped_names()
    assert {"twin-reaches", "four-winds"} <= set(names)
    assert {shipped(n).players for n in names} >= {"2", "3-4"}
    assert shipped("four").name == "four-winds" and shipped("Twin Reaches").name == "twin-reaches"


@pytest.mark.parametrize("name", shipped_names())
def test_a_shipped_map_loads_within_its_bounds(name: str) -> None:
    board = shipped(name)
    assert board.name == name  # the file's name is the map's
    assert (MAPS_DIR / f"{name}.toml").stat().st_size <= MAX_MAP_FILE  # as a GM's own file would have to be
    assert board.title and board.players and board.about and board.hexes
    assert 1 <= len(board.cells) <= MAX_MAP_CELLS
    assert len({c.name.casefold() for c in board.cells}) == len(board.cells)
    systems = board.systems()
    assert 2 <= len(systems) <= MAX_MAP_SYSTEMS
    for cell in board.cells:
        assert 1 <= len(cell.name) <= board_module.MAX_CELL_NAME
        assert 1 <= len(cell.touches) <= MAX_TOUCHES
        assert 1 <= cell.level <= MAX_LEVELS
        assert -1000 <= cell.x <= 1000 and -1000 <= cell.y <= 1000
        assert 0 <= cell.planets <= MAX_PLANETS
    for system in systems:
        assert 1 <= system.planets <= MAX_PLANETS
        assert system.grid and board.find(system.grid) is system  # named over a grid cell, which still finds it
        assert "/" not in system.name and not system.name.split()[-1].isdigit()


@pytest.mark.parametrize("name", shipped_names())
def test_a_shipped_maps_touching_is_both_ways_and_every_cell_is_reached_from_every_system(name: str) -> None:
    board = shipped(name)
    every = {c.name for c in board.cells}
    for cell in board.cells:
        for other in cell.touches:
            assert board.find(other) is not None and other != cell.name
            assert board.touching(other, cell.name), (cell.name, other)
    for system in board.systems():
        assert reachable(board, system.name) == every, system.name


@pytest.mark.parametrize("name", [n for n in shipped_names() if shipped(n).players == "3-4"])
def test_the_homes_of_a_map_for_three_or_four_players_lie_apart_and_alike(name: str) -> None:
    board = shipped(name)
    homes = HOMES[name]  # a new map for 3-4 players names its homes here
    assert len(homes) == 4
    assert all(board.cell(h).system and board.cell(h).planets == 2 for h in homes)
    neutrals = [c for c in board.systems() if c.name not in homes]
    assert 3 <= len(neutrals) <= 5 and all(1 <= c.planets <= 2 for c in neutrals)
    apart = {(a, b): len(board.path(a, b, NEBULA)) for a in homes for b in homes if a != b}
    assert min(apart.values()) >= 4, apart
    nearest = {h: min(n for (a, _), n in apart.items() if a == h) for h in homes}
    assert len(set(nearest.values())) == 1, nearest  # every home as near its nearest rival
    # and as near the neutral systems on its side of the map (the three nearest it)
    to_neutrals = {h: sorted(cost(board, board.path(h, n.name, NEBULA)) for n in neutrals)[:3] for h in homes}
    assert len({tuple(v) for v in to_neutrals.values()}) == 1, to_neutrals


def test_the_four_winds_is_laid_out_as_its_comments_say() -> None:
    board = shipped("four-winds")
    at = {c.name: c.grid for c in board.systems()}
    assert at == {"Boreas": "F2", "Euros": "J5", "Notos": "F8", "Zephyr": "B5", "Halcyon": "F5", "Gale": "H3",
                  "Squall": "I7", "Tempest": "D7", "Doldrum": "C4"}
    assert len(board.cells) == 11 * 9 - 14 and sum(c.nebula for c in board.cells) == 14
    for home, near, far in [("Boreas", "Gale", "Doldrum"), ("Euros", "Squall", "Gale"),
                            ("Notos", "Tempest", "Squall"), ("Zephyr", "Doldrum", "Tempest")]:
        assert len(board.path(home, near, NEBULA)) == 2 and len(board.path(home, far, NEBULA)) == 3
        assert len(board.path(home, "Halcyon", NEBULA)) == 4
    assert board.cell("F4").nebula and board.cell("F6").nebula and board.find("A1") is None


@pytest.mark.parametrize("name", shipped_names())
def test_a_shipped_map_is_read_back_equal_from_its_normal_form(name: str) -> None:
    board = shipped(name)
    plain = board.plain()
    again = read_map(plain)
    assert again == board and again.plain() == plain
    assert board_from_plain(json.loads(json.dumps(plain))) == board  # as the state keeps it


def test_the_ring_and_a_two_level_grid_are_read_back_equal_too() -> None:
    two_levels = read_map(grid_map(system=[{"name": "Sol", "cell": "B2/2", "planets": 3}]) | {
        "grid": {"columns": 3, "rows": 3, "levels": 2, "nebula": ["A1/2", "C3"], "skip": ["B1"]}})
    assert two_levels.find("B2/2") is two_levels.cell("Sol") and two_levels.cell("Sol").level == 2
    assert two_levels.touching("B2", "Sol")  # the cell directly below
    for board in (ring(), two_levels):
        assert read_map(board.plain()) == board


# --- bounds ---------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(("grid", "fault"), [
    ({"columns": MAX_COLUMNS + 1, "rows": 2}, "[grid] columns must be a whole number from 1 to 26"),
    ({"columns": 2, "rows": MAX_ROWS + 1}, "[grid] rows must be a whole number from 1 to 30"),
    ({"columns": 2, "rows": 2, "levels": MAX_LEVELS + 1}, "[grid] levels must be a whole number from 1 to 4"),
    ({"columns": 0, "rows": 2}, "[grid] columns must be a whole number from 1 to 26"),
    ({"columns": -3, "rows": 2}, "[grid] columns must be a whole number from 1 to 26"),
    ({"columns": 2, "rows": 2, "levels": 0}, "[grid] levels must be a whole number from 1 to 4"),
    ({"columns": 10**100, "rows": 2}, "[grid] columns must be a whole number from 1 to 26"),
    ({"rows": 2}, "[grid] columns must be a whole number from 1 to 26"),
    ({"columns": 26, "rows": 24}, "[grid] makes 624 cells; a map has at most 600"),
    ({"columns": 10, "rows": 30, "levels": 3}, "[grid] makes 900 cells; a map has at most 600"),
    ({"columns": 26, "rows": 30, "levels": 4}, "[grid] makes 3120 cells; a map has at most 600"),
])
def test_a_grid_too_big_is_refused(grid: dict[str, Any], fault: str) -> None:
    refused(grid_map() | {"grid": grid}, fault)


def test_a_grid_and_a_list_of_cells_at_their_bounds_load() -> None:
    assert len(read_map({"grid": {"columns": 20, "rows": 30}}).cells) == MAX_MAP_CELLS
    assert len(read_map({"grid": {"columns": 10, "rows": 15, "levels": 4}}).cells) == MAX_MAP_CELLS
    assert len(read_map(cell_map(*numbered(MAX_MAP_CELLS))).cells) == MAX_MAP_CELLS


def test_a_list_of_601_cells_is_refused() -> None:
    refused(cell_map(*numbered(MAX_MAP_CELLS + 1)), "the map has 601 cells; at most 600")


def test_a_cell_touching_13_others_is_refused_and_12_is_allowed() -> None:
    hub = {"name": "Hub", "touches": [f"c{i}" for i in range(MAX_TOUCHES)]}
    assert len(read_map(cell_map(hub, *numbered(MAX_TOUCHES))).cell("Hub").touches) == 12
    listed = {"name": "Hub", "touches": [f"c{i}" for i in range(13)]}
    refused(cell_map(listed, *numbered(13)), "cell Hub touches 13 cells; at most 12")
    # said the other way: thirteen cells each touching the hub once
    refused(cell_map({"name": "Hub"}, *[{"name": f"c{i}", "touches": ["Hub"]} for i in range(13)]),
            "cell Hub touches 13 cells; at most 12")


def test_more_than_60_systems_are_refused() -> None:
    systems = [{"name": f"Star-{i}", "cell": f"{chr(65 + i % 20)}{i // 20 + 1}"} for i in range(MAX_MAP_SYSTEMS + 1)]
    refused(grid_map(20, 5, system=systems), "the map has 61 systems; at most 60")
    assert len(read_map(grid_map(20, 5, system=systems[:-1])).systems()) == MAX_MAP_SYSTEMS


# --- names ----------------------------------------------------------------------------------------------------


def test_a_name_over_24_characters_is_refused_and_24_is_allowed() -> None:
    assert read_map(cell_map({"name": "A" * 24})).cells[0].name == "A" * 24
    refused(cell_map({"name": "A" * 25}), "cell 1's name has at most 24 characters, not 25")
    refused(grid_map(system=[{"name": "S" * 25, "cell": "A1"}]), "system 1's name has at most 24 characters")
    refused(cell_map({"name": "A", "touches": ["B" * 500]}), "has at most 24 characters, not 500")


@pytest.mark.parametrize("name", ["", "   ", "\n", "\r\n\t", "\x00\x07\x1b", "\u200b\u200d", "\u2028"])
def test_an_empty_or_invisible_name_is_refused(name: str) -> None:
    refused(cell_map({"name": name}), "cell 1's name cannot be empty (or only invisible characters)")
    refused(grid_map(system=[{"name": name, "cell": "A1"}]), "system 1's name cannot be empty")


@pytest.mark.parametrize("name", ["Sol 2", "Sol\n2", "Sol\t12", "Sol \uff12", "Sol\x07 2", "Deep Space 9"])
def test_a_name_that_reads_as_a_region_is_refused(name: str) -> None:
    text = refused(cell_map({"name": name}), "ends in a number after a space, which reads as a region")
    assert "(Sol-2)" in text
    refused(grid_map(system=[{"name": name, "cell": "A1"}]), "ends in a number after a space")


def test_names_joined_to_their_number_are_fine() -> None:
    board = read_map(cell_map({"name": "Sol-2", "touches": ["Sol2", "Sol 2b", "Sol 2/2"]}, {"name": "Sol2"},
                              {"name": "Sol 2b"}, {"name": "Sol 2/2"}))
    assert [c.name for c in board.cells] == ["Sol-2", "Sol2", "Sol 2b", "Sol 2/2"]


@pytest.mark.parametrize("name", ["Sol!", "<b>Sol</b>", "Sol;drop", "-Sol", "/Sol", "'Sol", "Sol\\", "@everyone",
                                  "Sol\u202e!"])
def test_a_name_with_other_marks_is_refused(name: str) -> None:
    refused(cell_map({"name": name}), "letters, digits, spaces, ' . - and / only")


def test_control_characters_and_line_breaks_inside_a_name_are_cleaned_out_never_echoed() -> None:
    # names are cleaned as every name is (engine.names.clean_name): controls dropped, line breaks made spaces
    board = read_map(cell_map({"name": "Ve\x07ga", "touches": ["Ri\ngel"]}, {"name": "Ri\ngel"},
                              {"name": "Sol\u202eloS"}))
    assert [c.name for c in board.cells] == ["Vega", "Ri gel", "SolloS"]  # no right-to-left override either
    assert board.touching("Vega", "Ri gel")
    text = refused(cell_map({"name": "Ve\nga", "touches": ["No\nwhere\r\n"]}), "which is not a cell of the map")
    assert "'No where'" in text
    text = refused(grid_map(system=[{"name": "Sol", "cell": "No\nwhere"}]), "which is not a cell of the map")
    assert "\\n" in text  # the raw cell shown escaped, on the one line


def test_a_system_name_with_a_slash_is_refused() -> None:
    refused(grid_map(system=[{"name": "Sol/2", "cell": "A1"}]), "system 1's name 'Sol/2': no / in a system's name")
    refused(grid_map(system=[{"name": "A/B", "cell": "A1"}]), "no / in a system's name")


@pytest.mark.parametrize(("first", "second"), [("a1", "A1"), ("Sol", "SOL"), ("Sol", " Sol "), ("Sol", "Sol\u200b"),
                                               ("A1", "\uff21\uff11"), ("Sol", "So\x00l")])
def test_two_cells_with_one_name_are_refused(first: str, second: str) -> None:
    refused(cell_map({"name": first}, {"name": second}), "two cells are called")


def test_a_system_named_like_another_cell_or_system_is_refused() -> None:
    refused(grid_map(system=[{"name": "B2", "cell": "A1"}]), "system B2's name is already a cell's or a system's")
    refused(grid_map(system=[{"name": "Sol", "cell": "A1"}, {"name": "sol", "cell": "B1"}]),
            "system sol's name is already a cell's or a system's")
    refused(cell_map(systems=[{"name": "beta", "cell": "Alpha"}]), "system beta's name is already a cell's")
    # two systems swapping grid names: the first to take the other's is refused
    refused(grid_map(system=[{"name": "B1", "cell": "A1"}, {"name": "A1", "cell": "B1"}]),
            "system B1's name is already a cell's or a system's")


def test_a_system_named_as_its_own_cell_is_that_cell() -> None:
    board = read_map(grid_map(system=[{"name": "b2", "cell": "B2"}, {"name": "C3"}]))
    assert board.find("B2") is board.cell("b2") and board.cell("b2").planets == 1
    assert board.cell("C3").system and board.cell("C3").grid == ""
    assert read_map(board.plain()) == board


# --- touches, systems, planets ------------------------------------------------------------------------------------


def test_a_touch_naming_an_unknown_cell_is_refused() -> None:
    refused(cell_map({"name": "Alpha", "touches": ["Zed"]}), "cell Alpha touches 'Zed', which is not a cell of the map")


@pytest.mark.parametrize("me", ["Alpha", "alpha", " ALPHA "])
def test_a_cell_touching_itself_is_refused(me: str) -> None:
    refused(cell_map({"name": "Alpha", "touches": ["Beta", me]}, {"name": "Beta"}), "cell Alpha touches itself")


def test_a_system_on_an_unknown_or_skipped_cell_is_refused() -> None:
    refused(grid_map(system=[{"name": "Sol", "cell": "Z9"}]),
            "system Sol is on cell 'Z9', which is not a cell of the map")
    skipped = grid_map(system=[{"name": "Sol", "cell": "B2"}])
    skipped["grid"]["skip"] = ["B2"]
    refused(skipped, "system Sol is on cell 'B2', which is not a cell of the map")
    refused(cell_map(systems=[{"name": "Sol"}]), "system Sol is on cell 'Sol', which is not a cell of the map")


def test_two_systems_on_one_cell_are_refused() -> None:
    refused(grid_map(system=[{"name": "Sol", "cell": "A1"}, {"name": "Vega", "cell": "a1"}]),
            "cell A1 holds two systems (Sol and Vega)")


@pytest.mark.parametrize("planets", [0, 13, -1, 10**30, "2", True, 2.0, 2.5, [2], None])
def test_planets_out_of_bounds_or_not_a_whole_number_are_refused(planets: Any) -> None:
    refused(grid_map(system=[{"name": "Sol", "cell": "A1", "planets": planets}]),
            "system Sol's planets must be a whole number from 1 to 12")


def test_planets_at_their_bounds_load() -> None:
    for planets in (1, MAX_PLANETS):
        assert read_map(grid_map(system=[{"name": "Sol", "cell": "A1", "planets": planets}])).cell("Sol").planets \
            == planets


def test_the_normal_form_is_held_to_the_same_checks() -> None:
    plain = shipped("twin-reaches").plain()
    for change, fault in [({"planets": 13}, "cell Aster's planets must be a whole number from 0 to 12"),
                          ({"touches": ["Nowhere"]}, "cell Aster touches 'Nowhere', which is not a cell of the map"),
                          ({"x": 1e9}, "cell Aster's x must be a number from -1000 to 1000"),
                          ({"name": "Aster 2"}, "ends in a number after a space")]:
        bad = copy.deepcopy(plain)
        aster = next(c for c in bad["cell"] if c["name"] == "Aster")
        aster.update(change)
        refused(bad, fault)


# --- keys and types ---------------------------------------------------------------------------------------------


def test_an_unknown_key_anywhere_is_refused() -> None:
    refused(grid_map(colour="red"), "the map has no key 'colour' (its keys: about, cell, grid, name, players, "
            "system, title)")
    refused(grid_map() | {"grid": {"columns": 3, "rows": 3, "colums": 4}}, "[grid] has no key 'colums'")
    refused(cell_map({"name": "Alpha", "owner": "me"}), "cell 1 has no key 'owner'")
    refused(grid_map(system=[{"name": "Sol", "cell": "A1", "owner": "me"}]), "system 1 has no key 'owner'")
    refused(grid_map(**{"__proto__": {}}), "the map has no key '__proto__'")


def test_a_grid_and_cells_together_or_neither_are_refused() -> None:
    refused(grid_map(cell=[{"name": "Alpha"}]), "a map has either a [grid] or [[cell]] tables, one of them")
    refused({"name": "empty", "system": []}, "a map has either a [grid] or [[cell]] tables, one of them")
    refused({}, "a map has either a [grid] or [[cell]] tables")
    refused(cell_map(*[]) | {"cell": []}, "the map has no cells")
    refused(grid_map(2, 1, system=[]) | {"grid": {"columns": 2, "rows": 1, "skip": ["A1", "B1"]}},
            "the map has no cells")


@pytest.mark.parametrize(("data", "fault"), [
    ([1, 2], "a map file is a TOML table"),
    (grid_map(grid=[]), "[grid] must be a table"),
    (grid_map(grid="4x3"), "[grid] must be a table"),
    (grid_map(system={"name": "Sol"}), "[[system]] must be a list of tables"),
    (grid_map(system=["Sol"]), "system 1 must be a table"),
    ({"cell": {"name": "Alpha"}}, "[[cell]] must be a list of tables"),
    ({"cell": ["Alpha"]}, "cell 1 must be a table"),
    (cell_map({"name": 7}), "cell 1's name must be text"),
    (cell_map({"name": ["Alpha"]}), "cell 1's name must be text"),
    (cell_map({"name": "Alpha", "touches": [["Beta"]]}, {"name": "Beta"}), "cell Alpha's touches: a cell must be text"),
    (cell_map({"name": "Alpha", "nebula": "yes"}), "cell Alpha's nebula must be true or false"),
    (cell_map({"name": "Alpha", "nebula": 1}), "cell Alpha's nebula must be true or false"),
    (cell_map({"name": "Alpha", "level": 5}), "cell Alpha's level must be a whole number from 1 to 4"),
    (cell_map({"name": "Alpha", "level": 1.0}), "cell Alpha's level must be a whole number from 1 to 4"),
    (cell_map({"name": "Alpha", "x": float("nan"), "y": 0}), "cell Alpha's x must be a number from -1000 to 1000"),
    (cell_map({"name": "Alpha", "x": 0, "y": float("-inf")}), "cell Alpha's y must be a number from -1000 to 1000"),
    (cell_map({"name": "Alpha", "x": True, "y": 0}), "cell Alpha's x must be a number from -1000 to 1000"),
    (cell_map({"name": "Alpha", "x": 10**400, "y": 0}), "cell Alpha's x must be a number from -1000 to 1000"),
    (grid_map(system=[{"name": 5, "cell": "A1"}]), "system 1's name must be text"),
    (grid_map(system=[{"name": "Sol", "cell": 1}]), "system Sol's cell must be text"),
    (grid_map(title=["x"]), "the map's title must be text"),
    (grid_map(name=None), "the map's name must be text"),
    (grid_map(players=3), "the map's players must be text"),
    (grid_map(about={"a": 1}), "the map's about must be text"),
    (grid_map(about="x" * 301), "the map's about has at most 300 characters, not 301"),
    (grid_map(title="T" * 81), "the map's title has at most 80 characters, not 81"),
    (grid_map() | {"grid": {"columns": 3, "rows": 3, "skip": "A1"}}, "[grid] skip must be a list of cell names"),
    (grid_map() | {"grid": {"columns": 3, "rows": 3, "skip": ["Z9"]}},
     "[grid] skip: 'Z9' is not a cell of the grid (A1 to C3)"),
    (grid_map() | {"grid": {"columns": 3, "rows": 3, "nebula": ["A1/2"]}}, "[grid] nebula: 'A1/2' is not a cell"),
    (grid_map() | {"grid": {"columns": 3, "rows": 3, "nebula": ["A1"] * 601}},
     "[grid] nebula lists 601 cells; at most 600"),
])
def test_a_value_of_the_wrong_kind_is_refused(data: Any, fault: str) -> None:
    refused(data, fault)


@pytest.mark.parametrize(("text", "fault"), [
    ('[grid]\ncolumns = "9"\nrows = 6\n', "[grid] columns must be a whole number from 1 to 26"),
    ("[grid]\ncolumns = 9.0\nrows = 6\n", "[grid] columns must be a whole number from 1 to 26"),
    ("[grid]\ncolumns = 9\nrows = 6\nnebula = true\n", "[grid] nebula must be a list of cell names"),
    ('nebula = true\n[grid]\ncolumns = 9\nrows = 6\n', "the map has no key 'nebula'"),
    ('[[cell]]\nname = "B"\n[[cell]]\nname = "C"\ntouches = "B"\n', "cell C's touches must be a list of cell names"),
    ('[[cell]]\nname = "A"\nx = 1e9\ny = 0\n', "cell A's x must be a number from -1000 to 1000"),
    ('[[cell]]\nname = "A"\nx = 0\ny = nan\n', "cell A's y must be a number from -1000 to 1000"),
    ('[[cell]]\nname = "A"\nx = inf\ny = 0\n', "cell A's x must be a number from -1000 to 1000"),
    ('[[cell]]\nname = "A"\nx = 1979-05-27\ny = 0\n', "cell A's x must be a number from -1000 to 1000"),
    ('[[cell]]\nname = """Sol\n2"""\n', "ends in a number after a space"),
    ('[[cell]]\nname = "A"\ntouches = [[[["B"]]]]\n[[cell]]\nname = "B"\n', "cell A's touches: a cell must be text"),
    ('[grid]\ncolumns = 3\nrows = 3\n[[system]]\nname = "Sol"\ncell = "A1"\nplanets = 0x0D\n',
     "system Sol's planets must be a whole number from 1 to 12"),
])
def test_a_map_file_of_the_wrong_kinds_is_refused(text: str, fault: str) -> None:
    refused(parse_toml(text), fault)


# --- nesting ----------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("text", [
    "x = " + "[" * 10_000 + "]" * 10_000,
    "x = " + "{a = " * 10_000 + "1" + "}" * 10_000,
    "[grid]\ncolumns = 3\nrows = 3\nskip = " + "[" * 10_000 + '"A1"' + "]" * 10_000,
    "[[cell]]\nname = \"A\"\ntouches = " + "[" * 10_000,  # never closed
])
def test_a_map_file_nested_10000_deep_is_refused_before_it_is_read(text: str) -> None:
    with pytest.raises(ValueError) as info:
        parse_toml(text)
    assert not isinstance(info.value, RecursionError)
    message = str(info.value)
    assert "\n" not in message and f"nested too deeply (at most {MAX_TOML_DEPTH} levels" in message


def test_a_map_file_nested_as_deep_as_toml_allows_is_read_and_then_refused_by_the_reader() -> None:
    inner = "[" * (MAX_TOML_DEPTH - 1) + '"B"' + "]" * (MAX_TOML_DEPTH - 1)
    refused(parse_toml(f'[[cell]]\nname = "A"\ntouches = {inner}\n'), "cell A's touches: a cell must be text")


# --- cycles, aliases, paths -----------------------------------------------------------------------------------


def test_the_ring_loads_its_cycles_and_finds_its_cells_by_either_name() -> None:
    board = ring()
    assert (board.name, board.title, board.players, board.hexes) == ("ring", "The Ring", "2", False)
    assert [c.name for c in board.cells] == ["Hub", "Lantern", "Birch", "Cedar", "Harbour", "Elm", "Fir"]
    assert board.find("Alder") is board.cell("Lantern") and board.find("damson") is board.cell("Harbour")
    assert board.cell("Hub").nebula and len(board.cell("Hub").touches) == 6
    assert [(c.name, c.planets) for c in board.systems()] == [("Lantern", 2), ("Harbour", 1)]
    for cell in board.cells:
        assert reachable(board, cell.name) == {c.name for c in board.cells}


def test_a_path_on_the_ring_goes_round_the_nebula_hub_or_through_it_as_it_costs() -> None:
    board = ring()
    assert [c.name for c in board.path("Lantern", "Harbour", NEBULA)] == ["Birch", "Cedar", "Harbour"]
    assert [c.name for c in board.path("Alder", "Damson", 0)] == ["Hub", "Harbour"]
    # at a nebula cost of 1 the hub and the ring cost 3 alike: `avoid` chooses between them
    assert [c.name for c in board.path("Lantern", "Harbour", 1, avoid=["Birch", "Elm"])] == ["Hub", "Harbour"]
    assert "Hub" not in [c.name for c in board.path("Lantern", "Harbour", 1, avoid=["Hub"])]
    assert board.path("Lantern", "alder", NEBULA) == []


def test_a_path_search_on_cycles_ends() -> None:
    # thirteen cells each touching the twelve others (every pair a cycle of three), and one cycle of 600 cells
    mesh = read_map(cell_map(*[{"name": f"m{i}", "touches": [f"m{j}" for j in range(13) if j != i]}
                               for i in range(13)]))
    for i in range(13):
        for j in range(13):
            assert len(mesh.path(f"m{i}", f"m{j}", NEBULA)) == (i != j)
    loop = read_map(cell_map(*[{"name": f"c{i}", "touches": [f"c{(i + 1) % MAX_MAP_CELLS}"]}
                               for i in range(MAX_MAP_CELLS)]))
    assert len(loop.path("c0", "c300", NEBULA)) == 300
    assert [c.name for c in loop.path("c0", "c599", NEBULA)] == ["c599"]
    around = loop.route("c0", ["c200", "c400"], "c0", NEBULA)
    assert len(around) == MAX_MAP_CELLS and around[-1].name == "c0"


def test_cheapest_paths_on_the_twin_reaches_count_a_nebula_as_three() -> None:
    board = shipped("twin-reaches")
    assert [c.name for c in board.path("D2", "F3", 0)] == ["E3", "F3"]  # across the nebula E3 when it is free
    assert [c.name for c in board.path("D2", "F3", NEBULA)] == ["D3", "Dusk", "F3"]  # round it: 3, not 3 + 1
    assert [c.name for c in board.path("Cinder", "Dusk", 0)] == ["E2", "E3", "Dusk"]
    assert [c.name for c in board.path("Cinder", "Dusk", NEBULA)] == ["D1", "D2", "D3", "Dusk"]
    # ending in a nebula pays for it: D1 D2 E3 costs 1 + 1 + 3, less than E2 E3 (3 + 3)
    assert [c.name for c in board.path("Cinder", "E3", NEBULA)] == ["D1", "D2", "E3"]
    assert cost(board, board.path("Cinder", "E3", NEBULA)) == 5
    assert [c.name for c in board.path("Aster", "Brand", NEBULA)] == ["C3", "D3", "Dusk", "F3", "G4", "Brand"]


@pytest.mark.parametrize("name", shipped_names())
def test_every_path_from_a_system_is_a_cheapest_chain_of_touching_cells(name: str) -> None:
    board = shipped(name)
    for system in board.systems():
        best = cheapest(board, system.name)
        for cell in board.cells:
            if cell is system:
                continue
            path = board.path(system.name, cell.name, NEBULA)
            assert_chain(board, system.name, path, cell.name)
            assert cost(board, path) == best[cell.name], (system.name, cell.name)


def test_a_route_goes_through_its_stops_in_order() -> None:
    board = shipped("twin-reaches")
    route = board.route("Aster", ["Cinder", "Ember"], "Brand", NEBULA)
    names = [c.name for c in route]
    assert names.index("Cinder") < names.index("Ember") < len(names) - 1 and names[-1] == "Brand"
    assert_chain(board, "Aster", route, "Brand")
    assert route == (board.path("Aster", "Cinder", NEBULA) + board.path("Cinder", "Ember", NEBULA)
                     + board.path("Ember", "Brand", NEBULA))
    # naming every cell gives exactly that path, nebulae and all
    assert [c.name for c in board.route("D2", ["E3"], "F3", NEBULA)] == ["E3", "F3"]
    assert [c.name for c in board.route("B3", [], "C3", NEBULA)] == ["C3"]  # a system's grid name is its cell


def test_a_path_between_two_islands_or_to_no_cell_is_refused_in_one_line() -> None:
    islands = read_map(cell_map({"name": "Alpha", "touches": ["Beta"]}, {"name": "Beta"},
                                {"name": "Gamma", "touches": ["Delta"]}, {"name": "Delta"},
                                systems=[{"name": "Sol", "cell": "Alpha"}, {"name": "Vega", "cell": "Delta"}]))
    assert [c.name for c in islands.path("Sol", "Beta", NEBULA)] == ["Beta"]
    for attempt in (lambda: islands.path("Sol", "Vega", NEBULA), lambda: islands.path("gamma", "alpha", 0),
                    lambda: islands.route("Sol", ["Beta", "Gamma"], "Vega", NEBULA)):
        with pytest.raises(BadInput) as info:
            attempt()
        assert "\n" not in str(info.value) and "no chain of touching cells joins them" in str(info.value)
    with pytest.raises(BadInput) as info:
        islands.path("Sol", "Nowhere\nat all", NEBULA)
    assert str(info.value) == "there is no cell 'Nowhere\\nat all' on the map 'map' (/godsfire map show draws it)"


def test_find_gives_a_system_by_its_name_or_the_grid_name_it_replaced() -> None:
    board = shipped("twin-reaches")
    aster = board.cell("Aster")
    assert board.find("B3") is aster and board.find("b3") is aster and board.find(" B3 ") is aster
    assert board.find("B3/1") is aster and board.find("ASTER") is aster
    assert aster.grid == "B3" and "B3" not in {c.name for c in board.cells}
    assert board.cell("C3").name == "C3" and board.touching("B3", "C3") and board.touching("C3", "Aster")
    assert board.find("A1") is None and board.find("") is None and board.find("B3/2") is None


def test_find_reads_level_one_spelled_out_for_every_grid_cell() -> None:
    board = shipped("twin-reaches")
    assert board.find("A2/1") is board.cell("A2")


def test_touching_finds_both_cells_by_either_name() -> None:
    board = shipped("twin-reaches")
    assert board.touching("C3", "B3")


def test_look_alike_names_clashing_grid_names_and_a_non_boolean_hexes_are_refused() -> None:
    refused({"cell": [{"name": "Sol"}, {"name": "\u0405ol"}]}, "look alike")  # a Cyrillic Ѕ
    refused({"cell": [{"name": "Sol", "grid": "Vega"}, {"name": "Vega"}]}, "grid name 'Vega' is another cell's name")
    refused({"cell": [{"name": "Sol", "grid": "X1"}, {"name": "Vega", "grid": "X1"}]}, "is another cell's name")
    refused({"hexes": "no", "cell": [{"name": "Sol"}]}, "hexes must be true or false")
    # a neighbour named twice is one neighbour
    board = read_map({"cell": [{"name": "A", "touches": ["B"] * 13}, {"name": "B"}]})
    assert board.cell("A").touches == ("B",)


def test_a_state_finds_its_map_again_by_its_digest_without_reading_it(monkeypatch) -> None:
    from engine.godsfire import board as board_module

    plain = shipped("twin-reaches").plain()
    first = board_module.board_from_plain(plain)
    reads: list[object] = []
    monkeypatch.setattr(board_module, "read_map", lambda data: reads.append(data))
    assert board_module.board_from_plain(dict(plain)) is first and reads == []
