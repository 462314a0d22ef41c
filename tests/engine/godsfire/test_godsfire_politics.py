"""Godsfire's Social Interphase, politics (D.6-D.13 and the interphase's bookkeeping): every step with
entered dice and results worked out by hand, every refusal changing nothing, and state == replay."""

from __future__ import annotations

from typing import Any

import pytest
from godsfirehelpers import GM, Table

from engine.core import Outcome
from engine.errors import BadInput, NotGM, NotYourNation, RefereeError, RuleViolation
from engine.events import DieRolled, Event
from engine.gm import QueueDice
from engine.godsfire import politics, subversion
from engine.godsfire.checks import feeders
from engine.godsfire.events import (
    GameChanged,
    GodsfirePhaseChanged,
    RegionChanged,
    StepDone,
)
from engine.godsfire.phases import NextPhase
from engine.godsfire.politics import (
    ChangeParty,
    CheckAllegiance,
    CheckEconomy,
    DealWithRevolt,
    EndInterphase,
    MarkDone,
    ResolveSubversion,
)
from engine.godsfire.state import STEPS, Loan, Player, Region
from engine.godsfire.steps import interphase_left
from engine.godsfire.subversion import Counter, Desubvert, Subvert
from engine.vocabulary import build_action, coerce_options


def region(number: int, party: str = "R", allegiance: int = 3, economy: str = "A-1", **extra: Any) -> Region:
    return Region(number, party, allegiance, economy, **extra)


class Game(Table):
    """A Godsfire game in turn 1's Social Interphase (or the phase named); actions by alice unless said."""

    def __init__(self, phase: str = "interphase") -> None:
        super().__init__()
        self.to_phase(phase)

    def add(self, event: Event) -> None:
        """Log an event made by hand (test setup)."""
        self.emit(lambda tx: tx.emit(event))

    def player(self, name: str, ng: int = 0, **national: int) -> Player:  # type: ignore[override]
        super().player(name)
        if ng:
            self.player_set(name, ng_money=ng)
        if national:
            self.player_set(name, national_allegiance={**self.state.player(name).national_allegiance, **national})
        return self.state.player(name)

    def next_phase(self) -> Outcome:
        return Table.do(self, NextPhase())

    def enter(self, values: Any) -> Outcome:
        return Table.do(self, QueueDice(list(values)))

    def do(self, action: Any, actor: str | None = "alice", dice: Any = (), entered: Any = None,
           gm: bool | None = False) -> Outcome:
        return super().do(action, actor, dice, entered, gm)

    def refuse(self, action: Any, error: type[RefereeError] = RefereeError, match: str | None = None,
               actor: str | None = "alice", gm: bool | None = False) -> RefereeError:
        return super().refuse(action, error, match, actor, gm)


def rolls(outcome: Outcome) -> list[tuple[str, int]]:
    return [(e.roll.purpose, e.roll.die) for e in outcome.events if isinstance(e, DieRolled)]


def reasons(outcome: Outcome) -> list[str]:
    return [e.reason for e in outcome.events if hasattr(e, "reason")]


@pytest.fixture
def game() -> Game:
    g = Game()
    g.player("alice", ng=3)
    g.player("bob", ng=5)
    g.system("Sol", "alice", [region(1, "R", 2), region(2, "M", 2), region(3, "E", 2), region(4, "R", 3)],
             bank=5)
    g.system("Vega", "bob", [region(1, "R", 3)], bank=5)
    return g


# --- D.6 party change ------------------------------------------------------------------------------


