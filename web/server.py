"""The game's page (issue 22): a read-only web view of each game, served by the referee itself with aiohttp, in the
bot's own event loop, and reached only through its capability URL.

    pages = GamePages(referee, public_url="https://referee.example.org", names=None)
    await pages.start("0.0.0.0", 8080)     # serves until close()
    pages.url(token)                        # "https://referee.example.org/g/<token>"
    await pages.close()

Routes (GET, and HEAD with it; any other method is 405):

- `/g/<token>`: the page — the standings (the rule set's `page` views), the turn clock with a live countdown, the
  final results of an ended game, the map (where the game has one), the history charts, the roll ledger with /log
  rolls' filters as query parameters (`who`, `purpose`, `turn_from`, `turn_to`, `gm_entered`, `free`, `page`) and
  the story of a turn (`turn`);
- `/g/<token>/rolls.csv`: the roll ledger as CSV, the file /log export writes, streamed a page of rows at a time;
- `/g/<token>/chart/game.svg`: the game chart (/game chart's) as SVG, drawn in the charts' worker process (and
  `game-light`, `game-narrow`, `game-narrow-light`: for a light theme, a phone's width, `web.render.CHART_LOOKS`);
- `/g/<token>/chart/map.svg`: the picture of the game's board (its rule set's `board_picture`: a map), likewise —
  404 for a game without one;
- `/g/<token>/events`: server-sent events, `event: version` whenever the game changes (one poller a game, shared
  by its listeners), a comment as a heartbeat;
- `/static/page.css`, `/static/page.js`.

Anything else, an unknown token or a rotated one answers the same 404. Every response carries strict headers (a
Content-Security-Policy without inline script or style, no referrer: the link is a secret). Requests are limited
per address (a token bucket; behind a reverse proxy `trust_proxy=True` takes the address from X-Forwarded-For);
connections, their time, live streams and downloads are bounded too, and nothing of a request is logged
(`web.guard`).
Pages are cached by (game, version, query), charts by (game, version, name): 200 pages a second cost little.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import gzip
import hashlib
import logging
import math
import time
from collections.abc import Awaitable, Callable, Coroutine, Hashable
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

from aiohttp import web
from jinja2 import Environment, FileSystemLoader, StrictUndefined

from data.store import Store
from engine.errors import BadInput, RefereeError
from engine.rulesets import ruleset
from service import mappicture
from service.chartstyle import Look
from service.ledger import FREE, MAX_PURPOSE, empty_text, ledger_page
from service.referee import Referee
from service.reports import Report
from service.story import game_story, story_lines
from web import pictures
from web.bounds import Lru, Slots, TokenBuckets
from web.guard import PAGE_CSP, STATUS_WORDS, Guard, GuardedSite, Limits, plain, secure
from web.render import (
    LEDGER_ROWS,
    MAX_WHO,
    Namer,
    Query,
    chart_look,
    chart_sources,
    ledger_filter,
    ledger_row,
    line_html,
    parse_query,
    story_entries,
    time_html,
    time_mark,
    view_html,
)
from web.stream import CSV_ROWS, send, stream_csv

__all__ = ["PAGE_CSP", "PAGE_PATH", "GamePages", "Limits", "page_url"]

log = logging.getLogger("referee.web")

PAGE_PATH = "/g/"
HERE = Path(__file__).resolve().parent
SVG_CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; frame-ancestors 'self'"
GZIP_LEVEL = 6
CHARTS = ("game",)  # the charts a page serves: /game chart's
MAP = "map"  # the picture of the board, where the game has one (`RuleSet.board_picture`)


def page_url(public_url: str, token: str) -> str:
    """The address players see for a game's page: PUBLIC_URL (no trailing slash) + /g/ + token."""
    return public_url.rstrip("/") + PAGE_PATH + token


class Watch:
    """One game's live-update poller and its listeners (each an asyncio.Event set when the version changes). `nudge`:
    set when this process commits a change of the game (`Referee.on_commit`): the poller looks at once."""

    def __init__(self, game_id: int) -> None:
        self.game_id = game_id
        self.version: str | None = None
        self.listeners: set[asyncio.Event] = set()
        self.task: asyncio.Task[None] | None = None
        self.nudge = asyncio.Event()


