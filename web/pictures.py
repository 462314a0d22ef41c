"""What a game's page draws: /game chart's chart of the game (in the look the reader's screen asks for) and the
picture of its board, each with the sides by their shown names, as SVG drawn in the charts' worker process."""

from __future__ import annotations

from typing import Any

from aiohttp import web

from data.store import Store
from engine.commands import BY_PATH
from engine.errors import BadInput, RefereeError
from engine.mapspec import MapPicture
from engine.rulesets import GameState, ruleset
from service import charts, mappicture
from service.chartstyle import Look
from web.render import Namer, Names

CHART_COMMAND = "game chart"


def game_chart(state: GameState, history: Any, namer: Namer) -> Any:
    """/game chart's chart of the game, its sides by their shown names; BadInput when there is nothing to draw."""
    chart = BY_PATH[CHART_COMMAND].chart
    assert chart is not None  # (/game chart is a chart command)
    drawn = chart(state, history, {})
    return drawn.relabel(namer.text)


def board_picture(state: GameState, namer: Namer) -> MapPicture | None:
    """The picture of the game's board (its rule set's `board_picture`), its sides by their shown names; None when
    the rule set or the game has no map, or the picture cannot be made."""
    make = ruleset(state.ruleset).board_picture
    if make is None:
        return None
    try:
        picture = make(state)
    except RefereeError:
        return None
    return mappicture.relabel_picture(picture, namer.text) if isinstance(picture, MapPicture) else None


async def render_chart(store: Store, names: Names | None, game_id: int, look: Look) -> bytes:
    """The game's chart as SVG in `look`; 404 when there is nothing to draw yet."""
    row = await store.game(game_id)
    state = await store.load(game_id)
    try:
        drawn = game_chart(state, await store.history(game_id), Namer(names, row.guild_id))
    except BadInput:
        raise web.HTTPNotFound() from None
    return await charts.render(drawn, fmt="svg", look=look)


async def render_map(store: Store, names: Names | None, game_id: int) -> bytes:
    """The picture of the game's board as SVG; 404 for a game without one."""
    row = await store.game(game_id)
    picture = board_picture(await store.load(game_id), Namer(names, row.guild_id))
    if picture is None:
        raise web.HTTPNotFound()
    return await charts.render(picture, fmt="svg")
