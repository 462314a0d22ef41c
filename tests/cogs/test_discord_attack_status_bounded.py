"""Issue 34 on Discord: /attack status in a long war shows the battles under way and the last finished ones,
with a count of the rest and where to read them, in one embed (a member with no server permission asks)."""

from __future__ import annotations

from discordkit import start_war, table

from engine.nations.snapshot import state_to_dict
from engine.nations.state import Battle


async def test_attack_status_of_a_long_war_shows_the_last_five_finished_battles_and_counts_the_rest(tmp_path):
    async with table(tmp_path) as t, t.bot() as rb:
        await start_war(t)
        referee = rb.bot.referee  # type: ignore[attr-defined]
        exported = await referee.export(t.key())
        state = await t.state(rb)
        for number in range(1, 13):  # twelve battles fought and over
            state.battles[number] = Battle(number, "Gracchan Republic", "Charon", 1, "over", [1],
                                           result="attacker won")
        exported["battles"] = state_to_dict(state)["battles"]
        annex = t.fake.add_channel(t.guild, "annex")
        await referee.import_game(t.key(annex), str(t.gm.id), exported, t.guild.id)

        report = await t.run(t.bob, "attack status", channel=annex)
        assert not report.ephemeral
        names = [f["name"] for f in report.embed["fields"]]
        assert names == [f"Battle #{n}, turn 1: Gracchan Republic against Charon — attacker won"
                         for n in range(8, 13)]
        assert report.embed["description"] == (
            "7 earlier finished battles not shown: /attack status with battle: shows any one, /log game tells each "
            "turn's story.")
        one = await t.run(t.bob, "attack status", channel=annex, battle=2)
        assert [f["name"] for f in one.embed["fields"]] == [
            "Battle #2, turn 1: Gracchan Republic against Charon — attacker won"]
