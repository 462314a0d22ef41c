"""Co-GMs and handovers (issue 34) in the console, for every rule set: a co-GM holds the GM's powers, only the GM
(not a co-GM) changes who holds them, a co-GM may step down, a handover leaves the old GM a co-GM; each is a GM act
in /log gm, undone like any other; exports carry the co-GMs, an old snapshot without them loads, an import clears
them; /server gmrole is refused here (no servers)."""

from __future__ import annotations

import pytest
from storehelpers import assert_snapshot_is_replay, console_on, said

from engine.commands import SERVER_ON_DISCORD
from engine.game import MAX_COGMS
from engine.rulesets import RULESETS

RULE_SETS = sorted(RULESETS)


@pytest.mark.parametrize("name", RULE_SETS)
async def test_cogms_add_remove_hand_over_and_undo(tmp_path, name):
    console, store, out = await console_on(tmp_path / "c.db")
    referee = console.referee
    try:
        await console.handle(f"gm /game start ruleset:{name}")
        game_id = await store.live_game("console")
        said(out)
        await console.handle("alice /gm cogm add player:bob")  # a stranger
        assert said(out) == ["error: only the GM may add co-GMs"] and (await store.load(game_id)).cogms == []
        await console.handle("gm /gm cogm add player:alice")
        assert said(out) == ["alice is a co-GM of this game now: the GM's powers here (made so by gm)."]
        state = await store.load(game_id)
        assert state.cogms == ["alice"] and referee.is_gm(state, "ALICE") and not referee.is_gm(state, "bob")
        await console.handle("alice /gm cogm add player:bob")
        assert said(out) == ["error: only the game's GM may add co-GMs (a co-GM may not)"]
        await console.handle("gm /gm cogm add player:Alice")
        assert said(out) == ["error: Alice is a co-GM already"]
        await console.handle("alice /gm handover player:bob")
        assert said(out) == ["error: only the game's GM may hand the game over (a co-GM may not)"]

        await console.handle("gm /gm handover player:carol")
        assert said(out) == ["carol is the game's GM now (handed over by gm); gm stays a co-GM."]
        state = await store.load(game_id)
        assert (state.gm, state.cogms) == ("carol", ["alice", "gm"])
        await console.handle("gm /gm cogm remove player:alice")
        assert said(out) == ["error: only the game's GM may remove co-GMs (a co-GM may not)"]
        await console.handle("alice /gm cogm remove player:alice")  # a co-GM steps down
        assert said(out) == ["alice stepped down: no longer a co-GM of this game."]
        await console.handle("alice /gm cogm add player:dave")  # no longer a GM at all
        assert said(out) == ["error: only the GM may add co-GMs"]

        await console.handle("carol /log gm")
        logged = said(out)
        assert [line.split(" — ", 1)[1] for line in logged if " — " in line and line[:4].isdigit()] == [
            "gm: /gm cogm add player:alice", "gm: /gm handover player:carol", "alice: /gm cogm remove player:alice"]

        await console.handle("carol /gm undo steps:2 confirm:true")  # the step-down and the handover taken back
        said(out)
        state = await store.load(game_id)
        assert (state.gm, state.cogms) == ("gm", ["alice"])
        await assert_snapshot_is_replay(store, game_id)
    finally:
        await store.close()


async def test_cogms_are_bounded_and_the_gm_is_not_one(tmp_path):
    console, store, out = await console_on(tmp_path / "b.db")
    try:
        await console.handle("gm /game start")
        for n in range(MAX_COGMS):
            await console.handle(f"gm /gm cogm add player:p{n}")
        said(out)
        await console.handle("gm /gm cogm add player:one_more")
        assert said(out) == [f"error: a game has at most {MAX_COGMS} co-GMs: remove one first (/gm cogm remove)"]
        await console.handle("gm /gm handover player:one_more")  # the old GM would be an eleventh
        assert said(out)[0].startswith(f"error: a game has at most {MAX_COGMS} co-GMs")
        await console.handle("gm /gm cogm add player:GM")
        assert said(out) == ["error: GM is the game's GM already"]
        await console.handle("gm /gm cogm remove player:zed")
        assert said(out)[0].startswith("error: zed is not a co-GM of this game (co-GMs: p0, p1")
        await console.handle("gm /gm handover player:p3")  # a co-GM becomes the GM: no longer a co-GM, gm is one
        said(out)
        state = await store.load(await store.live_game("console"))
        assert state.gm == "p3" and "p3" not in state.cogms and "gm" in state.cogms and len(state.cogms) == MAX_COGMS
        await console.handle("p3 /game status")
        assert "; GM: p3; co-GMs: p0, p1, p2, p4" in said(out)[0]
    finally:
        await store.close()


@pytest.mark.parametrize("name", RULE_SETS)
async def test_exports_carry_cogms_and_old_snapshots_load(tmp_path, name):
    from engine.rulesets import ruleset

    console, store, out = await console_on(tmp_path / "e.db")
    try:
        await console.handle(f"gm /game start ruleset:{name}")
        await console.handle("gm /gm cogm add player:alice")
        state = await store.load(await store.live_game("console"))
        exported = ruleset(name).state_to_dict(state)
        assert exported["game"]["cogms"] == ["alice"]
        old = {**exported, "game": {k: v for k, v in exported["game"].items() if k != "cogms"}}
        assert ruleset(name).state_from_dict(old).cogms == []  # a snapshot of before co-GMs
        assert ruleset(name).state_from_dict(exported).cogms == ["alice"]
    finally:
        await store.close()


async def test_an_import_clears_the_cogms(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    console, store, out = await console_on(tmp_path / "i.db")
    try:
        await console.handle("gm /game start")
        await console.handle("gm /gm cogm add player:alice")
        await console.handle("gm /gm export file:g.json")
        await console.handle("gm /game end confirm:true")
        said(out)
        await console.handle("bob /game import file:g.json")
        said(out)
        state = await store.load(await store.live_game("console"))
        assert (state.gm, state.cogms) == ("bob", [])
    finally:
        await store.close()


async def test_server_gmrole_is_refused_in_the_console(tmp_path):
    console, store, out = await console_on(tmp_path / "s.db")
    try:
        await console.handle("gm /server gmrole")
        assert said(out) == [f"error: {SERVER_ON_DISCORD}"]
    finally:
        await store.close()
