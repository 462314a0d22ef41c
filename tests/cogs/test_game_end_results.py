"""Issue 11: the end of a game. /game end posts the final results (every nation's LAND, stats and battles won,
and the winner) and turns the pinned status to "game over" — through discord.py against the fake Discord; the
engine records the standings in GameEnded, and battles won are kept in the state, the snapshot and the export."""

from __future__ import annotations

import pytest
from discordkit import mention, start_war, table, texts
from helpers import Game
from pydantic import ValidationError

from engine.clock import EndGame
from engine.events import GameEnded, event_from_dict, event_to_dict, replay
from engine.nations.describe import event_line, results_lines
from engine.nations.gm import SetStat
from engine.nations.peace import ClaimPreset
from engine.nations.schema import Nation as NationSchema
from engine.nations.snapshot import state_from_dict, state_to_dict


async def charon_wins_a_battle(t) -> None:
    """Battle #1: Gracchan Republic's #1 attacks, Charon commits #6 and #7, #1 retreats: Charon wins."""
    await start_war(t)
    await t.run(t.alice, "attack declare", target="Charon", units="1")
    t.dice.push(1, 1)  # initiative 0 against 0: the defender wins ties and pairs
    await t.run(t.bob, "attack commit", units="6 7", battle=1)
    await t.run(t.alice, "attack retreat", unit=1)
    t.dice.push(10, 1, 6)  # #1 retreats; promotions: #1 fails, #6 rises
    paired = await t.run(t.bob, "attack pair", attacker=1, defender=6)
    assert "🏁 Battle #1 is over: defender won; Charon wins." in texts(paired)


async def test_game_end_posts_the_results_and_turns_the_pin_to_game_over(tmp_path):
    async with table(tmp_path) as t, t.bot() as rb:
        await charon_wins_a_battle(t)
        state = await t.state(rb)
        assert state.nations["Charon"].battles_won == 1 and state.nations["Gracchan Republic"].battles_won == 0
        pin = t.status_message()
        assert "actions left" in texts(pin)
        edits_before = len(pin.history)

        asked = await t.run(t.gm, "game end")
        before = len(t.messages())
        confirmed = await t.click(t.gm, asked.message, asked.custom_ids[0])
        assert texts(confirmed.followups[0]) == "The game is over."

        # The channel gets the results: the winner (LAND tied at 20, so the battle won decides), each nation.
        [results] = [m for m in t.messages()[before - 1:] if m.embeds
                     and m.embeds[0].get("title") == "🏁 Game over — final results"]
        embed = results.embeds[0]
        charon, gracchan = state.nations["Charon"], state.nations["Gracchan Republic"]
        assert embed["description"].splitlines() == [
            "👑 **Charon** wins with **20 LAND** and 1 battle won.", "The game ended in turn 1.",
            (f"1. Charon ({mention(t.bob)}): LAND **20** · E {charon.economy} S {charon.effective_stability} "
             f"M {charon.military} P {charon.propaganda} · **1** battle won"),
            (f"2. Gracchan Republic ({mention(t.alice)}): LAND **20** · E {gracchan.economy} "
             f"S {gracchan.effective_stability} M {gracchan.military} P {gracchan.propaganda} · **0** battles won")]
        assert (charon.propaganda, gracchan.propaganda) == (11, 9)

        # The pinned status is edited (the same message) to game over: the standings, no clock, no actions.
        assert t.status_message() is pin and len(pin.history) > edits_before
        shown = texts(pin)
        assert pin.embeds[0]["title"] == "Nations — turn 1 (12 h), over" and "**GAME OVER**" in shown
        assert "Charon" in shown and "wins" in shown
        assert "actions left" not in shown and "<t:" not in shown and "ends" not in shown


def two_nations(land: tuple[int, int], battles: tuple[int, int]) -> Game:
    game = Game()
    game.do(ClaimPreset("Gracchan Republic"), actor="alice")
    game.do(ClaimPreset("Charon"), actor="bob")
    for name, value, won in zip(("Gracchan Republic", "Charon"), land, battles, strict=True):
        if game.state.nations[name].land != value:
            game.do(SetStat(name, "land", value))
        game.state.nations[name].battles_won = won  # (battles won come from BattleEnded: see the Discord test)
    return game


def test_the_most_land_wins_then_battles_won_then_a_shared_game():
    game = two_nations((25, 20), (0, 3))
    standings = game.state.final_standings()
    assert (standings["winner"], standings["tied"]) == ("Gracchan Republic", [])
    assert [n["name"] for n in standings["nations"]] == ["Gracchan Republic", "Charon"]

    game = two_nations((20, 20), (0, 2))
    assert game.state.final_standings()["winner"] == "Charon"  # LAND tied: more battles won

    game = two_nations((20, 20), (1, 1))
    standings = game.state.final_standings()
    assert standings["winner"] is None and standings["tied"] == ["Charon", "Gracchan Republic"]
    assert results_lines(standings, str)[0] == (
        "🤝 A tie: Charon and Gracchan Republic share the game, with 20 LAND and 1 battle won each.")


def test_game_ended_records_the_standings_in_the_log_and_says_them():
    game = two_nations((30, 20), (0, 0))
    out = game.do(EndGame())
    [ended] = [e for e in out.events if isinstance(e, GameEnded)]
    assert ended.standings["winner"] == "Gracchan Republic" and ended.standings["turn"] == 1
    stored = event_from_dict(event_to_dict(ended), "nations")  # the log keeps them as they were
    assert stored.standings == ended.standings
    assert state_to_dict(replay(game.events)) == state_to_dict(game.state)
    assert event_line(ended, str, str).splitlines() == [
        "🏁 The game is over. Final results:",
        "👑 Gracchan Republic wins with 30 LAND.",
        "1. Gracchan Republic (alice): LAND 30 · E 12 S 10 M 8 P 10 · 0 battles won",
        "2. Charon (bob): LAND 20 · E 11 S 10 M 9 P 10 · 0 battles won",
    ]
    assert event_line(GameEnded(), str, str) is None  # a log from before standings: the shared words say it


def test_battles_won_travel_in_the_snapshot_and_the_export_schema():
    game = two_nations((20, 20), (4, 0))
    document = state_to_dict(game.state)
    assert document["nations"][0]["battles_won"] == 4
    assert state_from_dict(document).nations["Gracchan Republic"].battles_won == 4
    del document["nations"][0]["battles_won"]  # an export from before: 0
    assert state_from_dict(document).nations["Gracchan Republic"].battles_won == 0
    raw = state_to_dict(game.state)["nations"][0]
    assert NationSchema.model_validate(raw).battles_won == 4
    with pytest.raises(ValidationError):
        NationSchema.model_validate({**raw, "battles_won": -1})
