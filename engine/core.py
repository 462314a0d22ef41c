"""How an action runs, for every rule set: the context it runs in, the transaction that emits its events,
and dispatch from an action's type to the function that applies it."""

from __future__ import annotations

import copy
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Generic, TypeVar

from engine.dice import FacesRecord, RandomRoller, Roller, RollRecord
from engine.errors import NoGame, NotGM, RuleViolation
from engine.events import DiceRolled, DieRolled, Event
from engine.game import ANYONE, GM_ONLY, Rules, S, binding_takes, entered_for


@dataclass
class Context:
    """Who acts, when, with which dice and rules. `is_gm` is decided by the front-end's permissions."""

    now: datetime
    actor: str
    rules: Rules  # the rule set's tables and house defaults
    is_gm: bool = False  # the game's GM or a co-GM, or a server GM
    roller: Roller = field(default_factory=RandomRoller)
    server_gm: bool = False  # a GM of every game in the server (Manage Server, the server's GM role)


@dataclass
class Outcome(Generic[S]):
    state: S
    events: list[Event[Any]]

    @property
    def rolls(self) -> list[RollRecord]:
        return [e.roll for e in self.events if isinstance(e, DieRolled)]

    @property
    def face_rolls(self) -> list[FacesRecord]:
        return [e.roll for e in self.events if isinstance(e, DiceRolled)]


class Tx(Generic[S]):
    """A working copy of the state (or, with `fresh`, the state itself: one nobody else holds, such as one
    just loaded); every event is applied to it the moment it is emitted."""

    def __init__(self, state: S, ctx: Context, fresh: bool = False) -> None:
        self.state: S = state if fresh else copy.deepcopy(state)
        self.ctx = ctx
        self.events: list[Event[Any]] = []

    @property
    def rules(self) -> Rules:
        return self.ctx.rules

    def emit(self, event: Event[Any]) -> None:
        """Apply `event` to the working state and log it (an event of the game's rule set or of every game)."""
        self.state = event.apply(self.state)
        self.events.append(event)

    def roll(
        self,
        purpose: str,
        nation: str | None,
        modifiers: dict[str, int] | None = None,
        target: int | None = None,
        comparison: str | None = ">",
        **where: Any,
    ) -> RollRecord:
        """Roll one numbered die (a GM-entered one first, if queued), total it and judge it against `target`."""
        sides = self.rules.die_sides
        binds = entered_for(self.state)
        index = self.entered_index(binds, nation, purpose)
        forced = index is not None
        die = self.state.forced_dice[index] if index is not None else self.ctx.roller.roll(sides)
        mods = {name: value for name, value in (modifiers or {}).items() if value}
        total = die + sum(mods.values())
        success = None
        if target is not None:
            success = total > target if comparison == ">" else total >= target
        record = RollRecord(
            nation=nation, purpose=purpose, die=die, modifiers=mods, total=total, target=target,
            comparison=comparison if target is not None else None, success=success, forced=forced,
            turn=self.state.turn, at=self.ctx.now, sides=sides, **where,
        )
        self.emit(DieRolled(record, binds[index] if index is not None else ""))
        return record

    def entered_index(self, binds: list[str], subject: str | None, purpose: str) -> int | None:
        """The waiting entered die this roll takes, if any: the first of those kept for it most narrowly (a
        player's or a purpose's before the GM's own, the GM's before anyone's)."""
        eligible = [i for i, bound in enumerate(binds) if self.takes(bound, subject, purpose)]
        return min(eligible, key=lambda i: (_breadth(binds[i]), i), default=None)

    def takes(self, bound: str, subject: str | None, purpose: str) -> bool:
        """Whether a GM-entered die bound `bound` goes to this roll (of `subject`, for `purpose`): the GM's
        dice never go to a roll they were not entered for (a player's, when the GM kept them for their own)."""
        if binding_takes(bound, self.ctx.actor, self.ctx.is_gm, subject, purpose):
            return True
        side_player = getattr(self.state, "side_player", None)  # a rule set whose sides are not its players
        player = side_player(subject) if callable(side_player) and subject else None
        return bool(player) and bound.startswith("player:") and binding_takes(bound, "", False, player, purpose)

    def roll_faces(self, player: str | None, purpose: str, faces: Sequence[str], count: int,
                   die_name: str = "die") -> list[str]:
        """Roll `count` dice with these faces together; GM-entered faces are used first, in order.

        An entered face that this kind of die does not have is refused (and, the transaction being
        dropped, no entered die is used up).
        """
        binds = entered_for(self.state)
        first = self.entered_index(binds, player, purpose)
        bound = binds[first] if first is not None else None
        queue = [d for d, b in zip(self.state.forced_dice, binds, strict=True) if b == bound]
        rolled: list[str] = []
        forced: list[bool] = []
        for index in range(count):
            if index < len(queue):
                face = queue[index]
                if face not in faces:
                    raise RuleViolation(
                        f"the next GM-entered die is {face}, which is not a face of the {die_name} now rolled "
                        f"({' '.join(dict.fromkeys(faces))}): enter the right faces, or /gm dice values:clear"
                    )
                rolled.append(face)
                forced.append(True)
            else:
                rolled.append(faces[self.ctx.roller.roll(len(faces)) - 1])
                forced.append(False)
        record = FacesRecord(player=player, purpose=purpose, faces=rolled, forced=forced,
                             turn=self.state.turn, at=self.ctx.now)
        self.emit(DiceRolled(record, bound or ""))
        return rolled


