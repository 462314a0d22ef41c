"""The console front-end: a game played from a terminal or a forum thread, on the same engine and store.

Each input line is `<actor> <slash command as typed on Discord>`, e.g. `alice /economy grow` or
`gm /nation claim preset:"Gracchan Republic" player:alice`; `#` starts a comment. The one who ran
`/game start` is the game's GM. Answers are plain text; refusals start with `error:` and change nothing.
"""

from __future__ import annotations

import json
import logging
import os
import random
import shlex
import sys
import tomllib
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import Any, TextIO

from data.store import Store
from engine.commands import COMMANDS, Command, build_action, check_ruleset, coerce_options, find_command
from engine.describe import event_line, faces_line, plural, roll_line, same, utc_text
from engine.dice import FacesRecord, RandomRoller, RollRecord
from engine.errors import BadInput, RefereeError
from engine.events import Event
from engine.goddice import describe as goddice_words
from engine.goddice.play import LoadCards, find_player
from engine.nations.common import actions_left, army_mp, find_nation, viewed_nation
from engine.nations.rules import Rules
from engine.nations.state import GameState, Nation
from engine.nations.war import chooser
from referee import Referee, Report, utc_now

CHANNEL = "console"
MAX_CARD_FILE = 200_000
log = logging.getLogger("referee.console")


def parse_line(line: str) -> tuple[str, Command, dict[str, str]] | None:
    """`alice /economy recruit unit:infantry` → ("alice", the command, {"unit": "infantry"}); None if blank."""
    try:
        tokens = shlex.split(line, comments=True)
    except ValueError as err:
        raise BadInput(f"cannot read that line: {err}") from None
    if not tokens:
        return None
    if len(tokens) < 2 or not tokens[1].startswith("/"):
        raise BadInput("write `<your name> /command options`, e.g. `alice /economy grow`")
    actor = tokens[0]
    words = [tokens[1][1:]]
    rest = tokens[2:]
    while rest and ":" not in rest[0] and " ".join([*words, rest[0]]).lower() in _PREFIXES:
        words.append(rest.pop(0))
    command, leftover = find_command(words)
    options: dict[str, str] = {}
    positional = []
    for token in [*leftover, *rest]:
        name, sep, value = token.partition(":")
        if sep and name.isidentifier():
            options[name.lower()] = value
        else:
            positional.append(token)
    free = [p.name for p in command.params if p.name not in options]
    if len(positional) > len(free):
        raise BadInput(f"/{command.path} takes {', '.join(p.name for p in command.params) or 'no options'}; "
                       f"{' '.join(positional[len(free):])!r} is too much")
    options.update(zip(free, positional, strict=False))
    return actor, command, options


_PREFIXES = {" ".join(c.path.split()[:n]) for c in COMMANDS for n in range(1, len(c.path.split()) + 1)}


