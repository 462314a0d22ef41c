"""/gm: the game master's powers. Discord offers /gm to every member (no default permission: most play-by-post games
are run by ordinary members); the bot lets only the channel's game's GMs use it — its GM and co-GMs, and the server's
GMs (members with Manage Server, the server's GM role set with /server gmrole or named by GM_ROLE); the engine
checks each act again and logs who did it.

The /gm group and its subgroups are `GMGroup`s (`cogs.slash` builds them from the command table), whose check keeps
every command under them to the channel's game's GMs.
"""

from __future__ import annotations

import discord
from discord import app_commands

from cogs.util import actor, bot_of, channel_key, has_gm_role
from engine.errors import NoGame


async def gm_check(interaction: discord.Interaction) -> bool:
    """The channel's game's GMs only; with no game here, only the GM role or Manage Server (to import).

    A refusal is a CheckFailure: discord.py hands only AppCommandErrors to the tree's error handler."""
    if has_gm_role(interaction):
        return True
    referee = bot_of(interaction).referee
    try:  # the live game's GMs; with none, the last ended game's (to export it; the other powers need a live one)
        state = await referee.shown_state(channel_key(interaction))
    except NoGame:
        raise app_commands.CheckFailure("no game here: /game start or /game import makes you its GM (/gm is for a "
                                        "game's GM and co-GMs)") from None
    if referee.is_gm(state, actor(interaction)):
        return True
    raise app_commands.CheckFailure("only the game's GM or a co-GM may use /gm commands")


class GMGroup(app_commands.Group):
    """/gm, or a group under it: its commands run for the channel's game's GMs only (discord.py checks a
    command's own group)."""

    async def interaction_check(self, interaction: discord.Interaction) -> bool:
        return await gm_check(interaction)
