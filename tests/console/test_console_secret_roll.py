"""Issue 34: a secret /roll — its roller and the game's GM see its dice (/log secret), every other view of the
ledger (/log rolls, /log game, the digest, rolls.csv) shows a secret roll with its dice hidden, and its roller or
the GM reveals it later (/log reveal roll:N), with the time it was made."""

from __future__ import annotations

import csv

from storehelpers import console_on, said

from service.referee import MAX_SECRET_WAITING

HIDDEN_LINE = "🔒 secret roll, its dice hidden until its roller or the GM reveals it"


async def test_a_secret_roll_is_hidden_until_its_roller_reveals_it(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    console, store, out = await console_on(tmp_path / "s.db")
    try:
        await console.handle("alice /roll dice:2d6 secret:true")  # no game here: nobody else could see it
        assert said(out) == [("error: a secret roll is kept in the game's log for its GM to see: no game runs here "
                              "(/roll without secret: rolls in the open)")]
        for line in ("gm /game start", 'gm /nation claim preset:"Gracchan Republic" player:alice'):
            await console.handle(line)
        said(out)
        console.referee.roller.push(3, 4)
        await console.handle("alice /roll dice:2d6 secret:true")
        [answer] = said(out)
        number = int(answer.split("#")[1].split(" ")[0])
        assert answer == (f"🔒 alice, secret roll #{number} (you and the GM alone see it; /log reveal roll:{number} "
                          "shows it to everyone): 2d6 (3, 4) = 7")

        for line in ("bob /log rolls", "bob /log game", "bob /game digest", "bob /log secret"):
            await console.handle(line)
            text = "\n".join(said(out))
            assert "(3, 4)" not in text and "= 7" not in text, (line, text)
        await console.handle("bob /log rolls")
        assert said(out)[-1].endswith(f"alice, free roll, not a rule roll: {HIDDEN_LINE}")
        await console.handle("bob /log export format:csv file:rolls.csv")
        said(out)
        with open(tmp_path / "rolls.csv", encoding="utf-8-sig") as f:
            [row] = list(csv.DictReader(f))
        assert (row["free_roll"], row["total"]) == (HIDDEN_LINE, "")

        await console.handle("gm /log secret")  # the GM sees it
        assert said(out)[1] == (f"  #{number} — 2030-01-01 00:00 UTC — alice: 2d6 (3, 4) = 7 (hidden from the others: "
                                f"/log reveal roll:{number})")
        await console.handle(f"bob /log reveal roll:{number}")  # not bob's to reveal
        assert said(out) == [f"error: secret roll #{number} is another player's: its roller or the GM reveals it"]

        console.referee.clock.advance(hours=2)
        await console.handle(f"alice /log reveal roll:{number}")
        assert said(out) == [f"🔓 Secret roll #{number} revealed",
                             f"alice's secret roll #{number}, made 2030-01-01 00:00 UTC: 2d6 (3, 4) = 7",
                             "Revealed by alice."]
        await console.handle("bob /log rolls")
        assert said(out)[-1].endswith("alice, free roll, not a rule roll: 🔓 secret roll, revealed: 2d6 (3, 4) = 7")
    finally:
        await store.close()


async def test_secret_rolls_waiting_are_bounded(tmp_path):
    console, store, out = await console_on(tmp_path / "b.db")
    try:
        await console.handle("gm /game start")
        for _ in range(MAX_SECRET_WAITING):
            console.referee.roller.push(1)
            await console.handle("alice /roll dice:1d6 secret:true")
        said(out)
        await console.handle("alice /roll dice:1d6 secret:true")  # refused before any die (the roller is empty)
        assert said(out) == [(f"error: you have {MAX_SECRET_WAITING} secret rolls not revealed yet: reveal one "
                              "(/log reveal roll:N) before rolling another in secret")]
        await console.handle("bob /roll dice:1d6+ secret:true")
        assert said(out)[0].startswith("error: cannot read")
    finally:
        await store.close()
