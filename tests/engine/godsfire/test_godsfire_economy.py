"""The Social Interphase's money steps (D.1-D.5, D.14) and "Change Ministers!", with figures worked out by
hand from `data/godsfire.toml`: tax 1 a planet, I-2 2, I-1 and A-2 1; a loan box is
ceil(amount × 1.25 / 4); purchases cost 1 (I-1 up to 4, I-2 up to 6); loyalty costs 1; economy raises
S 2, A-1 3, A-2 4, I-1 6. Every refusal changes nothing, and every state equals the replay of its events.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest
from godsfirehelpers import Table

import engine.godsfire  # noqa: F401  (registers the rule set and its handlers)
from data import rules_for
from engine.core import Context
from engine.errors import BadInput, NotYourNation, RefereeError, RuleViolation
from engine.events import replay
from engine.gm import SetHouse
from engine.godsfire import economy, loans
from engine.godsfire.economy import Buy, ChangeMinisters, Develop, Loyalty, Place, Tax, Transfer
from engine.godsfire.events import SystemAdded
from engine.godsfire.loans import Borrow, Repay, box_payment
from engine.godsfire.politics import CheckAllegiance, CheckEconomy, ResolveSubversion
from engine.godsfire.snapshot import state_from_dict, state_to_dict
from engine.godsfire.state import STEPS, Loan
from engine.vocabulary import build_action, coerce_options

RULES = rules_for("godsfire")
Economy = (Tax, Repay, Borrow, Transfer, Buy, Loyalty, Develop, Place, ChangeMinisters)


def region(number: int, party: str, allegiance: int, economy: str, **more: Any) -> dict[str, Any]:
    return {"number": number, "party": party, "allegiance": allegiance, "economy": economy, **more}


def system(name: str, owner: str | None, regions: list[dict[str, Any]], **more: Any) -> dict[str, Any]:
    return {"name": name, "owner": owner, "regions": regions, **more}


class Game(Table):
    """A Godsfire game (players alice, NG on Sol, and bob, NG on Vega) on the shared `Table`, with these
    systems, stepped to `phase` by the GM; every action checked against the replay of the log."""

    def __init__(self, *systems: dict[str, Any], phase: str = "interphase") -> None:
        super().__init__()
        self.player("alice")
        self.player("bob")
        for raw in systems:
            self.emit(lambda tx, raw=raw: tx.emit(SystemAdded(raw)))
        for name, capital in (("alice", "Sol"), ("bob", "Vega")):
            if self.state.find_system(capital) is not None:
                self.player_set(name, government=capital)
        self.to_phase(phase)

    def set_region(self, name: str, number: int, **changes: Any) -> None:
        """A GM's hand edit (as `/godsfire set` would log it)."""
        self.region(name, number, **changes)

    def next_interphase(self) -> None:
        """The next turn's Social Interphase (its per-turn marks cleared)."""
        self.to_phase("interphase", self.state.turn + 1)

    def ctx(self, who: str) -> Context:
        return self.context(who)

    def do(self, action: Any, who: str | None = None, **more: Any) -> Any:  # type: ignore[override]
        """Run `action` as `who` (economy actions: alice by default; others: the GM)."""
        if who is None and isinstance(action, Economy):
            who = "alice"
        old = self.state
        before = copy.deepcopy(old)
        outcome = super().do(action, who, **more)
        assert old == before, "execute mutated its input state"
        if isinstance(action, Economy):
            assert not outcome.rolls, "an economy step rolls no die"
            self.assert_replays()
        return outcome

    def refuse(self, action: Any, error: type[RefereeError] = RefereeError,  # type: ignore[override]
               match: str | None = None, who: str = "alice", **more: Any) -> RefereeError:
        before = copy.deepcopy(self.state)
        refused = super().refuse(action, error, match, who, **more)
        assert self.state == before
        return refused

    def assert_replays(self) -> None:
        super().assert_replays()
        assert replay(copy.deepcopy(self.events)) == self.state  # every field, not only the export's

    def player_of(self, name: str) -> Any:
        return self.state.player(name)


