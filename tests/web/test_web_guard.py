"""Issue 33: a page server that cannot be starved — raw sockets against the server started on 127.0.0.1 (a free port):
a connection that sends no whole request is closed, and so is one kept alive and idle; connections beyond the
per-address cap are closed at once, and at the cap in all the oldest one without a request makes room (none left:
closed at once); live streams are capped below the file limit; aiohttp's own 400 answers carry the page's headers;
nothing of a request (its token) is logged, only a summary line; the ledger's CSV is streamed a page of rows at a
time. Every wait is for an event (the connection's end), bounded only against a hang: no timing is asserted."""

from __future__ import annotations

import asyncio
import io
import logging
import resource
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import aiohttp
import pytest
from pagehelpers import NATIONS, serving

from service.ledger import write_ledger
from web.guard import Guard, Limits, file_limit, peer_key
from web.server import PAGE_CSP, GamePages

HANG = 30.0  # seconds: only ever a bound on a hang


@asynccontextmanager
async def started(table, **options: Any) -> AsyncIterator[tuple[GamePages, int]]:
    """The table's pages served by `GamePages.start` on 127.0.0.1, a free port: (pages, port)."""
    options.setdefault("limits", Limits())
    pages = GamePages(table.referee, "http://127.0.0.1", remake_seconds=0, recheck_seconds=0, **options)
    await pages.start("127.0.0.1", 0)
    try:
        assert pages.port is not None
        yield pages, pages.port
    finally:
        await pages.close()


async def until_eof(reader: asyncio.StreamReader) -> bytes:
    """Everything the server sends until it closes the connection (a reset counts as closed)."""
    try:
        return await asyncio.wait_for(reader.read(), HANG)
    except ConnectionResetError:
        return b""


async def raw(port: int, data: bytes) -> tuple[int, dict[str, str], bytes]:
    """`data` sent on a connection of its own, the answer read to the end: (status, headers, body)."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    try:
        writer.write(data)
        answer = await until_eof(reader)
    finally:
        writer.close()
    head, _, body = answer.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    headers = dict(line.split(": ", 1) for line in lines[1:])
    return int(lines[0].split()[1]), headers, body


async def until(check: Any) -> None:
    """Wait for `check()` to hold (the server's side of a connection seen), bounded against a hang."""
    async def poll() -> None:
        while not check():
            await asyncio.sleep(0.005)

    await asyncio.wait_for(poll(), HANG)


async def test_a_connection_that_sends_no_whole_request_is_closed_and_counted(table, caplog):
    caplog.set_level(logging.INFO)
    await table.play(NATIONS[:2])
    async with started(table, limits=Limits(head_seconds=0.05)) as (pages, port):
        silent = await asyncio.open_connection("127.0.0.1", port)
        partial = await asyncio.open_connection("127.0.0.1", port)
        partial[1].write(b"GET /static/page.css HTTP/1.1\r\nHost: referee\r\n")  # never the blank line
        assert await until_eof(silent[0]) == b""
        assert await until_eof(partial[0]) == b""
        for _, writer in (silent, partial):
            writer.close()
        assert pages.guard is not None and pages.guard.counts["slow"] == 2
        assert not [r for r in caplog.records if r.name == "referee.web" and r.levelno >= logging.WARNING]
        pages.guard.tell()  # (told by itself a minute after the first; at once here)
        [summary] = [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING]
        assert "2 closed without a whole request in 0.05 s" in summary


async def test_a_kept_alive_connection_is_closed_once_idle(table):
    await table.play(NATIONS[:2])
    async with started(table, limits=Limits(head_seconds=HANG, idle_seconds=0.05)) as (_, port):
        status, headers, body = await raw(port, b"GET /static/page.css HTTP/1.1\r\nHost: referee\r\n\r\n")
    # the answer, kept alive (no Connection: close), then the server's end of it once idle
    assert status == 200 and headers.get("Connection", "").lower() != "close"
    assert len(body) == int(headers["Content-Length"]) > 0


CSS = b"GET /static/page.css HTTP/1.1\r\nHost: referee\r\n\r\n"
CSS_CLOSE = b"GET /static/page.css HTTP/1.1\r\nHost: referee\r\nConnection: close\r\n\r\n"


async def answer(reader: asyncio.StreamReader) -> bytes:
    """One kept-alive answer's head and body (a Content-Length one)."""
    head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), HANG)
    length = int(head.lower().split(b"content-length: ")[1].split(b"\r\n")[0])
    return head + await asyncio.wait_for(reader.readexactly(length), HANG)


