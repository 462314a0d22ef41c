"""`engine.ledgercheck` on its own: the clock's slack, rows without a time, the turns of a game that starts again,
and a rule set that says nothing of its dice."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from engine.errors import BadInput
from engine.ledgercheck import CLOCK_SLACK, LedgerTerms, check_ledger

NOW = datetime(2030, 1, 1, 12, tzinfo=UTC)
D6 = LedgerTerms(sides=frozenset({6}), rollers=frozenset({"alice", "bob"}), turn=3)


def roll(turn: int = 1, at: datetime | None = NOW, who: str | None = "alice", die: int = 4) -> dict[str, Any]:
    return {"nation": who, "purpose": "test", "die": die, "modifiers": {}, "total": die, "target": None,
            "comparison": None, "success": None, "forced": False, "turn": turn,
            "at": None if at is None else at.isoformat(), "battle": None, "unit": None, "sides": 6, "faces": None}


def refusal(rolls: list[dict[str, Any]], terms: LedgerTerms | None = D6) -> str | None:
    try:
        check_ledger(rolls, terms, {"gm"}, NOW, "Test", "player")
    except BadInput as refused:
        return str(refused)
    return None


def test_another_hosts_clock_a_little_ahead_is_no_fault():
    assert refusal([roll(at=NOW + CLOCK_SLACK)]) is None
    assert "in the future" in (refusal([roll(at=NOW + CLOCK_SLACK + timedelta(seconds=1))]) or "")


def test_two_actions_committed_in_the_other_order_than_their_clocks_are_no_fault():
    assert refusal([roll(at=NOW), roll(at=NOW - CLOCK_SLACK)]) is None
    found = refusal([roll(at=NOW), roll(at=NOW - CLOCK_SLACK - timedelta(seconds=1))])
    assert found is not None
    assert found.startswith("that export's ledger does not fit its game: rolls[1] ('test' by alice, turn 1): it was")


def test_rows_without_a_time_are_checked_for_the_rest():
    assert refusal([roll(at=None), roll(at=NOW - timedelta(days=1)), roll(at=None)]) is None
    assert "before the roll above it" in (refusal([roll(at=NOW), roll(at=None), roll(at=NOW - timedelta(days=1))])
                                          or "")
    assert "a d6 shows 1 to 6, not 9" in (refusal([roll(at=None, die=9)]) or "")


def test_the_gm_rolls_too():
    assert refusal([roll(who="gm")]) is None
    assert "carol is not one of the game's players, nor its GM" in (refusal([roll(who="carol")]) or "")


def test_turns_that_start_again_are_bounded_by_the_game_only_after_its_last_start():
    campaign = LedgerTerms(sides=frozenset({6}), rollers=frozenset({"alice"}), turn=2, restarts=1)
    assert refusal([roll(turn=7), roll(turn=1), roll(turn=2)], campaign) is None
    assert "its turn 3 is after the game's turn 2" in (refusal([roll(turn=7), roll(turn=1), roll(turn=3)], campaign)
                                                      or "")
    # the game started again and has rolled nothing since: its last rolls are the game before's
    assert refusal([roll(turn=1), roll(turn=7)], campaign) is None
    found = refusal([roll(turn=7), roll(turn=1), roll(turn=2), roll(turn=1)], campaign) or ""
    assert found.endswith("rolls[3] ('test' by alice, turn 1): its turn 1 comes after turn 2 (a ledger's turns go "
                          "back only when Test starts again: once here)")


def test_the_first_fault_is_the_one_named():
    found = refusal([roll(turn=999), roll(turn=1)])
    assert found is not None and "rolls[0]" in found and "its turn 999 is after the game's turn 3" in found


@pytest.mark.parametrize("rolls", [[], [roll()]])
def test_a_rule_set_that_says_nothing_of_its_dice_passes_only_an_empty_ledger(rolls):
    found = refusal(rolls, None)
    assert (found is None) == (not rolls)
    assert found is None or found == ("that export's rolls cannot be checked: Test does not say what its dice are, "
                                      "so its games import without rolls")
