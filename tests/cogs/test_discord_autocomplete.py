"""Autocomplete of unit lists, pairings and battle numbers on Discord (issue 11), through discord.py against the
fake Discord: each user is offered what they may choose — the attacker, the defender, a bystander and the GM.

Gracchan Republic (alice): infantry #1-#3 (GREEN, 3 HP), #4 bomber, #5 armour.
Charon (bob): armour #6-#8 (GREEN, 2 HP), #9 bomber. carol holds no nation.
"""

from __future__ import annotations

from discordkit import start_war, table

ALICE_UNITS = {1: "#1 infantry GREEN 3 HP", 2: "#2 infantry GREEN 3 HP", 3: "#3 infantry GREEN 3 HP",
               4: "#4 bomber GREEN 2 HP", 5: "#5 armour GREEN 2 HP"}
BOB_UNITS = {6: "#6 armour GREEN 2 HP", 7: "#7 armour GREEN 2 HP", 8: "#8 armour GREEN 2 HP",
             9: "#9 bomber GREEN 2 HP"}


def listed(prefix: str, units: dict[int, str], ids: list[int]) -> list[dict[str, str]]:
    """The choices completing a unit list typed as `prefix`."""
    return [{"name": f"{prefix}{i} ({units[i]})", "value": f"{prefix}{i}"} for i in ids]


async def test_unit_lists_pairings_and_battles_offer_each_user_their_own(tmp_path):
    async with table(tmp_path) as t, t.bot():
        fake, guild, channel = t.fake, t.guild, t.channel

        async def offered(user, command, focused, **options):
            return await fake.autocomplete(guild, channel, user, command, focused=focused, options=options)

        await start_war(t)
        carol = fake.add_member(guild, fake.add_user("carol"))

        # /attack declare units: the user's own units, completing the last number typed.
        assert await offered(t.alice, "attack declare", "units") == listed("", ALICE_UNITS, [1, 2, 3, 4, 5])
        assert await offered(t.alice, "attack declare", "units", units="1 2 ") == listed("1 2 ", ALICE_UNITS,
                                                                                         [3, 4, 5])
        assert await offered(t.alice, "attack declare", "units", units="1 2 4") == listed("1 2 ", ALICE_UNITS, [4])
        assert await offered(t.alice, "attack declare", "units", units="3,bomb") == listed("3,", ALICE_UNITS, [4])
        assert await offered(t.alice, "attack declare", "units", units="1 2 3 #") == listed("1 2 3 ", ALICE_UNITS,
                                                                                          [4, 5])
        assert await offered(t.bob, "attack declare", "units") == listed("", BOB_UNITS, [6, 7, 8, 9])
        assert await offered(carol, "attack declare", "units") == []
        every = await offered(t.gm, "attack declare", "units")
        assert [c["value"] for c in every] == [str(i) for i in range(1, 10)]  # the GM: every unit
        long = "1 " * 48  # 96 characters typed: "… 2" would be 99, "… 10" over Discord's 100
        assert [c["value"] for c in await offered(t.gm, "attack declare", "units", units=long)] == [
            long + str(i) for i in range(2, 10)]
        assert all(len(c["name"]) <= 100 for c in await offered(t.gm, "attack declare", "units", units=long))

        await t.run(t.alice, "attack declare", target="Charon", units="1 2")

        # The battle waits for Charon's commitment: only the defender (and the GM) is offered units to commit.
        assert await offered(t.bob, "attack commit", "units") == listed("", BOB_UNITS, [6, 7, 8, 9])
        assert await offered(t.bob, "attack commit", "units", units="6 ") == listed("6 ", BOB_UNITS, [7, 8, 9])
        assert await offered(t.alice, "attack commit", "units") == []
        assert await offered(carol, "attack commit", "units") == []
        assert await offered(t.gm, "attack commit", "units") == listed("", BOB_UNITS, [6, 7, 8, 9])
        assert await offered(t.gm, "gm decide", "units", battle=1) == listed("", BOB_UNITS, [6, 7, 8, 9])
        assert await offered(t.gm, "gm decide", "units", battle=2) == []  # no such battle waits
        # units already sent are not offered again
        assert await offered(t.alice, "attack declare", "units") == listed("", ALICE_UNITS, [3, 4, 5])

        # Battle numbers: the live battles the user fights in (a GM: all); /attack status shows any.
        commit_stage = [{"name": "#1 Gracchan Republic → Charon (commit)", "value": 1}]
        assert await offered(t.alice, "attack commit", "battle") == commit_stage
        assert await offered(t.bob, "attack commit", "battle") == commit_stage
        assert await offered(carol, "attack commit", "battle") == []
        assert await offered(t.gm, "gm decide", "battle") == commit_stage
        assert await offered(t.gm, "gm battle cancel", "battle", battle="1") == commit_stage
        assert await offered(t.gm, "gm battle cancel", "battle", battle="7") == []
        assert await offered(carol, "attack status", "battle") == commit_stage

        t.dice.push(10, 8)  # initiative: attacker 10 - 1 = 9, defender 8 - 1 = 7: the attacker pairs
        await t.run(t.bob, "attack commit", units="6 7")
        assert t.dice.all_used()

        # The pairing: the chooser (alice) and the GM are offered the fighting units of each side.
        attackers = [{"name": f"{ALICE_UNITS[i]} (Gracchan Republic, battle #1)", "value": i} for i in (1, 2)]
        defenders = [{"name": f"{BOB_UNITS[i]} (Charon, battle #1)", "value": i} for i in (6, 7)]
        assert await offered(t.alice, "attack pair", "attacker") == attackers
        assert await offered(t.alice, "attack pair", "defender") == defenders
        assert await offered(t.alice, "attack pair", "defender", defender="7") == defenders[1:]
        assert await offered(t.bob, "attack pair", "defender") == []  # not bob's choice
        assert await offered(carol, "attack pair", "attacker") == []
        assert await offered(t.gm, "attack pair", "attacker") == attackers
        assert await offered(t.gm, "gm decide", "defender", battle=1) == defenders
        assert await offered(t.gm, "gm decide", "units", battle=1) == []  # nothing to commit any more

        pairing_stage = [{"name": "#1 Gracchan Republic → Charon (pairing)", "value": 1}]
        assert await offered(t.alice, "attack pair", "battle") == pairing_stage
        assert await offered(t.bob, "attack pair", "battle") == pairing_stage
        assert await offered(carol, "attack pair", "battle") == []
        assert await offered(t.gm, "gm decide", "battle") == pairing_stage

        # another channel, no game: nothing to offer
        lobby = fake.add_channel(guild, "lobby")
        assert await fake.autocomplete(guild, lobby, t.alice, "attack declare", focused="units") == []
        assert await fake.autocomplete(guild, lobby, t.alice, "attack commit", focused="battle") == []
