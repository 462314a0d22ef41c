"""Idempotency keys: a command a front-end gives a key (Discord's interaction id, the console's line id) records it
in its own transaction (`command_keys`, migration 018) with what it did: the actions it logged and its refusal.

So a retry with the same key (Discord delivering an interaction again, a line run again) answers the first
outcome instead of applying the command twice, and a command whose COMMIT lost the connection
(`connection.CommitUnknown`: the server may have committed it or not) is looked up once the store reconnects: saved
(its real answer) or not (nothing changed), never a guess. Keys are kept a day (`KEEP`): Discord's interactions
expire in 15 minutes; the store deletes older ones, a bounded batch at most every 2 seconds, in a command's
transaction.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from datetime import datetime, timedelta

import orjson

from engine import errors
from engine.dice import FreeRoll
from engine.errors import RefereeError

KEEP = timedelta(days=1)
PRUNE_EVERY = timedelta(seconds=2)
# keys deleted at a time: a prune holds the database thread about a millisecond and keeps up with 500 keys a second
PRUNE_BATCH = 1_000
MAX_KEY = 200  # characters: a front-end's key is an id, not text a user typed
# What a command whose COMMIT lost the connection is told when nobody can tell whether it landed.
UNKNOWN = ("the referee lost the database while saving this ({cause}) and cannot tell yet whether it was saved: "
           "/game status shows whether it was, before you try again")


@dataclass(frozen=True)
class Recorded:
    """A key's first outcome: its game, every action it logged (a catch-up's first), its refusal's kind and words."""

    game_id: int
    action_ids: list[int]
    refused: tuple[str, str] | None = None
    free_roll: FreeRoll | None = None  # a /roll's: the roll it logged

    def refusal(self) -> RefereeError | None:
        """The first refusal again, as its kind of refusal (a refusal of no known kind: a `RefereeError`)."""
        if self.refused is None:
            return None
        kind, message = self.refused
        found = getattr(errors, kind, None)
        made = found if isinstance(found, type) and issubclass(found, RefereeError) else RefereeError
        return made(message)


def check_key(key: str) -> str:
    """A front-end's key, refused (a programming error, not a user's) when empty or longer than MAX_KEY."""
    if not isinstance(key, str) or not 0 < len(key) <= MAX_KEY:
        raise ValueError(f"an idempotency key is 1 to {MAX_KEY} characters, not {key!r:.60}")
    return key


def recorded(con: sqlite3.Connection, key: str) -> Recorded | None:
    """The key's first outcome, if a command with that key has committed (runs in the database thread)."""
    row = con.execute("SELECT game_id, outcome FROM command_keys WHERE key = ?", (key,)).fetchone()
    if row is None:
        return None
    outcome = orjson.loads(row[1])
    refused, rolled = outcome.get("refused"), outcome.get("free_roll")
    return Recorded(int(row[0]), [int(i) for i in outcome.get("actions", [])],
                    (str(refused[0]), str(refused[1])) if refused else None,
                    FreeRoll(str(rolled[0]), str(rolled[1]), int(rolled[2])) if rolled else None)


def record(con: sqlite3.Connection, key: str, game_id: int, action_id: int | None, action_ids: list[int],
           refusal: BaseException | None, now: datetime, free_roll: FreeRoll | None = None) -> None:
    """Record a command's key with its outcome, in the command's own transaction (one INSERT)."""
    outcome: dict[str, object] = {"actions": action_ids}
    if refusal is not None:
        outcome["refused"] = [type(refusal).__name__, str(refusal)]
    if free_roll is not None:
        outcome["free_roll"] = [free_roll.expression, free_roll.breakdown, free_roll.total]
    con.execute("INSERT INTO command_keys (key, game_id, action_id, outcome, created_at) VALUES (?, ?, ?, ?, ?)",
                (key, game_id, action_id, orjson.dumps(outcome).decode(), now.isoformat()))


def prune(con: sqlite3.Connection, now: datetime) -> None:
    """Delete the oldest keys older than KEEP, at most PRUNE_BATCH of them (through their `created_at` index)."""
    con.execute("DELETE FROM command_keys WHERE key IN (SELECT key FROM command_keys WHERE created_at < ?"
                " ORDER BY created_at LIMIT ?)", ((now - KEEP).isoformat(), PRUNE_BATCH))
