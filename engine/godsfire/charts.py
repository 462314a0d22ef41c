"""The sheet's charts on request: the Combat Results Table, Transit Attacks, the money dice, and the
movement and stacking checks. Each emits a `ChartRead` with the result in words and changes nothing else.

Rulings (the sheet is silent):
- Odds. Attack A against defence D, rounded in the attacker's favour: when A ≥ D the column is
  ceil(A / D)-1 (5 vs 2 = 2.5:1 reads 3-1; 7 vs 6 reads 2-1); when A < D it is 1-floor(D / A)
  (2 vs 3 = 1:1.5 reads 1-1; 2 vs 5 = 1:2.5 reads 1-2; 3 vs 8 reads 1-2). Worse than 1-3 reads 1-3,
  better than 4-1 reads 4-1. Both sides are at least 1 (there is no combat against nothing).
- Nebula (B.1.2): attack and defence are each divided by the divisor (2) WITHOUT rounding either side
  (fractions: 7 → 3½, 3 → 1½), then the odds are rounded in the attacker's favour like any other, so a
  nebula keeps the odds' column (7 against 3 reads 3-1 in a nebula as outside it; 1 against 3 reads 1-3).
  `/godsfire chart combat` and the Combat Phase's attacks (`combat.py`) read the chart through `read_combat`.
- The movement and stacking checks are answers, not dice: they roll nothing (their ChartRead's die is 0).
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from math import ceil, floor

from engine.core import Tx
from engine.errors import BadInput
from engine.godsfire.common import handles
from engine.godsfire.events import ChartRead
from engine.godsfire.rules import MOVERS, GodsfireRules
from engine.godsfire.state import GodsfireState

MAX_STRENGTH = 999
MAX_CELLS = 99
ENEMY = {"A": "D", "D": "A", "M": "S", "S": "M"}
UNIT_NAMES = {"SQD": "a squadron (SQD)", "AG": "an attack group (AG)", "PDF": "a planetary defense force (PDF)",
              "NG": "the National Government (NG)", "GB": "gigabucks (GB) by themselves"}


@dataclass
class Combat:
    attack: int
    defence: int
    nebula: bool = False


@dataclass
class Transit:
    column: str


@dataclass
class MoneyDie:
    die: str  # black or red


@dataclass
class MoveCheck:
    unit: str
    cells: int
    nebula: int = 0  # how many of those cells are in a nebula
    ground: int = 0  # ground areas moved


@dataclass
class StackCheck:
    space: int | None = None
    ground: int | None = None
    combat: int | None = None
    total: int | None = None  # ground combat: the total of every stack in the combat


def _who(rules: GodsfireRules, letter: str) -> str:
    return rules.result_words.get(letter, letter)


def result_words(rules: GodsfireRules, code: str) -> str:
    """A result in the sheet's key spelled out: `D2` → `D2: the defender loses 2 units, the attacker chooses`."""
    if code == "ne":
        return "ne: no effect"
    side, what = code[0], code[1:]
    subject = _who(rules, side)
    plural = subject.endswith("s")
    if what == "r":
        text = f"{subject} {'retreat' if plural else 'retreats'}"
    elif what == "E":
        text = f"{subject} {'are' if plural else 'is'} eliminated"
    elif what == "s":
        text = f"{subject} stop" if plural else f"{subject} stops"
    elif what.isdecimal():
        units = "unit" if what == "1" else "units"
        chooser = _who(rules, ENEMY.get(side, side))
        text = f"{subject} {'lose' if plural else 'loses'} {what} {units}, {chooser} " + (
            "choose" if chooser.endswith("s") else "chooses")
    else:
        text = f"{subject}: {what}"
    return f"{code}: {text}"


Strength = int | Fraction


def halve(value: Strength, divisor: int) -> Fraction:
    """A nebula's halving (B.1.2): exact, no rounding (7 → 7/2); the odds are rounded afterwards."""
    return Fraction(value) / divisor


