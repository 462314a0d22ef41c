"""The map of a game: loading one (a file, or a map shipped in `data/maps/`), and its picture.

Loading is the GM's, at any time no move, attack or choice is pending: every system of the game must be one of
the map's systems, and every counter must stand on a cell of it (a counter at a grid name that a system's name
replaced is moved to that name: the same cell). `name:none` takes the map off: positions are named freely again.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import cache
from pathlib import Path
from typing import Any

from engine.chartspec import PALETTE
from engine.core import Tx, require_gm
from engine.errors import BadInput, RuleViolation
from engine.godsfire.board import MAX_MAP_FILE, Board, MapError, read_map
from engine.godsfire.combat import system_at
from engine.godsfire.common import RULESET, handles
from engine.godsfire.events import change_game
from engine.godsfire.state import FIGHTING, PHASE_NAMES, GodsfireState
from engine.mapspec import Arrow, MapPicture, Spot, Stack
from engine.names import name_key
from engine.toml_text import parse_toml
from engine.vocabulary import CHART_FILE, Command, File, Param

MAPS_DIR = Path(__file__).resolve().parents[2] / "data" / "maps"
NEUTRAL_COLOUR = "#9AA0A6"


def shipped_names() -> list[str]:
    """The maps shipped in `data/maps/`, by name (read once: Discord asks on every keystroke of `name:`)."""
    return list(_shipped())


@cache
def _shipped() -> tuple[str, ...]:
    return tuple(sorted(p.stem for p in MAPS_DIR.glob("*.toml")))


def shipped(name: str) -> Board:
    """A shipped map by its name (a start of it will do)."""
    key = name_key(name).replace(" ", "-")
    names = shipped_names()
    found = [n for n in names if n == key] or [n for n in names if n.startswith(key)]
    if len(found) != 1:
        raise BadInput(f"no shipped map called {name!r} (shipped: {', '.join(names) or 'none'}; or give your own "
                       "map file)")
    path = MAPS_DIR / f"{found[0]}.toml"
    return read_map(parse_toml(path.read_text(encoding="utf-8")), found[0])


def map_file(data: dict[str, Any], file_name: str = "map") -> Board:
    """A GM's map file, already read as TOML (`Command.toml_option`), checked."""
    stem = Path(file_name).stem or "map"
    return read_map(data, stem[:24])


# --- loading ----------------------------------------------------------------------------------------


@dataclass
class LoadMap:
    name: str | None = None  # a shipped map, or "none" to take the map off
    file: dict[str, Any] | None = None  # a map file, read as TOML


def _fit(state: GodsfireState, board: Board) -> dict[int, str]:
    """Refuse a map the game does not fit on; the counters whose position the map spells otherwise."""
    for system in state.systems:
        cell = board.find(system.name)
        if cell is None or not cell.system:
            listed = ", ".join(c.name for c in board.systems()) or "none"
            raise RuleViolation(f"the game's system {system.name} is not a system of the map {board.title!r} (its "
                                f"systems: {listed})")
        if name_key(cell.name) != name_key(system.name):
            raise RuleViolation(f"the game's system {system.name} is on the map as {cell.name}")
    moved: dict[int, str] = {}
    systems = {name_key(s.name) for s in state.systems}
    for counter in state.counters:
        at = counter.at
        if counter.ground or name_key(at) in systems:
            continue  # a region of a system, or a system's cell: on the map with its system
        cell = board.find(at)
        if cell is None:
            raise RuleViolation(f"{counter.kind} #{counter.number} is at {at}, which is not a cell of the map "
                                f"{board.title!r}: the GM moves it first (/godsfire counter remove, then add)")
        if cell.name != at:
            moved[counter.number] = cell.name
    return moved


@handles(LoadMap)
def load_map(tx: Tx[GodsfireState], action: LoadMap) -> None:
    require_gm(tx, "load a map")
    state: GodsfireState = tx.state
    if (action.file is None) == (not action.name):
        raise BadInput("give a map: name: a shipped one (" + ", ".join(shipped_names()) + "), or file: your own; "
                       "name:none takes the map off")
    if state.transit is not None or state.attacks or state.choices:
        raise RuleViolation("a map is loaded when no move, attack or choice is pending")
    if action.name and name_key(action.name) == "none":
        if state.board is None:
            raise RuleViolation("the game has no map")
        change_game(tx, f"the GM takes the map {state.board.title!r} off: positions are named freely", board=None)
        return
    try:
        board = map_file(action.file) if action.file is not None else shipped(action.name or "")
    except MapError as err:
        raise BadInput(f"that map cannot be used: {err}") from None
    moved = _fit(state, board)
    counters = [replace(c, at=moved.get(c.number, c.at)) for c in state.counters]
    systems = len(board.systems())
    change_game(tx, f"the GM loads the map {board.title!r}: {len(board.cells)} cells, {systems} "
                f"{'system' if systems == 1 else 'systems'}, {sum(c.nebula for c in board.cells)} in nebulae",
                board=board, **({"counters": counters} if moved else {}))


# --- the picture --------------------------------------------------------------------------------------