class Console:
    """Reads commands, runs them through the referee and writes the answers."""

    def __init__(self, referee: Referee, out: TextIO) -> None:
        self.referee = referee
        self.out = out

    @property
    def rules(self) -> Rules:
        return self.referee.rules

    def say(self, text: str) -> None:
        print(text, file=self.out, flush=True)

    def say_events(self, events: list[Event]) -> None:
        for event in events:
            line = event_line(event)
            if line:
                self.say(line)

    async def catch_up(self) -> None:
        """Apply and print everything that fell due in this database's console games (not its Discord ones)."""
        for events in (await self.referee.catch_up_due(owns=lambda guild_id: guild_id is None)).values():
            self.say_events(events)

    async def handle(self, line: str) -> None:
        """One input line; a refusal prints `error: …` and changes nothing."""
        try:
            parsed = parse_line(line)
            if parsed is None:
                return
            await self.catch_up()
            await self.run(*parsed, command_text=line.strip().split(None, 1)[1])
        except RefereeError as err:
            self.say(f"error: {err}")
        except BrokenPipeError:
            raise  # the reader has gone: nothing to tell
        except Exception as err:  # never a traceback to a player: say so, keep the details in the log
            log.exception("console command failed: %s", line.strip())
            self.say(f"error: the referee hit a problem with that line ({type(err).__name__}); /game status "
                     "shows where the game stands")

    async def run(self, actor: str, command: Command, raw: dict[str, str], command_text: str) -> None:
        options = coerce_options(command, raw)
        referee, path = self.referee, command.path
        if command.ruleset is not None:
            check_ruleset(command, await referee.ruleset_name(CHANNEL))
        if path == "help":
            self.say("\n".join(f"/{c.path} {' '.join(_param(p) for p in c.params)} — {c.help}"
                               + (" (GM)" if c.gm_only else "") for c in COMMANDS))
        elif path == "game start":
            report = await referee.start_game(CHANNEL, actor, options.get("turn_hours"), command=command_text,
                                              ruleset_name=options.get("ruleset") or "nations",
                                              options=options.get("options"))
            self.say_events(report.events)
        elif path in ("game status", "goddice status"):
            state = await referee.state(CHANNEL)
            self.say(status_text(state, self.rules) if state.ruleset == "nations"
                     else "\n".join(goddice_words.status_lines(state, same)))
        elif path == "goddice cards":
            self.say("\n".join(goddice_words.cards_lines((await referee.state(CHANNEL)).cards)))
        elif path == "gm cards":
            report = await referee.act(CHANNEL, actor, LoadCards(read_card_file(options["file"])), command_text)
            self.say_events(report.caught_up + report.events)
        elif path == "nation list":
            state = await referee.state(CHANNEL)
            self.say("\n".join(nation_line(n, state, self.rules) for n in state.nations.values())
                     or "No nations yet: /nation claim or /nation create.")
        elif path in ("nation show", "army show"):
            state = await referee.state(CHANNEL)
            nation = viewed_nation(state, actor, options.get("nation"))
            text = nation_text(nation, state, self.rules) if path == "nation show" else army_text(nation, self.rules)
            self.say(text)
        elif path == "attack status":
            self.say(battles_text(await referee.state(CHANNEL), options.get("battle")))
        elif path == "log":
            name = options.get("nation")
            if name:
                state = await referee.state(CHANNEL)
                name = find_nation(state, name).name if state.ruleset == "nations" else find_player(state, name).name
            rolls = await referee.rolls(CHANNEL, name, options.get("limit") or 10)
            self.say("\n".join((f"turn {r.turn}: " if r.turn else "") + ledger_line(r) for r in rolls)
                     or "No rolls yet.")
        elif path == "gm undo":
            report = await referee.undo(CHANNEL, actor)
            self.say_events(report.caught_up + report.events)
        elif path == "gm export":
            await self.export(actor, options.get("file"))
        elif path == "gm import":
            await self.import_(actor, options["file"])
        else:
            report = await referee.act(CHANNEL, actor, build_action(command, options), command_text)
            self.say_events(report.caught_up + report.events)
            self.say_actions_left(report, actor)

    def say_actions_left(self, report: Report, actor: str) -> None:
        if report.state.ruleset != "nations":
            return
        nation = report.state.nation_of(actor)
        used = [e for e in report.events if e.kind == "action_used"]
        if nation is not None and used and not nation.eliminated:
            left = actions_left(report.state, nation)
            self.say(f"{nation.name}: {left} of {report.state.house.actions_per_turn} actions left; "
                     f"turn {report.state.turn} ends {utc_text(report.state.turn_ends_at)}.")

    async def export(self, actor: str, file: str | None) -> None:
        state = await self.referee.state(CHANNEL)
        if not Referee.is_gm(state, actor):
            raise RefereeError("only the GM may export the game")
        text = json.dumps(await self.referee.export(CHANNEL), indent=2)
        if file:
            Path(file).write_text(text + "\n")
            self.say(f"Game exported to {file}.")
        else:
            self.say(text)

    async def import_(self, actor: str, file: str) -> None:
        try:
            data = json.loads(Path(file).read_text())
        except (OSError, ValueError) as err:
            raise BadInput(f"cannot read {file}: {err}") from None
        report = await self.referee.import_game(CHANNEL, actor, data, command=f"/gm import {file}")
        state = report.state
        if state.ruleset == "nations":
            self.say(f"Game imported from {file}: turn {state.turn}, {len(state.nations)} nations; GM: {actor}.")
        else:
            self.say(f"God Dice game imported from {file}: {len(state.players)} players; GM: {actor}.")


