"""What every game's clock shares: deadlines, and the catch-up (`Tick`) that applies what fell due.

`Tick` is what the scheduler and the console run: it applies, in time order, every deadline of the
game that is due by `ctx.now` — the same code whether one deadline passed a second ago or many while
the bot was down. Each rule set says what its deadlines are and how one is applied.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from engine.core import Tx, handles, require_gm
from engine.events import GameEnded
from engine.game import Deadline, GameState
from engine.rulesets import ruleset_of

__all__ = ["Deadline", "EndGame", "Tick", "deadlines", "end_game", "next_deadline", "tick"]


@dataclass
class Tick:
    """Apply whatever fell due up to now."""


@dataclass
class EndGame:
    pass


def deadlines(state: GameState) -> list[Deadline]:
    """Everything that will fall due in this game, earliest first."""
    return ruleset_of(state).deadlines(state)


def next_deadline(state: GameState) -> datetime | None:
    due = deadlines(state)
    return due[0].at if due else None


@handles(Tick)
def tick(tx: Tx[GameState], action: Tick) -> None:
    """Apply each due deadline in time order.

    Each rule set bounds its own catch-up (many missed turns end in one event), and every deadline applied
    must move on: one that would fall due again unchanged is a bug, refused here rather than looped on."""
    rules = ruleset_of(tx.state)
    last: Deadline | None = None
    while True:
        due = [d for d in rules.deadlines(tx.state) if d.at <= tx.ctx.now]
        if not due:
            return
        if due[0] == last:
            raise RuntimeError(f"the {last.what} deadline of {last.at.isoformat()} did not move when applied")
        last = due[0]
        rules.apply_deadline(tx, last)


@handles(EndGame)
def end_game(tx: Tx[GameState], action: EndGame) -> None:
    require_gm(tx, "end the game")
    final = ruleset_of(tx.state).final_standings  # a rule set whose game can be summed up (Nations)
    tx.emit(GameEnded(standings=final(tx.state) if final is not None else {}))
