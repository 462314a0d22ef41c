"""Self-test of the fake Discord's threads and forums (tests/support/fakediscord.py), through a bare discord.py
client: what Discord's threads topic documents — a forum takes posts, not messages; a post is a thread opened by
its starter message; *Send Messages in Threads*, not *Send Messages*, lets one write in a thread; sending to an
archived thread opens it again unless it is locked; an archived thread takes no edit or pin; opening it again by
PATCH needs only being able to write there while it is unlocked, Manage Threads once locked."""

from __future__ import annotations

from collections.abc import AsyncIterator

import discord
import pytest
import pytest_asyncio
from fakediscord import (
    FORUM,
    MANAGE_THREADS,
    SEND_MESSAGES_IN_THREADS,
    FakeDiscord,
)

pytestmark = pytest.mark.asyncio
OLD_INVITE = discord.Permissions(view_channel=True, send_messages=True, embed_links=True, attach_files=True,
                                 read_message_history=True, pin_messages=True).value
INVITE = OLD_INVITE | SEND_MESSAGES_IN_THREADS  # no Manage Threads, as a bot is invited


@pytest_asyncio.fixture
async def fake(monkeypatch: pytest.MonkeyPatch) -> AsyncIterator[FakeDiscord]:
    server = FakeDiscord()
    await server.start()
    server.install(monkeypatch)
    try:
        yield server
    finally:
        await server.stop()


def client() -> discord.Client:
    return discord.Client(intents=discord.Intents.default(), guild_ready_timeout=0.05)


async def test_a_forum_takes_posts_each_a_thread_opened_by_its_starter_message(fake: FakeDiscord) -> None:
    guild = fake.add_guild("War Room")
    forum = fake.add_forum(guild, "games")
    alice = fake.add_member(guild, fake.add_user("alice"))
    post = fake.add_forum_post(forum, "Nations, spring", owner=alice, content="who plays?")
    [starter] = fake.channel_messages(post)
    assert (post.type, post.parent_id, starter.id, starter.content) == (11, forum.id, post.id, "who plays?")
    async with fake.run_bot(client()) as bot:
        cached = bot.get_channel(forum.id)
        assert isinstance(cached, discord.ForumChannel) and forum.type == FORUM
        with pytest.raises(discord.HTTPException) as refused:  # the forum itself takes no message
            await bot.get_partial_messageable(forum.id, guild_id=guild.id).send("hello")
        assert refused.value.code == 50008
        made = await cached.create_thread(name="Godsfire", content="a new game")
        assert made.thread.parent_id == forum.id and made.message.id == made.thread.id
        assert [m.content for m in fake.channel_messages(made.thread.id)] == ["a new game"]
        sent = await bot.get_partial_messageable(post.id, guild_id=guild.id).send("welcome")
        assert sent.channel.id == post.id and fake.channel_messages(post)[-1].content == "welcome"


async def test_a_thread_needs_send_messages_in_threads_not_send_messages(fake: FakeDiscord) -> None:
    guild = fake.add_guild("War Room", bot_permissions=OLD_INVITE)  # invited without Send Messages in Threads
    guild.default_role.permissions &= ~SEND_MESSAGES_IN_THREADS  # and the server's default role lacks it
    channel = fake.add_channel(guild, "nations")
    thread = fake.add_thread(channel, "game")
    async with fake.run_bot(client()) as bot:
        await bot.get_partial_messageable(channel.id, guild_id=guild.id).send("in the channel: fine")
        with pytest.raises(discord.Forbidden) as refused:
            await bot.get_partial_messageable(thread.id, guild_id=guild.id).send("in the thread")
        assert refused.value.code == 50013
        cached = bot.get_channel(thread.id)
        assert isinstance(cached, discord.Thread)
        perms = cached.permissions_for(cached.guild.me)
        assert perms.send_messages and not perms.send_messages_in_threads


async def test_an_archived_thread_is_opened_again_by_a_message_unless_locked(fake: FakeDiscord) -> None:
    guild = fake.add_guild("War Room", bot_permissions=INVITE)
    channel = fake.add_channel(guild, "nations")
    alice = fake.add_member(guild, fake.add_user("alice"))
    thread = fake.add_thread(channel, "game", owner=alice.user)
    async with fake.run_bot(client()) as bot:
        where = bot.get_partial_messageable(thread.id, guild_id=guild.id)
        first = await where.send("status")
        fake.set_thread(thread, archived=True)  # auto-archived after a quiet day
        with pytest.raises(discord.HTTPException) as refused:  # no edit, no pin in an archived thread
            await first.edit(content="status, edited")
        assert refused.value.code == 50083
        with pytest.raises(discord.HTTPException):
            await first.pin()
        await where.send("turn 2 begins")  # a message opens it again
        assert not thread.archived and fake.channel_messages(thread)[-1].content == "turn 2 begins"
        await first.edit(content="status, edited")

        fake.set_thread(thread, archived=True, locked=True)  # a moderator locked it
        with pytest.raises(discord.HTTPException) as refused:
            await where.send("turn 3 begins")
        assert refused.value.code == 50083 and thread.archived
        with pytest.raises(discord.Forbidden):  # locked: Manage Threads opens it (or its creator)
            await bot.http.edit_channel(thread.id, archived=False)
        guild.default_role.permissions |= MANAGE_THREADS
        await bot.http.edit_channel(thread.id, archived=False)
        await where.send("turn 3 begins")
        assert not thread.archived and thread.locked


async def test_an_unlocked_archived_thread_is_opened_by_patch_by_one_who_can_write_there(fake: FakeDiscord) -> None:
    guild = fake.add_guild("War Room", bot_permissions=INVITE)
    channel = fake.add_channel(guild, "nations")
    alice = fake.add_member(guild, fake.add_user("alice"))
    thread = fake.add_thread(channel, "game", owner=alice.user)
    fake.set_thread(thread, archived=True)
    async with fake.run_bot(client()) as bot:
        with pytest.raises(discord.Forbidden):  # renaming someone else's thread: Manage Threads
            await bot.http.edit_channel(thread.id, name="renamed")
        await bot.http.edit_channel(thread.id, archived=False)
        assert not thread.archived and thread.name == "game"
