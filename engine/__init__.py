"""The referee's rules engine: plain Python, no Discord, database or clock.

State is typed dataclasses (`engine.state`); `engine.core.execute(state, action, ctx)` applies one
action and returns the new state and the events that produced it; `engine.events.replay` rebuilds a
state from its events. Dice come in through one injectable roller (`engine.dice`). The action types
live in `engine.nations`, `engine.clock` and `engine.gm`; importing this package registers them all.
"""

from engine import clock, gm, nations, war  # noqa: F401  (registers every action's handler)
