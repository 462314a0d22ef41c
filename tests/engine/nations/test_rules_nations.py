"""Nations (seed 003): every ruling of shared/RULINGS.md section 1 outside "War", with forced dice.

Each test names the ruling it checks. Refusals go through `Game.refuse`, which proves that no die was
rolled (an empty ForcedRoller) and that the state did not change.
"""

from __future__ import annotations

import json
from collections import Counter

import pytest
from helpers import GM, NOW, Game, hours, rules, snap

from engine.clock import EndGame, Tick
from engine.core import execute
from engine.dice import ForcedRoller, RollRecord
from engine.errors import BadInput, NoGame, NotGM, NotYourNation, RuleViolation, UnknownNation, UnknownUnit
from engine.events import DiceQueued, Notice, event_from_dict, event_to_dict, replay
from engine.gm import ClearDice, QueueDice, SetHouse
from engine.nations.clock import EndTurn, PauseClock, ResumeClock, SetTurnLength
from engine.nations.common import army_mp
from engine.nations.events import (
    BonusExpired,
    BonusSet,
    NationEliminated,
    StatChanged,
    TurnEnded,
    UnitAdded,
    UnitRemoved,
)
from engine.nations.gm import (
    AddUnit,
    AssignNation,
    Eliminate,
    GrantAction,
    RemoveUnit,
    Restore,
    RevokeAction,
    SetStat,
    SetUnitRank,
)
from engine.nations.peace import (
    ClaimPreset,
    CreateNation,
    Disband,
    Encourage,
    GrowEconomy,
    GrowMilitary,
    PropagandaAttack,
    RaiseStability,
    Recruit,
)
from engine.nations.snapshot import state_from_dict

GRACCHAN = "Gracchan Republic"


def claim(game: Game, preset: str, player: str, name: str | None = None):
    """A player claims a preset (the GM claims slot 11 for them, naming it)."""
    if name is not None:
        game.do(ClaimPreset(preset, player=player, name=name))
    else:
        game.do(ClaimPreset(preset), actor=player)
    return game.state.nation_of(player)


def rollovers(outcome) -> list[tuple]:
    """The TurnEnded events of an outcome as (turn ended, next turn's start, its end, reason)."""
    ended = [e for e in outcome.events if isinstance(e, TurnEnded)]
    return [(e.ended, e.started_at, e.ends_at, e.reason) for e in ended]


def stats(nation) -> tuple[int, int, int, int, int]:
    """(E, S, M, P, L)"""
    return nation.economy, nation.stability, nation.military, nation.propaganda, nation.land


# ================================================================================================
# Stats and dice
# ================================================================================================

SEED_MODIFIERS = {
    1: -5, 2: -4, 3: -4, 4: -3, 5: -3, 6: -2, 7: -2, 8: -1, 9: -1, 10: 0,
    11: 0, 12: 1, 13: 1, 14: 2, 15: 2, 16: 3, 17: 3, 18: 4, 19: 4, 20: 5,
}


@pytest.mark.parametrize(("score", "modifier"), sorted(SEED_MODIFIERS.items()))
def test_stat_modifier_is_the_seed_table_for_1_to_20(score, modifier):
    assert rules().modifier(score) == modifier


@pytest.mark.parametrize(("score", "modifier"), [(0, -5), (21, 5), (22, 6), (23, 6), (24, 7), (30, 10), (41, 15)])
def test_stat_modifier_uses_the_formula_at_0_and_above_20(score, modifier):
    assert rules().modifier(score) == modifier


def test_modifier_at_0_and_above_20_in_real_rolls():
    game = Game()
    game.nation_with("Nought", "alice", economy=0, military=0)
    roll = game.do(GrowEconomy(), actor="alice", dice=[6]).rolls[0]
    assert (roll.modifiers, roll.total, roll.target, roll.success) == ({"mod(E)": -5}, 1, 0, True)
    assert game.nation("Nought").economy == 1

    game.nation_with("Giant", "bob", economy=22, military=0, land=40)
    roll = game.do(GrowEconomy(), actor="bob", dice=[10]).rolls[0]
    assert (roll.modifiers, roll.total, roll.target, roll.success) == ({"mod(E)": 6}, 16, 22, False)
    game.assert_replays()


def test_every_roll_is_recorded_with_all_its_facts():
    game = Game()
    game.nation_with("Alpha", "alice", economy=8, military=4)
    out = game.do(GrowEconomy(), actor="alice", dice=[9])
    assert out.rolls == [RollRecord(
        nation="Alpha", purpose="grow economy", die=9, modifiers={"mod(E)": -1}, total=8, target=8,
        comparison=">", success=False, forced=False, turn=1, at=NOW, battle=None, unit=None,
    )]


def test_zero_modifiers_are_left_out_of_the_record():
    game = Game()
    game.nation_with("Alpha", "alice", economy=10, military=4)
    roll = game.do(GrowEconomy(), actor="alice", dice=[7]).rolls[0]
    assert roll.modifiers == {}
    assert roll.total == 7


def test_a_stat_never_goes_below_zero():
    game = Game()
    game.nation_with("Alpha", "alice", economy=10, military=4)
    game.refuse(SetStat("Alpha", "military", -5, relative=True), RuleViolation, "cannot go below 0")
    game.refuse(SetStat("Alpha", "propaganda", -1), RuleViolation, "cannot go below 0")


def test_one_d10_per_roll_and_only_faces_1_to_10():
    assert rules().die_sides == 10
    game = Game()
    for bad in ([0], [11], [3, 12]):
        game.refuse(QueueDice(bad), BadInput, "d10 shows 1 to 10")


# ================================================================================================
# Turn and actions
# ================================================================================================


def test_turns_are_numbered_from_1_and_last_12_hours():
    game = Game()
    assert game.state.turn == 1
    assert (game.state.turn_started_at, game.state.turn_ends_at) == (NOW, NOW + hours(12))
    assert game.state.turn_hours == 12.0
    assert Game(turn_hours=6).state.turn_ends_at == NOW + hours(6)


def test_two_actions_per_turn():
    """At peace only ECONOMY and PROPAGANDA can be rolled; a revoked ATTACK counts as one of the two."""
    game = Game()
    game.nation_with("Alpha", "alice", economy=10, military=5)
    game.do(RevokeAction("Alpha", "attack"))
    game.do(GrowEconomy(), actor="alice", dice=[1])
    game.refuse(Encourage("workers"), RuleViolation, "used all its actions this turn", actor="alice")


def test_one_action_per_turn_when_the_house_says_so():
    game = Game()
    game.do(SetHouse("actions_per_turn", "1"))
    game.nation_with("Alpha", "alice", economy=10, military=5)
    game.do(Encourage("morale"), actor="alice", dice=[5])
    game.refuse(GrowEconomy(), RuleViolation, "used all its actions", actor="alice")


@pytest.mark.parametrize(
    ("first", "second"),
    [
        (GrowEconomy(), GrowEconomy()),
        (GrowEconomy(), Recruit("infantry")),
        (GrowEconomy(), GrowMilitary()),
        (Recruit("infantry"), GrowMilitary()),
        (Encourage("workers"), Encourage("morale")),
        (Encourage("patriotism"), PropagandaAttack("Beta")),
        (PropagandaAttack("Beta"), Encourage("workers")),
    ],
    ids=lambda a: type(a).__name__,
)
def test_never_two_actions_of_the_same_kind_in_a_turn(first, second):
    game = Game()
    game.nation_with("Alpha", "alice", economy=14, military=4, units={"infantry": 1, "fighter": 1})
    game.nation_with("Beta", "bob")
    game.do(first, actor="alice", dice=[1])  # a failure still spends the action
    game.refuse(second, RuleViolation, "no doubling up", actor="alice")


