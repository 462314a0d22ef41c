"""Issue 32: Godsfire on its board — each finding refereed cell by cell on the shipped map "The Twin Reaches"
(a hex grid, columns A-I, rows 1-6; Aster on B3, Brand on H4, Dusk on E4; nebulae E2 E3 D4 E5 F4). Every die is
entered; the paths are worked out by hand from the grid (odd columns half a hex lower)."""

from __future__ import annotations

import pytest
from godsfirehelpers import Table

from engine.errors import BadInput, RuleViolation
from engine.godsfire import combat, maps, movement, table, war
from engine.godsfire.snapshot import state_from_dict, state_to_dict


def board_game() -> Table:
    """alice: Aster (B3), 2 SQD and 1 AG in its cell; bob: Brand (H4), 1 AG on the ground of Brand 1. The
    counters: #1-#2 SQD, #3 AG (alice), #4 AG (bob, ground), #5-#6 the NGs."""
    t = Table()
    t.do(maps.LoadMap("twin-reaches"))
    t.system("Aster", "alice", ["M 4 A-1", "R 3 I-1"], planets=2, units={"SQD": 2, "AG": 1})
    t.system("Brand", "bob", ["E 4 A-2"], planets=2)
    t.region("Brand", 1, units={"AG": 1})
    return t


def test_a_map_is_loaded_by_the_gm_and_refused_when_the_game_does_not_fit() -> None:
    t = Table()
    t.system("Sol", "alice", ["M 4 A-1"])
    t.refuse(maps.LoadMap("twin-reaches"), RuleViolation, "the game's system Sol is not a system of the map")
    t.refuse(maps.LoadMap("no-such-map"), BadInput, "no shipped map called 'no-such-map'")
    t.refuse(maps.LoadMap(file={"grid": {"columns": 99, "rows": 2}}), BadInput,
             "that map cannot be used: [grid] columns must be a whole number from 1 to 26")
    assert t.state.board is None


def test_the_map_travels_with_the_export() -> None:
    t = board_game()
    again = state_from_dict(state_to_dict(t.state))
    assert again.board == t.state.board and again.board is not None and again.board.title == "The Twin Reaches"
    t.assert_replays()


def test_systems_on_a_map_are_the_maps_and_positions_are_its_cells() -> None:
    t = board_game()
    t.refuse(setup_add("Sol"), RuleViolation, "Sol is not a system of the map")
    assert table.place_of(t.state, "b3").at == "Aster"  # the grid's name finds the system's cell
    with pytest.raises(BadInput, match="there is no cell 'K12' on the map"):
        table.place_of(t.state, "K12")


def setup_add(name: str):
    from engine.godsfire.setup import AddSystem
    return AddSystem(name, "carol")


def test_a_move_is_a_path_of_touching_cells_with_its_nebula_cost() -> None:
    t = board_game()
    t.do(movement.StartInitiative(), dice=[6, 1])  # alice first
    # Aster (B3) to E3: C3, D3, E3 — 3 cells, E3 a nebula: 3 + 2 = 5, more than a SQD's 4
    t.refuse(movement.Move("1", "E3"), RuleViolation, "3 cells, 1 in a nebula (3 + 2 × 1 = 5) is more than its 4",
             "alice")
    t.refuse(movement.Move("1", "E3", cells=1), BadInput, "the map counts the cells", "alice")
    # Aster to Dusk (E4): C3, D3, Dusk — 3 cells, no nebula
    out = t.do(movement.Move("1 2", "Dusk"), "alice")
    assert any("to Dusk by the path Aster → C3 → D3 → Dusk" in getattr(e, "reason", "") for e in out.events)
    assert {t.state.counter(n).at for n in (1, 2)} == {"Dusk"}
    assert t.state.counter(1).came_from == "Aster"


def test_lists_of_cells_read_one_way() -> None:
    t = board_game()
    assert movement.read_cells(t.state, "C4 D4") == ["C4", "D4"]
    assert movement.read_cells(t.state, "C4, D4") == ["C4", "D4"]
    free = Table()
    free.system("Alpha Centauri", "alice", ["M 4 A-1"])
    assert movement.read_cells(free.state, "Alpha Centauri, K2 K3") == ["Alpha Centauri", "K2", "K3"]


def test_the_bot_offers_a_transit_to_every_stationary_enemy_the_path_passes_and_a_block_retreats_one_cell() -> None:
    t = board_game()
    t.do(table.AddCounters("AG", "D3", "bob"))  # #7, stationary in D3
    t.do(movement.StartInitiative(), dice=[6, 1])
    t.do(movement.Move("1", "Dusk"), "alice")  # the cheapest path passes D3: the bot stops it there
    transit = t.state.transit
    assert transit is not None and (transit.cell, transit.stationary, transit.came_from) == ("D3", "bob", "C3")
    t.refuse(movement.TransitAnswer("block", "C3"), RuleViolation, "not to the cell the movers came from (C3)", "bob")
    t.refuse(movement.TransitAnswer("block", "G5"), RuleViolation, "G5 does not touch D3", "bob")
    t.do(movement.TransitAnswer("block", "D2"), "bob")
    assert t.state.counter(7).at == "D2" and t.state.counter(1).at == "D3" and t.state.transit is None


def test_a_move_may_not_overstack_and_the_movement_phase_can_end() -> None:
    t = board_game()
    t.do(table.AddCounters("SQD", "C3", "alice", count=2))  # #7, #8
    t.do(movement.StartInitiative(), dice=[6, 1])
    t.refuse(movement.Move("1 2", "C3"), RuleViolation, "3 units at most in a space cell; alice has 2 at C3", "alice")
    t.do(movement.Move("1", "C3"), "alice")
    t.do(movement.EndGo(), "alice")
    t.pass_movement()
    assert movement.movement_left(t.state, t.rules) == []


