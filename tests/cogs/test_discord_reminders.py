"""/remind me: reminders by direct message, through discord.py against the fake Discord.

The bot's clock is a FakeClock: `t.clock.advance(...)` moves the bot's now and `tick` runs what the one timer
runs when it fires (the games due and the reminders due, from the store's index).
"""

from __future__ import annotations

from datetime import timedelta

from discordkit import START, at, mention, settle, start_war, table, texts
from storehelpers import console_on, said

ON = ("🔔 Reminders by DM on for this game: I will DM you {} before a deadline of yours and when a choice or move "
      "waits for you (/remind me dm:off stops them).")
SPAN = "⛔ before is a span like 2h, 90m or 1h30m, from 10m to 24h"


async def tick(rb, t) -> None:
    """What the timer does when it fires: catch up the games due, follow those whose reminder is due."""
    await rb.bot.get_cog("Clock").tick()
    await settle(t.fake)


def notices(t) -> list[str]:
    """The channel's lines saying a DM could not be sent."""
    return [line for m in t.messages() for line in m.content.splitlines() if line.startswith("⚠ I could not send")]


def fallbacks(t, member) -> list:
    return [m for m in t.messages() if m.content.startswith(f"⏰ {mention(member)}:")]


def turn_dm(t, turn: int, ends: float, left: int, nation: str = "Charon") -> str:
    actions = "1 action" if left == 1 else f"{left} actions"
    return f"⏰ In <#{t.channel.id}>: your turn ends {at(ends)}, {actions} left ({nation}, turn {turn})."


async def test_an_opted_in_player_with_actions_left_gets_the_turn_reminder_by_dm(tmp_path):
    async with table(tmp_path) as t, t.bot() as rb:
        await start_war(t)
        on = await t.run(t.bob, "remind me", dm="on")
        assert on.ephemeral and texts(on) == ON.format("2h")
        earlier = await t.run(t.alice, "remind me", dm="on", before="3h")
        assert earlier.ephemeral and texts(earlier) == ON.format("3h")
        game = await rb.bot.referee.game_id(t.key())
        assert [(w.player, w.before, w.failed) for w in await rb.bot.store.dm_reminders(game)] == [
            (str(t.bob.id), timedelta(hours=2), False), (str(t.alice.id), timedelta(hours=3), False)]
        t.dice.push(9, 8)
        await t.run(t.alice, "economy military")
        await t.run(t.alice, "propaganda encourage", kind="workers")  # alice has used both her actions
        # the timer is armed for bob's reminder, 2 hours before the turn's end (the channel's is 1 hour before)
        assert (await rb.bot.store.game(game)).remind_at == START + timedelta(hours=10)

        t.clock.advance(hours=9, minutes=59)
        await tick(rb, t)
        assert t.fake.dm_messages(t.bob) == []
        t.clock.advance(minutes=2)
        await tick(rb, t)
        [dm] = t.fake.dm_messages(t.bob)
        assert dm.content == turn_dm(t, 1, 12, 2) == (
            f"⏰ In <#{t.channel.id}>: your turn ends {at(12)}, 2 actions left (Charon, turn 1).")
        assert t.fake.dm_messages(t.alice) == []  # no action left: no reminder
        await tick(rb, t)
        await t.run(t.gm, "gm dice", values="5", purpose="any")  # a later change does not send it again
        assert len(t.fake.dm_messages(t.bob)) == 1 and fallbacks(t, t.bob) == []

        # the next turn has its own: alice has actions again and gets hers 3 hours ahead
        t.clock.advance(hours=11)  # 21:01 into the game: turn 2 (ends at 24) began at 12
        await tick(rb, t)
        assert [m.content for m in t.fake.dm_messages(t.alice)] == [turn_dm(t, 2, 24, 2, "Gracchan Republic")]
        assert len(t.fake.dm_messages(t.bob)) == 1
        t.clock.advance(hours=1)
        await tick(rb, t)
        assert [m.content for m in t.fake.dm_messages(t.bob)] == [turn_dm(t, 1, 12, 2), turn_dm(t, 2, 24, 2)]


