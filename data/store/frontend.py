"""The store's front-end bookkeeping: what the front-ends (the Discord clock above all) record beside a game —
its status message and reminders (the reminder due index, reminders by direct message), the outbox of the
clock's announcements, the messages offering a battle's choice or reporting an action, and the game page's
token.
"""

from __future__ import annotations

import functools
import re
import secrets
import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

import orjson

from data.store.dialect import Lease
from data.store.encoding import _iso, _json
from data.store.ledger import action_events, game_ruleset
from data.store.part import Part
from engine.events import Event

# How long the clock's announcement of a catch-up is its own process's to send before another may (`announcements`):
# the grace of a commit's new row (PostgreSQL's column default says it too: migration 017), then the lease of the
# process that claimed it, renewed while it is queued or being sent (`hold_announcements`)
ANNOUNCE_GRACE = timedelta(minutes=2)
ANNOUNCE_LEASE = ANNOUNCE_GRACE
OUTBOX_PAGE = 500  # announcements taken from the outbox at a time (`take_unannounced`)
HOLD_CHUNK = 100
"""Announcements renewed in one transaction: the database thread is held a few ms at a time (issue 35: 10,000 queued
renewed at once held it ~200 ms, and every command waited), other work going on between two chunks."""
# A commit's announcement: no owner yet, the committing process's for the grace (it claims it when it renews)
OUTBOX_INSERT = "INSERT INTO announcements (action_id, due_at, game_id) VALUES (?, ?, ?)"
# A refused command's catch-up: nobody's (owner ''), any process's clock takes it at once
OUTBOX_IF_DISCORD = ("INSERT INTO announcements (action_id, due_at, game_id, owner)"
                     " SELECT ?, ?, id, '' FROM games WHERE id = ? AND guild_id IS NOT NULL")
PAGE_TOKEN_BYTES = 18  # a game page's token: 144 random bits, 24 URL-safe characters (issue 22)
PAGE_VERSION = ("(SELECT COALESCE(MAX(id), 0) FROM actions WHERE game_id = g.id),"
                " (SELECT COALESCE(MAX(id), 0) FROM rolls WHERE game_id = g.id), g.ended,"
                " (SELECT COUNT(*) FROM rolls WHERE game_id = g.id AND secret = 2)")  # `page_version`'s parts
# (the last: the secret rolls revealed, migration 020 — a reveal changes a row, not the last one)
PAGE_TOKEN = re.compile(r"[A-Za-z0-9_-]{16,64}")  # what a page link's token may look like before it is looked up
# An action's report message (`note_report_message`): its first one stays
REPORT_MESSAGE_INSERT = ("INSERT INTO report_messages (action_id, channel_id, message_id) VALUES (?, ?, ?)"
                         " ON CONFLICT DO NOTHING")


@dataclass(frozen=True)
class DmReminder:
    """One player's reminders by direct message in one game (/remind me, migration 011)."""

    game_id: int
    player: str  # a Discord user id
    before: timedelta  # how long before a deadline its reminder comes
    failed: bool = False  # a DM was refused: their reminders go to the channel until they opt in again
    sent: tuple[str, ...] = ()  # the keys of the reminders already sent that still stand


@dataclass(frozen=True)
class QuietHours:
    """A player's quiet hours, for all their games (/remind me quiet:, migration 021): their reminders by DM due
    in this span of their day wait until it ends (`cogs.quiet`)."""

    player: str  # a Discord user id
    starts: int  # the minute of their day it starts (0 to 1439)
    ends: int  # the minute of their day it ends (another one; before `starts`: it crosses midnight)
    zone: str  # their time zone: a tz database name, "UTC", or an offset "+HH:MM"