def test_economy_and_propaganda_in_the_same_turn_are_allowed():
    game = Game()
    game.nation_with("Alpha", "alice", economy=10, military=5)
    game.do(GrowEconomy(), actor="alice", dice=[2])
    game.do(Encourage("workers"), actor="alice", dice=[2])
    assert game.nation("Alpha").actions_used == ["economy", "propaganda"]


def test_the_turn_rollover_resets_the_actions():
    game = Game()
    game.nation_with("Alpha", "alice", economy=10, military=5)
    game.do(GrowEconomy(), actor="alice", dice=[1])
    game.do(Encourage("workers"), actor="alice", dice=[1])

    game.advance(hours=12, seconds=-1)
    assert game.tick().events == []
    game.refuse(GrowEconomy(), RuleViolation, "no doubling up", actor="alice")

    game.advance(seconds=1)
    out = game.tick()
    assert rollovers(out) == [(1, NOW + hours(12), NOW + hours(24), "clock")]
    assert game.state.turn == 2
    assert game.nation("Alpha").actions_used == []
    roll = game.do(GrowEconomy(), actor="alice", dice=[1]).rolls[0]
    assert (roll.turn, roll.at) == (2, NOW + hours(12))
    assert game.nation("Alpha").actions_used == ["economy"]
    game.assert_replays()


def test_a_30_hour_gap_with_12_hour_turns_gives_exactly_two_rollovers():
    game = Game()
    game.advance(hours=30)
    out = game.tick()
    assert rollovers(out) == [
        (1, NOW + hours(12), NOW + hours(24), "clock"),
        (2, NOW + hours(24), NOW + hours(36), "clock"),
    ]
    assert (game.state.turn, game.state.turn_started_at, game.state.turn_ends_at) == (
        3, NOW + hours(24), NOW + hours(36))
    assert game.tick().events == []
    game.assert_replays()


def test_gm_grants_back_a_used_action_of_a_kind():
    game = Game()
    game.nation_with("Alpha", "alice", economy=8, military=4)
    game.do(GrowEconomy(), actor="alice", dice=[1])
    game.refuse(GrowEconomy(), RuleViolation, "no doubling up", actor="alice")
    game.do(GrantAction("Alpha", "economy"))
    assert game.nation("Alpha").actions_used == []
    game.do(GrowEconomy(), actor="alice", dice=[10])
    assert game.nation("Alpha").economy == 9
    game.refuse(GrantAction("Alpha", "propaganda"), RuleViolation, "has not used its PROPAGANDA")
    game.assert_replays()


def test_gm_grants_an_extra_action_when_none_is_used():
    game = Game()
    game.nation_with("Alpha", "alice", economy=8, military=4)
    game.do(RevokeAction("Alpha", "attack"))
    game.do(GrantAction("Alpha", "attack"))
    assert game.nation("Alpha").actions_used == []
    game.do(GrantAction("Alpha"))  # none used: one extra action this turn
    assert game.nation("Alpha").extra_actions == 1
    game.do(RevokeAction("Alpha", "attack"))
    game.do(GrowEconomy(), actor="alice", dice=[1])
    game.do(Encourage("morale"), actor="alice", dice=[1])  # third action thanks to the grant
    assert game.nation("Alpha").actions_used == ["attack", "economy", "propaganda"]
    game.advance(hours=12)
    game.tick()
    assert game.nation("Alpha").extra_actions == 0
    game.assert_replays()


def test_gm_revokes_an_action():
    game = Game()
    game.nation_with("Alpha", "alice", economy=8, military=4)
    game.do(RevokeAction("Alpha", "economy"))
    game.refuse(GrowEconomy(), RuleViolation, "no doubling up", actor="alice")
    game.refuse(RevokeAction("Alpha", "economy"), RuleViolation, "already used its ECONOMY")
    game.do(RevokeAction("Alpha"))  # the first unused kind: attack
    assert game.nation("Alpha").actions_used == ["economy", "attack"]
    game.refuse(Encourage("workers"), RuleViolation, "used all its actions", actor="alice")


# ================================================================================================
# Land
# ================================================================================================


def test_growth_that_would_break_the_land_cap_is_refused_before_rolling():
    game = Game()
    claim(game, GRACCHAN, "alice")  # E 12 + M 8 = L 20
    game.refuse(GrowEconomy(), RuleViolation, r"no room: E\+M = 20", actor="alice")
    assert game.nation(GRACCHAN).actions_used == []


def test_land_loss_cuts_the_larger_of_e_and_m_one_point_at_a_time_m_on_a_tie():
    game = Game()
    claim(game, GRACCHAN, "alice")
    out = game.do(SetStat(GRACCHAN, "land", 15))
    # (12, 8) -> E down to 8 (4 points), then the tie: M 7
    assert (game.nation(GRACCHAN).economy, game.nation(GRACCHAN).military) == (8, 7)
    cuts = [(e.stat, e.delta) for e in out.events if isinstance(e, StatChanged) and e.stat != "land"]
    assert cuts == [("economy", -4), ("military", -1)]
    game.assert_replays()


def test_land_cut_tie_is_a_house_setting():
    game = Game()
    game.do(SetHouse("land_cut_tie", "economy"))
    claim(game, GRACCHAN, "alice")
    game.do(SetStat(GRACCHAN, "land", 15))
    assert (game.nation(GRACCHAN).economy, game.nation(GRACCHAN).military) == (7, 8)


def test_a_nation_at_0_land_is_eliminated():
    game = Game()
    claim(game, GRACCHAN, "alice")
    out = game.do(SetStat(GRACCHAN, "land", 0))
    nation = game.nation(GRACCHAN)
    assert (nation.land, nation.economy, nation.military, nation.eliminated) == (0, 0, 0, True)
    assert any(isinstance(e, NationEliminated) for e in out.events)
    game.refuse(Encourage("morale"), RuleViolation, "has been eliminated", actor="alice")
    game.assert_replays()


def test_land_comes_in_provinces_of_5():
    assert rules().province_land == 5


# ================================================================================================
# Stability
# ================================================================================================


def test_effective_stability_is_base_minus_foreign_patches():
    game = Game()
    game.nation_with("Alpha", "alice", propaganda=12)
    game.nation_with("Beta", "bob", stability=10)
    game.do(SetStat("Beta", "foreign_patches", 3))
    assert game.nation("Beta").effective_stability == 7
    roll = game.do(PropagandaAttack("Beta"), actor="alice", dice=[6]).rolls[0]
    assert (roll.target, roll.total, roll.success) == (7, 7, False)


def test_effective_stability_never_below_0():
    game = Game()
    game.nation_with("Beta", "bob", stability=2)
    game.do(SetStat("Beta", "foreign_patches", 5))
    assert game.nation("Beta").effective_stability == 0


def test_trade_two_military_for_one_stability_no_roll_no_action():
    game = Game()
    game.nation_with("Alpha", "alice", economy=10, military=8, units={"infantry": 2, "fighter": 2})  # 6 MP
    game.do(RevokeAction("Alpha", "attack"))
    game.do(RevokeAction("Alpha", "economy"))  # every action used: trading still allowed
    out = game.do(RaiseStability(), actor="alice")
    assert out.rolls == []
    nation = game.nation("Alpha")
    assert (nation.military, nation.stability) == (6, 11)
    assert nation.actions_used == ["attack", "economy"]
    game.assert_replays()


def test_trade_refused_when_military_below_2():
    game = Game()
    game.nation_with("Alpha", "alice", military=1)
    game.refuse(RaiseStability(), RuleViolation, "costs 2 MILITARY and you have 1", actor="alice")


def test_trade_refused_when_the_army_would_exceed_the_new_military():
    game = Game()
    game.nation_with("Alpha", "alice", economy=10, military=8, units={"infantry": 3, "fighter": 2})  # 7 MP
    game.refuse(RaiseStability(), RuleViolation, "army costs 7 MP; with M 6", actor="alice")


# ================================================================================================
# Economy checks
# ================================================================================================


