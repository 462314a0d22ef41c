"""A paused clock holds every deadline (issue 34): the turn's end, battle choices and their reminders, and timed
bonuses; resuming moves each on by the pause, so each has exactly the time it had left. Forced dice, a clock that
moves only when told."""

from __future__ import annotations

from datetime import timedelta

from helpers import NOW, Game, hours, snap

from engine.clock import Tick, next_deadline
from engine.events import replay
from engine.gm import SetHouse
from engine.nations import views
from engine.nations.clock import EndTurn, PauseClock, ResumeClock
from engine.nations.events import BattleAwaits, BonusExpired, ChoiceDefaulted, ChoiceReminded
from engine.nations.gm import AddUnit
from engine.nations.peace import Encourage
from engine.nations.snapshot import state_from_dict, state_to_dict
from engine.nations.war import DeclareAttack
from engine.view import At, text_lines


def two_armies(game: Game) -> None:
    """Avalon (alice) and Charon (bob), one infantry each; a battle choice waits 5 hours, reminded at half."""
    for name, player in (("Avalon", "alice"), ("Charon", "bob")):
        game.nation_with(name, player)
        game.do(AddUnit(name, "infantry", "green"))
    game.do(SetHouse("choice_deadline_hours", "5"))


def kinds(outcome) -> list[str]:
    return [type(e).__name__ for e in outcome.events]


def status_text(game: Game) -> str:
    return "\n".join(text_lines(views.status_view(game.state, game.rules)))


def test_a_paused_clock_holds_a_battle_choice_and_resuming_gives_back_its_time_left(game):
    two_armies(game)
    game.do(DeclareAttack("Charon", [1]), actor="alice")  # Charon must commit by NOW + 5 h, reminded at + 2.5 h
    battle = game.state.battles[1]
    assert (battle.deadline, battle.reminder_at) == (NOW + hours(5), NOW + hours(2.5))
    game.advance(hours=1)
    game.do(PauseClock())  # 4 h of the choice left, 1.5 h to its reminder, 11 h of the turn
    game.advance(hours=5)  # the choice's old deadline is an hour gone
    assert game.tick().events == []
    assert next_deadline(game.state) is None  # nothing is due while paused: the store's next_due is empty
    text = status_text(game)
    assert "paused: 11 h left of the turn" in text
    assert "Battle #1 waits for Charon to commit units (default 4 h left when the clock resumes)" in text
    assert "UTC" not in text  # no deadline in the past is shown
    battles = "\n".join(text_lines(views.battles_view(game.state, game.rules, "", {"battle": 1})))
    assert "(4 h left when the clock resumes)" in battles and "UTC" not in battles

    game.do(ResumeClock())
    battle = game.state.battles[1]
    assert (battle.deadline, battle.reminder_at) == (NOW + hours(10), NOW + hours(7.5))  # moved on by the 5 h
    assert game.state.turn_ends_at == NOW + hours(17)
    game.advance(hours=1.5, seconds=-1)
    assert game.tick().events == []
    game.advance(seconds=1)
    assert game.tick().events == [ChoiceReminded(1, "commit", "Charon", "bob", NOW + hours(10))]
    game.advance(hours=2.5, seconds=-1)
    assert game.tick().events == []
    game.advance(seconds=1)
    defaulted = game.do(Tick(), dice=[2, 8] + [10, 1] * 5 + [10])  # the default commits: initiative, the duel
    assert "ChoiceDefaulted" in kinds(defaulted)
    game.assert_replays()


def test_a_paused_clock_holds_the_36_hour_bonus_and_the_turn_end(game):
    game.nation_with("Avalon", "alice")
    game.do(Encourage("morale"), actor="alice", dice=[9])  # morale +3 until NOW + 36 h
    game.advance(hours=10)
    game.do(PauseClock())  # 26 h of the bonus left, 2 h of the turn
    game.advance(hours=100)
    assert game.tick().events == []
    assert game.state.turn == 1 and game.nation("Avalon").bonuses["morale"].expires_at == NOW + hours(36)
    game.do(ResumeClock())
    assert game.nation("Avalon").bonuses["morale"].expires_at == NOW + hours(136)
    assert game.state.turn_ends_at == NOW + hours(112)
    game.advance(hours=2, seconds=-1)
    assert game.tick().events == []
    game.advance(seconds=1)
    assert [type(e).__name__ for e in game.tick().events] == ["TurnEnded"]
    game.advance(hours=24, seconds=-1)
    assert BonusExpired("Avalon", "morale", 3) not in game.tick().events
    game.advance(seconds=1)
    assert BonusExpired("Avalon", "morale", 3) in game.tick().events
    game.assert_replays()


