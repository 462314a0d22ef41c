"""Whether the bot can do its work where a game is played — a channel, a thread, or a post of a forum — and telling
its GM, once, in words, when it cannot.

A game is keyed by its channel's id, and a thread (a forum's post is one) has an id like any channel; but a thread
has rules of its own: *Send Messages in Threads*, not *Send Messages*, lets one write there; an archived thread is
opened again by a new message, unless a moderator locked it; it takes no edit or pin while archived. When the bot
posts a game's status for the first time (`/game start`, an import) and whenever Discord refuses one of its posts
(403 Missing Access or Missing Permissions; 50083 the thread is archived, 160005 it is locked), it works out what it
lacks there (`lacking`) and tells the GM: in the game's channel when it can write there, else by direct message.
It says it once a game (`told`), not at every turn end, until its permissions there are whole again.

`NEEDED` is every permission the bot uses; `INVITE` is the invite's (the README's URL and table say the same).
"""

from __future__ import annotations

import logging

import discord

from cogs.host import RefereeHost
from cogs.render import NO_PINGS
from cogs.util import channel_id_of
from data.store import GameRow

log = logging.getLogger("referee.reach")

# (discord.Permissions attribute, Discord's name, what the bot cannot do without it)
NEEDED: tuple[tuple[str, str, str], ...] = (
    ("view_channel", "View Channels", "see"),
    ("send_messages", "Send Messages", "send"),
    ("send_messages_in_threads", "Send Messages in Threads", "send"),
    ("embed_links", "Embed Links", "show reports"),
    ("attach_files", "Attach Files", "attach files"),
    ("read_message_history", "Read Message History", "edit the status"),
    ("pin_messages", "Pin Messages", "pin"),
)
INVITE = discord.Permissions(**{attr: True for attr, _, _ in NEEDED})
"""The permissions the invite asks for: every one the bot uses."""
CLOSED = (50083, 160005)  # Discord's codes: the thread is archived (and cannot be opened by a message), locked
ROLES = "Server Settings → Roles, or the channel's permissions"


def lacking(perms: discord.Permissions, thread: bool) -> list[str]:
    """Discord's names of the permissions the bot lacks with `perms`, in a thread (`thread`) or a channel."""
    if not perms.view_channel:
        return ["View Channels"]
    send = "send_messages_in_threads" if thread else "send_messages"
    missing = []
    for attr, name, _ in NEEDED:
        if attr in ("view_channel", "send_messages", "send_messages_in_threads") and attr != send:
            continue
        if attr in ("embed_links", "attach_files") and not getattr(perms, send):
            continue  # (Discord reads them as off where one cannot send: asking for the send is enough)
        if attr == "pin_messages" and perms.manage_messages:
            continue  # (Manage Messages lets one pin too)
        if not getattr(perms, attr):
            missing.append(name)
    return missing


def _words(names: list[str]) -> str:
    starred = [f"*{n}*" for n in names]
    return starred[0] if len(starred) == 1 else ", ".join(starred[:-1]) + " and " + starred[-1]


def _verbs(names: list[str]) -> str:
    verbs = list(dict.fromkeys(verb for _, name, verb in NEEDED if name in names))
    return verbs[0] if len(verbs) == 1 else ", ".join(verbs[:-1]) + " or " + verbs[-1]


class Place:
    """Where a game is played, as the bot sees it now: a channel, a thread or a forum's post."""

    def __init__(self, channel: discord.abc.GuildChannel | discord.Thread) -> None:
        self.channel = channel
        self.thread = isinstance(channel, discord.Thread)
        parent = channel.parent if isinstance(channel, discord.Thread) else None
        self.kind = ("forum post" if isinstance(parent, discord.ForumChannel) else "thread") if self.thread \
            else "channel"
        self.missing = lacking(channel.permissions_for(channel.guild.me), self.thread)
        self.locked = isinstance(channel, discord.Thread) and channel.locked and not channel.permissions_for(
            channel.guild.me).manage_threads

    def can_send(self) -> bool:
        return not self.locked and not ({"View Channels", "Send Messages", "Send Messages in Threads"}
                                        & set(self.missing))

    def words(self, refused: discord.HTTPException | None = None) -> str | None:
        """What to tell the GM (None: nothing lacks)."""
        if self.locked or (refused is not None and refused.code in CLOSED and not self.missing):
            return (f"This {self.kind} is locked, so I cannot announce this game's turns in it: a moderator can "
                    "unlock it, or give me *Manage Threads* there.")
        if self.missing:
            where = f"{ROLES}; in a {self.kind}, its parent channel's" if self.thread else ROLES
            return (f"I cannot {_verbs(self.missing)} in this {self.kind}, so this game's turn ends, reminders or "
                    f"status may not show: give me {_words(self.missing)} here ({where}).")
        if refused is not None and refused.status == 403:
            return (f"Discord refused my message in this {self.kind} ({refused.text or 'Missing Permissions'}): "
                    f"check my permissions here ({ROLES}).")
        return None


