"""/game chart and /nation chart on Discord: the chart the command table describes (`Command.chart`), drawn in
the chart worker (`charts.render`) and posted as a PNG — a board's picture (a rule set's map) likewise, named by its
`file_name`. Players are their Discord ids in the game: on the picture they are their server names."""

from __future__ import annotations

import asyncio
import contextlib
import io
from collections.abc import Callable

import discord

from cogs.host import RefereeHost
from cogs.render import USER_ID, safe
from cogs.util import reply
from engine.chartspec import Chart
from engine.mapspec import MapPicture
from service import charts

MAX_LOOKUPS = 25  # players looked up by id for one chart (the others are shown by the end of their id)
LOOKUP_TIMEOUT = 5.0  # seconds the lookups of one chart may take in all


async def send_chart(interaction: discord.Interaction, drawn: Chart | MapPicture) -> None:
    """Post a chart (or a board's picture) for the channel (acknowledged before its history was loaded,
    `cogs.run`; its options were checked: a refusal changed nothing and was seen only by the asker), drawn off the
    event loop, players by their names in this server."""
    if not interaction.response.is_done():
        await interaction.response.defer(thinking=True)
    sides = charts.sides(drawn)
    names = await display_names(interaction, {m.group() for side in sides for m in USER_ID.finditer(side)})
    text, file = await drawn_message(drawn, lambda user_id: names.get(user_id, user_id))
    await reply(interaction, text, file=file)


async def drawn_message(drawn: Chart | MapPicture, name: Callable[[str], str]) -> tuple[str, discord.File]:
    """A picture's message: its mark and title, and the PNG drawn in the chart worker with every player id named
    by `name`."""
    shown = charts.relabel(drawn, lambda side: USER_ID.sub(lambda m: name(m.group()), side))
    png = await charts.render(shown)
    mark = "🗺️" if isinstance(drawn, MapPicture) else "📈"
    return f"{mark} {safe(shown.title)}", discord.File(io.BytesIO(png), drawn.file_name)


async def post_picture(bot: RefereeHost, channel: discord.abc.Messageable, guild_id: int | None,
                       drawn: Chart | MapPicture) -> None:
    """Post a picture for the channel outside any interaction (the clock, a prompt's follow-up): players by the
    names the bot knows (its cache), else by the end of their id."""
    guild = bot.get_guild(guild_id) if guild_id else None

    def name(text: str) -> str:
        user = (guild.get_member(int(text)) if guild is not None else None) or bot.get_user(int(text))
        return user.display_name if user is not None else f"player …{text[-4:]}"

    text, file = await drawn_message(drawn, name)
    await channel.send(text, file=file, allowed_mentions=discord.AllowedMentions.none())


async def display_names(interaction: discord.Interaction, ids: set[str]) -> dict[str, str]:
    """Each player id's name in this server (the member's display name, else the user's name), looked up from the
    cache, then from Discord for at most MAX_LOOKUPS of them; one not found is shown as "player …1234"."""
    names: dict[str, str] = {}
    missing = []
    for text in sorted(ids):
        user_id = int(text)
        member = interaction.guild.get_member(user_id) if interaction.guild is not None else None
        user = member or interaction.client.get_user(user_id)
        if user is not None:
            names[text] = user.display_name
        else:
            missing.append(text)

    async def look_up(text: str) -> None:
        if interaction.guild is not None:
            with contextlib.suppress(discord.HTTPException):
                names[text] = (await interaction.guild.fetch_member(int(text))).display_name

    if missing:
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(asyncio.gather(*(look_up(t) for t in missing[:MAX_LOOKUPS])), LOOKUP_TIMEOUT)
    return {text: names.get(text, f"player …{text[-4:]}") for text in ids}
