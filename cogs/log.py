"""/log: what every player can check — `/log rolls` pages the roll ledger with filters (each page an embed),
`/log export` sends it whole as a CSV or JSON file (`ledger.write_ledger`), `/log fairness` sets the game's dice
against a fair die (`engine.fairness`), `/log gm` lists the GM's acts with before → after (`gmlog`) and `/log game`
tells the story of a turn (`story`). `cogs.ledger`'s buttons step through /log rolls' and /log gm's pages and
/log game's turns."""

from __future__ import annotations

import asyncio
import tempfile

import discord
from discord import app_commands
from discord.ext import commands

from cogs.frontends import adapter_of
from cogs.host import RefereeHost
from cogs.ledger import gm_log_answer, ledger_answer, story_answer
from cogs.render import safe, text_embeds, timestamped
from cogs.util import about, channel_key, described, reply, state_or_none
from engine.errors import BadInput
from engine.fairness import DieFairness, fairness_lines, game_fairness
from service.ledger import MAX_PAGE, MAX_PAGE_SIZE, MAX_PURPOSE, filter_for, write_ledger


async def whose_autocomplete(interaction: discord.Interaction, current: str) -> list[app_commands.Choice[str]]:
    """The sides of the channel's game, as its rule set offers them (the nations of a Nations game, the players
    of a God Dice game); nothing without a game."""
    state = await state_or_none(interaction)
    complete = adapter_of(state).whose_autocomplete if state is not None else None
    return await complete(interaction, current) if complete is not None else []


class Log(commands.Cog):
    log = app_commands.guild_only(app_commands.Group(name="log", description="the roll ledger: its pages and files"))

    def __init__(self, bot: RefereeHost) -> None:
        self.bot = bot

    @log.command(name="rolls", description=about("log rolls"))
    @described("log rolls")
    @app_commands.autocomplete(nation=whose_autocomplete)
    @app_commands.choices(free=[app_commands.Choice(name=f, value=f) for f in ("include", "only", "exclude")])
    async def rolls(self, interaction: discord.Interaction, nation: app_commands.Range[str, 1, 100] | None = None,
                    purpose: app_commands.Range[str, 1, MAX_PURPOSE] | None = None,
                    turn_from: app_commands.Range[int, 1, 100_000] | None = None,
                    turn_to: app_commands.Range[int, 1, 100_000] | None = None,
                    gm_entered: bool = False, free: str = "include",
                    page: app_commands.Range[int, 1, MAX_PAGE] = 1,
                    limit: app_commands.Range[int, 1, MAX_PAGE_SIZE] = 10) -> None:
        game_id, where = await filter_for(self.bot.referee, channel_key(interaction), who=nation, purpose=purpose,
                                          turn_from=turn_from, turn_to=turn_to, gm_entered=gm_entered, free=free)
        embed, view = await ledger_answer(interaction, game_id, where, page, limit)
        await reply(interaction, embed=embed, view=view)

    @log.command(name="export", description=about("log export"))
    @app_commands.describe(format="csv (for a spreadsheet: one row a die) or json")
    @app_commands.choices(format=[app_commands.Choice(name=f, value=f) for f in ("csv", "json")])
    async def export(self, interaction: discord.Interaction, format: str) -> None:
        game_id = await self.bot.referee.shown_game_id(channel_key(interaction))
        await interaction.response.defer(ephemeral=True, thinking=True)
        with tempfile.TemporaryFile() as handle:  # written a chunk at a time in a thread: the bot keeps answering
            count = await write_ledger(self.bot.referee.store, game_id, format, handle)
            size = handle.tell()
            most = interaction.guild.filesize_limit if interaction.guild is not None else 10 * 1024 * 1024
            if size > most:
                raise BadInput(f"the ledger's {format.upper()} is {size / 2**20:.1f} MB, more than this server's "
                               f"upload limit of {most / 2**20:.0f} MB: the console's /log export writes it whole")
            handle.seek(0)
            said = f"The roll ledger: {count} roll{'' if count == 1 else 's'}."
            await interaction.followup.send(said, file=discord.File(handle, f"roll-ledger.{format}"), ephemeral=True)

    @log.command(name="gm", description=about("log gm"))
    @described("log gm")
    async def gm(self, interaction: discord.Interaction, page: app_commands.Range[int, 1, MAX_PAGE] = 1) -> None:
        """Every GM act with who, when and before → after, for every player to see (`gmlog`), a page at a time with
        ◀ Newer / Older ▶ buttons (`cogs.ledger`)."""
        game_id = await self.bot.referee.shown_game_id(channel_key(interaction))
        embed, view = await gm_log_answer(interaction, game_id, page)
        await reply(interaction, embed=embed, view=view)

    @log.command(name="game", description=about("log game"))
    @described("log game")
    async def game(self, interaction: discord.Interaction,
                   turn: app_commands.Range[int, 1, 1_000_000] | None = None) -> None:
        """The story of a turn (`story`), players as mentions, moments as timestamps; long stories split over
        messages, the first with ◀ Previous turn / Next turn ▶ buttons (`cogs.ledger`)."""
        game_id = await self.bot.referee.shown_game_id(channel_key(interaction))
        embeds, view = await story_answer(interaction, game_id, turn)
        await reply(interaction, embeds=embeds, view=view)

    @log.command(name="fairness", description=about("log fairness"))
    async def fairness(self, interaction: discord.Interaction) -> None:
        """Each kind of die face by face against a fair die (`engine.fairness`), counted off the event loop: the
        first test loads scipy, and a long ledger takes a moment to count."""
        game_id = await self.bot.referee.shown_game_id(channel_key(interaction))
        state = await self.bot.referee.store.load(game_id)
        rolls = await self.bot.referee.store.rolls(game_id, include_free=False)
        judged = await asyncio.to_thread(game_fairness, state, rolls)
        await reply(interaction, embed=fairness_embed(judged))


def fairness_embed(judged: list[DieFairness]) -> discord.Embed:
    """/log fairness: each kind of die's verdict in bold, then its faces (rolled/fair share, the GM's apart)."""
    verdicts = range(0, 2 * len(judged), 2)  # `fairness_lines`: each die's verdict, then its faces; a note last
    lines = [f"**{safe(line)}**" if index in verdicts else safe(line.strip())
             for index, line in enumerate(fairness_lines(judged))]
    return timestamped(text_embeds(lines, "🎲 Are the dice fair?"))[0]


async def setup(bot: RefereeHost) -> None:
    await bot.add_cog(Log(bot))
