"""Issue 33: every count a GM or a player sets in Godsfire is bounded, and the counters are rebuilt from the boxes
in work linear in the counters. The attack was 12 × `/godsfire set field:units value:"AG=999 SQD=999 PDF=999"`
then `/godsfire phase next`: a quadratic rebuild of 36,000 counters in the store's one database thread.

The work is measured by the Python lines run (`sys.settrace`), never by the clock: a rebuild twice the size must
run about twice the lines, not four times.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any

import pytest
from godsfirehelpers import Table

from engine.core import Tx
from engine.errors import BadInput, RuleViolation
from engine.godsfire import combat, phases, setup, table, war
from engine.godsfire.state import (
    MAX_ATTACKS,
    MAX_BOX_UNITS,
    MAX_COUNTERS,
    MAX_PLAYERS,
    MAX_REGIONS,
    MAX_SHIPMENTS,
    MAX_SYSTEMS,
    Attack,
    Shipment,
)

REGIONS = [f"M 4 I-{1 + n % 2}" for n in range(MAX_REGIONS)]


def big_table(regions: int = MAX_REGIONS) -> Table:
    """alice's Sol of `regions` regions and bob's Vega; the counters made from the boxes."""
    t = Table()
    t.system("Sol", "alice", REGIONS[:regions])
    t.system("Vega", "bob", ["R 3 A-1"])
    t.emit(table.reconcile)
    return t


def lines_run(function: Callable[[], Any]) -> int:
    """How many Python lines `function` runs (a measure of its work that does not depend on the machine)."""
    count = 0

    def trace(frame: Any, event: str, arg: Any) -> Any:
        nonlocal count
        if event == "line":
            count += 1
        return trace

    previous = sys.gettrace()
    sys.settrace(trace)
    try:
        function()
    finally:
        sys.settrace(previous)
    return count


# --- the attack, and the largest that is allowed now ---------------------------------------------------------


@pytest.mark.parametrize("region", [None, *range(1, MAX_REGIONS)])
def test_the_old_worst_case_is_refused_box_by_box(region):
    t = big_table()
    t.refuse(setup.SetField("units", "AG=999 SQD=999 PDF=999", "Sol", region), BadInput,
             f"units AG is 0 to {MAX_BOX_UNITS}, not 999")
    t.refuse(setup.SetField("units", "SQD=999", "Sol", region), BadInput,
             "SQDs never go on the ground" if region else f"units SQD is 0 to {MAX_BOX_UNITS}, not 999")


def test_a_box_over_its_bound_is_refused_and_changes_nothing():
    t = big_table()
    t.refuse(setup.SetField("units", f"PDF={MAX_BOX_UNITS + 1}", "Sol", 2), BadInput,
             f"units PDF is 0 to {MAX_BOX_UNITS}, not {MAX_BOX_UNITS + 1}")
    t.do(setup.SetField("units", f"PDF={MAX_BOX_UNITS}", "Sol", 2))
    assert t.reg("Sol", 2).units == {"PDF": MAX_BOX_UNITS}


def test_boxes_past_the_tables_room_are_refused_with_the_count_and_change_nothing():
    """The most each box holds, box after box (the old attack at the new bounds), until the table is full: the
    set that would overflow it is refused, naming the bound and the count."""
    t = big_table()
    for number in range(1, MAX_REGIONS + 1):
        action = setup.SetField("units", f"AG={MAX_BOX_UNITS} PDF={MAX_BOX_UNITS}", "Sol", number)
        made = table.reconciled(t.state)[2] + 2 * MAX_BOX_UNITS
        if made > MAX_COUNTERS:
            error = t.refuse(action, RuleViolation, f"Sol region {number}'s units: the table holds at most "
                             f"{MAX_COUNTERS:,} counters, and the sheet's boxes and the counters would make {made:,}")
            assert "\n" not in str(error)
            break
        t.do(action)
    else:
        raise AssertionError("the table never filled")


def test_the_fullest_table_is_rebuilt_on_phase_next_with_bounded_work():
    """Boxes up to the table's room, then `/godsfire phase next` (the turn's order rolled, the counters made from
    the boxes): every unit becomes a counter, no more than MAX_COUNTERS, in work linear in them."""

    def filled(units: int) -> Table:
        t = big_table()
        left = units
        for number in range(1, MAX_REGIONS + 1):
            ag = min(left, MAX_BOX_UNITS)
            left -= ag
            if ag:
                t.do(setup.SetField("units", f"AG={ag}", "Sol", number))
        return t

    room = MAX_COUNTERS - len(big_table().state.counters)
    work = {}
    for units in (room // 2, room):
        t = filled(units)
        before = len(t.state.counters)
        work[units] = lines_run(lambda t=t: t.do(phases.NextPhase(), dice=[6, 5]))
        assert len(t.state.counters) == before + units <= MAX_COUNTERS
        assert t.state.initiative is not None
        t.assert_replays()
    ratio = work[room] / work[room // 2]
    assert ratio < 2.3, (work, ratio)  # linear: twice the counters, about twice the work (quadratic was ~4)


def test_the_rebuild_is_linear_in_the_counters():
    """`table.reconciled` alone, on one box of N then 2N units: the lines run grow as N (was N²)."""
    work = {}
    for units in (MAX_BOX_UNITS // 3, 2 * (MAX_BOX_UNITS // 3)):
        t = big_table()
        t.region("Sol", 1, units={"AG": units, "PDF": units})
        t.region("Sol", 2, units={"AG": units, "PDF": units})
        work[units] = lines_run(lambda t=t: table.reconciled(t.state))
    small, large = sorted(work)
    assert work[large] / work[small] < 2.3, work


# --- the other counts ----------------------------------------------------------------------------------------


def test_counters_put_on_a_full_table_are_refused():
    t = big_table()
    t.region("Sol", 1, units={"AG": MAX_BOX_UNITS, "PDF": MAX_BOX_UNITS})
    t.region("Sol", 2, units={"AG": MAX_BOX_UNITS, "PDF": MAX_BOX_UNITS})
    t.region("Sol", 3, units={"AG": MAX_BOX_UNITS, "PDF": MAX_BOX_UNITS})
    room = MAX_COUNTERS - table.reconciled(t.state)[2]
    t.region("Sol", 4, units={"AG": room})
    t.emit(table.reconcile)
    assert len(t.state.counters) == MAX_COUNTERS
    t.refuse(table.AddCounters("SQD", "K1", "alice", 1), RuleViolation,
             f"the table holds at most {MAX_COUNTERS:,} counters, and this would make {MAX_COUNTERS + 1:,}")


def test_a_game_has_at_most_so_many_players_and_systems():
    t = Table()
    for i in range(MAX_SYSTEMS):
        t.system(f"S{i}", f"p{i % MAX_PLAYERS}", ["R 3 A-1"])
    t.refuse(setup.AddSystem("Extra", "p0"), RuleViolation, f"a game has at most {MAX_SYSTEMS} systems")
    t.refuse(setup.AddPlayer("newcomer"), RuleViolation, f"a game has at most {MAX_PLAYERS} players")


def test_a_combat_phase_has_at_most_so_many_attacks():
    t = big_table()
    t.emit(lambda tx: _attacks(tx, MAX_ATTACKS))
    t.game_set(wars=[["alice", "bob"]])
    t.refuse(combat.AnnounceAttack("1", "Vega"), RuleViolation,
             f"a Combat Phase has at most {MAX_ATTACKS} attacks; {MAX_ATTACKS} are announced", "alice")


def _attacks(tx: Tx, count: int) -> None:
    from engine.godsfire.events import GodsfirePhaseChanged, change_game

    tx.emit(GodsfirePhaseChanged(1, "combat"))
    change_game(tx, "set by the test", attacks=[Attack(n, ["alice"], [n], "Vega", False, "bob")
                                                for n in range(1, count + 1)], next_attack=count + 1)


def test_the_money_in_transit_box_holds_at_most_so_many_sums():
    t = big_table()
    t.to_phase("interphase")
    t.player_set("alice", ng_money=5)
    t.game_set(shipments=[Shipment("bob", 1, "the NG", "Vega", 5)] * MAX_SHIPMENTS)
    t.player_set("bob", in_transit=MAX_SHIPMENTS)
    t.refuse(war.SendMoney(1, "ng", "Sol", 3), RuleViolation,
             f"the Money in Transit box holds at most {MAX_SHIPMENTS} sums at once", "alice")


def test_a_subversion_step_is_on_the_track_and_only_for_money():
    t = big_table()
    t.refuse(setup.SetField("subversion_step", "bob=3", "Sol", 1), BadInput, "subversion_step of bob is 0 to 2")
    t.refuse(setup.SetField("subversion_step", "bob=1", "Sol", 1), RuleViolation,
             "bob has no subversion money in Sol region 1")
    t.do(setup.SetField("subversion", "bob=2", "Sol", 1))
    t.do(setup.SetField("subversion_step", "bob=1", "Sol", 1))
    t.do(setup.SetField("subversion", "none", "Sol", 1))  # the money gone, its step goes with it
    assert t.reg("Sol", 1).subversion == {} and t.reg("Sol", 1).subversion_step == {}
    t.assert_replays()


def test_a_players_national_government_and_money_counters_are_theirs():
    t = big_table()
    t.refuse(table.AddCounters("NG", "K1", "neutral"), BadInput, "a NG counter is a player's")
    t.refuse(table.AddCounters("GB", "K1", None, 1, 3), BadInput, "a GB counter is a player's")
    t.refuse(table.AddCounters("NG", "K1", "alice"), RuleViolation, "a player has one NG counter (alice has NG #")


@pytest.mark.parametrize("phase", ["movement", "combat", "interphase"])
def test_the_largest_legal_game_imports_back(phase):
    """The game at every bound at once (`bench/godsfire_worst.py` times its commands) is one the import takes:
    the bounds of play and of the import agree."""
    from bench.godsfire_worst import NOW, largest_state
    from engine.godsfire import schema
    from engine.godsfire.snapshot import check_state, state_from_dict, state_to_dict

    state = largest_state(phase)
    assert len(state.counters) == MAX_COUNTERS and len(state.players) == MAX_PLAYERS
    clean = schema.validate_export({**state_to_dict(state), "rolls": []}, NOW)
    clean.pop("rolls")
    rebuilt = state_from_dict(clean)
    assert state_to_dict(rebuilt) == state_to_dict(state)
    assert check_state(rebuilt, Table().rules) == []
