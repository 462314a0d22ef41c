"""/log fairness on Discord: the real bot against the fake Discord. A few rolls are too few to say; a known
sequence of 100 d10s (imported as a ledger) gives exact counts and its p-value; GM-entered and free dice are
apart or left out."""

from __future__ import annotations

import json

from discordkit import start_war, table, texts
from fakediscord import FakeAttachment

NO_GAME = "⛔ there is no game in this channel: start one with /game start"
NOTE = ("Each face: rolled/fair share. Chi-square test against a fair die; unlikely below p = 0.01; a face expected "
        "fewer than 5 times: too few rolls to say.")


async def test_log_fairness_counts_the_dice_and_tests_a_known_sequence(tmp_path):
    async with table(tmp_path) as t:
        annex = t.fake.add_channel(t.guild, "annex")
        async with t.bot():
            # acknowledged at once (the first test loads scipy): a refusal then takes the acknowledgement away and is
            # said to the asker alone
            refused = await t.run(t.bob, "log fairness")
            [said] = refused.followups
            assert refused.message.deleted and said.ephemeral and texts(said) == NO_GAME
            await start_war(t)
            empty = await t.run(t.bob, "log fairness")
            assert empty.embed["title"] == "🎲 Are the dice fair?"
            assert empty.embed["description"] == "No rule dice rolled yet."

            await t.run(t.gm, "gm dice", values="8", purpose="any")  # entered by the GM: counted apart
            await t.run(t.alice, "propaganda encourage", kind="morale")
            t.dice.push(7)
            await t.run(t.bob, "propaganda encourage", kind="workers")
            t.dice.push(3)
            await t.run(t.alice, "roll", dice="1d10")  # a free roll: no rule roll, left out
            few = await t.run(t.bob, "log fairness")
            assert few.embed["description"].splitlines() == [
                "**d10: 1 rolled; 1 entered by the GM, counted apart — too few rolls to say**",
                ("1: 0/0.1, 2: 0/0.1, 3: 0/0.1, 4: 0/0.1, 5: 0/0.1, 6: 0/0.1, 7: 1/0.1, 8: 0/0.1 +1 GM, 9: 0/0.1, "
                "10: 0/0.1"),
                NOTE,
            ]
            assert t.dice.all_used()

            exported = await t.run(t.gm, "gm export")
            data = json.loads((await exported.wait_for_final_message()).attachments[0].data)
            # A known sequence: 100 d10s, 25 ones, 10 each of 2..7, 5 each of 8..10. Chi-square
            # (15² + 3 · 5²) / 10 = 30 on 9 degrees of freedom: p = 0.000439 (scipy.stats.chi2.sf(30, 9)).
            counts = [25, 10, 10, 10, 10, 10, 10, 5, 5, 5]
            sequence = [face for face, n in zip(range(1, 11), counts, strict=True) for _ in range(n)]
            first = next(r for r in data["rolls"] if r.get("forced") is False)
            first = dict(first, modifiers={}, target=None, comparison=None, success=None)  # (each row a whole roll)
            data["rolls"] = [dict(first, die=v, total=v) for v in sequence] + [dict(first, die=9, total=9, forced=True)]
            imported = await t.run(t.alice, "game import", channel=annex,
                                   file=FakeAttachment("nations-game.json", json.dumps(data).encode()))
            await imported.wait_for_final_message()
            judged = await t.run(t.bob, "log fairness", channel=annex)
            assert judged.embed["description"].splitlines() == [
                "**d10: 100 rolled; 1 entered by the GM, counted apart — unlikely from a fair die: p < 0.001**",
                ("1: 25/10, 2: 10/10, 3: 10/10, 4: 10/10, 5: 10/10, 6: 10/10, 7: 10/10, 8: 5/10, 9: 5/10 +1 GM, "
                "10: 5/10"),
                NOTE,
            ]
            assert not judged.ephemeral
