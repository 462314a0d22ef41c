"""Issue 11: wherever a player names a nation (or, in Godsfire, a system or a player), an unambiguous start of the
name works as Discord's autocomplete would find it, or a preset slot for a claimed nation; an ambiguous start is
refused, naming the matches, and changes nothing."""

from __future__ import annotations

import pytest
from godsfirehelpers import Table
from storehelpers import console_on, said

from engine.errors import BadInput
from engine.names import named_item


def test_a_whole_name_wins_over_a_longer_name_it_starts():
    names = ["Sol", "Sol Prime", "Vega"]
    assert named_item("sol", names, str, "system") == "Sol"  # whole name first
    assert named_item(" sol  PR", names, str, "system") == "Sol Prime"
    assert named_item("v", names, str, "system") == "Vega"
    assert named_item("x", names, str, "system") is None
    assert named_item("", names, str, "system") is None
    with pytest.raises(BadInput, match="'s' matches more than one system: Sol, Sol Prime; give more"):
        named_item("s", names, str, "system")


async def test_nations_are_named_by_a_start_of_their_name_or_their_preset_slot(tmp_path):
    console, store, out = await console_on(tmp_path / "p.db")
    try:
        for line in ("gm /game start", "alice /nation claim preset:grac", "bob /nation claim preset:char",
                     ("carol /nation create name:Chardonnay economy:10 military:10 strength:armour "
                      "weakness:bomber units:\"armour:2 bomber:1\"")):
            await console.handle(line)
        assert said(out)[-1].startswith("Chardonnay: ")  # carol's nation, created
        await console.handle("alice /nation show nation:charo")
        assert said(out)[0] == "Charon — played by bob"
        await console.handle("alice /nation show nation:7")  # Charon's preset slot
        assert said(out)[0] == "Charon — played by bob"
        await console.handle("gm /gm set nation:grac stat:stability value:11")
        assert said(out) == ["Gracchan Republic: STABILITY +1 (set by GM gm)."]
        await console.handle("alice /attack declare target:char units:1")
        assert said(out) == ["error: 'char' matches more than one nation: Charon, Chardonnay; give more of the name"]
        await console.handle('gm /gm dice values:"5"')
        await console.handle("alice /propaganda attack target:chard")
        assert said(out)[1].startswith("🎲 Gracchan Republic, propaganda attack on Chardonnay: d10 5 (GM die)")
        await console.handle("alice /log rolls nation:GRAC limit:1")
        assert said(out)[0].startswith("turn 1: 🎲 Gracchan Republic, propaganda attack on Chardonnay:")
    finally:
        await store.close()


def test_godsfire_systems_and_players_by_a_start_of_their_name():
    table = Table()
    table.system("Altair", "alice", ["M 4 A-1"])
    table.system("Alnitak", "bob", ["R 3 I-1"])
    table.system("Vega", "bob", ["R 3 I-1"])
    assert table.state.system("veg").name == "Vega"
    with pytest.raises(BadInput, match="'al' matches more than one system: Altair, Alnitak"):
        table.state.system("al")
    assert table.state.system("altA").name == "Altair"
    assert table.state.player("ali").name == "alice"