def sol() -> dict[str, Any]:
    """alice's capital: 2 planets, five regions."""
    return system("Sol", "alice", [
        region(1, "M", 3, "I-2"),
        region(2, "R", 4, "I-1"),
        region(3, "E", 1, "A-2"),
        region(4, "R", 0, "A-2", revolt=True),
        region(5, "M", 3, "I-1", enemy_units=1),
    ], planets=2)


def altair() -> dict[str, Any]:
    return system("Altair", "alice", [region(1, "M", 2, "A-1"), region(2, "E", 3, "I-1")], bank=20)


# --- D.1 tax ---------------------------------------------------------------------------------------


def test_tax_counts_planets_and_economies_and_skips_revolts_and_enemies() -> None:
    game = Game(sol())
    assert economy.revenue(RULES, game.sys("Sol"))[0] == 6  # 2 planets + I-2 2 + I-1 1 + A-2 1
    game.do(Tax("Sol"))
    assert game.sys("Sol").bank == 6
    assert game.sys("Sol").taxed_turn == 1
    game.refuse(Tax("Sol"), RuleViolation, "already paid its tax this turn")
    # Ending turn 1's interphase applies alice's compulsory steps: D.9, region 3 (E 1) next to region 4 in
    # revolt falls into revolt, region 5 3 -> 2; D.10, regions 3 and 4 in revolt A-2 -> A-1, region 5
    # occupied I-1 -> A-2 (region 1's I-2 is fed by region 3's A-2 as it stood when the check started).
    game.next_interphase()
    game.do(Tax("sol"), "gm")  # the GM may act for anyone; names are matched loosely
    assert game.sys("Sol").bank == 11  # 6 + 2 planets + I-2 2 + I-1 1 (regions 3, 4 in revolt, 5 occupied)


def test_extortion_adds_one_per_region_and_lowers_allegiance_into_revolt() -> None:
    game = Game(sol())
    game.do(Tax("Sol", extort="2, 3"))
    assert game.sys("Sol").bank == 8  # 6 + 1 + 1
    assert (game.reg("Sol", 2).allegiance, game.reg("Sol", 2).revolt) == (3, False)
    assert (game.reg("Sol", 3).allegiance, game.reg("Sol", 3).revolt) == (0, True)  # 1 - 1 < lowest (1)


@pytest.mark.parametrize(("extort", "error", "words"), [
    ("4", RuleViolation, "region 4 of Sol is in revolt"),
    ("5", RuleViolation, "holds enemy units"),
    ("1 1", BadInput, "listed twice"),
    ("9", RefereeError, "has no region 9"),
    ("one", BadInput, "regions are numbers"),
])
def test_extortion_refusals(extort: str, error: type[RefereeError], words: str) -> None:
    Game(sol()).refuse(Tax("Sol", extort=extort), error, words)


def test_tax_refused_to_others_and_in_neutral_and_whole_revolt_systems() -> None:
    game = Game(sol(), system("Deneb", None, [region(1, "R", 3, "A-2")]),
                system("Rebel", "alice", [region(1, "R", 0, "I-2", revolt=True)], planets=3))
    game.refuse(Tax("Sol"), NotYourNation, "only its owner or the GM", "bob")
    game.refuse(Tax("Deneb"), RuleViolation, "Deneb is neutral", "gm")
    game.do(Tax("Rebel"))  # ruling: a system whose every region is in revolt is not taxable
    assert game.sys("Rebel").bank == 0


# --- D.1 loans: repayment and default --------------------------------------------------------------


def test_loan_boxes_follow_the_house_track() -> None:
    assert [box_payment(RULES, Loan(n)) for n in (1, 4, 10, 16, 20)] == [1, 2, 4, 5, 7]  # ceil(n*1.25/4)


