"""/log rolls links each roll to the message that announced it (migration 013): a command's answer, the clock's
announcement of a battle's default; a free roll, an import's roll and a roll whose message was not recorded link
nowhere. A command that rolled is still one transaction and one load of its game (issue 35): its message is
recorded with the next commit."""

from __future__ import annotations

import re
import sys
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from typing import Any
from unittest import mock

from discordkit import settle, start_war, table

import data.store.connection as connection

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


@contextmanager
def counting() -> Iterator[dict[str, int]]:
    """The store's COMMITs and snapshot loads meanwhile: `unpack_state` (a state from its row) and `snapshot_document`
    (a document from its row), wherever in the store outside the codec's own module they are called."""
    counts = {"commits": 0, "loads": 0}
    commit = connection._commit

    def committed(con: Any) -> None:
        commit(con)
        counts["commits"] += 1

    with mock.patch.object(connection, "_commit", committed), ExitStack() as stack:
        for name, module in list(sys.modules.items()):
            if not name.startswith("data.store.") or name == "data.store.encoding":
                continue
            for function in ("unpack_state", "snapshot_document"):
                if hasattr(module, function):
                    stack.enter_context(mock.patch.object(module, function, loader(getattr(module, function), counts)))
        yield counts


def loader(load: Any, counts: dict[str, int]) -> Any:
    def counted(*args: Any) -> Any:
        counts["loads"] += 1
        return load(*args)

    return counted


async def test_a_command_that_rolls_is_one_commit_and_one_load_and_its_link_comes_with_the_next(tmp_path):
    async with table(tmp_path) as t, t.bot() as rb:
        await start_war(t)
        for nation in ("Gracchan Republic", "Charon"):
            await t.run(t.gm, "gm set", nation=nation, stat="land", value="25")  # room to grow
        rb.bot.store.defer_delay = 3600  # (the message's own transaction never comes meanwhile, however slow)
        t.dice.push(9)
        with counting() as counts:
            grown = await t.run(t.alice, "economy grow")  # its answer, status edit and the rest of its follow-up
        assert "grow economy" in str(grown.embeds) and not grown.ephemeral
        assert counts == {"commits": 1, "loads": 1}
        page = await t.run(t.bob, "log rolls")  # (the message noted is written first)
        [row] = rows(page)
        assert linked(row) == (t.guild.id, t.channel.id, grown.message.id)
        with counting() as counts:
            t.dice.push(9)
            again = await t.run(t.bob, "economy grow")
        assert "grow economy" in str(again.embeds)
        assert counts == {"commits": 1, "loads": 1}  # nothing waited: nothing carried
        assert t.dice.all_used()
