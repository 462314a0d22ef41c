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
    cogms: list[str]  # its co-GMs (/gm cogm add): the GM's powers, not the GM's say over who holds them
    ended: bool  # over (GameEnded): only the commands allowed after the end run
    turn: int  # where it stands: the turn, or the move (0 before the first)
    forced_dice: list[Any]  # the dice a GM entered, in order, each rule set's own kind (numbers, faces): /gm dice
    # (beside it, optionally, `forced_for`: each entered die's binding, read and written through `entered_for`)

    @property
    def house(self) -> House | None:
        """Its house settings (/gm house), its rule set's own `House`; None: the rule set has none. (Read-only
        here, so that a state whose field is its own subclass of `House` matches.)"""


ANYONE = ""
"""An entered die's binding: the next roll, whoever makes it (the console, where the GM types every line; old
games)."""
GM_ONLY = "gm"
"""An entered die's binding: the next roll of a command the GM runs (Discord's /gm dice without for:)."""


def entered_for(state: GameState) -> list[str]:
    """Each waiting entered die's binding, in the queue's order: ANYONE, GM_ONLY, "player:<who>" (a roll that
    player makes, or of their side) or "purpose:<word>" (a roll whose purpose holds the word). A state that
    records none (an old snapshot's plain values): every die is ANYONE's."""
    binds = [str(b) for b in (getattr(state, "forced_for", None) or [])]
    count = len(state.forced_dice)
    return (binds + [ANYONE] * count)[:count]


def entered_export(state: GameState) -> dict[str, list[str]]:
    """A snapshot's `forced_for` (each waiting die's binding), only when one is bound: an old game's export stays
    as it was, and a snapshot without it loads as every die ANYONE's."""
    binds = entered_for(state)
    return {"forced_for": binds} if any(binds) else {}


def set_entered_for(state: GameState, binds: list[str]) -> None:
    """Record each waiting die's binding (none when every die is ANYONE's: as an old game's state was)."""
    setattr(state, "forced_for", list(binds) if any(binds) else [])  # noqa: B010  (each rule set's own field)


def binding_takes(bound: str, actor: str, is_gm: bool, subject: str | None, purpose: str) -> bool:
    """Whether a die entered with binding `bound` goes to this roll: by `actor` (the GM or not), of `subject` (the
    roll's nation or player), for `purpose`."""
    kind, _, what = bound.partition(":")
    if kind == ANYONE:
        return True
    if kind == GM_ONLY:
        return is_gm
    if kind == "player":
        return what.lower() in (actor.lower(), (subject or "").lower())
    if kind == "purpose":
        return what.lower() in purpose.lower()
    return False


def binding_words(bound: str, who: Who) -> str:
    """A binding as shown to the GM: "for anyone's next roll", "for alice's next roll"…"""
    kind, _, what = bound.partition(":")
    if kind == GM_ONLY:
        return "for the GM's own commands"
    if kind == "player":
        return f"for {who(what)}'s next roll"
    if kind == "purpose":
        return f"for the next {what} roll"
    return "for the next roll, whoever makes it"


S = TypeVar("S", bound=GameState)  # a rule set's own state's class

MAX_COGMS = 10
"""The most co-GMs a game has (/gm cogm add)."""


def same_person(a: str, b: str) -> bool:
    """Whether two names (a console name, a Discord id) are one person, as the GM's name is compared."""
    return a.strip().lower() == b.strip().lower()


def cogms_of(state: GameState) -> list[str]:
    """The game's co-GMs (none in a state of a rule set that has no such field)."""
    return list(getattr(state, "cogms", None) or [])


def runs_game(state: GameState, actor: str) -> bool:
    """Whether `actor` is the game's GM or one of its co-GMs (each holds the GM's powers in that game)."""
    return any(same_person(actor, gm) for gm in (state.gm, *cogms_of(state)))


@dataclass(frozen=True)
class Deadline:
    """A moment something falls due, as its rule set names it: what (a "turn end", a "reminder"…), whom it
    concerns (a nation, a player) and what about (a bonus's kind, a battle's number), as the rule set says."""

    at: datetime
    what: str
    who: str | None = None
    about: str | int | None = None
