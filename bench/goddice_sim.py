"""God Dice balance: one-on-one duels between every two characters of a card file, and the figures a GM needs.

    python -m bench.goddice_sim [--games N] [--seed S] [--cards PATH] [--workers W]
    make goddice-sim ARGS="--games 2000"

For every ordered pairing (A, B) of the card file's characters, the mirror A vs A included, it plays N duels:
two players with one character each, each attacking with its only character every turn. The first attacker
alternates game by game, so neither seat has a first-move edge. It prints, per character, its figures as
attacker over all its duels (damage and healing per attack phase, miss rate, the God dice's God kills and
divine interventions, rolls per attack phase) and its win rate against the field; then the table of win rates
of each row character against each column character (pairings (A, B) and (B, A) together, so the two rates
of a pairing sum to 1; the diagonal is seat 1's rate in the mirror duel, near 50% when the simulation is fair);
then the turn-length figures and how often each attack is made.

The rules are the engine's, not a re-implementation: which attacks the dice make legal and what they deal
comes from `engine.goddice.common.qualifying` (`needs_met` and `Attack.damage` over the `Cards`), the God dice
are read by `engine.goddice.turn.read_god_dice`, and every number (dice count, faces, damage per 5, Wild O's,
lives, attacks) comes from the card file, so another card file simulates differently. For speed the games do
not run through `engine.core.execute`: the dice are rolled directly with `random.Random` — a roll of k dice is
drawn from the exact multinomial distribution of k dice showing `cards.attack_faces`, two God dice from
`cards.god_faces` — and the state is two life totals.

A duel turn, as the engine plays it with two players: the God dice are rolled. A God kill kills the defender;
divine intervention is a missed attack; a push, no effect, the same character on both sides, and unrelated
doubles (a reversal, which has no effect with two players) go on to the attack phase as usual; in favor, the
opening roll may be re-rolled once. Then the opening roll of all the attack dice, then each type at most once
(all its dice together, only a type some die shows), until the attacker stops with a legal attack, or misses
when no type is left to roll and no attack is legal. An attack's damage goes to the lone defender: Attack Any
has no other target, Attack Any 2 and 3 send every arrow at it, Damage to All hits its one character. Heal
Any heals the attacker (the only, so the most wounded, own character), Heal Self too; never above full life.

The attack policy (the same for every character, from its card alone):

* The attacker values an attack at its damage (every arrow counted) plus the healing it would really give
  (no more than the attacker's missing life). Before play it solves, for each character and each amount of
  useful healing, the optimal stopping problem of one attack phase exactly (expectimax over every dice state
  and set of types already rolled, with the exact probabilities of each roll): at each state, stop with the
  best legal attack, or roll the type whose expected final value is highest — so an attack needing a type it
  lacks makes it roll the types that do not contribute, and a weak legal attack is risked only when rolling
  on is worth more on average. With no legal attack it must roll; with nothing left to roll it misses.
* If a legal attack now deals at least the defender's remaining life, it takes it (the duel is won).
* Among the legal attacks it stops with, it takes the one with the highest value with damage counted up to
  the defender's remaining life and healing up to its missing life (ties: the higher damage).
* In favor: an attacker re-rolls an opening roll worth less than an average opening roll (its expected value
  under the policy); a defender in favor makes the attacker re-roll one worth more than average, or one that
  would kill it at once.

Figures: "Dmg/turn" is the damage of the attack made (every arrow, before it is capped at the defender's
remaining life), a miss counting 0; "Dmg/hit" the same over the attacks made (misses left out); "Heal/turn"
the life it really healed. "Miss", "Rolls/turn" and the attack shares are per attack phase (a turn the God
dice did not end); "God kill" and "Div. int." are per turn; "Win vs field" is its average win rate against
the other characters (the mirror left out). The policy is solved once per character and amount of useful
healing, in each worker: about 0.3 s each with 9 attack dice, growing steeply with `dice.attack_count` (about
5 times the work with 12 dice). The games of each pairing use their own random stream, seeded from the seed
and the pairing, so the figures do not depend on the number of workers.
"""

from __future__ import annotations

import argparse
import math
import multiprocessing
import os
import random
import sys
import time
import tomllib
from bisect import bisect_right
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from operator import mul

from data import DATA_DIR, rules_for
from engine.goddice.cards import Attack, Cards, CharacterCard, rules_from_dict
from engine.goddice.common import ROLL_TYPES, qualifying
from engine.goddice.turn import read_god_dice
from engine.house import RulesError

