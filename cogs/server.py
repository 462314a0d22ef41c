"""/server gmrole: the role whose members are GMs of every game in a server, set in the bot by a member who manages
the server (Discord offers /server to them by default; the bot checks again). Kept per server in the store
(`guild_settings`) and, while the bot runs, in the `ServerRoles` cog, which `cogs.util.has_gm_role` reads: a server's
interactions all reach the one process that has its shard, the one that sets its role.

The console has no servers: its command table row refuses /server gmrole (`engine.commands.SERVER_ON_DISCORD`).
"""

from __future__ import annotations

from typing import Any

import discord
from discord.ext import commands

from cogs.host import RefereeHost
from cogs.util import SERVER_ROLES_COG, bot_of, reply
from engine.errors import BadInput, NotGM


class ServerRoles(commands.Cog, name=SERVER_ROLES_COG):
    """Each server's GM role set with /server gmrole (server id → role id), read from the store when loaded."""

    def __init__(self, bot: RefereeHost) -> None:
        self.bot = bot
        self.roles: dict[int, int] = {}

    async def cog_load(self) -> None:
        self.roles = await self.bot.store.guild_gm_roles()


def _roles(bot: RefereeHost) -> dict[int, int]:
    """The loaded cog's roles (by name: the extension's module may be another copy of this one)."""
    roles = getattr(bot.get_cog(SERVER_ROLES_COG), "roles", None)
    if not isinstance(roles, dict):
        raise RuntimeError("the ServerRoles cog is not loaded")
    return roles


def _role_text(guild: discord.Guild | None, role_id: int | None) -> str:
    if role_id is None:
        return "none set in the bot"
    role = guild.get_role(role_id) if guild is not None else None
    return role.mention if role is not None else f"a role that no longer exists (id {role_id})"


async def server_gmrole(interaction: discord.Interaction, given: dict[str, Any]) -> None:
    """/server gmrole [role:] [clear:true]: set, clear or see the server's GM role. Manage Server only."""
    member = interaction.user
    if interaction.guild_id is None or not isinstance(member, discord.Member):
        raise BadInput("a server's GM role is set in a server channel")
    if not member.guild_permissions.manage_guild:
        raise NotGM("only a member with Manage Server may set the server's GM role")
    role, clear = given.get("role"), bool(given.get("clear"))
    if role is not None and clear:
        raise BadInput("give role: to set the GM role, or clear:true to clear it, not both")
    if role is not None and not isinstance(role, discord.Role):
        raise BadInput("role: is one of this server's roles")
    if isinstance(role, discord.Role) and role.is_default():
        raise BadInput("@everyone cannot be the GM role: every member would be a GM of every game")
    bot = bot_of(interaction)
    roles = _roles(bot)
    guild_id = interaction.guild_id
    if role is None and not clear:
        await reply(interaction, "This server's GM role: "
                    f"{_role_text(interaction.guild, roles.get(guild_id))}. Its members, and members with Manage "
                    "Server, are GMs of every game here (/server gmrole role:@Role sets it, clear:true clears it).",
                    ephemeral=True)
        return
    new = role.id if isinstance(role, discord.Role) else None
    await bot.store.set_guild_gm_role(guild_id, new, bot.referee.clock())
    if new is None:
        roles.pop(guild_id, None)
        text = ("✅ This server's GM role is cleared: game GMs and co-GMs, and members with Manage Server, run games "
                "here.")
    else:
        roles[guild_id] = new
        text = (f"✅ This server's GM role is now {_role_text(interaction.guild, new)}: its members are GMs of every "
                "game here.")
    await reply(interaction, text, ephemeral=True)



async def setup(bot: RefereeHost) -> None:
    await bot.add_cog(ServerRoles(bot))
