"""What the cogs use of the bot that loads them, as a small typed interface of their own.

`bot.RefereeBot` is a `RefereeHost`; the cogs name only this protocol, never `bot`, so the entry point
imports the cogs and nothing imports back (tests/plug/test_layering.py keeps it so, and keeps this list
exactly what the cogs use).
"""

from __future__ import annotations

from typing import Protocol

import discord
from discord import app_commands
from discord.ext import commands

from cogs.commandsets import CommandSets
from data.store import Store
from service.referee import Referee


class HostSettings(Protocol):
    """The settings the cogs read."""

    @property
    def gm_role(self) -> str:
        """The name of the role whose members are GMs of every game in the server."""
        ...

    @property
    def health_file(self) -> str | None:
        """The file the clock writes the time into while the bot runs (HEALTH_FILE), if any."""
        ...


class PageLinks(Protocol):
    """The game pages' web server, as the cogs see it: a game's page link from its token."""

    def url(self, token: str) -> str: ...


class RefereeHost(Protocol):
    """The bot as the cogs see it: one store and referee, which servers its clock runs, and a few `commands.Bot`
    methods."""

    @property
    def settings(self) -> HostSettings: ...

    @property
    def referee(self) -> Referee: ...

    @property
    def store(self) -> Store: ...

    @property
    def command_sets(self) -> CommandSets:
        """The slash commands registered with Discord: every server's, and each server's rule sets' (their ids
        make clickable mentions)."""
        ...

    @property
    def pages(self) -> PageLinks | None:
        """The game pages' server when this bot serves them (WEB_PORT), else None."""
        ...

    def owns(self, guild_id: int | None) -> bool:
        """Whether this process runs the clock of a game in that server (every server: any shard)."""
        ...

    # --- of commands.Bot ---

    async def add_cog(self, cog: commands.Cog, /) -> None: ...

    def is_ready(self) -> bool: ...

    def get_cog(self, name: str, /) -> commands.Cog | None: ...

    @property
    def tree(self) -> app_commands.CommandTree:
        """The slash commands (/help shows each one's options as Discord offers them)."""
        ...

    def get_partial_messageable(self, id: int, *, guild_id: int | None = None) -> discord.PartialMessageable: ...

    def get_guild(self, id: int, /) -> discord.Guild | None: ...

    def get_user(self, id: int, /) -> discord.User | None: ...

    async def create_dm(self, user: discord.abc.Snowflake, /) -> discord.DMChannel: ...
