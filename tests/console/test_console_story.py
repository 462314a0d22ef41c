"""Issue 19: the console's /log game — the story of a turn, in order, with names: a scripted Nations turn with
entered dice told exactly (and spot checks of its markdown and BBCode), a God Dice turn and a Godsfire turn's
phases; a turn that does not exist refused in one line."""

from __future__ import annotations

import io

from storehelpers import RULES, FakeClock, said

from console.app import Console
from data.store import Store
from engine.dice import ForcedRoller
from service.referee import Referee

NATIONS = [
    "gm /game start turn_hours:12",
    'alice /nation claim preset:"Gracchan Republic"',
    "bob /nation claim preset:Charon",
    'gm /gm dice values:"9 8"',
    "alice /economy military",
    "alice /propaganda encourage workers",
    "gm /gm turn end",
]


STORY_OF_TURN_1 = [
    'The story of turn 1 — Nations',
    '2030-01-01 00:00 UTC — gm: /game start turn_hours:12',
    '  A Nations game begins, refereed by the bot; GM: gm. Turn 1 lasts 12 hours and ends 2030-01-01 12:00 UTC.',
    '2030-01-01 00:00 UTC — alice: /nation claim preset:"Gracchan Republic"',
    ('  🏳 Gracchan Republic joins the game, played by alice: E 12, S 10, M 8, P 10, L 20; STRENGTH '
     'infantry, WEAKNESS bomber.'),
    '  Gracchan Republic: #1 infantry GREEN (3 HP), starting army.',
    '  Gracchan Republic: #2 infantry GREEN (3 HP), starting army.',
    '  Gracchan Republic: #3 infantry GREEN (3 HP), starting army.',
    '  Gracchan Republic: #4 bomber GREEN (2 HP), starting army.',
    '  Gracchan Republic: #5 armour GREEN (2 HP), starting army.',
    '2030-01-01 00:00 UTC — bob: /nation claim preset:Charon',
    '  🏳 Charon joins the game, played by bob: E 11, S 10, M 9, P 10, L 20; STRENGTH armour, WEAKNESS bomber.',
    '  Charon: #6 armour GREEN (2 HP), starting army.',
    '  Charon: #7 armour GREEN (2 HP), starting army.',
    '  Charon: #8 armour GREEN (2 HP), starting army.',
    '  Charon: #9 bomber GREEN (2 HP), starting army.',
    "2030-01-01 00:00 UTC — gm: /gm dice values:(2 dice entered)",
    '  GM gm entered the next 2 dice.',
    '2030-01-01 00:00 UTC — alice: /economy military',
    '  🎲 Gracchan Republic, grow military: d10 9 (GM die) + mod(E) +1 = 10 vs > 8: success',
    '  Gracchan Republic: MILITARY +1 (grow military).',
    '  Gracchan Republic: ECONOMY -1 (cost of growing military).',
    '2030-01-01 00:00 UTC — alice: /propaganda encourage workers',
    '  🎲 Gracchan Republic, encourage workers: d10 8 (GM die) vs >= 5: success',
    '  ✨ Gracchan Republic: Workers +2 until 2030-01-02 12:00 UTC.',
    '2030-01-01 00:00 UTC — gm: /gm turn end',
    ('  ⏰ Turn 1 is over (ended by the GM). Turn 2 begins and ends 2030-01-01 12:00 UTC. Last turn — '
     'Gracchan Republic: ECONOMY, PROPAGANDA; Charon: nothing.'),
]


async def console_of(tmp_path, fmt: str = "text"):
    store = await Store.open(tmp_path / f"story-{fmt}.db")
    out = io.StringIO()
    return Console(Referee(store, RULES, ForcedRoller(), FakeClock()), out, fmt=fmt), store, out


async def play(console, out, lines: list[str]) -> None:
    for line in lines:
        await console.handle(line)
    said(out)


async def test_a_nations_turn_is_told_exactly(tmp_path):
    console, store, out = await console_of(tmp_path)
    try:
        await play(console, out, NATIONS)
        await console.handle("bob /log game turn:1")
        assert said(out) == STORY_OF_TURN_1
        await console.handle("bob /log game")  # the current turn, so far: begun by the action that ended turn 1
        assert said(out) == ["The story of turn 2 (so far: it is the current turn) — Nations",
                             "2030-01-01 00:00 UTC — gm: /gm turn end (continued)", STORY_OF_TURN_1[-1]]
        for bad in ("turn:3", "turn:0"):
            await console.handle(f"bob /log game {bad}")
        assert said(out) == ["error: turn 3 does not exist: this game's turns are 1 to 2",
                             "error: turn 0 does not exist: this game's turns are 1 to 2"]
    finally:
        await store.close()


async def test_a_nations_turn_in_markdown_and_bbcode(tmp_path):
    told = {}
    for fmt in ("markdown", "bbcode"):
        console, store, out = await console_of(tmp_path, fmt)
        try:
            await play(console, out, NATIONS)
            await console.handle("bob /log game turn:1")
            told[fmt] = said(out)
        finally:
            await store.close()
    markdown, bbcode = told["markdown"], told["bbcode"]
    assert markdown[0] == "The story of turn 1 — Nations  "
    assert "2030-01-01 00:00 UTC — alice: `/economy military`" in markdown
    assert "- 🎲 Gracchan Republic, grow military: d10 9 (GM die) + mod(E) +1 = **10** vs > 8: **success**" in markdown
    assert "- Gracchan Republic: `#1` infantry GREEN (3 HP), starting army." in markdown
    assert bbcode[0].startswith("The story of turn 1 — Nations")
    assert any("[b]10[/b]" in line and "grow military" in line for line in bbcode)


