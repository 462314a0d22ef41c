"""The store's ledger: the log of a game as it is written (actions, events, rolls) and read back (events,
actions with their events, rolls, a page or a chunk of the ledger, free rolls), its stat history, and the
GM's digest mark.
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import orjson

from data.store import keys
from data.store.connection import CommitUnknown
from data.store.encoding import _iso, _json, event_json
from data.store.part import Part
from engine.dice import HIDDEN, REVEALED_MARK, FacesRecord, FreeRoll, RollRecord
from engine.events import (
    DiceRolled,
    DieRolled,
    Event,
    event_from_dict,
    replay,
)
from engine.history import HistoryEntry, Point, entries_of
from engine.rulesets import GameState, ruleset_of

# The live events of one action of a game (its game first: SQLite indexes events by game, not by action)
ACTION_EVENTS = "SELECT data FROM events WHERE game_id = ? AND action_id = ? AND undone = 0 ORDER BY id"
log = logging.getLogger("referee.store")
EVENTS_PAGE = 20_000  # events read in one turn of the database thread


SECRET, REVEALED = 1, 2  # rolls.secret (migration 020): a secret roll hidden, then revealed
MAX_SECRET_SHOWN = 25  # the secret rolls /log secret lists (the latest)


ACTION_INSERT = "INSERT INTO actions (game_id, actor, command, at) VALUES (?, ?, ?, ?) RETURNING id"
EVENT_INSERT = "INSERT INTO events (game_id, action_id, kind, data) VALUES (?, ?, ?, ?)"
ROLL_INSERT = ("INSERT INTO rolls (game_id, action_id, turn, nation, purpose, die, modifiers, total, target,"
               " comparison, success, forced, at, battle, unit, faces, sides)"
               " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")
"""One ledger row: its game, its action, then `roll_row`'s columns."""


def roll_row(roll: dict[str, Any]) -> tuple[Any, ...]:
    """A roll's columns after its game and action (`ROLL_INSERT`): a numbered die with modifiers, or (with `faces`
    and no `die`) dice with named faces. Plain work, outside any transaction (an import makes its rows first)."""
    if "faces" in roll and "die" not in roll:
        forced = roll.get("forced") or []
        return (roll.get("turn", 0), roll.get("player"), roll["purpose"], None, None, None, None, None, None,
                sum(map(bool, forced)) if isinstance(forced, list) else int(bool(forced)), roll.get("at") or "",
                None, None, json.dumps([str(f) for f in roll["faces"]]), None)
    return (roll.get("turn", 0), roll.get("nation"), roll["purpose"], roll["die"],
            json.dumps(roll.get("modifiers", {})), roll["total"], roll.get("target"), roll.get("comparison"),
            None if roll.get("success") is None else int(bool(roll["success"])), int(bool(roll["forced"])),
            roll.get("at") or "", roll.get("battle"), roll.get("unit"), None, roll.get("sides", 10))


def record_row(roll: RollRecord | FacesRecord) -> tuple[Any, ...]:
    """`roll_row(to_jsonable(roll))`, read straight from the record (each command logs its rolls: no walk of the
    dataclass into a dict first)."""
    at = roll.at
    when = at.isoformat() if isinstance(at, datetime) else at or ""
    if isinstance(roll, FacesRecord):
        forced = roll.forced
        return (roll.turn, roll.player, roll.purpose, None, None, None, None, None, None,
                sum(map(bool, forced)) if isinstance(forced, list | tuple) else int(bool(forced)), when,
                None, None, json.dumps([str(f) for f in roll.faces]), None)
    success = roll.success
    return (roll.turn, roll.nation, roll.purpose, roll.die,
            json.dumps({str(k): v for k, v in roll.modifiers.items()}), roll.total, roll.target, roll.comparison,
            None if success is None else int(bool(success)), int(bool(roll.forced)), when, roll.battle, roll.unit,
            None, roll.sides)


