"""The turn clock on Discord: announcements, reminders, the pinned status message, restarts and shards.

The bot's clock is a FakeClock: `t.clock.advance(...)` moves the bot's now, and a wake (what the
scheduler runs at a deadline) is called directly, or happens on start (catch-up), or, in one test,
is left to APScheduler itself.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from discordkit import START, at, config, mention, settle, start_war, table, texts

from bot import AutoShardedRefereeBot, RefereeBot


async def wake(rb, t, channel=None) -> None:
    """What the scheduler does at a deadline: wake the channel's game."""
    game = await rb.bot.referee.game_id(t.key(channel))
    await rb.bot.get_cog("Clock").wake(game)
    await settle(t.fake)


def reminders(t) -> list:
    """The channel's turn reminders."""
    return [m for m in t.messages() if m.content.startswith("⏰ Turn")]


def embed_chars(message) -> int:
    """The characters Discord counts against its 6000 limit for a message's embeds."""
    return sum(len(e.get("title", "")) + len(e.get("description", ""))
               + sum(len(f["name"]) + len(f["value"]) for f in e.get("fields", [])) for e in message.embeds)


def announced(t, text: str, channel=None) -> int:
    """How many lines of the channel's messages say exactly `text`."""
    return sum(texts(m).splitlines().count(text) for m in t.messages(channel))


async def test_the_pinned_status_message_is_kept_current(tmp_path):
    async with table(tmp_path) as t, t.bot():
        await t.run(t.gm, "game start", turn_hours=12)
        status = t.status_message()
        assert status.pinned and status.author.id == t.fake.bot_user.id
        embed = status.embeds[0]
        assert embed["title"].startswith("Nations — turn 1 (")
        assert embed["description"] == f"ends {at(12)}; GM: {mention(t.gm)}\nNo nations yet."

        await start_war(t)
        t.dice.push(9)
        await t.run(t.alice, "economy military")
        assert t.status_message() is status  # one pinned message, edited in place
        assert len(status.history) == 3
        assert status.embeds[0]["description"].splitlines()[1:] == [
            f"Gracchan Republic — {mention(t.alice)}: E 11 S 10 M 9 P 10 L 20; 5 units; 1 action left",
            f"Charon — {mention(t.bob)}: E 11 S 10 M 9 P 10 L 20; 4 units; 2 actions left",
        ]
        await t.run(t.alice, "attack declare", target="Charon", units="1")
        assert status.embeds[0]["description"].splitlines()[-1] == (
            f"Battle #1 waits for Charon to commit units (default at {at(4)})")
        # Queries change nothing and leave it alone.
        edits = len(status.history)
        await t.run(t.bob, "game status")
        await t.run(t.bob, "nation list")
        assert len(status.history) == edits
        # A status message someone deleted is posted (and pinned) anew. (The fake has no public "a moderator
        # deletes a message" helper: its internal one does what the DELETE route does.)
        t.fake._delete_message(status)
        await t.run(t.gm, "gm clock pause")
        fresh = t.status_message()
        assert fresh is not status
        assert fresh.embeds[0]["title"] == "Nations — turn 1 (12 h), paused: 12 h left of the turn"


async def test_a_turn_rollover_is_announced_in_the_channel(tmp_path):
    async with table(tmp_path) as t, t.bot() as rb:
        await start_war(t)
        t.dice.push(9, 8)
        await t.run(t.alice, "economy military")
        await t.run(t.alice, "propaganda encourage", kind="morale")
        posted = len(t.messages())
        t.clock.advance(hours=12, minutes=1)
        await wake(rb, t)
        [message] = t.messages()[posted:]
        assert texts(message) == (f"⏰ Turn 1 is over (time is up). Turn 2 begins and ends {at(24)}. "
                                  "Last turn — Gracchan Republic: ECONOMY, PROPAGANDA; Charon: nothing.")
        assert t.status_message().embeds[0]["title"].startswith("Nations — turn 2 (")
        await wake(rb, t)  # a second wake finds nothing new
        assert len(t.messages()) == posted + 1
        shown = await t.run(t.alice, "nation show")
        assert "Actions: 2 of 2 left this turn" in texts(shown)


