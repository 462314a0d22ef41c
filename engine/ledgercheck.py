"""An imported roll ledger checked against its game: every roll one the game could have made.

The import schema (`engine.schema`) checks each roll's types and bounds; this checks the rolls against the game
they come with, as its rule set describes what its ledger may hold (`LedgerTerms`, from `RuleSet.ledger_terms`):
a die's value on one of its sides, a roller who is in the game, a turn the game has reached, as many dice as one
roll takes, times that are not ahead of the clock and follow one another, and a total, a verdict, a battle and a
unit that agree with the rest of the row. The first roll that does not fit is refused, in one line naming it.

Rows in, a refusal out: no store, no rule set by name.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from engine.dice import Die
from engine.errors import BadInput

__all__ = ["CLOCK_SLACK", "LedgerTerms", "check_ledger"]

CLOCK_SLACK = timedelta(minutes=10)
"""How far a roll's time may be ahead of the importing clock (another host's clock), or behind the roll before it
(two actions whose clocks were read in one order and committed in the other)."""


def _never(purpose: str) -> bool:
    return False


@dataclass(frozen=True)
class LedgerTerms:
    """What one game's roll ledger may hold, as its rule set says (`RuleSet.ledger_terms`).

    `sides`: the numbered dice it rolls, by their sides (empty: none). `faces`: for a row of dice with named faces,
    from its purpose, the die it rolled and the most dice one such roll takes (None: it rolls no such dice).
    `rollers`: who rolls (its nations or players; the GM is added by the check). `unnamed`: a roll may name no
    one (a neutral's). `open_purpose`: a roll anyone in the channel may make, whoever they are (a chart read by
    hand). `turn`: the game's turn, which no roll is after; `restarts`: how often its turn count has started again
    (a campaign's next game), so how often a roll's turn may be lower than the one before it. `battles` and
    `units`: the highest battle and unit numbers the game has given (0: its rolls name none)."""

    sides: frozenset[int] = frozenset()
    faces: Callable[[str], tuple[Die, int]] | None = None
    rollers: frozenset[str] = frozenset()
    unnamed: bool = False
    open_purpose: Callable[[str], bool] = field(default=_never)
    turn: int = 0
    restarts: int = 0
    battles: int = 0
    units: int = 0


def check_ledger(rolls: Sequence[dict[str, Any]], terms: LedgerTerms | None, gm: Collection[str], now: datetime,
                 title: str = "this game", side: str = "player") -> None:
    """Refuse, in one line naming it, the first of an import's `rolls` (as the schema left them) that its game
    could not have made. `gm`: the game's GM (the export's, and the importer); `title`: the rule set's; `side`:
    what it calls one side ("nation"); `terms` None: the rule set says nothing of its dice, so only an empty
    ledger passes."""
    if terms is None:
        if rolls:
            raise BadInput(f"that export's rolls cannot be checked: {title} does not say what its dice are, so "
                           "its games import without rolls")
        return
    rollers = terms.rollers | frozenset(gm)
    drops = _drops(rolls)
    too_many = drops[terms.restarts] if len(drops) > terms.restarts else None
    current = _current(drops, terms.restarts, len(rolls))
    last_at: datetime | None = None
    for index, roll in enumerate(rolls):
        reason = _row_fault(roll, terms, rollers, title, side)
        turn = int(roll.get("turn", 0))
        if reason is None and index >= current and turn > terms.turn:
            reason = f"its turn {turn} is after the game's turn {terms.turn}"
        if reason is None and index == too_many:
            reason = (f"its turn {turn} comes after turn {rolls[index - 1].get('turn', 0)} (a ledger's turns go back "
                      f"only when {title} starts again: {_times(terms.restarts)} here)")
        at = _moment(roll.get("at"))
        if reason is None and at is not None:
            if at > now + CLOCK_SLACK:
                reason = f"it was rolled at {at.isoformat()}, in the future"
            elif last_at is not None and at < last_at - CLOCK_SLACK:
                reason = f"it was rolled at {at.isoformat()}, before the roll above it ({last_at.isoformat()})"
        if reason is not None:
            raise _refusal(rolls, index, reason)
        last_at = at if at is not None else last_at


def _current(drops: list[int], restarts: int, count: int) -> int:
    """Where the rolls of the game's turns as they count now begin: after its last start again. When the ledger
    shows fewer starts than the game has made, its last rolls may be an earlier game's: no roll is bounded."""
    if restarts == 0:
        return 0
    return drops[restarts - 1] if len(drops) >= restarts else count


