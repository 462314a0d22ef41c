"""/gm life|cards for a God Dice game. The commands join the shared /gm group (`cogs.gm.GMPowers`), whose check
keeps them to the game's GMs."""

from __future__ import annotations

import discord
from discord import app_commands

from cogs.gm import GMPowers
from cogs.goddice.cog import any_character_autocomplete, player_autocomplete
from cogs.goddice.views import answer_move
from cogs.host import RefereeHost
from cogs.render import report_embeds, safe
from cogs.util import about, described, query_state, read_toml, reply, run_action, run_command
from engine.commands import MAX_TOML_FILE
from engine.goddice.actions import LoadCards
from engine.goddice.cards import MAX_LIFE
from service.referee import Report


class GoddiceGM(GMPowers):
    @app_commands.command(name="life", description=about("gm life"))
    @described("gm life")
    @app_commands.autocomplete(player=player_autocomplete, character=any_character_autocomplete)
    async def life(self, interaction: discord.Interaction, player: str, character: str,
                   life: app_commands.Range[int, 0, MAX_LIFE]) -> None:
        await run_command(interaction, "gm life", answer=answer_move, player=player, character=character, life=life)

    @app_commands.command(name="cards", description=about("gm cards"))
    @app_commands.describe(file="A card file like the bot's data/goddice.toml")
    async def cards(self, interaction: discord.Interaction, file: discord.Attachment) -> None:
        await query_state(interaction, "gm cards")  # a God Dice game's, or refused with the reason
        if file.size <= MAX_TOML_FILE:
            # Ephemeral, like /game import: a refusal (not TOML, not a valid card file) reaches the GM alone; the
            # change itself is announced to the channel.
            await interaction.response.defer(ephemeral=True, thinking=True)
        cards = await read_toml(file, MAX_TOML_FILE, "a card file")
        await run_action(interaction, LoadCards(cards), f"/gm cards file:{file.filename}", self.cards_loaded)

    @staticmethod
    async def cards_loaded(interaction: discord.Interaction, report: Report) -> None:
        """The GM's confirmation (ephemeral, in place of the deferral), then the change for the channel."""
        characters = ", ".join(safe(c.title) for c in report.state.cards.characters.values())
        await reply(interaction, f"Card file loaded: {characters}. /goddice cards shows them.", ephemeral=True)
        await reply(interaction, embeds=report_embeds(report.caught_up + report.events, report.state))


async def setup(bot: RefereeHost) -> None:
    await bot.add_cog(GoddiceGM(bot))
