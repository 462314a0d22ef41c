"""The one injectable source of dice, and the records of the roll ledger every rule set writes."""

from __future__ import annotations

import random
import re
from collections import deque
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Protocol

from engine.errors import BadInput


class Roller(Protocol):
    """Anything that rolls one die of `sides` faces (1..sides)."""

    def roll(self, sides: int) -> int: ...


class RandomRoller:
    """Fair dice from a `random.Random` (seed it for reproducible games)."""

    def __init__(self, rng: random.Random | None = None) -> None:
        self.rng = rng or random.SystemRandom()

    def roll(self, sides: int) -> int:
        return self.rng.randint(1, sides)


class ForcedRoller:
    """Dice from a fixed queue; rolling past its end is an error (tests use it to prove no die is used)."""

    def __init__(self, values: Iterable[int] = ()) -> None:
        self.queue: deque[int] = deque(values)
        self.used = 0

    def push(self, *values: int) -> None:
        self.queue.extend(values)

    def roll(self, sides: int) -> int:
        if not self.queue:
            raise AssertionError("ForcedRoller: no die left in the queue")
        value = self.queue.popleft()
        if not 1 <= value <= sides:
            raise AssertionError(f"ForcedRoller: {value} is not a d{sides} face")
        self.used += 1
        return value


@dataclass
class RollRecord:
    """One numbered die, in the open: why it was rolled, every modifier by name, and what it decided."""

    nation: str | None
    purpose: str
    die: int
    modifiers: dict[str, int]
    total: int
    target: int | None
    comparison: str | None  # ">" (better than), ">=" (at or above), or None (no target)
    success: bool | None
    forced: bool
    turn: int
    at: datetime
    battle: int | None = None
    unit: int | None = None
    sides: int = 10  # the die: a d10 in Nations, a d6 in Godsfire
    free: str | None = None  # a free /roll's breakdown: no rule roll, never counted for anything


@dataclass
class FacesRecord:
    """Several dice with named faces rolled together (God Dice): who, why, the faces, and which were entered."""

    player: str | None
    purpose: str
    faces: list[str]
    forced: list[bool]
    turn: int
    at: datetime

    @property
    def any_forced(self) -> bool:
        return any(self.forced)


# --- free rolls (/roll): any dice a player asks for, through the d20 library; never a rule roll -------------

MAX_EXPRESSION = 100  # characters of a /roll expression
MAX_FREE_DICE = 100  # dice in one /roll, rerolls and explosions included
MAX_FREE_SIDES = 1000
MAX_FREE_TOTAL = 10**12
MAX_NESTING = 5  # parentheses inside parentheses
_DICE_TERM = re.compile(r"(\d*)\s*d\s*(\d+|%)", re.IGNORECASE)
_SUGAR = {"adv": "kh1", "advantage": "kh1", "dis": "kl1", "disadvantage": "kl1"}
_D20 = re.compile(r"(?<![\d)])1?d20(?![\d])", re.IGNORECASE)


@dataclass(frozen=True)
class FreeRoll:
    """A /roll: the expression as rolled (advantage written out), its breakdown and its total."""

    expression: str
    breakdown: str  # e.g. "2d6 (3, 5) + 3 = 11"; dropped dice marked "dropped"
    total: int


def free_expression(text: str) -> str:
    """The d20 expression a player typed, bounded and with adv/dis written out ("1d20+5 adv" → "2d20kh1+5").

    BadInput, in one line, for anything too long, nested too deep, with too many dice or sides."""
    expression = " ".join(str(text).split())
    if not expression:
        raise BadInput('give the dice to roll, e.g. dice:2d6+3, dice:"1d20 adv" or dice:4d6kh3')
    if len(expression) > MAX_EXPRESSION:
        raise BadInput(f"that dice expression is too long: at most {MAX_EXPRESSION} characters")
    words = expression.split(" ")
    keep = _SUGAR.get(words[-1].lower())
    if keep is not None:
        rest = " ".join(words[:-1]) or "1d20"
        if not _D20.search(rest):
            raise BadInput(f"{words[-1]} rolls a d20 twice: write it after a d20, e.g. dice:\"1d20+5 {words[-1]}\"")
        expression = _D20.sub(f"2d20{keep}", rest, count=1)
    depth = deepest = 0
    for ch in expression:
        depth += {"(": 1, ")": -1}.get(ch, 0)
        deepest = max(deepest, depth)
    if deepest > MAX_NESTING:
        raise BadInput(f"that dice expression nests parentheses too deep: at most {MAX_NESTING}")
    if re.search(r"\d{7,}", expression):
        raise BadInput("a number in a roll is at most 999999")
    dice = 0
    for count, sides in _DICE_TERM.findall(expression):
        dice += int(count or 1)
        if sides != "%" and int(sides) > MAX_FREE_SIDES:
            raise BadInput(f"a die has at most {MAX_FREE_SIDES} sides, not {int(sides)}")
    if dice > MAX_FREE_DICE:
        raise BadInput(f"that is {dice} dice: at most {MAX_FREE_DICE} in one roll")
    return expression


