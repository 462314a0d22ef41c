"""Issue 34: the GM's entered dice are the GM's alone until a roll uses them — the /gm dice answer is ephemeral,
every player's view of the log says how many were entered and never which, and a player who acts at once rolls
their own dice (the GM's go to the GM's own commands, or to the player or purpose they were entered for)."""

from discordkit import start_war, table, texts


async def test_a_player_sees_entered_4_dice_and_cannot_take_them(tmp_path):
    async with table(tmp_path) as t, t.bot() as rb:
        await start_war(t)
        entered = await t.run(t.gm, "gm dice", values="10 10 1 1")
        assert entered.ephemeral and "entered the next 4 dice" in texts(entered)
        assert not any("10 10" in texts(m) for m in t.messages())  # nothing in the channel names them

        t.dice.push(2)  # alice acts at once: her own die (2 + 1 + 1 = 4, no better than 8), not the GM's 10
        grown = await t.run(t.alice, "economy military")
        assert "d10 2" in texts(grown) and "GM die" not in texts(grown)
        assert t.dice.all_used()
        assert (await t.state(rb)).forced_dice == [10, 10, 1, 1]

        shown = await t.run(t.alice, "log gm")  # a plain member, in the channel
        assert not shown.ephemeral
        assert f"<@{t.gm.id}>: /gm dice values:(4 dice entered)" in texts(shown)
        assert f"GM <@{t.gm.id}> entered the next 4 dice." in texts(shown)
        assert "10 10" not in texts(shown)
        for command in ("log game", "game status", "log rolls"):
            assert "10 10" not in texts(await t.run(t.bob, command)), command

        waiting = await t.run(t.gm, "gm dice", values="waiting")  # the GM lists them, privately
        assert waiting.ephemeral
        assert "10 — for the next roll of a command the GM runs" in texts(waiting)


async def test_dice_entered_for_a_player_go_to_their_next_roll(tmp_path):
    async with table(tmp_path) as t, t.bot() as rb:
        await start_war(t)
        entered = await t.run(t.gm, "gm dice", values="9", player=t.bob)
        assert entered.ephemeral
        t.dice.push(3)
        first = await t.run(t.alice, "economy military")  # not alice's
        assert "d10 3" in texts(first) and "GM die" not in texts(first)
        second = await t.run(t.bob, "economy military")  # bob's: the GM's 9, marked as the GM's now it is used
        assert "d10 9 (GM die)" in texts(second)
        assert t.dice.all_used() and (await t.state(rb)).forced_dice == []
        logged = texts(await t.run(t.alice, "log gm"))
        assert f"/gm dice values:(1 die entered) player:<@{t.bob.id}>" in logged
