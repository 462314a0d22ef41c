"""A God Dice turn, its first two phases: declare (an attacker, then a defender) and the God dice (God
kill, divine intervention, in favor, push, reversal; the Resurrection option).
"""

from __future__ import annotations

from engine.core import Tx
from engine.errors import BadInput, RuleViolation
from engine.goddice.actions import Declare, Defend, Resurrect
from engine.goddice.attack import damage
from engine.goddice.common import await_move, card_of, find_character, find_player, handles, label, mover, turn_of
from engine.goddice.end import end_turn
from engine.goddice.events import (
    AttackerDeclared,
    AttackMissed,
    CharacterResurrected,
    DefenderDeclared,
    DirectionReversed,
    GodDiceRead,
    PhaseChanged,
    ResurrectionDeclined,
)
from engine.goddice.state import DECLARE, DEFEND, OPENING, RESURRECT, RETARGET, GoddiceState, Player


@handles(Declare)
def declare(tx: Tx[GoddiceState], action: Declare) -> None:
    """The active player declares an attacker; the player in the attack direction will defend.

    With Free for All the attacker names the player attacked; after unrelated doubles (a reversal) he
    names another one, attacking with the same character.
    """
    player = mover(tx, DECLARE, RETARGET)
    state, turn = tx.state, turn_of(tx.state)
    if state.phase == RETARGET:
        assert turn.attacker is not None
        attacker = state.character(turn.attacker)[1]
        if action.attacker and find_character(state, player, action.attacker).id != attacker.id:
            raise RuleViolation(f"after a reversal {player.name} keeps attacking with "
                                f"{label(player, attacker, state.cards)}")
    else:
        if not action.attacker:
            raise BadInput("declare which of your characters attacks: /goddice declare attacker:<character>")
        attacker = find_character(state, player, action.attacker)
    tx.emit(AttackerDeclared(player.name, attacker.id, _defending_player(tx, player, action.target).name,
                             label(player, attacker, state.cards)))
    await_move(tx)


def _defending_player(tx: Tx[GoddiceState], player: Player, target: str | None) -> Player:
    state = tx.state
    free_for_all = "free_for_all" in state.options
    if not free_for_all:
        expected = state.neighbour(player.name, state.step)
        if target and find_player(state, target) is not expected:
            side = "left" if state.step == 1 else "right"
            raise RuleViolation(f"{player.name} must attack the player to the {side}, {expected.name} "
                                "(only Free for All lets a player choose)")
        return expected
    if not target:
        raise BadInput("Free for All: name the player you attack, /goddice declare … target:<player>")
    chosen = find_player(state, target)
    if chosen is player:
        raise RuleViolation("you cannot attack yourself")
    if not chosen.in_game:
        raise RuleViolation(f"{chosen.name} has no character left")
    turn = turn_of(state)
    others = [p for p in state.in_game() if p is not player]
    if state.phase == RETARGET and chosen.name == turn.defender_player and len(others) > 1:
        raise RuleViolation(f"after the reversal {player.name} must attack another player than {chosen.name}")
    return chosen


@handles(Defend)
def defend(tx: Tx[GoddiceState], action: Defend) -> None:
    """The defending player declares a defender; the attacker's God dice are then rolled (once a turn)."""
    player = mover(tx, DEFEND)
    state, turn = tx.state, turn_of(tx.state)
    defender = find_character(state, player, action.character)
    tx.emit(DefenderDeclared(player.name, defender.id, label(player, defender, state.cards)))
    if turn.god:  # after a reversal: the God dice are never rolled twice in a turn
        tx.emit(PhaseChanged(OPENING))
    else:
        _god_dice(tx)
    if not tx.state.ended:
        await_move(tx)


def read_god_dice(faces: list[str], attacker_god: str, defender_god: str) -> tuple[str, str | None]:
    """What two God dice mean for an attacker and a defender: (outcome, who is in favor).

    Doubles: the attacker's face is a God kill (also when both are the same character), the defender's is
    divine intervention, any other is "doubles" (a reversal, or a chance to resurrect). Singles: one die
    for either character puts it in favor; one for each is a push; the same character on both sides is
    never in favor.
    """
    first, second = faces
    if first == second:
        if first == attacker_god:
            return "god kill", None
        if first == defender_god:
            return "divine intervention", None
        return "doubles", None
    if attacker_god == defender_god:
        return "same character", None
    attacker, defender = attacker_god in faces, defender_god in faces
    if attacker and defender:
        return "push", None
    if attacker:
        return "in favor", "attacker"
    if defender:
        return "in favor", "defender"
    return "no effect", None


