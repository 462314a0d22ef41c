"""The GM powers every game shares: dice entered by hand, house settings, and who runs the game with the GM (co-GMs)
or after the GM (a handover). Each is logged with who did it.

A co-GM holds the GM's powers in the game; who holds them is the GM's say alone (or a server GM's: Manage Server, the
server's GM role): a co-GM may not add co-GMs, remove another, or hand the game over — only step down."""

from __future__ import annotations

from dataclasses import dataclass

from engine.core import Tx, handles, require_gm
from engine.errors import BadInput, NotGM, RuleViolation
from engine.events import CoGMAdded, CoGMRemoved, DiceCleared, DiceQueued, GameHandedOver, HouseChanged
from engine.game import ANYONE, GM_ONLY, MAX_COGMS, entered_for, same_person
from engine.house import RulesError
from engine.names import clean_name
from engine.rulesets import GameState, ruleset_of
from engine.view import Person, View, item, view

MAX_QUEUED_DICE = 100
MAX_BINDING = 48  # characters of an entered die's binding ("purpose:" and a word, "player:" and an id or name)


@dataclass
class QueueDice:
    values: list[int | str]  # numbers (Nations) or face names (God Dice), as typed
    bound: str = ANYONE  # whose or which roll takes them (`engine.game.entered_for`): anyone's, the GM's own…


@dataclass
class ClearDice:
    pass


@dataclass
class AddCoGM:
    player: str  # a Discord id, or a name in the console


@dataclass
class RemoveCoGM:
    player: str


@dataclass
class HandOver:
    player: str  # the new GM


@dataclass
class SetHouse:
    key: str
    value: str


@handles(QueueDice)
def queue_dice(tx: Tx[GameState], action: QueueDice) -> None:
    """Enter the next dice by hand; each is used by the next roll they are bound to (`action.bound`) and logged as
    GM-entered then. Until used, nobody but the GM sees them (the log says how many were entered)."""
    require_gm(tx, "enter dice")
    if not action.values:
        raise BadInput("give the dice to enter, e.g. values:\"7 3 10\"")
    kind, _, what = action.bound.partition(":")
    if not (action.bound in (ANYONE, GM_ONLY) or (kind in ("player", "purpose") and what.strip())):
        raise BadInput(f"entered dice go to anyone's roll, the GM's, a player's or a purpose's, not {action.bound!r}")
    if len(action.bound) > MAX_BINDING:
        raise BadInput(f"what the entered dice are for is at most {MAX_BINDING - 8} characters")
    values = list(ruleset_of(tx.state).forced_dice(list(action.values), tx))
    if len(tx.state.forced_dice) + len(values) > MAX_QUEUED_DICE:
        raise BadInput(f"at most {MAX_QUEUED_DICE} dice may wait in the queue")
    tx.emit(DiceQueued(values, tx.ctx.actor, action.bound))


def binding(player: str | None, purpose: str | None, default: str) -> str:
    """An entered die's binding from /gm dice's options: a player's next roll, a purpose's, else `default` (the
    front-end's: the GM's own commands on Discord, the next roll on the console, where the GM types every line)."""
    player, purpose = str(player or "").strip(), " ".join(str(purpose or "").split())
    if player and purpose:
        raise BadInput("give player: or purpose:, not both: entered dice go to one player's roll or one purpose's")
    if purpose.lower() in ("any", "anyone"):
        return ANYONE
    if purpose.lower() in ("gm", "me"):
        return GM_ONLY
    return f"player:{player}" if player else f"purpose:{purpose.lower()}" if purpose else default


def waiting_view(state: GameState) -> View:
    """The entered dice waiting, in order, each with whose roll takes it: for the GM alone (/gm dice
    values:waiting)."""
    if not state.forced_dice:
        return view("No entered dice are waiting.")
    lines = []
    for value, bound in zip(state.forced_dice, entered_for(state), strict=True):
        kind, _, what = bound.partition(":")
        if kind == "player":
            lines.append(item(f"{value} — for the next roll of ", Person(what)))
        elif kind == "purpose":
            lines.append(item(f"{value} — for the next roll whose purpose holds “{what}”"))
        elif kind == GM_ONLY:
            lines.append(item(f"{value} — for the next roll of a command the GM runs"))
        else:
            lines.append(item(f"{value} — for the next roll, whoever makes it"))
    count = len(state.forced_dice)
    return view(f"{count} entered {'die' if count == 1 else 'dice'} waiting, in order (you alone see this)", *lines)