def test_repayment_pays_each_marked_box_and_removes_paid_loans() -> None:
    game = Game(sol())
    game.system_set("Sol", bank=8, loans=[{"amount": 10, "box": 0}, {"amount": 4, "box": 3}])
    game.do(Repay("Sol"))
    assert game.sys("Sol").bank == 2  # 4 + 2 due
    assert game.sys("Sol").loans == [Loan(10, 1)]  # the 4 GB loan's last box paid: removed
    assert not game.player_of("alice").failed_repayment
    game.refuse(Repay("Sol"), RuleViolation, "repayments of this turn are done")
    game.next_interphase()
    game.system_set("Sol", bank=20)
    for _ in range(3):
        game.do(Repay("Sol"))
        game.next_interphase()
    assert game.sys("Sol").bank == 8 and game.sys("Sol").loans == []
    game.refuse(Repay("Sol"), RuleViolation, "no loans to repay")


def bob_systems() -> list[dict[str, Any]]:
    return [
        system("Vega", "bob", [region(1, "M", 3, "I-2"), region(2, "R", 1, "A-2"), region(3, "E", 4, "S")],
               bank=1, loans=[{"amount": 20, "box": 0}]),
        system("Rigel", "bob", [region(1, "M", 5, "I-1")]),
    ]


def test_default_of_more_than_four_deducts_the_highest_levels_first() -> None:
    game = Game(sol(), *bob_systems())
    game.do(Repay("Vega"), "bob")  # 7 due (ceil(25/4)), 1 paid: 6 short
    vega, rigel = game.sys("Vega"), game.sys("Rigel")
    assert vega.bank == 0 and vega.loans == [Loan(20, 1)]
    # every allegiance falls by 1 (Vega 2 from 1 into revolt); the national ones too
    assert [(r.allegiance, r.revolt) for r in vega.regions] == [(2, False), (0, True), (3, False)]
    assert rigel.regions[0].allegiance == 4
    assert game.player_of("bob").national_allegiance == {"R": 4, "M": 4, "E": 4}
    # 6 levels, highest first (ties: Vega before Rigel): V1 I-2→I-1, V1→A-2, R1 I-1→A-2, V1→A-1, V2→A-1, R1→A-1
    assert [r.economy for r in vega.regions] == ["A-1", "A-1", "S"]
    assert rigel.regions[0].economy == "A-1"
    assert game.player_of("bob").failed_repayment and game.player_of("bob").loans_barred
    assert game.sys("Sol").regions[0].allegiance == 3  # alice's regions untouched


def test_default_levels_chosen_with_lower() -> None:
    game = Game(sol(), *bob_systems())
    game.refuse(Repay("Vega", lower="Vega 1, Vega 1"), BadInput, "list 6 regions", "bob")
    game.refuse(Repay("Vega", lower="Vega 3, Vega 1, Vega 1, Vega 1, Vega 2, Rigel 1"), RuleViolation,
                "no economic level left", "bob")
    game.refuse(Repay("Vega", lower="Sol 1, Vega 1, Vega 1, Vega 1, Vega 2, Rigel 1"), RuleViolation,
                "not one", "bob")
    game.refuse(Repay("Vega", lower="Vega one"), BadInput, "each entry is", "bob")
    game.do(Repay("Vega", lower="Rigel 1, Rigel 1; Rigel 1, Vega 1, Vega 1, Vega 2"), "bob")
    assert [r.economy for r in game.sys("Vega").regions] == ["A-2", "A-1", "S"]
    assert game.sys("Rigel").regions[0].economy == "S"


def test_small_default_costs_allegiance_but_no_levels() -> None:
    game = Game(system("Vega", "bob", [region(1, "M", 3, "I-2")], bank=4, loans=[{"amount": 20, "box": 2}]))
    game.refuse(Repay("Vega", lower="Vega 1"), BadInput, "3 GB short", "bob")
    game.do(Repay("Vega"), "bob")  # 7 due, 4 paid: 3 short
    assert game.reg("Vega", 1).allegiance == 2 and game.reg("Vega", 1).economy == "I-2"
    assert game.sys("Vega").loans == [Loan(20, 3)]
    assert game.player_of("bob").failed_repayment and game.player_of("bob").loans_barred


