"""/game list in the console (issue 17): every game running in the console's database — its own channel's and
any other's (a Discord bot's games in the same database) — the caller's as GM first, each as its channel's key,
rule set, turn (and phase), GM, who still owes a move and the next deadline; ended games left out."""

from __future__ import annotations

from storehelpers import console_on, said

from engine.clock import EndGame


async def test_the_console_lists_the_games_in_its_database(tmp_path):
    console, store, out = await console_on(tmp_path / "referee.db")
    try:
        await console.handle("bob /game list")
        assert said(out) == ["No game is running in this database: /game start starts one."]

        referee = console.referee
        for line in ("gm /game start", 'gm /nation claim preset:"Gracchan Republic" player:alice',
                     "gm /nation claim Charon bob", 'gm /gm dice values:"9"',
                     "alice /propaganda encourage kind:morale"):
            await console.handle(line)
        await referee.start_game("discord:7:100", "carol", ruleset_name="goddice", guild_id=7)
        await referee.start_game("discord:7:101", "GM", ruleset_name="godsfire", guild_id=7)
        await referee.start_game("discord:7:102", "gm", ruleset_name="nations", guild_id=7)
        await referee.act("discord:7:102", "gm", EndGame(), "/game end")  # ended: left out
        said(out)

        nations = ("  console: Nations, turn 1 — GM gm — actions left: Gracchan Republic 1 (alice), Charon 2 (bob) "
                   "— deadline 2030-01-01 12:00 UTC")
        godsfire = ("  discord:7:101: Godsfire, turn 1, Movement Phase — GM GM — the GM to start initiative — "
                    "no deadline")
        goddice = ("  discord:7:100: God Dice, seating — GM carol — players to take a seat (0 seated), then the GM to "
                   "begin — no deadline")
        await console.handle("gm /game list")  # gm's games first (GM names compared without case)
        assert said(out) == ["Games running in this database: 3", nations, godsfire, goddice]
        await console.handle("carol /game list")
        assert said(out) == ["Games running in this database: 3", goddice, nations, godsfire]
        await console.handle("bob /game list")  # bob GMs nothing: the order the games began
        assert said(out) == ["Games running in this database: 3", nations, goddice, godsfire]
    finally:
        await store.close()
