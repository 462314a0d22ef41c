"""Issue 18: random legal and illegal God Dice commands, through the referee and the store, keep every invariant
of `engine.goddice.invariants` (the same list an import is checked against), and every export along the way
imports back into another channel as the same state.

Dice: a seeded roller, and now and then faces entered by the GM (`/gm dice`) to force doubles, God kills, a
favor or a miss. Steps are mostly the move the game waits for, by the player it waits for; one in four is
out of the blue (a wrong player, an unknown character, a move out of turn), and may be refused.
"""

from __future__ import annotations

import asyncio
import json
import random
import tempfile
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st
from storehelpers import RULES, FakeClock

from data.store import Store
from engine.dice import RandomRoller
from engine.errors import RefereeError
from engine.gm import QueueDice
from engine.goddice import actions
from engine.goddice.common import label, legal_attacks, rollable, waiting_for
from engine.goddice.invariants import broken
from engine.goddice.snapshot import state_to_dict
from engine.goddice.state import GoddiceState
from service.referee import Referee

GM = "gm"
PEOPLE = ("alice", "bob", "carol", "dave")
STRANGERS = ("mallory", GM)
CARDS = ("hero", "cleric", "monk", "bowman", "sage", "assassin")
OPTION_SETS = (None, "campaign", "resurrection", "free_for_all", "campaign resurrection",
               "resurrection free_for_all", "campaign resurrection free_for_all")
GOD = ("H", "C", "M", "B", "S", "A")
ATTACK = ("B", "R", "Y", "O", "5")


def labels(state: GoddiceState, name: str | None, living: bool = True) -> list[str]:
    player = state.player(name) if name else None
    if player is None:
        return []
    return [label(player, c, state.cards) for c in player.characters if c.alive or not living]


def step(data: Any, state: GoddiceState, seats: int, quiet: bool = False) -> tuple[str, Any]:
    """(actor, action) drawn against the state: mostly the move awaited (`seats` players join), sometimes
    anything (never, `quiet`: the move awaited, and no GM power)."""
    wild = not quiet and data.draw(st.integers(0, 5)) == 0
    waiting = waiting_for(state)
    actor = data.draw(st.sampled_from((*PEOPLE, *STRANGERS))) if wild or waiting is None else waiting
    phase, turn = state.phase, state.current

    def some(choices: list[str], junk: tuple[str, ...] = ("dragon", "#99", "")) -> str:
        return data.draw(st.sampled_from(choices + list(junk) if wild or not choices else choices))

    if not quiet and data.draw(st.integers(0, 4 if turn is not None else 11)) == 0:  # the GM's powers, at any time
        kind = data.draw(st.sampled_from(("kill", "kill", "life", "doubles", "dice", "cards")))
        living = [(p.name, name) for p in state.players for name in labels(state, p.name)]
        if kind == "kill" and living:
            who, which = data.draw(st.sampled_from(living))
            return GM, actions.SetLife(who, which, 0)
        if kind == "doubles":  # God dice doubles: a God kill, divine intervention, a reversal or a resurrection
            return GM, QueueDice([data.draw(st.sampled_from(GOD))] * 2)
        if kind in ("life", "kill"):
            who = data.draw(st.sampled_from([p.name for p in state.players] or ["alice"]))
            life = data.draw(st.sampled_from((0, 0, 0, 1, 30)) | st.integers(-5, 80))
            return GM, actions.SetLife(who, some(labels(state, who, living=False)), life)
        if kind == "dice":
            faces = data.draw(st.lists(st.sampled_from((*GOD, *ATTACK, "Q")), min_size=1, max_size=12))
            return GM, QueueDice(faces)
        return GM, actions.LoadCards({"dice": {}})
    if phase == "seating":
        if len(state.players) < seats and not wild:
            free = [p for p in PEOPLE if state.player(p) is None]
            return free[0] if free else "alice", actions.Join()
        return (GM, actions.Begin()) if not wild else (actor, data.draw(st.sampled_from(
            (actions.Join(), actions.Begin(), actions.Pick("hero")))))
    if phase == "choose":
        choices = ("attack", "select", "both") if wild else ("attack", "select")
        return actor, actions.ChooseFirst(data.draw(st.sampled_from(choices)))
    if phase == "draft":
        return actor, actions.Pick(some([t for t, n in state.pool.items() if n > 0]))
    assert turn is not None or phase == "over"
    if phase in ("declare", "retarget"):
        others = [p.name for p in state.in_game() if turn is not None and p.name != turn.player]
        target = data.draw(st.sampled_from(others)) if "free_for_all" in state.options and others else None
        if wild:
            target = data.draw(st.sampled_from((None, *PEOPLE)))
        attacker = some(labels(state, turn.player if turn else None)) if phase == "declare" or wild else None
        return actor, actions.Declare(attacker, target)
    if phase == "defend":
        return actor, actions.Defend(some(labels(state, turn.defender_player if turn else None)))
    if phase == "resurrect":
        return actor, actions.Resurrect(some(labels(state, turn.player if turn else None, living=False) + ["decline"]))
    if phase == "opening":
        return actor, actions.Roll(data.draw(st.sampled_from(("", *ATTACK))) if wild else None)
    if phase == "favor":
        return actor, actions.Favor(data.draw(st.sampled_from(("keep", "reroll") + (("maybe",) if wild else ()))))
    if phase == "rolling":
        legal = [a.attack.id for a in legal_attacks(state)]
        types = rollable(state)
        if types and (not legal or data.draw(st.booleans())) and not wild:
            return actor, actions.Roll(data.draw(st.sampled_from(types)))
        if wild:
            return actor, data.draw(st.sampled_from((actions.Roll("red"), actions.MakeAttack("smite"),
                                                     actions.MakeAttack("basic", targets="hero"))))
        targets = data.draw(st.sampled_from([None, *labels(state, turn.defender_player if turn else None)]))
        return actor, actions.MakeAttack(data.draw(st.sampled_from(legal)), targets=targets)
    return actor, actions.Roll()  # over: refused