async def test_the_reminder_mentions_only_players_with_actions_left(tmp_path):
    async with table(tmp_path) as t, t.bot() as rb:
        carol = t.fake.add_member(t.guild, t.fake.add_user("carol"))
        await start_war(t)
        await t.run(carol, "nation create", name="@everyone's Militia", economy=10, military=10,
                    strength="infantry", weakness="armour", units="infantry:3 armour:1")
        await t.run(t.gm, "gm house", key="reminder_hours", value="3")
        t.dice.push(9, 8, 1)
        await t.run(t.alice, "economy military")
        await t.run(t.alice, "propaganda encourage", kind="workers")
        await t.run(carol, "propaganda encourage", kind="morale")  # 1: no bonus, but the action is used

        t.clock.advance(hours=8, minutes=59)
        await wake(rb, t)
        assert reminders(t) == []  # not yet: the reminder is due 3 hours before the end

        t.clock.advance(minutes=2)
        await wake(rb, t)
        [reminder] = reminders(t)
        assert reminder.content == (f"⏰ Turn 1 ends {at(12)}. Still to act:\n{mention(t.bob)} (Charon, 2 left)\n"
                                    f"{mention(carol)} (@\u200beveryone's Militia, 1 left)")  # escaped: pings nobody
        assert reminder.mention_ids == [t.bob.id, carol.id]  # alice has nothing left to do
        # the nation's name pings nobody: only the players still to act may be pinged
        assert reminder.allowed_mentions.get("parse") == []
        assert sorted(map(int, reminder.allowed_mentions["users"])) == sorted([t.bob.id, carol.id])
        await wake(rb, t)
        await t.run(t.gm, "gm dice", values="5", purpose="any")  # a later command does not remind again
        assert reminders(t) == [reminder]

        # The next turn has its own reminder, after its rollover is announced.
        posted = len(t.messages())
        t.clock.advance(hours=12)
        await wake(rb, t)
        rollover, reminder = t.messages()[posted:]
        assert texts(rollover).startswith("⏰ Turn 1 is over (time is up). Turn 2 begins")
        assert reminder.content.startswith(f"⏰ Turn 2 ends {at(24)}. Still to act:\n{mention(t.alice)} "
                                           "(Gracchan Republic, 2 left)\n")
        assert reminder.mention_ids == [t.alice.id, t.bob.id, carol.id]


async def test_a_bonus_expiry_is_announced(tmp_path):
    async with table(tmp_path) as t, t.bot() as rb:
        await t.run(t.gm, "game start", turn_hours=48)
        await t.run(t.alice, "nation claim", preset="1")
        t.dice.push(8)
        await t.run(t.alice, "propaganda encourage", kind="workers")
        posted = len(t.messages())
        t.clock.advance(hours=35, minutes=59)
        await wake(rb, t)
        assert len(t.messages()) == posted
        t.clock.advance(minutes=2)
        await wake(rb, t)
        [message] = t.messages()[posted:]
        assert texts(message) == "Gracchan Republic: the Workers bonus (+2) has run out."
        shown = await t.run(t.alice, "nation show")
        assert "Workers" not in texts(shown)  # no bonus left


async def test_a_battle_choice_that_runs_out_is_decided_by_the_clock(tmp_path):
    async with table(tmp_path) as t, t.bot() as rb:
        await start_war(t)
        await t.run(t.alice, "attack declare", target="Charon", units="1 2")
        [commit] = [m for m in t.messages() if m.content.startswith("⚔ Battle #1:")]
        commit_select = commit.custom_ids[0]
        posted = len(t.messages())
        t.clock.advance(hours=4, minutes=1)  # a choice waits a third of the 12-hour turn (its reminder: missed)
        t.dice.push(10, 8)
        await wake(rb, t)
        announcement, choice = t.messages()[posted:]
        assert texts(announcement).splitlines() == [
            "⌛ Time is up for Charon's commit in battle #1: its strongest free units #6, #7, #8.",
            "🛡 #6, #7, #8 defend in battle #1 (committed by default).",
            "🎲 Gracchan Republic, initiative (attacker), battle #1: d10 10 + mod(M) -1 = **9**",
            "🎲 Charon, initiative (defender), battle #1: d10 8 + mod(M) -1 = **7**",
            "The attacker wins the initiative in battle #1 and picks the pairings.",
            f"⏳ Battle #1 waits for Gracchan Republic to pair two units (/attack pair), until {at(8 + 1 / 60)}.",
        ]
        assert choice.content == (f"⚔ Battle #1: {mention(t.alice)}, pick the next pairing "
                                  f"(default {at(8 + 1 / 60)}).")
        assert len(choice.find_component(choice.custom_ids[0])["options"]) == 6
        # The defaulted commit's select is taken off its message (the defender has committed).
        assert commit.custom_ids == [] and commit_select == "referee:commit:1:1"
        assert t.dice.all_used()