def test_grow_economy_fails_when_the_total_equals_e():
    game = Game()
    game.nation_with("Alpha", "alice", economy=8, military=4)
    out = game.do(GrowEconomy(), actor="alice", dice=[9])
    assert (out.rolls[0].total, out.rolls[0].success) == (8, False)
    assert game.nation("Alpha").economy == 8
    assert game.nation("Alpha").actions_used == ["economy"]


def test_grow_economy_succeeds_when_the_total_is_e_plus_1():
    game = Game()
    game.nation_with("Alpha", "alice", economy=8, military=4)
    out = game.do(GrowEconomy(), actor="alice", dice=[10])
    assert (out.rolls[0].total, out.rolls[0].success) == (9, True)
    assert game.nation("Alpha").economy == 9
    assert StatChanged("Alpha", "economy", 1, "grow economy") in out.events
    game.assert_replays()


def test_grow_military_success_gains_1_m_for_1_e():
    game = Game()
    game.nation_with("Alpha", "alice", economy=12, military=5)
    out = game.do(GrowMilitary(), actor="alice", dice=[5])  # 5 + mod(12)=1 -> 6 > 5
    roll = out.rolls[0]
    assert (roll.modifiers, roll.total, roll.target, roll.comparison, roll.success) == (
        {"mod(E)": 1}, 6, 5, ">", True)
    nation = game.nation("Alpha")
    assert (nation.economy, nation.military) == (11, 6)
    assert nation.actions_used == ["economy"]
    game.assert_replays()


def test_grow_military_failure_costs_nothing_by_default():
    game = Game()
    game.nation_with("Alpha", "alice", economy=12, military=5)
    out = game.do(GrowMilitary(), actor="alice", dice=[4])  # 4 + 1 = 5, not better than 5
    assert (out.rolls[0].total, out.rolls[0].success) == (5, False)
    nation = game.nation("Alpha")
    assert (nation.economy, nation.military) == (12, 5)
    assert nation.actions_used == ["economy"]


def test_grow_military_failure_costs_1_e_with_the_house_setting_off():
    game = Game()
    game.do(SetHouse("military_cost_on_success", "false"))
    game.nation_with("Alpha", "alice", economy=12, military=5)
    game.do(GrowMilitary(), actor="alice", dice=[4])
    nation = game.nation("Alpha")
    assert (nation.economy, nation.military) == (11, 5)
    game.assert_replays()


def test_grow_military_allowed_up_to_e_minus_1_plus_its_modifier():
    game = Game()
    game.nation_with("Alpha", "alice", economy=10, military=7)  # new M 8 <= 9 + mod(9) = 8
    out = game.do(GrowMilitary(), actor="alice", dice=[8])  # 8 + 0 > 7
    assert out.rolls[0].success
    assert (game.nation("Alpha").economy, game.nation("Alpha").military) == (9, 8)


def test_grow_military_refused_before_rolling_above_e_minus_1_plus_its_modifier():
    game = Game()
    game.nation_with("Alpha", "alice", economy=10, military=8)  # new M 9 > 9 + mod(9) = 8
    game.refuse(GrowMilitary(), RuleViolation, r"M would be 9, the cap after paying 1 E is 9-1 = 8", actor="alice")
    game.nation_with("Beta", "bob", economy=13, military=13, land=30)  # new M 14 > 12 + 1 = 13
    game.refuse(GrowMilitary(), RuleViolation, "M would be 14", actor="bob")
    game.nation_with("Gamma", "carol", economy=0, military=0)
    game.refuse(GrowMilitary(), RuleViolation, "costs 1 ECONOMY", actor="carol")


def test_workers_bonus_applies_to_economy_checks():
    game = Game()
    game.nation_with("Alpha", "alice", economy=12, military=5)
    game.do(Encourage("workers"), actor="alice", dice=[9])  # P 10: total 9 -> +3
    out = game.do(GrowEconomy(), actor="alice", dice=[9])  # 9 + 1 + 3 = 13 > 12
    roll = out.rolls[0]
    assert (roll.modifiers, roll.total, roll.success) == ({"mod(E)": 1, "Workers": 3}, 13, True)
    game.advance(hours=12)
    game.tick()
    out = game.do(GrowMilitary(), actor="alice", dice=[2])  # 2 + mod(13)=1 + 3 = 6 > 5
    roll = out.rolls[0]
    assert (roll.modifiers, roll.total, roll.success) == ({"mod(E)": 1, "Workers": 3}, 6, True)
    game.assert_replays()


def test_workers_bonus_applies_to_recruitment():
    game = Game()
    game.nation_with("Alpha", "alice", economy=10, military=8, strength="armour", weakness="bomber",
                     units={"armour": 1, "bomber": 1})
    game.do(Encourage("workers"), actor="alice", dice=[7])  # +2
    out = game.do(Recruit("armour"), actor="alice", dice=[9])  # 9 + 0 + 2 = 11 >= RD 11
    roll = out.rolls[0]
    assert (roll.modifiers, roll.total, roll.target, roll.comparison, roll.success) == (
        {"Workers": 2}, 11, 11, ">=", True)
    assert Counter(u.type for u in game.nation("Alpha").units.values()) == {"armour": 2, "bomber": 1}


# ================================================================================================
# Propaganda
# ================================================================================================


def test_propaganda_attack_success_with_exact_numbers():
    """P 12 (mod +1) vs Gracchan's S 10: die 10 -> 11 > 10. Spoils die 3 -> 9 land: Gracchan L 20 -> 11 and
    (E 12, M 8) cut one point at a time from the larger, M on a tie: (6, 5)."""
    game = Game()
    game.nation_with("Alpha", "alice", economy=10, military=5, propaganda=12)
    claim(game, GRACCHAN, "bob")
    out = game.do(PropagandaAttack(GRACCHAN), actor="alice", dice=[10, 3])
    attack, spoils = out.rolls
    assert (attack.purpose, attack.modifiers, attack.total, attack.target, attack.comparison, attack.success) == (
        f"propaganda attack on {GRACCHAN}", {"mod(P)": 1}, 11, 10, ">", True)
    assert (spoils.die, spoils.target, spoils.success) == (3, None, None)

    alpha, gracchan = game.nation("Alpha"), game.nation(GRACCHAN)
    assert stats(alpha) == (10, 10, 5, 13, 29)
    assert alpha.foreign_patches == 1
    assert alpha.effective_stability == 9
    assert stats(gracchan) == (6, 10, 5, 10, 11)
    cuts = [(e.stat, e.delta) for e in out.events if isinstance(e, StatChanged) and e.nation == GRACCHAN]
    assert cuts == [("land", -9), ("economy", -6), ("military", -3)]
    assert alpha.actions_used == ["propaganda"]
    game.assert_replays()


def test_propaganda_attack_fails_when_the_total_equals_the_stability():
    game = Game()
    game.nation_with("Alpha", "alice", propaganda=12)
    claim(game, GRACCHAN, "bob")
    before = snap(game.state)["nations"][1]
    out = game.do(PropagandaAttack(GRACCHAN), actor="alice", dice=[9])  # 9 + 1 = 10, not better than 10
    assert (out.rolls[0].total, out.rolls[0].success) == (10, False)
    assert len(out.rolls) == 1
    assert game.nation("Alpha").propaganda == 11
    assert game.nation("Alpha").land == 20
    assert game.nation("Alpha").foreign_patches == 0
    assert snap(game.state)["nations"][1] == before
    game.assert_replays()


def test_propaganda_never_below_0():
    game = Game()
    game.nation_with("Alpha", "alice", propaganda=0)
    game.nation_with("Beta", "bob")
    out = game.do(PropagandaAttack("Beta"), actor="alice", dice=[10])  # 10 - 5 = 5
    assert out.rolls[0].modifiers == {"mod(P)": -5}
    assert game.nation("Alpha").propaganda == 0
    assert not [e for e in out.events if isinstance(e, StatChanged)]