# --- D.2 borrowing -------------------------------------------------------------------------------


def test_borrowing_puts_money_on_the_system_and_a_loan_on_the_bottom_box() -> None:
    game = Game(sol())
    game.do(Borrow("Sol", 10))
    assert game.sys("Sol").bank == 10 and game.sys("Sol").loans == [Loan(10, 0)]
    game.refuse(Repay("Sol"), RuleViolation, "D.1 is closed for alice")  # D.2 taken; the first box is due next turn
    game.refuse(Borrow("Sol", 21), RuleViolation, "at most 20 GB")
    game.refuse(Borrow("Sol", 0), BadInput, "at least 1")
    game.next_interphase()
    game.refuse(Borrow("Sol", 5), RuleViolation, "D.1 loan repayment comes first: /godsfire money repay system:Sol")
    game.do(Repay("Sol"))
    game.do(Borrow("Sol", 5))
    assert game.sys("Sol").bank == 11 and game.sys("Sol").loans == [Loan(10, 1), Loan(5, 0)]


def test_no_borrowing_after_a_failed_repayment_then_until_allegiances_are_three() -> None:
    game = Game(*bob_systems())
    game.do(Repay("Vega"), "bob")
    game.refuse(Borrow("Rigel", 5), RuleViolation, "you may not borrow money if you failed a loan repayment "
                "this turn", "bob")
    # the end of turn 1 (bob's D.9): Vega 1 and 3 next to Vega 2 in revolt, 2 -> 1 and 3 -> 2
    game.next_interphase()
    game.do(Repay("Vega"), "gm")  # 0 in the bank: 7 short again; allegiances fall once more
    # Vega 1 1 -> revolt, Vega 3 2 -> 1, Rigel 1 4 -> 3; the end of turn 2 (D.9): Vega 3 next to Vega 2
    # in revolt, 1 -> revolt
    game.next_interphase()
    game.system_set("Vega", bank=7)
    game.do(Repay("Vega"), "bob")
    game.refuse(Borrow("Rigel", 5), RuleViolation, "until all regional and national allegiances are at 3",
                "bob")
    # two defaults and two ends of the interphase: Vega all in revolt, Rigel 1 at 3; national 3
    assert [(r.allegiance, r.revolt) for r in game.sys("Vega").regions] == [(0, True)] * 3
    assert game.reg("Rigel", 1).allegiance == 3
    assert game.player_of("bob").national_allegiance == {"R": 3, "M": 3, "E": 3}
    for number in (1, 2):
        game.set_region("Vega", number, allegiance=3, revolt=False)
    game.refuse(Borrow("Rigel", 5), RuleViolation, "allegiances are at 3", "bob")  # Vega 3 still in revolt
    game.set_region("Vega", 3, allegiance=3, revolt=False)
    game.do(Borrow("Rigel", 5), "bob")
    assert not game.player_of("bob").loans_barred
    assert game.sys("Rigel").loans == [Loan(5, 0)]


# --- D.3 transfers -------------------------------------------------------------------------------


def test_transfers_go_through_the_transit_box_and_the_ng() -> None:
    game = Game(system("Sol", "alice", [region(1, "M", 3, "I-2")], bank=10), altair())
    game.do(Transfer("Sol", "transit", 3))
    assert game.sys("Sol").bank == 7 and game.player_of("alice").in_transit == 3
    game.do(Transfer("transit", "Altair", 2))
    assert game.sys("Altair").bank == 22 and game.player_of("alice").in_transit == 1
    game.do(Transfer("Sol", "ng", 4))  # the NG is on Sol
    game.do(Transfer("ng", "transit", 1))
    assert (game.sys("Sol").bank, game.player_of("alice").ng_money, game.player_of("alice").in_transit) == (3, 3, 2)
    game.do(Transfer("transit", "ng", 2, player="alice"), "gm")
    assert (game.player_of("alice").ng_money, game.player_of("alice").in_transit) == (5, 0)
    game.refuse(Transfer("Sol", "Altair", 1), RuleViolation, "must move through space")
    game.refuse(Transfer("Altair", "ng", 1), RuleViolation, "National Government is on Sol")
    game.refuse(Transfer("Sol", "transit", 4), RuleViolation, "Sol's bank holds 3 GB")
    game.refuse(Transfer("transit", "Sol", 1), RuleViolation, "Money in Transit box holds 0 GB")
    game.refuse(Transfer("Sol", "transit", 1), NotYourNation, "only its owner", "bob")
    game.refuse(Transfer("ng", "ng", 1), BadInput, "two different places")
    game.refuse(Transfer("Sol", "moon", 1), BadInput, "to: is a system, ng (the National")
    game.refuse(Transfer("ng", "transit", 1), BadInput, "name the player (player:) for whom to move money", "gm")


