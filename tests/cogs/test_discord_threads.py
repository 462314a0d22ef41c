"""Issue 34: a game played in a thread or a forum's post, through discord.py against the fake Discord, with plain
members. The bot holds only what its invite asks for (`cogs.reach.INVITE`, no Administrator): a whole game in a
thread and in a forum post, from /game start to the final results; a thread archived between turns still gets its
turn end; where the bot lacks *Send Messages in Threads*, the GM is told once, in words, what is missing."""

from __future__ import annotations

import re
from pathlib import Path

import discord
from discordkit import at, settle, table, texts
from fakediscord import SEND_MESSAGES_IN_THREADS
from storehelpers import lapse

from cogs.reach import INVITE, NEEDED, lacking

README = Path(__file__).resolve().parents[2] / "README.md"
OLD_INVITE = discord.Permissions(view_channel=True, send_messages=True, embed_links=True, attach_files=True,
                                 read_message_history=True, pin_messages=True)  # the invite before issue 34


def invited_with(t, permissions: discord.Permissions) -> None:
    """The bot's own role (its invite's permissions) is `permissions`: no Administrator. Set before the bot
    connects, as when it joined the server."""
    [role] = [r for r in t.guild.roles.values() if r.bot_id == t.fake.bot_user.id]
    role.permissions = permissions.value


async def wake(rb, t, where) -> None:
    game = await rb.bot.referee.game_id(t.key(where))
    await rb.bot.get_cog("Clock").wake(game)
    await settle(t.fake)


async def play_to_the_end(t, rb, where) -> None:
    """/game start … a turn end announced … /game end with the results, all in `where` (a thread or a post)."""
    started = await t.run(t.gm, "game start", where, turn_hours=12)
    assert not started.ephemeral
    await t.run(t.alice, "nation claim", where, preset="Gracchan Republic")
    await t.run(t.bob, "nation claim", where, preset="Charon")
    status = t.status_message(where)
    assert status.author.id == t.fake.bot_user.id and status.embeds[0]["title"].startswith("Nations — turn 1 (")
    t.dice.push(9)
    await t.run(t.alice, "economy military", where)

    t.clock.advance(hours=12, minutes=1)
    await wake(rb, t, where)
    assert any(texts(m).startswith("⏰ Turn 1 is over (time is up). Turn 2 begins and ends " + at(24))
               for m in t.messages(where))
    assert t.status_message(where) is status and status.embeds[0]["title"].startswith("Nations — turn 2 (")

    asked = await t.run(t.gm, "game end", where)
    await t.click(t.gm, asked.message, asked.custom_ids[0], where)
    [results] = [m for m in t.messages(where)
                 if m.embeds and m.embeds[0].get("title") == "🏁 Game over — final results"]
    assert results.embeds[0]["description"].startswith(
        "🤝 A tie: **Charon** and **Gracchan Republic** share the game, with 20 LAND and 0 battles won each.")
    assert "**GAME OVER**" in texts(t.status_message(where))
    assert t.messages(t.channel) == []  # nothing leaks into the parent channel
    assert t.fake.dm_messages(t.gm.user) == []  # nothing was missing: the GM was told nothing


async def test_a_whole_nations_game_in_a_thread(tmp_path):
    async with table(tmp_path) as t:
        invited_with(t, INVITE)
        thread = t.fake.add_thread(t.channel, "Nations, spring", owner=t.gm.user)
        async with t.bot() as rb:
            await play_to_the_end(t, rb, thread)


async def test_a_whole_nations_game_in_a_forum_post(tmp_path):
    async with table(tmp_path) as t:
        invited_with(t, INVITE)
        forum = t.fake.add_forum(t.guild, "games")
        post = t.fake.add_forum_post(forum, "Nations, spring", owner=t.gm.user, content="Sign up below.")
        async with t.bot() as rb:
            await play_to_the_end(t, rb, post)
        assert t.messages(post)[0].content == "Sign up below."  # the post's starter message, untouched


async def test_a_thread_archived_between_turns_still_gets_its_turn_end(tmp_path):
    async with table(tmp_path) as t:
        invited_with(t, INVITE)
        thread = t.fake.add_thread(t.channel, "Nations", owner=t.gm.user)
        async with t.bot() as rb:
            await t.run(t.gm, "game start", thread, turn_hours=12)
            await t.run(t.alice, "nation claim", thread, preset="Gracchan Republic")
            status = t.status_message(thread)
            t.fake.set_thread(thread, archived=True)  # a quiet day: Discord archives it
            t.clock.advance(hours=12, minutes=1)
            await wake(rb, t, thread)
            assert not thread.archived  # opened again by the turn end itself
            assert sum(texts(m).startswith("⏰ Turn 1 is over") for m in t.messages(thread)) == 1
            assert status.embeds[0]["title"].startswith("Nations — turn 2 (")

            # Archived again, and only the status to edit (its page link rotated): opened again, then edited.
            t.fake.set_thread(thread, archived=True)
            edits = len(status.history)
            game = await rb.bot.referee.game_id(t.key(thread))
            await rb.bot.get_cog("Clock").refresh_status(game)
            await settle(t.fake)
            assert not thread.archived and len(status.history) == edits + 1
            assert t.fake.dm_messages(t.gm.user) == []


