"""/economy grow|military|recruit and /stability raise."""

from __future__ import annotations

import discord
from discord import app_commands
from discord.ext import commands

from cogs.host import RefereeHost
from cogs.nations.autocomplete import nation_autocomplete
from cogs.nations.render import run
from cogs.util import about, choice_list, described

UNIT_TYPES = choice_list("economy recruit", "unit")


@app_commands.guild_only()
class Economy(commands.GroupCog, group_name="economy", group_description="ECONOMY checks"):
    def __init__(self, bot: RefereeHost) -> None:
        self.bot = bot

    @app_commands.command(name="grow", description=about("economy grow"))
    @described("economy grow")
    @app_commands.autocomplete(nation=nation_autocomplete)
    async def grow(self, interaction: discord.Interaction, nation: str | None = None) -> None:
        await run(interaction, "economy grow", nation=nation)

    @app_commands.command(name="military", description=about("economy military"))
    @described("economy military")
    @app_commands.autocomplete(nation=nation_autocomplete)
    async def military(self, interaction: discord.Interaction, nation: str | None = None) -> None:
        await run(interaction, "economy military", nation=nation)

    @app_commands.command(name="recruit", description=about("economy recruit"))
    @described("economy recruit")
    @app_commands.choices(unit=UNIT_TYPES)
    @app_commands.autocomplete(nation=nation_autocomplete)
    async def recruit(self, interaction: discord.Interaction, unit: app_commands.Choice[str],
                      nation: str | None = None) -> None:
        await run(interaction, "economy recruit", unit=unit.value, nation=nation)


@app_commands.guild_only()
class Stability(commands.GroupCog, group_name="stability", group_description="STABILITY"):
    def __init__(self, bot: RefereeHost) -> None:
        self.bot = bot

    @app_commands.command(name="raise", description=about("stability raise"))
    @described("stability raise")
    @app_commands.autocomplete(nation=nation_autocomplete)
    async def raise_stability(self, interaction: discord.Interaction, nation: str | None = None) -> None:
        await run(interaction, "stability raise", nation=nation)


async def setup(bot: RefereeHost) -> None:
    await bot.add_cog(Economy(bot))
    await bot.add_cog(Stability(bot))
