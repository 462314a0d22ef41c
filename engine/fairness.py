"""/log fairness: are the game's dice fair? Each kind of die (a d10, a d6, each God Dice die) is counted face by
face against a fair die, with Pearson's chi-square test (`scipy.stats.chisquare`, imported only when a test is
made, so the bot's start does not pay for it) and a plain sentence.

Counts in, figures and words out: no Discord, no SQL. The dice a GM entered by hand (`/gm dice`) say nothing
about the referee's roller, so they are counted apart and never tested; free rolls (/roll) are no rule roll and
are left out. A die may show a face on several sides (God Dice's attack die has two 5s): that face's fair share
is its sides / all sides. A rule set that rolls dice with named faces says which die a row's purpose rolled
(`RuleSet.faces_die`); a numbered die is known by its sides.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass

from engine.dice import Die, FacesRecord, RollRecord
from engine.rulesets import GameState, ruleset_of

__all__ = ["MIN_EXPECTED", "NOTHING_UNUSUAL", "TOO_FEW", "UNLIKELY", "Die", "DieFairness", "FaceCount", "chi_square",
           "fairness", "fairness_lines", "game_fairness", "judge", "numbered_die", "p_text", "tally", "verdict"]

UNLIKELY = 0.01
"""A p-value below this is called unlikely from a fair die (strict enough that a game checked now and then, die
kind by die kind, seldom cries wolf)."""
MIN_EXPECTED = 5.0
"""The chi-square test is trusted only when every face is expected at least this often (the usual rule)."""
NOTHING_UNUSUAL = "nothing unusual"
TOO_FEW = "too few rolls to say"


def numbered_die(sides: int) -> Die:
    """A die numbered 1..sides, named as dice are written (d10)."""
    return Die(f"d{sides}", tuple(str(n) for n in range(1, sides + 1)))


@dataclass(frozen=True)
class FaceCount:
    """One face: how often the roller showed it, how often a fair die would have (None: the die has no such face,
    e.g. after a new card file), and how often a GM entered it."""

    face: str
    count: int
    expected: float | None
    entered: int = 0


@dataclass(frozen=True)
class DieFairness:
    """One kind of die: its faces' counts, the test's figures (None: too few rolls to test) and the verdict."""

    die: Die
    faces: tuple[FaceCount, ...]
    rolled: int  # dice the roller rolled (entered ones not counted)
    entered: int  # dice a GM entered
    statistic: float | None
    p_value: float | None
    verdict: str

    @property
    def unlikely(self) -> bool:
        return self.p_value is not None and self.p_value < UNLIKELY


def chi_square(observed: Sequence[int], expected: Sequence[float]) -> tuple[float, float]:
    """Pearson's chi-square statistic and its p-value (degrees of freedom: faces - 1), by scipy."""
    from scipy.stats import chisquare  # here, not at the top: only /log fairness needs scipy

    result = chisquare([float(n) for n in observed], f_exp=[float(e) for e in expected])
    return float(result.statistic), float(result.pvalue)


def p_text(p: float) -> str:
    """A p-value as a player reads it: three decimals, or "< 0.001"."""
    return "p < 0.001" if p < 0.001 else f"p = {p:.3f}"


def verdict(p_value: float | None) -> str:
    if p_value is None:
        return TOO_FEW
    if p_value < UNLIKELY:
        return f"unlikely from a fair die: {p_text(p_value)}"
    return f"{NOTHING_UNUSUAL} ({p_text(p_value)})"


