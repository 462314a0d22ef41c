"""A local fake Discord (REST API + gateway websocket) for end-to-end bot tests.

The real discord.py library talks to an aiohttp server bound to 127.0.0.1 on a
random free port.  The fake keeps a small model of Discord (guilds, channels,
roles, members, messages, registered application commands) and lets a test
drive the bot the way a Discord client would: slash commands, autocomplete,
buttons, selects, modals and plain user messages.

Typical use::

    async with FakeDiscord() as fake:           # start the server + patch discord.py
        guild = fake.add_guild("War Room")
        orders = fake.add_channel(guild, "orders")
        alice = fake.add_user("alice")
        fake.add_member(guild, alice)

        bot = make_bot()   # commands.Bot(..., guild_ready_timeout=0.05) recommended
        async with fake.run_bot(bot):
            result = await fake.invoke(guild, orders, alice, "game start", options={"turn_hours": 12})
            assert result.content == "Game started"
            assert not result.ephemeral

Key behaviours (mirroring real Discord):

* Every interaction must be acknowledged (a second initial callback gets
  ``400 {"code": 40060}``).  Discord's own rule, within 3 s of
  INTERACTION_CREATE, is a wall-clock rule that a loaded test machine breaks
  for a bot that does nothing wrong: the fake enforces it only when a test
  asks (``interaction_deadline=DISCORD_ACK_SECONDS``; a late initial callback
  then gets ``404 {"code": 10062, "message": "Unknown interaction"}`` and is
  recorded in :attr:`FakeDiscord.deadline_failures`).  What a test checks
  instead is the order of events: every interaction, its acknowledgement and
  each :meth:`FakeDiscord.note` (e.g. "slow work began for this interaction")
  get a tick of one counter, so "acknowledged before the slow work" is a fact
  of the run, not of the machine's speed.
* Every wait gives up after :data:`HANG_TIMEOUT` seconds (120 by default,
  ``FAKEDISCORD_HANG_TIMEOUT`` in the environment): a bound that only turns a
  real hang into a failure, never a few seconds a busy machine can exceed.
* After a deferred (type 5) response, the first followup replaces the
  "thinking..." message, i.e. it *becomes* the original response.
* ERROR-level log records from the ``discord`` loggers (where discord.py hides
  command/view/event exceptions) are captured.  Every waiting helper raises
  :class:`BotErrorLogged` as soon as one shows up, and :meth:`FakeDiscord.stop`
  /``run_bot`` raise it at teardown if any were left unconsumed.
* Unknown REST routes answer a JSON 404, are recorded in
  :attr:`FakeDiscord.unhandled_requests` and (with ``strict_routes=True``) are
  logged as errors so they fail the test fast.  The fake never answers 5xx
  (discord.py retries those with multi-second sleeps).
* Slash commands can only be invoked once the bot has registered them
  (``tree.sync()`` / ``tree.sync(guild=...)``, recorded in
  :attr:`FakeDiscord.command_syncs`); option values are checked against the
  registered option types, ranges and choices, and ``default_member_permissions``
  is honoured, like the Discord client would.
* Message limits (2000 chars, embed limits, component layout, duplicate
  custom_ids) are enforced with ``400 Invalid Form Body``; bot permissions are
  checked for sending, pinning, managing roles/channels (403 50013).
* Gateway: HELLO, IDENTIFY -> READY + one GUILD_CREATE per guild of the shard,
  heartbeats, RESUME (with replay of missed events) or INVALID_SESSION, op 8
  member chunking, intent-filtered MESSAGE_*/GUILD_MEMBER_*/... events (message
  content is blanked without the message content intent, like Discord).
  As on Discord, GUILD_CREATE carries only the bot's member unless the presences
  intent is on; bots with the members intent chunk the rest at startup.

Not modelled: rate limits, pin system messages, voice, forum channels,
webhooks other than interaction webhooks, audit logs.

Tests import it as ``from fakediscord import ...`` (``tests/`` is on
``sys.path`` under pytest's default import mode, like ``helpers``).
"""

from __future__ import annotations

import asyncio
import contextlib
import enum
import itertools
import json
import logging
import os
import re
import secrets
import threading
import time
from collections import deque
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, TypeVar
from urllib.parse import unquote

import discord
import discord.gateway
import discord.http
import yarl
from aiohttp import WSMsgType, web

__all__ = [
    "BotErrorLogged",
    "CallbackType",
    "CommandSync",
    "DISCORD_ACK_SECONDS",
    "DeadlineFailure",
    "FakeAttachment",
    "FakeChannel",
    "FakeDiscord",
    "FakeDiscordError",
    "FakeGuild",
    "FakeMember",
    "FakeMessage",
    "FakeRole",
    "FakeUser",
    "HANG_TIMEOUT",
    "InteractionNotAcknowledged",
    "InteractionResult",
    "InvalidInteraction",
    "Note",
    "RecordedRequest",
    "RunningBot",
    "snowflake_time_ms",
]

_log = logging.getLogger("fakediscord")

T = TypeVar("T")
JSON = dict[str, Any]

API_VERSION = 10
DISCORD_ACK_SECONDS = 3.0
"""Discord's deadline for an interaction's initial response; the fake enforces it only when asked
(``FakeDiscord(interaction_deadline=DISCORD_ACK_SECONDS)``)."""
HANG_TIMEOUT = float(os.environ.get("FAKEDISCORD_HANG_TIMEOUT", "120"))
"""Seconds any wait of the fake (and of the tests' helpers) allows by default: only there to turn a hang into a
failure, so generous that a loaded machine never reaches it."""
DISCORD_EPOCH_MS = 1_420_070_400_000

# Message flags
SUPPRESS_EMBEDS = 1 << 2
EPHEMERAL = 1 << 6
LOADING = 1 << 7
IS_COMPONENTS_V2 = 1 << 15

# Permission bits
ADMINISTRATOR = 1 << 3
MANAGE_CHANNELS = 1 << 4
ADD_REACTIONS = 1 << 6
VIEW_CHANNEL = 1 << 10
SEND_MESSAGES = 1 << 11
MANAGE_MESSAGES = 1 << 13
EMBED_LINKS = 1 << 14
ATTACH_FILES = 1 << 15
READ_MESSAGE_HISTORY = 1 << 16
MANAGE_ROLES = 1 << 28
CREATE_PUBLIC_THREADS = 1 << 35
CREATE_PRIVATE_THREADS = 1 << 36
MANAGE_THREADS = 1 << 34
SEND_MESSAGES_IN_THREADS = 1 << 38
PIN_MESSAGES = 1 << 51
ALL_PERMISSIONS = discord.Permissions.all().value
DEFAULT_EVERYONE_PERMISSIONS = discord.Permissions(
    create_instant_invite=True,
    add_reactions=True,
    view_channel=True,
    send_messages=True,
    embed_links=True,
    attach_files=True,
    read_message_history=True,
    use_external_emojis=True,
    connect=True,
    speak=True,
    change_nickname=True,
    use_application_commands=True,
    send_messages_in_threads=True,
    create_public_threads=True,
).value

# Gateway intents
INTENT_GUILDS = 1 << 0
INTENT_GUILD_MEMBERS = 1 << 1
INTENT_GUILD_MESSAGES = 1 << 9
INTENT_GUILD_MESSAGE_REACTIONS = 1 << 10
INTENT_DIRECT_MESSAGES = 1 << 12
INTENT_DIRECT_MESSAGE_REACTIONS = 1 << 13
INTENT_MESSAGE_CONTENT = 1 << 15

THREAD_TYPES = (10, 11, 12)
FORUM = 15  # a forum channel: its posts are threads (each opened by a starter message); it takes no message itself


class Op(enum.IntEnum):
    """Gateway opcodes."""

    DISPATCH = 0
    HEARTBEAT = 1
    IDENTIFY = 2
    PRESENCE_UPDATE = 3
    VOICE_STATE_UPDATE = 4
    RESUME = 6
    RECONNECT = 7
    REQUEST_GUILD_MEMBERS = 8
    INVALID_SESSION = 9
    HELLO = 10
    HEARTBEAT_ACK = 11


class InteractionType(enum.IntEnum):
    """Interaction types sent in INTERACTION_CREATE."""

    PING = 1
    APPLICATION_COMMAND = 2
    MESSAGE_COMPONENT = 3
    AUTOCOMPLETE = 4
    MODAL_SUBMIT = 5


class CallbackType(enum.IntEnum):
    """Interaction callback (response) types."""

    PONG = 1
    CHANNEL_MESSAGE_WITH_SOURCE = 4
    DEFERRED_CHANNEL_MESSAGE_WITH_SOURCE = 5
    DEFERRED_UPDATE_MESSAGE = 6
    UPDATE_MESSAGE = 7
    APPLICATION_COMMAND_AUTOCOMPLETE_RESULT = 8
    MODAL = 9
    PREMIUM_REQUIRED = 10
    LAUNCH_ACTIVITY = 12


class OptionType(enum.IntEnum):
    """Application command option types."""

    SUB_COMMAND = 1
    SUB_COMMAND_GROUP = 2
    STRING = 3
    INTEGER = 4
    BOOLEAN = 5
    USER = 6
    CHANNEL = 7
    ROLE = 8
    MENTIONABLE = 9
    NUMBER = 10
    ATTACHMENT = 11


_ALLOWED_CALLBACKS: dict[int, frozenset[int]] = {
    InteractionType.APPLICATION_COMMAND: frozenset({4, 5, 9}),
    InteractionType.MESSAGE_COMPONENT: frozenset({4, 5, 6, 7, 9}),
    InteractionType.AUTOCOMPLETE: frozenset({8}),
    InteractionType.MODAL_SUBMIT: frozenset({4, 5, 6, 7}),
}


# ---------------------------------------------------------------------------
# Errors
# ---------------------------------------------------------------------------


class FakeDiscordError(Exception):
    """Misuse of the fake (unknown command, no bot connected, ...)."""


class InvalidInteraction(FakeDiscordError, ValueError):
    """The test tried something a real Discord client would not allow."""


class InteractionNotAcknowledged(AssertionError):
    """The bot did not acknowledge an interaction within the deadline (when one is enforced), or at all.

    ``result`` is the :class:`InteractionResult`; a late callback, if it
    arrives afterwards, is still recorded on it (``result.deadline_missed``).
    """

    def __init__(self, result: InteractionResult, waited: float | None = None) -> None:
        deadline = result.fake.interaction_deadline
        if waited is None and deadline is not None:
            said = f"within {deadline:.2f}s (Discord shows 'The application did not respond')"
        else:
            said = f"at all (waited {waited if waited is not None else HANG_TIMEOUT:.0f}s: a hang)"
        super().__init__(f"bot did not acknowledge {result.describe()} {said}")
        self.result = result


class BotErrorLogged(AssertionError):
    """discord.py (or the fake) logged an ERROR record; ``records`` holds them."""

    def __init__(self, records: Sequence[logging.LogRecord], texts: Sequence[str]) -> None:
        joined = "\n\n".join(texts)
        super().__init__(f"{len(records)} error(s) logged by the bot:\n{joined}")
        self.records = list(records)
        self.texts = list(texts)


# ---------------------------------------------------------------------------
# Snowflakes and small helpers
# ---------------------------------------------------------------------------


def snowflake_time_ms(snowflake: int) -> int:
    """Unix time in milliseconds encoded in a snowflake."""
    return (snowflake >> 22) + DISCORD_EPOCH_MS


class SnowflakeGenerator:
    """Monotonic, real-looking snowflakes: ``(ms since 2015) << 22 | worker | process | increment``."""

    def __init__(self, worker_id: int = 1, process_id: int = 0) -> None:
        self._worker = worker_id & 0x1F
        self._process = process_id & 0x1F
        self._increment = itertools.count()
        self.last = 0

    def next(self, *, distinct_ms: bool = False) -> int:
        """Return a new snowflake, strictly greater than all previous ones.

        With ``distinct_ms`` the timestamp part is bumped so the id has a
        millisecond of its own, which spreads guilds over shards the way
        real guild ids do (``(guild_id >> 22) % shard_count``).
        """
        now_ms = int(time.time() * 1000) - DISCORD_EPOCH_MS
        last_ms = self.last >> 22
        ms = max(now_ms, last_ms + 1) if distinct_ms else max(now_ms, last_ms)
        low = (self._worker << 17) | (self._process << 12) | (next(self._increment) & 0xFFF)
        candidate = (ms << 22) | low
        if candidate <= self.last:
            candidate = self.last + 1
        self.last = candidate
        return candidate


def _now_iso() -> str:
    return datetime.now(UTC).isoformat()


def _sid(value: int | None) -> str | None:
    return None if value is None else str(value)


def _walk_components(components: Iterable[Any]) -> Iterator[JSON]:
    """Yield every component dict in a (possibly nested) component tree."""
    for comp in components or ():
        if not isinstance(comp, dict):
            continue
        yield comp
        yield from _walk_components(comp.get("components") or ())
        for key in ("component", "accessory"):
            child = comp.get(key)
            if isinstance(child, dict):
                yield from _walk_components([child])


def _unwrap(value: Any) -> Any:
    return value.value if isinstance(value, enum.Enum) else value


# ---------------------------------------------------------------------------
# Model objects
# ---------------------------------------------------------------------------


@dataclass(eq=False)
class FakeUser:
    """A Discord user (human or bot)."""

    id: int
    name: str
    bot: bool = False
    global_name: str | None = None
    discriminator: str = "0"

    @property
    def mention(self) -> str:
        return f"<@{self.id}>"

    def to_payload(self) -> JSON:
        payload: JSON = {
            "id": str(self.id),
            "username": self.name,
            "discriminator": self.discriminator,
            "global_name": self.global_name,
            "avatar": None,
            "public_flags": 0,
        }
        if self.bot:
            payload["bot"] = True
        return payload


@dataclass(eq=False)
class FakeRole:
    """A guild role.  The @everyone role has the guild's id."""

    id: int
    guild_id: int
    name: str
    permissions: int = 0
    position: int = 0
    color: int = 0
    hoist: bool = False
    mentionable: bool = False
    managed: bool = False
    bot_id: int | None = None

    @property
    def mention(self) -> str:
        return "@everyone" if self.id == self.guild_id else f"<@&{self.id}>"

    def to_payload(self) -> JSON:
        payload: JSON = {
            "id": str(self.id),
            "name": self.name,
            "color": self.color,
            "colors": {"primary_color": self.color, "secondary_color": None, "tertiary_color": None},
            "hoist": self.hoist,
            "icon": None,
            "unicode_emoji": None,
            "position": self.position,
            "permissions": str(self.permissions),
            "managed": self.managed,
            "mentionable": self.mentionable,
            "flags": 0,
        }
        if self.bot_id is not None:
            payload["tags"] = {"bot_id": str(self.bot_id)}
        return payload


@dataclass(eq=False)
class FakeChannel:
    """A guild channel, thread (types 10-12), forum (type 15) or DM channel (type 1)."""

    id: int
    name: str
    type: int = 0
    guild_id: int | None = None
    position: int = 0
    topic: str | None = None
    parent_id: int | None = None
    overwrites: list[JSON] = field(default_factory=list)
    recipients: list[FakeUser] = field(default_factory=list)
    owner_id: int | None = None
    archived: bool = False
    locked: bool = False
    auto_archive_duration: int = 1440
    created_at: str = field(default_factory=_now_iso)
    last_message_id: int | None = None
    last_pin_timestamp: str | None = None
    message_count: int = 0

    @property
    def mention(self) -> str:
        return f"<#{self.id}>"

    @property
    def is_thread(self) -> bool:
        return self.type in THREAD_TYPES

    @property
    def is_dm(self) -> bool:
        return self.type in (1, 3)

    def to_payload(self) -> JSON:
        if self.is_dm:
            return {
                "id": str(self.id),
                "type": self.type,
                "last_message_id": _sid(self.last_message_id),
                "recipients": [u.to_payload() for u in self.recipients],
                "flags": 0,
            }
        payload: JSON = {
            "id": str(self.id),
            "type": self.type,
            "guild_id": _sid(self.guild_id),
            "name": self.name,
            "position": self.position,
            "permission_overwrites": [dict(o) for o in self.overwrites],
            "nsfw": False,
            "topic": self.topic,
            "last_message_id": _sid(self.last_message_id),
            "rate_limit_per_user": 0,
            "parent_id": _sid(self.parent_id),
            "flags": 0,
        }
        if self.last_pin_timestamp:
            payload["last_pin_timestamp"] = self.last_pin_timestamp
        if self.type == 2:
            payload.update(bitrate=64000, user_limit=0, rtc_region=None)
        if self.type == FORUM:
            payload.update(available_tags=[], default_reaction_emoji=None, default_sort_order=None,
                           default_forum_layout=0, default_thread_rate_limit_per_user=0,
                           default_auto_archive_duration=self.auto_archive_duration)
        if self.is_thread:
            payload.pop("permission_overwrites")
            payload.pop("position")
            payload.pop("topic")
            payload.update(
                owner_id=_sid(self.owner_id),
                message_count=self.message_count,
                member_count=1,
                total_message_sent=self.message_count,
                thread_metadata={
                    "archived": self.archived,
                    "auto_archive_duration": self.auto_archive_duration,
                    "archive_timestamp": self.created_at,
                    "locked": self.locked,
                    "create_timestamp": self.created_at,
                },
            )
        return payload


@dataclass(eq=False)
class FakeMember:
    """A user's membership in a guild.

    ``permissions`` (when not None) overrides the computed permissions
    everywhere (interaction payloads, command visibility).
    """

    user: FakeUser
    guild_id: int
    role_ids: list[int] = field(default_factory=list)
    nick: str | None = None
    permissions: int | None = None
    joined_at: str = field(default_factory=_now_iso)

    @property
    def id(self) -> int:
        return self.user.id

    @property
    def mention(self) -> str:
        return self.user.mention

    def to_payload(self, *, with_user: bool = True, permissions: int | None = None) -> JSON:
        payload: JSON = {
            "nick": self.nick,
            "avatar": None,
            "banner": None,
            "roles": [str(r) for r in self.role_ids],
            "joined_at": self.joined_at,
            "premium_since": None,
            "deaf": False,
            "mute": False,
            "flags": 0,
            "pending": False,
            "communication_disabled_until": None,
        }
        if with_user:
            payload["user"] = self.user.to_payload()
        if permissions is not None:
            payload["permissions"] = str(permissions)
        return payload


@dataclass(eq=False)
class FakeGuild:
    """A guild with its roles, channels and members."""

    id: int
    name: str
    owner_id: int
    roles: dict[int, FakeRole] = field(default_factory=dict)
    channels: dict[int, FakeChannel] = field(default_factory=dict)
    members: dict[int, FakeMember] = field(default_factory=dict)
    created_at: str = field(default_factory=_now_iso)

    @property
    def default_role(self) -> FakeRole:
        return self.roles[self.id]

    def get_channel(self, name: str) -> FakeChannel | None:
        """Channel (or thread) by name."""
        return next((c for c in self.channels.values() if c.name == name), None)

    def get_role(self, name: str) -> FakeRole | None:
        """Role by name."""
        return next((r for r in self.roles.values() if r.name == name), None)

    def get_member(self, user: FakeUser | int) -> FakeMember | None:
        """Member by user or user id."""
        return self.members.get(user if isinstance(user, int) else user.id)

    def shard_id(self, shard_count: int) -> int:
        """The shard this guild belongs to for ``shard_count`` shards."""
        return (self.id >> 22) % shard_count

    def to_payload(self, *, gateway: bool = False, members: Iterable[FakeMember] = ()) -> JSON:
        payload: JSON = {
            "id": str(self.id),
            "name": self.name,
            "icon": None,
            "splash": None,
            "discovery_splash": None,
            "banner": None,
            "description": None,
            "owner_id": str(self.owner_id),
            "afk_channel_id": None,
            "afk_timeout": 300,
            "verification_level": 0,
            "default_message_notifications": 0,
            "explicit_content_filter": 0,
            "roles": [r.to_payload() for r in self.roles.values()],
            "emojis": [],
            "stickers": [],
            "features": [],
            "mfa_level": 0,
            "application_id": None,
            "system_channel_id": None,
            "system_channel_flags": 0,
            "rules_channel_id": None,
            "public_updates_channel_id": None,
            "safety_alerts_channel_id": None,
            "max_members": 500000,
            "vanity_url_code": None,
            "premium_tier": 0,
            "premium_subscription_count": 0,
            "preferred_locale": "en-US",
            "nsfw_level": 0,
            "premium_progress_bar_enabled": False,
        }
        if gateway:
            payload.update(
                joined_at=self.created_at,
                large=len(self.members) >= 250,
                unavailable=False,
                member_count=len(self.members),
                voice_states=[],
                members=[m.to_payload() for m in members],
                channels=[c.to_payload() for c in self.channels.values() if not c.is_thread],
                threads=[c.to_payload() for c in self.channels.values() if c.is_thread and not c.archived],
                presences=[],
                stage_instances=[],
                guild_scheduled_events=[],
                soundboard_sounds=[],
            )
        return payload


