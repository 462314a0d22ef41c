"""Issue 16's findings on the Social Interphase, each with its figures worked out by hand from the sheet,
the rulings (RULINGS.md section 3) and `data/godsfire.toml`:

- 2: a loan repayment not made by the end of the tax step (D.1) is a default of the whole amount due
  (a box: ceil(amount x 1.25 / 4); a default: every regional allegiance not in revolt and every national one
  -1, more than 4 GB deducts that many economic levels, highest first; no borrowing this turn, loans barred);
- 3: ending the interphase applies every compulsory step not taken (the repayment, D.7.4, D.8, D.9, D.10);
- 4: each player's steps run D.1 to D.14 in the sheet's order: a step is closed once a later one is taken,
  and a compulsory step (a due repayment, D.8, D.9, D.10) comes before any later one; subversion placed at
  D.11 first acts at the next turn's D.8;
- 8: de-subversion money is removed after placement (D.12.2), with the subversion it cancels;
- 9: allegiance runs 0-5 for every party (the starting table's "4; 5 if (M)" limits only the starting roll);
- regional jealousy (D.9.2) warned before a spend; the Social Interphase checklist.
"""

from __future__ import annotations

from typing import Any

import pytest
from godsfirehelpers import Table

from data import rules_for
from engine.core import Outcome
from engine.errors import RuleViolation
from engine.godsfire import economy
from engine.godsfire.economy import Buy, ChangeMinisters, Develop, Loyalty, Tax, Transfer
from engine.godsfire.events import StepDone
from engine.godsfire.loans import Borrow, Repay
from engine.godsfire.politics import (
    CheckAllegiance,
    CheckEconomy,
    EndInterphase,
    MarkDone,
    ResolveSubversion,
)
from engine.godsfire.setup import SetField
from engine.godsfire.state import STEPS
from engine.godsfire.steps import interphase_checklist
from engine.godsfire.subversion import Desubvert, Subvert
from engine.godsfire.views import interphase_view
from engine.view import text_lines
from engine.vocabulary import build_action, coerce_options


def interphase(*players: str) -> Table:
    """A game in turn 1's Social Interphase, the interphase's order as given."""
    table = Table()
    for name in players:
        table.player(name)
    return table


def start(table: Table, *order: str) -> Table:
    table.to_phase("interphase")
    table.game_set(order=list(order))
    return table


def rows(table: Table, system: str) -> list[tuple[int, bool, str]]:
    """A system's regions as (allegiance, in revolt, economy)."""
    return [(r.allegiance, r.revolt, r.economy) for r in table.sys(system).regions]


def end(table: Table, how: str = "end") -> Outcome:
    """The interphase ends: the GM's /godsfire interphase end ("end") or the GM stepping the phase on
    ("next"). Where the next turn's player order (A.1.1) is rolled then, it takes the dice 6, 5, … in joining
    order: entered by the GM before /godsfire interphase end (left waiting if no order is rolled), given by
    the Table's phase step."""
    if how == "next":
        return table.next_phase()
    active = [p for p in table.state.players if not p.out]
    if len(active) > 1:
        table.enter(list(range(6, 6 - len(active), -1)))
    return table.do(EndInterphase())


def checks(table: Table, player: str) -> None:
    """The player runs D.8, D.9 and D.10."""
    for check in (ResolveSubversion(), CheckAllegiance(), CheckEconomy()):
        table.do(check, player)


# --- finding 2: a repayment not made is a default of the whole amount due --------------------------


def test_marking_the_loan_repayment_done_unpaid_defaults_the_whole_amount_due() -> None:
    table = interphase("alice")
    table.system("Sol", "alice", ["M 4 A-2", "R 3 A-1"], bank=10, loans=[(8, 0)])
    start(table, "alice")
    table.do(MarkDone("tax"), "alice")  # the tax step's first part: no default yet
    assert table.sys("Sol").loans[0].box == 0 and not table.state.player("alice").failed_repayment
    table.do(MarkDone("loans"), "alice")
    # The box: ceil(8 x 1.25 / 4) = 3 GB, not paid although the bank holds 10: a default of 3 (not more than
    # 4: no economic level lost). The marker moves up as in any repayment.
    sol = table.sys("Sol")
    assert (sol.bank, [(x.amount, x.box) for x in sol.loans], sol.repaid_turn) == (10, [(8, 1)], 1)
    assert rows(table, "Sol") == [(3, False, "A-2"), (2, False, "A-1")]
    alice = table.state.player("alice")
    assert alice.national_allegiance == {"R": 4, "M": 4, "E": 4}
    assert (alice.failed_repayment, alice.loans_barred) == (True, True)
    table.refuse(Borrow("Sol", 2), RuleViolation, "you may not borrow money if you failed a loan repayment",
                 "alice")
    table.refuse(Repay("Sol"), RuleViolation, "D.1 is closed for alice", "alice")
    table.assert_replays()