def test_spoils_are_capped_at_the_targets_land_and_0_land_eliminates():
    game = Game()
    game.nation_with("Alpha", "alice", propaganda=12)
    game.nation_with("Beta", "bob", economy=3, military=3, land=6)
    out = game.do(PropagandaAttack("Beta"), actor="alice", dice=[10, 10])  # 30 land, Beta has 6
    beta = game.nation("Beta")
    assert (beta.land, beta.economy, beta.military, beta.eliminated) == (0, 0, 0, True)
    assert NationEliminated("Beta", "no land left (propaganda by Alpha)") in out.events
    assert game.nation("Alpha").land == 26
    game.refuse(PropagandaAttack("Beta"), RuleViolation, "has been eliminated", actor="alice")
    game.assert_replays()


def test_the_targets_patriotism_adds_to_its_defence():
    game = Game()
    game.nation_with("Alpha", "alice", propaganda=14)
    game.nation_with("Beta", "bob")
    game.do(Encourage("patriotism"), actor="bob", dice=[9])  # +3
    roll = game.do(PropagandaAttack("Beta"), actor="alice", dice=[10]).rolls[0]  # 10 + 2 = 12, not > 13
    assert (roll.total, roll.target, roll.success) == (12, 13, False)


def test_propaganda_attack_on_self_or_unknown_is_refused():
    game = Game()
    game.nation_with("Alpha", "alice")
    game.refuse(PropagandaAttack("Alpha"), RuleViolation, "on itself", actor="alice")
    game.refuse(PropagandaAttack("alpha"), RuleViolation, "on itself", actor="alice")
    game.refuse(PropagandaAttack("Nowhere"), UnknownNation, actor="alice")


def test_propaganda_attack_on_an_eliminated_nation_is_refused():
    game = Game()
    game.nation_with("Alpha", "alice")
    game.nation_with("Beta", "bob")
    game.do(Eliminate("Beta"))
    game.refuse(PropagandaAttack("Beta"), RuleViolation, "Beta has been eliminated", actor="alice")


@pytest.mark.parametrize(
    ("total", "bonus"),
    [(-3, None), (1, None), (4, None), (5, 0), (6, 1), (7, 2), (8, 2), (9, 3), (10, 3), (11, 3),
     (12, 4), (13, 4), (14, 4), (15, 4), (16, 5), (17, 5), (20, 5), (21, 5), (25, 5)],
)
def test_encourage_bonus_table(total, bonus):
    assert rules().encourage_bonus(total) == bonus


@pytest.mark.parametrize(
    ("propaganda", "die", "total", "bonus"),
    [(10, 4, 4, None), (10, 5, 5, 0), (10, 6, 6, 1), (10, 8, 8, 2), (10, 9, 9, 3), (12, 10, 11, 3),
     (14, 10, 12, 4), (20, 10, 15, 4), (22, 10, 16, 5), (1, 10, 5, 0), (30, 10, 20, 5)],
)
def test_encourage_rolls_d10_plus_mod_p_and_reads_the_table(propaganda, die, total, bonus):
    game = Game()
    game.nation_with("Alpha", "alice", propaganda=propaganda)
    out = game.do(Encourage("workers"), actor="alice", dice=[die])
    roll = out.rolls[0]
    assert (roll.purpose, roll.total, roll.target, roll.comparison) == ("encourage workers", total, 5, ">=")
    nation = game.nation("Alpha")
    assert nation.propaganda == propaganda
    assert nation.actions_used == ["propaganda"]
    if bonus is None:
        assert nation.bonuses == {}
        assert not [e for e in out.events if isinstance(e, BonusSet)]
    else:
        assert nation.bonus("workers") == bonus
        assert nation.bonuses["workers"].expires_at == NOW + hours(36)
    game.assert_replays()


@pytest.mark.parametrize("kind", ["workers", "patriotism", "morale"])
def test_each_encourage_kind_is_stored(kind):
    game = Game()
    game.nation_with("Alpha", "alice")
    out = game.do(Encourage(kind.title()), actor="alice", dice=[7])
    assert BonusSet("Alpha", kind, 2, NOW + hours(36)) in out.events
    assert game.nation("Alpha").bonus(kind) == 2
    assert set(game.nation("Alpha").bonuses) == {kind}


def test_encourage_unknown_kind_is_refused():
    game = Game()
    game.nation_with("Alpha", "alice")
    game.refuse(Encourage("luck"), BadInput, "encourage what", actor="alice")


def test_bonus_lasts_36_hours_then_expires_with_an_event():
    game = Game()
    game.nation_with("Alpha", "alice")
    game.do(Encourage("morale"), actor="alice", dice=[9])  # +3 until NOW + 36 h
    game.advance(hours=36, seconds=-1)
    out = game.tick()
    assert not [e for e in out.events if isinstance(e, BonusExpired)]
    assert game.nation("Alpha").bonus("morale") == 3
    game.advance(seconds=1)
    out = game.tick()
    assert [e for e in out.events if isinstance(e, BonusExpired)] == [BonusExpired("Alpha", "morale", 3)]
    assert game.nation("Alpha").bonuses == {}
    game.assert_replays()


def test_a_new_bonus_of_the_same_kind_keeps_the_higher_value_and_the_later_expiry():
    game = Game()
    game.nation_with("Alpha", "alice")
    game.do(Encourage("workers"), actor="alice", dice=[6])  # +1 until +36 h
    game.advance(hours=12)
    game.tick()
    game.do(Encourage("workers"), actor="alice", dice=[9])  # +3 until +48 h
    held = game.nation("Alpha").bonuses["workers"]
    assert (held.value, held.expires_at) == (3, NOW + hours(48))
    game.advance(hours=12)
    game.tick()
    game.do(Encourage("workers"), actor="alice", dice=[6])  # +1 until +60 h: keeps +3, ends at +60 h
    held = game.nation("Alpha").bonuses["workers"]
    assert (held.value, held.expires_at) == (3, NOW + hours(60))
    game.advance(hours=36)  # +60 h
    out = game.tick()
    assert BonusExpired("Alpha", "workers", 3) in out.events
    game.assert_replays()


# ================================================================================================
# Units
# ================================================================================================

# (type, role, RD, MP, COMBAT, attack, defence, extra HP) as the seed's UNITS table gives them
PROFILES = [
    ("infantry", None, 7, 1, 0, 0, 0, 0), ("infantry", "strength", 7, 1, 0, 0, 0, 1),
    ("infantry", "weakness", 7, 1, 0, 0, -2, 0),
    ("armour", None, 13, 2, 3, 0, 0, 0), ("armour", "strength", 11, 2, 3, 0, 0, 0),
    ("armour", "weakness", 13, 3, 3, 0, 0, 0),
    ("fighter", None, 14, 2, 0, 0, 0, 0), ("fighter", "strength", 14, 2, 0, 2, 0, 0),
    ("fighter", "weakness", 14, 2, 0, -1, 0, 0),
    ("bomber", None, 16, 3, 2, 0, 0, 0), ("bomber", "strength", 16, 2, 2, 0, 0, 0),
    ("bomber", "weakness", 18, 3, 2, 0, 0, 0),
    ("warships", None, 13, 3, 3, 0, 0, 0), ("warships", "strength", 13, 3, 3, 0, 1, 0),
    ("warships", "weakness", 13, 3, 4, 0, 0, 0),
    ("submarines", None, 15, 2, 0, 0, 0, 0), ("submarines", "strength", 12, 2, 0, 0, 0, 0),
    ("submarines", "weakness", 15, 2, 0, -2, 0, 0),
]


@pytest.mark.parametrize(("unit_type", "role", "rd", "mp", "combat", "attack", "defence", "hp"), PROFILES)
def test_unit_profiles_follow_the_seed_table(unit_type, role, rd, mp, combat, attack, defence, hp):
    others = [t for t in ("infantry", "armour", "fighter") if t != unit_type]
    strength = unit_type if role == "strength" else others[0]
    weakness = unit_type if role == "weakness" else others[1]
    p = rules().profile(unit_type, strength, weakness)
    assert (p.rd, p.mp, p.combat, p.attack, p.defence, p.hp_bonus) == (rd, mp, combat, attack, defence, hp)


