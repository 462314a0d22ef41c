"""discord.py's table of rate-limit buckets kept small, in amortised constant time a new bucket.

discord.py's `HTTPClient` keeps one `Ratelimit` per bucket key (a route with its major parameters: sending a
message to a channel is a bucket of that channel, editing or pinning in it one more). Once the table holds
256 of them, it scans every one each time a new key appears, to drop those idle for five minutes. Announcing
a rollover to 10,000 channels within five minutes then scans a table that grows to tens of thousands of
buckets 30,000 times: quadratic, and every bucket kept for five minutes.

`bound_buckets` replaces that scan on one client: it runs only once the table has doubled since the last one
(and holds at least `PRUNE_FROM` buckets), so each scan of n buckets is paid for by the n/2 new keys before it
(a new bucket costs O(1), amortised), and it drops every bucket no limit is in force on any more:

- nothing is sent or waits on it (no request in flight, none queued, not sleeping out its window), and
- its window is over (Discord's reset time has passed, or none was given),

as well as discord.py's own idle ones (`Ratelimit.is_inactive`). A bucket dropped is one whose next request
would find it reset anyway: a new one starts at discord.py's most careful guess (one request at a time until
Discord's headers say more), and the route's bucket hash, kept apart in `_bucket_hashes`, stays. A bucket
sleeping out a 429 or an exhausted window has a request in flight or a window not over, so it stays, and the
next request on its route waits as before. The global limit is a separate event, untouched.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

log = logging.getLogger("referee.ratelimits")
PRUNE_FROM = 256  # discord.py's own threshold: a smaller table is never scanned


def spent(bucket: Any, now: float) -> bool:
    """No limit of this `discord.http.Ratelimit` is in force any more (see the module's text)."""
    if bucket.is_inactive():
        return True
    return (bucket.outgoing == 0 and not bucket._pending_requests and not bucket._sleeping.locked()
            and (bucket.expires is None or now > bucket.expires))


def bound_buckets(http: Any) -> bool:
    """Give this `discord.http.HTTPClient` the amortised pruning above (once); False, and a warning, when its
    discord.py keeps its table in another way (then it is left as it is)."""
    if getattr(http, "_referee_bounded", False):
        return True
    if not isinstance(getattr(http, "_buckets", None), dict) or not callable(
            getattr(http, "_try_clear_expired_ratelimits", None)):
        log.warning("this discord.py keeps its rate-limit buckets in another way: left as it is")
        return False
    next_scan = PRUNE_FROM

    def try_clear_expired_ratelimits() -> None:
        nonlocal next_scan
        buckets = http._buckets
        if len(buckets) < next_scan:
            return
        now = asyncio.get_running_loop().time()  # (the clock of discord.py's buckets: their loop's)
        for key in [key for key, bucket in buckets.items() if spent(bucket, now)]:
            del buckets[key]
        next_scan = max(PRUNE_FROM, 2 * len(buckets))

    http._try_clear_expired_ratelimits = try_clear_expired_ratelimits
    http._referee_bounded = True
    return True