@pytest.mark.parametrize("how", ["end", "next"])
def test_ending_the_interphase_defaults_an_unmade_repayment_of_the_whole_amount(how: str) -> None:
    table = interphase("alice")
    table.system("Sol", "alice", ["M 4 I-2", "M 3 A-2"], bank=5, loans=[(20, 1)])
    start(table, "alice")
    end(table, how)
    # Due: ceil(20 x 1.25 / 4) = 7 GB. Not made: a default of all 7 (the 5 in the bank are not paid), more
    # than 4: 7 economic levels, highest first, but the regions have only 4 + 2 = 6: both fall to S.
    # Allegiances 4 -> 3 and 3 -> 2; national 5 -> 4. The marker moves up to box 2.
    sol = table.sys("Sol")
    assert (sol.bank, [(x.amount, x.box) for x in sol.loans]) == (5, [(20, 2)])
    assert rows(table, "Sol") == [(3, False, "S"), (2, False, "S")]
    alice = table.state.player("alice")
    assert alice.national_allegiance == {"R": 4, "M": 4, "E": 4} and alice.loans_barred
    assert (table.state.turn, table.state.phase) == (2, "movement")
    table.assert_replays()


def test_a_repayment_made_is_not_defaulted_at_the_end() -> None:
    table = interphase("alice")
    table.system("Sol", "alice", ["M 4 A-2"], bank=5, loans=[(20, 1)])
    start(table, "alice")
    table.do(Repay("Sol"), "alice")  # 7 due, 5 paid: a default of 2 (the bank pays what it can)
    end(table)
    assert table.sys("Sol").bank == 0 and table.sys("Sol").loans[0].box == 2
    assert rows(table, "Sol") == [(3, False, "A-2")]  # one default, not two
    assert table.state.player("alice").national_allegiance == {"R": 4, "M": 4, "E": 4}


# --- finding 3: the compulsory steps are applied when the interphase ends --------------------------


def subverted() -> Table:
    table = interphase("alice", "bob")
    table.system("Sol", "alice", [
        {"party": "M", "allegiance": 4, "economy": "I-2"},  # no A-2 in Sol to feed it
        {"party": "R", "allegiance": 3, "economy": "A-1", "subversion": {"bob": 2}, "subversion_step": {"bob": 0}},
        {"party": "E", "allegiance": 3, "economy": "A-1"},
    ])
    table.system("Vega", "bob", ["R 3 A-1"])
    start(table, "alice", "bob")
    table.region("Sol", 1, spent=2)  # spent on Sol 1 this interphase (the GM's hand edit)
    return table


@pytest.mark.parametrize("how", ["end", "next"])
def test_ending_the_interphase_runs_the_compulsory_steps_not_taken(how: str) -> None:
    table = subverted()
    outcome = end(table, how)
    # D.8: bob's 2 in Sol 2, undefended: 3 -> 2, the money one circle down.
    # D.9: spent 2/0/0: Sol 2 and 3 shorted 2: 2 -> revolt (0), 3 -> 1.
    # D.10: Sol 1 is I-2 with no A-2: I-1; Sol 2 is in revolt: A-1 -> S.
    assert rows(table, "Sol") == [(4, False, "I-1"), (0, True, "S"), (1, False, "A-1")]
    sol2 = table.reg("Sol", 2)
    assert (sol2.subversion, sol2.subversion_step) == ({"bob": 2}, {"bob": 1})
    steps = [(e.player, e.step) for e in outcome.events if isinstance(e, StepDone)]
    assert steps == [(p, s) for p in ("alice", "bob") for s in ("subversion", "allegiance", "economy")]
    assert (table.state.turn, table.state.phase) == (2, "movement")
    table.assert_replays()


