"""What every rule set's test table checks when it runs an action: one place for it."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from engine.core import Context, Outcome, execute
from engine.dice import ForcedRoller


def execute_checked(state: Any, action: Any, ctx: Context, snap: Callable[[Any], Any]) -> Outcome:
    """`execute`, checking that it left its input state as it was and rolled every die the ForcedRoller held."""
    before = snap(state)
    outcome = execute(state, action, ctx)
    assert snap(state) == before, "execute mutated its input state"
    roller = ctx.roller
    assert isinstance(roller, ForcedRoller)
    assert not roller.queue, f"dice given but not rolled: {list(roller.queue)}"
    return outcome
