"""The end of a God Dice turn and of a game: the next player's turn, the winner, and with Campaign the
next game.
"""

from __future__ import annotations

from engine.core import Tx
from engine.goddice.common import turn_of
from engine.goddice.events import CampaignGameStarted, GameWon, TurnStarted


def end_turn(tx: Tx, resurrected: bool = False) -> None:
    """The turn is over: a winner, or the next player's turn."""
    state, turn = tx.state, turn_of(tx.state)
    if game_won(tx):
        return
    if "free_for_all" in state.options:
        defending = state.player(turn.defender_player) if turn.defender_player else None
        if resurrected or defending is None or not defending.in_game:
            following = state.neighbour(turn.player, +1)  # the player left of the attacker
        else:
            following = defending  # whoever defended attacks next
    else:
        following = state.neighbour(turn.player, state.step)
    start_turn(tx, following.name)


def game_won(tx: Tx) -> bool:
    state = tx.state
    standing = state.in_game()
    if len(standing) != 1:
        return False
    winner = standing[0]
    wins = winner.wins + 1
    campaign = "campaign" in state.options
    over = not campaign or wins >= state.cards.campaign_wins
    tx.emit(GameWon(winner.name, wins, over))
    if not over:  # Campaign: the winner's right begins the next game, attacking the winner to his left
        tx.emit(CampaignGameStarted(sum(p.wins for p in tx.state.players) + 1))
        start_turn(tx, tx.state.neighbour(winner.name, -1).name)
    return True


def start_turn(tx: Tx, player: str) -> None:
    tx.emit(TurnStarted(player, tx.state.turn + 1))