def test_the_end_does_not_repeat_a_step_taken() -> None:
    table = subverted()
    table.do(ResolveSubversion(), "alice")
    assert table.reg("Sol", 2).allegiance == 2
    end(table)
    # D.8 once (3 -> 2); then D.9 (shorted 2: revolt) and D.10 as above
    assert rows(table, "Sol") == [(4, False, "I-1"), (0, True, "S"), (1, False, "A-1")]
    assert table.reg("Sol", 2).subversion_step == {"bob": 1}  # moved down once


# --- finding 4: the sheet's order ------------------------------------------------------------------


def test_a_compulsory_earlier_step_comes_first() -> None:
    table = interphase("alice", "bob")
    table.player_set("bob", ng_money=5)
    table.system("Sol", "alice", ["R 3 A-1"], bank=5)
    table.system("Vega", "bob", ["R 3 A-1"])
    start(table, "alice", "bob")
    table.refuse(Subvert("Sol", 1, 1), RuleViolation,
                 "D.8 subversion resolve comes first: /godsfire subversion resolve", "bob")
    table.refuse(CheckAllegiance(), RuleViolation, "D.8 subversion resolve comes first", "bob")
    table.do(ResolveSubversion(), "bob")
    table.refuse(MarkDone("units"), RuleViolation, "D.9 allegiance check comes first: /godsfire interphase allegiance",
                 "bob")
    table.refuse(CheckEconomy(), RuleViolation, "D.9 allegiance check comes first", "bob")
    table.do(CheckAllegiance(), "bob")
    table.refuse(Subvert("Sol", 1, 1), RuleViolation, "D.10 economy check comes first: /godsfire interphase economy",
                 "bob")
    # the GM acting for a player is held to that player's order (and told whom to name)
    table.refuse(CheckAllegiance("alice"), RuleViolation,
                 "D.8 subversion resolve comes first: /godsfire subversion resolve player:alice")
    table.assert_replays()


def test_a_due_loan_repayment_comes_first() -> None:
    table = interphase("alice")
    table.system("Sol", "alice", ["M 3 I-1"], bank=5, loans=[(4, 0)])
    start(table, "alice")
    table.refuse(Buy("Sol", 1, "AG", 1), RuleViolation,
                 "D.1 loan repayment comes first: /godsfire money repay system:Sol", "alice")
    table.refuse(Borrow("Sol", 2), RuleViolation, "D.1 loan repayment comes first", "alice")
    table.do(Tax("Sol"), "alice")  # the same step: 1 planet + I-1 1 = 2, bank 7
    table.do(Repay("Sol"), "alice")  # ceil(5 / 4) = 2: bank 5
    table.do(Buy("Sol", 1, "AG", 1), "alice")
    assert table.sys("Sol").bank == 4 and table.reg("Sol", 1).to_place == {"AG": 1}


