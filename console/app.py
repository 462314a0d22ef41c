"""The console front-end: a game played from a terminal or a forum thread, on the same engine and store.

Each input line is `<actor> <slash command as typed on Discord>`, e.g. `alice /economy grow` or
`gm /nation claim preset:"Gracchan Republic" player:alice`; `#` starts a comment. The one who ran
`/game start` is the game's GM. Answers are plain text (or markdown, or BBCode); refusals start with `error:` and
change nothing. A line is parsed here (`console.lines`), run by the service (`service.dispatch`) and its reply
written out (`Console.render`).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import random
import secrets
import sqlite3
import sys
import threading
from collections.abc import Awaitable, Callable, Sequence
from datetime import datetime
from typing import Any, TextIO

from console.files import (
    EXPORT_TEMP,
    clean_leftovers,
    export_folders,
    export_path,
    new_file,
    read_regular_file,
    write_new_file,
)
from console.format import Formatter
from console.lines import decode_line, parse_line, read_line, strip_comment, typed_command
from console.terminal import history_path, line_editing
from data.store import Store, StoreUnavailable
from engine import clock
from engine.commands import GUIDE, MAX_TOML_FILE, Command, coerce_options, help_lines
from engine.describe import event_line, faces_line, roll_line, utc_text
from engine.dice import FacesRecord, RandomRoller, RollRecord, free_roll_line, secret_roll_line
from engine.errors import RefereeError
from engine.events import Event
from engine.fairness import fairness_lines
from engine.mapspec import MapPicture
from engine.rulesets import ruleset
from engine.view import Line, View, text_lines
from engine.vocabulary import File
from service import charts, gmlog, ledger
from service.digest import digest_lines
from service.dispatch import BUSY, Dispatcher, Front, Request, Upload
from service.referee import GAME_OVER, PAGE_ABOUT, Referee, utc_now
from service.replies import (
    Asked,
    Attached,
    Changed,
    Digested,
    Drawn,
    GmLogPage,
    Helped,
    Judged,
    Linked,
    Listed,
    Reply,
    Rolled,
    RollsPage,
    Shown,
    Told,
)
from service.story import story_lines

__all__ = ["CHANNEL", "EXPORT_TEMP", "MAX_CARD_FILE", "NO_PAGES", "Console", "clean_leftovers", "decode_line",
           "parse_line", "read_line", "run_console", "write_new_file"]

CHANNEL = "console"
FRONT = "console"
MAX_CARD_FILE = MAX_TOML_FILE
NO_PAGES = ("the console serves no game pages: start it with `python bot.py --web` (WEB_PORT: its port, default 8080;"
            " PUBLIC_URL: the address players see); nothing changed")
END_AGAIN = "/game end confirm:true"
MAX_CATCH_UP_STEPS = 100
"""The most due times a catch-up applies one by one, each at its own time; past them, the rest at once."""
MAX_NAP = 60.0
"""The longest the console's timer sleeps before it reads the next due time again (a clock that jumps)."""
BUSY_HERE = f"{BUSY}; its GM ends it with {END_AGAIN}, or start the console with --new to start over"
log = logging.getLogger("referee.console")


