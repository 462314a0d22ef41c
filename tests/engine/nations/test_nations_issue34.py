"""Issue 34: a propaganda attack's target counts every foreign patch; /attack status shows the battles under way
and only the last finished ones, with a count of the rest and where to read them."""

from __future__ import annotations

from helpers import Game

from engine.nations.gm import SetStat
from engine.nations.peace import PropagandaAttack
from engine.nations.state import Battle
from engine.nations.views import battles_view
from engine.view import text_lines


def test_a_propaganda_attacks_target_counts_every_foreign_patch_even_past_its_stability(game: Game):
    game.nation_with("Avalon", "alice", propaganda=20)
    game.nation_with("Brigid", "bob", stability=1)
    game.do(SetStat("Brigid", "foreign_patches", 3))
    out = game.do(PropagandaAttack("Brigid"), actor="alice", dice=[1, 2])  # 1 + 5 = 6 > 0: a success, 2 × 3 land taken
    assert out.rolls[0].purpose == "propaganda attack on Brigid (S 1 − 3 for 3 foreign patches, never below 0 = 0)"
    assert out.rolls[0].target == 0


def test_one_foreign_patch_is_one_patch(game: Game):
    game.nation_with("Avalon", "alice", propaganda=20)
    game.nation_with("Brigid", "bob", stability=4)
    game.do(SetStat("Brigid", "foreign_patches", 1))
    out = game.do(PropagandaAttack("Brigid"), actor="alice", dice=[10, 1])
    assert out.rolls[0].purpose == "propaganda attack on Brigid (S 4 − 1 for 1 foreign patch = 3)"


def battles(game: Game, finished: int, under_way: int) -> None:
    for number in range(1, finished + under_way + 1):
        over = number <= finished
        game.state.battles[number] = Battle(number, "Avalon", "Brigid", 1, "over" if over else "commit", [1],
                                            result="attacker won" if over else None)


def test_attack_status_shows_the_battles_under_way_and_the_last_finished_ones(game: Game):
    battles(game, finished=12, under_way=2)
    shown = text_lines(battles_view(game.state, game.rules, "alice", {}))
    headings = [text for text in shown if text.startswith("Battle #")]
    assert [h.split(",")[0] for h in headings] == [f"Battle #{n}" for n in range(8, 15)]
    assert "attacker won" in headings[0] and "waits for Brigid" in headings[-1]
    assert shown[-1] == ("7 earlier finished battles not shown: /attack status with battle: shows any one, "
                         "/log game tells each turn's story.")
    # one battle, however old, is still shown by its number
    one = text_lines(battles_view(game.state, game.rules, "alice", {"battle": 1}))
    assert one[0].startswith("Battle #1, turn 1: Avalon against Brigid — attacker won") and len(one) == 2


def test_attack_status_with_few_finished_battles_shows_them_all_and_no_count(game: Game):
    battles(game, finished=5, under_way=0)
    shown = text_lines(battles_view(game.state, game.rules, "alice", {}))
    assert len([text for text in shown if text.startswith("Battle #")]) == 5
    assert not any("not shown" in text for text in shown)


def test_an_import_of_one_nation_says_one_nation():
    from engine.events import GameImported
    from engine.nations.describe import event_line

    def snapshot(count: int) -> dict:
        return {"game": {"ruleset": "nations", "turn": 3}, "nations": [{"name": f"N{i}"} for i in range(count)]}

    said = [event_line(GameImported(snapshot(n)), str, str) for n in (1, 2)]
    assert said == ["Game imported at turn 3 with 1 nation.", "Game imported at turn 3 with 2 nations."]