def _breadth(bound: str) -> int:
    """How many rolls a binding lets take its dice: a player's or a purpose's (0), the GM's (1), anyone's (2)."""
    return 2 if bound == ANYONE else 1 if bound == GM_ONLY else 0


Action = object  # an action: a plain dataclass of its rule set's (or of every game's) that a handler applies
HANDLERS: dict[type, Callable[[Tx[Any], Any], None]] = {}  # each action's handler, for a state of its rule set
ACTION_RULESET: dict[type, str] = {}  # the rule set an action belongs to (shared actions: none)
A = TypeVar("A")
Handler = Callable[[Tx[S], A], None]


def handles(action_type: type[A], ruleset_name: str | None = None,
            ) -> Callable[[Handler[S, A]], Handler[S, A]]:
    """Register the function that applies one kind of action (of one rule set, or of every game)."""

    def register(function: Handler[S, A]) -> Handler[S, A]:
        HANDLERS[action_type] = function
        if ruleset_name is not None:
            ACTION_RULESET[action_type] = ruleset_name
        return function

    return register


TITLES: dict[str, str] = {}
"""Each registered rule set's title by name, for a refusal: the registry fills it (`engine.rulesets.register`)."""


def execute(state: S, action: Action, ctx: Context, fresh: bool = False) -> Outcome[S]:
    """Apply one action: the new state and its events. A refusal raises and changes nothing — unless the
    caller passed a `fresh` state it will throw away on a refusal (it is then changed in place)."""
    handler = HANDLERS.get(type(action))
    if handler is None:
        raise TypeError(f"no handler for {type(action).__name__}")
    owner = ACTION_RULESET.get(type(action))
    if owner is not None and owner != state.ruleset:
        raise RuleViolation(f"that is a {TITLES.get(owner, owner)} command, and this channel's game is "
                            f"{TITLES.get(state.ruleset, state.ruleset)}")
    if state.ended and not getattr(action, "allowed_after_end", False):
        raise NoGame("this game has ended")
    tx = Tx(state, ctx, fresh)
    handler(tx, action)
    return Outcome(tx.state, tx.events)


def require_gm(tx: Tx[S], what: str) -> None:
    """Refuse unless the actor is the GM (any rule set's transaction)."""
    if not tx.ctx.is_gm:
        raise NotGM(f"only the GM may {what}")
