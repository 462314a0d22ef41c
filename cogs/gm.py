"""/gm …: the game master's powers. Discord offers /gm to members with Manage Server by default (a server's
admin can let a game's GM or a GM role use it, in Server Settings → Integrations); here only the game's GMs may
use it (its creator, the GM role, members with Manage Server); the engine checks each act again and logs who did
it."""

from __future__ import annotations

import io
import json
import tomllib

import discord
from discord import app_commands
from discord.ext import commands

from cogs.goddice import any_character_autocomplete, player_autocomplete
from cogs.host import RefereeHost
from cogs.render import report_embeds, safe
from cogs.util import (
    actor,
    channel_key,
    choice_list,
    commit_units_autocomplete,
    has_gm_role,
    my_battle_autocomplete,
    nation_autocomplete,
    own_unit_autocomplete,
    pair_attacker_autocomplete,
    pair_defender_autocomplete,
    query_state,
    reply,
    run_action,
    run_command,
    state_or_none,
)
from cogs.views import answer_move, confirm_view
from engine.errors import BadInput, NoGame, RuleViolation
from engine.goddice.cards import MAX_LIFE
from engine.goddice.play import LoadCards
from referee import MAX_EXPORT_BYTES, Report

STATS = choice_list("gm set", "stat")
RANKS = choice_list("gm unit rank", "rank")
KINDS = choice_list("gm action grant", "kind")
TYPES = choice_list("gm unit add", "type")
MAX_IMPORT_BYTES = MAX_EXPORT_BYTES
MAX_CARD_BYTES = 200_000  # a God Dice card file (the shipped one is 5 kB)
NATION = "The nation"
UNIT = "The unit's number (see /army show)"
BATTLE = "The battle's number (see /attack status)"
ACTION_KIND = "Which action: attack, economy or propaganda (none: any)"


