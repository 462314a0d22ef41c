"""The turn clock on Discord: APScheduler wakes each game at its next deadline; the database is the truth.

One job per game, at the earliest of its deadlines (Nations: turn end, bonus expiry, battle choice, and
its turn reminder; God Dice: the reminder of the player whose move it is). A wake runs the same catch-up
as every command, announces what it applied once, sends the reminder, keeps the pinned status message
current and schedules the next wake. On start, every game this process owns is woken once: whatever was
missed while down is applied and announced then. Nations' turn reminder and battle choices are Nations
only; a God Dice reminder is the engine's (an event), announced with the controls of the awaited move.
"""

from __future__ import annotations

import asyncio
import logging
from datetime import UTC, datetime, timedelta
from typing import Any

import discord
from apscheduler.schedulers.asyncio import AsyncIOScheduler
from discord.ext import commands

from cogs.host import RefereeHost
from cogs.render import event_lines, message_batches, move_prompt, report_embeds, status_embed, when, who
from cogs.util import channel_id_of
from cogs.views import choice_view, move_view, swap_controls
from data.store import GameRow
from engine.clock import next_deadline
from engine.goddice.events import PlayerReminded
from engine.nations.common import actions_left
from engine.nations.events import BattleAwaits, BattleEnded, DuelStarted, UnitsCommitted
from engine.nations.state import GameState
from referee import Report

log = logging.getLogger("referee.clock")
CONTENT_LIMIT = 2000  # Discord's limit on a message's text


class Clock(commands.Cog):
    """Schedules, announces, reminds and keeps the status message; no rule is decided here."""

    def __init__(self, bot: RefereeHost) -> None:
        self.bot = bot
        self._locks: dict[int, asyncio.Lock] = {}
        # coalesce: a game's missed wakes run once; no grace limit: a late wake still runs (it only catches up).
        self.scheduler = AsyncIOScheduler(timezone=UTC, job_defaults={
            "coalesce": True, "misfire_grace_time": None, "max_instances": 1,
        })

    async def cog_load(self) -> None:
        self.scheduler.start()
        await self.rebuild()

    async def cog_unload(self) -> None:
        self.scheduler.shutdown(wait=False)

    def now(self) -> datetime:
        return self.bot.settings.clock()

    async def rebuild(self) -> None:
        """Wake every live game this process owns: apply and announce what was missed, schedule the rest."""
        for row in await self.bot.store.games():
            if self.bot.owns(row.guild_id) and row.channel.startswith("discord:"):
                await self.wake(row.id)

    async def wake(self, game_id: int) -> None:
        """The job: catch up one game, announce it once, then the rest of `after_change`."""
        try:
            report = await self.bot.referee.catch_up(game_id)
            if report.events:
                channel = self.channel(await self.bot.store.game(game_id))
                if report.state.ruleset == "goddice":
                    await self.announce_reminder(channel, report)
                else:
                    for batch in message_batches(report_embeds(report.events, report.state)):
                        await channel.send(embeds=batch)
            await self.after_change(report)
        except Exception:
            log.exception("the clock failed to wake game %s", game_id)

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
                if not state.ended:
                    row = await self.remind_if_due(row, state, channel)
            elif state.ended:  # God Dice: a game ended by the GM keeps no move controls
                await swap_controls(self.bot, channel, report.game_id, None)
            await self.update_status(row, state, channel)
            self.schedule(row, state)

    async def announce_reminder(self, channel: discord.PartialMessageable, report: Report) -> None:
        """God Dice: the caught-up events (the engine's reminders) as a message that mentions the player, with
        the awaited move's controls (they replace the previous ones)."""
        state = report.state
        reminded = any(isinstance(e, PlayerReminded) for e in report.events)
        view = move_view(report.game_id, state) if reminded else None
        text: str | None = "\n".join(event_lines(report.events))
        if text and len(text) > CONTENT_LIMIT:  # too long for a message's text: embeds, then the prompt
            for batch in message_batches(report_embeds(report.events, state)):
                await channel.send(embeds=batch)
            text = move_prompt(state) if reminded else None
        if not text:
            return
        message = await channel.send(text, view=view, allowed_mentions=discord.AllowedMentions(users=True))
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
                f"⚔ Battle #{battle.id}: {who(player) if player else event.nation}, {what} "
                f"(default {when(event.deadline)}).", view=view,
                allowed_mentions=discord.AllowedMentions(users=True),
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
                lines += [f"{who(n.player or '')} ({n.name}, {actions_left(state, n)} left)" for n in waiting]
                for content in _chunks(lines, CONTENT_LIMIT):
                    await channel.send(content, allowed_mentions=discord.AllowedMentions(users=True))
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
        message = await channel.send(embed=embed)
        try:
            await message.pin(reason="the game's status")
        except discord.HTTPException:
            log.warning("could not pin the status message of game %s (Manage Messages?)", row.id)
        await self.bot.store.set_front_end(row.id, status_message_id=message.id)

    def schedule(self, row: GameRow, state: Any) -> None:
        """One job for the game, at its next deadline or (Nations) turn reminder; none for a game that is over."""
        job_id = f"game-{row.id}"
        moments = [] if state.ended else [next_deadline(state)]
        if (state.ruleset == "nations" and not state.ended and not state.paused
                and row.reminded_turn < state.turn):
            moments.append(self.reminder_time(state))
        due = min((m for m in moments if m is not None), default=None)
        if due is None:
            if self.scheduler.get_job(job_id):
                self.scheduler.remove_job(job_id)
            return
        # The bot's clock may be injected (tests): wait the same span of real time.
        run_at = datetime.now(UTC) + max(timedelta(0), due - self.now()) + timedelta(milliseconds=50)
        self.scheduler.add_job(self.wake, "date", run_date=run_at, args=[row.id], id=job_id, replace_existing=True)

    def next_wake(self, game_id: int) -> datetime | None:
        job = self.scheduler.get_job(f"game-{game_id}")
        return job.next_run_time if job else None


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
