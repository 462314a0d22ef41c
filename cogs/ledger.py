"""/log's paged answers on Discord and their buttons, persistent controls whose custom ids carry everything the
answer needs, so they work after a restart; a click from anyone edits the message in place (re-reading the store),
and a click on the answer of an earlier game of the channel is refused in one line, ephemeral.

- /log rolls' pages (an embed each) and their ◀ Newer / Older ▶ buttons, the game, the page and every filter:

      referee:log:<game>:<page>:<limit>:<turn_from>:<turn_to>:<g|->< i|o|x>:<len(who)>.<who><purpose>

  (`g`: GM-entered dice only; `i`/`o`/`x`: free rolls included, only, excluded; the side's name length-prefixed,
  the purpose the rest). A filter too long for Discord's 100 characters gets no buttons (`page:` still pages).
- /log gm's pages and their ◀ Newer / Older ▶ buttons (disabled at the ends): `referee:log:gm:<game>:<page>`.
- /log game's story of a turn and its ◀ Previous turn / Next turn ▶ buttons (disabled at the first and the last
  turn): `referee:log:game:<game>:<turn>`. A story longer than a message is told as /log game tells it, over as
  many messages as it needs: a click then answers with new messages (the first with the buttons) rather than
  an edit.

A disabled button's custom id names the page (turn) shown: ids stay unique in a message and in range."""

from __future__ import annotations

from typing import Any

import discord

from cogs.controls import guarded
from cogs.render import safe, who
from cogs.render.common import marked_when, message_batches
from cogs.render.ledger import gm_log_embed, jump_url, ledger_page_embed, story_embeds
from cogs.util import bot_of, channel_key, matched, reply
from engine.errors import RuleViolation
from service.gmlog import gm_page
from service.ledger import FREE, LedgerFilter, LedgerPage, empty_text, ledger_page
from service.story import Story, game_story

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


def _links(interaction: discord.Interaction, shown: LedgerPage) -> list[str | None]:
    """Each roll's link to the message that announced it, when one was recorded (migration 013)."""
    guild = interaction.guild_id
    return [None if guild is None or m is None or (channel := m.channel_id or interaction.channel_id) is None
            else jump_url(guild, channel, m.message_id) for m in shown.messages]


async def ledger_answer(interaction: discord.Interaction, game_id: int, where: LedgerFilter, page: int,
                        size: int, shown: LedgerPage | None = None) -> tuple[discord.Embed, discord.ui.View | None]:
    """The embed of one page (`shown`, else read now) and its buttons (none when everything fits one page)."""
    if shown is None:
        shown = await ledger_page(bot_of(interaction).referee.store, game_id, where, page, size)
    title, lead = _title(where)
    embed = ledger_page_embed(shown, title, lead, empty_text(where), _channel_url(interaction),
                              _links(interaction, shown))
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
    async def from_custom_id(cls, interaction: discord.Interaction, item: discord.ui.Item[Any],
                             match: Any) -> PageButton:
        n, rest = int(match["n"]), match["rest"]
        where = LedgerFilter(rest[:n] or None, rest[n:] or None, int(match["t0"]) if match["t0"] else None,
                             int(match["t1"]) if match["t1"] else None, match["gm"] == "g", _CODE_FREE[match["free"]])
        return cls(int(match["game"]), int(match["page"]), int(match["size"]), where,
                   button=matched(item, discord.ui.Button))

    async def callback(self, interaction: discord.Interaction) -> None:
        async def work() -> None:
            await check_shown(interaction, self.game_id, "ledger", "/log rolls")
            embed, view = await ledger_answer(interaction, self.game_id, self.where, self.page, self.size)
            await interaction.response.edit_message(embed=embed, view=view)

        await guarded(interaction, work)


async def check_shown(interaction: discord.Interaction, game_id: int, what: str, command: str) -> None:
    """A click on an answer about an earlier game of the channel (another game runs or ended since) is refused."""
    if await bot_of(interaction).referee.shown_game_id(channel_key(interaction)) != game_id:
        raise RuleViolation(f"that {what} belongs to an earlier game in this channel: ask {command} again")


def step_view(buttons: list[discord.ui.Item[Any]]) -> discord.ui.View:
    view = discord.ui.View(timeout=None)
    for button in buttons:
        view.add_item(button)
    return view


