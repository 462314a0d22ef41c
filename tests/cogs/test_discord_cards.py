"""/gm cards on Discord (issue 18, finding 3): hostile card files — a 300-deep table, a 20,000-deep array, 6,000
extra keys, 10 levels of nesting — each refused to the GM alone in one line, nothing logged as a fault and the
game's cards unchanged; a card file at every limit taken."""

from __future__ import annotations

import logging
import tomllib

from cardfiles import HOSTILE, SHIPPED_RAW, at_the_limits
from discordkit import table, texts
from fakediscord import FakeAttachment


async def test_hostile_card_files_are_refused_to_the_gm_in_one_line_and_a_file_at_the_limits_is_taken(
        tmp_path, caplog):
    caplog.set_level(logging.WARNING)
    async with table(tmp_path) as t, t.bot() as rb:
        await t.run(t.gm, "game start", ruleset="goddice")
        await t.run(t.alice, "goddice join")
        for name, (text, refusal) in HOSTILE.items():
            sent = await t.run(t.gm, "gm cards", file=FakeAttachment(name, text.encode()))
            answer = await sent.wait_for_final_message() if sent.deferred else sent.message
            expected = refusal.format(file=name)
            assert answer.ephemeral and texts(answer) == f"⛔ {expected}", name
        assert (await t.state(rb)).cards.raw == SHIPPED_RAW
        assert [r for r in caplog.records if r.levelno >= logging.ERROR] == []

        taken = await t.run(t.gm, "gm cards", file=FakeAttachment("limits.toml", at_the_limits().encode()))
        confirmed = await taken.wait_for_final_message()
        assert confirmed.ephemeral and confirmed.content == "limits.toml read.", texts(confirmed)
        assert (await t.state(rb)).cards.raw == tomllib.loads(at_the_limits())
