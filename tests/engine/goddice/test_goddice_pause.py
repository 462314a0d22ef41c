"""Issue 34: a paused God Dice clock holds the reminder of the move awaited; resuming gives it back the time it
had left, and an export keeps the pause."""

from __future__ import annotations

from datetime import timedelta

from goddicehelpers import NOW, Table

from engine.clock import PauseClock, ResumeClock, next_deadline
from engine.goddice.events import PlayerReminded
from engine.goddice.schema import validate_export
from engine.goddice.snapshot import state_from_dict, state_to_dict
from engine.goddice.views import status_view
from engine.view import text_lines


def test_a_paused_clock_holds_the_move_reminder_and_resuming_gives_back_its_time_left():
    table = Table()
    table.rolloff("alice")  # alice chooses; reminded after the house's 12 hours
    assert next_deadline(table.state) == NOW + timedelta(hours=12)
    table.advance(hours=5)
    table.do(PauseClock())
    table.advance(hours=40)
    assert table.tick().events == [] and next_deadline(table.state) is None
    assert text_lines(status_view(table.state))[-1] == "The clock is paused: no reminder until it resumes."
    assert validate_export({**state_to_dict(table.state), "rolls": []}, table.now)
    assert state_to_dict(state_from_dict(state_to_dict(table.state))) == state_to_dict(table.state)
    table.do(ResumeClock())
    assert next_deadline(table.state) == NOW + timedelta(hours=52)  # 7 hours left, as at the pause
    table.advance(hours=7, minutes=-1)
    assert table.tick().events == []
    table.advance(minutes=1)
    assert [type(e) for e in table.tick().events] == [PlayerReminded]
    table.assert_replays()
