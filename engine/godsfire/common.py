"""What the Godsfire actions share beyond the state and the events: who acts."""

from __future__ import annotations

from engine.core import Tx
from engine.errors import BadInput, NotYourNation
from engine.godsfire.state import Player
from engine.names import name_key


def acting_player(tx: Tx, named: str | None, what: str) -> Player:
    """The player an action is for: the one `named` (only the GM may name another), else the actor."""
    if named is not None:
        player = tx.state.player(named)
        if not tx.ctx.is_gm and name_key(player.name) != name_key(tx.ctx.actor):
            raise NotYourNation(f"only the GM may {what} for {player.name}")
        return player
    found = tx.state.find_player(tx.ctx.actor)
    if found is None:
        raise BadInput(f"you are not a player in this game: name the player (player:) for whom to {what}")
    return found