async def test_connections_beyond_the_per_address_cap_are_closed_at_once_and_the_others_served(table):
    await table.play(NATIONS[:2])
    async with started(table, limits=Limits(head_seconds=HANG, per_address=3)) as (pages, port):
        guard = pages.guard
        assert guard is not None
        held = [await asyncio.open_connection("127.0.0.1", port) for _ in range(3)]
        await until(lambda: guard.open == 3)
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        assert await until_eof(reader) == b""  # closed before a byte was read
        writer.close()
        assert guard.counts["address"] == 1
        for reader, writer in held:  # the ones let in are served
            writer.write(CSS_CLOSE)
            assert (await until_eof(reader)).startswith(b"HTTP/1.1 200 OK\r\n")
            writer.close()
        await until(lambda: guard.open == 0)
        status, _, _ = await raw(port, CSS_CLOSE)
        assert status == 200 and not guard.held  # a place freed is taken again


async def test_at_the_cap_in_all_the_oldest_connection_without_a_request_makes_room(table):
    await table.play(NATIONS[:2])
    limits = Limits(head_seconds=HANG, idle_seconds=HANG, connections=3, per_address=32)
    async with started(table, limits=limits) as (pages, port):
        guard = pages.guard
        assert guard is not None
        silent = [await asyncio.open_connection("127.0.0.1", port) for _ in range(3)]
        await until(lambda: guard.open == 3)
        status, _, _ = await raw(port, CSS_CLOSE)  # a reader gets in: the oldest silent one is closed for it
        assert status == 200 and guard.counts["evicted"] == 1
        assert await until_eof(silent[0][0]) == b""
        assert not silent[1][0].at_eof() and not silent[2][0].at_eof()
        for _, writer in silent:
            writer.close()
        await until(lambda: guard.open == 0)
        busy = [await asyncio.open_connection("127.0.0.1", port) for _ in range(3)]
        for reader, writer in busy:  # each has had its request answered, and is kept alive
            writer.write(CSS)
            assert (await answer(reader)).startswith(b"HTTP/1.1 200 OK\r\n")
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        assert await until_eof(reader) == b""  # none to make room: refused at once
        writer.close()
        assert guard.counts["full"] == 1 and guard.open == 3
        for reader, writer in busy:  # and they are still served
            writer.write(CSS_CLOSE)
            assert (await until_eof(reader)).startswith(b"HTTP/1.1 200 OK\r\n")
            writer.close()


def test_the_caps_come_from_the_file_limit_with_a_reserve():
    assert file_limit() == resource.getrlimit(resource.RLIMIT_NOFILE)[0] or file_limit() == 1024
    for files in (1024, 8192, 20_000):
        limits = Limits.of(files)
        assert limits.files == files
        assert limits.connections <= files - 128 and limits.connections <= files * 3 // 4
        assert limits.streams <= limits.connections // 2
    assert Limits.of().files == file_limit()
    assert Limits.of(1024).connections == 768 and Limits.of(8192).connections == 6144
    guard = Guard(Limits.of(1024), per_address=False)  # behind a proxy every connection is the proxy's
    assert guard.per_address == 768


def test_connections_are_counted_by_address_an_ipv6_one_by_its_64():
    assert peer_key(("203.0.113.7", 5000)) == "203.0.113.7"
    assert peer_key(("2001:db8:1:2:aaaa::1", 5000, 0, 0)) == peer_key(("2001:db8:1:2:bbbb::9", 1, 0, 0)) \
        == "2001:db8:1:2::/64"
    assert peer_key(("::ffff:203.0.113.7", 1, 0, 0)) == "203.0.113.7"
    assert peer_key(None) == "None"


async def test_live_streams_are_capped_below_the_file_limit(table):
    await table.play(NATIONS[:2])
    token = await table.token()
    pages = GamePages(table.referee, "http://x", limits=Limits.of(1024))
    assert pages.max_listeners == 384 < 1024
    await pages.close()
    async with started(table, limits=Limits(connections=8, streams=4), max_listeners_per_address=8) as (pages, port):
        assert pages.max_listeners == 4
        url = f"http://127.0.0.1:{port}/g/{token}/events"
        async with aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=HANG)) as session:
            streams = [await session.get(url) for _ in range(4)]
            assert [s.status for s in streams] == [200] * 4 and pages.listeners == 4
            refused = await session.get(url)
            assert refused.status == 503 and refused.headers["Retry-After"] == "30"
            assert refused.headers["Content-Security-Policy"] == PAGE_CSP
            refused.release()
            for stream in streams:
                stream.close()


