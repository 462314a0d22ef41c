"""How every slash command of the table runs on Discord: parse, check, call, render.

The options Discord gives are made what the table says (a member: its id; an attachment: an upload read on demand,
refused first when larger than the option allows); a slow command, a chart (or a board's picture), or one that reads
a file, is acknowledged before any of its work (privately when its answer is private, or a file is read: a refusal
of the file reaches its sender alone; a public one's refusal takes the acknowledgement back, `cogs.util.refuse`): the
request goes to the service (`service.dispatch`) and its reply is rendered (`cogs.answers`). A command the
front-end answers itself (`OWN`: /remind me, reminders by direct message; /server gmrole, a server's GM role) is
not the service's.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import discord

from cogs.answers import show
from cogs.commandsets import CHANGES
from cogs.remind import remind_me
from cogs.server import server_gmrole
from cogs.util import THINKING, bot_of, dispatcher, following, request
from engine.errors import BadInput
from engine.vocabulary import Command, File
from service.dispatch import Upload

Own = Callable[[discord.Interaction, dict[str, Any]], Awaitable[None]]
OWN: dict[str, Own] = {"remind me": remind_me, "server gmrole": server_gmrole}
"""The commands of the table Discord answers itself, by path."""


def upload(attachment: discord.Attachment, limit: int, what: str) -> Upload:
    """An attachment as the service reads it: refused at once when larger than `limit` bytes (`what`: what it
    should be, "a card file"); read when needed."""
    if attachment.size > limit:
        raise BadInput(f"that file is too large for {what} ({attachment.size} bytes; at most {limit})")

    async def read() -> bytes:
        try:
            return await attachment.read()
        except discord.HTTPException:
            raise BadInput(f"cannot download {attachment.filename} from Discord right now; try again") from None

    return Upload(attachment.filename, read)


async def run_slash(interaction: discord.Interaction, command: Command, given: dict[str, Any]) -> None:
    """One slash command of the table, as the interaction's user."""
    own = OWN.get(command.path)
    if own is not None:
        await own(interaction, given)
        return
    files = {p.name for p in command.params if p.kind is File}
    typed = {name: upload(value, int(next(p.high for p in command.params if p.name == name) or 0), command.file_what)
             if name in files and isinstance(value, discord.Attachment) else
             str(value.id) if isinstance(value, discord.abc.User) else value
             for name, value in given.items()}
    asked = request(interaction, command, typed)
    reading = any(name in files for name in typed)
    if command.slow or command.chart is not None or reading:  # (a chart: its history loaded, then drawn)
        private = command.private or reading
        await interaction.response.defer(ephemeral=private, thinking=True)
        if not private:
            interaction.extras[THINKING] = True
    async with following(interaction):
        await show(interaction, asked, await dispatcher(interaction).run(asked))
    if command.path in CHANGES:  # a game started, was imported or ended: the server's rule sets' commands follow
        bot_of(interaction).command_sets.changed(interaction.guild_id)
