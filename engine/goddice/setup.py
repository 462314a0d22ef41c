"""Starting a God Dice game (the optional rules), then the rulebook's setup: seating, the opening
roll-off and the draft.
"""

from __future__ import annotations

from typing import Any

from engine.core import Context, Outcome, Tx, require_gm
from engine.errors import BadInput, RuleViolation
from engine.goddice.actions import Begin, ChooseFirst, Join, Pick
from engine.goddice.cards import OPTIONS, GoddiceRules
from engine.goddice.common import await_move, handles, mover, roll_attack_dice
from engine.goddice.end import start_turn
from engine.goddice.events import CharacterPicked, FirstChosen, GoddiceStarted, PlayerJoined, RolloffWon
from engine.goddice.state import CHOOSE, DRAFT, SEATING, GoddiceState
from engine.house import RulesError
from engine.names import MAX_NAME, clean_name, name_key, refuse_look_alike

MAX_ROLLOFF_ROUNDS = 100


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


def start_game(ctx: Context, options: dict[str, Any]) -> Outcome[GoddiceState]:
    """A new God Dice game, run by `ctx.actor`: seating opens."""
    if options.get("turn_hours") is not None:
        raise BadInput("God Dice has no turn clock: turn_hours is for Nations")
    rules: GoddiceRules = ctx.rules
    event = GoddiceStarted(gm=ctx.actor, started_at=ctx.now, house=rules.house.as_dict(), cards=rules.cards.raw,
                           options=parse_options(options.get("options")))
    return Outcome(event.apply(None), [event])


# --- seating, roll-off, draft --------------------------------------------------------------------


@handles(Join)
def join(tx: Tx[GoddiceState], action: Join) -> None:
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
    refuse_look_alike(name, [state.gm, *(p.name for p in state.players)], "a player's name at this table")
    if len(state.players) >= state.cards.max_players:
        raise RuleViolation(f"the table is full: God Dice is for {state.cards.min_players} to "
                            f"{state.cards.max_players} players")
    tx.emit(PlayerJoined(name, len(state.players) + 1))


@handles(Begin)
def begin(tx: Tx[GoddiceState], action: Begin) -> None:
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
        yellows = {name: roll_attack_dice(tx, name, "rolloff", cards.attack_count).count("Y")
                   for name in contenders}
        best = max(yellows.values())
        contenders = [name for name in contenders if yellows[name] == best]
        if len(contenders) == 1:
            tx.emit(RolloffWon(contenders[0], best, round_number))
            await_move(tx)
            return
    raise RuleViolation(f"the roll-off was still tied after {MAX_ROLLOFF_ROUNDS} rounds: /game end and start again")


@handles(ChooseFirst)
def choose_first(tx: Tx[GoddiceState], action: ChooseFirst) -> None:
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
def pick(tx: Tx[GoddiceState], action: Pick) -> None:
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
        start_turn(tx, player.name)
    await_move(tx)
