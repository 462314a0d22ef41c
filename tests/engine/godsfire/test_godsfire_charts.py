"""Godsfire's charts with entered dice: every cell of the Combat Results Table and of Transit Attacks, every
odds boundary and the nebula, the money dice, and the movement and stacking checks (which roll nothing)."""

from __future__ import annotations

import pytest
from godsfirehelpers import Table

from engine.errors import BadInput
from engine.events import DieRolled
from engine.godsfire.charts import Combat, MoneyDie, MoveCheck, StackCheck, Transit, odds_column, result_words
from engine.godsfire.describe import event_line

# The sheet, copied here by hand (die 1..6 down, columns across), so the data file is checked against it.
CRT_COLUMNS = ["1-3", "1-2", "1-1", "2-1", "3-1", "4-1"]
CRT = """
Ar Dr D1 DE DE DE
Ar ne Dr D2 DE DE
A2 ne Dr D1 D2 DE
AE Ar ne Dr D1 DE
AE AE Ar ne D1 D2
AE AE A1 Ar Dr D2
"""
TRANSIT_COLUMNS = ["-2", "-1", "0"]
TRANSIT = """
ME ME ME
ME ME M1
ME M1 Ms
ME Ms ne
Ms ne ne
ne ne S1
"""
WORDS = {
    "Ar": "Ar: the attacker retreats", "Dr": "Dr: the defender retreats",
    "A1": "A1: the attacker loses 1 unit, the defender chooses",
    "A2": "A2: the attacker loses 2 units, the defender chooses",
    "D1": "D1: the defender loses 1 unit, the attacker chooses",
    "D2": "D2: the defender loses 2 units, the attacker chooses",
    "AE": "AE: the attacker is eliminated", "DE": "DE: the defender is eliminated", "ne": "ne: no effect",
    "ME": "ME: the movers are eliminated", "M1": "M1: the movers lose 1 unit, the stationary units choose",
    "Ms": "Ms: the movers stop", "S1": "S1: the stationary units lose 1 unit, the movers choose",
}
# A strength pair that reads each column exactly.
AT_COLUMN = {"1-3": (1, 3), "1-2": (1, 2), "1-1": (1, 1), "2-1": (2, 1), "3-1": (3, 1), "4-1": (4, 1)}


def cells(table: str, columns: list[str]) -> list[tuple[str, int, str]]:
    rows = [line.split() for line in table.strip().splitlines()]
    return [(column, die, rows[die - 1][i]) for die in range(1, 7) for i, column in enumerate(columns)]


@pytest.fixture(scope="module")
def table() -> Table:
    return Table(["alice"])


@pytest.mark.parametrize(("column", "die", "code"), cells(CRT, CRT_COLUMNS))
def test_every_cell_of_the_combat_results_table(table, column, die, code):
    attack, defence = AT_COLUMN[column]
    outcome = table.do(Combat(attack, defence), "alice", entered=[die])
    read = table.chart(outcome)
    assert (read.chart, read.column, read.die, read.result, read.words) == ("combat", column, die, code, WORDS[code])
    [rolled] = table.of(outcome, DieRolled)
    assert (rolled.roll.purpose, rolled.roll.die, rolled.roll.forced) == ("combat", die, True)
    line = f"⚔ Combat, {attack} against {defence}: odds {column}; die {die}: {WORDS[code]}."
    assert event_line(read, str, str) == line


@pytest.mark.parametrize(("column", "die", "code"), cells(TRANSIT, TRANSIT_COLUMNS))
def test_every_cell_of_transit_attacks(table, column, die, code):
    read = table.chart(table.do(Transit(column), "alice", dice=[die]))
    assert (read.chart, read.column, read.die, read.result, read.words) == ("transit", column, die, code, WORDS[code])


@pytest.mark.parametrize(("attack", "defence", "column"), [
    # at or above even odds: rounded up to the next whole ratio (the attacker's favour)
    (1, 1, "1-1"), (6, 6, "1-1"), (7, 6, "2-1"), (2, 1, "2-1"), (4, 2, "2-1"), (5, 2, "3-1"), (6, 2, "3-1"),
    (7, 2, "4-1"), (8, 2, "4-1"), (9, 2, "4-1"), (100, 1, "4-1"), (13, 4, "4-1"), (12, 4, "3-1"),
    # below even odds: the defender's share rounded down (the attacker's favour)
    (2, 3, "1-1"), (5, 9, "1-1"), (1, 2, "1-2"), (2, 5, "1-2"), (3, 8, "1-2"), (1, 3, "1-3"),
    (2, 7, "1-3"), (1, 4, "1-3"), (1, 100, "1-3"),
])
def test_the_odds_round_in_the_attackers_favour(attack, defence, column):
    assert odds_column(attack, defence) == column


@pytest.mark.parametrize(("attack", "defence", "halved", "column"), [
    (5, 2, "2½ against 1", "3-1"),   # halved without rounding: 2.5 to 1, rounded up to 3-1 as outside
    (1, 1, "½ against ½", "1-1"),
    (4, 7, "2 against 3½", "1-1"),   # the same odds as 4 against 7 outside the nebula
    (9, 2, "4½ against 1", "4-1"),
])
def test_the_nebula_halves_both_sides_without_rounding(table, attack, defence, halved, column):
    read = table.chart(table.do(Combat(attack, defence, nebula=True), "alice", entered=[3]))
    assert read.column == column
    assert f"halved in the nebula to {halved}" in read.detail