@handles(ClearDice)
def clear_dice(tx: Tx[GameState], action: ClearDice) -> None:
    require_gm(tx, "clear entered dice")
    if not tx.state.forced_dice:
        raise RuleViolation("no entered dice are waiting")
    tx.emit(DiceCleared(tx.ctx.actor))


@handles(SetHouse)
def set_house(tx: Tx[GameState], action: SetHouse) -> None:
    """Change one house setting for this game only."""
    require_gm(tx, "change house settings")
    key = action.key.strip().lower()
    if key in ruleset_of(tx.state).fixed_house_keys:
        raise BadInput(f"{key} is not changed with /gm house" + (
            ": the turn length is changed with /gm clock length" if key == "turn_hours" else ""))
    try:
        if tx.state.house is None:
            raise RuleViolation("this game has no house settings")
        changed = tx.state.house.with_value(key, action.value)
        changed.check_rules(tx.rules)
    except RulesError as err:
        raise BadInput(str(err)) from None
    tx.emit(HouseChanged(key, getattr(changed, key)))


def require_lead(tx: Tx[GameState], what: str) -> None:
    """Refuse unless the actor is the game's GM itself or a server GM (`Context.server_gm`): not a co-GM."""
    require_gm(tx, what)
    if not (tx.ctx.server_gm or same_person(tx.ctx.actor, tx.state.gm)):
        raise NotGM(f"only the game's GM may {what} (a co-GM may not)")


def _person(raw: str) -> str:
    return clean_name(str(raw), "player")


@handles(AddCoGM)
def add_cogm(tx: Tx[GameState], action: AddCoGM) -> None:
    """Give a member the GM's powers in this game, beside the GM."""
    require_lead(tx, "add co-GMs")
    player = _person(action.player)
    if same_person(player, tx.state.gm):
        raise RuleViolation(f"{player} is the game's GM already")
    if any(same_person(player, c) for c in tx.state.cogms):
        raise RuleViolation(f"{player} is a co-GM already")
    if len(tx.state.cogms) >= MAX_COGMS:
        raise RuleViolation(f"a game has at most {MAX_COGMS} co-GMs: remove one first (/gm cogm remove)")
    tx.emit(CoGMAdded(player, tx.ctx.actor))


@handles(RemoveCoGM)
def remove_cogm(tx: Tx[GameState], action: RemoveCoGM) -> None:
    """Take a co-GM's powers back (the GM); a co-GM may step down."""
    player = _person(action.player)
    if not same_person(player, tx.ctx.actor):
        require_lead(tx, "remove co-GMs")
    found = next((c for c in tx.state.cogms if same_person(player, c)), None)
    if found is None:
        listed = ", ".join(tx.state.cogms) or "none"
        raise RuleViolation(f"{player} is not a co-GM of this game (co-GMs: {listed})")
    tx.emit(CoGMRemoved(found, tx.ctx.actor))


@handles(HandOver)
def hand_over(tx: Tx[GameState], action: HandOver) -> None:
    """Make another member the game's GM; the GM before stays a co-GM (and may step down)."""
    require_lead(tx, "hand the game over")
    player = _person(action.player)
    old = tx.state.gm
    if same_person(player, old):
        raise RuleViolation(f"{player} is the game's GM already")
    stays = [c for c in tx.state.cogms if not same_person(player, c)]
    if len(stays) >= MAX_COGMS:
        raise RuleViolation(f"a game has at most {MAX_COGMS} co-GMs, and the GM before stays one: remove a co-GM "
                            "first (/gm cogm remove)")
    tx.emit(GameHandedOver(player, old, tx.ctx.actor))
