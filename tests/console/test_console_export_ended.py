"""The console's `/gm export` once the channel's game has ended: the last game, ended (with its result), not a
refusal; still the GM's alone."""

from __future__ import annotations

import json

from storehelpers import console_on, said


async def test_the_gm_exports_the_channels_last_ended_game(tmp_path):
    console, store, out = await console_on(tmp_path / "r.db")
    try:
        for line in ("gm /game start ruleset:godsfire", "gm /game end confirm:true"):
            await console.handle(line)
        said(out)
        await console.handle("alice /gm export")
        assert said(out) == ["error: only the GM may export the game"]
        await console.handle("gm /gm export")
        exported = json.loads("\n".join(said(out)))
        assert (exported["game"]["ruleset"], exported["game"]["ended"]) == ("godsfire", True)
    finally:
        await store.close()
