"""/remind me: a player's reminders by direct message, per game, and the clock's sending of them.

A player opts in per game (`dm:on`, `before:` how long ahead of a deadline of theirs, 10 minutes to 24 hours,
default 2 hours) or out (`dm:off`). What each player is awaited for comes from the game's rule set's adapter
(`DiscordAdapter.nudges`: a turn's end with actions left, a choice or a move that waits): after every change
the clock asks it, and each nudge standing is DMed once (by its key), with the game's channel as a link and
its times as Discord timestamps. A refused DM (closed DMs) falls back to a mention in the channel, and the
channel is told once; the player's reminders then come to the channel until they run /remind me again.

This module knows no rule set.
"""

from __future__ import annotations

import logging
import re
from dataclasses import replace
from datetime import datetime, timedelta
from typing import Any, Protocol, cast

import discord

from cogs.frontends import adapter_of
from cogs.host import RefereeHost
from cogs.render import NO_PINGS, pings, who
from cogs.util import actor, bot_of, channel_id_of, channel_key, reply
from data.store import GameRow
from engine.errors import BadInput
from engine.events import Event
from engine.rulesets import GameState

log = logging.getLogger("referee.remind")
DEFAULT_BEFORE = timedelta(hours=2)
SHORTEST_BEFORE = timedelta(minutes=10)
LONGEST_BEFORE = timedelta(hours=24)
_SPAN = re.compile(r"(?:(\d{1,2}(?:\.\d{1,2})?)\s*h(?:ours?)?)?\s*(?:(\d{1,4})\s*m(?:in(?:utes?)?)?)?", re.IGNORECASE)
WHAT_BEFORE = "before is a span like 2h, 90m or 1h30m, from 10m to 24h"


class Follows(Protocol):
    """What /remind me uses of the Clock cog (`cogs.clock.Clock`, looked up by name: that module imports this one)."""

    async def follow(self, game_id: int) -> None: ...


def parse_before(text: str | None) -> timedelta:
    """`before:` as a span ("2h", "90m", "1h30m", "1.5h"), 10 minutes to 24 hours; the default when not given;
    BadInput otherwise."""
    if text is None or not str(text).strip():
        return DEFAULT_BEFORE
    given = str(text).strip()
    found = _SPAN.fullmatch(given) if len(given) <= 20 else None
    if found is None or not any(found.groups()):
        raise BadInput(f"{WHAT_BEFORE}, not {given[:20]!r}")
    span = timedelta(hours=float(found.group(1) or 0), minutes=int(found.group(2) or 0))
    if not SHORTEST_BEFORE <= span <= LONGEST_BEFORE:
        raise BadInput(f"{WHAT_BEFORE}; {given} is too {'short' if span < SHORTEST_BEFORE else 'long'}")
    return timedelta(minutes=round(span.total_seconds() / 60))


def span_text(span: timedelta) -> str:
    """`2h`, `90m` → `1h 30m`, `10m`."""
    hours, minutes = divmod(round(span.total_seconds() / 60), 60)
    return " ".join(part for part in (f"{hours}h" if hours else "", f"{minutes}m" if minutes else "") if part)


def failed_notice(player: str) -> str:
    return (f"⚠ I could not send {who(player)} a direct message (closed DMs?): their reminders come here as "
            "mentions until they run /remind me again.")


async def remind_me(interaction: discord.Interaction, given: dict[str, Any]) -> None:
    """/remind me dm:on|off [before:]: the user's reminders by DM in this channel's game, on or off."""
    dm, before = given.get("dm"), given.get("before")
    if dm not in ("on", "off"):
        raise BadInput(f"dm is on or off, not {dm!r}")
    span = parse_before(before)  # refused before anything is read or stored
    bot = bot_of(interaction)
    game_id = await bot.referee.game_id(channel_key(interaction))
    player = actor(interaction)
    if dm == "off":
        was_on = await bot.store.clear_dm_reminder(game_id, player)
        await reply(interaction, "🔕 Reminders by DM off for this game: the channel's mentions still reach you."
                    if was_on else "Your reminders by DM were not on for this game; nothing changed.", ephemeral=True)
        return
    state = await bot.store.load(game_id)
    nudging = adapter_of(state).nudges
    # What already waits for them was announced, and what was sent stays sent: only what comes from now on (a
    # deadline of theirs ahead included).
    sent = [key for wish in await bot.store.dm_reminders(game_id, player) for key in wish.sent]
    sent += [n.key for n in (nudging(state, []) if nudging else []) if n.player == player and not n.lead]
    await bot.store.set_dm_reminder(game_id, player, span, tuple(dict.fromkeys(sent)))
    await reply(interaction, f"🔔 Reminders by DM on for this game: I will DM you {span_text(span)} before a "
                             "deadline of yours and when a choice or move waits for you (/remind me dm:off "
                             "stops them).", ephemeral=True)
    clock = bot.get_cog("Clock")
    if clock is not None:
        await cast(Follows, clock).follow(game_id)  # a reminder due now goes now; re-armed


async def send_dm(bot: RefereeHost, player: str, content: str) -> bool | None:
    """DM a player: True when sent, False when Discord refuses (closed DMs), None when Discord fails otherwise."""
    try:
        channel = await bot.create_dm(discord.Object(int(player)))
        await channel.send(content, allowed_mentions=NO_PINGS)
    except discord.Forbidden:
        return False
    except discord.HTTPException as err:
        log.warning("could not DM player %s: %s", player, err)
        return None
    return True


async def remind_players(clock: Any, row: GameRow, state: GameState, events: list[Event],
                         channel: discord.abc.Messageable) -> datetime | None:
    """DM each opted-in player of the game the nudges due now (a refused DM: a mention in the channel, and the
    channel told once); returns when the next one ahead falls due (None: none)."""
    nudging = adapter_of(state).nudges
    if nudging is None or state.ended:
        return None
    bot = clock.bot
    wanted = [w for w in await bot.store.dm_reminders(row.id) if w.player.isdigit() and w.player.isascii()]
    if not wanted:
        return None
    now: datetime = clock.now()
    nudges = nudging(state, events)
    link = f"<#{channel_id_of(row.channel)}>"
    noted, next_at = [], None
    for wish in wanted:
        mine = [n for n in nudges if n.player == wish.player]
        sent = [key for key in wish.sent if key in {n.key for n in mine}]  # what no longer stands is forgotten
        failed = wish.failed
        for nudge in mine:
            if nudge.key in sent:
                continue
            if nudge.lead:
                if nudge.until is None or now >= nudge.until:
                    continue
                due = nudge.until - wish.before
                if now < due:
                    next_at = due if next_at is None else min(next_at, due)
                    continue
            sent.append(nudge.key)
            delivered = None if failed else await send_dm(bot, wish.player, f"⏰ In {link}: {nudge.text}")
            if delivered:
                continue
            lines = [] if nudge.pinged else [f"⏰ {who(wish.player)}: {nudge.text}"]
            if delivered is False:
                failed = True
                lines.append(failed_notice(wish.player))
            if lines:
                await channel.send("\n".join(lines), allowed_mentions=pings(wish.player))
        if tuple(sent) != wish.sent or failed != wish.failed:
            noted.append(replace(wish, failed=failed, sent=tuple(sent)))
    if noted:
        await bot.store.note_dm_reminders(row.id, noted)
    return next_at
