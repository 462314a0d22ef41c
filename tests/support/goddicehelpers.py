"""Small helpers for God Dice engine tests: `Table`, a God Dice game plus its event log, driven with exact dice.

Typical use::

    from goddicehelpers import Table

    table = Table(["alice", "bob"])                 # started by the GM "gm", both seated, in seat order
    table.rolloff("alice")                          # /goddice begin: alice rolls the most YELLOW
    table.choose("alice", "attack")                 # alice attacks first, bob selects first
    table.draft({"alice": ["hero", ...], "bob": ["monk", ...]})   # picks in draft order
    table.do(Declare("hero"), "alice")
    table.do(Defend("monk"), "bob", faces="S A")    # the GM enters the God dice, then bob defends
    table.do(Roll(), "alice", dice=[1, 1, 3, 5, 5])  # or a ForcedRoller: 1..6 = B R Y O 5 5 / H C M B S A
    table.refuse(Roll("red"), RuleViolation, "each type once", "alice")   # no die, no change
    table.assert_replays()

`Table.do` runs an action through `engine.core.execute`: `faces` are entered by the GM (`QueueDice`) just
before it and must all be used by it, `dice` go in a `ForcedRoller` that must be emptied; the input state
must not be mutated. `Table.refuse` checks that an action raises the given error with a message containing
the given words, that it changed nothing (the export dict equal before and after, queued faces included)
and that it used no die of the roller nor of the queued faces (given `faces`, they are queued first and
stay queued for the next action).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from enginecheck import execute_checked

import engine.goddice  # noqa: F401  (registers the rule set)
from data import rules_for
from engine.clock import Tick
from engine.core import Context, Outcome, execute
from engine.dice import ForcedRoller
from engine.errors import RefereeError
from engine.events import Event, replay
from engine.gm import QueueDice
from engine.goddice import actions, common
from engine.goddice.events import GoddiceStarted
from engine.goddice.snapshot import state_from_dict, state_to_dict
from engine.goddice.state import Character, GoddiceState, Player
from engine.rulesets import ruleset

NOW = datetime(2026, 3, 2, 18, 0, tzinfo=UTC)
GM = "gm"
ATTACK_VALUE = {"B": 1, "R": 2, "Y": 3, "O": 4, "5": 5}  # ForcedRoller values of the attack dice's faces
GOD_VALUE = {"H": 1, "C": 2, "M": 3, "B": 4, "S": 5, "A": 6}  # … and of the God dice's faces


def faces(text: str | Sequence[str]) -> list[str]:
    """`"B B 5"` → ["B", "B", "5"]; a list is returned as a list."""
    return text.split() if isinstance(text, str) else list(text)


def attack_values(text: str | Sequence[str]) -> list[int]:
    """ForcedRoller values that roll these attack-dice faces (`"B R 5"` → [1, 2, 5])."""
    return [ATTACK_VALUE[f] for f in faces(text)]


def god_values(text: str | Sequence[str]) -> list[int]:
    """ForcedRoller values that roll these God-dice faces (`"H H"` → [1, 1])."""
    return [GOD_VALUE[f] for f in faces(text)]


def snap(state: GoddiceState) -> dict[str, Any]:
    return state_to_dict(state)


class Table:
    """A God Dice game under test: `state`, every event since GoddiceStarted in `events`, a clock `now`."""

    def __init__(self, players: Iterable[str] = ("alice", "bob"), options: str | None = None,
                 gm: str = GM, now: datetime = NOW) -> None:
        self.gm = gm
        self.now = now
        self.rules = rules_for("goddice")
        started = ruleset("goddice").start(Context(now, gm, self.rules, is_gm=True, roller=ForcedRoller()),
                                           {"options": options})
        assert isinstance(started.events[0], GoddiceStarted)
        self.state: GoddiceState = started.state
        self.events: list[Event] = list(started.events)
        for name in players:
            self.do(actions.Join(), name)

    # --- running actions -------------------------------------------------------------------------
    def context(self, actor: str | None, dice: Iterable[int] = (), gm: bool | None = None) -> Context:
        actor = self.gm if actor is None else actor
        is_gm = actor == self.gm if gm is None else gm
        return Context(self.now, actor, self.rules, is_gm=is_gm, roller=ForcedRoller(dice))

    def enter(self, entered: str | Sequence[str]) -> Outcome:
        """The GM enters the next dice by hand (faces such as B, 5, H)."""
        return self.do(QueueDice(faces(entered)))

    def do(self, action: Any, actor: str | None = None, dice: Iterable[int] = (),
           faces: str | Sequence[str] | None = None, gm: bool | None = None) -> Outcome:
        """Run `action` as `actor` (default: the GM); `faces` are entered by the GM first and must all be
        used, `dice` (ForcedRoller values) must all be rolled. Keeps the new state and events."""
        if faces is not None:
            self.enter(faces)
        dice = list(dice)
        ctx = self.context(actor, dice, gm)
        outcome = execute_checked(self.state, action, ctx, snap)
        if faces is not None:
            assert not outcome.state.forced_dice, f"entered faces not used: {outcome.state.forced_dice}"
        self.state = outcome.state
        self.events.extend(outcome.events)
        return outcome

    def refuse(self, action: Any, error: type[RefereeError] = RefereeError, match: str | None = None,
               actor: str | None = None, faces: str | Sequence[str] | None = None,
               gm: bool | None = None) -> RefereeError:
        """Assert `action` is refused with `error` (its message containing `match`), changing nothing and
        using no die: neither the roller's nor the GM-entered `faces` (queued first, left queued)."""
        if faces is not None:
            self.enter(faces)
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

    # --- time ------------------------------------------------------------------------------------
    def advance(self, hours: float = 0, minutes: float = 0) -> datetime:
        self.now += timedelta(hours=hours, minutes=minutes)
        return self.now

    def tick(self) -> Outcome:
        return self.do(Tick())

    # --- setting up ------------------------------------------------------------------------------
    def rolloff(self, winner: str, rounds: Sequence[dict[str, int]] | None = None) -> Outcome:
        """`/goddice begin` with entered dice: `winner` alone rolls one YELLOW (the others none), or each
        round of `rounds` gives the YELLOWs of each contender, in seat order."""
        if rounds is None:
            rounds = [{p.name: int(p.name == winner) for p in self.state.players}]
        entered: list[str] = []
        for yellows in rounds:
            for count in yellows.values():  # in seat order
                entered += ["Y"] * count + ["B"] * (self.rules.cards.attack_count - count)
        outcome = self.do(actions.Begin(), faces=entered)
        assert self.state.chooser == winner
        return outcome

    def choose(self, player: str, choice: str) -> Outcome:
        return self.do(actions.ChooseFirst(choice), player)

    def draft(self, picks: dict[str, Sequence[str]]) -> list[str]:
        """Everyone picks in draft order, each from their own list; returns who picked, in order."""
        left = {name: list(cards) for name, cards in picks.items()}
        order = []
        while self.state.picks:
            name = self.state.picks[0]
            self.do(actions.Pick(left[name].pop(0)), name)
            order.append(name)
        assert all(not cards for cards in left.values()), f"picks left over: {left}"
        return order

    def setup(self, picks: dict[str, Sequence[str]], winner: str | None = None, choice: str = "attack") -> None:
        """The roll-off (won by `winner`, default the first seat), the choice and the whole draft."""
        winner = winner or self.state.players[0].name
        self.rolloff(winner)
        self.choose(winner, choice)
        self.draft(picks)

    def attack_turn(self, player: str, attacker: str, defender: str, god: str = "", opening: str = "",
                    target: str | None = None) -> None:
        """Declare, defend with the God dice `god` entered, then (with `opening`) the opening roll."""
        self.do(actions.Declare(attacker, target), player)
        defending = self.state.current.defender_player if self.state.current else None
        assert defending is not None
        self.do(actions.Defend(defender), defending, faces=god or None)
        if opening:
            self.do(actions.Roll(), player, faces=opening)

    # --- looking ---------------------------------------------------------------------------------
    def player(self, name: str) -> Player:
        found = self.state.player(name)
        assert found is not None, f"no player {name!r}"
        return found

    def char(self, player: str, which: str) -> Character:
        """A character by label (`monk`, `hero 2`), living or dead."""
        return common.find_character(self.state, self.player(player), which, living=None)

    def life(self, player: str, which: str) -> int:
        return self.char(player, which).life

    def lives(self, player: str) -> dict[str, int]:
        """`{"Hero": 75, "Monk 1": 55, …}` by label."""
        owner = self.player(player)
        return {common.label(owner, c, self.state.cards): c.life for c in owner.characters}

    def legal(self) -> list[tuple[str, int]]:
        return [(option.attack.id, option.damage) for option in common.legal_attacks(self.state)]

    def dice(self) -> list[str]:
        assert self.state.current is not None
        return list(self.state.current.dice)

    def of(self, outcome: Outcome, kind: type) -> list[Any]:
        return [e for e in outcome.events if isinstance(e, kind)]

    def all_of(self, kind: type) -> list[Any]:
        return [e for e in self.events if isinstance(e, kind)]

    def replayed(self) -> GoddiceState:
        return replay(self.events)

    def assert_replays(self) -> None:
        """The replay of every event so far is the current state, and the export round-trips."""
        assert snap(self.replayed()) == snap(self.state)
        assert snap(state_from_dict(snap(self.state))) == snap(self.state)


