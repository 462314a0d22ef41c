"""The clock on Discord: one timer for the whole bot, armed at the earliest moment any game needs it; the
database is the truth.

The store keeps each game's next due time (the engine's deadlines: Nations turn ends, bonus expiries and
battle choices; the God Dice reminder) and, for Nations, the front-end's next turn reminder, both indexed.
The timer (one APScheduler job) fires at the earliest of them: every game due then is caught up in batches,
one transaction a batch (`Referee.catch_up_due`), before anything is said; the announcements, reminders,
battle choices and status edits of those games then go out through the `Announcer`, in order, at a pace
within Discord's global rate limit, without holding up the next rollover. A command's own follow-up
(`after_change`) runs at once. On start only the games due are read, never every game.
"""

from __future__ import annotations

import asyncio
import logging
from collections import deque
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime, timedelta
from typing import Any

import discord
from apscheduler.schedulers.asyncio import AsyncIOScheduler
from discord.ext import commands

from cogs.host import RefereeHost
from cogs.render import (
    NO_PINGS,
    event_lines,
    message_batches,
    move_prompt,
    pings,
    report_embeds,
    results_embed,
    safe,
    status_embed,
    when,
    who,
)
from cogs.util import channel_id_of
from cogs.views import choice_view, move_view, swap_controls
from data.store import GameRow, StoreUnavailable
from engine.clock import next_deadline
from engine.events import Event, GameEnded
from engine.goddice.events import PlayerReminded
from engine.nations.common import actions_left
from engine.nations.events import BattleAwaits, BattleEnded, DuelStarted, UnitsCommitted
from engine.nations.state import GameState
from referee import Report

log = logging.getLogger("referee.clock")
CONTENT_LIMIT = 2000  # Discord's limit on a message's text
ANNOUNCEMENTS_PER_SECOND = 40  # under Discord's global limit of about 50 requests a second
TIMER = "clock"
RETRY_AFTER = timedelta(seconds=30)  # when a tick fails (the store cannot save, or a fault): try again, no spin


class Announcer:
    """Sends queued announcements one after another, at most `per_second` a second, in a task of its own
    that runs while there is work (tests wait for it by name)."""

    def __init__(self, per_second: float = ANNOUNCEMENTS_PER_SECOND) -> None:
        self.interval = 1 / per_second
        self.queue: deque[Callable[[], Awaitable[None]]] = deque()
        self.task: asyncio.Task[None] | None = None

    def put(self, send: Callable[[], Awaitable[None]]) -> None:
        self.queue.append(send)
        if self.task is None or self.task.done():
            self.task = asyncio.create_task(self._drain(), name="referee-announcer")

    async def _drain(self) -> None:
        loop = asyncio.get_running_loop()
        while self.queue:
            send = self.queue.popleft()
            started = loop.time()
            try:
                await send()
            except StoreUnavailable as err:  # the store logged its cause once; the next tick tries again
                log.warning("an announcement waits: %s", err)
            except Exception:
                log.exception("an announcement failed")
            await asyncio.sleep(max(0.0, self.interval - (loop.time() - started)))

    def close(self) -> None:
        self.queue.clear()
        if self.task is not None:
            self.task.cancel()


