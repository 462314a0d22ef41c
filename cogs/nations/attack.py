"""/attack declare|commit|pair|retreat|status."""

from __future__ import annotations

import discord
from discord import app_commands
from discord.ext import commands

from cogs.host import RefereeHost
from cogs.nations.autocomplete import (
    any_battle_autocomplete,
    commit_units_autocomplete,
    my_battle_autocomplete,
    nation_autocomplete,
    own_unit_autocomplete,
    own_units_autocomplete,
    pair_attacker_autocomplete,
    pair_defender_autocomplete,
)
from cogs.nations.render import battles_embed, run
from cogs.util import about, described, query_state, reply


@app_commands.guild_only()
class Attack(commands.GroupCog, group_name="attack", group_description="War: battles between nations"):
    def __init__(self, bot: RefereeHost) -> None:
        self.bot = bot

    @app_commands.command(name="declare", description=about("attack declare"))
    @described("attack declare")
    @app_commands.autocomplete(target=nation_autocomplete, units=own_units_autocomplete)
    async def declare(self, interaction: discord.Interaction, target: str, units: str,
                      retreat_at: app_commands.Range[int, 0, 10] | None = None) -> None:
        await run(interaction, "attack declare", target=target, units=units, retreat_at=retreat_at)

    @app_commands.command(name="commit", description=about("attack commit"))
    @described("attack commit")
    @app_commands.autocomplete(units=commit_units_autocomplete, battle=my_battle_autocomplete)
    async def commit(self, interaction: discord.Interaction, units: str,
                     retreat_at: app_commands.Range[int, 0, 10] | None = None, battle: int | None = None) -> None:
        await run(interaction, "attack commit", units=units, retreat_at=retreat_at, battle=battle)

    @app_commands.command(name="pair", description=about("attack pair"))
    @described("attack pair")
    @app_commands.autocomplete(attacker=pair_attacker_autocomplete, defender=pair_defender_autocomplete,
                               battle=my_battle_autocomplete)
    async def pair(self, interaction: discord.Interaction, attacker: int, defender: int,
                   battle: int | None = None) -> None:
        await run(interaction, "attack pair", attacker=attacker, defender=defender, battle=battle)

    @app_commands.command(name="retreat", description=about("attack retreat"))
    @described("attack retreat")
    @app_commands.autocomplete(unit=own_unit_autocomplete)
    async def retreat(self, interaction: discord.Interaction, unit: int,
                      at_hp: app_commands.Range[int, 0, 10] | None = None) -> None:
        await run(interaction, "attack retreat", unit=unit, at_hp=at_hp)

    @app_commands.command(name="status", description=about("attack status"))
    @described("attack status")
    @app_commands.autocomplete(battle=any_battle_autocomplete)
    async def status(self, interaction: discord.Interaction, battle: int | None = None) -> None:
        await reply(interaction, embed=battles_embed(await query_state(interaction, "attack status"), battle))


async def setup(bot: RefereeHost) -> None:
    await bot.add_cog(Attack(bot))