class Console:
    """Reads commands, runs them through the service and writes the answers."""

    def __init__(self, referee: Referee, out: TextIO, fmt: str = "text", db_path: str | None = None,
                 emoji: bool = True, pages: Any = None, export_dir: str | None = None) -> None:
        self.referee = referee
        self.export_dir = export_dir  # $REFEREE_EXPORT_DIR: a folder exports may write under, besides the working one
        self.pages = pages  # the game pages' server (`web.server.GamePages`) with --web, else None
        self.out = out
        self.formatter = Formatter(fmt, emoji)
        self.db_path = db_path
        self._answer: list[str | Line] | None = None  # a command's lines, gathered while a format needs them whole
        self._session = secrets.token_hex(6)  # each line's idempotency key: this session's, and the line's number
        self._lines = 0
        self._turn = asyncio.Lock()  # one line, or one round of the timer, at a time
        self._wake = asyncio.Event()  # a line ran: the timer looks again at what falls due next
        self.prompt = ""  # the prompt shown while waiting for a line, at a terminal

    def say(self, text: str) -> None:
        self._say(text.split("\n"))

    def say_view(self, shown: View) -> None:
        """A query's view: as plain text, or laid out line by line (its emphasis kept) in markdown or BBCode."""
        self._say(text_lines(shown) if self.formatter.fmt == "text"
                  else [*([] if shown.untitled else [shown.title]), *shown.lines])

    def _say(self, lines: Sequence[str | Line]) -> None:
        if self._answer is not None:
            self._answer.extend(lines)
        else:
            self.write(lines)

    def write(self, lines: Sequence[str | Line]) -> None:
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
        """Apply and print everything that fell due in this database's console games (not its Discord ones), in
        order, each deadline at its own due time: the referee's clock is held at each due time in turn, so that a
        turn that ended while nobody typed ended at its deadline (in the log too), and a choice window it opened
        runs from then. Past MAX_CATCH_UP_STEPS due times (a console closed for many turns), the rest at once, as
        the rule sets sum up many missed turns."""
        real = self.referee.clock
        now = real()
        for _ in range(MAX_CATCH_UP_STEPS):
            due = await self.referee.store.next_due_serverless()
            if due is None or due > now:
                return
            if not await self._catch_up_at(min(due, now)):
                break  # nothing fell due then after all (a stale index): the rest at once
        await self._catch_up_at(now)

    async def _catch_up_at(self, moment: datetime) -> bool:
        """Apply and print what is due by `moment`, as the referee would at that moment. True if anything was."""
        real = self.referee.clock
        self.referee.clock = lambda: moment
        try:
            caught = await self.referee.catch_up_due(owns=lambda guild_id: guild_id is None)
        finally:
            self.referee.clock = real
        for events in caught.values():
            self.say_events(events)
        return bool(caught)

    async def watch(self, pause: Callable[[float], Awaitable[None]] | None = None) -> None:
        """The console's timer, while it waits for a line: sleeps until the next due time of its games (read from
        the database after each line, and at least every MAX_NAP seconds), then applies and prints what fell due
        then. `pause(seconds)`: how it sleeps (tests pass their own clock's); by default it wakes early when a
        line has run. Runs until cancelled; a failed round is logged and tried again a nap later."""
        pause = pause or self._nap
        failed = False
        while True:
            self._wake.clear()
            due = None if failed else await self.referee.store.next_due_serverless()
            delay = MAX_NAP if due is None else (due - self.referee.clock()).total_seconds()
            await pause(min(max(0.0, delay), MAX_NAP))
            async with self._turn:
                self._answer = []  # (gathered: at a prompt, it is printed below it, and the prompt again after)
                try:
                    await self.catch_up()
                    failed = False
                except Exception:  # never a traceback between a player's lines: the log has it, the timer goes on
                    log.exception("the console's timer could not apply what fell due")
                    failed = True
                finally:
                    answer, self._answer = self._answer, None
                    if answer:
                        if self.prompt:
                            print(file=self.out)
                        self.write(answer)
                        if self.prompt:
                            print(self.prompt, end="", file=self.out, flush=True)

    async def stop(self, timer: asyncio.Task[None]) -> None:
        """Stop the timer `watch` runs in, between two of its rounds (never in the middle of one)."""
        async with self._turn:
            timer.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await timer

    async def _nap(self, seconds: float) -> None:
        """Sleep `seconds`, or until a line has run."""
        alarm = asyncio.get_running_loop().call_later(seconds, self._wake.set)
        try:
            await self._wake.wait()
        finally:
            alarm.cancel()

    async def handle(self, line: str | bytes) -> None:
        """One input line (text, or bytes as read); a refusal prints one `error: …` line and changes nothing."""
        async with self._turn:
            await self._handle(line)
        self._wake.set()

    async def _handle(self, line: str | bytes) -> None:
        text = ""
        try:
            self._lines += 1
            key = self.line_key(self._lines)
            text = strip_comment(decode_line(line))  # a comment is the GM's note: never parsed nor recorded
            parsed = parse_line(text)
            if parsed is None:
                return
            self.gather()
            await self.catch_up()
            await self.run(*parsed, command_text=typed_command(text, parsed[0]), key=key)
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

    def line_key(self, number: int) -> str:
        """The idempotency key of this session's line `number`: the same line run again answers its first outcome
        and applies nothing twice."""
        return f"console:{self._session}:{number}"

    @property
    def dispatcher(self) -> Dispatcher:
        """The service as the console offers it: its pages' links (with --web), its own words."""
        return Dispatcher(self.referee, Front(FRONT, self.pages, no_pages=NO_PAGES, busy=BUSY_HERE))

    async def run(self, actor: str, command: Command, raw: dict[str, str], command_text: str,
                  key: str | None = None) -> None:
        """One parsed line: its files made uploads, its options typed, the request run by the service, the reply
        written out. A game's end and an undo ask first: the same command with `confirm:true` does it. `key`:
        the line's idempotency key (`line_key`)."""
        options = coerce_options(command, self.uploads(command, raw))
        asked = Request(CHANNEL, actor, command, options, command_text, key=key)
        await self.render(asked, await self.dispatcher.run(asked))

    @staticmethod
    def uploads(command: Command, raw: dict[str, Any]) -> dict[str, Any]:
        """The options as typed, a file option's path made an upload (read when the service needs it: a regular
        file of at most the option's size)."""
        given = dict(raw)
        for param in command.params:
            path = given.get(param.name)
            if param.kind is File and isinstance(path, str) and path:
                async def read(path: str = path, limit: int = int(param.high or 0)) -> bytes:
                    return read_regular_file(path, limit, command.file_what)

                given[param.name] = Upload(path, read)
        return given

    async def render(self, asked: Request, answered: Reply) -> None:
        """A reply as the console writes it."""
        options = asked.options
        if isinstance(answered, Changed):
            if answered.lead is not None:
                self.say(answered.lead)
            if answered.events:
                report = answered.report
                self.say_events(report.caught_up + report.events)
                note = ruleset(report.state.ruleset).actor_note
                said = note(report.state, report.events, asked.actor, utc_text) if note is not None else None
                if said:
                    self.say(said)
        elif isinstance(answered, Shown):
            self.say_view(answered.view)
            if answered.over:
                self.say(GAME_OVER)
        elif isinstance(answered, Listed):
            self.say_view(answered.games.view("this database"))
        elif isinstance(answered, Helped):
            # the game's rule set's commands first (none running: the shared ones, then how to start each)
            title, lines = help_lines(answered.topic, answered.game)
            self.say("\n".join([f"{title}:", *lines, *([] if answered.topic else ["", GUIDE])]))
        elif isinstance(answered, Asked) and answered.what == "end":
            # No buttons here: /game end says what would end, /game end confirm:true ends it.
            state = answered.subject
            assert state is not None
            rules = ruleset(state.ruleset)
            self.say(f"This would end the {rules.title} game ({rules.summary(state)}; GM: {state.gm}): it could not "
                     f"be played on here (its GM could bring it back with /gm export, then /game import). Nothing "
                     f"has ended yet: {END_AGAIN} ends it.")
        elif isinstance(answered, Asked):
            # No buttons here: the first /gm undo shows what it would take back, the same command with
            # confirm:true takes it back (checked again then, as Discord's Confirm is).
            assert answered.preview is not None
            steps = answered.preview.steps
            again = "/gm undo" + (f" steps:{steps}" if steps != 1 else "") + " confirm:true"
            self.say("\n".join([*answered.preview.lines(), f"Nothing is undone yet: {again} undoes it."]))
        elif isinstance(answered, Attached):
            await self.attached(answered, options.get("file"), bool(options.get("overwrite")))
        elif isinstance(answered, Drawn):
            drawn = answered.chart
            shown = options.get("file") or drawn.file_name
            target = export_path(shown, self.export_dir)
            write_new_file(target, await charts.render(drawn), bool(options.get("overwrite")), shown)
            self.say(f"Wrote the {'map' if isinstance(drawn, MapPicture) else 'chart'} “{drawn.title}” to {target}")
        elif isinstance(answered, RollsPage):
            shown_page = answered.page
            lines = [(f"turn {r.turn}: " if r.turn else "") + ledger_line(r) for r in shown_page.rolls]
            if shown_page.pages > 1:
                lines.append(f"page {shown_page.page} of {shown_page.pages} ({shown_page.total} "
                             f"roll{'' if shown_page.total == 1 else 's'}, newest first)")
            self.say("\n".join(lines) or ledger.empty_text(answered.where))
        elif isinstance(answered, GmLogPage):
            self.say("\n".join(gmlog.gm_page_lines(answered.page, answered.lines)))
        elif isinstance(answered, Told):
            self.say("\n".join(story_lines(answered.story)))
        elif isinstance(answered, Digested):
            self.say("\n".join(digest_lines(answered.digest)))
        elif isinstance(answered, Rolled) and answered.secret:  # (the console's one screen is the GM's)
            self.say(secret_roll_line(asked.actor, answered.roll.breakdown, answered.number))
        elif isinstance(answered, Rolled):
            self.say(free_roll_line(asked.actor, answered.roll.breakdown))
        elif isinstance(answered, Linked):
            if answered.rotated:
                self.say(f"The game's page has a new link: {answered.url}\nThe old one no longer works.")
            else:
                said = "The last game, ended: its page stays readable" if answered.ended else "The game's page"
                self.say(f"{said}: {answered.url}\n{PAGE_ABOUT}")
        elif isinstance(answered, Judged):
            self.say("\n".join(fairness_lines(answered.judged)))
        else:
            raise TypeError(f"no console rendering of {type(answered).__name__}")

    async def attached(self, answered: Attached, file: str | None, overwrite: bool) -> None:
        """An export: printed when it is text and no file is named; else written under an export folder."""
        if answered.data is not None:
            if not file:
                self.say(answered.data.decode("utf-8"))
                return
            write_new_file(export_path(file, self.export_dir), answered.data + b"\n", overwrite, file)
            self.say(answered.written.format(file=file, path=file))
            return
        assert answered.write is not None
        shown = file or answered.name
        target = export_path(shown, self.export_dir)
        with new_file(target, overwrite, shown) as handle:  # written a chunk at a time
            count = await answered.write(handle)
        counted = f"{count} {answered.what}{'' if count == 1 else 's'}"
        self.say(answered.written.format(file=shown, path=target, count=counted))


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
    see, trust X-Forwarded-For). The lines are read in a thread, so that meanwhile the console's timer applies
    what falls due at its time and prints it (`Console.watch`), and the pages answer.
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
        console.prompt = "> " if interactive else ""
        # Lines are read in a thread: meanwhile the timer applies what falls due, at its time (and the pages answer).
        timer = asyncio.create_task(console.watch())
        try:
            if history is not None:
                try:
                    while True:
                        try:
                            text = await _in_thread(lambda: input("> "))
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
                    line = await _in_thread(lambda: read_line(source))
                    if line is None:
                        break
                    await console.handle(line)
        finally:
            await console.stop(timer)
    except BrokenPipeError:  # e.g. piped into `head`: stop quietly, as command-line tools do
        os.dup2(os.open(os.devnull, os.O_WRONLY), stdout.fileno())
    finally:
        if pages is not None:  # (before the store it reads)
            await pages.close()
        await store.close()
    return 0


async def _in_thread(read: Callable[[], Any]) -> Any:
    """`read()` (the next input line) in a daemon thread of its own: the timer (and the game pages, with --web)
    run while it waits for a line, and Ctrl-C ends it without waiting for one."""
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