def without_gm(export: dict[str, Any]) -> dict[str, Any]:
    """The export but for its GM (an import's GM is the importer)."""
    return {**export, "game": {k: v for k, v in export["game"].items() if k != "gm"}}


async def play(path: Path, seed: int, data: Any) -> None:
    store = await Store.open(path)
    try:
        clock = FakeClock()
        ref = Referee(store, RULES, RandomRoller(random.Random(seed)), clock)
        options = data.draw(st.sampled_from(OPTION_SETS), label="options")
        seats = data.draw(st.integers(3 if options and "free_for_all" in options else 2, 4), label="seats")
        game_id = (await ref.start_game("chan", GM, ruleset_name="goddice", options=options)).game_id
        turns, n = data.draw(st.integers(5, 35), label="steps after the draft"), 0
        while turns > 0:
            n += 1
            state = await store.load(game_id)
            if state.ended:
                break
            setup = state.phase in ("seating", "choose", "draft") and n < 60
            turns -= not setup
            roll = data.draw(st.integers(0, 29)) if not setup or data.draw(st.integers(0, 9)) == 0 else 29
            try:
                if roll == 0:
                    await ref.undo("chan", GM)
                elif roll == 1:
                    clock.advance(hours=data.draw(st.sampled_from((1, 13, 100))))
                    await ref.catch_up(game_id)
                else:
                    actor, action = step(data, state, seats, quiet=setup and roll == 29)
                    await ref.act("chan", actor, action, type(action).__name__)
            except RefereeError:
                pass
            state = await store.load(game_id)
            event(f"reached {state.phase}")
            assert broken(state) == [], (state.phase, broken(state))
            assert state_to_dict(state) == state_to_dict(await store.replayed(game_id))
            if not state.ended:
                export = await ref.export("chan")
                await ref.import_game(f"copy-{n}", "carol", json.loads(json.dumps(export)))
                assert without_gm(await ref.export(f"copy-{n}")) == without_gm(export)
    finally:
        await store.close()


@settings(max_examples=30, deadline=None, database=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(seed=st.integers(0, 2**32 - 1), data=st.data())
def test_random_god_dice_play_keeps_the_invariants_and_every_export_imports_back(seed, data):
    with tempfile.TemporaryDirectory() as folder:
        asyncio.run(play(Path(folder) / "g.db", seed, data))