@dataclass(eq=False)
class FakeAttachment:
    """A file attached to a message (or passed as an attachment command option).

    The bytes are served back at ``url`` so ``Attachment.read()`` works.
    """

    filename: str
    data: bytes
    content_type: str | None = None
    description: str | None = None
    id: int = 0
    url: str = ""

    def to_payload(self) -> JSON:
        payload: JSON = {
            "id": str(self.id),
            "filename": self.filename,
            "size": len(self.data),
            "url": self.url,
            "proxy_url": self.url,
        }
        if self.content_type:
            payload["content_type"] = self.content_type
        if self.description:
            payload["description"] = self.description
        return payload


@dataclass(eq=False)
class FakeMessage:
    """A message held by the fake.

    The object is updated in place on edits; ``history`` keeps the payloads
    of earlier versions (oldest first).  Ephemeral messages never appear in
    channel listings.
    """

    id: int
    channel_id: int
    guild_id: int | None
    author: FakeUser
    content: str = ""
    embeds: list[JSON] = field(default_factory=list)
    components: list[JSON] = field(default_factory=list)
    attachments: list[FakeAttachment] = field(default_factory=list)
    flags: int = 0
    type: int = 0
    pinned: bool = False
    pinned_at: str | None = None
    tts: bool = False
    timestamp: str = field(default_factory=_now_iso)
    edited_timestamp: str | None = None
    webhook_id: int | None = None
    application_id: int | None = None
    interaction_metadata: JSON | None = None
    interaction_id: int | None = None
    message_reference: JSON | None = None
    referenced_message: FakeMessage | None = None
    allowed_mentions: JSON | None = None
    reactions: dict[str, list[int]] = field(default_factory=dict)
    mention_ids: list[int] = field(default_factory=list)
    mention_role_ids: list[int] = field(default_factory=list)
    mention_everyone: bool = False
    deleted: bool = False
    history: list[JSON] = field(default_factory=list)

    @property
    def ephemeral(self) -> bool:
        """``flags & 64``."""
        return bool(self.flags & EPHEMERAL)

    @property
    def loading(self) -> bool:
        """True while this is a deferred "Bot is thinking..." placeholder."""
        return bool(self.flags & LOADING)

    @property
    def edited(self) -> bool:
        """The message was edited at least once (see ``history``)."""
        return bool(self.history)

    def all_components(self) -> list[JSON]:
        """Every component in the message, flattened (rows, buttons, selects, ...)."""
        return list(_walk_components(self.components))

    @property
    def custom_ids(self) -> list[str]:
        """custom_id of every interactive component, in display order."""
        return [c["custom_id"] for c in _walk_components(self.components) if c.get("custom_id")]

    def find_component(self, custom_id: str) -> JSON | None:
        """The component dict with that custom_id, if any."""
        return next((c for c in _walk_components(self.components) if c.get("custom_id") == custom_id), None)

    def button_labels(self) -> list[str]:
        """Labels of all buttons, in display order."""
        return [c.get("label") or "" for c in _walk_components(self.components) if c.get("type") == 2]

    def to_payload(self) -> JSON:
        """The message as Discord's REST API returns it."""
        payload: JSON = {
            "id": str(self.id),
            "channel_id": str(self.channel_id),
            "author": self.author.to_payload(),
            "content": self.content,
            "timestamp": self.timestamp,
            "edited_timestamp": self.edited_timestamp,
            "tts": self.tts,
            "mention_everyone": self.mention_everyone,
            "mentions": [],
            "mention_roles": [str(r) for r in self.mention_role_ids],
            "attachments": [a.to_payload() for a in self.attachments],
            "embeds": [dict(e) for e in self.embeds],
            "components": [dict(c) for c in self.components],
            "pinned": self.pinned,
            "type": self.type,
            "flags": self.flags,
        }
        if self.reactions:
            payload["reactions"] = [
                {
                    "emoji": _emoji_payload(emoji),
                    "count": len(users),
                    "count_details": {"burst": 0, "normal": len(users)},
                    "me": False,
                    "me_burst": False,
                    "burst_colors": [],
                }
                for emoji, users in self.reactions.items()
                if users
            ]
        if self.webhook_id is not None:
            payload["webhook_id"] = str(self.webhook_id)
        if self.application_id is not None:
            payload["application_id"] = str(self.application_id)
        if self.interaction_metadata is not None:
            payload["interaction_metadata"] = dict(self.interaction_metadata)
        if self.message_reference is not None:
            payload["message_reference"] = dict(self.message_reference)
            ref = self.referenced_message
            payload["referenced_message"] = None if ref is None or ref.deleted else ref.to_payload()
        return payload

    def __repr__(self) -> str:
        return (
            f"<FakeMessage id={self.id} channel={self.channel_id} author={self.author.name!r} "
            f"content={self.content[:40]!r} flags={self.flags}>"
        )


def _emoji_payload(emoji: str) -> JSON:
    match = re.fullmatch(r"<?(a?):?([A-Za-z0-9_~]+):(\d+)>?", emoji)
    if match:
        return {"id": match.group(3), "name": match.group(2), "animated": bool(match.group(1))}
    return {"id": None, "name": emoji}


# ---------------------------------------------------------------------------
# Records
# ---------------------------------------------------------------------------


@dataclass
class RecordedRequest:
    """One REST request that reached the fake."""

    method: str
    path: str
    query: dict[str, str]
    body: Any
    status: int = 0


@dataclass
class CommandSync:
    """One bulk overwrite (``tree.sync``) of application commands."""

    guild_id: int | None
    commands: list[JSON]

    @property
    def names(self) -> list[str]:
        return [c["name"] for c in self.commands]


@dataclass
class DeadlineFailure:
    """An initial interaction callback that arrived after the deadline."""

    interaction_id: int
    description: str
    elapsed: float
    callback_type: int | None


@dataclass
class Note:
    """Something a test marked in the run's order of events (:meth:`FakeDiscord.note`), for an interaction or
    none."""

    tick: int
    what: str
    interaction: InteractionResult | None = None


@dataclass
class _CapturedError:
    record: logging.LogRecord
    text: str


# ---------------------------------------------------------------------------
# Interaction results
# ---------------------------------------------------------------------------


class InteractionResult:
    """What happened to one interaction the fake sent to the bot.

    ``response_type`` is the initial callback type (see :class:`CallbackType`)
    and ``message`` the original response message: the new message for types
    4/5 (a loading placeholder until edited for 5), the clicked message for
    component updates (6/7).  ``content``/``embeds``/``components``/``flags``
    read through to ``message`` and therefore reflect later edits.
    """

    def __init__(
        self,
        fake: FakeDiscord,
        *,
        interaction_id: int,
        token: str,
        interaction_type: int,
        guild: FakeGuild,
        channel: FakeChannel,
        member: FakeMember,
        label: str,
        payload: JSON,
        source_message: FakeMessage | None,
        parent: InteractionResult | None = None,
    ) -> None:
        self.fake = fake
        self.id = interaction_id
        self.token = token
        self.interaction_type = interaction_type
        self.guild = guild
        self.channel = channel
        self.member = member
        self.label = label
        self.payload = payload
        self.source_message = source_message
        self.parent = parent
        self.sent_at: float | None = None  # (loop.time(): for a benchmark's figures, never a test's assertion)
        self.acknowledged_at: float | None = None
        #: Ticks of the fake's order of events (:meth:`FakeDiscord.tick`): INTERACTION_CREATE written, the initial
        #: response accepted.
        self.sent_tick: int | None = None
        self.acknowledged_tick: int | None = None
        self.response_type: int | None = None
        self.response_data: JSON = {}
        self.message: FakeMessage | None = None
        self.followups: list[FakeMessage] = []
        self.choices: list[JSON] | None = None
        self.modal: JSON | None = None
        self.deadline_missed = False
        self.rejected_callbacks: list[tuple[int, JSON]] = []
        self._followup_cursor = 0

    # -- convenience accessors ------------------------------------------------

    @property
    def acknowledged(self) -> bool:
        """The bot sent an accepted initial response."""
        return self.response_type is not None

    @property
    def deferred(self) -> bool:
        """The initial response was a defer (type 5 or 6)."""
        return self.response_type in (5, 6)

    @property
    def content(self) -> str:
        """Current content of the response message ("" without one)."""
        return self.message.content if self.message else ""

    @property
    def embeds(self) -> list[JSON]:
        """Embeds (dicts) of the response message."""
        return self.message.embeds if self.message else []

    @property
    def embed(self) -> JSON | None:
        """The first embed, if any."""
        return self.embeds[0] if self.embeds else None

    @property
    def components(self) -> list[JSON]:
        """Component tree (dicts) of the response message."""
        return self.message.components if self.message else []

    @property
    def custom_ids(self) -> list[str]:
        """custom_ids on the response message."""
        return self.message.custom_ids if self.message else []

    @property
    def flags(self) -> int:
        """Message flags of the response (64 = ephemeral, 128 = loading)."""
        if self.message is not None:
            return self.message.flags
        return int(self.response_data.get("flags") or 0)

    @property
    def ephemeral(self) -> bool:
        """``flags & 64``."""
        return bool(self.flags & EPHEMERAL)

    @property
    def messages(self) -> list[FakeMessage]:
        """Original response (if any) followed by followups, without duplicates."""
        out: list[FakeMessage] = [self.message] if self.message is not None else []
        out.extend(m for m in self.followups if m is not self.message)
        return out

    def acknowledged_before(self, tick: int) -> bool:
        """The initial response was accepted before the event of ``tick`` (a :class:`Note`'s, say)."""
        return self.acknowledged_tick is not None and self.acknowledged_tick < tick

    def describe(self) -> str:
        """Human-readable label used in error messages."""
        kind = InteractionType(self.interaction_type).name.lower()
        return f"{kind} interaction {self.label!r} (id={self.id})"

    def __repr__(self) -> str:
        return f"<InteractionResult {self.describe()} response_type={self.response_type} content={self.content[:40]!r}>"

    # -- waiting ----------------------------------------------------------------

    async def wait_until(self, predicate: Callable[[InteractionResult], bool], timeout: float | None = None) -> None:
        """Wait until ``predicate(self)`` is true (re-checked on every change)."""
        await self.fake.wait_until(lambda: predicate(self), timeout=timeout, what=f"condition on {self.describe()}")

    async def wait_for_followup(
        self, timeout: float | None = None, check: Callable[[FakeMessage], bool] | None = None
    ) -> FakeMessage:
        """Return the next followup (POST to the interaction webhook) not yet returned by this method.

        Note: after a deferred (type 5) response the first followup *is* the
        original response (``result.followups[0] is result.message``).
        """

        def find() -> FakeMessage | None:
            for index in range(self._followup_cursor, len(self.followups)):
                msg = self.followups[index]
                if check is None or check(msg):
                    self._followup_cursor = index + 1
                    return msg
            return None

        return await self.fake.wait_until(find, timeout=timeout, what=f"a followup to {self.describe()}")

    async def wait_for_final_message(self, timeout: float | None = None) -> FakeMessage:
        """Wait until the original response exists and is no longer a "thinking..." placeholder."""

        def find() -> FakeMessage | None:
            msg = self.message
            return msg if msg is not None and not msg.loading else None

        return await self.fake.wait_until(find, timeout=timeout, what=f"the final response to {self.describe()}")


# ---------------------------------------------------------------------------
# Gateway plumbing
# ---------------------------------------------------------------------------


class _Connection:
    """One websocket connection; all frames go through a FIFO queue."""

    _ids = itertools.count(1)

    def __init__(self, ws: web.WebSocketResponse) -> None:
        self.id = next(self._ids)
        self.ws = ws
        self.session: _Session | None = None
        self.queue: asyncio.Queue[tuple[str, asyncio.Future[float] | None]] = asyncio.Queue()
        self.heartbeats = 0
        self._closing = False
        self._writer: asyncio.Task[None] | None = None

    @property
    def closing(self) -> bool:
        """True once the connection is closing or asked to reconnect (no new interactions)."""
        return self._closing or self.ws.closed

    @closing.setter
    def closing(self, value: bool) -> None:
        self._closing = value

    def start(self) -> None:
        self._writer = asyncio.get_running_loop().create_task(self._write_loop(), name=f"fakediscord-ws-{self.id}")

    def send(self, op: int, d: Any, *, future: asyncio.Future[float] | None = None) -> None:
        self.enqueue(json.dumps({"op": op, "d": d, "s": None, "t": None}), future)

    def enqueue(self, frame: str, future: asyncio.Future[float] | None = None) -> None:
        self.queue.put_nowait((frame, future))

    async def _write_loop(self) -> None:
        loop = asyncio.get_running_loop()
        while True:
            frame, future = await self.queue.get()
            try:
                await self.ws.send_str(frame)
            except Exception as exc:  # connection went away
                if future is not None and not future.done():
                    future.set_exception(FakeDiscordError(f"gateway connection lost: {exc!r}"))
                continue
            if future is not None and not future.done():
                future.set_result(loop.time())

    async def stop(self) -> None:
        if self._writer is not None:
            self._writer.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._writer
            self._writer = None
        while not self.queue.empty():
            _, future = self.queue.get_nowait()
            if future is not None and not future.done():
                future.set_exception(FakeDiscordError("gateway connection closed"))


class _Session:
    """A gateway session (survives reconnects via RESUME)."""

    def __init__(self, *, token: str, intents: int, shard_id: int, shard_count: int) -> None:
        self.id = secrets.token_hex(16)
        self.token = token
        self.intents = intents
        self.shard_id = shard_id
        self.shard_count = shard_count
        self.seq = 0
        self.backlog: deque[tuple[int, str]] = deque(maxlen=2000)
        self.connection: _Connection | None = None
        self.alive = True
        self.ready = False

    def covers(self, guild_id: int | None) -> bool:
        if guild_id is None:
            return self.shard_id == 0
        return (guild_id >> 22) % self.shard_count == self.shard_id

    def dispatch(self, event: str, data: Any, *, future: asyncio.Future[float] | None = None) -> None:
        self.seq += 1
        frame = json.dumps({"op": Op.DISPATCH, "t": event, "s": self.seq, "d": data})
        self.backlog.append((self.seq, frame))
        if self.connection is not None:
            self.connection.enqueue(frame, future)
        elif future is not None and not future.done():
            future.set_exception(FakeDiscordError("session has no live connection"))


class _ErrorCapture(logging.Handler):
    def __init__(self, owner: FakeDiscord) -> None:
        super().__init__(level=logging.ERROR)
        self._owner = owner
        self.setFormatter(logging.Formatter("%(name)s: %(message)s"))

    def emit(self, record: logging.LogRecord) -> None:
        try:
            text = self.format(record)
        except Exception:  # pragma: no cover - formatting must never break the bot
            text = record.getMessage()
        self._owner._on_error_record(record, text)