# --- D.4 purchases -------------------------------------------------------------------------------


def test_purchases_cost_one_each_up_to_the_industrial_limit() -> None:
    game = Game(system("Sol", "alice", [region(1, "M", 3, "I-2"), region(2, "R", 4, "I-1")], bank=12))
    game.do(Buy("Sol", 1, "ag", 4, confirm=True))  # Moderates want AG (house); region 2 jealous
    region1 = game.reg("Sol", 1)
    assert (game.sys("Sol").bank, region1.bought, region1.to_place, region1.spent) == (8, 4, {"AG": 4}, 4)
    game.refuse(Buy("Sol", 1, "AG", 3), RuleViolation, "I-2 regions may produce up to 6 units")
    game.do(Buy("Sol", 1, "AG", 2, confirm=True))
    game.do(Buy("Sol", 2, "PDF", 4))
    game.refuse(Buy("Sol", 2, "PDF", 1), RuleViolation, "I-1 regions may produce up to 4 units")
    assert game.sys("Sol").bank == 2
    assert game.reg("Sol", 2).to_place == {"PDF": 4} and game.reg("Sol", 2).spent == 4


@pytest.mark.parametrize(("action", "words"), [
    (Buy("Sol", 1, "SQD", 1), "wanted by the party in power: region 1's party M wants AG, not SQD"),
    (Buy("Sol", 2, "PDF", 1), "only industrial regions produce units"),
    (Buy("Sol", 3, "AG", 1), "may not purchase units in regions containing enemy units"),
    (Buy("Sol", 4, "SQD", 1), "may not purchase squadrons if enemy units are on the system cell"),
    (Buy("Sol", 1, "AG", 6), "costs 6 GB and Sol's bank holds 5 GB"),
])
def test_purchase_refusals(action: Buy, words: str) -> None:
    game = Game(system("Sol", "alice", [region(1, "M", 3, "I-2"), region(2, "R", 4, "A-2"),
                                        region(3, "M", 3, "I-1", enemy_units=2), region(4, "E", 3, "I-1")],
                       bank=5, enemy_units=1))
    game.refuse(action, RuleViolation, words)


def test_squadrons_bought_when_the_system_cell_is_clear() -> None:
    game = Game(system("Sol", "alice", [region(1, "E", 3, "I-1")], bank=5))
    game.do(Buy("Sol", 1, "SQD", 2))
    assert game.reg("Sol", 1).to_place == {"SQD": 2}
    game.refuse(Buy("Sol", 1, "TANK", 1), BadInput, "type: is one of SQD, AG, PDF")


# --- D.5 loyalty and economy ---------------------------------------------------------------------


