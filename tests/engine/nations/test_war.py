"""War (RULINGS.md section 1, "War", "Units", "Nations and setup"; seed 003 UNITS, PROMOTION, DEMOTION).

Every scenario runs with exact dice (a ForcedRoller through `helpers.Game.do`, which also checks that every
die given was rolled and that `execute` did not mutate its input) and asserts each die's purpose, modifiers,
total and target, the HP/rank after each step and the final state; each ends with state == replay(events).
"""

from __future__ import annotations

import random
from datetime import timedelta
from typing import Any

import pytest
from helpers import GM, NOW, Game, hours
from hypothesis import HealthCheck, given, settings
from hypothesis import event as note
from hypothesis import strategies as st

from engine.clock import Tick
from engine.core import Context, execute
from engine.dice import RandomRoller
from engine.errors import BadInput, NotGM, NotYourNation, RuleViolation, UnknownNation, UnknownUnit
from engine.events import Event, replay
from engine.gm import SetHouse
from engine.nations.clock import EndTurn
from engine.nations.events import (
    BattleAwaits,
    BattleEnded,
    ChoiceDefaulted,
    ChoiceReminded,
    DuelStarted,
    NationEliminated,
    StatChanged,
    UnitChanged,
    UnitRemoved,
    UnitsCommitted,
)
from engine.nations.gm import AddUnit, RemoveUnit, RevokeAction, SetStat, SetUnitRank
from engine.nations.peace import ClaimPreset, Disband, Encourage
from engine.nations.snapshot import state_to_dict
from engine.nations.war import CancelBattle, CommitUnits, DecideChoice, DeclareAttack, OrderRetreat, PairUnits

TYPES = ("infantry", "armour", "fighter", "bomber", "warships", "submarines")
RANKS = ("conscript", "green", "regular", "elite", "guard")


# --- helpers -------------------------------------------------------------------------------------


def army(game: Game, name: str, player: str | None, units: list[tuple[str, str]], *, strength: str = "armour",
         weakness: str = "bomber", **stats: int) -> list[int]:
    """A nation with exact stats and units of exact ranks (GM AddUnit); returns the unit ids in order."""
    game.nation_with(name, player, strength=strength, weakness=weakness, **stats)
    ids = []
    for unit_type, rank in units:
        before = game.state.next_unit_id
        game.do(AddUnit(name, unit_type, rank))
        ids.append(before)
    return ids


def unit(game: Game, unit_id: int) -> tuple[str, int, int | None]:
    """(rank, HP, battle) of a unit."""
    owner = game.state.unit_owner(unit_id)
    assert owner is not None, f"unit #{unit_id} is gone"
    u = owner.units[unit_id]
    return u.rank, u.hp, u.battle


def rolls(outcome: Any) -> list[tuple]:
    """Each die as (nation, purpose, die, modifiers, total, target, success)."""
    return [(r.nation, r.purpose, r.die, r.modifiers, r.total, r.target, r.success) for r in outcome.rolls]


def changes(outcome: Any) -> list[tuple[int, str, int, str]]:
    """Each unit change as (unit, new rank, new HP, reason): the HP/rank after each step."""
    return [(e.unit, e.rank, e.hp, e.reason) for e in outcome.events if isinstance(e, UnitChanged)]


def stat_changes(outcome: Any) -> list[tuple[str, str, int]]:
    return [(e.nation, e.stat, e.delta) for e in outcome.events if isinstance(e, StatChanged)]


def of(outcome: Any, kind: type) -> list[Event]:
    return [e for e in outcome.events if isinstance(e, kind)]


def stats(game: Game, name: str) -> dict[str, int]:
    n = game.nation(name)
    return {"E": n.economy, "S": n.stability, "M": n.military, "P": n.propaganda, "L": n.land,
            "patches": n.foreign_patches}


def one_on_one(game: Game, att: tuple[str, str], dfn: tuple[str, str], att_sw=("armour", "bomber"),
               def_sw=("armour", "bomber"), att_stats: dict | None = None, def_stats: dict | None = None
               ) -> tuple[int, int]:
    """Avalon (alice) with one unit `att` = (type, rank) and Brigid (bob) with one unit `dfn`."""
    (a,) = army(game, "Avalon", "alice", [att], strength=att_sw[0], weakness=att_sw[1], **(att_stats or {}))
    (d,) = army(game, "Brigid", "bob", [dfn], strength=def_sw[0], weakness=def_sw[1], **(def_stats or {}))
    return a, d


# --- the full battle -----------------------------------------------------------------------------


