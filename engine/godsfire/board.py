"""The board: a map the GM loads (its cells, which cells touch, nebulae, the cells of the star systems) and the
paths of moves on it.

A map file is TOML, in one of two forms (docs/godsfire.md, "The map"):

- a hex grid from a short description: `[grid] columns rows levels`, cells named by column letter and row number
  (`C4`; on a higher level `C4/2`), each touching its six neighbours and, with levels, the cells directly above
  and below; `skip` leaves cells out and `nebula` names the nebula cells;
- named cells with explicit neighbours: `[[cell]] name touches nebula x y`.

Either form names its star systems: `[[system]] name cell planets`. A system's cell is then called by the
system's name (the grid's name for it still finds it). Every count, size and name is bounded here, and a map is
refused with one line naming its first fault.

In the game's state the map is kept in its normal form (`Board.plain()`, what the export carries): the
named-cells form with every cell's neighbours, position and level written out, read back by the same checks.
"""

from __future__ import annotations

import hashlib
import heapq
import json
import math
import re
import threading
from collections import OrderedDict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from engine.errors import BadInput
from engine.names import clean_name, look_alike_key, name_key

MAX_PLANETS = 12  # a system's planets at the most
MAX_MAP_CELLS = 600  # cells on one map
MAX_COLUMNS = 26  # a grid's columns (A to Z)
MAX_ROWS = 30
MAX_LEVELS = 4
MAX_TOUCHES = 12  # a named cell's neighbours
MAX_MAP_SYSTEMS = 60
MAX_CELL_NAME = 24
MAX_TITLE = 80
MAX_MAP_FILE = 64_000  # bytes
MAX_LISTED_CELLS = 600  # names in one list of a map file (skip, nebula)
KEYS = {"name", "title", "players", "about", "grid", "cell", "system"}
GRID_KEYS = {"columns", "rows", "levels", "skip", "nebula"}
CELL_KEYS = {"name", "touches", "nebula", "x", "y", "level", "grid", "planets"}
SYSTEM_KEYS = {"name", "cell", "planets"}
SQRT3 = math.sqrt(3)


class MapError(BadInput):
    """A map file's fault, in one line."""


@dataclass(frozen=True)
class Cell:
    name: str  # what it is called: a system's name for a system's cell
    touches: tuple[str, ...]  # the cells it touches, by name
    nebula: bool = False
    x: float = 0.0  # where the picture draws it (a hex's centre; one hex is 1 wide)
    y: float = 0.0
    level: int = 1
    grid: str = ""  # a grid cell's own name when a system's name replaced it (`C4`)
    planets: int = 0  # a system's cell: its planets (0: not a system's)

    @property
    def system(self) -> bool:
        return self.planets > 0


