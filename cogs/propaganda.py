"""/propaganda attack|encourage."""

from __future__ import annotations

import discord
from discord import app_commands
from discord.ext import commands

from cogs.economy import NATION_HELP
from cogs.host import RefereeHost
from cogs.util import choice_list, nation_autocomplete, run_command

KINDS = choice_list("propaganda encourage", "kind")


@app_commands.guild_only()
class Propaganda(commands.GroupCog, group_name="propaganda", group_description="PROPAGANDA actions"):
    def __init__(self, bot: RefereeHost) -> None:
        self.bot = bot

    @app_commands.command(name="attack", description="d10 + mod(P) > the target's STABILITY takes d10 × 3 land")
    @app_commands.describe(target="The nation to sway", nation=NATION_HELP)
    @app_commands.autocomplete(target=nation_autocomplete, nation=nation_autocomplete)
    async def attack(self, interaction: discord.Interaction, target: str, nation: str | None = None) -> None:
        await run_command(interaction, "propaganda attack", target=target, nation=nation)

    @app_commands.command(name="encourage", description="A 36-hour bonus to Workers, Patriotism or Morale")
    @app_commands.describe(kind="The bonus: workers, patriotism or morale", nation=NATION_HELP)
    @app_commands.choices(kind=KINDS)
    @app_commands.autocomplete(nation=nation_autocomplete)
    async def encourage(self, interaction: discord.Interaction, kind: app_commands.Choice[str],
                        nation: str | None = None) -> None:
        await run_command(interaction, "propaganda encourage", kind=kind.value, nation=nation)


async def setup(bot: RefereeHost) -> None:
    await bot.add_cog(Propaganda(bot))
