"""Closing (issue 9, findings 7 and 12): closes are idempotent and safe at once; what is in flight finishes, what
comes late is refused cleanly; the token never shows in an error line or a log line."""

from __future__ import annotations

import asyncio
import logging
import threading

import discord
import pytest
from discordkit import START, start_war, table, texts
from fakediscord import HANG_TIMEOUT

import bot as bot_module
from data.store import SHUTTING_DOWN, Store, StoreUnavailable


async def test_store_close_twice_at_once_and_again(tmp_path):
    store = await Store.open(tmp_path / "referee.db")
    await asyncio.wait_for(asyncio.gather(store.close(), store.close()), HANG_TIMEOUT)
    await asyncio.wait_for(store.close(), HANG_TIMEOUT)
    with pytest.raises(StoreUnavailable, match="^the referee is shutting down; nothing changed"):
        await store.live_game("anywhere")


async def test_store_close_lets_the_write_in_flight_commit_and_refuses_new_ones(tmp_path):
    store = await Store.open(tmp_path / "referee.db")
    release = threading.Event()

    def work(con):
        release.wait(HANG_TIMEOUT)
        con.execute("INSERT INTO games (channel, guild_id, gm, created_at) VALUES ('c', NULL, 'gm', 'now')")

    in_flight = asyncio.ensure_future(store._transaction(work))
    await asyncio.sleep(0)  # (it is counted in flight from its first step)
    closing = asyncio.ensure_future(store.close())
    await asyncio.sleep(0)  # closing has begun
    with pytest.raises(StoreUnavailable, match=SHUTTING_DOWN):
        await store.games(live_only=False)
    assert not closing.done()
    release.set()
    await asyncio.wait_for(asyncio.gather(in_flight, closing), HANG_TIMEOUT)
    again = await Store.open(tmp_path / "referee.db")
    try:
        assert [row.channel for row in await again.games(live_only=False)] == ["c"]
    finally:
        await again.close()


async def test_bot_close_twice_at_once(tmp_path):
    async with table(tmp_path) as t:
        async with t.bot() as rb:
            await start_war(t)
            await asyncio.wait_for(asyncio.gather(rb.bot.close(), rb.bot.close()), HANG_TIMEOUT)
            assert rb.bot.is_closed() and rb.bot.store.closed


async def test_closing_with_40_interactions_in_flight_answers_or_refuses_each(tmp_path):
    """The store's thread is held so that 40 commands are in flight when the bot closes; 5 more come while it
    closes. The 40 are answered, the 5 refused, nothing is logged as an error."""
    async with table(tmp_path) as t:
        async with t.bot() as rb:
            await start_war(t)
            hold = threading.Event()
            blocker = asyncio.ensure_future(rb.bot.store.db._execute(lambda: hold.wait(HANG_TIMEOUT)))
            sent = [asyncio.ensure_future(t.fake.invoke(t.guild, t.channel, t.gm, "gm dice", options={"values": "4"}))
                    for _ in range(40)]
            loop = asyncio.get_running_loop()
            deadline = loop.time() + HANG_TIMEOUT  # (a bound on a hang, not a timing)
            while sum(task.get_name() == "CommandTree-invoker" for task in asyncio.all_tasks()) < 40:
                assert loop.time() < deadline, "the bot never received the 40 commands"
                await asyncio.sleep(0.01)
            closing = asyncio.ensure_future(rb.bot.close())
            late = [await t.fake.invoke(t.guild, t.channel, t.alice, "nation show") for _ in range(5)]
            hold.set()
            await blocker
            answers = await asyncio.wait_for(asyncio.gather(*sent), HANG_TIMEOUT)
            await asyncio.wait_for(closing, HANG_TIMEOUT)
    assert all("entered the next 1 die" in texts(a) for a in answers), [texts(a) for a in answers]
    assert all(SHUTTING_DOWN in texts(r) and r.ephemeral for r in late)
    t.fake.assert_no_errors()


# --- the token: never in an error line, never in a log line -------------------------------------------------

TOKEN = "secret-token-123"


def test_a_server_error_that_echoes_the_token_is_not_printed(tmp_path, monkeypatch, capsys):
    async def refused(self, token):
        response = type("Response", (), {"status": 400, "reason": f"Bad Request {token}"})()
        raise discord.HTTPException(response, {"message": f"bad header Authorization: Bot {token}", "code": 0})

    monkeypatch.setattr(discord.Client, "login", refused)
    settings = bot_module.Settings(token=TOKEN, db_path=str(tmp_path / "referee.db"))
    assert bot_module.run_discord(settings) == 1
    err = capsys.readouterr().err
    assert err == ("error: Discord answered HTTP 400 at start-up; check the token and the bot's settings in the "
                   "developer portal, or try again later\n")


def test_an_unexpected_failure_has_the_token_redacted(tmp_path, monkeypatch, capsys):
    async def broken(self, token):
        raise RuntimeError(f"could not use {token}")

    monkeypatch.setattr(discord.Client, "login", broken)
    settings = bot_module.Settings(token=TOKEN, db_path=str(tmp_path / "referee.db"))
    assert bot_module.run_discord(settings) == 1
    assert capsys.readouterr().err == "error: the bot could not start: RuntimeError: could not use [token]\n"


def test_log_lines_have_the_token_redacted(monkeypatch):
    root = logging.getLogger()
    stream = __import__("io").StringIO()
    handler = logging.StreamHandler(stream)
    monkeypatch.setattr(root, "handlers", [handler])
    bot_module.install_redaction(TOKEN)
    bot_module.install_redaction(TOKEN)  # once is enough
    assert len(handler.filters) == 1
    log = logging.getLogger("discord.http")
    log.warning("request with %s failed", TOKEN)
    try:
        raise ValueError(f"header Bot {TOKEN}")
    except ValueError:
        log.exception("and %s again", "this")
    text = stream.getvalue()
    assert TOKEN not in text and text.count("[token]") == 2 and "ValueError: header Bot [token]" in text


def test_the_bot_mentions_no_one_by_default():
    settings = bot_module.Settings(token=TOKEN)
    mentions = bot_module.create_bot(settings).allowed_mentions
    assert mentions is not None
    assert mentions.to_dict() == discord.AllowedMentions(everyone=False, roles=False, users=False,
                                                         replied_user=False).to_dict()
    assert START  # (the kit's clock starts there)
