"""The store's games: creating a game, loading and saving it (its snapshot, its next due time), running the
engine on it in one transaction (`run_game`, `run_channel`, the clock's `run_games` and its quick catch-up),
undo, export and import, and the queries that find and list games.
"""

from __future__ import annotations

import asyncio
import logging
import sqlite3
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, TypeVar

import orjson

from data.store import keys
from data.store.connection import CommitUnknown, StoreUnavailable
from data.store.encoding import (
    StaleSnapshot,
    _iso,
    event_json,
    is_typed,
    pack_state,
    snapshot_document,
    unpack_state,
)
from data.store.frontend import ANNOUNCE_GRACE, OUTBOX_IF_DISCORD, OUTBOX_INSERT
from data.store.ledger import ROLL_INSERT, action_events, insert_history, record_history, roll_row
from data.store.part import Part
from engine.clock import next_deadline
from engine.errors import RefereeError
from engine.events import (
    DiceRolled,
    DieRolled,
    Event,
    GameImported,
    event_from_dict,
    replay,
    to_jsonable,
)
from engine.history import HistoryEntry, Point, entry_to_dict, last_point
from engine.rulesets import GameState, ruleset, ruleset_of

T = TypeVar("T")
log = logging.getLogger("referee.store")


class ChannelTaken(Exception):
    """The channel already has a live game."""


class NoLiveGame(Exception):
    """The channel has no live game."""


MAX_LOG_AHEAD = 16
"""Log-only rollovers a game's snapshot may fall behind its log (each replayed on every load until the next write):
once there, the clock's next rollover of the game is the full one, which writes the snapshot again (compaction)."""
PENDING_EVENTS = ("SELECT data FROM events WHERE game_id = ? AND undone = 0 AND action_id IN"
                  " (SELECT id FROM actions WHERE game_id = ? ORDER BY id DESC LIMIT ?) ORDER BY id")
"""The live events of a game's newest `log_ahead` actions: those its snapshot does not hold yet (every other write
rewrites the snapshot, so they are always the newest)."""
LIVE_EVENTS = "SELECT data FROM events WHERE game_id = ? AND undone = 0 ORDER BY id"
"""A game's whole live log: what its state is the replay of."""
GAME_MOVED_ON = "the game changed while this was being prepared; nothing changed — try again"


class GameMovedOn(RefereeError):
    """Another action was logged in the game after a change was worked out against it (another process's):
    nothing was written."""


@dataclass(frozen=True)
class GameRow:
    id: int
    channel: str
    guild_id: int | None
    ended: bool
    next_deadline: datetime | None
    status_message_id: int | None = None
    reminded_turn: int = 0
    remind_at: datetime | None = None  # the front-end's next reminder


@dataclass(frozen=True)
class ListedGame:
    """A live game as /game list lists it: where it is, its GM, and its state."""

    id: int
    channel: str
    guild_id: int | None
    gm: str
    state: GameState


@dataclass
class Entry:
    """One log entry a plan asks to commit: who did what, and the events it produced."""

    actor: str
    command: str
    now: datetime
    events: list[Event]


@dataclass
class Quick:
    """What a quick catch-up worked out from a game's clock fields: its log entries, its next due, the clock fields
    after them (the snapshot is not rewritten: it catches up on its next load)."""

    entries: list[Entry]
    next_due: datetime | None
    fields: dict[str, Any]


@dataclass
class Plan:
    """What `run_game`'s plan returns: the entries to commit, the state after them, and a refusal to raise
    once they are committed (a catch-up commits even when the command after it is refused)."""

    state: Any
    entries: list[Entry] = field(default_factory=list)
    refusal: BaseException | None = None
    action_ids: list[int] = field(default_factory=list)  # the logged actions of `entries`, once committed
    repeated: bool = False  # the first outcome of its idempotency key, read back: nothing ran or committed now


