"""God Dice play: seating and the roll-off, the draft, and each turn's three phases — declare, God dice,
attack — with damage, healing, death, the winner and the optional rules (Campaign, Resurrection, Free for
All). Rule references are to the God Dice rulebook; docs/goddice.md words them for players.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from engine import core
from engine.clock import Deadline
from engine.core import Context, Outcome, Tx, require_gm
from engine.errors import BadInput, RuleViolation
from engine.goddice.cards import (
    FACE_NAMES,
    OPTIONS,
    TYPE_FACES,
    Attack,
    Cards,
    CharacterCard,
    RulesError,
    cards_from_dict,
    needs_met,
)
from engine.goddice.events import (
    AttackDiceSet,
    AttackerDeclared,
    AttackMade,
    AttackMissed,
    CampaignGameStarted,
    CardsLoaded,
    CharacterDied,
    CharacterPicked,
    CharacterResurrected,
    DefenderDeclared,
    DirectionReversed,
    FavorDecided,
    FirstChosen,
    GameWon,
    GodDiceRead,
    GoddiceStarted,
    LifeChanged,
    MoveAwaited,
    PhaseChanged,
    PlayerEliminated,
    PlayerJoined,
    PlayerReminded,
    ResurrectionDeclined,
    RolloffWon,
    TurnStarted,
)
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
from engine.names import MAX_NAME, clean_name, name_key

RULESET = "goddice"
MAX_ROLLOFF_ROUNDS = 100
ROLL_TYPES = ("B", "R", "Y", "O", "5")  # the five types a player may roll once each after the opening roll


def handles(action_type: type) -> Callable[[Callable[[Tx, Any], None]], Callable[[Tx, Any], None]]:
    """Register the function that applies one kind of God Dice action."""
    return core.handles(action_type, RULESET)


# --- actions -------------------------------------------------------------------------------------


@dataclass
class Join:
    player: str | None = None  # a GM may seat someone else


@dataclass
class Begin:
    pass


@dataclass
class ChooseFirst:
    choice: str  # "attack" or "select"


@dataclass
class Pick:
    character: str


@dataclass
class Declare:
    attacker: str | None = None
    target: str | None = None  # Free for All: the player attacked


@dataclass
class Defend:
    character: str


@dataclass
class Roll:
    type: str | None = None  # None: the opening roll


@dataclass
class Favor:
    choice: str  # "keep" or "reroll"


@dataclass
class MakeAttack:
    name: str
    targets: str | None = None
    heal: str | None = None


@dataclass
class Resurrect:
    character: str  # or "decline"


@dataclass
class LoadCards:
    cards: dict[str, Any]


@dataclass
class SetLife:
    player: str
    character: str
    life: int


# --- starting a game -----------------------------------------------------------------------------


def parse_options(text: str | None) -> list[str]:
    """`"campaign resurrection free_for_all"` (commas, hyphens and "ffa" accepted) → the option names."""
    if not text:
        return []
    found = []
    for word in text.replace(",", " ").split():
        key = word.strip().lower().replace("-", "_")
        key = {"ffa": "free_for_all", "freeforall": "free_for_all"}.get(key, key)
        if key not in OPTIONS:
            raise BadInput(f"unknown God Dice option {word!r}; options: {', '.join(OPTIONS)}")
        if key not in found:
            found.append(key)
    return found


def start_game(ctx: Context, options: dict[str, Any]) -> Outcome:
    """A new God Dice game, run by `ctx.actor`: seating opens."""
    if options.get("turn_hours") is not None:
        raise BadInput("God Dice has no turn clock: turn_hours is for Nations")
    rules = ctx.rules
    event = GoddiceStarted(gm=ctx.actor, started_at=ctx.now, house=rules.house.as_dict(), cards=rules.cards.raw,
                           options=parse_options(options.get("options")))
    return Outcome(event.apply(None), [event])


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


def await_move(tx: Tx) -> None:
    """Record whose move it is now (its reminder counts from now)."""
    state = tx.state
    player = waiting_for(state)
    quiet = player == state.active and not (state.phase == DECLARE and tx.events and
                                            isinstance(tx.events[-1], TurnStarted))
    tx.emit(MoveAwaited(player, state.phase, tx.ctx.now, quiet))


def mover(tx: Tx, *phases: str) -> Player:
    """The player making this move: the one the game waits for, in one of `phases`. A GM who is not
    seated may move for the player whose move it is."""
    state = tx.state
    if state.phase not in phases:
        raise RuleViolation(f"that is not a move now: {WAITING[state.phase](state)}")
    active = waiting_for(state)
    actor = tx.ctx.actor
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


def _set_dice(tx: Tx, rolled: str, dice: list[str]) -> None:
    state, turn = tx.state, turn_of(tx.state)
    assert turn.attacker is not None
    dice = sort_dice(dice)
    legal = qualifying(state.cards, card_of(state, turn.attacker), dice)
    tx.emit(AttackDiceSet(rolled, dice, [f"{option.attack.id} {option.damage}" for option in legal]))


def _roll_attack_dice(tx: Tx, player: str, purpose: str, count: int) -> list[str]:
    return tx.roll_faces(player, purpose, tx.state.cards.attack_faces, count, "attack dice")


# --- seating, roll-off, draft --------------------------------------------------------------------


@handles(Join)
def join(tx: Tx, action: Join) -> None:
    """Take the next seat (clockwise in join order)."""
    state = tx.state
    raw = action.player or tx.ctx.actor
    if action.player and name_key(action.player) != name_key(tx.ctx.actor):
        require_gm(tx, "seat another player")
    if state.phase != SEATING:
        raise RuleViolation("seating is closed: the game has begun")
    rule = f"a player's name is 1 to {MAX_NAME} characters without @ # : or `"
    try:
        name = clean_name(raw, "a player's name", MAX_NAME)
    except BadInput as err:
        raise BadInput(f"{err} ({rule})") from None
    if any(ch in name for ch in "@#:`"):
        raise BadInput(rule)
    if state.player(name) is not None:
        raise RuleViolation(f"{name} already has a seat")
    if len(state.players) >= state.cards.max_players:
        raise RuleViolation(f"the table is full: God Dice is for {state.cards.min_players} to "
                            f"{state.cards.max_players} players")
    tx.emit(PlayerJoined(name, len(state.players) + 1))


@handles(Begin)
def begin(tx: Tx, action: Begin) -> None:
    """Close seating and run the opening roll-off: most YELLOW wins; the tied re-roll in seat order."""
    require_gm(tx, "begin the game")
    state, cards = tx.state, tx.state.cards
    if state.phase != SEATING:
        raise RuleViolation("the game has already begun")
    if len(state.players) < cards.min_players:
        raise RuleViolation(f"God Dice needs at least {cards.min_players} players; seated: {len(state.players)}")
    if "free_for_all" in state.options and len(state.players) < 3:
        raise RuleViolation("Free for All is for three or four players: seat more, or start without it")
    contenders = [p.name for p in state.players]
    for round_number in range(1, MAX_ROLLOFF_ROUNDS + 1):
        yellows = {name: _roll_attack_dice(tx, name, "rolloff", cards.attack_count).count("Y")
                   for name in contenders}
        best = max(yellows.values())
        contenders = [name for name in contenders if yellows[name] == best]
        if len(contenders) == 1:
            tx.emit(RolloffWon(contenders[0], best, round_number))
            await_move(tx)
            return
    raise RuleViolation(f"the roll-off was still tied after {MAX_ROLLOFF_ROUNDS} rounds: /game end and start again")


@handles(ChooseFirst)
def choose_first(tx: Tx, action: ChooseFirst) -> None:
    """Attack first (and select last) or select first (and defend first): the draft runs clockwise."""
    player = mover(tx, CHOOSE)
    state, cards = tx.state, tx.state.cards
    choice = action.choice.strip().lower()
    if choice not in ("attack", "select"):
        raise BadInput("choose first:attack or first:select")
    first = player if choice == "select" else state.neighbour(player.name, +1, seated=True)
    start = state.players.index(first)
    order = [state.players[(start + i) % len(state.players)].name for i in range(len(state.players))]
    picks = order * cards.characters_per_player(len(state.players))
    tx.emit(FirstChosen(player.name, choice, picks, {t: cards.copies for t in cards.characters}))
    await_move(tx)


@handles(Pick)
def pick(tx: Tx, action: Pick) -> None:
    """Take one character card from the pool; duplicates are legal while the pool has them."""
    player = mover(tx, DRAFT)
    state = tx.state
    try:
        card = state.cards.card(action.character)
    except RulesError as err:
        raise BadInput(str(err)) from None
    if state.pool.get(card.type, 0) <= 0:
        left = ", ".join(f"{state.cards.characters[t].title} ×{n}" for t, n in state.pool.items() if n) or "none"
        raise RuleViolation(f"the pool has no {card.title} left (left: {left})")
    same = sum(1 for c in player.characters if c.type == card.type)  # a second Hero is "Hero 2"
    tx.emit(CharacterPicked(player.name, state.next_character_id, card.type, card.life,
                            f"{card.title} {same + 1}" if same else card.title))
    if not tx.state.picks:  # turns start with the last player to have picked
        _start_turn(tx, player.name)
    await_move(tx)


def _start_turn(tx: Tx, player: str) -> None:
    tx.emit(TurnStarted(player, tx.state.turn + 1))


# --- a turn: declare and the God dice -------------------------------------------------------------


@handles(Declare)
def declare(tx: Tx, action: Declare) -> None:
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


def _defending_player(tx: Tx, player: Player, target: str | None) -> Player:
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
def defend(tx: Tx, action: Defend) -> None:
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


def _god_dice(tx: Tx) -> None:
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


def _reversal(tx: Tx, faces: list[str]) -> None:
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
def resurrect(tx: Tx, action: Resurrect) -> None:
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


# --- the attack phase ----------------------------------------------------------------------------


@handles(Roll)
def roll(tx: Tx, action: Roll) -> None:
    """The opening roll (all the attack dice), then each type at most once, all its dice together."""
    state = tx.state
    if action.type is None or not str(action.type).strip():
        player = mover(tx, OPENING)
        _set_dice(tx, "opening", _roll_attack_dice(tx, player.name, "opening", state.cards.attack_count))
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
        faces = _roll_attack_dice(tx, player.name, name, count)
        _set_dice(tx, face, [d for d in turn.dice if d != face] + faces)
    if tx.state.phase == ROLLING and _missed(tx):
        return
    await_move(tx)


def _missed(tx: Tx) -> bool:
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
def favor(tx: Tx, action: Favor) -> None:
    """In favor: keep the opening roll, or re-roll it once (a defender in favor decides for the attacker)."""
    player = mover(tx, FAVOR)
    choice = action.choice.strip().lower().replace("-", "")
    if choice not in ("keep", "reroll"):
        raise BadInput("say favor choice:keep or choice:reroll")
    tx.emit(FavorDecided(player.name, choice))
    turn = turn_of(tx.state)
    if choice == "reroll":
        _set_dice(tx, "favor", _roll_attack_dice(tx, turn.player, "favor", tx.state.cards.attack_count))
    tx.emit(PhaseChanged(ROLLING))
    if not _missed(tx):
        await_move(tx)


def _targets(tx: Tx, attack: Attack, text: str | None) -> list[Character]:
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


def _target(tx: Tx, defending: Player, text: str) -> Character:
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


def _heal_target(tx: Tx, attack: Attack, text: str | None) -> Character | None:
    """Heal Any: one of the attacker's own wounded characters (default: the one missing most life)."""
    state, turn = tx.state, turn_of(tx.state)
    own = find_player(state, turn.player)
    if not attack.heal_any:
        if text:
            raise RuleViolation(f"{attack.title} heals no one")
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
def make_attack(tx: Tx, action: MakeAttack) -> None:
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
    tx.emit(AttackMade(player.name, turn.attacker, attack.title, amount, [c.id for c in targets],
                       healed.id if healed else None, attacker_name, target_names))
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


