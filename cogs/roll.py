"""/roll: any dice, as dice bots roll them (d20 notation) — a free roll, not a rule roll.

Logged in the channel's game's ledger when there is one (/log shows it marked "free roll, not a rule roll");
it never counts for a rule, never takes a GM-entered die and /gm undo never takes it back.
"""

from __future__ import annotations

import discord
from discord import app_commands
from discord.ext import commands

from cogs.host import RefereeHost
from cogs.render import free_roll_embed
from cogs.util import about, actor, channel_key, described, reply


class Roll(commands.Cog):
    def __init__(self, bot: RefereeHost) -> None:
        self.bot = bot

    @app_commands.guild_only()
    @app_commands.command(name="roll", description=about("roll"))
    @described("roll")
    async def roll(self, interaction: discord.Interaction, dice: app_commands.Range[str, 1, 100]) -> None:
        roll, logged = await self.bot.referee.free_roll(channel_key(interaction), actor(interaction), dice)
        await reply(interaction, embed=free_roll_embed(actor(interaction), roll, logged))


async def setup(bot: RefereeHost) -> None:
    await bot.add_cog(Roll(bot))
