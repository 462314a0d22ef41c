"""/log rolls' pages on Discord: the page as an embed and its ◀ Newer / Older ▶ buttons, persistent controls
whose custom ids carry the game, the page and every filter, so they work after a restart:

    referee:log:<game>:<page>:<limit>:<turn_from>:<turn_to>:<g|->< i|o|x>:<len(who)>.<who><purpose>

(`g`: GM-entered dice only; `i`/`o`/`x`: free rolls included, only, excluded; the side's name length-prefixed,
the purpose the rest). A filter too long for Discord's 100 characters gets no buttons (`page:` still pages)."""

from __future__ import annotations

from typing import Any

import discord

from cogs.render import safe, who
from cogs.render.ledger import ledger_page_embed
from cogs.util import bot_of, channel_key
from cogs.views import guarded
from engine.errors import RuleViolation
from ledger import FREE, LedgerFilter, empty_text, ledger_page

MAX_CUSTOM_ID = 100
_FREE_CODE = dict(zip(FREE, "iox", strict=True))
_CODE_FREE = {code: free for free, code in _FREE_CODE.items()}


def page_custom_id(game_id: int, page: int, size: int, where: LedgerFilter) -> str:
    side = where.who or ""
    return (f"referee:log:{game_id}:{page}:{size}:{where.turn_from or ''}:{where.turn_to or ''}:"
            f"{'g' if where.gm_entered else '-'}{_FREE_CODE[where.free]}:{len(side)}.{side}{where.purpose or ''}")


def _title(where: LedgerFilter) -> tuple[str, str | None]:
    """The page's title and lead: a player (a Discord id) as a mention in the lead, a title renders none."""
    if where.who is None:
        return "Latest rolls", None
    if where.who.isdigit():
        return "Latest rolls", f"Rolls of {who(where.who)}:"
    return f"Rolls of {safe(where.who)}"[:256], None


def _channel_url(interaction: discord.Interaction) -> str | None:
    if interaction.guild_id is None or interaction.channel_id is None:
        return None
    return f"https://discord.com/channels/{interaction.guild_id}/{interaction.channel_id}"


async def ledger_answer(interaction: discord.Interaction, game_id: int, where: LedgerFilter, page: int,
                        size: int) -> tuple[discord.Embed, discord.ui.View | None]:
    """The embed of one page and its buttons (none when everything fits one page)."""
    shown = await ledger_page(bot_of(interaction).referee.store, game_id, where, page, size)
    title, lead = _title(where)
    embed = ledger_page_embed(shown, title, lead, empty_text(where), _channel_url(interaction))
    if shown.pages == 1:
        return embed, None
    view = discord.ui.View(timeout=None)
    for target, label in ((shown.page - 1, "◀ Newer"), (shown.page + 1, "Older ▶")):
        custom_id = page_custom_id(game_id, target, size, where)
        if len(custom_id) > MAX_CUSTOM_ID:
            return embed, None
        if 1 <= target <= shown.pages:
            view.add_item(PageButton(game_id, target, size, where, label))
    return embed, view


class PageButton(discord.ui.DynamicItem[discord.ui.Button],
                 template=r"referee:log:(?P<game>\d+):(?P<page>\d+):(?P<size>\d+):(?P<t0>\d*):(?P<t1>\d*):"
                          r"(?P<gm>[g-])(?P<free>[iox]):(?P<n>\d+)\.(?P<rest>.*)"):
    """One step through /log rolls' pages: edits the message in place, for anyone who clicks."""

    def __init__(self, game_id: int, page: int, size: int, where: LedgerFilter, label: str = "Page",
                 button: discord.ui.Button | None = None) -> None:
        self.game_id, self.page, self.size, self.where = game_id, page, size, where
        super().__init__(button or discord.ui.Button(label=label, style=discord.ButtonStyle.secondary,
                                                     custom_id=page_custom_id(game_id, page, size, where)))

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction, item: discord.ui.Button,
                             match: Any) -> PageButton:
        n, rest = int(match["n"]), match["rest"]
        where = LedgerFilter(rest[:n] or None, rest[n:] or None, int(match["t0"]) if match["t0"] else None,
                             int(match["t1"]) if match["t1"] else None, match["gm"] == "g", _CODE_FREE[match["free"]])
        return cls(int(match["game"]), int(match["page"]), int(match["size"]), where, button=item)

    async def callback(self, interaction: discord.Interaction) -> None:
        async def work() -> None:
            if await bot_of(interaction).referee.shown_game_id(channel_key(interaction)) != self.game_id:
                raise RuleViolation("that ledger belongs to an earlier game in this channel: ask /log rolls again")
            embed, view = await ledger_answer(interaction, self.game_id, self.where, self.page, self.size)
            await interaction.response.edit_message(embed=embed, view=view)

        await guarded(interaction, work)


DYNAMIC_ITEMS = (PageButton,)
