"""What the rules guarantee of every God Dice game, whatever has been played: the invariants.

`broken(state)` lists each invariant the state breaks, as "field: what is wrong", the field named as in the
export (`game.current.attacker`, `players[1].characters[0].life`), the first broken field first. An import is
refused when the list is not empty (`snapshot.check_state`), and the property test asserts it is empty after
every command (tests/engine/goddice/test_goddice_roundtrip.py): one list for both.
"""

from __future__ import annotations

from collections import Counter

from engine.goddice.cards import OPTIONS
from engine.goddice.common import ROLL_TYPES, legal_attacks, rollable, waiting_for
from engine.goddice.state import (
    CHOOSE,
    DECLARE,
    DEFEND,
    DRAFT,
    FAVOR,
    OPENING,
    OVER,
    PHASES,
    RESURRECT,
    RETARGET,
    ROLLING,
    SEATING,
    GoddiceState,
    Player,
)
from engine.goddice.turn import read_god_dice
from engine.names import look_alike_problems, name_key

BEFORE_TURNS = (SEATING, CHOOSE, DRAFT)
TURN_PHASES = (DECLARE, DEFEND, RESURRECT, RETARGET, OPENING, FAVOR, ROLLING)
DECLARED = (RESURRECT, RETARGET, OPENING, FAVOR, ROLLING)  # an attacker and a defender stand


def broken(state: GoddiceState) -> list[str]:
    """Every invariant `state` breaks, as "field: what is wrong" (empty: a state the rules can reach)."""
    problems: list[str] = []
    _game(state, problems)
    if problems:  # the phase or the options unknown: nothing else can be read
        return problems
    _players(state, problems)
    _draft(state, problems)
    _turn(state, problems)
    if not problems and state.active != waiting_for(state):
        problems.append(f"game.active: {state.active!r}, but the game waits for {waiting_for(state)!r}")
    return problems


def _game(state: GoddiceState, problems: list[str]) -> None:
    if state.ruleset != "goddice":
        problems.append(f"game.ruleset: {state.ruleset!r} is not goddice")
    if state.phase not in PHASES:
        problems.append(f"game.phase: unknown phase {state.phase!r}")
    if state.direction not in ("clockwise", "counterclockwise"):
        problems.append(f"game.direction: unknown direction {state.direction!r}")
    for i, option in enumerate(state.options):
        if option not in OPTIONS or option in state.options[:i]:
            problems.append(f"game.options[{i}]: {option!r} is unknown or given twice")
    known = set(state.cards.attack_faces) | set(state.cards.god_faces)
    for i, face in enumerate(state.forced_dice):
        if face not in known:
            problems.append(f"game.forced_dice[{i}]: {face!r} is not a God Dice face")
    if state.reminders < 0:
        problems.append(f"game.reminders: {state.reminders} is negative")


def _index(state: GoddiceState, name: str | None) -> int | None:
    key = name_key(name) if name else ""
    return next((i for i, p in enumerate(state.players) if name_key(p.name) == key), None) if key else None


def _players(state: GoddiceState, problems: list[str]) -> None:
    cards, count = state.cards, len(state.players)
    if count > cards.max_players:
        problems.append(f"players: {count} players, more than the cards' {cards.max_players}")
    if state.phase != SEATING and count < cards.min_players:
        problems.append(f"players: {count} seated; the game began, so it has at least {cards.min_players}")
    if state.phase != SEATING and "free_for_all" in state.options and count < 3:
        problems.append("game.options: Free for All is for three or four players")
    problems.extend(f"players: {p}" for p in look_alike_problems([p.name for p in state.players], "player"))
    keys: set[str] = set()
    ids: list[int] = []
    drafted = sum(len(p.characters) for p in state.players)
    for i, player in enumerate(state.players):
        key = name_key(player.name)
        if not key or key in keys:
            problems.append(f"players[{i}].name: {player.name!r} is empty or another player's name")
        keys.add(key)
        if player.seat != i + 1:
            problems.append(f"players[{i}].seat: {player.seat}; seats are 1, 2, … in order")
        if player.wins < 0:
            problems.append(f"players[{i}].wins: {player.wins} is negative")
        for j, character in enumerate(player.characters):
            where = f"players[{i}].characters[{j}]"
            card = cards.characters.get(character.type)
            if card is None:
                problems.append(f"{where}.type: no character {character.type!r} in the game's cards")
            elif character.max_life != card.life:
                problems.append(f"{where}.max_life: {character.max_life}; a {card.title} has {card.life}")
            if not 0 <= character.life <= character.max_life:
                problems.append(f"{where}.life: {character.life} of {character.max_life}")
            if character.id in ids:
                problems.append(f"{where}.id: character #{character.id} is already used")
            elif not 1 <= character.id <= drafted:
                problems.append(f"{where}.id: #{character.id}; the {drafted} characters drafted are #1 to "
                                f"#{drafted}")
            ids.append(character.id)
    if state.next_character_id != len(ids) + 1:
        problems.append(f"game.next_character_id: {state.next_character_id}; the next character drafted is "
                        f"#{len(ids) + 1}")
    for field in ("active", "chooser", "winner"):
        name = getattr(state, field)
        if name is not None and _index(state, name) is None:
            problems.append(f"game.{field}: {name!r} is not a player of this game")
    _wins(state, problems)