def test_full_battle_three_against_two_with_retreat_death_promotion_demotion_and_conquest(game):
    a_in, a_ar, a_ft = army(game, "Avalon", "alice", [("infantry", "regular"), ("armour", "green"),
                                                      ("fighter", "green")],
                            strength="infantry", weakness="fighter", economy=10, military=10)
    d_ar, d_bm, d_in = army(game, "Brigid", "bob", [("armour", "elite"), ("bomber", "green"),
                                                    ("infantry", "green")],
                            strength="armour", weakness="bomber", economy=12, military=8)
    assert (a_in, a_ar, a_ft, d_ar, d_bm, d_in) == (1, 2, 3, 4, 5, 6)
    # Infantry as STRENGTH: REGULAR 3 + 1 HP; the others the rank's HP.
    assert [unit(game, i) for i in range(1, 7)] == [
        ("regular", 4, None), ("green", 2, None), ("green", 2, None),
        ("elite", 4, None), ("green", 2, None), ("green", 2, None),
    ]

    # Declaring: the ATTACK action, no die; the battle waits for Brigid's commitment for a third of the 12-hour
    # turn (4 hours), with a reminder half-way.
    out = game.do(DeclareAttack("Brigid", [1, 2, 3]), actor="alice")
    assert out.rolls == []
    battle = game.state.battles[1]
    assert (battle.attacker, battle.defender, battle.stage, battle.attacking) == ("Avalon", "Brigid", "commit",
                                                                                [1, 2, 3])
    assert (battle.deadline, battle.reminder_at) == (NOW + hours(4), NOW + hours(2))
    assert game.nation("Avalon").actions_used == ["attack"]
    assert [unit(game, i)[2] for i in (1, 2, 3)] == [1, 1, 1]

    # Committing: initiative at once, the attacker's die first. 6 + mod(M 10) 0 = 6 > 5 + mod(M 8) -1 = 4.
    game.advance(minutes=10)
    out = game.do(CommitUnits([4, 5]), actor="bob", dice=[6, 5])
    assert rolls(out) == [
        ("Avalon", "initiative (attacker), battle #1", 6, {}, 6, None, None),
        ("Brigid", "initiative (defender), battle #1", 5, {"mod(M)": -1}, 4, None, None),
    ]
    battle = game.state.battles[1]
    assert (battle.initiative, battle.stage, battle.defending) == ("attacker", "pairing", [4, 5])
    assert battle.deadline == NOW + timedelta(minutes=10) + hours(4)
    assert of(out, BattleAwaits)[-1].nation == "Avalon"
    assert game.nation("Brigid").actions_used == []  # defending costs no action

    # A standing order: Brigid's armour retreats when its HP falls to 3 or less.
    game.do(OrderRetreat(4, at_hp=3), actor="bob")
    assert game.state.battles[1].retreat_orders == {4: 3}

    # Duel 1: #2 armour (COMBAT 3, FAILS vs bomber -1) against #5 bomber (COMBAT 2).
    out = game.do(PairUnits(2, 5), actor="alice", dice=[5, 6, 6, 9, 3, 2, 8, 4, 5])
    assert rolls(out) == [
        ("Avalon", "combat, #2 armour vs #5 bomber", 5, {"COMBAT": 3, "FAILS vs bomber": -1}, 7, None, None),
        ("Brigid", "combat, #5 bomber vs #2 armour", 6, {"COMBAT": 2}, 8, None, None),
        ("Avalon", "demotion of #2 armour (needs 6+)", 6, {}, 6, 6, True),  # GREEN vs GREEN
        ("Avalon", "combat, #2 armour vs #5 bomber", 9, {"COMBAT": 3, "FAILS vs bomber": -1}, 11, None, None),
        ("Brigid", "combat, #5 bomber vs #2 armour", 3, {"COMBAT": 2}, 5, None, None),
        ("Brigid", "demotion of #5 bomber (needs 7+)", 2, {}, 2, 7, False),  # GREEN vs CONSCRIPT
        ("Avalon", "combat, #2 armour vs #5 bomber", 8, {"COMBAT": 3, "FAILS vs bomber": -1}, 10, None, None),
        ("Brigid", "combat, #5 bomber vs #2 armour", 4, {"COMBAT": 2}, 6, None, None),
        ("Avalon", "promotion of #2 armour (needs 5+)", 5, {}, 5, 5, True),  # CONSCRIPT vs GREEN
    ]
    assert changes(out) == [
        (2, "green", 1, "wounded in battle #1"),
        (2, "conscript", 1, "demoted"),  # down to CONSCRIPT
        (5, "green", 1, "wounded in battle #1"),
        (5, "green", 0, "wounded in battle #1"),
        (2, "green", 1, "promoted"),  # promotion does not heal
    ]
    assert [(e.unit, e.reason) for e in of(out, UnitRemoved)] == [(5, "killed in battle #1")]
    assert 5 not in game.nation("Brigid").units
    assert unit(game, 2) == ("green", 1, 1)
    battle = game.state.battles[1]
    assert (battle.in_fight_attacking, battle.in_fight_defending, battle.stage) == ([1, 2, 3], [4], "pairing")
    assert of(out, BattleAwaits)[-1].nation == "Avalon"  # 3 against 1 is still a choice

    # Duel 2: #1 infantry (no modifier) against #4 armour (COMBAT 3, WINS vs infantry +1), ordered to retreat at 3.
    out = game.do(PairUnits(1, 4), actor="alice", dice=[10, 5, 7, 4, 1, 9, 2, 8])
    assert rolls(out) == [
        ("Avalon", "combat, #1 infantry vs #4 armour", 10, {}, 10, None, None),
        ("Brigid", "combat, #4 armour vs #1 infantry", 5, {"COMBAT": 3, "WINS vs infantry": 1}, 9, None, None),
        ("Brigid", "demotion of #4 armour (needs 7+)", 7, {}, 7, 7, True),  # ELITE vs REGULAR
        ("Brigid", "retreat of #4 armour, battle #1", 4, {}, 4, 8, False),  # d10 + mod(S 10) 0 > M 8?
        ("Brigid", "demotion of #4 armour (needs 6+)", 1, {}, 1, 6, False),  # REGULAR vs REGULAR
        ("Brigid", "retreat of #4 armour, battle #1", 9, {}, 9, 8, True),
        ("Avalon", "promotion of #1 infantry (needs 6+)", 2, {}, 2, 6, False),
        ("Brigid", "promotion of #4 armour (needs 6+)", 8, {"retreated": -2}, 6, 6, True),
    ]
    assert changes(out) == [
        (4, "elite", 3, "wounded in battle #1"),
        (4, "regular", 3, "demoted"),
        (4, "regular", 2, "wounded in battle #1"),  # the failed retreat costs 1 HP
        (4, "elite", 2, "promoted"),
        (2, "green", 2, "back to full HP after the battle"),
        (4, "elite", 4, "back to full HP after the battle"),
    ]
    # Conquest: P +1 / -1, Brigid 20 -> 15 land and E 12 M 8 cut one point at a time from the larger
    # (E, E, E, E, then M on the 8-8 tie): E 8 M 7; Avalon +5 land and one foreign patch.
    assert stat_changes(out) == [
        ("Avalon", "propaganda", 1), ("Brigid", "propaganda", -1),
        ("Brigid", "land", -5), ("Brigid", "economy", -4), ("Brigid", "military", -1),
        ("Avalon", "land", 5), ("Avalon", "foreign_patches", 1),
    ]
    ended = of(out, BattleEnded)
    assert [(e.result, e.winner, e.loser) for e in ended] == [("attacker won", "Avalon", "Brigid")]
    assert stats(game, "Avalon") == {"E": 10, "S": 10, "M": 10, "P": 11, "L": 25, "patches": 1}
    assert game.nation("Avalon").effective_stability == 9
    assert stats(game, "Brigid") == {"E": 8, "S": 10, "M": 7, "P": 9, "L": 15, "patches": 0}
    # Survivors back to full HP, every unit free again.
    assert [unit(game, i) for i in (1, 2, 3, 4, 6)] == [
        ("regular", 4, None), ("green", 2, None), ("green", 2, None), ("elite", 4, None), ("green", 2, None),
    ]
    battle = game.state.battles[1]
    assert (battle.stage, battle.result, battle.deadline) == ("over", "attacker won", None)
    assert (battle.in_fight_attacking, battle.in_fight_defending) == ([1, 2, 3], [])
    # The battle report: every duel with every round.
    assert battle.duels == [
        {"attacker_unit": 2, "defender_unit": 5, "attacker_type": "armour", "defender_type": "bomber",
         "chosen_by": "Avalon", "outcome": "the defender's #5 bomber was killed", "rounds": [
             {"kind": "round", "attacker_total": 7, "defender_total": 8, "loser": 2},
             {"kind": "round", "attacker_total": 11, "defender_total": 5, "loser": 5},
             {"kind": "round", "attacker_total": 10, "defender_total": 6, "loser": 5},
         ]},
        {"attacker_unit": 1, "defender_unit": 4, "attacker_type": "infantry", "defender_type": "armour",
         "chosen_by": "Avalon", "outcome": "the defender's #4 armour retreated", "rounds": [
             {"kind": "round", "attacker_total": 10, "defender_total": 9, "loser": 4},
             {"kind": "retreat", "unit": 4, "side": "defender", "total": 4, "target": 8, "success": False},
             {"kind": "retreat", "unit": 4, "side": "defender", "total": 9, "target": 8, "success": True},
         ]},
    ]
    game.assert_replays()


# --- no defenders --------------------------------------------------------------------------------


def test_attack_on_a_nation_without_units_wins_at_once_without_dice(game):
    army(game, "Avalon", "alice", [("armour", "green")])
    army(game, "Brigid", "bob", [], economy=10, military=10)
    out = game.do(DeclareAttack("Brigid", [1]), actor="alice", dice=[])
    assert out.rolls == []
    assert [(e.result, e.winner, e.loser) for e in of(out, BattleEnded)] == [("attacker won", "Avalon", "Brigid")]
    assert not of(out, BattleAwaits)
    # Brigid E 10 M 10 on 15 land: M (tie), E, M, E, M -> E 8 M 7.
    assert stats(game, "Brigid") == {"E": 8, "S": 10, "M": 7, "P": 9, "L": 15, "patches": 0}
    assert stats(game, "Avalon")["L"] == 25 and stats(game, "Avalon")["P"] == 11
    assert stats(game, "Avalon")["patches"] == 1
    assert unit(game, 1) == ("green", 2, None)
    assert game.state.battles[1].result == "attacker won"
    assert game.nation("Avalon").actions_used == ["attack"]
    game.assert_replays()


def test_attack_on_a_nation_whose_units_are_all_busy_wins_at_once(game):
    army(game, "Avalon", "alice", [("armour", "green")])
    army(game, "Brigid", "bob", [("infantry", "green")])
    army(game, "Cato", "carol", [("infantry", "green")])
    game.do(DeclareAttack("Cato", [2]), actor="bob")  # Brigid's only unit is now in battle #1
    out = game.do(DeclareAttack("Brigid", [1]), actor="alice", dice=[])
    assert out.rolls == []
    assert game.state.battles[2].result == "attacker won"
    assert unit(game, 2) == ("green", 2, 1)  # still in battle #1
    assert game.state.battles[1].stage == "commit"
    game.assert_replays()


# --- ties ----------------------------------------------------------------------------------------


