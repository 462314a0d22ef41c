"""The console's undo (issue 19): no buttons here, so `/gm undo [steps:N]` prints the preview — each command, its
rolls, every change it made — and changes nothing; the same command with `confirm:true` takes them back."""

from __future__ import annotations

from storehelpers import assert_snapshot_is_replay, console_on, log_counts, said

from engine.nations.snapshot import state_to_dict

START = ("gm /game start", 'gm /nation claim preset:"Gracchan Republic" player:alice', "gm /nation claim Charon bob")


async def test_console_undo_previews_then_undoes_with_confirm(tmp_path):
    console, store, out = await console_on(tmp_path / "u.db")
    try:
        for line in START:
            await console.handle(line)
        game_id = await store.live_game("console")
        before = state_to_dict(await store.load(game_id))
        for line in ('gm /gm dice values:"9 10"', "alice /economy military",
                     'bob /propaganda attack "gracchan republic"'):
            await console.handle(line)
        said(out)
        after, counts = state_to_dict(await store.load(game_id)), await log_counts(store, game_id)

        await console.handle("gm /gm undo steps:3")
        assert said(out) == [
            "Undo the last 3 actions? It takes back, newest first, with their rolls and every change they made:",
            '1. bob: “/propaganda attack "gracchan republic"” (2030-01-01 00:00 UTC)',
            "    🎲 Charon, propaganda attack on Gracchan Republic: d10 10 (GM die) vs > 10: failure",
            "    Charon: PROPAGANDA -1 (failed propaganda attack).",
            "2. alice: “/economy military” (2030-01-01 00:00 UTC)",
            "    🎲 Gracchan Republic, grow military: d10 9 (GM die) + mod(E) +1 = 10 vs > 8: success",
            "    Gracchan Republic: MILITARY +1 (grow military).",
            "    Gracchan Republic: ECONOMY -1 (cost of growing military).",
            "3. gm: “/gm dice values:(2 dice entered)” (2030-01-01 00:00 UTC)",
            "    GM gm entered the next 2 dice.",
            "Nothing is undone yet: /gm undo steps:3 confirm:true undoes it.",
        ]
        assert state_to_dict(await store.load(game_id)) == after and await log_counts(store, game_id) == counts

        await console.handle("gm /gm undo steps:3 confirm:true")
        assert said(out) == [
            '↩ GM gm undid bob\'s “/propaganda attack "gracchan republic"” and all its rolls.',
            "↩ GM gm undid alice's “/economy military” and all its rolls.",
            "↩ GM gm undid gm's “/gm dice values:(2 dice entered)” and all its rolls.",
        ]
        assert state_to_dict(await store.load(game_id)) == before
        await assert_snapshot_is_replay(store, game_id)
    finally:
        await store.close()


async def test_console_undo_refusals_in_one_line(tmp_path):
    console, store, out = await console_on(tmp_path / "r.db")
    try:
        for line in START:
            await console.handle(line)
        said(out)
        game_id = await store.live_game("console")
        counts = await log_counts(store, game_id)
        for line, error in [
            ("gm /gm undo steps:3", "only 2 actions can be undone, not 3"),
            ("gm /gm undo steps:3 confirm:true", "only 2 actions can be undone, not 3"),
            ("gm /gm undo steps:0", "steps is how many of the last actions to undo: 1 to 20, not 0"),
            ("gm /gm undo steps:21 confirm:true", "steps is how many of the last actions to undo: 1 to 20, not 21"),
            ("gm /gm undo confirm:maybe", "confirm must be true or false, not 'maybe'"),
            ("alice /gm undo", "only the GM may undo"),
        ]:
            await console.handle(line)
            assert said(out) == [f"error: {error}"], line
        assert await log_counts(store, game_id) == counts
    finally:
        await store.close()