@pytest.mark.parametrize(("number", "die", "party", "revolt"), [
    (1, 1, "R", True), (1, 2, "R", True), (1, 3, "R", True), (1, 4, "M", False), (1, 5, "M", False),
    (1, 6, "M", False),
    (3, 1, "E", True), (3, 2, "E", True), (3, 3, "E", True), (3, 4, "M", False), (3, 5, "M", False),
    (3, 6, "M", False),
    (2, 1, "E", False), (2, 2, "E", False), (2, 3, "E", False), (2, 4, "R", False), (2, 5, "R", False),
    (2, 6, "R", False),
])
def test_party_change_every_die(game: Game, number: int, die: int, party: str, revolt: bool) -> None:
    outcome = game.do(ChangeParty("Sol", number, "ng"), dice=(die,))
    changed = game.reg("Sol", number)
    assert (changed.party, changed.revolt, changed.allegiance) == (party, revolt, 0 if revolt else 2)
    assert changed.spent == 1  # the NG's 1 was spent for this region (regional jealousy)
    assert game.state.player("alice").ng_money == 2
    assert rolls(outcome) == [(f"party change (Sol region {number})", die)]
    game.assert_replays()


def test_party_change_paid_with_national_loyalty(game: Game) -> None:
    game.do(ChangeParty("Sol", 1, "loyalty"), dice=(5,))
    alice = game.state.player("alice")
    assert alice.national_allegiance == {"R": 4, "M": 5, "E": 5}  # the region's party was R
    assert alice.ng_money == 3 and game.reg("Sol", 1).spent == 0
    assert game.reg("Sol", 1).party == "M"
    game.assert_replays()


def test_party_change_by_the_gm_is_paid_by_the_owner(game: Game) -> None:
    game.do(ChangeParty("Sol", 2, "ng"), GM, dice=(6,), gm=True)
    assert game.reg("Sol", 2).party == "R" and game.state.player("alice").ng_money == 2


def test_party_change_refusals(game: Game) -> None:
    game.refuse(ChangeParty("Sol", 4), RuleViolation, "only allowed at regional allegiance 2; Sol region 4 is at 3")
    game.refuse(ChangeParty("Sol", 1), NotYourNation, "only its owner or the GM", actor="bob")
    game.refuse(ChangeParty("Sol", 1, "gold"), BadInput, "pay: must be ng")
    game.refuse(ChangeParty("Sol", 9), RefereeError, "Sol has no region 9")
    game.player_set("alice", ng_money=0, national_allegiance={"R": 0, "M": 5, "E": 5})
    game.refuse(ChangeParty("Sol", 1, "ng"), RuleViolation, "costs 1 from the National Government; alice's NG has 0")
    game.refuse(ChangeParty("Sol", 1, "loyalty"), RuleViolation, "Reactionarys is 0: nothing left to lower")
    game.add(RegionChanged("Sol", 1, {"allegiance": 0, "revolt": True}, {}, "test"))
    game.refuse(ChangeParty("Sol", 1, "ng"), RuleViolation, "Sol region 1 is in revolt")
    game.system("Rigel", None, [region(1, allegiance=2)])
    game.refuse(ChangeParty("Rigel", 1), RuleViolation, "Rigel is neutral", gm=True, actor=GM)


# --- D.7 revolts -----------------------------------------------------------------------------------


@pytest.fixture
def revolts() -> Game:
    g = Game()
    g.player("alice")
    g.player("bob")
    g.system("Sol", "alice", [region(1, "R", 0, revolt=True, units={"PDF": 2}), region(2, "M", 0, revolt=True),
                              region(3, "R", 3)], bank=5, units={"PDF": 1, "SQD": 2})
    return g


@pytest.mark.parametrize(("die", "restored"), [(1, True), (2, True), (3, False), (4, False), (5, False),
                                               (6, False)])
def test_negotiate(revolts: Game, die: int, restored: bool) -> None:
    outcome = revolts.do(DealWithRevolt("Sol", 2, "negotiate"), dice=(die,))
    changed = revolts.reg("Sol", 2)
    assert (changed.revolt, changed.allegiance, changed.revolt_tried) == (not restored, 3 if restored else 0, True)
    assert rolls(outcome) == [("revolt: negotiate (Sol region 2)", die)]
    if not restored:
        revolts.refuse(DealWithRevolt("Sol", 2, "police"), RuleViolation, "ONE option per region per turn")
    revolts.assert_replays()


