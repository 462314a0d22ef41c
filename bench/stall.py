"""No game stalls another (issue 33): one bot process serves every server's games and the store runs one
transaction at a time, so a command that computes for long stalls everyone's.

For each rule set the largest legal game is built (every count at the bound the engine and the import allow, a
long log), its candidate slow commands are timed through the referee, and then the slowest is run again and again
while cheap commands of other games (a Nations `/economy grow`, then the GM's `/gm action grant`) arrive at a
steady rate through the same referee and store: their latency, from the moment each was due, is the figure.
Separately, the rule set's largest legal import (`/game import`, through the dispatcher as the bot runs it, of a
file just under MAX_EXPORT_BYTES) runs again and again in fresh channels while the others play.

    python -m bench.stall [--seconds 4] [--rate 20] [--scale 1] [--only nations,goddice,godsfire]
                          [--switch-interval 0.005]   # CPython's default instead of the bot's (SWITCH_INTERVAL)

Prints figures only. The Godsfire game and its slowest command come from `bench/godsfire_worst.py`.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import shutil
import sqlite3
import statistics
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path
from typing import Any

from bench.build import PRESETS, T0, build_store, grow_or_grant, ms, percentile

OTHERS = 40  # small Nations games the cheap commands go to, in turn
GOAL = 0.3  # seconds: the others' p99 aimed at (Discord's limit is 3 s)
NOW = T0 + timedelta(hours=1)  # the referee's clock: no turn of the small games ends while measuring
GUILD = 4343
RULESETS = ("nations", "goddice", "godsfire")

Run = Callable[[], Awaitable[Any]]


@dataclass
class Big:
    """A rule set's largest legal game: its candidate slow commands (each can run again and again) and its
    largest legal import's bytes."""

    ruleset: str
    what: str  # the game, in a few words
    candidates: dict[str, Run]
    import_bytes: bytes = b""
    once: dict[str, tuple[Run | None, Run]] = field(default_factory=dict)
    """Commands that cannot run again, each after what sets it up (untimed): timed once, at the end."""


# --- driving commands as the bot does ----------------------------------------------------------------


def request(channel: str, actor: str, path: str, options: dict[str, Any]) -> Any:
    from engine.commands import BY_PATH, coerce_options
    from service.dispatch import Request

    command = BY_PATH[path]
    typed = coerce_options(command, options) if not any(hasattr(v, "read") for v in options.values()) else options
    return Request(channel, actor, command, typed, text=f"/{path}", guild_id=GUILD)


def runner(dispatcher: Any, channel: str, actor: str, path: str, **options: Any) -> Run:
    """One command through the dispatcher (a refusal is a run too: it costs what it costs)."""
    from engine.errors import RefereeError

    async def run() -> Any:
        try:
            return await dispatcher.run(request(channel, actor, path, options))
        except RefereeError as err:
            return err

    return run


def cycle(*runs: Run) -> Run:
    """Runs taken in turn, one a call (a pair that undoes itself: set, then set back)."""
    turn = [0]

    async def run() -> Any:
        turn[0] += 1
        return await runs[(turn[0] - 1) % len(runs)]()

    return run


def importer(dispatcher: Any, raw: bytes, name: str, actor: str = "importer") -> Run:
    """The largest legal import, again and again, each into a fresh channel (as /game import runs it)."""
    from service.dispatch import Upload

    count = [0]

    async def read() -> bytes:
        return raw

    async def run() -> Any:
        count[0] += 1
        return await dispatcher.run(request(f"import-{name}-{count[0]}", actor, "game import",
                                            {"file": Upload(f"{name}.json", read)}))

    return run


# --- Nations: nations, units and battles at their bounds, a long log --------------------------------