async def test_a_restart_after_30_hours_announces_each_missed_rollover_once(tmp_path):
    async with table(tmp_path) as t:
        async with t.bot():
            await start_war(t)
            t.dice.push(9)
            await t.run(t.alice, "economy military")
            status = t.status_message()
            posted = len(t.messages())
        t.clock.advance(hours=30)
        async with t.bot():
            await settle(t.fake)
        turn_1 = (f"⏰ Turn 1 is over (time is up). Turn 2 begins and ends {at(24)}. "
                  "Last turn — Gracchan Republic: ECONOMY; Charon: nothing.")
        turn_2 = (f"⏰ Turn 2 is over (time is up). Turn 3 begins and ends {at(36)}. "
                  "Last turn — Gracchan Republic: nothing; Charon: nothing.")
        [catch_up] = t.messages()[posted:]
        assert texts(catch_up).splitlines() == [turn_1, turn_2]
        assert t.status_message() is status and status.embeds[0]["title"].startswith("Nations — turn 3 (")
        assert "⏰ Turn 3 ends" not in texts(*t.messages())  # its reminder is 5 hours away

        async with t.bot():  # a second restart: nothing new happened, nothing is announced
            await settle(t.fake)
        assert len(t.messages()) == posted + 1
        assert announced(t, turn_1) == announced(t, turn_2) == 1


async def test_two_games_in_two_channels_are_kept_apart(tmp_path):
    async with table(tmp_path) as t:
        front = t.fake.add_channel(t.guild, "eastern-front")
        async with t.bot() as rb:
            await start_war(t)
            await t.run(t.bob, "game start", channel=front, turn_hours=6)  # bob is the GM over there
            await t.run(t.alice, "nation claim", channel=front, preset="Sovatank")
            here, there = t.status_message(), t.status_message(front)
            assert here.channel_id == t.channel.id and there.channel_id == front.id
            edits = len(there.history)

            t.dice.push(9)
            await t.run(t.alice, "economy military")  # alice's nation in this channel
            assert len(there.history) == edits
            assert (await t.state(rb)).nations["Gracchan Republic"].military == 9
            other = await t.state(rb, front)
            assert list(other.nations) == ["Sovatank"] and other.gm == str(t.bob.id)
            shown = await t.run(t.alice, "nation show", channel=front)
            assert shown.embed["title"] == "Sovatank" and "Actions: 2 of 2 left this turn" in texts(shown)
            refused = await t.run(t.gm, "gm turn end", channel=front)  # not the GM over there
            assert refused.ephemeral and texts(refused) == "⛔ only the game's GM or a co-GM may use /gm commands"
            nope = await t.run(t.alice, "attack declare", channel=front, target="Charon", units="1")
            assert nope.ephemeral and texts(nope).startswith("⛔ no nation called 'Charon' in this game")

            posted, posted_there = len(t.messages()), len(t.messages(front))
            t.clock.advance(hours=7)
            await wake(rb, t)
            await wake(rb, t, front)
            assert len(t.messages()) == posted  # 12-hour turns here: nothing yet
            [rollover] = t.messages(front)[posted_there:]
            assert texts(rollover).startswith(f"⏰ Turn 1 is over (time is up). Turn 2 begins and ends {at(12)}.")
            assert here.embeds[0]["title"].startswith("Nations — turn 1 (")
            assert there.embeds[0]["title"].startswith("Nations — turn 2 (")


async def test_a_new_turn_length_after_a_pause_keeps_the_paused_time(tmp_path):
    async with table(tmp_path) as t, t.bot():
        await t.run(t.gm, "game start", turn_hours=12)
        await t.run(t.gm, "gm clock pause")
        t.clock.advance(hours=2)
        resumed = await t.run(t.gm, "gm clock resume")
        assert texts(resumed) == f"▶ The clock runs again: this turn ends {at(14)}; every deadline has its time left."
        shorter = await t.run(t.gm, "gm clock length", hours=6)  # 6 hours shorter: the end moves 6 hours
        assert texts(shorter) == f"Turns now last 6 hours; this turn ends {at(8)}."


