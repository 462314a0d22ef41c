"""Issue 16: the turn's procedure refereed — the player order rolled (A.1.1), initiative rounds and passes
(A.1), moves of tracked counters (A.2) with their refusals, a transit attack and a block (A.2.3), war only
in phase C, money in transit landing a turn later (D.3), a National Government lost puts its player out,
the victory condition, and the response deadline's default on the clock. Every die is entered and every
figure worked out by hand below."""

from __future__ import annotations

from datetime import timedelta

import pytest
from godsfirehelpers import Table

from engine.clock import Tick
from engine.errors import RuleViolation
from engine.godsfire import economy, movement, phases, politics, setup, steps, subversion, table, war


def two_players() -> Table:
    """alice: Sol (SQD, SQD, AG in its cell); bob: Vega (SQD in its cell). Counters #1-#4 by box, #5-#6 NGs."""
    t = Table()
    t.system("Sol", "alice", ["M 4 A-1", "R 3 I-1"], units={"SQD": 2, "AG": 1})
    t.system("Vega", "bob", ["E 4 A-2"], units={"SQD": 1})
    return t


def test_the_order_is_rolled_highest_first_and_ties_roll_again() -> None:
    t = Table()
    for name in ("alice", "bob", "carol"):
        t.system(name.title(), name, ["M 4 A-1"], units={"AG": 1})
    # alice 3, bob 5, carol 3: bob first; alice and carol roll again: alice 2, carol 4
    out = t.do(movement.StartInitiative(), dice=[3, 5, 3, 2, 4])
    assert t.state.order == ["bob", "carol", "alice"]
    assert [r.nation for r in out.rolls] == ["alice", "bob", "carol", "alice", "carol"]
    assert t.state.initiative is not None and t.state.initiative.holder == "bob"
    t.refuse(movement.StartInitiative(), RuleViolation, "once a turn")


def test_initiative_rounds_four_with_two_players_then_the_next_holder() -> None:
    t = two_players()
    t.do(movement.StartInitiative(), dice=[2, 5])  # alice 2, bob 5: bob holds initiative
    assert t.state.order == ["bob", "alice"]
    assert [table.label(c) for c in t.state.counters] == [
        "SQD #1 (alice) at Sol", "SQD #2 (alice) at Sol", "AG #3 (alice) at Sol", "SQD #4 (bob) at Vega",
        "NG #5 (alice) at Sol", "NG #6 (bob) at Vega"]
    t.refuse(movement.Move("1", "K1"), RuleViolation, "A.1: it is bob's go", "alice")
    t.refuse(movement.EndGo(), RuleViolation, "A.1.2", "bob")  # the holder moves at least one counter
    t.do(movement.Move("4", "K9"), "bob")
    t.do(movement.EndGo(), "bob")
    assert t.state.initiative.awaiting == "alice"
    t.do(movement.Move("1", "K1"), "alice")
    t.refuse(movement.Move("1", "K2"), RuleViolation, "A.2.1", "alice")  # once a turn
    t.do(movement.EndGo(), "alice")
    assert (t.state.initiative.round, t.state.initiative.awaiting) == (2, "bob")
    # round 2: bob (the holder) passes: initiative goes to alice (A.1.4)
    t.do(movement.EndGo(True), "bob")
    assert (t.state.initiative.holder, t.state.initiative.awaiting, t.state.initiative.held) == ("alice", "alice",
                                                                                                ["bob"])
    # alice holds initiative: 4 rounds of alice moving and bob responding
    t.do(movement.Move("2", "K2"), "alice")
    t.do(movement.EndGo(), "alice")
    t.do(movement.EndGo(True), "bob")  # a responder's pass
    t.do(movement.Move("3", "K3"), "alice")
    t.do(movement.EndGo(), "alice")
    t.do(movement.EndGo(True), "bob")
    t.do(movement.Move("5", "K5"), "alice")  # the NG moves 3
    t.do(movement.EndGo(), "alice")
    t.do(movement.EndGo(True), "bob")
    assert t.state.initiative.round == 4
    t.refuse(movement.Move("1", "K4"), RuleViolation, "A.2.1", "alice")
    t.do(movement.EndGo(True), "alice")  # every player has held initiative: movement is over
    assert t.state.initiative is None
    t.refuse(movement.EndGo(True), RuleViolation, "movement is over", "alice")
    t.next_phase()
    assert t.state.phase == "combat"
    t.assert_replays()


