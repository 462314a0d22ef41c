"""GMs by game, not by server (issue 34), through discord.py against the fake Discord, with members who hold no
server permission: /gm has no default permission (the bot checks: the game's GM and co-GMs); co-GMs added and
removed, a handover, a stranger refused; the server's GM role set in the bot by a member with Manage Server."""

from __future__ import annotations

import pytest
from discordkit import Table, mention, table, texts
from fakediscord import InvalidInteraction

MANAGE_GUILD = 1 << 5
STRANGER = "⛔ only the game's GM or a co-GM may use /gm commands"


async def dice_entered(t: Table, member: object) -> bool:
    """Whether `member` may enter a die with /gm dice (else refused, to them alone, as a stranger)."""
    answered = await t.run(member, "gm dice", values="3")  # type: ignore[arg-type]
    if texts(answered) == STRANGER:
        assert answered.ephemeral
        return False
    assert "entered the next 1 die" in texts(answered)
    return True


async def test_gm_is_offered_to_everyone_and_server_to_managers(tmp_path):
    async with table(tmp_path) as t, t.bot():
        permissions = {c["name"]: c["default_member_permissions"] for c in t.fake.global_commands}
        assert permissions["gm"] is None
        assert int(permissions["server"]) == MANAGE_GUILD


async def test_a_plain_member_starts_a_game_and_uses_gm(tmp_path):
    async with table(tmp_path) as t, t.bot() as rb:
        await t.run(t.alice, "game start")  # alice: no server permission, and no override for /gm
        assert await dice_entered(t, t.alice)
        assert (await t.state(rb)).forced_dice == [3]
        assert not await dice_entered(t, t.bob)  # a stranger: refused, to him alone, nothing changed
        assert (await t.state(rb)).forced_dice == [3]


async def test_a_cogm_added_can_use_gm_and_removed_cannot(tmp_path):
    async with table(tmp_path) as t, t.bot() as rb:
        await t.run(t.alice, "game start")
        added = await t.run(t.alice, "gm cogm add", player=t.bob)
        assert not added.ephemeral and f"{mention(t.bob)} is a co-GM of this game now" in texts(added)
        assert (await t.state(rb)).cogms == [str(t.bob.id)]
        status = await t.run(t.bob, "game status")
        assert f"co-GM: {mention(t.bob)}" in texts(status)
        assert await dice_entered(t, t.bob)
        refused = await t.run(t.bob, "gm cogm add", player=t.gm)  # co-GMs may not add co-GMs
        assert refused.ephemeral and "only the game's GM may add co-GMs" in texts(refused)

        removed = await t.run(t.alice, "gm cogm remove", player=t.bob)
        assert not removed.ephemeral and (await t.state(rb)).cogms == []
        assert not await dice_entered(t, t.bob)
        assert (await t.state(rb)).forced_dice == [3]


async def test_a_handover_moves_the_power(tmp_path):
    async with table(tmp_path) as t, t.bot() as rb:
        await t.run(t.alice, "game start")
        handed = await t.run(t.alice, "gm handover", player=t.bob)
        assert not handed.ephemeral
        state = await t.state(rb)
        assert (state.gm, state.cogms) == (str(t.bob.id), [str(t.alice.id)])  # alice stays a co-GM
        refused = await t.run(t.alice, "gm handover", player=t.alice)
        assert refused.ephemeral and "only the game's GM may hand the game over" in texts(refused)
        await t.run(t.bob, "gm cogm remove", player=t.alice)
        assert not await dice_entered(t, t.alice)
        assert await dice_entered(t, t.bob)


async def test_the_server_gm_role_set_by_an_admin_makes_gms(tmp_path):
    async with table(tmp_path) as t:
        referees = t.fake.add_role(t.guild, "Referees")
        carol = t.fake.add_member(t.guild, t.fake.add_user("carol"), roles=[referees])  # no permission of her own
        admins = t.fake.add_role(t.guild, "Admins", permissions=MANAGE_GUILD)
        admin = t.fake.add_member(t.guild, t.fake.add_user("admin"), roles=[admins])
        async with t.bot():
            await t.run(t.alice, "game start")
            assert not await dice_entered(t, carol)
            with pytest.raises(InvalidInteraction, match="alice cannot use /server"):  # Discord does not offer it
                await t.fake.invoke(t.guild, t.channel, t.alice, "server gmrole", options={"role": referees})
            t.fake.allow(t.guild, "server", t.alice)  # shown it anyway (Integrations): the bot refuses her
            refused = await t.run(t.alice, "server gmrole", role=referees)
            assert refused.ephemeral and "only a member with Manage Server" in texts(refused)

            set_ = await t.run(admin, "server gmrole", role=referees)
            assert set_.ephemeral and "GM role is now" in texts(set_)
            assert await dice_entered(t, carol)
        async with t.bot() as rb:  # kept in the database: after a restart too
            assert await dice_entered(t, carol)
            assert (await t.state(rb)).forced_dice == [3, 3]
            cleared = await t.run(admin, "server gmrole", clear=True)
            assert cleared.ephemeral and "cleared" in texts(cleared)
            assert not await dice_entered(t, carol)
