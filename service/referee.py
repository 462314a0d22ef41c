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
import logging
import re
from collections.abc import Awaitable, Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

import engine  # noqa: F401  (registers every rule set)
from data import rules_for
from data.store import ActionRow, ChannelTaken, Entry, LoggedAction, LoggedEvent, NoLiveGame, Plan, Quick, Store
from engine.clock import Tick
from engine.commands import Command, check_ruleset
from engine.core import Context, execute
from engine.describe import event_line, plural, roll_line, same, utc_text
from engine.dice import FreeRoll, RandomRoller, Roller, RollRecord, free_roll
from engine.errors import BadInput, NoGame, NotGM, RuleViolation
from engine.events import ActionUndone, Event, replay
from engine.history import check_history
from engine.rulesets import RULESETS, GameState, default_ruleset, ruleset
from engine.view import At, Line, Part, Person, View, line, view

log = logging.getLogger("referee.service")
CLOCK_ACTOR = "clock"
NO_GAME = "there is no game in this channel: start one with /game start"
BUSY = "this channel already has a game running: /game status shows it"
DUE_BATCH = 200  # games caught up in one transaction
MAX_ROLLS_SHOWN = 1000
MAX_EXPORT_BYTES = 5_000_000  # the largest export file /game import reads
GAME_OVER = "Game over: this is the channel's last game, ended. /game start starts a new one here."
MAX_DIGEST = 200  # the most actions one /game digest lists
MAX_LISTED = 25  # the most games one /game list shows
MAX_UNDO_STEPS = 20  # the most actions one /gm undo takes back
MOVED_ON = ("the game moved on since this preview (those actions were already undone, or something happened since): "
            "/gm undo again to see what is last now")
NO_PAGES = ("this bot serves no game pages: its host turns them on with WEB_PORT (and PUBLIC_URL, the address players "
            "see); nothing changed")
PAGE_ABOUT = ("The page shows the standings, the turn clock, the charts, the roll ledger and the story of each turn, "
              "and updates by itself. Anyone with the link can read it (no one can change anything there): share it "
              "with the players only.")
PAGE_ROTATED = "The GM changed this game's page link: the old one no longer works. /game page gives the new one."
MAX_SINCE = timedelta(days=366)  # the furthest back a relative `since:` reaches
_RELATIVE = re.compile(r"(\d{1,5}(?:\.\d{1,3})?)\s*(m|min|mins|minutes?|h|hours?|d|days?|w|weeks?)", re.IGNORECASE)
_UNITS = {"m": "minutes", "h": "hours", "d": "days", "w": "weeks"}


def parse_since(text: str, now: datetime, began: datetime | None = None) -> datetime:
    """A digest's `since:`: a relative span back from `now` ("12h", "2d", "90m", "1w"; at most a year) or an
    ISO time ("2026-03-01T12:00", UTC unless it names its offset) within the game's life: not before `began`
    (when given), not in the future. BadInput, in one line, otherwise — a time beyond the calendar's ends too
    (0001-01-01T00:00+14:00 is in year 0 in UTC)."""
    given = " ".join(str(text).split())
    if len(given) > 40:
        raise BadInput("since is a time like 2026-03-01T12:00 or a span like 12h or 2d: that is too long")
    relative = _RELATIVE.fullmatch(given)
    if relative:
        span = timedelta(**{_UNITS[relative.group(2)[0].lower()]: float(relative.group(1))})
        if span > MAX_SINCE:
            raise BadInput(f"since reaches back at most {MAX_SINCE.days} days, not {given}")
        return now - span
    try:
        moment = datetime.fromisoformat(given.replace(" ", "T", 1) if " " in given else given)
    except ValueError:
        raise BadInput(f"since is a time like 2026-03-01T12:00 (UTC) or a span like 12h, 2d or 90m, "
                       f"not {given!r}") from None
    offset = moment.utcoffset() or timedelta(0)
    try:
        moment = (moment.replace(tzinfo=None) - offset).replace(tzinfo=UTC)
        shown = f"{moment:%Y-%m-%d %H:%M} UTC"
    except OverflowError:  # beyond year 1 or 9999 in UTC: before any game, or in the future
        moment = datetime.min.replace(tzinfo=UTC) if offset > timedelta(0) else datetime.max.replace(tzinfo=UTC)
        shown = given
    if moment > now:
        raise BadInput(f"since is in the future ({shown}): a digest lists what has happened")
    if began is not None:  # to the minute, as it is shown: its own minute is in the game's life
        began = (began.replace(tzinfo=UTC) if began.tzinfo is None else began).replace(second=0, microsecond=0)
    if began is not None and moment < began:
        raise BadInput(f"since is before this game began ({began.astimezone(UTC):%Y-%m-%d %H:%M} UTC): a digest "
                       "lists the game's own log")
    return moment


