"""/nation claim|create|show|list|chart."""

from __future__ import annotations

import discord
from discord import app_commands
from discord.ext import commands

from cogs.charts import send_chart
from cogs.host import RefereeHost
from cogs.nations.autocomplete import nation_autocomplete, preset_autocomplete
from cogs.nations.render import nation_embed, run, status_embed
from cogs.util import about, actor, choice_list, described, given_options, query_state, reply
from engine.nations.common import RULESET, viewed_nation

UNIT_TYPES = choice_list("nation create", "strength")


@app_commands.guild_only()
class Nation(commands.GroupCog, group_name="nation", group_description="Nations: claim, create, look"):
    def __init__(self, bot: RefereeHost) -> None:
        self.bot = bot

    @app_commands.command(name="claim", description=about("nation claim"))
    @described("nation claim")
    @app_commands.autocomplete(preset=preset_autocomplete)
    async def claim(self, interaction: discord.Interaction, preset: str, player: discord.Member | None = None,
                    name: str | None = None) -> None:
        await run(interaction, "nation claim", preset=preset, player=str(player.id) if player else None,
                          name=name)

    @app_commands.command(name="create", description=about("nation create"))
    @described("nation create")
    @app_commands.choices(strength=UNIT_TYPES, weakness=UNIT_TYPES)
    async def create(self, interaction: discord.Interaction, name: app_commands.Range[str, 1, 40],
                     economy: app_commands.Range[int, 0, 100], military: app_commands.Range[int, 0, 100],
                     strength: app_commands.Choice[str], weakness: app_commands.Choice[str],
                     units: str | None = None, player: discord.Member | None = None) -> None:
        await run(interaction, "nation create", name=name, economy=economy, military=military,
                          strength=strength.value, weakness=weakness.value, units=units,
                          player=str(player.id) if player else None)

    @app_commands.command(name="show", description=about("nation show"))
    @described("nation show")
    @app_commands.autocomplete(nation=nation_autocomplete)
    async def show(self, interaction: discord.Interaction, nation: str | None = None) -> None:
        state = await query_state(interaction, "nation show")
        found = viewed_nation(state, actor(interaction), nation)
        await reply(interaction, embed=nation_embed(found, state, self.bot.referee.rules_for(RULESET)))

    @app_commands.command(name="chart", description=about("nation chart"))
    @described("nation chart")
    @app_commands.autocomplete(nation=nation_autocomplete)
    @app_commands.choices(stat=choice_list("nation chart", "stat"))
    async def chart(self, interaction: discord.Interaction, nation: str | None = None,
                    stat: str | None = None) -> None:
        await send_chart(interaction, "nation chart", given_options(nation=nation, stat=stat))

    @app_commands.command(name="list", description=about("nation list"))
    async def list_nations(self, interaction: discord.Interaction) -> None:
        state = await query_state(interaction, "nation list")
        await reply(interaction, embed=status_embed(state, self.bot.referee.rules_for(RULESET)))


async def setup(bot: RefereeHost) -> None:
    await bot.add_cog(Nation(bot))