@dataclass(frozen=True)
class Board:
    name: str  # the map's short name (`twin-reaches`)
    title: str
    players: str  # for how many players it is made ("2", "3-4"), as its maker wrote it
    about: str
    cells: tuple[Cell, ...]
    hexes: bool  # drawn as a hex grid (cells at grid positions) or as named cells (circles)
    index: dict[str, Cell] = field(default_factory=dict, compare=False, repr=False)  # by name_key
    aliases: dict[str, Cell] = field(default_factory=dict, compare=False, repr=False)  # grid names of system cells

    def __post_init__(self) -> None:
        index: dict[str, Cell] = {}
        for cell in self.cells:
            index[name_key(cell.name)] = cell
        aliases = {name_key(c.grid): c for c in self.cells if c.grid}
        self.index.update(index)
        self.aliases.update(aliases)

    # --- finding cells -----------------------------------------------------------------------------

    def find(self, name: str) -> Cell | None:
        key = name_key(name)
        if key.endswith("/1"):  # level 1 spelled out
            key = key[:-2]
        return self.index.get(key) or self.aliases.get(key)

    def cell(self, name: str) -> Cell:
        found = self.find(name)
        if found is None:
            raise BadInput(f"there is no cell {_shown(name)} on the map {self.title!r} (/godsfire map show draws it)")
        return found

    def touching(self, a: str, b: str) -> bool:
        return name_key(self.cell(b).name) in {name_key(t) for t in self.cell(a).touches}

    def systems(self) -> list[Cell]:
        return [c for c in self.cells if c.system]

    # --- paths -------------------------------------------------------------------------------------

    def cost(self, cell: Cell, nebula_cost: int) -> int:
        """Entering `cell`: 1, and a nebula's extra cost (the Movement chart's "Nebula = -2": 2 more)."""
        return 1 + (nebula_cost if cell.nebula else 0)

    def path(self, start: str, end: str, nebula_cost: int, avoid: Iterable[str] = ()) -> list[Cell]:
        """The cheapest path from `start` to `end` (the cells entered, `end` last; empty when they are one), the
        cells in `avoid` passed only when no other path costs as little; a refusal when none reaches it."""
        origin, target = self.cell(start), self.cell(end)
        if origin is target:
            return []
        shunned = {name_key(a) for a in avoid}
        best: dict[str, tuple[int, int]] = {origin.name: (0, 0)}
        came: dict[str, str] = {}
        queue: list[tuple[int, int, str]] = [(0, 0, origin.name)]
        while queue:
            cost, passed, name = heapq.heappop(queue)
            if name == target.name:
                break
            if best.get(name, (cost, passed)) < (cost, passed):
                continue
            for next_name in self.cell(name).touches:
                cell = self.cell(next_name)
                step = (cost + self.cost(cell, nebula_cost),
                        passed + (1 if name_key(cell.name) in shunned and cell is not target else 0))
                if step < best.get(cell.name, (1 << 30, 0)):
                    best[cell.name] = step
                    came[cell.name] = name
                    heapq.heappush(queue, (step[0], step[1], cell.name))
        if target.name not in came:
            raise BadInput(f"no path on the map from {origin.name} to {target.name}: no chain of touching cells "
                           "joins them")
        found = [target]
        while found[-1].name != origin.name:
            found.append(self.cell(came[found[-1].name]))
        return found[-2::-1]

    def route(self, start: str, stops: list[str], end: str, nebula_cost: int, avoid: Iterable[str] = ()) -> list[Cell]:
        """The path from `start` through each of `stops` in order to `end`: the cheapest between each two (a stop
        that touches the one before is entered directly, so naming every cell gives exactly that path)."""
        avoid = list(avoid)
        found: list[Cell] = []
        here = start
        for stop in [*stops, end]:
            found += self.path(here, stop, nebula_cost, avoid)
            here = stop
        return found

    # --- the normal form ---------------------------------------------------------------------------

    def plain(self) -> dict[str, Any]:
        """The map as the state and the export keep it (read back by `board_from_plain`), with the digest of its
        content that finds it again without reading it."""
        content = {"name": self.name, "title": self.title, "players": self.players, "about": self.about,
                   "hexes": self.hexes,
                   "cell": [{"name": c.name, "touches": list(c.touches), "nebula": c.nebula, "x": c.x, "y": c.y,
                             "level": c.level, "grid": c.grid, "planets": c.planets} for c in self.cells]}
        return {**content, "digest": digest(content)}


def _shown(text: object) -> str:
    value = str(text)
    return repr(value if len(value) <= 30 else value[:29] + "…")


# --- reading a map file -----------------------------------------------------------------------------


def _text(value: object, what: str, limit: int, required: bool = True) -> str:
    if value is None and not required:
        return ""
    if not isinstance(value, str):
        raise MapError(f"{what} must be text")
    try:
        return clean_name(value, what, limit)
    except BadInput as err:
        raise MapError(str(err)) from None


def _cell_name(value: object, what: str) -> str:
    name = _text(value, what, MAX_CELL_NAME)
    if not re.fullmatch(r"[\w][\w '.\-/]*", name):
        raise MapError(f"{what} {_shown(name)}: letters, digits, spaces, ' . - and / only")
    if re.fullmatch(r".+\s\d+", name):
        raise MapError(f"{what} {_shown(name)} ends in a number after a space, which reads as a region "
                       "(Sol 2): join them (Sol-2) or drop the space")
    return name