def test_unit_wins_and_fails_follow_the_seed_table():
    units = rules().units
    assert {n: (u.code, u.wins, u.fails) for n, u in units.items()} == {
        "infantry": ("IN", {}, {}),
        "armour": ("AR", {"infantry": 1}, {"bomber": -1}),
        "fighter": ("FT", {"submarines": 2}, {"fighter": -1}),
        "bomber": ("BM", {"warships": 2}, {"fighter": -2}),
        "warships": ("WR", {"warships": 1}, {"submarines": -2}),
        "submarines": ("SB", {"warships": 2}, {"warships": -1}),
    }


# label, strength, weakness, starting army (meets the quarter rule at M 12), type recruited, RD, MP
RECRUITS = [
    ("armour as STRENGTH", "armour", "fighter", {"armour": 2, "fighter": 2}, "armour", 11, 2),
    ("armour as WEAKNESS", "infantry", "armour", {"infantry": 3, "armour": 1}, "armour", 13, 3),
    ("bomber as STRENGTH", "bomber", "fighter", {"bomber": 2, "fighter": 2}, "bomber", 16, 2),
    ("bomber as WEAKNESS", "infantry", "bomber", {"infantry": 3, "bomber": 1}, "bomber", 18, 3),
    ("submarines as STRENGTH", "submarines", "fighter", {"submarines": 2, "fighter": 2}, "submarines", 12, 2),
    ("plain infantry", "armour", "fighter", {"armour": 2, "fighter": 2}, "infantry", 7, 1),
    ("plain warships", "armour", "fighter", {"armour": 2, "fighter": 2}, "warships", 13, 3),
]


def _recruiter(game: Game, strength, weakness, army, rd, military=12) -> None:
    economy = 10 + 2 * (rd - 10)  # mod(E) = RD - 10: a die of 10 makes exactly the RD
    game.nation_with("Alpha", "alice", economy=economy, military=military, land=economy + military,
                     strength=strength, weakness=weakness, units=army)


@pytest.mark.parametrize(("label", "strength", "weakness", "army", "unit_type", "rd", "mp"), RECRUITS,
                         ids=[r[0] for r in RECRUITS])
def test_recruitment_meets_the_difficulty(label, strength, weakness, army, unit_type, rd, mp):
    game = Game()
    _recruiter(game, strength, weakness, army, rd)
    out = game.do(Recruit(unit_type), actor="alice", dice=[10])
    roll = out.rolls[0]
    assert (roll.purpose, roll.total, roll.target, roll.comparison, roll.success) == (
        f"recruit {unit_type}", rd, rd, ">=", True)
    added = [e for e in out.events if isinstance(e, UnitAdded)]
    assert len(added) == 1
    assert (added[0].type, added[0].rank, added[0].hp) == (unit_type, "green", 2)
    assert game.nation("Alpha").actions_used == ["economy"]
    assert army_mp(rules(), game.nation("Alpha")) == army_mp(rules(), game.replayed().nations["Alpha"])
    game.assert_replays()


@pytest.mark.parametrize(("label", "strength", "weakness", "army", "unit_type", "rd", "mp"), RECRUITS,
                         ids=[r[0] for r in RECRUITS])
def test_recruitment_one_below_the_difficulty_fails(label, strength, weakness, army, unit_type, rd, mp):
    game = Game()
    _recruiter(game, strength, weakness, army, rd)
    units = dict(game.nation("Alpha").units)
    out = game.do(Recruit(unit_type), actor="alice", dice=[9])
    assert (out.rolls[0].total, out.rolls[0].success) == (rd - 1, False)
    assert game.nation("Alpha").units == units
    assert game.nation("Alpha").actions_used == ["economy"]


@pytest.mark.parametrize(("label", "strength", "weakness", "army", "unit_type", "rd", "mp"), RECRUITS,
                         ids=[r[0] for r in RECRUITS])
def test_recruitment_mp_cost_and_cap(label, strength, weakness, army, unit_type, rd, mp):
    """With room for exactly `mp` more MP the roll happens; with one MP less it is refused before rolling."""
    held = sum(rules().profile(t, strength, weakness).mp * n for t, n in army.items())
    game = Game()
    _recruiter(game, strength, weakness, army, rd, military=held + mp - 1)
    game.refuse(Recruit(unit_type), RuleViolation,
                f"no MP to spare: your army costs {held} MP, one {unit_type} unit {mp} more, and M is {held + mp - 1}",
                actor="alice")

    game = Game()
    _recruiter(game, strength, weakness, army, rd, military=held + mp)
    game.do(Recruit(unit_type), actor="alice", dice=[10])
    assert army_mp(rules(), game.nation("Alpha")) == held + mp == game.nation("Alpha").military


def test_recruitment_is_better_than_with_the_house_setting_off():
    game = Game()
    game.do(SetHouse("recruit_meets_difficulty", "false"))
    _recruiter(game, "armour", "fighter", {"armour": 2, "fighter": 2}, 11)
    roll = game.do(Recruit("armour"), actor="alice", dice=[10]).rolls[0]  # 11, not better than 11
    assert (roll.total, roll.target, roll.comparison, roll.success) == (11, 11, ">", False)
    game.advance(hours=12)
    game.tick()
    game.do(SetStat("Alpha", "land", 26))
    game.do(SetStat("Alpha", "economy", 14))  # mod +2
    roll = game.do(Recruit("armour"), actor="alice", dice=[10]).rolls[0]
    assert (roll.total, roll.success) == (12, True)
    game.assert_replays()


def test_infantry_as_strength_has_3_hp_when_green():
    game = Game()
    claim(game, GRACCHAN, "alice")
    hp = Counter((u.type, u.hp) for u in game.nation(GRACCHAN).units.values())
    assert hp == {("infantry", 3): 3, ("bomber", 2): 1, ("armour", 2): 1}
    game.do(AddUnit(GRACCHAN, "IN", "regular"))
    assert max(u.hp for u in game.nation(GRACCHAN).units.values()) == 4


def test_quarter_rule_strength_first():
    """STRENGTH infantry (1 MP), WEAKNESS fighter (2 MP), M 12: a quarter is 3 MP. Infantry hold 1 MP."""
    game = Game()
    game.nation_with("Alpha", "alice", economy=8, military=12, strength="infantry", weakness="fighter",
                     units={"infantry": 1, "fighter": 2})
    game.refuse(Recruit("armour"), RuleViolation, r"STRENGTH units \(infantry\) cost 1 MP, under a quarter of M 12 "
                r"\(3 MP\)", actor="alice")
    game.refuse(Recruit("fighter"), RuleViolation, r"STRENGTH units \(infantry\)", actor="alice")
    out = game.do(Recruit("infantry"), actor="alice", dice=[10])
    assert out.rolls[0].success


def test_quarter_rule_then_weakness():
    game = Game()
    game.nation_with("Alpha", "alice", economy=8, military=12, strength="infantry", weakness="fighter",
                     units={"infantry": 3, "fighter": 1})
    game.refuse(Recruit("armour"), RuleViolation, r"WEAKNESS units \(fighter\) cost 2 MP, under a quarter of M 12",
                actor="alice")
    game.refuse(Recruit("infantry"), RuleViolation, r"WEAKNESS units \(fighter\)", actor="alice")
    out = game.do(Recruit("fighter"), actor="alice", dice=[10])
    assert (out.rolls[0].target, out.rolls[0].success) == (14, False)


def test_quarter_rule_strength_may_be_recruited_while_both_are_short():
    game = Game()
    game.nation_with("Alpha", "alice", economy=8, military=12, strength="infantry", weakness="fighter",
                     units={"infantry": 1})
    game.refuse(Recruit("fighter"), RuleViolation, r"STRENGTH units \(infantry\)", actor="alice")
    out = game.do(Recruit("infantry"), actor="alice", dice=[10])  # 10 - 1 = 9 >= RD 7
    assert out.rolls[0].success


