"""Issue 19: the console's /log rolls (filters, pages, refusals) and /log export (the file's path, its CSV)."""

import csv

from storehelpers import run_console


def test_log_rolls_and_export(tmp_path):
    db = str(tmp_path / "referee.db")
    target = tmp_path / "roll-ledger.csv"
    done = run_console(db, ["gm /game start", "alice /roll 1d6", "alice /roll 1d6", "alice /roll 1d6",
                             "alice /log rolls free:only limit:2", "alice /log rolls purpose:nothing",
                             "alice /log rolls free:only limit:2 page:5", "alice /log rolls turn_to:7",
                             f"alice /log export format:csv file:{target}"],
                       env={"REFEREE_EXPORT_DIR": str(tmp_path)})
    text = done.stdout
    assert "page 1 of 2 (3 rolls, newest first)" in text
    assert "No rolls match those filters." in text
    assert "page 5 is past the end: there are 2 pages of 3 rolls" in text
    assert "turn 7 does not exist: this game's turns are 1 to 1" in text
    assert f"Wrote the roll ledger (3 rolls) to {target}" in text
    with target.open(encoding="utf-8-sig") as handle:
        rows = list(csv.DictReader(handle))
    assert [r["roll"] for r in rows] == ["1", "2", "3"] and rows[0]["purpose"] == "free roll 1d6"


async def test_a_ledger_export_to_a_name_too_long_is_refused_in_one_line(tmp_path, monkeypatch):
    from storehelpers import console_on, said

    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("REFEREE_EXPORT_DIR", raising=False)
    console, store, out = await console_on(tmp_path / "r.db")
    try:
        await console.handle("gm /game start ruleset:godsfire")
        said(out)
        await console.handle("alice /log export format:csv file:" + "x" * 300)
        [line] = said(out)
        assert line.startswith("error: cannot write xxx") and "File name too long" in line
        assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".export-")] == []
    finally:
        await store.close()


async def test_a_ledger_export_is_written_as_every_export_is(tmp_path, monkeypatch):
    """Streamed a chunk at a time, the ledger is still written as a whole file or not at all: an existing file
    is kept without overwrite:true, replaced with it, and no temporary file is left."""
    from storehelpers import console_on, said

    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("REFEREE_EXPORT_DIR", raising=False)
    (tmp_path / "ledger.json").write_text("mine")
    console, store, out = await console_on(tmp_path / "r.db")
    try:
        await console.handle("gm /game start")
        said(out)
        await console.handle("alice /log export format:json file:ledger.json")
        assert said(out) == ["error: ledger.json exists already: add overwrite:true to replace it"]
        assert (tmp_path / "ledger.json").read_text() == "mine"
        await console.handle("alice /log export format:json file:ledger.json overwrite:true")
        assert said(out)[0].startswith("Wrote the roll ledger (0 rolls) to ")
        assert (tmp_path / "ledger.json").read_text() != "mine"
        assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".export-")] == []
    finally:
        await store.close()