class Games(Part):
    """The store's part that creates, runs, saves, lists, exports and imports games."""

    _keys_pruned: datetime | None = None  # when this store last deleted the keys older than a day

    async def create_game(
        self, channel: str, guild_id: int | None, state: GameState, events: list[Event],
        actor: str, command: str, now: datetime, key: str | None = None,
    ) -> tuple[int, int]:
        """A new game with its first action; returns (game id, action id). `key`: the command's idempotency key,
        recorded with it (a commit that lost the connection is looked up: `first_outcome` answers a retry)."""
        ran: list[tuple[int, int]] = []

        def work(con: sqlite3.Connection) -> tuple[int, int]:
            game_id = self._insert_game(con, channel, guild_id, state.gm, now)
            action_id = self._log(con, game_id, actor, command, now, events)
            record_history(con, game_id, action_id, state, (), None, now)
            self._write_snapshot(con, game_id, state)
            if key is not None:
                self._record_key(con, key, game_id, action_id, [action_id], None, now)
                ran.append((game_id, action_id))
            return game_id, action_id

        try:
            return await self._transaction(work)
        except CommitUnknown as err:
            if key is None:
                raise
            first = await self._landed(key, err)  # saved, or refused: nothing changed
            if ran and first.action_ids == [ran[-1][1]]:
                return ran[-1]
            return first.game_id, first.action_ids[-1]

    async def run_game(self, game_id: int, plan: Callable[[Any], Plan], announce: bool = False) -> Plan:
        """Load a game, run `plan(state)` on it and commit its entries and state: one transaction, one round
        trip. A plan that raises commits nothing; a plan's `refusal` is raised after its entries commit.
        `announce`: its entries go in the outbox of announcements too (`take_unannounced`)."""

        result = await self._transaction(lambda con: self._run_plan(con, game_id, plan, announce))
        if result.refusal is not None:
            raise result.refusal
        return result

    async def run_channel(self, channel: str, plan: Callable[[Any], Plan], key: str | None = None,
                          now: datetime | None = None) -> tuple[int, Plan]:
        """`run_game` for the channel's live game, the lookup folded into the same transaction: a command is one
        round trip to the database thread. Returns the game's id with the plan; `NoLiveGame` when there is none.

        `key`: the command's idempotency key (`data.store.keys`), recorded with its outcome at `now`. A key that
        has committed already answers its first outcome (the plan does not run: `Plan.repeated`); a COMMIT that
        lost the connection is looked up once reconnected: saved (this plan's answer) or `StoreUnavailable`."""

        query = "SELECT id, ruleset, snapshot, snapshot_z, log_ahead FROM games WHERE channel = ? AND ended = 0"
        query += self._dialect.for_update
        if key is not None:
            keys.check_key(key)
            now = now or datetime.now(UTC)
        ran: list[tuple[int, Plan]] = []

        def work(con: sqlite3.Connection) -> tuple[int, Plan]:
            if key is not None and (first := keys.recorded(con, key)) is not None:
                return first.game_id, self._repeat(con, first)
            row = con.execute(query, (channel,)).fetchone()  # the game found and read (and locked) at once
            if row is None:
                raise NoLiveGame(channel)
            state = stored_state(con, int(row[0]), row[1], row[2], row[3], row[4])
            result = self._run_plan(con, int(row[0]), plan, loaded=state)
            if key is not None and now is not None:
                mine = result.action_ids[-1] if result.refusal is None and result.action_ids else None
                self._record_key(con, key, int(row[0]), mine, result.action_ids, result.refusal, now)
                ran.append((int(row[0]), result))
            return int(row[0]), result

        try:
            game_id, result = await self._grouped(work, channel)
        except CommitUnknown as err:
            if key is None:
                raise
            first = await self._landed(key, err)  # saved, or refused: nothing changed
            mine = [done for done in ran if done[1].action_ids == first.action_ids]  # this plan's own answer
            game_id, result = mine[0] if mine else (first.game_id, await self._read(self._repeat, first))
        except self._errors as err:  # another delivery of the key committed while this one ran (PostgreSQL)
            again = await self.first_outcome(key) if key is not None and self._dialect.is_unique_violation(err) \
                else None
            if again is None:
                raise
            game_id, result = again
        if result.refusal is not None:
            raise result.refusal
        return game_id, result

    async def first_outcome(self, key: str) -> tuple[int, Plan] | None:
        """The first outcome of a command with this idempotency key, if one has committed: its game's id and a
        `Plan.repeated` of what it logged (its events, read back; the game's state as it is now)."""

        def work(con: sqlite3.Connection) -> tuple[int, Plan] | None:
            first = keys.recorded(con, key)
            return None if first is None else (first.game_id, self._repeat(con, first))

        return await self._read(work)

    def _record_key(self, con: sqlite3.Connection, key: str, game_id: int, action_id: int | None,
                    action_ids: list[int], refusal: BaseException | None, now: datetime) -> None:
        """A command's key recorded in its transaction (and, each PRUNE_EVERY at most, a batch of expired keys gone)."""
        keys.record(con, key, game_id, action_id, action_ids, refusal, now)
        if self._keys_pruned is None or now - self._keys_pruned >= keys.PRUNE_EVERY:
            self._keys_pruned = now
            keys.prune(con, now)

    async def _landed(self, key: str, err: CommitUnknown) -> keys.Recorded:
        """After a COMMIT that lost the connection: the key's outcome once reconnected if it was saved; else a
        refusal saying nothing changed (now known); when the database cannot be read either, one saying it cannot
        tell."""
        try:
            first = await self._read(keys.recorded, key)
        except StoreUnavailable:
            raise StoreUnavailable(keys.UNKNOWN.format(cause=err.cause)) from err
        if first is None:
            raise StoreUnavailable(err.nothing_changed) from err
        log.warning("a command's COMMIT lost the database connection but was saved (key %s)", key)
        return first

    def _repeat(self, con: sqlite3.Connection, first: keys.Recorded) -> Plan:
        """A key's first outcome as a plan again: each action it logged with its live events, the game's state now,
        its refusal. Nothing is run or written."""
        name, document = self._document(con, first.game_id)
        entries = []
        for action_id in first.action_ids:
            row = con.execute("SELECT actor, command, at FROM actions WHERE id = ?", (action_id,)).fetchone()
            if row is not None:
                events = action_events(con, first.game_id, action_id, name)
                entries.append(Entry(row[0], row[1], datetime.fromisoformat(row[2]), events))
        return Plan(ruleset(name).state_from_dict(document), entries, first.refusal(), list(first.action_ids),
                    repeated=True)

    async def run_games(self, game_ids: list[int], plan: Callable[[Any], Plan],
                        quick: Callable[[str, dict[str, Any]], Quick | None] | None = None,
                        announce: bool = False) -> dict[int, Plan]:
        """`run_game` for several games in one transaction (a batch of the clock's catch-up). Each game is
        all-or-nothing on its own: one whose plan or write fails is left as it was, and the others go on.

        `quick(ruleset, clock fields)`, when given, is tried first on each game's clock fields (`RuleSet.clock_fields`):
        when it returns its entries, they are logged and the fields and next due time updated, without reading the
        snapshot or building the state (the log-only rollover: the returned Plan's `state` is then None; the snapshot
        catches up on its next load); else `plan` runs.
        `announce`: the entries go in the outbox of announcements too, as in `run_game`."""

        def work(con: sqlite3.Connection) -> dict[int, Plan]:
            done: dict[int, Plan] = {}
            # the due games no other process holds now: those it holds, it is catching up (or a command is)
            ids = self._dialect.not_held(con, list(game_ids))
            slow = ids
            if quick is not None and ids:
                slow = self._run_quick(con, ids, quick, done, announce)
            for game_id in slow:
                con.execute("SAVEPOINT game")
                try:
                    result = self._run_plan(con, game_id, plan, announce)
                except self._errors as err:
                    if self._dialect.fault_cause(err) is not None:
                        raise  # the database itself failed: the whole batch is refused
                    log.exception("catching up game %s failed; it is left as it was", game_id)
                    con.execute("ROLLBACK TO game")
                except Exception:
                    log.exception("catching up game %s failed; it is left as it was", game_id)
                    con.execute("ROLLBACK TO game")
                else:
                    done[game_id] = result
                con.execute("RELEASE game")
            return done

        return await self._transaction(work)

    def _run_quick(self, con: sqlite3.Connection, game_ids: list[int],
                   quick: Callable[[str, dict[str, Any]], Quick | None], done: dict[int, Plan],
                   announce: bool = False) -> list[int]:
        """The log-only catch-ups of a batch: every game's clock fields read in one query, each tried with `quick`,
        and what they logged saved with one statement per table; the snapshots are not read nor written. Returns the
        games `quick` left to the full plan (no clock fields yet, or a snapshot `MAX_LOG_AHEAD` behind)."""
        marks = ",".join("?" * len(game_ids))
        rows = {row[0]: row for row in con.execute(f"SELECT id, ruleset, clock, log_ahead FROM games"
                                                   f" WHERE id IN ({marks})", game_ids)}
        slow, written = [], []
        for game_id in game_ids:
            row = rows.get(game_id)
            fast = None
            if row is not None and row[2] is not None and row[3] < MAX_LOG_AHEAD:
                try:
                    fast = quick(row[1], orjson.loads(row[2]))
                except Exception:  # left to the full plan, which logs what fails
                    log.exception("the quick catch-up of game %s failed; trying the full one", game_id)
            if fast is None or any(isinstance(e, DieRolled | DiceRolled) for n in fast.entries for e in n.events):
                slow.append(game_id)
                continue
            written.append((game_id, fast))
            done[game_id] = Plan(None, list(fast.entries))
            done[game_id].action_ids = []
        if not written:
            return slow
        # One statement per table for the whole batch; the actions' ids are given, so events can name them.
        count = sum(len(fast.entries) for _, fast in written)
        new_ids = self._dialect.new_action_ids(con, count)
        actions, events, outbox = [], [], []
        numbered = iter(new_ids)
        moment: datetime | None = None  # the batch's entries share one `now`: its text is worked out once
        for game_id, fast in written:
            for entry in fast.entries:
                if entry.now is not moment:
                    moment, at, due_at = entry.now, _iso(entry.now), _iso(entry.now + ANNOUNCE_GRACE)
                next_id = next(numbered)
                done[game_id].action_ids.append(next_id)
                actions.append((next_id, game_id, entry.actor, entry.command, at))
                events += [(game_id, next_id, e.kind, event_json(e)) for e in entry.events]
                outbox.append((next_id, due_at, game_id))
        con.executemany("INSERT INTO actions (id, game_id, actor, command, at) VALUES (?, ?, ?, ?, ?)", actions)
        con.executemany("INSERT INTO events (game_id, action_id, kind, data) VALUES (?, ?, ?, ?)", events)
        if announce:
            con.executemany(OUTBOX_INSERT, outbox)
        con.executemany("UPDATE games SET clock = ?, next_due = ?, log_ahead = log_ahead + ? WHERE id = ?",
                        [(orjson.dumps(fast.fields), _iso(fast.next_due) if fast.next_due else None,
                          len(fast.entries), game_id) for game_id, fast in written])
        return slow

    def _run_plan(self, con: sqlite3.Connection, game_id: int, plan: Callable[[Any], Plan],
                  announce: bool = False, loaded: Any = None) -> Plan:
        """Load the game (its row locked until the transaction ends, on PostgreSQL: a game's commands are
        serialised across processes) unless it is `loaded` already (so, in this transaction), run the plan, write
        its entries, their stat history and (if any) the new snapshot."""
        state = loaded if loaded is not None else self._load(con, game_id, lock=True)
        point_of = ruleset_of(state).history_point
        before = point_of(state) if point_of is not None else None  # the plan may change `state` in place
        turn_before = getattr(state, "turn", 0)
        result = plan(state)
        result.action_ids = [self._log(con, game_id, entry.actor, entry.command, entry.now, entry.events)
                             for entry in result.entries]
        if announce and result.entries:
            con.executemany(OUTBOX_INSERT, [(action_id, _iso(entry.now + ANNOUNCE_GRACE), game_id)
                                            for entry, action_id in zip(result.entries, result.action_ids,
                                                                        strict=True)])
        elif result.refusal is not None and result.entries:
            # A refused command's catch-up is committed but its answer is the refusal alone: the Discord clock
            # announces it (due at once; a console game has no server and no row).
            con.executemany(OUTBOX_IF_DISCORD, [(action_id, _iso(entry.now), game_id)
                                                for entry, action_id in zip(result.entries, result.action_ids,
                                                                            strict=True)])
        if result.entries:
            if point_of is not None:
                self._history_of_plan(con, game_id, result, before, turn_before)
            self._write_snapshot(con, game_id, result.state)
        return result

    def _history_of_plan(self, con: sqlite3.Connection, game_id: int, result: Plan, before: Point | None,
                         turn_before: int) -> None:
        """Each entry's stat history, at the turn it left the game in (or the one its rule set's `history_turn`
        says, from the turn it was taken in). One entry (a command) is the state after it; several (a catch-up)
        are replayed one by one from the snapshot."""
        state = result.state if len(result.entries) == 1 else self._load(con, game_id)
        for entry, action_id in zip(result.entries, result.action_ids, strict=True):
            if len(result.entries) > 1:
                turn_before = getattr(state, "turn", 0)
                state = replay(entry.events, state)
            before = record_history(con, game_id, action_id, state, entry.events, before, entry.now, turn_before)

    async def undo(self, game_id: int, action_id: int | Sequence[int], state: GameState,
                   undo_event: Event | Sequence[Event], actor: str, command: str, now: datetime,
                   last_action: int | None = None) -> int:
        """Mark one action (or several, `/gm undo steps:N`), its events and its rolls undone, log the undo (one
        action, an ActionUndone event for each action undone) and write the replayed state: one transaction.

        `last_action`: the game's newest action when `state` was worked out; if another has been logged since
        (another process's command), nothing is undone (`GameMovedOn`)."""
        ids = [action_id] if isinstance(action_id, int) else list(action_id)
        undo_events = [undo_event] if isinstance(undo_event, Event) else list(undo_event)

        def work(con: sqlite3.Connection) -> int:
            if last_action is not None:
                self._document(con, game_id, lock=True)
                [newest] = con.execute("SELECT MAX(id) FROM actions WHERE game_id = ?", (game_id,)).fetchone()
                if newest != last_action:
                    raise GameMovedOn(GAME_MOVED_ON)
            for undone_id in ids:
                for table in ("events", "rolls", "history"):
                    # (by its game first: each table is indexed by game, not by action, and a server's database
                    # holds every game's log)
                    con.execute(f"UPDATE {table} SET undone = 1 WHERE game_id = ? AND action_id = ?",
                                (game_id, undone_id))
                con.execute("UPDATE actions SET undone = 1 WHERE id = ?", (undone_id,))
            new_id = self._log(con, game_id, actor, command, now, undo_events)
            self._write_snapshot(con, game_id, state)
            return new_id

        return await self._transaction(work)

    # --- the pieces of a transaction (they run in the database thread) -----------------------------

    def _insert_game(self, con: sqlite3.Connection, channel: str, guild_id: int | None, gm: str,
                     now: datetime) -> int:
        try:
            cursor = con.execute("INSERT INTO games (channel, guild_id, gm, created_at) VALUES (?, ?, ?, ?)"
                                 " RETURNING id", (channel, guild_id, gm, _iso(now)))
            return int(cursor.fetchone()[0])
        except self._errors as err:
            if self._dialect.is_unique_violation(err):
                raise ChannelTaken(channel) from None
            raise

    def _write_snapshot(self, con: sqlite3.Connection, game_id: int, state: GameState) -> None:
        """The game's row: its snapshot (`pack_state`; holding its whole log: `log_ahead` 0), its clock fields and its
        next due time (the clock's index)."""
        due = next_deadline(state)
        rules = ruleset_of(state)
        fields = orjson.dumps(rules.clock_fields(state)) if rules.clock_fields is not None else None
        con.execute(
            "UPDATE games SET gm = ?, ruleset = ?, ended = ?, snapshot = NULL, snapshot_z = ?, next_due = ?,"
            " clock = ?, log_ahead = 0 WHERE id = ?",
            (state.gm, state.ruleset, int(state.ended), pack_state(rules, state),
             _iso(due) if due else None, fields, game_id),
        )

    def _load(self, con: sqlite3.Connection, game_id: int, lock: bool = False) -> Any:
        return stored_state(con, game_id, *self._row(con, game_id, lock))

    def _document(self, con: sqlite3.Connection, game_id: int, lock: bool = False) -> tuple[str, dict[str, Any]]:
        """A game's rule set and its document (the export format, as stored, with the log-only rollovers it is behind
        replayed on it); with `lock`, inside a transaction, its row stays locked to other processes until the
        transaction ends (PostgreSQL: SQLite's BEGIN IMMEDIATE already holds the whole database)."""
        name, text, packed, ahead = self._row(con, game_id, lock)
        if not ahead and (packed is None or not is_typed(packed)):
            return name, snapshot_document(text, packed)
        state = stored_state(con, game_id, name, text, packed, ahead)
        return name, ruleset(name).state_to_dict(state)

    def _row(self, con: sqlite3.Connection, game_id: int, lock: bool = False) -> tuple[str, Any, Any, int]:
        """A game's rule set, snapshot (either form) and `log_ahead`."""
        query = "SELECT ruleset, snapshot, snapshot_z, log_ahead FROM games WHERE id = ?"
        if lock:
            query += self._dialect.for_update
        row = con.execute(query, (game_id,)).fetchone()
        if row is None:
            raise KeyError(f"no game {game_id}")
        return row[0], row[1], row[2], int(row[3])

    # --- reading -------------------------------------------------------------------------------

    async def live_game(self, channel: str) -> int | None:
        """The id of the channel's game that has not ended, if any."""
        rows = await self._fetchall("SELECT id FROM games WHERE channel = ? AND ended = 0", (channel,))
        return int(rows[0]["id"]) if rows else None

    async def last_ended_game(self, channel: str) -> int | None:
        """The id of the channel's most recent game that has ended, if any."""
        rows = await self._fetchall("SELECT MAX(id) AS id FROM games WHERE channel = ? AND ended = 1", (channel,))
        return int(rows[0]["id"]) if rows and rows[0]["id"] is not None else None

    async def live_ruleset(self, channel: str) -> str | None:
        """The rule set of the channel's game that has not ended, if any."""
        rows = await self._fetchall("SELECT ruleset FROM games WHERE channel = ? AND ended = 0", (channel,))
        return str(rows[0]["ruleset"]) if rows else None

    async def games(self, live_only: bool = True, game_id: int | None = None) -> list[GameRow]:
        """Every game (live ones only by default; or the one game asked for) with its next deadline."""
        where, params = [], []
        if live_only:
            where.append("ended = 0")
        if game_id is not None:
            where.append("id = ?")
            params.append(game_id)
        query = ("SELECT id, channel, guild_id, ended, status_message_id, reminded_turn, next_due, remind_at FROM games"
                 + (" WHERE " + " AND ".join(where) if where else "") + " ORDER BY id")
        rows = await self._fetchall(query, params)
        return [
            GameRow(int(r["id"]), r["channel"], r["guild_id"], bool(r["ended"]),
                    datetime.fromisoformat(r["next_due"]) if r["next_due"] else None,
                    r["status_message_id"], int(r["reminded_turn"]),
                    datetime.fromisoformat(r["remind_at"]) if r["remind_at"] else None)
            for r in rows
        ]

    async def listed_games(self, guild_id: int | None, gm: str, limit: int) -> tuple[list[ListedGame], int]:
        """The live games of a server (`guild_id`; None: every live game in the database), those `gm` runs as
        their GM first (compared as the referee compares GMs: without case), each group in the order the games
        began; at most `limit` of them with their states, and how many there are in all. One round trip."""

        def work(con: sqlite3.Connection) -> tuple[list[ListedGame], int]:
            query = "SELECT id, channel, guild_id, gm FROM games WHERE ended = 0"
            params: tuple[Any, ...] = ()
            if guild_id is not None:
                query, params = query + " AND guild_id = ?", (guild_id,)
            rows = con.execute(query + " ORDER BY id", params).fetchall()
            rows.sort(key=lambda r: r[3].lower() != gm.lower())  # stable: the start order within each group
            shown = [ListedGame(int(r[0]), r[1], r[2], r[3], self._load(con, int(r[0]))) for r in rows[:limit]]
            return shown, len(rows)

        return await self._read(work)

    async def due(self, now: datetime) -> list[tuple[int, int | None]]:
        """(game id, server) of the live games with something due by `now`, earliest first: the clock's index."""
        query = "SELECT id, guild_id FROM games WHERE ended = 0 AND next_due <= ? ORDER BY next_due"
        return [(int(r["id"]), r["guild_id"]) for r in await self._fetchall(query, (_iso(now),))]

    async def due_page(self, now: datetime, limit: int,
                       after: tuple[str, int] | None = None) -> list[tuple[int, int | None, str]]:
        """`due` a page at a time, for a rollover of any number of games: at most `limit` (game id, server, due
        time) in the order (due time, id), those after `after` (the last one's (due time, id)) only."""
        query = "SELECT id, guild_id, next_due FROM games WHERE ended = 0 AND next_due <= ?"
        params: tuple[Any, ...] = (_iso(now),)
        if after is not None:
            query += " AND (next_due > ? OR (next_due = ? AND id > ?))"
            params += (after[0], after[0], after[1])
        rows = await self._fetchall(query + " ORDER BY next_due, id LIMIT ?", (*params, limit))
        return [(int(r["id"]), r["guild_id"], str(r["next_due"])) for r in rows]

    async def next_due_serverless(self) -> datetime | None:
        """The earliest due time of the live games of no server (the console's games): when its timer wakes."""
        rows = await self._fetchall("SELECT MIN(next_due) AS due FROM games WHERE ended = 0 AND guild_id IS NULL")
        return datetime.fromisoformat(rows[0]["due"]) if rows and rows[0]["due"] else None

    async def next_wake(self) -> datetime | None:
        """The earliest moment any live game needs the clock: a due time or a front-end reminder (one timer
        is enough for the whole clock). Two index lookups."""
        [row] = await self._fetchall("SELECT (SELECT MIN(next_due) FROM games WHERE ended = 0),"
                                     " (SELECT MIN(remind_at) FROM games WHERE ended = 0)")
        moments = [datetime.fromisoformat(value) for value in row if value] if row else []
        return min(moments, default=None)

    async def game(self, game_id: int) -> GameRow:
        """One game's row (live or not)."""
        rows = await self.games(live_only=False, game_id=game_id)
        if not rows:
            raise KeyError(f"no game {game_id}")
        return rows[0]

    async def load(self, game_id: int) -> Any:
        """The game's current state, from its snapshot (one row, one round trip)."""
        return await self._read(self._load, game_id)

    # --- export and import ---------------------------------------------------------------------

    async def export(self, game_id: int) -> dict[str, Any]:
        """One game as the export format's JSON-ready dict."""
        state = await self.load(game_id)
        rules = ruleset_of(state)
        data = rules.state_to_dict(state)
        rolls = []
        for roll in await self.rolls(game_id, include_free=False):
            item = to_jsonable(roll)
            item.pop("free", None)
            if roll.at == datetime.min:
                item["at"] = None
            rolls.append(rules.roll_to_dict(item) if rules.roll_to_dict else item)
        data["rolls"] = rolls
        data["history"] = [entry_to_dict(e) for e in await self.history(game_id)]
        return data

    async def import_game(self, channel: str, guild_id: int | None, state: GameState, rolls: list[dict[str, Any]],
                          actor: str, command: str, now: datetime, history: Sequence[HistoryEntry] = ()
                          ) -> tuple[int, int]:
        """A new game from an export's state, rolls and stat history: one GameImported event, the rolls and the
        history as they were, then whatever of the state the history does not show yet (at the import). Returns
        (the game's id, its import's logged action's id)."""
        def parts() -> tuple[dict[str, Any], list[tuple[Any, ...]]]:
            return ruleset_of(state).state_to_dict(state), [roll_row(roll) for roll in rolls]

        # made in a thread of their own, before the transaction: 100,000 rolls would hold the event loop, or the
        # database thread (and so every other game's command), for a good part of a second
        snapshot, rows = await asyncio.to_thread(parts)

        def work(con: sqlite3.Connection) -> tuple[int, int]:
            game_id = self._insert_game(con, channel, guild_id, state.gm, now)
            action_id = self._log(con, game_id, actor, command, now, [GameImported(snapshot)])
            con.executemany(ROLL_INSERT, [(game_id, None, *row) for row in rows])
            insert_history(con, game_id, None, history)
            record_history(con, game_id, action_id, state, (), last_point(history), now)
            self._write_snapshot(con, game_id, state)
            return game_id, action_id

        return await self._transaction(work)