def test_an_army_over_its_cap_after_m_is_cut_keeps_its_units_and_cannot_recruit():
    game = Game()
    claim(game, GRACCHAN, "alice")  # 8 MP, M 8
    out = game.do(SetStat(GRACCHAN, "military", 6))
    notices = [e for e in out.events if isinstance(e, Notice)]
    assert len(notices) == 1 and "8 MP against M 6" in notices[0].text
    assert len(game.nation(GRACCHAN).units) == 5
    game.do(SetStat(GRACCHAN, "economy", 8))  # room to recruit, were the army in its cap
    game.refuse(Recruit("infantry"), RuleViolation, "no MP to spare: your army costs 8 MP", actor="alice")


def test_disband_no_roll_no_action():
    game = Game()
    claim(game, GRACCHAN, "alice")
    # The armour: neither STRENGTH nor WEAKNESS (disbanding the bomber would break the quarter rule since
    # issue 11; see tests/engine/nations/test_nations_rulings.py).
    armour = next(u.id for u in game.nation(GRACCHAN).units.values() if u.type == "armour")
    out = game.do(Disband(armour), actor="alice")
    assert out.rolls == []
    assert out.events == [UnitRemoved(GRACCHAN, armour, "armour", "disbanded")]
    assert game.nation(GRACCHAN).actions_used == []
    game.refuse(Disband(armour), UnknownUnit, actor="alice")
    claim(game, "Charon", "bob")
    charon_unit = next(iter(game.nation("Charon").units))
    game.refuse(Disband(charon_unit), RuleViolation, "belongs to Charon", actor="alice")
    game.assert_replays()


# ================================================================================================
# Nations and setup
# ================================================================================================

# slot, name, (E, S, M, P), STRENGTH, WEAKNESS, units, army MP
PRESETS = [
    (1, GRACCHAN, (12, 10, 8, 10), "infantry", "bomber", {"infantry": 3, "bomber": 1, "armour": 1}, 8),
    (7, "Charon", (11, 10, 9, 10), "armour", "bomber", {"armour": 3, "bomber": 1}, 9),
    (9, "Zombiestan", (10, 10, 10, 10), "bomber", "infantry", {"bomber": 2, "infantry": 3, "warships": 1}, 10),
    (10, "Sovatank", (8, 10, 12, 10), "warships", "submarines", {"warships": 2, "submarines": 2, "armour": 2}, 14),
    (11, "Merewyn", (10, 10, 10, 10), "armour", "infantry", {"armour": 3, "infantry": 4}, 10),
]


@pytest.mark.parametrize(("slot", "name", "esmp", "strength", "weakness", "units", "mp"), PRESETS,
                         ids=[str(p[0]) for p in PRESETS])
def test_seed_presets_import_exactly_as_written(slot, name, esmp, strength, weakness, units, mp):
    game = Game()
    if slot == 11:
        game.do(ClaimPreset("11", player="alice", name=name))
    else:
        game.do(ClaimPreset(str(slot)), actor="alice")
    nation = game.nation(name)
    e, s, m, p = esmp
    assert (nation.name, nation.player, nation.preset_slot) == (name, "alice", slot)
    assert stats(nation) == (e, s, m, p, 20)
    assert (nation.strength, nation.weakness) == (strength, weakness)
    assert Counter(u.type for u in nation.units.values()) == units
    assert {u.rank for u in nation.units.values()} == {"green"}
    expected_hp = {t: 3 if (t, strength) == ("infantry", "infantry") else 2 for t in units}
    assert all(u.hp == expected_hp[u.type] for u in nation.units.values())
    assert army_mp(rules(), nation) == mp
    assert (nation.foreign_patches, nation.bonuses, nation.actions_used) == (0, {}, [])
    game.assert_replays()


def test_presets_can_be_claimed_by_name_in_any_case():
    game = Game()
    game.do(ClaimPreset("gracchan republic"), actor="alice")
    assert game.nation(GRACCHAN).player == "alice"


def test_sovatank_is_reported_over_its_mp_cap():
    game = Game()
    out = game.do(ClaimPreset("Sovatank"), actor="alice")
    notices = [e for e in out.events if isinstance(e, Notice)]
    assert len(notices) == 1
    assert "14 MP" in notices[0].text and "M 12" in notices[0].text
    assert notices[0].nation == "Sovatank"
    assert len(game.nation("Sovatank").units) == 6


@pytest.mark.parametrize("preset", ["1", "7", "9"])
def test_presets_within_their_cap_get_no_notice(preset):
    out = Game().do(ClaimPreset(preset), actor="alice")
    assert not [e for e in out.events if isinstance(e, Notice)]


def test_sovatank_cannot_recruit_but_may_disband():
    game = Game()
    game.do(ClaimPreset("Sovatank"), actor="alice")
    game.do(SetStat("Sovatank", "land", 30))  # room to grow, so only the MP cap stands in the way
    for unit_type in ("infantry", "warships", "submarines", "armour"):
        game.refuse(Recruit(unit_type), RuleViolation, "no MP to spare: your army costs 14 MP", actor="alice")
    armour = [u.id for u in game.nation("Sovatank").units.values() if u.type == "armour"]
    game.do(Disband(armour[0]), actor="alice")
    assert army_mp(rules(), game.nation("Sovatank")) == 12
    game.refuse(Recruit("infantry"), RuleViolation, "your army costs 12 MP, one infantry unit 1 more", actor="alice")
    game.do(Disband(armour[1]), actor="alice")
    game.do(Recruit("infantry"), actor="alice", dice=[10])
    assert game.nation("Sovatank").actions_used == ["economy"]
    game.assert_replays()


def test_slot_11_is_named_in_the_claim_by_whoever_claims_it():
    # Ruling changed in issue 11: a player may claim slot 11 too (it was the GM's alone); either names it.
    game = Game()
    game.refuse(ClaimPreset("11"), BadInput, "no name in the seed: name it in the same command", actor="alice")
    game.refuse(ClaimPreset("11", player="alice"), BadInput, "no name in the seed")
    game.do(ClaimPreset("11", player="alice", name="Merewyn"))
    assert game.nation("Merewyn").preset_slot == 11
    game.refuse(ClaimPreset("11", player="bob", name="Other"), RuleViolation, "already claimed")


def test_a_preset_cannot_be_claimed_twice():
    game = Game()
    claim(game, "Charon", "alice")
    game.refuse(ClaimPreset("7"), RuleViolation, "preset 7 is already claimed: Charon", actor="bob")
    game.refuse(ClaimPreset("Charon", player="bob"), RuleViolation, "already claimed")


def test_a_player_cannot_hold_two_nations():
    game = Game()
    claim(game, "Charon", "alice")
    game.refuse(ClaimPreset("Zombiestan"), RuleViolation, "alice already plays Charon", actor="alice")
    game.refuse(CreateNation("Freedonia", 10, 10, "armour", "fighter", {"armour": 1, "fighter": 1}),
                RuleViolation, "alice already plays Charon", actor="alice")
    game.refuse(ClaimPreset("Zombiestan", player="ALICE"), RuleViolation, "already plays Charon")


def test_only_the_gm_claims_for_another_player():
    game = Game()
    game.refuse(ClaimPreset("Charon", player="bob"), NotGM, actor="alice")
    game.refuse(ClaimPreset("Atlantis"), BadInput, "no preset", actor="alice")


def test_a_custom_nation_follows_the_pattern():
    game = Game()
    out = game.do(CreateNation("Freedonia", 12, 8, "AR", "fighters", {"armour": 1, "FT": 1}), actor="alice")
    nation = game.nation("Freedonia")
    assert stats(nation) == (12, 10, 8, 10, 20)
    assert (nation.player, nation.strength, nation.weakness, nation.preset_slot) == (
        "alice", "armour", "fighter", None)
    assert sorted((u.type, u.rank, u.hp) for u in nation.units.values()) == [
        ("armour", "green", 2), ("fighter", "green", 2)]
    assert out.rolls == []
    game.assert_replays()


