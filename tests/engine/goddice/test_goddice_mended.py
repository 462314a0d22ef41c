"""God Dice, mended (issue 17), in the engine: a player killed by the GM is skipped, `pick` by an unambiguous start,
a non-player told they are not seated, Free for All's status, a Campaign game's own turn count, and the keep or
re-roll prompt after an opening roll in favor."""

from __future__ import annotations

from goddicehelpers import Table

from engine.describe import same
from engine.errors import BadInput, RuleViolation
from engine.goddice.actions import Declare, Defend, Favor, Join, MakeAttack, Pick, Roll, SetLife
from engine.goddice.common import label
from engine.goddice.describe import event_line, status_lines
from engine.goddice.events import (
    CampaignGameStarted,
    CharacterPicked,
    GameWon,
    MoveAwaited,
    PlayerEliminated,
    TurnStarted,
)
from engine.goddice.state import DECLARE, DEFEND, FAVOR

DUEL = {"alice": ["hero", "cleric", "bowman", "sage"], "bob": ["monk", "assassin", "sage", "hero"]}
TRIO = {"alice": ["hero", "monk", "bowman", "sage"], "bob": ["cleric", "monk", "bowman", "assassin"],
        "carol": ["hero", "cleric", "sage", "assassin"]}
NOT_SEATED = "you are not seated in this game"


def trio(options: str | None = None) -> Table:
    table = Table(["alice", "bob", "carol"], options)
    table.setup(TRIO, winner="alice", choice="attack")
    return table


def kill_all(table: Table, player: str) -> list:
    """The GM sets each living character of `player` to 0 life; the events of the last one."""
    owner = table.player(player)
    names = [label(owner, c, table.state.cards) for c in owner.characters if c.alive]
    out = None
    for name in names:
        out = table.do(SetLife(player, name, 0))
    assert out is not None
    return out.events


# --- 1. a player with no living character is skipped, whatever killed them ---------------------


def test_the_gm_killing_every_character_of_the_player_to_move_passes_the_turn_on():
    table = trio()
    assert (table.state.phase, table.state.active, table.state.turn) == (DECLARE, "alice", 1)
    events = kill_all(table, "alice")
    assert [type(e).__name__ for e in events][-3:] == ["PlayerEliminated", "TurnStarted", "MoveAwaited"]
    assert (table.state.phase, table.state.active, table.state.current.player, table.state.turn) == (
        DECLARE, "bob", "bob", 2)
    table.do(Declare("cleric"), "bob")
    assert table.state.current.defender_player == "carol"  # clockwise, alice is out
    table.assert_replays()


def test_the_gm_killing_the_attacker_mid_turn_passes_the_turn_on():
    table = trio()
    table.do(Declare("hero"), "alice")
    assert (table.state.phase, table.state.active) == (DEFEND, "bob")
    kill_all(table, "alice")
    assert (table.state.phase, table.state.active, table.state.current.player) == (DECLARE, "bob", "bob")
    table.assert_replays()


def test_the_gm_killing_the_defending_player_lets_the_attacker_declare_again():
    table = trio()
    table.do(Declare("hero"), "alice")
    kill_all(table, "bob")
    assert (table.state.phase, table.state.active, table.state.current.player, table.state.turn) == (
        DECLARE, "alice", "alice", 1)
    table.do(Declare("hero"), "alice")
    assert table.state.current.defender_player == "carol"
    table.assert_replays()


def test_free_for_all_the_gm_killing_the_player_to_move_gives_the_attack_to_their_left():
    table = trio("free_for_all")
    table.do(Declare("hero", target="carol"), "alice")
    table.do(Defend("cleric"), "carol", faces="M S")  # no effect
    table.do(Roll(), "alice", faces="B 5 5 5 O O O O R")
    table.do(MakeAttack("basic"), "alice")
    assert table.state.current.player == "carol"  # the defender attacks next
    events = kill_all(table, "carol")
    assert any(isinstance(e, PlayerEliminated) for e in events)
    assert (table.state.active, table.state.current.player) == ("alice", "alice")  # left of carol
    table.assert_replays()


def test_the_gm_killing_the_last_rival_still_wins_the_game():
    table = Table(["alice", "bob"])
    table.setup(DUEL, winner="alice", choice="attack")
    events = kill_all(table, "alice")
    assert [e.player for e in events if isinstance(e, GameWon)] == ["bob"]
    assert table.state.ended and not [e for e in events if isinstance(e, TurnStarted)]


# --- 4. pick by an unambiguous start of a name ------------------------------------------------------


