"""/help: the command groups, or one group's commands with their options."""

from __future__ import annotations

import discord
from discord import app_commands
from discord.ext import commands

from cogs.host import RefereeHost
from cogs.render import COLOUR
from cogs.util import reply
from engine.commands import help_groups, help_lines

HELP_TOPICS = [app_commands.Choice(name=word, value=word) for word in help_groups()][:25]


class Help(commands.Cog):
    def __init__(self, bot: RefereeHost) -> None:
        self.bot = bot

    @app_commands.guild_only()
    @app_commands.command(name="help", description="The referee's command groups, or one group's commands")
    @app_commands.describe(topic="A command group (none: the list of groups)")
    @app_commands.choices(topic=HELP_TOPICS)
    async def help(self, interaction: discord.Interaction, topic: str | None = None) -> None:
        title, lines = help_lines(topic)
        shown = [_code(line) for line in lines]
        guide = "How to play each game, and every ruling: the README and docs/ of the referee's repository."
        embed = discord.Embed(title=title, description="\n".join([*shown, "", guide])[:4000], colour=COLOUR)
        await reply(interaction, embed=embed, ephemeral=True)


def _code(line: str) -> str:
    """`/economy grow` — …: the command part as code."""
    command, sep, rest = line.partition(" — ")
    head, colon, names = command.partition(": ")
    if colon and not sep:  # a group: "/economy: grow, military"
        return f"`/{head.lstrip('/')}` — {names}"
    return f"`{command}`{sep}{rest}"


async def setup(bot: RefereeHost) -> None:
    await bot.add_cog(Help(bot))
