"""Issue 19: the console's /log gm — every GM act with who, when (UTC) and before → after, for any player."""

import re

from storehelpers import run_console


def test_log_gm(tmp_path):
    db = str(tmp_path / "referee.db")
    done = run_console(db, ["gm /game start", "alice /log gm", "gm /nation claim 1 alice", "alice /log gm",
                            "gm /gm set nation:1 stat:economy value:+2", "gm /gm house key:bonus_hours value:24",
                            "gm /gm dice values:7", "gm /gm undo confirm:true", "alice /log gm",
                            "alice /log gm page:3"])
    assert done.returncode == 0, done.stderr
    text = re.sub(r"\d{4}-\d\d-\d\d \d\d:\d\d UTC", "<T>", done.stdout)
    claim = ["<T> — gm: /nation claim 1 alice",  # the GM acting for a player
             ("  🏳 Gracchan Republic joins the game, played by alice: E 12, S 10, M 8, P 10, L 20; STRENGTH "
              "infantry, WEAKNESS bomber."),
             *(f"  Gracchan Republic: #{n} {kind} GREEN ({hp} HP), starting army."
               for n, kind, hp in ((1, "infantry", 3), (2, "infantry", 3), (3, "infantry", 3), (4, "bomber", 2),
                                   (5, "armour", 2)))]
    lines = text.splitlines()
    assert "No GM acts yet." in lines
    first = lines.index(claim[0])
    assert lines[first:first + len(claim) + 1] == [*claim, "Page 1 of 1 · 1 GM act · newest first"]
    later = lines.index(claim[0], first + 1)
    assert lines[later + len(claim):] == [
        "<T> — gm: /gm set nation:1 stat:economy value:+2",
        "  Gracchan Republic: ECONOMY 12 → 14 (set by GM gm).",
        "  ⚠ GM override: Gracchan Republic now breaks the rules: E+M = 22 is over its land 20.",
        "<T> — gm: /gm house key:bonus_hours value:24",
        "  House setting bonus hours (`bonus_hours`): 36 → 24 for this game.",
        "<T> — gm: /gm dice values:(1 die entered) (undone since)",  # which: the GM's alone until rolled
        "  GM gm entered the next 1 die.",
        "<T> — gm: /gm undo",
        "  ↩ GM gm undid gm's “/gm dice values:(1 die entered)” and all its rolls.",
        "Page 1 of 1 · 5 GM acts · newest first",
        "error: page 3 is past the end: there is 1 page of 5 GM acts",
    ]