def test_moves_refused_by_the_rules_letter() -> None:
    t = two_players()
    t.do(movement.StartInitiative(), dice=[6, 1])  # alice first
    t.refuse(movement.Move("1", "Vega"), RuleViolation, "A.2.2", "alice")  # bob's SQD #4 is there
    t.refuse(movement.Move("1", "Sol 1"), RuleViolation, "A.2.4", "alice")  # SQDs never on the ground
    t.refuse(movement.Move("4", "K1"), RuleViolation, "not alice's", "alice")
    t.refuse(movement.Move("3", "K1", through="K2, K3, K4, K5"), RuleViolation, "moves 4", "alice")
    t.do(movement.Move("3", "Sol 2"), "alice")  # space to ground in its own system: free
    assert t.state.counter(3).at == "Sol 2" and t.state.counter(3).ground
    assert t.sys("Sol").units == {"SQD": 2} and t.reg("Sol", 2).units == {"AG": 1}
    t.assert_replays()


def test_landing_needs_the_system_cell_and_only_ags_land_on_hostile_planets() -> None:
    t = two_players()
    t.do(table.AddCounters("PDF", "K1", "alice"))  # #7
    t.do(table.AddCounters("AG", "K1", "alice"))  # #8
    t.do(movement.StartInitiative(), dice=[6, 1])
    t.refuse(movement.Move("8", "Vega 1"), RuleViolation, "B.2.1", "alice")  # bob's SQD holds Vega's cell
    t.emit(lambda tx: table.set_counters(tx, [c for c in table.copy_counters(tx.state) if c.number != 4], "test"))
    t.refuse(movement.Move("8", "Vega 1"), RuleViolation, "NG #6 (bob) at Vega", "alice")  # bob's NG holds it too

    def ng_away(tx):
        counters = table.copy_counters(tx.state)
        next(c for c in counters if c.number == 6).at = "K20"
        table.set_counters(tx, counters, "test: bob's NG leaves Vega")
    t.emit(ng_away)
    t.refuse(movement.Move("7", "Vega 1"), RuleViolation, "B.2.2", "alice")
    t.do(movement.Move("8", "Vega 1"), "alice")
    assert t.reg("Vega", 1).enemy_units == 1


def test_a_transit_attack_and_a_block() -> None:
    t = two_players()
    t.do(table.AddCounters("AG", "K5", "bob"))  # #7, stationary in K5
    t.do(movement.StartInitiative(), dice=[6, 1])
    # alice moves SQD #1 and #2 through K5 to K6: bob's AG may attack them
    t.do(movement.Move("1 2", "K6", through="K5"), "alice")
    assert t.state.transit is not None and t.state.transit.stationary == "bob"
    t.refuse(movement.EndGo(), RuleViolation, "A.2.3", "alice")
    t.refuse(movement.TransitAnswer("attack"), RuleViolation, "bob's to answer", "alice")
    # column 0 (the house's): #1 die 1 -> ME, #2 die 4 -> ne
    out = t.do(movement.TransitAnswer("attack"), "bob", dice=[1, 4])
    assert [r.die for r in out.rolls] == [1, 4]
    assert [c.number for c in t.state.counters if c.owner == "alice"] == [2, 3, 5]
    assert t.state.counter(2).at == "K6" and t.state.transit is None
    t.do(movement.EndGo(), "alice")
    t.do(movement.EndGo(True), "bob")
    # round 2: AG #3 through K5 again; bob blocks and retreats to K4 (not Sol, where the AG came from)
    t.do(movement.Move("3", "K6", through="K5"), "alice")
    t.refuse(movement.TransitAnswer("block", retreat="Sol"), RuleViolation, "not to the cell the movers came from",
             "bob")
    t.do(movement.TransitAnswer("block", retreat="K4"), "bob")
    assert (t.state.counter(3).at, t.state.counter(7).at) == ("K5", "K4")
    t.assert_replays()


def test_the_gm_taking_off_every_mover_of_a_pending_transit_ends_it_and_the_move_counts() -> None:
    """Issue 18 (found by random play): the GM took off the only counter waiting in a transit, and the transit
    stayed, moving a counter no longer on the table (an export the import refuses). A counter off the table
    moves no more: the transit is over, as when a transit attack takes every mover, and the go has moved."""
    t = two_players()
    t.do(table.AddCounters("AG", "K5", "bob"))  # #7, stationary in K5
    t.do(movement.StartInitiative(), dice=[6, 1])  # alice holds initiative
    t.do(movement.Move("1", "K6", through="K5"), "alice")
    assert t.state.transit is not None and t.state.transit.counters == [1]
    t.do(table.RemoveCounters("1", "disbanded"), gm=True)
    assert 1 not in [c.number for c in t.state.counters]
    assert t.state.transit is None
    assert t.state.initiative is not None and t.state.initiative.moved
    t.refuse(movement.TransitAnswer("attack"), RuleViolation, "no move is passing", "bob")
    t.do(movement.EndGo(), "alice")  # done (she moved), not a pass
    assert t.state.initiative is not None and t.state.initiative.awaiting == "bob"
    t.assert_replays()


