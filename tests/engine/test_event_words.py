"""Every event's words for the players: each Event subclass of every rule set, built with sample values
(every internal key an event can carry: a stat, a house setting, a changed field, a phase, a reason…), worded
through `engine.describe.event_line` — the path the console and Discord both take — never shows an internal
snake_case name; and the shared words (`plural`) say "dice", not "dies"."""

from __future__ import annotations

import dataclasses
import re
import typing
from datetime import UTC, datetime
from typing import Any

import pytest

import engine.goddice.events
import engine.godsfire.events
import engine.nations.events  # noqa: F401  (every rule set's events registered)
from engine.describe import event_line, plural, utc_text
from engine.dice import FacesRecord, RollRecord
from engine.events import EVENT_TYPES, Event, HouseChanged
from engine.goddice.cards import GoddiceHouse
from engine.goddice.describe import GOD, MOVES
from engine.goddice.state import PHASES as GODDICE_PHASES
from engine.godsfire.describe import TABLE_FIELDS
from engine.godsfire.rules import GodsfireHouse
from engine.godsfire.state import PHASE_NAMES, STEPS, GodsfireState, Player, Region, System
from engine.nations.rules import STATS, HouseSettings

NOW = datetime(2030, 1, 1, 12, 0, tzinfo=UTC)

SNAKE = re.compile(r"(?<![\w#/])[A-Za-z][A-Za-z0-9]*(?:_[A-Za-z0-9]+)+(?![\w(])")
CODE_SPAN = re.compile(r"`([^`]*)`")

ALLOWED_IN_BACKTICKS = frozenset({
    # /gm house key:… — a house setting's name is what the GM types, shown in backticks after its words
    "turn_hours", "actions_per_turn", "bonus_hours", "recruit_meets_difficulty", "land_cut_tie",
    "military_cost_on_success", "new_nation_total", "new_nation_stability", "new_nation_propaganda",
    "new_nation_land", "preset_unit_rank", "choice_deadline_hours", "full_hp_after_battle", "reminder_hours",
    "end_turn_when_all_done", "spoils_multiplier",  # Nations
    "national_allegiance_start", "economy_cost_s", "economy_cost_a1", "economy_cost_a2", "economy_cost_i1",
    "response_hours", "transit_column", "sqd_strength", "ag_strength", "ag_strength_small", "pdf_strength",
    "ng_strength", "build_up_most",  # Godsfire (God Dice has reminder_hours only)
})
"""The only snake_case words players may see: command option values, each in backticks."""


def house_keys() -> set[str]:
    return {f.name for cls in (HouseSettings, GoddiceHouse, GodsfireHouse) for f in dataclasses.fields(cls)}


def test_the_allowed_words_are_exactly_the_house_settings_gm_house_takes():
    snake_keys = {key for key in house_keys() if "_" in key}
    assert snake_keys == ALLOWED_IN_BACKTICKS


def snake_words(text: str) -> list[str]:
    """The snake_case words of `text`, except an allowed name in backticks."""
    bare = CODE_SPAN.sub(lambda m: " " if m.group(1) in ALLOWED_IN_BACKTICKS else f" {m.group(1)} ", text)
    return SNAKE.findall(bare)


def test_snake_words_finds_what_it_must():
    assert snake_words("Sol: taxed_turn 0 → 1 (tax).") == ["taxed_turn"]
    assert snake_words("House setting `actions_per_turn` is now 3") == []
    assert snake_words("a `secret_field` in backticks") == ["secret_field"]
    assert snake_words("GM-entered dice, E+M 20, #3 infantry, d10 9, mod(E) +1") == []


# --- sample values ---------------------------------------------------------------------------------

