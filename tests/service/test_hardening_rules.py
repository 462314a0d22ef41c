"""Issue 9, findings 1, 4 and 9: bounded durations, a bounded catch-up, house values checked when set, and
look-alike names.

A turn of 1e-300 hours used to hang every catch-up for ever; `/gm house` took NaN, 1e300 or an unknown rank;
"Foo", "Foo" + a zero-width space and "Fo" + a zero-width non-joiner + "o" were three nations.
"""

from __future__ import annotations

import math
from datetime import timedelta

import pytest
from goddicehelpers import Table
from helpers import NOW, Game, hours, snap
from storehelpers import RULES, FakeClock, assert_snapshot_is_replay

from data.store import Store
from engine.clock import Tick
from engine.core import Context, execute
from engine.describe import event_line
from engine.dice import ForcedRoller
from engine.errors import BadInput, RuleViolation, UnknownNation
from engine.events import event_from_dict, event_to_dict, replay
from engine.gm import SetHouse
from engine.goddice.actions import Join
from engine.goddice.cards import GoddiceHouse
from engine.house import RulesError
from engine.nations import clock as nations_clock
from engine.nations.clock import MAX_SEPARATE_ROLLOVERS, SetTurnLength, start_game
from engine.nations.events import BonusExpired, TurnEnded
from engine.nations.gm import AssignNation
from engine.nations.peace import ClaimPreset, CreateNation, Encourage, GrowEconomy
from engine.nations.rules import HouseSettings, rules_from_dict
from service.referee import Referee

TEN_YEARS = 24 * 365 * 10  # hours
ZWSP, ZWNJ = "\u200b", "\u200c"


# --- 1. durations -----------------------------------------------------------------------------------------


@pytest.mark.parametrize("length", [1e-300, 0.0, -1.0, 0.05, 337.0, 1e300, math.nan, math.inf, -math.inf])
def test_a_turn_length_out_of_bounds_is_refused_at_the_start(length):
    with pytest.raises(BadInput, match=r"^turn_hours must be between 0\.1 and 336 hours, not "):
        start_game(Context(NOW, "gm", RULES, is_gm=True), length)


def test_the_message_names_the_value():
    with pytest.raises(BadInput) as refused:
        Game(turn_hours=1e-300)
    assert str(refused.value) == "turn_hours must be between 0.1 and 336 hours, not 1e-300"


@pytest.mark.parametrize("length", [1e-300, 0, 0.01, 400, 1e300, math.nan, math.inf])
def test_gm_clock_length_out_of_bounds_is_refused(game, length):
    game.refuse(SetTurnLength(length), BadInput, r"^the turn length must be between 0\.1 and 336 hours")


def test_the_bounds_themselves_are_accepted(game):
    game.do(SetTurnLength(0.1))
    game.do(SetTurnLength(336))
    assert Game(turn_hours=0.1).state.turn_hours == 0.1


@pytest.mark.parametrize(("key", "value", "message"), [
    ("bonus_hours", "1e9", "bonus_hours must be between 0.1 and 720 hours, not 1e+09"),
    ("bonus_hours", "0", "bonus_hours must be between 0.1 and 720 hours, not 0"),
    ("bonus_hours", "nan", "bonus_hours must be between 0.1 and 720 hours, not nan"),
    ("reminder_hours", "1e300", "reminder_hours must be 0 (no reminder) or between 0.1 and 336 hours, not 1e+300"),
    ("reminder_hours", "-1", "reminder_hours must be 0 (no reminder) or between 0.1 and 336 hours, not -1"),
    ("reminder_hours", "inf", "reminder_hours must be 0 (no reminder) or between 0.1 and 336 hours, not inf"),
    ("choice_deadline_hours", "1e-300",
     "choice_deadline_hours must be 0 (a share of the turn) or between 0.1 and 336 hours, not 1e-300"),
    ("choice_deadline_hours", "-inf",
     "choice_deadline_hours must be 0 (a share of the turn) or between 0.1 and 336 hours, not -inf"),
])
def test_house_durations_are_bounded(game, key, value, message):
    error = game.refuse(SetHouse(key, value), BadInput)
    assert str(error) == message


def test_a_reminder_of_0_still_means_no_reminder(game):
    game.do(SetHouse("reminder_hours", "0"))
    assert game.state.house.reminder_hours == 0
    game.do(SetHouse("bonus_hours", "720"))
    game.do(SetHouse("choice_deadline_hours", "0.1"))
    game.assert_replays()


