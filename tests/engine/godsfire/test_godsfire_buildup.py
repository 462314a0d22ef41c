"""Issue 32, A.2.5: "You may build up or break down units during Movement." Units of one type standing together
become one counter (at most the house's 3 units): one place in a stack, the strength of all its units, a loss
taking one of its units; broken down again into one counter a unit. Every die entered."""

from __future__ import annotations

from godsfirehelpers import Table

from engine.errors import BadInput, RuleViolation
from engine.godsfire import buildup, combat, movement, table


def built() -> Table:
    """alice: Sol with 3 AG in its cell (#1-#3) and 3 more at K1 (#6-#8); bob: Vega. #4, #5 the NGs."""
    t = Table()
    t.system("Sol", "alice", ["M 4 A-1"], units={"AG": 3})
    t.system("Vega", "bob", ["E 4 A-2"])
    t.do(table.AddCounters("AG", "K1", "alice", count=3))
    t.do(movement.StartInitiative(), dice=[6, 1])  # alice first
    return t


def test_units_built_up_take_one_place_in_a_stack_and_keep_their_units() -> None:
    t = built()
    t.refuse(buildup.BuildUp("1"), BadInput, "two or more counters", "alice")
    t.refuse(buildup.BuildUp("1 6"), RuleViolation, "stand together", "alice")
    t.refuse(buildup.BuildUp("1 2"), RuleViolation, "A.1: it is alice's go", "bob")
    t.do(buildup.BuildUp("1 2 3"), "alice")
    ag = t.state.counter(1)
    assert (ag.size, table.short(ag)) == (3, "AG #1 ×3")
    assert [c.number for c in t.state.counters if c.at == "Sol" and c.kind == "AG"] == [1]
    assert t.sys("Sol").units == {"AG": 3}  # the sheet's box counts units
    t.refuse(buildup.BuildUp("1 6"), RuleViolation, "stand together", "alice")
    # K1's three AGs built up too: then both counters fit in one space stack (3 counters at most) with a third
    t.do(buildup.BuildUp("6 7 8"), "alice")
    t.do(movement.Move("6", "Sol"), "alice")  # 6 units, 2 counters: within space stacking (3)
    assert t.sys("Sol").units == {"AG": 6}
    t.do(table.AddCounters("AG", "Sol", "alice"))  # #9: a fourth counter there only by the GM's hand
    t.refuse(buildup.BuildUp("1 9"), RuleViolation, "at most 3 units (house); these hold 4", "alice")
    t.assert_replays()


def test_a_built_up_counter_fights_with_all_its_units_and_loses_one_at_a_time() -> None:
    t = built()
    t.do(buildup.BuildUp("6 7 8"), "alice")
    t.do(table.AddCounters("SQD", "K2", "bob", count=3))  # #9-#11
    t.pass_movement()
    t.next_phase()
    t.game_set(wars=[["alice", "bob"]])
    t.do(combat.AnnounceAttack("6", "K2"), "alice")
    # AG #6 ×3 off a system (2 each) = 6 against bob's 3 SQD (2 each) = 6: 1-1, die 6: A1 — one unit of alice's
    out = t.do(combat.ResolveAttacks(), dice=[6])
    assert "6 against 6" in " ".join(getattr(e, "detail", "") for e in out.events)
    t.do(combat.ChooseLosses("6"), "bob")
    assert t.state.counter(6).size == 2


def test_losses_name_a_built_up_counter_once_a_unit() -> None:
    t = built()
    t.do(buildup.BuildUp("6 7"), "alice")  # AG #6 ×2, AG #8 at K1
    t.do(table.AddCounters("AG", "K2", "bob", count=3))  # #9-#11
    t.pass_movement()
    t.next_phase()
    t.game_set(wars=[["alice", "bob"]])
    t.do(combat.AnnounceAttack("9 10 11", "K1"), "bob")
    # 6 against alice's 6 (AG ×2 and AG, 2 each): 1-1, die 1: D1 — bob chooses 1 unit
    t.do(combat.ResolveAttacks(), dice=[1])
    t.refuse(combat.ChooseLosses("6 6"), BadInput, "choose exactly 1", "bob")
    t.do(combat.ChooseLosses("6"), "bob")
    assert (t.state.counter(6).size, t.state.counter(8).size) == (1, 1)


def test_a_built_up_counter_breaks_down_into_one_counter_a_unit_within_the_stacking() -> None:
    t = built()
    t.do(buildup.BuildUp("1 2 3"), "alice")
    t.do(table.AddCounters("SQD", "Sol", "alice"))  # #9: two counters in Sol's cell
    t.refuse(buildup.BreakDown(1), RuleViolation, "would make 4", "alice")
    t.refuse(buildup.BreakDown(9), RuleViolation, "one unit: nothing to break down", "alice")
    t.do(table.RemoveCounters("9"))
    t.do(buildup.BreakDown(1), "alice")
    ags = [c for c in t.state.counters if c.at == "Sol" and c.kind == "AG"]
    assert [(c.number, c.size) for c in ags] == [(1, 1), (10, 1), (11, 1)] and t.sys("Sol").units == {"AG": 3}
    t.assert_replays()


def test_a_transit_m1_takes_one_unit_of_a_built_up_counter() -> None:
    t = built()
    t.do(table.AddCounters("AG", "K5", "bob"))  # #9, stationary in K5
    t.do(buildup.BuildUp("6 7"), "alice")
    t.do(movement.Move("6", "K6", through="K5"), "alice")
    # column 0: die 2 → M1: AG #6 ×2 loses one unit and goes on to K6
    t.do(movement.TransitAnswer("attack"), "bob", dice=[2])
    assert (t.state.counter(6).size, t.state.counter(6).at) == (1, "K6")


def test_the_maps_picture_counts_units() -> None:
    from engine.godsfire import maps

    t = Table()
    t.do(maps.LoadMap("twin-reaches"))
    t.system("Aster", "alice", ["M 4 A-1"], planets=2, units={"AG": 3})
    t.do(movement.StartInitiative())
    t.do(buildup.BuildUp("1 2 3"), "alice")
    assert [(s.at, s.text) for s in maps.picture(t.state).stacks] == [("Aster", "3 AG, 1 NG")]
