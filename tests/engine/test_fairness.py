"""/log fairness's figures against known sequences: exact counts, and p-values against scipy's documented example
and hand computations (for 4 degrees of freedom the chi-square survival function is exp(-x/2)·(1 + x/2))."""

from __future__ import annotations

import math
import subprocess
import sys
from datetime import UTC, datetime

import pytest

from engine.dice import FacesRecord, RollRecord
from engine.fairness import (
    NOTHING_UNUSUAL,
    TOO_FEW,
    Die,
    chi_square,
    fairness,
    fairness_lines,
    judge,
    numbered_die,
    p_text,
)

AT = datetime(2026, 3, 1, tzinfo=UTC)
ATTACK = Die("attack die", ("B", "R", "Y", "O", "5", "5"))
GOD = Die("God die", ("H", "C", "M", "B", "S", "A"))


def die_row(value: int, sides: int = 10, forced: bool = False, free: str | None = None) -> RollRecord:
    return RollRecord(nation="Avalon", purpose="attack", die=value, modifiers={}, total=value, target=None,
                      comparison=None, success=None, forced=forced, turn=1, at=AT, sides=0 if free else sides,
                      free=free)


def faces_row(purpose: str, faces: list[str], entered: int = 0) -> FacesRecord:
    return FacesRecord(player="1", purpose=purpose, faces=faces, forced=[i < entered for i in range(len(faces))],
                       turn=1, at=AT)


def four_df_sf(x: float) -> float:
    return math.exp(-x / 2) * (1 + x / 2)


def test_scipy_documented_example_as_a_d6() -> None:
    """scipy.stats.chisquare's documented example: observed [16, 18, 16, 14, 12, 12] → statistic 2.0,
    p = 0.84914503608460956. Rolled as a sequence of d6 rows, with GM-entered and free dice that must not count."""
    sequence = [face for face, n in zip(range(1, 7), [16, 18, 16, 14, 12, 12], strict=True) for _ in range(n)]
    rows = [die_row(v, 6) for v in sequence] + [die_row(6, 6, forced=True)] * 3 + [die_row(1, 20, free="1d20 = 1")]
    [d6] = fairness(rows)
    assert d6.die == numbered_die(6)
    assert [(f.face, f.count, f.entered) for f in d6.faces] == [
        ("1", 16, 0), ("2", 18, 0), ("3", 16, 0), ("4", 14, 0), ("5", 12, 0), ("6", 12, 3)]
    assert all(f.expected == pytest.approx(88 / 6) for f in d6.faces)
    assert (d6.rolled, d6.entered) == (88, 3)
    assert d6.statistic == pytest.approx(2.0)
    assert d6.p_value == pytest.approx(0.84914503608460956, abs=1e-9)
    assert d6.verdict == f"{NOTHING_UNUSUAL} (p = 0.849)"
    assert not d6.unlikely


def test_a_repeated_face_expects_its_share() -> None:
    """The attack die shows 5 on two sides: in 60 dice a fair die gives 10 B, R, Y, O and 20 fives. Counts
    8 12 10 10 20: chi-square (4 + 4) / 10 = 0.8 on 4 degrees of freedom, p = e^-0.4 · 1.4 = 0.938448."""
    sequence = ["B"] * 8 + ["R"] * 12 + ["Y"] * 10 + ["O"] * 10 + ["5"] * 20
    rows = [faces_row("opening", sequence[i:i + 9]) for i in range(0, 54, 9)] + [faces_row("favor", sequence[54:])]
    [attack] = fairness(rows, lambda purpose: GOD if purpose == "god" else ATTACK)
    assert [(f.face, f.count, f.expected) for f in attack.faces] == [
        ("B", 8, 10), ("R", 12, 10), ("Y", 10, 10), ("O", 10, 10), ("5", 20, 20)]
    assert attack.statistic == pytest.approx(0.8)
    assert attack.p_value == pytest.approx(four_df_sf(0.8), abs=1e-9)
    assert attack.p_value == pytest.approx(0.938448, abs=1e-6)


def test_a_loaded_die_is_unlikely() -> None:
    """Counts 20 5 5 10 20 of 60 attack dice: chi-square (100 + 25 + 25) / 10 = 15, p = e^-7.5 · 8.5 = 0.0047."""
    found = judge(ATTACK, {"B": 20, "R": 5, "Y": 5, "O": 10, "5": 20})
    assert found.statistic == pytest.approx(15.0)
    assert found.p_value == pytest.approx(four_df_sf(15.0), abs=1e-12)
    assert found.p_value == pytest.approx(0.0047012, abs=1e-7)
    assert found.unlikely
    assert found.verdict == "unlikely from a fair die: p = 0.005"


