"""Issue 19: the stat history (kept at every action, undone with it, carried by export and import, built for an
old database by its migration) and the charts drawn from it (`/game chart`, `/nation chart`)."""

from __future__ import annotations

import io
import json
import sqlite3
from datetime import UTC, datetime

import pytest
from matplotlib import image
from storehelpers import T0, assert_history_is_state, console_on, said, undo_compact_snapshots

from console.app import CHANNEL
from data.store import Store, migration_files
from engine import chartspec
from engine.errors import BadInput
from engine.history import HistoryEntry, check_history, last_point, series_by_turn
from engine.nations import events as nev
from engine.nations.history import history_marks, nation_chart
from service import charts

GRACCHAN, CHARON = "Gracchan Republic", "Charon"


def by_turn(entries: list[HistoryEntry], side: str, stat: str, last_turn: int) -> list[tuple[int, float]]:
    """What a chart must plot, worked out plainly from the stored rows: each turn from the side's first, the
    value of the last change made up to that turn's end."""
    rows = [e for e in entries if e.side == side and e.stat == stat and e.mark is None]
    shown = []
    for turn in range(rows[0].turn, last_turn + 1):
        shown.append((turn, float([e.value for e in rows if e.turn <= turn][-1])))
    return shown


async def play_nations(tmp_path):
    console, store, out = await console_on(tmp_path / "referee.db")
    for line in ["gm /game start", "gm /nation claim 1 alice", "gm /nation claim 7 bob",
                 "gm /gm set nation:1 stat:land value:+3", "gm /gm turn end",
                 "gm /gm set nation:7 stat:economy value:-2", "gm /gm turn end",
                 "gm /gm set nation:1 stat:land value:-1"]:
        await console.handle(line)
    said(out)
    return console, store, out


async def test_the_history_keeps_every_change_by_turn_and_an_undo_takes_its_own_back(tmp_path):
    console, store, out = await play_nations(tmp_path)
    game_id = await console.referee.game_id(CHANNEL)
    history = await store.history(game_id)
    # claimed in turn 1 at the seed's stats (Gracchan E 12 S 10 M 8 P 10 L 20), then the GM's changes
    assert [(e.turn, e.side, e.stat, e.value) for e in history if e.side == GRACCHAN] == [
        (1, GRACCHAN, "land", 20), (1, GRACCHAN, "economy", 12), (1, GRACCHAN, "stability", 10),
        (1, GRACCHAN, "military", 8), (1, GRACCHAN, "propaganda", 10),
        (1, GRACCHAN, "land", 23), (3, GRACCHAN, "land", 22)]
    charon_economy = [(e.turn, e.value) for e in history if e.side == CHARON and e.stat == "economy"]
    assert charon_economy[1][0] == 2 and charon_economy[1][1] == charon_economy[0][1] - 2
    await assert_history_is_state(store, game_id)

    await console.handle("gm /gm undo confirm:true")  # the LAND -1 of turn 3 goes, and its history with it
    history = await store.history(game_id)
    assert [(e.turn, e.value) for e in history if e.side == GRACCHAN and e.stat == "land"] == [(1, 20), (1, 23)]
    assert series_by_turn(history, "land", 3, [GRACCHAN]) == {GRACCHAN: [(1, 23.0), (2, 23.0), (3, 23.0)]}
    await assert_history_is_state(store, game_id)
    await store.close()


async def test_export_and_import_carry_the_history(tmp_path):
    console, store, out = await play_nations(tmp_path)
    game_id = await console.referee.game_id(CHANNEL)
    exported = await console.referee.export(CHANNEL)
    assert exported["history"][0] == {"turn": 1, "at": T0.isoformat(), "side": GRACCHAN, "stat": "land", "value": 20}
    imported = await console.referee.import_game("elsewhere", "gm", json.loads(json.dumps(exported)))
    assert await store.history(imported.game_id) == await store.history(game_id)  # nothing added: it is all there
    await assert_history_is_state(store, imported.game_id)

    # an export without a history (an older one) starts its history at the import
    del exported["history"]
    again = await console.referee.import_game("third", "gm", exported)
    fresh = await store.history(again.game_id)
    assert {e.turn for e in fresh} == {3} and last_point(fresh) == last_point(await store.history(game_id))
    await store.close()