@pytest.mark.parametrize(("die", "restored"), [(1, True), (4, True), (5, False), (6, False)])
def test_bribe(revolts: Game, die: int, restored: bool) -> None:
    revolts.do(DealWithRevolt("Sol", 1, "bribe"), dice=(die,))
    changed = revolts.reg("Sol", 1)
    assert (changed.revolt, changed.allegiance) == ((False, 2) if restored else (True, 0))
    assert revolts.state.system("Sol").bank == 3  # paid 2 either way
    assert changed.spent == 0  # bribes are not spent money for regional jealousy
    if not restored:
        revolts.refuse(DealWithRevolt("Sol", 1, "negotiate"), RuleViolation, "ONE option per region per turn")
    revolts.assert_replays()


@pytest.mark.parametrize(("die", "restored"), [(1, True), (3, True), (4, False), (6, False)])
def test_police_action_against_the_systems_pdfs(revolts: Game, die: int, restored: bool) -> None:
    # 1 PDF in the system cell and 2 in region 1: a die of 3 or less
    outcome = revolts.do(DealWithRevolt("Sol", 2, "police"), dice=(die,))
    changed = revolts.reg("Sol", 2)
    assert (changed.revolt, changed.allegiance) == ((False, 2) if restored else (True, 0))
    assert rolls(outcome) == [("revolt: police action, 3 PDF (Sol region 2)", die)]
    revolts.assert_replays()


def test_revolt_refusals(revolts: Game) -> None:
    revolts.refuse(DealWithRevolt("Sol", 2, "bribe"), RuleViolation, "only works for Reactionary (R) revolts")
    revolts.refuse(DealWithRevolt("Sol", 3, "negotiate"), RuleViolation, "Sol region 3 is not in revolt")
    revolts.refuse(DealWithRevolt("Sol", 1, "pray"), BadInput, "way: must be one of negotiate, bribe, police")
    revolts.refuse(DealWithRevolt("Sol", 1, "negotiate"), NotYourNation, "only its owner or the GM", actor="bob")
    revolts.add(RegionChanged("Sol", 1, {"units": {}}, {}, "test"))
    revolts.system_set("Sol", units={"PDF": 0, "SQD": 2}, bank=1)
    revolts.refuse(DealWithRevolt("Sol", 1, "police"), RuleViolation, "Sol has none")
    revolts.refuse(DealWithRevolt("Sol", 1, "bribe"), RuleViolation, "costs 2 from the system bank; Sol's bank has 1")
    revolts.assert_replays()


def whole_revolt(subverters: dict[str, int]) -> Game:
    g = Game()
    g.player("alice")
    g.player("bob")
    g.player("carol")
    g.system("Sol", "alice", [region(1, revolt=True, allegiance=0, units={"AG": 2}, subversion=subverters,
                                     subversion_step={p: 0 for p in subverters}),
                              region(2, revolt=True, allegiance=0)], units={"SQD": 3, "PDF": 2})
    return g


def test_a_system_all_in_revolt_goes_neutral_and_its_ng_is_lost() -> None:
    g = whole_revolt({"bob": 1, "carol": 2})  # two subverters: no die
    g.system_set("Sol", loans=[Loan(8, 1)], repaid_turn=g.state.turn)  # this turn's box paid
    outcome = g.do(MarkDone("revolts"))
    sol = g.state.system("Sol")
    assert sol.owner is None and sol.units == {"PDF": 1} and sol.region(1).units == {}
    assert sol.loans == []  # ruling: a system gone neutral takes its loans with it
    assert g.state.player("alice").out
    assert rolls(outcome) == [] and StepDone("alice", "revolts") in outcome.events
    assert interphase_left(g.state).keys() == {"bob", "carol"}
    g.assert_replays()


@pytest.mark.parametrize(("die", "taken"), [(3, False), (4, True), (6, True), (1, False)])
def test_a_sole_subverter_takes_a_system_all_in_revolt_on_4_to_6(die: int, taken: bool) -> None:
    g = whole_revolt({"bob": 2})
    outcome = g.do(MarkDone("revolts"), dice=(die,))
    sol = g.state.system("Sol")
    assert rolls(outcome) == [("revolt: whole system to its sole subverter (Sol)", die)]
    if taken:
        assert sol.owner == "bob" and sol.units == {"SQD": 3, "PDF": 2}
        assert [(r.revolt, r.allegiance, r.subversion) for r in sol.regions] == [(False, 2, {}), (False, 2, {})]
    else:
        assert sol.owner is None and sol.units == {"PDF": 1}
    alice = g.state.player("alice")
    assert alice.out and alice.government is None  # her National Government was on Sol either way
    g.assert_replays()


