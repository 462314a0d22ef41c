"""Small helpers for Godsfire engine tests: `Table`, a Godsfire game plus its event log, driven with exact dice.

Typical use::

    from godsfirehelpers import Table

    table = Table()                                          # started by the GM "gm": turn 1, Movement
    table.system("Alpha", "alice", ["M 4 A-1", "R 3 I-1"], bank=5, units={"SQD": 1})   # no dice rolled
    table.system("Nix", None, ["R 2 S"])                     # a neutral system
    table.region("Alpha", 2, enemy_units=1)                  # set fields by hand (as /godsfire set does)
    table.player_set("alice", ng_money=3)
    table.to_phase("interphase")                             # /godsfire phase next until there
    table.do(SomeAction(...), "alice", dice=[4])             # as alice, the roller gives exactly these dice
    table.do(SomeAction(...), entered=[6, 1])                # as the GM, with the dice entered by /gm dice
    table.refuse(SomeAction(...), RuleViolation, "Moderate", "alice")   # no die, no change
    table.assert_replays()                                   # replay of the log == the state; export round-trips

`do` runs an action through `engine.core.execute`: `dice` go in a `ForcedRoller` that must be emptied,
`entered` are queued by the GM (`QueueDice`) first and must all be used; the input state must not be
mutated. `refuse` checks the error, its words, that nothing changed and that no die was used.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import UTC, datetime
from typing import Any

import pytest
from enginecheck import execute_checked

import engine.godsfire  # noqa: F401  (registers the rule set)
from data import rules_for
from engine.core import Context, Outcome, Tx, execute
from engine.dice import ForcedRoller
from engine.errors import RefereeError
from engine.events import Event, replay
from engine.gm import QueueDice
from engine.godsfire import movement, phases
from engine.godsfire.events import (
    ChartRead,
    GodsfireStarted,
    PlayerAdded,
    SystemAdded,
    change_game,
    change_player,
    change_region,
    change_system,
    system_to_dict,
)
from engine.godsfire.rules import PARTIES
from engine.godsfire.snapshot import check_state, state_from_dict, state_to_dict
from engine.godsfire.state import PHASES, GodsfireState, Loan, Player, Region, System
from engine.rulesets import ruleset

NOW = datetime(2026, 3, 2, 18, 0, tzinfo=UTC)
GM = "gm"


def snap(state: GodsfireState) -> dict[str, Any]:
    return state_to_dict(state)


def region_of(number: int, spec: str | dict[str, Any] | Region) -> Region:
    """`"M 4 A-1"` (party, allegiance, economy; a fourth word `revolt` puts it in revolt) or a dict of
    Region's fields (without `number`) → the region numbered `number`."""
    if isinstance(spec, Region):
        return spec
    if isinstance(spec, dict):
        return Region(number=number, **spec)
    words = spec.split()
    region = Region(number, words[0].upper(), int(words[1]), words[2].upper())
    if len(words) > 3 and words[3].lower() == "revolt":
        region.revolt = True
    return region


