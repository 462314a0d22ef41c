"""/remind me: a player's reminders by direct message, per game, and the clock's sending of them.

A player opts in per game (`dm:on`, `before:` how long ahead of a deadline of theirs, 10 minutes to 24 hours,
default 2 hours) or out (`dm:off`). What each player is awaited for comes from the game's rule set's adapter
(`DiscordAdapter.nudges`: a turn's end with actions left, a choice or a move that waits): after every change
the clock asks it, and each nudge standing is DMed once (by its key), with the game's channel as a link and
its times as Discord timestamps. A refused DM (closed DMs) falls back to a mention in the channel, and the
channel is told once; the player's reminders then come to the channel until they run /remind me again.

A player may set quiet hours (`quiet:23:00-07:30 timezone:Europe/Paris`, `cogs.quiet`), one setting for all their
games: a reminder that falls due in them is not sent but waits for their end ("morning"), when it goes once if it
still stands and its deadline has not passed; the game's wake (`remind_at`, in the store) is set to that morning,
so a restart in between still sends it. Deadlines never move.

This module knows no rule set.
"""

from __future__ import annotations

import logging
import re
from dataclasses import replace
from datetime import datetime, timedelta
from typing import Any, Literal, Protocol, cast

import discord

from cogs.frontends import adapter_of
from cogs.host import RefereeHost
from cogs.quiet import NO_ZONE, hhmm, parse_quiet, parse_zone, quiet_text, quiet_until
from cogs.render import NO_PINGS, pings, who
from cogs.util import actor, bot_of, channel_id_of, channel_key, reply
from data.store import GameRow, QuietHours
from engine.clock import paused_since
from engine.errors import BadInput
from engine.events import Event
from engine.rulesets import GameState

log = logging.getLogger("referee.remind")
DEFAULT_BEFORE = timedelta(hours=2)
SHORTEST_BEFORE = timedelta(minutes=10)
LONGEST_BEFORE = timedelta(hours=24)
_SPAN = re.compile(r"(?:(\d{1,2}(?:\.\d{1,2})?)\s*h(?:ours?)?)?\s*(?:(\d{1,4})\s*m(?:in(?:utes?)?)?)?", re.IGNORECASE)
FOLLOWED_GAMES = 100  # a player's games re-read at once when their quiet hours change (the others: at their next wake)
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
    """/remind me [dm:on|off] [before:] [quiet:] [timezone:]: the user's reminders by DM in this channel's game, on
    or off; their quiet hours, for all their games. Everything given is checked before anything is stored."""
    dm, before, quiet, zone = given.get("dm"), given.get("before"), given.get("quiet"), given.get("timezone")
    if dm is None and quiet is None and zone is None:
        raise BadInput("say what to change: dm:on or dm:off in this game, or quiet: your quiet hours (e.g. "
                       "quiet:23:00-07:30 timezone:Europe/Paris, or quiet:off)")
    if dm not in (None, "on", "off"):
        raise BadInput(f"dm is on or off, not {dm!r}")
    if before is not None and dm != "on":
        raise BadInput("before goes with dm:on (e.g. /remind me dm:on before:90m)")
    span = parse_before(before)  # refused before anything is read or stored
    bot = bot_of(interaction)
    player = actor(interaction)
    hours = await _quiet_asked(bot, player, quiet, zone)
    lines: list[str] = []
    game_id = await bot.referee.game_id(channel_key(interaction)) if dm is not None else None
    if hours is not None:
        lines.append(await _set_quiet(bot, player, hours))
    if game_id is not None and dm == "off":
        was_on = await bot.store.clear_dm_reminder(game_id, player)
        lines.append("🔕 Reminders by DM off for this game: the channel's mentions still reach you."
                     if was_on else "Your reminders by DM were not on for this game; nothing changed.")
    elif game_id is not None:
        state = await bot.store.load(game_id)
        nudging = adapter_of(state).nudges
        # What already waits for them was announced, and what was sent stays sent: only what comes from now on (a
        # deadline of theirs ahead included).
        sent = [key for wish in await bot.store.dm_reminders(game_id, player) for key in wish.sent]
        sent += [n.key for n in (nudging(state, []) if nudging else []) if n.player == player and not n.lead]
        await bot.store.set_dm_reminder(game_id, player, span, tuple(dict.fromkeys(sent)))
        lines.append(f"🔔 Reminders by DM on for this game: I will DM you {span_text(span)} before a deadline of "
                     "yours and when a choice or move waits for you (/remind me dm:off stops them).")
        if hours is None:
            kept = (await bot.store.quiet_hours([player])).get(player)
            if kept is not None:
                lines.append(f"🌙 Your quiet hours: {quiet_text(kept)}; what falls due in them waits until "
                             f"{hhmm(kept.ends)} your time.")
    await reply(interaction, "\n".join(lines), ephemeral=True)
    clock_cog = bot.get_cog("Clock")
    if clock_cog is None:
        return
    games = [game_id] if game_id is not None and dm == "on" else []
    if hours is not None:  # every game of theirs: a held reminder goes (quiet:off), or waits for the new morning
        games = list(dict.fromkeys([*games, *await bot.store.dm_reminder_games(player, FOLLOWED_GAMES)]))
    for game in games:
        await cast(Follows, clock_cog).follow(game)  # a reminder due now goes now; re-armed