class FrontEnd(Part):
    """The store's part that keeps the front-ends' bookkeeping."""

    # --- the game's page (issue 22) ---------------------------------------------------------------

    async def page_token(self, game_id: int, now: datetime) -> str:
        """The token of the game's page link (`PUBLIC_URL/g/<token>`), made the first time it is asked for (a read
        after that: every status message links to it, a rollover's too)."""
        rows = await self._fetchall("SELECT token FROM game_pages WHERE game_id = ?", (game_id,))
        if rows:
            return str(rows[0][0])

        def work(con: sqlite3.Connection) -> str:
            con.execute("INSERT INTO game_pages (game_id, token, created_at) VALUES (?, ?, ?)"
                        " ON CONFLICT (game_id) DO NOTHING",
                        (game_id, secrets.token_urlsafe(PAGE_TOKEN_BYTES), _iso(now)))
            return str(con.execute("SELECT token FROM game_pages WHERE game_id = ?", (game_id,)).fetchone()[0])

        return await self._transaction(work)

    async def rotate_page_token(self, game_id: int, now: datetime) -> str:
        """A new token for the game's page: the old link stops working at once. Returns the new token."""
        token = secrets.token_urlsafe(PAGE_TOKEN_BYTES)
        await self._transaction(lambda con: con.execute(
            "INSERT INTO game_pages (game_id, token, created_at) VALUES (?, ?, ?)"
            " ON CONFLICT (game_id) DO UPDATE SET token = excluded.token, created_at = excluded.created_at",
            (game_id, token, _iso(now))))
        self.page_rotations += 1
        return token

    async def page_game(self, token: str) -> int | None:
        """The game whose page this token opens, or None (a token of the wrong shape is not looked up)."""
        if not PAGE_TOKEN.fullmatch(token):
            return None
        rows = await self._fetchall("SELECT game_id FROM game_pages WHERE token = ?", (token,))
        return int(rows[0][0]) if rows else None

    async def page_version(self, game_id: int) -> str:
        """What changes whenever the game's page would: its last action (an undo is one too), its last roll (a free
        roll is logged without an action) and whether it has ended. Cheap: the page's live updates poll it."""
        rows = await self._fetchall(f"SELECT g.id, {PAGE_VERSION} FROM games g WHERE g.id = ?", (game_id,))
        if not rows:
            raise KeyError(f"no game {game_id}")
        return _page_version(rows[0])

    async def page_of(self, token: str) -> tuple[int, str] | None:
        """`page_game` and `page_version` in one statement (every request for a page asks both): the game this token
        opens and its page's version, or None."""
        if not PAGE_TOKEN.fullmatch(token):
            return None
        rows = await self._fetchall(f"SELECT g.id, {PAGE_VERSION} FROM game_pages p JOIN games g ON g.id = p.game_id"
                                    " WHERE p.token = ?", (token,))
        return (int(rows[0][0]), _page_version(rows[0])) if rows else None

    # --- the reminder due index and the outbox of announcements -------------------------------------

    async def take_reminders_due(self, now: datetime) -> list[tuple[int, int | None]]:
        """(game id, server) of the live games whose front-end reminder is due by `now`; each is taken off the
        index (the front-end records the next one when it has reminded)."""

        def work(con: sqlite3.Connection) -> list[tuple[int, int | None]]:
            rows = self._dialect.take_reminders_due(con, _iso(now))  # each reminder taken by one process only
            return [(int(r[0]), r[1]) for r in rows]

        return await self._transaction(work)

    # Exactly once (migration 017): each announcement is one process's at a time, its `outbox_owner`, for a lease
    # it renews while it has it queued or is sending it (`hold_announcements`), and checks just before it sends
    # (a lease lost: not sent). Another process takes it (`take_unannounced`) only once the lease ran out
    # unrenewed: its owner died, or is cut off from the database. The lease ends by the database's clock where
    # there is one (PostgreSQL's now(): the processes' clocks may disagree by hours), else by `now` (SQLite: one
    # process owns the file). `announced` deletes it once sent. (A process that dies after its message went out
    # and before the delete leaves it to be said again: the one send that is not exactly once.)

    _outbox_owner: str | None = None

    @property
    def outbox_owner(self) -> str:
        """This store's id as the owner of the announcements it claims: random, made when first asked (two stores,
        in one process or two, are two owners)."""
        if self._outbox_owner is None:
            self._outbox_owner = secrets.token_hex(8)
        return self._outbox_owner

    async def take_unannounced(self, now: datetime, limit: int = OUTBOX_PAGE) -> list[tuple[int, int, list[Event]]]:
        """The clock's announcements whose owner let their lease run out (it died after the commit, or before it
        sent them all) or that are nobody's: (game id, action id, its live events), at most `limit`, oldest
        first. Each is claimed for this store (`outbox_owner`) with a new lease, by one process only; `announced`
        removes it once sent."""
        lease = _lease(now)

        def work(con: sqlite3.Connection) -> list[tuple[int, int, list[Event]]]:
            rows = self._dialect.take_announcements(con, self.outbox_owner, lease, limit)
            taken, rulesets = [], {}
            for game_id, action_id in sorted((int(r[0]), int(r[1])) for r in rows):
                if game_id not in rulesets:  # (looked up once a game: many actions of one game may be due)
                    rulesets[game_id] = game_ruleset(con, game_id)
                taken.append((game_id, action_id, action_events(con, game_id, action_id, rulesets[game_id])))
            return taken

        return await self._transaction(work)

    async def hold_announcements(self, action_ids: Sequence[int], now: datetime) -> list[int]:
        """Claim or renew the lease of these announcements for this store (the ones it has queued, or the one it is
        about to send) where they are its own, fresh from a commit, nobody's, or their lease ran out; returns the
        ids it holds now, in order. One missing was lost to another process or sent already: it is not to be sent
        here."""
        lease, owner, held = _lease(now), self.outbox_owner, []
        ids = list(dict.fromkeys(action_ids))
        for start in range(0, len(ids), HOLD_CHUNK):
            chunk = ids[start:start + HOLD_CHUNK]
            got = set(await self._transaction(functools.partial(self._dialect.hold_announcements, owner=owner,
                                                                action_ids=chunk, lease=lease)))
            held += [action_id for action_id in chunk if action_id in got]
        return held

    async def announced(self, action_ids: Sequence[int]) -> None:
        """The clock's announcements of these actions are sent: out of the outbox (whoever holds them now: another
        process that took one then finds it gone, and does not send it again)."""
        if action_ids:
            await self._transaction(lambda con: con.executemany(
                "DELETE FROM announcements WHERE action_id = ?", [(action_id,) for action_id in action_ids]))

    # --- messages and the status message ---------------------------------------------------------------

    async def choice_message(self, game_id: int, battle: int, message_id: int | None = None) -> int | None:
        """The message that offers a battle's choice; with `message_id`, record a new one. Returns the old one."""
        rows = await self._fetchall("SELECT message_id FROM choice_messages WHERE game_id = ? AND battle = ?",
                                    (game_id, battle))
        if message_id is not None:
            await self._transaction(lambda con: con.execute(
                "INSERT INTO choice_messages (game_id, battle, message_id) VALUES (?, ?, ?)"
                " ON CONFLICT (game_id, battle) DO UPDATE SET message_id = excluded.message_id",
                (game_id, battle, message_id)))
        return int(rows[0]["message_id"]) if rows else None

    async def set_front_end(self, game_id: int, *, status_message_id: int | None = None,
                            reminded_turn: int | None = None, remind_at: datetime | None | bool = False) -> None:
        """Record the Discord front-end's bookkeeping: the pinned status message, the last turn reminded, the
        next reminder (`remind_at`; None: no reminder pending; left alone when not given)."""
        changes: dict[str, Any] = {}
        if status_message_id is not None:
            changes["status_message_id"] = status_message_id
        if reminded_turn is not None:
            changes["reminded_turn"] = reminded_turn
        if remind_at is not False:
            changes["remind_at"] = _iso(remind_at) if isinstance(remind_at, datetime) else None
        if not changes:
            return

        def work(con: sqlite3.Connection) -> None:
            con.execute(f"UPDATE games SET {', '.join(f'{k} = ?' for k in changes)} WHERE id = ?",
                        (*changes.values(), game_id))

        await self._transaction(work)

    # --- reminders by direct message (/remind me) ------------------------------------------------

    async def dm_reminders(self, game_id: int, player: str | None = None) -> list[DmReminder]:
        """The players of a game who want their reminders by DM (or the one `player`), in the order they opted in."""
        query = "SELECT * FROM dm_reminders WHERE game_id = ?"
        params: list[Any] = [game_id]
        if player is not None:
            query += " AND player = ?"
            params.append(player)
        rows = await self._fetchall(query + f" ORDER BY {self._dialect.insertion_order}", params)
        return [DmReminder(int(r["game_id"]), r["player"], timedelta(minutes=int(r["before_minutes"])),
                           bool(r["failed"]), tuple(orjson.loads(r["sent"]))) for r in rows]

    async def set_dm_reminder(self, game_id: int, player: str, before: timedelta, sent: tuple[str, ...] = ()) -> None:
        """Turn a player's reminders by DM on (again: a past failure is forgotten), `before` a deadline; `sent`:
        the reminders standing now that they are not to be sent (they were announced already)."""
        # (SQLite's REPLACE gives the row a new rowid: a player who opts in again comes last; so does `seq`)
        query = self._dialect.set_dm_reminder
        await self._transaction(lambda con: con.execute(
            query, (game_id, player, round(before.total_seconds() / 60), _json(list(sent)))))

    async def clear_dm_reminder(self, game_id: int, player: str) -> bool:
        """Turn a player's reminders by DM off; whether they were on."""
        cursor = await self._transaction(lambda con: con.execute(
            "DELETE FROM dm_reminders WHERE game_id = ? AND player = ?", (game_id, player)))
        return bool(cursor.rowcount)

    async def note_dm_reminders(self, game_id: int, noted: list[DmReminder]) -> None:
        """Record what the clock did with players' reminders by DM (the keys sent, a DM refused): one transaction.
        A player who turned them off meanwhile stays off."""
        await self._transaction(lambda con: con.executemany(
            "UPDATE dm_reminders SET failed = ?, sent = ? WHERE game_id = ? AND player = ?",
            [(int(r.failed), _json(list(r.sent)), game_id, r.player) for r in noted]))

    async def quiet_hours(self, players: Sequence[str]) -> dict[str, QuietHours]:
        """The quiet hours of these players who have some, by player."""
        if not players:
            return {}
        rows = await self._fetchall(f"SELECT * FROM quiet_hours WHERE player IN ({', '.join('?' * len(players))})",
                                    list(players))
        return {r["player"]: QuietHours(r["player"], int(r["starts_minute"]), int(r["ends_minute"]), r["zone"])
                for r in rows}

    async def set_quiet_hours(self, quiet: QuietHours) -> None:
        """Set (or change) a player's quiet hours."""
        await self._transaction(lambda con: con.execute(
            "INSERT INTO quiet_hours (player, starts_minute, ends_minute, zone) VALUES (?, ?, ?, ?)"
            " ON CONFLICT (player) DO UPDATE SET starts_minute = excluded.starts_minute,"
            " ends_minute = excluded.ends_minute, zone = excluded.zone",
            (quiet.player, quiet.starts, quiet.ends, quiet.zone)))

    async def clear_quiet_hours(self, player: str) -> bool:
        """A player's quiet hours off; whether they had some."""
        cursor = await self._transaction(lambda con: con.execute(
            "DELETE FROM quiet_hours WHERE player = ?", (player,)))
        return bool(cursor.rowcount)

    async def dm_reminder_games(self, player: str, limit: int) -> list[int]:
        """The live games (at most `limit`, the newest first) in which a player has their reminders by DM on."""
        rows = await self._fetchall("SELECT r.game_id FROM dm_reminders r JOIN games g ON g.id = r.game_id"
                                    " WHERE r.player = ? AND g.ended = 0 ORDER BY r.game_id DESC LIMIT ?",
                                    (player, limit))
        return [int(r[0]) for r in rows]

    async def note_report_message(self, action_ids: Sequence[int], channel_id: int | None, message_id: int) -> None:
        """Record the Discord message that announced these logged actions (migration 013); an action's first
        message stays. It is written with the next commit, whatever it is (`Connection._defer`: the command's own
        transaction stays its one fsync), or on its own within a second, or on closing: a crash before that loses
        the message's /log link, nothing else. A read that shows the links calls `flush_deferred` first."""
        self._defer(REPORT_MESSAGE_INSERT, [(action_id, channel_id, message_id) for action_id in action_ids])

    # --- the slash commands registered with Discord (issue 34, migration 022) ---------------------------------

    async def guild_rulesets(self, guild_id: int | None = None) -> dict[int, set[str]]:
        """The rule sets of each server's (or the one server asked for) channels' games: a channel's live game, else
        its last one (an ended game's status and charts still answer): which rule sets' commands each needs."""
        only, params = (" AND guild_id = ?", (guild_id,)) if guild_id is not None else ("", ())
        query = ("SELECT DISTINCT g.guild_id, g.ruleset FROM games g JOIN (SELECT MAX(id) AS id FROM games"
                 f" WHERE guild_id IS NOT NULL{only} GROUP BY channel) latest ON latest.id = g.id")
        found: dict[int, set[str]] = {}
        for row in await self._fetchall(query, params):
            found.setdefault(int(row[0]), set()).add(str(row[1]))
        return found

    async def command_sets(self, prefix: str) -> dict[str, str]:
        """The digest of each set of commands registered, by scope, of the scopes that start with `prefix` (an
        application's: "<application id>:")."""
        rows = await self._fetchall("SELECT scope, digest FROM command_sets WHERE scope LIKE ?",
                                    (prefix + "%",))
        return {str(r[0]): str(r[1]) for r in rows}

    async def note_command_set(self, scope: str, digest: str | None, now: datetime) -> None:
        """Record the set of commands just registered at `scope` by its digest (None: none registered there)."""
        if digest is None:
            await self._transaction(lambda con: con.execute("DELETE FROM command_sets WHERE scope = ?", (scope,)))
            return
        await self._transaction(lambda con: con.execute(
            "INSERT INTO command_sets (scope, digest, synced_at) VALUES (?, ?, ?)"
            " ON CONFLICT (scope) DO UPDATE SET digest = excluded.digest, synced_at = excluded.synced_at",
            (scope, digest, _iso(now))))


def _lease(now: datetime) -> Lease:
    """A lease of `ANNOUNCE_LEASE` from now, in each database's terms."""
    return Lease(_iso(now), _iso(now + ANNOUNCE_LEASE), ANNOUNCE_LEASE.total_seconds())


def _page_version(row: Any) -> str:
    """A page's version from its row's (id, last action, last roll, ended, secret rolls revealed)."""
    return f"{row[1]}.{row[2]}.{int(row[3])}.{row[4]}"