async def test_a_thread_where_the_bot_cannot_send_tells_the_gm_once_what_is_missing(tmp_path):
    async with table(tmp_path) as t:
        invited_with(t, OLD_INVITE)  # invited before issue 34: no Send Messages in Threads,
        t.guild.default_role.permissions &= ~SEND_MESSAGES_IN_THREADS  # nor has the server's default role
        thread = t.fake.add_thread(t.channel, "Nations", owner=t.gm.user)
        async with t.bot() as rb:
            started = await t.run(t.gm, "game start", thread, turn_hours=12)
            assert started.acknowledged  # (an answer to a command needs no permission)
            assert t.fake.pinned_messages(thread) == []  # the status could not be posted
            [told] = t.fake.dm_messages(t.gm.user)
            assert told.content == (
                f"About your game in <#{thread.id}>: I cannot send in this thread, so this game's turn ends, "
                "reminders or status may not show: give me *Send Messages in Threads* here (Server Settings → "
                "Roles, or the channel's permissions; in a thread, its parent channel's).")
            await t.run(t.alice, "nation claim", thread, preset="Gracchan Republic")
            t.clock.advance(hours=12, minutes=1)
            await wake(rb, t, thread)  # its turn end is refused too: not told again
            t.clock.advance(hours=12)
            await wake(rb, t, thread)
            assert len(t.fake.dm_messages(t.gm.user)) == 1
            assert [m for m in t.messages(thread) if m.author.id == t.fake.bot_user.id and not m.interaction_id] == []

            # The server grants it: the turn ends wait in the outbox and are announced; the status is posted.
            [role] = [r for r in t.guild.roles.values() if r.bot_id == t.fake.bot_user.id]
            t.fake.set_role_permissions(role, INVITE.value)
            await lapse(t.clock, rb.bot.store, 3)  # (the refused announcements' lease runs out)
            await rb.bot.get_cog("Clock").sweep()
            await settle(t.fake)
            await wake(rb, t, thread)
            said = texts(*t.messages(thread))
            assert "⏰ Turn 1 is over" in said and "⏰ Turn 2 is over" in said
            assert t.status_message(thread).embeds[0]["title"].startswith("Nations — turn 3 (")
            assert len(t.fake.dm_messages(t.gm.user)) == 1

            # Taken away again: told again, once (it had worked in between).
            t.fake.set_role_permissions(role, OLD_INVITE.value)
            t.clock.advance(hours=12)
            await wake(rb, t, thread)
            t.clock.advance(hours=12)
            await wake(rb, t, thread)
            assert len(t.fake.dm_messages(t.gm.user)) == 2


async def test_a_channel_where_the_bot_cannot_pin_tells_the_gm_there(tmp_path):
    async with table(tmp_path) as t:
        invited_with(t, INVITE & ~discord.Permissions(pin_messages=True))
        async with t.bot():
            await t.run(t.gm, "game start", turn_hours=12)
            said = [m.content for m in t.messages() if m.content.startswith("I cannot")]
            assert said == [("I cannot pin in this channel, so this game's turn ends, reminders or status may not "
                             "show: give me *Pin Messages* here (Server Settings → Roles, or the channel's "
                             "permissions).")]
            await t.run(t.gm, "gm clock pause")
            assert len([m for m in t.messages() if m.content.startswith("I cannot")]) == 1


def test_the_invite_asks_for_every_permission_the_bot_uses_and_the_readme_says_why():
    readme = README.read_text(encoding="utf-8")
    [value] = set(re.findall(r"oauth2/authorize\?client_id=APP_ID&scope=bot\+applications\.commands&permissions=(\d+)",
                             readme))
    assert int(value) == INVITE.value
    for attr in ("view_channel", "send_messages", "send_messages_in_threads", "embed_links", "attach_files",
                 "read_message_history", "pin_messages"):
        assert getattr(INVITE, attr), attr
    assert not INVITE.administrator and not INVITE.manage_messages and not INVITE.manage_threads
    for _, name, _ in NEEDED:
        assert re.search(rf"^ *\| \*{name}\* \| .+ \|$", readme, re.MULTILINE), f"the README's table lacks {name}"
    # what it asks for is enough: nothing lacks with exactly the invite's permissions, in a channel or a thread
    assert lacking(INVITE, thread=False) == [] and lacking(INVITE, thread=True) == []
    assert lacking(OLD_INVITE, thread=True) == ["Send Messages in Threads"]