def _wins(state: GoddiceState, problems: list[str]) -> None:
    over = state.phase == OVER
    if state.ended != over:
        problems.append(f"game.ended: {state.ended} in phase {state.phase}")
    if (state.winner is not None) != over:
        problems.append(f"game.winner: {state.winner!r} in phase {state.phase}")
    needed = state.cards.campaign_wins if "campaign" in state.options else 1
    for i, player in enumerate(state.players):
        winner = over and state.winner is not None and name_key(player.name) == name_key(state.winner)
        if player.wins > needed or player.wins == needed and not winner:
            ends = "a win ends" if needed == 1 else f"{needed} wins end"
            problems.append(f"players[{i}].wins: {player.wins}, and {ends} the game")
    if over and state.winner is not None:
        standing = [p.name for p in state.in_game()]
        if [name_key(n) for n in standing] != [name_key(state.winner)]:
            problems.append(f"game.winner: {state.winner!r}, but the players standing are {standing}")
        index = _index(state, state.winner)
        if index is not None and state.players[index].wins != needed:
            problems.append(f"players[{index}].wins: the winner has {state.players[index].wins}, not {needed}")


def _draft(state: GoddiceState, problems: list[str]) -> None:
    cards, phase = state.cards, state.phase
    each = cards.characters_per_player(len(state.players))
    if phase in (SEATING, CHOOSE):
        if state.pool:
            problems.append("game.pool: the pool is dealt only when the draft begins")
        if state.picks:
            problems.append("game.picks: the draft order is set only when the draft begins")
        for i, player in enumerate(state.players):
            if player.characters:
                problems.append(f"players[{i}].characters: no one has characters before the draft")
    if (state.chooser is None) != (phase == SEATING):
        problems.append(f"game.chooser: {state.chooser!r} in phase {phase}")
    if phase in BEFORE_TURNS and state.turn != 0:
        problems.append(f"game.turn: turn {state.turn} before the first turn")
    if phase in BEFORE_TURNS and state.direction != "clockwise":
        problems.append(f"game.direction: {state.direction} before the first turn")
    if phase in (SEATING, CHOOSE):
        return
    for kind in state.pool:
        if kind not in cards.characters:
            problems.append(f"game.pool.{kind}: no character {kind!r} in the game's cards")
    drafted = Counter(c.type for p in state.players for c in p.characters)
    for kind in cards.characters:
        if kind not in state.pool:
            problems.append(f"game.pool: {kind} is missing")
        elif state.pool[kind] + drafted[kind] != cards.copies:
            problems.append(f"game.pool.{kind}: {state.pool[kind]} left and {drafted[kind]} drafted, not "
                            f"{cards.copies} in all")
    if phase == DRAFT and not state.picks:
        problems.append("game.picks: the draft is under way, so someone picks next")
    if phase != DRAFT and state.picks:
        problems.append(f"game.picks: picks are left in phase {phase}")
    seats = [_index(state, name) for name in state.picks]
    for i, seat in enumerate(seats):
        if seat is None:
            problems.append(f"game.picks[{i}]: {state.picks[i]!r} is not a player of this game")
        elif i and (before := seats[i - 1]) is not None and seat != (before + 1) % len(state.players):
            problems.append(f"game.picks[{i}]: the draft goes round the table clockwise")
    owed = Counter(seats)
    for i, player in enumerate(state.players):
        if len(player.characters) + owed[i] != each:
            problems.append(f"players[{i}].characters: {len(player.characters)} drafted and {owed[i]} to pick, "
                            f"not {each}")


def _turn(state: GoddiceState, problems: list[str]) -> None:
    phase, turn = state.phase, state.current
    if phase not in TURN_PHASES:
        if turn is not None:
            problems.append(f"game.current: no turn is under way in phase {phase}")
        return
    if turn is None:
        problems.append(f"game.current: a turn is under way in phase {phase}")
        return
    if state.turn < 1:
        problems.append(f"game.turn: {state.turn}, with a turn under way")
    if "free_for_all" in state.options and state.direction != "clockwise":
        problems.append("game.direction: Free for All never reverses")
    attacking = _standing(state, turn.player, "game.current.player", problems)
    if attacking is None:
        return
    declared = phase != DECLARE
    _declared(state, attacking, declared, problems)
    if problems:
        return
    if len(state.in_game()) < 2:
        problems.append("players: fewer than two players have a character left, so the game is over")
    _god(state, problems)
    _dice(state, problems)


def _standing(state: GoddiceState, name: str | None, field: str, problems: list[str]) -> Player | None:
    index = _index(state, name)
    if index is None:
        problems.append(f"{field}: {name!r} is not a player of this game")
        return None
    player = state.players[index]
    if not player.in_game:
        problems.append(f"{field}: {player.name} has no character left")
        return None
    return player