def test_loyalty_raises_by_one_a_turn_and_extra_money_counts_for_jealousy() -> None:
    game = Game(sol())
    game.system_set("Sol", bank=10)
    game.do(Loyalty("Sol", 1, confirm=True))  # the others are shorted 1 (regional jealousy): confirmed
    assert (game.reg("Sol", 1).allegiance, game.reg("Sol", 1).raised, game.reg("Sol", 1).spent) == (4, True, 1)
    game.refuse(Loyalty("Sol", 1), RuleViolation, "maximum increase is 1 per turn")
    game.do(Loyalty("Sol", 1, amount=2, confirm=True))  # jealousy money: no second raise
    assert (game.reg("Sol", 1).allegiance, game.reg("Sol", 1).spent, game.sys("Sol").bank) == (4, 3, 7)
    game.do(Loyalty("Sol", 3, amount=3))  # three spent, still +1 (the system's most stays 3: no warning)
    assert (game.reg("Sol", 3).allegiance, game.reg("Sol", 3).spent, game.sys("Sol").bank) == (2, 3, 4)
    game.do(Loyalty("Sol", 2))  # R 4 -> 5: allegiance runs to 5 for every party
    assert (game.reg("Sol", 2).allegiance, game.sys("Sol").bank) == (5, 3)
    game.refuse(Loyalty("Sol", 4), RuleViolation, "is in revolt: deal with it at D.7")
    game.refuse(Loyalty("Sol", 3, amount=0), RuleViolation, "costs 1 GB")
    game.refuse(Loyalty("Sol", 5, amount=5), RuleViolation, "bank holds 3 GB")
    game.next_interphase()
    game.do(Loyalty("Sol", 1, confirm=True))
    assert game.reg("Sol", 1).allegiance == 5  # the highest level
    game.refuse(Loyalty("Sol", 1), RuleViolation, "maximum increase is 1 per turn")


def test_a_gm_changes_the_cost_between_economic_levels_for_one_game() -> None:
    game = Game(altair())
    game.do(SetHouse("economy_cost_a1", "5"), gm=True)  # A-1 → A-2 costs 5 GB in this game (the house default is 3)
    game.do(Develop("Altair", 1, confirm=True))
    assert (game.reg("Altair", 1).economy, game.sys("Altair").bank) == ("A-2", 15)
    game.refuse(SetHouse("economy_cost_a1", "-1"), BadInput, "economy_cost_a1 must be between 0 and 100 GB",
                gm=True)


def test_develop_pays_the_house_cost_between_levels() -> None:
    game = Game(altair())
    game.do(Develop("Altair", 1, confirm=True))  # A-1 → A-2: 3 (region 2 is shorted: confirmed)
    game.do(Develop("Altair", 1, confirm=True))  # A-2 → I-1: 4
    assert (game.reg("Altair", 1).economy, game.sys("Altair").bank, game.reg("Altair", 1).spent) == ("I-1", 13, 7)
    game.do(Develop("Altair", 1, confirm=True))  # I-1 → I-2: 6
    assert (game.reg("Altair", 1).economy, game.sys("Altair").bank) == ("I-2", 7)
    game.refuse(Develop("Altair", 1), RuleViolation, "I-2, the highest level")
    game.set_region("Altair", 1, economy="S")
    game.do(Develop("Altair", 1, confirm=True))  # S → A-1: 2
    assert game.sys("Altair").bank == 5
    game.set_region("Altair", 1, economy="I-1")
    game.refuse(Develop("Altair", 1), RuleViolation, "costs 6 GB and Altair's bank holds 5 GB")


@pytest.mark.parametrize(("number", "setup", "words"), [
    (2, {}, "only Moderate (M) governments not in revolt can raise economic levels"),
    (1, {"revolt": True, "allegiance": 0}, "party M, in revolt"),
    (1, {"enemy_units": 1}, "enemy units are in the region"),
    (1, {"siege": 2}, "under siege (2 enemy units on Altair's cell)"),
])
def test_develop_refusals(number: int, setup: dict[str, Any], words: str) -> None:
    game = Game(altair())
    setup = dict(setup)
    siege = setup.pop("siege", 0)
    if siege:
        game.system_set("Altair", enemy_units=siege)
    if setup:
        game.set_region("Altair", 1, **setup)
    game.refuse(Develop("Altair", number), RuleViolation, words)


# --- D.14 new units ------------------------------------------------------------------------------


