"""Issue 11: how the referee's embeds look on Discord, through discord.py against the fake Discord. Each answer
is coloured by its outcome (a check passed or failed, a refusal, a GM's act, the clock), headed by its event
kind (the embed's title), and signed with the nation and the turn in the footer; roll totals and verdicts
in bold; unit ranks read the same way everywhere."""

from __future__ import annotations

from datetime import UTC, datetime

import discord
from discordkit import start_war, table, texts

from cogs.render import OUTCOME_COLOURS, event_lines
from engine.dice import RollRecord
from engine.events import DieRolled


def look(result) -> tuple[int, str | None, str | None]:
    """An answer's colour, heading (its title; a refusal's is its author line) and footer."""
    embed = result.embed
    heading = embed.get("title") or (embed.get("author") or {}).get("name")
    return (embed["color"], heading, (embed.get("footer") or {}).get("text"))


async def test_every_kind_of_answer_has_its_colour_heading_and_footer(tmp_path):
    async with table(tmp_path) as t, t.bot():
        await start_war(t)

        t.dice.push(9)  # 9 + mod(E) +1 = 10 > MILITARY 8: passed
        passed = await t.run(t.alice, "economy military")
        assert look(passed) == (discord.Colour.green().value, "Grow military", "Gracchan Republic · Turn 1")
        assert "= **10** vs > 8: **success**" in texts(passed)

        t.dice.push(1)  # a propaganda attack with a 1: failed
        failed = await t.run(t.bob, "propaganda attack", target="Gracchan Republic")
        assert look(failed)[0] == discord.Colour.orange().value, texts(failed)
        assert look(failed)[1:] == ("Propaganda attack on Gracchan Republic", "Charon · Turn 1")
        assert ": **failure**" in texts(failed)

        refused = await t.run(t.alice, "economy grow")  # both of alice's actions are used
        assert refused.ephemeral
        assert look(refused) == (discord.Colour.red().value, "Refused — nothing changed", None)
        assert texts(refused).startswith("⛔ ")

        gm = await t.run(t.gm, "gm dice", values="4", purpose="any")
        assert look(gm) == (discord.Colour.purple().value, "GM dice", "Nations · Turn 1")

        ended = await t.run(t.gm, "gm turn end")  # a turn ended by the GM: the GM's act
        assert look(ended) == (discord.Colour.purple().value, "Turn over", "Nations · Turn 2")

        # The heading is the embed's real title (not its author line); a view keeps its own title.
        assert ended.embed["title"] == "Turn over" and "author" not in ended.embed
        status = await t.run(t.alice, "game status")
        assert status.embed["title"].startswith("Nations — turn 2 (") and "Nations — turn 2" in texts(status)


async def test_a_turn_ended_by_the_clock_is_the_clocks_colour(tmp_path):
    async with table(tmp_path) as t, t.bot() as rb:
        await start_war(t)
        before = len(t.messages())
        t.clock.advance(hours=12)
        await rb.bot.get_cog("Clock").wake(await rb.bot.referee.game_id(t.key()))
        [over] = [m for m in t.messages()[before:] if m.embeds and "Turn 1 is over" in m.embeds[0]["description"]]
        embed = over.embeds[0]
        assert embed["color"] == discord.Colour.blue().value
        assert embed["title"] == "Turn over" and "author" not in embed and embed["footer"]["text"] == "Nations · Turn 2"


def test_the_colour_table_and_bold_totals_and_verdicts():
    assert {name: colour.value for name, colour in OUTCOME_COLOURS.items()} == {
        "success": 0x2ECC71, "failure": 0xE67E22, "refusal": 0xE74C3C, "gm": 0x9B59B6, "clock": 0x3498DB,
        "neutral": 0xC27C0E, "results": 0xF1C40F}
    roll = RollRecord(nation="Charon", purpose="grow economy", die=1, modifiers={"mod(E)": 1}, total=2, target=10,
                      comparison=">", success=False, forced=False, turn=1, at=datetime(2026, 3, 1, tzinfo=UTC))
    assert event_lines([DieRolled(roll=roll)]) == [
        "🎲 Charon, grow economy: d10 1 + mod(E) +1 = **2** vs > 10: **failure**"]


