"""How an action runs: the context it runs in, the transaction that emits its events, and dispatch."""

from __future__ import annotations

import copy
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, TypeVar

from engine.dice import RandomRoller, Roller
from engine.errors import NoGame, NotGM, NotYourNation, RuleViolation, UnknownNation
from engine.events import DieRolled, Event, NationEliminated, Notice, StatChanged
from engine.rules import ACTION_KINDS, Rules
from engine.state import GameState, Nation, RollRecord


@dataclass
class Context:
    """Who acts, when, with which dice and rules. `is_gm` is decided by the front-end's permissions."""

    now: datetime
    actor: str
    rules: Rules
    is_gm: bool = False
    roller: Roller = field(default_factory=RandomRoller)


@dataclass
class Outcome:
    state: GameState
    events: list[Event]

    @property
    def rolls(self) -> list[RollRecord]:
        return [e.roll for e in self.events if isinstance(e, DieRolled)]


class Tx:
    """A working copy of the state; every event is applied to it the moment it is emitted."""

    def __init__(self, state: GameState, ctx: Context) -> None:
        self.state = copy.deepcopy(state)
        self.ctx = ctx
        self.events: list[Event] = []

    @property
    def rules(self) -> Rules:
        return self.ctx.rules

    def emit(self, event: Event) -> None:
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
        """Roll one die (a GM-entered one first, if queued), total it and judge it against `target`."""
        sides = self.rules.die_sides
        forced = bool(self.state.forced_dice)
        die = self.state.forced_dice[0] if forced else self.ctx.roller.roll(sides)
        mods = {name: value for name, value in (modifiers or {}).items() if value}
        total = die + sum(mods.values())
        success = None
        if target is not None:
            success = total > target if comparison == ">" else total >= target
        record = RollRecord(
            nation=nation, purpose=purpose, die=die, modifiers=mods, total=total, target=target,
            comparison=comparison if target is not None else None, success=success, forced=forced,
            turn=self.state.turn, at=self.ctx.now, **where,
        )
        self.emit(DieRolled(record))
        return record

    # --- shared rule helpers -------------------------------------------------------------------

    def change_stat(self, nation: Nation, stat: str, delta: int, reason: str, by: str | None = None) -> int:
        """Change a stat by `delta`, never below 0; returns the change actually made."""
        current = getattr(nation, stat)
        applied = max(-current, delta)
        if applied:
            self.emit(StatChanged(nation.name, stat, applied, reason, by))
        return applied

    def change_land(self, nation: Nation, delta: int, reason: str, by: str | None = None) -> None:
        """Gain or lose land; a loss cuts E and M to fit, and 0 land eliminates the nation."""
        self.change_stat(nation, "land", delta, reason, by)
        if self.cut_to_land(nation, reason):
            self.notice_if_over_cap(nation)
        if nation.land == 0 and not nation.eliminated:
            self.emit(NationEliminated(nation.name, f"no land left ({reason})"))

    def cut_to_land(self, nation: Nation, reason: str) -> bool:
        """Cut E and M to fit the land, one point at a time from the larger (ruling: M on a tie).

        True if MILITARY was cut.
        """
        tie = self.state.house.land_cut_tie
        cut = {"economy": 0, "military": 0}
        economy, military = nation.economy, nation.military
        while economy + military > nation.land:
            if military > economy or (military == economy and tie == "military"):
                military -= 1
                cut["military"] += 1
            else:
                economy -= 1
                cut["economy"] += 1
        for stat, points in cut.items():
            if points:
                self.change_stat(nation, stat, -points, f"cut to fit land ({reason})")
        return cut["military"] > 0

    def notice_if_over_cap(self, nation: Nation) -> None:
        """Tell the players when an army costs more MP than its nation's MILITARY (it keeps its units)."""
        mp = army_mp(self.rules, nation)
        if mp > nation.military and not nation.eliminated:
            self.emit(Notice(
                f"{nation.name}'s army costs {mp} MP against M {nation.military}: over its MP cap. It keeps its "
                "units but cannot recruit until it fits; its player may disband units.",
                nation=nation.name,
            ))


