"""/gm …: the game master's powers. Only the game's GMs may use them (its creator, the GM role,
members with Manage Server); the engine checks each act again and logs who did it."""

from __future__ import annotations

import io
import json

import discord
from discord import app_commands
from discord.ext import commands

from cogs.host import RefereeHost
from cogs.util import (
    actor,
    channel_key,
    choice_list,
    has_gm_role,
    nation_autocomplete,
    own_unit_autocomplete,
    publish,
    reply,
    run_command,
)
from cogs.views import confirm_view
from engine.errors import BadInput, NoGame

STATS = choice_list("gm set", "stat")
RANKS = choice_list("gm unit rank", "rank")
KINDS = choice_list("gm action grant", "kind")
TYPES = choice_list("gm unit add", "type")
MAX_IMPORT_BYTES = 5_000_000


class GM(commands.GroupCog, group_name="gm", group_description="Game master powers"):
    unit = app_commands.Group(name="unit", description="Add, remove or change units")
    action = app_commands.Group(name="action", description="Give or take actions this turn")
    turn = app_commands.Group(name="turn", description="The turn")
    clock = app_commands.Group(name="clock", description="The turn clock")
    battle = app_commands.Group(name="battle", description="Battles")

    def __init__(self, bot: RefereeHost) -> None:
        self.bot = bot

    async def interaction_check(self, interaction: discord.Interaction) -> bool:
        """The channel's game's GMs only; with no game here, only the GM role or Manage Server (to import).

        A refusal is a CheckFailure: discord.py hands only AppCommandErrors to the tree's error handler."""
        if has_gm_role(interaction):
            return True
        try:
            state = await self.bot.referee.state(channel_key(interaction))
        except NoGame:
            raise app_commands.CheckFailure("only a GM (the GM role or Manage Server) may use /gm here") from None
        if self.bot.referee.is_gm(state, actor(interaction)):
            return True
        raise app_commands.CheckFailure("only the game's GM may use /gm commands")

    @app_commands.command(name="dice", description='Enter the next dice by hand, e.g. "7 3 10" ("clear" empties)')
    async def dice(self, interaction: discord.Interaction, values: str) -> None:
        await run_command(interaction, "gm dice", values=values)

    @app_commands.command(name="set", description="Set a stat (N) or adjust it (+N / -N)")
    @app_commands.choices(stat=STATS)
    @app_commands.autocomplete(nation=nation_autocomplete)
    async def set_stat(self, interaction: discord.Interaction, nation: str, stat: app_commands.Choice[str],
                       value: str) -> None:
        await run_command(interaction, "gm set", nation=nation, stat=stat.value, value=value)

    @unit.command(name="add", description="Give a nation a unit")
    @app_commands.choices(type=TYPES, rank=RANKS)
    @app_commands.autocomplete(nation=nation_autocomplete)
    async def unit_add(self, interaction: discord.Interaction, nation: str, type: app_commands.Choice[str],
                       rank: app_commands.Choice[str] | None = None) -> None:
        await run_command(interaction, "gm unit add", nation=nation, type=type.value,
                          rank=rank.value if rank else None)

    @unit.command(name="remove", description="Remove a unit")
    @app_commands.autocomplete(unit=own_unit_autocomplete)
    async def unit_remove(self, interaction: discord.Interaction, unit: int) -> None:
        await run_command(interaction, "gm unit remove", unit=unit)

    @unit.command(name="rank", description="Change a unit's rank (and HP)")
    @app_commands.choices(rank=RANKS)
    @app_commands.autocomplete(unit=own_unit_autocomplete)
    async def unit_rank(self, interaction: discord.Interaction, unit: int, rank: app_commands.Choice[str],
                        hp: int | None = None) -> None:
        await run_command(interaction, "gm unit rank", unit=unit, rank=rank.value, hp=hp)

    @action.command(name="grant", description="Give a nation an action back this turn")
    @app_commands.choices(kind=KINDS)
    @app_commands.autocomplete(nation=nation_autocomplete)
    async def action_grant(self, interaction: discord.Interaction, nation: str,
                           kind: app_commands.Choice[str] | None = None) -> None:
        await run_command(interaction, "gm action grant", nation=nation, kind=kind.value if kind else None)

    @action.command(name="revoke", description="Take an action away this turn")
    @app_commands.choices(kind=KINDS)
    @app_commands.autocomplete(nation=nation_autocomplete)
    async def action_revoke(self, interaction: discord.Interaction, nation: str,
                            kind: app_commands.Choice[str] | None = None) -> None:
        await run_command(interaction, "gm action revoke", nation=nation, kind=kind.value if kind else None)

    @app_commands.command(name="undo", description="Undo the game's last action, rolls included (asks to confirm)")
    async def undo(self, interaction: discord.Interaction) -> None:
        referee = self.bot.referee
        game_id = await referee.game_id(channel_key(interaction))
        last = [a for a in await referee.store.actions(game_id, limit=5, include_undone=False) if a.actor != "clock"]
        what = f"“{last[0].command}”" if last else "the last action"
        await reply(interaction, f"Undo {what}?", view=confirm_view("undo", game_id, interaction.user.id),
                    ephemeral=True)

    @turn.command(name="end", description="End the turn now")
    async def turn_end(self, interaction: discord.Interaction) -> None:
        await run_command(interaction, "gm turn end")

    @clock.command(name="pause", description="Stop the turn clock")
    async def clock_pause(self, interaction: discord.Interaction) -> None:
        await run_command(interaction, "gm clock pause")

    @clock.command(name="resume", description="Restart the turn clock")
    async def clock_resume(self, interaction: discord.Interaction) -> None:
        await run_command(interaction, "gm clock resume")

    @clock.command(name="length", description="Change the turn length")
    async def clock_length(self, interaction: discord.Interaction,
                           hours: app_commands.Range[float, 0.1, 336.0]) -> None:
        await run_command(interaction, "gm clock length", hours=hours)

    @app_commands.command(name="assign", description="Give a nation to a player (no player: unassign)")
    @app_commands.autocomplete(nation=nation_autocomplete)
    async def assign(self, interaction: discord.Interaction, nation: str, player: discord.Member | None = None) -> None:
        await run_command(interaction, "gm assign", nation=nation, player=str(player.id) if player else "none")

    @app_commands.command(name="eliminate", description="Eliminate a nation")
    @app_commands.autocomplete(nation=nation_autocomplete)
    async def eliminate(self, interaction: discord.Interaction, nation: str) -> None:
        await run_command(interaction, "gm eliminate", nation=nation)

    @app_commands.command(name="restore", description="Bring an eliminated nation back")
    @app_commands.autocomplete(nation=nation_autocomplete)
    async def restore(self, interaction: discord.Interaction, nation: str) -> None:
        await run_command(interaction, "gm restore", nation=nation)

    @app_commands.command(name="house", description="Change a house setting for this game")
    async def house(self, interaction: discord.Interaction, key: str, value: str) -> None:
        await run_command(interaction, "gm house", key=key, value=value)

    @house.autocomplete("key")
    async def house_keys(self, interaction: discord.Interaction, current: str) -> list[app_commands.Choice[str]]:
        keys = self.bot.referee.rules.house.as_dict()
        return [app_commands.Choice(name=f"{k} (default {v})", value=k) for k, v in keys.items()
                if current.lower() in k][:25]

    @app_commands.command(name="decide", description="Make a battle's pending choice (nothing given: the default)")
    async def decide(self, interaction: discord.Interaction, battle: int, units: str | None = None,
                     attacker: int | None = None, defender: int | None = None) -> None:
        await run_command(interaction, "gm decide", battle=battle, units=units, attacker=attacker, defender=defender)

    @battle.command(name="cancel", description="Stop a battle with no result")
    async def battle_cancel(self, interaction: discord.Interaction, battle: int) -> None:
        await run_command(interaction, "gm battle cancel", battle=battle)

    @app_commands.command(name="export", description="This game as a JSON file")
    async def export(self, interaction: discord.Interaction) -> None:
        await interaction.response.defer(ephemeral=True, thinking=True)
        data = await self.bot.referee.export(channel_key(interaction))
        payload = io.BytesIO(json.dumps(data, indent=2).encode())
        await interaction.followup.send("The game's export:", file=discord.File(payload, "nations-game.json"),
                                        ephemeral=True)

    @app_commands.command(name="import", description="Start this channel's game from a JSON export")
    async def import_game(self, interaction: discord.Interaction, file: discord.Attachment) -> None:
        if file.size > MAX_IMPORT_BYTES:
            raise BadInput(f"that file is too large ({file.size} bytes; at most {MAX_IMPORT_BYTES})")
        # Ephemeral: a refusal below (bad JSON, not an export) must reach the importer alone; the channel
        # sees the imported game in its pinned status message.
        await interaction.response.defer(ephemeral=True, thinking=True)
        try:
            data = json.loads(await file.read())
        except (ValueError, discord.HTTPException) as err:
            raise BadInput(f"cannot read {file.filename} as JSON: {err}") from None
        report = await self.bot.referee.import_game(channel_key(interaction), actor(interaction), data,
                                                    guild_id=interaction.guild_id,
                                                    command=f"/gm import file:{file.filename}")
        await reply(interaction, f"Game imported from {file.filename}: turn {report.state.turn}, "
                                 f"{len(report.state.nations)} nations.")
        await publish(interaction, report)


async def setup(bot: RefereeHost) -> None:
    await bot.add_cog(GM(bot))