class Table:
    """A Godsfire game under test: `state`, every event since GodsfireStarted in `events`."""

    def __init__(self, players: Iterable[str] = (), gm: str = GM, now: datetime = NOW) -> None:
        self.gm = gm
        self.now = now
        self.rules = rules_for("godsfire")
        started = ruleset("godsfire").start(Context(now, gm, self.rules, is_gm=True, roller=ForcedRoller()), {})
        assert isinstance(started.events[0], GodsfireStarted)
        self.state: GodsfireState = started.state
        self.events: list[Event] = list(started.events)
        for name in players:
            self.player(name)

    # --- running actions -------------------------------------------------------------------------
    def context(self, actor: str | None, dice: Iterable[int] = (), gm: bool | None = None) -> Context:
        actor = self.gm if actor is None else actor
        is_gm = actor == self.gm if gm is None else gm
        return Context(self.now, actor, self.rules, is_gm=is_gm, roller=ForcedRoller(dice))

    def enter(self, values: Sequence[int]) -> Outcome:
        """The GM enters the next dice by hand (`/gm dice`)."""
        return self.do(QueueDice(list(values)))

    def do(self, action: Any, actor: str | None = None, dice: Iterable[int] = (),
           entered: Sequence[int] | None = None, gm: bool | None = None) -> Outcome:
        """Run `action` as `actor` (default: the GM). `entered` dice are queued by the GM first and must all
        be used; `dice` (the roller's) must all be rolled. Keeps the new state and events."""
        if entered is not None:
            self.enter(entered)
        dice = list(dice)
        ctx = self.context(actor, dice, gm)
        outcome = execute_checked(self.state, action, ctx, snap)
        if entered is not None:
            assert not outcome.state.forced_dice, f"entered dice not used: {outcome.state.forced_dice}"
        self.state = outcome.state
        self.events.extend(outcome.events)
        return outcome

    def refuse(self, action: Any, error: type[RefereeError] = RefereeError, match: str | None = None,
               actor: str | None = None, gm: bool | None = None) -> RefereeError:
        """Assert `action` is refused with `error` (its message containing `match`), changing nothing and
        rolling no die."""
        queued = list(self.state.forced_dice)
        ctx = self.context(actor, [1, 2, 3, 4, 5, 6] * 3, gm)
        before = snap(self.state)
        with pytest.raises(error) as info:
            execute(self.state, action, ctx)
        if match is not None:
            assert match in str(info.value), f"{match!r} not in {str(info.value)!r}"
        roller = ctx.roller
        assert isinstance(roller, ForcedRoller) and roller.used == 0 and len(roller.queue) == 18
        assert snap(self.state) == before
        assert self.state.forced_dice == queued
        return info.value

    def emit(self, build: Any) -> list[Event]:
        """Run `build(tx)` (which emits events) as the GM outside any action; keeps state and events.
        For setting a game up by hand in tests: what it emits is logged and replays like any event."""
        tx = Tx(self.state, self.context(None))
        build(tx)
        self.state = tx.state
        self.events.extend(tx.events)
        return tx.events

    # --- setting up without dice -----------------------------------------------------------------
    def player(self, name: str, government: str | None = None, **fields: Any) -> Player:
        """Add a player (national allegiances at the house start level) unless already there; `fields` set."""
        if self.state.find_player(name) is None:
            level = int(self.state.house.national_allegiance_start)
            self.emit(lambda tx: tx.emit(PlayerAdded(name, {p: level for p in PARTIES}, None)))
        if government is not None:
            fields["government"] = government
        if fields:
            self.player_set(name, **fields)
        return self.state.player(name)

    def system(self, name: str, owner: str | None, regions: Sequence[str | dict[str, Any] | Region] = ("M 4 A-1",),
               planets: int = 1, bank: int = 0, units: dict[str, int] | None = None, enemy_units: int = 0,
               loans: Sequence[tuple[int, int]] = (), government: bool | None = None) -> System:
        """Add a system with chosen regions (no dice). A new owner joins first; the owner's National
        Government goes on its first system unless `government=False` (`True`: on this one)."""
        if owner is not None and self.state.find_player(owner) is None:
            self.player(owner)
        system = System(name, owner, planets=planets, bank=bank, units=dict(units or {}), enemy_units=enemy_units,
                        regions=[region_of(i, spec) for i, spec in enumerate(regions, start=1)],
                        loans=[Loan(amount, box) for amount, box in loans])
        self.emit(lambda tx: tx.emit(SystemAdded(system_to_dict(system))))
        if owner is not None and government is not False:
            current = self.state.player(owner).government
            if government or current is None:
                self.player_set(owner, government=name)
        return self.state.system(name)

    def region(self, system: str, number: int, **fields: Any) -> Region:
        """Set fields of a region by hand (a logged RegionChanged)."""
        self.emit(lambda tx: change_region(tx, system, number, "set by the test", **fields))
        return self.state.system(system).region(number)

    def system_set(self, system: str, **fields: Any) -> System:
        """Set fields of a system by hand (loans as [{"amount", "box"}])."""
        self.emit(lambda tx: change_system(tx, system, "set by the test", **fields))
        return self.state.system(system)

    def player_set(self, player: str, **fields: Any) -> Player:
        self.emit(lambda tx: change_player(tx, player, "set by the test", **fields))
        return self.state.player(player)

    def game_set(self, **fields: Any) -> GodsfireState:
        """Set fields of the game (wars, order…) by hand."""
        self.emit(lambda tx: change_game(tx, "set by the test", **fields))
        return self.state

    def next_phase(self, dice: Iterable[int] | None = None) -> Outcome:
        """Step to the next phase as the GM. A step that rolls the turn's player order (into the interphase
        of a turn without one, out of it into the next turn) is given, unless `dice` says otherwise, the dice
        6, 5, 4… in joining order: the order stays the players' joining order."""
        if self.state.phase == "movement" and dice is None:
            self.pass_movement()
        if dice is None:
            state = self.state
            active = [p for p in state.players if not p.out]
            rolls = (state.phase == "war" and not state.order) or state.phase == "interphase"
            dice = list(range(6, 6 - len(active), -1)) if rolls and len(active) > 1 else []
        return self.do(phases.NextPhase(), dice=dice)

    def pass_movement(self) -> None:
        """Play out the Movement Phase's initiative with every go a pass (turn 1's started first, its order the
        joining order)."""
        state = self.state
        active = [p for p in state.players if not p.out]
        if not state.order and state.initiative is None and active:
            self.do(movement.StartInitiative(), dice=list(range(6, 6 - len(active), -1)) if len(active) > 1 else [])
        while self.state.initiative is not None and self.state.transit is None:
            self.do(movement.EndGo(True, self.state.initiative.awaiting))

    def to_phase(self, phase: str, turn: int | None = None) -> None:
        """Step the phases (as the GM) until `phase` of `turn` (default: this turn, or the next if past it)."""
        assert phase in PHASES
        for _ in range(4 * 50):
            if self.state.phase == phase and (turn is None or self.state.turn == turn):
                return
            while self.state.initiative is not None:  # every go at initiative passed, by the GM
                self.do(movement.EndGo(True, self.state.initiative.awaiting))
            self.next_phase()
        raise AssertionError(f"never reached {phase} of turn {turn}")

    # --- looking ---------------------------------------------------------------------------------
    def sys(self, name: str) -> System:
        return self.state.system(name)

    def reg(self, system: str, number: int) -> Region:
        return self.state.system(system).region(number)

    def of(self, outcome: Outcome, kind: type) -> list[Any]:
        return [e for e in outcome.events if isinstance(e, kind)]

    def all_of(self, kind: type) -> list[Any]:
        return [e for e in self.events if isinstance(e, kind)]

    def chart(self, outcome: Outcome) -> ChartRead:
        """The one ChartRead an outcome emitted."""
        found = self.of(outcome, ChartRead)
        assert len(found) == 1, found
        return found[0]

    def replayed(self) -> GodsfireState:
        return replay(self.events)

    def assert_replays(self) -> None:
        """The replay of every event so far is the current state, the export round-trips, and the state
        breaks no rule `check_state` knows."""
        assert snap(self.replayed()) == snap(self.state)
        assert snap(state_from_dict(snap(self.state))) == snap(self.state)
        assert check_state(self.state, self.rules) == []