def _bool(value: object, what: str) -> bool:
    if not isinstance(value, bool):
        raise MapError(f"{what} must be true or false")
    return value


def _int(value: object, what: str, low: int, high: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise MapError(f"{what} must be a whole number from {low} to {high}")
    return value


def _names(value: object, what: str, limit: int) -> list[str]:
    if not isinstance(value, list):
        raise MapError(f"{what} must be a list of cell names")
    if len(value) > limit:
        raise MapError(f"{what} lists {len(value)} cells; at most {limit}")
    return [_cell_name(v, f"{what}: a cell") for v in value]


def column_letters(column: int) -> str:
    return chr(ord("A") + column)


def grid_name(column: int, row: int, level: int) -> str:
    """`C4`, and on a higher level `C4/2` (columns and rows from 0)."""
    return f"{column_letters(column)}{row + 1}" + (f"/{level}" if level > 1 else "")


def _hex_neighbours(column: int, row: int) -> list[tuple[int, int]]:
    """The six neighbours of a flat-topped hex in columns, odd columns half a hex lower."""
    if column % 2 == 0:
        return [(column, row - 1), (column, row + 1), (column - 1, row - 1), (column - 1, row),
                (column + 1, row - 1), (column + 1, row)]
    return [(column, row - 1), (column, row + 1), (column - 1, row), (column - 1, row + 1),
            (column + 1, row), (column + 1, row + 1)]


def _grid_cells(grid: object) -> list[dict[str, Any]]:
    if not isinstance(grid, dict):
        raise MapError("[grid] must be a table: columns, rows, and optionally levels, skip and nebula")
    unknown = set(grid) - GRID_KEYS
    if unknown:
        raise MapError(f"[grid] has no key {sorted(unknown)[0]!r} (its keys: {', '.join(sorted(GRID_KEYS))})")
    columns = _int(grid.get("columns"), "[grid] columns", 1, MAX_COLUMNS)
    rows = _int(grid.get("rows"), "[grid] rows", 1, MAX_ROWS)
    levels = _int(grid.get("levels", 1), "[grid] levels", 1, MAX_LEVELS)
    if columns * rows * levels > MAX_MAP_CELLS:
        raise MapError(f"[grid] makes {columns * rows * levels} cells; a map has at most {MAX_MAP_CELLS}")
    names = {grid_name(c, r, lv): (c, r, lv) for lv in range(1, levels + 1) for c in range(columns)
             for r in range(rows)}
    keys = {name_key(n): n for n in names}

    def known(raw: str, what: str) -> str:
        key = name_key(raw)
        found = keys.get(key) or keys.get(key[:-2] if key.endswith("/1") else "")
        if found is None:
            raise MapError(f"{what}: {_shown(raw)} is not a cell of the grid ({grid_name(0, 0, 1)} to "
                           f"{grid_name(columns - 1, rows - 1, levels)})")
        return found

    skip = {known(n, "[grid] skip") for n in _names(grid.get("skip", []), "[grid] skip", MAX_LISTED_CELLS)}
    nebula = {known(n, "[grid] nebula") for n in _names(grid.get("nebula", []), "[grid] nebula",
                                                        MAX_LISTED_CELLS)}
    cells = []
    for name, (c, r, lv) in names.items():
        if name in skip:
            continue
        touches = [grid_name(nc, nr, lv) for nc, nr in _hex_neighbours(c, r) if 0 <= nc < columns and 0 <= nr < rows]
        touches += [grid_name(c, r, other) for other in (lv - 1, lv + 1) if 1 <= other <= levels]
        # the picture: levels side by side, a column's gap between them
        x = (lv - 1) * (columns + 1) * 1.5 + c * 1.5
        y = r * SQRT3 + (SQRT3 / 2 if c % 2 else 0)
        cells.append({"name": name, "touches": [t for t in touches if t not in skip], "nebula": name in nebula,
                      "x": x, "y": y, "level": lv})
    return cells


def _tables(raw: object, what: str, most: int, keys: set[str]) -> list[dict[str, Any]]:
    """A file's `[[what]]` tables, checked: a list of at most `most` tables, each with only `keys`."""
    if not isinstance(raw, list):
        raise MapError(f"[[{what}]] must be a list of tables")
    if len(raw) > most:
        raise MapError(f"the map has {len(raw)} {what}s; at most {most}")
    for i, item in enumerate(raw, 1):
        if not isinstance(item, dict):
            raise MapError(f"{what} {i} must be a table")
        unknown = set(item) - keys
        if unknown:
            raise MapError(f"{what} {i} has no key {sorted(unknown)[0]!r} (its keys: {', '.join(sorted(keys))})")
    return raw


def _named_cells(raw: object) -> list[dict[str, Any]]:
    cells = []
    for i, item in enumerate(_tables(raw, "cell", MAX_MAP_CELLS, CELL_KEYS), 1):
        name = _cell_name(item.get("name"), f"cell {i}'s name")
        touches = list(dict.fromkeys(_names(item.get("touches", []), f"cell {name}'s touches", MAX_TOUCHES * 2)))
        if len(touches) > MAX_TOUCHES:
            raise MapError(f"cell {name} touches {len(touches)} cells; at most {MAX_TOUCHES}")
        cell: dict[str, Any] = {"name": name, "touches": touches,
                                "nebula": _bool(item.get("nebula", False), f"cell {name}'s nebula"),
                                "level": _int(item.get("level", 1), f"cell {name}'s level", 1, MAX_LEVELS)}
        for axis in ("x", "y"):
            if axis in item:
                value = item[axis]
                if isinstance(value, bool) or not isinstance(value, (int, float)) or not -1000 <= value <= 1000:
                    raise MapError(f"cell {name}'s {axis} must be a number from -1000 to 1000")
                cell[axis] = float(value)
        if item.get("grid"):
            cell["grid"] = _cell_name(item["grid"], f"cell {name}'s grid name")
        if "planets" in item:  # the normal form: a system's cell carries its planets
            cell["planets"] = _int(item["planets"], f"cell {name}'s planets", 0, MAX_PLANETS)
        cells.append(cell)
    return cells


def _circle(count: int, index: int) -> tuple[float, float]:
    """Where a named cell without a position is drawn: around a circle, in the order the file lists them."""
    radius = max(2.0, count * 0.45)
    angle = 2 * math.pi * index / max(count, 1)
    return radius * math.cos(angle) + radius, radius * math.sin(angle) + radius


def read_map(data: Mapping[str, Any], fallback_name: str = "map") -> Board:
    """A map file's table as a Board, checked: a MapError naming the first fault."""
    if not isinstance(data, Mapping):
        raise MapError("a map file is a TOML table")
    unknown = set(data) - KEYS - {"hexes", "digest"}
    if unknown:
        raise MapError(f"the map has no key {sorted(unknown)[0]!r} (its keys: {', '.join(sorted(KEYS))})")
    name = _text(data.get("name", fallback_name), "the map's name", MAX_CELL_NAME)
    title = _text(data.get("title", name), "the map's title", MAX_TITLE)
    players = _text(data.get("players", ""), "the map's players", 20, required=False) if data.get("players") else ""
    about = _text(data["about"], "the map's about", 300) if data.get("about") else ""
    if ("grid" in data) == ("cell" in data):
        raise MapError("a map has either a [grid] or [[cell]] tables, one of them")
    hexes = "grid" in data or _bool(data.get("hexes", False), "hexes")
    raw_cells = _grid_cells(data["grid"]) if "grid" in data else _named_cells(data["cell"])
    if not raw_cells:
        raise MapError("the map has no cells")
    by_key: dict[str, dict[str, Any]] = {}
    looks: dict[str, str] = {}
    for cell in raw_cells:
        key = name_key(cell["name"])
        if key in by_key:
            raise MapError(f"two cells are called {_shown(cell['name'])}")
        look = look_alike_key(cell["name"])
        if look in looks:
            raise MapError(f"cells {_shown(looks[look])} and {_shown(cell['name'])} look alike")
        by_key[key] = cell
        looks[look] = cell["name"]
    grids: set[str] = set()
    for cell in raw_cells:
        grid = name_key(cell.get("grid", ""))
        if grid and (grid in by_key and grid != name_key(cell["name"]) or grid in grids):
            raise MapError(f"cell {cell['name']}'s grid name {_shown(cell['grid'])} is another cell's name")
        grids.add(grid)
    # every touch names a cell; touching is both ways (a file may say it once)
    links: dict[str, set[str]] = {k: set() for k in by_key}
    for key, cell in by_key.items():
        for other in cell["touches"]:
            other_key = name_key(other)
            if other_key not in by_key:
                raise MapError(f"cell {cell['name']} touches {_shown(other)}, which is not a cell of the map")
            if other_key == key:
                raise MapError(f"cell {cell['name']} touches itself")
            links[key].add(other_key)
            links[other_key].add(key)
    for key, found in links.items():
        if len(found) > MAX_TOUCHES:
            raise MapError(f"cell {by_key[key]['name']} touches {len(found)} cells; at most {MAX_TOUCHES}")
    renamed: dict[str, tuple[str, int]] = {}
    taken = set(by_key)
    for i, item in enumerate(_tables(data.get("system", []), "system", MAX_MAP_SYSTEMS, SYSTEM_KEYS), 1):
        system = _cell_name(item.get("name"), f"system {i}'s name")
        if "/" in system:
            raise MapError(f"system {i}'s name {_shown(system)}: no / in a system's name")
        at = name_key(_cell_name(item.get("cell", system), f"system {system}'s cell"))
        if at not in by_key:
            raise MapError(f"system {system} is on cell {_shown(item.get('cell', system))}, which is not a cell of "
                           "the map")
        if at in renamed:
            raise MapError(f"cell {by_key[at]['name']} holds two systems ({renamed[at][0]} and {system})")
        key = name_key(system)
        if key != at and key in taken:
            raise MapError(f"system {system}'s name is already a cell's or a system's")
        taken.add(key)
        renamed[at] = (system, _int(item.get("planets", 1), f"system {system}'s planets", 1, MAX_PLANETS))
    for key, cell in by_key.items():
        if cell.get("planets") and key not in renamed:  # the normal form: a system's cell carries its planets
            renamed[key] = (cell["name"], cell["planets"])
    names = {k: renamed[k][0] if k in renamed else c["name"] for k, c in by_key.items()}
    cells = []
    for index, (key, cell) in enumerate(by_key.items()):
        x, y = (cell["x"], cell["y"]) if "x" in cell and "y" in cell else _circle(len(by_key), index)
        own = names[key]
        grid = cell.get("grid", "") or (cell["name"] if own != cell["name"] else "")
        cells.append(Cell(own, tuple(sorted((names[k] for k in links[key]), key=name_key)), cell["nebula"],
                          round(float(x), 4), round(float(y), 4), cell["level"], grid,
                          renamed[key][1] if key in renamed else 0))
    return Board(name, title, players, about, tuple(cells), hexes)


def digest(plain: Mapping[str, Any]) -> str:
    return hashlib.sha256(json.dumps(plain, sort_keys=True, separators=(",", ":")).encode()).hexdigest()


MAX_KEPT = 64  # maps kept read, by digest
_kept: OrderedDict[str, Board] = OrderedDict()
_keeping = threading.Lock()


def board_from_plain(plain: Mapping[str, Any] | None) -> Board | None:
    """The Board a state's `board` holds: found by its digest when it was read before (the state's map is the
    normal form this module wrote, or an import's, checked and rewritten by `read_map`), else read and kept."""
    if not plain:
        return None
    key = plain.get("digest")
    with _keeping:  # (states are loaded in the store's thread and on the event loop)
        if isinstance(key, str) and key in _kept:
            _kept.move_to_end(key)
            return _kept[key]
    found = read_map({k: v for k, v in plain.items() if k != "digest"})
    with _keeping:
        _kept[found.plain()["digest"]] = found
        while len(_kept) > MAX_KEPT:
            _kept.popitem(last=False)
    return found