def test_initiative_tie_goes_to_the_defender_who_picks_the_pairing(game):
    army(game, "Avalon", "alice", [("infantry", "green"), ("infantry", "green")], military=10, economy=10)
    army(game, "Brigid", "bob", [("infantry", "green"), ("infantry", "green")], military=8, economy=10)
    game.do(DeclareAttack("Brigid", [1, 2]), actor="alice")
    out = game.do(CommitUnits([3, 4]), actor="bob", dice=[7, 8])
    assert rolls(out) == [
        ("Avalon", "initiative (attacker), battle #1", 7, {}, 7, None, None),
        ("Brigid", "initiative (defender), battle #1", 8, {"mod(M)": -1}, 7, None, None),
    ]
    assert game.state.battles[1].initiative == "defender"
    assert of(out, BattleAwaits)[-1].nation == "Brigid"
    game.refuse(PairUnits(1, 3, battle=1), RuleViolation, "Brigid won the initiative in battle #1", actor="alice")
    out = game.do(PairUnits(1, 3), actor="bob", dice=[5, 5, 1, 5, 5, 1])  # two tied rounds: #1 dies
    assert of(out, DuelStarted)[0].chosen_by == "Brigid"
    assert of(out, BattleAwaits)[-1].nation == "Brigid"  # 1 against 2: Brigid pairs again
    # #2 kills #4; then 1 against 1 is the only pairing, made at once.
    out = game.do(PairUnits(2, 4), actor="bob", dice=[10, 1, 1, 10, 1, 1] * 2)
    assert [(e.attacker_unit, e.defender_unit, e.chosen_by) for e in of(out, DuelStarted)] == [
        (2, 4, "Brigid"), (2, 3, "only pairing")]
    assert game.state.battles[1].result == "attacker won"
    game.assert_replays()


def test_round_tie_the_attacking_unit_loses_the_hp(game):
    a, d = one_on_one(game, ("armour", "conscript"), ("infantry", "conscript"),
                      att_sw=("fighter", "bomber"), def_sw=("fighter", "bomber"))
    game.do(DeclareAttack("Brigid", [a]), actor="alice")
    # 3 + COMBAT 3 + WINS vs IN 1 = 7 against 7: a tie; the defender wins it, the attacking unit loses 1 HP.
    out = game.do(CommitUnits([d]), actor="bob", dice=[6, 5, 3, 7, 1])
    assert rolls(out)[2:] == [
        ("Avalon", "combat, #1 armour vs #2 infantry", 3, {"COMBAT": 3, "WINS vs infantry": 1}, 7, None, None),
        ("Brigid", "combat, #2 infantry vs #1 armour", 7, {}, 7, None, None),
        ("Brigid", "promotion of #2 infantry (needs 6+)", 1, {}, 1, 6, False),
    ]
    assert game.state.battles[1].duels[0]["rounds"] == [
        {"kind": "round", "attacker_total": 7, "defender_total": 7, "loser": 1}]
    assert changes(out)[0] == (1, "conscript", 0, "wounded in battle #1")
    assert [(e.result, e.winner) for e in of(out, BattleEnded)] == [("defender won", "Brigid")]
    assert stats(game, "Avalon")["P"] == 9 and stats(game, "Brigid")["P"] == 11
    assert stats(game, "Brigid")["L"] == 20 and stats(game, "Avalon")["L"] == 20  # no land changes hands
    assert 1 not in game.nation("Avalon").units
    game.assert_replays()


# --- the units table and STRENGTH/WEAKNESS -------------------------------------------------------

NEUTRAL = ("armour", "bomber")
MODIFIER_CASES = [
    # id, attacking unit, attacker's (STRENGTH, WEAKNESS), defending unit, defender's, attack mods, defence mods
    ("AR WINS vs IN +1", "armour", ("bomber", "fighter"), "infantry", ("bomber", "fighter"),
     {"COMBAT": 3, "WINS vs infantry": 1}, {}),
    ("AR FAILS vs BM -1", "armour", ("infantry", "fighter"), "bomber", ("infantry", "fighter"),
     {"COMBAT": 3, "FAILS vs bomber": -1}, {"COMBAT": 2}),
    ("FT WINS vs SB +2", "fighter", ("infantry", "bomber"), "submarines", ("infantry", "bomber"),
     {"WINS vs submarines": 2}, {}),
    ("FT FAILS vs FT -1", "fighter", ("infantry", "bomber"), "fighter", ("infantry", "bomber"),
     {"FAILS vs fighter": -1}, {"FAILS vs fighter": -1}),
    ("BM WINS vs WR +2", "bomber", ("infantry", "fighter"), "warships", ("infantry", "fighter"),
     {"COMBAT": 2, "WINS vs warships": 2}, {"COMBAT": 3}),
    ("BM FAILS vs FT -2", "bomber", ("infantry", "armour"), "fighter", ("infantry", "armour"),
     {"COMBAT": 2, "FAILS vs fighter": -2}, {}),
    ("WR WINS vs WR +1", "warships", ("infantry", "fighter"), "warships", ("infantry", "fighter"),
     {"COMBAT": 3, "WINS vs warships": 1}, {"COMBAT": 3, "WINS vs warships": 1}),
    ("WR FAILS vs SB -2", "warships", ("infantry", "fighter"), "submarines", ("infantry", "fighter"),
     {"COMBAT": 3, "FAILS vs submarines": -2}, {"WINS vs warships": 2, "FAILS vs warships": -1}),
    ("SB vs WR: WINS +2 and FAILS -1 as written", "submarines", ("infantry", "fighter"), "warships",
     ("infantry", "fighter"), {"WINS vs warships": 2, "FAILS vs warships": -1},
     {"COMBAT": 3, "FAILS vs submarines": -2}),
    ("FT STRENGTH attack +2 when attacking", "fighter", ("fighter", "bomber"), "infantry", NEUTRAL,
     {"attack": 2}, {}),
    ("FT STRENGTH nothing when defending", "infantry", NEUTRAL, "fighter", ("fighter", "bomber"), {}, {}),
    ("FT WEAKNESS attack -1", "fighter", ("infantry", "fighter"), "infantry", NEUTRAL, {"attack": -1}, {}),
    ("IN WEAKNESS defence -2 when defending", "infantry", NEUTRAL, "infantry", ("armour", "infantry"),
     {}, {"defence": -2}),
    ("IN WEAKNESS nothing when attacking", "infantry", ("armour", "infantry"), "infantry", NEUTRAL, {}, {}),
    ("WR STRENGTH defence +1 when defending", "infantry", NEUTRAL, "warships", ("warships", "bomber"),
     {}, {"COMBAT": 3, "defence": 1}),
    ("WR STRENGTH nothing when attacking", "warships", ("warships", "bomber"), "infantry", NEUTRAL,
     {"COMBAT": 3}, {}),
    ("WR WEAKNESS COMBAT +1 attacking", "warships", ("infantry", "warships"), "infantry", NEUTRAL,
     {"COMBAT": 4}, {}),
    ("WR WEAKNESS COMBAT +1 defending", "infantry", NEUTRAL, "warships", ("infantry", "warships"),
     {}, {"COMBAT": 4}),
    ("SB WEAKNESS attack -2", "submarines", ("infantry", "submarines"), "infantry", NEUTRAL, {"attack": -2}, {}),
    ("SB WEAKNESS nothing when defending", "infantry", NEUTRAL, "submarines", ("infantry", "submarines"), {}, {}),
    ("AR/BM STRENGTH change no combat", "armour", ("armour", "bomber"), "bomber", ("bomber", "infantry"),
     {"COMBAT": 3, "FAILS vs bomber": -1}, {"COMBAT": 2}),
]


@pytest.mark.parametrize(("att_type", "att_sw", "def_type", "def_sw", "att_mods", "def_mods"),
                         [c[1:] for c in MODIFIER_CASES], ids=[c[0] for c in MODIFIER_CASES])
def test_combat_modifiers_of_the_units_table(game, att_type, att_sw, def_type, def_sw, att_mods, def_mods):
    a, d = one_on_one(game, (att_type, "conscript"), (def_type, "conscript"), att_sw, def_sw)
    game.do(DeclareAttack("Brigid", [a]), actor="alice")
    out = game.do(CommitUnits([d]), actor="bob", dice=[6, 5, 10, 1, 1])
    assert rolls(out)[2:] == [
        ("Avalon", f"combat, #1 {att_type} vs #2 {def_type}", 10, att_mods, 10 + sum(att_mods.values()), None, None),
        ("Brigid", f"combat, #2 {def_type} vs #1 {att_type}", 1, def_mods, 1 + sum(def_mods.values()), None, None),
        ("Avalon", f"promotion of #1 {att_type} (needs 6+)", 1, {}, 1, 6, False),
    ]
    assert game.state.battles[1].result == "attacker won"
    game.assert_replays()