@pytest.mark.parametrize(("history", "refusal"), [
    ("lots", "history must be a list of entries"),
    ([{"turn": -1, "at": T0.isoformat(), "side": "Rome", "stat": "land", "value": 1}], "turn must be a whole number"),
    ([{"turn": 1, "at": "2999-01-01T00:00:00+00:00", "side": "Rome", "stat": "land", "value": 1}], "in the future"),
    ([{"turn": 1, "at": T0.isoformat(), "side": "", "stat": "land", "value": 1}], "side"),
    ([{"turn": 1, "at": T0.isoformat(), "side": "Rome", "stat": "land", "value": float("nan")}], "finite"),
    ([{"turn": 1, "at": T0.isoformat(), "side": "Rome", "stat": "land", "value": [1]}], "a number or a word"),
    ([{"turn": 1, "at": T0.isoformat(), "side": "Rome", "mark": "conquest", "value": 1}], "a mark has no"),
    ([{"turn": 1, "at": T0.isoformat(), "side": "Rome", "stat": "land", "value": 1, "x": 1}], "unknown field"),
])
def test_an_imported_history_is_checked_at_the_edge(history, refusal):
    with pytest.raises(BadInput, match=refusal):
        check_history(history, datetime(2031, 1, 1, tzinfo=UTC))


@pytest.mark.sqlite_only  # an old SQLite database's migrations
async def test_an_old_database_gets_its_history_from_its_log(tmp_path):
    """A database of schema 11 (before the history) migrates: each game's history is its log replayed, the
    undone actions left out."""
    db = tmp_path / "old.db"
    console, store, out = await console_on(db)
    for line in ["gm /game start", "gm /nation claim 1 alice", "gm /gm set nation:1 stat:land value:+3",
                 "gm /gm turn end", "gm /gm set nation:1 stat:land value:+1", "gm /gm undo confirm:true"]:
        await console.handle(line)
    await store.close()
    with sqlite3.connect(db) as con:  # back to schema 11: no history table (nor what came after it)
        later = [number for number, _ in migration_files() if number > 11]
        assert later[0] == 12
        con.execute("DROP TABLE history")
        con.execute("DROP TABLE report_messages")
        con.execute("DROP TABLE announcements")
        undo_compact_snapshots(con)
        con.execute("PRAGMA user_version = 11")
    store = await Store.open(db)
    history = await store.history(1)
    assert [(e.turn, e.value) for e in history if e.side == GRACCHAN and e.stat == "land"] == [(1, 20), (1, 23)]
    await assert_history_is_state(store, 1)
    await store.close()


def test_a_nations_battle_and_conquest_are_marked():
    assert history_marks(nev.BattleEnded(3, "attacker won", "Rome", "Gaul")) == [("Rome", "battle won"),
                                                                                 ("Gaul", "battle lost")]
    assert history_marks(nev.StatChanged("Rome", "land", 5, "province conquered from Gaul")) == [("Rome", "conquest")]
    assert history_marks(nev.StatChanged("Gaul", "land", -5, "province lost to Rome")) == []
    assert history_marks(nev.BattleEnded(4, "cancelled", None, None)) == []