@dataclass(frozen=True)
class LoggedEvent:
    id: int
    action_id: int
    event: Event
    undone: bool


@dataclass(frozen=True)
class ActionRow:
    id: int
    actor: str
    command: str
    at: datetime
    undone: bool


@dataclass(frozen=True)
class LoggedAction:
    """One action of the log with its live events, in order (what a digest lists)."""

    action: ActionRow
    events: list[Event]


@dataclass(frozen=True)
class ReportMessage:
    """The Discord message that announced a logged action (migration 013): its channel (None: not known) and id."""

    channel_id: int | None
    message_id: int


@dataclass(frozen=True)
class LedgerFilter:
    """/log rolls' filters: one side's rolls (its name as stored), a purpose containing `purpose` (any case), a
    turn range, GM-entered dice only, and free rolls: "include", "only" or "exclude"."""

    who: str | None = None
    purpose: str | None = None
    turn_from: int | None = None
    turn_to: int | None = None
    gm_entered: bool = False
    free: str = "include"


class Ledger(Part):
    """The store's part that writes a game's log and reads it back: the ledger of rolls, the stat history."""

    # --- writing the log (in the database thread) ---------------------------------------------------

    def _log(self, con: sqlite3.Connection, game_id: int, actor: str, command: str, now: datetime,
             events: list[Event]) -> int:
        cursor = con.execute(ACTION_INSERT, (game_id, actor, command, _iso(now)))
        action_id = int(cursor.fetchone()[0])
        rolls = []
        if len(events) == 1:
            con.execute(EVENT_INSERT, (game_id, action_id, events[0].kind, event_json(events[0])))
        else:
            con.executemany(EVENT_INSERT, [(game_id, action_id, e.kind, event_json(e)) for e in events])
        for event in events:
            if isinstance(event, DieRolled | DiceRolled):
                rolls.append((game_id, action_id, *record_row(event.roll)))
        if len(rolls) == 1:
            con.execute(ROLL_INSERT, rolls[0])
        elif rolls:
            con.executemany(ROLL_INSERT, rolls)
        return action_id

    def _insert_roll(self, con: sqlite3.Connection, game_id: int, action_id: int | None,
                     roll: dict[str, Any]) -> None:
        """One ledger row: a numbered die with modifiers, or (with `faces` and no `die`) dice with named faces."""
        con.execute(ROLL_INSERT, (game_id, action_id, *roll_row(roll)))

    async def add_free_roll(self, game_id: int, actor: str, roll: FreeRoll, turn: int, now: datetime,
                            key: str | None = None, secret: bool = False) -> tuple[FreeRoll, int | None]:
        """Log a free roll (/roll) in a game's ledger: a rolls row of no action, marked `free` (see migration
        009). It changes no state and is no action: the undo, the replay and the export never see it.

        `secret`: a secret roll (migration 020), its dice seen by its roller and the game's GM alone until one of
        them reveals it (`secret_rolls`, `reveal_roll`); every other reading of the ledger hides them.

        Returns the roll logged and its row's id (a secret roll's number): `roll`, or, when a roll with the same
        idempotency `key` was logged already (a retry), that first one (its id unknown: None), and nothing is
        written."""

        def work(con: sqlite3.Connection) -> tuple[FreeRoll, int | None]:
            if key is not None:
                first = keys.recorded(con, keys.check_key(key))
                if first is not None and first.free_roll is not None:
                    return first.free_roll, None
            cursor = con.execute(
                "INSERT INTO rolls (game_id, action_id, turn, nation, purpose, die, modifiers, total, target,"
                " comparison, success, forced, at, battle, unit, faces, sides, free, secret)"
                " VALUES (?, NULL, ?, ?, ?, ?, '{}', ?, NULL, NULL, NULL, 0, ?, NULL, NULL, NULL, 0, ?, ?)"
                " RETURNING id",
                (game_id, turn, actor, f"free roll {roll.expression}", roll.total, roll.total, _iso(now),
                 roll.breakdown, SECRET if secret else 0))
            if key is not None:
                keys.record(con, key, game_id, None, [], None, now, free_roll=roll)
            return roll, int(cursor.fetchone()[0])

        try:
            return await self._transaction(work)
        except CommitUnknown as err:
            if key is None:
                raise
            first = await self._landed(key, err)  # saved, or refused: nothing changed
            return first.free_roll or roll, None

    async def secret_rolls(self, game_id: int, roller: str | None = None,
                           limit: int = MAX_SECRET_SHOWN) -> list[tuple[int, RollRecord, bool]]:
        """The game's secret rolls (of `roller` alone, or every one: the GM's view), newest last, at most `limit`
        of the latest: each its number, the roll with its dice, and whether it was revealed."""
        query = "SELECT * FROM rolls WHERE game_id = ? AND secret > 0"
        params: list[Any] = [game_id]
        if roller is not None:
            query += " AND nation = ?"
            params.append(roller)
        rows = await self._fetchall(query + " ORDER BY id DESC LIMIT ?", (*params, limit))
        return [(int(r["id"]), _free_record(r, shown=True), r["secret"] == REVEALED) for r in reversed(rows)]

    async def secret_roller(self, game_id: int, number: int) -> str | None:
        """Who made secret roll `number` of the game (None: the game has no secret roll of that number)."""
        rows = await self._fetchall("SELECT nation FROM rolls WHERE game_id = ? AND id = ? AND secret > 0",
                                    (game_id, number))
        return str(rows[0]["nation"]) if rows else None

    async def waiting_secrets(self, game_id: int, roller: str) -> int:
        """How many of `roller`'s secret rolls in the game are not revealed yet."""
        [row] = await self._fetchall("SELECT COUNT(*) AS n FROM rolls WHERE game_id = ? AND nation = ? AND secret = ?",
                                     (game_id, roller, SECRET))
        return int(row["n"])

    async def reveal_roll(self, game_id: int, number: int) -> tuple[RollRecord, bool] | None:
        """Mark secret roll `number` of the game revealed: the roll with its dice and whether it was secret still
        (False: revealed before, nothing changed). None: the game has no secret roll of that number."""

        def work(con: sqlite3.Connection) -> tuple[RollRecord, bool] | None:
            row = con.execute("SELECT * FROM rolls WHERE game_id = ? AND id = ? AND secret > 0",
                              (game_id, number)).fetchone()
            if row is None:
                return None
            if row["secret"] == SECRET:
                con.execute("UPDATE rolls SET secret = ? WHERE id = ?", (REVEALED, number))
            return _free_record(row, shown=True), row["secret"] == SECRET

        return await self._transaction(work)

    # --- reading it back ---------------------------------------------------------------------------

    async def events(self, game_id: int, include_undone: bool = False) -> list[LoggedEvent]:
        """The game's logged events, oldest first. A long game's log (hundreds of thousands of events) is read a page
        at a time (each page one short turn of the database thread, so other games' commands go between them) and
        parsed in a thread of its own (not the database thread, nor the event loop)."""
        query = "SELECT id, action_id, data, undone FROM events WHERE game_id = ? AND id > ?"
        if not include_undone:
            query += " AND undone = 0"
        query += " ORDER BY id LIMIT ?"
        def page_after(con: sqlite3.Connection, after: int) -> list[tuple[Any, ...]]:
            return [tuple(r) for r in con.execute(query, (game_id, after, EVENTS_PAGE))]

        ruleset = await self._read(game_ruleset, game_id)
        rows: list[tuple[Any, ...]] = []
        while True:
            page = await self._read(page_after, rows[-1][0] if rows else 0)
            rows += page
            if len(page) < EVENTS_PAGE:
                break

        def parsed() -> list[LoggedEvent]:
            return [LoggedEvent(at, action_id, event_from_dict(orjson.loads(data), ruleset), bool(undone))
                    for at, action_id, data, undone in rows]

        return await asyncio.to_thread(parsed)

    async def actions_with(self, game_id: int, kinds: Sequence[str]) -> set[int]:
        """The game's live actions that logged an event of one of these kinds (no event is read whole)."""
        marks = ",".join("?" * len(kinds))
        rows = await self._fetchall(f"SELECT DISTINCT action_id FROM events WHERE game_id = ? AND undone = 0 AND kind"
                                    f" IN ({marks})", (game_id, *kinds))
        return {int(row[0]) for row in rows}

    async def replayed(self, game_id: int) -> Any:
        """The game's state rebuilt from its live events (what the snapshot must equal)."""
        return replay(e.event for e in await self.events(game_id))

    async def actions(self, game_id: int, limit: int = 20, include_undone: bool = True) -> list[ActionRow]:
        """The newest actions first."""
        query = "SELECT * FROM actions WHERE game_id = ?" + ("" if include_undone else " AND undone = 0")
        rows = await self._fetchall(query + " ORDER BY id DESC LIMIT ?", (game_id, limit))
        return [ActionRow(r["id"], r["actor"], r["command"], datetime.fromisoformat(r["at"]), bool(r["undone"]))
                for r in rows]

    async def rolls(self, game_id: int, nation: str | None = None, limit: int | None = None,
                    include_undone: bool = False, include_free: bool = True) -> list[RollRecord | FacesRecord]:
        """Rolls oldest first; with `limit`, the newest `limit` of them. Free rolls (/roll) are RollRecords
        with `free` set; `include_free=False` leaves them out (the export: they are no rule roll)."""
        query = "SELECT * FROM rolls WHERE game_id = ?"
        params: list[Any] = [game_id]
        if not include_free:
            query += " AND free IS NULL"
        if nation is not None:
            query += " AND nation = ?"
            params.append(nation)
        if not include_undone:
            query += " AND undone = 0"
        query += " ORDER BY id DESC" + (" LIMIT ?" if limit else "")
        if limit:
            params.append(limit)
        rows = await self._fetchall(query, params)
        return [_roll_record(r) for r in reversed(rows)]

    async def ledger_page(self, game_id: int, where: LedgerFilter, offset: int,
                          limit: int) -> tuple[list[tuple[RollRecord | FacesRecord, ReportMessage | None]], int]:
        """/log rolls: the live rolls matching `where`, newest first from `offset`, at most `limit` of them (the
        page given oldest first), each with the message that announced it when the front-end recorded one
        (migration 013), and how many match in all. One round trip (after the links noted a moment ago, which wait
        for the next commit, are written)."""
        await self.flush_deferred()
        clause, params = _ledger_where(game_id, where)

        def work(con: sqlite3.Connection) -> tuple[list[tuple[RollRecord | FacesRecord, ReportMessage | None]], int]:
            total = int(con.execute(f"SELECT COUNT(*) FROM rolls WHERE {clause}", params).fetchone()[0])
            rows = con.execute(
                "SELECT rolls.*, m.channel_id AS report_channel, m.message_id AS report_message FROM rolls"
                f" LEFT JOIN report_messages AS m ON m.action_id = rolls.action_id WHERE {clause}"
                " ORDER BY rolls.id DESC LIMIT ? OFFSET ?", (*params, limit, offset)).fetchall()
            return [(_roll_record(r), None if r["report_message"] is None
                     else ReportMessage(r["report_channel"], int(r["report_message"]))) for r in reversed(rows)], total

        return await self._read(work)

    async def ledger_chunk(self, game_id: int, after: int, limit: int) -> list[tuple[int, RollRecord | FacesRecord]]:
        """/log export: the game's live rolls (free ones included) after the row `after`, oldest first, at most
        `limit`, each with its row id (where the next chunk starts): the ledger read a bounded chunk at a time. The
        records are built in the database thread too (on the event loop, 5,000 of them held it ~90 ms)."""

        def work(con: sqlite3.Connection) -> list[tuple[int, RollRecord | FacesRecord]]:
            rows = con.execute("SELECT * FROM rolls WHERE game_id = ? AND undone = 0 AND id > ? ORDER BY id LIMIT ?",
                               (game_id, after, limit))
            return [(int(r["id"]), _roll_record(r)) for r in rows]

        return await self._read(work)

    async def actions_since(self, game_id: int, since: datetime, limit: int = 200,
                            inclusive: bool = False) -> tuple[list[LoggedAction], int]:
        """The game's live actions after `since` (at or after it: `inclusive`), oldest first, each with its live
        events: at most `limit` of them, and how many more there are. Two queries, one round trip."""

        def work(con: sqlite3.Connection) -> tuple[list[LoggedAction], int]:
            where = f"game_id = ? AND undone = 0 AND at {'>=' if inclusive else '>'} ?"
            params = (game_id, _iso(since))
            total = int(con.execute(f"SELECT COUNT(*) FROM actions WHERE {where}", params).fetchone()[0])
            rows = con.execute(f"SELECT * FROM actions WHERE {where} ORDER BY id LIMIT ?", (*params, limit)).fetchall()
            logged = with_live_events(con, game_id, rows)
            return logged, total - len(logged)

        return await self._read(work)

    async def action_history(self, game_id: int) -> list[LoggedAction]:
        """Every action of the game, undone ones too, oldest first, each with all its events (undone ones too), in
        order: what /log gm replays to find each GM act's before → after (`gmlog`). One round trip."""

        def work(con: sqlite3.Connection) -> list[LoggedAction]:
            found: dict[int, list[Event]] = {}
            ruleset = game_ruleset(con, game_id)
            for e in con.execute("SELECT action_id, data FROM events WHERE game_id = ? ORDER BY id", (game_id,)):
                found.setdefault(e["action_id"], []).append(event_from_dict(orjson.loads(e["data"]), ruleset))
            rows = con.execute("SELECT * FROM actions WHERE game_id = ? ORDER BY id", (game_id,)).fetchall()
            return [LoggedAction(ActionRow(r["id"], r["actor"], r["command"], datetime.fromisoformat(r["at"]),
                                           bool(r["undone"])), found.get(r["id"], [])) for r in rows]

        return await self._read(work)

    async def free_rolls_since(self, game_id: int, since: datetime, until: datetime | None = None,
                               inclusive: bool = False, limit: int = 200) -> list[RollRecord]:
        """The game's free rolls (/roll) after `since` (and not after `until`), oldest first, at most `limit`."""
        query = f"SELECT * FROM rolls WHERE game_id = ? AND free IS NOT NULL AND at {'>=' if inclusive else '>'} ?"
        params: list[Any] = [game_id, _iso(since)]
        if until is not None:
            query += " AND at <= ?"
            params.append(_iso(until))
        rows = await self._fetchall(query + " ORDER BY id LIMIT ?", (*params, limit))
        return [record for record in map(_roll_record, rows) if isinstance(record, RollRecord)]

    async def logged_actions(self, game_id: int, after_id: int = 0, limit: int = 500) -> list[LoggedAction]:
        """The game's live actions of id above `after_id`, oldest first, at most `limit`, each with its live events
        (/log game reads a game's whole log a page at a time with it)."""

        def work(con: sqlite3.Connection) -> list[LoggedAction]:
            rows = con.execute("SELECT * FROM actions WHERE game_id = ? AND undone = 0 AND id > ? ORDER BY id LIMIT ?",
                               (game_id, after_id, limit)).fetchall()
            return with_live_events(con, game_id, rows)

        return await self._read(work)

    async def free_rolls_of_turn(self, game_id: int, turn: int) -> list[RollRecord]:
        """The game's free rolls (/roll) made in turn `turn`, oldest first."""
        rows = await self._fetchall("SELECT * FROM rolls WHERE game_id = ? AND free IS NOT NULL AND turn = ?"
                                    " ORDER BY id", (game_id, turn))
        return [record for record in map(_roll_record, rows) if isinstance(record, RollRecord)]

    async def history(self, game_id: int) -> list[HistoryEntry]:
        """The game's live stat history, oldest first (`engine.history`), built in the database thread: a long
        game's thousands of rows would otherwise hold the event loop."""

        def work(con: sqlite3.Connection) -> list[HistoryEntry]:
            rows = con.execute("SELECT turn, at, side, stat, value, mark FROM history"
                               " WHERE game_id = ? AND undone = 0 ORDER BY id", (game_id,))
            return [HistoryEntry(r[0], datetime.fromisoformat(r[1]), r[2], r[3],
                                 None if r[4] is None else orjson.loads(r[4]), r[5]) for r in rows]

        return await self._read(work)

    async def digest_mark(self, game_id: int) -> tuple[datetime | None, datetime]:
        """When the game's GM last made a digest (None: never), and when the game was created."""
        [row] = await self._fetchall("SELECT last_digest_at, created_at FROM games WHERE id = ?", (game_id,))
        mark = datetime.fromisoformat(row["last_digest_at"]) if row["last_digest_at"] else None
        return mark, datetime.fromisoformat(row["created_at"])

    async def set_digest_mark(self, game_id: int, moment: datetime) -> None:
        await self._transaction(lambda con: con.execute("UPDATE games SET last_digest_at = ? WHERE id = ?",
                                                        (_iso(moment), game_id)))

    async def action_events(self, game_id: int, action_id: int) -> list[Event]:
        """The live events of one action, in order (as `take_unannounced` reads them back): what the clock
        announces of a catch-up whose events it did not keep in memory."""
        return await self._read(action_events, game_id, action_id)


