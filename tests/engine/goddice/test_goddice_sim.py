"""The God Dice balance simulation (bench/goddice_sim.py): it runs, its figures are consistent, it follows the
card file it is given, its policy only makes legal moves, and the engine accepts every move it makes."""

from __future__ import annotations

import copy
import random
from collections import Counter
from datetime import UTC, datetime
from itertools import combinations

import pytest

from bench.goddice_sim import MASKS, MISS, STOP, Simulator, load_cards, main, simulate
from data import DATA_DIR, rules_for
from engine.core import Context, execute
from engine.dice import RandomRoller
from engine.goddice import actions, common, setup
from engine.goddice.cards import needs_met, rules_from_dict
from engine.goddice.common import ROLL_TYPES
from engine.goddice.state import DECLARE, DEFEND, FAVOR, OPENING, ROLLING

GAMES = 200
SEED = 7
NOW = datetime(2026, 1, 1, tzinfo=UTC)


@pytest.fixture(scope="module")
def shipped():
    return simulate(rules_for("goddice").cards, GAMES, SEED, workers=1)


def test_a_small_run_has_consistent_win_rates(shipped):
    characters = shipped.characters
    assert len(shipped.pairings) == len(characters) ** 2
    assert all(r.games == GAMES and sum(r.wins) == GAMES for r in shipped.pairings.values())  # no draws
    for row in characters:
        for column in characters:
            assert 0 <= shipped.win_rate(row, column) <= 1
    for a, b in combinations(characters, 2):
        assert shipped.win_rate(a, b) + shipped.win_rate(b, a) == pytest.approx(1)
    for character in characters:  # the mirror duel is fair: seat 1 wins about half (4 standard errors)
        assert 0.36 <= shipped.win_rate(character, character) <= 0.64, character
        assert 0 <= shipped.field_rate(character) <= 1
        tally = shipped.tally(character)
        assert tally.phases + tally.god_kills + tally.interventions == tally.turns
        assert tally.phases <= tally.rolls <= 7 * tally.phases


def test_the_same_seed_gives_the_same_figures(shipped):
    again = simulate(rules_for("goddice").cards, GAMES, SEED, workers=1)
    assert {k: r.wins for k, r in again.pairings.items()} == {k: r.wins for k, r in shipped.pairings.items()}


def test_a_doctored_card_file_is_followed(tmp_path, shipped):
    """The Hero with 1000 life wins nearly every duel (only the opponent's God kills, 1 in 36 a turn, beat it)."""
    text = (DATA_DIR / "goddice.toml").read_text(encoding="utf-8")
    assert text.count("\nlife = 75\n") == 1
    path = tmp_path / "hero1000.toml"
    path.write_text(text.replace("\nlife = 75\n", "\nlife = 1000\n"), encoding="utf-8")
    cards, source = load_cards(str(path))
    assert cards.characters["hero"].life == 1000 and source == str(path)
    doctored = simulate(cards, GAMES, SEED, workers=1)
    assert doctored.field_rate("hero") > 0.9
    assert doctored.field_rate("hero") > shipped.field_rate("hero") + 0.08


def test_the_command_prints_the_tables(tmp_path, capsys):
    assert main(["--games", "4", "--seed", "3", "--workers", "1"]) == 0
    out = capsys.readouterr().out
    assert "4 games per pairing x 36 pairings = 144 one-on-one duels; seed 3" in out
    for title in ("Hero", "Cleric", "Monk", "Bowman", "Sage", "Assassin"):
        assert title in out
    assert "Dmg/turn" in out and "Win rate of the row character" in out and "attack dice rolls per" in out
    bad = tmp_path / "bad.toml"
    bad.write_text("[dice]\n", encoding="utf-8")
    assert main(["--games", "1", "--cards", str(bad)]) == 2


def test_the_policy_only_makes_legal_moves():
    cards = rules_for("goddice").cards
    simulator = Simulator(cards)
    dice = simulator.dice
    for key, policy in simulator.policies.items():
        for code, options in policy.options.items():
            present = Counter(dice.faces(code))
            assert all(needs_met(o.attack, present, cards.wild_os) for o in options)
        for missing in range(0, policy.max_heal + 1, 5):
            for state, act in policy.solved(missing).action.items():
                code, mask = divmod(state, MASKS)
                counts = dice.counts(code)
                rollable = [i for i in range(len(ROLL_TYPES)) if counts[i] and not mask & 1 << i]
                if act == STOP:
                    assert policy.options[code], key
                elif act == MISS:
                    assert not policy.options[code] and not rollable, key
                else:
                    assert act in rollable, key


def engine_duel(rules, simulator: Simulator, first: str, second: str, rng: random.Random) -> str:
    """A duel through `engine.core.execute`, the simulation's policy deciding; the engine refuses any illegal
    move (RuleViolation). Returns the winning player."""

    def run(state, actor, action, gm=False):
        return execute(state, action, Context(NOW, actor, rules, gm, RandomRoller(rng))).state

    state = setup.start_game(Context(NOW, "gm", rules, True, RandomRoller(rng)), {}).state
    state = run(run(state, "p0", actions.Join()), "p1", actions.Join())
    state = run(state, "gm", actions.Begin(), gm=True)
    state = run(state, state.chooser, actions.ChooseFirst("select"))
    kinds = {"p0": first, "p1": second}
    while state.picks:
        state = run(state, state.picks[0], actions.Pick(kinds[state.picks[0]]))
    dice = simulator.dice
    while not state.ended:
        phase, who, turn = state.phase, common.waiting_for(state), state.current
        if phase == DECLARE:
            state = run(state, who, actions.Declare(kinds[who]))
        elif phase == DEFEND:
            state = run(state, who, actions.Defend(kinds[who]))
        elif phase == OPENING:
            state = run(state, who, actions.Roll())
        else:
            me = state.player(turn.player).characters[0]
            foe = state.player(turn.defender_player).characters[0]
            policy = simulator.policies[me.type]
            solved = policy.solved(me.max_life - me.life)
            code = dice.encode([turn.dice.count(face) for face in ROLL_TYPES])
            if phase == FAVOR:
                worth = float("inf") if policy.kills(code, foe.life) else solved.opening[code]
                reroll = worth < solved.average if turn.favor == "attacker" else worth > solved.average
                state = run(state, who, actions.Favor("reroll" if reroll else "keep"))
            else:
                assert phase == ROLLING
                mask = sum(1 << i for i, face in enumerate(ROLL_TYPES) if face in turn.rolled)
                act = STOP if policy.kills(code, foe.life) else solved.action[code * MASKS + mask]
                assert act != MISS  # the engine ends a turn without a legal attack itself
                if act == STOP:
                    option = policy.choice(code, foe.life, me.max_life - me.life)
                    assert option is not None
                    state = run(state, who, actions.MakeAttack(option.attack.id))
                else:
                    state = run(state, who, actions.Roll(ROLL_TYPES[act]))
    assert state.winner in kinds
    return state.winner


def test_the_engine_accepts_every_move_of_the_policy():
    raw = copy.deepcopy(rules_for("goddice").cards.raw)
    raw["draft"]["characters_each"] = raw["draft"]["characters_each_with_four"] = 1  # one character each
    rules = rules_from_dict(raw)
    simulator = Simulator(rules.cards)
    rng = random.Random(11)
    for first, second in [("hero", "sage"), ("bowman", "monk"), ("assassin", "cleric"), ("cleric", "cleric")]:
        for _ in range(6):
            engine_duel(rules, simulator, first, second, rng)
