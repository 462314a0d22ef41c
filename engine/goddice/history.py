"""What the stat history of a God Dice game follows (`engine.history`): every character's life. A character's
side is its card's title and its player ("Hero (alice)"; "Hero 2 (alice)" for a second Hero).

A player's first Hero is "Hero (alice)" until a second Hero is drafted, and "Hero 1 (alice)" after: its history
is stored under both names, and a chart draws it as one line under its name now (`history_names`). A change of
life is charted at the turn it happened in, not the next one, which the attack that made it starts
(`history_turn`)."""

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


def history_turn(turn_before: int, state: GoddiceState) -> int:
    """An action's changes of life are charted at the turn it was taken in: an attack's damage in turn 3 at turn
    3, though the attack ends it and the state is in turn 4 after it."""
    return turn_before


def history_names(state: GoddiceState) -> dict[str, str]:
    """Every name a character's history may be stored under, for a character named otherwise now: the first of
    a player's two Monks was "Monk (bob)" until the second was drafted, and is "Monk 1 (bob)" now."""
    names: dict[str, str] = {}
    for player in state.players:
        by_type: dict[str, list[str]] = {}
        for character in player.characters:
            by_type.setdefault(character.type, []).append(side_name(player.name, label(player, character,
                                                                                       state.cards)))
        for kind, now in by_type.items():
            title = state.cards.characters[kind].title
            if len(now) > 1:
                names[side_name(player.name, title)] = now[0]
    return names
