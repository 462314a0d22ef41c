"""Helpers shared by the store, console, property and crash tests (not a test module itself)."""

from __future__ import annotations

import json
import queue
import re
import sqlite3
import subprocess
import sys
import time
from collections.abc import Iterable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
if str(REPO) not in sys.path:  # the tests import the project's top-level modules (referee, console, …)
    sys.path.insert(0, str(REPO))

from data import rules_for  # noqa: E402
from data.store import Store, pack_snapshot, snapshot_document  # noqa: E402
from engine.events import event_from_dict, event_to_dict, replay  # noqa: E402
from engine.history import last_point  # noqa: E402
from engine.rulesets import ruleset_of  # noqa: E402


def state_to_dict(state: Any) -> dict[str, Any]:
    """Any rule set's state as its export dict."""
    return ruleset_of(state).state_to_dict(state)


def read_snapshot(con: Any, game_id: int | None = None) -> dict[str, Any]:
    """A game's snapshot document read with plain SQL (the only game's when `game_id` is None), in either form the
    store writes: compressed (`snapshot_z`) or, in a row not written since migration 015, JSON text (`snapshot`)."""
    query = "SELECT snapshot, snapshot_z FROM games" + ("" if game_id is None else " WHERE id = ?")
    text, packed = con.execute(query, () if game_id is None else (game_id,)).fetchone()
    return snapshot_document(text, packed)


def write_snapshot(con: Any, game_id: int, document: dict[str, Any]) -> None:
    """Overwrite a game's snapshot document with plain SQL, as the store writes it (compressed)."""
    con.execute("UPDATE games SET snapshot = NULL, snapshot_z = ? WHERE id = ?", (pack_snapshot(document), game_id))


def undo_compact_snapshots(con: sqlite3.Connection) -> None:
    """A SQLite database taken back to before migration 015: every snapshot as JSON text, no `snapshot_z` (and so
    before 016 too: no `game_pages`, no `rolls_by_game_id`; nor 018's `command_keys`, nor the tables of the migrations
    after it: 019's `guild_settings`, 020's `rolls.secret`, 021's `quiet_hours`, 022's `command_sets`, 023's clock
    columns)."""
    for later in ("guild_settings", "quiet_hours", "command_sets"):
        con.execute(f"DROP TABLE IF EXISTS {later}")
    if any(column[1] == "secret" for column in con.execute("PRAGMA table_info(rolls)")):
        con.execute("ALTER TABLE rolls DROP COLUMN secret")
    con.execute("DROP TABLE IF EXISTS command_keys")
    con.execute("DROP TABLE IF EXISTS game_pages")
    con.execute("DROP INDEX IF EXISTS rolls_by_game_id")
    for game_id, text, packed in con.execute("SELECT id, snapshot, snapshot_z FROM games").fetchall():
        con.execute("UPDATE games SET snapshot = ? WHERE id = ?",
                    (json.dumps(snapshot_document(text, packed), separators=(",", ":")), game_id))
    con.execute("ALTER TABLE games DROP COLUMN snapshot_z")
    for later in ("clock", "log_ahead"):  # (migration 023's)
        if any(column[1] == later for column in con.execute("PRAGMA table_info(games)")):
            con.execute(f"ALTER TABLE games DROP COLUMN {later}")


T0 = datetime(2030, 1, 1, tzinfo=UTC)
RULES = rules_for("nations")
UNIT_TYPES = tuple(RULES.units)
RANKS = RULES.ranks
BONUS_KINDS = ("workers", "patriotism", "morale")
ACTION_KINDS = ("attack", "economy", "propaganda")


class FakeClock:
    """An injectable clock: `clock()` is the current time, `advance(hours=…)` moves it on."""

    def __init__(self, start: datetime = T0) -> None:
        self.now = start

    def __call__(self) -> datetime:
        return self.now

    def advance(self, **delta: float) -> datetime:
        self.now += timedelta(**delta)
        return self.now

    def set(self, moment: datetime) -> None:
        self.now = moment


