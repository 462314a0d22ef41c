"""What the God Dice modules share: dispatch, the lookups (whose move it is, a player, a character) and
the attack dice (which types may be rolled, which attacks the dice make legal).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar

from engine import core
from engine.core import Tx
from engine.errors import BadInput, RuleViolation
from engine.goddice.cards import Attack, Cards, CharacterCard, needs_met
from engine.goddice.events import AttackDiceSet, MoveAwaited, TurnStarted
from engine.goddice.state import (
    CHOOSE,
    DECLARE,
    DEFEND,
    DRAFT,
    FAVOR,
    OPENING,
    OVER,
    RESURRECT,
    RETARGET,
    ROLLING,
    SEATING,
    Character,
    GoddiceState,
    Player,
    Turn,
)
from engine.house import RulesError
from engine.names import name_key

RULESET = "goddice"
ROLL_TYPES = ("B", "R", "Y", "O", "5")  # the five types a player may roll once each after the opening roll
A = TypeVar("A")  # a God Dice action's class
Handler = Callable[[Tx[GoddiceState], A], None]  # the function that applies it


def handles(action_type: type[A]) -> Callable[[Handler[A]], Handler[A]]:
    """Register the function that applies one kind of God Dice action."""
    return core.handles(action_type, RULESET)


# --- lookups -------------------------------------------------------------------------------------


def label(player: Player, character: Character, cards: Cards) -> str:
    """`Hero`, or `Hero 2` when the player has two Heroes."""
    title = cards.characters[character.type].title
    same = [c.id for c in player.characters if c.type == character.type]
    return f"{title} {same.index(character.id) + 1}" if len(same) > 1 else title


def character_label(state: GoddiceState, character_id: int) -> str:
    owner, character = state.character(character_id)
    return label(owner, character, state.cards)


def find_player(state: GoddiceState, name: str) -> Player:
    player = state.player(name)
    if player is None:
        seated = ", ".join(p.name for p in state.players) or "nobody yet"
        raise RuleViolation(f"{name} is not playing in this game (players: {seated})")
    return player


def find_character(state: GoddiceState, player: Player, text: str, living: bool | None = True) -> Character:
    """One of `player`'s characters by label (`hero`, `Hero 2`), type or id (`#3`)."""
    key = " ".join(str(text).strip().lower().lstrip("#").split())
    matches = [c for c in player.characters
               if key in (str(c.id), label(player, c, state.cards).lower(),
                          label(player, c, state.cards).lower().replace(" ", ""))]
    if not matches:
        try:
            card = state.cards.card(key)
        except RulesError:
            card = None
        of_type = [c for c in player.characters if card is not None and c.type == card.type]
        matches = [c for c in of_type if c.alive] if living else of_type
        if not matches and of_type:
            raise RuleViolation(f"{player.name}'s {card.title if card else key} is dead")
        if len(matches) > 1:
            names = " or ".join(label(player, c, state.cards) for c in matches)
            raise BadInput(f"{player.name} has more than one {card.title if card else key}: say {names}")
    if not matches:
        mine = ", ".join(label(player, c, state.cards) for c in player.characters) or "none"
        raise RuleViolation(f"{player.name} has no character {text!r} (characters: {mine})")
    character = matches[0]
    if living and not character.alive:
        raise RuleViolation(f"{player.name}'s {label(player, character, state.cards)} is dead")
    return character


def campaign_game(state: GoddiceState) -> int:
    """The number of the game under way (Campaign: one more than the games won so far; else 1)."""
    if "campaign" not in state.options:
        return 1
    played = sum(p.wins for p in state.players)
    return played if state.ended else played + 1


def turn_of(state: GoddiceState) -> Turn:
    assert state.current is not None
    return state.current


def card_of(state: GoddiceState, character_id: int) -> CharacterCard:
    return state.cards.characters[state.character(character_id)[1].type]


def waiting_for(state: GoddiceState) -> str | None:
    """The player whose move it is, by the phase."""
    phase, turn = state.phase, state.current
    if phase == CHOOSE:
        return state.chooser
    if phase == DRAFT:
        return state.picks[0] if state.picks else None
    if turn is None or phase in (SEATING, OVER):
        return None
    if phase == DEFEND:
        return turn.defender_player
    if phase == FAVOR:
        return turn.player if turn.favor == "attacker" else turn.defender_player
    return turn.player