def test_the_gm_ending_the_interphase_runs_the_whole_revolt_check_and_starts_turn_2() -> None:
    g = whole_revolt({})
    g.refuse(EndInterphase(), NotGM, "only the GM may end the Social Interphase")
    g.enter([6, 5])  # bob's and carol's dice for turn 2's player order, where it is rolled as the turn begins
    outcome = g.do(EndInterphase(), GM, gm=True)
    assert g.state.system("Sol").owner is None
    assert GodsfirePhaseChanged(2, "movement") in outcome.events
    assert (g.state.turn, g.state.phase) == (2, "movement")
    g.refuse(EndInterphase(), RuleViolation, "game is in the Movement Phase of turn 2", GM, gm=True)
    g.assert_replays()


def test_stepping_the_phase_on_from_the_interphase_runs_the_whole_revolt_check_too() -> None:
    g = whole_revolt({})
    g.enter([6, 5])  # bob's and carol's dice for turn 2's player order, where it is rolled as the turn begins
    g.do(NextPhase(), GM, gm=True)
    assert g.state.system("Sol").owner is None  # D.7.4, as /godsfire interphase end does
    assert (g.state.turn, g.state.phase) == (2, "movement")
    g.assert_replays()


# --- D.8 subversion --------------------------------------------------------------------------------


def test_resolve_subversion() -> None:
    g = Game()
    g.player("alice")
    g.player("bob")
    g.system("Sol", "alice", [
        region(1, allegiance=3, subversion={"bob": 2}, subversion_step={"bob": 0}),
        region(2, allegiance=3, subversion={"bob": 1}, subversion_step={"bob": 1}, counter_subversion=1),
        region(3, allegiance=4, subversion={"bob": 1}, subversion_step={"bob": 2}),  # the track's last circle
        region(4, allegiance=1, subversion={"bob": 1}, subversion_step={"bob": 0}),
        region(5, allegiance=3, counter_subversion=2),
        region(6, allegiance=3),
    ])
    g.system("Vega", "bob", [region(1, allegiance=3, subversion={"alice": 1}, subversion_step={"alice": 0})])
    g.do(ResolveSubversion())
    sol = g.state.system("Sol")
    assert [(r.allegiance, r.revolt, r.subversion, r.subversion_step, r.counter_subversion) for r in sol.regions] == [
        (2, False, {"bob": 2}, {"bob": 1}, 0),
        (3, False, {"bob": 1}, {"bob": 2}, 0),  # defended: no drop; the counter money is removed
        (3, False, {}, {}, 0),  # off the bottom of the 3-circle track
        (0, True, {"bob": 1}, {"bob": 1}, 0),  # below 1: revolt
        (3, False, {}, {}, 0),
        (3, False, {}, {}, 0),
    ]
    assert g.state.system("Vega").region(1).allegiance == 3  # bob's own systems: his own step
    assert g.state.done["alice"] == list(STEPS[:STEPS.index("subversion") + 1])  # D.1-D.7 closed by D.8
    g.refuse(ResolveSubversion(), RuleViolation, "D.8 subversion is already done for alice")
    g.refuse(MarkDone("subversion"), RuleViolation, "/godsfire subversion resolve applies it")
    g.refuse(ResolveSubversion("alice"), NotYourNation, "only the GM may run D.8 subversion for alice", "bob")
    g.do(ResolveSubversion(), GM, gm=True)  # the GM: everyone left (bob)
    assert g.state.system("Vega").region(1).allegiance == 2
    g.refuse(ResolveSubversion(), RuleViolation, "done for every player", GM, gm=True)
    g.assert_replays()