ROLL = RollRecord("Charon", "grow economy", 7, {"mod(E)": 1}, 8, 12, ">", False, True, 1, NOW)
FACES = FacesRecord("alice", "opening roll", ["B", "R", "5"], [True, False, False], 1, NOW)
NAMES = {"player": "alice", "gm": "gm", "by": "gm", "nation": "Charon", "name": "Alpha", "system": "Sol",
         "attacker": "Charon", "defender": "Tyre", "winner": "Charon", "loser": "Tyre", "government": "Sol",
         "defender_player": "bob", "undone_actor": "bob", "summary": "/economy grow", "text": "a notice",
         "reason": "the reason", "chosen_by": "bob", "favor": "attacker", "direction": "counter-clockwise",
         "result": "a draw", "outcome": "#3 wins", "words": "the defender loses 1 unit", "detail": "odds 3-1",
         "column": "3-1", "attack": "lacerate", "rank": "green", "old_rank": "green", "type": "infantry",
         "attacker_type": "infantry", "defender_type": "armour", "strength": "infantry", "weakness": "bomber",
         "bonus": "workers", "action": "economy", "choice": "pairing", "default": "#1 against #4",
         "stage": "commit", "step": "tax", "chart": "combat", "rolled": "B", "stat": "economy",
         "phase": "movement", "key": "turn_hours"}


def sample(hint: Any, name: str) -> Any:
    """A plain value of `hint` for a field called `name`."""
    if typing.get_origin(hint) in (typing.Union, __import__("types").UnionType):
        return sample(next(a for a in typing.get_args(hint) if a is not type(None)), name)
    origin = typing.get_origin(hint) or hint
    if hint is RollRecord:
        return ROLL
    if hint is FacesRecord:
        return FACES
    if hint is datetime:
        return NOW
    if hint is bool:
        return False
    if hint is int:
        return 2
    if hint is float:
        return 3.0
    if hint is str:
        return NAMES.get(name, "Alpha")
    if origin is list:
        (item,) = typing.get_args(hint) or (str,)
        return [sample(item, name), sample(item, name)] if item is not Any else [3, 4]
    if origin is dict:
        return {}
    return None


ROUND = {"kind": "round", "attacker_total": 7, "defender_total": 5, "loser": 4}
NATIONS_GAME = {"game": {"ruleset": "nations", "turn": 3}, "nations": [{}, {}]}
STANDINGS = {"nations": [{"name": "Charon", "player": "bob", "land": 22, "economy": 11, "stability": 10,
                          "military": 9, "propaganda": 10, "battles_won": 2, "eliminated": False}],
             "winner": "Charon"}


def field_values(cls: type) -> dict[str, list[Any]]:
    """Every value an internal field of `cls` (a Godsfire region, system, player, game) can be shown with."""
    hints = typing.get_type_hints(cls)
    return {f.name: sample(hints[f.name], f.name) for f in dataclasses.fields(cls)}


def changes_of(cls: type, skip: frozenset[str] = frozenset()) -> list[dict[str, Any]]:
    """One `changes`/`before` pair a field of `cls`, and one with all of them at once."""
    values = {k: v for k, v in field_values(cls).items() if k not in skip}
    singles = [{"changes": {k: v}, "before": {k: v}} for k, v in values.items()]
    return [*singles, {"changes": values, "before": {}}]