# --- /log gm ----------------------------------------------------------------------------------------------


def gm_page_custom_id(game_id: int, page: int) -> str:
    return f"referee:log:gm:{game_id}:{page}"


async def gm_log_answer(interaction: discord.Interaction, game_id: int,
                        page: int) -> tuple[discord.Embed, discord.ui.View | None]:
    """The embed of one page of the GM's log and its buttons (none when everything fits one page)."""
    shown, lines = await gm_page(bot_of(interaction).referee.store, game_id, page, when=marked_when)
    embed = gm_log_embed(shown, lines)
    if shown.pages == 1:
        return embed, None
    return embed, step_view([GmPageButton(game_id, shown.page - 1 or shown.page, "◀ Newer", shown.page == 1),
                             GmPageButton(game_id, min(shown.page + 1, shown.pages), "Older ▶",
                                          shown.page == shown.pages)])


class GmPageButton(discord.ui.DynamicItem[discord.ui.Button], template=r"referee:log:gm:(?P<game>\d+):(?P<page>\d+)"):
    """One step through /log gm's pages: edits the message in place, for anyone who clicks."""

    def __init__(self, game_id: int, page: int, label: str = "Page", disabled: bool = False,
                 button: discord.ui.Button | None = None) -> None:
        self.game_id, self.page = game_id, page
        super().__init__(button or discord.ui.Button(label=label, style=discord.ButtonStyle.secondary,
                                                     custom_id=gm_page_custom_id(game_id, page), disabled=disabled))

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction, item: discord.ui.Item[Any],
                             match: Any) -> GmPageButton:
        return cls(int(match["game"]), int(match["page"]), button=matched(item, discord.ui.Button))

    async def callback(self, interaction: discord.Interaction) -> None:
        async def work() -> None:
            await check_shown(interaction, self.game_id, "GM's log", "/log gm")
            embed, view = await gm_log_answer(interaction, self.game_id, self.page)
            await interaction.response.edit_message(embed=embed, view=view)

        await guarded(interaction, work)


# --- /log game --------------------------------------------------------------------------------------------


def turn_custom_id(game_id: int, turn: int) -> str:
    return f"referee:log:game:{game_id}:{turn}"


async def story_answer(interaction: discord.Interaction, game_id: int, turn: int | None,
                       told: Story | None = None) -> tuple[list[discord.Embed], discord.ui.View | None]:
    """The embeds of one turn's story (`told`, else told now) and its buttons (none while the game has had one
    turn)."""
    if told is None:
        told = await game_story(bot_of(interaction).referee, game_id, turn)
    embeds = story_embeds(told)
    if told.current == 1:
        return embeds, None
    return embeds, step_view([TurnButton(game_id, told.turn - 1 or told.turn, "◀ Previous turn", told.turn == 1),
                              TurnButton(game_id, min(told.turn + 1, told.current), "Next turn ▶",
                                         told.turn == told.current)])


class TurnButton(discord.ui.DynamicItem[discord.ui.Button], template=r"referee:log:game:(?P<game>\d+):(?P<turn>\d+)"):
    """One step through /log game's turns: edits the message in place, for anyone who clicks; a story longer than
    a message is told anew over as many messages as it needs (as /log game tells it)."""

    def __init__(self, game_id: int, turn: int, label: str = "Turn", disabled: bool = False,
                 button: discord.ui.Button | None = None) -> None:
        self.game_id, self.turn = game_id, turn
        super().__init__(button or discord.ui.Button(label=label, style=discord.ButtonStyle.secondary,
                                                     custom_id=turn_custom_id(game_id, turn), disabled=disabled))

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction, item: discord.ui.Item[Any],
                             match: Any) -> TurnButton:
        return cls(int(match["game"]), int(match["turn"]), button=matched(item, discord.ui.Button))

    async def callback(self, interaction: discord.Interaction) -> None:
        async def work() -> None:
            await check_shown(interaction, self.game_id, "story", "/log game")
            embeds, view = await story_answer(interaction, self.game_id, self.turn)
            if len(message_batches(embeds)) == 1:
                await interaction.response.edit_message(embeds=embeds, view=view)
            else:
                await reply(interaction, embeds=embeds, view=view)

        await guarded(interaction, work)


DYNAMIC_ITEMS = (PageButton, GmPageButton, TurnButton)