# --- D.9 allegiance --------------------------------------------------------------------------------


def test_allegiance_drops_next_to_revolts_and_for_regional_jealousy() -> None:
    g = Game()
    g.player("alice")
    g.system("Sol", "alice", [
        region(1, allegiance=3, spent=3),  # next to 2: -1 -> 2
        region(2, allegiance=0, revolt=True),
        region(3, allegiance=4, spent=1),  # next to 2 and 2 short: -3 -> 1
        region(4, allegiance=4, spent=3),  # next to 5, which falls into revolt in this check: unchanged
        region(5, allegiance=2, spent=0),  # 3 short: -3 -> revolt
    ])
    g.system("Vega", "alice", [region(1, allegiance=3, spent=2), region(2, allegiance=3, spent=2)])
    g.refuse(CheckAllegiance(), RuleViolation, "D.8 subversion resolve comes first: /godsfire subversion resolve")
    g.do(ResolveSubversion())  # nothing to resolve: the sheet's order
    outcome = g.do(CheckAllegiance())
    sol = g.state.system("Sol")
    assert [(r.allegiance, r.revolt) for r in sol.regions] == [(2, False), (0, True), (1, False), (4, False),
                                                               (0, True)]
    assert [(r.allegiance, r.revolt) for r in g.state.system("Vega").regions] == [(3, False), (3, False)]
    assert reasons(outcome)[1] == ("D.9: next to region 2 in revolt, regional jealousy: 2 less spent than in "
                                   "the system's best-served region")
    g.refuse(CheckAllegiance(), RuleViolation, "D.9 allegiance drops is already done for alice")
    g.assert_replays()


# --- D.10 economy ----------------------------------------------------------------------------------


def test_economy_drops() -> None:
    g = Game()
    g.player("alice")
    g.player("bob")
    g.system("Sol", "alice", [region(1, economy="I-2"), region(2, economy="A-2"), region(3, economy="I-2"),
                              region(4, economy="I-1"), region(5, economy="A-1"), region(6, economy="I-1")])
    g.system("Vega", "alice", [region(1, economy="A-1", allegiance=0, revolt=True),
                               region(2, economy="S", allegiance=0, revolt=True),
                               region(3, economy="A-2", enemy_units=2), region(4, economy="A-2"),
                               region(5, economy="I-1")])
    g.system("Rigel", "bob", [region(1, economy="I-2")])
    assert feeders(g.state.system("Sol")) == {1: 2, 3: None, 4: 5, 6: None}
    assert feeders(g.state.system("Vega")) == {5: 1}  # fed by region 1 as it stood before the check
    g.do(ResolveSubversion(), GM, gm=True)  # D.8 and D.9 first (the sheet's order): D.9 lowers Vega 3 (next
    g.do(CheckAllegiance(), GM, gm=True)  # to Vega 2 in revolt) to allegiance 2, nothing else
    g.refuse(CheckEconomy("Vega 2"), RuleViolation, "Vega region 2 is at Subsistence (S), the lowest")
    g.refuse(CheckEconomy("Rigel 1"), NotYourNation, "Rigel is not among the systems of this check")
    g.refuse(CheckEconomy("Vega"), BadInput, "name a region as")
    g.refuse(CheckEconomy("Vega 9"), RefereeError, "Vega has no region 9")
    outcome = g.do(CheckEconomy("Vega:4"))
    assert [r.economy for r in g.state.system("Sol").regions] == ["I-2", "A-2", "I-1", "I-1", "A-1", "A-2"]
    assert [r.economy for r in g.state.system("Vega").regions] == ["S", "S", "A-1", "A-1", "I-1"]
    assert g.state.system("Rigel").region(1).economy == "I-2"  # bob's: his own check
    assert reasons(outcome) == ["D.10: I-2 with no A-2 to feed it", "D.10: I-1 with no A-1 or A-2 to feed it",
                                "D.10: in revolt", "D.10: occupied by enemy units", "D.10: lowered by its owner"]
    g.do(CheckEconomy(), GM, gm=True)  # bob's Rigel: I-2 with no A-2
    assert g.state.system("Rigel").region(1).economy == "I-1"
    g.assert_replays()


