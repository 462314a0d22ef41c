"""The GM's powers over a God Dice game: another card file, a character's life, dice entered by hand.
Every one is logged with who did it.
"""

from __future__ import annotations

from typing import Any

from engine.core import Tx, require_gm
from engine.errors import BadInput, RuleViolation
from engine.goddice.actions import LoadCards, SetLife
from engine.goddice.cards import Cards, RulesError, cards_from_dict
from engine.goddice.common import await_move, find_character, find_player, handles, label
from engine.goddice.end import game_won, skip_the_out
from engine.goddice.events import CardsLoaded, CharacterDied, LifeChanged, PlayerEliminated
from engine.goddice.state import CHOOSE, OVER, SEATING


@handles(LoadCards)
def load_cards(tx: Tx, action: LoadCards) -> None:
    """Another card file for this game only, before the draft."""
    require_gm(tx, "load a card file")
    if tx.state.phase not in (SEATING, CHOOSE):
        raise RuleViolation("cards can be changed only before the draft")
    try:
        cards = cards_from_dict(action.cards)
    except RulesError as err:
        raise BadInput(f"that card file is not valid: {err}") from None
    if len(tx.state.players) > cards.max_players:
        raise RuleViolation(f"those cards allow {cards.max_players} players; {len(tx.state.players)} are seated")
    tx.emit(CardsLoaded(cards.raw, tx.ctx.actor))


@handles(SetLife)
def set_life(tx: Tx, action: SetLife) -> None:
    """A GM sets a character's life (0 kills it; more than 0 brings a dead one back)."""
    require_gm(tx, "set life")
    state = tx.state
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
        if state.current is not None and state.phase not in (OVER,) and (game_won(tx) or skip_the_out(tx)) \
                and not tx.state.ended:
            await_move(tx)  # the next game's first attacker (Campaign), or the turn passed over the player out


def forced_dice(values: list[Any], tx: Tx) -> list[str]:
    """GM-entered God Dice faces: attack dice B R Y O 5, God dice H C M B S A (checked when rolled)."""
    cards: Cards = tx.state.cards
    known = set(cards.attack_faces) | set(cards.god_faces)
    faces = [{"0": "O"}.get(str(v).upper(), str(v).upper()) for v in values]
    bad = [f for f in faces if f not in known]
    if bad:
        raise BadInput(f"God Dice faces are {' '.join(dict.fromkeys(cards.attack_faces))} (attack dice) and "
                       f"{' '.join(cards.god_faces)} (God dice); not {' '.join(bad)}")
    return faces
