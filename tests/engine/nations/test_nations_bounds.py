"""The bounds of a Nations game (issue 33): every count a GM, a player or an import sets is bounded, so that no
command of the largest legal game holds the store (and every other game) for long, and the game's export always
imports again. A refusal is one line and changes nothing; no die is rolled.

Big games are built as states (an export's dict read back), not played: the bounds are what is tested."""

from __future__ import annotations

import itertools
from datetime import timedelta
from typing import Any

import pytest
from helpers import NOW, Game

from engine.commands import BY_PATH, build_action
from engine.errors import BadInput, RuleViolation
from engine.nations import schema
from engine.nations.common import cut_to_land
from engine.nations.events import BattleEnded, StatChanged
from engine.nations.gm import AddUnit, Eliminate, SetStat
from engine.nations.peace import ClaimPreset, CreateNation, Recruit
from engine.nations.snapshot import state_from_dict, state_to_dict
from engine.nations.views import battles_view
from engine.nations.war import CancelBattle, DeclareAttack
from engine.view import text_lines

TYPES = ("infantry", "armour", "fighter", "bomber", "warships", "submarines")


def big(game: Game, nations: int, units: int, live: int = 0, over: int = 0, **stats: int) -> None:
    """`game`'s state becomes one of `nations` nations ("N000"…, players "p0"…) of `units` GREEN units each;
    `live` battles under way (each nation but the last attacks the last with one unit) and `over` battles over."""
    data = state_to_dict(game.state)
    unit_id = 1
    for i in range(nations):
        listed = [{"id": unit_id + j, "type": TYPES[j % 6], "rank": "green", "hp": 2} for j in range(units)]
        unit_id += units
        data["nations"].append({"name": f"N{i:03d}", "player": f"p{i}", "economy": 10, "stability": 10,
                                "military": 10, "propaganda": 10, "land": 40, "strength": "infantry",
                                "weakness": "armour", "units": listed, **stats})
    for k in range(live):
        attacker = data["nations"][k % (nations - 1)]
        unit = attacker["units"][k // (nations - 1)]
        unit["battle"] = k + 1
        data["battles"].append({"id": k + 1, "attacker": attacker["name"], "defender": f"N{nations - 1:03d}",
                                "state": "commit", "turn": 1, "attacking": [unit["id"]],
                                "in_fight_attacking": [unit["id"]],
                                "deadline": (NOW + timedelta(hours=4)).isoformat()})
    for k in range(live, live + over):
        data["battles"].append({"id": k + 1, "attacker": "N000", "defender": "N001", "state": "over",
                                "result": "cancelled", "turn": 1})
    data["game"]["next_battle_id"] = live + over + 1
    game.state = state_from_dict(data)


# --- stats: a GM sets them up to MAX_STAT; cutting E and M to fit the land is worked out at once -------------


def test_a_gm_sets_a_stat_up_to_the_bound_and_no_higher(game):
    game.nation_with("Avalon", "alice")
    game.do(SetStat("Avalon", "propaganda", schema.MAX_STAT))
    game.refuse(SetStat("Avalon", "propaganda", schema.MAX_STAT + 1), BadInput,
                f"a GM sets PROPAGANDA to at most {schema.MAX_STAT:,}, not {schema.MAX_STAT + 1:,}")
    game.refuse(SetStat("Avalon", "propaganda", 1, relative=True), BadInput, "at most 10,000")
    assert game.nation("Avalon").propaganda == schema.MAX_STAT
    game.assert_replays()


def test_a_stat_that_play_took_past_the_bound_may_still_be_lowered(game):
    big(game, 2, 0, land=schema.MAX_STAT * 3)
    game.do(SetStat("N000", "land", -1, relative=True))
    game.do(SetStat("N001", "land", schema.MAX_STAT * 2))
    assert (game.nation("N000").land, game.nation("N001").land) == (schema.MAX_STAT * 3 - 1, schema.MAX_STAT * 2)
    game.refuse(SetStat("N001", "land", schema.MAX_STAT * 2 + 1), BadInput, "at most 10,000")


@pytest.mark.parametrize("typed", ["1" + "0" * 5000, "+" + "9" * 40, "-" + "9" * 8])
def test_a_stat_value_too_long_to_be_one_is_refused_at_the_edge(typed):
    with pytest.raises(BadInput, match="a GM sets a stat to at most 10,000, not"):
        build_action(BY_PATH["gm set"], {"nation": "Avalon", "stat": "land", "value": typed})


def point_by_point(economy: int, military: int, land: int, tie: str) -> tuple[int, int]:
    """The ruling as written: one point at a time from the larger, the tie's stat first on a tie."""
    while economy + military > land:
        if military > economy or (military == economy and tie == "military"):
            military -= 1
        else:
            economy -= 1
    return economy, military


@pytest.mark.parametrize("tie", ["military", "economy"])
def test_cutting_to_fit_the_land_at_once_is_the_ruling_point_by_point(game, tie):
    game.nation_with("Avalon", "alice")
    nation = game.nation("Avalon")
    game.state.house = type(game.state.house)(**{**game.state.house.as_dict(), "land_cut_tie": tie})
    for economy, military, land in itertools.product(range(8), range(8), range(16)):
        nation.economy, nation.military, nation.land = economy, military, land

        class Tx:  # what cut_to_land reads and emits
            state = game.state
            events: list[Any] = []

            def emit(self, event: Any) -> None:
                self.events.append(event)

        tx = Tx()
        military_cut = cut_to_land(tx, nation, "test")  # type: ignore[arg-type]
        cut = {e.stat: -e.delta for e in tx.events if isinstance(e, StatChanged)}
        expected = point_by_point(economy, military, land, tie)
        assert (economy - cut.get("economy", 0), military - cut.get("military", 0)) == expected
        assert military_cut == (expected[1] < military)


def test_land_set_far_under_e_plus_m_cuts_them_in_one_step(game):
    big(game, 2, 0, economy=schema.MAX_STAT_HELD // 2, military=schema.MAX_STAT_HELD // 2,
        land=schema.MAX_STAT_HELD)
    out = game.do(SetStat("N000", "land", 3))
    cuts = [(e.stat, e.delta) for e in out.events if isinstance(e, StatChanged) and e.stat != "land"]
    assert cuts == [("economy", -(schema.MAX_STAT_HELD // 2 - 2)), ("military", -(schema.MAX_STAT_HELD // 2 - 1))]
    assert (game.nation("N000").economy, game.nation("N000").military) == (2, 1)  # the tie's MILITARY first


# --- nations and units: MAX_NATIONS a game, MAX_UNITS a nation, MAX_GAME_UNITS a game ----------------------


def test_a_game_has_at_most_max_nations(game):
    big(game, schema.MAX_NATIONS, 0)
    game.refuse(ClaimPreset("1", "newcomer"), RuleViolation, f"this game has {schema.MAX_NATIONS} nations, the most")
    game.refuse(CreateNation("Zenith", 20, 0, "infantry", "armour", {}, "newcomer"), RuleViolation,
                "the most a game may have")


def test_a_nation_has_at_most_max_units(game):
    big(game, 2, schema.MAX_UNITS, military=schema.MAX_STAT)
    game.refuse(AddUnit("N000", "infantry"), RuleViolation, f"a nation has at most {schema.MAX_UNITS} units: N000 "
                                                           f"has {schema.MAX_UNITS}")
    game.refuse(Recruit("infantry"), RuleViolation, "at most 500 units", actor="p0")  # before its die and action
    assert game.nation("N000").actions_used == []


def test_a_game_has_at_most_max_game_units_in_all(game):
    big(game, 25, schema.MAX_GAME_UNITS // 25 - 1)
    for i in range(25):
        game.do(AddUnit(f"N{i:03d}", "infantry"))
    assert sum(len(n.units) for n in game.state.nations.values()) == schema.MAX_GAME_UNITS
    game.refuse(AddUnit("N000", "infantry"), RuleViolation,
                f"a game has at most {schema.MAX_GAME_UNITS:,} units in all, and this one has "
                f"{schema.MAX_GAME_UNITS:,}")


def test_a_new_nations_starting_army_counts_against_the_games_units(game):
    big(game, 25, schema.MAX_GAME_UNITS // 25)  # room for a nation, none for its army
    game.refuse(ClaimPreset("1", "newcomer"), RuleViolation, "units in all")
    game.refuse(CreateNation("Zenith", 12, 8, "armour", "infantry", {"infantry": 2, "armour": 3}, "newcomer"),
                RuleViolation, "units in all")


# --- battles: MAX_LIVE_BATTLES under way; the newest MAX_KEPT_BATTLES over kept in the state -----------------


def test_at_most_max_live_battles_are_under_way_at_once(game):
    big(game, 100, 4, live=schema.MAX_LIVE_BATTLES)
    free = next(u.id for u in game.nation("N003").units.values() if u.battle is None)
    game.refuse(DeclareAttack("N000", [free]), RuleViolation, f"{schema.MAX_LIVE_BATTLES} battles are under way",
                actor="p3")
    game.do(CancelBattle(1))
    game.do(DeclareAttack("N000", [free]), actor="p3", dice=[])  # one ended: room for one


def test_an_elimination_ends_every_battle_of_the_nation_and_frees_only_their_units(game):
    big(game, 100, 4, live=schema.MAX_LIVE_BATTLES)
    out = game.do(Eliminate("N099"))
    ended = [e for e in out.events if isinstance(e, BattleEnded)]
    assert len(ended) == schema.MAX_LIVE_BATTLES and {e.result for e in ended} == {"cancelled"}
    assert all(u.battle is None for n in game.state.nations.values() for u in n.units.values())
    assert all(b.over for b in game.state.battles.values())


def test_the_state_keeps_the_battles_under_way_and_the_newest_over(game):
    big(game, 100, 4, live=5, over=schema.MAX_KEPT_BATTLES + 40)
    kept = state_to_dict(game.state)["battles"]
    ids = [b["id"] for b in kept]
    assert ids == [1, 2, 3, 4, 5, *range(46, 146)]  # every live one, and the 100 newest over
    again = state_from_dict(state_to_dict(game.state))
    assert state_to_dict(again) == state_to_dict(game.state)
    assert schema.validate_export({**state_to_dict(game.state), "rolls": []}, NOW)  # its export imports again
    shown = text_lines(battles_view(again, game.rules, "gm", {"battle": 7}))
    assert shown == [("Battle #7 is over and no longer kept: a game keeps its last 100 battles over (/log game tells "
                      "every one).")]
    assert text_lines(battles_view(again, game.rules, "gm", {"battle": 999})) == ["There is no battle #999."]


def test_a_command_still_sees_the_battles_it_ended_beyond_the_kept_ones(game):
    big(game, 100, 4, live=schema.MAX_LIVE_BATTLES, over=schema.MAX_KEPT_BATTLES)
    out = game.do(Eliminate("N099"))  # 200 battles end at once: more than the state keeps over
    assert all(game.state.battles[e.battle].over for e in out.events if isinstance(e, BattleEnded))
    assert len(state_to_dict(game.state)["battles"]) == schema.MAX_KEPT_BATTLES


# --- the import holds the same bounds -------------------------------------------------------------------


def _export(game: Game) -> dict[str, Any]:
    return {**state_to_dict(game.state), "rolls": []}


def test_an_import_with_more_units_in_all_than_a_game_holds_is_refused(game):
    big(game, schema.MAX_GAME_UNITS // schema.MAX_UNITS + 1, schema.MAX_UNITS)
    with pytest.raises(BadInput, match=f"nations: at most {schema.MAX_GAME_UNITS:,} units in all, not 10,500"):
        schema.validate_export(_export(game), NOW)


def test_an_import_with_more_battles_under_way_than_a_game_holds_is_refused(game):
    big(game, 100, 4, live=schema.MAX_LIVE_BATTLES)
    data = _export(game)
    data["battles"].append({**data["battles"][0], "id": 999, "attacking": [], "in_fight_attacking": []})
    with pytest.raises(BadInput, match=f"battles: at most {schema.MAX_LIVE_BATTLES} under way at once, not 201"):
        schema.validate_export(data, NOW)


def test_an_import_with_a_unit_in_a_battle_its_nation_does_not_fight_is_refused(game):
    big(game, 3, 2, live=2)
    data = _export(game)
    data["nations"][2]["units"][1]["battle"] = 1  # N002 defends in battle 1 (N000 attacks it): its units may be in it
    data["nations"][1]["units"][1]["battle"] = 1  # N001 attacks in battle 2 only
    with pytest.raises(BadInput, match=r"nations\[1\].units\[1\].battle: N001 does not fight in battle #1"):
        schema.validate_export(data, NOW)


def test_stats_that_play_can_reach_import_again(game):
    big(game, 2, 0, land=schema.MAX_STAT_HELD, propaganda=schema.MAX_STAT_HELD)
    data = _export(game)
    data["game"]["turn"] = 200_000  # a year of six-minute turns and more
    assert schema.validate_export(data, NOW)["nations"][0]["land"] == schema.MAX_STAT_HELD