@pytest.mark.parametrize(("colour", "die", "gb"), [("black", d, d) for d in range(1, 7)] +
                         [("red", d, d + 6) for d in range(1, 7)])
def test_the_money_dice(table, colour, die, gb):
    read = table.chart(table.do(MoneyDie(colour), "alice", dice=[die]))
    assert (read.chart, read.column, read.die, read.result, read.words) == ("money", colour, die, str(gb), f"{gb} GB")


def test_bad_chart_input_is_refused_and_rolls_nothing(table):
    table.refuse(Combat(0, 3), BadInput, "attack is a strength of 1", "alice")
    table.refuse(Combat(3, 0), BadInput, "defence is a strength of 1", "alice")
    table.refuse(Combat(1000, 3), BadInput, "attack", "alice")
    table.refuse(Transit("1"), BadInput, "-2, -1, 0", "alice")
    table.refuse(MoneyDie("green"), BadInput, "black or red", "alice")
    table.refuse(MoveCheck("TANK", 1), BadInput, "SQD, AG, PDF, NG, GB", "alice")
    table.refuse(MoveCheck("AG", 2, nebula=3), BadInput, "0 to 2", "alice")
    table.refuse(StackCheck(), BadInput, "check one stack", "alice")
    table.refuse(StackCheck(space=2, ground=2), BadInput, "check one stack", "alice")
    table.refuse(StackCheck(space=2, total=5), BadInput, "total:", "alice")
    table.refuse(StackCheck(combat=8, total=5), BadInput, "at least 8", "alice")


@pytest.mark.parametrize(("unit", "cells", "nebula", "ground", "ok", "words"), [
    ("SQD", 4, 0, 0, True, "allowed: a squadron (SQD) moves 4; 4 cells"),
    ("SQD", 5, 0, 0, False, "not allowed: a squadron (SQD) moves 4; 5 cells is more than its 4"),
    ("AG", 4, 0, 0, True, "allowed"),
    ("AG", 2, 1, 0, True, "allowed: an attack group (AG) moves 4; 2 cells, 1 in a nebula (2 + 2 × 1 = 4)"),
    ("AG", 3, 1, 0, False, "3 cells, 1 in a nebula (3 + 2 × 1 = 5) is more than its 4"),
    ("PDF", 3, 0, 0, True, "allowed"), ("PDF", 4, 0, 0, False, "more than its 3"),
    ("NG", 3, 0, 0, True, "allowed"), ("NG", 1, 1, 0, True, "allowed"), ("NG", 2, 1, 0, False, "more than its 3"),
    ("GB", 3, 0, 0, True, "allowed"), ("GB", 4, 0, 0, False, "more than its 3"),
    ("AG", 2, 0, 1, True, "and 1 ground area (landing and taking off are free)"),
    ("AG", 0, 0, 2, False, "ground movement is 1 area, not 2"),
    ("SQD", 1, 0, 1, False, "the sheet: SQDs never go on ground"),
])
def test_the_movement_check(table, unit, cells, nebula, ground, ok, words):
    outcome = table.do(MoveCheck(unit, cells, nebula, ground), "alice")
    read = table.chart(outcome)
    assert not table.of(outcome, DieRolled)
    assert (read.chart, read.die, read.result) == ("movement", 0, "allowed" if ok else "not allowed")
    assert words in read.words


@pytest.mark.parametrize(("check", "result", "words"), [
    (StackCheck(space=3), "allowed", "allowed: 3 in a space cell (at most 3)"),
    (StackCheck(space=4), "over", "4 in a space cell is over the limit of 3 (you may overstack as a result of builds"),
    (StackCheck(ground=6), "allowed", "at most 6"),
    (StackCheck(ground=7), "over", "7 in a ground area is over the limit of 6"),
    (StackCheck(combat=7), "allowed", "at most 7"),
    (StackCheck(combat=8), "over", "8 in one stack of a ground combat is over the limit of 7"),
    (StackCheck(combat=7, total=12), "allowed", "12 in the whole combat (at most 12)"),
    (StackCheck(combat=5, total=13), "over", "13 in the whole ground combat is over the limit of 12"),
])
def test_the_stacking_check(table, check, result, words):
    outcome = table.do(check, "alice")
    read = table.chart(outcome)
    assert (read.chart, read.die, read.result) == ("stacking", 0, result)
    assert words in read.words
    assert not table.of(outcome, DieRolled)


def test_charts_change_nothing_but_the_ledger_and_replay(table):
    before = table.state.systems, table.state.players, table.state.phase
    table.do(Combat(5, 2), "alice", dice=[4])
    assert (table.state.systems, table.state.players, table.state.phase) == before
    table.assert_replays()


def test_result_words_follow_the_sheets_key():
    from data import rules_for
    rules = rules_for("godsfire")
    for code, words in WORDS.items():
        assert result_words(rules, code) == words
