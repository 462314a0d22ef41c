"""Nations rulings refined in issue 11 (shared RULINGS.md section 1): conquest never creates land, an
eliminated nation's battles are cancelled, disbanding keeps the quarter rule, slot 11 is the GM's to claim
and name, the spoils multiplier is a house setting, a propaganda attack's target shows its parts, GM
overrides apply with a warning, and presets are taken by an unambiguous prefix or their slot.

Every scenario runs with exact dice (`helpers.Game.do`) and ends with state == replay(events).
"""

from __future__ import annotations

from dataclasses import fields, replace
from typing import Any

import pytest
from helpers import Game, rules

from engine.describe import event_line as shared_event_line
from engine.describe import roll_line
from engine.errors import BadInput, RuleViolation
from engine.events import Event, HouseChanged, Notice
from engine.gm import SetHouse
from engine.nations.describe import event_line
from engine.nations.events import BattleEnded, NationEliminated, StatChanged, UnitChanged
from engine.nations.gm import AddUnit, Eliminate, SetStat
from engine.nations.peace import ClaimPreset, Disband, Encourage, GrowEconomy, PropagandaAttack
from engine.nations.rules import HouseSettings
from engine.nations.snapshot import check_state, state_from_dict, state_to_dict
from engine.nations.war import CommitUnits, DeclareAttack, PairUnits

GRACCHAN = "Gracchan Republic"


def army(game: Game, name: str, player: str | None, units: list[tuple[str, str]], **stats: Any) -> list[int]:
    """A nation with exact stats and units of exact ranks; returns the unit ids in order."""
    game.nation_with(name, player, strength=stats.pop("strength", "armour"),
                     weakness=stats.pop("weakness", "bomber"), **stats)
    ids = []
    for unit_type, rank in units:
        ids.append(game.state.next_unit_id)
        game.do(AddUnit(name, unit_type, rank))
    return ids


def of(outcome: Any, kind: type) -> list[Event]:
    return [e for e in outcome.events if isinstance(e, kind)]


def stat_changes(outcome: Any) -> list[tuple[str, str, int]]:
    return [(e.nation, e.stat, e.delta) for e in outcome.events if isinstance(e, StatChanged)]


# --- 1. conquest gives the winner exactly what the loser loses, at most 5 ------------------------


@pytest.mark.parametrize(("loser_land", "moved"), [(20, 5), (5, 5), (3, 3), (1, 1)])
def test_conquest_moves_the_losers_land_at_most_a_province(game, loser_land, moved):
    army(game, "Avalon", "alice", [("infantry", "green")])
    army(game, "Brigid", "bob", [], economy=min(10, loser_land), military=0, land=loser_land)
    out = game.do(DeclareAttack("Brigid", [1]), actor="alice")  # no defenders: the attacker wins at once
    land = [c for c in stat_changes(out) if c[1] == "land"]
    assert land == [("Brigid", "land", -moved), ("Avalon", "land", moved)]
    assert (game.nation("Avalon").land, game.nation("Brigid").land) == (20 + moved, loser_land - moved)
    assert game.nation("Brigid").eliminated == (loser_land == moved)
    game.assert_replays()


# --- 2. an eliminated nation's battles are cancelled at once -------------------------------------


def _battle_under_way(game: Game) -> None:
    """Avalon (units 1, 2) attacks Brigid (3-5); a duel leaves Avalon's #1 wounded, Brigid's #3 dead."""
    army(game, "Avalon", "alice", [("infantry", "regular")] * 2, propaganda=10)
    army(game, "Brigid", "bob", [("infantry", "regular")] * 3)
    army(game, "Carthage", "carol", [], propaganda=20)
    game.do(DeclareAttack("Brigid", [1, 2]), actor="alice")
    game.do(CommitUnits([3, 4]), actor="bob", dice=[9, 1])
    game.do(PairUnits(1, 3), actor="alice", dice=[1, 10, 1, 10, 1, 1, 10, 1, 1, 10, 1, 1])
    assert game.nation("Avalon").units[1].hp == 2 and 3 not in game.nation("Brigid").units