@pytest.mark.parametrize("sharding", ["shard_id", "shard_ids"])
async def test_a_sharded_bot_wakes_the_games_of_every_shard_once(tmp_path, sharding):
    """A process that runs shard 0 of 2 gets shard 0's servers only, yet runs every Discord game's clock: a game
    in another shard's server is caught up and announced in its channel too, once (so when the process of shard
    1 is down, nothing waits for it); the next process to start finds nothing left to announce."""
    async with table(tmp_path) as t:
        fake = t.fake
        other = fake.add_guild("Far Room")
        while other.shard_id(2) == t.guild.shard_id(2):
            other = fake.add_guild("Far Room")
        far = fake.add_channel(other, "nations")
        fake.add_member(other, t.gm.user)
        shard_0, shard_1 = (t.channel, far) if t.guild.shard_id(2) == 0 else (far, t.channel)
        guild_0, guild_1 = (t.guild, other) if shard_0 is t.channel else (other, t.guild)

        async with t.bot():
            for guild, channel in ((guild_0, shard_0), (guild_1, shard_1)):
                await fake.invoke(guild, channel, t.gm, "game start", options={"turn_hours": 12})
                await settle(fake)
        posted = {channel.id: len(t.messages(channel)) for channel in (shard_0, shard_1)}
        t.clock.advance(hours=13)
        rollover = f"⏰ Turn 1 is over (time is up). Turn 2 begins and ends {at(24)}."

        made = config(t.db, t.clock, t.dice)
        if sharding == "shard_id":  # one process per shard: a plain bot told which shard it is
            bot = RefereeBot(*made, shard_id=0, shard_count=2, guild_ready_timeout=0.05)
        else:
            bot = AutoShardedRefereeBot(*made, shard_ids=[0], shard_count=2, guild_ready_timeout=0.05)
        rb = await fake.start_bot(bot)
        try:
            await settle(fake)
            assert bot.owns(guild_0.id) and bot.owns(guild_1.id) and not bot.owns(None)
            # the servers of shard 0 only (finding `other` may have made more servers there)
            assert {g.id for g in bot.guilds} == {g.id for g in fake.guilds.values() if g.shard_id(2) == 0}
            assert guild_0.id in {g.id for g in bot.guilds} and guild_1.id not in {g.id for g in bot.guilds}
            for channel in (shard_0, shard_1):  # both games, each in its own channel, once
                [woken] = t.messages(channel)[posted[channel.id]:]
                assert texts(woken).startswith(rollover)
                assert t.status_message(channel).embeds[0]["title"].startswith("Nations — turn 2 (")
        finally:
            await rb.close()

        async with t.bot():  # another process: nothing left to announce
            await settle(fake)
        for channel in (shard_0, shard_1):
            assert len(t.messages(channel)) == posted[channel.id] + 1
            assert sum(texts(m).startswith(rollover) for m in t.messages(channel)) == 1


async def test_a_catch_up_whose_process_died_before_announcing_it_is_announced_once_by_another(tmp_path):
    """The outbox (migration 014): a process applies a turn end and dies before saying it; once the grace has
    passed, the next clock to run (this process after a restart, or another) announces it, once."""
    rollover = f"⏰ Turn 1 is over (time is up). Turn 2 begins and ends {at(24)}."
    async with table(tmp_path) as t:
        async with t.bot() as rb:
            await t.run(t.gm, "game start", turn_hours=12)
            await settle(t.fake)
            posted = len(t.messages())
            t.clock.advance(hours=13)
            clock = rb.bot.get_cog("Clock")
            clock.scheduler.remove_all_jobs()  # its timer never fires: it "dies" right after the commit
            caught = await rb.bot.referee.catch_up_due(owns=clock.owns, announce=True)
            assert list(caught) == [await rb.bot.referee.game_id(t.key())]
        assert len(t.messages()) == posted  # applied, not said
        async with t.bot():  # restarted within the grace: the turn end is its dead process's to say, not yet
            await settle(t.fake)
            assert len(t.messages()) == posted
        t.clock.advance(minutes=3)
        async with t.bot() as other:
            if other.bot.store.dialect == "postgresql":  # (its grace runs by the server's clock: 3 minutes pass)
                await other.bot.store._transaction(lambda con: con.execute(
                    "UPDATE announcements SET lease_until = lease_until - interval '3 minutes'"))
            await other.bot.get_cog("Clock").tick()
            await settle(t.fake)
            assert await other.bot.store.take_unannounced(t.clock() + timedelta(hours=1)) == []
        said = [m for m in t.messages()[posted:] if texts(m).startswith(rollover)]
        assert len(said) == 1
        async with t.bot():  # said once: nothing more
            await settle(t.fake)
        assert [m for m in t.messages()[posted:] if texts(m).startswith(rollover)] == said