async def test_closed_dms_fall_back_to_the_channel_and_say_so_once(tmp_path):
    async with table(tmp_path) as t, t.bot() as rb:
        await start_war(t)
        t.fake.close_dms(t.bob)
        await t.run(t.bob, "remind me", dm="on")
        t.clock.advance(hours=10, minutes=1)
        await tick(rb, t)
        assert t.fake.dm_messages(t.bob) == []
        [fallback] = fallbacks(t, t.bob)
        assert fallback.content == (
            f"⏰ {mention(t.bob)}: your turn ends {at(12)}, 2 actions left (Charon, turn 1).\n"
            f"⚠ I could not send {mention(t.bob)} a direct message (closed DMs?): their reminders come here as "
            "mentions until they run /remind me again.")
        assert set(fallback.mention_ids) == {t.bob.id}
        assert [int(u) for u in fallback.allowed_mentions["users"]] == [t.bob.id]
        game = await rb.bot.referee.game_id(t.key())
        [wish] = await rb.bot.store.dm_reminders(game)
        assert wish.failed

        t.clock.advance(hours=12)  # turn 2's reminder: to the channel again, without the notice
        await tick(rb, t)
        assert [m.content for m in fallbacks(t, t.bob)] == [
            fallback.content, f"⏰ {mention(t.bob)}: your turn ends {at(24)}, 2 actions left (Charon, turn 2)."]
        assert len(notices(t)) == 1
        assert t.fake.dm_messages(t.bob) == [] and t.fake.dm_channel(t.bob) is not None  # tried once only

        # they open their DMs and run /remind me again: DMs once more
        t.fake.close_dms(t.bob, closed=False)
        await t.run(t.bob, "remind me", dm="on")
        t.clock.advance(hours=12)
        await tick(rb, t)
        assert [m.content for m in t.fake.dm_messages(t.bob)] == [turn_dm(t, 3, 36, 2)]
        assert len(fallbacks(t, t.bob)) == 2 and len(notices(t)) == 1


async def test_dm_off_stops_them_and_a_bad_before_is_refused(tmp_path):
    async with table(tmp_path) as t, t.bot() as rb:
        await start_war(t)
        game = await rb.bot.referee.game_id(t.key())
        for before, reason in (("0", ", not '0'"), ("48h", "; 48h is too long"), ("abc", ", not 'abc'"),
                               ("5m", "; 5m is too short")):
            refused = await t.run(t.bob, "remind me", dm="on", before=before)
            assert refused.ephemeral and texts(refused) == SPAN + reason
        assert await rb.bot.store.dm_reminders(game) == []  # nothing stored

        await t.run(t.bob, "remind me", dm="on", before="90m")
        off = await t.run(t.bob, "remind me", dm="off")
        assert off.ephemeral
        assert texts(off) == "🔕 Reminders by DM off for this game: the channel's mentions still reach you."
        again = await t.run(t.bob, "remind me", dm="off")
        assert texts(again) == "Your reminders by DM were not on for this game; nothing changed."
        assert await rb.bot.store.dm_reminders(game) == []
        t.clock.advance(hours=11, minutes=1)
        await tick(rb, t)
        assert t.fake.dm_messages(t.bob) == [] and fallbacks(t, t.bob) == []
        [reminder] = [m for m in t.messages() if m.content.startswith("⏰ Turn 1 ends")]  # the channel's, as ever
        assert t.bob.id in reminder.mention_ids

        nowhere = t.fake.add_channel(t.guild, "lobby")
        refused = await t.run(t.bob, "remind me", channel=nowhere, dm="on")
        assert texts(refused) == "⛔ there is no game in this channel: start one with /game start"


async def test_a_battle_choice_that_waits_is_sent_by_dm(tmp_path):
    async with table(tmp_path) as t, t.bot() as rb:
        await start_war(t)
        await t.run(t.bob, "remind me", dm="on")
        await t.run(t.alice, "attack declare", target="Charon", units="1")
        deadline = (await t.state(rb)).battles[1].deadline  # the house's choice deadline after the declaration
        hours = (deadline - START).total_seconds() / 3600
        [dm] = t.fake.dm_messages(t.bob)
        assert dm.content == (f"⏰ In <#{t.channel.id}>: a battle choice waits for you until {at(hours)}: "
                              "battle #1, commit your units (/attack commit) (Charon).")
        [offer] = [m for m in t.messages() if m.content.startswith("⚔ Battle #1:")]
        assert t.bob.id in offer.mention_ids  # the channel's offer mentions him as ever

        # half-way to the deadline the engine reminds the chooser (ChoiceReminded): bob gets it by DM too
        t.clock.advance(hours=hours / 2 - 1 / 60)
        await tick(rb, t)
        assert len(t.fake.dm_messages(t.bob)) == 1
        t.clock.advance(minutes=2)
        await tick(rb, t)
        assert [m.content for m in t.fake.dm_messages(t.bob)][1:] == [
            (f"⏰ In <#{t.channel.id}>: a battle choice still waits for you until {at(hours)}: "
            "battle #1, commit your units (/attack commit) (Charon).")]