def test_a_nation_eliminated_by_propaganda_elsewhere_has_its_battles_cancelled(game):
    _battle_under_way(game)
    before = {n: (game.nation(n).propaganda, game.nation(n).land) for n in ("Avalon", "Brigid")}
    # Carthage: d10 9 + mod(P 20) 5 = 14 > Brigid's S 10; spoils 7 x 3 = 21, all of Brigid's 20 land.
    out = game.do(PropagandaAttack("Brigid"), actor="carol", dice=[9, 7])
    assert [e.reason for e in of(out, NationEliminated)] == ["no land left (propaganda by Carthage)"]
    assert [(e.battle, e.result, e.winner, e.loser, e.reason) for e in of(out, BattleEnded)] == [
        (1, "cancelled", None, None, "Brigid was eliminated")]
    # Units go home and heal; no PROPAGANDA changes hands and Avalon gains no land.
    assert [(e.unit, e.hp, e.reason) for e in of(out, UnitChanged)] == [
        (1, 3, "back to full HP after the battle")]
    assert all(u.battle is None for n in game.state.nations.values() for u in n.units.values())
    assert (game.nation("Avalon").propaganda, game.nation("Avalon").land) == before["Avalon"]
    assert game.nation("Brigid").propaganda == before["Brigid"][0]
    assert game.state.battles[1].over and game.state.battles[1].deadline is None
    text = event_line(of(out, BattleEnded)[0], str, str)
    assert text == ("🏁 Battle #1 is over: cancelled, Brigid was eliminated. Its units go home and heal; "
                    "no land or PROPAGANDA changes hands.")
    game.assert_replays()


def test_a_nation_eliminated_by_the_gm_has_its_battles_cancelled(game):
    army(game, "Avalon", "alice", [("infantry", "green")])
    army(game, "Brigid", "bob", [("infantry", "green")])
    game.do(DeclareAttack("Brigid", [1]), actor="alice")  # waits for Brigid's commitment
    out = game.do(Eliminate("Avalon"))
    assert [(e.result, e.reason) for e in of(out, BattleEnded)] == [("cancelled", "Avalon was eliminated")]
    assert game.nation("Avalon").units[1].battle is None
    assert game.nation("Brigid").land == 20 and game.nation("Brigid").propaganda == 10
    game.advance(hours=2)
    assert game.tick().events == []  # no default falls due for the cancelled battle
    game.assert_replays()


# --- 3. disbanding keeps the quarter rule unless the army is over its MP cap ---------------------


def test_disbanding_below_the_quarter_is_refused(game):
    game.do(ClaimPreset("Gracchan Republic"), actor="alice")  # M 8: a quarter is 2 MP
    units = game.nation(GRACCHAN).units.values()
    bomber = next(u.id for u in units if u.type == "bomber")  # WEAKNESS, 3 MP: 0 left
    infantry = [u.id for u in units if u.type == "infantry"]  # STRENGTH, 1 MP each: 3 MP
    game.refuse(Disband(bomber), RuleViolation,
                r"your WEAKNESS units \(bomber\) would cost 0 MP, under a quarter of M 8 \(2 MP\)", actor="alice")
    game.do(Disband(infantry[0]), actor="alice")  # 3 -> 2 MP: still a quarter
    game.refuse(Disband(infantry[1]), RuleViolation,
                r"your STRENGTH units \(infantry\) would cost 1 MP, under a quarter of M 8", actor="alice")
    game.assert_replays()


def test_an_army_over_its_cap_may_disband_any_unit(game):
    game.do(ClaimPreset("Sovatank"), actor="alice")  # 14 MP against M 12: over its cap; a quarter is 3 MP
    warships = [u.id for u in game.nation("Sovatank").units.values() if u.type == "warships"]  # STRENGTH, 6 MP
    game.do(Disband(warships[0]), actor="alice")  # 14 -> 11 MP, warships 3 MP: the army now fits
    game.refuse(Disband(warships[1]), RuleViolation, r"STRENGTH units \(warships\) would cost 0 MP",
                actor="alice")
    game.assert_replays()


# --- 4. slot 11: whoever claims it, player or GM, names it in the same command -------------------


def test_a_player_claims_slot_11_naming_it(game):
    game.refuse(ClaimPreset("11"), BadInput, r"name it in the same command with name:", actor="alice")
    game.refuse(ClaimPreset("11", name="  "), BadInput, "no name in the seed", actor="alice")
    game.do(ClaimPreset("11", name="Merewyn"), actor="alice")
    nation = game.nation("Merewyn")
    assert (nation.player, nation.preset_slot) == ("alice", 11)
    game.refuse(ClaimPreset("11", name="Other"), RuleViolation, "preset 11 is already claimed: Merewyn", actor="bob")
    game.assert_replays()


def test_the_gm_claims_slot_11_for_a_player_naming_it(game):
    game.do(ClaimPreset("11", player="bob", name="Merewyn"))
    assert game.nation("Merewyn").player == "bob"


def test_a_named_preset_keeps_the_seeds_name(game):
    game.refuse(ClaimPreset("Charon", name="Styx"), BadInput, r"Charon \(slot 7\) keeps the seed's name", actor="alice")
    game.do(ClaimPreset("Charon", name="charon"), actor="alice")  # its own name, in any case, is no rename
    assert game.nation("Charon").player == "alice"


# --- 5. the spoils multiplier is a house setting; every [house] ruling is one ----------------------

