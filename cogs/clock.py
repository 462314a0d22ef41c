"""The clock on Discord: one timer for the whole bot, armed at the earliest moment any game needs it; the
database is the truth.

The store keeps each game's next due time (the engine's deadlines: Nations turn ends, bonus expiries and
battle choices; the God Dice reminder) and the front-end's own next reminder (Nations: the turn reminder; any
game: a player's reminder by DM, `cogs.remind`), both indexed.
The timer (one APScheduler job) fires at the earliest of them: every game due then is caught up in batches,
one transaction a batch (`Referee.catch_up_due_each`); as each batch commits, the announcements, reminders,
battle choices and status edits of its games are queued for the `Announcer`, which sends them in order, at a
pace within Discord's global rate limit, without holding up the next rollover. It keeps the events of at most
`HELD_EVENTS` queued catch-ups in memory and reads the others' back from the store when it announces them, so
a rollover's memory does not grow with its games. A command's own follow-up
(`after_change`) runs at once. On start only the games due are read, never every game.

Every process runs the clock of every Discord game, whatever its shard: the store serialises each game's
catch-up, so of several processes one applies and announces what fell due, and when one dies the others go on.
Each announcement is said once: the process that applied it holds it in the store's outbox by a lease, renewed
while it waits in the `Announcer`'s queue (`keep_leases`) and checked just before it is sent; another process's
`sweep` takes it only once the lease has run out unrenewed (issue 33).
With HEALTH_FILE set, the clock writes the time into that file whenever its timer runs and every
`HEALTH_INTERVAL` while the bot is connected, for a supervisor to check its age.

What a rule set adds (Nations' battle choices and turn reminders, God Dice's move controls) comes from its
adapter (`cogs.frontends`): this module knows no rule set.
"""

from __future__ import annotations

import asyncio
import functools
import logging
from collections import OrderedDict
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any, cast

import discord
from apscheduler.schedulers.asyncio import AsyncIOScheduler
from discord.ext import commands

from cogs.announcer import Announcer
from cogs.frontends import adapter_of
from cogs.host import RefereeHost
from cogs.reach import Reach, refused_post
from cogs.remind import remind_players
from cogs.render import NO_PINGS, message_batches, report_embeds, results_embed, status_embed, with_page_link
from cogs.util import HELD, channel_id_of, holding, note_report_message, rolled
from data.store import ANNOUNCE_LEASE, OUTBOX_PAGE, GameRow, StoreUnavailable
from engine.clock import next_deadline
from engine.events import Event, GameEnded
from engine.rulesets import GameState
from service.reports import Report

log = logging.getLogger("referee.clock")
CONTENT_LIMIT = 2000  # Discord's limit on a message's text
TIMER = "clock"
RETRY_AFTER = timedelta(seconds=30)  # when a tick fails (the store cannot save, or a fault): try again, no spin
HEALTH = "health"
OUTBOX = "outbox"
# seconds between two looks at the outbox of announcements, each renewing the leases of those queued first (a
# lease lasts ANNOUNCE_LEASE, 2 min: renewed four times in it)
OUTBOX_SWEEP = ANNOUNCE_LEASE.total_seconds() / 4
RENEW_EVERY = timedelta(seconds=OUTBOX_SWEEP)  # the announcer renews its leases between two sends as often too
HEALTH_INTERVAL = 30.0  # seconds between two writes of the health file while connected (tests make it shorter)
FOLLOWED = 10_000  # games whose newest followed-up change the clock remembers (an older one arriving after: re-read)


class _FirstSent:
    """A channel that notes the first message sent through it: the one announcing a report (its link in /log
    rolls). Everything else is the channel's own."""

    def __init__(self, channel: discord.PartialMessageable) -> None:
        self.channel = channel
        self.first: discord.Message | None = None

    def __getattr__(self, name: str) -> Any:
        return getattr(self.channel, name)

    async def send(self, *args: Any, **kwargs: Any) -> discord.Message:
        message = await self.channel.send(*args, **kwargs)
        if self.first is None:
            self.first = message
        return message


