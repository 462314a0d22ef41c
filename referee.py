"""The referee service: runs one command of one game against the engine and the store.

Both front-ends (the console and the Discord cogs) and the clock call this; it is where a command
becomes one transaction: catch up on what fell due, load the state, run the engine, commit the
rolls, the state change and the log entry together.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import json
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

import engine  # noqa: F401  (registers every rule set)
from data import rules_for
from data.store import ActionRow, ChannelTaken, Entry, Plan, Quick, Store
from engine.clock import Tick
from engine.core import Context, execute
from engine.dice import RandomRoller, Roller, RollRecord
from engine.errors import BadInput, NoGame, NotGM, RuleViolation
from engine.events import ActionUndone, Event, replay
from engine.nations.rules import Rules
from engine.rulesets import RULESETS, ruleset

CLOCK_ACTOR = "clock"
DUE_BATCH = 200  # games caught up in one transaction
MAX_ROLLS_SHOWN = 1000
MAX_EXPORT_BYTES = 5_000_000  # the largest export file /game import reads


@contextlib.contextmanager
def collector_paused() -> Iterator[None]:
    """Python's cyclic garbage collector held off while a rollover runs: its thousands of parsed snapshot
    documents and events are fresh containers that would set off collection after collection, each walking
    them all (they hold no cycles: reference counting frees them). One collection may follow at the end."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def utc_now() -> datetime:
    return datetime.now(UTC)


def read_export(raw: bytes | str) -> dict[str, Any]:
    """An export file's bytes (or text) as its JSON object; BadInput, in one line, for anything else.

    Refuses more than MAX_EXPORT_BYTES, bytes that are not UTF-8, text that is not JSON (a nesting too deep
    for the parser included) and JSON whose top level is not an object. What the object holds is checked
    by `Referee.import_game`."""
    if isinstance(raw, str):
        if len(raw) > MAX_EXPORT_BYTES:
            raise BadInput(f"that export is too large: at most {MAX_EXPORT_BYTES:,} bytes")
        try:
            raw = raw.encode("utf-8")
        except UnicodeEncodeError:
            raise BadInput("that export is not valid UTF-8 text") from None
    elif not isinstance(raw, bytes | bytearray | memoryview):
        raise BadInput("that export is not a file's contents")
    if len(raw) > MAX_EXPORT_BYTES:
        raise BadInput(f"that export is too large: {len(raw):,} bytes, at most {MAX_EXPORT_BYTES:,}")
    try:
        text = bytes(raw).decode("utf-8-sig")
    except UnicodeDecodeError as err:
        raise BadInput(f"that export is not valid UTF-8 text (byte {err.start})") from None
    try:
        data = json.loads(text)
    except RecursionError:
        raise BadInput("that export is not valid JSON: it is nested too deeply") from None
    except ValueError as err:  # json.JSONDecodeError, and integers too long to read
        reason = err.msg if isinstance(err, json.JSONDecodeError) else str(err).split(";")[0]
        where = f" (line {err.lineno}, column {err.colno})" if isinstance(err, json.JSONDecodeError) else ""
        raise BadInput(f"that export is not valid JSON: {reason}{where}") from None
    if not isinstance(data, dict):
        raise BadInput(f"that export is not a game export: its top level is a JSON {_json_kind(data)}, "
                       "not an object")
    return data


def _json_kind(value: Any) -> str:
    return {list: "array", str: "string", bool: "boolean", int: "number", float: "number"}.get(
        type(value), "null")


def imported_summary(state: Any, source: str) -> str:
    """One line saying what an import brought in, e.g. "Game imported from x.json: turn 3, 4 nations"."""
    if state.ruleset == "nations":
        return f"Game imported from {source}: turn {state.turn}, {len(state.nations)} nations"
    if state.ruleset == "godsfire":
        return (f"Godsfire game imported from {source}: turn {state.turn}, {len(state.players)} players, "
                f"{len(state.systems)} systems")
    return f"God Dice game imported from {source}: {len(state.players)} players"