# --- the store ------------------------------------------------------------------------------------


async def snapshot_and_replay(store: Store, game_id: int) -> tuple[dict[str, Any], dict[str, Any]]:
    """The game's snapshot and the replay of its live log, both as plain dicts."""
    return state_to_dict(await store.load(game_id)), state_to_dict(await store.replayed(game_id))


async def assert_snapshot_is_replay(store: Store, game_id: int) -> None:
    """The snapshot equals the replay of the live log, and the live stat history ends where the state stands."""
    snapshot, replayed = await snapshot_and_replay(store, game_id)
    assert snapshot == replayed
    await assert_history_is_state(store, game_id)


async def assert_every_game_is_its_replay(target: Any) -> list[int]:
    """Open the database at `target` (a path or a URL) and check every game in it, ended ones too, against the
    replay of its log; returns their ids."""
    store = await Store.open(target)
    try:
        game_ids = [row.id for row in await store.games(live_only=False)]
        for game_id in game_ids:
            await assert_snapshot_is_replay(store, game_id)
        return game_ids
    finally:
        await store.close()


async def assert_history_is_state(store: Store, game_id: int) -> None:
    """Each series of the live stat history ends at the value the game's state has now (issue 19), each side by
    its name now (issue 34: a God Dice character renamed by a second of its type)."""
    from engine.chartspec import renamed

    state = await store.load(game_id)
    rules = ruleset_of(state)
    if rules.history_point is not None:
        names = rules.history_names(state) if rules.history_names else {}
        assert last_point(renamed(await store.history(game_id), names)) == rules.history_point(state)


async def scalar(store: Store, sql: str, *params: Any) -> Any:
    """The first value of a query's first row (SQLite's or PostgreSQL's, as the store is)."""
    rows = await store._fetchall(sql, params)
    return rows[0][0] if rows else None


async def log_counts(store: Store, game_id: int | None = None) -> dict[str, int]:
    """Rows of the log tables (of one game, or all of them)."""
    counts = {}
    for table in ("games", "actions", "events", "rolls"):
        if game_id is None or table == "games":
            counts[table] = await scalar(store, f"SELECT COUNT(*) FROM {table}")
        else:
            counts[table] = await scalar(store, f"SELECT COUNT(*) FROM {table} WHERE game_id = ?", game_id)
    return counts


def db_counts(path: Path | str) -> dict[str, int]:
    """The same counts with plain sqlite3 (no Store), for a database a killed process left behind."""
    with sqlite3.connect(str(path)) as con:
        return {t: con.execute(f"SELECT COUNT(*) FROM {t}").fetchone()[0] for t in ("games", "actions", "events",
                                                                                  "rolls")}


def roundtrip_events(events: Iterable[Any], ruleset: str) -> list[Any]:
    """Events of a game of `ruleset` through their JSON form and back, as the store keeps them."""
    return [event_from_dict(json.loads(json.dumps(event_to_dict(e))), ruleset) for e in events]


def replay_dict(events: Iterable[Any]) -> dict[str, Any]:
    return state_to_dict(replay(list(events)))


# --- the export contract --------------------------------------------------------------------------

CONTRACT_GAME = ("ruleset", "turn", "turn_hours", "turn_ends_at", "paused")
CONTRACT_NATION = ("name", "player", "economy", "stability", "military", "propaganda", "land", "strength",
                   "weakness", "foreign_patches", "eliminated", "actions_used", "bonuses", "units")
CONTRACT_BONUS = ("kind", "value", "expires_at")
CONTRACT_UNIT = ("id", "type", "rank", "hp")
CONTRACT_ROLL = ("nation", "purpose", "die", "modifiers", "total", "target", "success", "forced")


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_utc_iso(value: Any) -> bool:
    if not isinstance(value, str):
        return False
    try:
        moment = datetime.fromisoformat(value)
    except ValueError:
        return False
    return moment.tzinfo is not None and moment.utcoffset() == timedelta(0)