class _InjectedRandom:
    """What d20 asks of `random` (randrange), answered by a `Roller`, so a test's ForcedRoller decides."""

    def __init__(self, roller: Roller) -> None:
        self.roller = roller

    def randrange(self, start: int, stop: int | None = None, step: int = 1) -> int:
        if stop is None:
            return self.roller.roll(start) - 1  # d20: randrange(size) + 1
        return start + (self.roller.roll((stop - start) // step) - 1) * step  # d%: randrange(0, 100, 10)


def _plain_stringifier() -> Any:
    import d20

    class Plain(d20.SimpleStringifier):  # type: ignore[misc]
        """d20's plain breakdown, with dropped dice marked (its Markdown form strikes them through)."""

        def _stringify(self, node: Any) -> str:
            inside = super()._stringify(node)
            if not node.kept and not inside.endswith(" dropped"):
                return f"{inside} dropped"
            return str(inside)

    return Plain()


def free_roll(text: str, roller: Roller) -> FreeRoll:
    """Roll a player's dice expression with `roller`'s dice; BadInput for what d20 cannot read or roll."""
    import d20  # on first use: the library and its parser cost a quarter second and 10 MiB to load
    from d20 import expression as d20_expression

    expression = free_expression(text)
    fake = _InjectedRandom(roller)
    real = d20_expression.random
    d20_expression.random = fake  # d20 draws from this module's `random`
    try:
        result = d20.Roller(d20.RollContext(max_rolls=MAX_FREE_DICE)).roll(
            expression, stringifier=_plain_stringifier(), allow_comments=False)
        total, breakdown = int(result.total), str(result.result)
    except d20.TooManyRolls:
        raise BadInput(f"that roll needs more than {MAX_FREE_DICE} dice (rerolls and explosions count)") from None
    except d20.RollSyntaxError:
        raise BadInput(f"cannot read {expression!r} as dice: write e.g. 2d6+3, 4d6kh3, 2d20kl1 "
                       "or \"1d20 adv\"") from None
    except (d20.RollError, ZeroDivisionError, ValueError, RecursionError) as err:
        reason = str(err) if isinstance(err, d20.RollError) else type(err).__name__
        raise BadInput(f"cannot roll {expression!r}: {' '.join(reason.split())}") from None
    finally:
        d20_expression.random = real
    if abs(total) > MAX_FREE_TOTAL:
        raise BadInput(f"that roll comes to more than {MAX_FREE_TOTAL:,}: roll something smaller")
    return FreeRoll(expression, breakdown, total)


FREE_MARK = "free roll, not a rule roll"
HIDDEN = "🔒 secret roll, its dice hidden until its roller or the GM reveals it"
"""A secret /roll's breakdown as every reading of the ledger but its roller's and its GM's shows it."""
REVEALED_MARK = "🔓 secret roll, revealed: "
"""Before a revealed secret roll's breakdown."""


def free_roll_line(player: str | None, breakdown: str, total: str | None = None) -> str:
    """`🎲 alice, free roll, not a rule roll: 2d6 (3, 5) + 3 = 11` (a front-end may give the total its own
    form, e.g. bold)."""
    if total is not None:
        head, sep, _ = breakdown.rpartition(" = ")
        breakdown = f"{head} = {total}" if sep else breakdown
    return f"🎲 {player + ', ' if player else ''}{FREE_MARK}: {breakdown}"


def secret_roll_line(player: str | None, breakdown: str, number: int | None, total: str | None = None) -> str:
    """A secret /roll's answer to its roller: `🔒 alice, secret roll #3 (you and the GM alone see it; /log reveal
    roll:3 shows it to everyone): 2d6 (3, 4) = 7`."""
    reveal = f"/log reveal roll:{number}" if number is not None else "/log reveal"
    return free_roll_line(player, breakdown, total).replace(
        f"{FREE_MARK}:", f"secret roll{f' #{number}' if number is not None else ''} (you and the GM alone see it; "
                         f"{reveal} shows it to everyone):", 1).replace("🎲", "🔒", 1)


@dataclass(frozen=True)
class Die:
    """A kind of die: its name as shown ("d10", "attack die") and its faces, one entry a side (a face may
    repeat)."""

    name: str
    faces: tuple[str, ...]

    @property
    def distinct(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(self.faces))

    def share(self, face: str) -> float:
        """A face's fair share of the rolls: its sides / all sides."""
        return self.faces.count(face) / len(self.faces)