def test_pick_takes_an_unambiguous_start_of_a_characters_name():
    table = Table(["alice", "bob"])
    table.rolloff("alice")
    table.choose("alice", "attack")  # bob picks first
    out = table.do(Pick("assa"), "bob")
    assert table.of(out, CharacterPicked)[0].type == "assassin"
    out = table.do(Pick("Bow"), "alice")
    assert table.of(out, CharacterPicked)[0].type == "bowman"
    table.refuse(Pick("dragon"), BadInput, "no character 'dragon'", "bob")
    out = table.do(Pick("cler"), "bob")
    assert table.of(out, CharacterPicked)[0].type == "cleric"


def test_declare_and_defend_take_an_unambiguous_start_too():
    table = Table(["alice", "bob"])
    table.setup(DUEL, winner="alice", choice="attack")
    table.do(Declare("her"), "alice")
    table.do(Defend("assas"), "bob", faces="B C")
    assert table.state.current.defender == table.char("bob", "assassin").id


# --- 5. a non-player is told they are not seated --------------------------------------------------


def test_a_non_player_trying_a_players_move_is_told_they_are_not_seated():
    table = Table(["alice", "bob"])
    table.rolloff("alice")
    table.refuse(Pick("hero"), RuleViolation, NOT_SEATED, "dave")
    table.choose("alice", "attack")
    table.refuse(Pick("hero"), RuleViolation, NOT_SEATED, "dave")
    table.draft(DUEL)
    for action in (Declare("hero"), Defend("monk"), Roll(), Favor("keep"), MakeAttack("basic")):
        error = table.refuse(action, RuleViolation, None, "dave")
        assert str(error) == NOT_SEATED
    table.refuse(Declare("hero"), RuleViolation, "it is not your move", "bob")  # a player: as before


# --- 6. Free for All's status -----------------------------------------------------------------------


def test_free_for_all_status_says_any_target():
    table = trio("free_for_all")
    assert status_lines(table.state, same)[0] == "God Dice — GM gm; options: free for all — turn 1, any target"
    plain = trio()
    assert status_lines(plain.state, same)[0] == "God Dice — GM gm — turn 1, attacks go clockwise"


# --- 7. a Campaign game counts its own turns ---------------------------------------------------------


def test_a_campaign_game_2_starts_again_from_turn_1():
    table = Table(["alice", "bob"], "campaign")
    table.setup(DUEL, winner="alice", choice="attack")
    table.do(Declare("hero"), "alice")
    table.do(Defend("monk"), "bob", faces="B C")
    table.do(Roll(), "alice", faces="B 5 5 5 O O O O R")
    table.do(MakeAttack("basic"), "alice")
    assert table.state.turn == 2
    kill_all(table, "alice")  # the GM ends game 1: bob wins it
    assert table.all_of(CampaignGameStarted)[-1].game == 2
    assert (table.state.turn, table.state.current.player) == (1, "alice")  # bob's right begins
    assert [e.turn for e in table.all_of(TurnStarted)] == [1, 2, 1]
    assert status_lines(table.state, same)[0] == (
        "God Dice — GM gm; options: campaign — game 2, turn 1, attacks go clockwise")
    table.do(Declare("hero"), "alice")
    table.do(Defend("monk"), "bob", faces="B C")
    table.do(Roll(), "alice", faces="B 5 5 5 O O O O R")
    table.do(MakeAttack("basic"), "alice")
    assert (table.state.turn, table.state.current.player) == (2, "bob")
    table.assert_replays()


# --- 3. keep or re-roll after an opening roll in favor ------------------------------------------------


def test_an_opening_roll_in_favor_prompts_keep_or_re_roll_with_both_commands():
    table = Table(["alice", "bob"])
    table.setup(DUEL, winner="alice", choice="attack")
    table.do(Declare("hero"), "alice")
    table.do(Defend("monk"), "bob", faces="H C")  # the Hero's face: the attacker is in favor
    out = table.do(Roll(), "alice", faces="B B B R O O 5 5 5")
    assert table.state.phase == FAVOR
    awaited = table.of(out, MoveAwaited)[-1]
    assert (awaited.player, awaited.quiet) == ("alice", False)
    assert event_line(awaited, str, same) == (
        "⏳ alice's move: keep or re-roll the opening roll (/goddice favor choice:keep or "
        "/goddice favor choice:reroll).")
    out = table.do(Favor("keep"), "alice")
    assert table.of(out, MoveAwaited)[-1].quiet  # the attacker goes on rolling: nothing new to announce


def test_join_is_not_a_players_move():
    table = Table(["alice"])
    table.do(Join(), "bob")
    assert [p.name for p in table.state.players] == ["alice", "bob"]
