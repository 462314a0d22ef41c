"""/propaganda attack|encourage."""

from __future__ import annotations

import discord
from discord import app_commands
from discord.ext import commands

from cogs.host import RefereeHost
from cogs.nations.autocomplete import nation_autocomplete
from cogs.nations.render import run
from cogs.util import about, choice_list, described

KINDS = choice_list("propaganda encourage", "kind")


@app_commands.guild_only()
class Propaganda(commands.GroupCog, group_name="propaganda", group_description="PROPAGANDA actions"):
    def __init__(self, bot: RefereeHost) -> None:
        self.bot = bot

    @app_commands.command(name="attack", description=about("propaganda attack"))
    @described("propaganda attack")
    @app_commands.autocomplete(target=nation_autocomplete, nation=nation_autocomplete)
    async def attack(self, interaction: discord.Interaction, target: str, nation: str | None = None) -> None:
        await run(interaction, "propaganda attack", target=target, nation=nation)

    @app_commands.command(name="encourage", description=about("propaganda encourage"))
    @described("propaganda encourage")
    @app_commands.choices(kind=KINDS)
    @app_commands.autocomplete(nation=nation_autocomplete)
    async def encourage(self, interaction: discord.Interaction, kind: app_commands.Choice[str],
                        nation: str | None = None) -> None:
        await run(interaction, "propaganda encourage", kind=kind.value, nation=nation)


async def setup(bot: RefereeHost) -> None:
    await bot.add_cog(Propaganda(bot))