VARIANTS: dict[str, list[dict[str, Any]]] = {
    "game_imported": [{"snapshot": NATIONS_GAME},
                      {"snapshot": {"game": {"ruleset": "goddice"}, "players": [{}, {}]}},
                      {"snapshot": {"game": {"ruleset": "godsfire"}, "players": [{}], "systems": [{}]}}],
    "game_ended": [{"standings": {}}, {"standings": STANDINGS},
                   {"standings": {"ruleset": "godsfire", "winner": "alice", "players": []}}],
    "house_changed": [{"key": key, "value": value} for key in sorted(house_keys()) for value in (3, True, "0")],
    "dice_queued": [{"values": [9]}, {"values": [9, 8]}],
    "die_rolled": [{"roll": ROLL}, {"roll": dataclasses.replace(ROLL, free="2d6 (3, 5) + 3 = 11")}],
    "game_started": [{"house": {"turn_hours": 12.0}}],
    "goddice_started": [{"options": ["free_for_all", "campaign"]}],
    "turn_ended": [{"reason": reason, "actions": {"Charon": ["economy"], "Tyre": []}, "turns": turns}
                   for reason in ("clock", "gm", "all done") for turns in (1, 3)],
    "stat_changed": [{"stat": stat} for stat in (*STATS, "foreign_patches")],
    "action_granted": [{"action": None}, {"action": "economy"}],
    "nation_assigned": [{"player": None}, {"player": "bob"}],
    "battle_awaits": [{"stage": "commit"}, {"stage": "pairing"}],
    "choice_defaulted": [{"by": "default"}, {"by": "gm"}],
    "retreat_ordered": [{"at_hp": None}, {"at_hp": 0}, {"at_hp": 2}],
    "duel_started": [{"chosen_by": "only pairing"}, {"chosen_by": "bob"}],
    "round_fought": [{"round": ROUND}, {"round": {**ROUND, "kind": "initiative"}}],
    "unit_left_fight": [{"reason": "retreated"}, {"reason": "destroyed"}],
    "unit_changed": [{"type": ""}, {"type": "infantry"}],
    "battle_ended": [{"reason": ""}, {"reason": "the defender surrendered"}, {"winner": None, "reason": ""}],
    "god_dice_read": [{"outcome": outcome} for outcome in (*GOD, "in favor")],
    "favor_decided": [{"choice": "keep"}, {"choice": "reroll"}],
    "first_chosen": [{"choice": "attack"}, {"choice": "select"}],
    "attack_dice_set": [{"legal": []}, {"legal": ["lacerate", "smite"]}],
    "life_changed": [{"by": None}, {"by": "gm"}],
    "game_won": [{"campaign_over": over, "wins": wins} for over in (True, False) for wins in (1, 2)],
    "move_awaited": [{"phase": phase, "quiet": False} for phase in GODDICE_PHASES],
    "player_reminded": [{"phase": phase} for phase in GODDICE_PHASES],
    "player_added": [{"national_allegiance": {"R": 5, "M": 4}, "government": government}
                     for government in (None, "Sol")],
    "system_added": [{"system": {"name": "Sol", "owner": owner, "planets": 2, "units": {"SQD": 2},
                                 "regions": [{"number": 1, "party": "M", "allegiance": 4, "economy": "A-1",
                                              "revolt": True, "enemy_units": 2}]}} for owner in (None, "alice")],
    "region_changed": changes_of(Region, frozenset({"number"})),
    "system_changed": changes_of(System, frozenset({"name", "regions"})),
    "player_changed": changes_of(Player, frozenset({"name"})),
    "game_changed": [*changes_of(GodsfireState, frozenset({"gm", "house", "started_at", "ruleset", "players",
                                                           "systems"})),
                     {"changes": {"order": ["alice", "bob"]}, "before": {}, "reason": "the order is rolled"},
                     {"changes": {"counters": []}, "before": {}, "reason": "alice moves #3 to 0104"}],
    "godsfire_phase_changed": [{"phase": phase} for phase in PHASE_NAMES],
    "step_done": [{"step": step} for step in STEPS],
    "chart_read": [{"chart": chart} for chart in ("combat", "transit", "money", "movement", "stacking", "other")],
}


def instances(cls: type[Event]) -> list[Event]:
    """`cls` built with sample values, once a variant (or once with plain values)."""
    hints = typing.get_type_hints(cls)
    plain = {f.name: sample(hints[f.name], f.name) for f in dataclasses.fields(cls)}
    return [cls(**{**plain, **variant}) for variant in VARIANTS.get(cls.kind, [{}])]