def await_move(tx: Tx[GoddiceState]) -> None:
    """Record whose move it is now (its reminder counts from now)."""
    state = tx.state
    player = waiting_for(state)
    quiet = player == state.active and not (state.phase == DECLARE and tx.events and
                                            isinstance(tx.events[-1], TurnStarted))
    quiet = quiet and state.phase != FAVOR  # keep or re-roll: a choice to announce, even to the attacker
    tx.emit(MoveAwaited(player, state.phase, state.paused_at or tx.ctx.now, quiet))


def mover(tx: Tx[GoddiceState], *phases: str) -> Player:
    """The player making this move: the one the game waits for, in one of `phases`. A GM who is not
    seated may move for the player whose move it is."""
    state = tx.state
    actor = tx.ctx.actor
    if state.player(actor) is None and not tx.ctx.is_gm:
        raise RuleViolation("you are not seated in this game")
    if state.phase not in phases:
        raise RuleViolation(f"that is not a move now: {WAITING[state.phase](state)}")
    active = waiting_for(state)
    if active is None or name_key(actor) != name_key(active):
        if not (tx.ctx.is_gm and state.player(actor) is None and active is not None):
            raise RuleViolation(f"it is not your move: {WAITING[state.phase](state)}")
    return find_player(state, active)


WAITING: dict[str, Callable[[GoddiceState], str]] = {
    SEATING: lambda s: "players join with /goddice join, then the GM starts with /goddice begin",
    CHOOSE: lambda s: f"{s.chooser} chooses to attack or select first (/goddice choose)",
    DRAFT: lambda s: f"{waiting_for(s)} picks a character (/goddice pick)",
    DECLARE: lambda s: f"{turn_of(s).player} declares an attacker (/goddice declare)",
    DEFEND: lambda s: f"{turn_of(s).defender_player} declares a defender (/goddice defend)",
    RESURRECT: lambda s: f"{turn_of(s).player} resurrects a character or declines (/goddice resurrect)",
    RETARGET: lambda s: f"{turn_of(s).player} names another player to attack (/goddice declare target:…)",
    OPENING: lambda s: f"{turn_of(s).player} makes the opening roll (/goddice roll)",
    FAVOR: lambda s: f"{waiting_for(s)} is in favor and says keep or reroll (/goddice favor)",
    ROLLING: lambda s: f"{turn_of(s).player} rolls a type or attacks (/goddice roll type:…, /goddice attack)",
    OVER: lambda s: "the game is over",
}


# --- the attack dice -----------------------------------------------------------------------------


def sort_dice(dice: list[str]) -> list[str]:
    order = {face: i for i, face in enumerate(("B", "R", "Y", "O", "5"))}
    return sorted(dice, key=lambda face: order.get(face, 9))


def rollable(state: GoddiceState) -> list[str]:
    """The types the attacker may still roll: not rolled yet this turn, with at least one die showing it."""
    turn = state.current
    if turn is None or state.phase != ROLLING:
        return []
    return [face for face in ROLL_TYPES if face not in turn.rolled and face in turn.dice]


@dataclass(frozen=True)
class LegalAttack:
    attack: Attack
    damage: int


def legal_attacks(state: GoddiceState) -> list[LegalAttack]:
    """Every attack the attacking character qualifies for now, with its damage (per target, per arrow)."""
    turn = state.current
    if turn is None or turn.attacker is None or state.phase != ROLLING:
        return []
    return qualifying(state.cards, card_of(state, turn.attacker), turn.dice)


def qualifying(cards: Cards, card: CharacterCard, dice: list[str]) -> list[LegalAttack]:
    """The attacks of `card` that these dice make legal, with their damage."""
    counts = Counter(dice)
    return [LegalAttack(a, a.damage(counts["5"], cards.damage_per_five)) for a in card.attacks
            if needs_met(a, counts, cards.wild_os)]


def set_dice(tx: Tx[GoddiceState], rolled: str, dice: list[str]) -> None:
    state, turn = tx.state, turn_of(tx.state)
    assert turn.attacker is not None
    dice = sort_dice(dice)
    legal = qualifying(state.cards, card_of(state, turn.attacker), dice)
    tx.emit(AttackDiceSet(rolled, dice, [f"{option.attack.id} {option.damage}" for option in legal]))


def roll_attack_dice(tx: Tx[GoddiceState], player: str, purpose: str, count: int) -> list[str]:
    return tx.roll_faces(player, purpose, tx.state.cards.attack_faces, count, "attack dice")