def check_export_contract(data: dict[str, Any]) -> None:
    """Assert `data` has every key of the issue's export contract, with the contract's types and spellings."""
    assert set(data) >= {"game", "nations", "rolls"}
    game = data["game"]
    assert set(game) >= set(CONTRACT_GAME), set(CONTRACT_GAME) - set(game)
    assert game["ruleset"] == "nations"
    assert _is_int(game["turn"]) and game["turn"] >= 1
    assert isinstance(game["turn_hours"], int | float) and not isinstance(game["turn_hours"], bool)
    assert _is_utc_iso(game["turn_ends_at"]), game["turn_ends_at"]
    assert isinstance(game["paused"], bool)
    assert isinstance(data["nations"], list)
    for nation in data["nations"]:
        assert set(nation) >= set(CONTRACT_NATION), set(CONTRACT_NATION) - set(nation)
        assert isinstance(nation["name"], str) and nation["name"]
        assert nation["player"] is None or isinstance(nation["player"], str)
        for stat in ("economy", "stability", "military", "propaganda", "land", "foreign_patches"):
            assert _is_int(nation[stat]) and nation[stat] >= 0, (stat, nation[stat])
        assert nation["strength"] in UNIT_TYPES and nation["weakness"] in UNIT_TYPES
        assert isinstance(nation["eliminated"], bool)
        assert isinstance(nation["actions_used"], list)
        assert all(kind in ACTION_KINDS for kind in nation["actions_used"]), nation["actions_used"]
        for bonus in nation["bonuses"]:
            assert set(bonus) >= set(CONTRACT_BONUS)
            assert bonus["kind"] in BONUS_KINDS
            assert _is_int(bonus["value"])
            assert _is_utc_iso(bonus["expires_at"])
        for unit in nation["units"]:
            assert set(unit) >= set(CONTRACT_UNIT)
            assert _is_int(unit["id"]) and _is_int(unit["hp"]) and unit["hp"] >= 1
            assert unit["type"] in UNIT_TYPES and unit["rank"] in RANKS
    for roll in data["rolls"]:
        assert set(roll) >= set(CONTRACT_ROLL), set(CONTRACT_ROLL) - set(roll)
        assert roll["nation"] is None or isinstance(roll["nation"], str)
        assert isinstance(roll["purpose"], str)
        assert _is_int(roll["die"]) and 1 <= roll["die"] <= RULES.die_sides
        assert isinstance(roll["modifiers"], dict)
        assert all(isinstance(k, str) and _is_int(v) for k, v in roll["modifiers"].items())
        assert _is_int(roll["total"]) and roll["total"] == roll["die"] + sum(roll["modifiers"].values())
        assert roll["target"] is None or _is_int(roll["target"])
        assert roll["success"] is None or isinstance(roll["success"], bool)
        assert isinstance(roll["forced"], bool)


def contract_view(data: dict[str, Any]) -> dict[str, Any]:
    """Only what the contract names (for comparing exports key by key)."""
    return {
        "game": {k: data["game"][k] for k in CONTRACT_GAME},
        "nations": [
            {
                **{k: n[k] for k in CONTRACT_NATION if k not in ("bonuses", "units")},
                "bonuses": [{k: b[k] for k in CONTRACT_BONUS} for b in n["bonuses"]],
                "units": [{k: u[k] for k in CONTRACT_UNIT} for u in n["units"]],
            }
            for n in data["nations"]
        ],
        "rolls": [{k: r[k] for k in CONTRACT_ROLL} for r in data["rolls"]],
    }


# --- the console as a subprocess ------------------------------------------------------------------

TIME_RE = re.compile(r"\d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC")


def normalize_times(text: str) -> str:
    """Wall-clock times in console output as `<T>` (the console runs on the real clock)."""
    return TIME_RE.sub("<T>", text)


