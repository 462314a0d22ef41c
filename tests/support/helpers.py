"""Small helpers for engine tests: a fixed clock, the rules, and `Game`, a state plus its event log.

Typical use::

    from helpers import Game, hours

    game = Game()                                   # turn 1 starts at NOW, GM "gm", 12-hour turns
    game.do(ClaimPreset("Gracchan Republic"), actor="alice")
    out = game.do(GrowEconomy(), actor="alice", dice=[9])   # the roll uses exactly these dice
    assert out.rolls[0].total == 10
    game.refuse(GrowEconomy(), RuleViolation, "no doubling up", actor="alice")  # no die, no change
    game.advance(hours=12)
    game.tick()                                     # turn 2
    game.assert_replays()                           # replay(all events) == the current state

`Game.do` runs an action through `engine.core.execute` with a `ForcedRoller` holding `dice`, and checks
that every die given was used and that the input state was not mutated. `Game.refuse` checks that an
action raises, that it rolled no die (an empty `ForcedRoller`) and that it changed nothing.
`Game.nation_with(...)` builds a nation with any stats and army through GM actions (CreateNation, SetStat,
AddUnit), so tests can start from exact numbers.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from enginecheck import execute_checked

from data import rules_for
from engine.clock import Tick
from engine.core import Context, Outcome, execute
from engine.dice import ForcedRoller
from engine.errors import RefereeError
from engine.events import Event, replay
from engine.nations.clock import start_game
from engine.nations.gm import AddUnit, AssignNation, SetStat
from engine.nations.peace import CreateNation
from engine.nations.rules import Rules
from engine.nations.snapshot import state_to_dict
from engine.nations.state import GameState, Nation

NOW = datetime(2026, 1, 5, 12, 0, tzinfo=UTC)
"""The fixed moment every `Game` starts at (a tz-aware UTC datetime)."""

GM = "gm"
"""The default GM's name."""


def rules() -> Rules:
    """The Nations rules from data/nations.toml (cached by `data.rules_for`)."""
    return rules_for("nations")


def hours(h: float) -> timedelta:
    return timedelta(hours=h)


def snap(state: GameState) -> dict[str, Any]:
    """A state as a plain dict (the export format), for equality checks."""
    return state_to_dict(state)


class Game:
    """A game under test: `state`, every event since GameStarted in `events`, and a movable clock `now`."""

    def __init__(self, gm: str = GM, turn_hours: float | None = None, now: datetime = NOW) -> None:
        self.started = now
        self.now = now
        self.rules = rules()
        started = start_game(Context(now, gm, self.rules, is_gm=True), turn_hours)
        self.state: GameState = started.state
        self.events: list[Event] = list(started.events)

    # --- time ------------------------------------------------------------------------------------
    def advance(self, hours: float = 0, minutes: float = 0, seconds: float = 0) -> datetime:
        """Move the clock forward (nothing falls due until `tick`); returns the new `now`."""
        self.now += timedelta(hours=hours, minutes=minutes, seconds=seconds)
        return self.now

    def at(self, offset: timedelta) -> datetime:
        """The moment `offset` after the game started."""
        return self.started + offset

    # --- actions ---------------------------------------------------------------------------------
    def context(self, actor: str | None = None, dice: Iterable[int] = (), gm: bool | None = None) -> Context:
        actor = self.state.gm if actor is None else actor
        is_gm = actor == self.state.gm if gm is None else gm
        return Context(now=self.now, actor=actor, rules=self.rules, is_gm=is_gm, roller=ForcedRoller(dice))

    def do(self, action: Any, actor: str | None = None, dice: Iterable[int] = (), gm: bool | None = None) -> Outcome:
        """Run `action` as `actor` (default: the GM) with exactly `dice`; keep the new state and events.

        `gm` says whether the actor has GM rights (default: actor == the game's GM).
        """
        dice = list(dice)
        ctx = self.context(actor, dice, gm)
        outcome = execute_checked(self.state, action, ctx, snap)
        self.state = outcome.state
        self.events.extend(outcome.events)
        return outcome

    def refuse(
        self,
        action: Any,
        error: type[RefereeError] = RefereeError,
        match: str | None = None,
        actor: str | None = None,
        gm: bool | None = None,
    ) -> RefereeError:
        """Assert `action` is refused with `error` (message matching the regex `match`), before any die
        is rolled (an empty ForcedRoller) and without changing the state. Returns the exception."""
        ctx = self.context(actor, (), gm)
        before = snap(self.state)
        with pytest.raises(error, match=match) as info:
            execute(self.state, action, ctx)
        roller = ctx.roller
        assert isinstance(roller, ForcedRoller) and roller.used == 0
        assert snap(self.state) == before
        return info.value

    def tick(self) -> Outcome:
        """Apply whatever fell due by `now` (turn rollovers, bonus expiries)."""
        return self.do(Tick())

    # --- looking ---------------------------------------------------------------------------------
    def nation(self, name: str) -> Nation:
        found = self.state.find_nation(name)
        assert found is not None, f"no nation {name!r}"
        return found

    def replayed(self) -> GameState:
        return replay(self.events)

    def assert_replays(self) -> None:
        """The state equals the replay of every event so far."""
        assert snap(self.replayed()) == snap(self.state)

    # --- setting up ------------------------------------------------------------------------------
    def nation_with(
        self,
        name: str,
        player: str | None,
        *,
        economy: int = 10,
        military: int = 10,
        land: int = 20,
        stability: int = 10,
        propaganda: int = 10,
        strength: str = "infantry",
        weakness: str = "fighter",
        units: dict[str, int] | None = None,
    ) -> Nation:
        """A nation with exactly these stats and GREEN units (added by the GM in the order given).

        Built as CreateNation(E=20, M=0, no units) followed by GM SetStat/AddUnit, so it bypasses the
        new-nation pattern and the quarter rule. `player` None leaves the nation unassigned.
        """
        assert economy + military <= land, "E + M must fit the land"
        owner = player or f"_setup_{name}"
        self.do(CreateNation(name, 20, 0, strength, weakness, {}, player=owner))
        steps: list[tuple[str, int]] = []
        if land > 20:
            steps += [("land", land), ("economy", economy)]
        else:
            steps += [("economy", economy), ("land", land)]
        steps += [("military", military), ("stability", stability), ("propaganda", propaganda)]
        for stat, value in steps:
            if self.nation(name).stat(stat) != value:
                self.do(SetStat(name, stat, value))
        for unit_type, count in (units or {}).items():
            for _ in range(count):
                self.do(AddUnit(name, unit_type))
        if player is None:
            self.do(AssignNation(name, None))
        return self.nation(name)
