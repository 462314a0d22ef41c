"""The attack phase of a God Dice turn: the opening roll, favor, rolling the types, the attack and its
targets, damage, healing and death (or a missed attack).
"""

from __future__ import annotations

from collections import Counter

from engine.core import Tx
from engine.errors import BadInput, RuleViolation
from engine.goddice.actions import Favor, MakeAttack, Roll
from engine.goddice.cards import FACE_NAMES, TYPE_FACES, Attack, needs_met
from engine.goddice.common import (
    ROLL_TYPES,
    await_move,
    card_of,
    character_label,
    find_character,
    find_player,
    handles,
    label,
    legal_attacks,
    mover,
    roll_attack_dice,
    rollable,
    set_dice,
    turn_of,
)
from engine.goddice.end import end_turn
from engine.goddice.events import (
    AttackMade,
    AttackMissed,
    CharacterDied,
    FavorDecided,
    LifeChanged,
    PhaseChanged,
    PlayerEliminated,
)
from engine.goddice.state import FAVOR, OPENING, ROLLING, Character, GoddiceState, Player


@handles(Roll)
def roll(tx: Tx[GoddiceState], action: Roll) -> None:
    """The opening roll (all the attack dice), then each type at most once, all its dice together."""
    state = tx.state
    if action.type is None or not str(action.type).strip():
        player = mover(tx, OPENING)
        set_dice(tx, "opening", roll_attack_dice(tx, player.name, "opening", state.cards.attack_count))
        tx.emit(PhaseChanged(FAVOR if turn_of(tx.state).favor else ROLLING))
    else:
        face = TYPE_FACES.get(str(action.type).strip().lower(), str(action.type).strip().upper())
        if face not in ROLL_TYPES:
            raise BadInput(f"roll one type: {', '.join(FACE_NAMES[f] for f in ROLL_TYPES)} (or no type for the "
                           "opening roll)")
        if state.phase == OPENING:
            raise RuleViolation("the opening roll comes first: /goddice roll")
        player = mover(tx, ROLLING)
        turn = turn_of(state)
        name = FACE_NAMES[face]
        if face in turn.rolled:
            raise RuleViolation(f"{player.name} has rolled the {name} dice this turn: each type once")
        count = turn.dice.count(face)
        if count == 0:
            raise RuleViolation(f"{player.name} has no {name} dice to roll")
        faces = roll_attack_dice(tx, player.name, name, count)
        set_dice(tx, face, [d for d in turn.dice if d != face] + faces)
    if tx.state.phase == ROLLING and _missed(tx):
        return
    await_move(tx)


def _missed(tx: Tx[GoddiceState]) -> bool:
    """No type left to roll and no legal attack: a missed attack, and the turn is over."""
    state = tx.state
    if rollable(state) or legal_attacks(state):
        return False
    tx.emit(AttackMissed(turn_of(state).player, "no legal attack after every type was rolled"))
    end_turn(tx)
    if not tx.state.ended:
        await_move(tx)
    return True


@handles(Favor)
def favor(tx: Tx[GoddiceState], action: Favor) -> None:
    """In favor: keep the opening roll, or re-roll it once (a defender in favor decides for the attacker)."""
    player = mover(tx, FAVOR)
    choice = action.choice.strip().lower().replace("-", "")
    if choice not in ("keep", "reroll"):
        raise BadInput("say favor choice:keep or choice:reroll")
    tx.emit(FavorDecided(player.name, choice))
    turn = turn_of(tx.state)
    if choice == "reroll":
        set_dice(tx, "favor", roll_attack_dice(tx, turn.player, "favor", tx.state.cards.attack_count))
    tx.emit(PhaseChanged(ROLLING))
    if not _missed(tx):
        await_move(tx)


def _targets(tx: Tx[GoddiceState], attack: Attack, text: str | None) -> list[Character]:
    """The characters an attack hits: the defender, one or more chosen ones of the defending player, or all."""
    state, turn = tx.state, turn_of(tx.state)
    assert turn.defender_player is not None and turn.defender is not None
    defending = find_player(state, turn.defender_player)
    defender = state.character(turn.defender)[1]
    words = _refs(text)
    if attack.target == "all":
        if words:
            raise BadInput(f"{attack.title} hits every character of {defending.name}: it takes no targets")
        return [c for c in defending.characters if c.alive]
    if attack.target == "defender":
        if words and _target(tx, defending, words[0]).id != defender.id or len(words) > 1:
            raise RuleViolation(f"{attack.title} can only hit the defending {label(defending, defender, state.cards)}"
                                " (it has no Attack Any)")
        return [defender]
    if len(words) > attack.arrows:
        raise BadInput(f"{attack.title} has {attack.arrows} {'arrow' if attack.arrows == 1 else 'arrows'}; "
                       f"{len(words)} targets given")
    chosen = [_target(tx, defending, word) for word in words]
    return chosen + [defender] * (attack.arrows - len(chosen))


def _refs(text: str | None) -> list[str]:
    """`"monk, sage 2"` → ["monk", "sage 2"]; `"monk sage"` → ["monk", "sage"]."""
    if not text or not text.strip():
        return []
    parts = [p.strip() for p in text.replace(";", ",").split(",") if p.strip()]
    if len(parts) == 1:
        words = parts[0].split()
        refs: list[str] = []
        for word in words:
            if word.isdigit() and refs and not refs[-1].isdigit():
                refs[-1] += f" {word}"  # "hero 2"
            else:
                refs.append(word)
        return refs
    return parts