def test_what_opens_during_a_pause_has_its_whole_time_when_the_clock_resumes(game):
    two_armies(game)
    game.advance(hours=1)
    game.do(PauseClock())
    game.advance(hours=3)
    game.do(Encourage("morale"), actor="alice", dice=[9])
    game.do(DeclareAttack("Charon", [1]), actor="alice")
    game.advance(hours=7)
    game.do(ResumeClock())  # resumed at NOW + 11 h: the bonus has its 36 h, the choice its 5 h
    assert game.nation("Avalon").bonuses["morale"].expires_at == NOW + hours(11 + 36)
    assert game.state.battles[1].deadline == NOW + hours(11 + 5)
    game.assert_replays()


def test_the_gm_ending_the_turn_while_paused_keeps_the_pause_of_the_other_deadlines(game):
    two_armies(game)
    game.do(DeclareAttack("Charon", [1]), actor="alice")  # default at NOW + 5 h
    game.do(PauseClock())
    game.advance(hours=2)
    game.do(EndTurn())  # the new turn starts paused: the pause began at NOW all the same
    game.advance(hours=2)
    game.do(ResumeClock())
    assert game.state.battles[1].deadline == NOW + hours(9)
    assert game.state.turn_ends_at == NOW + hours(16)
    game.assert_replays()


def test_the_pause_is_kept_by_an_export_and_an_import_and_by_a_replay(game):
    two_armies(game)
    game.do(DeclareAttack("Charon", [1]), actor="alice")
    game.advance(hours=1)
    game.do(PauseClock())
    exported = state_to_dict(game.state)
    assert exported["game"]["paused_at"] == (NOW + hours(1)).isoformat()
    imported = state_from_dict(exported)
    assert imported.paused_at == NOW + hours(1) and snap(imported) == snap(game.state)
    assert snap(replay(game.events)) == snap(game.state)
    game.advance(hours=3)
    game.do(ResumeClock())
    assert game.state.battles[1].deadline == NOW + hours(8)
    assert snap(replay(game.events)) == snap(game.state)


def test_undoing_a_resume_pauses_again_with_every_deadline_where_it_was(game):
    two_armies(game)
    game.do(DeclareAttack("Charon", [1]), actor="alice")
    game.do(PauseClock())
    paused = snap(game.state)
    before = len(game.events)
    game.advance(hours=3)
    game.do(ResumeClock())
    assert game.state.battles[1].deadline == NOW + hours(8)
    assert snap(replay(game.events[:before])) == paused  # undo replays the log without the resume


def test_a_game_paused_before_the_moment_was_recorded_counts_its_pause_from_the_turn_left(game):
    two_armies(game)
    game.do(DeclareAttack("Charon", [1]), actor="alice")
    game.advance(hours=2)
    game.do(PauseClock())
    old = state_to_dict(game.state)
    del old["game"]["paused_at"]  # an export written before this version
    game.state = state_from_dict(old)
    assert game.state.paused_at is None
    game.advance(hours=4)
    game.do(ResumeClock())
    assert game.state.battles[1].deadline == NOW + hours(9)  # 3 h were left of its 5


def test_the_choice_is_announced_as_waiting_until_its_deadline_when_declared(game):
    two_armies(game)
    out = game.do(DeclareAttack("Charon", [1]), actor="alice")
    assert [e for e in out.events if isinstance(e, BattleAwaits)][0].deadline == NOW + hours(5)
    assert not [e for e in out.events if isinstance(e, ChoiceDefaulted)]
    assert isinstance(views.status_view(game.state, game.rules).lines[-1].parts[-2], At)
    assert timedelta(hours=5) == game.state.battles[1].deadline - NOW
