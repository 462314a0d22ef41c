"""/army show|disband."""

from __future__ import annotations

import discord
from discord import app_commands
from discord.ext import commands

from cogs.host import RefereeHost
from cogs.nations.autocomplete import nation_autocomplete, own_unit_autocomplete
from cogs.nations.render import army_embed, run
from cogs.util import about, actor, described, query_state, reply
from engine.nations.common import RULESET, viewed_nation


@app_commands.guild_only()
class Army(commands.GroupCog, group_name="army", group_description="Your units"):
    def __init__(self, bot: RefereeHost) -> None:
        self.bot = bot

    @app_commands.command(name="show", description=about("army show"))
    @described("army show")
    @app_commands.autocomplete(nation=nation_autocomplete)
    async def show(self, interaction: discord.Interaction, nation: str | None = None) -> None:
        state = await query_state(interaction, "army show")
        found = viewed_nation(state, actor(interaction), nation)
        await reply(interaction, embed=army_embed(found, self.bot.referee.rules_for(RULESET)))

    @app_commands.command(name="disband", description=about("army disband"))
    @described("army disband")
    @app_commands.autocomplete(unit=own_unit_autocomplete)
    async def disband(self, interaction: discord.Interaction, unit: int) -> None:
        await run(interaction, "army disband", unit=unit)


async def setup(bot: RefereeHost) -> None:
    await bot.add_cog(Army(bot))
