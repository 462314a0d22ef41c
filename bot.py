"""Entry point and wiring: the Discord bot when a token is configured, the console otherwise.

    python bot.py              # Discord if DISCORD_TOKEN is set (environment or .env), else the console
    python bot.py --console    # the console, always
    python bot.py --console --new --format markdown   # end the console's game first; answers as markdown
    python bot.py --web        # the console, serving its games' pages (WEB_PORT, default 8080)

The environment it reads is `service.settings.Settings`, listed in `ENVIRONMENT` (`python bot.py --help`); what
the tests inject besides (a fake clock, forced dice) is a `Runtime`. Nothing connects at import time.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import logging
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands
from discord.ext import commands

from cogs import frontends
from cogs.commandsets import CommandSets
from cogs.controls import DYNAMIC_ITEMS
from cogs.ledger import DYNAMIC_ITEMS as LEDGER_ITEMS
from cogs.ratelimits import bound_buckets
from cogs.render import error_embed, use_clock
from cogs.util import refuse
from data.store import SHUTTING_DOWN, Store, StoreUnavailable
from engine.dice import Roller
from engine.errors import RefereeError
from service import charts, logformat
from service.referee import SWITCH_INTERVAL, Referee, utc_now
from service.settings import DEFAULT_WEB_PORT, ENVIRONMENT, Settings

if TYPE_CHECKING:
    from web.server import GamePages

log = logging.getLogger("referee.bot")
DRAIN_TIMEOUT = 10.0  # seconds closing waits for the interactions being handled
# discord.py's task per interaction (a slash command, a persistent button, a view's item); the clock's wakes
# run in APScheduler's `run_coroutine_job` tasks
INTERACTION_TASKS = ("CommandTree-invoker", "discord-ui-dynamic-item-", "discord-ui-view-dispatch-")


def redact(text: str, token: str | None) -> str:
    """`text` with the token replaced by `[token]`."""
    return text.replace(token, "[token]") if token else text


class RedactToken(logging.Filter):
    """A handler filter that replaces the token in every record's message and traceback with `[token]`."""

    def __init__(self, token: str) -> None:
        super().__init__()
        self.token = token

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        if self.token in message:
            record.msg, record.args = redact(message, self.token), None
        if record.exc_info and not record.exc_text:
            record.exc_text = logging.Formatter().formatException(record.exc_info)
        if record.exc_text:
            record.exc_text = redact(record.exc_text, self.token)
        if record.stack_info:
            record.stack_info = redact(record.stack_info, self.token)
        return True


def install_redaction(token: str | None) -> None:
    """Redact the token from everything the root logger's handlers write."""
    if not token:
        return
    for handler in logging.getLogger().handlers:
        if not any(isinstance(f, RedactToken) and f.token == token for f in handler.filters):
            handler.addFilter(RedactToken(token))


class PagesUnavailable(Exception):
    """The game pages' server cannot listen where the settings say (WEB_HOST, WEB_PORT)."""


class ShuttingDown(app_commands.CheckFailure):
    """A command that arrives while the bot closes: refused, nothing changed."""

EXTENSIONS = ("cogs.server", "cogs.slash", "cogs.clock")  # (cogs.server: the servers' GM roles, read by /gm)
"""The cogs every game shares; each registered rule set's come from its Discord adapter (`cogs.frontends`)."""


def extensions() -> list[str]:
    """Every cog to load: the shared ones, then each registered rule set's (the generic vocabulary cog for a rule
    set without a Discord package of its own)."""
    return [*EXTENSIONS, *(e for e in frontends.extensions() if e not in EXTENSIONS)]


def dynamic_items() -> list[type]:
    """The persistent controls: the shared ones and each registered rule set's."""
    return [*DYNAMIC_ITEMS, *LEDGER_ITEMS, *frontends.dynamic_items()]


@dataclass(frozen=True)
class Runtime:
    """What the process gives the bot besides its settings, never read from the environment: the tests inject a
    fake clock and dice and skip syncing the commands; a real run (`main`) freezes what starting made."""

    clock: Callable[[], datetime] = utc_now
    roller: Roller | None = None  # None: fair dice
    sync_commands: bool = True
    freeze_startup: bool = False  # gc.freeze() once started (a real run; not the many bots of the tests)


REAL_RUN = Runtime(freeze_startup=True)
"""A real run's runtime: the real clock and fair dice, the commands synced, what starting made frozen."""