async def test_a_turn_end_caught_up_by_a_refused_command_is_announced_by_the_clock(tmp_path):
    """A command that comes after a turn's end catches the game up first; refused, its answer is the refusal
    alone (to its author): the turn end waits in the outbox, and the clock announces it in the channel, once."""
    rollover = f"⏰ Turn 1 is over (time is up). Turn 2 begins and ends {at(24)}."
    async with table(tmp_path) as t, t.bot() as rb:
        await start_war(t)
        clock = rb.bot.get_cog("Clock")
        clock.scheduler.remove_all_jobs()  # the timer does not come first this time
        posted = len(t.messages())
        t.clock.advance(hours=13)
        refused = await t.run(t.alice, "nation claim", preset="Charon")
        assert refused.ephemeral and (await t.state(rb)).turn == 2  # refused, but the turn rolled over
        await settle(t.fake)
        assert not [m for m in t.messages()[posted:] if texts(m).startswith(rollover)]
        await clock.sweep()  # (every minute, and at every tick)
        await settle(t.fake)
        await clock.tick()
        await settle(t.fake)
        assert len([m for m in t.messages()[posted:] if texts(m).startswith(rollover)]) == 1
        assert await rb.bot.store.take_unannounced(t.clock() + timedelta(days=1)) == []


async def test_an_announced_catch_up_leaves_the_outbox_empty(tmp_path):
    async with table(tmp_path) as t, t.bot() as rb:
        await start_war(t)
        t.clock.advance(hours=13)
        await rb.bot.get_cog("Clock").tick()
        await settle(t.fake)
        assert [texts(m) for m in t.messages() if texts(m).startswith("⏰ Turn 1 is over")]
        assert await rb.bot.store.take_unannounced(t.clock() + timedelta(days=1)) == []


async def test_the_scheduler_wakes_a_game_by_itself(tmp_path):
    async with table(tmp_path) as t, t.bot() as rb:
        await start_war(t)
        game = await rb.bot.referee.game_id(t.key())
        clock = rb.bot.get_cog("Clock")
        assert clock.next_wake(game) is not None  # the turn reminder, 11 hours away (in real time too)
        # Just before the reminder is due, a command reschedules the game's one job: due in 0.3 s.
        t.clock.advance(hours=11, seconds=-0.3)
        await t.run(t.gm, "gm dice", values="5", purpose="any")
        posted = len(t.messages())
        t.clock.advance(seconds=0.3)  # the bot's clock reaches the reminder as the real time passes
        reminder = await t.fake.wait_for_message(t.channel, check=lambda m: m.content.startswith("⏰"))
        assert reminder.content.startswith(f"⏰ Turn 1 ends {at(12)}. Still to act:\n{mention(t.alice)}")
        await settle(t.fake)
        assert len(t.messages()) == posted + 1
        # Reminded: the next wake is the turn's end, an hour away.
        assert timedelta(minutes=59) < clock.next_wake(game) - datetime.now(UTC) < timedelta(minutes=61)


async def test_a_long_catch_up_is_announced_within_discords_message_limits(tmp_path):
    """50 missed six-minute turns: more text than one message may carry (6000 characters of embeds)."""
    rollovers = [f"⏰ Turn {n} is over (time is up). Turn {n + 1} begins and ends {at((n + 1) / 10)}. "
                 "Last turn — Gracchan Republic: nothing; Charon: nothing." for n in range(1, 51)]
    async with table(tmp_path) as t:
        async with t.bot():
            await start_war(t)
            await t.run(t.gm, "gm clock length", hours=0.1)
            posted = len(t.messages())
        t.clock.advance(hours=5, minutes=3)
        async with t.bot() as rb:  # the restart's catch-up
            await settle(t.fake)
            announcements = [m for m in t.messages()[posted:] if m.embeds]  # (and a reminder: 6-minute turns)
            assert len(announcements) >= 2 and all(embed_chars(m) <= 6000 for m in announcements)
            assert "\n".join(texts(m) for m in announcements).splitlines() == rollovers

            # The same through a command: its reply carries the catch-up before its own events.
            t.clock.advance(hours=5)
            t.dice.push(9)
            grown = await t.run(t.alice, "economy military")
            lines = "\n".join(texts(m) for m in grown.messages).splitlines()
            assert len(grown.messages) >= 2 and all(embed_chars(m) <= 6000 for m in grown.messages)
            assert len(lines) == 50 + 3 + 1  # 50 rollovers, 3 lines of its own, its Actions field
            assert lines[0].startswith("⏰ Turn 51 is over") and lines[49].startswith("⏰ Turn 100 is over")
            assert lines[50].startswith("🎲 Gracchan Republic, grow military: d10 9")
            assert (await t.state(rb)).turn == 101