def test_the_gm_taking_off_one_mover_leaves_the_others_in_the_transit() -> None:
    t = two_players()
    t.do(table.AddCounters("AG", "K5", "bob"))  # #7
    t.do(movement.StartInitiative(), dice=[6, 1])
    t.do(movement.Move("1 2", "K6", through="K5"), "alice")
    t.do(table.RemoveCounters("1"), gm=True)
    assert t.state.transit is not None and t.state.transit.counters == [2]
    t.assert_replays()
    # column 0: SQD #2 die 4 -> ne, it goes on to K6
    out = t.do(movement.TransitAnswer("attack"), "bob", dice=[4])
    assert [r.die for r in out.rolls] == [4]
    assert t.state.transit is None and t.state.counter(2).at == "K6"
    t.assert_replays()


@pytest.mark.parametrize("then", ["a GM edit", "the answer"])
def test_a_box_lowered_by_hand_gives_up_a_mover_waiting_in_a_transit(then: str) -> None:
    """The other way a waiting mover leaves the table: the GM lowers the box of the system cell it waits in, and
    the next command that makes the counters match the boxes (a GM edit, or the stationary player's answer
    itself) gives the mover up (alice's SQD #7 passes through her own Sol, where bob's AG is)."""
    t = two_players()
    t.do(table.AddCounters("SQD", "K5", "alice"))  # #7
    t.do(table.AddCounters("AG", "Sol", "bob"))  # #8, stationary in Sol's cell
    t.do(movement.StartInitiative(), dice=[6, 1])
    t.do(movement.Move("7", "K6", through="Sol"), "alice")
    assert t.state.transit is not None and t.state.transit.cell == "Sol"
    assert t.sys("Sol").units == {"SQD": 3, "AG": 1}
    t.do(setup.SetField("units", "SQD=2 AG=1", "Sol"), gm=True)
    if then == "a GM edit":
        t.do(table.AddCounters("PDF", "Vega", "bob"), gm=True)
        t.refuse(movement.TransitAnswer("attack"), RuleViolation, "no move is passing", "bob")
    else:
        out = t.do(movement.TransitAnswer("attack"), "bob")  # nothing left to attack: no die
        assert out.rolls == []
    assert 7 not in [c.number for c in t.state.counters]
    assert t.state.transit is None and t.state.initiative is not None and t.state.initiative.moved
    t.assert_replays()


def test_a_go_not_taken_in_time_is_a_pass_and_is_reminded_at_half_time() -> None:
    t = two_players()
    t.do(movement.StartInitiative(), dice=[6, 1])  # alice holds initiative from NOW; 12 hours to answer
    t.now = t.now + timedelta(hours=6)
    out = t.do(Tick())
    assert any("reminder: it is alice's go" in e.reason for e in out.events if hasattr(e, "reason"))
    t.now = t.now + timedelta(hours=6)
    t.do(Tick())
    assert t.state.initiative.holder == "bob" and t.state.initiative.held == ["alice"]


def test_war_in_the_movement_phase_or_phase_c_never_in_combat_or_the_interphase() -> None:
    t = two_players()
    t.to_phase("combat")
    t.refuse(war.DeclareWar("bob"), RuleViolation, "never in Combat or the Social Interphase", "alice")
    t.to_phase("interphase")
    t.refuse(war.DeclareWar("bob"), RuleViolation, "never in Combat or the Social Interphase", "alice")
    t.to_phase("war", 2)
    t.do(war.DeclareWar("bob"), "alice")
    assert t.state.wars == [["alice", "bob"]]
    t.refuse(war.DeclareWar("alice"), RuleViolation, "already at war", "bob")


def test_war_declared_in_the_movement_phase_is_fought_that_turn() -> None:
    t = two_players()
    t.do(movement.StartInitiative(), dice=[6, 1])  # alice first; the rulings: war in the Movement Phase
    t.do(war.DeclareWar("bob"), "alice")
    assert t.state.wars == [["alice", "bob"]] and t.state.phase == "movement"


