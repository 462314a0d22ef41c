"""The console front-end: a game played from a terminal or a forum thread, on the same engine and store.

Each input line is `<actor> <slash command as typed on Discord>`, e.g. `alice /economy grow` or
`gm /nation claim preset:"Gracchan Republic" player:alice`; `#` starts a comment. The one who ran
`/game start` is the game's GM. Answers are plain text; refusals start with `error:` and change nothing.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import random
import sqlite3
import stat
import sys
import tempfile
import threading
import time
import unicodedata
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import IO, Any, TextIO

try:
    import fcntl
except ImportError:  # Windows: an export's leftovers are known by their age instead
    fcntl = None  # type: ignore[assignment]

from console.format import Formatter
from console.terminal import MAX_LINE, MAX_LINE_BYTES, history_path, line_editing
from data.store import Store, StoreUnavailable
from engine import clock
from engine.commands import (
    BY_PATH,
    GUIDE,
    MAX_TOML_FILE,
    PREFIXES,
    Command,
    build_action,
    check_ruleset,
    coerce_options,
    find_command,
    help_lines,
    unknown_command,
)
from engine.describe import event_line, faces_line, roll_line, utc_text
from engine.dice import FacesRecord, RandomRoller, RollRecord, free_roll_line
from engine.errors import BadInput, NotGM, RefereeError, RuleViolation
from engine.events import Event
from engine.fairness import fairness_lines, game_fairness
from engine.rulesets import ruleset
from engine.toml_text import parse_toml
from engine.view import Line, View, text_lines
from engine.vocabulary import Word, read_options, split_words
from service import charts, gmlog, ledger
from service.referee import (
    GAME_OVER,
    MAX_EXPORT_BYTES,
    PAGE_ABOUT,
    Referee,
    digest_lines,
    imported_summary,
    read_export,
    utc_now,
)
from service.story import story_lines, turn_story

CHANNEL = "console"
MAX_CARD_FILE = MAX_TOML_FILE
NO_PAGES = ("the console serves no game pages: start it with `python bot.py --web` (WEB_PORT: its port, default 8080;"
            " PUBLIC_URL: the address players see); nothing changed")
EXPORT_DIR_ENV = "REFEREE_EXPORT_DIR"
"""A folder `/gm export file:` may write under, besides the working folder (read with the settings, bot.py)."""
log = logging.getLogger("referee.console")


def read_line(stream: IO[Any]) -> bytes | str | None:
    """The next line of `stream` (bytes or text, as it gives), None at its end.

    At most MAX_LINE_BYTES + 1 of a line is kept, so a line without end cannot fill the memory: the rest
    of a longer line is read and dropped, and `decode_line` refuses what was kept."""
    line = stream.readline(MAX_LINE_BYTES + 1)
    if not line:
        return None
    newline = b"\n" if isinstance(line, bytes) else "\n"
    if len(line) > MAX_LINE_BYTES and not line.endswith(newline):
        while True:
            more = stream.readline(65_536)
            if not more or more.endswith(newline):
                break
    return line


def decode_line(raw: bytes | str) -> str:
    """One input line as text: strict UTF-8, at most MAX_LINE characters, no control character but tab.

    Raises BadInput (nothing changed) for anything else."""
    if isinstance(raw, bytes):
        raw = raw.removesuffix(b"\n").removesuffix(b"\r")
        if len(raw) > MAX_LINE_BYTES:
            raise BadInput(f"that line is too long: at most {MAX_LINE:,} characters; nothing changed")
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError:
            raise BadInput("that line is not UTF-8 text; nothing changed") from None
    else:
        text = raw.removesuffix("\n").removesuffix("\r")
    if len(text) > MAX_LINE:
        raise BadInput(f"that line is too long: at most {MAX_LINE:,} characters; nothing changed")
    for column, ch in enumerate(text, 1):
        if ch != "\t" and unicodedata.category(ch) in ("Cc", "Cs", "Zl", "Zp"):
            what = {"Cs": "a surrogate", "Zl": "a line separator", "Zp": "a paragraph separator"}.get(
                unicodedata.category(ch), "a control character")
            raise BadInput(f"that line has {what} (U+{ord(ch):04X}, column {column}); nothing changed")
    return text


def parse_line(line: str) -> tuple[str, Command, dict[str, str]] | None:
    """`alice /economy recruit unit:infantry` → ("alice", the command, {"unit": "infantry"}); None if blank.

    A bare `/help` (no name in front) is read with the name "" (help needs none); any other command without a
    name is refused with the line as it should be written. Options are read by `read_options`: a word is never
    given to another option than the one it was written for."""
    try:
        words = split_words(line)
    except ValueError as err:
        raise BadInput(f"cannot read that line: {err}") from None
    if not words:
        return None
    if words[0].text.startswith("/"):  # a command without a name in front
        words = [Word("", False, words[0].start, words[0].start), *words]
        if words[1].text[1:].lower() != "help":
            raise BadInput(f"write `<your name> /command options`, e.g. `alice {_example(line, words)}`")
    if len(words) < 2 or not words[1].text.startswith("/"):
        raise BadInput("write `<your name> /command options`, e.g. `alice /economy grow`")
    actor = words[0].text
    path = [words[1].text[1:]]
    rest = words[2:]
    while rest and ":" not in rest[0].text and " ".join([*path, rest[0].text]).lower() in PREFIXES:
        path.append(rest.pop(0).text)
    try:
        command, leftover = find_command(path)
    except BadInput:
        raise unknown_command(path, rest[0].text if rest else None) from None
    if not actor and command.path != "help":
        raise BadInput("write `<your name> /command options`, e.g. `alice /economy grow`")
    after_path = 1 + len(path)  # the path's words are words[1:after_path]; those left over are options
    return actor, command, read_options(command, [*words[after_path - len(leftover):after_path], *rest], line)


def typed_command(text: str, actor: str) -> str:
    """The command as typed, without the name in front: what the game's log records."""
    return text.strip().split(None, 1)[1] if actor else text.strip()