class Reach:
    """Per game, whether its GM was told what the bot lacks where it is played (in this process)."""

    def __init__(self, bot: RefereeHost) -> None:
        self.bot = bot
        self.told: set[int] = set()

    async def place(self, row: GameRow) -> Place | None:
        """The game's channel or thread as it is now (an archived thread is not in discord.py's cache: fetched);
        None when the bot cannot see it at all, or it is gone."""
        channel_id = channel_id_of(row.channel)
        guild = self.bot.get_guild(row.guild_id) if row.guild_id is not None else None
        if channel_id is None or guild is None:
            return None
        channel = guild.get_channel_or_thread(channel_id)
        if channel is None:
            try:
                channel = await guild.fetch_channel(channel_id)
            except discord.HTTPException:
                return None
        if not isinstance(channel, discord.abc.GuildChannel | discord.Thread):
            return None
        try:
            return Place(channel)
        except discord.ClientException:  # a thread whose parent is not cached: its permissions cannot be read
            return None

    async def check(self, row: GameRow, gm: str, refused: discord.HTTPException | None = None) -> None:
        """Tell the game's GM (`gm`: their user id) what the bot lacks where the game is played, once: at its first
        status message, or when Discord refused a post (`refused`)."""
        if row.id in self.told:
            return
        place = await self.place(row)
        if place is None:
            words: str | None = (f"I cannot see the channel or thread of a game here any more, so I cannot "
                                 f"announce its turns: give me *View Channels* and *Send Messages in Threads* "
                                 f"there ({ROLES}).") if refused is not None else None
        else:
            words = place.words(refused)
        if words is None:
            return
        self.told.add(row.id)
        log.warning("game %s: %s", row.id, words, extra={"game_id": row.id, "guild_id": row.guild_id})
        if place is not None and place.can_send():
            try:
                await self.bot.get_partial_messageable(place.channel.id, guild_id=row.guild_id).send(
                    words, allowed_mentions=NO_PINGS)
                return
            except discord.HTTPException:
                pass
        await self.tell_by_dm(row, gm, words)

    async def tell_by_dm(self, row: GameRow, gm: str, words: str) -> None:
        """The GM told by direct message, the game's place named (they may not close their DMs to the bot)."""
        if not gm.isdigit():
            return
        channel_id = channel_id_of(row.channel)
        user = self.bot.get_user(int(gm)) or discord.Object(id=int(gm))
        try:
            dm = await self.bot.create_dm(user)
            await dm.send(f"About your game in <#{channel_id}>: {words}", allowed_mentions=NO_PINGS)
        except discord.HTTPException as err:
            log.warning("could not tell game %s's GM by direct message either: %s", row.id, err,
                        extra={"game_id": row.id, "guild_id": row.guild_id})

    async def reopen(self, row: GameRow) -> bool:
        """Open the game's archived thread again (to edit its status there); False when it is not an archived
        thread, or Discord refuses (a locked thread needs *Manage Threads*: its GM is told)."""
        place = await self.place(row)
        if place is None or not isinstance(place.channel, discord.Thread) or not place.channel.archived:
            return False
        try:
            await place.channel.edit(archived=False)
            return True
        except discord.HTTPException as err:
            log.warning("could not open game %s's archived thread again: %s", row.id, err,
                        extra={"game_id": row.id, "guild_id": row.guild_id})
            return False

    async def worked(self, row: GameRow) -> None:
        """A follow-up went through: a game whose GM was told is told again next time only once what it lacked
        is granted (its place lacks nothing now)."""
        if row.id not in self.told:
            return
        place = await self.place(row)
        if place is not None and not place.missing and not place.locked:
            self.told.discard(row.id)


def refused_post(err: BaseException) -> discord.HTTPException | None:
    """The error when it is Discord refusing the bot a post where a game is played (no access, a permission, a
    closed thread), else None."""
    if isinstance(err, discord.Forbidden) or (isinstance(err, discord.HTTPException) and err.code in CLOSED):
        return err
    return None