def test_money_in_transit_lands_a_turn_later() -> None:
    t = two_players()
    t.system("Rigel", "alice", ["M 4 A-1"])
    t.system_set("Sol", bank=9)
    t.to_phase("interphase")
    # 7 cells at speed 3 by itself: 3 turns; asking for 2 is refused
    t.refuse(war.SendMoney(5, "Sol", "Rigel", 7, turns=2), RuleViolation, "speed 3: 7 cells take 3 turns",
             "alice")
    t.do(war.SendMoney(5, "Sol", "Rigel", 3), "alice")  # 3 cells: 1 turn
    assert t.sys("Sol").bank == 4 and t.state.player("alice").in_transit == 5
    assert [(s.amount, s.to, s.arrives) for s in t.state.shipments] == [(5, "Rigel", 2)]
    t.to_phase("interphase", 2)
    # D.3.1: it lands in alice's transfer step, not before: her D.1 and D.2 cannot spend it
    assert t.sys("Rigel").bank == 0 and t.state.player("alice").in_transit == 5
    checklist = steps.interphase_checklist(t.state)["alice"]
    transfer = next(row for row in checklist if row.step == "transfer")
    assert (transfer.compulsory, transfer.note) == (True, "money lands: 5 GB in Rigel")
    t.refuse(economy.Buy("Rigel", 1, "AG", 1), RuleViolation, "D.3 transfers (money lands this turn) comes first: "
             "/godsfire interphase done step:transfer", "alice")
    t.do(politics.MarkDone("transfer"), "alice")
    assert t.sys("Rigel").bank == 5 and t.state.shipments == [] and t.state.player("alice").in_transit == 0


def test_money_in_transit_cannot_be_taken_out_on_the_way_and_lands_at_the_interphase_end() -> None:
    t = two_players()
    t.system("Rigel", "alice", ["M 4 A-1"])
    t.system_set("Sol", bank=9)
    t.to_phase("interphase")
    t.do(war.SendMoney(5, "Sol", "Rigel", 6), "alice")  # 6 cells at speed 3: 2 turns, lands in turn 3
    t.refuse(economy.Transfer("transit", "ng", 1), RuleViolation, "the Money in Transit box holds, besides the 5 "
             "GB still on its way, 0 GB", "alice")
    t.to_phase("interphase", 3)
    assert t.sys("Rigel").bank == 0
    t.do(politics.EndInterphase(), gm=True, dice=[6, 5])  # alice never took her D.3: it lands at the end
    assert t.sys("Rigel").bank == 5 and t.state.shipments == [] and t.state.turn == 4


def test_money_whose_carrier_was_destroyed_is_lost_and_the_log_says_so() -> None:
    """D.3.2: money carried by a ship goes down with it: it leaves the Money in Transit box, never lands, and
    the line that takes it out says where it went."""
    t = two_players()
    t.system("Rigel", "alice", ["M 4 A-1"])
    t.system_set("Sol", bank=9)
    t.do(movement.StartInitiative(), dice=[2, 5])  # the counters are on the table: alice's SQD #1 at Sol
    t.to_phase("interphase")
    t.do(war.SendMoney(5, "Sol", "Rigel", 3, ship=1), "alice")  # SQD #1 carries it: 1 turn
    assert [(s.amount, s.carrier, s.arrives) for s in t.state.shipments] == [(5, 1, 2)]
    t.do(table.RemoveCounters("1", "destroyed"), gm=True)
    t.to_phase("interphase", 2)
    out = t.do(politics.MarkDone("transfer"), "alice")
    assert t.sys("Rigel").bank == 0 and t.state.shipments == [] and t.state.player("alice").in_transit == 0
    reasons = [getattr(e, "reason", "") for e in out.events]
    assert "5 GB out of the Money in Transit box: lost with their carrier #1" in reasons


def test_a_national_government_lost_puts_its_player_out_and_a_conqueror_without_one_gets_it() -> None:
    t = two_players()
    t.do(setup.SetField("owner", "alice", "Vega"))
    assert t.state.player("bob").out and t.state.player("bob").government is None
    t.player("carol")
    t.system("Nix", None, ["R 2 S"])
    t.do(setup.ConquerSystem("Nix", "carol"), dice=[3, 1])  # allegiance 3, economy S
    assert t.state.player("carol").government == "Nix"


def test_victory_last_ng_and_no_winner_with_loans() -> None:
    t = two_players()
    t.do(war.SetVictory("last-ng"))
    t.do(setup.SetField("owner", "alice", "Vega"))  # bob is out
    t.system_set("Sol", loans=[{"amount": 4, "box": 0}])
    t.to_phase("interphase")
    t.next_phase(dice=[])  # turn 1 ends (one player left: no order to roll): alice's is the last NG, but she owes 4
    assert not t.state.ended
    t.refuse(war.DeclareWinner("alice"), RuleViolation, "loans outstanding")
    t.system_set("Sol", loans=[])
    t.to_phase("interphase", 2)
    t.next_phase(dice=[])  # the game ends: no order rolled for turn 3
    assert t.state.ended and t.state.winner == "alice"


