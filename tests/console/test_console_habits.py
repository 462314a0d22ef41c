"""Issue 34: console habits that leaked or lost a game — a `#` comment stored with its command, a `/game end` that
asked nothing, an ended game's export refused by /game import, and deadlines applied only when the next line came."""

from __future__ import annotations

import asyncio
import json
import sqlite3
from datetime import timedelta

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


# --- due things at their due times ------------------------------------------------------------------------------

BATTLE = ["gm /game start turn_hours:48", 'alice /nation claim preset:"Gracchan Republic"',
          "bob /nation claim preset:Charon", 'gm /gm dice values:"3 10"',
          'alice /attack declare target:Charon units:"1 5"']  # Charon has until 16:00 to commit (a third of 48 h)


async def clock_rows(store) -> list[tuple[str, str]]:
    """(when, what) of the clock's catch-ups in the log, in order."""
    rows = await store._fetchall("SELECT at, command FROM actions WHERE actor = 'clock' ORDER BY id")
    return [(row["at"], row["command"]) for row in rows]


async def test_what_fell_due_while_the_console_was_closed_applies_each_at_its_own_due_time(tmp_path):
    console, store, out = await console_on(tmp_path / "r.db")
    try:
        for line in BATTLE:
            await console.handle(line)
        said(out)
        console.referee.clock.advance(hours=30)  # closed meanwhile: the commit's deadline (16:00) long past
        await console.catch_up()  # what the console does when it starts
        shown = said(out)
        assert shown[1:3] == ["⌛ Time is up for Charon's commit in battle #1: its strongest free units #6, #7, #8.",
                              "🛡 #6, #7, #8 defend in battle #1 (committed by default)."]
        # the pairing's window opened when the commit's ran out (16:00), not when the console came back (06:00
        # the next day): 16 hours from then
        assert "⏳ Battle #1 waits for Charon to pair two units (/attack pair), until 2030-01-02 08:00 UTC." in shown
        assert shown[-1].startswith("⏰ Reminder: battle #1 still waits for bob (Charon) to pair two units")
        # each logged at its own due time: the commit's reminder (08:00), its default (16:00), the pairing's
        # reminder (midnight)
        assert [when for when, _ in await clock_rows(store)] == [
            "2030-01-01T08:00:00+00:00", "2030-01-01T16:00:00+00:00", "2030-01-02T00:00:00+00:00"]
        await console.handle("bob /attack status")
        assert "(until 2030-01-02 08:00 UTC)" in said(out)[0]  # nothing more fell due with the line
    finally:
        await store.close()


async def test_the_timer_applies_a_deadline_at_its_time_while_nobody_types(tmp_path, monkeypatch):
    import console.app as app

    monkeypatch.setattr(app, "MAX_NAP", 10 ** 7)  # (the real timer looks again every minute)
    console, store, out = await console_on(tmp_path / "r.db")
    clock = console.referee.clock
    naps: list[float] = []
    printed: list[list[str]] = []
    idle = asyncio.Event()

    async def pause(seconds: float) -> None:  # sleeps on the test's clock: no real time passes
        printed.append(said(out))
        naps.append(seconds)
        if len(naps) == 3:
            idle.set()
            await asyncio.Future()  # (until stopped)
        clock.advance(seconds=seconds)

    try:
        for line in BATTLE[:-1]:
            await console.handle(line)
        start = clock()
        said(out)
        await console.handle(BATTLE[-1])
        timer = asyncio.create_task(console.watch(pause))
        await idle.wait()
        await console.stop(timer)
        # asleep until the commit's reminder (8 h), then until its deadline (8 h more), each printed then;
        assert naps == [8 * 3600, 8 * 3600, 8 * 3600]  # then until the pairing's reminder
        assert printed[1] == [("⏰ Reminder: battle #1 still waits for bob (Charon) to commit 1-3 units (/attack "
                               "commit); the default applies 2030-01-01 16:00 UTC.")]
        assert printed[2][0] == ("⌛ Time is up for Charon's commit in battle #1: its strongest free units #6, #7, "
                                 "#8.")
        assert printed[2][-1] == ("⏳ Battle #1 waits for Charon to pair two units (/attack pair), until 2030-01-02 "
                                  "08:00 UTC.")
        assert clock() - start == timedelta(hours=16)
        assert [when for when, _ in await clock_rows(store)] == ["2030-01-01T08:00:00+00:00",
                                                                 "2030-01-01T16:00:00+00:00"]
    finally:
        await store.close()


async def test_at_a_prompt_what_the_timer_prints_comes_below_it_and_the_prompt_again_after(tmp_path, monkeypatch):
    import console.app as app

    monkeypatch.setattr(app, "MAX_NAP", 10 ** 7)
    console, store, out = await console_on(tmp_path / "r.db")
    clock = console.referee.clock
    rounds = asyncio.Event()

    naps: list[float] = []

    async def pause(seconds: float) -> None:
        naps.append(seconds)
        if len(naps) == 2:  # a round done
            rounds.set()
            await asyncio.Future()  # (until stopped)
        clock.advance(seconds=seconds)

    try:
        await console.handle("gm /game start turn_hours:1")
        said(out)
        console.prompt = "> "
        out.write("> ")  # the prompt the terminal shows
        timer = asyncio.create_task(console.watch(pause))
        await rounds.wait()
        await console.stop(timer)
        assert out.getvalue() == "> \n⏰ Turn 1 is over (time is up). Turn 2 begins and ends 2030-01-01 02:00 UTC.\n> "
    finally:
        await store.close()