def test_combat_is_between_touching_cells_and_a_system_cells_ground_defends_it() -> None:
    t = board_game()
    t.do(table.AddCounters("AG", "C3", "alice", count=2))  # #7, #8
    t.do(table.AddCounters("AG", "G4", "alice", count=3))  # #9-#11, next to Brand (H4)
    t.to_phase("combat")
    t.game_set(wars=[["alice", "bob"]])
    t.refuse(combat.AnnounceAttack("7 8", "Dusk"), RuleViolation, "C3 does not touch Dusk", "alice")
    t.refuse(combat.AnnounceAttack("9", "Brand", nebula=True), BadInput, "the map says", "alice")
    # Brand's cell holds only bob's NG; bob's AG on Brand 1 defends it (B.1.5)
    t.do(combat.AnnounceAttack("9 10 11", "Brand"), "alice")
    # 3 AGs at 4 (on a system cell) = 12 against bob's AG 4: odds 3-1; die 1: DE
    t.do(combat.ResolveAttacks(), dice=[1])
    assert [c.number for c in t.state.counters if c.owner == "bob"] == []
    bob = t.state.player("bob")
    assert bob.out and bob.government is None  # the NG left without a defender is destroyed: bob is out


def test_landing_needs_the_system_cell_held() -> None:
    t = board_game()
    t.do(table.AddCounters("AG", "G4", "alice"))  # #7
    t.do(table.RemoveCounters("4"))  # Brand 1 empty: only bob's NG is at Brand
    t.do(movement.StartInitiative(), dice=[6, 1])
    t.refuse(movement.Move("7", "Brand 1"), RuleViolation, "B.2.1: landing on Brand needs its system cell held; "
             "NG #6 (bob) at Brand is there", "alice")


def test_conquest_by_force_takes_a_players_system_and_duplicates_nothing() -> None:
    t = board_game()
    t.do(table.AddCounters("AG", "G4", "alice", count=3))  # #7-#9
    t.to_phase("combat")
    t.game_set(wars=[["alice", "bob"]])
    t.do(combat.AnnounceAttack("7 8 9", "Brand"), "alice")
    t.do(combat.ResolveAttacks(), dice=[1])  # DE: bob's AG and NG gone; bob is out
    t.to_phase("movement", 2)
    t.do(movement.Move("7 8", "Brand"), "alice")  # one cell
    t.do(movement.EndGo(), "alice")
    t.pass_movement()
    t.next_phase()  # Combat
    assert t.state.system("Brand").owner == "bob"  # the cell held, but region 1 is empty of alice's units
    t.to_phase("movement", 3)
    t.do(movement.Move("7", "Brand 1"), "alice")  # the cell held: landing
    t.do(movement.EndGo(), "alice")
    t.pass_movement()
    # the end of the Combat Phase: alice holds the cell and every region: Brand is hers, rolled as a conquered
    # neutral (allegiance 1d6 = 4: 4; economy 1d6 = 6: A-2; every party R)
    t.next_phase()
    outcome = t.next_phase(dice=[4, 6])
    brand = t.state.system("Brand")
    assert brand.owner == "alice" and [(r.party, r.allegiance, r.economy) for r in brand.regions] == [("R", 4, "A-2")]
    assert brand.units == {"AG": 1} and brand.enemy_units == 0 and brand.region(1).units == {"AG": 1}
    assert sorted(c.number for c in t.state.counters if c.at.startswith("Brand")) == [7, 8]
    assert any("taken by force" in getattr(e, "reason", "") for e in outcome.events)
    t.assert_replays()


def test_money_between_systems_takes_the_maps_distance() -> None:
    t = board_game()
    t.system("Dusk", "alice", ["M 4 A-1"])
    t.system_set("Aster", bank=9)
    t.to_phase("interphase")
    t.refuse(war.SendMoney(3, "Aster", "Dusk", 1), BadInput, "leave cells: out", "alice")
    # Aster to Dusk: C3, D3, Dusk — 3 cells at speed 3: one turn
    t.do(war.SendMoney(3, "Aster", "Dusk", None), "alice")
    assert [(s.to, s.arrives) for s in t.state.shipments] == [("Dusk", 2)]


def test_retreats_on_the_map_go_one_touching_cell() -> None:
    t = board_game()
    t.do(table.AddCounters("AG", "D3", "alice"))  # #7
    t.do(table.AddCounters("AG", "C3", "bob"))  # #8
    t.to_phase("combat")
    t.game_set(wars=[["alice", "bob"]])
    t.do(combat.AnnounceAttack("7", "C3"), "alice")
    t.do(combat.ResolveAttacks(), dice=[5])  # 2 against 2 (AGs off a system): 1-1, die 5: Ar
    t.refuse(combat.Retreat("G5"), RuleViolation, "G5 does not touch D3", "alice")
    t.do(combat.Retreat("D2"), "alice")
    assert t.state.counter(7).at == "D2"


def test_an_import_is_checked_against_its_map() -> None:
    from engine.godsfire.snapshot import check_state

    t = board_game()
    t.do(table.AddCounters("SQD", "C3", "alice"))
    data = state_to_dict(t.state)
    data["game"]["counters"][-1]["at"] = "Z99"
    data["systems"][0]["name"] = "Sol"
    problems = check_state(state_from_dict(data), t.rules)
    assert "systems[0].name: Sol is not a system of the game's map 'The Twin Reaches'" in problems
    assert any("'Z99', which names no region of that system and no cell of the map" in p for p in problems)


def test_the_status_names_the_map() -> None:
    from engine.godsfire.views import status_view

    words = str(status_view(board_game().state))
    assert "Map: The Twin Reaches, 52 cells (/godsfire map show draws the table)." in words