def test_a_long_reminder_is_split_into_messages_within_discords_limit():
    from cogs.clock import CONTENT_LIMIT, _chunks

    lines = ["⏰ Turn 3 ends soon. Still to act:"] + [f"<@{10**18 + i}> (Nation number {i}, 2 left)" for i in range(80)]
    chunks = _chunks(lines, CONTENT_LIMIT)
    assert len(chunks) > 1 and all(len(c) <= CONTENT_LIMIT for c in chunks)
    assert "\n".join(chunks) == "\n".join(lines)  # nothing lost, nothing cut


async def test_a_restart_reads_only_the_games_due_and_arms_one_timer(tmp_path):
    """Start-up catches up the game whose turn ended while down; the other game's status is left alone."""
    async with table(tmp_path) as t:
        front = t.fake.add_channel(t.guild, "eastern-front")
        async with t.bot():
            await start_war(t)
            await t.run(t.bob, "game start", channel=front, turn_hours=48)
            here, there = t.status_message(), t.status_message(front)
            edits_here, edits_there = len(here.history), len(there.history)
        t.clock.advance(hours=13)
        async with t.bot() as rb:
            await settle(t.fake)
            clock = rb.bot.get_cog("Clock")
            assert len(there.history) == edits_there  # not due: not read, not edited
            assert len(here.history) == edits_here + 1 and here.embeds[0]["title"].startswith("Nations — turn 2 (")
            # one timer for every game (beside the outbox's sweep, every minute)
            assert sorted(job.id for job in clock.scheduler.get_jobs()) == ["clock", "outbox"]
            # the timer waits for the earliest need of any game: here, turn 2's reminder (11 h into 12-hour turns)
            assert clock._armed == START + timedelta(hours=23)


@pytest.mark.sqlite_only  # makes SQLite read-only with a pragma
async def test_a_store_that_cannot_save_delays_the_clock_without_a_spin_or_a_traceback(tmp_path, monkeypatch, caplog):
    """A tick while the database is read-only: nothing rolls over, a warning (no ERROR but the store's one),
    the timer tries again in RETRY_AFTER rather than at once; a player's command is refused in one line; once
    the database can be written again, the next tick rolls the turn over and announces it."""
    import data.store.dialect as dialect_module
    from cogs.clock import RETRY_AFTER

    async with table(tmp_path) as t, t.bot() as rb:
        await start_war(t)
        clock = rb.bot.get_cog("Clock")
        configure = dialect_module._configure

        def read_only(con, busy_timeout):
            configure(con, busy_timeout)
            con.execute("PRAGMA query_only = ON")

        monkeypatch.setattr(dialect_module, "_configure", read_only)
        await rb.bot.store._in_thread(lambda con: con.execute("PRAGMA query_only = ON"))
        t.clock.advance(hours=12, minutes=1)
        await clock.tick()
        await settle(t.fake, check_errors=False)
        assert [r.name for r in t.fake.take_errors()] == ["referee.store"]  # the cause, logged once by the store
        assert clock._armed == t.clock() + RETRY_AFTER
        assert (await t.state(rb)).turn == 1
        refused = await t.run(t.alice, "economy grow")
        assert refused.ephemeral and texts(refused) == (
            "⛔ the referee cannot save right now (the database is read-only); nothing changed — try again later")
        assert t.fake.take_errors() == []

        monkeypatch.setattr(dialect_module, "_configure", configure)
        await clock.tick()
        await settle(t.fake)
        assert (await t.state(rb)).turn == 2
        assert announced(t, f"⏰ Turn 1 is over (time is up). Turn 2 begins and ends {at(24)}. "
                            "Last turn — Gracchan Republic: nothing; Charon: nothing.") == 1


