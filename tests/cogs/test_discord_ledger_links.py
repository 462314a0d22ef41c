"""/log rolls links each roll to the message that announced it (migration 013): a command's answer, the clock's
announcement of a battle's default; a free roll, an import's roll and a roll whose message was not recorded link
nowhere."""

from __future__ import annotations

import re

from discordkit import settle, start_war, table

LINK = re.compile(r"\[↗\]\(https://discord\.com/channels/(\d+)/(\d+)/(\d+)\)")


def rows(result) -> list[str]:
    """The ledger page's rows (its description's lines)."""
    return result.embeds[0]["description"].splitlines()


def linked(row: str) -> tuple[int, int, int] | None:
    found = LINK.search(row)
    return None if found is None else (int(found[1]), int(found[2]), int(found[3]))


async def test_a_commands_roll_links_to_its_answer_and_a_free_roll_to_nothing(tmp_path):
    async with table(tmp_path) as t, t.bot():
        await start_war(t)
        t.dice.push(7)
        encouraged = await t.run(t.alice, "propaganda encourage", kind="morale")
        await t.run(t.alice, "roll", dice="1d6")
        page = await t.run(t.bob, "log rolls")
        [rolled, free] = rows(page)
        assert "encourage" in rolled and "free roll" in free.lower()
        assert linked(rolled) == (t.guild.id, t.channel.id, encouraged.message.id)
        assert linked(free) is None  # a free roll is no action: no report of its own to link
        assert not t.dice.queue


async def test_the_clocks_battle_default_links_to_its_announcement(tmp_path):
    async with table(tmp_path) as t, t.bot() as rb:
        await start_war(t)
        await t.run(t.alice, "attack declare", target="Charon", units="1 2")
        posted = max(m.id for m in t.messages())
        t.clock.advance(hours=4)  # the commitment's default applies; the initiative is rolled
        t.dice.push(10, 8)
        await rb.bot.get_cog("Clock").wake(await rb.bot.referee.game_id(t.key()))
        await settle(t.fake)
        [announcement] = [m for m in t.messages() if m.id > posted and "Time is up" in str(m.embeds)]
        page = await t.run(t.bob, "log rolls", purpose="initiative")
        found = [linked(row) for row in rows(page)]
        assert found and all(link == (t.guild.id, t.channel.id, announcement.id) for link in found)
        assert t.dice.all_used()


async def test_the_timers_catch_up_links_too_and_a_failed_record_spoils_nothing(tmp_path, monkeypatch):
    async with table(tmp_path) as t:
        async with t.bot():
            await start_war(t)
            await t.run(t.alice, "attack declare", target="Charon", units="1 2")
            posted = max(m.id for m in t.messages())
        t.clock.advance(hours=4)  # down past the default: the timer catches up on start, in a batch
        t.dice.push(10, 8)
        async with t.bot() as rb:
            await settle(t.fake)
            [announcement] = [m for m in t.messages() if m.id > posted and "Time is up" in str(m.embeds)]
            page = await t.run(t.bob, "log rolls", purpose="initiative")
            assert {linked(row) for row in rows(page)} == {(t.guild.id, t.channel.id, announcement.id)}

            async def refused(*args):
                raise RuntimeError("the store cannot record it")

            monkeypatch.setattr(rb.bot.store, "note_report_message", refused)
            t.dice.push(7)
            encouraged = await t.run(t.alice, "propaganda encourage", kind="morale")
            assert "encourage" in str(encouraged.embeds) and not encouraged.ephemeral
            page = await t.run(t.bob, "log rolls", purpose="encourage")
            [row] = rows(page)
            assert linked(row) is None
            assert t.dice.all_used()
