"""The store: the one module that speaks SQL. SQLite through aiosqlite, WAL, numbered migrations.

A game lives as a snapshot and a log (actions, events, rolls). The snapshot of a Nations game is its
own tables (games, nations, units, bonuses, battles); any other rule set's is one JSON document in
`games.snapshot`; every game's deadlines are rows of `deadlines`. Each command is one transaction: its
action row, its events, its rolls and the new snapshot commit together or not at all. The snapshot always
equals the replay of the log's live events.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import sqlite3
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

import aiosqlite

from engine.clock import deadlines
from engine.dice import FacesRecord, RollRecord
from engine.events import (
    DiceRolled,
    DieRolled,
    Event,
    GameImported,
    event_from_dict,
    event_to_dict,
    replay,
    to_jsonable,
)
from engine.nations.rules import HouseSettings
from engine.nations.snapshot import battle_from_dict, battle_to_dict
from engine.nations.state import Bonus, GameState, Nation, Unit
from engine.rulesets import ruleset, ruleset_of

MIGRATIONS = Path(__file__).resolve().parent / "migrations"
# Test hook: seconds to wait inside a transaction, just before COMMIT (the crash test kills us there).
PAUSE_BEFORE_COMMIT = "REFEREE_TEST_PAUSE_BEFORE_COMMIT"


class ChannelTaken(Exception):
    """The channel already has a live game."""


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
class GameRow:
    id: int
    channel: str
    guild_id: int | None
    ended: bool
    next_deadline: datetime | None
    status_message_id: int | None = None
    reminded_turn: int = 0


def _iso(value: datetime) -> str:
    return value.isoformat()


class Store:
    """Open with `await Store.open(path)`; close with `await store.close()`."""

    def __init__(self, db: aiosqlite.Connection) -> None:
        self.db = db
        self._write_lock = asyncio.Lock()

    @classmethod
    async def open(cls, path: str | os.PathLike[str]) -> Store:
        db = await aiosqlite.connect(str(path), isolation_level=None)
        db.row_factory = aiosqlite.Row
        await db.execute("PRAGMA journal_mode = WAL")
        await db.execute("PRAGMA foreign_keys = ON")
        await db.execute("PRAGMA busy_timeout = 5000")
        store = cls(db)
        try:
            await store.migrate()
        except BaseException:
            await db.close()
            raise
        return store

    async def close(self) -> None:
        await self.db.close()

    # --- schema --------------------------------------------------------------------------------

    async def migrate(self) -> int:
        """Apply every numbered migration newer than the database; returns the schema version."""
        async with self.db.execute("PRAGMA user_version") as cursor:
            row = await cursor.fetchone()
        version = int(row[0]) if row else 0
        for number, path in migration_files():
            if number <= version:
                continue
            script = path.read_text()
            try:
                await self.db.executescript(f"BEGIN;\n{script}\nPRAGMA user_version = {number};\nCOMMIT;")
            except sqlite3.Error:
                if self.db.in_transaction:
                    await self.db.execute("ROLLBACK")
                raise
            version = number
        return version

    # --- transactions --------------------------------------------------------------------------

    async def _transaction(self, work: Any) -> Any:
        async with self._write_lock:
            await self.db.execute("BEGIN IMMEDIATE")
            try:
                result = await work()
                pause = float(os.environ.get(PAUSE_BEFORE_COMMIT, "0") or 0)
                if pause:
                    print("store: pausing before commit", flush=True)
                    await asyncio.sleep(pause)
                await self.db.execute("COMMIT")
                return result
            except BaseException:
                await self.db.execute("ROLLBACK")
                raise

    async def create_game(
        self, channel: str, guild_id: int | None, state: GameState, events: list[Event],
        actor: str, command: str, now: datetime,
    ) -> tuple[int, int]:
        """A new game with its first action; returns (game id, action id)."""

        async def work() -> tuple[int, int]:
            game_id = await self._insert_game(channel, guild_id, state.gm, now)
            action_id = await self._log(game_id, actor, command, now, events)
            await self._write_snapshot(game_id, state)
            return game_id, action_id

        return await self._transaction(work)

    async def commit(
        self, game_id: int, state: GameState, events: list[Event], actor: str, command: str, now: datetime,
        extra_rolls: Iterable[dict[str, Any]] = (),
    ) -> int:
        """One command: its log entry, events, rolls and the new snapshot, in one transaction."""

        async def work() -> int:
            action_id = await self._log(game_id, actor, command, now, events)
            for roll in extra_rolls:
                await self._insert_roll(game_id, None, roll)
            await self._write_snapshot(game_id, state)
            return action_id

        return await self._transaction(work)

    async def undo(self, game_id: int, action_id: int, state: GameState, undo_event: Event,
                   actor: str, command: str, now: datetime) -> int:
        """Mark an action, its events and its rolls undone, log the undo and write the replayed state."""

        async def work() -> int:
            for table in ("events", "rolls"):
                await self.db.execute(f"UPDATE {table} SET undone = 1 WHERE action_id = ?", (action_id,))
            await self.db.execute("UPDATE actions SET undone = 1 WHERE id = ?", (action_id,))
            new_id = await self._log(game_id, actor, command, now, [undo_event])
            await self._write_snapshot(game_id, state)
            return new_id

        return await self._transaction(work)

    async def _insert_game(self, channel: str, guild_id: int | None, gm: str, now: datetime) -> int:
        try:
            cursor = await self.db.execute(
                "INSERT INTO games (channel, guild_id, gm, turn, turn_hours, turn_started_at, turn_ends_at,"
                " house, created_at) VALUES (?, ?, ?, 0, 0, '', '', '{}', ?)",
                (channel, guild_id, gm, _iso(now)),
            )
        except sqlite3.IntegrityError:
            raise ChannelTaken(channel) from None
        return int(cursor.lastrowid or 0)

    async def _log(self, game_id: int, actor: str, command: str, now: datetime, events: list[Event]) -> int:
        cursor = await self.db.execute(
            "INSERT INTO actions (game_id, actor, command, at) VALUES (?, ?, ?, ?)",
            (game_id, actor, command, _iso(now)),
        )
        action_id = int(cursor.lastrowid or 0)
        await self.db.executemany(
            "INSERT INTO events (game_id, action_id, kind, data) VALUES (?, ?, ?, ?)",
            [(game_id, action_id, e.kind, json.dumps(event_to_dict(e))) for e in events],
        )
        for event in events:
            if isinstance(event, DieRolled | DiceRolled):
                await self._insert_roll(game_id, action_id, to_jsonable(event.roll))
        return action_id

    async def _insert_roll(self, game_id: int, action_id: int | None, roll: dict[str, Any]) -> None:
        """One ledger row: a numbered die with modifiers, or (with `faces`) dice with named faces."""
        if "faces" in roll:
            forced = roll.get("forced") or []
            row = (game_id, action_id, roll.get("turn", 0), roll.get("player"), roll["purpose"], None, None, None,
                   None, None, None, sum(map(bool, forced)) if isinstance(forced, list) else int(bool(forced)),
                   roll.get("at") or "", None, None, json.dumps([str(f) for f in roll["faces"]]))
        else:
            row = (
                game_id, action_id, roll.get("turn", 0), roll.get("nation"), roll["purpose"], roll["die"],
                json.dumps(roll.get("modifiers", {})), roll["total"], roll.get("target"), roll.get("comparison"),
                None if roll.get("success") is None else int(bool(roll["success"])), int(bool(roll["forced"])),
                roll.get("at") or "", roll.get("battle"), roll.get("unit"), None,
            )
        await self.db.execute(
            "INSERT INTO rolls (game_id, action_id, turn, nation, purpose, die, modifiers, total, target,"
            " comparison, success, forced, at, battle, unit, faces)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            row,
        )

    async def _write_snapshot(self, game_id: int, state: Any) -> None:
        """The game's row and snapshot: Nations in its own tables, any other rule set as one JSON document."""
        if state.ruleset != "nations":
            await self._write_document(game_id, state)
            return
        db = self.db
        await db.execute(
            "UPDATE games SET gm = ?, ruleset = ?, turn = ?, turn_hours = ?, turn_started_at = ?, turn_ends_at = ?,"
            " paused = ?, paused_remaining = ?, ended = ?, next_unit_id = ?, forced_dice = ?, house = ?,"
            " next_battle_id = ? WHERE id = ?",
            (
                state.gm, state.ruleset, state.turn, state.turn_hours, _iso(state.turn_started_at),
                _iso(state.turn_ends_at), int(state.paused), state.paused_remaining, int(state.ended),
                state.next_unit_id, json.dumps(state.forced_dice), json.dumps(state.house.as_dict()),
                state.next_battle_id, game_id,
            ),
        )
        for table in ("nations", "units", "bonuses", "battles"):
            await db.execute(f"DELETE FROM {table} WHERE game_id = ?", (game_id,))
        await self._write_deadlines(game_id, state)
        await db.executemany(
            "INSERT INTO nations (game_id, position, name, player, economy, stability, military, propaganda, land,"
            " strength, weakness, foreign_patches, eliminated, preset_slot, actions_used, extra_actions)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [
                (
                    game_id, position, n.name, n.player, n.economy, n.stability, n.military, n.propaganda, n.land,
                    n.strength, n.weakness, n.foreign_patches, int(n.eliminated), n.preset_slot,
                    json.dumps(n.actions_used), n.extra_actions,
                )
                for position, n in enumerate(state.nations.values())
            ],
        )
        await db.executemany(
            "INSERT INTO units (game_id, id, nation, type, rank, hp, battle) VALUES (?, ?, ?, ?, ?, ?, ?)",
            [
                (game_id, u.id, n.name, u.type, u.rank, u.hp, u.battle)
                for n in state.nations.values() for u in n.units.values()
            ],
        )
        await db.executemany(
            "INSERT INTO bonuses (game_id, nation, kind, value, expires_at) VALUES (?, ?, ?, ?, ?)",
            [
                (game_id, n.name, b.kind, b.value, _iso(b.expires_at))
                for n in state.nations.values() for b in n.bonuses.values()
            ],
        )
        await db.executemany(
            "INSERT INTO battles (game_id, id, attacker, defender, stage, result, deadline, data)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            [
                (game_id, b.id, b.attacker, b.defender, b.stage, b.result, _iso(b.deadline) if b.deadline else None,
                 json.dumps(battle_to_dict(b)))
                for b in state.battles.values()
            ],
        )

    async def _write_document(self, game_id: int, state: Any) -> None:
        document = ruleset_of(state).state_to_dict(state)
        started = getattr(state, "started_at", None)
        await self.db.execute(
            "UPDATE games SET gm = ?, ruleset = ?, turn = ?, turn_hours = 0, turn_started_at = ?, turn_ends_at = ?,"
            " ended = ?, forced_dice = ?, house = ?, snapshot = ? WHERE id = ?",
            (state.gm, state.ruleset, getattr(state, "turn", 0), _iso(started) if started else "",
             _iso(started) if started else "", int(state.ended), json.dumps(state.forced_dice),
             json.dumps(state.house.as_dict()), json.dumps(document), game_id),
        )
        await self._write_deadlines(game_id, state)

    async def _write_deadlines(self, game_id: int, state: Any) -> None:
        await self.db.execute("DELETE FROM deadlines WHERE game_id = ?", (game_id,))
        await self.db.executemany(
            "INSERT INTO deadlines (game_id, at, what, nation, ref) VALUES (?, ?, ?, ?, ?)",
            [
                (game_id, _iso(d.at), d.what, d.nation, d.bonus if d.battle is None else str(d.battle))
                for d in deadlines(state)
            ],
        )

    # --- reading -------------------------------------------------------------------------------

    async def live_game(self, channel: str) -> int | None:
        """The id of the channel's game that has not ended, if any."""
        async with self.db.execute("SELECT id FROM games WHERE channel = ? AND ended = 0", (channel,)) as cur:
            row = await cur.fetchone()
        return int(row["id"]) if row else None

    async def games(self, live_only: bool = True, game_id: int | None = None) -> list[GameRow]:
        """Every game (live ones only by default; or the one game asked for) with its next deadline."""
        where, params = [], []
        if live_only:
            where.append("g.ended = 0")
        if game_id is not None:
            where.append("g.id = ?")
            params.append(game_id)
        query = (
            "SELECT g.id, g.channel, g.guild_id, g.ended, g.status_message_id, g.reminded_turn,"
            " MIN(d.at) AS next_at FROM games g LEFT JOIN deadlines d ON d.game_id = g.id"
            + (" WHERE " + " AND ".join(where) if where else "")
            + " GROUP BY g.id ORDER BY g.id"
        )
        async with self.db.execute(query, params) as cur:
            rows = await cur.fetchall()
        return [
            GameRow(int(r["id"]), r["channel"], r["guild_id"], bool(r["ended"]),
                    datetime.fromisoformat(r["next_at"]) if r["next_at"] else None,
                    r["status_message_id"], int(r["reminded_turn"]))
            for r in rows
        ]

    async def choice_message(self, game_id: int, battle: int, message_id: int | None = None) -> int | None:
        """The message that offers a battle's choice; with `message_id`, record a new one. Returns the old one."""
        async with self.db.execute("SELECT message_id FROM choice_messages WHERE game_id = ? AND battle = ?",
                                   (game_id, battle)) as cur:
            row = await cur.fetchone()
        if message_id is not None:
            async with self._write_lock:
                await self.db.execute("INSERT OR REPLACE INTO choice_messages (game_id, battle, message_id)"
                                      " VALUES (?, ?, ?)", (game_id, battle, message_id))
        return int(row["message_id"]) if row else None

    async def game(self, game_id: int) -> GameRow:
        """One game's row (live or not)."""
        rows = await self.games(live_only=False, game_id=game_id)
        if not rows:
            raise KeyError(f"no game {game_id}")
        return rows[0]

    async def set_front_end(self, game_id: int, *, status_message_id: int | None = None,
                            reminded_turn: int | None = None) -> None:
        """Record the Discord front-end's bookkeeping (the pinned status message, the last turn reminded)."""
        async with self._write_lock:
            if status_message_id is not None:
                await self.db.execute("UPDATE games SET status_message_id = ? WHERE id = ?",
                                      (status_message_id, game_id))
            if reminded_turn is not None:
                await self.db.execute("UPDATE games SET reminded_turn = ? WHERE id = ?", (reminded_turn, game_id))

    async def load(self, game_id: int) -> Any:
        """The game's current state, from its snapshot."""
        db = self.db
        async with db.execute("SELECT * FROM games WHERE id = ?", (game_id,)) as cur:
            game = await cur.fetchone()
        if game is None:
            raise KeyError(f"no game {game_id}")
        if game["ruleset"] != "nations":
            return ruleset(game["ruleset"]).state_from_dict(json.loads(game["snapshot"]))
        state = GameState(
            gm=game["gm"], turn=game["turn"], turn_hours=game["turn_hours"],
            turn_started_at=datetime.fromisoformat(game["turn_started_at"]),
            turn_ends_at=datetime.fromisoformat(game["turn_ends_at"]),
            house=HouseSettings(**json.loads(game["house"])), ruleset=game["ruleset"], paused=bool(game["paused"]),
            paused_remaining=game["paused_remaining"], ended=bool(game["ended"]),
            next_unit_id=game["next_unit_id"], forced_dice=json.loads(game["forced_dice"]),
            next_battle_id=game["next_battle_id"],
        )
        async with db.execute("SELECT * FROM nations WHERE game_id = ? ORDER BY position", (game_id,)) as cur:
            for r in await cur.fetchall():
                state.nations[r["name"]] = Nation(
                    name=r["name"], player=r["player"], economy=r["economy"], stability=r["stability"],
                    military=r["military"], propaganda=r["propaganda"], land=r["land"], strength=r["strength"],
                    weakness=r["weakness"], foreign_patches=r["foreign_patches"], eliminated=bool(r["eliminated"]),
                    preset_slot=r["preset_slot"], actions_used=json.loads(r["actions_used"]),
                    extra_actions=r["extra_actions"],
                )
        async with db.execute("SELECT * FROM units WHERE game_id = ? ORDER BY id", (game_id,)) as cur:
            for r in await cur.fetchall():
                state.nations[r["nation"]].units[r["id"]] = Unit(r["id"], r["type"], r["rank"], r["hp"], r["battle"])
        async with db.execute("SELECT * FROM bonuses WHERE game_id = ? ORDER BY rowid", (game_id,)) as cur:
            for r in await cur.fetchall():
                state.nations[r["nation"]].bonuses[r["kind"]] = Bonus(
                    r["kind"], r["value"], datetime.fromisoformat(r["expires_at"])
                )
        async with db.execute("SELECT data FROM battles WHERE game_id = ? ORDER BY id", (game_id,)) as cur:
            for r in await cur.fetchall():
                battle = battle_from_dict(json.loads(r["data"]))
                state.battles[battle.id] = battle
        return state

    async def events(self, game_id: int, include_undone: bool = False) -> list[LoggedEvent]:
        query = "SELECT id, action_id, data, undone FROM events WHERE game_id = ?"
        if not include_undone:
            query += " AND undone = 0"
        async with self.db.execute(query + " ORDER BY id", (game_id,)) as cur:
            rows = await cur.fetchall()
        return [
            LoggedEvent(r["id"], r["action_id"], event_from_dict(json.loads(r["data"])), bool(r["undone"]))
            for r in rows
        ]

    async def replayed(self, game_id: int) -> GameState:
        """The game's state rebuilt from its live events (what the snapshot must equal)."""
        return replay(e.event for e in await self.events(game_id))

    async def actions(self, game_id: int, limit: int = 20, include_undone: bool = True) -> list[ActionRow]:
        """The newest actions first."""
        query = "SELECT * FROM actions WHERE game_id = ?" + ("" if include_undone else " AND undone = 0")
        async with self.db.execute(query + " ORDER BY id DESC LIMIT ?", (game_id, limit)) as cur:
            rows = await cur.fetchall()
        return [ActionRow(r["id"], r["actor"], r["command"], datetime.fromisoformat(r["at"]), bool(r["undone"]))
                for r in rows]

    async def rolls(self, game_id: int, nation: str | None = None, limit: int | None = None,
                    include_undone: bool = False) -> list[RollRecord | FacesRecord]:
        """Rolls oldest first; with `limit`, the newest `limit` of them."""
        query, params = "SELECT * FROM rolls WHERE game_id = ?", [game_id]
        if nation is not None:
            query += " AND nation = ?"
            params.append(nation)
        if not include_undone:
            query += " AND undone = 0"
        query += " ORDER BY id DESC" + (" LIMIT ?" if limit else "")
        if limit:
            params.append(limit)
        async with self.db.execute(query, params) as cur:
            rows = await cur.fetchall()
        return [_roll_record(r) for r in reversed(rows)]

    # --- export and import ---------------------------------------------------------------------

    async def export(self, game_id: int) -> dict[str, Any]:
        """One game as the export format's JSON-ready dict."""
        state = await self.load(game_id)
        data = ruleset_of(state).state_to_dict(state)
        rolls = []
        for roll in await self.rolls(game_id):
            item = to_jsonable(roll)
            if roll.at == datetime.min:
                item["at"] = None
            rolls.append(item)
        data["rolls"] = rolls
        return data

    async def import_game(self, channel: str, guild_id: int | None, state: Any, rolls: list[dict[str, Any]],
                          actor: str, command: str, now: datetime) -> int:
        """A new game from an export's state and rolls: one GameImported event, the rolls as they were."""
        snapshot = ruleset_of(state).state_to_dict(state)

        async def work() -> int:
            game_id = await self._insert_game(channel, guild_id, state.gm, now)
            await self._log(game_id, actor, command, now, [GameImported(snapshot)])
            for roll in rolls:
                await self._insert_roll(game_id, None, roll)
            await self._write_snapshot(game_id, state)
            return game_id

        return await self._transaction(work)


def _roll_record(r: Any) -> RollRecord | FacesRecord:
    at = datetime.fromisoformat(r["at"]) if r["at"] else datetime.min
    if r["faces"] is not None:
        faces = json.loads(r["faces"])
        forced = [index < r["forced"] for index in range(len(faces))]  # entered dice come first
        return FacesRecord(player=r["nation"], purpose=r["purpose"], faces=faces, forced=forced, turn=r["turn"], at=at)
    return RollRecord(
        nation=r["nation"], purpose=r["purpose"], die=r["die"], modifiers=json.loads(r["modifiers"]),
        total=r["total"], target=r["target"], comparison=r["comparison"],
        success=None if r["success"] is None else bool(r["success"]), forced=bool(r["forced"]),
        turn=r["turn"], at=at, battle=r["battle"], unit=r["unit"],
    )


def migration_files() -> list[tuple[int, Path]]:
    """The numbered migrations (`NNN_name.sql`), in order."""
    found = []
    for path in MIGRATIONS.glob("*.sql"):
        match = re.match(r"(\d+)_", path.name)
        if match:
            found.append((int(match.group(1)), path))
    return sorted(found)