@app_commands.guild_only()
@app_commands.default_permissions(manage_guild=True)
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
    @app_commands.describe(values='The dice in the order they will be rolled, e.g. "7 3 10"; "clear" empties')
    async def dice(self, interaction: discord.Interaction, values: str) -> None:
        await run_command(interaction, "gm dice", values=values)

    @app_commands.command(name="set", description="Set a stat (N) or adjust it (+N / -N)")
    @app_commands.describe(nation=NATION, stat="The stat to set", value="A number (N) or a change (+N / -N)")
    @app_commands.choices(stat=STATS)
    @app_commands.autocomplete(nation=nation_autocomplete)
    async def set_stat(self, interaction: discord.Interaction, nation: str, stat: app_commands.Choice[str],
                       value: str) -> None:
        await run_command(interaction, "gm set", nation=nation, stat=stat.value, value=value)

    @unit.command(name="add", description="Give a nation a unit")
    @app_commands.describe(nation=NATION, type="The unit type", rank="Its rank (default: GREEN)")
    @app_commands.choices(type=TYPES, rank=RANKS)
    @app_commands.autocomplete(nation=nation_autocomplete)
    async def unit_add(self, interaction: discord.Interaction, nation: str, type: app_commands.Choice[str],
                       rank: app_commands.Choice[str] | None = None) -> None:
        await run_command(interaction, "gm unit add", nation=nation, type=type.value,
                          rank=rank.value if rank else None)

    @unit.command(name="remove", description="Remove a unit")
    @app_commands.describe(unit=UNIT)
    @app_commands.autocomplete(unit=own_unit_autocomplete)
    async def unit_remove(self, interaction: discord.Interaction, unit: int) -> None:
        await run_command(interaction, "gm unit remove", unit=unit)

    @unit.command(name="rank", description="Change a unit's rank (and HP)")
    @app_commands.describe(unit=UNIT, rank="The new rank", hp="Its HP (default: the rank's full HP)")
    @app_commands.choices(rank=RANKS)
    @app_commands.autocomplete(unit=own_unit_autocomplete)
    async def unit_rank(self, interaction: discord.Interaction, unit: int, rank: app_commands.Choice[str],
                        hp: int | None = None) -> None:
        await run_command(interaction, "gm unit rank", unit=unit, rank=rank.value, hp=hp)

    @action.command(name="grant", description="Give a nation an action back this turn")
    @app_commands.describe(nation=NATION, kind=ACTION_KIND)
    @app_commands.choices(kind=KINDS)
    @app_commands.autocomplete(nation=nation_autocomplete)
    async def action_grant(self, interaction: discord.Interaction, nation: str,
                           kind: app_commands.Choice[str] | None = None) -> None:
        await run_command(interaction, "gm action grant", nation=nation, kind=kind.value if kind else None)

    @action.command(name="revoke", description="Take an action away this turn")
    @app_commands.describe(nation=NATION, kind=ACTION_KIND)
    @app_commands.choices(kind=KINDS)
    @app_commands.autocomplete(nation=nation_autocomplete)
    async def action_revoke(self, interaction: discord.Interaction, nation: str,
                            kind: app_commands.Choice[str] | None = None) -> None:
        await run_command(interaction, "gm action revoke", nation=nation, kind=kind.value if kind else None)

    @app_commands.command(name="undo", description="Undo the game's last action, rolls included (asks to confirm)")
    async def undo(self, interaction: discord.Interaction) -> None:
        referee = self.bot.referee
        channel = channel_key(interaction)
        game_id = await referee.game_id(channel)
        target = await referee.undo_target(channel)
        if target is None:
            raise RuleViolation("there is nothing to undo")
        # The button names the action: a confirmation undoes that one action, once, or nothing.
        await reply(interaction, f"Undo “{safe(target.command)}”?",
                    view=confirm_view("undo", game_id, interaction.user.id, target.id), ephemeral=True)

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
    @app_commands.describe(hours="The new turn length, in hours")
    async def clock_length(self, interaction: discord.Interaction,
                           hours: app_commands.Range[float, 0.1, 336.0]) -> None:
        await run_command(interaction, "gm clock length", hours=hours)

    @app_commands.command(name="assign", description="Give a nation to a player (no player: unassign)")
    @app_commands.describe(nation=NATION, player="Its new player (none: unassign it)")
    @app_commands.autocomplete(nation=nation_autocomplete)
    async def assign(self, interaction: discord.Interaction, nation: str, player: discord.Member | None = None) -> None:
        await run_command(interaction, "gm assign", nation=nation, player=str(player.id) if player else "none")

    @app_commands.command(name="eliminate", description="Eliminate a nation")
    @app_commands.describe(nation=NATION)
    @app_commands.autocomplete(nation=nation_autocomplete)
    async def eliminate(self, interaction: discord.Interaction, nation: str) -> None:
        await run_command(interaction, "gm eliminate", nation=nation)

    @app_commands.command(name="restore", description="Bring an eliminated nation back")
    @app_commands.describe(nation="The eliminated nation")
    @app_commands.autocomplete(nation=nation_autocomplete)
    async def restore(self, interaction: discord.Interaction, nation: str) -> None:
        await run_command(interaction, "gm restore", nation=nation)

    @app_commands.command(name="house", description="Change a house setting for this game")
    @app_commands.describe(key="The house setting (see the list offered)", value="Its new value for this game")
    async def house(self, interaction: discord.Interaction, key: str, value: str) -> None:
        await run_command(interaction, "gm house", key=key, value=value)

    @house.autocomplete("key")
    async def house_keys(self, interaction: discord.Interaction, current: str) -> list[app_commands.Choice[str]]:
        """The house settings of this channel's game's rule set (Nations' without a game)."""
        state = await state_or_none(interaction)
        keys = self.bot.referee.rules_for(state.ruleset if state else "nations").house.as_dict()
        return [app_commands.Choice(name=f"{k} (default {v})", value=k) for k, v in keys.items()
                if current.lower() in k][:25]

    @app_commands.command(name="decide", description="Make a battle's pending choice (nothing given: the default)")
    @app_commands.describe(battle=BATTLE, units='Commit: the defender\'s unit numbers, e.g. "6 7"',
                           attacker="Pairing: the attacking unit's number",
                           defender="Pairing: the defending unit's number")
    @app_commands.autocomplete(battle=my_battle_autocomplete, units=commit_units_autocomplete,
                               attacker=pair_attacker_autocomplete, defender=pair_defender_autocomplete)
    async def decide(self, interaction: discord.Interaction, battle: int, units: str | None = None,
                     attacker: int | None = None, defender: int | None = None) -> None:
        await run_command(interaction, "gm decide", battle=battle, units=units, attacker=attacker, defender=defender)

    @battle.command(name="cancel", description="Stop a battle with no result")
    @app_commands.describe(battle=BATTLE)
    @app_commands.autocomplete(battle=my_battle_autocomplete)
    async def battle_cancel(self, interaction: discord.Interaction, battle: int) -> None:
        await run_command(interaction, "gm battle cancel", battle=battle)

    @app_commands.command(name="export", description="This game as a JSON file")
    async def export(self, interaction: discord.Interaction) -> None:
        await interaction.response.defer(ephemeral=True, thinking=True)
        data = await self.bot.referee.export(channel_key(interaction))
        payload = io.BytesIO(json.dumps(data, indent=2).encode())
        name = f"{data['game'].get('ruleset', 'nations')}-game.json"
        await interaction.followup.send("The game's export:", file=discord.File(payload, name), ephemeral=True)

    # --- God Dice --------------------------------------------------------------------------------

    @app_commands.command(name="life", description="Set a God Dice character's life (0 kills it)")
    @app_commands.describe(player="The player", character="One of that player's characters, living or dead",
                           life=f"The new life (0 to the character's full life, at most {MAX_LIFE})")
    @app_commands.autocomplete(player=player_autocomplete, character=any_character_autocomplete)
    async def life(self, interaction: discord.Interaction, player: str, character: str,
                   life: app_commands.Range[int, 0, MAX_LIFE]) -> None:
        await run_command(interaction, "gm life", answer=answer_move, player=player, character=character, life=life)

    @app_commands.command(name="cards", description="Load another God Dice card file (TOML) for this game")
    @app_commands.describe(file="A card file like the bot's data/goddice.toml")
    async def cards(self, interaction: discord.Interaction, file: discord.Attachment) -> None:
        await query_state(interaction, "gm cards")  # a God Dice game's, or refused with the reason
        if file.size > MAX_CARD_BYTES:
            raise BadInput(f"that file is too large for a card file ({file.size} bytes; at most {MAX_CARD_BYTES})")
        # Ephemeral, like /game import: a refusal (not TOML, not a valid card file) reaches the GM alone; the
        # change itself is announced to the channel.
        await interaction.response.defer(ephemeral=True, thinking=True)
        try:
            cards = tomllib.loads((await file.read()).decode("utf-8"))
        except (UnicodeDecodeError, tomllib.TOMLDecodeError, discord.HTTPException) as err:
            raise BadInput(f"cannot read {file.filename} as a card file (TOML): {err}") from None
        await run_action(interaction, LoadCards(cards), f"/gm cards file:{file.filename}", self.cards_loaded)

    @staticmethod
    async def cards_loaded(interaction: discord.Interaction, report: Report) -> None:
        """The GM's confirmation (ephemeral, in place of the deferral), then the change for the channel."""
        characters = ", ".join(safe(c.title) for c in report.state.cards.characters.values())
        await reply(interaction, f"Card file loaded: {characters}. /goddice cards shows them.", ephemeral=True)
        await reply(interaction, embeds=report_embeds(report.caught_up + report.events, report.state))


async def setup(bot: RefereeHost) -> None:
    await bot.add_cog(GM(bot))