def test_feeders_use_an_a2_for_an_i1_when_no_a1_is_left() -> None:
    g = Game()
    g.player("alice")
    g.system("Sol", "alice", [region(1, economy="I-1"), region(2, economy="A-2"), region(3, economy="I-1"),
                              region(4, economy="A-1")])
    assert feeders(g.state.system("Sol")) == {1: 4, 3: 2}


# --- D.11-13 placing money -------------------------------------------------------------------------


def checked(game: Game) -> None:
    """Every player's compulsory checks D.8-D.10, run by the GM (nothing changes in these systems): the
    steps before placing money."""
    for check in (ResolveSubversion(), CheckAllegiance(), CheckEconomy()):
        game.do(check, GM, gm=True)


def test_subvert_costs_by_economy_and_goes_to_the_top_circle(game: Game) -> None:
    checked(game)
    game.add(RegionChanged("Sol", 2, {"economy": "A-2"}, {}, "test"))
    game.do(Subvert("Sol", 2, 2), "bob")  # 2 a placement
    assert game.state.player("bob").ng_money == 1
    assert (game.reg("Sol", 2).subversion, game.reg("Sol", 2).subversion_step) == ({"bob": 2}, {"bob": 0})
    game.add(RegionChanged("Sol", 1, {"economy": "S", "subversion": {"bob": 1}, "subversion_step": {"bob": 2}},
                           {}, "test"))
    game.do(Subvert("Sol", 1, 1), "bob")  # S: 1; the stack goes back to the top circle
    assert game.state.player("bob").ng_money == 0
    assert (game.reg("Sol", 1).subversion, game.reg("Sol", 1).subversion_step) == ({"bob": 2}, {"bob": 0})
    game.refuse(Subvert("Sol", 1, 1), RuleViolation, "costs 1 a placement, 1 for 1; bob's NG has 0", "bob")
    game.refuse(Subvert("Sol", 1, 1), RuleViolation, "Sol is alice's own system")
    game.refuse(Subvert("Sol", 1, 0), BadInput, "amount: must be 1 or more", "bob")
    game.refuse(Subvert("Vega", 1, 1), BadInput, "name the player", GM, gm=True)
    game.refuse(Subvert("Sol", 1, 1, "alice"), NotYourNation, "only the GM may place", "bob")
    game.do(Subvert("Vega", 1, 3, "alice"), GM, gm=True)  # 1 each, from alice's NG
    assert game.state.player("alice").ng_money == 0 and game.reg("Vega", 1).subversion == {"alice": 3}
    game.assert_replays()


def _gb(number: int, owner: str, at: str, amount: int) -> dict[str, Any]:
    return {"number": number, "kind": "GB", "owner": owner, "at": at, "ground": False, "moved": 0,
            "amount": amount}


def test_subversion_between_players_at_war_is_carried_to_a_cell_next_to_the_system(game: Game) -> None:
    """C and D.11.1: sides at war physically transfer subversion money to a cell adjacent to the target system:
    it comes from a GB counter of the payer's in a cell of space outside the system (next to it: the players'
    word), never from the NG."""
    checked(game)
    game.add(GameChanged({"wars": [["alice", "bob"]], "next_counter": 5,
                          "counters": [_gb(1, "alice", "Vega", 2), _gb(2, "alice", "K3", 3), _gb(3, "bob", "K3", 2),
                                       _gb(4, "alice", "Sol", 2)]}, {}, "test"))
    game.refuse(Subvert("Vega", 1, 1), RuleViolation, "C, D.11.1: alice is at war with bob: subversion money for "
                "Vega is carried to a cell next to it")
    game.refuse(Subvert("Vega", 1, 1, carried=1), RuleViolation, "GB #1 is at Vega, in Vega")
    game.refuse(Subvert("Vega", 1, 1, carried=4), RuleViolation, "GB #4 is at Sol, a system")
    game.refuse(Subvert("Vega", 1, 1, carried=3), RuleViolation, "#3 is not a GB counter of alice's")
    game.refuse(Subvert("Vega", 1, 4, carried=2), RuleViolation, "4 for 4; GB #2 carries 3")  # 1 each
    outcome = game.do(Subvert("Vega", 1, 2, carried=2))  # 2 of GB #2's 3; the NG's 3 untouched
    assert any("2 of GB #2 paid for subversion in Vega region 1 (1 GB left on it)" in r for r in reasons(outcome))
    assert game.state.player("alice").ng_money == 3
    assert game.state.counter(2).amount == 1
    assert game.reg("Vega", 1).subversion == {"alice": 2}
    game.do(Subvert("Vega", 1, 1, carried=2))  # the last GB: the counter is spent
    assert 2 not in [c.number for c in game.state.counters]
    assert game.reg("Vega", 1).subversion == {"alice": 3}
    game.assert_replays()


