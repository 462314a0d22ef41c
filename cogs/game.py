"""/game start|status|list|digest|chart|page|end|import."""

from __future__ import annotations

import discord
from discord import app_commands
from discord.ext import commands

from cogs.charts import send_chart
from cogs.host import RefereeHost
from cogs.render import digest_embeds, line_text, report_embeds, results_embed, safe, status_embed, text_embeds
from cogs.util import (
    about,
    actor,
    channel_id_of,
    channel_key,
    command_text,
    described,
    given_options,
    has_gm_role,
    offer_choices,
    publish,
    reply,
)
from cogs.views import confirm_view
from engine.commands import choices
from engine.errors import BadInput
from engine.rulesets import default_ruleset, ruleset_of
from service.referee import (
    GAME_OVER,
    MAX_EXPORT_BYTES,
    MAX_LISTED,
    NO_PAGES,
    PAGE_ABOUT,
    GameList,
    imported_summary,
    read_export,
)

MAX_IMPORT_BYTES = MAX_EXPORT_BYTES
NO_GAMES = "No game is running in this server: /game start starts one in a channel."


def game_list_embeds(listed: GameList) -> list[discord.Embed]:
    """/game list: one line a game, its channel as a link, then how many more there are than were shown."""
    lines = []
    for key, shown in listed.games:
        channel = channel_id_of(key)
        lines.append(f"• {f'<#{channel}>' if channel is not None else safe(key)} — {line_text(shown)}")
    if listed.more:
        lines.append(f"…and {listed.more} more (at most {MAX_LISTED} are shown).")
    return text_embeds(lines or [NO_GAMES], f"Games running in this server: {listed.count}")


@app_commands.guild_only()
class Game(commands.GroupCog, group_name="game", group_description="Start, follow and end this channel's game"):
    def __init__(self, bot: RefereeHost) -> None:
        self.bot = bot
        # The rule sets registered now (a test may have registered one since this module was imported).
        offer_choices(self.start, "ruleset", list(choices("game start", "ruleset")))

    @app_commands.command(name="start", description=about("game start"))
    @described("game start")
    @app_commands.choices(ruleset=[app_commands.Choice(name=name, value=name)
                                   for name in choices("game start", "ruleset")])
    async def start(self, interaction: discord.Interaction, ruleset: str | None = None,
                    turn_hours: app_commands.Range[float, 0.1, 336.0] | None = None,
                    options: str | None = None) -> None:
        # `ruleset` is a plain str, not a Choice: a value this bot does not know (a command registered by
        # another version of it) reaches the referee, which refuses it with the rule sets it has.
        given = given_options(ruleset=ruleset, turn_hours=turn_hours, options=options)
        report = await self.bot.referee.start_game(channel_key(interaction), actor(interaction), turn_hours,
                                                   guild_id=interaction.guild_id,
                                                   command=command_text("game start", given),
                                                   ruleset_name=ruleset or default_ruleset().name, options=options)
        await reply(interaction, embeds=report_embeds(report.events, report.state))
        await publish(interaction, report)

    @app_commands.command(name="status", description=about("game status"))
    async def status(self, interaction: discord.Interaction) -> None:
        state = await self.bot.referee.shown_state(channel_key(interaction))  # no live game: the last one, over
        await reply(interaction, GAME_OVER if state.ended else None,
                    embed=status_embed(state, self.bot.referee.rules_for(state.ruleset)))

    @app_commands.command(name="list", description=about("game list"))
    async def list_games(self, interaction: discord.Interaction) -> None:
        # Anyone may list; the answer is ephemeral: its order is the caller's (their games as GM first), and a
        # list of every game posted in a game's channel would interrupt the play there and go stale at once.
        channel_key(interaction)  # in a server, not in direct messages
        listed = await self.bot.referee.game_list(actor(interaction), interaction.guild_id)
        await reply(interaction, embeds=game_list_embeds(listed), ephemeral=True)

    @app_commands.command(name="digest", description=about("game digest"))
    @described("game digest")
    async def digest(self, interaction: discord.Interaction,
                     since: app_commands.Range[str, 1, 40] | None = None) -> None:
        digest = await self.bot.referee.digest(channel_key(interaction), actor(interaction), since,
                                               gm_role=has_gm_role(interaction))
        await reply(interaction, embeds=digest_embeds(digest))
        if digest.caught_up is not None and digest.caught_up.events:
            await publish(interaction, digest.caught_up)

    @app_commands.command(name="chart", description=about("game chart"))
    async def chart(self, interaction: discord.Interaction) -> None:
        await send_chart(interaction, "game chart", {})

    @app_commands.command(name="page", description=about("game page"))
    async def page(self, interaction: discord.Interaction) -> None:
        # Ephemeral: the link is a secret (whoever has it reads the page); the one who asked shares it as they see
        # fit. In <…>: Discord shows no preview of it (its crawler would fetch the page).
        pages = self.bot.pages
        if pages is None:
            raise BadInput(NO_PAGES)
        channel = channel_key(interaction)
        link = pages.url(await self.bot.referee.page_token(channel))
        ended = (await self.bot.referee.store.live_game(channel)) is None
        said = "This channel's last game, ended: its page stays readable." if ended else "This game's page:"
        await reply(interaction, f"{said} <{link}>\n{PAGE_ABOUT}", ephemeral=True)

    @app_commands.command(name="end", description=about("game end"))
    async def end(self, interaction: discord.Interaction) -> None:
        channel = channel_key(interaction)
        game_id = await self.bot.referee.game_id(channel)
        # The standings it will post (its rule set's final results, as the game stands now), then End or Cancel.
        state = await self.bot.referee.state(channel)
        final = ruleset_of(state).final_standings
        shown = results_embed(state, final(state)) if final is not None else None
        said = "End this game for good? Its log and export stay in the database."
        await reply(interaction, said + (" These are the final standings it will post:" if shown else ""),
                    embeds=[shown] if shown is not None else [], ephemeral=True,
                    view=confirm_view("end", game_id, interaction.user.id))

    @app_commands.command(name="import", description=about("game import"))
    @app_commands.describe(file="A JSON export of a game (from /gm export)")
    async def import_game(self, interaction: discord.Interaction, file: discord.Attachment) -> None:
        if file.size > MAX_IMPORT_BYTES:
            raise BadInput(f"that file is too large ({file.size} bytes; at most {MAX_IMPORT_BYTES})")
        # Ephemeral: a refusal below (bad JSON, not an export) must reach the importer alone; the channel
        # sees the imported game in its pinned status message.
        await interaction.response.defer(ephemeral=True, thinking=True)
        try:
            raw = await file.read()
        except discord.HTTPException:
            raise BadInput(f"cannot download {safe(file.filename)} from Discord right now; try again") from None
        try:
            data = read_export(raw)  # size, UTF-8, JSON and nesting; what it holds is checked by the import
        except BadInput as err:
            raise BadInput(f"cannot read {safe(file.filename)} as JSON: {err}") from None
        report = await self.bot.referee.import_game(channel_key(interaction), actor(interaction), data,
                                                    guild_id=interaction.guild_id,
                                                    command=f"/game import file:{file.filename}")
        await reply(interaction, imported_summary(report.state, safe(file.filename)) + ".")
        await publish(interaction, report)


async def setup(bot: RefereeHost) -> None:
    await bot.add_cog(Game(bot))
