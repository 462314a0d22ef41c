"""/godsfire map show in the console: the board's picture written as a PNG file (its `file_name`, or `file:`), like
a chart; a game without a map is refused in one line and writes nothing."""

from __future__ import annotations

import io

from matplotlib import image
from storehelpers import console_on, said

from console.app import CHANNEL
from engine.godsfire import maps
from service import charts, mappicture

ON_THE_MAP = [
    "gm /game start ruleset:godsfire",
    'gm /gm dice values:"3 4 5 3 1 1 6 6"',
    "gm /godsfire system add name:Aster owner:alice planets:2 regions:2",
    'gm /gm dice values:"3 4 5 3 1 1 6 6"',
    "gm /godsfire system add name:Brand owner:bob planets:2 regions:2",
    "gm /godsfire map load name:twin-reaches",
    "gm /godsfire counter add kind:SQD at:Aster owner:alice count:2",
]


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