_STALE_TOLD: set[int] = set()  # the games whose stale typed snapshot the log has told of (bounded)


def stored_state(con: sqlite3.Connection, game_id: int, name: str, text: str | bytes | None,
                 packed: bytes | memoryview | None, ahead: int) -> Any:
    """A game's state from its row: its snapshot (any form), with the events of the `ahead` newest actions it does
    not hold yet (the log-only rollovers since it was written) replayed on it: the state the whole log gives. A typed
    snapshot this version cannot read (its state class has changed since) gives way to the replay of the whole log."""
    try:
        state = unpack_state(ruleset(name), text, packed)
    except StaleSnapshot as stale:
        if game_id not in _STALE_TOLD:  # (once a game: it is read this way until its next write, maybe never)
            if len(_STALE_TOLD) >= 10_000:
                _STALE_TOLD.clear()
            _STALE_TOLD.add(game_id)
            log.warning("game %s: %s; its state is rebuilt from its log until its next write", game_id, stale)
        return replay(event_from_dict(orjson.loads(row[0]), name) for row in con.execute(LIVE_EVENTS, (game_id,)))
    if ahead:
        state = replay((event_from_dict(orjson.loads(row[0]), name)
                        for row in con.execute(PENDING_EVENTS, (game_id, game_id, ahead))), state)
    return state
