"""The page server's guard (issue 33): no visitor can starve it of connections or files, nor fill its log.

- A connection must send a whole request head (its line and headers) within `head_seconds` of opening; one kept
  alive is closed after `idle_seconds` without a whole next request (aiohttp's `keepalive_timeout`). A request's
  body is never read (every route is GET): what is left of one is discarded for at most `LINGER_SECONDS`.
- An answer its client does not read is given up after `send_seconds` (the connection closed).
- At most `per_address` connections at once from one address (IPv6: one /64), `connections` in all: each is
  counted as the server accepts it, and one beyond is closed there and then, before a byte is read — except that when
  all are taken, the oldest connection that has not yet sent a whole request is closed to make room (so that many
  addresses holding connections open cannot shut readers out). `connections` comes from the process's file limit
  (RLIMIT_NOFILE) less a reserve for the database, Discord, the chart worker and the log, so that the server
  never runs out of files; live-update streams are capped at half of it.
- aiohttp's own answers to a malformed request (a bad request line, too long a line or header) are the page's
  plain one-line answers with its strict headers, and say nothing of the request. Nothing of a request is logged
  (its URL holds the game's secret token): refusals, timeouts and malformed requests are counted and told in one
  line a minute at most.
"""

from __future__ import annotations

import asyncio
import errno
import ipaddress
import logging
import socket
from collections import Counter
from collections.abc import MutableMapping
from dataclasses import dataclass
from typing import Any

from aiohttp import web
from aiohttp.web_server import Server

__all__ = ["PAGE_CSP", "STATUS_WORDS", "Guard", "GuardedHandler", "GuardedSite", "Limits", "file_limit", "peer_key",
           "plain", "secure"]

log = logging.getLogger("referee.web")

PAGE_CSP = ("default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; "
            "base-uri 'none'; form-action 'self'; frame-ancestors 'none'")
STATUS_WORDS = {400: "bad request", 404: "not found", 405: "method not allowed", 413: "request too large",
                429: "too many requests", 431: "request headers too large",
                500: "the page could not be made; try again later", 503: "busy; try again later",
                504: "the page took too long; try again later"}
UNKNOWN_FILES = 1024  # the file limit assumed when the system tells none (or "unlimited")
RESERVE_SHARE, RESERVE_MIN = 4, 128  # files kept for everything else: a quarter of the limit, at least 128
MOST_CONNECTIONS = 16_384  # whatever the file limit: each connection costs memory too
LINGER_SECONDS = 2.0
BACKLOG = 1024  # connections the kernel holds for the server to accept (asyncio's default: 128)
ACCEPT_BATCH = 64  # connections accepted at a time (a turn of the loop)
ACCEPT_PAUSE = 1.0  # seconds without accepting when the process is out of files
SUMMARY_SECONDS = 60.0
TOLD = {"address": "refused (already {per_address} from its address)", "full": "refused (already {connections} "
        "open)", "slow": "closed without a whole request in {head_seconds:g} s", "bad": "malformed, answered 400",
        "stalled": "closed, their answer unread for {send_seconds:g} s", "failed": "failed inside aiohttp",
        "evicted": "closed to make room (all {connections} taken, no whole request from them yet)",
        "files": "not accepted: the process was out of files"}


def file_limit() -> int:
    """The process's limit of open files (the soft RLIMIT_NOFILE); `UNKNOWN_FILES` when there is none to read."""
    try:
        import resource
    except ImportError:  # (not on Windows)
        return UNKNOWN_FILES
    soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    return UNKNOWN_FILES if soft == resource.RLIM_INFINITY or soft <= 0 else int(soft)


