"""The end of a God Dice turn and of a game: the next player's turn, the winner, and with Campaign the
next game.
"""

from __future__ import annotations

from engine.core import Tx
from engine.goddice.common import turn_of
from engine.goddice.events import AttackMissed, CampaignGameStarted, GameWon, TurnStarted
from engine.goddice.state import DEFEND, GoddiceState


def end_turn(tx: Tx[GoddiceState], resurrected: bool = False) -> None:
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


def skip_the_out(tx: Tx[GoddiceState]) -> bool:
    """A player with no character breathing takes no more part, whatever killed them (the GM's /gm life): when
    the turn is theirs it passes on (to the left with Free for All, else in the attack direction); when they
    defend before the God dice, the attacker declares again; later, the attack has no one to hit and misses.
    Whether anything was done."""
    state, turn = tx.state, tx.state.current
    if state.ended or turn is None:
        return False
    attacking = state.player(turn.player)
    if attacking is not None and not attacking.in_game:
        step = +1 if "free_for_all" in state.options else state.step
        start_turn(tx, state.neighbour(turn.player, step).name)
        return True
    defending = state.player(turn.defender_player) if turn.defender_player else None
    if defending is None or defending.in_game:
        return False
    if state.phase == DEFEND and not turn.god:
        tx.emit(TurnStarted(turn.player, state.turn))  # the same turn, declared again
    else:
        tx.emit(AttackMissed(turn.player, f"{defending.name} has no character left"))
        end_turn(tx)
    return True


def game_won(tx: Tx[GoddiceState]) -> bool:
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
        tx.emit(CampaignGameStarted(sum(p.wins for p in tx.state.players) + 1))  # its turns count from 1
        start_turn(tx, tx.state.neighbour(winner.name, -1).name)
    return True


def start_turn(tx: Tx[GoddiceState], player: str) -> None:
    tx.emit(TurnStarted(player, tx.state.turn + 1))