NOT_VALID_HERE = "that option's value is not valid here; nothing changed"


def _numbers_are_numbers(options: list[Any]) -> bool:
    """Whether every number option (type 10) of an interaction's payload, subcommands included, holds a number,
    every integer option (type 4) a whole number,
    and every user, channel, role or mentionable option an id: discord.py reads them (float(), int()) before any
    handler runs, so text there would end the interaction unanswered. A Discord client never sends that; a
    hostile or broken payload may."""
    for option in options:
        if not isinstance(option, dict):
            return False
        value = option.get("value")
        if option.get("type") == 10 and not option.get("focused"):
            if isinstance(value, bool) or not isinstance(value, int | float | None) and value != "":
                return False
        if option.get("type") == 4 and not option.get("focused"):  # an integer: no text, no fraction
            if isinstance(value, bool) or not isinstance(value, int | None) and value != "":
                return False
        if option.get("type") in (6, 7, 8, 9) and not option.get("focused"):  # user, channel, role, mentionable
            if isinstance(value, bool) or not (isinstance(value, int) or isinstance(value, str) and value.isdecimal()):
                return False
        if not _numbers_are_numbers(option.get("options") or []):
            return False
    return True


def command_ids(tree: app_commands.CommandTree, registered: list[app_commands.AppCommand]) -> dict[str, int]:
    """Every slash command's path ("attack declare", "gm unit add", "help") → the id Discord gave its top-level
    command, which `</attack declare:id>` needs to render as a clickable mention. Commands Discord did not
    return are left out (they show as text)."""
    top = {c.name: c.id for c in registered if c.type is discord.AppCommandType.chat_input}
    ids: dict[str, int] = {}
    for command in tree.walk_commands(type=discord.AppCommandType.chat_input):
        if isinstance(command, app_commands.Command) and command.qualified_name.split()[0] in top:
            ids[command.qualified_name] = top[command.qualified_name.split()[0]]
    return ids


class RefereeTree(app_commands.CommandTree["RefereeBot"]):
    """The bot's command tree: every interaction passes the bot's check (`RefereeBot.accepting`), and every
    command's error goes to its one handler (`RefereeBot.on_app_command_error`)."""

    async def interaction_check(self, interaction: discord.Interaction[RefereeBot], /) -> bool:
        return await self.client.accepting(interaction)

    async def on_error(self, interaction: discord.Interaction[RefereeBot], error: app_commands.AppCommandError,
                       /) -> None:
        await self.client.on_app_command_error(interaction, error)


