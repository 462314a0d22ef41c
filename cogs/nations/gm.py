"""/gm … for a Nations game: stats, units, actions, the turn clock, players, battles. The commands join the
shared /gm group (`cogs.gm.GMPowers`), whose check keeps them to the game's GMs."""

from __future__ import annotations

import discord
from discord import app_commands

from cogs.gm import GMPowers
from cogs.host import RefereeHost
from cogs.nations.autocomplete import (
    commit_units_autocomplete,
    my_battle_autocomplete,
    nation_autocomplete,
    own_unit_autocomplete,
    pair_attacker_autocomplete,
    pair_defender_autocomplete,
)
from cogs.nations.render import run
from cogs.util import about, choice_list, described

STATS = choice_list("gm set", "stat")
RANKS = choice_list("gm unit rank", "rank")
KINDS = choice_list("gm action grant", "kind")
TYPES = choice_list("gm unit add", "type")


class NationsGM(GMPowers):
    unit = app_commands.Group(name="unit", description="Add, remove or change units")
    action = app_commands.Group(name="action", description="Give or take actions this turn")
    turn = app_commands.Group(name="turn", description="The turn")
    clock = app_commands.Group(name="clock", description="The turn clock")
    battle = app_commands.Group(name="battle", description="Battles")

    @app_commands.command(name="set", description=about("gm set"))
    @described("gm set")
    @app_commands.choices(stat=STATS)
    @app_commands.autocomplete(nation=nation_autocomplete)
    async def set_stat(self, interaction: discord.Interaction, nation: str, stat: app_commands.Choice[str],
                       value: str) -> None:
        await run(interaction, "gm set", nation=nation, stat=stat.value, value=value)

    @unit.command(name="add", description=about("gm unit add"))
    @described("gm unit add")
    @app_commands.choices(type=TYPES, rank=RANKS)
    @app_commands.autocomplete(nation=nation_autocomplete)
    async def unit_add(self, interaction: discord.Interaction, nation: str, type: app_commands.Choice[str],
                       rank: app_commands.Choice[str] | None = None) -> None:
        await run(interaction, "gm unit add", nation=nation, type=type.value,
                          rank=rank.value if rank else None)

    @unit.command(name="remove", description=about("gm unit remove"))
    @described("gm unit remove")
    @app_commands.autocomplete(unit=own_unit_autocomplete)
    async def unit_remove(self, interaction: discord.Interaction, unit: int) -> None:
        await run(interaction, "gm unit remove", unit=unit)

    @unit.command(name="rank", description=about("gm unit rank"))
    @described("gm unit rank")
    @app_commands.choices(rank=RANKS)
    @app_commands.autocomplete(unit=own_unit_autocomplete)
    async def unit_rank(self, interaction: discord.Interaction, unit: int, rank: app_commands.Choice[str],
                        hp: int | None = None) -> None:
        await run(interaction, "gm unit rank", unit=unit, rank=rank.value, hp=hp)

    @action.command(name="grant", description=about("gm action grant"))
    @described("gm action grant")
    @app_commands.choices(kind=KINDS)
    @app_commands.autocomplete(nation=nation_autocomplete)
    async def action_grant(self, interaction: discord.Interaction, nation: str,
                           kind: app_commands.Choice[str] | None = None) -> None:
        await run(interaction, "gm action grant", nation=nation, kind=kind.value if kind else None)

    @action.command(name="revoke", description=about("gm action revoke"))
    @described("gm action revoke")
    @app_commands.choices(kind=KINDS)
    @app_commands.autocomplete(nation=nation_autocomplete)
    async def action_revoke(self, interaction: discord.Interaction, nation: str,
                            kind: app_commands.Choice[str] | None = None) -> None:
        await run(interaction, "gm action revoke", nation=nation, kind=kind.value if kind else None)

    @turn.command(name="end", description=about("gm turn end"))
    async def turn_end(self, interaction: discord.Interaction) -> None:
        await run(interaction, "gm turn end")

    @clock.command(name="pause", description=about("gm clock pause"))
    async def clock_pause(self, interaction: discord.Interaction) -> None:
        await run(interaction, "gm clock pause")

    @clock.command(name="resume", description=about("gm clock resume"))
    async def clock_resume(self, interaction: discord.Interaction) -> None:
        await run(interaction, "gm clock resume")

    @clock.command(name="length", description=about("gm clock length"))
    @described("gm clock length")
    async def clock_length(self, interaction: discord.Interaction,
                           hours: app_commands.Range[float, 0.1, 336.0]) -> None:
        await run(interaction, "gm clock length", hours=hours)

    @app_commands.command(name="assign", description=about("gm assign"))
    @described("gm assign")
    @app_commands.autocomplete(nation=nation_autocomplete)
    async def assign(self, interaction: discord.Interaction, nation: str, player: discord.Member | None = None) -> None:
        await run(interaction, "gm assign", nation=nation, player=str(player.id) if player else "none")

    @app_commands.command(name="eliminate", description=about("gm eliminate"))
    @described("gm eliminate")
    @app_commands.autocomplete(nation=nation_autocomplete)
    async def eliminate(self, interaction: discord.Interaction, nation: str) -> None:
        await run(interaction, "gm eliminate", nation=nation)

    @app_commands.command(name="restore", description=about("gm restore"))
    @described("gm restore")
    @app_commands.autocomplete(nation=nation_autocomplete)
    async def restore(self, interaction: discord.Interaction, nation: str) -> None:
        await run(interaction, "gm restore", nation=nation)

    @app_commands.command(name="decide", description=about("gm decide"))
    @described("gm decide")
    @app_commands.autocomplete(battle=my_battle_autocomplete, units=commit_units_autocomplete,
                               attacker=pair_attacker_autocomplete, defender=pair_defender_autocomplete)
    async def decide(self, interaction: discord.Interaction, battle: int, units: str | None = None,
                     attacker: int | None = None, defender: int | None = None) -> None:
        await run(interaction, "gm decide", battle=battle, units=units, attacker=attacker, defender=defender)

    @battle.command(name="cancel", description=about("gm battle cancel"))
    @described("gm battle cancel")
    @app_commands.autocomplete(battle=my_battle_autocomplete)
    async def battle_cancel(self, interaction: discord.Interaction, battle: int) -> None:
        await run(interaction, "gm battle cancel", battle=battle)


async def setup(bot: RefereeHost) -> None:
    await bot.add_cog(NationsGM(bot))
