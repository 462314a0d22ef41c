"""Issue 34 in the console: /gm dice says how many dice were entered, never which (the log and the status the
same); `values:waiting` lists them with whose roll takes each; `player:` keeps them for one player's roll."""

from __future__ import annotations

from storehelpers import console_on, said


async def test_console_entered_dice_are_counted_not_shown_and_go_where_bound(tmp_path):
    console, store, out = await console_on(tmp_path / "e.db")
    try:
        for line in ("gm /game start", 'gm /nation claim preset:"Gracchan Republic" player:alice',
                     "gm /nation claim Charon bob"):
            await console.handle(line)
        said(out)
        await console.handle('gm /gm dice values:"10 10 1 1" player:bob')
        assert said(out) == ["GM gm entered the next 4 dice."]
        await console.handle("gm /gm dice values:waiting")
        assert said(out)[1:3] == ["  10 — for the next roll of bob", "  10 — for the next roll of bob"]

        console.referee.roller.push(2)  # alice's roll: her own die, not bob's 10
        await console.handle("alice /propaganda encourage kind:morale")
        assert "d10 2 vs" in "\n".join(said(out))
        await console.handle("bob /propaganda encourage kind:morale")
        assert "d10 10 (GM die)" in "\n".join(said(out))

        for line in ("alice /log gm", "alice /game digest", "alice /game status"):
            await console.handle(line)
            text = "\n".join(said(out))
            assert "10 10 1 1" not in text and "values:\"10" not in text, (line, text)
        await console.handle("alice /log gm")
        assert any(line.endswith("gm: /gm dice values:(4 dice entered) player:bob") for line in said(out))
    finally:
        await store.close()