def side_colours(state: GodsfireState) -> dict[str, str]:
    """Each player's colour on the map, by their order of joining (the same on every picture of the game)."""
    return {p.name: PALETTE[i % len(PALETTE)] for i, p in enumerate(state.players)}


def _cell_of(state: GodsfireState, at: str, ground: bool) -> str:
    """The map cell a position is in: a region's is its system's cell."""
    if not ground:
        return at
    system = system_at(state, at)
    return system.name if system is not None else at


def _stack_text(kinds: dict[str, int], money: int) -> str:
    parts = [f"{n} {kind}" for kind, n in kinds.items() if n]
    if money:
        parts.append(f"{money} GB")
    return ", ".join(parts)


def picture(state: GodsfireState, history: Any = None, options: dict[str, Any] | None = None) -> MapPicture:
    """The table as a picture: the map's cells, every stack of counters in its owner's colour, this turn's moves
    and the announced attacks."""
    board = state.board
    if board is None:
        raise RuleViolation("the game has no map (the GM loads one: /godsfire map load name:"
                            f"{(shipped_names() or ['…'])[0]})")
    colours = side_colours(state)
    owners = {name_key(s.name): s.owner for s in state.systems}
    spots = []
    for cell in board.cells:
        owner = owners.get(name_key(cell.name)) if cell.system else None
        notes = []
        if cell.system:
            notes.append(f"{cell.planets} planet{'s' if cell.planets != 1 else ''}")
            if name_key(cell.name) in owners:
                notes.append(owner or "neutral")
        elif cell.grid:
            notes.append(cell.grid)
        spots.append(Spot(cell.name, cell.x, cell.y, cell.nebula, cell.system, " · ".join(notes),
                          colours.get(owner) if owner else (NEUTRAL_COLOUR if cell.system and
                                                            name_key(cell.name) in owners else None), cell.level))
    seen: set[tuple[str, str]] = set()
    links = []
    for cell in board.cells:
        for other in cell.touches:
            pair = (cell.name, other) if name_key(cell.name) < name_key(other) else (other, cell.name)
            if pair not in seen:
                seen.add(pair)
                links.append(pair)
    groups: dict[tuple[str, str | None, bool], tuple[dict[str, int], int]] = {}
    for c in state.counters:
        key = (_cell_of(state, c.at, c.ground), c.owner, c.ground)
        kinds, money = groups.get(key, ({}, 0))
        if c.kind == "GB":
            money += c.amount
        else:
            kinds[c.kind] = kinds.get(c.kind, 0) + c.size  # units (a built-up counter holds several)
        groups[key] = (kinds, money)
    stacks = tuple(Stack(at, owner or "neutral", colours.get(owner or "", NEUTRAL_COLOUR), _stack_text(kinds, money),
                         ground)
                   for (at, owner, ground), (kinds, money) in sorted(
                       groups.items(), key=lambda item: (item[0][0], item[0][2], str(item[0][1]))))
    arrows: list[Arrow] = []
    for c in state.counters:
        if c.moved == state.turn and c.came_from and c.owner is not None:
            start, end = c.came_from, _cell_of(state, c.at, c.ground)
            if start != end and board.find(start) is not None:
                arrow = Arrow(start, end, colours.get(c.owner, NEUTRAL_COLOUR), "move")
                if arrow not in arrows:
                    arrows.append(arrow)
    for attack in state.attacks:
        units = [c for c in state.counters if c.number in attack.units and c.kind in FIGHTING]
        for start in dict.fromkeys(_cell_of(state, c.at, c.ground) for c in units):
            end = _cell_of(state, attack.target, attack.ground)
            arrow = Arrow(start, end, colours.get(attack.attackers[0], NEUTRAL_COLOUR), "attack")
            if start != end and arrow not in arrows:
                arrows.append(arrow)
    legend = tuple((p.name + (" (out)" if p.out else ""), colours[p.name]) for p in state.players)
    if any(c.owner is None for c in state.counters) or any(s.owner is None for s in state.systems):
        legend += (("neutral", NEUTRAL_COLOUR),)
    return MapPicture(board.title, tuple(spots), tuple(links), board.hexes, stacks, tuple(arrows), legend,
                      f"Turn {state.turn}: {PHASE_NAMES[state.phase]}", "map.png")


# --- commands ---------------------------------------------------------------------------------------

P = Param
COMMANDS: tuple[Command, ...] = (
    Command("godsfire map load", "load the map the game is played on: a shipped one by name, or your own file (GM)",
            (P("name", help="a shipped map (e.g. twin-reaches), or none to take the map off", complete="map"),
             P("file", File, help="your own map file (TOML; docs/godsfire.md, The map)", high=MAX_MAP_FILE)),
            action=lambda o: LoadMap(o.get("name"), o.get("file")), gm_only=True, ruleset=RULESET,
            toml_option="file", file_what="a map file"),
    Command("godsfire map show", "the table as a picture: the map, every stack of counters, this turn's moves and "
            "attacks", CHART_FILE, chart=picture, ruleset=RULESET, shows_ended=True),
)