def _god_dice(tx: Tx[GoddiceState]) -> None:
    state, turn = tx.state, turn_of(tx.state)
    assert turn.attacker is not None and turn.defender is not None
    faces = tx.roll_faces(turn.player, "god", state.cards.god_faces, 2, "God dice")
    attacker_card, defender_card = card_of(state, turn.attacker), card_of(state, turn.defender)
    outcome, favor = read_god_dice(faces, attacker_card.god, defender_card.god)
    if outcome == "god kill":
        tx.emit(GodDiceRead(faces, outcome))
        owner = state.character(turn.defender)[0]
        damage(tx, owner, turn.defender, None, "God kill")
        end_turn(tx)
    elif outcome == "divine intervention":
        tx.emit(GodDiceRead(faces, outcome))
        tx.emit(AttackMissed(turn.player, "divine intervention"))
        end_turn(tx)
    elif outcome == "doubles":
        attacker_player = find_player(state, turn.player)
        face_card = state.cards.by_god(faces[0])
        dead = [c for c in attacker_player.characters if c.type == face_card.type and not c.alive]
        if "resurrection" in state.options and dead:
            tx.emit(GodDiceRead(faces, "resurrection offered"))
            tx.emit(PhaseChanged(RESURRECT))
        else:
            _reversal(tx, faces)
    else:
        tx.emit(GodDiceRead(faces, outcome, favor))
        tx.emit(PhaseChanged(OPENING))


def _reversal(tx: Tx[GoddiceState], faces: list[str]) -> None:
    """Unrelated doubles: attack direction is reversed (no effect with two players); the new defender
    declares. With Free for All the attacker names another player to attack, if there is one."""
    state, turn = tx.state, turn_of(tx.state)
    in_game = state.in_game()
    if "free_for_all" in state.options:
        if len(in_game) > 2:
            tx.emit(GodDiceRead(faces, "reversal"))
            tx.emit(PhaseChanged(RETARGET))
            return
        tx.emit(GodDiceRead(faces, "no reversal"))
        tx.emit(PhaseChanged(OPENING))
        return
    if len(in_game) <= 2:
        tx.emit(GodDiceRead(faces, "no reversal"))
        tx.emit(PhaseChanged(OPENING))
        return
    tx.emit(GodDiceRead(faces, "reversal"))
    tx.emit(DirectionReversed("counterclockwise" if state.direction == "clockwise" else "clockwise"))
    assert turn.attacker is not None
    defender = state.neighbour(turn.player, state.step)
    attacker_player = find_player(state, turn.player)
    tx.emit(AttackerDeclared(turn.player, turn.attacker, defender.name,
                             label(attacker_player, state.character(turn.attacker)[1], state.cards)))


@handles(Resurrect)
def resurrect(tx: Tx[GoddiceState], action: Resurrect) -> None:
    """Resurrection: bring back a dead character of the doubles' type at full life (the turn ends, play
    goes on in the same direction), or decline (the doubles reverse the attack as usual)."""
    player = mover(tx, RESURRECT)
    state, turn = tx.state, turn_of(tx.state)
    face_card = state.cards.by_god(turn.god[0])
    if action.character.strip().lower() in ("decline", "no", "none"):
        tx.emit(ResurrectionDeclined(player.name))
        _reversal(tx, turn.god)
    else:
        character = find_character(state, player, action.character, living=False)
        if character.alive:
            raise RuleViolation(f"{label(player, character, state.cards)} is alive")
        if character.type != face_card.type:
            raise RuleViolation(f"the God dice show {face_card.title}: only a dead {face_card.title} may rise")
        tx.emit(CharacterResurrected(player.name, character.id, character.max_life,
                                     label(player, character, state.cards)))
        end_turn(tx, resurrected=True)
    if not tx.state.ended:
        await_move(tx)
