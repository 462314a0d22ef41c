"""/economy grow|military|recruit and /stability raise."""

from __future__ import annotations

import discord
from discord import app_commands
from discord.ext import commands

from cogs.host import RefereeHost
from cogs.nation import UNIT_TYPES
from cogs.util import nation_autocomplete, run_command

NATION_HELP = "For a nation other than yours (GM)"


@app_commands.guild_only()
class Economy(commands.GroupCog, group_name="economy", group_description="ECONOMY checks"):
    def __init__(self, bot: RefereeHost) -> None:
        self.bot = bot

    @app_commands.command(name="grow", description="ECONOMY check: d10 + mod(E) + Workers > E raises ECONOMY")
    @app_commands.describe(nation=NATION_HELP)
    @app_commands.autocomplete(nation=nation_autocomplete)
    async def grow(self, interaction: discord.Interaction, nation: str | None = None) -> None:
        await run_command(interaction, "economy grow", nation=nation)

    @app_commands.command(name="military", description="ECONOMY check: > M raises MILITARY for 1 ECONOMY")
    @app_commands.describe(nation=NATION_HELP)
    @app_commands.autocomplete(nation=nation_autocomplete)
    async def military(self, interaction: discord.Interaction, nation: str | None = None) -> None:
        await run_command(interaction, "economy military", nation=nation)

    @app_commands.command(name="recruit", description="ECONOMY check against a unit's RD: one GREEN unit")
    @app_commands.describe(unit="The unit type to recruit", nation=NATION_HELP)
    @app_commands.choices(unit=UNIT_TYPES)
    @app_commands.autocomplete(nation=nation_autocomplete)
    async def recruit(self, interaction: discord.Interaction, unit: app_commands.Choice[str],
                      nation: str | None = None) -> None:
        await run_command(interaction, "economy recruit", unit=unit.value, nation=nation)


@app_commands.guild_only()
class Stability(commands.GroupCog, group_name="stability", group_description="STABILITY"):
    def __init__(self, bot: RefereeHost) -> None:
        self.bot = bot

    @app_commands.command(name="raise", description="Trade 2 MILITARY for 1 STABILITY (no roll, no action)")
    @app_commands.describe(nation=NATION_HELP)
    @app_commands.autocomplete(nation=nation_autocomplete)
    async def raise_stability(self, interaction: discord.Interaction, nation: str | None = None) -> None:
        await run_command(interaction, "stability raise", nation=nation)


async def setup(bot: RefereeHost) -> None:
    await bot.add_cog(Economy(bot))
    await bot.add_cog(Stability(bot))