def test_infantry_strength_has_one_more_hp_at_every_rank(game):
    ids = army(game, "Avalon", "alice", [("infantry", r) for r in RANKS] + [("armour", r) for r in RANKS],
               strength="infantry", weakness="fighter")
    assert [unit(game, i)[1] for i in ids] == [2, 3, 4, 5, 6, 1, 2, 3, 4, 5]


def test_morale_adds_to_initiative_and_every_combat_roll_and_mod_m_to_initiative(game):
    a, d = one_on_one(game, ("infantry", "conscript"), ("infantry", "conscript"),
                      att_stats={"economy": 6, "military": 14}, def_stats={"economy": 10, "military": 7})
    out = game.do(Encourage("morale"), actor="alice", dice=[7])  # 7 + mod(P 10) 0 = 7: +2
    out = game.do(Encourage("morale"), actor="bob", dice=[9])  # 9: +3
    assert game.nation("Avalon").bonus("morale") == 2 and game.nation("Brigid").bonus("morale") == 3
    game.do(DeclareAttack("Brigid", [a]), actor="alice")
    out = game.do(CommitUnits([d]), actor="bob", dice=[3, 9, 10, 1, 1])
    assert rolls(out) == [
        ("Avalon", "initiative (attacker), battle #1", 3, {"mod(M)": 2, "Morale": 2}, 7, None, None),
        ("Brigid", "initiative (defender), battle #1", 9, {"mod(M)": -2, "Morale": 3}, 10, None, None),
        ("Avalon", "combat, #1 infantry vs #2 infantry", 10, {"Morale": 2}, 12, None, None),
        ("Brigid", "combat, #2 infantry vs #1 infantry", 1, {"Morale": 3}, 4, None, None),
        ("Avalon", "promotion of #1 infantry (needs 6+)", 1, {}, 1, 6, False),
    ]
    assert game.state.battles[1].initiative == "defender"
    game.assert_replays()


def test_retreat_rolls_mod_s_of_effective_stability_plus_patriotism_against_own_military(game):
    a, d = one_on_one(game, ("infantry", "conscript"), ("infantry", "green"),
                      def_stats={"stability": 14, "military": 10, "economy": 10})
    game.do(SetStat("Brigid", "foreign_patches", 2))  # effective S 12: mod +1
    game.do(Encourage("patriotism"), actor="bob", dice=[9])  # +3
    game.do(DeclareAttack("Brigid", [a]), actor="alice")
    # retreat_at 2: the GREEN unit (2 HP) tries at once, before any round.
    out = game.do(CommitUnits([d], retreat_at=2), actor="bob", dice=[6, 5, 6, 3, 7, 1, 10])
    assert rolls(out)[2:] == [
        ("Brigid", "retreat of #2 infantry, battle #1", 6, {"mod(S)": 1, "Patriotism": 3}, 10, 10, False),
        ("Brigid", "demotion of #2 infantry (needs 7+)", 3, {}, 3, 7, False),  # GREEN vs CONSCRIPT
        ("Brigid", "retreat of #2 infantry, battle #1", 7, {"mod(S)": 1, "Patriotism": 3}, 11, 10, True),
        ("Avalon", "promotion of #1 infantry (needs 5+)", 1, {}, 1, 5, False),
        ("Brigid", "promotion of #2 infantry (needs 7+)", 10, {"retreated": -2}, 8, 7, True),
    ]
    assert changes(out) == [
        (2, "green", 1, "wounded in battle #1"),
        (2, "regular", 1, "promoted"),
        (2, "regular", 3, "back to full HP after the battle"),
    ]
    assert game.state.battles[1].result == "attacker won"
    game.assert_replays()


# --- retreats, promotion and demotion ------------------------------------------------------------


def test_both_units_retreating_the_attacker_tries_first_then_its_demotion_roll(game):
    a, d = one_on_one(game, ("infantry", "green"), ("infantry", "green"), def_stats={"military": 8, "economy": 10})
    game.do(DeclareAttack("Brigid", [a], retreat_at=2), actor="alice")
    out = game.do(CommitUnits([d], retreat_at=2), actor="bob", dice=[6, 5, 4, 6, 9, 2, 10])
    assert rolls(out)[2:] == [
        ("Avalon", "retreat of #1 infantry, battle #1", 4, {}, 4, 10, False),  # 4 > M 10? no: -1 HP
        ("Avalon", "demotion of #1 infantry (needs 6+)", 6, {}, 6, 6, True),  # GREEN vs GREEN
        ("Brigid", "retreat of #2 infantry, battle #1", 9, {}, 9, 8, True),  # 9 > M 8
        ("Avalon", "promotion of #1 infantry (needs 5+)", 2, {}, 2, 5, False),  # CONSCRIPT vs GREEN
        ("Brigid", "promotion of #2 infantry (needs 7+)", 10, {"retreated": -2}, 8, 7, True),  # GREEN vs CONSCRIPT
    ]
    assert changes(out) == [
        (1, "green", 1, "wounded in battle #1"),
        (1, "conscript", 1, "demoted"),
        (2, "regular", 2, "promoted"),
        (2, "regular", 3, "back to full HP after the battle"),
    ]
    assert game.state.battles[1].result == "attacker won"
    game.assert_replays()


def test_retreat_then_promotion_minus_two_and_no_heal(game):
    a, d = one_on_one(game, ("infantry", "green"), ("infantry", "green"), att_stats={"military": 9, "economy": 10})
    game.do(DeclareAttack("Brigid", [a]), actor="alice")
    game.do(OrderRetreat(a), actor="alice")  # retreat now
    assert game.state.battles[1].retreat_orders == {1: None}
    # Both want to retreat; the attacker tries first, succeeds, and the duel is over: the defender never tries.
    out = game.do(CommitUnits([d], retreat_at=2), actor="bob", dice=[6, 5, 10, 7, 6])
    assert game.state.battles[1].retreat_orders == {1: None, 2: 2}
    assert rolls(out)[2:] == [
        ("Avalon", "retreat of #1 infantry, battle #1", 10, {}, 10, 9, True),  # 10 > M 9
        ("Avalon", "promotion of #1 infantry (needs 6+)", 7, {"retreated": -2}, 5, 6, False),
        ("Brigid", "promotion of #2 infantry (needs 6+)", 6, {}, 6, 6, True),  # it did not retreat: no -2
    ]
    assert changes(out) == [(2, "regular", 2, "promoted"), (2, "regular", 3, "back to full HP after the battle")]
    assert [(e.result, e.winner, e.loser) for e in of(out, BattleEnded)] == [("defender won", "Brigid", "Avalon")]
    assert game.state.battles[1].duels[0]["outcome"] == "the attacker's #1 infantry retreated"
    assert unit(game, 1) == ("green", 2, None) and unit(game, 2) == ("regular", 3, None)
    assert stats(game, "Avalon")["P"] == 9 and stats(game, "Brigid")["P"] == 11
    game.assert_replays()


DEMOTION_CASES = [
    # id, defender (STRENGTH, WEAKNESS), unit type, rank, HP set, retreat at, need, rank after, HP after
    ("ELITE 4 HP -> 3 -> REGULAR keeps 3", ("armour", "bomber"), "armour", "elite", None, 3, 5, "regular", 3),
    ("GUARD IN-strength 6 -> 5 -> ELITE keeps 5", ("infantry", "bomber"), "infantry", "guard", None, 5, 6,
     "elite", 5),
    ("ELITE IN-strength 5 -> 4 -> REGULAR keeps 4", ("infantry", "bomber"), "infantry", "elite", None, 4, 5,
     "regular", 4),
    ("ELITE at 2 HP -> 1 -> REGULAR keeps 1", ("armour", "bomber"), "armour", "elite", 2, 1, 5, "regular", 1),
    ("GREEN 2 -> 1 -> CONSCRIPT 1", ("armour", "bomber"), "fighter", "green", None, 1, 3, "conscript", 1),
]


@pytest.mark.parametrize(("def_sw", "def_type", "rank", "hp", "retreat_at", "need", "new_rank", "new_hp"),
                         [c[1:] for c in DEMOTION_CASES], ids=[c[0] for c in DEMOTION_CASES])