def damage(tx: Tx, owner: Player, character_id: int, amount: int | None, reason: str) -> None:
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


def heal(tx: Tx, owner: Player, character_id: int, amount: int, reason: str) -> None:
    """Heal a living character, never above its full life (the excess is wasted)."""
    character = tx.state.character(character_id)[1]
    if not character.alive:
        return
    life = min(character.max_life, character.life + amount)
    if life != character.life:
        tx.emit(LifeChanged(owner.name, character.id, life, life - character.life, reason, None,
                            character_label(tx.state, character.id), character.max_life))


# --- the end of a turn, of a game ----------------------------------------------------------------


def end_turn(tx: Tx, resurrected: bool = False) -> None:
    """The turn is over: a winner, or the next player's turn."""
    state, turn = tx.state, turn_of(tx.state)
    if _winner(tx):
        return
    if "free_for_all" in state.options:
        defending = state.player(turn.defender_player) if turn.defender_player else None
        if resurrected or defending is None or not defending.in_game:
            following = state.neighbour(turn.player, +1)  # the player left of the attacker
        else:
            following = defending  # whoever defended attacks next
    else:
        following = state.neighbour(turn.player, state.step)
    _start_turn(tx, following.name)


def _winner(tx: Tx) -> bool:
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
        _start_turn(tx, tx.state.neighbour(winner.name, -1).name)
    return True


# --- the GM --------------------------------------------------------------------------------------


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
        if state.current is not None and state.phase not in (OVER,) and _winner(tx) and not tx.state.ended:
            await_move(tx)  # Campaign: the next game waits for its first attacker


# --- the clock -----------------------------------------------------------------------------------


def deadlines(state: GoddiceState) -> list[Deadline]:
    """The reminder of the player whose move it is (God Dice has no turn clock and no forced moves)."""
    hours = state.house.reminder_hours
    if state.ended or state.active is None or state.move_since is None or hours <= 0:
        return []
    return [Deadline(state.move_since + timedelta(hours=hours * (state.reminders + 1)), "reminder", state.active)]


def apply_deadline(tx: Tx, due: Deadline) -> None:
    """Remind the player once for however long they have kept the game waiting."""
    state = tx.state
    assert state.move_since is not None
    hours = state.house.reminder_hours
    waited = (tx.ctx.now - state.move_since).total_seconds() / 3600
    count = max(state.reminders + 1, int(waited // hours))
    tx.emit(PlayerReminded(state.active or "", state.phase, round(count * hours, 2), count))


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