def bot_command(db: Path | str, seed: int | None = 1) -> list[str]:
    command = [sys.executable, str(REPO / "bot.py"), "--console", "--db", str(db)]
    if seed is not None:
        command += ["--seed", str(seed)]
    return command


def console_env(extra: dict[str, str] | None = None) -> dict[str, str]:
    import os

    env = {k: v for k, v in os.environ.items() if k not in ("DISCORD_TOKEN", "REFEREE_TEST_PAUSE_BEFORE_COMMIT")}
    env["PYTHONIOENCODING"] = "utf-8"
    env["PYTHONUNBUFFERED"] = "1"
    env.update(extra or {})
    return env


def run_console(db: Path | str, lines: Iterable[str], seed: int | None = 1, timeout: float = 60,
                env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """Feed `lines` to `python bot.py --console` and wait for it to finish."""
    script = "".join(line + "\n" for line in lines)
    return subprocess.run(bot_command(db, seed), input=script, capture_output=True, text=True, encoding="utf-8",
                          timeout=timeout, cwd=REPO, env=console_env(env))


async def console_on(db: Path) -> tuple[Any, Store, Any]:
    """An in-process console on a fresh store at `db` (forced dice, a fake clock): (console, store, output)."""
    import io

    from console.app import Console
    from engine.dice import ForcedRoller
    from service.referee import Referee

    store = await Store.open(db)
    out = io.StringIO()
    return Console(Referee(store, RULES, ForcedRoller(), FakeClock()), out), store, out


def said(out: Any) -> list[str]:
    """The lines the console printed since the last call (the buffer is emptied)."""
    lines = out.getvalue().splitlines()
    out.truncate(0)
    out.seek(0)
    return lines


CONSOLE_LINE = re.compile(r"^\S+ /\w")


def sessions(path: Path) -> list[list[str]]:
    """Each indented block of a document whose every line is a console line (`<name> /command …`)."""
    blocks: list[list[str]] = []
    current: list[str] = []
    previous_blank = True
    for line in [*path.read_text(encoding="utf-8").splitlines(), ""]:
        if line.startswith("    ") and (current or previous_blank):
            current.append(line[4:])
        else:
            if current and all(CONSOLE_LINE.match(x) for x in current):
                blocks.append(current)
            current = []
        previous_blank = not line.strip()
    return blocks


async def lapse(clock: FakeClock, store: Any, minutes: float) -> None:
    """`minutes` pass: for the processes' clock and, on PostgreSQL, for the server's (its announcements' leases
    run by its own clock: they end that much sooner)."""
    clock.advance(minutes=minutes)
    if store.dialect == "postgresql":
        await store._transaction(lambda con: con.execute(
            "UPDATE announcements SET lease_until = lease_until - ? * interval '1 minute'", (minutes,)))


# --- a child process's output, line by line (the kill -9 tests) ---------------------------------------------------


def read_lines(stream: Any, into: queue.Queue[str | None]) -> None:
    """Each line of `stream` put on `into` as it comes (a reader thread's target); None at the end."""
    for line in iter(stream.readline, ""):
        into.put(line.rstrip("\n"))
    into.put(None)


def wait_for(lines: queue.Queue[str | None], text: str, timeout: float,
             process: subprocess.Popen[str] | None = None) -> list[str]:
    """Lines read until one equal to `text` (included); fails after `timeout` seconds or at the end of the output
    (saying what `process`, when given, wrote to its stderr)."""
    seen: list[str] = []
    deadline = time.monotonic() + timeout
    while not seen or seen[-1] != text:
        left = deadline - time.monotonic()
        assert left > 0, f"no {text!r} within {timeout} s; got {seen}"
        try:
            line = lines.get(timeout=left)
        except queue.Empty:
            continue
        if line is None:
            said = ""
            if process is not None:
                process.wait(timeout=30)
                said = process.stderr.read() if process.stderr is not None else ""
            raise AssertionError(f"the process ended before {text!r}; got {seen}\n{said}")
        seen.append(line)
    return seen