def test_demotion_cuts_hp_to_the_new_rank(game, def_sw, def_type, rank, hp, retreat_at, need, new_rank, new_hp):
    # A GUARD attacker: no promotion roll for it (GUARD is the top); the opponent column is GRD.
    a, d = one_on_one(game, ("infantry", "guard"), (def_type, rank), att_sw=("fighter", "bomber"), def_sw=def_sw,
                      def_stats={"military": 8, "economy": 10})
    if hp is not None:
        game.do(SetUnitRank(d, rank, hp))
    start = unit(game, d)[1]
    game.do(DeclareAttack("Brigid", [a]), actor="alice")
    out = game.do(CommitUnits([d], retreat_at=retreat_at), actor="bob", dice=[6, 5, 10, 1, 10, 10, 1])
    purposes = [r[1] for r in rolls(out)]
    assert rolls(out)[4] == ("Brigid", f"demotion of #2 {def_type} (needs {need}+)", 10, {}, 10, need, True)
    assert purposes[5] == f"retreat of #2 {def_type}, battle #1"
    assert not any(p.startswith("promotion of #1 infantry") for p in purposes)  # GUARD: no promotion roll
    assert changes(out)[:2] == [
        (d, rank, start - 1, "wounded in battle #1"),
        (d, new_rank, new_hp, "demoted"),
    ]
    top = game.rules.max_hp(def_type, new_rank, *def_sw)
    assert new_hp <= top
    game.assert_replays()


def test_conscript_rolls_no_demotion(game):
    a, d = one_on_one(game, ("infantry", "guard"), ("infantry", "conscript"), att_sw=("fighter", "bomber"),
                      def_sw=("infantry", "bomber"), def_stats={"military": 8, "economy": 10})
    assert unit(game, d) == ("conscript", 2, None)  # Infantry STRENGTH: CONSCRIPT with 2 HP
    game.do(DeclareAttack("Brigid", [a]), actor="alice")
    out = game.do(CommitUnits([d], retreat_at=1), actor="bob", dice=[6, 5, 10, 1, 10, 1])
    assert [r[1] for r in rolls(out)][2:] == [
        "combat, #1 infantry vs #2 infantry", "combat, #2 infantry vs #1 infantry",
        "retreat of #2 infantry, battle #1", "promotion of #2 infantry (needs 2+)",
    ]
    assert changes(out)[0] == (2, "conscript", 1, "wounded in battle #1")
    game.assert_replays()


def test_promotion_column_is_the_opponents_rank_in_the_duel_not_after_its_promotion(game):
    a, d = one_on_one(game, ("infantry", "regular"), ("infantry", "regular"), def_stats={"military": 8,
                                                                                         "economy": 10})
    game.do(DeclareAttack("Brigid", [a]), actor="alice")
    out = game.do(CommitUnits([d], retreat_at=3), actor="bob", dice=[6, 5, 10, 6, 7])
    assert rolls(out)[2:] == [
        ("Brigid", "retreat of #2 infantry, battle #1", 10, {}, 10, 8, True),
        ("Avalon", "promotion of #1 infantry (needs 6+)", 6, {}, 6, 6, True),
        ("Brigid", "promotion of #2 infantry (needs 6+)", 7, {"retreated": -2}, 5, 6, False),
    ]
    assert unit(game, d)[0] == "regular"


# --- deadlines -----------------------------------------------------------------------------------


def test_commit_deadline_defaults_to_the_strongest_free_units(game):
    army(game, "Avalon", "alice", [("infantry", "conscript")], strength="armour", weakness="bomber")
    ids = army(game, "Brigid", "bob", [
        ("armour", "guard"),        # 2: strongest, but busy in Brigid's own attack
        ("infantry", "green"),      # 3: 2 HP + 0 - 2 (WEAKNESS defence) = 0
        ("armour", "green"),        # 4: 2 + 3 = 5
        ("warships", "green"),      # 5: 2 + 3 + 1 (STRENGTH defence) = 6
        ("bomber", "regular"),      # 6: 3 + 2 = 5, REGULAR beats the GREEN armour's 5
        ("fighter", "elite"),       # 7: 4 + 0 = 4
        ("submarines", "green"),    # 8: 2
    ], strength="warships", weakness="infantry")
    assert ids == [2, 3, 4, 5, 6, 7, 8]
    army(game, "Cato", "carol", [("infantry", "green")])
    game.do(SetHouse("choice_deadline_hours", "5"))
    game.do(DeclareAttack("Cato", [2]), actor="bob")  # battle #1 waits 5 hours
    game.do(SetHouse("choice_deadline_hours", "1"))
    game.do(DeclareAttack("Brigid", [1]), actor="alice")  # battle #2 waits 1 hour, reminded after half of it
    assert (game.state.battles[2].deadline, game.state.battles[2].reminder_at) == (NOW + hours(1), NOW + hours(0.5))

    game.advance(minutes=29)
    assert game.tick().events == []  # not yet
    game.advance(minutes=1)
    assert game.tick().events == [ChoiceReminded(2, "commit", "Brigid", "bob", NOW + hours(1))]
    assert game.state.battles[2].reminder_at is None  # once
    game.advance(minutes=29)
    assert game.tick().events == []
    game.advance(minutes=1)
    out = game.do(Tick(), dice=[2, 8])  # mod(M 10) both: the defender wins the initiative
    defaulted = of(out, ChoiceDefaulted)
    assert [(e.battle, e.choice, e.nation, e.default) for e in defaulted] == [
        (2, "commit", "Brigid", "its strongest free units #5, #6, #4")]
    assert out.events.index(defaulted[0]) < out.events.index(of(out, UnitsCommitted)[0])
    assert [(e.units, e.by) for e in of(out, UnitsCommitted)] == [([5, 6, 4], "default")]
    assert rolls(out) == [
        ("Avalon", "initiative (attacker), battle #2", 2, {}, 2, None, None),
        ("Brigid", "initiative (defender), battle #2", 8, {}, 8, None, None),
    ]
    battle = game.state.battles[2]
    assert (battle.stage, battle.initiative, battle.deadline) == ("pairing", "defender", NOW + hours(2))
    assert game.state.battles[1].stage == "commit"  # its deadline is 5 hours away
    # The pairing deadline passes too: strongest against strongest, #1 against the #5 warships.
    game.advance(hours=1)
    out = game.do(Tick(), dice=[1, 1, 1])
    assert [(e.choice, e.nation, e.default) for e in of(out, ChoiceDefaulted)] == [
        ("pairing", "Brigid", "strongest against strongest: #1 against #5")]
    assert of(out, DuelStarted)[0].chosen_by == "default"
    assert rolls(out) == [
        ("Avalon", "combat, #1 infantry vs #5 warships", 1, {}, 1, None, None),
        ("Brigid", "combat, #5 warships vs #1 infantry", 1, {"COMBAT": 3, "defence": 1}, 5, None, None),
        ("Brigid", "promotion of #5 warships (needs 7+)", 1, {}, 1, 7, False),
    ]
    assert game.state.battles[2].result == "defender won"
    game.assert_replays()


def test_commit_deadline_with_no_free_units_left_the_attacker_wins(game):
    army(game, "Avalon", "alice", [("infantry", "green")])                   # 1
    army(game, "Brigid", "bob", [("infantry", "green")])                     # 2
    army(game, "Cato", "carol", [("infantry", "green"), ("infantry", "green")])  # 3, 4
    game.do(DeclareAttack("Brigid", [1]), actor="alice")  # battle #1, due at +4 h (a third of the turn)
    game.advance(minutes=30)
    game.do(DeclareAttack("Brigid", [3, 4]), actor="carol")  # battle #2
    # Without battle:, a commitment goes to the oldest battle waiting for it; Brigid names #2.
    game.do(CommitUnits([2], battle=2), actor="bob", dice=[9, 1])  # Cato pairs, due at +4 h 30
    game.advance(hours=3, minutes=30)
    out = game.do(Tick(), dice=[])
    assert [(e.battle, e.choice, e.nation, e.default) for e in of(out, ChoiceDefaulted)] == [
        (1, "commit", "Brigid", "no free units: the attacker wins")]
    assert game.state.battles[1].result == "attacker won"
    assert stats(game, "Brigid")["L"] == 15 and stats(game, "Avalon")["L"] == 25
    assert game.state.battles[2].stage == "pairing" and unit(game, 2)[2] == 2
    game.assert_replays()


