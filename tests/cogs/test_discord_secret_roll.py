"""Issue 34 on Discord: /roll secret:true answers its roller alone, the channel's ledger shows a secret roll with
its dice hidden, the GM reads it in /log secret (privately), and its roller reveals it later in the channel with
the time it was made."""

from __future__ import annotations

from discordkit import start_war, table, texts


async def test_a_secret_roll_is_the_rollers_and_the_gms_until_revealed(tmp_path):
    async with table(tmp_path) as t, t.bot():
        await start_war(t)
        t.dice.push(3, 4)
        rolled = await t.run(t.alice, "roll", dice="2d6", secret=True)
        assert rolled.ephemeral
        assert rolled.embed["title"].startswith("🔒 Secret roll #")
        number = int(rolled.embed["title"].split("#")[1])
        assert "2d6 (3, 4) = **7**" in texts(rolled)
        assert t.dice.all_used()
        assert not any("(3, 4)" in texts(m) for m in t.messages())  # nothing in the channel shows it

        ledger = await t.run(t.bob, "log rolls")
        assert "secret roll, its dice hidden" in texts(ledger) and "(3, 4)" not in texts(ledger)
        mine = await t.run(t.bob, "log secret")
        assert mine.ephemeral and "(3, 4)" not in texts(mine)
        seen = await t.run(t.gm, "log secret")  # the GM's private view
        assert seen.ephemeral and f"#{number}" in texts(seen) and "2d6 (3, 4) = 7" in texts(seen)

        refused = await t.run(t.bob, "log reveal", roll=number)
        assert refused.ephemeral and "another player's" in texts(refused)
        t.clock.advance(hours=3)
        revealed = await t.run(t.alice, "log reveal", roll=number)
        assert not revealed.ephemeral
        assert f"'s secret roll #{number}, made <t:1772366400:f>" in texts(revealed)  # its own time, not now
        assert "2d6 (3, 4) = 7" in texts(revealed)
        ledger = await t.run(t.bob, "log rolls")
        assert "secret roll, revealed: 2d6 (3, 4) = **7**" in texts(ledger)