def game_ruleset(con: sqlite3.Connection, game_id: int) -> str:
    """The rule set of a game: its logged events are read with it (`event_from_dict`)."""
    return str(con.execute("SELECT ruleset FROM games WHERE id = ?", (game_id,)).fetchone()[0])


def with_live_events(con: sqlite3.Connection, game_id: int, rows: Sequence[Any]) -> list[LoggedAction]:
    """Rows of a game's `actions`, each with its live events in order (one query for them all)."""
    if not rows:
        return []
    ids = [r["id"] for r in rows]
    found: dict[int, list[Event]] = {i: [] for i in ids}
    ruleset = game_ruleset(con, game_id)
    for e in con.execute(f"SELECT action_id, data FROM events WHERE action_id IN ({','.join('?' * len(ids))})"
                         " AND undone = 0 ORDER BY id", ids):
        found[e["action_id"]].append(event_from_dict(orjson.loads(e["data"]), ruleset))
    return [LoggedAction(ActionRow(r["id"], r["actor"], r["command"], datetime.fromisoformat(r["at"]),
                                   bool(r["undone"])), found[r["id"]]) for r in rows]


def action_events(con: sqlite3.Connection, game_id: int, action_id: int, ruleset: str | None = None) -> list[Event]:
    """The live events of one action of a game, in order (`ruleset`: the game's, when the caller knows it)."""
    ruleset = ruleset or game_ruleset(con, game_id)
    return [event_from_dict(orjson.loads(row[0]), ruleset) for row in con.execute(ACTION_EVENTS, (game_id, action_id))]