@dataclass
class Digest:
    """What /game digest lists: the game's log since `since`, in order (actions with their events, and free
    rolls), how many later actions were left out, where a next page starts, and whether the mark moved."""

    state: GameState
    since: datetime
    items: list[LoggedAction | RollRecord]
    left_out: int = 0
    next_since: datetime | None = None
    marked: bool = False
    caught_up: Report | None = None  # what fell due and was applied first (its events are in `items` too)


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


def imported_summary(state: GameState, source: str) -> str:
    """One line saying what an import brought in, e.g. "Nations game imported from x.json: turn 3, 4 nations"."""
    rules = ruleset(state.ruleset)
    return f"{rules.title} game imported from {source}: {rules.summary(state)}"


def digest_lines(digest: Digest, when: Callable[[datetime], str] = utc_text,
                 who: Callable[[str], str] = same, events: Callable[[list[Event]], list[str]] | None = None,
                 free: Callable[[RollRecord], str] | None = None, command: Callable[[str], str] = same) -> list[str]:
    """/game digest as lines: a head, then each action (when, who, the command) with its events' lines indented
    under it, and how it ends. The console's words by default; Discord passes its own `when`, `who`, event
    lines, free-roll line and `command` (escaping)."""
    def plain_events(found: list[Event]) -> list[str]:
        return [line for e in found if (line := event_line(e, when, who))]

    words = events or plain_events
    count = len(digest.items)
    lines = [f"Digest since {when(digest.since)}: "
             + (f"{count} {'entry' if count == 1 else 'entries'}" if count else "nothing has happened since then")]
    for item in digest.items:
        if isinstance(item, LoggedAction):
            act = item.action
            lines.append(f"{when(act.at)} — the clock" if act.actor == CLOCK_ACTOR
                         else f"{when(act.at)} — {who(act.actor)}: {command(act.command)}")
            lines += [f"  {line}" for line in words(item.events)]
        else:
            lines.append(f"{when(item.at)} — {who(item.nation or '?')}: /roll")
            lines.append("  " + (free or roll_line)(item))
    if digest.left_out:
        lines.append(f"{plural(digest.left_out, 'later action')} left out (at most {len(digest.items)} at once): "
                     f"/game digest since:{digest.next_since:%Y-%m-%dT%H:%M:%S} goes on from there.")
    if digest.marked:
        lines.append("The next /game digest starts from here.")
    return lines


@dataclass(frozen=True)
class GameList:
    """/game list: each live game shown, as its channel (the store's key) and its line, and how many more there
    are than were shown."""

    games: list[tuple[str, Line]]
    more: int = 0

    @property
    def count(self) -> int:
        """How many live games there are in all."""
        return len(self.games) + self.more

    def view(self, where: str) -> View:
        """The list as text front-ends show it: a title, then each game under its channel's key."""
        if not self.count:
            return view(f"No game is running in {where}: /game start starts one.")
        more = [line(f"…and {self.more} more (at most {MAX_LISTED} are shown).")] if self.more else []
        return view(f"Games running in {where}: {self.count}",
                    *[line(f"{key}: ", *shown.parts, item=True) for key, shown in self.games], *more)


@dataclass
class Report:
    """What one call did: the game, its events in order (catch-up first) and the state after, and the logged
    actions it reports (catch-up first), whose announcing message a front-end may record for /log rolls."""

    game_id: int
    state: Any
    events: list[Event] = field(default_factory=list)
    caught_up: list[Event] = field(default_factory=list)
    action_ids: list[int] = field(default_factory=list)