@pytest.mark.parametrize("condition", ["most-systems"])
def test_victory_most_systems_after_the_last_turn(condition: str) -> None:
    t = two_players()
    t.system("Rigel", "alice", ["M 4 A-1"])
    t.do(war.SetVictory(condition, 1))
    t.to_phase("interphase")
    t.next_phase(dice=[])
    assert t.state.ended and t.state.winner == "alice"
    assert phases.phase_line(t.state).startswith("Turn 1")


def test_stacking_is_checked_at_the_end_of_movement_for_players_not_a_neutral() -> None:
    """The sheet: overstacking is allowed at the start and after builds, but must comply before the Movement Phase
    is over (space 3). A neutral's starting 9 units in its cell never move, so they are not held to it."""
    t = Table()
    t.system("Sol", "alice", ["M 4 A-1"], units={"SQD": 4})
    t.system("Rigel", None, ["R 2 S"], units={"SQD": 3, "AG": 3, "PDF": 3})
    t.do(movement.StartInitiative())  # one player: no order die
    t.do(movement.EndGo(True), "alice")  # alice passes: every player has held initiative
    t.refuse(phases.NextPhase(), RuleViolation, "alice has 4 units at Sol (space stacking: 3 at most)", gm=True)
    t.do(table.RemoveCounters("1", "disbanded"), gm=True)
    t.do(phases.NextPhase(), gm=True)
    assert t.state.phase == "combat"
    assert sum(1 for c in t.state.counters if c.owner is None) == 9


def test_money_carried_as_a_counter_moves_next_turn_and_subverts_at_war() -> None:
    """D.3 then C and D.11.1: alice, at war with bob, takes 2 GB out of Sol's bank as a counter (her transfer
    step), moves it at speed 3 in turn 2's Movement Phase to K3 (next to Vega, her word), and places the
    subversion from it in turn 2's interphase."""
    t = two_players()
    t.system_set("Sol", bank=9)
    t.to_phase("war")
    t.do(war.DeclareWar("bob"), "alice")
    t.to_phase("interphase")
    t.do(war.CarryMoney(2, "Sol"), "alice")
    gb = t.state.counters[-1]
    assert (gb.kind, gb.owner, gb.at, gb.amount, gb.number) == ("GB", "alice", "Sol", 2, 7)
    assert t.sys("Sol").bank == 7
    assert t.state.done["alice"] == ["tax", "loans", "borrow"]  # D.3 taken: the steps before it are closed
    t.refuse(war.CarryMoney(10, "Sol"), RuleViolation, "Sol's bank holds 7 GB, not 10", "alice")
    t.to_phase("movement", 2)  # turn 2: alice holds initiative (the helper enters alice 6, bob 5)
    t.do(movement.Move("7", "K3", "K1 K2"), "alice")
    t.to_phase("interphase", 2)
    t.do(politics.ResolveSubversion(), "alice")
    t.do(politics.CheckAllegiance(), "alice")
    t.do(politics.CheckEconomy(), "alice")
    t.do(politics.ResolveSubversion(), "bob")  # bob's D.8 first: subversion placed now acts next turn
    t.do(subversion.Subvert("Vega", 1, 1, carried=7), "alice")  # 2 a placement, the whole counter
    assert 7 not in [c.number for c in t.state.counters]
    assert t.sys("Vega").regions[0].subversion == {"alice": 1}


def test_a_neutral_answers_a_transit_through_its_controller_never_the_mover() -> None:
    t = two_players()
    t.system("Rigel", None, ["R 2 S"], units={"SQD": 1})  # a neutral's SQD in Rigel's cell
    t.do(table.SetNeutralControl("Rigel", "alice"), gm=True)
    t.do(movement.StartInitiative(), dice=[6, 1])  # alice holds initiative
    # alice controls Rigel's units: her own move through Rigel asks nobody
    t.do(movement.Move("1", "K6", through="Rigel"), "alice")
    assert t.state.transit is None and t.state.counter(1).at == "K6"
    t.do(table.SetNeutralControl("Rigel", "bob"), gm=True)
    t.do(movement.Move("2", "K6", through="Rigel"), "alice")  # now bob answers for Rigel's units
    assert t.state.transit is not None and t.state.transit.stationary == "bob"