MAX_EXAMPLE = 80  # the longest command shown back in "write `<your name> /command options`, e.g. …"


def _example(line: str, words: list[Word]) -> str:
    """The command typed without a name, as it should be written after one (the usual example when it names no
    command, or is long)."""
    typed = line[words[1].start:words[-1].end]
    path = [words[1].text[1:]]
    for word in words[2:]:
        if " ".join([*path, word.text]).lower() not in PREFIXES:
            break
        path.append(word.text)
    known = any(" ".join(path[:n]).lower() in BY_PATH for n in range(1, len(path) + 1))
    return typed if known and len(typed) <= MAX_EXAMPLE else "/economy grow"


class Console:
    """Reads commands, runs them through the referee and writes the answers."""

    def __init__(self, referee: Referee, out: TextIO, fmt: str = "text", db_path: str | None = None,
                 emoji: bool = True, pages: Any = None, export_dir: str | None = None) -> None:
        self.referee = referee
        self.export_dir = export_dir  # $REFEREE_EXPORT_DIR: a folder exports may write under, besides the working one
        self.pages = pages  # the game pages' server (`web.server.GamePages`) with --web, else None
        self.out = out
        self.formatter = Formatter(fmt, emoji)
        self.db_path = db_path
        self._answer: list[str | Line] | None = None  # a command's lines, gathered while a format needs them whole

    def say(self, text: str) -> None:
        self._say(text.split("\n"))

    def say_view(self, shown: View) -> None:
        """A query's view: as plain text, or laid out line by line (its emphasis kept) in markdown or BBCode."""
        self._say(text_lines(shown) if self.formatter.fmt == "text" else [shown.title, *shown.lines])

    def _say(self, lines: list[str | Line]) -> None:
        if self._answer is not None:
            self._answer.extend(lines)
        else:
            self.write(lines)

    def write(self, lines: list[str | Line]) -> None:
        """Print lines in the console's format (markdown and BBCode: one paragraph an answer, a blank line after)."""
        after = "" if self.formatter.fmt == "text" else "\n"
        print(self.formatter.answer(lines) + after, file=self.out, flush=True)

    def gather(self) -> None:
        """Keep what is said until `flush`, when a format needs a command's answer whole."""
        if self.formatter.fmt != "text":
            self._answer = []

    def flush(self) -> None:
        answer, self._answer = self._answer, None
        if answer:
            self.write(answer)

    async def startup_line(self) -> str:
        """The interactive greeting: which database, and whether a game is running in it."""
        where = f" on {self.db_path}" if self.db_path else ""
        head = f"Referee — console{where}."
        game_id = await self.referee.store.live_game(CHANNEL)
        if game_id is None:
            game = "No game is running: `gm /game start` starts one (the one who starts it is its GM)."
        else:
            state = await self.referee.store.load(game_id)
            game = (f"A {ruleset(state.ruleset).title} game is running (turn {getattr(state, 'turn', 0)}, "
                    f"GM: {state.gm}); /game status shows it, and `--new` starts over.")
        return f"{head} {game} Lines are `<your name> /command options`; /help lists them."

    async def start_over(self) -> None:
        """`--new`: end the console's running game, if any, as its GM (it stays in the database's log)."""
        game_id = await self.referee.store.live_game(CHANNEL)
        if game_id is None:
            self.say("--new: no game was running; a new one starts with /game start.")
            return
        state = await self.referee.store.load(game_id)
        await self.referee.act(CHANNEL, state.gm, clock.EndGame(), "/game end (--new)")
        self.say(f"--new: ended the running {ruleset(state.ruleset).title} game (turn "
                 f"{getattr(state, 'turn', 0)}, GM: {state.gm}); a new one starts with /game start.")

    def say_events(self, events: list[Event]) -> None:
        for event in events:
            line = event_line(event)
            if line:
                self.say(line)

    async def catch_up(self) -> None:
        """Apply and print everything that fell due in this database's console games (not its Discord ones)."""
        for events in (await self.referee.catch_up_due(owns=lambda guild_id: guild_id is None)).values():
            self.say_events(events)

    async def handle(self, line: str | bytes) -> None:
        """One input line (text, or bytes as read); a refusal prints one `error: …` line and changes nothing."""
        text = ""
        try:
            text = decode_line(line)
            parsed = parse_line(text)
            if parsed is None:
                return
            self.gather()
            await self.catch_up()
            await self.run(*parsed, command_text=typed_command(text, parsed[0]))
        except RefereeError as err:
            self.say(f"error: {err}")
        except BrokenPipeError:
            raise  # the reader has gone: nothing to tell
        except Exception as err:  # never a traceback to a player: one line to them, the details to the log once
            log.exception("console command failed: %r", text.strip()[:200])
            self.say(f"error: the referee hit a problem with that line ({type(err).__name__}) and nothing changed; "
                     "the details are in the log. /game status shows where the game stands")
        finally:
            self.flush()

    async def run(self, actor: str, command: Command, raw: dict[str, str], command_text: str) -> None:
        options = coerce_options(command, raw)
        referee, path = self.referee, command.path
        if command.ruleset is not None:
            check_ruleset(command, await referee.ruleset_name(CHANNEL))
        if path == "help":
            # the game's rule set's commands first (none running: the shared ones, then how to start each)
            title, lines = help_lines(options.get("topic"), await referee.store.live_ruleset(CHANNEL))
            self.say("\n".join([f"{title}:", *lines, *([] if options.get("topic") else ["", GUIDE])]))
        elif path == "game start":
            if await referee.store.live_game(CHANNEL) is not None:
                raise RuleViolation("this channel already has a game running: /game status shows it; its GM ends "
                                    "it with /game end, or start the console with --new to start over")
            report = await referee.start_game(CHANNEL, actor, options.get("turn_hours"), command=command_text,
                                              ruleset_name=options.get("ruleset"), options=options.get("options"))
            self.say_events(report.events)
        elif path == "game status":
            state = await referee.shown_state(CHANNEL)  # with no live game: the last ended one, marked over
            self.show_status(state)
        elif path == "game list":  # every live game in this database (its channels), the actor's as GM first
            self.say_view((await referee.game_list(actor)).view("this database"))
        elif command.chart is not None:  # a picture: drawn in the chart worker, written as a PNG file
            await self.chart(command, options)
        elif command.view is not None:  # a query: its rule set's view
            shown, state = await referee.show(CHANNEL, command, actor, options)
            self.say_view(shown)
            if state.ended:
                self.say(GAME_OVER)
        elif command.toml_option is not None:  # a file to read first (God Dice's card file): the GM's, when so
            if command.gm_only and not Referee.is_gm(await referee.state(CHANNEL), actor):  # before any file
                raise NotGM(f"only the GM may use /{path}")
            options[command.toml_option] = read_toml_file(options[command.toml_option])
            report = await referee.act(CHANNEL, actor, build_action(command, options), command_text)
            self.say_events(report.caught_up + report.events)
        elif path == "log rolls":
            await self.log_rolls(options)
        elif path == "log export":
            await self.log_export(options)
        elif path == "log gm":
            await self.log_gm(options)
        elif path == "log game":
            await self.log_game(options)
        elif path == "log fairness":  # the whole ledger, counted; scipy is loaded now, not at start
            game_id = await referee.shown_game_id(CHANNEL)
            rolls = await referee.store.rolls(game_id, include_free=False)
            self.say("\n".join(fairness_lines(game_fairness(await referee.store.load(game_id), rolls))))
        elif path == "game digest":
            self.say("\n".join(digest_lines(await referee.digest(CHANNEL, actor, options.get("since")))))
        elif path == "roll":
            roll, _ = await referee.free_roll(CHANNEL, actor, options["dice"])
            self.say(free_roll_line(actor, roll.breakdown))
        elif path == "gm undo":
            # No buttons here: the first /gm undo shows what it would take back, the same command with
            # confirm:true takes it back (checked again then, as Discord's Confirm is).
            steps = options.get("steps", 1)
            if _yes_no(options.get("confirm"), "confirm"):
                report = await referee.undo(CHANNEL, actor, steps=steps)
                self.say_events(report.caught_up + report.events)
            else:
                preview = await referee.preview_undo(CHANNEL, actor, steps)
                again = "/gm undo" + (f" steps:{steps}" if steps != 1 else "") + " confirm:true"
                self.say("\n".join([*preview.lines(), f"Nothing is undone yet: {again} undoes it."]))
        elif path == "game page":
            await self.page()
        elif path == "gm page rotate":
            if self.pages is None:
                raise BadInput(NO_PAGES)
            token = await referee.rotate_page_token(CHANNEL, actor)
            self.say(f"The game's page has a new link: {self.pages.url(token)}\nThe old one no longer works.")
        elif path == "gm export":
            await self.export(actor, options.get("file"), _yes_no(options.get("overwrite"), "overwrite"))
        elif path == "game import":
            await self.import_(actor, options["file"])
        else:
            report = await referee.act(CHANNEL, actor, build_action(command, options), command_text)
            self.say_events(report.caught_up + report.events)
            note = ruleset(report.state.ruleset).actor_note
            said = note(report.state, report.events, actor, utc_text) if note is not None else None
            if said:
                self.say(said)

    async def page(self) -> None:
        """/game page: the link to the page of the console's game (live, else its last ended one), and what it
        shows."""
        if self.pages is None:
            raise BadInput(NO_PAGES)
        link = self.pages.url(await self.referee.page_token(CHANNEL))
        ended = await self.referee.store.live_game(CHANNEL) is None
        said = "The last game, ended: its page stays readable" if ended else "The game's page"
        self.say(f"{said}: {link}\n{PAGE_ABOUT}")

    def show_status(self, state: Any) -> None:
        """/game status: the game's rule set's status view (an ended game's marked over)."""
        self.say_view(ruleset(state.ruleset).status(state, self.referee.rules_for(state.ruleset)))
        if state.ended:
            self.say(GAME_OVER)

    async def log_rolls(self, options: dict[str, Any]) -> None:
        """/log rolls: one page of the filtered ledger as text, then where it stands."""
        referee = self.referee
        game_id, where = await ledger.filter_for(
            referee, CHANNEL, who=options.get("nation"), purpose=options.get("purpose"),
            turn_from=options.get("turn_from"), turn_to=options.get("turn_to"),
            gm_entered=_yes_no(options.get("gm_entered"), "gm_entered"), free=options.get("free"))
        shown = await ledger.ledger_page(referee.store, game_id, where, options.get("page", 1),
                                         options.get("limit", 10))
        lines = [(f"turn {r.turn}: " if r.turn else "") + ledger_line(r) for r in shown.rolls]
        if shown.pages > 1:
            lines.append(f"page {shown.page} of {shown.pages} ({shown.total} roll{'' if shown.total == 1 else 's'},"
                         " newest first)")
        self.say("\n".join(lines) or ledger.empty_text(where))

    async def log_gm(self, options: dict[str, Any]) -> None:
        """/log gm: one page of the GM's log as text (times in UTC, players by name), then where it stands."""
        game_id = await self.referee.shown_game_id(CHANNEL)
        shown, lines = await gmlog.gm_page(self.referee.store, game_id, options.get("page", 1))
        self.say("\n".join(gmlog.gm_page_lines(shown, lines)))

    async def log_game(self, options: dict[str, Any]) -> None:
        """/log game: the story of a turn (`story.turn_story`), names as the console shows them."""
        self.say("\n".join(story_lines(await turn_story(self.referee, CHANNEL, options.get("turn")))))

    async def log_export(self, options: dict[str, Any]) -> None:
        """/log export: the whole ledger written a chunk at a time under an export folder; prints the path."""
        fmt = options["format"]
        game_id = await self.referee.shown_game_id(CHANNEL)
        shown = options.get("file") or f"roll-ledger.{fmt}"
        target = export_path(shown, self.export_dir)
        overwrite = _yes_no(options.get("overwrite"), "overwrite")
        try:
            if (target.exists() or target.is_symlink()) and not (overwrite and target.is_file()):
                raise BadInput(f"{shown} exists already: add overwrite:true to replace it" if target.is_file()
                               else f"cannot write {shown}: it exists and is not a regular file")
            if not target.parent.is_dir():
                raise BadInput(f"cannot write {shown}: there is no folder {target.parent}")
            clean_leftovers(target.parent)
            # named as an export's temporary file, so that one killed half-way is cleaned up like theirs
            fd, temp = tempfile.mkstemp(dir=target.parent, prefix=EXPORT_TEMP[0], suffix=EXPORT_TEMP[1])
        except OSError as err:  # e.g. a name too long for the file system
            raise BadInput(f"cannot write {shown}: {err.strerror or err}") from None
        try:
            with os.fdopen(fd, "wb") as handle:
                count = await ledger.write_ledger(self.referee.store, game_id, fmt, handle)
            os.replace(temp, target)
        except OSError as err:
            raise BadInput(f"cannot write {shown}: {err.strerror or err}; nothing was written") from None
        finally:
            if os.path.exists(temp):
                os.unlink(temp)
        self.say(f"Wrote the roll ledger ({count} roll{'' if count == 1 else 's'}) to {target}")

    async def chart(self, command: Command, options: dict[str, Any]) -> None:
        """/game chart, /nation chart: the chart written as a PNG under an export folder; prints its path."""
        drawn = await self.referee.chart(CHANNEL, command, options)
        shown = options.get("file") or drawn.file_name
        target = export_path(shown, self.export_dir)
        write_new_file(target, await charts.render(drawn), _yes_no(options.get("overwrite"), "overwrite"), shown)
        self.say(f"Wrote the chart “{drawn.title}” to {target}")

    async def export(self, actor: str, file: str | None, overwrite: bool = False) -> None:
        """GM: the game as JSON, printed, or written to `file` under an export folder (`export_path`)."""
        state = await self.referee.shown_state(CHANNEL)  # the live game, else the channel's last ended one
        if not Referee.is_gm(state, actor):
            raise NotGM("only the GM may export the game")
        text = json.dumps(await self.referee.export(CHANNEL), indent=2)
        if file:
            write_new_file(export_path(file, self.export_dir), (text + "\n").encode("utf-8"), overwrite, file)
            self.say(f"Game exported to {file}.")
        else:
            self.say(text)

    async def import_(self, actor: str, file: str) -> None:
        """A game from an export file, in the console's channel when no game is live there; `actor` is its GM."""
        if await self.referee.store.live_game(CHANNEL) is not None:  # before reading any file
            raise RuleViolation("this channel already has a game running: end it first with /game end")
        raw = read_regular_file(file, MAX_EXPORT_BYTES, "an export")
        try:
            data = read_export(raw)
        except BadInput as err:
            raise BadInput(f"cannot import {file}: {err}") from None
        report = await self.referee.import_game(CHANNEL, actor, data, command=f"/game import {file}")
        self.say(f"{imported_summary(report.state, file)}; GM: {actor}.")