Listener = Callable[[Report, bool], Awaitable[None]]
"""What hears of each commit (`Referee.on_commit`): (the report, whether it is the clock's rollover)."""


@dataclass(frozen=True)
class UndoneAction:
    """One action an undo would take back: its log row and its live events (its rolls among them)."""

    action: ActionRow
    events: list[Event]


@dataclass(frozen=True)
class UndoPreview:
    """What `/gm undo steps:N` would take back now, newest first (`Referee.preview_undo`)."""

    game_id: int
    actions: list[UndoneAction]

    @property
    def action_ids(self) -> tuple[int, ...]:
        return tuple(a.action.id for a in self.actions)

    @property
    def steps(self) -> int:
        return len(self.actions)

    def lines(self, words: Callable[[Event], str | None] = event_line, when: Callable[[datetime], str] = utc_text,
              who: Callable[[str], str] = same) -> list[str]:
        """The preview in words, the same on every front-end: a heading, then each action (its actor, command
        and time) and under it its events' lines — its rolls and every change it made. `words` words one event
        (the console: `event_line`; Discord marks rolls its own way)."""
        count = "the last action" if self.steps == 1 else f"the last {self.steps} actions"
        lines = [f"Undo {count}? It takes back, newest first, with their rolls and every change they made:"
                 if self.steps > 1 else f"Undo {count}? It takes back, with its rolls and every change it made:"]
        for number, undone in enumerate(self.actions, 1):
            row = undone.action
            lines.append(f"{number}. {who(row.actor)}: “{row.command}” ({when(row.at)})")
            shown = [line for event in undone.events if (line := words(event))]
            lines += [f"    {line}" for line in shown] or ["    (no roll and no change to show)"]
        return lines


