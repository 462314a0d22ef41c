"""/log: the latest rolls, each die with its modifiers and outcome (God Dice: the faces rolled), each day's date
once (`render.rolls_embed`)."""

from __future__ import annotations

import discord
from discord import app_commands
from discord.ext import commands

from cogs.frontends import adapter_of
from cogs.host import RefereeHost
from cogs.render import rolls_embed, safe, who
from cogs.util import about, channel_key, described, reply, state_or_none
from engine.rulesets import ruleset_of


async def whose_autocomplete(interaction: discord.Interaction, current: str) -> list[app_commands.Choice[str]]:
    """The sides of the channel's game, as its rule set offers them (the nations of a Nations game, the players
    of a God Dice game); nothing without a game."""
    state = await state_or_none(interaction)
    complete = adapter_of(state).whose_autocomplete if state is not None else None
    return await complete(interaction, current) if complete is not None else []


class Log(commands.Cog):
    def __init__(self, bot: RefereeHost) -> None:
        self.bot = bot

    @app_commands.guild_only()
    @app_commands.command(name="log", description=about("log"))
    @described("log")
    @app_commands.autocomplete(nation=whose_autocomplete)
    async def log(self, interaction: discord.Interaction, nation: str | None = None,
                  limit: app_commands.Range[int, 1, 25] = 10) -> None:
        name, title, lead = None, "Latest rolls", None
        if nation:
            state = await self.bot.referee.shown_state(channel_key(interaction))
            found = ruleset_of(state)
            name = found.find_side(state, nation) if found.find_side is not None else nation
            if name.isdigit():  # a player (their Discord id): a mention, which a title would not render
                lead = f"Rolls of {who(name)}:"
            else:
                title = f"Rolls of {safe(name)}"[:256]
        rolls = await self.bot.referee.rolls(channel_key(interaction), name, limit)
        await reply(interaction, embed=rolls_embed(rolls, title, lead))


async def setup(bot: RefereeHost) -> None:
    await bot.add_cog(Log(bot))
