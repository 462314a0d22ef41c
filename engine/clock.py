"""What every game's clock shares: deadlines, and the catch-up (`Tick`) that applies what fell due.

`Tick` is what the scheduler and the console run: it applies, in time order, every deadline of the
game that is due by `ctx.now` — the same code whether one deadline passed a second ago or many while
the bot was down. Each rule set says what its deadlines are and how one is applied.

A paused game (/gm clock pause) holds every deadline: nothing falls due until /gm clock resume, which moves
each deadline on by the pause, so that each has the time it had left. Each rule set says how (`RuleSet.pause`).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from engine.core import Tx, handles, require_gm
from engine.errors import RuleViolation
from engine.events import GameEnded
from engine.game import Deadline, GameState
from engine.rulesets import ruleset_of

__all__ = ["Deadline", "EndGame", "PauseClock", "ResumeClock", "Tick", "deadlines", "end_game", "next_deadline",
           "paused_since", "tick"]


@dataclass
class Tick:
    """Apply whatever fell due up to now."""


@dataclass
class EndGame:
    pass


@dataclass
class PauseClock:
    """GM: hold every deadline of the game until the clock resumes."""


@dataclass
class ResumeClock:
    """GM: run the clock again; every deadline moves on by the pause."""


def paused_since(state: GameState) -> datetime | None:
    """When the game's clock was paused (None: it runs)."""
    return ruleset_of(state).paused_since(state)


def deadlines(state: GameState) -> list[Deadline]:
    """Everything that will fall due in this game, earliest first (nothing while its clock is paused)."""
    rules = ruleset_of(state)
    return [] if rules.paused_since(state) is not None else rules.deadlines(state)


def next_deadline(state: GameState) -> datetime | None:
    due = deadlines(state)
    return due[0].at if due else None


@handles(Tick)
def tick(tx: Tx[GameState], action: Tick) -> None:
    """Apply each due deadline in time order.

    Each rule set bounds its own catch-up (many missed turns end in one event), and every deadline applied
    must move on: one that would fall due again unchanged is a bug, refused here rather than looped on."""
    rules = ruleset_of(tx.state)
    if rules.paused_since(tx.state) is not None:
        return  # a paused clock holds every deadline
    last: Deadline | None = None
    while True:
        due = [d for d in rules.deadlines(tx.state) if d.at <= tx.ctx.now]
        if not due:
            return
        if due[0] == last:
            raise RuntimeError(f"the {last.what} deadline of {last.at.isoformat()} did not move when applied")
        last = due[0]
        rules.apply_deadline(tx, last)


@handles(PauseClock)
def pause_clock(tx: Tx[GameState], action: PauseClock) -> None:
    require_gm(tx, "pause the clock")
    rules = ruleset_of(tx.state)
    if rules.pause is None:
        raise RuleViolation(f"a {rules.title} game has no clock to pause")
    if rules.paused_since(tx.state) is not None:
        raise RuleViolation("the clock is already paused")
    rules.pause(tx)


@handles(ResumeClock)
def resume_clock(tx: Tx[GameState], action: ResumeClock) -> None:
    require_gm(tx, "resume the clock")
    rules = ruleset_of(tx.state)
    if rules.resume is None:
        raise RuleViolation(f"a {rules.title} game has no clock to resume")
    if rules.paused_since(tx.state) is None:
        raise RuleViolation("the clock is not paused")
    rules.resume(tx)


@handles(EndGame)
def end_game(tx: Tx[GameState], action: EndGame) -> None:
    require_gm(tx, "end the game")
    final = ruleset_of(tx.state).final_standings  # a rule set whose game can be summed up (Nations)
    tx.emit(GameEnded(standings=final(tx.state) if final is not None else {}))