@pytest.mark.parametrize("house", [
    {"turn_hours": 1e-300}, {"turn_hours": math.nan}, {"bonus_hours": 1e9}, {"bonus_hours": math.inf},
    {"reminder_hours": 1e300}, {"choice_deadline_hours": -1.0}, {"actions_per_turn": 10**30},
    {"new_nation_land": 10**30}, {"turn_hours": 10**400},
])
def test_the_data_and_import_path_bounds_every_value(house):
    """`HouseSettings.from_data` (a data file, and the import's house) refuses what `/gm house` refuses."""
    with pytest.raises(RulesError, match=rf"^house\.{next(iter(house))} must be "):
        HouseSettings.from_data(house)


def test_a_whole_number_given_for_a_decimal_setting_stays_a_decimal_setting():
    house = HouseSettings.from_data({"turn_hours": 6})
    assert house.turn_hours == 6.0 and isinstance(house.turn_hours, float)
    assert house.with_value("turn_hours", "6.5").turn_hours == 6.5


@pytest.mark.parametrize("value", ["1e-300", "nan", "inf", "337", "-1"])
def test_god_dice_reminder_hours_are_bounded(value):
    table = Table()
    table.refuse(SetHouse("reminder_hours", value), BadInput, "reminder_hours must be 0 (never) or between 0.1 and 336")


def test_god_dice_reminder_hours_in_a_card_file_are_bounded():
    for bad in (1e-300, math.nan, 1e300):
        with pytest.raises(RulesError, match="house.reminder_hours must be 0"):
            GoddiceHouse.from_data({"reminder_hours": bad})
    assert GoddiceHouse.from_data({"reminder_hours": 0}).reminder_hours == 0


# --- 2. a bounded catch-up -------------------------------------------------------------------------------


def test_ten_years_of_one_hour_turns_are_caught_up_in_one_step():
    game = Game(turn_hours=1)
    game.nation_with("Alpha", "alice", economy=5, military=5)
    game.do(GrowEconomy(), actor="alice", dice=[9])
    game.advance(hours=TEN_YEARS)
    out = game.tick()
    assert len(out.events) == 1
    [ended] = out.events
    assert isinstance(ended, TurnEnded)
    assert (ended.ended, ended.turns, ended.reason) == (TEN_YEARS, TEN_YEARS, "clock")
    assert ended.actions == {"Alpha": ["economy"]}  # what was done in the turn the absence began in
    assert event_line(ended, when=lambda moment: moment.strftime("%Y-%m-%d %H:%M")) == (
        "⏰ 87,600 turns passed while the referee was away (turns 1 to 87,600). Turn 87,601 begins and ends "
        f"{(NOW + hours(TEN_YEARS + 1)).strftime('%Y-%m-%d %H:%M')}. Turn 1 — Alpha: ECONOMY.")
    state = game.state
    assert state.turn == TEN_YEARS + 1
    assert (state.turn_started_at, state.turn_ends_at) == (NOW + hours(TEN_YEARS), NOW + hours(TEN_YEARS + 1))
    assert game.nation("Alpha").actions_used == []
    assert game.tick().events == []  # nothing more is due
    game.assert_replays()
    logged = [event_from_dict(event_to_dict(e), "nations") for e in game.events]  # as the store writes and reads it
    assert snap(replay(logged)) == snap(state)


def _tick_all(game: Game, dice: list[int]) -> list:
    """Tick with these dice available (a battle's default may roll); keeps the new state and events."""
    out = execute(game.state, Tick(), Context(game.now, "gm", game.rules, True, ForcedRoller(dice)))
    game.state = out.state
    game.events.extend(out.events)
    return out.events


def _long_absence(separate: int, monkeypatch) -> tuple[Game, list]:
    """1-hour turns, a bonus lasting 500 hours, a battle waiting for a choice; then 1000 hours away."""
    monkeypatch.setattr(nations_clock, "MAX_SEPARATE_ROLLOVERS", separate)
    game = Game(turn_hours=1)
    game.do(SetHouse("bonus_hours", "500"))
    game.nation_with("Alpha", "alice", units={"infantry": 2})
    game.nation_with("Beta", "bob", units={"infantry": 2})
    game.do(Encourage("morale"), actor="alice", dice=[10])
    game.advance(minutes=30)
    from engine.nations.war import DeclareAttack
    game.do(DeclareAttack("Beta", [1]), actor="alice")  # its choice falls due at 1.5 h, mid turn 2
    game.advance(hours=1000)
    return game, _tick_all(game, [10] * 40)


