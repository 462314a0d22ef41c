"""/game chart and /nation chart on Discord: the real bot against the fake Discord. The chart is posted for the
channel as a PNG attachment drawn from the stored history, acknowledged before the history is loaded; a refusal
then takes the acknowledgement back, is one ephemeral line and posts nothing."""

from __future__ import annotations

import io

from discordkit import said_alone, start_war, table, texts
from matplotlib import image

from service import charts

NO_GAME = "⛔ there is no game in this channel: start one with /game start"


def picture(message) -> tuple[str, tuple[int, ...]]:
    [attachment] = message.attachments
    return attachment.filename, image.imread(io.BytesIO(attachment.data), format="png").shape


async def test_charts_are_posted_as_pictures_and_bad_options_are_refused(tmp_path):
    async with table(tmp_path) as t:
        async with t.bot() as rb:
            refused = await t.run(t.bob, "game chart")
            assert texts(said_alone(refused)) == NO_GAME
            await start_war(t)
            state = await t.state(rb)
            nations = list(state.nations)

            game = await t.run(t.bob, "game chart")
            posted = await game.wait_for_final_message()
            assert not game.ephemeral
            assert posted.content == "📈 Nations — LAND by turn (turn 1)"
            name, shape = picture(posted)
            assert name == "game-chart.png" and shape[1] == 936 and shape[2] == 4

            one = await t.run(t.alice, "nation chart", nation=nations[0])
            posted = await one.wait_for_final_message()
            assert posted.content == f"📈 {nations[0]} — stats by turn (turn 1)"
            name, shape = picture(posted)
            assert shape[0] > 1000  # five panels, one a stat

            stat = await t.run(t.alice, "nation chart", stat="economy")
            assert (await stat.wait_for_final_message()).content == "📈 every nation — ECONOMY by turn (turn 1)"

            never = await t.run(t.alice, "nation chart", nation="Atlantis")
            assert texts(said_alone(never)).startswith("⛔ no nation called 'Atlantis' in this game")
    charts.close_pool()