def test_subversion_not_at_war_is_paid_from_the_ng(game: Game) -> None:
    checked(game)
    game.do(Subvert("Vega", 1, 1))
    assert game.state.player("alice").ng_money == 2


def test_desubvert_removes_the_largest_stack_first(game: Game) -> None:
    game.player("carol")
    checked(game)
    game.add(RegionChanged("Sol", 4, {"economy": "S", "subversion": {"carol": 2, "bob": 2},
                                      "subversion_step": {"carol": 1, "bob": 0}}, {}, "test"))
    game.refuse(Desubvert("Sol", 4, 2), RuleViolation, "costs 3 each, 6 for 2; Sol's bank has 5")
    game.system_set("Sol", bank=10)
    game.refuse(Desubvert("Sol", 4, 5), RuleViolation, "holds 4 subversion money")
    game.refuse(Desubvert("Sol", 3, 1), RuleViolation, "no subversion money in Sol region 3")
    game.refuse(Desubvert("Sol", 4, 1), NotYourNation, "only its owner or the GM", "bob")
    game.do(Desubvert("Sol", 4, 3))  # S: 3 each; bob's 2 (a tie, by name), then 1 of carol's
    changed = game.reg("Sol", 4)
    assert game.state.system("Sol").bank == 1
    # D.12.2: the de-subversion money is removed after placement as well
    assert (changed.subversion, changed.subversion_step, changed.desubversion) == ({"carol": 1}, {"carol": 1}, 0)
    game.assert_replays()


def test_counter_subversion(game: Game) -> None:
    checked(game)
    game.do(Counter("Sol", 1, 2))  # 1 each
    game.add(RegionChanged("Sol", 2, {"economy": "S"}, {}, "test"))
    game.do(Counter("Sol", 2, 1))  # S: 2
    assert game.state.system("Sol").bank == 1
    assert (game.reg("Sol", 1).counter_subversion, game.reg("Sol", 2).counter_subversion) == (2, 1)
    game.refuse(Counter("Sol", 2, 1), RuleViolation, "costs 2 each, 2 for 1; Sol's bank has 1")
    game.refuse(Counter("Vega", 1, 1), NotYourNation, "Vega is bob's")
    game.assert_replays()


# --- bookkeeping and the phase ---------------------------------------------------------------------


def test_steps_done_and_what_is_left(game: Game) -> None:
    game.add(GameChanged({"order": ["bob", "alice"]}, {}, "test"))
    assert list(interphase_left(game.state)) == ["bob", "alice"]
    assert interphase_left(game.state)["alice"] == [s for s in STEPS if s != "loans"]  # no loan: nothing due
    outcome = game.do(MarkDone("tax"))
    assert outcome.events == [StepDone("alice", "tax")]
    game.refuse(MarkDone("units", "bob"), RuleViolation,
                "D.8 subversion resolve comes first: /godsfire subversion resolve player:bob", GM, gm=True)
    game.do(MarkDone("revolts", "bob"), GM, gm=True)  # closes D.1-D.6 for bob
    left = interphase_left(game.state)
    assert left["alice"] == [s for s in STEPS if s not in ("tax", "loans")]
    assert left["bob"] == list(STEPS[STEPS.index("subversion"):])
    game.refuse(MarkDone("tax"), RuleViolation, "D.1 tax and loan repayment is already done for alice")
    game.refuse(MarkDone("nap"), BadInput, "step: must be one of tax")
    game.refuse(MarkDone("tax", "bob"), NotYourNation, "only the GM may mark steps done for bob")
    game.refuse(MarkDone("tax"), BadInput, "name the player", GM, gm=True)
    game.assert_replays()


