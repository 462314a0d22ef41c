"""After /game end (issue 11): /game status and /log show the channel's last game, marked over; nothing can be
done in it; a new /game start takes the channel over."""

from __future__ import annotations

from discordkit import start_war, table, texts
from storehelpers import console_on, said

OVER = "Game over: this is the channel's last game, ended. /game start starts a new one here."
NO_GAME = "there is no game in this channel: start one with /game start"


async def test_console_shows_the_last_ended_game_until_a_new_one_starts(tmp_path):
    console, store, out = await console_on(tmp_path / "e.db")
    try:
        for line in ("gm /game start", 'gm /nation claim preset:"Gracchan Republic" player:alice',
                     'gm /gm dice values:"9"', "alice /propaganda encourage kind:morale", "gm /game end confirm:true"):
            await console.handle(line)
        said(out)
        await console.handle("bob /game status")
        assert said(out) == [
            "Nations — turn 1 (12 h), over; GM: gm — GAME OVER",
            "👑 Gracchan Republic wins with 20 LAND.",
            "Gracchan Republic — alice: E 12 S 10 M 8 P 10 L 20; 5 units",
            OVER,
        ]
        await console.handle("bob /log rolls")
        assert said(out) == ["turn 1: 🎲 Gracchan Republic, encourage morale: d10 9 (GM die) vs >= 5: success"]
        await console.handle('bob /log rolls nation:"Gracchan Republic"')
        assert said(out) == ["turn 1: 🎲 Gracchan Republic, encourage morale: d10 9 (GM die) vs >= 5: success"]
        for refused in ("alice /economy military", "gm /gm undo", "gm /game end confirm:true", "gm /game digest"):
            await console.handle(refused)
            assert said(out) == [f"error: {NO_GAME}"], refused
        console.referee.roller.push(1)
        await console.handle("gm /roll 1d1")  # a free roll: answered, logged nowhere (no live game)
        assert said(out) == ["🎲 gm, free roll, not a rule roll: 1d1 (1) = 1"]
        await console.handle("carol /game start")  # a new game takes the channel over
        said(out)
        await console.handle("bob /game status")
        assert said(out)[0].startswith("Nations — turn 1 (12 h), ends ") and OVER not in said(out)
        await console.handle("bob /log rolls")
        assert said(out) == ["No rolls yet."]
    finally:
        await store.close()


async def test_discord_status_and_log_show_the_ended_game(tmp_path):
    async with table(tmp_path) as t, t.bot():
        await start_war(t)
        await t.run(t.gm, "gm dice", values="9", purpose="any")
        await t.run(t.alice, "propaganda encourage", kind="morale")
        asked = await t.run(t.gm, "game end")
        await t.click(t.gm, asked.message, asked.custom_ids[0])
        status = await t.run(t.bob, "game status")
        assert texts(status).startswith(OVER)
        assert status.embeds[0]["title"].endswith("over") and "**GAME OVER**" in texts(status)
        assert "actions left" not in texts(status) and "ends <t:" not in texts(status)  # no live clock, no actions
        log = await t.run(t.bob, "log rolls")
        assert "Gracchan Republic, encourage morale: d10 9 (GM die) vs >= 5: success" in texts(log)
        refused = await t.run(t.alice, "economy military")
        assert NO_GAME in texts(refused)
        await t.run(t.bob, "game start")
        fresh = await t.run(t.bob, "game status")
        assert not texts(fresh).startswith(OVER) and "game over" not in fresh.embeds[0]["title"]