class Clock(commands.Cog):
    """Schedules, announces, reminds and keeps the status message; no rule is decided here."""

    def __init__(self, bot: RefereeHost) -> None:
        self.bot = bot
        self._locks: dict[int, asyncio.Lock] = {}
        self._wakes: dict[int, datetime] = {}  # the next wake of each game seen since start (the bot's time)
        self._armed: datetime | None = None  # when the timer fires (the bot's time)
        self.reach = Reach(bot)  # what the bot lacks where each game is played, told its GM once (`cogs.reach`)
        self._health_failed = False
        self._followed: OrderedDict[int, int] = OrderedDict()  # each game's newest change followed up (`newest`)
        self._unsubscribe: Callable[[], None] = lambda: None
        self.announcer = Announcer(follow=self.follow_caught, before=self.keep_leases)
        self._renewed: datetime | None = None  # when the leases of the announcements queued were last renewed
        # coalesce: missed firings run once; no grace limit: a late firing still runs (it only catches up).
        self.scheduler = AsyncIOScheduler(timezone=UTC, job_defaults={
            "coalesce": True, "misfire_grace_time": None, "max_instances": 1,
        })

    async def cog_load(self) -> None:
        self._unsubscribe = self.bot.referee.on_commit(self.committed)
        self.scheduler.start()
        self.scheduler.add_job(self.sweep_job, "interval", seconds=OUTBOX_SWEEP, id=OUTBOX, replace_existing=True)
        if self.bot.settings.health_file:
            self.scheduler.add_job(self.beat, "interval", seconds=HEALTH_INTERVAL, id=HEALTH, replace_existing=True)
        await self.rebuild()

    async def cog_unload(self) -> None:
        self._unsubscribe()
        self.scheduler.shutdown(wait=False)
        self.announcer.close()

    async def committed(self, report: Report, by_clock: bool) -> None:
        """The referee committed a change: follow up on it (`after_change`) — once the interaction that made it is
        answered, when one is being answered (`cogs.util.following`); the timer's own catch-ups it announces
        itself (`by_clock`, and the wakes it runs: `holding`). A change that logged no action and has nothing to say
        (a free roll, in the ledger alone) leaves the channel's messages as they are."""
        if by_clock or not (report.events or report.action_ids):
            return
        held = HELD.get()
        if held is not None:
            held.append(lambda: self.follow_up(report))
            return
        await self.follow_up(report)

    async def follow_up(self, report: Report) -> None:
        """A command's `after_change`; Discord refusing its posts is logged (and its GM told once: `refused`)."""
        try:
            await self.after_change(report)
        except discord.HTTPException as err:  # its channel gone, or no longer ours to write in
            log.warning("could not follow up game %s's change: %s", report.game_id, err,
                        extra={"game_id": report.game_id})
            if refused_post(err) is not None:
                await self.refused(report.game_id, err)

    async def refused(self, game_id: int, err: discord.HTTPException) -> None:
        """Discord refused a post of the game's: its GM is told what the bot lacks there, once (`cogs.reach`)."""
        if game_id not in self.reach.told:
            row = await self.bot.store.game(game_id)
            await self.reach.check(row, (await self.bot.store.load(game_id)).gm, err)

    def now(self) -> datetime:
        """Now, by the referee's clock (the bot's `Runtime`: a fake one in the tests)."""
        return self.bot.referee.clock()

    async def beat(self) -> None:
        """The health job: write the health file while the bot is connected."""
        if self.bot.is_ready():
            self.touch_health()

    def touch_health(self) -> None:
        """Write the current time (UTC) into the health file, when there is one; a failure is logged once."""
        path = self.bot.settings.health_file
        if not path:
            return
        try:
            Path(path).write_text(datetime.now(UTC).isoformat(timespec="seconds") + "\n", encoding="utf-8")
            self._health_failed = False
        except OSError as err:
            if not self._health_failed:
                log.warning("cannot write the health file %s: %s", path, err)
            self._health_failed = True

    def owns(self, guild_id: int | None) -> bool:
        return self.bot.owns(guild_id)  # console games (no server) are not the bot's

    async def rebuild(self) -> None:
        """On start: catch up and announce what fell due while down (only the games due), arm the timer."""
        await self.tick()

    async def tick(self) -> None:
        """The timer: catch up every game due now, in batches, then queue what is to be said; re-arm."""
        self._armed = None
        self.touch_health()
        failed = True
        try:
            await self.sweep()  # (older than what is caught up now: said first)
            caught: set[int] = set()

            async def queue(events: dict[int, list[Event]], logged: dict[int, int]) -> None:
                # each batch's announcements queued as soon as it commits; its events are not kept beyond the
                # announcer's bound (`HELD_EVENTS`)
                for game_id, game_events in events.items():
                    caught.add(game_id)
                    self.announcer.put_caught(game_id, logged.get(game_id), game_events)

            await self.bot.referee.catch_up_due_each(queue, owns=self.owns, announce=True)
            for game_id, guild_id in await self.bot.store.take_reminders_due(self.now()):
                if self.owns(guild_id) and game_id not in caught:
                    self.announcer.put(functools.partial(self.follow, game_id), game_id)
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

    async def sweep(self) -> None:
        """Renew the leases of the announcements queued here, then announce what another process (or this one
        before a restart) caught up and left unannounced past its lease — it died, or lost the database — and
        what is nobody's (the outbox): at every tick, and every OUTBOX_SWEEP seconds (an unannounced catch-up is
        no reason to arm the timer)."""
        await self.keep_leases(renew=True)
        while True:
            taken = await self.bot.store.take_unannounced(self.now(), OUTBOX_PAGE)
            for game_id, action_id, events in taken:
                self.announcer.put_caught(game_id, action_id, events)
            if taken:
                log.warning("announcing %d catch-up(s) left unannounced (games %s)", len(taken),
                            ", ".join(str(g) for g in sorted({g for g, _, _ in taken})[:10]))
            if len(taken) < OUTBOX_PAGE:
                return

    async def keep_leases(self, renew: bool = False) -> None:
        """Renew the leases of the announcements queued or being sent, when RENEW_EVERY has passed since the last
        renewal (`renew`: now). The announcer calls it before each announcement, the outbox's job at each run."""
        now = self.now()
        if not renew and self._renewed is not None and timedelta(0) <= now - self._renewed < RENEW_EVERY:
            return
        self._renewed = now
        ids = self.announcer.action_ids()
        try:
            if ids:
                await self.bot.store.hold_announcements(ids, now)
        except BaseException:
            self._renewed = None  # (tried again before the next announcement)
            raise

    async def sweep_job(self) -> None:
        """The outbox's own job: a failure is logged and the next run tries again."""
        try:
            await self.sweep()
        except StoreUnavailable as err:
            log.warning("the clock could not read its outbox (%s)", err)
        except Exception:
            log.exception("the clock failed to read its outbox")

    async def wake(self, game_id: int) -> None:
        """Catch up one game now, announce it, then the rest of `after_change` (also what a test calls)."""
        try:
            with holding():  # (announced and followed up here, not as a commit heard)
                report = await self.bot.referee.catch_up(game_id, announce=True)
            await self.announce_and_follow(report)
        except StoreUnavailable as err:
            log.warning("the clock could not wake game %s (%s); the timer tries again", game_id, err,
                        extra={"game_id": game_id})
        except Exception:
            log.exception("the clock failed to wake game %s", game_id, extra={"game_id": game_id})

    async def follow(self, game_id: int, events: list[Event] | None = None, action_id: int | None = None) -> None:
        """A game the timer caught up (its `events`, logged as `action_id`), or whose front-end reminder is due:
        announce, remind, update, note its next wake — from its state as it is now."""
        await self.announce_and_follow(Report(game_id, await self.bot.store.load(game_id), events or [],
                                              action_ids=[action_id] if action_id is not None else []))

    async def follow_caught(self, game_id: int, action_id: int | None, events: list[Event] | None) -> None:
        """`follow` for a catch-up the announcer queued: its events as kept, or (None) read back from the store."""
        if events is None and action_id is not None:
            events = await self.bot.store.action_events(game_id, action_id)
        await self.follow(game_id, events, action_id)

    async def announce_and_follow(self, report: Report) -> None:
        """Announce a catch-up (its announcements checked as this process's first: one another process took is
        not said here, nor followed up), then the rest of `after_change`."""
        if report.action_ids:
            held = await self.bot.store.hold_announcements(report.action_ids, self.now())
            if len(held) < len(set(report.action_ids)):
                log.info("game %s's catch-up %s is another process's to announce now: not said here",
                         report.game_id, report.action_ids, extra={"game_id": report.game_id})
                return
        if report.events:
            try:
                await self.say(report)
            except discord.NotFound:  # the channel deleted: no announcement will ever reach it, now or on a retry
                log.warning("game %s's channel is gone: its announcement of actions %s is dropped",
                            report.game_id, report.action_ids, extra={"game_id": report.game_id})
                await self.bot.store.announced(report.action_ids)
                return
            except discord.HTTPException as err:  # refused there: it waits in the outbox, its GM told once
                if refused_post(err) is None:
                    raise
                log.warning("game %s's announcement of actions %s waits: %s", report.game_id, report.action_ids,
                            err, extra={"game_id": report.game_id})
                await self.refused(report.game_id, err)
                return
        if report.action_ids:
            await self.bot.store.announced(report.action_ids)  # (out of the outbox: said)
        await self.after_change(report)

    async def say(self, report: Report) -> None:
        """The announcement itself: the report's events in the game's channel (its rule set's way, if it has one)."""
        channel = self.channel(await self.bot.store.game(report.game_id))
        noting = _FirstSent(channel) if report.action_ids and rolled(report) else None
        announce = adapter_of(report.state).announce
        if announce is not None:
            await announce(self, cast(discord.PartialMessageable, noting or channel), report)
        else:
            for batch in message_batches(report_embeds(report.events, report.state, by_clock=True)):
                await (noting or channel).send(embeds=batch, allowed_mentions=NO_PINGS)
        if noting is not None and noting.first is not None:
            await note_report_message(self.bot, report, noting.first.channel.id, noting.first.id)

    def channel(self, row: GameRow) -> discord.PartialMessageable:
        channel_id = channel_id_of(row.channel)
        if channel_id is None:
            raise ValueError(f"game {row.id} is not played on Discord ({row.channel})")
        return self.bot.get_partial_messageable(channel_id, guild_id=row.guild_id)

    async def after_change(self, report: Report) -> None:
        """After any command or wake: what the game's rule set does then (Nations: offer battle choices and
        remind), the final results of a game this report ended; update the status, reschedule.

        One game at a time, from the state as it is now (another command may have finished meanwhile).
        """
        async with self._locks.setdefault(report.game_id, asyncio.Lock()):
            row = await self.bot.store.game(report.game_id)
            if not row.channel.startswith("discord:"):
                return
            state = self.newest(report) or await self.bot.store.load(report.game_id)
            channel = self.channel(row)
            adapter = adapter_of(state)
            if adapter.after_change is not None:
                row = await adapter.after_change(self, channel, report, state, row)
            dm_at = await self.remind_players(row, state, report, channel)
            await self.announce_results(channel, report, state)
            await self.update_status(row, state, channel)
            await self.note_wake(row, state, dm_at)
            await self.reach.worked(row)

    def newest(self, report: Report) -> Any:
        """The state a follow-up shows: the report's own, unless a newer change of the game was followed up before it
        (two commands answered out of order): then None (the store's, as it is now). Changes are ordered by their
        logged action (the store's ids grow); the last one seen of each game is remembered, a bounded number."""
        version = max(report.action_ids, default=None)
        if report.state is None or version is None:
            return None
        seen = self._followed.get(report.game_id)
        if seen is not None and seen > version:
            return None
        self._followed[report.game_id] = version
        self._followed.move_to_end(report.game_id)
        while len(self._followed) > FOLLOWED:
            self._followed.popitem(last=False)
        return report.state

    async def remind_players(self, row: GameRow, state: GameState, report: Report,
                             channel: discord.PartialMessageable) -> datetime | None:
        """The players' reminders by DM due now (`cogs.remind`); when the next one falls due. A failure is logged
        and leaves the rest of the follow-up to go on."""
        try:
            return await remind_players(self, row, state, report.caught_up + report.events, channel)
        except StoreUnavailable as err:
            log.warning("the reminders by DM of game %s wait: %s", row.id, err, extra=_ids(row))
        except Exception:
            log.exception("the reminders by DM of game %s failed", row.id, extra=_ids(row))
        return None

    async def announce_results(self, channel: discord.PartialMessageable, report: Report, state: GameState) -> None:
        """A game that this report ended with standings: its final results (Nations: LAND, stats, battles won, the
        winner), as a message of their own; the pinned status turns to the same in `update_status`."""
        for event in report.events:
            if isinstance(event, GameEnded) and event.standings:
                embed = results_embed(state, event.standings)
                if embed is not None:
                    embed = with_page_link(embed, await self.page_link(report.game_id))
                    await channel.send(embed=embed, allowed_mentions=NO_PINGS)

    async def page_link(self, game_id: int) -> str | None:
        """The link to the game's page when the bot serves pages (WEB_PORT), else None; None too when the store
        cannot say now (the message goes out without it, and the next update links it)."""
        pages = self.bot.pages
        if pages is None:
            return None
        try:
            return pages.url(await self.bot.store.page_token(game_id, self.now()))  # (a read, once made)
        except StoreUnavailable as err:
            log.warning("the page link of game %s waits: %s", game_id, err, extra={"game_id": game_id})
            return None

    async def refresh_status(self, game_id: int) -> None:
        """The pinned status made again as the game stands (its page link changed: /gm page rotate)."""
        async with self._locks.setdefault(game_id, asyncio.Lock()):
            row = await self.bot.store.game(game_id)
            if not row.channel.startswith("discord:"):
                return
            await self.update_status(row, await self.bot.store.load(game_id), self.channel(row))

    async def update_status(self, row: GameRow, state: GameState, channel: discord.PartialMessageable) -> None:
        """Keep one pinned status message per game current (post and pin it the first time), linking to the game's
        page when the bot serves pages."""
        embed = with_page_link(status_embed(state, self.bot.referee.rules_for(state.ruleset)),
                               await self.page_link(row.id))
        if row.status_message_id:
            try:
                try:
                    await channel.get_partial_message(row.status_message_id).edit(embed=embed)
                except discord.HTTPException as err:  # an archived thread takes no edit: opened again, then edited
                    if err.code != 50083 or not await self.reach.reopen(row):
                        raise
                    await channel.get_partial_message(row.status_message_id).edit(embed=embed)
                return
            except discord.NotFound:
                pass
            except discord.HTTPException as err:
                log.warning("could not update the status message of game %s", row.id, extra=_ids(row))
                if refused_post(err) is not None:
                    await self.reach.check(row, state.gm, err)
                return
        message = await channel.send(embed=embed, allowed_mentions=NO_PINGS)
        try:
            await message.pin(reason="the game's status")
        except discord.HTTPException as err:
            log.warning("could not pin the status message of game %s (HTTP %s: Pin Messages?)", row.id, err.status,
                        extra=_ids(row))
        await self.bot.store.set_front_end(row.id, status_message_id=message.id)
        await self.reach.check(row, state.gm)  # its first status (a start, an import): anything it lacks there?

    async def note_wake(self, row: GameRow, state: GameState, dm_at: datetime | None = None) -> None:
        """Record the game's next front-end reminder (its rule set's, if any, or a player's reminder by DM,
        `dm_at`, whichever comes first) and arm the timer if the game needs it sooner."""
        remind = adapter_of(state).remind_at
        own = remind(row, state) if remind is not None and not state.ended else None
        reminders = [m for m in (own, dm_at) if m is not None]
        remind_at = min(reminders) if reminders and not state.ended else None
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


def _ids(row: GameRow) -> dict[str, int | None]:
    """A game's ids for a log line's `extra` (`logformat`)."""
    return {"game_id": row.id, "guild_id": row.guild_id, "channel_id": channel_id_of(row.channel)}


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