DEFAULT_GAMES = 10_000
DEFAULT_SEED = 1
DEFAULT_WORKERS = 2
MAX_TURNS = 100_000  # a safety net: every turn has a chance of a God kill, so every duel ends
STOP, MISS = -1, -2  # the actions of the solved policy besides rolling type i (0..4 in ROLL_TYPES)
MASKS = 1 << len(ROLL_TYPES)  # the sets of types already rolled this turn


# --- the attack dice -------------------------------------------------------------------------------


def compositions(total: int, parts: int) -> Iterator[tuple[int, ...]]:
    """Every way of `total` dice showing `parts` faces, as counts."""
    if parts == 1:
        yield (total,)
        return
    for first in range(total + 1):
        for rest in compositions(total - first, parts - 1):
            yield (first, *rest)


class AttackDice:
    """The attack dice of a card file: a dice state is one integer, the count of each type in base count+1
    (so adding a roll's outcome is adding its code), and a roll of k dice is drawn from its exact distribution."""

    def __init__(self, cards: Cards) -> None:
        self.count = cards.attack_count
        self.base = cards.attack_count + 1
        self.weights = tuple(self.base ** i for i in range(len(ROLL_TYPES)))
        shown = Counter(cards.attack_faces)
        chance = [shown[face] / len(cards.attack_faces) for face in ROLL_TYPES]
        self.outcomes: list[tuple[tuple[int, float], ...]] = []  # k → (code, probability) of every outcome
        self._codes: list[list[int]] = []
        self._cumulative: list[list[float]] = []
        for k in range(self.count + 1):
            outcomes = []
            for counts in compositions(k, len(ROLL_TYPES)):
                probability = float(math.factorial(k))
                for n, p in zip(counts, chance, strict=True):
                    probability *= p ** n / math.factorial(n)
                if probability > 0:
                    outcomes.append((self.encode(counts), probability))
            self.outcomes.append(tuple(outcomes))
            self._codes.append([code for code, _ in outcomes])
            running, cumulative = 0.0, []
            for _, probability in outcomes:
                running += probability
                cumulative.append(running)
            self._cumulative.append(cumulative)

    def encode(self, counts: Sequence[int]) -> int:
        return sum(n * w for n, w in zip(counts, self.weights, strict=True))

    def counts(self, code: int) -> tuple[int, ...]:
        return tuple(code // w % self.base for w in self.weights)

    def faces(self, code: int) -> list[str]:
        return [face for face, n in zip(ROLL_TYPES, self.counts(code), strict=True) for _ in range(n)]

    def states(self) -> Iterator[int]:
        """Every state of all the attack dice."""
        for counts in compositions(self.count, len(ROLL_TYPES)):
            yield self.encode(counts)

    def roll(self, rng: random.Random, k: int) -> int:
        """The code of k dice rolled together."""
        cumulative = self._cumulative[k]
        index = bisect_right(cumulative, rng.random() * cumulative[-1])
        return self._codes[k][min(index, len(cumulative) - 1)]


# --- the attack policy ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Option:
    """A legal attack in a duel: its damage with every arrow at the lone defender, and its healing."""

    attack: Attack
    damage: int
    heal: int


@dataclass
class Solved:
    """The solved attack phase for one amount of useful healing: the action at each (state, types rolled),
    the expected value of each opening roll, and of an opening roll on average."""

    action: dict[int, int]
    opening: dict[int, float]
    average: float


_SOLVED: dict[tuple, Solved] = {}  # solved attack phases, kept for the life of the process


class Policy:
    """How one character attacks in a duel (see the module docstring)."""

    def __init__(self, cards: Cards, card: CharacterCard, dice: AttackDice) -> None:
        self.dice = dice
        self.options: dict[int, tuple[Option, ...]] = {}
        for code in dice.states():
            self.options[code] = tuple(Option(legal.attack, legal.damage * (legal.attack.arrows or 1),
                                              legal.attack.heal_any + legal.attack.heal_self)
                                       for legal in qualifying(cards, card, dice.faces(code)))
        self.max_heal = max((a.heal_any + a.heal_self for a in card.attacks), default=0)
        # what the solution depends on (not the character's life): another card file may share it
        self._key = (cards.attack_count, cards.attack_faces, cards.damage_per_five, cards.wild_os, repr(card.attacks))
        self._solved: dict[int, Solved] = {}

    def solved(self, missing: int) -> Solved:
        """The policy when the attacker misses `missing` life (only up to its largest healing matters)."""
        useful = min(missing, self.max_heal)
        found = self._solved.get(useful)
        if found is None:
            key = (*self._key, useful)
            found = _SOLVED.get(key)
            if found is None:
                found = _SOLVED[key] = self._solve(useful)
            self._solved[useful] = found
        return found

    def _solve(self, useful: int) -> Solved:
        """Expectimax over every (dice state, types rolled), the sets with more types rolled first."""
        dice, base = self.dice, self.dice.base
        codes = list(dice.states())
        stop = {code: max((o.damage + min(o.heal, useful) for o in options), default=None)
                for code, options in self.options.items()}
        rolls = [([code * MASKS for code, _ in outcomes], [p for _, p in outcomes]) for outcomes in dice.outcomes]
        value: dict[int, float] = {}
        action: dict[int, int] = {}
        get = value.__getitem__
        for mask in sorted(range(MASKS), key=lambda m: -m.bit_count()):
            free = [(i, mask | 1 << i, weight) for i, weight in enumerate(dice.weights) if not mask & 1 << i]
            for code in codes:
                best, chosen = stop[code], STOP
                for i, after, weight in free:
                    k = code // weight % base
                    if not k:
                        continue
                    offsets, chances = rolls[k]
                    start = (code - k * weight) * MASKS + after  # the other dice stay; these k are rolled
                    expected = sum(map(mul, chances, map(get, [start + offset for offset in offsets])))
                    if best is None or expected > best + 1e-9:
                        best, chosen = expected, i
                if best is None:  # no legal attack and nothing left to roll
                    best, chosen = 0.0, MISS
                value[code * MASKS + mask], action[code * MASKS + mask] = best, chosen
        opening = {code: value[code * MASKS] for code in codes}
        average = sum(p * opening[code] for code, p in dice.outcomes[dice.count])
        return Solved(action, opening, average)

    def choice(self, code: int, defender_life: int, missing: int) -> Option | None:
        """The legal attack it makes when it stops here, if any."""
        options = self.options[code]
        if not options:
            return None
        return max(options, key=lambda o: (min(o.damage, defender_life) + min(o.heal, missing), o.damage))

    def kills(self, code: int, defender_life: int) -> bool:
        return any(o.damage >= defender_life for o in self.options[code])


# --- the duels --------------------------------------------------------------------------------------


@dataclass
class Tally:
    """One character's figures as attacker."""

    turns: int = 0  # every turn it attacked in
    god_kills: int = 0
    interventions: int = 0  # divine intervention: the defender's God dice stopped the attack
    phases: int = 0  # attack phases (turns the God dice did not end)
    misses: int = 0
    damage: int = 0
    healing: int = 0
    rolls: int = 0  # attack dice rolls: the opening roll, a re-roll in favor, each type
    rerolls: int = 0  # opening rolls re-rolled in favor
    attacks: Counter[str] = field(default_factory=Counter)  # attack id → times made

    def add(self, other: Tally) -> None:
        for name in ("turns", "god_kills", "interventions", "phases", "misses", "damage", "healing", "rolls",
                     "rerolls"):
            setattr(self, name, getattr(self, name) + getattr(other, name))
        self.attacks.update(other.attacks)


@dataclass
class PairingResult:
    """The games of one ordered pairing: seat 0 plays `first`, seat 1 `second`."""

    first: str
    second: str
    games: int
    wins: list[int]  # by seat
    opener_wins: int  # games won by the player who attacked first
    turns: int
    tallies: list[Tally]  # by seat


class Simulator:
    """Duels between the characters of one card file."""

    def __init__(self, cards: Cards) -> None:
        self.cards = cards
        self.dice = AttackDice(cards)
        self.policies = {key: Policy(cards, card, self.dice) for key, card in cards.characters.items()}

    def attack_phase(self, rng: random.Random, policy: Policy, life: int, max_life: int, defender_life: int,
                     favor: str | None, tally: Tally) -> Option | None:
        """One attack phase: the attack made, or None for a miss."""
        dice = self.dice
        missing = max_life - life
        solved = policy.solved(missing)
        code = dice.roll(rng, dice.count)
        tally.rolls += 1
        if favor is not None:
            worth = math.inf if policy.kills(code, defender_life) else solved.opening[code]
            if worth < solved.average if favor == "attacker" else worth > solved.average:
                code = dice.roll(rng, dice.count)
                tally.rolls += 1
                tally.rerolls += 1
        mask, base, weights, action = 0, dice.base, dice.weights, solved.action
        while True:
            if policy.kills(code, defender_life):
                return policy.choice(code, defender_life, missing)
            act = action[code * MASKS + mask]
            if act == STOP:
                return policy.choice(code, defender_life, missing)
            if act == MISS:
                return None
            weight = weights[act]
            k = code // weight % base
            code = code - k * weight + dice.roll(rng, k)
            mask |= 1 << act
            tally.rolls += 1

    def duel(self, rng: random.Random, types: tuple[str, str], opener: int, tallies: list[Tally]) -> tuple[int, int]:
        """One duel; returns the winning seat and the number of turns."""
        cards = self.cards
        characters = [cards.characters[t] for t in types]
        policies = [self.policies[t] for t in types]
        life = [c.life for c in characters]
        gods = cards.god_faces
        attacker = opener
        for turn in range(1, MAX_TURNS + 1):
            defender = 1 - attacker
            tally = tallies[attacker]
            tally.turns += 1
            faces = [rng.choice(gods), rng.choice(gods)]
            outcome, favor = read_god_dice(faces, characters[attacker].god, characters[defender].god)
            if outcome == "god kill":
                tally.god_kills += 1
                life[defender] = 0
            elif outcome == "divine intervention":
                tally.interventions += 1
            else:  # push, no effect, the same character, or doubles (no reversal with two players)
                tally.phases += 1
                made = self.attack_phase(rng, policies[attacker], life[attacker], characters[attacker].life,
                                         life[defender], favor, tally)
                if made is None:
                    tally.misses += 1
                else:
                    tally.attacks[made.attack.id] += 1
                    tally.damage += made.damage
                    arrows = made.attack.arrows or 1
                    per_arrow = made.damage // arrows
                    for _ in range(arrows):  # each arrow its own damage; an arrow at the dead is wasted
                        life[defender] = max(0, life[defender] - per_arrow)
                    for amount in (made.attack.heal_any, made.attack.heal_self):
                        healed = min(amount, characters[attacker].life - life[attacker])
                        life[attacker] += healed
                        tally.healing += healed
            if life[defender] == 0:
                return attacker, turn
            attacker = defender
        raise RuntimeError(f"a duel {types} lasted {MAX_TURNS} turns")

    def pairing(self, first: str, second: str, games: int, seed: int) -> PairingResult:
        rng = random.Random(f"goddice-sim {seed} {first} {second}")
        tallies = [Tally(), Tally()]
        wins, opener_wins, turns = [0, 0], 0, 0
        for game in range(games):
            opener = game % 2
            winner, length = self.duel(rng, (first, second), opener, tallies)
            wins[winner] += 1
            opener_wins += winner == opener
            turns += length
        return PairingResult(first, second, games, wins, opener_wins, turns, tallies)


# --- all the pairings --------------------------------------------------------------------------------


@dataclass
class Report:
    cards: Cards
    games: int  # per ordered pairing
    seed: int
    workers: int
    seconds: float
    pairings: dict[tuple[str, str], PairingResult]

    @property
    def characters(self) -> list[str]:
        return list(self.cards.characters)

    def win_rate(self, row: str, column: str) -> float:
        """How often `row` beats `column`: over both orderings; in the mirror, seat 1's rate."""
        if row == column:
            result = self.pairings[row, row]
            return result.wins[0] / result.games
        one, two = self.pairings[row, column], self.pairings[column, row]
        return (one.wins[0] + two.wins[1]) / (one.games + two.games)

    def field_rate(self, character: str) -> float:
        """Its win rate against every other character, each opponent weighing the same."""
        others = [c for c in self.characters if c != character]
        return sum(self.win_rate(character, other) for other in others) / len(others)

    def tally(self, character: str) -> Tally:
        total = Tally()
        for result in self.pairings.values():
            for seat, kind in enumerate((result.first, result.second)):
                if kind == character:
                    total.add(result.tallies[seat])
        return total


_SIMULATOR: Simulator | None = None


def _init_worker(cards: Cards) -> None:
    global _SIMULATOR
    _SIMULATOR = Simulator(cards)


def _play(task: tuple[str, str, int, int]) -> PairingResult:
    assert _SIMULATOR is not None
    return _SIMULATOR.pairing(*task)


def simulate(cards: Cards, games: int = DEFAULT_GAMES, seed: int = DEFAULT_SEED, workers: int = 1) -> Report:
    """Play `games` duels for every ordered pairing of the characters (the mirrors included)."""
    began = time.perf_counter()
    tasks = [(a, b, games, seed) for a in cards.characters for b in cards.characters]
    if workers <= 1:
        _init_worker(cards)
        results = [_play(task) for task in tasks]
    else:
        with multiprocessing.Pool(workers, _init_worker, (cards,)) as pool:
            results = list(pool.imap_unordered(_play, tasks))
    pairings = {(r.first, r.second): r for r in results}
    return Report(cards, games, seed, workers, time.perf_counter() - began, pairings)


# --- the printout ------------------------------------------------------------------------------------


def _pct(part: float, whole: float) -> str:
    return f"{100 * part / whole:.1f}%" if whole else "-"


def _per(part: float, whole: float) -> str:
    return f"{part / whole:.2f}" if whole else "-"


def render(report: Report, source: str) -> str:
    cards, characters = report.cards, report.characters
    titles = {key: cards.characters[key].title for key in characters}
    width = max(10, *(len(t) for t in titles.values())) + 1
    duels = report.games * len(report.pairings)
    workers = f"{report.workers} worker{'s' if report.workers != 1 else ''}"
    header = (f"{'Character':<{width}}{'Life':>5}{'Dmg/turn':>10}{'Dmg/hit':>9}{'Heal/turn':>10}{'Miss':>8}"
              f"{'God kill':>10}{'Div. int.':>10}{'Rolls/turn':>11}{'Win vs field':>14}")
    lines = [
        f"God Dice balance: {source}",
        (f"{report.games:,} games per pairing x {len(report.pairings)} pairings = {duels:,} one-on-one duels; "
         f"seed {report.seed}; {workers}; {report.seconds:.1f} s"),
        "",
        "Each character as attacker, over all its duels (per attack phase; God kill and Div. int. per turn):",
        header,
    ]
    for key in characters:
        t = report.tally(key)
        lines.append(f"{titles[key]:<{width}}{cards.characters[key].life:>5}{_per(t.damage, t.phases):>10}"
                     f"{_per(t.damage, t.phases - t.misses):>9}{_per(t.healing, t.phases):>10}"
                     f"{_pct(t.misses, t.phases):>8}{_pct(t.god_kills, t.turns):>10}"
                     f"{_pct(t.interventions, t.turns):>10}{_per(t.rolls, t.phases):>11}"
                     f"{_pct(report.field_rate(key), 1):>14}")
    lines += ["", "Win rate of the row character against the column character (diagonal: seat 1 in the mirror):",
              f"{'':<{width}}" + "".join(f"{titles[key][:9]:>10}" for key in characters)]
    for row in characters:
        lines.append(f"{titles[row]:<{width}}" + "".join(f"{_pct(report.win_rate(row, col), 1):>10}"
                                                         for col in characters))
    everything = Tally()
    for key in characters:
        everything.add(report.tally(key))
    turns = sum(r.turns for r in report.pairings.values())
    opener_wins = sum(r.opener_wins for r in report.pairings.values())
    rolls = _per(everything.rolls, everything.phases)
    rerolled = _pct(everything.rerolls, everything.phases)
    lines += [
        "",
        (f"Turn length: {rolls} attack dice rolls per attack phase on average (the opening roll, a re-roll in "
         f"favor, each type rolled; at most {len(ROLL_TYPES) + 2}); {rerolled} of opening rolls re-rolled in favor."),
        f"A duel lasts {_per(turns, duels)} turns on average; the first attacker wins {_pct(opener_wins, duels)}.",
        "",
        "Attacks made, share of attack phases:",
    ]
    for key in characters:
        t = report.tally(key)
        made = [f"{a.id} {_pct(t.attacks[a.id], t.phases)}" for a in cards.characters[key].attacks]
        lines.append(f"{titles[key]:<{width}}" + ", ".join([*made, f"miss {_pct(t.misses, t.phases)}"]))
    return "\n".join(lines)


def load_cards(path: str | None) -> tuple[Cards, str]:
    """The shipped card file, or another one (validated like the bot validates it)."""
    if path is None:
        return rules_for("goddice").cards, str((DATA_DIR / "goddice.toml").relative_to(DATA_DIR.parent))
    with open(path, "rb") as handle:
        return rules_from_dict(tomllib.load(handle)).cards, path


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.goddice_sim", description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=DEFAULT_GAMES, help="duels per ordered pairing")
    parser.add_argument("--seed", type=int, default=DEFAULT_SEED, help="the random seed")
    parser.add_argument("--cards", help="a God Dice card file (TOML); default: the shipped data/goddice.toml")
    parser.add_argument("--workers", type=int, default=min(DEFAULT_WORKERS, os.cpu_count() or 1),
                        help="processes playing the pairings (1: this one)")
    args = parser.parse_args(argv)
    if args.games < 1:
        parser.error("--games must be at least 1")
    try:
        cards, source = load_cards(args.cards)
    except (OSError, tomllib.TOMLDecodeError, RulesError) as err:
        print(f"cannot load the card file: {err}", file=sys.stderr)
        return 2
    report = simulate(cards, args.games, args.seed, args.workers)
    print(render(report, source))
    return 0


if __name__ == "__main__":
    sys.exit(main())