async def test_god_dice_its_your_move_by_dm_when_the_move_passes(tmp_path):
    async with table(tmp_path) as t, t.bot():
        await t.run(t.gm, "game start", ruleset="goddice")
        for player in (t.alice, t.bob):
            await t.run(player, "goddice join")
        await t.run(t.bob, "remind me", dm="on")
        await t.run(t.gm, "gm dice", values="Y Y Y B B B B B B  B B B B B B B B B", purpose="any")
        await t.run(t.gm, "goddice begin")  # alice won the roll-off: her move
        assert t.fake.dm_messages(t.bob) == []
        await t.run(t.alice, "goddice choose", first="attack")  # bob picks first
        pick = f"⏰ In <#{t.channel.id}>: it's your move: pick a character (/goddice pick)."
        assert [m.content for m in t.fake.dm_messages(t.bob)] == [pick]
        await t.run(t.bob, "goddice pick", character="monk")
        assert len(t.fake.dm_messages(t.bob)) == 1  # alice's move now
        await t.run(t.alice, "goddice pick", character="hero")
        assert [m.content for m in t.fake.dm_messages(t.bob)] == [pick, pick]  # back to bob: sent again
        assert t.fake.dm_messages(t.alice) == []  # not opted in



async def test_closed_dms_for_a_move_the_channel_already_mentions_add_the_notice_only(tmp_path):
    async with table(tmp_path) as t, t.bot():
        await t.run(t.gm, "game start", ruleset="goddice")
        for player in (t.alice, t.bob):
            await t.run(player, "goddice join")
        t.fake.close_dms(t.bob)
        await t.run(t.bob, "remind me", dm="on")
        await t.run(t.gm, "gm dice", values="Y Y Y B B B B B B  B B B B B B B B B", purpose="any")
        await t.run(t.gm, "goddice begin")
        chosen = await t.run(t.alice, "goddice choose", first="attack")
        assert chosen.content == f"⏳ {mention(t.bob)}, your move: pick a character (/goddice pick)."  # pings bob
        assert notices(t) == [(f"⚠ I could not send {mention(t.bob)} a direct message (closed DMs?): their reminders "
                               "come here as mentions until they run /remind me again.")]
        assert fallbacks(t, t.bob) == [] and t.fake.dm_messages(t.bob) == []
        await t.run(t.bob, "goddice pick", character="monk")
        await t.run(t.alice, "goddice pick", character="hero")
        assert len(notices(t)) == 1 and fallbacks(t, t.bob) == []  # said once; the prompt mentions him as ever

async def test_the_console_answers_that_dms_are_a_discord_feature(tmp_path):
    console, store, out = await console_on(tmp_path / "console.db")
    try:
        await console.handle("gm /game start turn_hours:12")
        said(out)
        await console.handle("alice /remind me dm:on before:2h")
        assert said(out) == [("error: reminders by direct message are a Discord feature; here, /game digest shows "
                              "what happened since you last looked (nothing changed)")]
        assert await store.dm_reminders(1) == []
    finally:
        await store.close()


async def test_godsfire_your_go_at_initiative_by_dm_and_its_half_time_reminder(tmp_path):
    async with table(tmp_path) as t, t.bot() as rb:
        await t.run(t.gm, "game start", ruleset="godsfire")
        await t.run(t.gm, "gm dice", values="3 4 5 3 6 6 1 1", purpose="any")  # Sol's and Vega's regions
        await t.run(t.gm, "godsfire system add", name="Sol", owner=t.alice)
        await t.run(t.gm, "godsfire system add", name="Vega", owner=t.bob)
        await t.run(t.gm, "godsfire set", field="units", value="SQD=1", system="Vega")
        await t.run(t.bob, "remind me", dm="on")
        await t.run(t.gm, "gm dice", values="2 5", purpose="any")  # the order: alice 2, bob 5 — bob holds initiative
        await t.run(t.gm, "godsfire movement initiative")
        go = (f"⏰ In <#{t.channel.id}>: it's your go at initiative (turn 1, round 1): Move (then Done), or Pass, "
              f"until {at(12)}.")
        assert [m.content for m in t.fake.dm_messages(t.bob)] == [go]
        # the house's response time is 12 hours: the engine reminds the awaited player at half time, by DM too
        t.clock.advance(hours=6, minutes=1)
        await tick(rb, t)
        assert [m.content for m in t.fake.dm_messages(t.bob)] == [
            go, (f"⏰ In <#{t.channel.id}>: your go at initiative still waits for you, until {at(12)}: then it ends "
                 "(a pass, if you have not moved).")]
        assert t.fake.dm_messages(t.alice) == []