# Copied from shared/RULINGS.md section 1 (Nations, seed 003): every ruling marked **[house]**, with the
# HouseSettings fields that hold it and their defaults. The repository stands alone (CI has no ../shared),
# so the list lives here; when RULINGS.md gains a [house] ruling, add it here and to HouseSettings.
RULINGS_HOUSE = [
    ('A check "against" a difficulty (recruitment) means total >= the difficulty [house].',
     {"recruit_meets_difficulty": True}),
    ("A turn lasts 12 hours [house: turn length per game].", {"turn_hours": 12.0}),
    (("When a nation loses land, E and M are cut to fit, one point at a time from the larger of the two (M on a "
     "tie) [house]."),
     {"land_cut_tie": "military"}),
    ("Grow military: ... M + 1 and E - 1 (the cost is paid on success only [house]).",
     {"military_cost_on_success": True}),
    ("Propaganda attack success: roll d10 x 3 = land taken ... the multiplier 3 is [house].",
     {"spoils_multiplier": 3}),
    ("The bonus lasts 36 hours of real time from the roll [house].", {"bonus_hours": 36.0}),
    ("After the battle, surviving units return to the full HP of their rank [house].",
     {"full_hp_after_battle": True}),
    # Issue 17: the deadline is a third of the turn (0: a share of the turn, `war.choice_turn_divisor`), not 1 hour.
    ("A battle waits on people: every choice ... has a deadline [house: a third of the turn].",
     {"choice_deadline_hours": 0.0}),
    ("A new nation: E + M = 20, S = 10, P = 10, L = 20 (the pattern of every listed nation) [house].",
     {"new_nation_total": 20, "new_nation_stability": 10, "new_nation_propaganda": 10, "new_nation_land": 20}),
]


@pytest.mark.parametrize(("ruling", "settings"), RULINGS_HOUSE, ids=[next(iter(s)) for _, s in RULINGS_HOUSE])
def test_every_house_ruling_is_a_house_setting_with_its_default(ruling, settings):
    defaults = HouseSettings()
    shipped = rules().house  # data/nations.toml
    for key, value in settings.items():
        assert key in {f.name for f in fields(HouseSettings)}, f"{ruling!r} has no house setting {key}"
        assert getattr(defaults, key) == value and getattr(shipped, key) == value
        changed = (not value if isinstance(value, bool) else "economy" if key == "land_cut_tie"
                   else value - 1 if key == "new_nation_total" else value + 1)
        assert getattr(defaults.with_value(key, changed), key) == changed  # a GM may change it


def test_the_spoils_multiplier_is_changed_by_the_gm(game):
    army(game, "Avalon", "alice", [], propaganda=20)
    army(game, "Brigid", "bob", [])
    game.refuse(SetHouse("spoils_multiplier", "0"), match="spoils_multiplier must be between 1 and 100")
    out = game.do(SetHouse("spoils_multiplier", "2"))
    assert [(e.key, e.value) for e in of(out, HouseChanged)] == [("spoils_multiplier", 2)]
    out = game.do(PropagandaAttack("Brigid"), actor="alice", dice=[9, 4])  # 9 + 5 > 10; spoils 4 x 2 = 8
    assert [c for c in stat_changes(out) if c[1] == "land"] == [("Brigid", "land", -8), ("Avalon", "land", 8)]
    game.assert_replays()


# --- 6. a propaganda attack's target shows its parts ---------------------------------------------


def test_a_propaganda_attacks_target_shows_stability_and_patriotism(game):
    army(game, "Avalon", "alice", [], propaganda=20)
    army(game, "Brigid", "bob", [], stability=9)
    game.do(Encourage("patriotism"), actor="bob", dice=[7])  # 7 + mod(P 10) 0 = 7: Patriotism +2
    out = game.do(PropagandaAttack("Brigid"), actor="alice", dice=[6])  # 6 + 5 = 11, not better than 11
    (attack,) = out.rolls
    assert (attack.purpose, attack.total, attack.target, attack.success) == (
        "propaganda attack on Brigid (S 9 + Patriotism 2 = 11)", 11, 11, False)
    assert roll_line(attack) == ("🎲 Avalon, propaganda attack on Brigid (S 9 + Patriotism 2 = 11): "
                                 "d10 6 + mod(P) +5 = 11 vs > 11: failure")
    game.assert_replays()


def test_a_propaganda_attacks_target_shows_the_stability_lost_to_foreign_land(game):
    army(game, "Avalon", "alice", [], propaganda=20)
    army(game, "Brigid", "bob", [])
    game.do(SetStat("Brigid", "foreign_patches", 2))
    out = game.do(PropagandaAttack("Brigid"), actor="alice", dice=[2])  # 2 + 5 = 7, not better than 8
    assert out.rolls[0].purpose == "propaganda attack on Brigid (S 10 − 2 for 2 foreign patches = 8)"
    assert out.rolls[0].target == 8