def _target(tx: Tx[GoddiceState], defending: Player, text: str) -> Character:
    """A character of the defending player (never one's own, never a third player's)."""
    state, turn = tx.state, turn_of(tx.state)
    attacker = find_player(state, turn.player)
    try:
        return find_character(state, defending, text)
    except RuleViolation:
        if _owns(state, defending, text):
            raise  # the defending player's own character, dead: say so
        for other in state.players:
            if other is defending:
                continue
            try:
                found = find_character(state, other, text, living=None)
            except (RuleViolation, BadInput):
                continue
            if other is attacker:
                raise RuleViolation("you cannot target your own character") from None
            raise RuleViolation(f"{label(other, found, state.cards)} is {other.name}'s, not the defending "
                                f"{defending.name}'s") from None
        raise


def _owns(state: GoddiceState, player: Player, text: str) -> bool:
    """Whether `text` names one of `player`'s characters, living or dead."""
    try:
        find_character(state, player, text, living=None)
    except BadInput:
        return True  # more than one of that kind
    except RuleViolation:
        return False
    return True


def _heal_target(tx: Tx[GoddiceState], attack: Attack, text: str | None) -> Character | None:
    """Heal Any: one of the attacker's own wounded characters (default: the one missing most life)."""
    state, turn = tx.state, turn_of(tx.state)
    own = find_player(state, turn.player)
    if not attack.heal_any:
        if text and attack.heal_self:
            who = label(own, state.character(turn.attacker)[1], state.cards) if turn.attacker else "attacker"
            raise RuleViolation(f"{attack.title} heals only the {who} making it (Heal Self {attack.heal_self}), "
                                "no character you choose: leave out heal")
        if text:
            raise RuleViolation(f"{attack.title} heals no one: leave out heal")
        return None
    if text:
        try:
            chosen = find_character(state, own, text)
        except RuleViolation:
            if not _owns(state, own, text) and any(_owns(state, other, text) for other in state.players
                                                   if other is not own):
                raise RuleViolation("you may not heal another player's character") from None
            raise
        if chosen.life >= chosen.max_life:
            raise RuleViolation(f"{label(own, chosen, state.cards)} is not wounded")
        return chosen
    wounded = [c for c in own.characters if c.alive and c.life < c.max_life]
    if not wounded:
        return None  # nobody to heal: the healing is wasted
    return max(wounded, key=lambda c: (c.max_life - c.life, c.id == turn.attacker, -c.id))


@handles(MakeAttack)
def make_attack(tx: Tx[GoddiceState], action: MakeAttack) -> None:
    """Stop rolling and make a legal attack: damage to its targets, then its healing."""
    state = tx.state
    if state.phase == OPENING:
        raise RuleViolation("make the opening roll first: /goddice roll")
    player = mover(tx, ROLLING)
    turn = turn_of(state)
    assert turn.attacker is not None
    card = card_of(state, turn.attacker)
    attack = card.attack(action.name)
    if attack is None:
        names = ", ".join(a.id for a in card.attacks)
        raise BadInput(f"the {card.title} has no attack {action.name!r}; attacks: {names}")
    dice = Counter(turn.dice)
    if not needs_met(attack, dice, state.cards.wild_os):
        need = (f"{state.cards.wild_os} O" if attack.wild else
                ", ".join(f"{n} {FACE_NAMES[f].upper()}" for f, n in attack.needs.items()))
        raise RuleViolation(f"{attack.title} needs {need}; the dice show {' '.join(turn.dice)}")
    targets = _targets(tx, attack, action.targets)
    healed = _heal_target(tx, attack, action.heal)
    amount = attack.damage(dice["5"], state.cards.damage_per_five)
    attacker_name = label(player, state.character(turn.attacker)[1], state.cards)
    target_names = [f"{state.character(c.id)[0].name}'s {character_label(state, c.id)}" for c in targets]
    attacker = state.character(turn.attacker)[1]
    tx.emit(AttackMade(player.name, turn.attacker, attack.title, amount, [c.id for c in targets],
                       healed.id if healed else None, attacker_name, target_names,
                       heal_any=(min(attack.heal_any, healed.max_life - healed.life) if healed else 0)
                       if attack.heal_any else None,
                       heal_self=min(attack.heal_self, attacker.max_life - attacker.life) if attack.heal_self else None,
                       heal_name=label(player, healed, state.cards) if healed else ""))
    for target in targets:
        owner = state.character(target.id)[0]
        damage(tx, owner, target.id, amount, attack.title)
    if healed is not None:
        heal(tx, player, healed.id, attack.heal_any, attack.title)
    if attack.heal_self:
        heal(tx, player, turn.attacker, attack.heal_self, attack.title)
    end_turn(tx)
    if not tx.state.ended:
        await_move(tx)


def damage(tx: Tx[GoddiceState], owner: Player, character_id: int, amount: int | None, reason: str) -> None:
    """Damage a character (None: kill it); excess damage is wasted. Death, then elimination."""
    character = tx.state.character(character_id)[1]
    if not character.alive:
        return  # an arrow at a character already dead is wasted
    life = 0 if amount is None else max(0, character.life - amount)
    name = character_label(tx.state, character.id)
    tx.emit(LifeChanged(owner.name, character.id, life, life - character.life, reason, None, name,
                        character.max_life))
    if life == 0:
        tx.emit(CharacterDied(owner.name, character.id, character.type, name))
        if not owner.in_game:
            tx.emit(PlayerEliminated(owner.name))


def heal(tx: Tx[GoddiceState], owner: Player, character_id: int, amount: int, reason: str) -> None:
    """Heal a living character, never above its full life (the excess is wasted)."""
    character = tx.state.character(character_id)[1]
    if not character.alive:
        return
    life = min(character.max_life, character.life + amount)
    if life != character.life:
        tx.emit(LifeChanged(owner.name, character.id, life, life - character.life, reason, None,
                            character_label(tx.state, character.id), character.max_life))