def test_too_few_rolls_give_no_p_value() -> None:
    """A d10 needs 50 rolls (5 a face) before it is tested; the attack die 30 (its single faces 5 each)."""
    few = judge(numbered_die(10), {"7": 40, "3": 9})
    assert (few.p_value, few.statistic, few.verdict, few.rolled) == (None, None, TOO_FEW, 49)
    assert [f.count for f in few.faces] == [0, 0, 9, 0, 0, 0, 40, 0, 0, 0]
    enough = judge(numbered_die(10), {str(n): 5 for n in range(1, 11)})
    assert enough.p_value == pytest.approx(1.0)
    assert judge(ATTACK, {"B": 5, "R": 5, "Y": 5, "O": 5, "5": 9}).p_value is None
    assert judge(ATTACK, {"B": 5, "R": 5, "Y": 5, "O": 5, "5": 10}).p_value == pytest.approx(1.0)


def test_kinds_apart_and_entered_dice_apart() -> None:
    """God dice and attack dice are two kinds (a B on each is not the same face); entered faces come first in a
    row and are counted apart; a face the die lacks (a card file changed) is shown, not tested."""
    rows = [faces_row("god", ["B", "H"], entered=1), faces_row("opening", ["B", "B", "5"], entered=2),
            faces_row("god", ["A", "S"])]
    god, attack = fairness(rows, lambda purpose: GOD if purpose == "god" else ATTACK)
    assert (god.die.name, god.rolled, god.entered) == ("God die", 3, 1)
    assert {f.face: (f.count, f.entered) for f in god.faces} == {
        "H": (1, 0), "C": (0, 0), "M": (0, 0), "B": (0, 1), "S": (1, 0), "A": (1, 0)}
    assert (attack.die.name, attack.rolled, attack.entered) == ("attack die", 1, 2)
    stray = judge(GOD, {"H": 2, "Z": 1})
    assert (stray.rolled, stray.faces[-1].face, stray.faces[-1].expected) == (2, "Z", None)


def test_lines() -> None:
    assert fairness_lines([]) == ["No rule dice rolled yet."]
    found = judge(ATTACK, {"B": 20, "R": 5, "Y": 5, "O": 10, "5": 20}, {"5": 2})
    lines = fairness_lines([found])
    assert lines[0] == "attack die: 60 rolled; 2 entered by the GM, counted apart — unlikely from a fair die: p = 0.005"
    assert lines[1] == "  B: 20/10, R: 5/10, Y: 5/10, O: 10/10, 5: 20/20 +2 GM"
    assert "Chi-square" in lines[-1]


def test_p_text_and_chi_square() -> None:
    assert p_text(0.0004) == "p < 0.001"
    assert p_text(0.0031) == "p = 0.003"
    statistic, p = chi_square([16, 18, 16, 14, 12, 12], [16, 16, 16, 16, 16, 8])  # scipy's second example
    assert statistic == pytest.approx(3.5)
    assert p == pytest.approx(0.62338762774958223, abs=1e-9)


def test_scipy_is_loaded_only_when_asked() -> None:
    code = ("import sys, engine, engine.fairness, engine.commands; "
            "assert 'scipy' not in sys.modules, 'scipy at import'")
    subprocess.run([sys.executable, "-c", code], check=True)


def test_god_dice_says_which_die_a_row_rolled() -> None:
    """The registry answers for God Dice (the ledger rows name no die): "god" rows rolled the God die, every other
    purpose the attack die, each with the game's card-file faces; a B on each is a different face of a different
    die. A Nations or Godsfire die is known by its sides."""
    import tomllib
    from pathlib import Path
    from types import SimpleNamespace

    import engine  # noqa: F401  (registers the rule sets)
    from engine.fairness import game_fairness
    from engine.goddice.cards import rules_from_dict

    raw = tomllib.loads((Path(__file__).resolve().parents[2] / "data" / "goddice.toml").read_text())
    state = SimpleNamespace(ruleset="goddice", cards=rules_from_dict(raw).cards)
    rows = [faces_row("rolloff", ["B", "5", "5"]), faces_row("god", ["B", "H"]), faces_row("opening", ["O"])]
    attack, god = game_fairness(state, rows)
    assert attack.die == ATTACK and god.die == GOD
    assert {f.face: f.count for f in attack.faces} == {"B": 1, "R": 0, "Y": 0, "O": 1, "5": 2}
    assert {f.face: f.count for f in god.faces} == {"H": 1, "C": 0, "M": 0, "B": 1, "S": 0, "A": 0}
    [d6] = game_fairness(SimpleNamespace(ruleset="godsfire"), [die_row(4, 6)])
    assert (d6.die.name, d6.rolled) == ("d6", 1)
