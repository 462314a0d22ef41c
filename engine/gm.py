"""The GM powers every game shares: dice entered by hand and house settings. Each is logged with who did it."""

from __future__ import annotations

from dataclasses import dataclass

from engine.core import Tx, handles, require_gm
from engine.errors import BadInput, RuleViolation
from engine.events import DiceCleared, DiceQueued, HouseChanged
from engine.house import RulesError
from engine.rulesets import GameState, ruleset_of

MAX_QUEUED_DICE = 100


@dataclass
class QueueDice:
    values: list[int | str]  # numbers (Nations) or face names (God Dice), as typed


@dataclass
class ClearDice:
    pass


@dataclass
class SetHouse:
    key: str
    value: str


@handles(QueueDice)
def queue_dice(tx: Tx[GameState], action: QueueDice) -> None:
    """Enter the next dice by hand; each is used by the next roll and logged as GM-entered."""
    require_gm(tx, "enter dice")
    if not action.values:
        raise BadInput("give the dice to enter, e.g. values:\"7 3 10\"")
    values = list(ruleset_of(tx.state).forced_dice(list(action.values), tx))
    if len(tx.state.forced_dice) + len(values) > MAX_QUEUED_DICE:
        raise BadInput(f"at most {MAX_QUEUED_DICE} dice may wait in the queue")
    tx.emit(DiceQueued(values, tx.ctx.actor))


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