def nations_export(now: Any, limit: int) -> dict[str, Any]:
    """The largest Nations export: nations and units at their bounds, stats at theirs, live battles (every other
    nation attacking the last, one unit each) at theirs, over battles (five duels of six rounds each, as a real
    3-against-3 battle leaves) up to their bound or half the file, then rolls up to their bound or `limit` bytes."""
    from data import rules_for
    from engine.core import Context
    from engine.dice import RandomRoller
    from engine.nations import schema
    from engine.nations.snapshot import state_to_dict
    from engine.rulesets import ruleset

    start = ruleset("nations").start(Context(now, "gm", rules_for("nations"), True, RandomRoller()), {})
    data = state_to_dict(start.state)
    types = ("infantry", "armour", "fighter", "bomber", "warships", "submarines")
    nations = schema.MAX_NATIONS
    each = min(schema.MAX_UNITS, getattr(schema, "MAX_GAME_UNITS", 10**9) // nations)
    top = schema.MAX_STAT
    unit_id = 1
    for i in range(nations):
        listed = []
        for j in range(each):
            listed.append({"id": unit_id, "type": types[j % 6], "rank": "guard", "hp": 5, "battle": None})
            unit_id += 1
        data["nations"].append({"name": f"Nation {i:03d}", "player": f"p{i}", "economy": top // 2,
                                "stability": top, "military": top // 2, "propaganda": top, "land": top,
                                "strength": "infantry", "weakness": "armour", "units": listed})
    data["game"]["next_unit_id"] = unit_id
    battle_id = 1
    deadline = (now + timedelta(hours=4)).isoformat()
    live = min(getattr(schema, "MAX_LIVE_BATTLES", 500), (nations - 1) * (each - 1), schema.MAX_BATTLES)
    for k in range(live):  # every other nation attacks the last one, one unit a battle
        attacker = data["nations"][k % (nations - 1)]
        unit = attacker["units"][k // (nations - 1)]
        unit["battle"] = battle_id
        data["battles"].append({"id": battle_id, "attacker": attacker["name"], "defender": f"Nation {nations - 1:03d}",
                                "state": "commit", "turn": 1, "attacking": [unit["id"]],
                                "in_fight_attacking": [unit["id"]], "deadline": deadline})
        battle_id += 1
    size = len(compact(data))
    rounds = [{"kind": "round", "attacker_total": 9, "defender_total": 7, "loser": 2}] * 6
    duel = {"attacker_unit": 1, "defender_unit": 2, "attacker_type": "infantry", "defender_type": "armour",
            "chosen_by": "Nation 000", "rounds": rounds, "outcome": "the defender's #2 armour was killed"}
    while battle_id <= schema.MAX_BATTLES:
        battle = {"id": battle_id, "attacker": "Nation 000", "defender": "Nation 001", "state": "over",
                  "result": "attacker won", "duels": [duel] * 5, "turn": 1, "attacking": [1, 3, 5],
                  "defending": [501, 503, 505], "in_fight_attacking": [], "in_fight_defending": []}
        size += len(compact(battle)) + 1
        if size > limit // 2:
            break
        data["battles"].append(battle)
        battle_id += 1
    data["game"]["next_battle_id"] = battle_id
    roll = {"nation": "Nation 000", "purpose": "grow economy", "die": 7, "modifiers": {"mod(E)": 2}, "total": 9,
            "target": 8, "comparison": ">", "success": True, "forced": False, "turn": 1, "at": now.isoformat()}
    return with_rolls(data, roll, limit)


def with_rolls(data: dict[str, Any], roll: dict[str, Any], limit: int) -> dict[str, Any]:
    """`data` with copies of `roll` as its rolls, up to their bound or `limit` bytes in all."""
    from engine.schema import MAX_ROLLS

    room = limit - len(compact(dict(data, rolls=[])))
    count = max(0, min(MAX_ROLLS, room // (len(compact(roll)) + 1)))
    return dict(data, rolls=[roll] * count)


def compact(data: Any) -> bytes:
    return json.dumps(data, separators=(",", ":")).encode()


def lengthen_log(path: Path, channel: str, actions: int) -> int:
    """Copy the game's last two logged actions (the GM's +1 and -1 of a stat) over and over with SQL, until
    the log holds `actions` more: a game played for a long time. Returns the events it holds."""
    con = sqlite3.connect(path, isolation_level=None)
    try:
        con.execute("BEGIN IMMEDIATE")
        [(game_id,)] = con.execute("SELECT id FROM games WHERE channel = ? AND ended = 0", (channel,)).fetchall()
        pair = con.execute("SELECT id, actor, command, at FROM actions WHERE game_id = ? ORDER BY id DESC LIMIT 2",
                           (game_id,)).fetchall()[::-1]
        assert [command for _, _, command, _ in pair] == ["/gm set"] * 2, pair
        events = {source: con.execute("SELECT kind, data FROM events WHERE action_id = ? ORDER BY id",
                                      (source,)).fetchall() for source, *_ in pair}
        [(first,)] = con.execute("SELECT COALESCE(MAX(id), 0) + 1 FROM actions").fetchall()
        rows, logged = [], []
        for i in range(actions):
            source, actor, command, at = pair[i % 2]
            rows.append((first + i, game_id, actor, command, at))
            logged += [(game_id, first + i, kind, data) for kind, data in events[source]]
        con.executemany("INSERT INTO actions (id, game_id, actor, command, at) VALUES (?, ?, ?, ?, ?)", rows)
        con.executemany("INSERT INTO events (game_id, action_id, kind, data) VALUES (?, ?, ?, ?)", logged)
        con.execute("COMMIT")
        return int(con.execute("SELECT COUNT(*) FROM events WHERE game_id = ?", (game_id,)).fetchone()[0])
    finally:
        con.close()


async def nations_big(referee: Any, dispatcher: Any, path: Path, scale: float) -> Big:
    from engine.commands import MAX_EXPORT_BYTES
    from engine.nations import schema

    data = nations_export(NOW, MAX_EXPORT_BYTES - 1000)
    raw = compact(data)
    units = sum(len(n["units"]) for n in data["nations"])
    live = sum(1 for b in data["battles"] if b["state"] != "over")
    big = Big("nations", f"{len(data['nations'])} nations, {units:,} units, stats at {schema.MAX_STAT:,}, "
                         f"{live} battles under way and {len(data['battles']) - live:,} over, "
                         f"{len(data['rolls']):,} rolls: {len(raw) / 1e6:.1f} MB", {}, raw)
    await importer(dispatcher, raw, "nations-big", "gm")()
    channel = "import-nations-big-1"
    gm = "gm"
    for change in ("-1", "+1"):
        done = await runner(dispatcher, channel, gm, "gm set", nation="Nation 002", stat="stability", value=change)()
        assert not isinstance(done, Exception), done
    events = lengthen_log(path, channel, int(200_000 * scale))
    big.what += f", a log of {events:,} events"
    big.once = {
        "/gm set land 1 after /gm set economy 10,000,000 (E and M cut to fit)": (
            runner(dispatcher, channel, gm, "gm set", nation="Nation 003", stat="economy", value="10000000"),
            runner(dispatcher, channel, gm, "gm set", nation="Nation 003", stat="land", value="1")),
        f"/gm eliminate (its {live} battles under way cancelled)": (None, runner(
            dispatcher, channel, gm, "gm eliminate", nation=data["nations"][-1]["name"])),
    }
    big.candidates = {
        "/gm set land (cuts E and M to fit)": cycle(
            runner(dispatcher, channel, gm, "gm set", nation="Nation 004", stat="land", value="1"),
            runner(dispatcher, channel, gm, "gm set", nation="Nation 004", stat="economy", value="5000"),
            runner(dispatcher, channel, gm, "gm set", nation="Nation 004", stat="land", value="10000"),
            runner(dispatcher, channel, gm, "gm set", nation="Nation 004", stat="military", value="5000")),
        "/economy grow": runner(dispatcher, channel, "p5", "economy grow"),
        "/gm action grant": runner(dispatcher, channel, gm, "gm action grant", nation="Nation 005", kind="economy"),
        "/attack status": runner(dispatcher, channel, "p6", "attack status"),
        "/gm undo (a long log replayed)": undo_runner(referee, channel, gm),
    }
    return big


def undo_runner(referee: Any, channel: str, gm: str) -> Run:
    """/gm undo of the last action (each run takes back one more), as the confirmed button runs it."""
    from engine.errors import RefereeError

    async def run() -> Any:
        try:
            return await referee.undo(channel, gm)
        except RefereeError as err:
            return err

    return run


# --- God Dice: eight players of ten characters, the largest card file --------------------------------


def largest_cards(rolloff: bool = False) -> dict[str, Any]:
    """The shipped card file grown to the bounds: eight players of ten characters each, as many characters as the
    bounds allow, each with attacks up to the file's value budget (`rolloff`: the most attack dice, each of a
    thousand BLUE faces and one of each other, so that the opening roll-off may tie round after round)."""
    from data import read_toml
    from engine.goddice.cards import bound_card_file, cards_from_dict
    from engine.goddice.schema import MAX_POOL

    raw = read_toml("goddice.toml")
    raw["draft"].update(copies=10, characters_each=10, characters_each_with_four=10, max_players=8)
    hero = raw["characters"]["hero"]
    extra = 0
    while len(raw["characters"]) < MAX_POOL:
        extra += 1
        raw["characters"][f"x{extra}"] = {"title": f"Extra {extra}", "god": chr(0x4E00 + extra), "life": 1000,
                                          "basic": {"B": 1}, "attacks": [], "wild": list(hero["wild"])}
    raw["dice"]["god_faces"] = [c["god"] for c in raw["characters"].values()]
    if rolloff:
        raw["dice"]["attack_faces"] = ["B"] * 1000 + ["R", "Y", "O", "5"]
        raw["dice"]["attack_count"] = 30
    attack = {"id": "a", "title": "A", "needs": {"B": 1}, "multiplier": 2, "target": "all"}
    names = [n for n in raw["characters"] if n.startswith("x")]
    index = 0
    while True:  # named attacks on the extra characters until the budget is spent
        character = raw["characters"][names[index % len(names)]]
        character["attacks"].append(dict(attack, id=f"a{index}", title=f"A {index}"))
        try:
            bound_card_file(raw)
        except Exception:
            character["attacks"].pop()
            break
        index += 1
    assert cards_from_dict(raw)
    return raw


async def goddice_big(referee: Any, dispatcher: Any, path: Path, scale: float) -> Big:
    from engine.commands import MAX_EXPORT_BYTES
    from engine.goddice.actions import LoadCards
    from engine.goddice.snapshot import state_to_dict
    from service.dispatch import Dispatcher, Front
    from service.referee import Referee

    cards = largest_cards()
    players = [f"g{i}" for i in range(8)]
    channel, seating, tied = "goddice-big", "goddice-seating", "goddice-rolloff"
    gm = "gm"
    for where in (channel, seating, tied):
        await referee.start_game(where, gm, ruleset_name="goddice", guild_id=GUILD)
        await referee.act(where, gm, LoadCards(cards if where != tied else largest_cards(rolloff=True)), "/gm cards")
        for player in players:
            await runner(dispatcher, where, gm, "goddice join", player=player)()
    await runner(dispatcher, channel, gm, "goddice begin")()
    state = await referee.state(channel)
    await runner(dispatcher, channel, state.chooser, "goddice choose", first="select")()
    while (state := await referee.state(channel)).picks:
        kind = next(t for t, n in state.pool.items() if n)
        await runner(dispatcher, channel, state.picks[0], "goddice pick", character=kind)()
    state = await referee.state(channel)
    victim = state.players[-1]
    roll = {"player": players[0], "purpose": "attack dice", "faces": ["B", "R", "Y", "O", "5", "5", "B", "R", "Y"],
            "forced": [False] * 9, "turn": 1, "at": NOW.isoformat()}
    exported = with_rolls(state_to_dict(state), roll, MAX_EXPORT_BYTES - 1000)
    raw = compact(exported)
    big = Big("goddice", f"8 players x 10 characters, a card file of {len(cards['characters'])} characters "
                         f"({len(compact(cards)) / 1e3:.0f} kB), {len(exported['rolls']):,} rolls in its export", {},
              raw)
    label = f"#{victim.characters[0].id}"
    big.candidates = {
        "/gm life (set, then back)": cycle(
            runner(dispatcher, channel, gm, "gm life", player=victim.name, character=label, life=1),
            runner(dispatcher, channel, gm, "gm life", player=victim.name, character=label, life=1000)),
        "/goddice status": runner(dispatcher, channel, players[0], "goddice status"),
        "/gm cards (the largest card file)": gm_cards(referee, seating, gm, cards),
        "/goddice begin (the roll-off tied for every round it allows, 8 x 30 dice a round)": runner(
            Dispatcher(Referee(referee.store, roller=FirstFace(), clock=lambda: NOW), Front("console")), tied, gm,
            "goddice begin"),
    }
    return big


class FirstFace:
    """Dice that always show their first face (a BLUE: no YELLOW, every roll-off round tied)."""

    def roll(self, sides: int) -> int:
        return 1


def gm_cards(referee: Any, channel: str, gm: str, cards: dict[str, Any]) -> Run:
    """/gm cards with the largest card file (the file read and parsed first, as the dispatcher does)."""
    from engine.errors import RefereeError
    from engine.goddice.actions import LoadCards

    async def run() -> Any:
        try:
            return await referee.act(channel, gm, LoadCards(json.loads(json.dumps(cards))), "/gm cards")
        except RefereeError as err:
            return err

    return run


# --- Godsfire: bench/godsfire_worst.py's game -------------------------------------------------------


async def godsfire_big(referee: Any, dispatcher: Any, path: Path, scale: float) -> Big:
    """bench/godsfire_worst.py's largest legal game and its slowest command (each run imports a fresh copy of
    the game, then the GM ends the interphase); its import, with rolls up to the file's bound."""
    from bench.godsfire_worst import largest_state, worst_godsfire
    from engine.commands import MAX_EXPORT_BYTES
    from engine.godsfire.snapshot import state_to_dict

    state = largest_state("interphase")
    roll = {"nation": state.players[0].name, "purpose": "combat", "die": 4, "total": 4, "forced": False,
            "turn": state.turn, "at": NOW.isoformat(), "sides": 6}
    data = with_rolls(state_to_dict(state), roll, MAX_EXPORT_BYTES - 1000)
    raw = compact(data)
    counters = len(data["game"].get("counters", []) or state.counters)
    big = Big("godsfire", f"{len(state.players)} players, {len(state.systems)} systems of 12 regions, {counters:,} "
                          f"counters (bench/godsfire_worst.py), {len(data['rolls']):,} rolls in its import", {}, raw)
    big.candidates = {"/godsfire interphase end on the largest game (each run imports a fresh copy first)":
                      await worst_godsfire(referee.store)}
    return big


BUILDERS: dict[str, Callable[[Any, Any, Path, float], Awaitable[Big]]] = {
    "nations": nations_big, "goddice": goddice_big, "godsfire": godsfire_big}


# --- measuring ----------------------------------------------------------------------------------


async def timed(run: Run, times: int) -> list[float]:
    spent = []
    for _ in range(times):
        began = time.perf_counter()
        await run()
        spent.append(time.perf_counter() - began)
    return spent


async def others_while(referee: Any, channels: list[str], nations: dict[str, list[str]], players: list[str],
                       seconds: float, rate: float, busy: Run | None) -> tuple[list[float], list[float]]:
    """The others' latencies (each from the moment it was due, `rate` a second, the channels in turn) while `busy`
    runs again and again (None: nothing else runs); and `busy`'s own durations."""
    from engine.errors import RefereeError

    latencies: list[float] = []
    durations: list[float] = []
    done = asyncio.Event()
    counts = dict.fromkeys(channels, 0)

    async def hammer() -> None:
        while not done.is_set() and busy is not None:
            began = time.perf_counter()
            await busy()
            durations.append(time.perf_counter() - began)

    async def one(channel: str, due: float) -> None:
        i = counts[channel]
        counts[channel] += 1
        try:
            await grow_or_grant(referee, channel, i, players, nations[channel])
        except RefereeError:
            pass
        latencies.append(time.perf_counter() - due)

    hammering = asyncio.ensure_future(hammer())
    await asyncio.sleep(0.05)  # the busy game's first command under way
    began = time.perf_counter()
    tasks = []
    for i in range(int(seconds * rate)):
        due = began + i / rate
        wait = due - time.perf_counter()
        if wait > 0:
            await asyncio.sleep(wait)
        tasks.append(asyncio.ensure_future(one(channels[i % len(channels)], due)))
    await asyncio.gather(*tasks)
    done.set()
    await hammering
    return latencies, durations


@dataclass
class Row:
    ruleset: str
    what: str
    own: list[float]
    others: list[float]

    def line(self) -> str:
        own = f"{ms(statistics.median(self.own))} (max {ms(max(self.own))})" if self.own else "-"
        p99 = percentile(self.others, 0.99)
        return (f"  {self.ruleset:<9} {self.what:<58} own {own:<22} others p50 {ms(percentile(self.others, 0.5))}, "
                f"p99 {ms(p99)}, max {ms(max(self.others))} [p99 < {GOAL * 1000:.0f} ms: "
                f"{'met' if p99 < GOAL else 'NOT met'}]")


async def measure(name: str, seconds: float, rate: float, scale: float) -> list[str]:
    from data.store import Store
    from engine.dice import RandomRoller
    from service.dispatch import Dispatcher, Front
    from service.referee import Referee

    folder = Path(tempfile.mkdtemp(prefix="bench-stall-"))
    lines: list[str] = []
    try:
        path = folder / "referee.db"
        channels = [f"other{i}" for i in range(OTHERS)]
        players = [f"p{i}" for i in range(len(PRESETS))]
        await build_store(path, channels, GUILD, "gm", players)
        store = await Store.open(path)
        try:
            referee = Referee(store, roller=RandomRoller(random.Random(7)), clock=lambda: NOW)
            dispatcher = Dispatcher(referee, Front("console"))
            nations = {}
            for channel in channels:
                state = await referee.state(channel)
                nations[channel] = [state.nation_of(p).name for p in players]
            began = time.perf_counter()
            big = await BUILDERS[name](referee, dispatcher, path, scale)
            lines.append(f"{big.ruleset}: {big.what} (built in {time.perf_counter() - began:.0f} s)")
            spent = {what: await timed(run, 3) for what, run in big.candidates.items()}
            for what, times in spent.items():
                lines.append(f"  {what}: {ms(statistics.median(times))} (max {ms(max(times))})")
            slowest = max(spent, key=lambda what: max(spent[what]))
            rows = []
            alone, _ = await others_while(referee, channels, nations, players, seconds, rate, None)
            rows.append(Row(name, "(nothing else running)", [], alone))
            others, own = await others_while(referee, channels, nations, players, seconds, rate,
                                             big.candidates[slowest])
            rows.append(Row(name, slowest, own, others))
            if big.import_bytes:
                run = importer(dispatcher, big.import_bytes, f"{name}-again")
                others, own = await others_while(referee, channels, nations, players, seconds, rate, run)
                rows.append(Row(name, f"/game import ({len(big.import_bytes) / 1e6:.1f} MB)", own, others))
            lines += [row.line() for row in rows]
            for what, (setup, run) in big.once.items():
                first = await setup() if setup is not None else None
                began = time.perf_counter()
                result = await run()
                refused = [f"refused: {r}" for r in (first, result) if isinstance(r, Exception)]
                lines.append(f"  once: {what}: {ms(time.perf_counter() - began)}"
                             + (f" ({'; '.join(refused)})" if refused else ""))
        finally:
            await store.close()
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=4.0, help="each measurement's length (default 4 s)")
    parser.add_argument("--rate", type=float, default=20.0, help="the others' commands a second (default 20)")
    parser.add_argument("--scale", type=float, default=1.0, help="the long log's length, x 200,000 actions")
    parser.add_argument("--only", default=",".join(RULESETS), help="rule sets, comma-separated")
    parser.add_argument("--switch-interval", type=float, default=None,
                        help="the interpreter's switch interval in seconds (default: the bot's, SWITCH_INTERVAL)")
    args = parser.parse_args(argv)
    chosen = [n.strip() for n in args.only.split(",") if n.strip()]
    if not 0 < args.seconds <= 120 or not 0 < args.rate <= 500 or not 0 < args.scale <= 10 \
            or not chosen or set(chosen) - set(RULESETS):
        parser.error(f"--seconds up to 120, --rate up to 500, --scale up to 10, --only of {', '.join(RULESETS)}")
    from service.referee import SWITCH_INTERVAL

    interval = SWITCH_INTERVAL if args.switch_interval is None else args.switch_interval
    if not 1e-6 <= interval <= 0.1:
        parser.error("--switch-interval from 0.000001 to 0.1 s")
    sys.setswitchinterval(interval)  # as the bot sets it (bot.serve)
    print(f"stall: others' latency ({OTHERS} small Nations games, {args.rate:g} commands/s, {args.seconds:g} s) "
          "while one game runs its slowest legal command, or the largest legal import, again and again "
          f"(switch interval {interval * 1000:g} ms):")
    for name in chosen:
        for line in asyncio.run(measure(name, args.seconds, args.rate, args.scale)):
            print(line, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