def record_history(con: sqlite3.Connection, game_id: int, action_id: int | None, state: GameState,
                   events: Sequence[Event], before: Point | None, at: datetime,
                   turn_before: int | None = None) -> Point | None:
    """One action's stat history: each value of `state` that differs from `before` (all of them without one)
    and the marks of its `events`, at the state's turn (or the one its rule set's `history_turn` says from
    `turn_before`, the turn the action was taken in, when known). Returns the state's point (None: its rule set
    keeps no history)."""
    rules = ruleset_of(state)
    if rules.history_point is None:
        return None
    after = rules.history_point(state)
    marks = [mark for event in events for mark in (rules.history_marks(event) if rules.history_marks else [])]
    turn = getattr(state, "turn", 0)
    if rules.history_turn is not None and turn_before is not None:
        turn = rules.history_turn(turn_before, state)
    insert_history(con, game_id, action_id, entries_of(before, after, marks, turn, at))
    return after


def insert_history(con: sqlite3.Connection, game_id: int, action_id: int | None,
                   entries: Sequence[HistoryEntry]) -> None:
    """Rows of the stat history (migration 012): values as JSON (a number or a word), a mark without one."""
    con.executemany(
        "INSERT INTO history (game_id, action_id, turn, at, side, stat, value, mark) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
        [(game_id, action_id, e.turn, _iso(e.at), e.side, e.stat, None if e.value is None else _json(e.value),
          e.mark) for e in entries])


