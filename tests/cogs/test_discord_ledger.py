"""Issue 19: /log rolls' filters and pages (their buttons work after a restart), /log export's CSV and JSON."""

import csv
import io
import json

from discordkit import start_war, table, texts


async def test_pages_filters_and_restart(tmp_path):
    async with table(tmp_path) as t:
        async with t.bot():
            await start_war(t)
            for _ in range(3):
                await t.run(t.alice, "roll", dice="1d6")
            first = await t.run(t.bob, "log rolls", free="only", limit=2)
            embed = first.embeds[0]
            assert embed["footer"]["text"] == "Page 1 of 2 · 3 rolls · newest first"
            [custom_id] = first.custom_ids
            assert custom_id.startswith("referee:log:") and custom_id.endswith(":-o:0.")
            none = await t.run(t.bob, "log rolls", purpose="nothing-such")
            assert "No rolls match those filters." in texts(none)
            past = await t.run(t.bob, "log rolls", free="only", limit=2, page=9)
            assert past.ephemeral and "page 9 is past the end: there are 2 pages of 3 rolls" in texts(past)
            turn = await t.run(t.bob, "log rolls", turn_from=99)
            assert turn.ephemeral and "turn 99 does not exist" in texts(turn)
        async with t.bot():  # a restart: the button still pages
            message = await first.wait_for_final_message()
            clicked = await t.click(t.alice, message, custom_id)
            assert not clicked.ephemeral
            assert clicked.embeds[0]["footer"]["text"] == "Page 2 of 2 · 3 rolls · newest first"


async def test_export_csv_and_json(tmp_path):
    async with table(tmp_path) as t, t.bot():
        await start_war(t)
        await t.run(t.alice, "roll", dice="2d6+1")
        result = await t.run(t.bob, "log export", format="csv")
        message = await result.wait_for_final_message()
        [attachment] = message.attachments
        assert attachment.filename == "roll-ledger.csv"
        rows = list(csv.DictReader(io.StringIO(attachment.data.decode("utf-8-sig"))))
        assert rows[-1]["purpose"] == "free roll 2d6+1" and rows[-1]["free_roll"].endswith(rows[-1]["total"])
        assert list(rows[0]) == ["roll", "die", "turn", "at", "who", "purpose", "sides", "value", "face", "modifiers",
                                 "total", "target", "comparison", "success", "gm_entered", "free_roll", "battle",
                                 "unit"]
        result = await t.run(t.bob, "log export", format="json")
        data = json.loads((await result.wait_for_final_message()).attachments[0].data)
        assert data["ruleset"] == "nations" and data["rolls"][-1]["kind"] == "free"
        assert len(data["rolls"]) == int(rows[-1]["roll"])
