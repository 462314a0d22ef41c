"""The bounds of a God Dice game (issue 33): whatever a GM's card file or the clock makes of a game, its export
imports again; beyond the bounds, one line and nothing changed."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from cardfiles import SHIPPED_RAW
from goddicehelpers import Table

from engine.errors import BadInput
from engine.gm import SetHouse
from engine.goddice.actions import LoadCards
from engine.goddice.cards import MAX_CARD_CHARACTERS, RulesError, cards_from_file
from engine.goddice.schema import MAX_POOL, MAX_REMINDERS, validate_export
from engine.goddice.snapshot import state_to_dict


def with_characters(count: int) -> dict[str, Any]:
    """The shipped card file with characters added (each with a God face of its own) up to `count`."""
    raw = copy.deepcopy(SHIPPED_RAW)
    extra = 0
    while len(raw["characters"]) < count:
        extra += 1
        raw["characters"][f"x{extra}"] = {"title": f"Extra {extra}", "god": chr(0x4E00 + extra), "life": 10,
                                          "basic": {"B": 1}}
    raw["dice"]["god_faces"] = [c["god"] for c in raw["characters"].values()]
    return raw


def test_a_card_file_has_at_most_as_many_characters_as_an_imported_pool_holds():
    assert MAX_POOL == MAX_CARD_CHARACTERS
    assert len(cards_from_file(with_characters(MAX_CARD_CHARACTERS)).characters) == MAX_CARD_CHARACTERS
    with pytest.raises(RulesError) as caught:
        cards_from_file(with_characters(MAX_CARD_CHARACTERS + 1))
    assert str(caught.value) == f"a card file has at most {MAX_CARD_CHARACTERS} characters, not 101"


def test_gm_cards_with_too_many_characters_changes_nothing():
    table = Table()
    table.refuse(LoadCards(with_characters(MAX_CARD_CHARACTERS + 1)), BadInput,
                 "that card file is not valid: a card file has at most 100 characters, not 101")


def test_a_game_with_the_most_characters_drafts_and_its_export_imports_again():
    table = Table()
    table.do(LoadCards(with_characters(MAX_CARD_CHARACTERS)))
    table.rolloff("alice")
    table.choose("alice", "select")
    assert len(table.state.pool) == MAX_CARD_CHARACTERS
    assert validate_export({**state_to_dict(table.state), "rolls": []}, table.now)


def test_a_move_waited_on_for_months_with_the_shortest_reminders_imports_again():
    table = Table()
    table.do(SetHouse("reminder_hours", "0.1"))
    table.rolloff("alice")
    table.advance(hours=24 * 300)
    table.tick()
    assert table.state.reminders == 24 * 300 * 10 > 1000  # once, for however long it waited
    assert table.state.reminders < MAX_REMINDERS
    assert validate_export({**state_to_dict(table.state), "rolls": []}, table.now)