def test_placing_bought_units() -> None:
    game = Game(system("Sol", "alice", [region(1, "M", 3, "I-2"), region(2, "E", 3, "I-1")], bank=10,
                       units={"SQD": 1}))
    game.do(Buy("Sol", 1, "AG", 5, confirm=True))
    game.do(Buy("Sol", 2, "SQD", 3))
    game.set_region("Sol", 1, party="R")  # party changes do not affect builds
    game.game_set(done={"alice": list(STEPS[:STEPS.index("units")]), "bob": []})  # the GM: D.1-D.13 taken
    game.do(Place("Sol", 1, "AG", 4))
    assert game.reg("Sol", 1).units == {"AG": 4} and game.reg("Sol", 1).to_place == {"AG": 1}
    game.do(Place("Sol", 2, "SQD", 3))  # squadrons never go on the ground
    assert game.sys("Sol").units == {"SQD": 4} and game.reg("Sol", 2).units == {}
    assert game.reg("Sol", 2).to_place == {}
    game.refuse(Place("Sol", 1, "AG", 2), RuleViolation, "has 1 AG bought and not yet placed, not 2")
    game.refuse(Place("Sol", 1, "PDF", 1), RuleViolation, "has 0 PDF bought")
    game.set_region("Sol", 1, economy="A-2")
    game.refuse(Place("Sol", 1, "AG", 1), RuleViolation, "lost its industrial capacity")
    game.set_region("Sol", 1, economy="I-1", revolt=True, allegiance=0)
    game.refuse(Place("Sol", 1, "AG", 1), RuleViolation, "cannot place new units if the region is in revolt")


# --- "Change Ministers!" -------------------------------------------------------------------------


def test_change_ministers_once_a_game() -> None:
    game = Game(sol(), altair(), phase="movement")  # any phase: it is the National Government's call
    game.do(ChangeMinisters())
    assert [(r.allegiance, r.revolt) for r in game.sys("Sol").regions] == [
        (4, False), (5, False), (2, False), (0, True), (4, False)]  # up to 5 for every party; revolts stay
    assert [r.allegiance for r in game.sys("Altair").regions] == [3, 4]
    assert game.player_of("alice").ministers_changed
    game.refuse(ChangeMinisters(), RuleViolation, "once per game")
    game.refuse(ChangeMinisters("alice"), RuleViolation, "once per game", "gm")
    game.refuse(ChangeMinisters("alice"), NotYourNation, 'only the GM may announce "Change Ministers!" for alice',
                "bob")
    game.do(ChangeMinisters("bob"), "gm")  # bob has no systems: only the mark
    assert game.player_of("bob").ministers_changed


# --- phases, owners, commands --------------------------------------------------------------------


@pytest.mark.parametrize("action", [
    Tax("Sol"), Repay("Sol"), Borrow("Sol", 1), Transfer("Sol", "transit", 1), Buy("Sol", 1, "AG", 1),
    Loyalty("Sol", 1), Develop("Sol", 1), Place("Sol", 1, "AG", 1),
])
@pytest.mark.parametrize("phase", ["movement", "combat", "war"])
def test_interphase_steps_refused_outside_the_interphase(action: Any, phase: str) -> None:
    game = Game(system("Sol", "alice", [region(1, "M", 3, "I-2", to_place={"AG": 1})], bank=5,
                       loans=[{"amount": 4, "box": 0}]), phase=phase)
    game.refuse(action, RuleViolation, "is part of the Social Interphase")


def test_a_player_out_of_the_game_cannot_act() -> None:
    game = Game(sol())
    game.player_set("alice", out=True)
    game.refuse(Tax("Sol"), RuleViolation, "out of the game")
    game.refuse(ChangeMinisters(), RuleViolation, "out of the game")