def odds_column(attack: Strength, defence: Strength) -> str:
    """The CRT column the odds read, rounded in the attacker's favour, 1-3 … 4-1 (see the module's ruling).
    Either side may be a fraction (a nebula's halves): 7/2 against 3/2 is 7:3 and reads 3-1."""
    attack, defence = Fraction(attack), Fraction(defence)
    if attack <= 0 or defence <= 0:
        raise ValueError(f"odds need both sides above 0, not {attack} against {defence}")
    if attack >= defence:
        return f"{min(4, ceil(attack / defence))}-1"
    return f"1-{min(3, floor(defence / attack))}"


def strength_text(value: Strength | float) -> str:
    """`7`, `3½`, `½`, `7/3` (a divisor other than 2); an attack's record holds its strengths as floats."""
    value = Fraction(value)
    if value.denominator == 1:
        return str(value.numerator)
    if value.denominator == 2:
        whole = value.numerator // 2
        return f"{whole or ''}½"
    return f"{value.numerator}/{value.denominator}"


def combat_odds(rules: GodsfireRules, attack: Strength, defence: Strength, nebula: bool) -> tuple[str, str]:
    """The odds' column and how it was read: `7 against 3, halved in the nebula to 3½ against 1½: odds 3-1`."""
    detail = f"{strength_text(attack)} against {strength_text(defence)}"
    if nebula:
        attack, defence = halve(attack, rules.nebula_divisor), halve(defence, rules.nebula_divisor)
        detail += f", halved in the nebula to {strength_text(attack)} against {strength_text(defence)}"
    column = odds_column(attack, defence)
    return column, f"{detail}: odds {column}"


def read_combat(tx: Tx[GodsfireState], attack: Strength, defence: Strength, nebula: bool, purpose: str, who: str | None,
                about: str = "") -> ChartRead:
    """The Combat Results Table read once: the odds' column, a d6 rolled for `purpose` (in the ledger), the
    result; emits and returns the `ChartRead` (`about` goes before the odds in its detail)."""
    rules: GodsfireRules = tx.rules
    column, detail = combat_odds(rules, attack, defence, nebula)
    die = tx.roll(purpose, who).die
    code = rules.combat.read(column, die)
    read = ChartRead("combat", column, die, code, result_words(rules, code), f"{about}{detail}")
    tx.emit(read)
    return read


@handles(Combat)
def combat(tx: Tx[GodsfireState], action: Combat) -> None:
    for name, value in (("attack", action.attack), ("defence", action.defence)):
        if not 1 <= value <= MAX_STRENGTH:
            raise BadInput(f"{name} is a strength of 1 to {MAX_STRENGTH}, not {value}")
    read_combat(tx, action.attack, action.defence, action.nebula, "combat", tx.ctx.actor)


@handles(Transit)
def transit(tx: Tx[GodsfireState], action: Transit) -> None:
    rules: GodsfireRules = tx.rules
    column = str(action.column).strip().replace("−", "-")
    column = {"+0": "0", "-0": "0"}.get(column, column)
    if column not in rules.transit.columns:
        raise BadInput(f"a Transit Attacks column is {', '.join(rules.transit.columns)}, not {action.column!r}")
    die = tx.roll("transit attack", tx.ctx.actor).die
    code = rules.transit.read(column, die)
    tx.emit(ChartRead("transit", column, die, code, result_words(rules, code), f"column {column}"))


@handles(MoneyDie)
def money_die(tx: Tx[GodsfireState], action: MoneyDie) -> None:
    rules: GodsfireRules = tx.rules
    colour = str(action.die).strip().lower()
    if colour not in rules.money:
        raise BadInput(f"a money die is {' or '.join(rules.money)}, not {action.die!r}")
    die = tx.roll(f"money ({colour} die)", tx.ctx.actor).die
    amount = die + rules.money[colour]
    extra = f" + {rules.money[colour]}" if rules.money[colour] else ""
    tx.emit(ChartRead("money", colour, die, str(amount), f"{amount} GB", f"{colour} die: {die}{extra}"))


