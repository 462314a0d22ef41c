"""/log gm for Godsfire: each GM act's change as "what field: before → after (reason)" — a system's bank,
units and owner, a region's allegiance, a player's NG money and government, the neutral's controller, the
counters on the table, the victory condition and the phase — each event against its own before."""

from __future__ import annotations

import re

from storehelpers import console_on, said

ACTS = [
    "gm /game start ruleset:godsfire", 'gm /gm dice values:"3 4 5 3 1 1 6 6"',
    "gm /godsfire system add name:Sol owner:alice planets:2 regions:2", 'gm /gm dice values:"3 4 5 3 6 1"',
    "gm /godsfire system add name:Vega neutral:true", "gm /godsfire set field:bank value:12 system:Sol",
    "gm /godsfire set field:allegiance value:2 system:Sol region:1",
    'gm /godsfire set field:units value:"AG=2 PDF=1" system:Sol',
    "gm /godsfire set field:ng_money value:5 player:alice",
    "gm /godsfire player add name:bob", "gm /godsfire system control system:Vega player:bob",
    "gm /godsfire counter add kind:AG at:Sol owner:alice count:2", 'gm /godsfire counter remove counters:"1 2"',
    "gm /godsfire victory set condition:most-systems turns:5", "gm /godsfire phase next",
    "gm /godsfire movement pass player:alice", "gm /godsfire movement pass player:bob", "gm /godsfire phase next",
    "gm /godsfire set field:owner value:bob system:Sol",
]
LOST = "the sheet: alice's National Government on Sol is lost: alice is out of the game"
SET_UP = ("bob had no National Government: it is set up on Sol (the GM may move it to another of their systems "
          "with /godsfire player add government:)")


async def test_log_gm_words_each_godsfire_gm_act_as_before_and_after(tmp_path):
    console, store, out = await console_on(tmp_path / "g.db")
    try:
        for line in ACTS:
            await console.handle(line)
        said(out)
        await console.handle("bob /log gm page:2")
        older = [re.sub(r"\d{4}-\d\d-\d\d \d\d:\d\d UTC", "<T>", line) for line in said(out)]
        await console.handle("bob /log gm")
        text = [re.sub(r"\d{4}-\d\d-\d\d \d\d:\d\d UTC", "<T>", line) for line in said(out)]
    finally:
        await store.close()
    assert "  alice government: none → Sol (National Government on the first system)." in older
    assert older[-3:] == [
        '<T> — gm: /godsfire set field:ng_money value:5 player:alice',
        '  alice NG money: 0 → 5 (set by GM gm).',
        'Page 2 of 2 · 18 GM acts · newest first',
    ]
    assert text == [
        '<T> — gm: /godsfire player add name:bob',
        '  🪐 bob joins the game (national allegiances R 5, M 5, E 5).',
        '<T> — gm: /godsfire system control system:Vega player:bob',
        "  Neutral units moved by: none → Vega: bob (bob controls neutral Vega's units).",
        '<T> — gm: /godsfire counter add kind:AG at:Sol owner:alice count:2',
        "  Counters on the table: 0 → 13 (the counters match the sheet's boxes).",
        '  Counters on the table: 13 → 15 (the GM put 2 AG at Sol).',
        '  Sol units: AG 2, PDF 1 → AG 4, PDF 1 (the counters on its cell).',
        '<T> — gm: /godsfire counter remove counters:"1 2"',
        '  Counters on the table: 15 → 13 (the GM took off #1, #2).',
        '  Sol units: AG 4, PDF 1 → AG 2, PDF 1 (the counters on its cell).',
        '<T> — gm: /godsfire victory set condition:most-systems turns:5',
        '  Victory: gm → most-systems; turns to play: 0 → 5 (victory: the most systems after turn 5).',
        '<T> — gm: /godsfire phase next',
        '  🎲 alice, turn 1 player order: d6 6 (GM die)',
        '  🎲 bob, turn 1 player order: d6 1 (GM die)',
        "  Order: none → alice, bob (turn 1's player order (A.1.1): alice, bob).",
        ("  Initiative: none → alice holds it, round 1, alice's go (alice holds initiative"
        ' (A.1.2): move at least one counter, or pass).'),
        '<T> — gm: /godsfire movement pass player:alice',
        ("  Initiative: alice holds it, round 1, alice's go → bob holds it, round 1, bob's go"
        ' (alice passes; initiative passes to bob (A.1.4)).'),
        '<T> — gm: /godsfire movement pass player:bob',
        ("  Initiative: bob holds it, round 1, bob's go → none (bob passes; every player has held initiative"
        ' (A.1.5): movement is over).'),
        '<T> — gm: /godsfire phase next',
        '  Phase: turn 1, Movement Phase → turn 1, Combat Phase.',
        '<T> — gm: /godsfire set field:owner value:bob system:Sol',
        '  Sol owner: alice → bob (set by GM gm).',
        '  Sol units: AG 2, PDF 1 → none; enemy units: 0 → 3 (the counters on its cell).',
        f'  alice out of the game: no → yes; government: Sol → none ({LOST}).',
        "  Counters on the table: 13 → 12 (alice's NG counter leaves the table).",
        f'  bob government: none → Sol ({SET_UP}).',
        'Page 1 of 2 · 18 GM acts · newest first',
    ]