@pytest.mark.parametrize(
    ("action", "error", "match"),
    [
        (CreateNation("Bad", 12, 9, "armour", "fighter", {"armour": 1, "fighter": 1}), RuleViolation,
         r"E \+ M = 20; 12 \+ 9 = 21"),
        (CreateNation("Bad", 10, 9, "armour", "fighter", {"armour": 1, "fighter": 1}), RuleViolation,
         r"E \+ M = 20"),
        (CreateNation("Bad", 10, 10, "armour", "armour", {"armour": 2}), RuleViolation, "must be different"),
        (CreateNation("Bad", 12, 8, "armour", "fighter", {"armour": 3, "fighter": 2}), RuleViolation,
         "army costs 10 MP, more than M 8"),
        (CreateNation("Bad", 12, 8, "armour", "fighter", {"fighter": 1, "infantry": 2}), RuleViolation,
         r"STRENGTH units \(armour\) must cost at least a quarter of M 8, 2 MP; they cost 0"),
        (CreateNation("Bad", 12, 8, "armour", "fighter", {"armour": 2}), RuleViolation,
         r"WEAKNESS units \(fighter\) must cost at least a quarter of M 8, 2 MP; they cost 0"),
        (CreateNation("Bad", 12, 8, "tanks", "fighter", {}), BadInput, "unknown unit type"),
        (CreateNation("Bad", 21, -1, "armour", "fighter", {}), RuleViolation, "cannot be negative"),
        (CreateNation("Charon", 12, 8, "armour", "fighter", {"armour": 1, "fighter": 1}), RuleViolation,
         "already a nation called Charon"),
        (CreateNation("  ", 12, 8, "armour", "fighter", {"armour": 1, "fighter": 1}), BadInput, "needs a name"),
    ],
)
def test_custom_nation_validation(action, error, match):
    game = Game()
    claim(game, "Charon", "bob")
    game.refuse(action, error, match, actor="alice")


def test_custom_nation_with_a_quarter_of_0():
    game = Game()
    game.do(CreateNation("Pacifica", 20, 0, "infantry", "fighter"), actor="alice")
    assert game.nation("Pacifica").units == {}


# ================================================================================================
# Acting for a nation
# ================================================================================================


def test_players_act_for_their_own_nation_only():
    game = Game()
    game.nation_with("Alpha", "alice", economy=8, military=4)
    game.nation_with("Beta", "bob", economy=8, military=4)
    game.refuse(GrowEconomy("Beta"), NotYourNation, "Beta is not your nation", actor="alice")
    game.refuse(GrowEconomy(), RuleViolation, "you have no nation", actor="carol")
    game.do(GrowEconomy("alpha"), actor="ALICE", dice=[1])
    game.do(GrowEconomy("Beta"), dice=[10])  # the GM may act for any nation
    assert game.nation("Beta").economy == 9


# ================================================================================================
# GM powers
# ================================================================================================


def test_gm_sets_and_adjusts_stats():
    game = Game()
    claim(game, GRACCHAN, "alice")
    out = game.do(SetStat(GRACCHAN, "S", 13))
    assert out.events == [StatChanged(GRACCHAN, "stability", 3, "set by GM", "gm")]
    game.do(SetStat(GRACCHAN, "propaganda", -4, relative=True))
    game.do(SetStat(GRACCHAN, "land", 5, relative=True))
    game.do(SetStat(GRACCHAN, "E", 15))
    assert stats(game.nation(GRACCHAN)) == (15, 13, 8, 6, 25)
    # Since issue 11 a GM's E or M over the land applies, with a warning (tests/engine/nations/test_nations_rulings.py).
    game.refuse(SetStat(GRACCHAN, "economy", -16), RuleViolation, "ECONOMY cannot go below 0")
    game.refuse(SetStat(GRACCHAN, "stability", 13), RuleViolation, "already 13")
    game.refuse(SetStat(GRACCHAN, "luck", 3), BadInput, "unknown stat")
    game.refuse(SetStat("Nowhere", "economy", 3), UnknownNation)
    game.assert_replays()


def test_gm_economy_above_land_applies_with_a_warning():
    # Ruling changed in issue 11: a GM fixes anything (this was refused "E+M would be 21, over ... land 20").
    game = Game()
    claim(game, GRACCHAN, "alice")
    out = game.do(SetStat(GRACCHAN, "economy", 13))
    assert out.events == [
        StatChanged(GRACCHAN, "economy", 1, "set by GM", "gm"),
        Notice(f"GM override: {GRACCHAN} now breaks the rules: E+M = 21 is over its land 20.", nation=GRACCHAN),
    ]


def test_gm_adds_removes_and_ranks_units():
    game = Game()
    claim(game, GRACCHAN, "alice")
    out = game.do(AddUnit(GRACCHAN, "armour", "elite"))
    new = out.events[0]
    assert isinstance(new, UnitAdded)
    assert (new.unit, new.type, new.rank, new.hp) == (6, "armour", "elite", 4)
    assert any(isinstance(e, Notice) and "10 MP against M 8" in e.text for e in out.events)

    game.do(SetUnitRank(6, "conscript"))
    assert (game.nation(GRACCHAN).units[6].rank, game.nation(GRACCHAN).units[6].hp) == ("conscript", 1)
    game.do(SetUnitRank(1, "guard", hp=2))  # infantry as STRENGTH: GUARD has 6 HP
    assert (game.nation(GRACCHAN).units[1].rank, game.nation(GRACCHAN).units[1].hp) == ("guard", 2)
    game.refuse(SetUnitRank(1, "guard", hp=7), RuleViolation, "1 to 6 HP, not 7")
    game.refuse(SetUnitRank(1, "captain"), BadInput, "unknown rank")

    game.do(RemoveUnit(6))
    assert 6 not in game.nation(GRACCHAN).units
    game.refuse(RemoveUnit(6), UnknownUnit)
    game.refuse(AddUnit(GRACCHAN, "zeppelin"), BadInput)
    game.assert_replays()


def test_gm_assigns_a_nation():
    game = Game()
    claim(game, "Charon", "alice")
    claim(game, "Zombiestan", "carol")
    game.refuse(AssignNation("Charon", "carol"), RuleViolation, "carol already plays Zombiestan")
    game.refuse(AssignNation("Charon", "alice"), RuleViolation, "already played by alice")
    out = game.do(AssignNation("Charon", "bob"))
    assert out.events[0].by == GM
    assert game.nation("Charon").player == "bob"
    game.refuse(Encourage("morale", "Charon"), NotYourNation, actor="alice")
    game.refuse(Encourage("morale"), RuleViolation, "no nation", actor="alice")
    game.do(Encourage("morale"), actor="bob", dice=[1])
    game.do(AssignNation("Charon", None))
    assert game.nation("Charon").player is None
    game.assert_replays()


def test_gm_eliminates_and_restores():
    game = Game()
    game.nation_with("Alpha", "alice", economy=8, military=4)
    game.do(Eliminate("Alpha"))
    assert game.nation("Alpha").eliminated
    game.refuse(GrowEconomy(), RuleViolation, "Alpha has been eliminated", actor="alice")
    game.refuse(Eliminate("Alpha"), RuleViolation, "has been eliminated")
    game.do(Restore("Alpha"))
    assert not game.nation("Alpha").eliminated
    game.refuse(Restore("Alpha"), RuleViolation, "not eliminated")
    game.do(GrowEconomy(), actor="alice", dice=[10])
    assert game.nation("Alpha").economy == 9

    game.do(SetStat("Alpha", "land", 0))
    game.refuse(Restore("Alpha"), RuleViolation, "no land")
    game.do(SetStat("Alpha", "land", 10))
    game.do(Restore("Alpha"))
    assert stats(game.nation("Alpha")) == (0, 10, 0, 10, 10)
    game.assert_replays()