def test_pairing_deadline_defaults_strongest_against_strongest_each_time(game):
    army(game, "Avalon", "alice", [("armour", "green"), ("fighter", "elite")], strength="fighter",
         weakness="bomber")  # armour 2 + 3 = 5; fighter 4 + 0 + 2 (STRENGTH attack) = 6
    army(game, "Brigid", "bob", [("armour", "conscript"), ("warships", "conscript")], strength="warships",
         weakness="infantry")  # armour 1 + 3 = 4; warships 1 + 3 + 1 (STRENGTH defence) = 5
    game.do(DeclareAttack("Brigid", [1, 2]), actor="alice")
    game.do(CommitUnits([3, 4]), actor="bob", dice=[9, 1])
    assert game.state.battles[1].initiative == "attacker"
    deadline = game.state.battles[1].deadline
    assert deadline == NOW + hours(4)
    game.now = deadline
    out = game.do(Tick(), dice=[8, 2, 1])
    assert [(e.choice, e.nation, e.default) for e in of(out, ChoiceDefaulted)] == [
        ("pairing", "Avalon", "strongest against strongest: #2 against #4")]
    assert rolls(out) == [
        ("Avalon", "combat, #2 fighter vs #4 warships", 8, {"attack": 2}, 10, None, None),
        ("Brigid", "combat, #4 warships vs #2 fighter", 2, {"COMBAT": 3, "defence": 1}, 6, None, None),
        ("Avalon", "promotion of #2 fighter (needs 9+)", 1, {}, 1, 9, False),
    ]
    battle = game.state.battles[1]
    assert (battle.stage, battle.deadline) == ("pairing", deadline + hours(4))  # 2 against 1: a new choice
    game.now = battle.deadline
    out = game.do(Tick(), dice=[9, 1, 1])
    assert [e.default for e in of(out, ChoiceDefaulted)] == ["strongest against strongest: #2 against #3"]
    assert rolls(out)[:2] == [
        ("Avalon", "combat, #2 fighter vs #3 armour", 9, {"attack": 2}, 11, None, None),
        ("Brigid", "combat, #3 armour vs #2 fighter", 1, {"COMBAT": 3}, 4, None, None),
    ]
    assert game.state.battles[1].result == "attacker won"
    game.assert_replays()


# --- conquest: the E/M cut and elimination -------------------------------------------------------


@pytest.mark.parametrize(("economy", "military", "land", "after"), [
    (12, 8, 20, (8, 7, 15)),   # E E E E, then M on the tie
    (10, 10, 20, (8, 7, 15)),  # M (tie) E M E M
    (5, 5, 20, (5, 5, 15)),    # fits: no cut
    (3, 12, 20, (3, 12, 15)),  # E+M 15 fits 15
    (2, 17, 20, (2, 13, 15)),  # M M M M
])
def test_conquest_cuts_e_and_m_one_point_at_a_time_from_the_larger(game, economy, military, land, after):
    army(game, "Avalon", "alice", [("infantry", "green")])
    army(game, "Brigid", "bob", [], economy=economy, military=military, land=land)
    game.do(DeclareAttack("Brigid", [1]), actor="alice")
    n = game.nation("Brigid")
    assert (n.economy, n.military, n.land) == after
    assert not n.eliminated
    game.assert_replays()


@pytest.mark.parametrize(("economy", "military", "land"), [(3, 2, 5), (1, 1, 3)])
def test_conquest_of_a_nation_at_5_land_or_less_eliminates_it(game, economy, military, land):
    army(game, "Avalon", "alice", [("infantry", "green")])
    army(game, "Brigid", "bob", [], economy=economy, military=military, land=land)
    land_before = game.nation("Avalon").land
    out = game.do(DeclareAttack("Brigid", [1]), actor="alice")
    n = game.nation("Brigid")
    assert (n.economy, n.military, n.land, n.eliminated) == (0, 0, 0, True)
    # Ruling (changed in issue 11): the winner gains exactly what the loser lost, at most 5: land is never
    # created (it was +5 however little the loser had left).
    assert game.nation("Avalon").land == land_before + land
    assert ("Avalon", "land", land) in stat_changes(out) and ("Brigid", "land", -land) in stat_changes(out)
    assert stats(game, "Avalon")["patches"] == 1
    assert [e.nation for e in of(out, NationEliminated)] == ["Brigid"]
    game.refuse(DeclareAttack("Brigid", [1]), RuleViolation, "eliminated", actor="alice")
    game.assert_replays()


# --- refusals ------------------------------------------------------------------------------------


def test_illegal_moves_are_refused_with_the_reason_no_die_and_no_change(game):
    army(game, "Avalon", "alice", [("infantry", "green")] * 4)  # 1-4
    army(game, "Brigid", "bob", [("infantry", "green")] * 4)    # 5-8
    army(game, "Cato", "carol", [("infantry", "green")])        # 9
    game.refuse(DeclareAttack("Brigid", [5]), RuleViolation, "unit #5 belongs to Brigid, not Avalon", actor="alice")
    game.refuse(DeclareAttack("Avalon", [1]), RuleViolation, "cannot attack itself", actor="alice")
    game.refuse(DeclareAttack("Brigid", [1, 2, 3, 4]), RuleViolation, "1 to 3 units, not 4", actor="alice")
    game.refuse(DeclareAttack("Brigid", []), RuleViolation, "1 to 3 units, not 0", actor="alice")
    game.refuse(DeclareAttack("Brigid", [1, 1]), BadInput, "named twice", actor="alice")
    game.refuse(DeclareAttack("Brigid", [42]), UnknownUnit, "no unit #42", actor="alice")
    game.refuse(DeclareAttack("Nowhere", [1]), UnknownNation, actor="alice")
    game.refuse(DeclareAttack("Brigid", [1], nation="Cato"), NotYourNation, actor="alice")
    game.refuse(CommitUnits([5]), RuleViolation, "no battle is waiting for a commitment from Brigid", actor="bob")

    game.do(DeclareAttack("Brigid", [1, 2]), actor="alice")
    # The ATTACK action is spent: a second declaration this turn is refused, even with free units.
    game.refuse(DeclareAttack("Cato", [3]), RuleViolation, "already made its ATTACK action", actor="alice")
    game.refuse(CommitUnits([1]), RuleViolation, "no battle is waiting for a commitment from Avalon",
                actor="alice")
    game.refuse(CommitUnits([5], battle=1), RuleViolation, "not waiting for Avalon to commit", actor="alice")
    game.refuse(CommitUnits([9], battle=1), RuleViolation, "Cato is not fighting in battle #1", actor="carol")
    game.refuse(CommitUnits([1]), RuleViolation, "no battle is waiting", actor="carol")
    game.refuse(CommitUnits([1], battle=1), RuleViolation, "unit #1 belongs to Avalon", actor="bob")
    game.refuse(CommitUnits([5, 6, 7, 8]), RuleViolation, "1 to 3 units, not 4", actor="bob")
    game.refuse(PairUnits(1, 5), RuleViolation, "no battle is waiting for a pairing", actor="alice")
    game.refuse(PairUnits(1, 5, battle=1), RuleViolation, "not waiting for a pairing", actor="alice")
    game.refuse(OrderRetreat(1, at_hp=1), NotYourNation, actor="bob")
    game.refuse(OrderRetreat(5), RuleViolation, "unit #5 is not in a battle", actor="bob")
    game.refuse(OrderRetreat(1, at_hp=-1), BadInput, actor="alice")
    game.refuse(RemoveUnit(1), RuleViolation, "cancel the battle first")
    game.refuse(Disband(1), RuleViolation, "fighting in battle #1", actor="alice")
    game.refuse(DecideChoice(1), NotGM, actor="bob")
    game.refuse(CancelBattle(1), NotGM, actor="alice")
    game.refuse(PairUnits(1, 5, battle=99), BadInput, "no battle #99", actor="alice")

    game.do(CommitUnits([5, 6]), actor="bob", dice=[9, 1])  # the attacker wins the initiative
    game.refuse(PairUnits(1, 5), RuleViolation, "no battle is waiting for a pairing from Brigid", actor="bob")
    game.refuse(PairUnits(1, 5, battle=1), RuleViolation, "Avalon won the initiative in battle #1", actor="bob")
    game.refuse(PairUnits(1, 7), RuleViolation, "#7 is not a defending unit still in battle #1", actor="alice")
    game.refuse(PairUnits(3, 5), RuleViolation, "#3 is not an attacking unit still in battle #1", actor="alice")
    game.refuse(CommitUnits([7]), RuleViolation, "no battle is waiting for a commitment", actor="bob")
    game.refuse(CommitUnits([7], battle=1), RuleViolation, "not waiting for Brigid to commit", actor="bob")
    game.refuse(DecideChoice(1, attacker_unit=1), BadInput, "needs both")
    game.refuse(PairUnits(1, 5, battle=1), RuleViolation, "Avalon won the initiative", actor="carol")

    # Play it out: #1 kills #5 (#1 then pairs again), #2 kills #6.
    game.do(PairUnits(1, 5), actor="alice", dice=[10, 1, 1, 10, 1, 1])
    game.do(OrderRetreat(1, at_hp=0), actor="alice")  # withdraw (there was none): allowed, no die
    game.do(PairUnits(2, 6), actor="alice", dice=[10, 1, 1, 10, 1, 1])
    assert game.state.battles[1].result == "attacker won"
    # Acting in a finished battle.
    game.refuse(PairUnits(1, 5, battle=1), RuleViolation, r"battle #1 is over \(attacker won\)", actor="alice")
    game.refuse(CommitUnits([7], battle=1), RuleViolation, "is over", actor="bob")
    game.refuse(DecideChoice(1), RuleViolation, "is over")
    game.refuse(CancelBattle(1), RuleViolation, "is over")
    game.refuse(OrderRetreat(1), RuleViolation, "not in a battle", actor="alice")
    game.assert_replays()