def test_a_step_is_closed_once_a_later_one_is_taken() -> None:
    table = interphase("alice", "bob")
    table.player_set("alice", ng_money=5)
    table.player_set("bob", ng_money=5)
    table.system("Sol", "alice", ["M 3 I-1", "M 3 A-1"], bank=10)
    table.system("Vega", "bob", ["R 3 A-1"])
    start(table, "alice", "bob")
    table.do(Buy("Sol", 1, "AG", 1, confirm=True), "alice")  # D.4: D.1-D.3 closed
    assert table.state.done["alice"] == ["tax", "loans", "borrow", "transfer"]
    table.refuse(Tax("Sol"), RuleViolation, "D.1 is closed for alice: a later step (D.3) was taken", "alice")
    table.refuse(Transfer("Sol", "transit", 1), RuleViolation, "D.3 is closed for alice", "alice")
    table.do(Loyalty("Sol", 2), "alice")  # D.5 (Sol 2 spends 1: nobody shorted more)
    table.refuse(Buy("Sol", 1, "AG", 1), RuleViolation, "D.4 is closed for alice", "alice")
    checks(table, "alice")
    checks(table, "bob")
    table.do(Subvert("Vega", 1, 1), "alice")  # D.11 (A-1: 1 GB from the NG)
    table.refuse(Loyalty("Sol", 1), RuleViolation, "D.5 is closed for alice: a later step (D.10) was taken",
                 "alice")
    table.refuse(MarkDone("party"), RuleViolation, "D.6 is closed for alice: a later step (D.10) was taken",
                 "alice")
    table.refuse(ResolveSubversion(), RuleViolation, "D.8 subversion is already done for alice", "alice")
    table.do(MarkDone("desubvert"), "alice")
    table.refuse(Subvert("Vega", 1, 1), RuleViolation, "D.11 is closed for alice: a later step (D.12) was taken",
                 "alice")
    # bob's steps are his own: alice's D.12 closes none of them
    table.do(Subvert("Sol", 1, 1), "bob")  # I-1: 1 GB from bob's NG
    assert (table.state.player("alice").ng_money, table.state.player("bob").ng_money) == (4, 4)
    assert table.reg("Vega", 1).subversion == {"alice": 1} and table.reg("Sol", 1).subversion == {"bob": 1}
    table.assert_replays()


def test_the_gm_acting_for_a_player_counts_for_that_player() -> None:
    table = interphase("alice")
    table.system("Sol", "alice", ["M 3 I-1"], bank=10)
    start(table, "alice")
    table.do(Buy("Sol", 1, "AG", 1))  # the GM buys for alice: her D.1-D.3 are closed
    assert table.state.done["alice"] == ["tax", "loans", "borrow", "transfer"]
    table.refuse(Transfer("Sol", "transit", 1), RuleViolation, "D.3 is closed for alice", "alice")
    table.refuse(Transfer("Sol", "transit", 1), RuleViolation, "D.3 is closed for alice")  # the GM too
    table.do(MarkDone("revolts", "alice"))  # the GM marks D.7 done for alice: D.4-D.6 closed
    table.refuse(Buy("Sol", 1, "AG", 1), RuleViolation, "D.4 is closed for alice: a later step (D.7) was taken",
                 "alice")


def test_gm_hand_edits_are_not_interphase_steps() -> None:
    table = interphase("alice")
    table.system("Sol", "alice", ["M 3 I-1"], bank=10)
    start(table, "alice")
    checks(table, "alice")
    table.do(MarkDone("units"), "alice")
    table.do(SetField("bank", "4", "Sol"))  # /godsfire set: no step, nothing closed or refused
    table.do(ChangeMinisters(), "alice")  # "Change Ministers!" is not an interphase step either
    assert table.sys("Sol").bank == 4 and table.reg("Sol", 1).allegiance == 4


def test_subversion_placed_at_d11_first_acts_at_the_next_turns_d8() -> None:
    table = interphase("alice", "bob")
    table.player_set("bob", ng_money=5)
    table.system("Sol", "alice", ["R 3 A-1"])
    table.system("Vega", "bob", ["R 3 A-1"])
    start(table, "alice", "bob")
    checks(table, "bob")
    # alice's D.8 of this turn has not run: money placed now would act at once
    table.refuse(Subvert("Sol", 1, 1), RuleViolation,
                 "subversion placed at D.11 first acts at the next turn's D.8: alice has not resolved", "bob")
    table.do(ResolveSubversion(), "alice")
    # D.11 places subversion in the turn's order (alice, bob): alice reaches D.11 first
    table.refuse(Subvert("Sol", 1, 1), RuleViolation, "alice reaches D.11 first", "bob")
    table.do(CheckAllegiance(), "alice")
    table.do(CheckEconomy(), "alice")
    table.do(Subvert("Sol", 1, 1), "bob")  # 1 GB from bob's NG, 5 -> 4
    table.refuse(ResolveSubversion(), RuleViolation, "already done for alice", "alice")
    end(table)  # alice's D.9 and D.10 applied; her D.8 is not run again
    assert (table.reg("Sol", 1).allegiance, table.reg("Sol", 1).subversion) == (3, {"bob": 1})
    assert table.state.player("bob").ng_money == 4
    table.to_phase("interphase", 2)
    table.do(ResolveSubversion(), "alice")  # turn 2's D.8: undefended, 3 -> 2, one circle down
    sol1 = table.reg("Sol", 1)
    assert (sol1.allegiance, sol1.subversion, sol1.subversion_step) == (2, {"bob": 1}, {"bob": 1})
    table.assert_replays()


