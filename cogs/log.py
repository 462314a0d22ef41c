"""/log: the latest rolls, each die with its modifiers and outcome."""

from __future__ import annotations

import discord
from discord import app_commands
from discord.ext import commands

from cogs.host import RefereeHost
from cogs.render import rolls_embed
from cogs.util import channel_key, game_state, nation_autocomplete, reply
from engine.nations.common import find_nation


class Log(commands.Cog):
    def __init__(self, bot: RefereeHost) -> None:
        self.bot = bot

    @app_commands.command(name="log", description="The latest rolls (of one nation, or all)")
    @app_commands.autocomplete(nation=nation_autocomplete)
    async def log(self, interaction: discord.Interaction, nation: str | None = None,
                  limit: app_commands.Range[int, 1, 25] = 10) -> None:
        name = find_nation(await game_state(interaction), nation).name if nation else None
        rolls = await self.bot.referee.rolls(channel_key(interaction), name, limit)
        await reply(interaction, embed=rolls_embed(rolls, f"Rolls of {name}" if name else "Latest rolls"))


async def setup(bot: RefereeHost) -> None:
    await bot.add_cog(Log(bot))