def _own(player: Player, character_id: int | None, field: str, problems: list[str]) -> None:
    found = next((c for c in player.characters if c.id == character_id), None)
    if found is None:
        problems.append(f"{field}: character #{character_id} is not {player.name}'s")
    elif not found.alive:
        problems.append(f"{field}: {player.name}'s character #{character_id} is dead")


def _declared(state: GoddiceState, attacking: Player, declared: bool, problems: list[str]) -> None:
    turn, phase = state.current, state.phase
    assert turn is not None
    if not declared:
        for field in ("attacker", "defender_player", "defender", "favor"):
            if getattr(turn, field) is not None:
                problems.append(f"game.current.{field}: nothing is declared in phase {phase}")
        return
    if turn.attacker is None:
        problems.append(f"game.current.attacker: an attacker is declared in phase {phase}")
    else:
        _own(attacking, turn.attacker, "game.current.attacker", problems)
    if phase == RETARGET and "free_for_all" not in state.options:
        problems.append("game.phase: only Free for All retargets")
    if phase == RESURRECT and "resurrection" not in state.options:
        problems.append("game.phase: only Resurrection resurrects")
    if turn.defender_player is None:
        problems.append(f"game.current.defender_player: a defending player is declared in phase {phase}")
        return
    defending = _standing(state, turn.defender_player, "game.current.defender_player", problems)
    if defending is None:
        return
    if defending is attacking:
        problems.append(f"game.current.defender_player: {attacking.name} cannot attack themself")
        return
    if phase == DEFEND:
        if turn.defender is not None:
            problems.append(f"game.current.defender: {turn.defender_player} has yet to declare one")
    elif turn.defender is None:
        problems.append(f"game.current.defender: a defender is declared in phase {phase}")
    else:
        _own(defending, turn.defender, "game.current.defender", problems)


def _god(state: GoddiceState, problems: list[str]) -> None:
    turn, phase, cards = state.current, state.phase, state.cards
    assert turn is not None
    if phase == DECLARE or phase == DEFEND and not turn.god:
        if turn.god:
            problems.append(f"game.current.god: the God dice are rolled after the defender is declared, not in "
                            f"phase {phase}")
        if turn.favor is not None:
            problems.append(f"game.current.favor: no God dice, no favor (phase {phase})")
        return
    if len(turn.god) != 2:
        problems.append(f"game.current.god: {len(turn.god)} God dice; two are rolled")
        return
    for i, face in enumerate(turn.god):
        if face not in cards.god_faces:
            problems.append(f"game.current.god[{i}]: {face!r} is not a God die face")
    if problems:
        return
    assert turn.attacker is not None
    attacker_god = cards.characters[state.character(turn.attacker)[1].type].god
    doubles = turn.god[0] == turn.god[1]
    if doubles and turn.god[0] == attacker_god:
        problems.append("game.current.god: a God kill ends the turn at once")
    if (phase in (RESURRECT, RETARGET) or phase == DEFEND) and not doubles:
        problems.append(f"game.current.god: phase {phase} follows doubles only")
    if doubles:
        if turn.favor is not None:
            problems.append("game.current.favor: doubles put no one in favor")
        return
    if turn.defender is None:
        return
    defender_god = cards.characters[state.character(turn.defender)[1].type].god
    favor = read_god_dice(list(turn.god), attacker_god, defender_god)[1]
    if turn.favor != favor:
        problems.append(f"game.current.favor: {turn.favor!r}, but the God dice {' '.join(turn.god)} put "
                        f"{favor or 'no one'} in favor")


def _dice(state: GoddiceState, problems: list[str]) -> None:
    turn, phase, cards = state.current, state.phase, state.cards
    assert turn is not None
    if phase not in (FAVOR, ROLLING):
        if turn.dice:
            problems.append(f"game.current.dice: no attack dice are on the table in phase {phase}")
        if turn.rolled:
            problems.append(f"game.current.rolled: nothing is rolled in phase {phase}")
        return
    if len(turn.dice) != cards.attack_count:
        problems.append(f"game.current.dice: {len(turn.dice)} attack dice; the game has {cards.attack_count}")
    for i, face in enumerate(turn.dice):
        if face not in cards.attack_faces:
            problems.append(f"game.current.dice[{i}]: {face!r} is not an attack die face")
    if phase == FAVOR and turn.favor is None:
        problems.append("game.current.favor: no one is in favor to keep or re-roll")
    rolled = list(turn.rolled)
    expected = ["opening"] if phase == FAVOR else ["opening", "favor"] if "favor" in rolled else ["opening"]
    if rolled[:len(expected)] != expected or "favor" in expected and turn.favor is None:
        problems.append(f"game.current.rolled: {rolled} does not begin with the opening roll (and a re-roll in "
                        "favor)")
    types = rolled[len(expected):]
    if phase == FAVOR and types or any(t not in ROLL_TYPES for t in types) or len(types) != len(set(types)):
        problems.append(f"game.current.rolled: {rolled}; each type is rolled at most once, after the opening roll")
    if problems or phase != ROLLING:
        return
    if not rollable(state) and not legal_attacks(state):
        problems.append("game.current.dice: no type left to roll and no legal attack: the attack has missed")