@pytest.mark.parametrize("request_bytes", [
    b"GARBAGE\r\n\r\n",
    b"GET /g/abc?" + b"a" * 9000 + b" HTTP/1.1\r\nHost: referee\r\n\r\n",
    b"GET /g/abc HTTP/1.1\r\nHost: referee\r\nX-Long: " + b"a" * 9000 + b"\r\n\r\n",
    b"GET /g/abc HTTP/1.1\r\n" + b"".join(b"X-%d: 1\r\n" % i for i in range(200)) + b"\r\n",
], ids=["bad request line", "long URL", "long header", "many headers"])
async def test_aiohttps_own_400_answers_carry_the_pages_headers(table, request_bytes):
    async with started(table) as (_, port):
        status, headers, body = await raw(port, request_bytes)
    assert status == 400 and body == b"400: bad request\n"
    assert headers["Content-Security-Policy"] == PAGE_CSP and headers["X-Content-Type-Options"] == "nosniff"
    assert headers["Referrer-Policy"] == "no-referrer" and headers["Server"] == "referee"


async def test_a_long_url_holding_the_token_is_never_logged(table, caplog):
    caplog.set_level(logging.DEBUG)
    await table.play(NATIONS[:2])
    token = await table.token()
    async with started(table) as (pages, port):
        for url in (f"/g/{token}?who=" + "a" * 9000, f"/g/{token}" + "b" * 9000, f"/g/{token}/rolls.csv?" + "c" * 9000):
            status, _, body = await raw(port, f"GET {url} HTTP/1.1\r\nHost: referee\r\n\r\n".encode())
            assert status == 400 and token.encode() not in body
        assert pages.guard is not None
        pages.guard.tell()
    formatter = logging.Formatter()
    logged = [formatter.format(record) for record in caplog.records]
    assert any("3 malformed, answered 400" in line for line in logged)
    assert not [line for line in logged if token in line]


async def test_the_csv_is_streamed_a_page_of_rows_at_a_time_and_equals_the_export(table):
    await table.play(NATIONS)
    table.roller.push(5, 6, 1, 2, 3)
    await table.play(["bob /roll 1d6"] * 5)
    token = await table.token()
    asked: list[int] = []
    chunk = table.store.ledger_chunk

    async def counted(game_id: int, after: int, limit: int) -> Any:
        asked.append(limit)
        return await chunk(game_id, after, limit)

    table.store.ledger_chunk = counted
    async with serving(table, csv_rows=2) as (client, _):
        response = await client.get(f"/g/{token}/rolls.csv")
        body = await response.read()
        head = await client.head(f"/g/{token}/rolls.csv")
    assert asked == [2, 2, 2, 2]  # 7 rolls, 2 a page (the last page short: the end)
    assert response.status == 200 and "Content-Length" not in response.headers  # streamed, chunked
    assert response.headers["Transfer-Encoding"] == "chunked"
    assert response.headers["Content-Type"] == "text/csv; charset=utf-8"
    assert head.status == 200 and head.headers["Content-Type"] == "text/csv; charset=utf-8"
    exported = io.BytesIO()
    await write_ledger(table.store, await table.game_id(), "csv", exported)
    assert body == exported.getvalue() and body.count(b"\r\n") == 1 + 7  # the header, 2 rule rolls, 5 free rolls


async def test_an_empty_ledgers_csv_is_its_header_alone(table):
    await table.play(["gm /game start"])
    token = await table.token()
    async with serving(table) as (client, _):
        body = await (await client.get(f"/g/{token}/rolls.csv")).read()
    exported = io.BytesIO()
    await write_ledger(table.store, await table.game_id(), "csv", exported)
    assert body == exported.getvalue() and body.startswith(b"\xef\xbb\xbfroll,") and body.count(b"\r\n") == 1


async def test_downloads_at_once_are_bounded_per_address(table):
    await table.play(NATIONS)
    token = await table.token()
    gate = asyncio.Event()
    chunk = table.store.ledger_chunk

    async def held(game_id: int, after: int, limit: int) -> Any:
        await gate.wait()
        return await chunk(game_id, after, limit)

    table.store.ledger_chunk = held
    async with serving(table, max_downloads_per_address=1) as (client, _):
        first = await client.get(f"/g/{token}/rolls.csv")  # its headers sent, its rows waiting on the store
        second = await client.get(f"/g/{token}/rolls.csv")
        assert second.status == 503 and second.headers["Retry-After"] == "10"
        gate.set()
        assert first.status == 200 and b"grow military" in await first.read()
        third = await client.get(f"/g/{token}/rolls.csv")
        assert third.status == 200 and b"grow military" in await third.read()
