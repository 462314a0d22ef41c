"""Issue 19: /log game on Discord — the story of a turn through discord.py against the fake Discord: one turn's
embed (players as mentions, never ids in the open), its first lines exactly, and a turn that does not exist
refused in one line."""

from __future__ import annotations

from discordkit import start_war, table, texts


async def test_log_game_tells_a_turn_and_refuses_one_that_does_not_exist(tmp_path):
    async with table(tmp_path) as t:
        async with t.bot():
            await start_war(t)
            await t.run(t.gm, "gm dice", values="9 8", purpose="any")
            await t.run(t.alice, "economy military")
            await t.run(t.gm, "gm turn end")
            told = await t.run(t.bob, "log game", turn=1)
            assert not told.ephemeral
            assert told.embed["title"] == "📜 The story of turn 1 — Nations"
            lines = told.embed["description"].splitlines()
            at = "<t:1772366400:f>"
            assert lines[:3] == [
                f"{at} — <@{t.gm.id}>: /game start turn\\_hours:12.0",
                (f"  A Nations game begins, refereed by the bot; GM: <@{t.gm.id}>. Turn 1 lasts 12 hours and ends "
                 "<t:1772409600:f> (<t:1772409600:R>)."),
                f"{at} — <@{t.alice.id}>: /nation claim preset:Gracchan Republic",
            ]
            assert ("  🎲 Gracchan Republic, grow military: d10 9 (GM die) + mod(E) +1 = **10** vs > 8: **success**"
                    in lines)
            assert lines[-2:] == [
                f"{at} — <@{t.gm.id}>: /gm turn end",
                ("  ⏰ Turn 1 is over (ended by the GM). Turn 2 begins and ends <t:1772409600:f> (<t:1772409600:R>). "
                 "Last turn — Gracchan Republic: ECONOMY; Charon: nothing."),
            ]
            assert str(t.alice.id) not in told.embed["description"].replace(f"<@{t.alice.id}>", "")

            now = await t.run(t.bob, "log game")
            assert now.embed["title"] == "📜 The story of turn 2 (so far: it is the current turn) — Nations"
            assert now.embed["description"].splitlines()[0].endswith(f"— <@{t.gm.id}>: /gm turn end (continued)")

            refused = await t.run(t.bob, "log game", turn=3)
            assert refused.ephemeral
            assert texts(refused) == "⛔ turn 3 does not exist: this game's turns are 1 to 2"
