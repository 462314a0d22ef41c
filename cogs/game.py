"""/game start|status|end and /help."""

from __future__ import annotations

import discord
from discord import app_commands
from discord.ext import commands

from cogs.host import RefereeHost
from cogs.render import COLOUR, report_embeds, status_embed
from cogs.util import (
    actor,
    channel_key,
    choice_list,
    command_text,
    game_state,
    given_options,
    publish,
    reply,
)
from cogs.views import confirm_view
from engine.commands import help_groups, help_lines

RULESETS = choice_list("game start", "ruleset")
HELP_TOPICS = [app_commands.Choice(name=word, value=word) for word in help_groups()][:25]


@app_commands.guild_only()
class Game(commands.GroupCog, group_name="game", group_description="Start, follow and end this channel's game"):
    def __init__(self, bot: RefereeHost) -> None:
        self.bot = bot

    @app_commands.command(name="start", description="Start a game in this channel; you are its GM")
    @app_commands.describe(
        ruleset="The rule set: nations (default), goddice or godsfire",
        turn_hours="How long a turn lasts, in hours (default 12)",
        options='God Dice optional rules agreed now, e.g. "campaign resurrection free_for_all"',
    )
    @app_commands.choices(ruleset=RULESETS)
    async def start(self, interaction: discord.Interaction, ruleset: str | None = None,
                    turn_hours: app_commands.Range[float, 0.1, 336.0] | None = None,
                    options: str | None = None) -> None:
        # `ruleset` is a plain str, not a Choice: a value this bot does not know (a command registered by
        # another version of it) reaches the referee, which refuses it with the rule sets it has.
        given = given_options(ruleset=ruleset, turn_hours=turn_hours, options=options)
        report = await self.bot.referee.start_game(channel_key(interaction), actor(interaction), turn_hours,
                                                   guild_id=interaction.guild_id,
                                                   command=command_text("game start", given),
                                                   ruleset_name=ruleset or "nations", options=options)
        await reply(interaction, embeds=report_embeds(report.events, report.state))
        await publish(interaction, report)

    @app_commands.command(name="status", description="Where this channel's game stands")
    async def status(self, interaction: discord.Interaction) -> None:
        await reply(interaction, embed=status_embed(await game_state(interaction), self.bot.referee.rules))

    @app_commands.command(name="end", description="End this game (GM; asks to confirm)")
    async def end(self, interaction: discord.Interaction) -> None:
        game_id = await self.bot.referee.game_id(channel_key(interaction))
        await reply(interaction, "End this game for good? Its log and export stay in the database.",
                    view=confirm_view("end", game_id, interaction.user.id), ephemeral=True)


class Help(commands.Cog):
    def __init__(self, bot: RefereeHost) -> None:
        self.bot = bot

    @app_commands.guild_only()
    @app_commands.command(name="help", description="The referee's command groups, or one group's commands")
    @app_commands.describe(topic="A command group (none: the list of groups)")
    @app_commands.choices(topic=HELP_TOPICS)
    async def help(self, interaction: discord.Interaction, topic: str | None = None) -> None:
        title, lines = help_lines(topic)
        shown = [_code(line) for line in lines]
        guide = "How to play each game, and every ruling: the README and docs/ of the referee's repository."
        embed = discord.Embed(title=title, description="\n".join([*shown, "", guide])[:4000], colour=COLOUR)
        await reply(interaction, embed=embed, ephemeral=True)


def _code(line: str) -> str:
    """`/economy grow` — …: the command part as code."""
    command, sep, rest = line.partition(" — ")
    head, colon, names = command.partition(": ")
    if colon and not sep:  # a group: "/economy: grow, military"
        return f"`/{head.lstrip('/')}` — {names}"
    return f"`{command}`{sep}{rest}"


async def setup(bot: RefereeHost) -> None:
    await bot.add_cog(Game(bot))
    await bot.add_cog(Help(bot))