def judge(die: Die, counts: Mapping[str, int], entered: Mapping[str, int] | None = None) -> DieFairness:
    """One kind of die judged from its faces' counts (the roller's dice) against a fair die; `entered`: the GM's
    dice of that kind, shown beside and never tested. Faces the die does not have are shown and left out of the
    test. Too few rolls (a face expected fewer than `MIN_EXPECTED` times) give no p-value."""
    entered = entered or {}
    on_die = die.distinct
    rolled = sum(counts.get(face, 0) for face in on_die)
    rows = [FaceCount(face, counts.get(face, 0), rolled * die.share(face), entered.get(face, 0)) for face in on_die]
    strays = sorted({*counts, *entered} - set(on_die), key=lambda face: (len(face), face))
    rows += [FaceCount(face, counts.get(face, 0), None, entered.get(face, 0)) for face in strays]
    statistic = p_value = None
    if len(on_die) > 1 and rolled and min(rolled * die.share(face) for face in on_die) >= MIN_EXPECTED:
        statistic, p_value = chi_square([r.count for r in rows[:len(on_die)]],
                                        [r.expected or 0.0 for r in rows[:len(on_die)]])
    return DieFairness(die, tuple(rows), rolled, sum(entered.values()), statistic, p_value, verdict(p_value))


def tally(rolls: Iterable[RollRecord | FacesRecord], faces_die: Callable[[str], Die] | None = None,
          ) -> list[tuple[Die, Counter[str], Counter[str]]]:
    """The ledger's rule dice by kind, in the order each kind was first rolled: (die, the roller's faces, the
    GM's). `faces_die`: the die a row of named faces rolled, from its purpose (the rule set's); without it, such
    rows are left out. Free rolls are left out."""
    kinds: dict[Die, tuple[Counter[str], Counter[str]]] = {}

    def count(die: Die, face: str, forced: bool) -> None:
        rolled, entered = kinds.setdefault(die, (Counter(), Counter()))
        (entered if forced else rolled)[face] += 1

    for roll in rolls:
        if isinstance(roll, FacesRecord):
            if faces_die is None:
                continue
            die = faces_die(roll.purpose)
            for face, forced in zip(roll.faces, roll.forced, strict=True):
                count(die, face, forced)
        elif roll.free is None and roll.sides > 0:
            count(numbered_die(roll.sides), str(roll.die), roll.forced)
    return [(die, rolled, entered) for die, (rolled, entered) in kinds.items()]


def fairness(rolls: Iterable[RollRecord | FacesRecord],
             faces_die: Callable[[str], Die] | None = None) -> list[DieFairness]:
    """Every kind of die the game rolled, judged (`judge`)."""
    return [judge(die, rolled, entered) for die, rolled, entered in tally(rolls, faces_die)]


def game_fairness(state: GameState, rolls: Iterable[RollRecord | FacesRecord]) -> list[DieFairness]:
    """A game's ledger judged: its rule set says which die each row of named faces rolled (`RuleSet.faces_die`).
    Run it off the event loop: the first test loads scipy."""
    faces_die = ruleset_of(state).faces_die
    return fairness(rolls, None if faces_die is None else lambda purpose: faces_die(state, purpose))


def _number(x: float) -> str:
    return f"{x:.1f}".removesuffix(".0")


def fairness_lines(judged: Sequence[DieFairness]) -> list[str]:
    """/log fairness in words: for each kind of die its verdict, then each face's count against a fair die's
    (and the GM's entered ones, apart). Plain text: the front-ends escape it."""
    if not judged:
        return ["No rule dice rolled yet."]
    lines: list[str] = []
    for found in judged:
        entered = f"; {found.entered} entered by the GM, counted apart" if found.entered else ""
        lines.append(f"{found.die.name}: {found.rolled} rolled{entered} — {found.verdict}")
        faces = []
        for row in found.faces:
            fair = f"/{_number(row.expected)}" if row.expected is not None else " (not on this die)"
            gm = f" +{row.entered} GM" if row.entered else ""
            faces.append(f"{row.face}: {row.count}{fair}{gm}")
        lines.append("  " + ", ".join(faces))
    lines.append(f"Each face: rolled/fair share. Chi-square test against a fair die; unlikely below "
                 f"p = {UNLIKELY}; a face expected fewer than {MIN_EXPECTED:g} times: {TOO_FEW}.")
    return lines