def test_attack_is_one_of_the_turns_two_actions(game):
    army(game, "Avalon", "alice", [("infantry", "green")])
    army(game, "Brigid", "bob", [("infantry", "green")])
    game.do(Encourage("morale"), actor="alice", dice=[5])  # PROPAGANDA
    game.do(RevokeAction("Avalon", "economy"))  # ECONOMY counts as used: both actions gone
    game.refuse(DeclareAttack("Brigid", [1]), RuleViolation, "used all its actions", actor="alice")
    game.do(EndTurn())
    out = game.do(DeclareAttack("Brigid", [1]), actor="alice")
    assert game.nation("Avalon").actions_used == ["attack"] and out.rolls == []
    game.assert_replays()


def test_a_unit_already_in_battle_and_a_unit_that_left_the_fight(game):
    army(game, "Avalon", "alice", [("infantry", "green")] * 2)  # 1, 2
    army(game, "Brigid", "bob", [("infantry", "green")] * 3)    # 3, 4, 5
    army(game, "Cato", "carol", [("infantry", "green")])        # 6
    game.do(DeclareAttack("Brigid", [1]), actor="alice")
    game.do(EndTurn())  # a new turn: the ATTACK action is free again
    assert game.state.turn == 2
    game.refuse(DeclareAttack("Cato", [1]), RuleViolation, "unit #1 is already in battle #1", actor="alice")
    game.refuse(CommitUnits([3, 3]), BadInput, "named twice", actor="bob")
    game.do(SetStat("Brigid", "military", 9))
    game.do(CommitUnits([3, 4, 5]), actor="bob", dice=[1, 2])  # 1 against 2 - 1: a tie, the defender pairs
    game.do(OrderRetreat(3), actor="bob")
    # #1 against #3, who retreats at once: 10 > M 9.
    out = game.do(PairUnits(1, 3), actor="bob", dice=[10, 1, 1])
    assert [r[1] for r in rolls(out)] == [
        "retreat of #3 infantry, battle #1", "promotion of #1 infantry (needs 6+)",
        "promotion of #3 infantry (needs 6+)"]
    assert unit(game, 3) == ("green", 2, 1)  # still tied to the battle
    game.refuse(OrderRetreat(3, at_hp=1), RuleViolation, "has left the fight", actor="bob")
    game.refuse(DeclareAttack("Avalon", [3]), RuleViolation, "unit #3 is already in battle #1", actor="bob")
    game.assert_replays()


def test_a_nation_in_two_battles_at_once_with_different_units(game):
    army(game, "Avalon", "alice", [("infantry", "green")] * 4)  # 1-4
    army(game, "Brigid", "bob", [("infantry", "green")] * 4)    # 5-8
    game.do(DeclareAttack("Brigid", [1, 2]), actor="alice")
    game.do(DeclareAttack("Avalon", [5]), actor="bob")
    assert [(b.id, b.attacker, b.stage) for b in game.state.battles.values()] == [
        (1, "Avalon", "commit"), (2, "Brigid", "commit")]
    game.refuse(CommitUnits([1], battle=2), RuleViolation, "unit #1 is already in battle #1", actor="alice")
    game.refuse(CommitUnits([5], battle=1), RuleViolation, "unit #5 is already in battle #2", actor="bob")
    out = game.do(CommitUnits([6]), actor="bob", dice=[9, 1])  # battle #1: 2 against 1, Avalon pairs
    assert of(out, UnitsCommitted)[0].battle == 1
    out = game.do(CommitUnits([3, 4]), actor="alice", dice=[1, 9])  # battle #2: 1 against 2, Avalon pairs
    assert of(out, UnitsCommitted)[0].battle == 2
    assert [unit(game, i)[2] for i in range(1, 9)] == [1, 1, 2, 2, 2, 1, None, None]
    game.refuse(PairUnits(1, 6), RuleViolation, "no battle is waiting for a pairing from Brigid", actor="bob")
    game.do(PairUnits(5, 3, battle=2), actor="alice", dice=[1, 10, 1, 1, 10, 1])  # #5 dies
    assert game.state.battles[2].result == "defender won"
    assert game.state.battles[1].stage == "pairing"
    assert [unit(game, i)[2] for i in range(1, 5)] == [1, 1, None, None]
    game.assert_replays()


# --- the GM --------------------------------------------------------------------------------------


def test_gm_decides_commitment_and_pairing_explicitly_or_by_default(game):
    army(game, "Avalon", "alice", [("infantry", "green")] * 3)  # 1-3
    army(game, "Brigid", "bob", [("infantry", "green")] * 3)    # 4-6
    game.do(DeclareAttack("Brigid", [1, 2, 3]), actor="alice")
    game.refuse(DecideChoice(1, units=[1]), RuleViolation, "belongs to Avalon")
    out = game.do(DecideChoice(1, units=[5, 6]), dice=[9, 1])
    assert [(e.units, e.by) for e in of(out, UnitsCommitted)] == [([5, 6], "gm")]
    assert not of(out, ChoiceDefaulted)
    out = game.do(DecideChoice(1, attacker_unit=3, defender_unit=6), dice=[10, 1, 1, 10, 1, 1])
    assert [(e.attacker_unit, e.defender_unit, e.chosen_by) for e in of(out, DuelStarted)] == [(3, 6, "gm")]
    # Nothing given: the default, announced.
    out = game.do(DecideChoice(1), dice=[10, 1, 1, 10, 1, 1])
    assert [(e.choice, e.nation, e.default) for e in of(out, ChoiceDefaulted)] == [
        ("pairing", "Avalon", "strongest against strongest: #1 against #5")]
    assert of(out, DuelStarted)[0].chosen_by == "gm"
    assert game.state.battles[1].result == "attacker won"
    game.assert_replays()


def test_gm_default_commitment_through_decide_choice(game):
    army(game, "Avalon", "alice", [("infantry", "green")])
    army(game, "Brigid", "bob", [("infantry", "green"), ("armour", "green")])
    game.do(DeclareAttack("Brigid", [1]), actor="alice")
    out = game.do(DecideChoice(1), dice=[9, 1])
    assert [(e.choice, e.default) for e in of(out, ChoiceDefaulted)] == [("commit", "its strongest free units #3, #2")]
    assert [(e.units, e.by) for e in of(out, UnitsCommitted)] == [([3, 2], "gm")]
    game.assert_replays()


