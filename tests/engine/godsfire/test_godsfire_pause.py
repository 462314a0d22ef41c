"""Issue 34: a paused clock holds every Godsfire deadline — a go at initiative and its half-time reminder, a
transit answer — and resuming gives each back the time it had left (12 response hours by default)."""

from __future__ import annotations

from datetime import timedelta

from godsfirehelpers import NOW, Table, snap

from engine.clock import PauseClock, ResumeClock, Tick, next_deadline
from engine.errors import RuleViolation
from engine.godsfire import movement, tableviews
from engine.godsfire.snapshot import state_from_dict, state_to_dict


def two_players() -> Table:
    t = Table()
    t.system("Sol", "alice", ["M 4 A-1", "R 3 I-1"], units={"SQD": 2, "AG": 1})
    t.system("Vega", "bob", ["E 4 A-2"], units={"SQD": 1})
    return t


def later(t: Table, **span: float) -> None:
    t.now = t.now + timedelta(**span)


def test_a_paused_clock_holds_the_go_at_initiative_and_resuming_gives_back_its_time_left() -> None:
    t = two_players()
    t.do(movement.StartInitiative(), dice=[6, 1])  # alice's go from NOW: reminded at +6 h, a pass at +12 h
    later(t, hours=4)
    t.do(PauseClock())
    t.refuse(PauseClock(), RuleViolation, "already paused")
    assert next_deadline(t.state) is None
    later(t, hours=20)  # long past the go's deadline
    assert t.do(Tick()).events == []
    assert t.state.initiative.awaiting == "alice" and not t.state.initiative.reminded
    shown = [ln.text for ln in tableviews.procedure_lines(t.state, t.rules)]
    assert "The clock is paused: every deadline waits until it resumes." in shown
    assert "Initiative: alice (round 1); awaiting alice (move, done or pass) — 8 h left when the clock resumes." \
        in shown
    exported = state_to_dict(t.state)
    assert snap(state_from_dict(exported)) == snap(t.state)  # an export keeps the pause
    t.do(ResumeClock())
    t.refuse(ResumeClock(), RuleViolation, "not paused")
    assert t.state.initiative.since == NOW + timedelta(hours=20)  # moved on by the 20 h pause
    assert next_deadline(t.state) == NOW + timedelta(hours=26)  # the reminder: 2 h left, as at the pause
    later(t, hours=2, seconds=-1)
    assert t.do(Tick()).events == []
    later(t, seconds=1)
    assert any("reminder: it is alice's go" in getattr(e, "reason", "") for e in t.do(Tick()).events)
    later(t, hours=6, seconds=-1)
    t.do(Tick())
    assert t.state.initiative.holder == "alice"
    later(t, seconds=1)
    t.do(Tick())
    assert t.state.initiative.holder == "bob" and t.state.initiative.held == ["alice"]
    t.assert_replays()


def test_a_go_that_opens_during_the_pause_gets_its_whole_time_when_the_clock_resumes() -> None:
    t = two_players()
    t.do(movement.StartInitiative(), dice=[1, 6])  # bob holds initiative: his go from NOW
    t.do(PauseClock())
    later(t, hours=30)
    t.do(movement.Move("4", "K9"), "bob")
    t.do(movement.EndGo(), "bob")  # alice's go opens during the pause: it counts from the pause
    assert t.state.initiative.awaiting == "alice" and t.state.initiative.since == NOW
    later(t, hours=1)
    t.do(ResumeClock())  # resumed at NOW + 31 h: alice's whole 12 hours are left
    assert t.state.initiative.since == NOW + timedelta(hours=31)
    assert next_deadline(t.state) == NOW + timedelta(hours=37)
    t.assert_replays()