class RefereeBot(commands.Bot):
    """The Discord front-end: one store and referee for every game this process owns.

    The cogs see it as a `cogs.host.RefereeHost` (they never import this module)."""

    settings: Settings
    runtime: Runtime
    store: Store
    referee: Referee
    command_sets: CommandSets  # the commands registered with Discord, global and each server's (their ids)
    pages: GamePages | None  # the game pages' server, when the settings turn it on (WEB_PORT)

    def __init__(self, settings: Settings, runtime: Runtime | None = None, **options: Any) -> None:
        options.setdefault("intents", discord.Intents.default())
        options.setdefault("command_prefix", commands.when_mentioned)
        options.setdefault("help_command", None)
        options.setdefault("tree_cls", RefereeTree)
        # Players name their nations: no name may ping anyone. Messages that ping a game's players say so.
        options.setdefault("allowed_mentions", discord.AllowedMentions(everyone=False, roles=False, users=False,
                                                                       replied_user=False))
        super().__init__(**options)
        bound_buckets(self.http)  # discord.py's rate-limit table: pruned in amortised O(1) (cogs.ratelimits)
        self.settings = settings
        self.runtime = runtime or Runtime()
        self._shutdown: asyncio.Future[None] | None = None
        self.pages = None

    async def setup_hook(self) -> None:
        if getattr(self, "store", None) is None:  # `serve` opens it before connecting
            self.store = await Store.open(self.settings.db_path)
        self.referee = Referee(self.store, None, self.runtime.roller, self.runtime.clock)
        use_clock(self.runtime.clock)  # reports are stamped with the moment by the referee's clock
        self.add_dynamic_items(*dynamic_items())
        await self.serve_pages()
        for extension in extensions():
            await self.load_extension(extension)
        self.command_sets = CommandSets(self, self.tree, self.store)
        if self.settings.guild_id:  # development: every command on that one server at once, nothing global
            await self.sync_development(discord.Object(self.settings.guild_id))
        else:  # every server's commands global, each rule set's on the servers that play it (cogs.commandsets)
            await self.command_sets.start(sync=self.runtime.sync_commands)
        if self.runtime.freeze_startup:
            # What starting made (modules, rule tables, the command tree) lives as long as the bot: out of the cyclic
            # collector's full passes, which took 100-180 ms each while pages were served (bench.web).
            gc.collect()
            gc.freeze()

    async def sync_development(self, guild: discord.Object) -> None:
        """DISCORD_GUILD_ID (a test server): every command, every rule set's too, registered on that server alone
        (they appear there at once), none global; no server's set follows its games."""
        self.command_sets.enabled = False
        registered: list[app_commands.AppCommand] = []
        if self.runtime.sync_commands:
            self.tree.copy_global_to(guild=guild)
            registered = await self.tree.sync(guild=guild)
        else:
            try:  # the commands registered before: their ids make /help's mentions
                registered = await self.tree.fetch_commands(guild=guild)
            except (discord.HTTPException, discord.ClientException) as err:
                log.warning("could not fetch the registered commands (/help shows them as text): %s", err)
        self.command_sets.global_ids = command_ids(self.tree, registered)

    async def serve_pages(self) -> None:
        """Start the game pages' server when the settings turn it on (WEB_PORT); PagesUnavailable, in one line,
        when it cannot listen there (the port taken, an address this machine does not have)."""
        settings = self.settings
        if settings.web_port is None or self.pages is not None:
            return
        from web.server import GamePages

        pages = GamePages(self.referee, settings.pages_url, self.page_name, trust_proxy=settings.web_trust_proxy)
        try:
            await pages.start(settings.web_host, settings.web_port)
        except OSError as err:
            raise PagesUnavailable(str(err)) from None
        self.pages = pages
        log.info("serving the game pages on %s:%s as %s", settings.web_host, settings.web_port, settings.pages_url)

    def page_name(self, guild_id: int | None, who: str) -> str:
        """A player's name on a game's page: a member's display name from the cache (no request to Discord per
        page), else "player …1234" (the end of their id); a name that is not a user id, as it is."""
        if not (who.isascii() and who.isdigit()):
            return who
        guild = self.get_guild(guild_id) if guild_id is not None else None
        found = (guild.get_member(int(who)) if guild is not None else None) or self.get_user(int(who))
        return found.display_name if found is not None else f"player …{who[-4:]}"

    async def accepting(self, interaction: discord.Interaction) -> bool:
        """The tree's check: while the bot closes, new commands are refused (cleanly, nothing changed); so is a
        payload discord.py could not read."""
        if self._shutdown is not None:
            raise ShuttingDown(SHUTTING_DOWN)
        data: Mapping[str, Any] = interaction.data or {}
        if interaction.type is discord.InteractionType.application_command and not _numbers_are_numbers(
                data.get("options") or []):
            raise app_commands.CheckFailure(NOT_VALID_HERE)
        return True

    async def close(self) -> None:
        """Close once, however many callers (discord.py closes the bot itself when the gateway ends): new commands
        are refused, the interactions being handled finish (bounded), the store closes — all while Discord can
        still be answered — and then the cogs unload and the connection to Discord closes."""
        if self._shutdown is None:
            self._shutdown = asyncio.ensure_future(self._close())
        await asyncio.shield(self._shutdown)

    async def _close(self) -> None:
        await self._drain()
        if "cogs.clock" in self.extensions:  # the timer stops, and a wake under way finishes, before the store
            await self.unload_extension("cogs.clock")
            await self._drain()
        sets: CommandSets | None = getattr(self, "command_sets", None)
        if sets is not None:  # (a set being sent is sent again at the next start)
            await sets.close()
        if self.pages is not None:  # (before the store it reads)
            await self.pages.close()
        store: Store | None = getattr(self, "store", None)
        if store is not None:
            await store.close()
        charts.close_pool()  # the chart worker process, when a chart started it
        await super().close()

    async def _drain(self, timeout: float = DRAIN_TIMEOUT) -> None:
        """Wait (at most `timeout` seconds) for the interactions being handled; the store refuses what is late."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        me = asyncio.current_task()
        while loop.time() < deadline:
            busy = [t for t in asyncio.all_tasks() if t is not me and not t.done()
                    and (t.get_name().startswith(INTERACTION_TASKS)
                         or getattr(t.get_coro(), "__qualname__", "") == "run_coroutine_job")]
            if not busy:
                return
            await asyncio.wait(busy, timeout=deadline - loop.time())
        log.warning("closing with interactions still being handled")

    def owns(self, guild_id: int | None) -> bool:
        """Whether this process runs the clock of a game in that server: every Discord game, whatever the shard.

        With several processes each runs every game's clock: the store serialises each game's catch-up (it
        loads the game in its own write transaction, so the second process finds nothing due), the
        announcements need no cache (`get_partial_messageable`), and when one process dies the others go on.
        Console games (no server) are not the bot's."""
        return guild_id is not None

    async def on_app_command_error(self, interaction: discord.Interaction, error: app_commands.AppCommandError) -> None:
        """One handler for every command: refusals as a specific ephemeral message, anything else an apology."""
        original = getattr(error, "original", error)
        if isinstance(original, RefereeError):
            await refuse(interaction, error_embed(str(original)))
            return
        if isinstance(error, app_commands.CheckFailure):
            await refuse(interaction, error_embed(str(error) or "you may not use this command"))
            return
        if isinstance(error, app_commands.TransformerError | app_commands.CommandSignatureMismatch):
            # an option value Discord let through that the command cannot read (or a stale client's command)
            await refuse(interaction, error_embed(NOT_VALID_HERE))
            return
        command = interaction.command.qualified_name if interaction.command else "?"
        try:  # answered first (within Discord's deadline), then logged with the game's id
            await refuse(interaction, error_embed("Sorry, the referee hit a problem with that command; it was logged. "
                                                  "/game status shows where the game stands."))
        finally:
            log.error("command /%s failed (guild %s, channel %s, user %s)", command, interaction.guild_id,
                      interaction.channel_id, interaction.user.id, exc_info=original,
                      extra={"game_id": await self._game_of(interaction), "guild_id": interaction.guild_id,
                             "channel_id": interaction.channel_id})

    async def _game_of(self, interaction: discord.Interaction) -> int | None:
        """The live game of the interaction's channel, for a log line (None when there is none or the store does
        not answer within a second)."""
        if interaction.guild_id is None or interaction.channel_id is None:
            return None
        try:
            return await asyncio.wait_for(self.store.live_game(
                f"discord:{interaction.guild_id}:{interaction.channel_id}"), timeout=1.0)
        except Exception:
            return None