async def test_the_game_chart_is_a_png_of_the_stored_history(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    console, store, out = await play_nations(tmp_path)
    await console.handle("alice /game chart")
    [line] = said(out)
    assert line == f"Wrote the chart “Nations — LAND by turn (turn 3)” to {tmp_path / 'game-chart.png'}"
    picture = image.imread(io.BytesIO((tmp_path / "game-chart.png").read_bytes()), format="png")
    assert picture.shape[1] == 936 and 500 < picture.shape[0] < 700 and picture.shape[2] == 4

    # what is plotted is the stored history, turn by turn
    game_id = await console.referee.game_id(CHANNEL)
    history, state = await store.history(game_id), await store.load(game_id)
    figure = charts.draw(chartspec.game_chart(state, history, {}))
    lines = {line.get_gid(): line for line in figure.axes[0].get_lines()}
    for side in (GRACCHAN, CHARON):
        plotted = list(zip(lines[side].get_xdata(), lines[side].get_ydata(), strict=True))
        assert plotted == by_turn(history, side, "land", 3)
    assert lines[GRACCHAN].get_color() != lines[CHARON].get_color()

    await console.handle("alice /game chart")  # written already: not overwritten unless asked
    assert said(out) == ["error: game-chart.png exists already: add overwrite:true to replace it"]
    await store.close()


async def test_nation_chart_draws_one_nation_or_one_stat_and_refuses_what_never_existed(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    console, store, out = await play_nations(tmp_path)
    game_id = await console.referee.game_id(CHANNEL)
    history, state = await store.history(game_id), await store.load(game_id)

    one = nation_chart(state, history, {"nation": "gracchan"})  # a start of a name will do
    assert [p.title for p in one.panels] == ["LAND by turn", "ECONOMY by turn", "STABILITY by turn",
                                             "MILITARY by turn", "PROPAGANDA by turn"]
    assert all([s.side for s in p.series] == [GRACCHAN] for p in one.panels)
    economy = nation_chart(state, history, {"stat": "economy"})
    assert [s.side for s in economy.panels[0].series] == [GRACCHAN, CHARON]
    assert list(economy.panels[0].series[1].points) == by_turn(history, CHARON, "economy", 3)
    # a nation keeps its colour on every chart
    assert one.panels[0].series[0].colour == economy.panels[0].series[0].colour

    await console.handle("alice /nation chart nation:gracchan stat:land file:mine.png")
    assert said(out) == [f"Wrote the chart “{GRACCHAN} — LAND by turn (turn 3)” to {tmp_path / 'mine.png'}"]
    for line, refusal in [("alice /nation chart nation:Atlantis", "error: no nation called 'Atlantis' in this game"),
                          ("alice /nation chart stat:luck", "error: stat is one of land, economy"),
                          ("alice /nation chart file:../../elsewhere.png", "error: cannot write ../../elsewhere.png")]:
        await console.handle(line)
        [answer] = said(out)
        assert answer.startswith(refusal), answer
    await store.close()


async def test_a_chart_of_a_game_with_no_history_yet_is_refused(tmp_path):
    console, store, out = await console_on(tmp_path / "referee.db")
    await console.handle("gm /game start")
    said(out)
    await console.handle("gm /game chart")
    assert said(out) == ["error: nothing to chart yet: the game has no land so far"]
    await store.close()


async def test_render_draws_in_the_worker_and_the_picture_decodes(tmp_path):
    entries = [HistoryEntry(turn, T0, side, "land", value)
               for turn in range(1, 501) for side, value in (("Rome", 20 + turn % 7), ("Gaul", 30 - turn % 5))]
    entries.append(HistoryEntry(250, T0, "Rome", "", None, "conquest"))

    class Game:
        ruleset, turn = "nations", 500

    drawn = chartspec.game_chart(Game(), entries, {})
    png = await charts.render(drawn)
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    assert image.imread(io.BytesIO(png), format="png").shape[:2] == (572, 936)
    figure = charts.draw(drawn)
    [mark] = [line for line in figure.axes[0].get_lines() if line.get_gid() == "mark:conquest:Rome"]
    assert (list(mark.get_xdata()), list(mark.get_ydata())) == ([250], [20 + 250 % 7])
    charts.close_pool()



def test_a_chart_of_one_turn_has_whole_turns_on_its_axis():
    """A game in its first turn: the axis shows turns 0 to 2, not 0.95 1.00 1.05 (the game's page draws it too)."""
    one = chartspec.Chart("Godsfire — money by turn (turn 1)", (
        chartspec.Panel("money by turn", (chartspec.Series("alice", "#5865F2", ((1, 8.0),)),
                                          chartspec.Series("bob", "#EB459E", ((1, 9.0),)))),))
    axes = charts.draw(one).axes[0]
    assert axes.get_xlim() == (0.0, 2.0)
    assert all(float(tick).is_integer() for tick in axes.get_xticks())
