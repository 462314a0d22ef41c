"""The referee service: runs one command of one game against the engine and the store.

Both front-ends (the console and the Discord cogs) and the clock call this; it is where a command
becomes one transaction: catch up on what fell due, load the state, run the engine, commit the
rolls, the state change and the log entry together.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import logging
from collections.abc import Awaitable, Callable, Iterator, Mapping
from datetime import UTC, datetime
from typing import Any

import engine  # noqa: F401  (registers every rule set)
from data import rules_for
from data.store import ChannelTaken, Entry, LoggedAction, NoLiveGame, Plan, Quick, Store
from engine.chartspec import Chart
from engine.clock import Tick
from engine.commands import Command, check_ruleset
from engine.core import Context, execute
from engine.dice import FacesRecord, FreeRoll, RandomRoller, Roller, RollRecord, free_expression, free_roll
from engine.errors import BadInput, NoGame, NotGM, RuleViolation
from engine.events import Event
from engine.game import runs_game
from engine.history import HistoryEntry, check_history
from engine.mapspec import MapPicture
from engine.rulesets import RULESETS, GameState, default_ruleset, ruleset
from engine.view import At, Part, Person, View, line
from service.digest import MAX_DIGEST, parse_since
from service.imports import check_rolls, reopen
from service.reports import (
    CLOCK_ACTOR,
    MAX_LISTED,
    Digest,
    GameList,
    Listener,
    Report,
)
from service.undo import Undo

log = logging.getLogger("referee.service")
NO_GAME = "there is no game in this channel: start one with /game start"
BUSY = "this channel already has a game running: /game status shows it"
DUE_BATCH = 50
"""Games caught up in one transaction: a batch of log-only rollovers holds the database thread ~3.5 ms on a slow
two-core machine (100 held it ~7 ms; issue 35's goal: ≤ 5 ms at a time, so that a command that arrives meanwhile
waits no longer). The rollover's own length matters less: its announcements go out at the clock's pace (40 a
second)."""
SWITCH_INTERVAL = 0.0005
"""Seconds a thread holds the interpreter before another that waits for it takes it (the bot sets it: CPython's
default is 5 ms). An import is checked, and an undo's log replayed, in threads of their own; at the default, each
other game's command (many short turns of the event loop and of the database thread, each waiting its turn) waits
hundreds of ms meanwhile, at 0.5 ms a few (bench/stall.py)."""
MAX_ROLLS_SHOWN = 1000
MAX_SECRET_WAITING = 20  # one roller's secret rolls not revealed yet, in one game
GAME_OVER = "Game over: this is the channel's last game, ended. /game start starts a new one here."
NO_PAGES = ("this bot serves no game pages: its host turns them on with WEB_PORT (and PUBLIC_URL, the address players "
            "see); nothing changed")
PAGE_ABOUT = ("The page shows the standings, the turn clock, the charts, the roll ledger and the story of each turn, "
              "and updates by itself. Anyone with the link can read it (no one can change anything there): share it "
              "with the players only.")
PAGE_ROTATED = "The GM changed this game's page link: the old one no longer works. /game page gives the new one."


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


class Referee(Undo):
    """One store, one roller and one clock shared by every game; each game runs under its rule set's rules."""

    def __init__(self, store: Store, rules: Any = None, roller: Roller | None = None,
                 clock: Callable[[], datetime] = utc_now) -> None:
        """`rules`: each rule set's rules by name (any not given come from `data/`), or the main game's alone."""
        given = dict(rules) if isinstance(rules, Mapping) else {} if rules is None \
            else {default_ruleset().name: rules}
        self.rules_by_set: dict[str, Any] = {name: given.get(name) or rules_for(name) for name in RULESETS}
        self.store = store
        self.roller = roller or RandomRoller()
        self.clock = clock
        self._locks: dict[int, asyncio.Lock] = {}
        self._listeners: list[Listener] = []

    # --- after each commit -----------------------------------------------------------------------

    def on_commit(self, listener: Listener) -> Callable[[], None]:
        """Call `listener(report, by_clock)` after each change this referee commits: a command's (its report: the
        game's state after it, its events, its logged actions) or the clock's rollover (`by_clock`: a report of the
        game's id and events, no state: the clock announces those itself). The front-ends follow up on it (Discord's
        status, choices and reminders), the page tells its readers. Returns what unsubscribes it."""
        self._listeners.append(listener)
        return lambda: self._listeners.remove(listener) if listener in self._listeners else None

    async def committed(self, report: Report, by_clock: bool = False) -> None:
        """Tell every listener of a commit, in order; a listener that fails is logged and the others still hear."""
        for listener in list(self._listeners):
            try:
                await listener(report, by_clock)
            except Exception:
                log.exception("a listener of game %s's commit failed", report.game_id,
                              extra={"game_id": report.game_id})

    def lock(self, game_id: int) -> asyncio.Lock:
        """Commands of one game run one at a time."""
        return self._locks.setdefault(game_id, asyncio.Lock())

    def rules_for(self, name: str) -> Any:
        """The rules a game of rule set `name` runs under (a rule set registered later: from `data/`)."""
        if name not in self.rules_by_set:
            self.rules_by_set[name] = rules_for(name)
        return self.rules_by_set[name]

    def context(self, state: GameState | None, actor: str, gm_role: bool = False, ruleset_name: str | None = None,
                now: datetime | None = None) -> Context:
        is_gm = gm_role or (state is not None and runs_game(state, actor))
        rules = self.rules_for(state.ruleset if state is not None else ruleset_name or default_ruleset().name)
        return Context(now=now or self.clock(), actor=actor, rules=rules, is_gm=is_gm, server_gm=gm_role,
                       roller=self.roller)

    @staticmethod
    def is_gm(state: GameState, actor: str, gm_role: bool = False) -> bool:
        """A GM of the game: its GM, a co-GM, or a server GM (`gm_role`: Manage Server, the server's GM role)."""
        return gm_role or runs_game(state, actor)

    async def game_id(self, channel: str) -> int:
        game_id = await self.store.live_game(channel)
        if game_id is None:
            raise NoGame(NO_GAME)
        return game_id

    async def state(self, channel: str) -> GameState:
        return await self.store.load(await self.game_id(channel))

    async def shown_game_id(self, channel: str) -> int:
        """The game /game status and /log show: the channel's live game or, when none runs, its last ended one
        (nothing can be done in that one: every action still asks for a live game)."""
        game_id = await self.store.live_game(channel) or await self.store.last_ended_game(channel)
        if game_id is None:
            raise NoGame(NO_GAME)
        return game_id

    async def shown_state(self, channel: str) -> GameState:
        """The state of `shown_game_id`'s game (`state.ended`: the last game, over)."""
        return await self.store.load(await self.shown_game_id(channel))

    async def show(self, channel: str, command: Command, actor: str,
                   options: dict[str, Any]) -> tuple[View, GameState]:
        """A query's view (`command.view`) and the state it shows: the channel's live game or, for a query that
        `shows_ended` (a status), its last ended one when none runs. A rule set's query in a game of another
        rule set is refused with the reason."""
        assert command.view is not None
        state = await (self.shown_state(channel) if command.shows_ended else self.state(channel))
        check_ruleset(command, state.ruleset)
        return command.view(state, self.rules_for(state.ruleset), actor, options), state

    async def chart(self, channel: str, command: Command, options: dict[str, Any]) -> Chart | MapPicture:
        """What a chart command (`command.chart`) draws, from the stored stat history of the channel's shown game
        (`engine.chartspec.Chart`, or a board's picture: `engine.mapspec.MapPicture`; the front-end draws it with
        `charts.render`). A rule set's chart in a game of another rule set is refused with the reason, and so are
        options the chart cannot draw."""
        assert command.chart is not None
        game_id = await self.shown_game_id(channel)
        state = await self.store.load(game_id)
        check_ruleset(command, state.ruleset)
        return command.chart(state, await self.store.history(game_id), options)

    async def game_list(self, actor: str, guild_id: int | None = None, limit: int = MAX_LISTED) -> GameList:
        """The live games of a server (`guild_id`; None: every live game in the database), those `actor` runs
        as their GM first, each group in the order the games began (ended games are left out), at most
        `limit` of them. Each is one line from its rule set's `glance`: the rule set, the turn (and phase),
        the GM, who still owes a move, the next deadline."""
        shown, total = await self.store.listed_games(guild_id, actor, limit)
        games = []
        for game in shown:
            found = ruleset(game.state.ruleset)
            glance = found.glance(game.state)
            parts: list[Part] = [f"{found.title}, {glance.stage} — GM ", Person(game.gm)]
            if glance.awaiting is not None:
                parts += [" — ", *glance.awaiting.parts]
            parts += [" — deadline ", At(glance.due)] if glance.due is not None else [" — no deadline"]
            games.append((game.channel, line(*parts)))
        return GameList(games, total - len(shown))

    # --- commands ------------------------------------------------------------------------------

    async def start_game(self, channel: str, actor: str, turn_hours: float | None = None,
                         guild_id: int | None = None, command: str = "/game start", ruleset_name: str | None = None,
                         options: str | None = None, busy: str = BUSY, params: dict[str, Any] | None = None,
                         key: str | None = None) -> Report:
        """A new game of a rule set in a channel with no live game; `actor` is its GM. `params`: /game start's
        options of the rule set (`RuleSet.start_params`), handed to its `start` whole; `turn_hours` and `options`
        are two of them by name. `busy`: the refusal where a game runs already. `key`: the command's idempotency
        key, recorded with the game (a retry's first outcome: `repeated`)."""
        rules = ruleset(ruleset_name) if ruleset_name else default_ruleset()
        refusal = RuleViolation(busy)
        if await self.store.live_game(channel) is not None:
            raise refusal
        outcome = rules.start(self.context(None, actor, ruleset_name=rules.name),
                              {"turn_hours": turn_hours, "options": options, **(params or {})})
        try:
            game_id, action_id = await self.store.create_game(channel, guild_id, outcome.state, outcome.events, actor,
                                                              command, self.clock(), key=key)
        except ChannelTaken:
            raise refusal from None
        report = Report(game_id, outcome.state, outcome.events, action_ids=[action_id])
        await self.committed(report)
        return report

    async def act(self, channel: str, actor: str, action: Any, command: str, gm_role: bool = False,
                  vocabulary: Command | None = None, key: str | None = None) -> Report:
        """Catch up, then run one engine action and commit both: the channel's game found, loaded, changed and
        saved in one transaction, one round trip to the store. `vocabulary`: the command the action was built
        from, refused (before anything) in a game of another rule set.

        A refusal raises and commits nothing but the catch-up. `key`: the command's idempotency key (the
        front-end's id of what its user did): a key that has committed already gets its first outcome again
        (its events; its refusal), and nothing runs twice."""
        now = self.clock()
        try:
            game_id, result = await self.store.run_channel(channel, lambda state: self._plan(
                state, now, actor, action, command, gm_role, vocabulary), key=key, now=now)
        except NoLiveGame:
            raise NoGame(NO_GAME) from None
        report = self._report(game_id, result)
        if not result.repeated:  # (a repeat's listeners heard it the first time)
            await self.committed(report)
        return report

    async def repeated(self, key: str) -> Report | None:
        """The report of the command that committed with this idempotency key, if one has (its events read back,
        the game's state as it is now), else None."""
        first = await self.store.first_outcome(key)
        if first is None:
            return None
        game_id, plan = first
        if plan.refusal is not None:
            raise plan.refusal
        return self._report(game_id, plan)

    def _plan(self, state: GameState, now: datetime, actor: str | None = None, action: Any = None, command: str = "",
              gm_role: bool = False, vocabulary: Command | None = None) -> Plan:
        """What one call does to a freshly loaded state (run in the store's thread): catch up, then the action."""
        if vocabulary is not None:
            check_ruleset(vocabulary, state.ruleset)  # (before the catch-up: a refusal here commits nothing)
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
    def _quick(name: str, fields: dict[str, Any], now: datetime) -> Quick | None:
        """The rule set's quick catch-up on a game's clock fields, as the clock's log entry (None: not quick)."""
        quick = RULESETS[name].quick_catch_up
        done = quick(fields, now) if quick is not None else None
        if done is None:
            return None
        events, next_due, after = done
        return Quick([Entry(CLOCK_ACTOR, "clock", now, events)], next_due, after)

    @staticmethod
    def _report(game_id: int, plan: Plan) -> Report:
        entries = list(plan.entries)
        caught_up = entries.pop(0).events if entries and entries[0].actor == CLOCK_ACTOR else []
        return Report(game_id, plan.state, entries[-1].events if entries else [], caught_up, list(plan.action_ids))

    async def catch_up(self, game_id: int, announce: bool = False) -> Report:
        """Apply whatever fell due in one game (turn rollovers, bonus expiries), once. `announce`: the front-end
        will announce it, and says so when it has (`Store.announced`): until then it stays in the outbox."""
        async with self.lock(game_id):
            plan = await self.store.run_game(game_id, lambda state: self._plan(state, self.clock()), announce)
            report = Report(game_id, plan.state, plan.entries[0].events if plan.entries else [],
                            action_ids=plan.action_ids[:1])
        if report.events:
            await self.committed(report)
        return report

    async def _catch_up(self, game_id: int) -> list[Event]:
        plan = await self.store.run_game(game_id, lambda state: self._plan(state, self.clock()))
        return plan.entries[0].events if plan.entries else []

    async def catch_up_due(self, owns: Callable[[int | None], bool] = lambda guild: True,
                           batch: int = DUE_BATCH, action_ids: dict[int, int] | None = None,
                           announce: bool = False) -> dict[int, list[Event]]:
        """Catch up every live game this process owns that has something due now, read from the store's due
        index, `batch` games to a transaction. Returns the events of each game where something fell due (not
        the states); `action_ids`, when given, gets each game's logged catch-up action. `announce`: as in
        `catch_up`. Every game's events are held to the end: what a few games need (the console, tests); the
        clock uses `catch_up_due_each`, which holds one batch at a time."""
        caught: dict[int, list[Event]] = {}

        async def keep(events: dict[int, list[Event]], logged: dict[int, int]) -> None:
            caught.update(events)
            if action_ids is not None:
                action_ids.update(logged)

        await self.catch_up_due_each(keep, owns, batch, announce)
        return caught

    async def catch_up_due_each(self, each: Callable[[dict[int, list[Event]], dict[int, int]], Awaitable[None]],
                                owns: Callable[[int | None], bool] = lambda guild: True, batch: int = DUE_BATCH,
                                announce: bool = False) -> int:
        """`catch_up_due` batch by batch: after each batch commits, `each(events, action_ids)` is awaited with
        that batch's games where something fell due (their events, and their logged catch-up action), before
        the next batch is read; nothing of a batch is kept afterwards, so a rollover of any number of games
        holds one batch at a time. Returns how many games were caught up.

        The due index is read a page of `batch` games at a time too (in the order (due time, id), each page
        after the last game of the one before: a game caught up moves on, one that fails stays behind)."""
        now = self.clock()
        count = 0
        after: tuple[str, int] | None = None
        while page := await self.store.due_page(now, batch, after):
            after = (page[-1][2], page[-1][0])
            ids = [game_id for game_id, guild_id, _ in page if owns(guild_id)]
            if ids:
                count += await self._catch_up_batch(ids, now, each, announce)
            if len(page) < batch:
                break
        return count

    async def _catch_up_batch(self, ids: list[int], now: datetime,
                              each: Callable[[dict[int, list[Event]], dict[int, int]], Awaitable[None]],
                              announce: bool = False) -> int:
        """One batch of `catch_up_due_each`: one transaction, then `each`. Returns how many games it caught up."""
        created = [game_id for game_id in ids if game_id not in self._locks]
        locks = [self.lock(game_id) for game_id in ids]
        for lock in locks:
            await lock.acquire()
        try:
            # the collector held off while the batch's documents are parsed (one batch at a time: what the
            # announcements sent between two batches leave is collected as usual)
            with collector_paused():
                plans = await self.store.run_games(ids, lambda state: self._plan(state, now),
                                                   lambda name, fields: self._quick(name, fields, now),
                                                   announce)
                events = {game_id: plan.entries[0].events for game_id, plan in plans.items() if plan.entries}
                logged = {game_id: plan.action_ids[0] for game_id, plan in plans.items() if plan.action_ids}
                del plans  # (the batch's states and documents: freed before the next batch is read)
        finally:
            for lock in locks:
                lock.release()
            self._drop_locks(created)
        await each(events, logged)
        for game_id, game_events in events.items():
            await self.committed(Report(game_id, None, game_events, action_ids=[logged[game_id]]
                                        if game_id in logged else []), by_clock=True)
        return len(events)

    def _drop_locks(self, game_ids: list[int]) -> None:
        """Forget the locks of these games that nothing holds or waits for (a rollover of 100,000 games would
        otherwise keep 100,000 locks): the next command of such a game makes a new one."""
        for game_id in game_ids:
            lock = self._locks.get(game_id)
            if lock is not None and not lock.locked() and not getattr(lock, "_waiters", None):
                del self._locks[game_id]

    async def rolls(self, channel: str, nation: str | None = None,
                    limit: int = 10) -> list[RollRecord | FacesRecord]:
        """The channel's latest `limit` rolls (1..MAX_ROLLS_SHOWN), of one nation or all: of its live game, or
        of its last ended one when none runs."""
        if not 1 <= limit <= MAX_ROLLS_SHOWN:
            raise BadInput(f"limit is 1 to {MAX_ROLLS_SHOWN}, not {limit}")
        return await self.store.rolls(await self.shown_game_id(channel), nation, limit)

    async def free_roll(self, channel: str, actor: str, dice: str, key: str | None = None) -> tuple[FreeRoll, bool]:
        """/roll: any dice (d20 notation, bounded; BadInput before any die for what is refused), rolled with the
        referee's roller. Logged in the channel's live game's ledger, if there is one, as a free roll: a rolls
        row of no action, so it never counts for a rule, never takes a GM-entered die, and /gm undo never takes
        it back. Returns the roll and whether it was logged. `key`: the command's idempotency key; a retry of a
        logged roll answers that roll again and logs nothing."""
        roll = free_roll(dice, self.roller)
        game_id = await self.store.live_game(channel)
        if game_id is None:
            return roll, False
        state = await self.store.load(game_id)
        roll, _ = await self.store.add_free_roll(game_id, actor, roll, int(getattr(state, "turn", 0) or 0),
                                                 self.clock(), key=key)
        await self.committed(Report(game_id, state, []))
        return roll, True

    async def secret_roll(self, channel: str, actor: str, dice: str, key: str | None = None,
                          ) -> tuple[FreeRoll, int | None]:
        """/roll secret:true: a free roll whose dice its roller and the game's GM alone see until one of them
        reveals it (`reveal`). It needs the channel's live game (its GM is who else sees it); at most
        MAX_SECRET_WAITING of one roller's wait unrevealed. Returns the roll and its number (None: a retry's)."""
        free_expression(dice)  # a bad expression is refused before anything else
        game_id = await self.store.live_game(channel)
        if game_id is None:
            raise NoGame("a secret roll is kept in the game's log for its GM to see: no game runs here "
                         "(/roll without secret: rolls in the open)")
        if await self.store.waiting_secrets(game_id, actor) >= MAX_SECRET_WAITING:
            raise RuleViolation(f"you have {MAX_SECRET_WAITING} secret rolls not revealed yet: reveal one "
                                "(/log reveal roll:N) before rolling another in secret")
        roll = free_roll(dice, self.roller)
        state = await self.store.load(game_id)
        roll, number = await self.store.add_free_roll(game_id, actor, roll, int(getattr(state, "turn", 0) or 0),
                                                      self.clock(), key=key, secret=True)
        await self.committed(Report(game_id, state, []))
        return roll, number

    async def secret_rolls(self, channel: str, actor: str, gm_role: bool = False,
                           ) -> tuple[list[tuple[int, RollRecord, bool]], bool]:
        """/log secret: the secret rolls of the channel's shown game that `actor` may see — all of them for its GM,
        else their own — with whether `actor` is the GM."""
        game_id = await self.shown_game_id(channel)
        state = await self.store.load(game_id)
        gm = self.is_gm(state, actor, gm_role)
        return await self.store.secret_rolls(game_id, None if gm else actor), gm

    async def reveal(self, channel: str, actor: str, number: int, gm_role: bool = False) -> tuple[RollRecord, bool]:
        """/log reveal roll:N: show secret roll N of the channel's shown game to everyone — its roller's or its
        GM's call. Returns the roll (its dice, its original time) and whether it was secret until now."""
        game_id = await self.shown_game_id(channel)
        state = await self.store.load(game_id)
        gm = self.is_gm(state, actor, gm_role)
        roller = await self.store.secret_roller(game_id, number)
        if roller is None:
            raise BadInput(f"this game has no secret roll #{number} (/log secret lists them)")
        if not gm and roller != actor:
            raise NotGM(f"secret roll #{number} is another player's: its roller or the GM reveals it")
        revealed = await self.store.reveal_roll(game_id, number)
        if revealed is None:
            raise BadInput(f"this game has no secret roll #{number} (/log secret lists them)")
        await self.committed(Report(game_id, state, []))
        return revealed

    async def digest(self, channel: str, actor: str, since: str | None = None, gm_role: bool = False) -> Digest:
        """/game digest: everything the game's log holds since `since` (see `parse_since`) or, without it, since
        the last digest made by the GM (or the game's start): each action with its events (its rolls, turn ends,
        expiries, battles) and the free rolls, oldest first, at most MAX_DIGEST actions.

        Anyone may read a digest; only the GM's digest without `since:` moves the mark (to now, or, when actions
        were left out, to the last one listed, so that the next digest goes on from there)."""
        game_id = await self.game_id(channel)
        now = self.clock()
        mark, created = await self.store.digest_mark(game_id)
        if since is not None and str(since).strip():
            parse_since(str(since), now, created)  # a refusal before anything else
        caught_up = await self.catch_up(game_id)  # what fell due belongs in the digest
        state = caught_up.state
        if since is not None and str(since).strip():
            start, inclusive = parse_since(str(since), now, created), True
        else:
            start, inclusive = (mark, False) if mark is not None else (created, True)
        actions, left_out = await self.store.actions_since(game_id, start, MAX_DIGEST, inclusive)
        until = actions[-1].action.at if left_out else None
        free = await self.store.free_rolls_since(game_id, start, until, inclusive, MAX_DIGEST)
        items: list[LoggedAction | RollRecord] = sorted(
            [*actions, *free], key=lambda item: item.action.at if isinstance(item, LoggedAction) else item.at)
        digest = Digest(state, start, items, left_out, until, caught_up=caught_up)
        if (since is None or not str(since).strip()) and self.is_gm(state, actor, gm_role):
            await self.store.set_digest_mark(game_id, until or now)
            digest.marked = True
        return digest

    async def export(self, channel: str) -> dict[str, Any]:
        """The channel's live game in the export format or, when none runs, its last ended one (its winner with it)."""
        return await self.store.export(await self.shown_game_id(channel))

    async def page_token(self, channel: str) -> str:
        """The token of the page of the channel's shown game (its live game, else its last ended one): made the first
        time it is asked for, the same ever after (until the GM rotates it). Anyone in the channel may have it."""
        return await self.store.page_token(await self.shown_game_id(channel), self.clock())

    async def rotate_page_token(self, channel: str, actor: str, gm_role: bool = False) -> str:
        """GM: a new token for the page of the channel's shown game (live, else its last ended one); the old link
        stops working at once. Returns the new token."""
        game_id = await self.shown_game_id(channel)
        if not self.is_gm(await self.store.load(game_id), actor, gm_role):
            raise NotGM("only the GM may change the game's page link")
        return await self.store.rotate_page_token(game_id, self.clock())

    async def import_game(self, channel: str, actor: str, data: dict[str, Any], guild_id: int | None = None,
                          command: str = "/game import") -> Report:
        """A game from an export, in a channel with no live game; the importer becomes its GM. An ended game's
        export starts live again where it stood (`reopen`), unless its rules ended it (it has a winner)."""
        if await self.store.live_game(channel) is not None:
            raise RuleViolation("this channel already has a game running: end it first with /game end")
        now = self.clock()

        def checked() -> tuple[GameState, list[dict[str, Any]], list[HistoryEntry]]:
            titles = " or ".join(r.title for r in RULESETS.values())
            if not isinstance(data, dict) or not isinstance(data.get("game"), dict):
                raise BadInput(f"that is not a {titles} export: it has no game object")
            try:
                rules = ruleset(data["game"].get("ruleset", default_ruleset().name))
            except BadInput:
                raise BadInput(f"that is not a {titles} export: its game.ruleset names no rule set this referee "
                               "plays") from None
            exported = dict(data)
            history = check_history(exported.pop("history", None), now)  # the stat history: the shared format
            try:
                clean = rules.validate_export(exported, now)  # BadInput naming the field; nothing built yet
            except RecursionError:
                raise BadInput("that export is not valid: it is nested too deeply") from None
            rolls = clean.pop("rolls")
            exported_gm = str(clean["game"].get("gm") or actor)  # (the rolls may name its GM before the import)
            clean["game"]["gm"] = actor
            clean["game"]["cogms"] = []  # (the importer runs it; co-GMs are theirs to add again)
            try:
                state = rules.state_from_dict(clean)
            except (AttributeError, KeyError, TypeError, ValueError) as err:  # a gap in the schema: a refusal
                raise BadInput(f"that is not a {rules.title} export: {type(err).__name__} {err}") from None
            if state.ended:
                reopen(state)
            problems = rules.check_state(state, self.rules_for(rules.name))
            if problems:
                raise RuleViolation("that export breaks the rules: " + "; ".join(problems[:5]))
            check_rolls(state, rolls, self.rules_for(rules.name), {exported_gm, actor}, now)
            return state, rolls, history

        # Checked in a thread of its own, before the store is called: a file of 5 MB takes a second to check, during
        # which the event loop (every other server's commands) would wait; only the final write holds the store.
        state, rolls, history = await asyncio.to_thread(checked)
        try:
            game_id, action_id = await self.store.import_game(channel, guild_id, state, rolls, actor, command, now,
                                                              history)
        except ChannelTaken:
            raise RuleViolation("this channel already has a game running: end it first with /game end") from None
        except (KeyError, TypeError, ValueError) as err:
            raise BadInput(f"the export's rolls are malformed: {type(err).__name__} {err}") from None
        report = Report(game_id, state, [], action_ids=[action_id])  # the state as written
        await self.committed(report)
        return report
