"""What the stat history of a God Dice game follows (`engine.history`): every character's life. A character's
side is its card's title and its player ("Hero (alice)"; "Hero 2 (alice)" for a second Hero)."""

from __future__ import annotations

from engine.goddice.common import label
from engine.goddice.state import GoddiceState
from engine.history import Point

HISTORY_STATS = (("life", "life"),)


def side_name(player: str, character_label: str) -> str:
    return f"{character_label} ({player})"


def history_point(state: GoddiceState) -> Point:
    return {(side_name(player.name, label(player, character, state.cards)), "life"): character.life
            for player in state.players for character in player.characters}
