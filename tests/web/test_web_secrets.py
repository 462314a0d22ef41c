"""Issue 34 on the game's page: a secret /roll is in its ledger and its CSV with its dice hidden until revealed,
and dice the GM entered are counted in its status, never shown, until a roll uses them."""

from __future__ import annotations

from pagehelpers import serving


async def test_the_page_hides_a_secret_roll_and_entered_dice_until_revealed_or_used(table):
    await table.play(["gm /game start", 'gm /nation claim preset:"Gracchan Republic" player:alice',
                      'gm /gm dice values:"10 10 1 1" player:bob'])
    table.roller.push(3, 4)
    await table.play(["alice /roll dice:2d6 secret:true"])
    [number] = [n for n, _, _ in await table.store.secret_rolls(await table.game_id())]
    token = await table.token()
    async with serving(table) as (client, _):
        html = await (await client.get(f"/g/{token}")).text()
        ledger = await (await client.get(f"/g/{token}/rolls.csv")).text()
        assert "secret roll, its dice hidden" in html and "secret roll, its dice hidden" in ledger
        for text in (html, ledger):
            assert "(3, 4)" not in text and "10 10 1 1" not in text
        await table.play([f"alice /log reveal roll:{number}"])
        html = await (await client.get(f"/g/{token}")).text()
        ledger = await (await client.get(f"/g/{token}/rolls.csv")).text()
    assert "2d6 (3, 4)" in html and "2d6 (3, 4) = 7" in ledger