def _drops(rolls: Sequence[dict[str, Any]]) -> list[int]:
    """Where a roll's turn is lower than the one before it."""
    return [i for i in range(1, len(rolls)) if int(rolls[i].get("turn", 0)) < int(rolls[i - 1].get("turn", 0))]


def _times(count: int) -> str:
    return {0: "never", 1: "once", 2: "twice"}.get(count, f"{count} times")


def _moment(raw: Any) -> datetime | None:
    if not raw:
        return None
    return raw if isinstance(raw, datetime) else datetime.fromisoformat(str(raw))


def _refusal(rolls: Sequence[dict[str, Any]], index: int, reason: str) -> BadInput:
    roll = rolls[index]
    who = roll.get("nation") if "die" in roll else roll.get("player")
    about = f"{str(roll.get('purpose', ''))[:60]!r}" + (f" by {str(who)[:40]}" if who else "")
    return BadInput(f"that export's ledger does not fit its game: rolls[{index}] ({about}, turn {roll.get('turn', 0)})"
                    f": {reason}")


def _row_fault(roll: dict[str, Any], terms: LedgerTerms, rollers: frozenset[str], title: str,
               side: str) -> str | None:
    """What in one row the game could not have rolled (None: nothing)."""
    numbered = "die" in roll
    who = roll.get("nation") if numbered else roll.get("player")
    if who is None:
        if not terms.unnamed:
            return "it names no one who rolled it"
    elif who not in rollers and not terms.open_purpose(str(roll["purpose"])):
        return f"{who} is not one of the game's {side}s, nor its GM"
    return _numbered_fault(roll, terms, title) if numbered else _faces_fault(roll, terms, title)


def _numbered_fault(roll: dict[str, Any], terms: LedgerTerms, title: str) -> str | None:
    sides, die = int(roll.get("sides", 10)), int(roll["die"])
    if sides not in terms.sides:
        kinds = " or ".join(f"d{s}" for s in sorted(terms.sides))
        return f"{title} rolls no d{sides}" + (f" (its dice: {kinds})" if kinds else " (it rolls no numbered dice)")
    if not 1 <= die <= sides:
        return f"a d{sides} shows 1 to {sides}, not {die}"
    faces = roll.get("faces")
    if faces is not None and list(faces) != [str(die)]:
        return f"its faces {list(faces)} are not its die {die}"
    modifiers = roll.get("modifiers") or {}
    total = die + sum(int(v) for v in modifiers.values())
    if int(roll["total"]) != total:
        return f"its total {roll['total']} is not its die {die} with its modifiers ({total})"
    target, comparison, success = roll.get("target"), roll.get("comparison"), roll.get("success")
    if target is None and (comparison is not None or success is not None):
        return "it has no target, so neither a comparison nor a success"
    if target is not None and success is not None:
        made = total > target if comparison == ">" else total >= target
        if bool(success) != made:
            return (f"it says {'success' if success else 'failure'}, but {total} against "
                    f"{'better than' if comparison == '>' else 'at least'} {target} is a "
                    f"{'success' if made else 'failure'}")
    for key, most in (("battle", terms.battles), ("unit", terms.units)):
        number = roll.get(key)
        if number is not None and not 1 <= int(number) <= most:
            return (f"its {key} #{number} is not one of the game's" if most
                    else f"it names {key} #{number}, and {title} has no {key}s")
    return None


def _faces_fault(roll: dict[str, Any], terms: LedgerTerms, title: str) -> str | None:
    if terms.faces is None:
        return f"{title} rolls no dice with named faces"
    die, most = terms.faces(str(roll["purpose"]))
    faces = [str(face) for face in roll["faces"]]
    if not 1 <= len(faces) <= most:
        dice = die.name.removesuffix("die") + "dice" if die.name.endswith("die") else die.name
        return f"it rolls {len(faces)} dice at once, and {dice} are rolled 1 to {most} at a time"
    stray = next((face for face in faces if face not in die.faces), None)
    if stray is not None:
        return f"the {die.name} has no face {stray} (its faces: {' '.join(die.distinct)})"
    forced = roll.get("forced")
    if isinstance(forced, list):
        if len(forced) != len(faces):
            return (f"it marks {len(forced)} {'die' if len(forced) == 1 else 'dice'} as entered or not, for "
                    f"{len(faces)}")
        if any(later and not earlier for earlier, later in zip(forced, forced[1:], strict=False)):
            return "a die the GM entered comes after a rolled one (entered dice are used first)"
    return None
