"""discord.py's rate-limit buckets under the referee's pruning (`cogs.ratelimits`, issue 21): the table stays
small at an amortised constant cost a new bucket, and a rate limit in force is never pruned away."""

from __future__ import annotations

import asyncio
import json
import re
import time

import discord.http
from aiohttp import web
from discordkit import config, table

import cogs.ratelimits
from bot import RefereeBot
from cogs.ratelimits import PRUNE_FROM, bound_buckets


def client() -> discord.http.HTTPClient:
    http = discord.http.HTTPClient(asyncio.get_running_loop())
    assert bound_buckets(http) and bound_buckets(http)  # (once: a second call changes nothing)
    return http


async def test_the_table_stays_bounded_at_an_amortised_constant_cost(monkeypatch):
    http = client()
    looked = 0
    spent = cogs.ratelimits.spent

    def counting(bucket, now):
        nonlocal looked
        looked += 1
        return spent(bucket, now)

    monkeypatch.setattr(cogs.ratelimits, "spent", counting)
    largest = 0
    for i in range(20_000):  # a message to each of 20,000 channels, each answered (its bucket left as it is)
        http.get_ratelimit(f"POST /channels/{{channel_id}}/messages:{i}")
        largest = max(largest, len(http._buckets))
    assert largest < PRUNE_FROM
    assert looked < 2 * 20_000  # discord.py's own scan: every bucket at every new one past 256 (~5 × 10^8)


async def test_a_bucket_whose_limit_is_in_force_is_never_pruned():
    http = client()
    loop = asyncio.get_running_loop()
    exhausted = http.get_ratelimit("exhausted")  # Discord said: none left for 60 s
    exhausted.remaining, exhausted.expires = 0, loop.time() + 60
    in_flight = http.get_ratelimit("in flight")
    await in_flight.acquire()  # a request under way (or sleeping out a 429)
    waiting = http.get_ratelimit("waiting")
    waiting._pending_requests.append(loop.create_future())
    over = http.get_ratelimit("window over")
    over.expires = loop.time() - 1
    for i in range(5 * PRUNE_FROM):
        http.get_ratelimit(f"other {i}")
    assert http._buckets["exhausted"] is exhausted and http._buckets["in flight"] is in_flight
    assert http._buckets["waiting"] is waiting
    assert "window over" not in http._buckets  # (its next request would have reset it anyway)
    assert len(http._buckets) < 2 * PRUNE_FROM
    waiting._pending_requests.clear()


async def test_the_bot_prunes_its_buckets_and_a_429_still_holds_back_its_route(tmp_path):
    """Through discord.py against the fake Discord: the bot's client prunes (set up in `RefereeBot`); a channel
    answering 429 (retry after 1.5 s) makes discord.py wait before its next request on that channel, while
    hundreds of new buckets (other channels) come and go meanwhile: a message sent to it meanwhile waits too."""
    retry_after = 1.5
    async with table(tmp_path) as t:
        fake = t.fake
        rooms = [fake.add_channel(t.guild, f"room-{i}") for i in range(PRUNE_FROM + 50)]
        limited = t.channel
        path = f"/channels/{limited.id}/messages"
        [create] = [h for method, pattern, h, _ in fake._routes if method == "POST" and pattern.match(path)]
        answered: list[tuple[float, int]] = []  # (when, status) of each request to the limited channel

        async def limiting(req):
            status = 429 if not answered else 200
            answered.append((time.monotonic(), status))
            if status == 429:
                return web.Response(status=429, body=json.dumps({
                    "message": "You are being rate limited.", "retry_after": retry_after, "global": False}).encode(),
                    headers={"Content-Type": "application/json", "Via": "1.1 google", "X-RateLimit-Limit": "5",
                             "X-RateLimit-Remaining": "0", "X-RateLimit-Reset-After": str(retry_after),
                             "X-RateLimit-Bucket": "limited"})
            return await create(req)

        fake._routes.insert(0, ("POST", re.compile(f"^/channels/(?P<cid>{limited.id})/messages$"), limiting, True))
        bot = RefereeBot(*config(t.db, t.clock, t.dice), guild_ready_timeout=0.05)
        running = await fake.start_bot(bot)
        try:
            assert vars(bot.http).get("_referee_bounded")
            first = asyncio.create_task(bot.get_partial_messageable(limited.id).send("first"))
            while not answered:
                await asyncio.sleep(0.01)
            for room in rooms:  # new buckets while the limited one sleeps out its 429: prunes run
                await bot.get_partial_messageable(room.id).send("elsewhere")
            assert not first.done() and len(bot.http._buckets) < 2 * PRUNE_FROM  # (pruned while it sleeps)
            second = await bot.get_partial_messageable(limited.id).send("second")  # its bucket: the same
            await first
            assert [status for _, status in answered] == [429, 200, 200]
            assert all(at - answered[0][0] >= retry_after * 0.95 for at, _ in answered[1:])  # both waited
            assert [m.content for m in fake.channel_messages(limited)][-2:] == ["first", "second"]
            assert second.content == "second"
            assert len(bot.http._buckets) < 2 * PRUNE_FROM
        finally:
            await running.close()