def product_events() -> dict[str, type[Event]]:
    """The event kinds of the product's rule sets (not those a test registers, e.g. the plug tests' dice race)."""
    return {kind: cls for (_, kind), cls in EVENT_TYPES.items() if cls.__module__.startswith("engine.")}


def every_event() -> list[Event]:
    return [event for cls in product_events().values() for event in instances(cls)]


def test_every_event_kind_is_built_and_worded_by_some_rule_set():
    assert {"game_started", "goddice_started", "godsfire_started", "region_changed", "house_changed"} <= set(
        product_events())
    worded = {event.kind for event in every_event() if event_line(event)}
    # the events that need no words of their own: what they change shows in the events around them (a battle
    # choice's reminder is sent to its person by each front-end, not logged in words)
    assert set(product_events()) - worded <= {"action_used", "phase_changed", "interphase_reset", "choice_reminded"}


@pytest.mark.parametrize("event", every_event(), ids=lambda e: e.kind)
def test_no_event_words_show_an_internal_name(event):
    for who in (lambda name: name, lambda name: f"<@{name}>"):  # the console's names, Discord's mentions
        line = event_line(event, utc_text, who)
        assert not snake_words(line or ""), line


def test_every_godsfire_field_has_words():
    """A changed Godsfire field is worded by its label, never by its name (bookkeeping marks too: they are shown
    when nothing else changed, as `Sol: tax paid for turn 0 → 1 (…)`); the procedure's fields by their reason."""
    from engine.godsfire.describe import FIELD_WORDS, changes_text

    fields = {f.name for cls in (Region, System, Player, GodsfireState) for f in dataclasses.fields(cls)}
    missing = {name for name in fields if "_" in name and name not in FIELD_WORDS and name not in TABLE_FIELDS}
    assert not missing, missing
    assert changes_text({"taxed_turn": 1}, {"taxed_turn": 0}) == "tax paid for turn 0 → 1"
    assert changes_text({"taxed_turn": 1, "bank": 3}, {"taxed_turn": 0, "bank": 0}) == "bank 0 → 3"
    assert changes_text({"wars": [["alice", "bob"]]}, {"wars": []}) == "wars none → alice and bob"


def test_house_changed_words_name_the_setting_and_its_key():
    assert event_line(HouseChanged("actions_per_turn", 3)) == (
        "House setting actions per turn (`actions_per_turn`) is now 3 for this game.")
    assert event_line(HouseChanged("full_hp_after_battle", False)) == (
        "House setting full HP after battle (`full_hp_after_battle`) is now no for this game.")
    assert event_line(HouseChanged("ag_strength", 1.5)) == (
        "House setting AG strength (`ag_strength`) is now 1.5 for this game.")
    assert event_line(HouseChanged("turn_hours", 12.0)) == (
        "House setting turn hours (`turn_hours`) is now 12 for this game.")


# --- plural ----------------------------------------------------------------------------------------


def test_plural_says_dice():
    assert plural(1, "die") == "1 die"
    assert plural(2, "die") == "2 dice"
    assert plural(2, "GM-entered die") == "2 GM-entered dice"
    assert plural(0, "action") == "0 actions"
    assert plural(3, "enemy unit") == "3 enemy units"
    assert plural(2, "diet") == "2 diets"


def test_the_god_dice_status_says_dice_waiting():
    from engine.goddice.describe import status_lines
    from engine.goddice.state import GoddiceState

    state = GoddiceState.__new__(GoddiceState)
    for f in dataclasses.fields(GoddiceState):
        default = f.default_factory() if f.default_factory is not dataclasses.MISSING else f.default  # type: ignore[misc]
        object.__setattr__(state, f.name, None if default is dataclasses.MISSING else default)
    state.gm, state.forced_dice = "gm", ["B", "R"]
    assert "2 GM-entered dice waiting." in status_lines(state, lambda name: name)  # which: the GM's alone
    assert not any("B R" in text for text in status_lines(state, lambda name: name))
    assert MOVES  # (the move words are the ones the walk above checks)