def test_a_long_catch_up_ends_the_same_as_turn_by_turn(monkeypatch):
    """Every missed turn, bonus and battle choice as if each had passed on time: the same state and the same
    order of what fell due, in a handful of events instead of a thousand rollovers."""
    bounded, events = _long_absence(100, monkeypatch)
    one_by_one, reference = _long_absence(10**9, monkeypatch)
    assert snap(bounded.state) == snap(one_by_one.state)
    assert bounded.state.turn == 1001
    turns = [e.turns for e in events if isinstance(e, TurnEnded)]
    assert sum(turns) == 1000 == len([e for e in reference if isinstance(e, TurnEnded)])
    assert len(events) < 60 < len(reference)
    # the turn in which the bonus expired (500 h after it was set, at the end of turn 500) is the same
    expiry = [i for i, e in enumerate(events) if isinstance(e, BonusExpired)]
    assert [sum(e.turns for e in events[:expiry[0]] if isinstance(e, TurnEnded))] == [
        sum(1 for e in reference[:[i for i, e in enumerate(reference) if isinstance(e, BonusExpired)][0]]
            if isinstance(e, TurnEnded))] == [500]
    bounded.assert_replays()


def test_up_to_a_hundred_missed_turns_are_still_announced_one_by_one():
    game = Game(turn_hours=1)
    game.advance(hours=100)
    assert [e.turns for e in game.tick().events] == [1] * 100
    game.advance(hours=101)
    assert [e.turns for e in game.tick().events] == [101]
    assert game.state.turn == 202
    game.assert_replays()


async def test_the_store_catches_up_ten_years_in_one_transaction_that_replays(tmp_path):
    clock = FakeClock()
    store = await Store.open(tmp_path / "referee.db")
    try:
        ref = Referee(store, RULES, ForcedRoller(), clock)
        game_id = (await ref.start_game("chan", "gm", turn_hours=1)).game_id
        await ref.act("chan", "gm", ClaimPreset("Charon", "bob"), "/nation claim Charon")
        clock.advance(hours=TEN_YEARS)
        report = await ref.act("chan", "gm", SetHouse("bonus_hours", "24"), "/gm house bonus_hours 24")
        assert [(e.kind, e.turns) for e in report.caught_up] == [("turn_ended", TEN_YEARS)]
        assert (await store.load(game_id)).turn == TEN_YEARS + 1
        await assert_snapshot_is_replay(store, game_id)
    finally:
        await store.close()


# --- 3. house values checked when set ---------------------------------------------------------------------


@pytest.mark.parametrize(("key", "value", "message"), [
    ("preset_unit_rank", "4", "preset_unit_rank must be one of conscript, green, regular, elite, guard, not '4'"),
    ("preset_unit_rank", "veteran", "preset_unit_rank must be one of"),
    ("actions_per_turn", "4", "actions_per_turn must be between 1 and 3, not 4"),
    ("actions_per_turn", "0", "actions_per_turn must be between 1 and 3, not 0"),
    ("actions_per_turn", "1" + "0" * 30, "actions_per_turn must be between 1 and 3, not 1e+30"),
    ("actions_per_turn", "2.5", "actions_per_turn takes a whole number, not '2.5'"),
    ("new_nation_land", "1" + "0" * 30, "new_nation_land must be between 1 and 1000, not 1e+30"),
    ("new_nation_stability", "-1", "new_nation_stability must be between 0 and 1000, not -1"),
    ("land_cut_tie", "stability", "land_cut_tie must be economy or military, not 'stability'"),
    ("full_hp_after_battle", "maybe", "full_hp_after_battle takes true or false, not 'maybe'"),
    ("bonus_hours", "soon", "bonus_hours takes a number, not 'soon'"),
    ("bonus_hours", "x" * 5000, "bonus_hours takes a number, not 'xxxx"),
    ("dragons", "1", "unknown house setting 'dragons'"),
])
def test_house_values_are_checked_when_set(game, key, value, message):
    error = game.refuse(SetHouse(key, value), BadInput)
    assert str(error).startswith(message) and len(str(error)) < 400