def test_gm_cancels_a_battle_freeing_and_healing_its_units(game):
    army(game, "Avalon", "alice", [("infantry", "regular")] * 2)  # 1, 2
    army(game, "Brigid", "bob", [("infantry", "regular")] * 3)    # 3-5
    game.do(DeclareAttack("Brigid", [1, 2]), actor="alice")
    game.do(CommitUnits([3, 4]), actor="bob", dice=[9, 1])
    out = game.do(PairUnits(1, 3), actor="alice", dice=[1, 10, 1, 10, 1, 1, 10, 1, 1, 10, 1, 1])
    assert changes(out) == [(1, "regular", 2, "wounded in battle #1"), (3, "regular", 2, "wounded in battle #1"),
                            (3, "regular", 1, "wounded in battle #1"), (3, "regular", 0, "wounded in battle #1")]
    assert unit(game, 1) == ("regular", 2, 1)
    before = stats(game, "Avalon"), stats(game, "Brigid")
    out = game.do(CancelBattle(1), dice=[])
    assert [(e.result, e.winner, e.loser) for e in of(out, BattleEnded)] == [("cancelled", None, None)]
    assert changes(out) == [(1, "regular", 3, "back to full HP after the battle")]
    assert (stats(game, "Avalon"), stats(game, "Brigid")) == before  # no P, no land
    assert [unit(game, i)[2] for i in (1, 2, 4, 5)] == [None] * 4
    assert game.state.battles[1].stage == "over" and game.state.battles[1].deadline is None
    game.refuse(PairUnits(2, 4, battle=1), RuleViolation, "over", actor="alice")
    game.assert_replays()


def test_gm_cancels_a_battle_waiting_for_the_commitment(game):
    army(game, "Avalon", "alice", [("infantry", "green")])
    army(game, "Brigid", "bob", [("infantry", "green")])
    game.do(DeclareAttack("Brigid", [1]), actor="alice")
    game.do(CancelBattle(1))
    assert unit(game, 1) == ("green", 2, None)
    game.advance(hours=2)
    assert game.tick().events == []  # no default for a cancelled battle
    game.assert_replays()


# --- presets -------------------------------------------------------------------------------------


def test_preset_armies_fight_as_the_seed_lists_them(game):
    game.do(ClaimPreset("Gracchan Republic"), actor="alice")  # IN s3, BM w1, AR: units 1-5
    game.do(ClaimPreset("Charon"), actor="bob")               # AR s3, BM w1: units 6-9
    assert [unit(game, i)[1] for i in range(1, 10)] == [3, 3, 3, 2, 2, 2, 2, 2, 2]
    game.do(DeclareAttack("Charon", [1]), actor="alice")
    out = game.do(CommitUnits([6]), actor="bob", dice=[5, 5, 10, 2, 1, 9, 1, 6])
    # Initiative: 5 + mod(M 8) -1 = 4 against 5 + mod(M 9) -1 = 4: the defender.
    assert [r[4] for r in rolls(out)[:2]] == [4, 4]
    assert rolls(out)[2:] == [
        ("Gracchan Republic", "combat, #1 infantry vs #6 armour", 10, {}, 10, None, None),
        ("Charon", "combat, #6 armour vs #1 infantry", 2, {"COMBAT": 3, "WINS vs infantry": 1}, 6, None, None),
        ("Charon", "demotion of #6 armour (needs 6+)", 1, {}, 1, 6, False),
        ("Gracchan Republic", "combat, #1 infantry vs #6 armour", 9, {}, 9, None, None),
        ("Charon", "combat, #6 armour vs #1 infantry", 1, {"COMBAT": 3, "WINS vs infantry": 1}, 5, None, None),
        ("Gracchan Republic", "promotion of #1 infantry (needs 6+)", 6, {}, 6, 6, True),
    ]
    assert unit(game, 1) == ("regular", 4, None)
    assert stats(game, "Charon") == {"E": 8, "S": 10, "M": 7, "P": 9, "L": 15, "patches": 0}
    game.assert_replays()


# --- property: random legal battles always end ---------------------------------------------------

MAX_STEPS = 40


def _run(game: Game, action: Any, actor: str, rng: random.Random) -> Any:
    """Run an action with random dice; every HP an event sets stays within 0..the rank's max."""
    types = {u.id: u.type for n in game.state.nations.values() for u in n.units.values()}
    ctx = Context(now=game.now, actor=actor, rules=game.rules, is_gm=actor == GM, roller=RandomRoller(rng))
    out = execute(game.state, action, ctx)
    game.state = out.state
    game.events.extend(out.events)
    for event in out.events:
        if isinstance(event, UnitChanged):
            nation = game.state.nations[event.nation]
            top = game.rules.max_hp(types[event.unit], event.rank, nation.strength, nation.weakness)
            assert 0 <= event.hp <= top, event
    for nation in game.state.nations.values():
        for u in nation.units.values():
            assert 1 <= u.hp <= game.rules.max_hp(u.type, u.rank, nation.strength, nation.weakness), u
    return out


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_random_legal_battles_always_end_with_hp_in_bounds(data):
    game = Game()
    rng = random.Random(data.draw(st.integers(0, 2**32 - 1), label="dice seed"))
    players = {"Avalon": "alice", "Brigid": "bob"}
    for name, player in players.items():
        strength, weakness = data.draw(st.permutations(TYPES), label="sw")[:2]
        military = data.draw(st.integers(4, 16), label="M")
        units = data.draw(st.lists(st.tuples(st.sampled_from(TYPES), st.sampled_from(RANKS)),
                                   min_size=1 if name == "Avalon" else 0, max_size=5), label="army")
        army(game, name, player, units, strength=strength, weakness=weakness, economy=20 - military,
             military=military, stability=data.draw(st.integers(4, 16), label="S"))
    attackers = sorted(game.nation("Avalon").units)
    sent = data.draw(st.lists(st.sampled_from(attackers), min_size=1, max_size=3, unique=True), label="sent")
    retreat = st.one_of(st.none(), st.integers(0, 6))
    _run(game, DeclareAttack("Brigid", sent, data.draw(retreat, label="retreat_at")), "alice", rng)
    owner = {u: players[n.name] for n in game.state.nations.values() for u in n.units}

    steps = 0
    while not game.state.battles[1].over:
        steps += 1
        assert steps <= MAX_STEPS, "the battle did not end"
        battle = game.state.battles[1]
        in_fight = battle.in_fight_attacking + battle.in_fight_defending
        if data.draw(st.booleans(), label="order a retreat?"):
            target = data.draw(st.sampled_from(in_fight), label="retreating unit")
            _run(game, OrderRetreat(target, data.draw(retreat, label="at_hp")), owner[target], rng)
        how = data.draw(st.sampled_from(["player", "tick", "gm"]), label="how")
        if how == "tick":
            assert battle.deadline is not None
            game.now = max(game.now, battle.deadline)
            out = _run(game, Tick(), GM, rng)
            assert [(e.battle, e.choice) for e in of(out, ChoiceDefaulted)] == [(1, battle.stage)]
            note(f"default {battle.stage}")
        elif battle.stage == "commit":
            free = sorted(u for u, x in game.nation("Brigid").units.items() if x.battle is None)
            chosen = data.draw(st.lists(st.sampled_from(free), min_size=1, max_size=3, unique=True), label="commit")
            if how == "gm":
                _run(game, DecideChoice(1, units=chosen), GM, rng)
            else:
                _run(game, CommitUnits(chosen, data.draw(retreat, label="retreat_at")), "bob", rng)
        else:
            assert battle.stage == "pairing"
            a = data.draw(st.sampled_from(battle.in_fight_attacking), label="attacker")
            d = data.draw(st.sampled_from(battle.in_fight_defending), label="defender")
            if how == "gm":
                _run(game, DecideChoice(1, attacker_unit=a, defender_unit=d), GM, rng)
            else:
                chooser = battle.attacker if battle.initiative == "attacker" else battle.defender
                _run(game, PairUnits(a, d), players[chooser], rng)
    battle = game.state.battles[1]
    note(f"{battle.result} after {len(battle.duels)} duels")
    assert battle.result in ("attacker won", "defender won")
    assert (battle.result == "attacker won") == (not battle.in_fight_defending)
    for nation in game.state.nations.values():
        for u in nation.units.values():
            assert u.battle is None
            assert u.hp == game.rules.max_hp(u.type, u.rank, nation.strength, nation.weakness)
    assert state_to_dict(replay(game.events)) == state_to_dict(game.state)