def test_pause_freezes_the_turn_deadline():
    game = Game()
    game.advance(hours=4)
    game.do(PauseClock())
    assert (game.state.paused, game.state.paused_remaining) == (True, 8 * 3600)
    game.refuse(PauseClock(), RuleViolation, "already paused")
    game.advance(hours=20)  # NOW + 24 h: the old deadline long gone
    assert game.tick().events == []
    assert game.state.turn == 1
    game.do(ResumeClock())
    assert game.state.turn_ends_at == NOW + hours(32)
    game.refuse(ResumeClock(), RuleViolation, "not paused")
    game.advance(hours=8, seconds=-1)
    assert game.tick().events == []
    game.advance(seconds=1)
    assert rollovers(game.tick()) == [(1, NOW + hours(32), NOW + hours(44), "clock")]
    game.assert_replays()


def test_bonuses_are_held_while_the_clock_is_paused():
    game = Game()
    game.nation_with("Alpha", "alice")
    game.do(Encourage("morale"), actor="alice", dice=[9])
    game.do(PauseClock())
    game.advance(hours=36)
    assert game.tick().events == []  # a pause holds every deadline (tests/engine/nations/test_pause.py)
    game.do(ResumeClock())
    game.advance(hours=36)
    assert [e for e in game.tick().events if not isinstance(e, TurnEnded)] == [BonusExpired("Alpha", "morale", 3)]


def test_gm_changes_the_turn_length():
    game = Game()
    game.advance(hours=2)
    game.do(SetTurnLength(24))
    assert (game.state.turn_hours, game.state.turn_started_at, game.state.turn_ends_at) == (
        24, NOW, NOW + hours(24))
    game.advance(hours=22)
    assert rollovers(game.tick()) == [(1, NOW + hours(24), NOW + hours(48), "clock")]
    game.refuse(SetTurnLength(0), BadInput)
    game.refuse(SetTurnLength(24 * 15), BadInput)
    game.assert_replays()


def test_the_turn_length_changed_while_paused_moves_the_remaining_time():
    game = Game()
    game.advance(hours=4)
    game.do(PauseClock())  # 8 h left
    game.do(SetTurnLength(24))  # 20 h left
    assert game.state.paused_remaining == 20 * 3600
    game.advance(hours=6)
    game.do(ResumeClock())
    assert game.state.turn_ends_at == NOW + hours(30)


def test_the_turn_length_is_changed_with_the_clock_command_not_the_house_setting():
    game = Game()
    game.refuse(SetHouse("turn_hours", "6"), BadInput, "/gm clock length")


def test_gm_ends_the_turn_now():
    game = Game()
    game.nation_with("Alpha", "alice", economy=8, military=4)
    game.do(GrowEconomy(), actor="alice", dice=[1])
    game.advance(hours=5)
    out = game.do(EndTurn())
    assert rollovers(out) == [(1, NOW + hours(5), NOW + hours(17), "gm")]
    assert game.nation("Alpha").actions_used == []
    game.do(GrowEconomy(), actor="alice", dice=[1])
    game.assert_replays()


@pytest.mark.parametrize(
    "action",
    [QueueDice([5]), ClearDice(), SetStat("Alpha", "economy", 5), AddUnit("Alpha", "infantry"), RemoveUnit(1),
     SetUnitRank(1, "elite"), GrantAction("Alpha"), RevokeAction("Alpha"), AssignNation("Alpha", "bob"),
     Eliminate("Alpha"), Restore("Alpha"), SetHouse("turn_hours", "6"), PauseClock(), ResumeClock(),
     SetTurnLength(6), EndTurn(), EndGame()],
    ids=lambda a: type(a).__name__,
)
def test_gm_powers_are_refused_to_players(action):
    game = Game()
    game.nation_with("Alpha", "alice", units={"infantry": 1})
    game.refuse(action, NotGM, "only the GM", actor="alice")


def test_gm_entered_dice_are_used_first_and_flagged():
    game = Game()
    game.nation_with("Alpha", "alice", economy=8, military=4)
    game.nation_with("Beta", "bob", propaganda=12)
    out = game.do(QueueDice([10, 2]))
    assert out.events == [DiceQueued([10, 2], GM)]
    game.refuse(Recruit("armour"), RuleViolation, "STRENGTH", actor="alice")  # a refusal uses no entered die
    assert game.state.forced_dice == [10, 2]

    roll = game.do(GrowEconomy(), actor="alice").rolls[0]  # the player's roller holds no die
    assert (roll.die, roll.forced, roll.success) == (10, True, True)
    assert game.state.forced_dice == [2]
    out = game.do(PropagandaAttack("Alpha"), actor="bob")  # entered 2: 2 + 1 = 3, a failure
    assert [(r.die, r.forced) for r in out.rolls] == [(2, True)]
    game.do(QueueDice([4, 4]))
    game.do(ClearDice())
    assert game.state.forced_dice == []
    game.refuse(ClearDice(), RuleViolation, "no entered dice")
    game.assert_replays()


def test_gm_entered_dice_then_real_dice():
    game = Game()
    game.nation_with("Alpha", "alice", propaganda=12)
    game.nation_with("Beta", "bob")
    game.do(QueueDice([10]))
    out = game.do(PropagandaAttack("Beta"), actor="alice", dice=[2])  # forced 10 succeeds, the spoils roll 2
    assert [(r.die, r.forced) for r in out.rolls] == [(10, True), (2, False)]
    assert game.nation("Beta").land == 14


def test_the_roller_is_not_touched_by_a_refusal():
    game = Game()
    claim(game, GRACCHAN, "alice")
    roller = ForcedRoller()
    ctx = game.context("alice")
    ctx.roller = roller
    with pytest.raises(RuleViolation):
        execute(game.state, GrowEconomy(), ctx)
    assert roller.used == 0


def test_an_ended_game_refuses_every_action():
    game = Game()
    game.nation_with("Alpha", "alice", economy=8, military=4)
    game.do(EndGame())
    assert game.state.ended
    for action, actor in [(GrowEconomy(), "alice"), (Tick(), GM), (SetStat("Alpha", "economy", 3), GM),
                          (EndGame(), GM), (ClaimPreset("Charon"), "bob"), (QueueDice([3]), GM)]:
        game.refuse(action, NoGame, "ended", actor=actor)
    game.assert_replays()


# ================================================================================================
# Replay of a longer game
# ================================================================================================


def test_a_longer_game_replays_to_the_same_state():
    game = Game()
    claim(game, GRACCHAN, "alice")
    claim(game, "Charon", "bob")
    game.do(ClaimPreset("11", player="carol", name="Merewyn"))
    game.do(Encourage("workers"), actor="bob", dice=[9])
    game.do(PropagandaAttack("Merewyn"), actor="alice", dice=[10])  # 10 + 0 = 10, not better than 10
    game.do(QueueDice([10, 4]))
    game.do(SetStat(GRACCHAN, "propaganda", 12))
    game.advance(hours=13)
    game.tick()
    game.do(PropagandaAttack("Merewyn"), actor="alice")  # entered dice: 11 > 10, then 12 land
    game.do(PauseClock())
    game.advance(hours=50)
    game.tick()
    game.do(ResumeClock())
    game.advance(hours=30)
    game.tick()
    merewyn = game.nation("Merewyn")
    assert (merewyn.land, merewyn.economy, merewyn.military) == (8, 4, 4)
    assert game.nation(GRACCHAN).land == 32
    assert game.nation("Charon").bonuses == {}
    assert game.state.turn == 4
    game.assert_replays()
    through_json = [event_from_dict(json.loads(json.dumps(event_to_dict(e))), "nations") for e in game.events]
    assert snap(replay(through_json)) == snap(game.state)
    assert snap(state_from_dict(snap(game.state))) == snap(game.state)