async def test_a_rollover_is_announced_batch_by_batch_holding_few_games_events(tmp_path, monkeypatch):
    """Issue 21: the clock queues each batch's announcements as the batch commits and keeps the events of at most
    `hold` queued catch-ups; the others' are read back from the store when announced. Each game's turn end is
    still said once, in its own channel, and the outbox is left empty."""
    rollover = f"⏰ Turn 1 is over (time is up). Turn 2 begins and ends {at(24)}."
    async with table(tmp_path) as t, t.bot() as rb:
        rooms = [t.channel] + [t.fake.add_channel(t.guild, f"nations-{i}") for i in range(6)]
        for room in rooms:
            await t.fake.invoke(t.guild, room, t.gm, "game start", options={"turn_hours": 12})
            await settle(t.fake)
        posted = {room.id: len(t.messages(room)) for room in rooms}
        clock = rb.bot.get_cog("Clock")
        clock.scheduler.remove_all_jobs()
        clock.announcer.hold = 2
        referee = rb.bot.referee
        locked = set(referee._locks)
        batches, most_held, read_back = [], [], []
        catch_up_due_each, action_events = referee.catch_up_due_each, rb.bot.store.action_events

        async def in_batches_of_3(each, **options):
            async def watched(events, logged):
                batches.append(sorted(events))
                await each(events, logged)
                most_held.append(clock.announcer.held)
            return await catch_up_due_each(watched, batch=3, **options)

        async def reading_back(game_id, action_id):
            read_back.append(game_id)
            return await action_events(game_id, action_id)

        monkeypatch.setattr(referee, "catch_up_due_each", in_batches_of_3)
        monkeypatch.setattr(rb.bot.store, "action_events", reading_back)
        t.clock.advance(hours=13)
        await clock.tick()
        await settle(t.fake)
        assert [len(b) for b in batches] == [3, 3, 1] and max(most_held) <= 2
        assert read_back  # (the announcer sends while later batches commit: fewer than all but two)
        for room in rooms:
            said = [m for m in t.messages(room)[posted[room.id]:] if texts(m).startswith(rollover)]
            assert len(said) == 1, (room.name, [texts(m) for m in t.messages(room)])
            assert texts(said[0]).splitlines()[0] == rollover
            assert t.status_message(room).embeds[0]["title"].startswith("Nations — turn 2 (")
        assert await rb.bot.store.take_unannounced(t.clock() + timedelta(days=1)) == []
        assert not set(referee._locks) & {g for b in batches for g in b} - locked  # no lock kept per game rolled


async def test_the_announcer_keeps_few_events_and_says_everything_once_in_order():
    """Issue 21: past `hold` queued catch-ups, the announcer keeps only their ids (16 bytes a game, in runs),
    yet every announcement goes out once, in the order it was queued, its own sends among them."""
    from cogs.announcer import Announcer

    said = []

    async def follow(game_id, action_id, events):
        said.append((game_id, action_id, events))

    announcer = Announcer(per_second=10_000, follow=follow, hold=2)
    for game_id in range(1, 6):
        announcer.put_caught(game_id, 100 + game_id, [f"event of {game_id}"])
    announcer.put(lambda: follow(0, None, "a send of its own"), 0)
    for game_id in range(6, 9):
        announcer.put_caught(game_id, 100 + game_id, [f"event of {game_id}"])
    announcer.put_caught(9, None, ["no action id: kept"])
    assert announcer.held == 3 and len(announcer) == 10
    assert len(announcer.queue) == 6  # 2 held, a run of 3, the send, a run of 3, the one kept
    await announcer.task
    assert said == [(1, 101, ["event of 1"]), (2, 102, ["event of 2"]), (3, 103, None), (4, 104, None),
                    (5, 105, None), (0, None, "a send of its own"), (6, 106, None), (7, 107, None), (8, 108, None),
                    (9, None, ["no action id: kept"])]
    assert announcer.held == 0 and len(announcer) == 0


async def test_a_commands_follow_up_is_told_by_the_referee_and_reads_no_state(tmp_path):
    """The referee tells the clock of each commit (`Referee.on_commit`) with the state after it: the answer first,
    then the follow-up (the status message edited), and no load of the game from the store for it."""
    async with table(tmp_path) as t, t.bot() as rb:
        await start_war(t)
        store, loads = rb.bot.store, []
        original = store.load

        async def load(game_id: int) -> object:
            loads.append(game_id)
            return await original(game_id)

        store.load = load  # type: ignore[method-assign]
        status = t.status_message()
        edits = len(status.history)
        t.dice.push(9)
        answered = await t.run(t.alice, "economy military")
        assert "MILITARY" in texts(answered) and len(status.history) == edits + 1  # followed up: the status edited
        assert loads == []