def read_card_file(file: str) -> dict[str, Any]:
    """A God Dice card file (TOML) for /gm cards, at most MAX_CARD_FILE bytes."""
    try:
        raw = Path(file).read_bytes()
        if len(raw) > MAX_CARD_FILE:
            raise BadInput(f"{file} is over {MAX_CARD_FILE // 1000} kB: not a card file")
        return tomllib.loads(raw.decode("utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as err:
        raise BadInput(f"cannot read {file} as a card file: {err}") from None


def ledger_line(roll: RollRecord | FacesRecord) -> str:
    return faces_line(roll) if isinstance(roll, FacesRecord) else roll_line(roll)


def _param(p) -> str:
    return f"{p.name}:<{p.name}>" if p.required else f"[{p.name}]"


# --- views ---------------------------------------------------------------------------------------


def nation_line(nation: Nation, state: GameState, rules: Rules) -> str:
    tag = " (eliminated)" if nation.eliminated else ""
    return (f"{nation.name}{tag} — {nation.player or 'no player'}: E {nation.economy} S {nation.effective_stability}"
            f" M {nation.military} P {nation.propaganda} L {nation.land}; {len(nation.units)} units; "
            f"{plural(actions_left(state, nation), 'action')} left")


def status_text(state: GameState, rules: Rules) -> str:
    clock = "paused" if state.paused else f"ends {utc_text(state.turn_ends_at)}"
    lines = [f"Nations — turn {state.turn} ({state.turn_hours:g} h), {clock}; GM: {state.gm}"
             + (" — GAME OVER" if state.ended else "")]
    if state.forced_dice:
        count = len(state.forced_dice)
        lines.append(f"{count} GM-entered {'die' if count == 1 else 'dice'} waiting.")
    lines += [nation_line(n, state, rules) for n in state.nations.values()] or ["No nations yet."]
    waiting = [b for b in state.battles.values() if b.stage in ("commit", "pairing")]
    lines += [f"Battle #{b.id} waits for {chooser(b)} to {'commit units' if b.stage == 'commit' else 'pair units'}"
              f" (default at {utc_text(b.deadline)})" for b in waiting if b.deadline]
    return "\n".join(lines)


def nation_text(nation: Nation, state: GameState, rules: Rules) -> str:
    mod = rules.modifier
    stab = f"{nation.effective_stability} (base {nation.stability}, −{nation.foreign_patches} foreign)" \
        if nation.foreign_patches else f"{nation.stability}"
    lines = [
        f"{nation.name}" + (" — ELIMINATED" if nation.eliminated else "") + f" — played by {nation.player or 'nobody'}",
        f"ECONOMY {nation.economy} ({mod(nation.economy):+d})  STABILITY {stab} ({mod(nation.effective_stability):+d})",
        (f"MILITARY {nation.military} ({mod(nation.military):+d})  PROPAGANDA {nation.propaganda} "
        f"({mod(nation.propaganda):+d})  LAND {nation.land} (E+M {nation.economy + nation.military})"),
        f"STRENGTH {nation.strength}, WEAKNESS {nation.weakness}",
        f"Actions: {actions_left(state, nation)} of {state.house.actions_per_turn} left this turn"
        + (f" (used: {', '.join(a.upper() for a in nation.actions_used)})" if nation.actions_used else ""),
    ]
    for bonus in nation.bonuses.values():
        lines.append(f"{bonus.kind.capitalize()} {bonus.value:+d} until {utc_text(bonus.expires_at)}")
    lines.append(army_text(nation, rules))
    return "\n".join(lines)


def army_text(nation: Nation, rules: Rules) -> str:
    mp = army_mp(rules, nation)
    over = " — OVER ITS MP CAP" if mp > nation.military else ""
    head = f"Army of {nation.name}: {mp} of {nation.military} MP{over}"
    lines = [head]
    for unit in sorted(nation.units.values(), key=lambda u: u.id):
        top = rules.max_hp(unit.type, unit.rank, nation.strength, nation.weakness)
        where = f", in battle #{unit.battle}" if unit.battle is not None else ""
        lines.append(f"  #{unit.id} {unit.type} {unit.rank.upper()} {unit.hp}/{top} HP{where}")
    return "\n".join(lines)


def battles_text(state: GameState, battle_id: int | None = None) -> str:
    """Every battle (or one), with what it waits for and its report so far."""
    battles = [b for b in state.battles.values() if battle_id in (None, b.id)]
    if not battles:
        return "No battles." if battle_id is None else f"There is no battle #{battle_id}."
    lines = []
    for b in battles:
        status = b.result if b.over else {
            "commit": f"waits for {b.defender} to commit units",
            "pairing": f"waits for {chooser(b)} to pair units",
        }.get(b.stage, "being fought")
        due = f" (until {utc_text(b.deadline)})" if b.deadline and not b.over else ""
        lines.append(f"Battle #{b.id}, turn {b.turn}: {b.attacker} against {b.defender} — {status}{due}")
        lines.append(f"  attacking: {_unit_list(b.attacking, b.in_fight_attacking, b.retreat_orders)}")
        if b.defending:
            lines.append(f"  defending: {_unit_list(b.defending, b.in_fight_defending, b.retreat_orders)}")
        for duel in b.duels:
            rounds = len([r for r in duel["rounds"] if r["kind"] == "round"])
            lines.append(f"  duel: {duel['attacker_type']} #{duel['attacker_unit']} vs {duel['defender_type']} "
                         f"#{duel['defender_unit']}, {rounds} rounds — {duel['outcome'] or 'under way'}")
    return "\n".join(lines)


def _unit_list(ids: list[int], in_fight: list[int], orders: dict[int, int | None]) -> str:
    def one(unit: int) -> str:
        order = ""
        if unit in orders:
            order = ", retreat now" if orders[unit] is None else f", retreat at {orders[unit]} HP"
        return f"#{unit}" + ("" if unit in in_fight else " (out)") + order

    return "; ".join(one(u) for u in ids)


# --- entry ---------------------------------------------------------------------------------------


async def run_console(db_path: str, stdin: TextIO = sys.stdin, stdout: TextIO = sys.stdout,
                      clock: Callable[[], datetime] = utc_now, seed: int | None = None) -> int:
    """Run the console until the end of input; returns the exit status (0)."""
    store = await Store.open(db_path)
    try:
        roller = RandomRoller(random.Random(seed)) if seed is not None else RandomRoller()
        console = Console(Referee(store, None, roller, clock), stdout)
        interactive = stdin.isatty()
        if interactive:
            console.say("Referee — console. Lines are `<your name> /command options`; /help lists them.")
        await console.catch_up()
        while True:
            if interactive:
                print("> ", end="", file=stdout, flush=True)
            line = stdin.readline()
            if not line:
                break
            await console.handle(line)
    except BrokenPipeError:  # e.g. piped into `head`: stop quietly, as command-line tools do
        os.dup2(os.open(os.devnull, os.O_WRONLY), stdout.fileno())
    finally:
        await store.close()
    return 0