class Clock(commands.Cog):
    """Schedules, announces, reminds and keeps the status message; no rule is decided here."""

    def __init__(self, bot: RefereeHost) -> None:
        self.bot = bot
        self._locks: dict[int, asyncio.Lock] = {}
        self._wakes: dict[int, datetime] = {}  # the next wake of each game seen since start (the bot's time)
        self._armed: datetime | None = None  # when the timer fires (the bot's time)
        self.announcer = Announcer()
        # coalesce: missed firings run once; no grace limit: a late firing still runs (it only catches up).
        self.scheduler = AsyncIOScheduler(timezone=UTC, job_defaults={
            "coalesce": True, "misfire_grace_time": None, "max_instances": 1,
        })

    async def cog_load(self) -> None:
        self.scheduler.start()
        await self.rebuild()

    async def cog_unload(self) -> None:
        self.scheduler.shutdown(wait=False)
        self.announcer.close()

    def now(self) -> datetime:
        return self.bot.settings.clock()

    def owns(self, guild_id: int | None) -> bool:
        return self.bot.owns(guild_id)  # console games (no server) are not the bot's

    async def rebuild(self) -> None:
        """On start: catch up and announce what fell due while down (only the games due), arm the timer."""
        await self.tick()

    async def tick(self) -> None:
        """The timer: catch up every game due now, in batches, then queue what is to be said; re-arm."""
        self._armed = None
        failed = True
        try:
            caught = await self.bot.referee.catch_up_due(owns=self.owns)
            for game_id, events in caught.items():
                self.announcer.put(lambda game_id=game_id, events=events: self.follow(game_id, events))
            for game_id, guild_id in await self.bot.store.take_reminders_due(self.now()):
                if self.owns(guild_id) and game_id not in caught:
                    self.announcer.put(lambda game_id=game_id: self.follow(game_id))
            failed = False
        except StoreUnavailable as err:  # the store logged its cause once
            log.warning("the clock could not catch up (%s); trying again in %s", err, RETRY_AFTER)
        except Exception:
            log.exception("the clock failed to catch up; trying again in %s", RETRY_AFTER)
        finally:
            # what is due stays due after a failure: wait before trying again rather than spin on it
            if failed:
                self.arm_at(self.now() + RETRY_AFTER)
            else:
                try:
                    await self.arm()
                except StoreUnavailable:
                    self.arm_at(self.now() + RETRY_AFTER)

    async def wake(self, game_id: int) -> None:
        """Catch up one game now, announce it, then the rest of `after_change` (also what a test calls)."""
        try:
            await self.announce_and_follow(await self.bot.referee.catch_up(game_id))
        except StoreUnavailable as err:
            log.warning("the clock could not wake game %s (%s); the timer tries again", game_id, err)
        except Exception:
            log.exception("the clock failed to wake game %s", game_id)

    async def follow(self, game_id: int, events: list[Event] | None = None) -> None:
        """A game the timer caught up (its `events`), or whose front-end reminder is due: announce, remind,
        update, note its next wake — from its state as it is now."""
        await self.announce_and_follow(Report(game_id, await self.bot.store.load(game_id), events or []))

    async def announce_and_follow(self, report: Report) -> None:
        if report.events:
            channel = self.channel(await self.bot.store.game(report.game_id))
            if report.state.ruleset == "goddice":
                await self.announce_reminder(channel, report)
            else:
                for batch in message_batches(report_embeds(report.events, report.state)):
                    await channel.send(embeds=batch, allowed_mentions=NO_PINGS)
        await self.after_change(report)

    def channel(self, row: GameRow) -> discord.PartialMessageable:
        channel_id = channel_id_of(row.channel)
        if channel_id is None:
            raise ValueError(f"game {row.id} is not played on Discord ({row.channel})")
        return self.bot.get_partial_messageable(channel_id, guild_id=row.guild_id)

    async def after_change(self, report: Report) -> None:
        """After any command or wake: (Nations) offer battle choices and remind; update the status, reschedule.

        One game at a time, from the state as it is now (another command may have finished meanwhile).
        """
        async with self._locks.setdefault(report.game_id, asyncio.Lock()):
            row = await self.bot.store.game(report.game_id)
            if not row.channel.startswith("discord:"):
                return
            state = await self.bot.store.load(report.game_id)
            channel = self.channel(row)
            if state.ruleset == "nations":
                await self.offer_choices(channel, report, state)
                await self.announce_results(channel, report)
                if not state.ended:
                    row = await self.remind_if_due(row, state, channel)
            elif state.ended:  # God Dice: a game ended by the GM keeps no move controls
                await swap_controls(self.bot, channel, report.game_id, None)
            await self.update_status(row, state, channel)
            await self.note_wake(row, state)

    async def announce_results(self, channel: discord.PartialMessageable, report: Report) -> None:
        """A Nations game that this report ended: its final results (LAND, stats, battles won, the winner), as a
        message of their own; the pinned status turns to the same standings in `update_status`."""
        for event in report.events:
            if isinstance(event, GameEnded) and "nations" in event.standings:
                await channel.send(embed=results_embed(event.standings), allowed_mentions=NO_PINGS)

    async def announce_reminder(self, channel: discord.PartialMessageable, report: Report) -> None:
        """God Dice: the caught-up events (the engine's reminders) as a message that mentions the player, with
        the awaited move's controls (they replace the previous ones)."""
        state = report.state
        reminded = any(isinstance(e, PlayerReminded) for e in report.events)
        view = move_view(report.game_id, state) if reminded else None
        text: str | None = "\n".join(event_lines(report.events))
        if text and len(text) > CONTENT_LIMIT:  # too long for a message's text: embeds, then the prompt
            for batch in message_batches(report_embeds(report.events, state)):
                await channel.send(embeds=batch, allowed_mentions=NO_PINGS)
            text = move_prompt(state) if reminded else None
        if not text:
            return
        reminded_players = [e.player for e in report.events if isinstance(e, PlayerReminded)]
        message = await channel.send(text, view=view, allowed_mentions=pings(*reminded_players))
        if reminded:
            await swap_controls(self.bot, channel, report.game_id, message.id if view else None)

    async def offer_choices(self, channel: discord.PartialMessageable, report: Report, state: GameState) -> None:
        """For each battle whose choice this report settled or opened: clear the old controls, offer the new."""
        waiting: dict[int, BattleAwaits] = {}
        moved: set[int] = set()
        for event in report.caught_up + report.events:
            if isinstance(event, BattleAwaits):
                waiting[event.battle] = event
            if isinstance(event, BattleAwaits | UnitsCommitted | DuelStarted | BattleEnded):
                moved.add(event.battle)
        for battle_id in sorted(moved):
            await self.clear_choice(channel, report.game_id, battle_id)
        for battle_id, event in waiting.items():
            battle = state.battles.get(battle_id)
            if battle is None or battle.stage != event.stage or battle.deadline != event.deadline:
                continue  # the choice was made (or defaulted) since
            most = self.bot.referee.rules.max_battle_units
            view = choice_view(report.game_id, state, battle, most)
            player = state.nations[event.nation].player
            what = f"commit 1 to {most} units" if event.stage == "commit" else "pick the next pairing"
            message = await channel.send(
                f"⚔ Battle #{battle.id}: {who(player) if player else safe(event.nation)}, {what} "
                f"(default {when(event.deadline)}).", view=view,
                allowed_mentions=pings(player),
            )
            await self.bot.store.choice_message(report.game_id, battle_id, message.id)

    async def clear_choice(self, channel: discord.PartialMessageable, game_id: int, battle_id: int) -> None:
        """Take the controls off the message that offered a battle's last choice (made or defaulted)."""
        old = await self.bot.store.choice_message(game_id, battle_id)
        if old is None:
            return
        try:
            await channel.get_partial_message(old).edit(view=None)
        except discord.HTTPException:
            log.warning("could not clear the controls of message %s", old)

    def reminder_time(self, state: GameState) -> datetime:
        return state.turn_ends_at - timedelta(hours=state.house.reminder_hours)

    async def remind_if_due(self, row: GameRow, state: GameState, channel: discord.PartialMessageable) -> GameRow:
        """Once per turn, before its end: mention only the players who still have actions left."""
        if state.paused or row.reminded_turn >= state.turn or self.now() < self.reminder_time(state):
            return row
        if self.now() < state.turn_ends_at:
            waiting = [n for n in state.nations.values()
                       if n.player and not n.eliminated and actions_left(state, n) > 0]
            if waiting:
                lines = [f"⏰ Turn {state.turn} ends {when(state.turn_ends_at)}. Still to act:"]
                lines += [f"{who(n.player or '')} ({safe(n.name)}, {actions_left(state, n)} left)" for n in waiting]
                for content in _chunks(lines, CONTENT_LIMIT):
                    await channel.send(content, allowed_mentions=pings(*(n.player for n in waiting)))
        await self.bot.store.set_front_end(row.id, reminded_turn=state.turn)
        return await self.bot.store.game(row.id)

    async def update_status(self, row: GameRow, state: Any, channel: discord.PartialMessageable) -> None:
        """Keep one pinned status message per game current (post and pin it the first time)."""
        embed = status_embed(state, self.bot.referee.rules)
        if row.status_message_id:
            try:
                await channel.get_partial_message(row.status_message_id).edit(embed=embed)
                return
            except discord.NotFound:
                pass
            except discord.HTTPException:
                log.warning("could not update the status message of game %s", row.id)
                return
        message = await channel.send(embed=embed, allowed_mentions=NO_PINGS)
        try:
            await message.pin(reason="the game's status")
        except discord.HTTPException:
            log.warning("could not pin the status message of game %s (Manage Messages?)", row.id)
        await self.bot.store.set_front_end(row.id, status_message_id=message.id)

    async def note_wake(self, row: GameRow, state: Any) -> None:
        """Record the game's next front-end reminder (Nations) and arm the timer if the game needs it sooner."""
        remind_at = None
        if (state.ruleset == "nations" and not state.ended and not state.paused
                and row.reminded_turn < state.turn):
            remind_at = self.reminder_time(state)
        if remind_at != row.remind_at:
            await self.bot.store.set_front_end(row.id, remind_at=remind_at)
        moments = [m for m in ([] if state.ended else [next_deadline(state), remind_at]) if m is not None]
        if not moments:
            self._wakes.pop(row.id, None)
            return
        self._wakes[row.id] = min(moments)
        if self._armed is None or min(moments) <= self._armed:  # (the same moment again: re-timed, for a
            self.arm_at(min(moments))                          # bot clock that jumps, as in tests)

    async def arm(self) -> None:
        """Arm the one timer at the earliest moment any live game needs the clock (or disarm it)."""
        moment = await self.bot.store.next_wake()
        if moment is None:
            self._armed = None
            if self.scheduler.get_job(TIMER):
                self.scheduler.remove_job(TIMER)
            return
        self.arm_at(moment)

    def arm_at(self, moment: datetime) -> None:
        self._armed = moment
        # The bot's clock may be injected (tests): wait the same span of real time.
        run_at = datetime.now(UTC) + max(timedelta(0), moment - self.now()) + timedelta(milliseconds=50)
        self.scheduler.add_job(self.tick, "date", run_date=run_at, id=TIMER, replace_existing=True)

    def next_wake(self, game_id: int) -> datetime | None:
        """When (in real time) the timer will see to this game next, if it has anything pending."""
        moment = self._wakes.get(game_id)
        if moment is None:
            return None
        return datetime.now(UTC) + max(timedelta(0), moment - self.now())


def _chunks(lines: list[str], limit: int) -> list[str]:
    """Lines joined into messages of at most `limit` characters."""
    chunks: list[str] = []
    for line in lines:
        line = line[:limit]
        if chunks and len(chunks[-1]) + 1 + len(line) <= limit:
            chunks[-1] += "\n" + line
        else:
            chunks.append(line)
    return chunks


async def setup(bot: RefereeHost) -> None:
    await bot.add_cog(Clock(bot))