class AutoShardedRefereeBot(RefereeBot, commands.AutoShardedBot):
    """The referee as an auto-sharded bot: one process runs several shards (or all); the cogs are the same."""


def create_bot(settings: Settings | None = None, runtime: Runtime | None = None,
               **discord_options: Any) -> RefereeBot:
    """The Discord bot, not connected: sharded when the settings say so (SHARD_COUNT, SHARD_IDS). Without settings,
    they are read from the environment and the bot runs as a real run does (`REAL_RUN`). Options go to
    `commands.Bot` (tests pass `guild_ready_timeout`…)."""
    if settings is None:
        settings, runtime = Settings.from_env(), runtime or REAL_RUN
    if settings.shard_count is None:
        return RefereeBot(settings, runtime, **discord_options)
    discord_options.setdefault("shard_count", settings.shard_count)
    if settings.shard_ids is not None:
        discord_options.setdefault("shard_ids", list(settings.shard_ids))
    return AutoShardedRefereeBot(settings, runtime, **discord_options)


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description="The referee bot for play-by-post war games.", epilog=ENVIRONMENT,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--console", action="store_true", help="run the console front-end even with a token")
    parser.add_argument("--discord", action="store_true",
                        help="run the Discord bot, never the console: without DISCORD_TOKEN, exit 1 (for a service)")
    parser.add_argument("--web", action="store_true",
                        help="run the console and serve its database's games' pages (WEB_PORT, default 8080; "
                             "PUBLIC_URL)")
    parser.add_argument("--db", help="the database: a SQLite path or postgresql:// URL "
                                     "(default: $REFEREE_DB or referee.db)")
    parser.add_argument("--seed", type=int, help="seed the dice (console only; for reproducible games)")
    parser.add_argument("--new", action="store_true",
                        help="console: start over — end the console's running game first (it stays in the log)")
    parser.add_argument("--format", choices=("text", "markdown", "bbcode"), default="text",
                        help="console: answers as plain text (default), markdown or BBCode, to paste into a forum")
    parser.add_argument("--no-emoji", action="store_true",
                        help="console: no emoji (short text marks such as [die] instead), for boards that drop them")
    parser.add_argument("--backup", metavar="PATH",
                        help="write a consistent copy of the SQLite database to PATH (safe while the bot runs) "
                             "and exit")
    parser.add_argument("--copy-db", nargs=2, metavar=("FROM", "TO"),
                        help="copy every game, its log and ledger from the database FROM to TO (a SQLite path or "
                             "postgresql:// URL each; TO must hold no game), check that each replays, and exit")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    """Run the referee; returns the exit status. Startup failures print one clear line."""
    args = parse_args(argv)
    try:
        settings = Settings.from_env()
    except ValueError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    if args.db:
        settings = settings.model_copy(update={"db_path": args.db})
    logformat.configure(settings.log_level, settings.log_format)
    install_redaction(settings.token)
    if args.backup is not None:  # a copy of the database (the bot may be running on it), then exit
        from data.backup import backup_report

        status, line = backup_report(settings.db_path, args.backup)
        print(redact(line, settings.token), file=sys.stderr if status else sys.stdout)
        return status
    if args.copy_db is not None:  # every game from one database into another (SQLite, PostgreSQL), then exit
        from data.copydb import copy_report

        status, line = copy_report(*args.copy_db)
        print(redact(line, settings.token), file=sys.stderr if status else sys.stdout)
        return status
    if args.discord and (args.console or args.web or not settings.token):
        return fail("--discord runs the Discord bot: set DISCORD_TOKEN (environment or .env)"
                    if not (args.console or args.web)
                    else f"--discord and {'--console' if args.console else '--web'} cannot both be given")
    if args.console or args.web or not settings.token:
        from console.app import run_console

        logging.getLogger().setLevel(logging.WARNING)
        web = None
        if args.web:  # (not WEB_PORT alone: a console run beside the bot would take the bot's port)
            web = (settings.web_host, settings.web_port or DEFAULT_WEB_PORT, settings.pages_url,
                   settings.web_trust_proxy)
        try:
            return asyncio.run(run_console(settings.db_path, seed=args.seed, new=args.new, fmt=args.format,
                                           emoji=not args.no_emoji, web=web, export_dir=settings.export_dir))
        except StoreUnavailable as err:  # the console says so itself; this is the safety net
            return fail(str(err), settings.token)
        except KeyboardInterrupt:
            return 130
    return run_discord(settings, REAL_RUN)


