"""/log: the latest rolls, each die with its modifiers and outcome (God Dice: the faces rolled)."""

from __future__ import annotations

import discord
from discord import app_commands
from discord.ext import commands

from cogs.goddice import player_autocomplete
from cogs.host import RefereeHost
from cogs.render import rolls_embed, safe, who
from cogs.util import channel_key, nation_autocomplete, reply, state_or_none
from engine.goddice.play import find_player
from engine.nations.common import find_nation


async def whose_autocomplete(interaction: discord.Interaction, current: str) -> list[app_commands.Choice[str]]:
    """The nations of a Nations game, the players of a God Dice game."""
    state = await state_or_none(interaction)
    if state is not None and state.ruleset == "goddice":
        return await player_autocomplete(interaction, current)
    return await nation_autocomplete(interaction, current)


class Log(commands.Cog):
    def __init__(self, bot: RefereeHost) -> None:
        self.bot = bot

    @app_commands.guild_only()
    @app_commands.command(name="log", description="The latest rolls (of one nation or player, or all)")
    @app_commands.describe(nation="Nations: one nation's rolls; God Dice: one player's", limit="How many (1-25)")
    @app_commands.autocomplete(nation=whose_autocomplete)
    async def log(self, interaction: discord.Interaction, nation: str | None = None,
                  limit: app_commands.Range[int, 1, 25] = 10) -> None:
        name, title, lead = None, "Latest rolls", None
        if nation:
            state = await self.bot.referee.shown_state(channel_key(interaction))
            if state.ruleset == "nations":
                name = find_nation(state, nation).name
                title = f"Rolls of {safe(name)}"[:256]
            else:
                name = find_player(state, nation).name
                lead = f"Rolls of {who(name)}:"
        rolls = await self.bot.referee.rolls(channel_key(interaction), name, limit)
        await reply(interaction, embed=rolls_embed(rolls, title, lead))


async def setup(bot: RefereeHost) -> None:
    await bot.add_cog(Log(bot))
