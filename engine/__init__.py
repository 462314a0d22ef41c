"""The referee's rules engine: plain Python, no Discord, database or clock.

The shared core — what every game uses:
- `core`: the context an action runs in, the transaction (`Tx`) that emits events, and dispatch;
- `events`: the event base, the shared events (dice, house settings, import, end, undo), replay;
- `dice`: the one injectable roller and the roll ledger's records;
- `clock`: deadlines and the catch-up (`Tick`); `gm`: entered dice and house settings;
- `rulesets`: the registry the referee, store and clock dispatch on, and `GameState`, what every rule set's state
  offers them; `house`: house settings;
- `vocabulary` and `commands`: commands → actions; `describe`: words; `errors`: refusals;
- `names`: one normal form for player-given names; `schema`: what every import is checked against.

One package per rule set, none importing another: `nations`, `goddice`, `godsfire`. Importing this package
registers every rule set and every action's handler.
"""

from engine import (  # noqa: F401  (registers the shared actions' handlers and every rule set)
    clock,
    gm,
    goddice,
    godsfire,
    nations,
)