def fail(message: str, token: str | None = None) -> int:
    """Print one `error:` line (the token never in it); returns the exit status 1."""
    print(f"error: {redact(message, token)}", file=sys.stderr)
    return 1


async def serve(settings: Settings, runtime: Runtime | None = None) -> None:
    """Open the store (a failure ends here, before Discord is contacted), then run the bot until it closes."""
    sys.setswitchinterval(SWITCH_INTERVAL)  # an import's check in its thread stalls no other server's command
    store = await Store.open(settings.db_path)
    try:
        bot = create_bot(settings, runtime)
    except BaseException:
        await store.close()
        raise
    bot.store = store
    try:
        await bot.start(settings.token or "")
    finally:
        await bot.close()


def run_discord(settings: Settings, runtime: Runtime | None = None) -> int:
    """Run the Discord bot; returns the exit status. A failure prints one line, never a server's answer."""
    token = settings.token
    try:
        asyncio.run(serve(settings, runtime))
    except (StoreUnavailable, PagesUnavailable) as err:
        return fail(str(err), token)
    except discord.LoginFailure:
        return fail("Discord refused the token in DISCORD_TOKEN (check it in the developer portal)")
    except discord.PrivilegedIntentsRequired:
        return fail("the bot asks for an intent not enabled in the developer portal")
    except discord.HTTPException as err:  # its text is the server's: not printed (it could echo a header)
        return fail(f"Discord answered HTTP {err.status} at start-up; check the token and the bot's settings "
                    "in the developer portal, or try again later")
    except OSError as err:
        return fail(f"cannot reach Discord ({type(err).__name__}{': ' + err.strerror if err.strerror else ''})", token)
    except KeyboardInterrupt:
        return 130
    except Exception as err:  # one clear line, not a traceback
        return fail(f"the bot could not start: {type(err).__name__}: {err}", token)
    return 0


if __name__ == "__main__":
    sys.exit(main())