# --- finding 8: de-subversion money removed after placement ----------------------------------------


def test_desubversion_money_is_removed_with_the_subversion_it_cancels() -> None:
    table = interphase("alice", "bob", "carol")
    table.system("Sol", "alice", [{"party": "R", "allegiance": 4, "economy": "A-1",
                                   "subversion": {"bob": 2, "carol": 1}, "subversion_step": {"bob": 0, "carol": 1}}],
                 bank=10)
    start(table, "alice", "bob", "carol")
    checks(table, "alice")  # D.8: undefended, 4 -> 3; bob's to circle 1, carol's to circle 2
    table.do(Desubvert("Sol", 1, 2), "alice")  # 2 a GB, 4 GB; bob's stack (the largest) loses 2
    sol1 = table.reg("Sol", 1)
    assert table.sys("Sol").bank == 6
    assert (sol1.subversion, sol1.subversion_step, sol1.desubversion) == ({"carol": 1}, {"carol": 2}, 0)
    table.assert_replays()


# --- finding 9: allegiance runs 0-5 for every party ------------------------------------------------


def test_loyalty_raises_every_party_up_to_five() -> None:
    table = interphase("alice")
    table.system("Sol", "alice", ["R 4 A-1", "E 4 A-1", "M 5 A-1"], bank=10)
    start(table, "alice")
    table.do(Loyalty("Sol", 1, confirm=True), "alice")  # R 4 -> 5
    table.do(Loyalty("Sol", 2), "alice")  # E 4 -> 5 (the most spent stays 1: no jealousy warning)
    table.refuse(Loyalty("Sol", 3), RuleViolation, "allegiance 5 is the highest level (5)", "alice")
    assert [r.allegiance for r in table.sys("Sol").regions] == [5, 5, 5]
    assert table.sys("Sol").bank == 8


def test_change_ministers_raises_any_region_not_in_revolt_up_to_five() -> None:
    table = interphase("alice")
    table.system("Sol", "alice", ["R 4 A-1", "E 4 A-1", "M 5 A-1", "R 0 A-1 revolt", "E 2 S"])
    table.do(ChangeMinisters(), "alice")
    assert [(r.allegiance, r.revolt) for r in table.sys("Sol").regions] == [
        (5, False), (5, False), (5, False), (0, True), (3, False)]


def test_the_rules_keep_no_highest_level_by_party() -> None:
    rules = rules_for("godsfire")
    assert rules.allegiance_highest == 5 and not hasattr(rules, "highest_by_party")


# --- regional jealousy warned before a spend -------------------------------------------------------


def test_a_spend_that_makes_regional_jealousy_lower_other_regions_waits_for_confirm() -> None:
    table = interphase("alice")
    table.system("Sol", "alice", ["M 3 A-1", "M 4 A-1", "R 5 A-1"], bank=10)
    start(table, "alice")
    for number in (2, 3):
        table.region("Sol", number, spent=4)  # 4 spent on each this interphase (the GM's hand edit)
    table.refuse(Loyalty("Sol", 1, amount=8), RuleViolation,
                 "regional jealousy (D.9): spending 8 in Sol 1 will lower Sol 2 by 4: allegiance 4 → 0, in revolt; "
                 "Sol 3 by 4: allegiance 5 → 1 — add confirm:true to spend", "alice")
    table.do(Loyalty("Sol", 1, amount=8, confirm=True), "alice")  # 3 -> 4, bank 2
    table.do(Loyalty("Sol", 2), "alice")  # Sol 2 spends 5 of Sol 1's 8: no warning; 4 -> 5, bank 1
    table.do(ResolveSubversion(), "alice")
    table.do(CheckAllegiance(), "alice")  # spent 8/5/4: Sol 2 shorted 3 (5 -> 2), Sol 3 shorted 4 (5 -> 1)
    assert rows(table, "Sol") == [(4, False, "A-1"), (2, False, "A-1"), (1, False, "A-1")]
    assert table.sys("Sol").bank == 1