@dataclass
class Report:
    """What one call did: the game, its events in order (catch-up first) and the state after."""

    game_id: int
    state: Any
    events: list[Event] = field(default_factory=list)
    caught_up: list[Event] = field(default_factory=list)


class Referee:
    """One store, one roller and one clock shared by every game; each game runs under its rule set's rules."""

    def __init__(self, store: Store, rules: Rules | Mapping[str, Any] | None = None, roller: Roller | None = None,
                 clock: Callable[[], datetime] = utc_now) -> None:
        """`rules`: each rule set's rules by name (any not given come from `data/`), or the Nations rules alone."""
        given = dict(rules) if isinstance(rules, Mapping) else {} if rules is None else {"nations": rules}
        self.rules_by_set = {name: given.get(name) or rules_for(name) for name in RULESETS}
        self.store = store
        self.roller = roller or RandomRoller()
        self.clock = clock
        self._locks: dict[int, asyncio.Lock] = {}

    def lock(self, game_id: int) -> asyncio.Lock:
        """Commands of one game run one at a time."""
        return self._locks.setdefault(game_id, asyncio.Lock())

    @property
    def rules(self) -> Rules:
        """The Nations rules (the main game's; `rules_for` gives any rule set's)."""
        return self.rules_by_set["nations"]

    def rules_for(self, name: str) -> Any:
        return self.rules_by_set[name]

    def context(self, state: Any, actor: str, gm_role: bool = False, ruleset_name: str = "nations",
                now: datetime | None = None) -> Context:
        is_gm = gm_role or (state is not None and actor.lower() == state.gm.lower())
        rules = self.rules_for(state.ruleset if state is not None else ruleset_name)
        return Context(now=now or self.clock(), actor=actor, rules=rules, is_gm=is_gm, roller=self.roller)

    @staticmethod
    def is_gm(state: Any, actor: str, gm_role: bool = False) -> bool:
        return gm_role or actor.lower() == state.gm.lower()

    async def game_id(self, channel: str) -> int:
        game_id = await self.store.live_game(channel)
        if game_id is None:
            raise NoGame("there is no game in this channel: start one with /game start")
        return game_id

    async def ruleset_name(self, channel: str) -> str:
        """The rule set of the channel's game (one indexed lookup, no state loaded)."""
        found = await self.store.live_ruleset(channel)
        if found is None:
            raise NoGame("there is no game in this channel: start one with /game start")
        return found

    async def state(self, channel: str) -> Any:
        return await self.store.load(await self.game_id(channel))

    # --- commands ------------------------------------------------------------------------------

    async def start_game(self, channel: str, actor: str, turn_hours: float | None = None,
                         guild_id: int | None = None, command: str = "/game start", ruleset_name: str = "nations",
                         options: str | None = None) -> Report:
        """A new game of a rule set in a channel with no live game; `actor` is its GM."""
        rules = ruleset(ruleset_name)
        busy = RuleViolation("this channel already has a game running: /game status shows it")
        if await self.store.live_game(channel) is not None:
            raise busy
        outcome = rules.start(self.context(None, actor, ruleset_name=rules.name),
                              {"turn_hours": turn_hours, "options": options})
        try:
            game_id, _ = await self.store.create_game(channel, guild_id, outcome.state, outcome.events, actor,
                                                      command, self.clock())
        except ChannelTaken:
            raise busy from None
        return Report(game_id, outcome.state, outcome.events)

    async def act(self, channel: str, actor: str, action: Any, command: str, gm_role: bool = False) -> Report:
        """Catch up, then run one engine action and commit both: one transaction, one round trip to the store.

        A refusal raises and commits nothing but the catch-up."""
        game_id = await self.game_id(channel)
        async with self.lock(game_id):
            now = self.clock()
            result = await self.store.run_game(game_id, lambda state: self._plan(state, now, actor, action,
                                                                                   command, gm_role))
            return self._report(game_id, result)

    def _plan(self, state: Any, now: datetime, actor: str | None = None, action: Any = None, command: str = "",
              gm_role: bool = False) -> Plan:
        """What one call does to a freshly loaded state (run in the store's thread): catch up, then the action."""
        plan = Plan(state)
        if not state.ended:
            caught = execute(state, Tick(), self.context(state, CLOCK_ACTOR, now=now), fresh=True)
            if caught.events:
                plan.entries.append(Entry(CLOCK_ACTOR, "clock", now, caught.events))
                plan.state = caught.state
        if action is None or actor is None:
            return plan
        try:
            # the state is only copied when a catch-up must survive a refusal of the action
            outcome = execute(plan.state, action, self.context(plan.state, actor, gm_role, now=now),
                              fresh=not plan.entries)
        except Exception as refusal:
            if not plan.entries:
                raise
            plan.refusal = refusal
            return plan
        plan.entries.append(Entry(actor, command, now, outcome.events))
        plan.state = outcome.state
        return plan

    @staticmethod
    def _quick(name: str, document: dict[str, Any], now: datetime) -> Quick | None:
        """The rule set's quick catch-up on a snapshot document, as the clock's log entry (None: not quick)."""
        quick = RULESETS[name].quick_catch_up
        done = quick(document, now) if quick is not None else None
        if done is None:
            return None
        events, next_due = done
        return Quick([Entry(CLOCK_ACTOR, "clock", now, events)], next_due)

    @staticmethod
    def _report(game_id: int, plan: Plan) -> Report:
        entries = list(plan.entries)
        caught_up = entries.pop(0).events if entries and entries[0].actor == CLOCK_ACTOR else []
        return Report(game_id, plan.state, entries[-1].events if entries else [], caught_up)

    async def catch_up(self, game_id: int) -> Report:
        """Apply whatever fell due in one game (turn rollovers, bonus expiries), once."""
        async with self.lock(game_id):
            plan = await self.store.run_game(game_id, lambda state: self._plan(state, self.clock()))
            return Report(game_id, plan.state, plan.entries[0].events if plan.entries else [])

    async def _catch_up(self, game_id: int) -> list[Event]:
        plan = await self.store.run_game(game_id, lambda state: self._plan(state, self.clock()))
        return plan.entries[0].events if plan.entries else []

    async def catch_up_due(self, owns: Callable[[int | None], bool] = lambda guild: True,
                           batch: int = DUE_BATCH) -> dict[int, list[Event]]:
        """Catch up every live game this process owns that has something due now, read from the store's due
        index, `batch` games to a transaction. Returns the events of each game where something fell due (not
        the states: a rollover of thousands of games holds one batch of states at a time)."""
        now = self.clock()
        due = [game_id for game_id, guild_id in await self.store.due(now) if owns(guild_id)]
        caught: dict[int, list[Event]] = {}
        with collector_paused():
            await self._catch_up_batches(due, batch, now, caught)
        return caught

    async def _catch_up_batches(self, due: list[int], batch: int, now: datetime,
                                caught: dict[int, list[Event]]) -> None:
        for start in range(0, len(due), batch):
            ids = due[start:start + batch]
            locks = [self.lock(game_id) for game_id in ids]
            for lock in locks:
                await lock.acquire()
            try:
                plans = await self.store.run_games(ids, lambda state: self._plan(state, now),
                                                   lambda name, document: self._quick(name, document, now))
            finally:
                for lock in locks:
                    lock.release()
            caught.update((game_id, plan.entries[0].events) for game_id, plan in plans.items() if plan.entries)

    async def undo_target(self, channel: str) -> ActionRow | None:
        """The action `/gm undo` would take back now (the last one that is not the clock's or the game's
        start), or None."""
        return await self._undo_target(await self.game_id(channel))

    async def _undo_target(self, game_id: int) -> ActionRow | None:
        logged = await self.store.events(game_id)
        foundational = {e.action_id for e in logged if e.event.starts_game or isinstance(e.event, ActionUndone)}
        return next(
            (a for a in await self.store.actions(game_id, limit=1000, include_undone=False)
             if a.actor != CLOCK_ACTOR and a.id not in foundational),
            None,
        )

    async def undo(self, channel: str, actor: str, gm_role: bool = False, expected: int | None = None) -> Report:
        """GM: take back the game's last action, its rolls included, by replaying the log without it.

        `expected`: the id of the action the GM confirmed undoing; when it is no longer the last one (it was
        undone already, or something happened since) nothing is undone. A confirmation applies once."""
        game_id = await self.game_id(channel)
        async with self.lock(game_id):
            caught_up = await self._catch_up(game_id)
            state = await self.store.load(game_id)
            if not self.is_gm(state, actor, gm_role):
                raise NotGM("only the GM may undo")
            target = await self._undo_target(game_id)
            if target is None:
                raise RuleViolation("there is nothing to undo")
            if expected is not None and target.id != expected:
                raise RuleViolation("that action was already undone, or the game has moved on since you asked: "
                                    "/gm undo again to see what is last now")
            logged = await self.store.events(game_id)
            try:
                new_state = replay(e.event for e in logged if e.action_id != target.id)
            except (KeyError, ValueError, IndexError) as err:
                raise RuleViolation(f"{target.command} cannot be undone any more ({err})") from None
            undone = ActionUndone(target.id, target.command, actor, target.actor)
            await self.store.undo(game_id, target.id, new_state, undone, actor, "/gm undo", self.clock())
            return Report(game_id, new_state, [undone], caught_up)

    async def rolls(self, channel: str, nation: str | None = None, limit: int = 10) -> list[RollRecord]:
        """The channel's latest `limit` rolls (1..MAX_ROLLS_SHOWN), of one nation or all."""
        if not 1 <= limit <= MAX_ROLLS_SHOWN:
            raise BadInput(f"limit is 1 to {MAX_ROLLS_SHOWN}, not {limit}")
        return await self.store.rolls(await self.game_id(channel), nation, limit)

    async def export(self, channel: str) -> dict[str, Any]:
        return await self.store.export(await self.game_id(channel))

    async def import_game(self, channel: str, actor: str, data: dict[str, Any], guild_id: int | None = None,
                          command: str = "/game import") -> Report:
        """A game from an export, in a channel with no live game; the importer becomes its GM."""
        if await self.store.live_game(channel) is not None:
            raise RuleViolation("this channel already has a game running: end it first with /game end")
        titles = " or ".join(r.title for r in RULESETS.values())
        if not isinstance(data, dict) or not isinstance(data.get("game"), dict):
            raise BadInput(f"that is not a {titles} export: it has no game object")
        try:
            rules = ruleset(data["game"].get("ruleset", "nations"))
        except BadInput:
            raise BadInput(f"that is not a {titles} export: its game.ruleset names no rule set this referee "
                           "plays") from None
        try:
            clean = rules.validate_export(data, self.clock())  # BadInput naming the field; nothing built yet
        except RecursionError:
            raise BadInput("that export is not valid: it is nested too deeply") from None
        rolls = clean.pop("rolls")
        clean["game"]["gm"] = actor
        try:
            state = rules.state_from_dict(clean)
        except (AttributeError, KeyError, TypeError, ValueError) as err:  # a gap in the schema: still a refusal
            raise BadInput(f"that is not a {rules.title} export: {type(err).__name__} {err}") from None
        if state.ended:
            raise RuleViolation("that export is of a game that has ended")
        problems = rules.check_state(state, self.rules_for(rules.name))
        if problems:
            raise RuleViolation("that export breaks the rules: " + "; ".join(problems[:5]))
        try:
            game_id = await self.store.import_game(channel, guild_id, state, rolls, actor, command, self.clock())
        except ChannelTaken:
            raise RuleViolation("this channel already has a game running: end it first with /game end") from None
        except (KeyError, TypeError, ValueError) as err:
            raise BadInput(f"the export's rolls are malformed: {type(err).__name__} {err}") from None
        return Report(game_id, await self.store.load(game_id), [])