@dataclass(frozen=True)
class Limits:
    """What a connection may take: its time to send a request and to read its answer, the size of a request head,
    and the connections (and live-update streams) at once."""

    connections: int = 768
    streams: int = 384
    per_address: int = 32
    head_seconds: float = 5.0
    idle_seconds: float = 10.0
    send_seconds: float = 30.0
    max_line: int = 4096  # bytes of the request line, and of a header (a page's URL is under 1,100)
    max_headers: int = 64
    files: int = 1024  # the file limit they were derived from (shown in the log)

    @classmethod
    def of(cls, files: int | None = None, **given: Any) -> Limits:
        """The limits for a process that may open `files` files (default: this process's file limit)."""
        files = file_limit() if files is None else files
        connections = max(8, min(MOST_CONNECTIONS, files - max(RESERVE_MIN, files // RESERVE_SHARE)))
        given.setdefault("connections", connections)
        given.setdefault("streams", given["connections"] // 2)
        return cls(files=files, **given)


def peer_key(peer: Any) -> str:
    """What the connections of one address are counted by: its IP address, an IPv6 one by its /64 (one machine may
    hold a whole /64)."""
    host = str(peer[0]) if isinstance(peer, tuple | list) and peer else str(peer)
    if ":" not in host:
        return host
    try:
        address = ipaddress.IPv6Address(host.split("%", 1)[0])
    except ValueError:
        return host[:64]
    if address.ipv4_mapped is not None:
        return str(address.ipv4_mapped)
    return str(ipaddress.IPv6Network((address, 64), strict=False))


def secure(headers: MutableMapping[str, str]) -> None:
    """The strict headers every answer carries (an answer's own Content-Security-Policy and Cache-Control kept)."""
    headers.setdefault("Content-Security-Policy", PAGE_CSP)
    headers["Referrer-Policy"] = "no-referrer"
    headers["X-Content-Type-Options"] = "nosniff"
    headers["X-Robots-Tag"] = "noindex, nofollow"
    headers["X-Frame-Options"] = "DENY"
    headers["Cross-Origin-Opener-Policy"] = "same-origin"
    headers.setdefault("Cache-Control", "no-store")
    headers["Server"] = "referee"


def plain(status: int, words: str, headers: dict[str, str] | None = None) -> web.Response:
    """A one-line plain-text answer (an error's)."""
    return web.Response(status=status, text=f"{status}: {words}\n", content_type="text/plain", charset="utf-8",
                        headers=headers or {})


class Guard:
    """The connections open (accepted, not yet closed: each a file), by address and in all, and what was refused
    or closed, told once a minute at most. `per_address=False` (behind a reverse proxy, every connection comes from
    it): only the cap in all."""

    def __init__(self, limits: Limits, per_address: bool = True) -> None:
        self.limits = limits
        self.per_address = limits.per_address if per_address else limits.connections
        self.held: dict[str, int] = {}
        self.open = 0
        self.waiting: dict[GuardedHandler, None] = {}  # the connections yet to send a whole request, oldest first
        self.counts: Counter[str] = Counter()
        self._summary: asyncio.TimerHandle | None = None

    def admit(self, peer: Any) -> str | None:
        """A connection just accepted from `peer` counted (its key returned), or None: to be closed at once. At the
        cap in all, the oldest connection still waiting for its first request makes room (closed: its file is
        freed by the next turn of the loop, so the count may pass the cap by at most `ACCEPT_BATCH`)."""
        key = peer_key(peer)
        if self.held.get(key, 0) >= self.per_address:
            self.note("address")
            return None
        if self.open >= self.limits.connections:
            if not self.waiting or self.open >= self.limits.connections + ACCEPT_BATCH:
                self.note("full")
                return None
            next(iter(self.waiting)).evict()
        self.held[key] = self.held.get(key, 0) + 1
        self.open += 1
        return key

    def release(self, key: str) -> None:
        """A connection admitted is closed."""
        self.open -= 1
        held = self.held.pop(key, 1) - 1
        if held > 0:
            self.held[key] = held

    def note(self, what: str) -> None:
        """One more of `what` (a key of `TOLD`); the summary is told `SUMMARY_SECONDS` after the first."""
        self.counts[what] += 1
        if self._summary is None:
            self._summary = asyncio.get_running_loop().call_later(SUMMARY_SECONDS, self.tell)

    def tell(self) -> None:
        """The summary line of what was counted since the last one (nothing when nothing was)."""
        if self._summary is not None:
            self._summary.cancel()
            self._summary = None
        if not self.counts:
            return
        words = {"per_address": self.per_address, "connections": self.limits.connections,
                 "head_seconds": self.limits.head_seconds, "send_seconds": self.limits.send_seconds}
        parts = [f"{count:,} {TOLD[what].format(**words)}" for what, count in sorted(self.counts.items())]
        self.counts.clear()
        log.warning("game pages' connections since the last summary: %s", "; ".join(parts))

    def close(self) -> None:
        self.tell()


class GuardedHandler(web.RequestHandler):
    """aiohttp's handler of one admitted connection (`key`: its address's, counted by the guard until it closes):
    closed when it sends no whole request in time or when it must make room, answering a malformed request
    plainly and logging nothing of it."""

    __slots__ = ("_guard", "_key", "_head_timer")

    def __init__(self, manager: Server, guard: Guard, key: str, **kwargs: Any) -> None:
        super().__init__(manager, **kwargs)
        self._guard = guard
        self._key: str | None = key
        self._head_timer: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        super().connection_made(transport)
        if self._keepalive_handle is not None:  # (aiohttp's keep-alive timer times the first request too: ours does)
            self._keepalive_handle.cancel()
            self._keepalive_handle = None
        self._guard.waiting[self] = None
        self._head_timer = self._loop.call_later(self._guard.limits.head_seconds, self._head_late)

    def data_received(self, data: bytes) -> None:
        super().data_received(data)
        # aiohttp counts each request whose head it has parsed (a malformed one too); after the first, its own
        # keep-alive timer bounds the wait for the next (`idle_seconds`, not moved on by a partial request)
        if self._head_timer is not None and self._request_count:
            self._no_longer_waiting()

    def _head_late(self) -> None:
        self._head_timer = None
        if not self._request_count:
            self._guard.note("slow")
            self._no_longer_waiting()
            self.force_close()

    def evict(self) -> None:
        """Closed to make room for another connection (it has sent no whole request yet)."""
        self._guard.note("evicted")
        self._no_longer_waiting()
        self.force_close()

    def _no_longer_waiting(self) -> None:
        if self._head_timer is not None:
            self._head_timer.cancel()
            self._head_timer = None
        self._guard.waiting.pop(self, None)

    def release(self) -> None:
        """No longer counted by the guard (once)."""
        self._no_longer_waiting()
        key, self._key = self._key, None
        if key is not None:
            self._guard.release(key)

    def connection_lost(self, exc: BaseException | None) -> None:
        self.release()
        super().connection_lost(exc)

    async def finish_response(self, request: web.BaseRequest, resp: web.StreamResponse,
                              start_time: float | None) -> tuple[web.StreamResponse, bool]:
        try:
            async with asyncio.timeout(self._guard.limits.send_seconds):
                return await super().finish_response(request, resp, start_time)
        except TimeoutError:
            self._guard.note("stalled")
            self.force_close()
            return resp, True  # (as a client gone: the connection is not used again)

    def handle_error(self, request: web.BaseRequest, status: int = 500, exc: BaseException | None = None,
                     message: str | None = None) -> web.StreamResponse:
        """aiohttp's answer to a malformed request (or a failure past the page's own handling): one plain line with
        the strict headers, never the request's words (they may hold the token), nothing logged but a count."""
        self._guard.note("bad" if status < 500 else "failed")
        if request.writer.output_size > 0:
            raise ConnectionError("the answer had begun")  # (as aiohttp's own: the connection is closed)
        response = plain(status, STATUS_WORDS.get(status, "error"))
        secure(response.headers)
        response.force_close()
        return response

    def log_exception(self, *args: Any, **kwargs: Any) -> None:
        self._guard.note("failed")  # (aiohttp's exception logging names the request; counted instead)


class Listening(asyncio.AbstractServer):
    """The listening sockets of a `GuardedSite` (what its runner closes and lists the addresses of)."""

    def __init__(self, loop: asyncio.AbstractEventLoop, sockets: list[socket.socket]) -> None:
        self._loop, self._sockets = loop, sockets

    @property
    def sockets(self) -> tuple[socket.socket, ...]:
        return tuple(self._sockets)

    def close(self) -> None:
        for sock in self._sockets:
            self._loop.remove_reader(sock.fileno())
            sock.close()
        self._sockets = []

    def get_loop(self) -> asyncio.AbstractEventLoop:
        return self._loop

    def is_serving(self) -> bool:
        return bool(self._sockets)

    async def start_serving(self) -> None:
        return None  # (serving from the start)

    async def serve_forever(self) -> None:
        raise NotImplementedError("a GuardedSite serves until its runner is cleaned up")

    async def wait_closed(self) -> None:
        return None


async def listen(host: str | None, port: int, backlog: int) -> list[socket.socket]:
    """Non-blocking sockets listening on every address of `host` (all of this machine's: None or ""), as asyncio's
    create_server binds them; OSError (one naming the address) when one cannot be bound, none left open."""
    infos = await asyncio.get_running_loop().getaddrinfo(host or None, port, family=socket.AF_UNSPEC,
                                                         type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    sockets: list[socket.socket] = []
    try:
        for family, kind, proto, _, address in dict.fromkeys(infos):
            sock = socket.socket(family, kind, proto)
            sockets.append(sock)
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            if family == socket.AF_INET6:
                sock.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
            try:
                sock.bind(address)
            except OSError as err:
                raise OSError(err.errno, f"error while attempting to bind on address {address!r}: "
                                         f"{err.strerror}") from None
            sock.listen(backlog)
            sock.setblocking(False)
    except BaseException:
        for sock in sockets:
            sock.close()
        raise
    return sockets


class GuardedSite(web.TCPSite):
    """A TCP site that accepts connections itself: each counted by `guard` as it is accepted, one beyond its caps
    closed at once (no transport, no handler made: its file freed there and then), the others served by a
    `GuardedHandler`. Accepting pauses for a second when the process is out of files."""

    def __init__(self, runner: web.BaseRunner, host: str, port: int, guard: Guard) -> None:
        super().__init__(runner, host, port, backlog=BACKLOG)
        self.guard = guard
        self._starting: set[asyncio.Task[None]] = set()  # connections accepted, their transport being made

    async def start(self) -> None:
        await web.BaseSite.start(self)  # (registered with its runner, as TCPSite.start does)
        loop = asyncio.get_running_loop()
        sockets = await listen(self._host, self._port, self._backlog)
        self._server = Listening(loop, sockets)
        for sock in sockets:
            loop.add_reader(sock.fileno(), self._accept, sock)
        self._bound_port = sockets[0].getsockname()[1] if sockets else self._port

    def _handler(self, key: str) -> GuardedHandler:
        server = self._runner.server
        assert server is not None
        limits = self.guard.limits
        return GuardedHandler(server, self.guard, key, loop=asyncio.get_running_loop(),
                              keepalive_timeout=limits.idle_seconds, access_log=None, max_line_size=limits.max_line,
                              max_field_size=limits.max_line, max_headers=limits.max_headers,
                              lingering_time=LINGER_SECONDS)

    def _accept(self, sock: socket.socket) -> None:
        loop = asyncio.get_running_loop()
        for _ in range(ACCEPT_BATCH):
            try:
                conn, peer = sock.accept()
            except (BlockingIOError, InterruptedError, ConnectionAbortedError):
                return
            except OSError as err:  # out of files (or of memory): a second's pause, as asyncio's own accept does
                self.guard.note("files" if err.errno in (errno.EMFILE, errno.ENFILE) else "failed")
                loop.remove_reader(sock.fileno())
                loop.call_later(ACCEPT_PAUSE, self._resume, sock)
                return
            key = self.guard.admit(peer)
            if key is None:
                conn.close()
                continue
            conn.setblocking(False)
            task = loop.create_task(self._serve(conn, key))
            self._starting.add(task)
            task.add_done_callback(self._starting.discard)

    def _resume(self, sock: socket.socket) -> None:
        if self._server is not None and sock.fileno() != -1:
            asyncio.get_running_loop().add_reader(sock.fileno(), self._accept, sock)

    async def _serve(self, conn: socket.socket, key: str) -> None:
        handler = None

        def made() -> GuardedHandler:
            nonlocal handler
            handler = self._handler(key)
            return handler

        try:
            await asyncio.get_running_loop().connect_accepted_socket(made, conn)
        except Exception:  # (its transport could not be made: closed, and no longer counted)
            conn.close()
            if handler is not None:
                handler.release()
            else:
                self.guard.release(key)
            self.guard.note("failed")