def test_valid_house_values_still_apply(game):
    game.do(SetHouse("preset_unit_rank", "Regular"))
    game.do(SetHouse("actions_per_turn", "3"))
    game.do(SetHouse("land_cut_tie", "economy"))
    game.do(SetHouse("new_nation_land", "30"))
    assert (game.state.house.preset_unit_rank, game.state.house.actions_per_turn) == ("regular", 3)
    game.do(ClaimPreset("Charon"), actor="bob")
    assert {u.rank for u in game.nation("Charon").units.values()} == {"regular"}
    game.assert_replays()


def test_the_rules_check_a_house_rank_for_the_import_path():
    """`check_rules` is what an import (which has the rules at hand) calls on an imported house."""
    house = HouseSettings.from_data({"preset_unit_rank": "4"})  # validate() alone knows no ranks
    with pytest.raises(RulesError, match="preset_unit_rank must be one of"):
        house.check_rules(RULES)
    HouseSettings().check_rules(RULES)
    raw = {"house": {"preset_unit_rank": "4"}}
    with pytest.raises(RulesError):
        rules_from_dict(raw)


# --- 4. look-alike names ----------------------------------------------------------------------------------


def _create(name: str, player: str) -> CreateNation:
    return CreateNation(name, 12, 8, "armour", "fighter", {"armour": 1, "fighter": 1}, player=player)


@pytest.mark.parametrize("twin", ["Foo" + ZWSP, "Fo" + ZWNJ + "o", "FOO", " Foo ", "\u2060Foo", "Ｆｏｏ"])
def test_look_alike_nation_names_are_one_name(game, twin):
    game.do(_create("Foo", "alice"))
    game.refuse(_create(twin, "bob"), RuleViolation, "there is already a nation called Foo")
    assert game.state.find_nation(twin) is game.nation("Foo")


def test_a_nation_name_is_stored_in_its_clean_form(game):
    game.do(_create("Fo" + ZWNJ + "o" + ZWSP + "  Land", "alice"))
    assert list(game.state.nations) == ["Foo Land"]
    game.refuse(_create(ZWSP + ZWNJ + " ", "bob"), BadInput, "a nation needs a name")
    game.refuse(_create("x" * 41, "bob"), BadInput, "at most 40 characters")
    game.assert_replays()


def test_a_player_given_with_invisible_characters_is_the_same_player(game):
    game.nation_with("Foo", "alice", economy=5, military=5)
    assert game.state.nation_of("alice" + ZWSP) is game.nation("Foo")
    game.do(GrowEconomy("Foo" + ZWSP), actor="al" + ZWNJ + "ice", dice=[9])  # acts for its own nation
    game.refuse(AssignNation("Foo", "ALICE" + ZWSP), RuleViolation, "already played by")
    with pytest.raises(UnknownNation):
        from engine.nations.common import find_nation
        find_nation(game.state, "Bar")


def test_god_dice_player_names_are_clean_and_compared_alike():
    table = Table(players=())
    table.do(Join("Zed" + ZWSP), actor="gm")
    assert [p.name for p in table.state.players] == ["Zed"]
    table.refuse(Join("zed"), RuleViolation, "already has a seat", "gm")
    table.refuse(Join("Z" + ZWNJ + "ed"), RuleViolation, "already has a seat", "gm")
    table.refuse(Join("<@123>"), BadInput, "without @ # : or `", "gm")
    table.refuse(Join(ZWSP), BadInput, "a player's name", "gm")
    assert table.state.player("ZED" + ZWSP) is table.state.players[0]


def test_durations_do_not_slow_the_clock_down():
    """A sanity figure: bounds leave the ordinary clock untouched (12-hour turns, three days away)."""
    game = Game()
    game.advance(hours=72)
    assert [e.turns for e in game.tick().events] == [1] * 6
    assert game.state.turn_ends_at == NOW + timedelta(hours=84)


def test_a_game_saved_with_a_turn_of_1e_minus_300_hours_is_caught_up_not_hung():
    """A database written before the bounds may hold such a turn: the catch-up still ends, in one event."""
    game = Game(turn_hours=1)
    game.state.turn_hours = 1e-300
    game.advance(hours=2)
    out = game.tick()
    [ended] = out.events
    assert isinstance(ended, TurnEnded) and ended.turns > MAX_SEPARATE_ROLLOVERS
    assert game.state.turn_ends_at > game.now
    assert game.tick().events == []
