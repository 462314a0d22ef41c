"""The clock's announcer: what fell due, said in order at a pace within Discord's global rate limit, without
holding up the next rollover (`cogs.clock` queues into it). It keeps the events of at most `HELD_EVENTS` queued
catch-ups in memory and reads the others' back from the store when it announces them, so a rollover's memory
does not grow with its games."""

from __future__ import annotations

import asyncio
import logging
from array import array
from collections import deque
from collections.abc import Awaitable, Callable
from typing import cast

from data.store import StoreUnavailable
from engine.events import Event

log = logging.getLogger("referee.clock")
Follow = Callable[[int, int | None, list[Event] | None], Awaitable[None]]  # a caught-up game, announced
ANNOUNCEMENTS_PER_SECOND = 40  # under Discord's global limit of about 50 requests a second
HELD_EVENTS = 1000  # queued catch-ups whose events the announcer keeps in memory (the others': read back)


class _Run:
    """Catch-ups queued one after another whose events are not kept: their (game id, action id) pairs, 16 bytes
    a game (a queue of 100,000 of them is 1.6 MB, not 100,000 tuples)."""

    __slots__ = ("ids", "next")

    def __init__(self) -> None:
        self.ids = array("q")
        self.next = 0

    def __len__(self) -> int:
        return (len(self.ids) - self.next) // 2

    def take(self) -> tuple[int, int]:
        pair = self.ids[self.next], self.ids[self.next + 1]
        self.next += 2
        return pair


class Announcer:
    """Sends queued announcements one after another, at most `per_second` a second, in a task of its own
    that runs while there is work (tests wait for it by name).

    A game the timer caught up is queued as its ids (`put_caught`): its events are kept in memory while fewer
    than `hold` queued catch-ups keep theirs, and otherwise read back from the store when it is announced; so
    a rollover of 100,000 games queues 100,000 pairs of ids (`_Run`), not 100,000 games' events."""

    def __init__(self, per_second: float = ANNOUNCEMENTS_PER_SECOND, follow: Follow | None = None,
                 hold: int = HELD_EVENTS, before: Callable[[], Awaitable[None]] | None = None) -> None:
        self.interval = 1 / per_second
        self.follow = follow
        self.hold = hold
        self.before = before  # awaited before each announcement (the clock renews its leases when they need it)
        self.held = 0  # queued catch-ups whose events are kept here
        self.sending: int | None = None  # the action id of the catch-up being announced now
        # (send, game id, action id, events): a `send` of its own; (None, ...) a catch-up for `follow`; or
        # (a _Run, None, None, None): catch-ups for `follow` whose events are read back
        self.queue: deque[tuple[Callable[[], Awaitable[None]] | _Run | None, int | None, int | None,
                                list[Event] | None]] = deque()
        self.task: asyncio.Task[None] | None = None

    def __len__(self) -> int:
        """The announcements queued."""
        return sum(len(send) if isinstance(send, _Run) else 1 for send, *_ in self.queue)

    def action_ids(self) -> list[int]:
        """The action ids of the catch-ups queued or being announced: the announcements whose leases are renewed."""
        ids = [] if self.sending is None else [self.sending]
        for send, _, action_id, _ in self.queue:
            if isinstance(send, _Run):
                ids.extend(send.ids[send.next + 1::2])
            elif send is None and action_id is not None:
                ids.append(action_id)
        return ids

    def put(self, send: Callable[[], Awaitable[None]], game_id: int | None = None) -> None:
        self._push((send, game_id, None, None))

    def put_caught(self, game_id: int, action_id: int | None, events: list[Event]) -> None:
        """A caught-up game to announce with `follow(game_id, action_id, events)`; its events are dropped here
        (None: `follow` reads them back by action id) when `hold` queued catch-ups keep theirs already."""
        if action_id is None or self.held < self.hold:
            self.held += 1
            self._push((None, game_id, action_id, events))
            return
        last = self.queue[-1][0] if self.queue else None
        if not isinstance(last, _Run):
            last = _Run()
            self._push((last, None, None, None))
        last.ids.extend((game_id, action_id))

    def _push(self, entry: tuple[Callable[[], Awaitable[None]] | _Run | None, int | None, int | None,
                                 list[Event] | None]) -> None:
        self.queue.append(entry)
        if self.task is None or self.task.done():
            self.task = asyncio.create_task(self._drain(), name="referee-announcer")

    async def _drain(self) -> None:
        loop = asyncio.get_running_loop()
        while self.queue:
            send, game_id, action_id, events = self.queue[0]
            if isinstance(send, _Run):
                game_id, action_id = send.take()
                if not send:
                    self.queue.popleft()
                send = None
            else:
                self.queue.popleft()
                if send is None:
                    self.held -= 1
            started = loop.time()
            self.sending = action_id if send is None else None
            if self.before is not None:
                try:
                    await self.before()
                except StoreUnavailable as err:  # (the announcement's own check says whether it is still ours)
                    log.warning("the announcer could not renew its leases: %s", err)
                except Exception:
                    log.exception("the announcer failed to renew its leases")
            try:
                if send is not None:
                    await send()
                elif self.follow is not None:
                    await self.follow(cast(int, game_id), action_id, events)
            except StoreUnavailable as err:  # the store logged its cause once; the next tick tries again
                log.warning("an announcement of game %s waits: %s", game_id, err, extra={"game_id": game_id})
            except Exception:
                log.exception("an announcement of game %s failed", game_id, extra={"game_id": game_id})
            finally:
                self.sending = None
            await asyncio.sleep(max(0.0, self.interval - (loop.time() - started)))

    def close(self) -> None:
        self.queue.clear()
        self.held = 0
        if self.task is not None:
            self.task.cancel()