async def drafted(referee: Any, channel: str = "chan", bobs_last: str = "hero") -> int:
    """A two-player God Dice game through a `Referee`, drafted; alice attacks first with Hero, Cleric, Bowman, Sage;
    bob has Monk, Sage, Assassin and `bobs_last`."""
    await referee.start_game(channel, "gm", ruleset_name="goddice")
    for player in ("alice", "bob"):
        await referee.act(channel, player, actions.Join(), "/goddice join")
    await referee.act(channel, "gm", QueueDice(list("YYYBBBBBB" + "BBBBBBBBB")), "/gm dice")
    await referee.act(channel, "gm", actions.Begin(), "/goddice begin")
    await referee.act(channel, "alice", actions.ChooseFirst("attack"), "/goddice choose")
    for player, card in zip(["bob", "alice"] * 4, ["monk", "hero", "sage", "cleric", "assassin", "bowman", bobs_last,
                                                    "sage"], strict=True):
        await referee.act(channel, player, actions.Pick(card), f"/goddice pick {card}")
    return await referee.game_id(channel)


SEAT_AND_DRAFT = [  # console lines: two players seated, the roll-off to alice, the draft done
    "gm /game start ruleset:goddice",
    "alice /goddice join",
    "bob /goddice join",
    'gm /gm dice values:"Y Y Y B B B B B B  B B B B B B B B B"',
    "gm /goddice begin",
    "alice /goddice choose first:attack",
    "bob /goddice pick monk",
    "alice /goddice pick hero",
    "bob /goddice pick sage",
    "alice /goddice pick cleric",
    "bob /goddice pick assassin",
    "alice /goddice pick bowman",
    "bob /goddice pick hero",
    "alice /goddice pick sage",
]