class GamePages:
    """The web server of game pages. `names(guild_id, who)` gives a player's shown name (Discord: the member's
    display name from the cache; None: the name as stored, the console's)."""

    def __init__(self, referee: Referee, public_url: str, names: Callable[[int | None, str], str] | None = None, *,
                 trust_proxy: bool = False, rate: float = 10.0, burst: float = 60.0, max_addresses: int = 10_000,
                 poll_seconds: float = 2.0, heartbeat_seconds: float = 15.0, max_listeners: int = 1000,
                 max_listeners_per_address: int = 8, page_cache: int = 256, chart_cache: int = 32,
                 remake_seconds: float = 2.0, recheck_seconds: float = 0.5, own_reads: bool = True,
                 limits: Limits | None = None, max_downloads: int = 8, max_downloads_per_address: int = 2,
                 csv_rows: int = CSV_ROWS, clock: Callable[[], float] = time.monotonic) -> None:
        self.referee = referee
        # What the pages read, they read through `reads`: once started (`own_reads`), a referee on a connection of
        # its own to the same database, so that a page never queues behind the commands in the store's one database
        # thread, nor they behind it (bench.web); before that, or without it, the referee's own.
        self.reads = referee
        self.own_reads = own_reads
        self._reader: Store | None = None  # the store of `reads`, once started
        self.clock = clock
        # A page (a game's, with one query) is made again at most every `remake_seconds`: a request meanwhile gets
        # the last one made, at most that old. Its readers' live updates poll every `poll_seconds` anyway, and a
        # game played fast while many read it costs one page a few seconds, not one a change (bench.web).
        self.remake_seconds = remake_seconds
        self._latest = Lru(page_cache)  # (game, token, query) → (version, when made, the page)
        self._gzipped = Lru(page_cache)  # ("page", game, token, query, version) → the page, gzip-compressed
        # What a token opens, and its version, asked of the store at most every `recheck_seconds` a token: every
        # request would otherwise be a hop to the store's one database thread, the commands' thread (bench.web). A
        # link rotated by this process is seen at once (`Store.page_rotations`), by another within that time.
        self.recheck_seconds = recheck_seconds
        self._known = Lru(max_addresses)  # token → (when asked, game id, version)
        self._rotations = 0
        self.public_url = public_url
        self.names = names
        self.trust_proxy = trust_proxy
        self.limits = TokenBuckets(rate, burst, max_addresses, clock)
        self.poll_seconds, self.heartbeat_seconds = poll_seconds, heartbeat_seconds
        # connections, their time and live streams (web.guard): from this process's file limit unless given
        self.server_limits = limits if limits is not None else Limits.of()
        self.max_listeners = min(max_listeners, self.server_limits.streams)
        self._listening = Slots(self.max_listeners, max_listeners_per_address)
        self._downloads = Slots(max_downloads, max_downloads_per_address)  # rolls.csv streams at once
        self.csv_rows = csv_rows
        self.guard: Guard | None = None  # once started
        self.pages = Lru(page_cache)
        self.charts = Lru(chart_cache)
        self._building: dict[Hashable, asyncio.Task[bytes]] = {}
        self._watches: dict[int, Watch] = {}
        self._closing = False
        self._unsubscribe = referee.on_commit(self.committed)
        self._runner: web.AppRunner | None = None
        self.templates = Environment(loader=FileSystemLoader(HERE / "templates"), autoescape=True,
                                     undefined=StrictUndefined, trim_blocks=True, lstrip_blocks=True)
        self.static = {name: (HERE / "static" / name).read_bytes() for name in ("page.css", "page.js")}
        self.static_version = hashlib.sha256(b"".join(self.static.values())).hexdigest()[:12]
        self._app = self._make_app()

    def url(self, token: str) -> str:
        return page_url(self.public_url, token)

    @property
    def app(self) -> web.Application:
        """The aiohttp application (tests serve it with aiohttp's TestServer)."""
        return self._app

    @property
    def listeners(self) -> int:
        return self._listening.count

    @property
    def port(self) -> int | None:
        """The port served on, once started (`start` on port 0 takes a free one)."""
        sites = list(self._runner.sites) if self._runner is not None else []
        return sites[0].port if sites and isinstance(sites[0], GuardedSite) else None

    async def start(self, host: str, port: int) -> None:
        """Serve on `host`:`port` until `close()` (in the running event loop, beside the bot). OSError, in one line
        naming the address, when it cannot listen there (nothing is left open then)."""
        self._closing = False
        if self.own_reads and self._reader is None:
            self._reader = await self.referee.store.another()
            if self._reader is not None:
                self.reads = Referee(self._reader, self.referee.rules_by_set, clock=self.referee.clock)
        runner = self._runner = web.AppRunner(self.app, access_log=None, handle_signals=False)
        await runner.setup()
        limits = self.server_limits
        self.guard = Guard(limits, per_address=not self.trust_proxy)  # (behind a proxy, all come from it)
        try:
            await GuardedSite(runner, host, port, self.guard).start()
        except OSError as err:  # the port taken, an address this machine does not have: closed again, one line
            await self.close()
            reason = err.strerror or str(err) or type(err).__name__
            raise OSError(f"cannot serve the game pages on {host}:{port} ({reason}): check WEB_HOST and WEB_PORT "
                          "(another program on that port?)") from None
        log.info("game pages served on %s:%s as %s: at most %d connections (%d an address), %d live streams, "
                 "a request within %g s (file limit %d)", host, self.port, self.public_url, limits.connections,
                 self.guard.per_address, self.max_listeners, limits.head_seconds, limits.files)

    async def committed(self, report: Report, by_clock: bool) -> None:
        """A change of a game committed by this process: its readers' live updates look at once (a change made by
        another process is seen at the next poll)."""
        watch = self._watches.get(report.game_id)
        if watch is not None:
            watch.nudge.set()

    async def close(self) -> None:
        """Stop serving: the live-update streams end, the pollers stop."""
        self._unsubscribe()
        await self._shut(self.app)
        runner, self._runner = self._runner, None
        if runner is not None:
            await runner.cleanup()
        guard, self.guard = self.guard, None
        if guard is not None:
            guard.close()
        reader, self._reader = self._reader, None
        self.reads = self.referee
        if reader is not None:
            await reader.close()

    # --- the application ----------------------------------------------------------------------------------------

    def _make_app(self) -> web.Application:
        app = web.Application(middlewares=[self._errors, self._limit], client_max_size=4096)
        app.router.add_get(PAGE_PATH + "{token}", self.page)
        app.router.add_get(PAGE_PATH + "{token}/rolls.csv", self.rolls_csv)
        app.router.add_get(PAGE_PATH + "{token}/chart/{name}.svg", self.chart)
        app.router.add_get(PAGE_PATH + "{token}/events", self.events)
        app.router.add_get("/static/{name}", self.static_file)
        app.router.add_get("/favicon.ico", self.no_icon)
        app.on_response_prepare.append(self._headers)
        app.on_shutdown.append(self._shut)
        return app

    async def _shut(self, app: web.Application) -> None:
        self._closing = True
        for watch in list(self._watches.values()):
            for listener in watch.listeners:
                listener.set()
            if watch.task is not None:
                watch.task.cancel()
        self._watches.clear()

    @staticmethod
    async def _headers(request: web.BaseRequest, response: web.StreamResponse) -> None:
        """Strict headers on every response, errors included (aiohttp's own answers to a malformed request, which
        no signal sees, get them from `GuardedHandler.handle_error`)."""
        secure(response.headers)

    @web.middleware
    async def _errors(self, request: web.Request, handler: Callable[[web.Request], Awaitable[web.StreamResponse]]
                      ) -> web.StreamResponse:
        """Every failure as one plain line: an HTTP error by its status (every 404 alike), a refusal (a bad query)
        as 400 with its reason, anything unexpected as 500, logged, never a traceback."""
        try:
            return await handler(request)
        except web.HTTPException as err:
            if err.status < 400:
                raise
            kept = {k: v for k, v in err.headers.items() if k in ("Allow", "Retry-After")}
            return plain(err.status, STATUS_WORDS.get(err.status, err.reason), kept)
        except BadInput as err:
            return plain(400, str(err).splitlines()[0] if str(err) else "bad request")
        except RefereeError as err:
            return plain(503, str(err).splitlines()[0] if str(err) else "busy")
        except (asyncio.CancelledError, ConnectionError):
            raise
        except Exception:
            resource = request.match_info.route.resource
            log.exception("a game page's %s %s failed", request.method,
                          resource.canonical if resource is not None else "?")  # (never the token: it is a secret)
            return plain(500, STATUS_WORDS[500])

    @web.middleware
    async def _limit(self, request: web.Request, handler: Callable[[web.Request], Awaitable[web.StreamResponse]]
                     ) -> web.StreamResponse:
        wait = self.limits.take(self.address(request))
        if wait > 0:
            retry = str(max(1, math.ceil(wait)))
            return plain(429, f"too many requests; try again in {retry} s", {"Retry-After": retry})
        return await handler(request)

    def address(self, request: web.BaseRequest) -> str:
        """The client's address: behind a reverse proxy (`trust_proxy`), the last X-Forwarded-For entry (the one
        the proxy added; what comes before it the client may have written)."""
        if self.trust_proxy:
            forwarded = request.headers.get("X-Forwarded-For", "").split(",")[-1].strip()
            if forwarded:
                return forwarded[:64]
        return request.remote or "?"

    async def _page(self, request: web.Request) -> tuple[int, str, str]:
        """The game of the request's token, the token and the page's version, read by one statement; the same 404
        for a token that opens none."""
        token = request.match_info["token"]
        rotations = self.referee.store.page_rotations  # (rotated through the referee's store, not the pages')
        if rotations != self._rotations:
            self._known.entries.clear()
            self._rotations = rotations
        known = self._known.get(token)
        if known is not None and self.clock() - known[0] < self.recheck_seconds:
            return known[1], token, known[2]
        found = await self.reads.store.page_of(token)
        if found is None:
            raise web.HTTPNotFound()
        if self.recheck_seconds > 0:
            self._known.put(token, (self.clock(), *found))
        return found[0], token, found[1]

    async def _once(self, cache: Lru, key: Hashable, make: Callable[[], Coroutine[Any, Any, bytes]]) -> bytes:
        """The cached bytes for `key`, made once however many ask at the same time (in a task of its own: a reader
        who leaves does not stop it for the others)."""
        found = cache.get(key)
        if found is not None:
            return found
        task = self._building.get(key)
        if task is None:
            task = asyncio.get_running_loop().create_task(make())
            self._building[key] = task
            task.add_done_callback(lambda done: self._built(cache, key, done))
        return await asyncio.shield(task)

    def _built(self, cache: Lru, key: Hashable, task: asyncio.Task[bytes]) -> None:
        self._building.pop(key, None)
        if not task.cancelled() and task.exception() is None:  # (a failure is its readers' to answer)
            cache.put(key, task.result())

    # --- the routes -----------------------------------------------------------------------------------------------

    async def page(self, request: web.Request) -> web.StreamResponse:
        game_id, token, version = await self._page(request)
        query = parse_query(request.query, request.query_string)
        shown = (game_id, token, query.key())
        latest = self._latest.get(shown)
        if latest is not None and latest[0] != version and self.clock() - latest[1] < self.remake_seconds:
            version, body = latest[0], latest[2]  # the last page made is recent: this version waits its turn
        else:
            body = await self._once(self.pages, ("page", *shown, version),
                                    lambda: self.render_page(game_id, token, version, query))
            if latest is None or latest[0] != version:
                self._latest.put(shown, (version, self.clock(), body))
        headers = {"Cache-Control": "no-store", "Vary": "Accept-Encoding"}
        if "gzip" in request.headers.get("Accept-Encoding", ""):
            # compressed once a page (a fifth of its size: a slow connection's wait, and the send's cost here)
            key = ("page", *shown, version)
            packed = self._gzipped.get(key)
            if packed is None:
                packed = gzip.compress(body, GZIP_LEVEL, mtime=0)
                self._gzipped.put(key, packed)
            body = packed
            headers["Content-Encoding"] = "gzip"
        return web.Response(body=body, content_type="text/html", charset="utf-8", headers=headers)

    async def rolls_csv(self, request: web.Request) -> web.StreamResponse:
        """The ledger as /log export's CSV, streamed a page of rows at a time (`web.stream`); downloads at once are
        bounded in all and per address (503 beyond)."""
        game_id, _, _ = await self._page(request)
        headers = {"Content-Type": "text/csv; charset=utf-8", "Cache-Control": "no-store",
                   "Content-Disposition": 'attachment; filename="roll-ledger.csv"'}
        if request.method == "HEAD":
            return web.Response(headers=headers)
        address = self.address(request)
        if self._closing or not self._downloads.take(address):
            return plain(503, "too many ledger downloads at once; try again later", {"Retry-After": "10"})
        try:
            namer = Namer(self.names, (await self.reads.store.game(game_id)).guild_id)  # names, never Discord ids
            response = web.StreamResponse(headers=headers)
            await response.prepare(request)
            try:
                await stream_csv(self.reads.store, game_id, lambda data: self._send(request, response, data),
                                 namer.person, self.csv_rows)
            except Exception as err:  # (the answer has begun: no other can follow; the reader sees it cut short)
                if not isinstance(err, ConnectionError):
                    log.exception("a game's ledger download failed")
                raise ConnectionResetError("the download was cut short") from None
        finally:
            self._downloads.give(address)
        return response

    async def _send(self, request: web.Request, response: web.StreamResponse, data: bytes) -> None:
        await send(request, response, data, self.server_limits.send_seconds, self.guard)

    async def chart(self, request: web.Request) -> web.StreamResponse:
        game_id, _, version = await self._page(request)
        name = request.match_info["name"]
        found = chart_look(name, CHARTS)
        if name != MAP and found is None:
            raise web.HTTPNotFound()
        make = self.render_map if found is None else functools.partial(self.render_chart, look=found[1])
        body = await self._once(self.charts, ("chart", game_id, version, name), lambda: make(game_id))
        fresh = request.query.get("v") == version  # the page asks for the version it shows: that never changes
        return web.Response(body=body, content_type="image/svg+xml",
                            headers={"Content-Security-Policy": SVG_CSP,
                                     "Cache-Control": "private, max-age=86400" if fresh else "no-cache"})

    async def static_file(self, request: web.Request) -> web.StreamResponse:
        name = request.match_info["name"]
        if name not in self.static:
            raise web.HTTPNotFound()
        kind = "text/css" if name.endswith(".css") else "text/javascript"
        fresh = request.query.get("v") == self.static_version
        return web.Response(body=self.static[name], content_type=kind, charset="utf-8",
                            headers={"Cache-Control": "public, max-age=86400" if fresh else "no-cache"})

    async def no_icon(self, request: web.Request) -> web.StreamResponse:
        """Browsers ask for /favicon.ico by themselves: no icon, and no 404 in the reader's console."""
        return web.Response(status=204, headers={"Cache-Control": "public, max-age=86400"})

    async def events(self, request: web.Request) -> web.StreamResponse:
        """Server-sent events: the game's version now, then `event: version` each time it changes (the game's one
        poller tells every listener), a comment every `heartbeat_seconds` (the token is checked again then: a
        rotated link's stream ends). Listeners are bounded in all and per address (503 beyond)."""
        game_id, token, version = await self._page(request)
        headers = {"Content-Type": "text/event-stream; charset=utf-8", "Cache-Control": "no-store",
                   "X-Accel-Buffering": "no"}
        if request.method == "HEAD":
            return web.Response(headers=headers)
        address = self.address(request)
        if self._closing or not self._listening.take(address):
            return plain(503, "too many live pages open; try again later", {"Retry-After": "30"})
        listener = asyncio.Event()
        watch = self._watch(game_id, version)
        watch.listeners.add(listener)
        response = web.StreamResponse(headers=headers)
        try:
            await response.prepare(request)
            await self._send(request, response, f"retry: 5000\n\nevent: version\ndata: {version}\n\n".encode())
            sent = version
            while not self._closing:
                try:
                    await asyncio.wait_for(listener.wait(), self.heartbeat_seconds)
                except TimeoutError:
                    if await self.reads.store.page_game(token) != game_id:
                        break
                    await self._send(request, response, b": heartbeat\n\n")
                    continue
                listener.clear()
                if self._closing:
                    break
                if watch.version is not None and watch.version != sent:
                    sent = watch.version
                    await self._send(request, response, f"event: version\ndata: {sent}\n\n".encode())
        except (ConnectionError, asyncio.CancelledError):
            pass
        finally:
            watch.listeners.discard(listener)
            self._listening.give(address)
        return response

    def _watch(self, game_id: int, version: str) -> Watch:
        watch = self._watches.get(game_id)
        if watch is None:
            watch = self._watches[game_id] = Watch(game_id)
            watch.version = version
            watch.task = asyncio.get_running_loop().create_task(self._poll(watch))
        return watch

    async def _poll(self, watch: Watch) -> None:
        """One game's poller: its version every `poll_seconds` while anyone listens (at once when this process
        commits a change of it: `committed`), each change told to all."""
        while True:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(watch.nudge.wait(), self.poll_seconds)
            watch.nudge.clear()
            if not watch.listeners or self._closing:
                if self._watches.get(watch.game_id) is watch:
                    del self._watches[watch.game_id]
                return
            try:
                version = str(await self.reads.store.page_version(watch.game_id))
            except KeyError:
                version = "gone"
            except Exception:
                log.exception("polling game %d's page version failed", watch.game_id)
                continue
            if version != watch.version:
                watch.version = version
                for listener in watch.listeners:
                    listener.set()

    # --- what is drawn (web.pictures) ----------------------------------------------------------------------------

    board_picture = staticmethod(pictures.board_picture)

    async def render_chart(self, game_id: int, look: Look) -> bytes:
        return await pictures.render_chart(self.reads.store, self.names, game_id, look)

    async def render_map(self, game_id: int) -> bytes:
        return await pictures.render_map(self.reads.store, self.names, game_id)

    async def render_page(self, game_id: int, token: str, version: str, query: Query) -> bytes:
        """The page's HTML (UTF-8): everything read from the store, laid out by the template."""
        store, referee = self.reads.store, self.reads
        row = await store.game(game_id)
        state = await store.load(game_id)
        found = ruleset(state.ruleset)
        rules = referee.rules_for(state.ruleset)
        namer = Namer(self.names, row.guild_id)
        where = ledger_filter(state, found, query, namer)
        shown = await ledger_page(store, game_id, where, query.page, LEDGER_ROWS)
        told = await game_story(referee, game_id, query.turn, state)
        lines = story_lines(told, when=time_mark, who=namer.person)
        entries, left_out = story_entries(lines[1:], namer)
        glance = found.glance(state)
        results = None
        if state.ended and found.final_standings is not None and found.results is not None:
            final = found.results(found.final_standings(state))
            results = view_html(final, namer) if final is not None else None
        chart_note = None
        chart_title = None
        if found.game_chart:
            try:
                chart_title = pictures.game_chart(state, await store.history(game_id), namer).title
            except BadInput as err:
                chart_note = namer.text(str(err))
        else:
            chart_note = f"{found.title} games have no chart."
        board = pictures.board_picture(state, namer)
        board_size = mappicture.layout(board) if board is not None else None

        def link(anchor: str, **changed: Any) -> str:
            params = query.params(**changed)
            return token + (("?" + urlencode(params)) if params else "") + "#" + anchor

        html = self.templates.get_template("page.html").render(
            title=found.title,
            summary=namer.text(found.summary(state)),
            ended=bool(state.ended),
            version=version,
            token=token,
            static_version=self.static_version,
            stage=namer.text(glance.stage),
            awaiting=line_html(glance.awaiting, namer) if glance.awaiting is not None else None,
            due=time_html(glance.due) if glance.due is not None else None,
            countdown=time_html(glance.due, "countdown") if glance.due is not None and not state.ended else None,
            standings=[view_html(v, namer) for v in found.page_views(state, rules)],
            results=results,
            chart_title=namer.text(chart_title) if chart_title else None,
            chart_note=chart_note,
            charts=[chart_sources(f"{token}/chart/{name}", version) for name in CHARTS] if chart_title else [],
            board=f"{token}/chart/{MAP}.svg?v={version}" if board is not None else None,
            board_title=board.title if board is not None else None,
            board_caption=board.caption if board is not None else None,
            board_width=board_size.width if board_size is not None else None,
            board_height=board_size.height if board_size is not None else None,
            side_word=found.side_word,
            query=query,
            free_choices=FREE,
            max_purpose=MAX_PURPOSE,
            max_who=MAX_WHO,
            rows=[ledger_row(r, namer) for r in reversed(shown.rolls)],  # newest first, as the pages go
            ledger=shown,
            ledger_empty=empty_text(where),
            newer=link("ledger", page=shown.page - 1) if shown.page > 1 else None,
            older=link("ledger", page=shown.page + 1) if shown.page < shown.pages else None,
            csv=f"{token}/rolls.csv",
            clear=token + "#ledger",
            story_head=lines[0],
            story=entries,
            story_left_out=left_out,
            story_turn=told.turn,
            story_current=told.current,
            previous_turn=link("story", turn=told.turn - 1) if told.turn > 1 else None,
            next_turn=link("story", turn=told.turn + 1 if told.turn + 1 < told.current else None)
            if told.turn < told.current else None,
            turn_links=[(t, link("story", turn=None if t == told.current else t))
                        for t in range(max(1, told.turn - 5), min(told.current, told.turn + 5) + 1)],
        )
        return html.encode("utf-8")

