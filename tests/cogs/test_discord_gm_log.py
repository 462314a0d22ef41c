"""Issue 19: /log gm — every GM act with who, when and before → after, shown to every player."""

from discordkit import start_war, table, texts


async def test_gm_log_before_after(tmp_path):
    async with table(tmp_path) as t, t.bot():
        await start_war(t)
        await t.run(t.gm, "gm set", nation="Gracchan Republic", stat="economy", value="5")
        await t.run(t.gm, "gm house", key="bonus_hours", value="24")
        await t.run(t.gm, "gm dice", values="7 3", purpose="any")
        await t.run(t.gm, "gm set", nation="Charon", stat="military", value="+1")
        undo = await t.run(t.gm, "gm undo")
        await t.click(t.gm, await undo.wait_for_final_message(), undo.custom_ids[0])
        shown = await t.run(t.alice, "log gm")  # a player sees it, in the channel
        assert not shown.ephemeral
        embed = shown.embeds[0]
        gm, at = f"<@{t.gm.id}>", "<t:1772366400:f>"
        assert embed["title"] == "🛡 The GM's log"
        assert embed["description"].split("\n") == [
            f"{at} — {gm}: /gm set nation:Gracchan Republic stat:economy value:5",
            f"  Gracchan Republic: ECONOMY 12 → 5 (set by GM {gm}).",
            f"{at} — {gm}: /gm house key:bonus\\_hours value:24",
            "  House setting bonus hours (\\`bonus\\_hours\\`): 36 → 24 for this game.",
            f"{at} — {gm}: /gm dice values:(2 dice entered)",  # which: the GM's alone until rolled
            f"  GM {gm} entered the next 2 dice.",
            f"{at} — {gm}: /gm set nation:Charon stat:military value:+1 (undone since)",
            f"  Charon: MILITARY 9 → 10 (set by GM {gm}).",
            "  ⚠ GM override: Charon now breaks the rules: E+M = 21 is over its land 20.",
            f"{at} — {gm}: /gm undo",
            f"  ↩ GM {gm} undid {gm}'s “/gm set nation:Charon stat:military value:+1” and all its rolls.",
        ]
        assert embed["footer"]["text"] == "Page 1 of 1 · 5 GM acts · newest first"
        past = await t.run(t.bob, "log gm", page=2)
        assert past.ephemeral and "page 2 is past the end: there is 1 page of 5 GM acts" in texts(past)