def move_verdict(rules: GodsfireRules, unit: str, cells: int, nebula: int, ground: int) -> tuple[bool, str]:
    """Whether a move is allowed, and why (the sheet's allowances, the nebula's cost, ground movement)."""
    allowance = rules.movement[unit]
    extra = -rules.movement["nebula"]  # the sheet's "Nebula = -2": each nebula cell costs 2 more
    cost = cells + extra * nebula
    reasons = []
    how = f"{cells} {'cell' if cells == 1 else 'cells'}"
    if nebula:
        how += f", {nebula} in a nebula ({cells} + {extra} × {nebula} = {cost})"
    if cost > allowance:
        reasons.append(f"{how} is more than its {allowance}")
    if ground and unit == "SQD":
        reasons.append("the sheet: SQDs never go on ground")
    elif ground > rules.movement["ground"]:
        reasons.append(f"ground movement is {rules.movement['ground']} area, not {ground}")
    head = f"{UNIT_NAMES[unit]} moves {allowance}"
    if reasons:
        return False, f"not allowed: {head}; " + "; ".join(reasons)
    text = f"allowed: {head}; {how}"
    if ground:
        text += f", and {ground} ground area (landing and taking off are free)"
    return True, text


@handles(MoveCheck)
def move_check(tx: Tx[GodsfireState], action: MoveCheck) -> None:
    rules: GodsfireRules = tx.rules
    unit = str(action.unit).strip().upper()
    if unit not in MOVERS:
        raise BadInput(f"what moves is {', '.join(MOVERS)}, not {action.unit!r}")
    if not 0 <= action.cells <= MAX_CELLS:
        raise BadInput(f"cells is 0 to {MAX_CELLS}, not {action.cells}")
    if not 0 <= action.nebula <= action.cells:
        raise BadInput(f"nebula counts the cells in a nebula: 0 to {action.cells}, not {action.nebula}")
    if not 0 <= action.ground <= MAX_CELLS:
        raise BadInput(f"ground is 0 to {MAX_CELLS} areas, not {action.ground}")
    ok, words = move_verdict(rules, unit, action.cells, action.nebula, action.ground)
    detail = f"{action.cells} cells" + (f", {action.nebula} in a nebula" if action.nebula else "")
    tx.emit(ChartRead("movement", unit, 0, "allowed" if ok else "not allowed", words, detail))


OVERSTACK = ("you may overstack as a result of builds and at the start of the game, but must comply before "
             "the Movement Phase is over")


@handles(StackCheck)
def stack_check(tx: Tx[GodsfireState], action: StackCheck) -> None:
    rules: GodsfireRules = tx.rules
    given = [(k, v) for k, v in (("space", action.space), ("ground", action.ground), ("combat", action.combat))
             if v is not None]
    if len(given) != 1:
        raise BadInput("check one stack: space:<n>, ground:<n> or combat:<n> (with total:<n> for a ground combat)")
    where, count = given[0]
    if action.total is not None and where != "combat":
        raise BadInput("total: is the whole of a ground combat (with combat:<n>)")
    for name, value in (("units", count), ("total", action.total)):
        if value is not None and not 0 <= value <= MAX_STRENGTH:
            raise BadInput(f"{name} is 0 to {MAX_STRENGTH}, not {value}")
    over = []
    if where == "space":
        limit, label = rules.stacking["space"], "in a space cell"
    elif where == "ground":
        limit, label = rules.stacking["ground"], "in a ground area"
    else:
        limit, label = rules.stacking["combat_individual"], "in one stack of a ground combat"
    if count > limit:
        over.append(f"{count} {label} is over the limit of {limit}")
    if action.total is not None:
        most = rules.stacking["combat_total"]
        if action.total > most:
            over.append(f"{action.total} in the whole ground combat is over the limit of {most}")
        if action.total < count:
            raise BadInput(f"total: ({action.total}) counts every stack in the combat, so at least {count}")
    if over:
        words = "over the limit: " + "; ".join(over) + ("" if where == "combat" else f" ({OVERSTACK})")
    else:
        words = f"allowed: {count} {label} (at most {limit})" + (
            f", {action.total} in the whole combat (at most {rules.stacking['combat_total']})"
            if action.total is not None else "")
    detail = f"{count} units" + (f", {action.total} in all" if action.total is not None else "")
    tx.emit(ChartRead("stacking", where, 0, "over" if over else "allowed", words, detail))