def test_buying_and_developing_warn_too_but_not_for_regions_in_revolt() -> None:
    table = interphase("alice")
    table.system("Altair", "alice", ["M 3 A-1", "M 2 I-1", "E 0 S revolt"], bank=20)
    table.system("Deneb", "alice", ["M 3 A-1"], bank=20)
    start(table, "alice")
    table.refuse(Develop("Altair", 1), RuleViolation,  # A-1 -> A-2 costs 3
                 "spending 3 in Altair 1 will lower Altair 2 by 3: allegiance 2 → 0, in revolt — add confirm:true",
                 "alice")
    table.refuse(Buy("Altair", 2, "AG", 1), RuleViolation,
                 "spending 1 in Altair 2 will lower Altair 1 by 1: allegiance 3 → 2 — add confirm:true", "alice")
    table.do(Buy("Altair", 2, "AG", 1, confirm=True), "alice")
    table.do(Develop("Deneb", 1), "alice")  # a system of one region: nobody to be jealous
    assert (table.sys("Altair").bank, table.sys("Deneb").bank, table.reg("Deneb", 1).economy) == (19, 17, "A-2")


@pytest.mark.parametrize(("path", "options", "expected"), [
    ("godsfire region buy", {"system": "Sol", "region": "1", "type": "AG", "count": "2", "confirm": "true"},
     Buy("Sol", 1, "AG", 2, True)),
    ("godsfire region loyalty", {"system": "Sol", "region": "1", "amount": "3", "confirm": "true"},
     Loyalty("Sol", 1, 3, True)),
    ("godsfire region develop", {"system": "Sol", "region": "1", "confirm": "false"}, Develop("Sol", 1, False)),
    ("godsfire region develop", {"system": "Sol", "region": "1"}, Develop("Sol", 1)),
])
def test_the_spending_commands_take_confirm(path: str, options: dict[str, str], expected: Any) -> None:
    command = next(c for c in economy.COMMANDS if c.path == path)
    assert build_action(command, coerce_options(command, options)) == expected


# --- the checklist ---------------------------------------------------------------------------------


def test_the_interphase_checklist() -> None:
    table = interphase("alice", "bob")
    table.system("Sol", "alice", ["M 3 I-1"], bank=5, loans=[(4, 0)])
    table.system("Vega", "bob", ["R 3 A-1"])
    start(table, "bob", "alice")
    table.do(Tax("Sol"), "alice")  # tax paid on every one of alice's systems: done
    shown = text_lines(interphase_view(table.state))
    assert shown[0].startswith("Social Interphase, turn 1: each player's steps in the sheet's order")
    bob, alice = shown[1:17], shown[17:]
    assert bob[:3] == ["bob: next D.1 tax and loan repayment (tax)",
                       "  D.1 tax and loan repayment (tax): next",
                       "  D.1 loan repayment (loans): done — nothing due"]
    assert alice[:4] == ["alice: next D.1 loan repayment (loans)",
                         "  D.1 tax and loan repayment (tax): done",
                         "  D.1 loan repayment (loans): next — compulsory, due on Sol",
                         "  D.2 borrowing (borrow): left"]
    assert alice[9:12] == ["  D.8 subversion (subversion): left — compulsory",
                           "  D.9 allegiance drops (allegiance): left — compulsory",
                           "  D.10 economy drops (economy): left — compulsory"]
    assert alice[12:] == ["  D.11 subversion placing (subvert): left", "  D.12 de-subversion (desubvert): left",
                          "  D.13 counter-subversion (counter): left", "  D.14 new units (units): left"]
    table.do(Repay("Sol"), "alice")
    table.do(ResolveSubversion(), "alice")
    states = {row.step: (row.state, row.compulsory) for row in interphase_checklist(table.state)["alice"]}
    assert states["loans"] == ("done", True)
    assert [step for step, (state, _) in states.items() if state == "done"] == list(STEPS[:9])
    assert states["allegiance"] == ("next", True) and states["units"] == ("left", False)
    table.to_phase("movement", 2)
    assert text_lines(interphase_view(table.state)) == [
        "Not in the Social Interphase: turn 2 is in the Movement Phase."]
