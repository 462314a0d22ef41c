"""/game list on Discord (issue 17): every game running in the server, the caller's as GM first — its channel
as a link, its rule set, turn (and phase), GM, who still owes a move and the next deadline — to the caller
alone; another server's games and ended games are left out; at most 25 shown, then how many more.

The real bot (discord.py) against the fake Discord; every game is started through it, its dice entered by
its GM, so every line is exact.
"""

from __future__ import annotations

from discordkit import at, settle, table, texts

from cogs.util import holding
from service.referee import MAX_LISTED


async def three_games(t):
    """In t's server: gm's Nations game in #nations (alice and bob have claimed, alice has encouraged morale)
    and gm's Godsfire game in #godsfire (bob's go at initiative, an hour later); alice's God Dice game in
    #goddice (gm and bob seated, gm won the roll-off). gm also runs a Nations game in another server."""
    godsfire = t.fake.add_channel(t.guild, "godsfire")
    goddice = t.fake.add_channel(t.guild, "goddice")
    t.fake.allow(t.guild, "gm", t.alice)  # alice GMs the God Dice game: /gm dice

    await t.run(t.gm, "game start", turn_hours=12)
    await t.run(t.alice, "nation claim", preset="Gracchan Republic")
    await t.run(t.bob, "nation claim", preset="Charon")
    await t.run(t.gm, "gm dice", values="9", purpose="any")
    await t.run(t.alice, "propaganda encourage", kind="morale")

    await t.run(t.alice, "game start", goddice, ruleset="goddice")
    await t.run(t.gm, "goddice join", goddice)
    await t.run(t.bob, "goddice join", goddice)
    await t.run(t.alice, "gm dice", goddice, values="Y Y Y B B B B B B  B B B B B B B B B", purpose="any")
    await t.run(t.alice, "goddice begin", goddice)

    t.clock.advance(hours=1)
    await t.run(t.gm, "game start", godsfire, ruleset="godsfire")
    await t.run(t.gm, "gm dice", godsfire, values="3 4 5 3 6 6 1 1", purpose="any")
    await t.run(t.gm, "godsfire system add", godsfire, name="Sol", owner=t.alice)
    await t.run(t.gm, "godsfire system add", godsfire, name="Vega", owner=t.bob)
    await t.run(t.gm, "godsfire set", godsfire, field="units", value="SQD=2 AG=1", system="Sol")
    await t.run(t.gm, "godsfire set", godsfire, field="units", value="SQD=1", system="Vega")
    await t.run(t.gm, "gm dice", godsfire, values="2 5", purpose="any")  # alice 2, bob 5: bob holds initiative
    await t.run(t.gm, "godsfire movement initiative", godsfire)

    elsewhere = t.fake.add_guild("Elsewhere")
    room = t.fake.add_channel(elsewhere, "war")
    there = await t.fake.invoke(elsewhere, room, t.fake.add_member(elsewhere, t.gm.user), "game start")
    await settle(t.fake)
    assert texts(there).startswith("A Nations game begins")  # (a game there, which /game list leaves out)
    return godsfire, goddice


async def test_game_list_shows_the_servers_games_the_callers_first(tmp_path):
    async with table(tmp_path) as t, t.bot():
        godsfire, goddice = await three_games(t)
        assert t.dice.all_used()
        gm, alice, bob = (f"<@{m.id}>" for m in (t.gm, t.alice, t.bob))
        nations_line = (f"• <#{t.channel.id}> — Nations, turn 1 — GM {gm} — actions left: Gracchan Republic 1 "
                        f"({alice}), Charon 2 ({bob}) — deadline {at(12)}")
        godsfire_line = (f"• <#{godsfire.id}> — Godsfire, turn 1, Movement Phase — GM {gm} — {bob}'s go at "
                         f"initiative (round 1) — deadline {at(13)}")
        goddice_line = (f"• <#{goddice.id}> — God Dice, the roll-off winner's choice — GM {alice} — {gm} to choose "
                        "to attack first or select first — no deadline")

        listed = await t.run(t.gm, "game list", goddice)  # from any channel of the server: the same list
        assert listed.ephemeral
        [embed] = listed.embeds
        assert embed["title"] == "Games running in this server: 3"
        assert embed["description"].splitlines() == [nations_line, godsfire_line, goddice_line]

        mine = await t.run(t.alice, "game list")  # alice GMs the God Dice game: hers first
        assert mine.ephemeral
        assert mine.embed["title"] == "Games running in this server: 3"
        assert mine.embed["description"].splitlines() == [goddice_line, nations_line, godsfire_line]

        # bob GMs nothing: the games in the order they began. An ended game is left out.
        theirs = await t.run(t.bob, "game list", godsfire)
        assert theirs.embed["description"].splitlines() == [nations_line, goddice_line, godsfire_line]
        asked = await t.run(t.gm, "game end")
        await t.click(t.gm, asked.message, asked.custom_ids[0])
        after = await t.run(t.bob, "game list")
        assert after.embed["title"] == "Games running in this server: 2"
        assert after.embed["description"].splitlines() == [goddice_line, godsfire_line]
        assert t.dice.all_used()

async def test_game_list_without_games_and_beyond_the_bound(tmp_path):
    async with table(tmp_path) as t, t.bot() as rb:
        empty = await t.run(t.bob, "game list")
        assert empty.ephemeral
        assert empty.embed["title"] == "Games running in this server: 0"
        assert empty.embed["description"] == "No game is running in this server: /game start starts one in a channel."

        referee = rb.bot.referee
        for n in range(MAX_LISTED + 2):  # the bound: 27 games in 27 channels (the last bob's)
            gm = str((t.bob if n == MAX_LISTED + 1 else t.gm).id)
            with holding():  # (games made through the referee in channels the server does not have)
                await referee.start_game(f"discord:{t.guild.id}:{1000 + n}", gm, 12, guild_id=t.guild.id)
        listed = await t.run(t.bob, "game list")
        lines = "\n".join(e.get("description", "") for e in listed.embeds).splitlines()
        assert listed.embeds[0]["title"] == f"Games running in this server: {MAX_LISTED + 2}"
        assert len(lines) == MAX_LISTED + 1
        assert lines[0] == (f"• <#{1000 + MAX_LISTED + 1}> — Nations, turn 1 — GM <@{t.bob.id}> — no nations yet: "
                            f"/nation claim — deadline {at(12)}")
        assert lines[1].startswith("• <#1000> — Nations, turn 1 — GM ")
        assert lines[MAX_LISTED - 1].startswith(f"• <#{1000 + MAX_LISTED - 2}> — ")
        assert lines[-1] == f"…and 2 more (at most {MAX_LISTED} are shown)."
