"""Issue 17 on Discord: a list option with a word that does not parse is refused, ephemerally, in one line naming
that word, and nothing changes (the console refuses it with the same words: `engine.vocabulary.check_numbers`)."""

from __future__ import annotations

from discordkit import start_war, table, texts

from engine.nations.snapshot import state_to_dict


async def test_a_unit_list_with_a_stray_word_is_refused_naming_it(tmp_path):
    async with table(tmp_path) as t, t.bot() as rb:
        await start_war(t)
        before = state_to_dict(await t.state(rb))
        refused = await t.run(t.alice, "attack declare", target="Charon", units="1 5 advantage")
        assert refused.ephemeral
        assert texts(refused) == "⛔ units: 'advantage' is not a number; give numbers, e.g. units:\"1 5\""
        assert state_to_dict(await t.state(rb)) == before
        declared = await t.run(t.alice, "attack declare", target="Charon", units="#1, 5")
        assert not declared.ephemeral