@pytest.mark.parametrize(("path", "options", "expected"), [
    ("godsfire money tax", {"system": "Sol", "extort": "1 2"}, Tax("Sol", "1 2")),
    ("godsfire money repay", {"system": "Sol"}, Repay("Sol")),
    ("godsfire money borrow", {"system": "Sol", "amount": "5"}, Borrow("Sol", 5)),
    ("godsfire money transfer", {"from": "Sol", "to": "transit", "amount": "2"}, Transfer("Sol", "transit", 2)),
    ("godsfire region buy", {"system": "Sol", "region": "1", "type": "AG", "count": "2"}, Buy("Sol", 1, "AG", 2)),
    ("godsfire region loyalty", {"system": "Sol", "region": "1", "amount": "2"}, Loyalty("Sol", 1, 2)),
    ("godsfire region develop", {"system": "Sol", "region": "1"}, Develop("Sol", 1)),
    ("godsfire region place", {"system": "Sol", "region": "1", "type": "AG", "count": "1"}, Place("Sol", 1, "AG", 1)),
    ("godsfire interphase ministers", {}, ChangeMinisters()),
])
def test_commands_build_the_actions(path: str, options: dict[str, str], expected: Any) -> None:
    command = next(c for c in (*economy.COMMANDS, *loans.COMMANDS) if c.path == path)
    assert command.ruleset == "godsfire" and not command.gm_only
    assert build_action(command, coerce_options(command, options)) == expected


def test_a_scripted_interphase_for_one_player_replays() -> None:
    """Tax, repay, borrow, move money, buy, raise, develop, the compulsory checks (D.8-D.10) and place, in the
    sheet's order."""
    game = Game(sol(), altair())
    game.system_set("Sol", loans=[{"amount": 8, "box": 0}])
    game.do(Tax("Sol", extort="2"))                # 6 + 1 = 7
    game.do(Repay("Sol"))                          # ceil(10/4) = 3: 4 left
    game.do(Borrow("Sol", 6))                      # 10
    game.do(Transfer("Altair", "transit", 5))      # Altair 15, transit 5
    game.do(Transfer("transit", "Sol", 5))         # Sol 15
    game.do(Buy("Sol", 1, "AG", 6, confirm=True))  # 9 (the other regions shorted: confirmed)
    game.do(Buy("Sol", 2, "PDF", 4))               # 5
    game.do(Loyalty("Sol", 2))                     # 4; region 2: 4 - 1 (extortion) + 1 = 4
    game.do(Develop("Altair", 1, confirm=True))    # Altair 15 - 3 = 12
    game.do(ResolveSubversion(), "alice")          # nothing to resolve
    game.do(CheckAllegiance(), "alice")            # Sol spent 6/5/0/0/0: region 2 (shorted 1) 4 -> 3,
    #   regions 3 and 5 (next to region 4 in revolt, shorted 6) revolt; Altair 2 (shorted 3) 3 -> revolt
    game.do(CheckEconomy(), "alice")               # Sol 3, 4, 5 and Altair 2 in revolt lose a level
    game.do(Place("Sol", 1, "AG", 6))
    game.do(Place("Sol", 2, "PDF", 4))
    sol_now = game.sys("Sol")
    assert sol_now.bank == 4 and game.sys("Altair").bank == 12
    assert sol_now.loans == [Loan(8, 1), Loan(6, 0)]
    assert [r.units for r in sol_now.regions[:2]] == [{"AG": 6}, {"PDF": 4}]
    assert [r.spent for r in sol_now.regions] == [6, 5, 0, 0, 0]
    assert game.reg("Sol", 2).allegiance == 3 and game.reg("Altair", 1).economy == "A-2"
    assert [r.economy for r in sol_now.regions] == ["I-2", "I-1", "A-1", "A-1", "A-2"]


def test_the_export_keeps_the_economy_marks() -> None:
    """A restored snapshot must still know the tax and the repayments of this turn were made."""
    game = Game(sol())
    game.system_set("Sol", loans=[{"amount": 4, "box": 0}])
    game.do(Tax("Sol"))
    game.do(Repay("Sol"))
    game.do(Buy("Sol", 1, "AG", 1, confirm=True))
    restored = state_from_dict(state_to_dict(game.state))
    assert restored.system("Sol").region(1).to_place == {"AG": 1}
    assert restored == game.state
