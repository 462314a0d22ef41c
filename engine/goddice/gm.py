"""The GM's powers over a God Dice game: another card file, a character's life, dice entered by hand.
Every one is logged with who did it.
"""

from __future__ import annotations

from engine.core import Tx, require_gm
from engine.errors import BadInput, RuleViolation
from engine.goddice.actions import LoadCards, SetLife
from engine.goddice.cards import Cards, cards_from_file
from engine.goddice.common import (
    await_move,
    character_label,
    find_character,
    find_player,
    handles,
    label,
)
from engine.goddice.end import end_turn, game_won, skip_the_out
from engine.goddice.events import AttackMissed, CardsLoaded, CharacterDied, LifeChanged, PlayerEliminated, TurnStarted
from engine.goddice.state import CHOOSE, DEFEND, OVER, SEATING, GoddiceState
from engine.house import RulesError


@handles(LoadCards)
def load_cards(tx: Tx[GoddiceState], action: LoadCards) -> None:
    """Another card file for this game only, before the draft."""
    require_gm(tx, "load a card file")
    if tx.state.phase not in (SEATING, CHOOSE):
        raise RuleViolation("cards can be changed only before the draft")
    try:
        cards = cards_from_file(action.cards)  # bounded as an import is, then checked
    except RulesError as err:
        raise BadInput(f"that card file is not valid: {err}") from None
    if len(tx.state.players) > cards.max_players:
        raise RuleViolation(f"those cards allow {cards.max_players} players; {len(tx.state.players)} are seated")
    tx.emit(CardsLoaded(cards.raw, tx.ctx.actor))


@handles(SetLife)
def set_life(tx: Tx[GoddiceState], action: SetLife) -> None:
    """A GM sets a character's life (0 kills it; more than 0 brings a dead one back)."""
    require_gm(tx, "set life")
    state = tx.state
    if state.current is None or state.phase == OVER:
        raise RuleViolation("life can be set only while a game's turns are under way (after the draft, "
                            "before the end)" if state.phase != OVER else "the game is over")
    owner = find_player(state, action.player)
    character = find_character(state, owner, action.character, living=None)
    if not 0 <= action.life <= character.max_life:
        raise BadInput(f"{label(owner, character, state.cards)}'s life is 0 to {character.max_life}, "
                       f"not {action.life}")
    if action.life == character.life:
        raise RuleViolation(f"{label(owner, character, state.cards)} already has {action.life} life")
    name = label(owner, character, state.cards)
    tx.emit(LifeChanged(owner.name, character.id, action.life, action.life - character.life, "set by GM",
                        tx.ctx.actor, name, character.max_life))
    if action.life == 0:
        tx.emit(CharacterDied(owner.name, character.id, character.type, name))
        if not owner.in_game:
            tx.emit(PlayerEliminated(owner.name))
        if (game_won(tx) or skip_the_out(tx) or _combatant_died(tx, character.id)) and not tx.state.ended:
            await_move(tx)  # the next game's first attacker (Campaign), the turn passed on, or declared again


def _combatant_died(tx: Tx[GoddiceState], character_id: int) -> bool:
    """The GM killed the declared attacker or defender of a player still in the game: before the God dice, an
    attacker is declared again (the same turn); after them, the attack misses and the turn is over. Whether
    anything was done."""
    state, turn = tx.state, tx.state.current
    if turn is None or character_id not in (turn.attacker, turn.defender):
        return False
    if state.phase == DEFEND and not turn.god and character_id == turn.attacker:
        tx.emit(TurnStarted(turn.player, state.turn))  # the same turn, declared again
    else:
        tx.emit(AttackMissed(turn.player, f"{character_label(state, character_id)} died"))
        end_turn(tx)
    return True


def forced_dice(values: list[int | str], tx: Tx[GoddiceState]) -> list[str]:
    """GM-entered God Dice faces: attack dice B R Y O 5, God dice H C M B S A (checked when rolled)."""
    cards: Cards = tx.state.cards
    known = set(cards.attack_faces) | set(cards.god_faces)
    faces = [{"0": "O"}.get(str(v).upper(), str(v).upper()) for v in values]
    bad = [f for f in faces if f not in known]
    if bad:
        raise BadInput(f"God Dice faces are {' '.join(dict.fromkeys(cards.attack_faces))} (attack dice) and "
                       f"{' '.join(cards.god_faces)} (God dice); not {' '.join(bad)}")
    return faces