GODDICE = [
    "gm /game start ruleset:goddice", "alice /goddice join", "bob /goddice join",
    'gm /gm dice values:"Y Y Y B B B B B B  B B B B B B B B B"', "gm /goddice begin",
    "alice /goddice choose first:attack", "bob /goddice pick monk", "alice /goddice pick hero",
    "bob /goddice pick sage", "alice /goddice pick cleric", "bob /goddice pick assassin", "alice /goddice pick bowman",
    "bob /goddice pick hero", "alice /goddice pick sage", "alice /goddice declare attacker:hero",
    'gm /gm dice values:"S A"', "bob /goddice defend character:monk",
]


async def test_a_god_dice_turn_is_told_with_its_attack(tmp_path):
    console, store, out = await console_of(tmp_path)
    try:
        await play(console, out, GODDICE)
        await console.handle("bob /log game")
        story = said(out)
        assert story[0] == "The story of turn 1 (so far: it is the current turn) — God Dice"
        assert "2030-01-01 00:00 UTC — alice: /goddice declare attacker:hero" in story
        assert any("▶ Turn 1: alice attacks." in line for line in story)
        assert any("⚔ alice's Hero attacks bob." in line for line in story)
        await console.handle("bob /log game turn:2")
        assert said(out) == ["error: turn 2 does not exist: this game's turns are 1 to 1"]
    finally:
        await store.close()


GODSFIRE = [
    "gm /game start ruleset:godsfire", 'gm /gm dice values:"3 4 5 3 1 1 6 6"',
    "gm /godsfire system add name:Sol owner:alice planets:2 regions:2", "gm /godsfire phase next",
    "alice /godsfire movement pass",  # A.1: turn 1's initiative starts at the GM's first step
    "gm /godsfire phase next", "gm /godsfire phase next", "gm /godsfire phase next",
]


async def test_a_godsfire_turn_is_told_phase_by_phase(tmp_path):
    console, store, out = await console_of(tmp_path)
    try:
        await play(console, out, GODSFIRE)
        await console.handle("bob /log game turn:1")
        story = said(out)
        print("\n".join(story))
        assert story[0] == "The story of turn 1 (so far: it is the current turn) — Godsfire"
        phases = [line.strip() for line in story if line.strip().startswith("⏭")]
        assert len(phases) == 3 and all(p.startswith("⏭ Turn 1: the ") for p in phases)
        assert [line for line in story if line.endswith("/godsfire phase next")] == [
            "2030-01-01 00:00 UTC — gm: /godsfire phase next"] * 4
    finally:
        await store.close()


async def test_a_story_read_on_from_a_remembered_turn_start_is_the_story_read_from_the_first_action(tmp_path):
    """The game's page tells the current turn's story at every change: story.py remembers where the last turn began
    and reads on from there. Through turn ends and undos (one of the turn end after the remembered place, one back
    past the turn end before it, which moves every later turn), each turn's story is the one told from the start of
    the log."""
    from service import story

    console, store, out = await console_of(tmp_path)
    try:
        await play(console, out, NATIONS)
        game_id = await console.referee.game_id("console")

        async def check() -> int:
            """Every turn's story, the current turn's first (told from the place remembered by the step before)."""
            current = story.current_turn(await store.load(game_id))
            for turn in range(current, 0, -1):
                hinted = await story.game_story(console.referee, game_id, turn)
                kept = story.turn_starts(store).pop(game_id, None)
                whole = await story.game_story(console.referee, game_id, turn)
                assert hinted.items == whole.items and hinted.current == whole.current, turn
                if kept is not None:
                    story.turn_starts(store)[game_id] = kept
            await story.game_story(console.referee, game_id)  # the place of the current turn, for the next step
            return current

        steps = [["gm /gm turn end"], ['gm /gm dice values:"9"', "bob /economy military"], ["gm /gm turn end"],
                 ["gm /gm undo confirm:true"],  # the turn end after the remembered place: turn 3 again
                 ["gm /gm turn end"],
                 # back past the turn end that opened turn 3 (no story told meanwhile), then turn 4 again, told from
                 # the place remembered before that undo
                 ["gm /gm undo steps:4 confirm:true", "gm /gm turn end", "gm /gm turn end"],
                 ['gm /gm dice values:"8"', "alice /economy military", "gm /gm turn end"]]
        turns = [await check()]
        for lines in steps:
            await play(console, out, lines)
            turns.append(await check())
        assert turns == [2, 3, 3, 4, 3, 4, 4, 5]
        assert story.turn_starts(store)[game_id][2] == 5
    finally:
        await store.close()


async def test_the_remembered_turn_starts_are_each_databases_own(tmp_path):
    """Game 1 of one database is not game 1 of another: a place remembered in one never tells the other's story."""
    from service import story

    first, first_store, first_out = await console_of(tmp_path, "text")
    second, second_store, second_out = await console_of(tmp_path, "markdown")
    try:
        await play(first, first_out, [*NATIONS, "gm /gm turn end", "gm /gm turn end"])  # game 1 at turn 4
        await story.game_story(first.referee, 1)
        await play(second, second_out, NATIONS)  # game 1 at turn 2, a shorter log
        told = await story.game_story(second.referee, 1)
        story.turn_starts(second_store).clear()
        assert told.items == (await story.game_story(second.referee, 1)).items
        assert [item.action.command for item in told.items] == ["/gm turn end (continued)"]
        assert story.turn_starts(first_store)[1][2] == 4 and story.turn_starts(second_store)[1][2] == 2
    finally:
        await first_store.close()
        await second_store.close()