@pytest.mark.parametrize("action", [
    ChangeParty("Sol", 1), DealWithRevolt("Sol", 1, "negotiate"), ResolveSubversion(), CheckAllegiance(),
    CheckEconomy(), Subvert("Vega", 1, 1), Desubvert("Sol", 1, 1), Counter("Sol", 1, 1), MarkDone("tax"),
    EndInterphase(),
])
@pytest.mark.parametrize("phase", ["movement", "combat", "war"])
def test_every_step_is_refused_outside_the_interphase(action: Any, phase: str) -> None:
    g = Game(phase)
    g.player("alice", ng=3)
    g.system("Sol", "alice", [region(1, allegiance=2)], bank=5)
    g.system("Vega", None, [region(1)])
    g.refuse(action, RuleViolation, "belongs to the Social Interphase (D)", GM, gm=True)
    assert interphase_left(g.state) == {"alice": []}


def test_the_commands_build_their_actions() -> None:
    commands = {c.path: c for c in (*politics.COMMANDS, *subversion.COMMANDS)}
    cases = {
        "godsfire region party": ({"system": "Sol", "region": "2"}, ChangeParty("Sol", 2, "ng")),
        "godsfire region revolt": ({"system": "Sol", "region": 1, "way": "police"}, DealWithRevolt("Sol", 1, "police")),
        "godsfire subversion resolve": ({}, ResolveSubversion()),
        "godsfire interphase allegiance": ({"player": "bob"}, CheckAllegiance("bob")),
        "godsfire interphase economy": ({"lower": "Sol 2"}, CheckEconomy("Sol 2")),
        "godsfire subversion subvert": ({"system": "Sol", "region": 1, "amount": "2"}, Subvert("Sol", 1, 2)),
        "godsfire subversion desubvert": ({"system": "Sol", "region": 1, "amount": 1}, Desubvert("Sol", 1, 1)),
        "godsfire subversion counter": ({"system": "Sol", "region": 1, "amount": 1}, Counter("Sol", 1, 1)),
        "godsfire interphase done": ({"step": "tax"}, MarkDone("tax")),
        "godsfire interphase end": ({}, EndInterphase()),
    }
    for path, (raw, action) in cases.items():
        assert build_action(commands[path], coerce_options(commands[path], raw)) == action
    assert commands["godsfire interphase show"].action is None
    assert commands["godsfire interphase end"].gm_only
    assert all(c.ruleset == "godsfire" for c in (*politics.COMMANDS, *subversion.COMMANDS))


def test_a_system_gone_neutral_without_the_ng_leaves_its_owner_in_the_game() -> None:
    g = whole_revolt({})
    g.system("Sirius", "alice", [region(1)], government=True)
    g.do(MarkDone("revolts"))
    assert g.state.system("Sol").owner is None
    alice = g.state.player("alice")
    assert not alice.out and alice.government == "Sirius"
    g.refuse(ChangeParty("Sol", 1), RuleViolation, "Sol is neutral")
    g.assert_replays()


def test_a_player_out_of_the_game_is_refused(game: Game) -> None:
    game.player_set("alice", out=True, government=None)
    game.refuse(ChangeParty("Sol", 1), RuleViolation, "alice has lost the National Government")
    game.refuse(CheckAllegiance(), RuleViolation, "alice has lost the National Government")


def test_dice_entered_by_the_gm_decide_a_party_change(game: Game) -> None:
    outcome = game.do(ChangeParty("Sol", 1), entered=[5])
    assert game.reg("Sol", 1).party == "M"
    assert [e.roll.forced for e in outcome.events if isinstance(e, DieRolled)] == [True]
    game.assert_replays()