async def test_god_dice_and_godsfire_answers_are_signed_with_their_turn(tmp_path):
    async with table(tmp_path) as t, t.bot():
        await t.run(t.gm, "game start", ruleset="godsfire")
        await t.run(t.gm, "gm dice", values="3 4 5 3", purpose="any")
        added = await t.run(t.gm, "godsfire system add", name="Sol", owner=t.alice, planets=1, regions=1)
        assert added.embeds[0]["footer"]["text"] == "Godsfire · Turn 1, Movement Phase"
        assert added.embeds[0]["color"] == OUTCOME_COLOURS["neutral"].value  # setting up is neither won nor lost

    (tmp_path / "goddice").mkdir()
    async with table(tmp_path / "goddice") as t, t.bot():
        await t.run(t.gm, "game start", ruleset="goddice")
        joined = await t.run(t.alice, "goddice join")
        assert joined.embed["footer"]["text"] == "God Dice"  # no turn before the game begins


async def test_an_embed_reporting_what_happened_carries_its_moment_and_a_view_none(tmp_path):
    """Issue 17: Discord's own timestamp (`embed.timestamp`, shown in each reader's time zone) on every embed that
    reports something that happened — an action and its roll, a free roll, the log, a digest, the clock's turn
    end, a Godsfire report — equal to the moment it happened by the bot's clock; none on a view (/help, a status)
    or a refusal."""
    from datetime import timedelta

    from discordkit import START

    def moments(*results) -> list[datetime | None]:
        return [datetime.fromisoformat(e["timestamp"]) if "timestamp" in e else None
                for r in results for e in (r.embeds if hasattr(r, "embeds") else [r.embed])]

    async with table(tmp_path) as t, t.bot() as rb:
        await start_war(t)
        t.clock.advance(minutes=90)
        now = START + timedelta(minutes=90)
        t.dice.push(9)
        passed = await t.run(t.alice, "economy military")
        assert moments(passed) == [now] and passed.embed["timestamp"] == "2026-03-01T13:30:00+00:00"
        t.dice.push(3, 5)
        rolled = await t.run(t.bob, "roll", dice="2d6")
        t.clock.advance(minutes=5)
        assert moments(rolled) == [now]
        later = now + timedelta(minutes=5)
        digest = await t.run(t.alice, "game digest", since="2h")
        assert moments(await t.run(t.bob, "log rolls"), digest) == [later] * (1 + len(digest.embeds))

        refused = await t.run(t.alice, "economy grow")  # both of alice's actions are used
        assert refused.embed["title"] == "Refused — nothing changed" and moments(refused) == [None]
        assert moments(await t.run(t.alice, "help"), await t.run(t.alice, "game status")) == [None, None]

        t.clock.advance(hours=12)  # the clock ends turn 1 at START + 12h; it wakes later, its report says when
        before = len(t.messages())
        await rb.bot.get_cog("Clock").wake(await rb.bot.referee.game_id(t.key()))
        [over] = [m for m in t.messages()[before:] if m.embeds and "Turn 1 is over" in m.embeds[0]["description"]]
        assert moments(over) == [later + timedelta(hours=12)]

    (tmp_path / "godsfire").mkdir()
    async with table(tmp_path / "godsfire") as t, t.bot():  # a rule set's own report (`dress`): stamped too
        await t.run(t.gm, "game start", ruleset="godsfire")
        await t.run(t.gm, "gm dice", values="3 4 5 3", purpose="any")
        t.clock.advance(days=2)
        added = await t.run(t.gm, "godsfire system add", name="Sol", owner=t.alice, planets=1, regions=1)
        *report, sheet = moments(added)  # the events (`dress`), then the system's sheet: a view
        assert report == [START + timedelta(days=2)] * len(report) and report and sheet is None
