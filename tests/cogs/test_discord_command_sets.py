"""Issue 34: each server sees what it plays. The commands every game needs are global; a rule set's own groups
(Nations' /nation, /army…, /goddice, /godsfire) are registered on a server once a game of it starts there, and stay
while a channel's game there (live, or its last one: its status and charts still answer) is of it. Each set is sent
in one bulk overwrite, only when it changed (its digest kept in the store), so a restart that changes nothing sends
nothing. Through discord.py against the fake Discord, with members who hold no server permission."""

from __future__ import annotations

import pytest
from discordkit import Table, config, running, settle, table
from fakediscord import FakeChannel, InvalidInteraction

from cogs.commandsets import owners
from engine.rulesets import RULESETS

NATIONS = [top for top, owner in owners().items() if owner == "nations"]
GODSFIRE = [top for top, owner in owners().items() if owner == "godsfire"]
OWN = set(owners())


async def end(t: Table, channel: FakeChannel | None = None) -> None:
    """The GM (alice, who started it) ends the channel's game: asked, then confirmed with the button."""
    asked = await t.run(t.alice, "game end", channel=channel)
    await t.click(t.alice, asked.message, asked.custom_ids[0], channel=channel)


def names(commands: list[dict]) -> list[str]:
    return [c["name"] for c in commands]


def test_each_rule_sets_own_groups_are_its_alone():
    assert sorted(NATIONS) == ["army", "attack", "economy", "nation", "propaganda", "stability"]
    assert GODSFIRE == ["godsfire"] and [t for t, o in owners().items() if o == "goddice"] == ["goddice"]
    assert set(owners().values()) == set(RULESETS)
    assert not {"game", "gm", "log", "help", "remind", "roll"} & OWN  # what every server needs stays global


async def test_a_fresh_bot_registers_only_the_global_commands(tmp_path):
    async with table(tmp_path) as t, t.bot():
        [sync] = t.fake.command_syncs
        assert sync.guild_id is None
        assert {"game", "gm", "log", "help", "remind", "roll"} <= set(sync.names)
        assert not OWN & set(sync.names)
        assert t.fake.guild_commands(t.guild) == []
        with pytest.raises(InvalidInteraction, match="no slash command 'nation'"):
            await t.fake.invoke(t.guild, t.channel, t.alice, "nation show")


async def test_a_game_puts_its_rule_sets_commands_on_its_server_alone_and_a_restart_sends_nothing(tmp_path):
    async with table(tmp_path) as t:
        other = t.fake.add_guild("Far Stars")
        stars = t.fake.add_channel(other, "stars")
        carol = t.fake.add_member(other, t.fake.add_user("carol"))
        second = t.fake.add_channel(t.guild, "second-front")
        third = t.fake.add_channel(t.guild, "third-front")
        async with t.bot():
            assert len(t.fake.command_syncs) == 1  # the global set

            started = await t.run(t.alice, "game start")  # Nations, by a member with no permission
            assert "Nations" in str(started.embeds)
            [sync] = t.fake.command_syncs[1:]
            assert sync.guild_id == t.guild.id and sync.names == NATIONS
            assert t.fake.guild_commands(other) == []
            claimed = await t.run(t.bob, "nation claim", preset="Charon")
            assert not claimed.message.ephemeral
            with pytest.raises(InvalidInteraction, match="no slash command 'nation'"):
                await t.fake.invoke(other, stars, carol, "nation show")

            await t.fake.invoke(other, stars, carol, "game start", options={"ruleset": "godsfire"})
            await settle(t.fake)
            [sync] = t.fake.command_syncs[2:]
            assert sync.guild_id == other.id and sync.names == GODSFIRE
            assert names(t.fake.guild_commands(t.guild)) == NATIONS  # A's set untouched

            await t.run(t.alice, "game start", channel=second)  # a second Nations game: A's set is the same
            assert len(t.fake.command_syncs) == 3

        # A restart works every server's set out from the database: nothing changed, nothing is sent.
        async with t.bot() as rb:
            await rb.bot.command_sets.settled()  # type: ignore[attr-defined]
            assert len(t.fake.command_syncs) == 3
            assert not (await t.run(t.bob, "nation show")).message.ephemeral

            await end(t)  # an ended game's charts still answer: its rule set's commands stay
            assert len(t.fake.command_syncs) == 3 and names(t.fake.guild_commands(t.guild)) == NATIONS
            await t.run(t.alice, "game start", ruleset="goddice")  # the channel's game is God Dice's now
            [sync] = t.fake.command_syncs[3:]
            assert sync.guild_id == t.guild.id and sync.names == [*NATIONS, "goddice"]  # (Nations: second-front)
            await t.run(t.alice, "game start", ruleset="goddice", channel=third)
            assert len(t.fake.command_syncs) == 4
            assert names(t.fake.guild_commands(other)) == GODSFIRE
        # one bulk overwrite per server per change, never one per command
        assert [s.guild_id for s in t.fake.command_syncs] == [None, t.guild.id, other.id, t.guild.id]


async def test_a_start_sends_what_the_database_says_was_not_sent(tmp_path):
    """A server whose set was never recorded as sent (the bot stopped while sending it) gets it at the next start,
    from its live games; the global set, unchanged, is not sent again."""
    async with table(tmp_path) as t:
        async with t.bot() as rb:
            await t.run(t.alice, "game start", ruleset="goddice")
            assert len(t.fake.command_syncs) == 2
            sets = rb.bot.command_sets  # type: ignore[attr-defined]
            await rb.bot.store.note_command_set(sets.scope(t.guild.id), None, t.clock())  # type: ignore[attr-defined]
        async with t.bot() as rb:
            await rb.bot.command_sets.settled()  # type: ignore[attr-defined]
            [sync] = t.fake.command_syncs[2:]
            assert sync.guild_id == t.guild.id and sync.names == ["goddice"]


async def test_help_mentions_a_servers_own_commands_by_their_ids_there(tmp_path):
    async with table(tmp_path) as t:
        async with t.bot():
            await t.run(t.alice, "game start")
            nation = next(c["id"] for c in t.fake.guild_commands(t.guild) if c["name"] == "nation")
            shown = (await t.run(t.alice, "help", topic="nation")).embed["description"]
            assert f"</nation claim:{nation}>" in shown
        async with t.bot():  # after a restart the ids are read once, when /help first needs them
            await t.run(t.alice, "help", topic="nation")
            shown = (await t.run(t.alice, "help", topic="nation")).embed["description"]
            assert f"</nation claim:{nation}>" in shown


async def test_a_development_server_gets_every_command_at_once(tmp_path):
    """DISCORD_GUILD_ID: every command, each rule set's too, on that server alone, as before."""
    async with table(tmp_path) as t:
        async with running(t.fake, config(t.db, t.clock, t.dice, guild_id=t.guild.id)):
            [sync] = t.fake.command_syncs
            assert sync.guild_id == t.guild.id and OWN <= set(sync.names) and "game" in sync.names
            await t.run(t.alice, "game start", ruleset="godsfire")
            assert len(t.fake.command_syncs) == 1
            assert t.fake.global_commands == []
