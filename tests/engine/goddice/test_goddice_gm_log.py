"""/log gm for God Dice: each GM act's change as "whose field: before → after", read off the game as it stood
just before it (a seat, the card file, GM-entered dice, a character's life)."""

from __future__ import annotations

import re

from cardfiles import SHIPPED
from storehelpers import console_on, said

DRAFT = [
    "alice /goddice choose first:attack", "bob /goddice pick monk", "alice /goddice pick hero",
    "bob /goddice pick sage", "alice /goddice pick cleric", "bob /goddice pick assassin",
    "alice /goddice pick bowman", "bob /goddice pick hero", "alice /goddice pick sage",
]


async def test_log_gm_words_each_god_dice_gm_act_as_before_and_after(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "long.toml").write_text(SHIPPED.replace("life = 75", "life = 80", 1)
                                        .replace("life = 25", "life = 30", 1))
    console, store, out = await console_on(tmp_path / "g.db")
    try:
        for line in ("gm /game start ruleset:goddice", "alice /goddice join", "gm /goddice join player:bob",
                     "gm /gm cards file:long.toml", 'gm /gm dice values:"Y Y Y B B B B B B"',
                     'gm /gm dice values:"B B B B B B B B B"', "gm /goddice begin", *DRAFT,
                     "gm /gm life player:bob character:monk life:30", "gm /gm house key:reminder_hours value:24",
                     "alice /goddice declare attacker:hero", 'gm /gm dice values:"S A"', "gm /gm dice values:clear",
                     "gm /gm life player:bob character:monk life:40",
                     "gm /gm life player:alice character:hero life:0"):
            await console.handle(line)
        said(out)
        await console.handle("bob /log gm page:2")
        await console.handle("bob /log gm")
        text = [re.sub(r"\d{4}-\d\d-\d\d \d\d:\d\d UTC", "<T>", line) for line in said(out)]
    finally:
        await store.close()
    assert text == [
        "<T> — gm: /goddice join player:bob",
        "  Seat 2: empty → bob.",
        "Page 2 of 2 · 11 GM acts · newest first",
        "<T> — gm: /gm cards file:long.toml",
        "  Card file: Hero life 75 → 80, Assassin life 25 → 30.",
        "<T> — gm: /gm dice values:(9 dice entered)",  # the faces: the GM's alone until rolled
        "  GM-entered dice waiting: 0 → 9 (entered by GM gm).",
        "<T> — gm: /gm dice values:(9 dice entered)",
        "  GM-entered dice waiting: 9 → 18 (entered by GM gm).",
        "<T> — gm: /goddice begin",
        "  🎲 alice, rolloff: Y* Y* Y* B* B* B* B* B* B* (* entered by the GM)",
        "  🎲 bob, rolloff: B* B* B* B* B* B* B* B* B* (* entered by the GM)",
        "  🏆 alice wins the roll-off with 3 YELLOW.",
        "  ⏳ alice's move: choose to attack first or select first (/goddice choose first:attack|select).",
        "<T> — gm: /gm life player:bob character:monk life:30",
        "  bob's Monk life: 55 → 30 (set by GM gm).",
        "<T> — gm: /gm house key:reminder_hours value:24",
        "  House setting reminder hours (`reminder_hours`): 12 → 24 for this game.",
        "<T> — gm: /gm dice values:(2 dice entered)",
        "  GM-entered dice waiting: 0 → 2 (entered by GM gm).",
        "<T> — gm: /gm dice values:clear",
        "  GM-entered dice waiting: 2 → none (cleared by GM gm).",
        "<T> — gm: /gm life player:bob character:monk life:40",
        "  bob's Monk life: 30 → 40 (set by GM gm).",
        "<T> — gm: /gm life player:alice character:hero life:0",
        "  alice's Hero life: 80 → 0 (set by GM gm).",
        "  💀 alice's Hero dies.",
        "  ▶ Turn 1: alice attacks.",
        "  ⏳ alice's move: declare an attacker (/goddice declare).",
        "Page 1 of 2 · 11 GM acts · newest first",
    ]