class Referee:
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
        is_gm = gm_role or (state is not None and actor.lower() == state.gm.lower())
        rules = self.rules_for(state.ruleset if state is not None else ruleset_name or default_ruleset().name)
        return Context(now=now or self.clock(), actor=actor, rules=rules, is_gm=is_gm, roller=self.roller)

    @staticmethod
    def is_gm(state: GameState, actor: str, gm_role: bool = False) -> bool:
        return gm_role or actor.lower() == state.gm.lower()

    async def game_id(self, channel: str) -> int:
        game_id = await self.store.live_game(channel)
        if game_id is None:
            raise NoGame(NO_GAME)
        return game_id

    async def ruleset_name(self, channel: str) -> str:
        """The rule set of the channel's game (one indexed lookup, no state loaded)."""
        found = await self.store.live_ruleset(channel)
        if found is None:
            raise NoGame(NO_GAME)
        return found

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

    async def show(self, channel: str, command: Command, actor: str, options: dict[str, Any]) -> tuple[Any, Any]:
        """A query's view (`command.view`) and the state it shows: the channel's live game or, for a query that
        `shows_ended` (a status), its last ended one when none runs. A rule set's query in a game of another
        rule set is refused with the reason."""
        state = await (self.shown_state(channel) if command.shows_ended else self.state(channel))
        check_ruleset(command, state.ruleset)
        return command.view(state, self.rules_for(state.ruleset), actor, options), state

    async def chart(self, channel: str, command: Command, options: dict[str, Any]) -> Any:
        """What a chart command (`command.chart`) draws, from the stored stat history of the channel's shown game
        (`engine.chartspec.Chart`; the front-end draws it with `charts.render`). A rule set's chart in a game of
        another rule set is refused with the reason, and so are options the chart cannot draw."""
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
                         options: str | None = None, busy: str = BUSY) -> Report:
        """A new game of a rule set in a channel with no live game; `actor` is its GM. `busy`: the refusal where a
        game runs already."""
        rules = ruleset(ruleset_name) if ruleset_name else default_ruleset()
        busy = RuleViolation(busy)
        if await self.store.live_game(channel) is not None:
            raise busy
        outcome = rules.start(self.context(None, actor, ruleset_name=rules.name),
                              {"turn_hours": turn_hours, "options": options})
        try:
            game_id, action_id = await self.store.create_game(channel, guild_id, outcome.state, outcome.events, actor,
                                                              command, self.clock())
        except ChannelTaken:
            raise busy from None
        report = Report(game_id, outcome.state, outcome.events, action_ids=[action_id])
        await self.committed(report)
        return report

    async def act(self, channel: str, actor: str, action: Any, command: str, gm_role: bool = False,
                  vocabulary: Command | None = None) -> Report:
        """Catch up, then run one engine action and commit both: the channel's game found, loaded, changed and
        saved in one transaction, one round trip to the store. `vocabulary`: the command the action was built
        from, refused (before anything) in a game of another rule set.

        A refusal raises and commits nothing but the catch-up."""
        now = self.clock()
        try:
            game_id, result = await self.store.run_channel(channel, lambda state: self._plan(
                state, now, actor, action, command, gm_role, vocabulary))
        except NoLiveGame:
            raise NoGame(NO_GAME) from None
        report = self._report(game_id, result)
        await self.committed(report)
        return report

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
                                                   lambda name, document: self._quick(name, document, now),
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

    async def undo_target(self, channel: str) -> ActionRow | None:
        """The action `/gm undo` would take back now (the last one that is not the clock's or the game's
        start), or None."""
        targets = await self._undo_targets(await self.game_id(channel), 1)
        return targets[0] if targets else None

    async def _undo_targets(self, game_id: int, steps: int) -> list[ActionRow]:
        """The last `steps` actions undo may take back (fewer when there are fewer), newest first: not the
        clock's, not the game's start, not an undo."""
        logged = await self.store.events(game_id)
        foundational = {e.action_id for e in logged if e.event.starts_game or isinstance(e.event, ActionUndone)}
        return [a for a in await self.store.actions(game_id, limit=1000, include_undone=False)
                if a.actor != CLOCK_ACTOR and a.id not in foundational][:steps]

    @staticmethod
    def _check_steps(steps: int) -> None:
        if not isinstance(steps, int) or isinstance(steps, bool) or not 1 <= steps <= MAX_UNDO_STEPS:
            raise BadInput(f"steps is how many of the last actions to undo: 1 to {MAX_UNDO_STEPS}, not {steps}")

    async def _planned_undo(self, game_id: int, steps: int) -> tuple[list[ActionRow], list[LoggedEvent], Any]:
        """The actions `steps` undoes, the live log, and the state without them; refused in one line when there
        are fewer undoable actions than `steps`, or when the log without them no longer replays."""
        targets = await self._undo_targets(game_id, steps)
        if not targets:
            raise RuleViolation("there is nothing to undo")
        if len(targets) < steps:
            raise RuleViolation(f"only {plural(len(targets), 'action')} can be undone, not {steps}")
        logged = await self.store.events(game_id)
        ids = {a.id for a in targets}
        try:
            new_state = replay(e.event for e in logged if e.action_id not in ids)
        except (KeyError, ValueError, IndexError) as err:
            which = targets[0].command if len(targets) == 1 else f"the last {len(targets)} actions"
            raise RuleViolation(f"{which} cannot be undone any more ({err})") from None
        return targets, logged, new_state

    async def preview_undo(self, channel: str, actor: str, steps: int = 1, gm_role: bool = False) -> UndoPreview:
        """What `/gm undo steps:N` would take back now — each action with its command, its rolls and every
        change it made — without changing anything (each front-end shows its `lines`, then asks to confirm).
        Refused, in one line, as the undo itself would be."""
        self._check_steps(steps)
        game_id = await self.game_id(channel)
        state = await self.store.load(game_id)
        if not self.is_gm(state, actor, gm_role):
            raise NotGM("only the GM may undo")
        targets, logged, _ = await self._planned_undo(game_id, steps)
        return UndoPreview(game_id, [UndoneAction(a, [e.event for e in logged if e.action_id == a.id])
                                     for a in targets])

    async def undo(self, channel: str, actor: str, gm_role: bool = False,
                   expected: int | Sequence[int] | None = None, steps: int = 1) -> Report:
        """GM: take back the game's last `steps` actions (1 to MAX_UNDO_STEPS), their rolls included, by
        replaying the log without them: one transaction, one logged undo.

        `expected`: the action ids the GM confirmed undoing (`UndoPreview.action_ids`; an int: the newest of
        them); when they are no longer the last ones (undone already, or something happened since) nothing is
        undone. A confirmation applies once."""
        self._check_steps(steps)
        game_id = await self.game_id(channel)
        async with self.lock(game_id):
            caught_up = await self._catch_up(game_id)
            state = await self.store.load(game_id)
            if not self.is_gm(state, actor, gm_role):
                raise NotGM("only the GM may undo")
            # The game's newest action before anything is checked: whatever another process logs after it makes
            # the store refuse the undo (GameMovedOn), so the actions checked here are the ones taken back.
            [newest] = await self.store.actions(game_id, limit=1)
            if expected is not None:
                now_ids = tuple(a.id for a in await self._undo_targets(game_id, steps))
                wanted = (expected,) if isinstance(expected, int) else tuple(expected)
                if len(now_ids) < steps or now_ids[:len(wanted)] != wanted:
                    raise RuleViolation(MOVED_ON)
            targets, _, new_state = await self._planned_undo(game_id, steps)
            undone = [ActionUndone(a.id, a.command, actor, a.actor) for a in targets]
            command = "/gm undo" + (f" steps:{steps}" if steps > 1 else "")
            await self.store.undo(game_id, [a.id for a in targets], new_state, undone, actor, command, self.clock(),
                                  last_action=newest.id)
        report = Report(game_id, new_state, list(undone), caught_up)
        await self.committed(report)
        return report

    async def rolls(self, channel: str, nation: str | None = None, limit: int = 10) -> list[RollRecord]:
        """The channel's latest `limit` rolls (1..MAX_ROLLS_SHOWN), of one nation or all: of its live game, or
        of its last ended one when none runs."""
        if not 1 <= limit <= MAX_ROLLS_SHOWN:
            raise BadInput(f"limit is 1 to {MAX_ROLLS_SHOWN}, not {limit}")
        return await self.store.rolls(await self.shown_game_id(channel), nation, limit)

    async def free_roll(self, channel: str, actor: str, dice: str) -> tuple[FreeRoll, bool]:
        """/roll: any dice (d20 notation, bounded; BadInput before any die for what is refused), rolled with the
        referee's roller. Logged in the channel's live game's ledger, if there is one, as a free roll: a rolls
        row of no action, so it never counts for a rule, never takes a GM-entered die, and /gm undo never takes
        it back. Returns the roll and whether it was logged."""
        roll = free_roll(dice, self.roller)
        game_id = await self.store.live_game(channel)
        if game_id is None:
            return roll, False
        state = await self.store.load(game_id)
        await self.store.add_free_roll(game_id, actor, roll, int(getattr(state, "turn", 0) or 0), self.clock())
        await self.committed(Report(game_id, state, []))
        return roll, True

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
        """A game from an export, in a channel with no live game; the importer becomes its GM."""
        if await self.store.live_game(channel) is not None:
            raise RuleViolation("this channel already has a game running: end it first with /game end")
        titles = " or ".join(r.title for r in RULESETS.values())
        if not isinstance(data, dict) or not isinstance(data.get("game"), dict):
            raise BadInput(f"that is not a {titles} export: it has no game object")
        try:
            rules = ruleset(data["game"].get("ruleset", default_ruleset().name))
        except BadInput:
            raise BadInput(f"that is not a {titles} export: its game.ruleset names no rule set this referee "
                           "plays") from None
        data = dict(data)
        history = check_history(data.pop("history", None), self.clock())  # the stat history: the shared format
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
            raise RuleViolation("that export is of a game that has ended: nothing is left to play in it, so it cannot "
                                "be imported (an export of a game still running can)")
        problems = rules.check_state(state, self.rules_for(rules.name))
        if problems:
            raise RuleViolation("that export breaks the rules: " + "; ".join(problems[:5]))
        try:
            game_id = await self.store.import_game(channel, guild_id, state, rolls, actor, command, self.clock(),
                                                   history)
        except ChannelTaken:
            raise RuleViolation("this channel already has a game running: end it first with /game end") from None
        except (KeyError, TypeError, ValueError) as err:
            raise BadInput(f"the export's rolls are malformed: {type(err).__name__} {err}") from None
        report = Report(game_id, await self.store.load(game_id), [])
        await self.committed(report)
        return report