async def test_a_free_roll_leaves_the_channels_messages_as_they_are(tmp_path):
    """/roll in a game's channel goes into its ledger (the page hears of it) but is no change to follow up: the
    status is not edited and the game is not read again for it."""
    async with table(tmp_path) as t, t.bot() as rb:
        await start_war(t)
        store, loads = rb.bot.store, []
        original = store.load

        async def load(game_id: int) -> object:
            loads.append(game_id)
            return await original(game_id)

        store.load = load  # type: ignore[method-assign]
        status = t.status_message()
        edits = len(status.history)
        t.dice.push(4)
        answered = await t.run(t.alice, "roll", dice="1d6")
        assert "4" in texts(answered)
        assert len(status.history) == edits
        assert len(loads) == 1  # the roll's own: the turn it is logged in


async def test_a_paused_clock_announces_nothing_and_resuming_gives_the_battle_choice_its_time_left(tmp_path):
    """Issue 34: paused an hour into a 4-hour battle choice, five hours pass: nothing times out, nobody is
    reminded, the status says paused with the time left; resumed, the choice has its 3 hours, then defaults."""
    async with table(tmp_path) as t, t.bot() as rb:
        await start_war(t)
        await t.run(t.bob, "remind me", dm="on")
        await t.run(t.alice, "attack declare", target="Charon", units="1 2")  # Charon commits by +4 h
        assert [m.content for m in t.fake.dm_messages(t.bob)][-1].endswith(f"until {at(4)}: battle #1, commit your "
                                                                            "units (/attack commit) (Charon).")
        [offer] = [m for m in t.messages() if m.content.startswith("⚔ Battle #1:")]
        assert offer.content.endswith(f"commit 1 to 3 units (default {at(4)}).")
        t.clock.advance(hours=1)
        await t.run(t.gm, "gm clock pause")
        await settle(t.fake)  # the offer says its default waits, never a time that will not hold
        assert offer.content.endswith("commit 1 to 3 units (the clock is paused: its default waits).")
        assert offer.components  # (its controls stay)
        game = await rb.bot.referee.game_id(t.key())
        row = await rb.bot.store.game(game)
        assert (row.next_deadline, row.remind_at) == (None, None)  # the timer has nothing of this game to wake for
        posted, dms = len(t.messages()), len(t.fake.dm_messages(t.bob))
        t.clock.advance(hours=5)  # the choice's old deadline is 2 hours gone
        await wake(rb, t)
        assert t.messages()[posted:] == [] and len(t.fake.dm_messages(t.bob)) == dms
        status = t.status_message().embeds[0]
        assert status["title"] == "Nations — turn 1 (12 h), paused: 11 h left of the turn"
        assert status["description"].splitlines()[-1] == (
            "Battle #1 waits for Charon to commit units (default 3 h left when the clock resumes)")
        shown = await t.run(t.bob, "game status")
        assert "Time is up" not in texts(shown) and "3 h left when the clock resumes" in texts(shown)

        resumed = await t.run(t.gm, "gm clock resume")  # at +6 h: the choice now falls at +9 h, the turn at +17 h
        assert texts(resumed) == f"▶ The clock runs again: this turn ends {at(17)}; every deadline has its time left."
        await settle(t.fake)
        assert offer.content.endswith(f"commit 1 to 3 units (default {at(9)}).") and offer.components
        # the choice's reminder, an hour after the pause began, is the next: 1 hour after the resume
        assert (await rb.bot.store.game(game)).next_deadline == START + timedelta(hours=7)
        await settle(t.fake)
        assert [m.content for m in t.fake.dm_messages(t.bob)][-1].endswith(f"until {at(9)}: battle #1, commit your "
                                                                            "units (/attack commit) (Charon).")
        posted = len(t.messages())
        t.clock.advance(hours=3, minutes=-1)
        await wake(rb, t)
        assert not any("Time is up" in texts(m) for m in t.messages()[posted:])  # (its reminder only)
        t.clock.advance(minutes=2)
        t.dice.push(10, 8)
        await wake(rb, t)
        assert "⌛ Time is up for Charon's commit in battle #1: its strongest free units #6, #7, #8." in texts(
            *t.messages()[posted:]).splitlines()
        assert t.dice.all_used()
