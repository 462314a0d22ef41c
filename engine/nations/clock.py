"""The Nations turn clock: what falls due when (turn ends, bonus expiries, battle choices) and how each
deadline is applied; the GM's clock powers. The shared catch-up (`engine.clock.Tick`) runs it."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from engine.clock import (  # noqa: F401  (shared; one import for Nations)
    Deadline,
    EndGame,
    PauseClock,
    ResumeClock,
    Tick,
    next_deadline,
)
from engine.core import Context, Outcome, Tx, require_gm
from engine.errors import BadInput
from engine.events import Event
from engine.house import RulesError
from engine.nations.common import handles, paused_since, turn_summary
from engine.nations.events import (
    BonusExpired,
    ChoiceReminded,
    ClockPaused,
    ClockResumed,
    GameStarted,
    TurnEnded,
    TurnLengthChanged,
)
from engine.nations.rules import MAX_TURN_HOURS, MIN_TURN_HOURS, HouseSettings, check_turn_hours  # noqa: F401
from engine.nations.state import GameState
from engine.nations.war import apply_default, chooser

MAX_SEPARATE_ROLLOVERS = 100
"""A catch-up rolls over (and announces) at most this many missed turns one by one; when more ended before
the next other deadline (or now), they end together in one TurnEnded of that many turns."""


@dataclass
class EndTurn:
    """GM: end the current turn now."""


@dataclass
class SetTurnLength:
    hours: float


def start_game(ctx: Context, turn_hours: float | None = None) -> Outcome[GameState]:
    """A new Nations game, run by `ctx.actor`, turn 1 starting now."""
    house: HouseSettings = ctx.rules.house
    if turn_hours is not None:
        house = house.with_value("turn_hours", _check_hours(turn_hours, "turn_hours"))
    event = GameStarted(gm=ctx.actor, started_at=ctx.now, house=house.as_dict())
    return Outcome(event.apply(None), [event])


def _check_hours(hours: float, what: str = "the turn length") -> float:
    try:
        return check_turn_hours(hours, what)
    except RulesError as err:
        raise BadInput(str(err)) from None


ORDER = {"battle choice": 0, "turn end": 1, "bonus expiry": 2, "choice reminder": 3}
"""Which of the deadlines due at the same moment is applied first."""


def deadlines(state: GameState) -> list[Deadline]:
    """Everything that will fall due in this game, earliest first; nothing while the clock is paused (every
    deadline is held, and moved on by the pause when it resumes)."""
    due = []
    if not state.ended and not state.paused:
        due.append(Deadline(state.turn_ends_at, "turn end"))
        for nation in state.nations.values():
            for bonus in nation.bonuses.values():
                due.append(Deadline(bonus.expires_at, "bonus expiry", nation.name, bonus.kind))
        for battle in state.battles.values():
            if battle.deadline is not None and not battle.over:
                due.append(Deadline(battle.deadline, "battle choice", chooser(battle), battle.id))
                if battle.reminder_at is not None:
                    due.append(Deadline(battle.reminder_at, "choice reminder", chooser(battle), battle.id))
    return sorted(due, key=lambda d: (d.at, ORDER[d.what]))


def apply_deadline(tx: Tx[GameState], due: Deadline) -> None:
    """Apply one due deadline (a rollover starts the next turn at the old deadline)."""
    if due.what == "turn end":
        state = tx.state
        length = _turn_length(state)
        missed = _missed_turns(state, tx.ctx.now)
        if missed <= MAX_SEPARATE_ROLLOVERS:
            missed = 1
        last_start = state.turn_ends_at + length * (missed - 1)
        tx.emit(TurnEnded(state.turn + missed - 1, last_start, last_start + length, "clock", turn_summary(state),
                          turns=missed))
    elif due.what == "battle choice":
        assert isinstance(due.about, int)  # the battle's number
        apply_default(tx, tx.state.battles[due.about])
    elif due.what == "choice reminder":
        assert isinstance(due.about, int) and due.who is not None
        battle = tx.state.battles[due.about]
        assert battle.deadline is not None
        tx.emit(ChoiceReminded(battle.id, battle.stage, due.who, tx.state.nations[due.who].player, battle.deadline,
                               missed=tx.ctx.now >= battle.deadline))
    else:  # a bonus expiry: the nation's (who) bonus of a kind (about)
        assert due.who is not None and isinstance(due.about, str)
        held = tx.state.nations[due.who].bonuses[due.about]
        tx.emit(BonusExpired(due.who, due.about, held.value))


def clock_fields(state: GameState) -> dict[str, Any]:
    """What the log-only rollover reads of a game instead of its snapshot (`RuleSet.clock_fields`): the turn, when
    it ends and its length, whether the clock is held (paused or the game over), the soonest other deadline (a bonus
    expiry, a battle choice or its reminder), and who did what this turn (the next TurnEnded's summary)."""
    others = [due.at for due in deadlines(state) if due.what != "turn end"]
    return {"turn": state.turn, "ends": state.turn_ends_at.isoformat(), "hours": state.turn_hours,
            "held": bool(state.ended or state.paused), "others": min(others).isoformat() if others else None,
            "used": turn_summary(state)}


def quick_catch_up(fields: dict[str, Any], now: datetime
                   ) -> tuple[list[Event[Any]], datetime, dict[str, Any]] | None:
    """The common catch-up — exactly one turn ended and nothing else is due — worked out from a game's clock
    fields (`clock_fields`) alone: the events (the same `TurnEnded` that `Tick` emits), the game's next due time
    and its clock fields after them. None for anything else: then the engine's `Tick` runs on the state. A clock
    rollover of thousands of games is mostly this case; the store appends the events to the log and the snapshot
    catches up on its next load (tests check that both ways give the same state and events)."""
    if fields["held"]:
        return None
    ends = datetime.fromisoformat(fields["ends"])
    new_ends = ends + max(timedelta(hours=fields["hours"]), timedelta(milliseconds=1))
    if not ends <= now < new_ends:
        return None
    soonest = new_ends
    if fields["others"] is not None:
        soonest = min(soonest, datetime.fromisoformat(fields["others"]))
    if soonest <= now:  # a bonus expiry or a battle choice is due too: the engine orders them
        return None
    used: dict[str, list[str]] = fields["used"]
    event = TurnEnded(fields["turn"], ends, new_ends, "clock", used)
    after = {**fields, "turn": event.ended + 1, "ends": new_ends.isoformat(), "used": {name: [] for name in used}}
    return [event], soonest, after


def _turn_length(state: GameState) -> timedelta:
    """The turn's length, never less than a millisecond (a database saved before the bounds may hold 1e-300
    hours, which timedelta rounds to nothing)."""
    return max(timedelta(hours=state.turn_hours), timedelta(milliseconds=1))


def _missed_turns(state: GameState, now: datetime) -> int:
    """How many turn ends are due by `now` before any other deadline falls due (at least 1): the turns a
    catch-up may end at once, each as it would have ended on time."""
    length = _turn_length(state)
    missed = (now - state.turn_ends_at) // length + 1
    others = [d for d in deadlines(state) if d.what != "turn end" and d.at <= now]
    if others:
        first = min(others, key=lambda d: (d.at, ORDER[d.what]))
        # the turn ends before it: earlier, or at the same moment when it is a bonus expiry
        since, rest = divmod(first.at - state.turn_ends_at, length)
        missed = min(missed, since + (1 if rest or ORDER[first.what] > ORDER["turn end"] else 0))
    return max(1, missed)


@handles(EndTurn)
def end_turn(tx: Tx[GameState], action: EndTurn) -> None:
    require_gm(tx, "end the turn")
    state, now = tx.state, tx.ctx.now
    tx.emit(TurnEnded(state.turn, now, now + timedelta(hours=state.turn_hours), "gm", turn_summary(state)))
    if state.paused:
        tx.emit(ClockPaused(state.turn_hours * 3600))


def pause(tx: Tx[GameState]) -> None:
    """/gm clock pause (`engine.clock.PauseClock`): the turn's time left is kept, and every deadline is held."""
    remaining = max(0.0, (tx.state.turn_ends_at - tx.ctx.now).total_seconds())
    tx.emit(ClockPaused(remaining, tx.ctx.now))


def resume(tx: Tx[GameState]) -> None:
    """/gm clock resume (`engine.clock.ResumeClock`): the turn ends after the time it had left, and every other
    deadline moves on by the pause."""
    since = paused_since(tx.state)
    shift = max(0.0, (tx.ctx.now - since).total_seconds()) if since is not None else 0.0
    tx.emit(ClockResumed(tx.ctx.now + timedelta(seconds=tx.state.paused_remaining or 0), shift))


@handles(SetTurnLength)
def set_turn_length(tx: Tx[GameState], action: SetTurnLength) -> None:
    """Change the turn length; the current turn's end moves by the difference (paused time stays counted)."""
    require_gm(tx, "change the turn length")
    hours = _check_hours(action.hours)
    state = tx.state
    shift = timedelta(hours=hours - state.turn_hours)
    remaining = None
    if state.paused:
        remaining = max(0.0, (state.paused_remaining or 0) + shift.total_seconds())
    tx.emit(TurnLengthChanged(hours, state.turn_ends_at + shift, remaining))
