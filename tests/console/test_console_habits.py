"""Issue 34: console habits that leaked or lost a game — a `#` comment stored with its command, a `/game end` that
asked nothing, an ended game's export refused by /game import, and deadlines applied only when the next line came."""

from __future__ import annotations

import json
import sqlite3

from storehelpers import console_on, said

from console.lines import parse_line, strip_comment, typed_command

NOTE = "zqxnote"  # a word that appears only in the comments


def dumped(db) -> str:
    """Every row of the database as SQL text."""
    con = sqlite3.connect(db)
    try:
        return "\n".join(con.iterdump())
    finally:
        con.close()


async def test_a_comment_never_reaches_the_store(tmp_path):
    db = tmp_path / "r.db"
    console, store, out = await console_on(db)
    try:
        for line in (f"# {NOTE} the whole line is a note",
                     f"gm /game start  # {NOTE} started on the forum",
                     f"alice /nation claim preset:Charon #{NOTE}",
                     f'gm /gm house key:bonus_hours value:24 # {NOTE} as agreed',
                     f'gm /gm dice values:"9" # {NOTE}',
                     f"alice /propaganda encourage kind:morale   # {NOTE} she posted at 9pm",
                     f"   # {NOTE} indented"):
            await console.handle(line)
        assert not [line for line in said(out) if line.startswith("error")]
        for line in ("gm /log gm", "gm /log game", "gm /game digest since:1d", "gm /gm export", "gm /log rolls"):
            await console.handle(line + f"  # {NOTE}")
        shown = "\n".join(said(out))
        assert "/propaganda encourage kind:morale" in shown and "/gm house key:bonus_hours value:24" in shown
        assert "“/nation claim preset:Charon”" in shown or "/nation claim preset:Charon" in shown
        assert "#" not in json.dumps([line for line in shown.splitlines() if "/nation claim" in line])
        assert NOTE not in shown
    finally:
        await store.close()
    assert NOTE not in dumped(db)


def test_a_hash_inside_quotes_is_a_value_not_a_comment():
    line = 'gm /gm house key:bonus_hours value:"24 # kept" # dropped'
    kept = strip_comment(line)
    assert kept == 'gm /gm house key:bonus_hours value:"24 # kept"'
    actor, command, options = parse_line(kept)
    assert (actor, command.path, options["value"]) == ("gm", "gm house", "24 # kept")
    assert typed_command(kept, actor) == '/gm house key:bonus_hours value:"24 # kept"'
    assert strip_comment("  # only a note") == "" and parse_line(strip_comment("# a note")) is None


async def test_game_end_asks_for_confirm_true_and_changes_nothing_until_then(tmp_path):
    console, store, out = await console_on(tmp_path / "r.db")
    try:
        for line in ("gm /game start turn_hours:12", "alice /nation claim preset:Charon",
                     'bob /nation claim preset:"Gracchan Republic"'):
            await console.handle(line)
        said(out)
        game_id = await store.live_game("console")
        await console.handle("gm /game end")
        assert said(out) == [
            ("This would end the Nations game (turn 1, 2 nations; GM: gm): it could not be played on here (its GM "
            "could bring it back with /gm export, then /game import). Nothing has ended yet: /game end "
            "confirm:true ends it.")]
        await console.handle("alice /game end")
        assert said(out) == ["error: only the GM may end the game"]
        await console.handle("alice /game end confirm:true")
        assert said(out) == ["error: only the GM may end the game"]
        assert await store.live_game("console") == game_id  # still running
        await console.handle("gm /game end confirm:true")
        assert said(out)[0].startswith("🏁 The game is over")
        assert await store.live_game("console") is None
    finally:
        await store.close()


async def test_an_ended_games_export_imports_live_again_where_it_stood(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    console, store, out = await console_on(tmp_path / "r.db")
    try:
        for line in ("gm /game start turn_hours:12", "alice /nation claim preset:Charon",
                     'bob /nation claim preset:"Gracchan Republic"', 'gm /gm dice values:"9"', "alice /economy grow"):
            await console.handle(line)
        before = await store.load(await store.live_game("console"))
        await console.handle("gm /game end confirm:true")
        said(out)
        await console.handle("gm /gm undo")
        assert said(out)[0].startswith("error: ")  # an undo cannot take an end back: there is no game
        await console.handle("gm /gm export file:ended.json")
        assert said(out) == ["Game exported to ended.json."]
        await console.handle("bob /game import file:ended.json")  # (whoever may start a game may import one)
        assert said(out) == ["Nations game imported from ended.json: turn 1, 2 nations; GM: bob."]
        game_id = await store.live_game("console")
        state = await store.load(game_id)
        assert (state.ended, state.gm) == (False, "bob")
        assert (state.turn, state.turn_ends_at, state.nations) == (before.turn, before.turn_ends_at, before.nations)
        assert state.nations["Charon"].economy == 11  # 10, grown
        await console.handle("alice /nation show")
        assert not [line for line in said(out) if line.startswith("error")]
    finally:
        await store.close()