def read_toml_file(file: str) -> dict[str, Any]:
    """A TOML file a command reads (God Dice's card file for /gm cards): a regular file of at most MAX_CARD_FILE
    bytes."""
    raw = read_regular_file(file, MAX_CARD_FILE, "a card file")
    try:
        return parse_toml(raw.decode("utf-8"))  # its nesting counted before tomllib reads it
    except ValueError as err:  # UnicodeDecodeError, TOMLDecodeError, nested too deeply
        raise BadInput(f"cannot read {file} as a card file: {err}") from None



def read_regular_file(file: str, limit: int, what: str) -> bytes:
    """The bytes of `file`, a regular file of at most `limit` bytes; BadInput for anything else.

    Devices, FIFOs and folders are refused before they are opened (and a FIFO swapped in meanwhile
    cannot block: it is opened non-blocking and checked again); at most `limit` + 1 bytes are read."""
    try:
        if not stat.S_ISREG(os.stat(file).st_mode):
            raise BadInput(f"cannot read {file}: {what} must be a regular file")
        fd = os.open(file, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
        with os.fdopen(fd, "rb") as handle:
            if not stat.S_ISREG(os.fstat(handle.fileno()).st_mode):
                raise BadInput(f"cannot read {file}: {what} must be a regular file")
            raw = handle.read(limit + 1)
    except (OSError, ValueError) as err:  # ValueError: a path with a NUL
        reason = err.strerror if isinstance(err, OSError) and err.strerror else str(err)
        raise BadInput(f"cannot read {file}: {reason}") from None
    if len(raw) > limit:
        raise BadInput(f"cannot read {file}: {what} has at most {limit:,} bytes")
    return raw


def export_folders(extra: str | None = None) -> list[Path]:
    """Where `/gm export file:` may write: the working folder, and `extra` ($REFEREE_EXPORT_DIR) when set."""
    folders = [Path.cwd().resolve()]
    if extra:
        folders.append(Path(extra).resolve())
    return folders


def export_path(file: str, extra: str | None = None) -> Path:
    """`file` (relative to the working folder) with symlinks and `..` resolved, if it lies under an export
    folder (the working folder, `extra`); BadInput otherwise."""
    try:
        target = (Path.cwd() / file).resolve()
        folders = export_folders(extra)
    except (OSError, RuntimeError, ValueError) as err:  # RuntimeError: a symlink loop
        raise BadInput(f"cannot write {file}: {err}") from None
    if not any(target != folder and target.is_relative_to(folder) for folder in folders):
        where = " or ".join(str(f) for f in folders)
        raise BadInput(f"cannot write {file}: exports are written only under {where} "
                       f"(set {EXPORT_DIR_ENV} for another folder)")
    return target


def write_new_file(target: Path, content: bytes, overwrite: bool, shown: str) -> None:
    """Write `content` to `target` atomically (a temporary file, then a rename), never over an existing file
    unless `overwrite`, and only ever over a regular file. What an export killed midway left in that folder is
    removed first (`clean_leftovers`); the temporary file is held locked until it is gone, so that no other
    export's cleaning takes it for a leftover."""
    try:
        if target.exists() or target.is_symlink():
            if not target.is_file():
                raise BadInput(f"cannot write {shown}: it exists and is not a regular file")
            if not overwrite:
                raise BadInput(f"{shown} exists already: add overwrite:true to replace it")
        if not target.parent.is_dir():
            raise BadInput(f"cannot write {shown}: there is no folder {target.parent}")
        clean_leftovers(target.parent)
        fd, temp = _locked_temp(target.parent)
        with os.fdopen(fd, "wb") as handle:  # the lock lasts until it is closed
            try:
                handle.write(content)
                handle.flush()
                os.fsync(handle.fileno())
                if overwrite:
                    os.replace(temp, target)
                else:
                    _link_new(temp, target, shown)
            finally:
                with contextlib.suppress(FileNotFoundError):  # renamed: nothing is left
                    os.unlink(temp)
    except OSError as err:
        raise BadInput(f"cannot write {shown}: {err.strerror or err}") from None


EXPORT_TEMP = (".export-", ".tmp")
"""How the temporary file of an export being written is named: `.export-XXXXXXXX.tmp`, in the export's folder."""
LEFTOVER_AGE = 3600.0
"""Where files cannot be locked (no fcntl): how old, in seconds, an export's temporary file is before it is taken
for a leftover."""


def _locked_temp(folder: Path) -> tuple[int, str]:
    """A new temporary file for an export in `folder`, locked: its descriptor and path. (A cleaning that took it
    in the moment between its creation and its lock has removed it: then another is made.)"""
    for _ in range(10):
        fd, temp = tempfile.mkstemp(dir=folder, prefix=EXPORT_TEMP[0], suffix=EXPORT_TEMP[1])
        if fcntl is None:
            return fd, temp
        fcntl.flock(fd, fcntl.LOCK_EX)
        with contextlib.suppress(FileNotFoundError):
            if os.stat(temp).st_ino == os.fstat(fd).st_ino:
                return fd, temp
        os.close(fd)
    raise OSError(0, "another program keeps removing the export's temporary file")


def clean_leftovers(folder: Path) -> int:
    """Remove the temporary files of exports killed while writing in `folder` (`.export-*.tmp` regular files
    that no export holds locked); how many. Anything that cannot be removed is left, quietly."""
    removed = 0
    try:
        entries = [e for e in os.scandir(folder) if e.name.startswith(EXPORT_TEMP[0])
                   and e.name.endswith(EXPORT_TEMP[1]) and e.is_file(follow_symlinks=False)]
    except OSError:
        return 0
    for entry in entries:
        try:
            fd = os.open(entry.path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
                         | getattr(os, "O_CLOEXEC", 0))
        except OSError:
            continue
        try:
            held = os.fstat(fd)
            if not stat.S_ISREG(held.st_mode):
                continue
            if fcntl is not None:
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                except OSError:  # an export is writing it
                    continue
            elif time.time() - held.st_mtime < LEFTOVER_AGE:
                continue
            if os.lstat(entry.path).st_ino == held.st_ino:
                os.unlink(entry.path)
                removed += 1
        except OSError:
            continue
        finally:
            os.close(fd)
    if removed:
        log.info("removed %d temporary file(s) left by an interrupted export in %s", removed, folder)
    return removed


def _link_new(temp: str, target: Path, shown: str) -> None:
    """Give the written `temp` the name `target`, failing if that name exists (even if it appeared just now)."""
    try:
        os.link(temp, target)
    except FileExistsError:
        raise BadInput(f"{shown} exists already: add overwrite:true to replace it") from None
    except OSError:  # a file system without hard links: the check above has to do
        if os.path.lexists(target):
            raise BadInput(f"{shown} exists already: add overwrite:true to replace it") from None
        os.replace(temp, target)


def _yes_no(value: str | None, name: str) -> bool:
    text = (value or "false").strip().lower()
    if text not in ("true", "false", "yes", "no"):
        raise BadInput(f"{name} must be true or false, not {value!r}")
    return text in ("true", "yes")


def ledger_line(roll: RollRecord | FacesRecord) -> str:
    if isinstance(roll, FacesRecord):
        return faces_line(roll)
    return roll_line(roll)  # a free /roll row too



# --- entry ---------------------------------------------------------------------------------------


async def run_console(db_path: str, stdin: TextIO = sys.stdin, stdout: TextIO = sys.stdout,
                      clock: Callable[[], datetime] = utc_now, seed: int | None = None,
                      stderr: TextIO | None = None, new: bool = False, fmt: str = "text", emoji: bool = True,
                      web: tuple[str, int, str, bool] | None = None, export_dir: str | None = None) -> int:
    """Run the console until the end of input; returns the exit status: 0, or 1 when the database cannot be
    opened (one `error:` line on stderr, no traceback).

    `new`: start over — the console's running game, if any, is ended first (by its GM, logged as
    `/game end (--new)`; it stays in the database's log). `fmt`: text, markdown or bbcode, and `emoji=False`
    (`--no-emoji`) for old boards that drop 4-byte characters (see `Formatter`).
    Interactive (stdin a terminal): a startup line naming the database and its game, then a prompt with line
    editing and history (`readline`) when stdin is the process's own terminal.

    `web` (`--web`): serve the database's games' pages while the console runs — (host, port, the address players
    see, trust X-Forwarded-For); the lines are then read in a thread, so that the pages answer meanwhile.
    `export_dir` (REFEREE_EXPORT_DIR): a folder exports may write under, besides the working folder."""
    try:
        store = await Store.open(db_path)
    except StoreUnavailable as err:
        return _startup_error(str(err), stderr)
    except (OSError, sqlite3.Error) as err:
        return _startup_error(f"cannot open the database {db_path}: {err}", stderr)
    with contextlib.suppress(OSError, RuntimeError):  # no working folder any more: nothing to clean
        for folder in export_folders(export_dir):  # what an export killed while writing left behind
            clean_leftovers(folder)
    pages = None
    try:
        roller = RandomRoller(random.Random(seed)) if seed is not None else RandomRoller()
        referee = Referee(store, None, roller, clock)
        if web is not None:
            try:
                pages = await serve_pages(referee, web)
            except OSError as err:
                return _startup_error(str(err), stderr)
            print(f"Serving the game pages on {web[0]}:{web[1]} as {web[2]}: /game page gives a game's link.",
                  file=stderr or sys.stderr, flush=True)
        console = Console(referee, stdout, fmt=fmt, db_path=db_path, emoji=emoji, pages=pages, export_dir=export_dir)
        interactive = stdin.isatty()
        console.gather()
        await console.catch_up()
        if new:
            await console.start_over()
        console.flush()
        if interactive:
            print(await console.startup_line(), file=stdout, flush=True)
        history = line_editing(history_path(db_path)) if interactive and stdin is sys.__stdin__ else None
        if history is not None:
            try:
                while True:
                    try:
                        text = input("> ") if pages is None else await _in_thread(lambda: input("> "))
                    except EOFError:
                        print(file=stdout, flush=True)
                        break
                    await console.handle(text)
            finally:
                history()
        else:
            source = getattr(stdin, "buffer", stdin)  # bytes when there are any: decode_line checks them
            while True:
                if interactive:
                    print("> ", end="", file=stdout, flush=True)
                line = read_line(source) if pages is None else await _in_thread(lambda: read_line(source))
                if line is None:
                    break
                await console.handle(line)
    except BrokenPipeError:  # e.g. piped into `head`: stop quietly, as command-line tools do
        os.dup2(os.open(os.devnull, os.O_WRONLY), stdout.fileno())
    finally:
        if pages is not None:  # (before the store it reads)
            await pages.close()
        await store.close()
    return 0


async def _in_thread(read: Callable[[], Any]) -> Any:
    """`read()` (the next input line) in a daemon thread of its own, for while the console serves the game pages:
    they answer while it waits for a line, and Ctrl-C ends it without waiting for one."""
    loop = asyncio.get_running_loop()
    done: asyncio.Future[Any] = loop.create_future()

    def settle(result: Any, error: BaseException | None) -> None:
        if done.done():
            return
        if error is not None:
            done.set_exception(error)
        else:
            done.set_result(result)

    def work() -> None:
        result, error = None, None
        try:
            result = read()
        except Exception as err:  # EOFError at the end of input; anything else is the console's to report
            error = err
        with contextlib.suppress(RuntimeError):  # the loop closed meanwhile (Ctrl-C): nothing waits any more
            loop.call_soon_threadsafe(settle, result, error)

    threading.Thread(target=work, name="console-input", daemon=True).start()
    return await done


async def serve_pages(referee: Referee, web: tuple[str, int, str, bool]) -> Any:
    """The game pages' server of `--web`, started: (host, port, the address players see, trust X-Forwarded-For).
    OSError, in one line, when it cannot listen there."""
    from web.server import GamePages

    host, port, public_url, trust_proxy = web
    pages = GamePages(referee, public_url, None, trust_proxy=trust_proxy)  # names: as the console stores them
    await pages.start(host, port)
    return pages


def _startup_error(reason: str, stderr: TextIO | None) -> int:
    print(f"error: {' '.join(reason.split())}", file=stderr or sys.stderr, flush=True)
    return 1