class _HTTPError(Exception):
    def __init__(self, status: int, code: int, message: str, errors: JSON | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message
        self.errors = errors


def _json_response(data: Any, status: int = 200) -> web.Response:
    # discord.py compares the Content-Type header to exactly "application/json".
    return web.Response(status=status, body=json.dumps(data).encode(), headers={"Content-Type": "application/json"})


def _no_content() -> web.Response:
    return web.Response(status=204)


def _form_error(path: Sequence[str | int], code: str, message: str) -> _HTTPError:
    errors: JSON = {"_errors": [{"code": code, "message": message}]}
    for part in reversed(path):
        errors = {str(part): errors}
    return _HTTPError(400, 50035, "Invalid Form Body", errors)


@dataclass
class _Request:
    request: web.Request
    params: dict[str, str]
    body: Any
    files: dict[int, FakeAttachment]

    @property
    def query(self) -> Mapping[str, str]:
        return self.request.query

    def json(self) -> JSON:
        return self.body if isinstance(self.body, dict) else {}


_Handler = Callable[[_Request], Awaitable[web.StreamResponse]]


# ---------------------------------------------------------------------------
# The fake
# ---------------------------------------------------------------------------


class FakeDiscord:
    """A fake Discord server for one test (or a few, sequentially).

    Parameters
    ----------
    token:
        The bot token the fake accepts (REST ``Authorization`` and IDENTIFY).
    bot_name:
        Username of the bot user / application.
    interaction_deadline:
        Seconds the bot has to send the initial interaction response (Discord: :data:`DISCORD_ACK_SECONDS`), or
        None (the default): any time, up to :data:`HANG_TIMEOUT` (a test checks the order of events instead).
    heartbeat_interval:
        Gateway heartbeat interval (seconds) announced in HELLO.
    strict_routes:
        Log unknown REST routes at ERROR level (so they fail the test).
    capture_errors:
        Capture ERROR logs from ``error_loggers`` and fail waits on them.
    """

    def __init__(
        self,
        *,
        token: str = "fake-bot-token",
        bot_name: str = "FakeBot",
        interaction_deadline: float | None = None,
        heartbeat_interval: float = 41.25,
        strict_routes: bool = True,
        capture_errors: bool = True,
        error_loggers: Sequence[str] = ("discord", "fakediscord"),
        interaction_token_ttl: float = 15 * 60,
    ) -> None:
        self.token = token
        self.interaction_deadline = interaction_deadline
        self.heartbeat_interval = heartbeat_interval
        self.strict_routes = strict_routes
        self.capture_errors = capture_errors
        self.error_loggers = tuple(error_loggers)
        self.interaction_token_ttl = interaction_token_ttl
        #: When False, waiting helpers do not raise on captured error logs.
        self.fail_on_errors = True

        self.snowflakes = SnowflakeGenerator()
        self.application_id = self.snowflakes.next()
        self.bot_user = FakeUser(self.application_id, bot_name, bot=True, discriminator="0001")
        self.owner_user = FakeUser(self.snowflakes.next(), f"{bot_name}-owner")

        self.guilds: dict[int, FakeGuild] = {}
        self.users: dict[int, FakeUser] = {self.bot_user.id: self.bot_user, self.owner_user.id: self.owner_user}
        self._channels: dict[int, FakeChannel] = {}
        self._dm_channels: dict[int, FakeChannel] = {}
        #: Users who do not take direct messages from the bot (a DM to them: 403, code 50007, as on Discord).
        self.closed_dms: set[int] = set()
        self._messages: dict[int, FakeMessage] = {}
        self._channel_messages: dict[int, list[FakeMessage]] = {}
        self._attachments: dict[int, FakeAttachment] = {}
        self._commands: dict[int | None, dict[int, JSON]] = {None: {}}

        #: Every REST request, in order.
        self.requests: list[RecordedRequest] = []
        #: REST requests to routes the fake does not implement.
        self.unhandled_requests: list[RecordedRequest] = []
        #: Every ``PUT .../commands`` bulk overwrite, in order.
        self.command_syncs: list[CommandSync] = []
        #: Initial callbacks that arrived too late.
        self.deadline_failures: list[DeadlineFailure] = []
        #: Every interaction sent to the bot, in order.
        self.interactions: list[InteractionResult] = []
        #: What tests marked in the order of events (:meth:`note`), in order.
        self.notes: list[Note] = []
        self._ticks = itertools.count(1)
        self._interactions: dict[int, InteractionResult] = {}
        self._interactions_by_token: dict[str, InteractionResult] = {}

        self._sessions: list[_Session] = []
        self._connections: set[_Connection] = set()
        #: Number of IDENTIFYs received (one per bot start, plus re-identifies).
        self.identify_count = 0
        self.resume_count = 0

        self._errors: list[_CapturedError] = []
        self._errors_lock = threading.Lock()
        self._capture_handler: _ErrorCapture | None = None

        self._changed = asyncio.Event()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._runner: web.AppRunner | None = None
        self.port: int | None = None
        self._action_mark = 0
        self._saved_attrs: list[tuple[Any, str, Any]] | None = None
        self._monkeypatched = False
        self._routes: list[tuple[str, re.Pattern[str], _Handler, bool]] = []
        self._register_routes()

    # ------------------------------------------------------------------ lifecycle

    @property
    def base_url(self) -> str:
        """``http://127.0.0.1:PORT``."""
        if self.port is None:
            raise FakeDiscordError("FakeDiscord is not started")
        return f"http://127.0.0.1:{self.port}"

    @property
    def api_base(self) -> str:
        """Value for ``discord.http.Route.BASE``."""
        return f"{self.base_url}/api/v{API_VERSION}"

    @property
    def gateway_url(self) -> yarl.URL:
        """Value for ``discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY``."""
        return yarl.URL(f"ws://127.0.0.1:{self.port}/gateway")

    async def start(self) -> None:
        """Start the HTTP/websocket server on 127.0.0.1 (random free port)."""
        if self._runner is not None:
            return
        self._loop = asyncio.get_running_loop()
        self._changed = asyncio.Event()
        app = web.Application(client_max_size=64 * 1024 * 1024)
        app.router.add_route("GET", "/gateway", self._handle_gateway)
        app.router.add_route("GET", "/attachments/{att_id}/{filename}", self._handle_attachment)
        app.router.add_route("*", "/{tail:.*}", self._handle_rest)
        runner = web.AppRunner(app, access_log=None, handle_signals=False, shutdown_timeout=1.0)
        await runner.setup()
        site = web.TCPSite(runner, "127.0.0.1", 0)
        await site.start()
        self._runner = runner
        address = runner.addresses[0]
        self.port = int(address[1])
        if self.capture_errors:
            self._capture_handler = _ErrorCapture(self)
            for name in self.error_loggers:
                logging.getLogger(name).addHandler(self._capture_handler)

    async def stop(self, *, check_errors: bool = True) -> None:
        """Close all gateway connections and the server; restore discord.py.

        Raises :class:`BotErrorLogged` if errors were captured and never
        consumed (pass ``check_errors=False`` to skip).
        """
        self.uninstall()
        for conn in list(self._connections):
            with contextlib.suppress(Exception):
                await conn.ws.close(code=1001, message=b"fake discord shutting down")
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None
        for conn in list(self._connections):
            await conn.stop()
        self._connections.clear()
        if self._capture_handler is not None:
            for name in self.error_loggers:
                logging.getLogger(name).removeHandler(self._capture_handler)
            self._capture_handler = None
        if check_errors:
            self.assert_no_errors()

    async def __aenter__(self) -> FakeDiscord:
        """Start the server and :meth:`install` it (restored by ``__aexit__``)."""
        await self.start()
        self.install()
        return self

    async def __aexit__(self, exc_type: Any, exc: Any, tb: Any) -> None:
        await self.stop(check_errors=exc_type is None)

    def install(self, monkeypatch: Any = None) -> FakeDiscord:
        """Point discord.py at this fake (``Route.BASE`` and ``DEFAULT_GATEWAY``).

        With a pytest ``monkeypatch`` the values are restored by pytest;
        otherwise :meth:`uninstall` (called by :meth:`stop`) restores them.
        """
        targets = [
            (discord.http.Route, "BASE", self.api_base),
            (discord.gateway.DiscordWebSocket, "DEFAULT_GATEWAY", self.gateway_url),
        ]
        if monkeypatch is not None:
            for owner, name, value in targets:
                monkeypatch.setattr(owner, name, value)
            self._monkeypatched = True
            return self
        if self._saved_attrs is None:
            self._saved_attrs = [(owner, name, getattr(owner, name)) for owner, name, _ in targets]
        for owner, name, value in targets:
            setattr(owner, name, value)
        return self

    def uninstall(self) -> None:
        """Restore the discord.py attributes changed by :meth:`install` (no-op with monkeypatch)."""
        if self._saved_attrs is not None:
            for owner, name, value in self._saved_attrs:
                setattr(owner, name, value)
            self._saved_attrs = None

    @contextlib.contextmanager
    def installed(self) -> Iterator[FakeDiscord]:
        """Context manager form of :meth:`install` / :meth:`uninstall`."""
        self.install()
        try:
            yield self
        finally:
            self.uninstall()

    # ------------------------------------------------------------------ running bots

    async def start_bot(
        self,
        bot: discord.Client,
        *,
        timeout: float | None = None,
        reconnect: bool = True,
        ready_timeout: float | None = None,
    ) -> RunningBot:
        """Start ``bot`` against the fake and wait until it is ready (``bot.is_ready()``).

        Readiness takes discord.py's ``guild_ready_timeout`` after the last
        GUILD_CREATE (2 s by default): build test bots with
        ``guild_ready_timeout=0.05`` or pass ``ready_timeout`` here, which
        overrides that private setting.  ``AutoShardedBot`` additionally
        sleeps 5 s before each non-first shard's IDENTIFY
        (``before_identify_hook``); override the hook in tests.

        Counts as a driving call for :meth:`wait_for_message`.  Raises the
        bot's startup exception, :class:`BotErrorLogged`, or ``TimeoutError``.
        """
        if ready_timeout is not None:
            bot._connection.guild_ready_timeout = ready_timeout
        self._action_mark = self.snowflakes.last
        loop = asyncio.get_running_loop()
        task = loop.create_task(bot.start(self.token, reconnect=reconnect), name="fakediscord-bot")
        running = RunningBot(self, bot, task)
        timeout = HANG_TIMEOUT if timeout is None else timeout
        deadline = loop.time() + timeout
        try:
            while not bot.is_ready():
                if task.done():
                    task.result()  # re-raises the startup exception
                    raise FakeDiscordError("bot stopped before becoming ready")
                self._raise_errors()
                if loop.time() > deadline:
                    raise TimeoutError(f"bot was not ready within {timeout}s")
                await asyncio.sleep(0.005)
        except BaseException:
            with contextlib.suppress(Exception):
                await running.close(check_errors=False)
            raise
        return running

    @contextlib.asynccontextmanager
    async def run_bot(
        self,
        bot: discord.Client,
        *,
        timeout: float | None = None,
        reconnect: bool = True,
        ready_timeout: float | None = None,
    ) -> AsyncIterator[discord.Client]:
        """``async with fake.run_bot(bot):`` start the bot, yield it, close it cleanly."""
        running = await self.start_bot(bot, timeout=timeout, reconnect=reconnect, ready_timeout=ready_timeout)
        failed = True
        try:
            yield bot
            failed = False
        finally:
            await running.close(check_errors=not failed)

    # ------------------------------------------------------------------ model

    def add_user(self, name: str, *, bot: bool = False, global_name: str | None = None) -> FakeUser:
        """Create a user."""
        user = FakeUser(self.snowflakes.next(), name, bot=bot, global_name=global_name)
        self.users[user.id] = user
        return user

    def add_guild(
        self,
        name: str,
        *,
        owner: FakeUser | None = None,
        id: int | None = None,
        everyone_permissions: int = DEFAULT_EVERYONE_PERMISSIONS,
        bot_permissions: int = ALL_PERMISSIONS,
    ) -> FakeGuild:
        """Create a guild the bot is in (with @everyone and the bot's managed role).

        Guild ids get a millisecond of their own so they spread over shards.
        If the bot is connected, a GUILD_CREATE is dispatched.
        """
        guild_id = id if id is not None else self.snowflakes.next(distinct_ms=True)
        if guild_id in self.guilds:
            raise FakeDiscordError(f"guild {guild_id} already exists")
        owner_user = owner or self.owner_user
        guild = FakeGuild(guild_id, name, owner_user.id)
        guild.roles[guild_id] = FakeRole(guild_id, guild_id, "@everyone", everyone_permissions, position=0)
        bot_role = FakeRole(
            self.snowflakes.next(),
            guild_id,
            self.bot_user.name,
            bot_permissions,
            position=100,
            managed=True,
            bot_id=self.bot_user.id,
        )
        guild.roles[bot_role.id] = bot_role
        self.guilds[guild_id] = guild
        guild.members[self.bot_user.id] = FakeMember(self.bot_user, guild_id, [bot_role.id])
        if owner is not None:
            guild.members[owner.id] = FakeMember(owner, guild_id)
        for session in self._live_sessions(guild_id):
            session.dispatch("GUILD_CREATE", self._guild_create_payload(guild, session))
        return guild

    def add_channel(
        self,
        guild: FakeGuild | int,
        name: str,
        *,
        type: int = 0,
        topic: str | None = None,
        category: FakeChannel | None = None,
        overwrites: Sequence[JSON] = (),
    ) -> FakeChannel:
        """Create a guild channel (text by default; type 4 = category, 2 = voice)."""
        g = self._guild(guild)
        channel = FakeChannel(
            self.snowflakes.next(),
            name,
            type=type,
            guild_id=g.id,
            position=len(g.channels),
            topic=topic,
            parent_id=category.id if category else None,
            overwrites=[dict(o) for o in overwrites],
        )
        self._register_channel(g, channel)
        self._dispatch_guild("CHANNEL_CREATE", channel.to_payload(), g.id, INTENT_GUILDS)
        return channel

    def delete_channel(self, channel: FakeChannel | int) -> None:
        """Delete a channel, as a server's admin does: anything the bot then sends to it is 404 Unknown Channel.
        (The gateway's CHANNEL_DELETE is not sent: the bot's cache may still hold it, as after a missed event.)"""
        ch = self._channel(channel)
        self._channels.pop(ch.id, None)
        for guild in self.guilds.values():
            guild.channels.pop(ch.id, None)

    def add_thread(
        self, channel: FakeChannel | int, name: str, *, owner: FakeUser | None = None, private: bool = False
    ) -> FakeChannel:
        """Create a thread under a text channel."""
        return self._open_thread(self._channel(channel), name, 12 if private else 11, (owner or self.bot_user).id)

    def _open_thread(self, parent: FakeChannel, name: str, ttype: int, owner_id: int, *,
                     thread_id: int | None = None, auto_archive_duration: int = 1440) -> FakeChannel:
        g = self._guild(parent.guild_id or 0)
        thread = FakeChannel(
            thread_id or self.snowflakes.next(),
            name,
            type=ttype,
            guild_id=g.id,
            parent_id=parent.id,
            owner_id=owner_id,
            auto_archive_duration=auto_archive_duration,
        )
        self._register_channel(g, thread)
        self._dispatch_guild("THREAD_CREATE", {**thread.to_payload(), "newly_created": True}, g.id, INTENT_GUILDS)
        return thread

    def add_forum(self, guild: FakeGuild | int, name: str, *, overwrites: Sequence[JSON] = ()) -> FakeChannel:
        """Create a forum channel (type 15): it takes no message itself; each post is a thread (`add_forum_post`)."""
        return self.add_channel(guild, name, type=FORUM, overwrites=overwrites)

    def add_forum_post(
        self, forum: FakeChannel | int, name: str, *, owner: FakeUser | FakeMember, content: str = "…"
    ) -> FakeChannel:
        """A member opens a post in a forum: a public thread whose parent is the forum, opened by the member's
        starter message (its id the thread's, as on Discord)."""
        parent = self._channel(forum)
        if parent.type != FORUM:
            raise FakeDiscordError(f"#{parent.name} is not a forum")
        user = self._user(owner)
        thread = self._open_thread(parent, name, 11, user.id)
        self._create_message(thread, user, {"content": content}, {}, message_id=thread.id)
        return thread

    def set_thread(
        self, thread: FakeChannel | int, *, archived: bool | None = None, locked: bool | None = None
    ) -> None:
        """What Discord or a moderator does to a thread: auto-archive it after inactivity (`archived=True`),
        lock it, or open it again; the bot hears THREAD_UPDATE."""
        ch = self._channel(thread)
        if not ch.is_thread:
            raise FakeDiscordError(f"#{ch.name} is not a thread")
        if archived is not None:
            ch.archived = archived
        if locked is not None:
            ch.locked = locked
        self._dispatch_guild("THREAD_UPDATE", ch.to_payload(), ch.guild_id, INTENT_GUILDS)

    def add_role(
        self,
        guild: FakeGuild | int,
        name: str,
        permissions: int = 0,
        *,
        color: int = 0,
        position: int | None = None,
        mentionable: bool = False,
        hoist: bool = False,
    ) -> FakeRole:
        """Create a role (positioned below the bot's role unless ``position`` is given)."""
        g = self._guild(guild)
        if position is None:
            position = 1 + max((r.position for r in g.roles.values() if not r.managed), default=0)
        role = FakeRole(
            self.snowflakes.next(),
            g.id,
            name,
            int(permissions),
            position=position,
            color=color,
            mentionable=mentionable,
            hoist=hoist,
        )
        g.roles[role.id] = role
        self._dispatch_guild(
            "GUILD_ROLE_CREATE", {"guild_id": str(g.id), "role": role.to_payload()}, g.id, INTENT_GUILDS
        )
        return role

    def set_role_permissions(self, role: FakeRole, permissions: int) -> None:
        """A server's admin changes a role's permissions (the bot's own role: what it was invited with)."""
        role.permissions = permissions
        self._dispatch_guild(
            "GUILD_ROLE_UPDATE", {"guild_id": str(role.guild_id), "role": role.to_payload()}, role.guild_id,
            INTENT_GUILDS,
        )

    def add_member(
        self,
        guild: FakeGuild | int,
        user: FakeUser | int,
        roles: Iterable[FakeRole | int] = (),
        permissions: int | None = None,
        *,
        nick: str | None = None,
    ) -> FakeMember:
        """Add ``user`` to ``guild``.

        ``permissions`` overrides the permissions computed from roles and
        channel overwrites (handy for "this user is an admin").
        """
        g = self._guild(guild)
        u = self._user(user)
        role_ids = [r if isinstance(r, int) else r.id for r in roles]
        for rid in role_ids:
            if rid not in g.roles:
                raise FakeDiscordError(f"role {rid} is not in guild {g.name!r}")
        member = FakeMember(u, g.id, role_ids, nick=nick, permissions=permissions)
        existed = u.id in g.members
        g.members[u.id] = member
        event = "GUILD_MEMBER_UPDATE" if existed else "GUILD_MEMBER_ADD"
        self._dispatch_guild(event, {**member.to_payload(), "guild_id": str(g.id)}, g.id, INTENT_GUILD_MEMBERS)
        return member

    def get_user(self, user_id: int) -> FakeUser | None:
        """User by id."""
        return self.users.get(user_id)

    def get_channel(self, channel_id: int) -> FakeChannel | None:
        """Channel, thread or DM channel by id."""
        return self._channels.get(channel_id)

    def get_message(self, message_id: int) -> FakeMessage | None:
        """Any message by id (including ephemeral and deleted ones)."""
        return self._messages.get(message_id)

    def close_dms(self, user: FakeUser | FakeMember | int, closed: bool = True) -> None:
        """Make ``user`` refuse (or, with ``closed=False``, take again) the bot's direct messages: sending to
        their DM channel answers 403 "Cannot send messages to this user" (code 50007), as Discord does when a
        user has closed their DMs."""
        user_id = self._user(user).id
        (self.closed_dms.add if closed else self.closed_dms.discard)(user_id)

    def dm_channel(self, user: FakeUser | int) -> FakeChannel | None:
        """The DM channel the bot opened with ``user``, if any."""
        return self._dm_channels.get(self._user(user).id)

    def member_permissions(
        self, guild: FakeGuild | int, member: FakeMember | FakeUser | int, channel: FakeChannel | int | None = None
    ) -> int:
        """Effective permission bits of a member (in a channel when given)."""
        g = self._guild(guild)
        m = self._member(g, member)
        return self._permissions(g, m, self._channel(channel) if channel is not None else None)

    # ------------------------------------------------------------------ messages

    def channel_messages(self, channel: FakeChannel | int, *, include_deleted: bool = False) -> list[FakeMessage]:
        """Messages in a channel, oldest first (ephemeral messages are never included)."""
        ch = self._channel(channel)
        return [m for m in self._channel_messages.get(ch.id, []) if include_deleted or not m.deleted]

    def dm_messages(self, user: FakeUser | int) -> list[FakeMessage]:
        """Messages in the bot's DM channel with ``user``."""
        dm = self.dm_channel(user)
        return [] if dm is None else self.channel_messages(dm)

    def pinned_messages(self, channel: FakeChannel | int) -> list[FakeMessage]:
        """Pinned messages of a channel, oldest first."""
        return [m for m in self.channel_messages(channel) if m.pinned]

    def mark(self) -> int:
        """A marker: messages created after this call have ``id > mark``."""
        return self.snowflakes.last

    async def wait_for_message(
        self,
        channel: FakeChannel | int,
        *,
        timeout: float | None = None,
        check: Callable[[FakeMessage], bool] | None = None,
        since: FakeMessage | int | None = None,
        author: FakeUser | None = None,
    ) -> FakeMessage:
        """Wait for a (non-deleted) message in ``channel``.

        Only messages created after ``since`` count (a message, a snowflake or
        :meth:`mark`); by default that is the start of the last driving call
        (``invoke``/``click``/``select``/``submit_modal``/``post_message``/...),
        so "the message the bot posted because of what I just did" is found
        even if it was posted before this call.  ``author`` defaults to the bot.
        """
        ch = self._channel(channel)
        floor = self._action_mark if since is None else (since.id if isinstance(since, FakeMessage) else since)
        who = author or self.bot_user

        def find() -> FakeMessage | None:
            for msg in self._channel_messages.get(ch.id, []):
                if msg.id > floor and not msg.deleted and msg.author.id == who.id and (check is None or check(msg)):
                    return msg
            return None

        return await self.wait_until(find, timeout=timeout, what=f"a message in #{ch.name}")

    def post_message(
        self,
        channel: FakeChannel | int,
        author: FakeUser | FakeMember,
        content: str = "",
        *,
        embeds: Sequence[JSON] = (),
        reply_to: FakeMessage | None = None,
    ) -> FakeMessage:
        """Post a message as a (human) user; dispatches MESSAGE_CREATE to the bot."""
        ch = self._channel(channel)
        user = author.user if isinstance(author, FakeMember) else author
        if ch.guild_id is not None and user.id not in self._guild(ch.guild_id).members:
            raise InvalidInteraction(f"{user.name} is not a member of the guild of #{ch.name}")
        self._action_mark = self.snowflakes.last
        payload: JSON = {"content": content, "embeds": list(embeds)}
        if reply_to is not None:
            payload["message_reference"] = {"message_id": str(reply_to.id)}
        return self._create_message(ch, user, payload, {})

    def react(self, message: FakeMessage | int, user: FakeUser | FakeMember, emoji: str) -> None:
        """Add a reaction as a user; dispatches MESSAGE_REACTION_ADD."""
        msg = self._message(message)
        u = user.user if isinstance(user, FakeMember) else user
        self._action_mark = self.snowflakes.last
        self._add_reaction(msg, u, emoji)

    # ------------------------------------------------------------------ commands

    @property
    def global_commands(self) -> list[JSON]:
        """Registered global application commands."""
        return list(self._commands.get(None, {}).values())

    def guild_commands(self, guild: FakeGuild | int) -> list[JSON]:
        """Registered application commands of one guild."""
        return list(self._commands.get(self._guild(guild).id, {}).values())

    def find_command(self, guild: FakeGuild | int | None, name: str, *, type: int = 1) -> JSON | None:
        """A registered command visible in ``guild`` (guild commands first, then global)."""
        scopes: list[int | None] = [] if guild is None else [self._guild(guild).id]
        scopes.append(None)
        for scope in scopes:
            for cmd in self._commands.get(scope, {}).values():
                if cmd["name"] == name and cmd.get("type", 1) == type:
                    return cmd
        return None

    # ------------------------------------------------------------------ driving interactions

    async def invoke(
        self,
        guild: FakeGuild | int,
        channel: FakeChannel | int,
        user: FakeUser | FakeMember | int,
        command: str,
        options: Mapping[str, Any] | None = None,
        *,
        locale: str = "en-US",
    ) -> InteractionResult:
        """Run a slash command such as ``"gm unit add"`` and wait for the initial response.

        Option values are checked/converted against the option types the bot
        registered: ints for INTEGER, str for STRING, ``FakeUser``/``FakeMember``
        for USER, ``FakeChannel`` for CHANNEL, ``FakeRole`` for ROLE,
        ``FakeAttachment`` for ATTACHMENT (ids are accepted too).  For options
        with choices, a choice name may be given instead of its value.
        Raises :class:`InvalidInteraction` for things the Discord client would
        refuse, :class:`InteractionNotAcknowledged` when the bot misses the
        deadline.
        """
        g, ch, member = self._context(guild, channel, user)
        cmd, path, defs = self._resolve_command_path(g, command)
        self._check_command_access(g, ch, member, cmd)
        resolved: JSON = {}
        built = self._build_options(g, ch, member, defs, options or {}, resolved, focused=None, command=command)
        data = self._command_data(cmd, path, built, resolved)
        return await self._send_interaction(
            InteractionType.APPLICATION_COMMAND, g, ch, member, data, label=command, locale=locale
        )

    async def autocomplete(
        self,
        guild: FakeGuild | int,
        channel: FakeChannel | int,
        user: FakeUser | FakeMember | int,
        command: str,
        focused: str,
        options: Mapping[str, Any] | None = None,
        *,
        locale: str = "en-US",
    ) -> list[JSON]:
        """Simulate typing into an autocomplete option; return the choices (``[{"name", "value"}]``).

        ``options[focused]`` is the partial text typed (default ``""``); it
        is always sent as a string, like Discord does.
        """
        g, ch, member = self._context(guild, channel, user)
        cmd, path, defs = self._resolve_command_path(g, command)
        self._check_command_access(g, ch, member, cmd)
        resolved: JSON = {}
        built = self._build_options(g, ch, member, defs, options or {}, resolved, focused=focused, command=command)
        data = self._command_data(cmd, path, built, resolved)
        result = await self._send_interaction(
            InteractionType.AUTOCOMPLETE, g, ch, member, data, label=f"{command} [{focused}]", locale=locale
        )
        return list(result.choices or [])

    async def invoke_context_menu(
        self,
        guild: FakeGuild | int,
        channel: FakeChannel | int,
        user: FakeUser | FakeMember | int,
        name: str,
        target: FakeUser | FakeMember | FakeMessage,
    ) -> InteractionResult:
        """Run a user (target is a user/member) or message (target is a message) context menu command."""
        g, ch, member = self._context(guild, channel, user)
        ctype = 3 if isinstance(target, FakeMessage) else 2
        cmd = self.find_command(g, name, type=ctype)
        if cmd is None:
            raise InvalidInteraction(f"no {'message' if ctype == 3 else 'user'} command {name!r} is registered")
        self._check_command_access(g, ch, member, cmd)
        resolved: JSON = {}
        if isinstance(target, FakeMessage):
            resolved["messages"] = {str(target.id): target.to_payload()}
            target_id = target.id
        else:
            target_user = target.user if isinstance(target, FakeMember) else target
            self._resolve_user(g, ch, member, target_user, resolved)
            target_id = target_user.id
        data: JSON = {"id": cmd["id"], "name": name, "type": ctype, "target_id": str(target_id), "resolved": resolved}
        if cmd.get("guild_id"):
            data["guild_id"] = cmd["guild_id"]
        return await self._send_interaction(InteractionType.APPLICATION_COMMAND, g, ch, member, data, label=name)

    async def click(
        self,
        guild: FakeGuild | int,
        channel: FakeChannel | int,
        user: FakeUser | FakeMember | int,
        message: FakeMessage | int,
        custom_id: str,
    ) -> InteractionResult:
        """Click the button with ``custom_id`` on ``message`` and wait for the initial response."""
        g, ch, member = self._context(guild, channel, user)
        msg = self._component_message(ch, message)
        comp = msg.find_component(custom_id)
        if comp is None or comp.get("type") != 2:
            raise InvalidInteraction(f"message {msg.id} has no button {custom_id!r}; custom_ids: {msg.custom_ids}")
        if comp.get("disabled"):
            raise InvalidInteraction(f"button {custom_id!r} is disabled")
        data: JSON = {"custom_id": custom_id, "component_type": 2}
        if "id" in comp:
            data["id"] = comp["id"]
        return await self._send_interaction(
            InteractionType.MESSAGE_COMPONENT, g, ch, member, data, label=custom_id, message=msg
        )

    async def select(
        self,
        guild: FakeGuild | int,
        channel: FakeChannel | int,
        user: FakeUser | FakeMember | int,
        message: FakeMessage | int,
        custom_id: str,
        values: Sequence[Any],
    ) -> InteractionResult:
        """Pick ``values`` in the select menu ``custom_id`` on ``message``.

        String selects take option values (or labels); user/role/mentionable/
        channel selects take model objects or ids.
        """
        g, ch, member = self._context(guild, channel, user)
        msg = self._component_message(ch, message)
        comp = msg.find_component(custom_id)
        if comp is None or comp.get("type") not in (3, 5, 6, 7, 8):
            raise InvalidInteraction(f"message {msg.id} has no select {custom_id!r}; custom_ids: {msg.custom_ids}")
        if comp.get("disabled"):
            raise InvalidInteraction(f"select {custom_id!r} is disabled")
        values_out, resolved = self._select_values(g, ch, member, comp, values)
        data: JSON = {"custom_id": custom_id, "component_type": comp["type"], "values": values_out}
        if resolved:
            data["resolved"] = resolved
        if "id" in comp:
            data["id"] = comp["id"]
        return await self._send_interaction(
            InteractionType.MESSAGE_COMPONENT, g, ch, member, data, label=custom_id, message=msg
        )

    async def submit_modal(
        self,
        result: InteractionResult,
        values: Mapping[str, Any],
        *,
        user: FakeUser | FakeMember | int | None = None,
    ) -> InteractionResult:
        """Fill in and submit the modal the bot opened in ``result`` (callback type 9).

        ``values`` maps custom_id to text (text inputs) or a list (selects).
        """
        if result.modal is None:
            raise InvalidInteraction(f"{result.describe()} did not open a modal")
        modal = result.modal
        member = self._member(result.guild, user) if user is not None else result.member
        provided = dict(values)
        components = self._modal_components(modal.get("components") or [], provided, result)
        if provided:
            raise InvalidInteraction(f"modal {modal.get('custom_id')!r} has no inputs {sorted(provided)}")
        data: JSON = {"custom_id": modal.get("custom_id"), "components": components}
        return await self._send_interaction(
            InteractionType.MODAL_SUBMIT,
            result.guild,
            result.channel,
            member,
            data,
            label=str(modal.get("custom_id")),
            message=result.source_message,
            parent=result,
        )

    # ------------------------------------------------------------------ gateway control

    def connected_sessions(self) -> int:
        """Number of identified sessions with a live websocket."""
        return sum(1 for s in self._sessions if s.alive and s.connection is not None and not s.connection.closing)

    async def wait_for_connection(self, guild: FakeGuild | int | None = None, timeout: float | None = None) -> None:
        """Wait until a bot session covering ``guild`` is connected."""
        gid = None if guild is None else self._guild(guild).id
        await self.wait_until(lambda: self._session_for(gid), timeout=timeout, what="a connected bot")

    async def disconnect(self, *, code: int = 4000, reconnect_opcode: bool = False) -> None:
        """Drop every gateway connection (the bot should RESUME).

        With ``reconnect_opcode`` an op 7 RECONNECT is sent instead of closing.
        """
        for conn in list(self._connections):
            conn.closing = True
            if reconnect_opcode:
                conn.send(Op.RECONNECT, None)
            else:
                await conn.ws.close(code=code, message=b"fake disconnect")

    # ------------------------------------------------------------------ errors / waiting

    @property
    def errors(self) -> list[logging.LogRecord]:
        """Captured, not yet consumed ERROR records."""
        with self._errors_lock:
            return [e.record for e in self._errors]

    def take_errors(self) -> list[logging.LogRecord]:
        """Return and consume all captured ERROR records."""
        with self._errors_lock:
            taken, self._errors = self._errors, []
        return [e.record for e in taken]

    def assert_no_errors(self) -> None:
        """Raise :class:`BotErrorLogged` (consuming them) if errors were captured."""
        with self._errors_lock:
            taken, self._errors = self._errors, []
        if taken:
            raise BotErrorLogged([e.record for e in taken], [e.text for e in taken])

    async def wait_for_error(self, *, match: str | None = None, timeout: float | None = None) -> logging.LogRecord:
        """Wait for a captured ERROR record whose text contains ``match``; consume and return it."""

        def find() -> logging.LogRecord | None:
            with self._errors_lock:
                for index, err in enumerate(self._errors):
                    if match is None or match in err.text:
                        del self._errors[index]
                        return err.record
            return None

        return await self.wait_until(find, timeout=timeout, what=f"an error log matching {match!r}", raise_errors=False)

    async def wait_until(
        self,
        predicate: Callable[[], T | None],
        *,
        timeout: float | None = None,
        what: str = "condition",
        raise_errors: bool = True,
    ) -> T:
        """Wait until ``predicate()`` returns a truthy value (re-evaluated on every change) and return it.

        Raises :class:`BotErrorLogged` as soon as an error is captured (unless
        ``raise_errors`` is False or ``fail_on_errors`` is off) and
        ``TimeoutError`` after ``timeout`` seconds (default :data:`HANG_TIMEOUT`: a hang).
        """
        loop = asyncio.get_running_loop()
        timeout = HANG_TIMEOUT if timeout is None else timeout
        deadline = loop.time() + timeout
        while True:
            if raise_errors:
                self._raise_errors()
            value = predicate()
            if value:
                return value
            remaining = deadline - loop.time()
            if remaining <= 0:
                raise TimeoutError(f"timed out after {timeout}s waiting for {what}")
            event = self._changed
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(event.wait(), remaining)

    def interaction_result(self, interaction_id: int) -> InteractionResult | None:
        """What happened to the interaction of that id (one the fake sent), if any."""
        return self._interactions.get(int(interaction_id))

    def tick(self) -> int:
        """The next tick of the run's order of events (interactions sent and acknowledged, notes)."""
        return next(self._ticks)

    def note(self, what: str, interaction: InteractionResult | None = None) -> Note:
        """Mark something in the order of events, e.g. "slow work began" for an interaction: a test then asks
        ``result.acknowledged_before(note.tick)`` rather than timing anything."""
        noted = Note(self.tick(), what, interaction)
        self.notes.append(noted)
        self._notify()
        return noted

    def _notify(self) -> None:
        self._changed.set()
        self._changed = asyncio.Event()

    def _raise_errors(self) -> None:
        if self.fail_on_errors:
            self.assert_no_errors()

    def _on_error_record(self, record: logging.LogRecord, text: str) -> None:
        with self._errors_lock:
            self._errors.append(_CapturedError(record, text))
        loop = self._loop
        if loop is not None and not loop.is_closed():
            with contextlib.suppress(RuntimeError):
                loop.call_soon_threadsafe(self._notify)

    # ================================================================== internals

    # -- lookups ------------------------------------------------------------------

    def _guild(self, guild: FakeGuild | int) -> FakeGuild:
        gid = guild if isinstance(guild, int) else guild.id
        try:
            return self.guilds[gid]
        except KeyError:
            raise FakeDiscordError(f"unknown guild {gid}") from None

    def _channel(self, channel: FakeChannel | int) -> FakeChannel:
        cid = channel if isinstance(channel, int) else channel.id
        try:
            return self._channels[cid]
        except KeyError:
            raise FakeDiscordError(f"unknown channel {cid}") from None

    def _user(self, user: FakeUser | FakeMember | int) -> FakeUser:
        if isinstance(user, FakeMember):
            return user.user
        uid = user if isinstance(user, int) else user.id
        try:
            return self.users[uid]
        except KeyError:
            raise FakeDiscordError(f"unknown user {uid}") from None

    def _member(self, guild: FakeGuild, user: FakeUser | FakeMember | int) -> FakeMember:
        u = self._user(user)
        member = guild.members.get(u.id)
        if member is None:
            raise InvalidInteraction(f"{u.name} is not a member of {guild.name!r}; use add_member()")
        return member

    def _message(self, message: FakeMessage | int) -> FakeMessage:
        mid = message if isinstance(message, int) else message.id
        try:
            return self._messages[mid]
        except KeyError:
            raise FakeDiscordError(f"unknown message {mid}") from None

    def _context(
        self, guild: FakeGuild | int, channel: FakeChannel | int, user: FakeUser | FakeMember | int
    ) -> tuple[FakeGuild, FakeChannel, FakeMember]:
        g = self._guild(guild)
        ch = self._channel(channel)
        if ch.guild_id != g.id:
            raise InvalidInteraction(f"channel #{ch.name} is not in guild {g.name!r}")
        member = self._member(g, user)
        if not self._permissions(g, member, ch) & VIEW_CHANNEL:
            raise InvalidInteraction(f"{member.user.name} cannot see #{ch.name}")
        return g, ch, member

    def _component_message(self, channel: FakeChannel, message: FakeMessage | int) -> FakeMessage:
        msg = self._message(message)
        if msg.deleted:
            raise InvalidInteraction(f"message {msg.id} was deleted")
        if msg.channel_id != channel.id:
            raise InvalidInteraction(f"message {msg.id} is not in #{channel.name}")
        return msg

    def _register_channel(self, guild: FakeGuild, channel: FakeChannel) -> None:
        guild.channels[channel.id] = channel
        self._channels[channel.id] = channel
        self._channel_messages.setdefault(channel.id, [])

    # -- permissions ---------------------------------------------------------------

    def _base_permissions(self, guild: FakeGuild, member: FakeMember) -> int:
        if member.permissions is not None:
            return member.permissions
        if guild.owner_id == member.id:
            return ALL_PERMISSIONS
        perms = guild.default_role.permissions
        for rid in member.role_ids:
            role = guild.roles.get(rid)
            if role is not None:
                perms |= role.permissions
        return ALL_PERMISSIONS if perms & ADMINISTRATOR else perms

    def _permissions(self, guild: FakeGuild, member: FakeMember, channel: FakeChannel | None = None) -> int:
        perms = self._base_permissions(guild, member)
        if member.permissions is not None or perms & ADMINISTRATOR or channel is None:
            return perms
        target = channel
        if channel.is_thread and channel.parent_id in self._channels:
            target = self._channels[channel.parent_id]
        overwrites = {int(o["id"]): o for o in target.overwrites}
        everyone = overwrites.get(guild.id)
        if everyone:
            perms = (perms & ~int(everyone.get("deny", 0))) | int(everyone.get("allow", 0))
        allow = deny = 0
        for rid in member.role_ids:
            ow = overwrites.get(rid)
            if ow and int(ow.get("type", 0)) == 0:
                allow |= int(ow.get("allow", 0))
                deny |= int(ow.get("deny", 0))
        perms = (perms & ~deny) | allow
        own = overwrites.get(member.id)
        if own and int(own.get("type", 1)) == 1:
            perms = (perms & ~int(own.get("deny", 0))) | int(own.get("allow", 0))
        return perms if perms & VIEW_CHANNEL else 0

    def _bot_member(self, guild: FakeGuild) -> FakeMember:
        return guild.members[self.bot_user.id]

    def _require_bot(self, channel: FakeChannel, *needed: int) -> None:
        if channel.guild_id is None:
            return
        guild = self.guilds[channel.guild_id]
        perms = self._permissions(guild, self._bot_member(guild), channel)
        if not perms & VIEW_CHANNEL:
            raise _HTTPError(403, 50001, "Missing Access")
        for bit in needed:
            if not perms & bit:
                raise _HTTPError(403, 50013, "Missing Permissions")

    def _require_bot_guild(self, guild: FakeGuild, bit: int) -> None:
        if not self._permissions(guild, self._bot_member(guild)) & bit:
            raise _HTTPError(403, 50013, "Missing Permissions")

    def _bot_top_position(self, guild: FakeGuild) -> int:
        member = self._bot_member(guild)
        return max((guild.roles[r].position for r in member.role_ids if r in guild.roles), default=0)

    def _check_role_hierarchy(self, guild: FakeGuild, role: FakeRole) -> None:
        if role.managed or role.id == guild.id:
            raise _HTTPError(403, 50013, "Missing Permissions")
        if guild.owner_id != self.bot_user.id and role.position >= self._bot_top_position(guild):
            raise _HTTPError(403, 50013, "Missing Permissions")

    # -- gateway dispatch helpers ----------------------------------------------------

    def _live_sessions(self, guild_id: int | None) -> list[_Session]:
        return [s for s in self._sessions if s.alive and s.covers(guild_id)]

    def _session_for(self, guild_id: int | None) -> _Session | None:
        candidates = [
            s
            for s in self._sessions
            if s.alive and s.ready and s.connection is not None and not s.connection.closing and s.covers(guild_id)
        ]
        return candidates[-1] if candidates else None

    def _dispatch_guild(self, event: str, data: JSON, guild_id: int | None, intent: int) -> None:
        for session in self._live_sessions(guild_id):
            if session.intents & intent:
                session.dispatch(event, data)

    def _guild_create_payload(self, guild: FakeGuild, session: _Session) -> JSON:
        # Like Discord: without the presences intent only the bot itself is sent; the
        # rest must be chunked (op 8) by clients that enable the members intent.
        presences = bool(session.intents & (1 << 8))
        members = list(guild.members.values()) if presences else [self._bot_member(guild)]
        return guild.to_payload(gateway=True, members=members)

    def _message_event_payload(self, msg: FakeMessage, session: _Session) -> JSON:
        payload = msg.to_payload()
        if msg.guild_id is not None:
            payload["guild_id"] = str(msg.guild_id)
            member = self.guilds[msg.guild_id].members.get(msg.author.id)
            if member is not None and msg.webhook_id is None:
                payload["member"] = member.to_payload(with_user=False)
        privileged = session.intents & INTENT_MESSAGE_CONTENT
        addressed = msg.author.id == self.bot_user.id or self.bot_user.id in msg.mention_ids or msg.guild_id is None
        if not privileged and not addressed:
            payload.update(content="", embeds=[], attachments=[], components=[])
        return payload

    def _dispatch_message(self, event: str, msg: FakeMessage) -> None:
        if msg.ephemeral:
            return
        intent = INTENT_GUILD_MESSAGES if msg.guild_id is not None else INTENT_DIRECT_MESSAGES
        for session in self._live_sessions(msg.guild_id):
            if session.intents & intent:
                session.dispatch(event, self._message_event_payload(msg, session))

    # -- interactions -----------------------------------------------------------------

    def _resolve_command_path(self, guild: FakeGuild, command: str) -> tuple[JSON, list[JSON], list[JSON]]:
        parts = command.split()
        if not parts:
            raise InvalidInteraction("empty command name")
        cmd = self.find_command(guild, parts[0])
        if cmd is None:
            known = sorted(
                {c["name"] for c in self.guild_commands(guild) + self.global_commands if c.get("type", 1) == 1}
            )
            raise InvalidInteraction(f"no slash command {parts[0]!r} is registered (did the bot sync?); known: {known}")
        path: list[JSON] = []
        defs: list[JSON] = list(cmd.get("options") or [])
        for part in parts[1:]:
            sub = next((o for o in defs if o["name"] == part and o["type"] in (1, 2)), None)
            if sub is None:
                subs = [o["name"] for o in defs if o["type"] in (1, 2)]
                raise InvalidInteraction(f"{command!r}: no subcommand {part!r}; available: {subs}")
            path.append(sub)
            defs = list(sub.get("options") or [])
        if any(o["type"] in (1, 2) for o in defs):
            subs = [o["name"] for o in defs if o["type"] in (1, 2)]
            raise InvalidInteraction(f"{command!r} is a group; pick a subcommand: {subs}")
        return cmd, path, defs

    def _check_command_access(self, guild: FakeGuild, channel: FakeChannel, member: FakeMember, cmd: JSON) -> None:
        required = cmd.get("default_member_permissions")
        if required is None:
            return
        perms = self._permissions(guild, member, channel)
        if perms & ADMINISTRATOR:
            return
        needed = int(required)
        if needed == 0 or perms & needed != needed:
            raise InvalidInteraction(
                f"{member.user.name} cannot use /{cmd['name']} (default_member_permissions={required})"
            )

    @staticmethod
    def _command_data(cmd: JSON, path: list[JSON], options: list[JSON], resolved: JSON) -> JSON:
        for node in reversed(path):
            options = [{"type": node["type"], "name": node["name"], "options": options}]
        data: JSON = {"id": cmd["id"], "name": cmd["name"], "type": 1, "options": options}
        if resolved:
            data["resolved"] = resolved
        if cmd.get("guild_id"):
            data["guild_id"] = cmd["guild_id"]
        return data

    def _build_options(
        self,
        guild: FakeGuild,
        channel: FakeChannel,
        member: FakeMember,
        defs: list[JSON],
        values: Mapping[str, Any],
        resolved: JSON,
        *,
        focused: str | None,
        command: str,
    ) -> list[JSON]:
        by_name = {d["name"]: d for d in defs}
        unknown = sorted(set(values) - set(by_name))
        if unknown:
            raise InvalidInteraction(f"/{command} has no option(s) {unknown}; options: {list(by_name)}")
        if focused is not None:
            fdef = by_name.get(focused)
            if fdef is None:
                raise InvalidInteraction(f"/{command} has no option {focused!r}")
            if not fdef.get("autocomplete"):
                raise InvalidInteraction(f"option {focused!r} of /{command} has no autocomplete")
        out: list[JSON] = []
        for d in defs:
            name = d["name"]
            if name == focused:
                raw = values.get(name, "")
                out.append({"name": name, "type": d["type"], "value": str(_unwrap(raw)), "focused": True})
                continue
            if name not in values or values[name] is None:
                if d.get("required") and focused is None:
                    raise InvalidInteraction(f"/{command}: required option {name!r} missing")
                continue
            value = self._convert_option(guild, channel, member, d, values[name], resolved, command=command)
            out.append({"name": name, "type": d["type"], "value": value})
        return out

    def _convert_option(
        self,
        guild: FakeGuild,
        channel: FakeChannel,
        member: FakeMember,
        d: JSON,
        raw: Any,
        resolved: JSON,
        *,
        command: str,
    ) -> Any:
        t = d["type"]
        name = d["name"]
        raw = _unwrap(raw)
        where = f"/{command} option {name!r}"

        def fail(msg: str) -> InvalidInteraction:
            return InvalidInteraction(f"{where}: {msg} (got {raw!r})")

        if t in (OptionType.STRING, OptionType.INTEGER, OptionType.NUMBER):
            choices = d.get("choices") or []
            if choices:
                by_value = [c["value"] for c in choices]
                if raw not in by_value or (isinstance(raw, bool) and t != OptionType.STRING):
                    match = next((c["value"] for c in choices if c["name"] == raw), None)
                    if match is None:
                        raise fail(f"must be one of {by_value} (or a choice name)")
                    raw = match
            if t == OptionType.STRING:
                if not isinstance(raw, str):
                    raise fail("STRING option needs a str")
                if len(raw) < int(d.get("min_length", 0)) or len(raw) > int(d.get("max_length", 6000)):
                    raise fail(f"length must be within [{d.get('min_length', 0)}, {d.get('max_length', 6000)}]")
                return raw
            if t == OptionType.INTEGER and (isinstance(raw, bool) or not isinstance(raw, int)):
                raise fail("INTEGER option needs an int")
            if isinstance(raw, bool) or not isinstance(raw, (int, float)):
                raise fail("NUMBER option needs an int or float")
            if "min_value" in d and raw < d["min_value"]:
                raise fail(f"must be >= {d['min_value']}")
            if "max_value" in d and raw > d["max_value"]:
                raise fail(f"must be <= {d['max_value']}")
            return raw
        if t == OptionType.BOOLEAN:
            if not isinstance(raw, bool):
                raise fail("BOOLEAN option needs a bool")
            return raw
        if t == OptionType.USER:
            user = self._as_user(raw)
            if user is None:
                raise fail("USER option needs a FakeUser/FakeMember/user id")
            self._resolve_user(guild, channel, member, user, resolved)
            return str(user.id)
        if t == OptionType.CHANNEL:
            target = raw if isinstance(raw, FakeChannel) else self._channels.get(raw) if isinstance(raw, int) else None
            if target is None or target.guild_id != guild.id:
                raise fail("CHANNEL option needs a channel of this guild")
            allowed = d.get("channel_types")
            if allowed and target.type not in allowed:
                raise fail(f"channel type {target.type} not in {allowed}")
            resolved.setdefault("channels", {})[str(target.id)] = self._partial_channel(guild, member, target)
            return str(target.id)
        if t == OptionType.ROLE:
            role = self._as_role(guild, raw)
            if role is None:
                raise fail("ROLE option needs a role of this guild")
            resolved.setdefault("roles", {})[str(role.id)] = role.to_payload()
            return str(role.id)
        if t == OptionType.MENTIONABLE:
            role = self._as_role(guild, raw)
            if role is not None:
                resolved.setdefault("roles", {})[str(role.id)] = role.to_payload()
                return str(role.id)
            user = self._as_user(raw)
            if user is None:
                raise fail("MENTIONABLE option needs a user or role")
            self._resolve_user(guild, channel, member, user, resolved)
            return str(user.id)
        if t == OptionType.ATTACHMENT:
            if not isinstance(raw, FakeAttachment):
                raise fail("ATTACHMENT option needs a FakeAttachment")
            att = self._store_attachment(raw, channel.id)
            resolved.setdefault("attachments", {})[str(att.id)] = att.to_payload()
            return str(att.id)
        raise fail(f"unsupported option type {t}")

    def _as_user(self, raw: Any) -> FakeUser | None:
        if isinstance(raw, FakeMember):
            return raw.user
        if isinstance(raw, FakeUser):
            return raw
        if isinstance(raw, int) and not isinstance(raw, bool):
            return self.users.get(raw)
        return None

    @staticmethod
    def _as_role(guild: FakeGuild, raw: Any) -> FakeRole | None:
        if isinstance(raw, FakeRole):
            return raw if raw.guild_id == guild.id else None
        if isinstance(raw, int) and not isinstance(raw, bool):
            return guild.roles.get(raw)
        return None

    def _resolve_user(
        self, guild: FakeGuild, channel: FakeChannel, invoker: FakeMember, user: FakeUser, resolved: JSON
    ) -> None:
        resolved.setdefault("users", {})[str(user.id)] = user.to_payload()
        target = guild.members.get(user.id)
        if target is not None:
            resolved.setdefault("members", {})[str(user.id)] = target.to_payload(
                with_user=False, permissions=self._permissions(guild, target, channel)
            )

    def _partial_channel(self, guild: FakeGuild, member: FakeMember, channel: FakeChannel) -> JSON:
        payload = channel.to_payload()
        payload["permissions"] = str(self._permissions(guild, member, channel))
        return payload

    def _select_values(
        self, guild: FakeGuild, channel: FakeChannel, member: FakeMember, comp: JSON, values: Sequence[Any]
    ) -> tuple[list[str], JSON]:
        ctype = comp["type"]
        cid = comp.get("custom_id")
        lo, hi = int(comp.get("min_values", 1)), int(comp.get("max_values", 1))
        if not lo <= len(values) <= hi:
            raise InvalidInteraction(f"select {cid!r} needs between {lo} and {hi} values, got {len(values)}")
        resolved: JSON = {}
        out: list[str] = []
        for raw in values:
            raw = _unwrap(raw)
            if ctype == 3:
                options = comp.get("options") or []
                match = next((o for o in options if o.get("value") == raw), None)
                match = match or next((o for o in options if o.get("label") == raw), None)
                if match is None:
                    raise InvalidInteraction(
                        f"select {cid!r} has no option {raw!r}; values: {[o.get('value') for o in options]}"
                    )
                out.append(match["value"])
                continue
            role = self._as_role(guild, raw) if ctype in (6, 7) else None
            if role is not None:
                resolved.setdefault("roles", {})[str(role.id)] = role.to_payload()
                out.append(str(role.id))
                continue
            user = self._as_user(raw) if ctype in (5, 7) else None
            if user is not None:
                self._resolve_user(guild, channel, member, user, resolved)
                out.append(str(user.id))
                continue
            if ctype == 8:
                target = (
                    raw if isinstance(raw, FakeChannel) else self._channels.get(raw) if isinstance(raw, int) else None
                )
                if target is not None and target.guild_id == guild.id:
                    resolved.setdefault("channels", {})[str(target.id)] = self._partial_channel(guild, member, target)
                    out.append(str(target.id))
                    continue
            raise InvalidInteraction(f"select {cid!r} (type {ctype}) cannot take {raw!r}")
        return out, resolved

    def _modal_components(
        self, components: list[JSON], provided: dict[str, Any], result: InteractionResult
    ) -> list[JSON]:
        out: list[JSON] = []
        for comp in components:
            ctype = comp.get("type")
            if ctype == 1:
                out.append(
                    {"type": 1, "components": self._modal_components(comp.get("components") or [], provided, result)}
                )
            elif ctype == 18:
                inner = self._modal_components([comp["component"]], provided, result)
                entry: JSON = {"type": 18, "component": inner[0]}
                if "id" in comp:
                    entry["id"] = comp["id"]
                out.append(entry)
            elif ctype == 10:
                entry = {"type": 10, "content": comp.get("content", "")}
                if "id" in comp:
                    entry["id"] = comp["id"]
                out.append(entry)
            elif ctype == 4:
                cid = comp["custom_id"]
                text = provided.pop(cid, comp.get("value") or "")
                if not isinstance(text, str):
                    raise InvalidInteraction(f"text input {cid!r} needs a str")
                if comp.get("required", True) and not text:
                    raise InvalidInteraction(f"text input {cid!r} is required")
                if text and not int(comp.get("min_length", 0)) <= len(text) <= int(comp.get("max_length", 4000)):
                    raise InvalidInteraction(f"text input {cid!r}: length out of range")
                entry = {"type": 4, "custom_id": cid, "value": text}
                if "id" in comp:
                    entry["id"] = comp["id"]
                out.append(entry)
            elif ctype in (3, 5, 6, 7, 8):
                cid = comp["custom_id"]
                raw_values = list(provided.pop(cid, []))
                if not raw_values and not comp.get("required", True):
                    values: list[str] = []
                else:
                    values, _ = self._select_values(result.guild, result.channel, result.member, comp, raw_values)
                entry = {"type": ctype, "custom_id": cid, "values": values}
                if "id" in comp:
                    entry["id"] = comp["id"]
                out.append(entry)
            else:
                out.append({k: v for k, v in comp.items() if k in ("type", "id", "custom_id")})
        return out

    async def _send_interaction(
        self,
        itype: int,
        guild: FakeGuild,
        channel: FakeChannel,
        member: FakeMember,
        data: JSON,
        *,
        label: str,
        message: FakeMessage | None = None,
        parent: InteractionResult | None = None,
        locale: str = "en-US",
    ) -> InteractionResult:
        self._raise_errors()
        await self.wait_until(lambda: self._session_for(guild.id), what="a connected, ready bot session")
        session = self._session_for(guild.id)
        assert session is not None
        self._action_mark = self.snowflakes.last
        interaction_id = self.snowflakes.next()
        token = "aW50ZXJhY3Rpb24" + secrets.token_urlsafe(48)
        bot_member = self._bot_member(guild)
        payload: JSON = {
            "id": str(interaction_id),
            "application_id": str(self.application_id),
            "type": int(itype),
            "data": data,
            "guild_id": str(guild.id),
            "guild": {"id": str(guild.id), "locale": "en-US", "features": []},
            "channel_id": str(channel.id),
            "channel": self._partial_channel(guild, member, channel),
            "member": member.to_payload(permissions=self._permissions(guild, member, channel)),
            "token": token,
            "version": 1,
            "app_permissions": str(self._permissions(guild, bot_member, channel)),
            "locale": locale,
            "guild_locale": "en-US",
            "entitlements": [],
            "entitlement_sku_ids": [],
            "authorizing_integration_owners": {"0": str(guild.id)},
            "context": 0,
            "attachment_size_limit": 10 * 1024 * 1024,
        }
        if message is not None:
            payload["message"] = message.to_payload()
        result = InteractionResult(
            self,
            interaction_id=interaction_id,
            token=token,
            interaction_type=itype,
            guild=guild,
            channel=channel,
            member=member,
            label=label,
            payload=payload,
            source_message=message,
            parent=parent,
        )
        self.interactions.append(result)
        self._interactions[interaction_id] = result
        self._interactions_by_token[token] = result
        loop = asyncio.get_running_loop()
        written: asyncio.Future[float] = loop.create_future()
        session.dispatch("INTERACTION_CREATE", payload, future=written)
        result.sent_at = await written
        result.sent_tick = self.tick()

        def acknowledged() -> bool:
            return result.response_type is not None

        if self.interaction_deadline is None:
            try:
                await self.wait_until(acknowledged, what=result.describe())
            except TimeoutError:
                raise InteractionNotAcknowledged(result, HANG_TIMEOUT) from None
            return result
        deadline = result.sent_at + self.interaction_deadline
        try:
            await self.wait_until(acknowledged, timeout=max(0.0, deadline - loop.time()), what=result.describe())
        except TimeoutError:
            raise InteractionNotAcknowledged(result) from None
        return result

    # -- messages -------------------------------------------------------------------------

    def _store_attachment(self, att: FakeAttachment, channel_id: int) -> FakeAttachment:
        stored = FakeAttachment(att.filename, att.data, att.content_type, att.description)
        stored.id = self.snowflakes.next()
        stored.url = f"{self.base_url}/attachments/{stored.id}/{stored.filename}"
        self._attachments[stored.id] = stored
        return stored

    def _attachments_for(
        self, payload: JSON, files: dict[int, FakeAttachment], channel_id: int, existing: Sequence[FakeAttachment] = ()
    ) -> list[FakeAttachment] | None:
        """Attachments after applying ``payload``/``files``; None means unchanged."""
        specs = payload.get("attachments")
        if specs is None and not files:
            return None
        result: list[FakeAttachment] = [] if specs is not None else list(existing)
        by_id = {str(a.id): a for a in existing}
        used: set[int] = set()
        for spec in specs or []:
            sid = str(spec.get("id"))
            if sid in by_id:
                result.append(by_id[sid])
                continue
            try:
                index = int(sid)
            except ValueError:
                raise _form_error(["attachments"], "ATTACHMENT_NOT_FOUND", f"Unknown attachment {sid}") from None
            upload = files.get(index)
            if upload is None:
                if index in by_id:
                    continue
                raise _form_error(["attachments"], "ATTACHMENT_NOT_FOUND", f"No file uploaded for attachment {sid}")
            used.add(index)
            result.append(
                self._store_attachment(
                    FakeAttachment(
                        spec.get("filename") or upload.filename,
                        upload.data,
                        upload.content_type,
                        spec.get("description"),
                    ),
                    channel_id,
                )
            )
        for index, upload in sorted(files.items()):
            if index not in used:
                result.append(self._store_attachment(upload, channel_id))
        return result

    def _parse_mentions(self, msg: FakeMessage) -> None:
        text = msg.content or ""
        msg.mention_ids = [int(m) for m in re.findall(r"<@!?(\d+)>", text) if int(m) in self.users]
        msg.mention_role_ids = [int(m) for m in re.findall(r"<@&(\d+)>", text)]
        msg.mention_everyone = "@everyone" in text or "@here" in text

    def _create_message(
        self,
        channel: FakeChannel,
        author: FakeUser,
        payload: JSON,
        files: dict[int, FakeAttachment],
        *,
        msg_type: int = 0,
        interaction: InteractionResult | None = None,
        extra_flags: int = 0,
        message_id: int | None = None,
    ) -> FakeMessage:
        _validate_message(payload)
        attachments = self._attachments_for(payload, files, channel.id) or []
        flags = (int(payload.get("flags") or 0) & (SUPPRESS_EMBEDS | IS_COMPONENTS_V2 | (1 << 12))) | extra_flags
        if interaction is not None:
            flags |= int(payload.get("flags") or 0) & EPHEMERAL
        msg = FakeMessage(
            id=message_id or self.snowflakes.next(),
            channel_id=channel.id,
            guild_id=channel.guild_id,
            author=author,
            content=payload.get("content") or "",
            embeds=list(payload.get("embeds") or []),
            components=list(payload.get("components") or []),
            attachments=attachments,
            flags=flags,
            type=msg_type,
            tts=bool(payload.get("tts")),
            allowed_mentions=payload.get("allowed_mentions"),
        )
        if not (
            msg.content
            or msg.embeds
            or msg.components
            or msg.attachments
            or payload.get("sticker_ids")
            or payload.get("poll")
            or msg.loading
        ):
            raise _HTTPError(400, 50006, "Cannot send an empty message")
        ref = payload.get("message_reference")
        if ref and ref.get("message_id") and int(ref.get("type", 0)) == 0:
            target = self._messages.get(int(ref["message_id"]))
            if target is None or target.deleted or target.channel_id != channel.id:
                if ref.get("fail_if_not_exists", True):
                    raise _form_error(["message_reference"], "MESSAGE_REFERENCE_UNKNOWN_MESSAGE", "Unknown message")
            else:
                msg.message_reference = {
                    "type": 0,
                    "message_id": str(target.id),
                    "channel_id": str(channel.id),
                    "guild_id": _sid(channel.guild_id),
                }
                msg.referenced_message = target
                if msg.type == 0:
                    msg.type = 19
        if interaction is not None:
            msg.webhook_id = self.application_id
            msg.application_id = self.application_id
            msg.interaction_id = interaction.id
            meta: JSON = {
                "id": str(interaction.id),
                "type": interaction.interaction_type,
                "user": interaction.member.user.to_payload(),
                "authorizing_integration_owners": {"0": str(interaction.guild.id)},
            }
            if interaction.interaction_type == InteractionType.APPLICATION_COMMAND:
                meta["name"] = interaction.label
                meta["command_type"] = 1
            if (
                interaction.source_message is not None
                and interaction.interaction_type == InteractionType.MESSAGE_COMPONENT
            ):
                meta["interacted_message_id"] = str(interaction.source_message.id)
            if interaction.message is not None and interaction.message is not msg:
                meta["original_response_message_id"] = str(interaction.message.id)
            msg.interaction_metadata = meta
        self._parse_mentions(msg)
        self._messages[msg.id] = msg
        if not msg.ephemeral:
            self._channel_messages.setdefault(channel.id, []).append(msg)
            channel.last_message_id = msg.id
            channel.message_count += 1
            self._dispatch_message("MESSAGE_CREATE", msg)
        self._notify()
        return msg

    def _edit_message(self, msg: FakeMessage, payload: JSON, files: dict[int, FakeAttachment]) -> FakeMessage:
        if msg.deleted:
            raise _HTTPError(404, 10008, "Unknown Message")
        _validate_message(payload)
        attachments = self._attachments_for(payload, files, msg.channel_id, msg.attachments)
        content = payload["content"] if "content" in payload else msg.content
        embeds = payload["embeds"] if "embeds" in payload else msg.embeds
        components = payload["components"] if "components" in payload else msg.components
        new_attachments = msg.attachments if attachments is None else attachments
        if not (content or embeds or components or new_attachments):
            raise _HTTPError(400, 50006, "Cannot send an empty message")
        was_loading = msg.loading
        msg.history.append(msg.to_payload())
        msg.content = content or ""
        msg.embeds = list(embeds or [])
        msg.components = list(components or [])
        msg.attachments = list(new_attachments)
        if "flags" in payload and payload["flags"] is not None:
            keep = msg.flags & ~SUPPRESS_EMBEDS
            msg.flags = keep | (int(payload["flags"]) & SUPPRESS_EMBEDS)
        if "allowed_mentions" in payload:
            msg.allowed_mentions = payload["allowed_mentions"]
        msg.flags &= ~LOADING
        if not was_loading:
            msg.edited_timestamp = _now_iso()
        self._parse_mentions(msg)
        self._dispatch_message("MESSAGE_UPDATE", msg)
        self._notify()
        return msg

    def _delete_message(self, msg: FakeMessage) -> None:
        if msg.deleted:
            raise _HTTPError(404, 10008, "Unknown Message")
        msg.deleted = True
        if not msg.ephemeral:
            intent = INTENT_GUILD_MESSAGES if msg.guild_id is not None else INTENT_DIRECT_MESSAGES
            data: JSON = {"id": str(msg.id), "channel_id": str(msg.channel_id)}
            if msg.guild_id is not None:
                data["guild_id"] = str(msg.guild_id)
            for session in self._live_sessions(msg.guild_id):
                if session.intents & intent:
                    session.dispatch("MESSAGE_DELETE", data)
        self._notify()

    def _add_reaction(self, msg: FakeMessage, user: FakeUser, emoji: str) -> None:
        users = msg.reactions.setdefault(emoji, [])
        if user.id in users:
            return
        users.append(user.id)
        data: JSON = {
            "user_id": str(user.id),
            "channel_id": str(msg.channel_id),
            "message_id": str(msg.id),
            "emoji": _emoji_payload(emoji),
            "burst": False,
            "type": 0,
            "message_author_id": str(msg.author.id),
        }
        intent = INTENT_GUILD_MESSAGE_REACTIONS
        if msg.guild_id is not None:
            data["guild_id"] = str(msg.guild_id)
            member = self.guilds[msg.guild_id].members.get(user.id)
            if member is not None:
                data["member"] = member.to_payload()
        else:
            intent = INTENT_DIRECT_MESSAGE_REACTIONS
        for session in self._live_sessions(msg.guild_id):
            if session.intents & intent:
                session.dispatch("MESSAGE_REACTION_ADD", data)
        self._notify()

    def _remove_reaction(self, msg: FakeMessage, user_id: int, emoji: str) -> None:
        users = msg.reactions.get(emoji, [])
        if user_id in users:
            users.remove(user_id)
            data: JSON = {
                "user_id": str(user_id),
                "channel_id": str(msg.channel_id),
                "message_id": str(msg.id),
                "emoji": _emoji_payload(emoji),
                "burst": False,
                "type": 0,
            }
            if msg.guild_id is not None:
                data["guild_id"] = str(msg.guild_id)
            self._dispatch_guild("MESSAGE_REACTION_REMOVE", data, msg.guild_id, INTENT_GUILD_MESSAGE_REACTIONS)
        self._notify()

    # ================================================================== HTTP

    def _register_routes(self) -> None:
        def add(method: str, pattern: str, handler: _Handler, *, auth: bool = True) -> None:
            self._routes.append((method, re.compile(f"^{pattern}$"), handler, auth))

        add("GET", "/gateway", self._r_gateway, auth=False)
        add("GET", "/gateway/bot", self._r_gateway_bot)
        add("GET", "/users/@me", self._r_me)
        add("GET", "/users/(?P<uid>\\d+)", self._r_user)
        add("POST", "/users/@me/channels", self._r_create_dm)
        add("GET", "/oauth2/applications/@me", self._r_application)
        add("GET", "/applications/@me", self._r_application)
        for scope in ("", "/guilds/(?P<gid>\\d+)"):
            base = f"/applications/(?P<app>\\d+){scope}/commands"
            add("GET", f"{base}/permissions", self._r_command_permissions)
            add("GET", base, self._r_list_commands)
            add("PUT", base, self._r_bulk_commands)
            add("POST", base, self._r_upsert_command)
            add("GET", f"{base}/(?P<cid>\\d+)", self._r_get_command)
            add("PATCH", f"{base}/(?P<cid>\\d+)", self._r_edit_command)
            add("DELETE", f"{base}/(?P<cid>\\d+)", self._r_delete_command)
        add("POST", "/interactions/(?P<iid>\\d+)/(?P<token>[^/]+)/callback", self._r_interaction_callback, auth=False)
        add("POST", "/webhooks/(?P<app>\\d+)/(?P<token>[^/]+)", self._r_followup, auth=False)
        webhook_msg = "/webhooks/(?P<app>\\d+)/(?P<token>[^/]+)/messages/(?P<mid>@original|\\d+)"
        add("GET", webhook_msg, self._r_webhook_get, auth=False)
        add("PATCH", webhook_msg, self._r_webhook_edit, auth=False)
        add("DELETE", webhook_msg, self._r_webhook_delete, auth=False)
        ch = "/channels/(?P<cid>\\d+)"
        msg = f"{ch}/messages/(?P<mid>\\d+)"
        add("GET", ch, self._r_get_channel)
        add("PATCH", ch, self._r_edit_channel)
        add("DELETE", ch, self._r_delete_channel)
        add("GET", f"{ch}/messages/pins", self._r_pins)
        add("GET", f"{ch}/pins", self._r_pins_legacy)
        for pin in (f"{ch}/messages/pins/(?P<mid>\\d+)", f"{ch}/pins/(?P<mid>\\d+)"):
            add("PUT", pin, self._r_pin)
            add("DELETE", pin, self._r_unpin)
        add("GET", f"{ch}/messages", self._r_list_messages)
        add("POST", f"{ch}/messages", self._r_create_message)
        add("POST", f"{ch}/messages/bulk-delete", self._r_bulk_delete)
        add("GET", msg, self._r_get_message)
        add("PATCH", msg, self._r_edit_message)
        add("DELETE", msg, self._r_delete_message)
        add("PUT", f"{msg}/reactions/(?P<emoji>[^/]+)/@me", self._r_add_reaction)
        add("DELETE", f"{msg}/reactions/(?P<emoji>[^/]+)/(?P<uid>@me|\\d+)", self._r_remove_reaction)
        add("GET", f"{msg}/reactions/(?P<emoji>[^/]+)", self._r_reaction_users)
        add("DELETE", f"{msg}/reactions", self._r_clear_reactions)
        add("POST", f"{msg}/threads", self._r_thread_from_message)
        add("POST", f"{ch}/threads", self._r_create_thread)
        add("PUT", f"{ch}/thread-members/(?P<uid>@me|\\d+)", self._r_thread_member)
        add("DELETE", f"{ch}/thread-members/(?P<uid>@me|\\d+)", self._r_thread_member)
        add("POST", f"{ch}/typing", self._r_typing)
        add("PUT", f"{ch}/permissions/(?P<target>\\d+)", self._r_put_overwrite)
        add("DELETE", f"{ch}/permissions/(?P<target>\\d+)", self._r_delete_overwrite)
        g = "/guilds/(?P<gid>\\d+)"
        add("GET", g, self._r_get_guild)
        add("GET", f"{g}/channels", self._r_guild_channels)
        add("POST", f"{g}/channels", self._r_create_channel)
        add("GET", f"{g}/threads/active", self._r_active_threads)
        add("GET", f"{g}/roles", self._r_guild_roles)
        add("POST", f"{g}/roles", self._r_create_role)
        add("PATCH", f"{g}/roles/(?P<rid>\\d+)", self._r_edit_role)
        add("DELETE", f"{g}/roles/(?P<rid>\\d+)", self._r_delete_role)
        add("GET", f"{g}/members", self._r_list_members)
        add("GET", f"{g}/members/(?P<uid>\\d+)", self._r_get_member)
        add("PATCH", f"{g}/members/(?P<uid>\\d+)", self._r_edit_member)
        add("PUT", f"{g}/members/(?P<uid>\\d+)/roles/(?P<rid>\\d+)", self._r_add_member_role)
        add("DELETE", f"{g}/members/(?P<uid>\\d+)/roles/(?P<rid>\\d+)", self._r_remove_member_role)

    async def _handle_rest(self, request: web.Request) -> web.StreamResponse:
        match = re.match(r"^/api/v\d+(/.*)$", request.path)
        path = match.group(1) if match else request.path
        try:
            body, files = await _read_body(request)
        except ValueError as exc:
            return _json_response({"message": f"bad request body: {exc}", "code": 50109}, 400)
        record = RecordedRequest(request.method, path, dict(request.query), body)
        self.requests.append(record)
        for method, pattern, handler, auth in self._routes:
            if method != request.method:
                continue
            m = pattern.match(path)
            if m is None:
                continue
            if auth and request.headers.get("Authorization") != f"Bot {self.token}":
                record.status = 401
                return _json_response({"message": "401: Unauthorized", "code": 0}, 401)
            try:
                response = await handler(_Request(request, m.groupdict(), body, files))
            except _HTTPError as err:
                payload: JSON = {"message": err.message, "code": err.code}
                if err.errors:
                    payload["errors"] = err.errors
                response = _json_response(payload, err.status)
            except Exception:
                # Never answer 5xx: discord.py retries those with multi-second sleeps.
                _log.exception("fake discord crashed handling %s %s", request.method, path)
                response = _json_response({"message": "fake discord internal error", "code": 0}, 400)
            record.status = response.status
            self._notify()
            return response
        record.status = 404
        self.unhandled_requests.append(record)
        if self.strict_routes:
            _log.error("fake discord does not implement %s %s (query=%s)", request.method, path, dict(request.query))
        self._notify()
        return _json_response({"message": "404: Not Found", "code": 0}, 404)

    async def _handle_attachment(self, request: web.Request) -> web.StreamResponse:
        att = (
            self._attachments.get(int(request.match_info["att_id"])) if request.match_info["att_id"].isdigit() else None
        )
        if att is None:
            return _json_response({"message": "404: Not Found", "code": 0}, 404)
        return web.Response(body=att.data, content_type=att.content_type or "application/octet-stream")

    # -- misc / identity -------------------------------------------------------------

    async def _r_gateway(self, req: _Request) -> web.StreamResponse:
        return _json_response({"url": str(self.gateway_url)})

    async def _r_gateway_bot(self, req: _Request) -> web.StreamResponse:
        return _json_response(
            {
                "url": str(self.gateway_url),
                "shards": 1,
                "session_start_limit": {"total": 1000, "remaining": 1000, "reset_after": 0, "max_concurrency": 1},
            }
        )

    async def _r_me(self, req: _Request) -> web.StreamResponse:
        return _json_response({**self.bot_user.to_payload(), "verified": True, "mfa_enabled": False, "flags": 0})

    async def _r_user(self, req: _Request) -> web.StreamResponse:
        user = self.users.get(int(req.params["uid"]))
        if user is None:
            raise _HTTPError(404, 10013, "Unknown User")
        return _json_response(user.to_payload())

    async def _r_create_dm(self, req: _Request) -> web.StreamResponse:
        user = self.users.get(int(req.json().get("recipient_id") or 0))
        if user is None:
            raise _HTTPError(404, 10013, "Unknown User")
        channel = self._dm_channels.get(user.id)
        if channel is None:
            channel = FakeChannel(self.snowflakes.next(), "", type=1, recipients=[user])
            self._dm_channels[user.id] = channel
            self._channels[channel.id] = channel
            self._channel_messages[channel.id] = []
        return _json_response(channel.to_payload())

    async def _r_application(self, req: _Request) -> web.StreamResponse:
        return _json_response(
            {
                "id": str(self.application_id),
                "name": self.bot_user.name,
                "icon": None,
                "description": "",
                "summary": "",
                "type": None,
                "bot_public": True,
                "bot_require_code_grant": False,
                "owner": self.owner_user.to_payload(),
                "team": None,
                "verify_key": "0" * 64,
                "flags": 0,
                "bot": self.bot_user.to_payload(),
                "redirect_uris": [],
                "interactions_endpoint_url": None,
            }
        )

    # -- application commands ------------------------------------------------------------

    def _command_scope(self, req: _Request) -> int | None:
        if int(req.params["app"]) != self.application_id:
            raise _HTTPError(403, 50001, "Missing Access")
        gid = req.params.get("gid")
        if gid is None:
            return None
        if int(gid) not in self.guilds:
            raise _HTTPError(403, 50001, "Missing Access")
        return int(gid)

    def _store_command(self, scope: int | None, payload: JSON, existing: Mapping[int, JSON]) -> JSON:
        ctype = int(payload.get("type", 1))
        previous = next(
            (c for c in existing.values() if c["name"] == payload.get("name") and c.get("type", 1) == ctype), None
        )
        stored: JSON = {
            "type": ctype,
            "description": "",
            "options": [],
            "default_member_permissions": None,
            "dm_permission": True,
            "nsfw": False,
            "integration_types": [0],
            "contexts": None,
            **payload,
        }
        stored["id"] = previous["id"] if previous else str(self.snowflakes.next())
        stored["application_id"] = str(self.application_id)
        stored["version"] = str(self.snowflakes.next())
        if scope is not None:
            stored["guild_id"] = str(scope)
        return stored

    async def _r_list_commands(self, req: _Request) -> web.StreamResponse:
        return _json_response(list(self._commands.get(self._command_scope(req), {}).values()))

    async def _r_command_permissions(self, req: _Request) -> web.StreamResponse:
        self._command_scope(req)
        return _json_response([])

    async def _r_bulk_commands(self, req: _Request) -> web.StreamResponse:
        scope = self._command_scope(req)
        if not isinstance(req.body, list):
            raise _form_error([], "LIST_TYPE_CONVERT", "Expected a list")
        _validate_commands(req.body)
        existing = self._commands.get(scope, {})
        stored = [self._store_command(scope, p, existing) for p in req.body]
        self._commands[scope] = {int(c["id"]): c for c in stored}
        self.command_syncs.append(CommandSync(scope, stored))
        return _json_response(stored)

    async def _r_upsert_command(self, req: _Request) -> web.StreamResponse:
        scope = self._command_scope(req)
        _validate_commands([req.json()])
        existing = self._commands.setdefault(scope, {})
        cmd = self._store_command(scope, req.json(), existing)
        created = int(cmd["id"]) not in existing
        existing[int(cmd["id"])] = cmd
        return _json_response(cmd, 201 if created else 200)

    def _get_command(self, req: _Request) -> tuple[dict[int, JSON], JSON]:
        scope = self._command_scope(req)
        commands = self._commands.get(scope, {})
        cmd = commands.get(int(req.params["cid"]))
        if cmd is None:
            raise _HTTPError(404, 10063, "Unknown application command")
        return commands, cmd

    async def _r_get_command(self, req: _Request) -> web.StreamResponse:
        return _json_response(self._get_command(req)[1])

    async def _r_edit_command(self, req: _Request) -> web.StreamResponse:
        _, cmd = self._get_command(req)
        candidate = {**cmd, **req.json()}
        _validate_commands([candidate])
        cmd.update(req.json())
        cmd["version"] = str(self.snowflakes.next())
        return _json_response(cmd)

    async def _r_delete_command(self, req: _Request) -> web.StreamResponse:
        commands, cmd = self._get_command(req)
        del commands[int(cmd["id"])]
        return _no_content()

    # -- interaction callbacks / webhooks ------------------------------------------------

    async def _r_interaction_callback(self, req: _Request) -> web.StreamResponse:
        loop = asyncio.get_running_loop()
        now = loop.time()
        result = self._interactions.get(int(req.params["iid"]))
        if result is None or result.token != req.params["token"]:
            raise _HTTPError(404, 10062, "Unknown interaction")
        body = req.json()
        cb_type = body.get("type")
        data: JSON = body.get("data") or {}
        if result.response_type is not None:
            result.rejected_callbacks.append((400, body))
            raise _HTTPError(400, 40060, "Interaction has already been acknowledged.")
        elapsed = now - (result.sent_at if result.sent_at is not None else now)
        late = self.interaction_deadline is not None and elapsed > self.interaction_deadline
        if result.sent_at is None or late:
            result.deadline_missed = True
            result.rejected_callbacks.append((404, body))
            self.deadline_failures.append(DeadlineFailure(result.id, result.describe(), elapsed, cb_type))
            raise _HTTPError(404, 10062, "Unknown interaction")
        allowed = _ALLOWED_CALLBACKS.get(result.interaction_type, frozenset())
        if cb_type not in allowed:
            result.rejected_callbacks.append((400, body))
            raise _form_error(
                ["type"], "INTERACTION_RESPONSE_TYPE_INVALID", f"Callback type {cb_type} is not valid here"
            )
        if cb_type in (6, 7) and result.source_message is None:
            raise _form_error(
                ["type"], "INTERACTION_RESPONSE_TYPE_INVALID", "This interaction has no message to update"
            )
        try:
            response = self._apply_callback(result, int(cb_type), data, req.files)
        except _HTTPError:
            result.rejected_callbacks.append((400, body))
            raise
        result.response_type = int(cb_type)
        result.response_data = data
        result.acknowledged_at = now
        result.acknowledged_tick = self.tick()
        self._notify()
        with_response = req.query.get("with_response", "").lower() in ("1", "true")
        return _json_response(response) if with_response else _no_content()

    def _apply_callback(
        self, result: InteractionResult, cb_type: int, data: JSON, files: dict[int, FakeAttachment]
    ) -> JSON:
        info: JSON = {"id": str(result.id), "type": result.interaction_type}
        response: JSON = {"interaction": info}
        ephemeral = bool(int(data.get("flags") or 0) & EPHEMERAL)
        msg_type = 20 if result.interaction_type == InteractionType.APPLICATION_COMMAND else 0
        if cb_type == CallbackType.CHANNEL_MESSAGE_WITH_SOURCE:
            msg = self._create_message(
                result.channel, self.bot_user, data, files, msg_type=msg_type, interaction=result
            )
            result.message = msg
        elif cb_type == CallbackType.DEFERRED_CHANNEL_MESSAGE_WITH_SOURCE:
            msg = self._create_message(
                result.channel,
                self.bot_user,
                {"flags": data.get("flags")},
                {},
                msg_type=msg_type,
                interaction=result,
                extra_flags=LOADING,
            )
            result.message = msg
        elif cb_type == CallbackType.DEFERRED_UPDATE_MESSAGE:
            result.message = result.source_message
            return response
        elif cb_type == CallbackType.UPDATE_MESSAGE:
            assert result.source_message is not None
            result.message = self._edit_message(result.source_message, data, files)
        elif cb_type == CallbackType.APPLICATION_COMMAND_AUTOCOMPLETE_RESULT:
            result.choices = _validate_choices(data.get("choices"))
            return response
        elif cb_type == CallbackType.MODAL:
            _validate_modal(data)
            result.modal = data
            return response
        msg = result.message
        assert msg is not None
        info.update(
            response_message_id=str(msg.id),
            response_message_loading=msg.loading,
            response_message_ephemeral=msg.ephemeral or ephemeral,
        )
        response["resource"] = {"type": cb_type, "message": msg.to_payload()}
        return response

    def _webhook_interaction(self, req: _Request) -> InteractionResult:
        if int(req.params["app"]) != self.application_id:
            raise _HTTPError(404, 10015, "Unknown Webhook")
        result = self._interactions_by_token.get(req.params["token"])
        if result is None or result.response_type is None:
            raise _HTTPError(404, 10015, "Unknown Webhook")
        loop = asyncio.get_running_loop()
        if result.sent_at is not None and loop.time() - result.sent_at > self.interaction_token_ttl:
            raise _HTTPError(401, 50027, "Invalid Webhook Token")
        return result

    def _webhook_message(self, req: _Request) -> tuple[InteractionResult, FakeMessage]:
        result = self._webhook_interaction(req)
        mid = req.params["mid"]
        if mid == "@original":
            msg = result.message
        else:
            msg = next((m for m in result.messages if m.id == int(mid)), None)
        if msg is None or msg.deleted:
            raise _HTTPError(404, 10008, "Unknown Message")
        return result, msg

    async def _r_followup(self, req: _Request) -> web.StreamResponse:
        result = self._webhook_interaction(req)
        payload = req.json()
        original = result.message
        if (
            result.response_type == CallbackType.DEFERRED_CHANNEL_MESSAGE_WITH_SOURCE
            and original is not None
            and original.loading
            and not original.deleted
        ):
            # Like Discord: the first followup after a "thinking" defer replaces the placeholder.
            edit = {
                k: v
                for k, v in payload.items()
                if k in ("content", "embeds", "components", "attachments", "allowed_mentions")
            }
            msg = self._edit_message(original, edit, req.files)
        else:
            msg = self._create_message(result.channel, self.bot_user, payload, req.files, interaction=result)
        result.followups.append(msg)
        self._notify()
        wait = req.query.get("wait", "").lower() in ("1", "true")
        return _json_response(msg.to_payload()) if wait else _no_content()

    async def _r_webhook_get(self, req: _Request) -> web.StreamResponse:
        return _json_response(self._webhook_message(req)[1].to_payload())

    async def _r_webhook_edit(self, req: _Request) -> web.StreamResponse:
        _, msg = self._webhook_message(req)
        return _json_response(self._edit_message(msg, req.json(), req.files).to_payload())

    async def _r_webhook_delete(self, req: _Request) -> web.StreamResponse:
        _, msg = self._webhook_message(req)
        self._delete_message(msg)
        return _no_content()

    # -- channels & messages ---------------------------------------------------------------

    def _req_channel(self, req: _Request) -> FakeChannel:
        channel = self._channels.get(int(req.params["cid"]))
        if channel is None:
            raise _HTTPError(404, 10003, "Unknown Channel")
        return channel

    def _req_message(self, req: _Request, channel: FakeChannel) -> FakeMessage:
        msg = self._messages.get(int(req.params["mid"]))
        if msg is None or msg.deleted or msg.ephemeral or msg.channel_id != channel.id:
            raise _HTTPError(404, 10008, "Unknown Message")
        return msg

    async def _r_get_channel(self, req: _Request) -> web.StreamResponse:
        channel = self._req_channel(req)
        self._require_bot(channel)
        return _json_response(channel.to_payload())

    async def _r_edit_channel(self, req: _Request) -> web.StreamResponse:
        channel = self._req_channel(req)
        body = req.json()
        if channel.is_thread:
            self._require_thread_edit(channel, body)
        else:
            self._require_bot(channel, MANAGE_CHANNELS)
        for key in ("name", "topic", "position", "archived", "locked", "auto_archive_duration"):
            if key in body:
                setattr(channel, key, body[key])
        if "parent_id" in body:
            channel.parent_id = int(body["parent_id"]) if body["parent_id"] else None
        if "permission_overwrites" in body:
            channel.overwrites = [_overwrite(o) for o in body["permission_overwrites"] or []]
        event = "THREAD_UPDATE" if channel.is_thread else "CHANNEL_UPDATE"
        self._dispatch_guild(event, channel.to_payload(), channel.guild_id, INTENT_GUILDS)
        return _json_response(channel.to_payload())

    def _require_thread_edit(self, channel: FakeChannel, body: JSON) -> None:
        """Discord's rules for editing a thread (threads topic): opening it again (`archived: false`) needs only
        being in it (here: able to write in it) while it is unlocked, and its creator or Manage Threads when it is
        locked; its name, archiving and auto-archive by its creator or Manage Threads; locking, Manage Threads.
        Manage Channels on the parent, as a moderator has, does too."""
        self._require_bot(channel)
        guild = self.guilds[channel.guild_id or 0]
        perms = self._permissions(guild, self._bot_member(guild), channel)
        manages = bool(perms & (MANAGE_THREADS | MANAGE_CHANNELS))
        creator = channel.owner_id == self.bot_user.id
        keys = set(body) - {"archived"} if body.get("archived") is False else set(body)
        if body.get("archived") is False and channel.archived:
            opens = manages or (creator if channel.locked else bool(perms & SEND_MESSAGES_IN_THREADS) or creator)
            if not opens:
                raise _HTTPError(403, 50013, "Missing Permissions")
        if keys & {"locked", "rate_limit_per_user", "permission_overwrites", "parent_id"} and not manages:
            raise _HTTPError(403, 50013, "Missing Permissions")
        if keys and not (manages or creator):
            raise _HTTPError(403, 50013, "Missing Permissions")

    async def _r_delete_channel(self, req: _Request) -> web.StreamResponse:
        channel = self._req_channel(req)
        if channel.is_dm:
            return _json_response(channel.to_payload())
        self._require_bot(channel, MANAGE_CHANNELS)
        guild = self.guilds[channel.guild_id or 0]
        guild.channels.pop(channel.id, None)
        self._channels.pop(channel.id, None)
        event = "THREAD_DELETE" if channel.is_thread else "CHANNEL_DELETE"
        self._dispatch_guild(event, channel.to_payload(), guild.id, INTENT_GUILDS)
        return _json_response(channel.to_payload())

    async def _r_list_messages(self, req: _Request) -> web.StreamResponse:
        channel = self._req_channel(req)
        self._require_bot(channel, READ_MESSAGE_HISTORY)
        limit = max(1, min(100, int(req.query.get("limit", 50))))
        msgs = [m for m in self._channel_messages.get(channel.id, []) if not m.deleted]
        if "before" in req.query:
            before = int(req.query["before"])
            chosen = [m for m in msgs if m.id < before][-limit:]
        elif "after" in req.query:
            after = int(req.query["after"])
            chosen = [m for m in msgs if m.id > after][:limit]
        elif "around" in req.query:
            around = int(req.query["around"])
            older = [m for m in msgs if m.id <= around]
            newer = [m for m in msgs if m.id > around]
            half = limit // 2
            chosen = older[-(limit - half) :] + newer[:half]
        else:
            chosen = msgs[-limit:]
        return _json_response([m.to_payload() for m in reversed(chosen)])

    async def _r_create_message(self, req: _Request) -> web.StreamResponse:
        channel = self._req_channel(req)
        if channel.is_thread:
            self._require_bot(channel, SEND_MESSAGES_IN_THREADS)
            self._require_open_thread(channel, unarchive=True)
        elif channel.type in (4, FORUM):  # a category, or a forum (its posts take messages, not itself)
            raise _HTTPError(400, 50008, "Cannot send messages in a non-text channel")
        elif channel.is_dm:
            if any(u.id in self.closed_dms for u in channel.recipients):
                raise _HTTPError(403, 50007, "Cannot send messages to this user")
        else:
            self._require_bot(channel, SEND_MESSAGES)
        msg = self._create_message(channel, self.bot_user, req.json(), req.files)
        return _json_response(msg.to_payload())

    def _bot_manages_threads(self, channel: FakeChannel) -> bool:
        guild = self.guilds[channel.guild_id or 0]
        return bool(self._permissions(guild, self._bot_member(guild), channel) & MANAGE_THREADS)

    def _require_open_thread(self, channel: FakeChannel, *, unarchive: bool = False) -> None:
        """Discord's rules for a thread the bot writes in (threads topic): a locked thread takes nothing from one
        without Manage Threads; an archived one takes only a new message (`unarchive`), which opens it again
        ("Sending a message will automatically unarchive the thread, unless the thread has been locked");
        editing, pinning or reacting there is refused."""
        if not channel.is_thread:
            return
        if channel.locked and not self._bot_manages_threads(channel):
            if channel.archived:
                raise _HTTPError(400, 50083, "Thread is archived")
            raise _HTTPError(403, 160005, "Thread is locked")
        if channel.archived:
            if not unarchive:
                raise _HTTPError(400, 50083, "Thread is archived")
            channel.archived = False
            self._dispatch_guild("THREAD_UPDATE", channel.to_payload(), channel.guild_id, INTENT_GUILDS)

    async def _r_get_message(self, req: _Request) -> web.StreamResponse:
        channel = self._req_channel(req)
        self._require_bot(channel, READ_MESSAGE_HISTORY)
        return _json_response(self._req_message(req, channel).to_payload())

    async def _r_edit_message(self, req: _Request) -> web.StreamResponse:
        channel = self._req_channel(req)
        msg = self._req_message(req, channel)
        self._require_open_thread(channel)
        if msg.author.id != self.bot_user.id:
            body = req.json()
            if set(body) - {"flags"}:
                raise _HTTPError(403, 50005, "Cannot edit a message authored by another user")
            self._require_bot(channel, MANAGE_MESSAGES)
        return _json_response(self._edit_message(msg, req.json(), req.files).to_payload())

    async def _r_delete_message(self, req: _Request) -> web.StreamResponse:
        channel = self._req_channel(req)
        msg = self._req_message(req, channel)
        if msg.author.id != self.bot_user.id:
            self._require_bot(channel, MANAGE_MESSAGES)
        self._delete_message(msg)
        return _no_content()

    async def _r_bulk_delete(self, req: _Request) -> web.StreamResponse:
        channel = self._req_channel(req)
        self._require_bot(channel, MANAGE_MESSAGES)
        ids = [int(i) for i in req.json().get("messages", [])]
        if not 2 <= len(ids) <= 100:
            raise _form_error(["messages"], "BASE_TYPE_BAD_LENGTH", "Must be between 2 and 100 in length.")
        for mid in ids:
            msg = self._messages.get(mid)
            if msg is not None and msg.channel_id == channel.id and not msg.deleted:
                self._delete_message(msg)
        return _no_content()

    def _pin_payloads(self, channel: FakeChannel) -> list[FakeMessage]:
        pinned = [m for m in self._channel_messages.get(channel.id, []) if m.pinned and not m.deleted]
        return sorted(pinned, key=lambda m: m.pinned_at or "", reverse=True)

    async def _r_pins(self, req: _Request) -> web.StreamResponse:
        channel = self._req_channel(req)
        self._require_bot(channel, READ_MESSAGE_HISTORY)
        limit = max(1, min(50, int(req.query.get("limit", 50))))
        pins = self._pin_payloads(channel)
        if "before" in req.query:
            pins = [m for m in pins if (m.pinned_at or "") < req.query["before"]]
        items = [{"pinned_at": m.pinned_at, "message": m.to_payload()} for m in pins[:limit]]
        return _json_response({"items": items, "has_more": len(pins) > limit})

    async def _r_pins_legacy(self, req: _Request) -> web.StreamResponse:
        channel = self._req_channel(req)
        self._require_bot(channel, READ_MESSAGE_HISTORY)
        return _json_response([m.to_payload() for m in self._pin_payloads(channel)])

    def _require_pin_permission(self, channel: FakeChannel) -> None:
        if channel.guild_id is None:
            return
        guild = self.guilds[channel.guild_id]
        perms = self._permissions(guild, self._bot_member(guild), channel)
        if not perms & VIEW_CHANNEL:
            raise _HTTPError(403, 50001, "Missing Access")
        if not perms & (MANAGE_MESSAGES | PIN_MESSAGES):
            raise _HTTPError(403, 50013, "Missing Permissions")

    async def _r_pin(self, req: _Request) -> web.StreamResponse:
        channel = self._req_channel(req)
        self._require_pin_permission(channel)
        self._require_open_thread(channel)
        msg = self._req_message(req, channel)
        if not msg.pinned:
            if len(self._pin_payloads(channel)) >= 50:
                raise _HTTPError(400, 30003, "Maximum number of pins reached (50)")
            msg.pinned = True
            msg.pinned_at = _now_iso()
            channel.last_pin_timestamp = msg.pinned_at
            self._pins_changed(channel, msg)
        return _no_content()

    async def _r_unpin(self, req: _Request) -> web.StreamResponse:
        channel = self._req_channel(req)
        self._require_pin_permission(channel)
        msg = self._req_message(req, channel)
        if msg.pinned:
            msg.pinned = False
            msg.pinned_at = None
            self._pins_changed(channel, msg)
        return _no_content()

    def _pins_changed(self, channel: FakeChannel, msg: FakeMessage) -> None:
        data: JSON = {"channel_id": str(channel.id), "last_pin_timestamp": channel.last_pin_timestamp}
        if channel.guild_id is not None:
            data["guild_id"] = str(channel.guild_id)
        self._dispatch_guild("CHANNEL_PINS_UPDATE", data, channel.guild_id, INTENT_GUILDS)
        self._dispatch_message("MESSAGE_UPDATE", msg)

    async def _r_add_reaction(self, req: _Request) -> web.StreamResponse:
        channel = self._req_channel(req)
        self._require_bot(channel, READ_MESSAGE_HISTORY, ADD_REACTIONS)
        self._require_open_thread(channel)
        msg = self._req_message(req, channel)
        self._add_reaction(msg, self.bot_user, unquote(req.params["emoji"]))
        return _no_content()

    async def _r_remove_reaction(self, req: _Request) -> web.StreamResponse:
        channel = self._req_channel(req)
        msg = self._req_message(req, channel)
        uid = self.bot_user.id if req.params["uid"] == "@me" else int(req.params["uid"])
        if uid != self.bot_user.id:
            self._require_bot(channel, MANAGE_MESSAGES)
        self._remove_reaction(msg, uid, unquote(req.params["emoji"]))
        return _no_content()

    async def _r_reaction_users(self, req: _Request) -> web.StreamResponse:
        channel = self._req_channel(req)
        msg = self._req_message(req, channel)
        ids = msg.reactions.get(unquote(req.params["emoji"]), [])
        return _json_response([self.users[i].to_payload() for i in ids if i in self.users])

    async def _r_clear_reactions(self, req: _Request) -> web.StreamResponse:
        channel = self._req_channel(req)
        self._require_bot(channel, MANAGE_MESSAGES)
        self._req_message(req, channel).reactions.clear()
        return _no_content()

    async def _r_typing(self, req: _Request) -> web.StreamResponse:
        self._req_channel(req)
        return _no_content()

    def _new_thread(self, parent: FakeChannel, body: JSON, thread_id: int | None = None) -> FakeChannel:
        if parent.guild_id is None or parent.type not in (0, 5, FORUM):
            raise _HTTPError(400, 50024, "Cannot execute action on this channel type")
        if parent.type == FORUM:  # a post: a public thread opened by its starter message (Send Messages in the forum)
            if thread_id is not None:
                raise _HTTPError(400, 50024, "Cannot execute action on this channel type")
            self._require_bot(parent, SEND_MESSAGES)
            starter = body.get("message")
            if not isinstance(starter, dict):
                raise _form_error(["message"], "BASE_TYPE_REQUIRED", "This field is required")
            _validate_message(starter)
            thread = self._open_thread(parent, str(body.get("name") or "post"), 11, self.bot_user.id,
                                       auto_archive_duration=int(body.get("auto_archive_duration") or 1440))
            self._create_message(thread, self.bot_user, starter, {}, message_id=thread.id)
            return thread
        ttype = int(body.get("type") or 11)
        self._require_bot(parent, CREATE_PRIVATE_THREADS if ttype == 12 else CREATE_PUBLIC_THREADS)
        return self._open_thread(parent, str(body.get("name") or "thread"), ttype, self.bot_user.id,
                                 thread_id=thread_id,
                                 auto_archive_duration=int(body.get("auto_archive_duration") or 1440))

    async def _r_create_thread(self, req: _Request) -> web.StreamResponse:
        thread = self._new_thread(self._req_channel(req), req.json())
        payload = thread.to_payload()
        starter = self._messages.get(thread.id)
        if starter is not None:  # a forum's post: its starter message comes with it
            payload["message"] = starter.to_payload()
        return _json_response(payload, 201)

    async def _r_thread_from_message(self, req: _Request) -> web.StreamResponse:
        channel = self._req_channel(req)
        msg = self._req_message(req, channel)
        if msg.id in self._channels:
            raise _HTTPError(400, 160004, "A thread has already been created for this message")
        thread = self._new_thread(channel, {**req.json(), "type": 11}, thread_id=msg.id)
        return _json_response(thread.to_payload(), 201)

    async def _r_thread_member(self, req: _Request) -> web.StreamResponse:
        self._req_channel(req)
        return _no_content()

    async def _r_put_overwrite(self, req: _Request) -> web.StreamResponse:
        channel = self._req_channel(req)
        self._require_bot(channel, MANAGE_ROLES)
        body = req.json()
        target = req.params["target"]
        channel.overwrites = [o for o in channel.overwrites if str(o["id"]) != target]
        channel.overwrites.append(_overwrite({**body, "id": target}))
        self._dispatch_guild("CHANNEL_UPDATE", channel.to_payload(), channel.guild_id, INTENT_GUILDS)
        return _no_content()

    async def _r_delete_overwrite(self, req: _Request) -> web.StreamResponse:
        channel = self._req_channel(req)
        self._require_bot(channel, MANAGE_ROLES)
        channel.overwrites = [o for o in channel.overwrites if str(o["id"]) != req.params["target"]]
        self._dispatch_guild("CHANNEL_UPDATE", channel.to_payload(), channel.guild_id, INTENT_GUILDS)
        return _no_content()

    # -- guilds, roles, members ---------------------------------------------------------------

    def _req_guild(self, req: _Request) -> FakeGuild:
        guild = self.guilds.get(int(req.params["gid"]))
        if guild is None:
            raise _HTTPError(404, 10004, "Unknown Guild")
        return guild

    async def _r_get_guild(self, req: _Request) -> web.StreamResponse:
        guild = self._req_guild(req)
        payload = guild.to_payload()
        if req.query.get("with_counts", "").lower() in ("1", "true"):
            payload.update(approximate_member_count=len(guild.members), approximate_presence_count=0)
        return _json_response(payload)

    async def _r_guild_channels(self, req: _Request) -> web.StreamResponse:
        guild = self._req_guild(req)
        return _json_response([c.to_payload() for c in guild.channels.values() if not c.is_thread])

    async def _r_active_threads(self, req: _Request) -> web.StreamResponse:
        guild = self._req_guild(req)
        threads = [c.to_payload() for c in guild.channels.values() if c.is_thread and not c.archived]
        return _json_response({"threads": threads, "members": []})

    async def _r_create_channel(self, req: _Request) -> web.StreamResponse:
        guild = self._req_guild(req)
        self._require_bot_guild(guild, MANAGE_CHANNELS)
        body = req.json()
        name = str(body.get("name") or "")
        if not 1 <= len(name) <= 100:
            raise _form_error(["name"], "BASE_TYPE_BAD_LENGTH", "Must be between 1 and 100 in length.")
        parent = body.get("parent_id")
        channel = FakeChannel(
            self.snowflakes.next(),
            name,
            type=int(body.get("type") or 0),
            guild_id=guild.id,
            position=int(body.get("position") or len(guild.channels)),
            topic=body.get("topic"),
            parent_id=int(parent) if parent else None,
            overwrites=[_overwrite(o) for o in body.get("permission_overwrites") or []],
        )
        self._register_channel(guild, channel)
        self._dispatch_guild("CHANNEL_CREATE", channel.to_payload(), guild.id, INTENT_GUILDS)
        return _json_response(channel.to_payload(), 201)

    async def _r_guild_roles(self, req: _Request) -> web.StreamResponse:
        return _json_response([r.to_payload() for r in self._req_guild(req).roles.values()])

    async def _r_create_role(self, req: _Request) -> web.StreamResponse:
        guild = self._req_guild(req)
        self._require_bot_guild(guild, MANAGE_ROLES)
        body = req.json()
        role = FakeRole(
            self.snowflakes.next(),
            guild.id,
            str(body.get("name") or "new role"),
            int(body.get("permissions") or 0),
            position=1,
            color=int(body.get("color") or 0),
            hoist=bool(body.get("hoist")),
            mentionable=bool(body.get("mentionable")),
        )
        for other in guild.roles.values():
            if other.id != guild.id and not other.managed and other.position >= 1:
                other.position += 1
        guild.roles[role.id] = role
        self._dispatch_guild(
            "GUILD_ROLE_CREATE", {"guild_id": str(guild.id), "role": role.to_payload()}, guild.id, INTENT_GUILDS
        )
        return _json_response(role.to_payload())

    def _req_role(self, req: _Request, guild: FakeGuild) -> FakeRole:
        role = guild.roles.get(int(req.params["rid"]))
        if role is None:
            raise _HTTPError(404, 10011, "Unknown Role")
        return role

    async def _r_edit_role(self, req: _Request) -> web.StreamResponse:
        guild = self._req_guild(req)
        self._require_bot_guild(guild, MANAGE_ROLES)
        role = self._req_role(req, guild)
        self._check_role_hierarchy(guild, role)
        body = req.json()
        for key in ("name", "hoist", "mentionable", "color"):
            if key in body and body[key] is not None:
                setattr(role, key, body[key])
        if body.get("permissions") is not None:
            role.permissions = int(body["permissions"])
        self._dispatch_guild(
            "GUILD_ROLE_UPDATE", {"guild_id": str(guild.id), "role": role.to_payload()}, guild.id, INTENT_GUILDS
        )
        return _json_response(role.to_payload())

    async def _r_delete_role(self, req: _Request) -> web.StreamResponse:
        guild = self._req_guild(req)
        self._require_bot_guild(guild, MANAGE_ROLES)
        role = self._req_role(req, guild)
        self._check_role_hierarchy(guild, role)
        del guild.roles[role.id]
        for member in guild.members.values():
            if role.id in member.role_ids:
                member.role_ids.remove(role.id)
        self._dispatch_guild(
            "GUILD_ROLE_DELETE", {"guild_id": str(guild.id), "role_id": str(role.id)}, guild.id, INTENT_GUILDS
        )
        return _no_content()

    def _req_member(self, req: _Request, guild: FakeGuild) -> FakeMember:
        member = guild.members.get(int(req.params["uid"]))
        if member is None:
            raise _HTTPError(404, 10007, "Unknown Member")
        return member

    async def _r_list_members(self, req: _Request) -> web.StreamResponse:
        guild = self._req_guild(req)
        limit = max(1, min(1000, int(req.query.get("limit", 1))))
        after = int(req.query.get("after", 0))
        members = sorted((m for m in guild.members.values() if m.id > after), key=lambda m: m.id)[:limit]
        return _json_response([m.to_payload() for m in members])

    async def _r_get_member(self, req: _Request) -> web.StreamResponse:
        guild = self._req_guild(req)
        return _json_response(self._req_member(req, guild).to_payload())

    def _member_changed(self, guild: FakeGuild, member: FakeMember) -> None:
        self._dispatch_guild(
            "GUILD_MEMBER_UPDATE", {**member.to_payload(), "guild_id": str(guild.id)}, guild.id, INTENT_GUILD_MEMBERS
        )

    async def _r_edit_member(self, req: _Request) -> web.StreamResponse:
        guild = self._req_guild(req)
        member = self._req_member(req, guild)
        body = req.json()
        if "roles" in body:
            self._require_bot_guild(guild, MANAGE_ROLES)
            new_ids = [int(r) for r in body["roles"] or []]
            for rid in set(new_ids) ^ set(member.role_ids):
                role = guild.roles.get(rid)
                if role is None:
                    raise _HTTPError(404, 10011, "Unknown Role")
                self._check_role_hierarchy(guild, role)
            member.role_ids = new_ids
        if "nick" in body:
            member.nick = body["nick"] or None
        self._member_changed(guild, member)
        return _json_response(member.to_payload())

    async def _r_add_member_role(self, req: _Request) -> web.StreamResponse:
        guild = self._req_guild(req)
        self._require_bot_guild(guild, MANAGE_ROLES)
        member = self._req_member(req, guild)
        role = self._req_role(req, guild)
        self._check_role_hierarchy(guild, role)
        if role.id not in member.role_ids:
            member.role_ids.append(role.id)
            self._member_changed(guild, member)
        return _no_content()

    async def _r_remove_member_role(self, req: _Request) -> web.StreamResponse:
        guild = self._req_guild(req)
        self._require_bot_guild(guild, MANAGE_ROLES)
        member = self._req_member(req, guild)
        role = self._req_role(req, guild)
        self._check_role_hierarchy(guild, role)
        if role.id in member.role_ids:
            member.role_ids.remove(role.id)
            self._member_changed(guild, member)
        return _no_content()

    # ================================================================== gateway

    async def _handle_gateway(self, request: web.Request) -> web.StreamResponse:
        ws = web.WebSocketResponse(autoping=True, max_msg_size=0, compress=False)
        await ws.prepare(request)
        conn = _Connection(ws)
        self._connections.add(conn)
        conn.start()
        conn.send(Op.HELLO, {"heartbeat_interval": int(self.heartbeat_interval * 1000)})
        try:
            async for msg in ws:
                if msg.type == WSMsgType.TEXT:
                    try:
                        packet = json.loads(msg.data)
                    except ValueError:
                        await ws.close(code=4002, message=b"Decode error")
                        break
                    await self._on_gateway_packet(conn, packet)
                elif msg.type == WSMsgType.BINARY:
                    await ws.close(code=4002, message=b"Decode error")
                    break
        finally:
            _log.debug("gateway connection %s closed (code=%s)", conn.id, ws.close_code)
            self._connections.discard(conn)
            await conn.stop()
            session = conn.session
            if session is not None and session.connection is conn:
                session.connection = None
                if ws.close_code in (1000, 1001) and not conn._closing:
                    # A clean close by the client ends the session, like Discord.  (When the
                    # fake closes the socket, aiohttp reports the client's echoed 1000 instead.)
                    session.alive = False
            self._notify()
        return ws

    async def _on_gateway_packet(self, conn: _Connection, packet: JSON) -> None:
        op = packet.get("op")
        d = packet.get("d")
        if op == Op.HEARTBEAT:
            conn.heartbeats += 1
            conn.send(Op.HEARTBEAT_ACK, None)
        elif op == Op.IDENTIFY:
            await self._identify(conn, d or {})
        elif op == Op.RESUME:
            self._resume(conn, d or {})
        elif conn.session is None:
            await conn.ws.close(code=4003, message=b"Not authenticated.")
        elif op == Op.REQUEST_GUILD_MEMBERS:
            self._request_members(conn.session, d or {})
        elif op in (Op.PRESENCE_UPDATE, Op.VOICE_STATE_UPDATE):
            pass
        else:
            await conn.ws.close(code=4001, message=b"Unknown opcode.")

    async def _identify(self, conn: _Connection, d: JSON) -> None:
        if conn.session is not None:
            await conn.ws.close(code=4005, message=b"Already authenticated.")
            return
        if d.get("token") != self.token:
            await conn.ws.close(code=4004, message=b"Authentication failed.")
            return
        if "intents" not in d:
            await conn.ws.close(code=4013, message=b"Invalid intent(s).")
            return
        shard_id, shard_count = d.get("shard") or [0, 1]
        if not 0 <= shard_id < shard_count:
            await conn.ws.close(code=4010, message=b"Invalid shard.")
            return
        session = _Session(token=d["token"], intents=int(d["intents"]), shard_id=shard_id, shard_count=shard_count)
        session.connection = conn
        conn.session = session
        for old in self._sessions:
            if old.connection is None and (old.shard_id, old.shard_count) == (shard_id, shard_count):
                old.alive = False  # a fresh IDENTIFY for the shard supersedes disconnected sessions
        self._sessions = [s for s in self._sessions if s.alive] + [session]
        self.identify_count += 1
        guilds = [g for g in self.guilds.values() if session.covers(g.id)]
        session.dispatch(
            "READY",
            {
                "v": API_VERSION,
                "user": {**self.bot_user.to_payload(), "verified": True, "mfa_enabled": False, "flags": 0},
                "guilds": [{"id": str(g.id), "unavailable": True} for g in guilds],
                "session_id": session.id,
                "session_type": "normal",
                "resume_gateway_url": str(self.gateway_url),
                "shard": [shard_id, shard_count],
                "application": {"id": str(self.application_id), "flags": 0},
                "private_channels": [],
                "relationships": [],
                "presences": [],
                "guild_join_requests": [],
                "geo_ordered_rtc_regions": [],
                "user_settings": {},
                "auth": {},
            },
        )
        for guild in guilds:
            session.dispatch("GUILD_CREATE", self._guild_create_payload(guild, session))
        session.ready = True
        self._notify()

    def _resume(self, conn: _Connection, d: JSON) -> None:
        session = next((s for s in self._sessions if s.id == d.get("session_id") and s.alive), None)
        if session is None or d.get("token") != session.token or conn.session is not None:
            conn.send(Op.INVALID_SESSION, False)
            return
        old = session.connection
        session.connection = conn
        conn.session = session
        if old is not None:
            old.session = None
        seq = int(d.get("seq") or 0)
        for number, frame in list(session.backlog):
            if number > seq:
                conn.enqueue(frame)
        session.dispatch("RESUMED", {})
        self.resume_count += 1
        self._notify()

    def _request_members(self, session: _Session, d: JSON) -> None:
        guild_ids = d.get("guild_id")
        for gid in guild_ids if isinstance(guild_ids, list) else [guild_ids]:
            guild = self.guilds.get(int(gid))
            if guild is None:
                continue
            members = list(guild.members.values())
            not_found: list[str] = []
            if d.get("user_ids"):
                wanted = [int(u) for u in d["user_ids"]]
                not_found = [str(u) for u in wanted if u not in guild.members]
                members = [m for m in members if m.id in wanted]
            elif d.get("query"):
                q = str(d["query"]).lower()
                members = [
                    m for m in members if m.user.name.lower().startswith(q) or (m.nick or "").lower().startswith(q)
                ]
            limit = int(d.get("limit") or 0)
            if limit:
                members = members[:limit]
            payload: JSON = {
                "guild_id": str(guild.id),
                "members": [m.to_payload() for m in members],
                "chunk_index": 0,
                "chunk_count": 1,
                "not_found": not_found,
            }
            if d.get("presences"):
                payload["presences"] = []
            if d.get("nonce"):
                payload["nonce"] = d["nonce"]
            session.dispatch("GUILD_MEMBERS_CHUNK", payload)


class RunningBot:
    """A bot started by :meth:`FakeDiscord.start_bot`."""

    def __init__(self, fake: FakeDiscord, bot: discord.Client, task: asyncio.Task[None]) -> None:
        self.fake = fake
        self.bot = bot
        self.task = task

    async def kill(self) -> None:
        """Simulate a crash: cancel the bot's task without running its shutdown code.

        Only ``discord.Client.close`` itself is run afterwards (not a subclass
        ``close`` override, nor cog unloading) to release sockets.
        """
        self.task.cancel()
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await self.task
        if not self.bot.is_closed():
            await discord.Client.close(self.bot)

    async def close(self, *, timeout: float | None = None, check_errors: bool = True) -> None:
        """Close the bot and wait for ``bot.start`` to return (re-raising its exception, if any).

        Raises :class:`BotErrorLogged` for unconsumed captured errors unless
        ``check_errors`` is False.
        """
        if not self.bot.is_closed():
            await self.bot.close()
        try:
            await asyncio.wait_for(asyncio.shield(self.task), HANG_TIMEOUT if timeout is None else timeout)
        except TimeoutError:
            self.task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self.task
            raise
        if check_errors:
            self.fake.assert_no_errors()


# ---------------------------------------------------------------------------
# Request parsing and validation
# ---------------------------------------------------------------------------


async def _read_body(request: web.Request) -> tuple[Any, dict[int, FakeAttachment]]:
    if not request.body_exists:
        return None, {}
    content_type = request.headers.get("Content-Type", "")
    if content_type.startswith("multipart/"):
        form = await request.post()
        body: Any = {}
        files: dict[int, FakeAttachment] = {}
        for name, value in form.items():
            if name == "payload_json":
                raw = value.file.read() if isinstance(value, web.FileField) else value
                body = json.loads(raw)
            elif isinstance(value, web.FileField):
                match = re.fullmatch(r"files\[(\d+)\]|file(\d*)", name)
                index = int(next((g for g in match.groups() if g), "0")) if match else len(files)
                files[index] = FakeAttachment(value.filename or f"file{index}", value.file.read(), value.content_type)
        return body, files
    raw = await request.read()
    if not raw:
        return None, {}
    return json.loads(raw), {}


def _overwrite(raw: JSON) -> JSON:
    return {
        "id": str(raw["id"]),
        "type": int(raw.get("type", 0)),
        "allow": str(int(raw.get("allow") or 0)),
        "deny": str(int(raw.get("deny") or 0)),
    }


def _check_len(value: Any, path: list[str | int], maximum: int, *, minimum: int = 0) -> None:
    if value is None:
        return
    if not isinstance(value, str):
        raise _form_error(path, "BASE_TYPE_STRING", "Must be a string.")
    if not minimum <= len(value) <= maximum:
        raise _form_error(path, "BASE_TYPE_BAD_LENGTH", f"Must be between {minimum} and {maximum} in length.")


def _validate_message(payload: JSON) -> None:
    """Enforce Discord's message limits (400 Invalid Form Body like the real API)."""
    if not isinstance(payload, dict):
        raise _form_error([], "DICT_TYPE_CONVERT", "Only dictionaries may be used in a DictType")
    _check_len(payload.get("content"), ["content"], 2000)
    embeds = payload.get("embeds") or []
    if len(embeds) > 10:
        raise _form_error(["embeds"], "BASE_TYPE_MAX_LENGTH", "Must be 10 or fewer in length.")
    total = 0
    for i, embed in enumerate(embeds):
        path: list[str | int] = ["embeds", i]
        _check_len(embed.get("title"), [*path, "title"], 256)
        _check_len(embed.get("description"), [*path, "description"], 4096)
        footer = embed.get("footer") or {}
        author = embed.get("author") or {}
        _check_len(footer.get("text"), [*path, "footer", "text"], 2048)
        _check_len(author.get("name"), [*path, "author", "name"], 256)
        fields = embed.get("fields") or []
        if len(fields) > 25:
            raise _form_error([*path, "fields"], "BASE_TYPE_MAX_LENGTH", "Must be 25 or fewer in length.")
        for j, f in enumerate(fields):
            _check_len(f.get("name"), [*path, "fields", j, "name"], 256, minimum=1)
            _check_len(f.get("value"), [*path, "fields", j, "value"], 1024, minimum=1)
        total += sum(
            len(x or "") for x in (embed.get("title"), embed.get("description"), footer.get("text"), author.get("name"))
        )
        total += sum(len(f.get("name") or "") + len(f.get("value") or "") for f in fields)
    if total > 6000:
        raise _form_error(["embeds"], "MAX_EMBED_SIZE_EXCEEDED", "Embed size exceeds maximum size of 6000")
    _validate_components(payload.get("components") or [], v2=bool(int(payload.get("flags") or 0) & IS_COMPONENTS_V2))


def _validate_components(components: list[JSON], *, v2: bool) -> None:
    if not v2:
        if len(components) > 5:
            raise _form_error(["components"], "BASE_TYPE_MAX_LENGTH", "Must be 5 or fewer in length.")
        for i, row in enumerate(components):
            if row.get("type") != 1:
                raise _form_error(
                    ["components", i, "type"],
                    "COMPONENT_LAYOUT_WIDTH_EXCEEDED",
                    "Top-level components must be action rows",
                )
            children = row.get("components") or []
            selects = [c for c in children if c.get("type") in (3, 5, 6, 7, 8)]
            if not children or len(children) > 5 or (selects and len(children) > 1):
                raise _form_error(
                    ["components", i, "components"],
                    "COMPONENT_LAYOUT_WIDTH_EXCEEDED",
                    "The specified component exceeds the maximum width",
                )
    seen: set[str] = set()
    for comp in _walk_components(components):
        ctype = comp.get("type")
        cid = comp.get("custom_id")
        if cid is not None:
            _check_len(cid, ["components", "custom_id"], 100, minimum=1)
            if cid in seen:
                raise _form_error(
                    ["components"],
                    "COMPONENT_CUSTOM_ID_DUPLICATED",
                    f"Component custom id {cid!r} cannot be duplicated",
                )
            seen.add(cid)
        if ctype == 2:
            _check_len(comp.get("label"), ["components", "label"], 80)
            style = comp.get("style")
            if style == 5 and not comp.get("url"):
                raise _form_error(["components", "url"], "BUTTON_COMPONENT_URL_REQUIRED", "A url is required")
            if style in (1, 2, 3, 4) and not cid:
                raise _form_error(
                    ["components", "custom_id"], "BUTTON_COMPONENT_CUSTOM_ID_REQUIRED", "A custom id is required"
                )
        elif ctype in (3, 5, 6, 7, 8):
            _check_len(comp.get("placeholder"), ["components", "placeholder"], 150)
            lo, hi = int(comp.get("min_values", 1)), int(comp.get("max_values", 1))
            if not 0 <= lo <= hi <= 25:
                raise _form_error(["components", "max_values"], "BASE_TYPE_BAD_INT", "Invalid min/max values")
            if ctype == 3:
                options = comp.get("options") or []
                if not 1 <= len(options) <= 25:
                    raise _form_error(
                        ["components", "options"], "BASE_TYPE_BAD_LENGTH", "Must be between 1 and 25 in length."
                    )
                values = [o.get("value") for o in options]
                if len(set(values)) != len(values):
                    raise _form_error(
                        ["components", "options"], "SELECT_COMPONENT_OPTION_VALUE_DUPLICATED", "Duplicate option values"
                    )
                for o in options:
                    _check_len(o.get("label"), ["components", "options", "label"], 100, minimum=1)
                    _check_len(o.get("value"), ["components", "options", "value"], 100, minimum=1)
                    _check_len(o.get("description"), ["components", "options", "description"], 100)


def _validate_choices(choices: Any) -> list[JSON]:
    if not isinstance(choices, list):
        raise _form_error(["data", "choices"], "BASE_TYPE_REQUIRED", "This field is required")
    if len(choices) > 25:
        raise _form_error(["data", "choices"], "BASE_TYPE_MAX_LENGTH", "Must be 25 or fewer in length.")
    for i, choice in enumerate(choices):
        _check_len(choice.get("name"), ["data", "choices", i, "name"], 100, minimum=1)
        value = choice.get("value")
        if isinstance(value, str):
            _check_len(value, ["data", "choices", i, "value"], 100)
    return list(choices)


def _validate_modal(data: JSON) -> None:
    _check_len(data.get("title"), ["data", "title"], 45, minimum=1)
    _check_len(data.get("custom_id"), ["data", "custom_id"], 100, minimum=1)
    components = data.get("components") or []
    if not 1 <= len(components) <= 5:
        raise _form_error(["data", "components"], "BASE_TYPE_BAD_LENGTH", "Must be between 1 and 5 in length.")


_COMMAND_NAME = re.compile(r"^[-_\w]{1,32}$")


def _validate_commands(commands: list[JSON]) -> None:
    seen: set[tuple[int, str]] = set()
    for i, cmd in enumerate(commands):
        ctype = int(cmd.get("type", 1))
        name = cmd.get("name")
        if not isinstance(name, str):
            raise _form_error([i, "name"], "BASE_TYPE_REQUIRED", "This field is required")
        if ctype == 1:
            if not _COMMAND_NAME.match(name) or name != name.lower():
                raise _form_error([i, "name"], "APPLICATION_COMMAND_INVALID_NAME", f"Command name {name!r} is invalid")
            _check_len(cmd.get("description"), [i, "description"], 100, minimum=1)
            _validate_options(cmd.get("options") or [], [i, "options"], depth=0)
        else:
            _check_len(name, [i, "name"], 32, minimum=1)
        if (ctype, name) in seen:
            raise _form_error([i, "name"], "APPLICATION_COMMANDS_DUPLICATE_NAME", f"Duplicate command name {name!r}")
        seen.add((ctype, name))


def _validate_options(options: list[JSON], path: list[str | int], *, depth: int) -> None:
    if len(options) > 25:
        raise _form_error(path, "BASE_TYPE_MAX_LENGTH", "Must be 25 or fewer in length.")
    names: set[str] = set()
    optional_seen = False
    for j, opt in enumerate(options):
        here = [*path, j]
        name = opt.get("name")
        if not isinstance(name, str) or not _COMMAND_NAME.match(name) or name != name.lower():
            raise _form_error([*here, "name"], "APPLICATION_COMMAND_INVALID_NAME", f"Option name {name!r} is invalid")
        if name in names:
            raise _form_error(
                [*here, "name"], "APPLICATION_COMMAND_OPTIONS_NAME_ALREADY_EXISTS", f"Duplicate option {name!r}"
            )
        names.add(name)
        _check_len(opt.get("description"), [*here, "description"], 100, minimum=1)
        otype = opt.get("type")
        if otype in (1, 2):
            if depth >= (1 if otype == 2 else 2):
                raise _form_error(here, "APPLICATION_COMMAND_OPTIONS_TYPE_INVALID", "Subcommands nested too deeply")
            _validate_options(opt.get("options") or [], [*here, "options"], depth=depth + 1)
            continue
        if opt.get("required"):
            if optional_seen:
                raise _form_error(
                    here,
                    "APPLICATION_COMMAND_OPTIONS_REQUIRED_INVALID",
                    "Required options must be placed before non-required options",
                )
        else:
            optional_seen = True
        choices = opt.get("choices") or []
        if len(choices) > 25:
            raise _form_error([*here, "choices"], "BASE_TYPE_MAX_LENGTH", "Must be 25 or fewer in length.")
        if choices and opt.get("autocomplete"):
            raise _form_error(
                [*here, "autocomplete"],
                "APPLICATION_COMMAND_OPTION_AUTOCOMPLETE_CHOICES",
                "Autocomplete cannot be used with choices",
            )