# --- quiet hours (/remind me quiet:, issue 34) ---------------------------------------------------------------------
# START is 12:00 UTC, 21:00 in Tokyo (UTC+9, no daylight saving): turn 1 ends at 00:00 UTC, 09:00 in Tokyo.
QUIET_TOKYO = ("🌙 Quiet hours 23:00–07:30 (Asia/Tokyo) in all your games: a reminder by DM that falls due then waits "
               "until 07:30 your time. Deadlines do not move: one that passes meanwhile is not reminded (/remind me "
               "quiet:off ends them).")


async def test_a_dm_due_at_3_in_quiet_hours_goes_at_7_30_their_time_and_the_turn_still_ends_on_time(tmp_path):
    async with table(tmp_path) as t, t.bot() as rb:
        await start_war(t)
        game = await rb.bot.referee.game_id(t.key())
        await t.run(t.bob, "remind me", dm="on", before="6h")  # due 18:00 UTC: 03:00 in Tokyo
        quiet = await t.run(t.bob, "remind me", quiet="23:00-07:30", timezone="asia/tokyo")
        assert quiet.ephemeral and texts(quiet) == QUIET_TOKYO
        # alice's quiet hours, zone and all in quiet:, set first: her dm:on answer says them
        await t.run(t.alice, "remind me", quiet="21:00-06:00 UTC")
        on = await t.run(t.alice, "remind me", dm="on")
        assert texts(on) == (ON.format("2h") + "\n🌙 Your quiet hours: 21:00–06:00 (UTC); what falls due in them "
                             "waits until 06:00 your time.")
        assert (await rb.bot.store.game(game)).remind_at == START + timedelta(hours=6)

        t.clock.advance(hours=6, minutes=1)  # 03:01 in Tokyo: held, the game's wake set to the morning
        await tick(rb, t)
        assert t.fake.dm_messages(t.bob) == [] and fallbacks(t, t.bob) == []
        assert (await rb.bot.store.game(game)).remind_at == START + timedelta(hours=10)  # alice's, sooner
        t.clock.advance(hours=4, minutes=28)  # 07:29 in Tokyo
        await tick(rb, t)
        assert t.fake.dm_messages(t.bob) == []
        assert (await rb.bot.store.game(game)).remind_at == START + timedelta(hours=10, minutes=30)  # bob's morning
        t.clock.advance(minutes=2)  # 07:31: sent, once, with the deadline's own time
        await tick(rb, t)
        assert [m.content for m in t.fake.dm_messages(t.bob)] == [turn_dm(t, 1, 12, 2)]
        await tick(rb, t)
        assert len(t.fake.dm_messages(t.bob)) == 1

        t.clock.advance(hours=1, minutes=30)  # 00:01 UTC: the turn ended on time, quiet hours or not
        await tick(rb, t)
        assert (await t.state(rb)).turn == 2
        assert "⏰ Turn 1 is over (time is up). Turn 2 begins" in texts(*t.messages())
        # alice's reminder fell due at 22:00 UTC in her quiet hours and its deadline passed before her morning:
        # not sent, then or at 06:00; her turn 2 reminder (due 10:00 UTC, out of them) comes as ever
        t.clock.advance(hours=6)
        await tick(rb, t)
        assert t.fake.dm_messages(t.alice) == [] and fallbacks(t, t.alice) == []
        t.clock.advance(hours=4)
        await tick(rb, t)
        assert [m.content for m in t.fake.dm_messages(t.alice)] == [turn_dm(t, 2, 24, 2, "Gracchan Republic")]


