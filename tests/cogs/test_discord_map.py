"""/godsfire map show on Discord: the real bot against the fake Discord. The board's picture is posted for the
channel as a PNG attachment named by its `file_name`, its players by their names in the server (never their ids);
acknowledged before the board is read; a game without a map is refused in one ephemeral line (the acknowledgement
taken back) and posts nothing."""

from __future__ import annotations

import io

from discordkit import said_alone, settle, table, texts
from matplotlib import image

from cogs import charts as discord_charts
from engine.mapspec import MapPicture
from service import charts, mappicture


async def test_the_map_is_posted_as_a_png_with_the_players_names(tmp_path, monkeypatch):
    drawn: list[MapPicture] = []
    render = charts.render

    async def spy(picture, *args, **kwargs):
        drawn.append(picture)
        return await render(picture, *args, **kwargs)

    monkeypatch.setattr(discord_charts.charts, "render", spy)
    async with table(tmp_path) as t, t.bot():
        await t.run(t.gm, "game start", ruleset="godsfire")
        await t.run(t.gm, "gm dice", values="3 4 5 3 1 1 6 6", purpose="any")
        await t.run(t.gm, "godsfire system add", name="Aster", owner=t.alice, planets=2, regions=2)
        await t.run(t.gm, "gm dice", values="3 4 5 3 1 1 6 6", purpose="any")
        await t.run(t.gm, "godsfire system add", name="Brand", owner=t.bob, planets=2, regions=2)

        refused = await t.run(t.alice, "godsfire map show")
        assert texts(said_alone(refused)).startswith("⛔ the game has no map")
        assert not drawn

        loaded = await t.run(t.gm, "godsfire map load", name="twin-reaches")
        assert "The Twin Reaches" in texts(loaded)
        await t.run(t.gm, "godsfire counter add", kind="SQD", at="Aster", owner=str(t.alice.id), count=2)
        shown = await t.run(t.bob, "godsfire map show")
        posted = await shown.wait_for_final_message()
        assert not shown.ephemeral and posted.content == "🗺️ The Twin Reaches"
        [attachment] = posted.attachments
        assert attachment.filename == "map.png" and attachment.data.startswith(b"\x89PNG\r\n\x1a\n")
        [picture] = drawn
        height, width, _ = image.imread(io.BytesIO(attachment.data), format="png").shape
        shape = mappicture.layout(picture)
        assert (width, height) == (shape.width, shape.height)
        assert [side for side, _ in picture.legend] == ["alice", "bob"]  # their names here, not their ids
        assert [(s.at, s.side, s.text) for s in picture.stacks] == [("Aster", "alice", "1 NG, 2 SQD"),
                                                                    ("Brand", "bob", "1 NG")]
        assert "2 planets · alice" in [s.note for s in picture.spots]
    charts.close_pool()


async def test_each_go_of_the_movement_phase_on_a_map_comes_with_the_picture(tmp_path):
    """The Movement Phase's prompts: when initiative hands a go to a player (or a new round) on a map, the picture
    of the table follows the prompt; a command that hands no new go posts none, and a game without a map none."""
    async with table(tmp_path) as t, t.bot():
        await t.run(t.gm, "game start", ruleset="godsfire")
        await t.run(t.gm, "godsfire map load", name="twin-reaches")
        await t.run(t.gm, "gm dice", values="3 4 5 3 1 1 6 6", purpose="any")
        await t.run(t.gm, "godsfire system add", name="Aster", owner=t.alice)
        await t.run(t.gm, "godsfire system add", name="Brand", owner=t.bob)
        await t.run(t.gm, "godsfire counter add", kind="SQD", at="Aster", owner=str(t.alice.id), count=2)

        def pictures() -> list:
            return [m for m in t.messages() if m.attachments and m.attachments[0].filename == "map.png"]

        await t.run(t.gm, "gm dice", values="6 1", purpose="any")
        started = await t.run(t.gm, "godsfire phase next")  # alice holds initiative: her go, with the map
        await started.wait_for_final_message()
        await settle(t.fake)  # (however long the first picture takes: it starts the chart worker)
        [first] = pictures()
        assert first.content == "🗺️ The Twin Reaches" and first.attachments[0].data.startswith(b"\x89PNG")
        await t.run(t.alice, "godsfire counters")  # a query: no new go, no picture
        moved = await t.run(t.alice, "godsfire movement move", counters="3 4", to="C3")
        await moved.wait_for_final_message()
        await settle(t.fake)
        assert len(pictures()) == 1  # the same go goes on
        await t.run(t.alice, "godsfire movement done")  # bob's go to respond: the map again, with the move
        await settle(t.fake)
        assert len(pictures()) == 2
    charts.close_pool()


async def test_a_gm_loads_a_map_file_as_an_attachment_and_a_bad_one_is_refused_to_them_alone(tmp_path):
    from fakediscord import FakeAttachment

    async with table(tmp_path) as t, t.bot() as rb:
        await t.run(t.gm, "game start", ruleset="godsfire")
        bad = await t.run(t.gm, "godsfire map load", file=FakeAttachment("loop.toml", b'[[cell]]\nname = "A"\n'
                                                                                      b'touches = ["A"]\n'))
        answer = await bad.wait_for_final_message() if bad.deferred else bad.message
        assert answer.ephemeral and texts(answer) == "⛔ that map cannot be used: cell A touches itself"
        player = await t.run(t.alice, "godsfire map load", file=FakeAttachment("ring.toml", b"x = 1\n"))
        answer = await player.wait_for_final_message() if player.deferred else player.message
        assert answer.ephemeral and "only the GM" in texts(answer)
        assert (await t.state(rb)).board is None  # nothing changed
        ring = b'title = "Ring"\n[[cell]]\nname = "North"\ntouches = ["South"]\n[[cell]]\nname = "South"\n'
        loaded = await t.run(t.gm, "godsfire map load", file=FakeAttachment("ring.toml", ring))
        await loaded.wait_for_final_message()
        board = (await t.state(rb)).board
        assert board is not None and board.title == "Ring" and [c.name for c in board.cells] == ["North", "South"]
        said = [e.get("description") for m in t.messages() for e in m.embeds]  # for the channel to see
        assert "▸ The GM loads the map 'Ring': 2 cells, 0 systems, 0 in nebulae." in said
