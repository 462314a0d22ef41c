"""Entry point and wiring: the Discord bot when a token is configured, the console otherwise.

    python bot.py              # Discord if DISCORD_TOKEN is set (environment or .env), else the console
    python bot.py --console    # the console, always

Environment: DISCORD_TOKEN (never logged), REFEREE_DB (database path, default referee.db),
DISCORD_GUILD_ID (sync slash commands to that server at start; otherwise globally), GM_ROLE (the name
of the role whose members are GMs of every game, default "GM"), LOG_LEVEL (default INFO).
Nothing connects at import time.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import discord
from discord import app_commands
from discord.ext import commands

from cogs.render import error_embed
from cogs.util import reply
from cogs.views import DYNAMIC_ITEMS
from data import nations_rules
from data.store import Store
from engine.dice import Roller
from engine.errors import RefereeError
from referee import Referee, utc_now

log = logging.getLogger("referee.bot")

EXTENSIONS = (
    "cogs.game", "cogs.nation", "cogs.economy", "cogs.propaganda", "cogs.army", "cogs.attack", "cogs.log",
    "cogs.goddice", "cogs.gm", "cogs.clock",
)


@dataclass
class Settings:
    """What the bot needs to run; `from_env` reads it from the environment (and `.env`)."""

    token: str | None = None
    db_path: str = "referee.db"
    guild_id: int | None = None
    gm_role: str = "GM"
    log_level: str = "INFO"
    sync_commands: bool = True
    clock: Callable[[], datetime] = field(default=utc_now)  # tests inject a fake clock
    roller: Roller | None = None  # tests inject dice

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> Settings:
        env = os.environ if env is None else env
        guild = env.get("DISCORD_GUILD_ID", "").strip()
        if guild and not guild.isdigit():
            raise ValueError(f"DISCORD_GUILD_ID must be a server id (digits), not {guild!r}")
        return cls(
            token=env.get("DISCORD_TOKEN") or None,
            db_path=env.get("REFEREE_DB") or "referee.db",
            guild_id=int(guild) if guild else None,
            gm_role=env.get("GM_ROLE") or "GM",
            log_level=(env.get("LOG_LEVEL") or "INFO").upper(),
        )

    def __repr__(self) -> str:  # never show the token
        return f"Settings(db_path={self.db_path!r}, guild_id={self.guild_id}, gm_role={self.gm_role!r})"


class RefereeBot(commands.Bot):
    """The Discord front-end: one store and referee for every game this process owns.

    The cogs see it as a `cogs.host.RefereeHost` (they never import this module)."""

    settings: Settings
    store: Store
    referee: Referee

    def __init__(self, settings: Settings, **options: Any) -> None:
        options.setdefault("intents", discord.Intents.default())
        options.setdefault("command_prefix", commands.when_mentioned)
        options.setdefault("help_command", None)
        # Players name their nations: a name like "@everyone" must never ping the server. Users only.
        options.setdefault("allowed_mentions", discord.AllowedMentions(everyone=False, roles=False, users=True))
        super().__init__(**options)
        self.settings = settings

    async def setup_hook(self) -> None:
        self.store = await Store.open(self.settings.db_path)
        self.referee = Referee(self.store, nations_rules(), self.settings.roller, self.settings.clock)
        self.tree.on_error = self.on_app_command_error
        self.add_dynamic_items(*DYNAMIC_ITEMS)
        for extension in EXTENSIONS:
            await self.load_extension(extension)
        if self.settings.sync_commands:
            if self.settings.guild_id:
                guild = discord.Object(self.settings.guild_id)
                self.tree.copy_global_to(guild=guild)
                await self.tree.sync(guild=guild)
            else:
                await self.tree.sync()

    async def close(self) -> None:
        await super().close()  # unloads the cogs first: the clock stops before the store closes
        if hasattr(self, "store"):
            await self.store.close()

    def owns(self, guild_id: int | None) -> bool:
        """Whether this process runs the clock of a game in that server (its shards' servers only)."""
        if guild_id is None:
            return False  # console games are not the Discord bot's
        count = self.shard_count or 1
        # An AutoShardedBot has shard_ids; a plain bot run as one shard of many has shard_id.
        shards = getattr(self, "shard_ids", None)
        if shards is None and self.shard_id is not None:
            shards = [self.shard_id]
        if count == 1 or shards is None:
            return True
        return (guild_id >> 22) % count in shards

    async def on_app_command_error(self, interaction: discord.Interaction, error: app_commands.AppCommandError) -> None:
        """One handler for every command: refusals as a specific ephemeral message, anything else an apology."""
        original = getattr(error, "original", error)
        if isinstance(original, RefereeError):
            await reply(interaction, embed=error_embed(str(original)), ephemeral=True)
            return
        if isinstance(error, app_commands.CheckFailure):
            await reply(interaction, embed=error_embed(str(error) or "you may not use this command"), ephemeral=True)
            return
        command = interaction.command.qualified_name if interaction.command else "?"
        log.error("command /%s failed (guild %s, channel %s, user %s)", command, interaction.guild_id,
                  interaction.channel_id, interaction.user.id, exc_info=original)
        await reply(interaction, embed=error_embed("Sorry, the referee hit a problem with that command; it was "
                                                   "logged. /game status shows where the game stands."),
                    ephemeral=True)


def create_bot(settings: Settings | None = None, **discord_options: Any) -> RefereeBot:
    """The Discord bot, not connected. Options go to `commands.Bot` (tests pass `guild_ready_timeout`…)."""
    return RefereeBot(settings or Settings.from_env(), **discord_options)


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description="The referee bot for play-by-post war games.")
    parser.add_argument("--console", action="store_true", help="run the console front-end even with a token")
    parser.add_argument("--db", help="SQLite database path (default: $REFEREE_DB or referee.db)")
    parser.add_argument("--seed", type=int, help="seed the dice (console only; for reproducible games)")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    """Run the referee; returns the exit status. Startup failures print one clear line."""
    args = parse_args(argv)
    try:
        from dotenv import load_dotenv

        load_dotenv()
        settings = Settings.from_env()
    except ValueError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    if args.db:
        settings.db_path = args.db
    logging.basicConfig(level=getattr(logging, settings.log_level, logging.INFO),
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    if args.console or not settings.token:
        from console import run_console

        logging.getLogger().setLevel(logging.WARNING)
        try:
            return asyncio.run(run_console(settings.db_path, seed=args.seed))
        except KeyboardInterrupt:
            return 130
    return run_discord(settings)


def run_discord(settings: Settings) -> int:
    bot = create_bot(settings)
    try:
        bot.run(settings.token or "", log_handler=None)
    except discord.LoginFailure:
        print("error: Discord refused the token in DISCORD_TOKEN (check it in the developer portal)", file=sys.stderr)
        return 1
    except discord.PrivilegedIntentsRequired:
        print("error: the bot asks for an intent not enabled in the developer portal", file=sys.stderr)
        return 1
    except (OSError, discord.HTTPException) as err:
        print(f"error: cannot reach Discord: {err}", file=sys.stderr)
        return 1
    except Exception as err:  # one clear line, not a traceback
        print(f"error: the bot could not start: {type(err).__name__}: {err}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130
    return 0


if __name__ == "__main__":
    sys.exit(main())
