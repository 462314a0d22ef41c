"""The store's part that keeps each Discord server's own settings (`guild_settings`, migration 019): the role whose
members are GMs of every game in the server (/server gmrole)."""

from __future__ import annotations

from datetime import datetime

from data.store.encoding import _iso
from data.store.part import Part


class Guilds(Part):
    """The store's part that keeps the servers' own settings."""

    async def guild_gm_roles(self) -> dict[int, int]:
        """Every server's GM role set in the bot: server id → role id."""
        rows = await self._fetchall("SELECT guild_id, gm_role_id FROM guild_settings WHERE gm_role_id IS NOT NULL")
        return {int(row[0]): int(row[1]) for row in rows}

    async def guild_gm_role(self, guild_id: int) -> int | None:
        """The server's GM role set in the bot, or None."""
        rows = await self._fetchall("SELECT gm_role_id FROM guild_settings WHERE guild_id = ?", (guild_id,))
        return int(rows[0][0]) if rows and rows[0][0] is not None else None

    async def set_guild_gm_role(self, guild_id: int, role_id: int | None, now: datetime) -> None:
        """Set the server's GM role (None: clear it)."""
        await self._transaction(lambda con: con.execute(
            "INSERT INTO guild_settings (guild_id, gm_role_id, updated_at) VALUES (?, ?, ?)"
            " ON CONFLICT (guild_id) DO UPDATE SET gm_role_id = excluded.gm_role_id, updated_at = excluded.updated_at",
            (guild_id, role_id, _iso(now))))
