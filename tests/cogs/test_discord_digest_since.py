"""/game digest since: on Discord (issue 18, finding 4): a time beyond the calendar's ends (year 0 or 10000 in
UTC) or before the game began is refused in one line to the one who asked, with no fault logged."""

from __future__ import annotations

import logging

from discordkit import START, table, texts


async def test_digest_since_outside_the_games_life_is_refused_in_one_line(tmp_path, caplog):
    caplog.set_level(logging.WARNING)
    async with table(tmp_path) as t, t.bot():
        await t.run(t.gm, "game start", turn_hours=12)
        t.clock.advance(hours=1)
        future = "since is in the future (9999-12-31T23:59-14:00): a digest lists what has happened"
        began = f"since is before this game began ({START:%Y-%m-%d %H:%M} UTC): a digest lists the game's own log"
        for since, refusal in [
            ("0001-01-01T00:00+14:00", began),
            ("9999-12-31T23:59-14:00", future),
            ("2020-01-01", began),
        ]:
            refused = await t.run(t.alice, "game digest", since=since)
            assert refused.ephemeral and texts(refused) == f"⛔ {refusal}", since
        assert [r for r in caplog.records if r.levelno >= logging.ERROR] == []
        shown = await t.run(t.alice, "game digest", since=f"{START:%Y-%m-%dT%H:%M}")
        assert "Digest since" in texts(shown.message)
