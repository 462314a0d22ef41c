"""Issue 34: the life chart (one line a character, by its name now; a change at the turn it happened in), the
status view while the opening roll is kept or re-rolled, Whirlwind's heal, and an attack worth no damage."""

from __future__ import annotations

import pytest
from goddicehelpers import Table, drafted
from storehelpers import FakeClock, assert_snapshot_is_replay

from data.store import Store
from engine import chartspec
from engine.dice import ForcedRoller
from engine.errors import RuleViolation
from engine.gm import QueueDice
from engine.goddice import actions
from engine.goddice.actions import Favor, MakeAttack, Roll, SetLife
from engine.goddice.describe import status_lines
from engine.goddice.events import AttackDiceSet, LifeChanged
from engine.goddice.state import FAVOR
from service.referee import Referee


@pytest.fixture
async def setup(tmp_path):
    store = await Store.open(tmp_path / "r.db")
    referee = Referee(store, None, ForcedRoller(), FakeClock())
    yield referee, store
    await store.close()


async def draft_two_monks(referee, channel: str = "chan") -> int:
    """alice attacks first with Hero, Cleric, Bowman, Sage; bob drafts a Monk first and another last."""
    return await drafted(referee, channel, bobs_last="monk")


async def test_the_life_chart_draws_a_renamed_character_as_one_line_and_a_change_at_its_turn(setup):
    referee, store = setup
    game_id = await draft_two_monks(referee)
    # turn 1: alice's Hero hits bob's first Monk for 15 (a basic attack of three B)
    await referee.act("chan", "alice", actions.Declare("hero"), "/goddice declare")
    await referee.act("chan", "gm", QueueDice(["S", "A", *"BBBROO555"]), "/gm dice")
    await referee.act("chan", "bob", actions.Defend("monk 1"), "/goddice defend")
    await referee.act("chan", "alice", actions.Roll(), "/goddice roll")
    await referee.act("chan", "alice", actions.MakeAttack("basic"), "/goddice attack name:basic")
    state = await referee.state("chan")
    assert state.turn == 2 and state.player("bob").characters[0].life == 40
    await assert_snapshot_is_replay(store, game_id)

    chart = chartspec.game_chart(state, await store.history(game_id), {})
    [panel] = chart.panels
    lines = {series.side: series.points for series in panel.series}
    # one line a character, by its name now: no "Monk (bob)" left over from before the second Monk came
    assert sorted(lines) == sorted(["Hero (alice)", "Cleric (alice)", "Bowman (alice)", "Sage (alice)",
                                    "Monk 1 (bob)", "Sage (bob)", "Assassin (bob)", "Monk 2 (bob)"])
    # the first Monk's whole history, its 15 damage at turn 1 (the turn of the attack), not at turn 2
    assert lines["Monk 1 (bob)"] == ((0, 55.0), (1, 40.0), (2, 40.0))
    assert lines["Monk 2 (bob)"] == ((0, 55.0), (1, 55.0), (2, 55.0))
    assert len({series.colour for series in panel.series}) == len(panel.series)


# --- through the engine, with exact dice ----------------------------------------------------------------


def duel(alice: list[str], bob: list[str]) -> Table:
    table = Table(["alice", "bob"])
    table.setup({"alice": alice, "bob": bob}, winner="alice", choice="attack")
    return table


def status(table: Table) -> list[str]:
    return status_lines(table.state, lambda name: name)


def test_status_lists_the_attacks_the_kept_dice_allow_while_the_opening_roll_is_kept_or_rerolled():
    table = duel(["hero", "cleric", "bowman", "sage"], ["monk", "assassin", "sage", "hero"])
    table.attack_turn("alice", "hero", "monk", god="S H", opening="B B B R O O 5 5 5")  # alice in favor
    assert table.state.phase == FAVOR
    shown = status(table)
    assert shown[-1] == "Legal attacks if kept: basic (normal): 15 damage"
    table.do(Favor("keep"), "alice")
    assert status(table)[-1] == "Legal attacks: basic (normal): 15 damage"


def test_status_says_when_the_kept_dice_allow_no_attack():
    table = duel(["hero", "cleric", "bowman", "sage"], ["monk", "assassin", "sage", "hero"])
    table.attack_turn("alice", "hero", "monk", god="S H", opening="R R R R R R R R R")
    assert table.state.phase == FAVOR and status(table)[-1] == "No legal attack if kept."


def test_whirlwind_says_whom_it_heals_and_how_much():
    table = duel(["monk", "hero", "cleric", "bowman"], ["hero", "sage", "assassin", "monk"])
    table.do(SetLife("alice", "monk", 50))
    table.attack_turn("alice", "monk", "hero", god="C S", opening="B B R R Y 5 5 5 5")
    table.refuse(MakeAttack("whirlwind", heal="hero"), RuleViolation,
                 "Whirlwind heals only the Monk making it (Heal Self 10), no character you choose: leave out heal",
                 "alice")
    out = table.do(MakeAttack("whirlwind"), "alice")
    lines = [event_line(e) for e in out.events]
    assert lines[0] == "💥 alice's Monk: Whirlwind for 60 damage to bob's Hero; the Monk heals itself 5."
    assert "   alice's Monk: +5 → 55/55 life (Whirlwind)." in lines


def test_whirlwind_at_full_life_says_its_healing_is_wasted_and_heal_any_names_whom_it_heals():
    table = duel(["monk", "hero", "cleric", "bowman"], ["hero", "sage", "assassin", "monk"])
    table.attack_turn("alice", "monk", "hero", god="C S", opening="B B R R Y 5 5 5 5")
    out = table.do(MakeAttack("whirlwind"), "alice")
    assert event_line(out.events[0]) == (
        "💥 alice's Monk: Whirlwind for 60 damage to bob's Hero; the Monk is at full life: its healing is wasted.")
    assert not [e for e in out.events if isinstance(e, LifeChanged) and e.player == "alice"]


def event_line(event) -> str:
    from engine.goddice.describe import event_line as line

    found = line(event, lambda at: str(at), lambda name: name)
    assert found is not None
    return found


def test_an_attack_worth_no_damage_is_legal_and_marked_no_damage():
    """The rules make an attack legal when the dice meet its needs (seed 002: "qualifies for a basic attack");
    its damage is the 5 dice: with none, a basic attack deals 0, and every list of legal attacks says so."""
    table = duel(["hero", "cleric", "bowman", "sage"], ["monk", "assassin", "sage", "hero"])
    table.attack_turn("alice", "hero", "monk", god="C S")
    out = table.do(Roll(), "alice", faces="B R R R Y Y O O Y")
    assert table.legal() == [("basic", 0)]
    [dice] = [e for e in out.events if isinstance(e, AttackDiceSet)]
    assert event_line(dice) == "   dice: B R R R Y Y Y O O — legal: basic 0 (no damage: no 5 dice)"
    assert status(table)[-1] == "Legal attacks: basic (normal): no damage (no 5 dice)"
    table.refuse(MakeAttack("basic", heal="cleric"), RuleViolation, "Basic heals no one: leave out heal", "alice")
