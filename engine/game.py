"""What every game is to the shared machinery, below everything that runs one: the `GameState` protocol (what any
rule set's state offers), a rule set's rules (`Rules`), the ways a front-end words a moment and a person (`When`,
`Who`) and a moment that falls due (`Deadline`). The registry (`engine.rulesets`) and the core that runs actions
(`engine.core`, `engine.events`, `engine.clock`) build on these; nothing here imports them.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any, Protocol, TypeAlias, TypeVar

if TYPE_CHECKING:
    from engine.house import House

When = Callable[[datetime], str]  # a time in words, as the front-end shows it
Who = Callable[[str], str]  # a player or GM as the front-end names them
Rules: TypeAlias = Any
"""A rule set's rules: its data file's tables and house defaults, a class of each rule set's own (Nations' `Rules`,
God Dice's card file…) that the shared machinery only hands on (`Context.rules`)."""


class GameState(Protocol):
    """What every rule set's game state offers the shared machinery (the referee, the store, the clock, undo, the
    GM's powers, the front-ends). Each rule set's state is its own class with these among its fields."""

    ruleset: str  # its rule set's name, as registered
    gm: str  # its GM
    ended: bool  # over (GameEnded): only the commands allowed after the end run
    turn: int  # where it stands: the turn, or the move (0 before the first)
    forced_dice: list[Any]  # the dice a GM entered, in order, each rule set's own kind (numbers, faces): /gm dice

    @property
    def house(self) -> House | None:
        """Its house settings (/gm house), its rule set's own `House`; None: the rule set has none. (Read-only
        here, so that a state whose field is its own subclass of `House` matches.)"""


S = TypeVar("S", bound=GameState)  # a rule set's own state's class


@dataclass(frozen=True)
class Deadline:
    """A moment something falls due, as its rule set names it: what (a "turn end", a "reminder"…), whom it
    concerns (a nation, a player) and what about (a bonus's kind, a battle's number), as the rule set says."""

    at: datetime
    what: str
    who: str | None = None
    about: str | int | None = None