async def test_quiet_off_sends_a_held_dm_at_once_and_restores_immediate_dms(tmp_path):
    async with table(tmp_path) as t, t.bot() as rb:
        await start_war(t)
        await t.run(t.bob, "remind me", dm="on", before="6h")
        await t.run(t.bob, "remind me", quiet="23:00-07:30", timezone="Asia/Tokyo")
        t.clock.advance(hours=6, minutes=1)
        await tick(rb, t)
        assert t.fake.dm_messages(t.bob) == []
        off = await t.run(t.bob, "remind me", quiet="off")
        assert off.ephemeral and texts(off) == (
            "☀ Quiet hours off: your reminders by DM come as soon as they are due, in every game.")
        assert [m.content for m in t.fake.dm_messages(t.bob)] == [turn_dm(t, 1, 12, 2)]
        assert await rb.bot.store.quiet_hours([str(t.bob.id)]) == {}
        again = await t.run(t.bob, "remind me", quiet="off")
        assert texts(again) == "You had no quiet hours; nothing changed."
        # a battle choice in the night (03:0x in Tokyo) is DMed at once now
        await t.run(t.alice, "attack declare", target="Charon", units="1")
        assert len(t.fake.dm_messages(t.bob)) == 2
        assert t.fake.dm_messages(t.bob)[1].content.startswith(f"⏰ In <#{t.channel.id}>: a battle choice waits")


async def test_a_restart_during_quiet_hours_still_sends_the_held_dm_at_morning(tmp_path):
    async with table(tmp_path) as t:
        async with t.bot() as rb:
            await start_war(t)
            await t.run(t.bob, "remind me", dm="on", before="6h")
            await t.run(t.bob, "remind me", quiet="23:00-07:30", timezone="+09:00")
            t.clock.advance(hours=6, minutes=1)
            await tick(rb, t)
            assert t.fake.dm_messages(t.bob) == []
        t.clock.advance(hours=2)  # 05:01 there: restarted in the night
        async with t.bot() as rb:
            await settle(t.fake)
            assert t.fake.dm_messages(t.bob) == []
            t.clock.advance(hours=2, minutes=30)  # 07:31 there
            await tick(rb, t)
            assert [m.content for m in t.fake.dm_messages(t.bob)] == [turn_dm(t, 1, 12, 2)]


async def test_bad_quiet_hours_are_refused_and_change_nothing(tmp_path):
    async with table(tmp_path) as t, t.bot() as rb:
        await start_war(t)
        bob = str(t.bob.id)
        for options, reason in (
                ({"quiet": "07:30-07:30", "timezone": "Europe/Paris"},
                 "quiet hours from 07:30 to 07:30 are empty, or all day: give two different times"),
                ({"quiet": "23:00-07:30"}, ("which time zone are your quiet hours in? Add timezone: (e.g. "
                                           "Europe/Paris, or an offset like +02:00)")),
                ({"quiet": "23:00-07:30", "timezone": "Paris"}, ("timezone is a zone like Europe/Paris or "
                 "America/New_York, UTC, or an offset like +02:00; not 'Paris'")),
                ({"quiet": "23:00-07:30 Europe/Paris", "timezone": "UTC"},
                 "your time zone is given twice (Europe/Paris in quiet, UTC in timezone): give it once"),
                ({"timezone": "Europe/Paris"}, ("timezone goes with quiet: (e.g. quiet:23:00-07:30 "
                                               "timezone:Europe/Paris)")),
                ({"quiet": "23:00-07:30", "timezone": "UTC", "dm": "on", "before": "5m"},
                 SPAN.removeprefix("⛔ ") + "; 5m is too short"),
                ({}, ("say what to change: dm:on or dm:off in this game, or quiet: your quiet hours (e.g. "
                     "quiet:23:00-07:30 timezone:Europe/Paris, or quiet:off)"))):
            refused = await t.run(t.bob, "remind me", **options)
            assert refused.ephemeral and texts(refused) == "⛔ " + reason
        assert await rb.bot.store.quiet_hours([bob]) == {}
        # a zone once given is kept: the span alone changes, then the zone alone
        await t.run(t.bob, "remind me", quiet="22:00-06:00", timezone="Europe/Paris")
        await t.run(t.bob, "remind me", quiet="23:00-07:00")
        await t.run(t.bob, "remind me", timezone="-05:00")
        [kept] = (await rb.bot.store.quiet_hours([bob])).values()
        assert (kept.starts, kept.ends, kept.zone) == (23 * 60, 7 * 60, "-05:00")