Action = Any
Handler = Callable[[Tx, Any], None]
HANDLERS: dict[type, Handler] = {}
A = TypeVar("A")


def handles(action_type: type[A]) -> Callable[[Callable[[Tx, A], None]], Callable[[Tx, A], None]]:
    """Register the function that applies one kind of action."""

    def register(function: Callable[[Tx, A], None]) -> Callable[[Tx, A], None]:
        HANDLERS[action_type] = function
        return function

    return register


def execute(state: GameState, action: Action, ctx: Context) -> Outcome:
    """Apply one action: the new state and its events. A refusal raises and changes nothing."""
    handler = HANDLERS.get(type(action))
    if handler is None:
        raise TypeError(f"no handler for {type(action).__name__}")
    if state.ended and not getattr(action, "allowed_after_end", False):
        raise NoGame("this game has ended")
    tx = Tx(state, ctx)
    handler(tx, action)
    return Outcome(tx.state, tx.events)


# --- checks shared by the action modules ---------------------------------------------------------


def require_gm(tx: Tx, what: str) -> None:
    if not tx.ctx.is_gm:
        raise NotGM(f"only the GM may {what}")


def find_nation(state: GameState, name: str) -> Nation:
    nation = state.find_nation(name)
    if nation is None:
        known = ", ".join(state.nations) or "none yet"
        raise UnknownNation(f"no nation called {name!r} in this game (nations: {known})")
    return nation


def viewed_nation(state: GameState, actor: str, name: str | None) -> Nation:
    """The nation a query is about: the named one, or the actor's own."""
    if name:
        return find_nation(state, name)
    nation = state.nation_of(actor)
    if nation is None:
        raise UnknownNation("you have no nation in this game: name one")
    return nation


def acting_nation(tx: Tx, name: str | None) -> Nation:
    """The nation an action is for: the named one (its player or the GM only) or the actor's own."""
    if name:
        nation = find_nation(tx.state, name)
        if not tx.ctx.is_gm and (nation.player or "").lower() != tx.ctx.actor.lower():
            raise NotYourNation(f"{nation.name} is not your nation")
    else:
        found = tx.state.nation_of(tx.ctx.actor)
        if found is None:
            raise RuleViolation("you have no nation in this game: claim one with /nation claim or /nation create")
        nation = found
    if nation.eliminated:
        raise RuleViolation(f"{nation.name} has been eliminated")
    return nation


def rival(tx: Tx, nation: Nation, name: str, verb: str) -> Nation:
    """The nation an attack of `nation` aims at: another nation still in the game."""
    target = find_nation(tx.state, name)
    if target.name == nation.name:
        raise RuleViolation(f"a nation cannot {verb} itself")
    if target.eliminated:
        raise RuleViolation(f"{target.name} has been eliminated")
    return target


def army_mp(rules: Rules, nation: Nation) -> int:
    """What the nation's units cost in MP, with its STRENGTH/WEAKNESS changes."""
    return sum(rules.profile(u.type, nation.strength, nation.weakness).mp for u in nation.units.values())


def type_mp(rules: Rules, nation: Nation, unit_type: str) -> int:
    mp = rules.profile(unit_type, nation.strength, nation.weakness).mp
    return mp * sum(1 for u in nation.units.values() if u.type == unit_type)


def turn_summary(state: GameState) -> dict[str, list[str]]:
    """Who did what this turn: each nation in play and the kinds of action it used."""
    return {n.name: list(n.actions_used) for n in state.nations.values() if not n.eliminated}


def actions_left(state: GameState, nation: Nation) -> int:
    allowed = state.house.actions_per_turn + nation.extra_actions
    return max(0, min(allowed - len(nation.actions_used), len(ACTION_KINDS) - len(set(nation.actions_used))))