def test_a_plain_stability_target_lists_no_parts(game):
    army(game, "Avalon", "alice", [], propaganda=20)
    army(game, "Brigid", "bob", [])
    out = game.do(PropagandaAttack("Brigid"), actor="alice", dice=[2])
    assert (out.rolls[0].purpose, out.rolls[0].target) == ("propaganda attack on Brigid", 10)


# --- 7. a GM fixes anything: the override applies, and what it breaks is shown ----------------------


def test_gm_override_over_the_land_applies_with_a_warning(game):
    game.do(ClaimPreset(GRACCHAN), actor="alice")  # E 12 M 8 on 20 land
    out = game.do(SetStat(GRACCHAN, "economy", 2, relative=True))  # /gm set stat:economy value:+2
    assert [(e.stat, e.delta, e.by) for e in of(out, StatChanged)] == [("economy", 2, "gm")]
    assert [(e.text, e.nation) for e in of(out, Notice)] == [
        (f"GM override: {GRACCHAN} now breaks the rules: E+M = 22 is over its land 20.", GRACCHAN)]
    assert shared_event_line(of(out, Notice)[0]) == (  # one warning sign, as every notice shows it
        f"⚠ GM override: {GRACCHAN} now breaks the rules: E+M = 22 is over its land 20.")
    game.refuse(GrowEconomy(), RuleViolation, "no room: E\\+M = 22", actor="alice")  # the rules still hold
    out = game.do(SetStat(GRACCHAN, "military", 1, relative=True))  # further over: the new figure is shown
    assert [e.text for e in of(out, Notice)] == [
        f"GM override: {GRACCHAN} now breaks the rules: E+M = 23 is over its land 20."]
    out = game.do(SetStat(GRACCHAN, "stability", 12))  # breaks nothing new: no warning
    assert of(out, Notice) == []
    out = game.do(SetStat(GRACCHAN, "land", 23))  # fits again: no warning, no cut
    assert of(out, Notice) == [] and game.nation(GRACCHAN).economy == 14
    game.assert_replays()


def test_gm_override_of_military_warns_of_the_quarter_rule(game):
    game.do(ClaimPreset(GRACCHAN), actor="alice")  # M 8; infantry (STRENGTH) 3 MP, bomber (WEAKNESS) 3 MP
    game.do(SetStat(GRACCHAN, "economy", 4))
    out = game.do(SetStat(GRACCHAN, "military", 16))  # a quarter is now 4 MP; the army (8 MP) fits
    assert [e.text for e in of(out, Notice)] == [
        (f"GM override: {GRACCHAN} now breaks the rules: its STRENGTH units (infantry) cost 3 MP, under a "
         "quarter of M 16 (4 MP); its WEAKNESS units (bomber) cost 3 MP, under a quarter of M 16 (4 MP).")]


def test_a_game_with_a_gm_override_exports_and_checks_clean(game):
    game.do(ClaimPreset(GRACCHAN), actor="alice")
    game.do(SetStat(GRACCHAN, "economy", 15))
    state = state_from_dict(state_to_dict(game.state))
    assert check_state(state, rules()) == []


# --- 8. presets by an unambiguous prefix or their slot --------------------------------------------


@pytest.mark.parametrize(("typed", "name"), [
    ("gracchan", GRACCHAN), ("Gracchan  rep", GRACCHAN), ("GRACCHAN REPUBLIC", GRACCHAN), ("1", GRACCHAN),
    ("zomb", "Zombiestan"), ("s", "Sovatank"), ("7", "Charon"), ("ch", "Charon"),
])
def test_a_preset_is_taken_by_an_unambiguous_prefix_or_its_slot(game, typed, name):
    game.do(ClaimPreset(typed), actor="alice")  # /nation claim gracchan
    assert game.nation(name).player == "alice"


def test_an_ambiguous_prefix_is_refused_naming_the_matches():
    presets = rules().presets
    extra = replace(presets[1], slot=12, name="Charybdis")  # a second preset starting "Char"
    game = Game()
    game.rules = replace(rules(), presets=(*presets, extra))
    game.refuse(ClaimPreset("char"), BadInput,
                r"'char' matches more than one preset: Charon \(7\), Charybdis \(12\); give more of the name, "
                "or the slot", actor="alice")
    game.refuse(ClaimPreset("x"), BadInput, "no preset 'x'; presets: 1: Gracchan Republic, 7: Charon", actor="alice")
    game.do(ClaimPreset("chary"), actor="alice")
    assert game.nation("Charybdis").preset_slot == 12
    game.do(ClaimPreset("charon"), actor="bob")  # the whole name is never ambiguous
    assert game.nation("Charon").player == "bob"