def _ledger_where(game_id: int, where: LedgerFilter) -> tuple[str, list[Any]]:
    clause = ["game_id = ?", "undone = 0"]
    params: list[Any] = [game_id]
    if where.who is not None:
        clause.append("nation = ?")
        params.append(where.who)
    if where.purpose:
        clause.append("lower(purpose) LIKE ? ESCAPE '\\'")
        params.append("%" + re.sub(r"([%_\\])", r"\\\1", where.purpose.lower()) + "%")
    if where.turn_from is not None:
        clause.append("turn >= ?")
        params.append(where.turn_from)
    if where.turn_to is not None:
        clause.append("turn <= ?")
        params.append(where.turn_to)
    if where.gm_entered:
        clause.append("forced > 0")
    if where.free == "only":
        clause.append("free IS NOT NULL")
    elif where.free == "exclude":
        clause.append("free IS NULL")
    return " AND ".join(clause), params


def _free_record(r: Any, shown: bool = False) -> RollRecord:
    """A free roll's row: a secret one hidden (no die, no total, its breakdown `HIDDEN`) unless revealed or
    `shown` (to its roller or the GM); a revealed one marked so."""
    at = datetime.fromisoformat(r["at"]) if r["at"] else datetime.min
    secret = _secret_of(r)
    free, die = r["free"], r["die"]
    if secret == SECRET and not shown:
        free, die = HIDDEN, 0
    elif secret:
        free = REVEALED_MARK + free if secret == REVEALED else free
    return RollRecord(nation=r["nation"], purpose=r["purpose"], die=die, modifiers={}, total=die, target=None,
                      comparison=None, success=None, forced=False, turn=r["turn"], at=at, sides=0, free=free)


def _secret_of(r: Any) -> int:
    try:
        return int(r["secret"] or 0)
    except (IndexError, KeyError):  # (a row read without the column)
        return 0


def _roll_record(r: Any) -> RollRecord | FacesRecord:
    at = datetime.fromisoformat(r["at"]) if r["at"] else datetime.min
    if r["free"] is not None and _secret_of(r):
        return _free_record(r)
    if r["faces"] is not None:
        faces = json.loads(r["faces"])
        forced = [index < r["forced"] for index in range(len(faces))]  # entered dice come first
        return FacesRecord(player=r["nation"], purpose=r["purpose"], faces=faces, forced=forced, turn=r["turn"], at=at)
    return RollRecord(
        nation=r["nation"], purpose=r["purpose"], die=r["die"], modifiers=json.loads(r["modifiers"]),
        total=r["total"], target=r["target"], comparison=r["comparison"],
        success=None if r["success"] is None else bool(r["success"]), forced=bool(r["forced"]),
        turn=r["turn"], at=at, battle=r["battle"], unit=r["unit"],
        sides=0 if r["free"] is not None else r["sides"] or 10, free=r["free"],
    )