async def _quiet_asked(bot: RefereeHost, player: str, quiet: str | None,
                       zone: str | None) -> QuietHours | Literal[False] | None:
    """The quiet hours `quiet:` and `timezone:` ask for: QuietHours to set, False to clear them, None: unchanged.
    A zone not given is the one their quiet hours have already; BadInput for what is not understood."""
    if quiet is None and zone is None:
        return None
    asked = parse_quiet(quiet) if quiet is not None else ()
    if asked is None:
        if zone is not None:
            raise BadInput("quiet:off needs no timezone: (your quiet hours end in every zone)")
        return False
    zones = [z for z in ((parse_zone(zone) if zone is not None else None), *(asked[2:] or (None,))) if z is not None]
    if len(set(zones)) > 1:
        raise BadInput(f"your time zone is given twice ({zones[1]} in quiet, {zones[0]} in timezone): give it once")
    kept = (await bot.store.quiet_hours([player])).get(player)
    if not asked:  # timezone: alone: the quiet hours they have, in a new zone
        if kept is None:
            raise BadInput("timezone goes with quiet: (e.g. quiet:23:00-07:30 timezone:Europe/Paris)")
        return replace(kept, zone=zones[0])
    found = zones[0] if zones else (kept.zone if kept is not None else None)
    if found is None:
        raise BadInput(NO_ZONE)
    return QuietHours(player, asked[0], asked[1], found)


async def _set_quiet(bot: RefereeHost, player: str, hours: QuietHours | Literal[False]) -> str:
    """Store the quiet hours asked for; what the answer says of them."""
    if hours is False:
        had = await bot.store.clear_quiet_hours(player)
        return ("☀ Quiet hours off: your reminders by DM come as soon as they are due, in every game."
                if had else "You had no quiet hours; nothing changed.")
    await bot.store.set_quiet_hours(hours)
    return (f"🌙 Quiet hours {quiet_text(hours)} in all your games: a reminder by DM that falls due then waits "
            f"until {hhmm(hours.ends)} your time. Deadlines do not move: one that passes meanwhile is not "
            "reminded (/remind me quiet:off ends them).")


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
    channel told once); returns when the next one ahead falls due (None: none). Nothing while the game's clock is
    paused: its deadlines are held, and what stands is sent once it resumes (a moved deadline is a new one)."""
    nudging = adapter_of(state).nudges
    if nudging is None or state.ended or paused_since(state) is not None:
        return None
    bot = clock.bot
    wanted = [w for w in await bot.store.dm_reminders(row.id) if w.player.isdigit() and w.player.isascii()]
    if not wanted:
        return None
    now: datetime = clock.now()
    nudges = nudging(state, events)
    link = f"<#{channel_id_of(row.channel)}>"
    quiet = await bot.store.quiet_hours([w.player for w in wanted])
    noted, next_at = [], None
    for wish in wanted:
        mine = [n for n in nudges if n.player == wish.player]
        sent = [key for key in wish.sent if key in {n.key for n in mine}]  # what no longer stands is forgotten
        failed = wish.failed
        morning = quiet_until(quiet[wish.player], now) if wish.player in quiet else None
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
            if morning is not None:  # their quiet hours: it waits for the morning, unless its deadline comes first
                if nudge.until is None or nudge.until > morning:
                    next_at = morning if next_at is None else min(next_at, morning)
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
