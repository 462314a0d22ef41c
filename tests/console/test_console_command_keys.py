"""Issue 33 in the console: each line's idempotency key is its id (the session's, and the line's number), so a
commit whose connection is cut after the database committed is answered with what the line did, and the line run
again answers the same without applying twice."""

from __future__ import annotations

from commitcut import cut_commits
from storehelpers import console_on, said

from console.lines import parse_line, typed_command

LINES = ["gm /game start turn_hours:12", 'alice /nation claim preset:"Gracchan Republic"',
         "bob /nation claim preset:Charon"]
RAISE = "gm /gm set nation:Charon stat:land value:+1"


async def test_a_lines_id_is_its_key_and_a_cut_commit_says_what_was_saved(tmp_path, monkeypatch):
    console, store, out = await console_on(tmp_path / "referee.db")
    try:
        for line in LINES:
            await console.handle(line)
        said(out)
        cut_commits(monkeypatch, landed=True)
        await console.handle(RAISE)  # line 4
        monkeypatch.undo()
        answered = said(out)
        assert answered and not any(line.startswith("error:") for line in answered), answered
        game_id = await store.live_game("console")
        [last] = await store.actions(game_id, limit=1)
        rows = await store._fetchall("SELECT key, action_id FROM command_keys")
        assert (console.line_key(4), last.id) in [tuple(row) for row in rows]
        assert console.line_key(4) != console.line_key(5) and console.line_key(4).startswith("console:")
        # the line run again, as the same line (its key): the same answer, applied once
        await console.run(*parse_line(RAISE), command_text=typed_command(RAISE, "gm"), key=console.line_key(4))
        assert said(out) == answered
        assert (await store.load(game_id)).nations["Charon"].land == 21
        await console.handle(RAISE)  # a new line: a new key, applied
        assert (await store.load(game_id)).nations["Charon"].land == 22
    finally:
        await store.close()


async def test_a_cut_before_the_commit_landed_says_nothing_changed(tmp_path, monkeypatch):
    console, store, out = await console_on(tmp_path / "referee.db")
    try:
        for line in LINES:
            await console.handle(line)
        said(out)
        cut_commits(monkeypatch, landed=False)
        await console.handle(RAISE)
        monkeypatch.undo()
        [refused] = said(out)
        assert refused.startswith("error: the referee cannot save right now (") and "nothing changed" in refused
        assert (await store.load(await store.live_game("console"))).nations["Charon"].land == 20
    finally:
        await store.close()
