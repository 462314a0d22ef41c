"""/godsfire map show in the console: the board's picture written as a PNG file (its `file_name`, or `file:`), like
a chart; a game without a map is refused in one line and writes nothing."""

from __future__ import annotations

import io

from matplotlib import image
from pagehelpers import GODSFIRE_ON_THE_MAP
from storehelpers import console_on, said

from console.app import CHANNEL
from engine.godsfire import maps
from service import charts, mappicture

ON_THE_MAP = GODSFIRE_ON_THE_MAP


async def test_the_map_is_written_as_a_png(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    console, store, out = await console_on(tmp_path / "referee.db")
    try:
        for line in ON_THE_MAP[:5]:
            await console.handle(line)
        said(out)
        await console.handle("alice /godsfire map show")
        [refused] = said(out)
        assert refused.startswith("error: the game has no map (the GM loads one: /godsfire map load name:")
        assert not (tmp_path / "map.png").exists()

        for line in ON_THE_MAP[5:]:
            await console.handle(line)
        assert not [line for line in said(out) if line.startswith("error:")]
        await console.handle("alice /godsfire map show")
        assert said(out) == [f"Wrote the map “The Twin Reaches” to {tmp_path / 'map.png'}"]
        png = (tmp_path / "map.png").read_bytes()
        assert png.startswith(b"\x89PNG\r\n\x1a\n")
        height, width, _ = image.imread(io.BytesIO(png), format="png").shape
        state = await store.load(await console.referee.game_id(CHANNEL))
        shape = mappicture.layout(maps.picture(state))
        assert (width, height) == (shape.width, shape.height)

        await console.handle("bob /godsfire map show file:mine.png")
        assert said(out) == [f"Wrote the map “The Twin Reaches” to {tmp_path / 'mine.png'}"]
        await console.handle("bob /godsfire map show file:mine.png")
        assert said(out) == ["error: mine.png exists already: add overwrite:true to replace it"]
    finally:
        await store.close()
        charts.close_pool()


async def test_a_gms_own_map_file_is_loaded_and_hostile_ones_are_refused_in_one_line(tmp_path, monkeypatch):
    """`/godsfire map load file:` in the console: a file of the GM's (named cells), checked at the edge; a huge,
    deeply nested, self-touching or dangling file is refused in one line naming the fault, and nothing changes."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "ring.toml").write_text(
        'title = "Small Ring"\n'
        '[[cell]]\nname = "Hub"\ntouches = ["North", "South"]\nnebula = true\n'
        '[[cell]]\nname = "North"\ntouches = ["South"]\n'
        '[[cell]]\nname = "South"\n'
        '[[system]]\nname = "Lantern"\ncell = "North"\nplanets = 2\n', encoding="utf-8")
    hostile = {
        "huge.toml": "[grid]\ncolumns = 26\nrows = 30\nlevels = 4\n",
        "deep.toml": "x = " + "[" * 5000 + "]" * 5000 + "\n",
        "self.toml": '[[cell]]\nname = "A"\ntouches = ["A"]\n',
        "dangling.toml": '[[cell]]\nname = "A"\ntouches = ["Nowhere"]\n',
        "names.toml": '[[cell]]\nname = "Sol 2"\n',
    }
    for name, text in hostile.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    console, store, out = await console_on(tmp_path / "c.db")
    try:
        await console.handle("gm /game start ruleset:godsfire")
        said(out)
        for name in hostile:
            await console.handle(f"gm /godsfire map load file:{name}")
            refused = said(out)
            assert len(refused) == 1 and refused[0].startswith("error: "), (name, refused)
        await console.handle("gm /godsfire map show")  # nothing changed: still no map
        assert said(out)[0].startswith("error: the game has no map")
        await console.handle("gm /godsfire map load file:ring.toml")
        loaded = said(out)
        assert any("The GM loads the map 'Small Ring': 3 cells, 1 system, 1 in nebulae" in line for line in loaded)
        await console.handle('gm /gm dice values:"3 4 5 3"')
        said(out)
        await console.handle("gm /godsfire system add name:Lantern owner:alice")
        added = said(out)
        assert any("Lantern (alice's, 2 planets)" in line for line in added), added
    finally:
        await store.close()
