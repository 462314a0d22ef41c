"""Self-test of tests/support/fakediscord.py with a tiny throwaway discord.py bot (not the project's bot)."""

from __future__ import annotations

import asyncio
import io
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any

import aiohttp
import discord
import pytest
import pytest_asyncio
from discord import app_commands
from discord.ext import commands
from fakediscord import (
    BotErrorLogged,
    FakeAttachment,
    FakeChannel,
    FakeDiscord,
    FakeGuild,
    FakeMember,
    InteractionNotAcknowledged,
    InvalidInteraction,
)

pytestmark = pytest.mark.asyncio

NATIONS = ["Gracchan Republic", "Sovatank", "Sol Empire", "Solvay League"]


# ---------------------------------------------------------------------------
# The throwaway bot
# ---------------------------------------------------------------------------


@dataclass
class Shared:
    """State that outlives one bot instance (like the project's database would)."""

    votes: int = 0
    picks: list[str] = field(default_factory=list)


class BoardView(discord.ui.View):
    """A persistent view: timeout=None and fixed custom_ids."""

    def __init__(self, shared: Shared) -> None:
        super().__init__(timeout=None)
        self.shared = shared

    @discord.ui.button(label="Vote", style=discord.ButtonStyle.primary, custom_id="board:vote")
    async def vote(self, interaction: discord.Interaction, button: discord.ui.Button[BoardView]) -> None:
        self.shared.votes += 1
        await interaction.response.send_message(
            f"vote {self.shared.votes} from {interaction.user.name}", ephemeral=True
        )

    @discord.ui.select(
        custom_id="board:pick",
        placeholder="Pick a front",
        options=[discord.SelectOption(label="North", value="n"), discord.SelectOption(label="South", value="s")],
    )
    async def pick(self, interaction: discord.Interaction, select: discord.ui.Select[BoardView]) -> None:
        self.shared.picks.extend(select.values)
        await interaction.response.edit_message(content=f"front: {','.join(select.values)}")


class FeedbackModal(discord.ui.Modal, title="Feedback"):
    text: discord.ui.TextInput[FeedbackModal] = discord.ui.TextInput(label="Your orders", custom_id="fb:text")

    async def on_submit(self, interaction: discord.Interaction) -> None:
        await interaction.response.send_message(f"got: {self.text.value}", ephemeral=True)


def make_bot(shared: Shared, guild_id: int | None, *, sync_global: bool = False) -> commands.Bot:
    intents = discord.Intents.default()
    intents.message_content = True
    bot = commands.Bot(command_prefix="!", intents=intents, guild_ready_timeout=0.05, help_command=None)

    gm = app_commands.Group(name="gm", description="Game master tools")
    unit = app_commands.Group(name="unit", description="Units", parent=gm)

    @unit.command(name="add", description="Add a unit")
    async def unit_add(
        interaction: discord.Interaction,
        name: str,
        strength: app_commands.Range[int, 1, 10],
        veteran: bool = False,
        owner: discord.Member | None = None,
        ratio: float = 1.0,
    ) -> None:
        owner_name = owner.name if owner else "-"
        await interaction.response.send_message(
            f"{name} str={strength} vet={veteran} owner={owner_name} ratio={ratio}", ephemeral=True
        )

    nation = app_commands.Group(name="nation", description="Nations")

    @nation.command(name="show", description="Show a nation")
    async def nation_show(interaction: discord.Interaction, nation: str) -> None:
        await interaction.response.send_message(f"Nation: {nation}")

    @nation_show.autocomplete("nation")
    async def nation_autocomplete(interaction: discord.Interaction, current: str) -> list[app_commands.Choice[str]]:
        return [app_commands.Choice(name=n, value=n) for n in NATIONS if n.lower().startswith(current.lower())]

    @app_commands.command(name="board", description="Post the war board")
    async def board(interaction: discord.Interaction) -> None:
        assert isinstance(interaction.channel, discord.TextChannel)
        message = await interaction.channel.send("War board", view=BoardView(shared))
        await message.pin()
        pins = [m async for m in interaction.channel.pins()]
        await interaction.response.send_message(f"posted {message.id}, {len(pins)} pinned", ephemeral=True)

    @app_commands.command(name="report", description="Slow report")
    async def report(interaction: discord.Interaction) -> None:
        await interaction.response.defer(thinking=True)
        await asyncio.sleep(0.05)
        await interaction.followup.send("report ready")
        await interaction.followup.send("appendix", ephemeral=True)
        await interaction.edit_original_response(content="report ready (edited)")

    @app_commands.command(name="boom", description="Always fails")
    async def boom(interaction: discord.Interaction) -> None:
        raise RuntimeError("boom: the dice exploded")

    @app_commands.command(name="sleepy", description="Too slow to answer")
    async def sleepy(interaction: discord.Interaction) -> None:
        await asyncio.sleep(0.4)
        await interaction.response.send_message("finally")

    @app_commands.command(name="feedback", description="Open a modal")
    async def feedback(interaction: discord.Interaction) -> None:
        await interaction.response.send_modal(FeedbackModal())

    @bot.command(name="ping")
    async def ping(ctx: commands.Context[commands.Bot]) -> None:
        await ctx.reply("pong")

    for cmd in (gm, nation, board, report, boom, sleepy, feedback):
        bot.tree.add_command(cmd)

    async def setup_hook() -> None:
        bot.add_view(BoardView(shared))
        if sync_global:
            await bot.tree.sync()
        if guild_id is not None:
            target = discord.Object(id=guild_id)
            bot.tree.copy_global_to(guild=target)
            await bot.tree.sync(guild=target)

    bot.setup_hook = setup_hook  # type: ignore[method-assign]
    return bot


# ---------------------------------------------------------------------------
# Fixtures
# ---------------------------------------------------------------------------


@dataclass
class World:
    fake: FakeDiscord
    guild: FakeGuild
    orders: FakeChannel
    alice: FakeMember
    bob: FakeMember
    shared: Shared


@pytest_asyncio.fixture
async def fake(monkeypatch: pytest.MonkeyPatch) -> AsyncIterator[FakeDiscord]:
    server = FakeDiscord()
    await server.start()
    server.install(monkeypatch)
    try:
        yield server
    finally:
        await server.stop()


@pytest_asyncio.fixture
async def world(fake: FakeDiscord) -> AsyncIterator[World]:
    guild = fake.add_guild("War Room")
    orders = fake.add_channel(guild, "orders")
    alice = fake.add_member(guild, fake.add_user("alice"))
    bob = fake.add_member(guild, fake.add_user("bob"))
    shared = Shared()
    async with fake.run_bot(make_bot(shared, guild.id)):
        yield World(fake, guild, orders, alice, bob, shared)


# ---------------------------------------------------------------------------
# Tests
# ---------------------------------------------------------------------------


async def test_subcommand_with_typed_options(world: World) -> None:
    fake = world.fake
    result = await fake.invoke(
        world.guild,
        world.orders,
        world.alice,
        "gm unit add",
        options={"name": "Legion", "strength": 7, "veteran": True, "owner": world.bob, "ratio": 1.5},
    )
    assert result.response_type == 4
    assert result.content == "Legion str=7 vet=True owner=bob ratio=1.5"
    assert result.ephemeral and result.flags & 64
    assert result.message is not None and result.message not in fake.channel_messages(world.orders)

    group = result.payload["data"]["options"][0]
    sub = group["options"][0]
    assert (group["type"], group["name"], sub["type"], sub["name"]) == (2, "unit", 1, "add")
    types = {o["name"]: o["type"] for o in sub["options"]}
    assert types == {"name": 3, "strength": 4, "veteran": 5, "owner": 6, "ratio": 10}
    assert str(world.bob.id) in result.payload["data"]["resolved"]["members"]


async def test_options_are_validated_like_the_client(world: World) -> None:
    fake, g, ch, alice = world.fake, world.guild, world.orders, world.alice
    with pytest.raises(InvalidInteraction, match="<= 10"):
        await fake.invoke(g, ch, alice, "gm unit add", options={"name": "X", "strength": 11})
    with pytest.raises(InvalidInteraction, match="needs an int"):
        await fake.invoke(g, ch, alice, "gm unit add", options={"name": "X", "strength": "5"})
    with pytest.raises(InvalidInteraction, match="required option 'strength'"):
        await fake.invoke(g, ch, alice, "gm unit add", options={"name": "X"})
    with pytest.raises(InvalidInteraction, match="no option"):
        await fake.invoke(g, ch, alice, "gm unit add", options={"name": "X", "strength": 1, "colour": "red"})
    with pytest.raises(InvalidInteraction, match="pick a subcommand"):
        await fake.invoke(g, ch, alice, "gm unit")
    with pytest.raises(InvalidInteraction, match="no slash command"):
        await fake.invoke(g, ch, alice, "nope")
    assert fake.interactions == []


async def test_autocomplete_returns_choices(world: World) -> None:
    choices = await world.fake.autocomplete(
        world.guild, world.orders, world.alice, "nation show", focused="nation", options={"nation": "so"}
    )
    assert [c["name"] for c in choices] == ["Sovatank", "Sol Empire", "Solvay League"]
    assert world.fake.interactions[-1].response_type == 8

    everything = await world.fake.autocomplete(world.guild, world.orders, world.alice, "nation show", focused="nation")
    assert len(everything) == len(NATIONS)

    result = await world.fake.invoke(
        world.guild, world.orders, world.alice, "nation show", options={"nation": "Sovatank"}
    )
    assert result.content == "Nation: Sovatank" and not result.ephemeral
    assert result.message in world.fake.channel_messages(world.orders)


async def test_board_buttons_selects_and_pins(world: World) -> None:
    fake, g, ch = world.fake, world.guild, world.orders
    result = await fake.invoke(g, ch, world.alice, "board")
    board = await fake.wait_for_message(ch, check=lambda m: m.content == "War board")
    assert result.content == f"posted {board.id}, 1 pinned"
    assert board.pinned and board.custom_ids == ["board:vote", "board:pick"]
    assert fake.pinned_messages(ch) == [board]

    click = await fake.click(g, ch, world.bob, board, "board:vote")
    assert click.content == "vote 1 from bob" and click.ephemeral

    pick = await fake.select(g, ch, world.alice, board, "board:pick", ["s"])
    assert pick.response_type == 7 and pick.message is board
    assert board.content == "front: s" and board.history[0]["content"] == "War board"

    with pytest.raises(InvalidInteraction, match="no button"):
        await fake.click(g, ch, world.bob, board, "board:nope")


async def test_click_old_button_after_restart(fake: FakeDiscord) -> None:
    guild = fake.add_guild("War Room")
    ch = fake.add_channel(guild, "orders")
    alice = fake.add_member(guild, fake.add_user("alice"))
    shared = Shared()

    async with fake.run_bot(make_bot(shared, guild.id)):
        await fake.invoke(guild, ch, alice, "board")
        board = await fake.wait_for_message(ch)
        first = await fake.click(guild, ch, alice, board, "board:vote")
        assert first.content == "vote 1 from alice"

    assert fake.connected_sessions() == 0
    with pytest.raises(TimeoutError):
        await fake.wait_for_connection(guild, timeout=0.05)

    # A second instance (same fake, same messages): the persistent view still answers the old button.
    running = await fake.start_bot(make_bot(shared, guild.id))
    again = await fake.click(guild, ch, alice, board, "board:vote")
    assert again.content == "vote 2 from alice"
    await running.kill()  # a crash this time, not a clean close

    async with fake.run_bot(make_bot(shared, guild.id)):
        third = await fake.click(guild, ch, alice, board, "board:vote")
        assert third.content == "vote 3 from alice"
        picked = await fake.select(guild, ch, alice, board, "board:pick", ["North"])  # labels work too
        assert picked.message is board and board.content == "front: n"
    assert fake.identify_count == 3
    assert shared.picks == ["n"]


async def test_defer_then_followups(world: World) -> None:
    result = await world.fake.invoke(world.guild, world.orders, world.alice, "report")
    assert result.response_type == 5 and result.deferred
    final = await result.wait_for_final_message()
    assert final is result.message
    first = await result.wait_for_followup()
    assert first is result.message  # the first followup replaced the "thinking..." message
    appendix = await result.wait_for_followup()
    assert appendix.content == "appendix" and appendix.ephemeral
    await result.wait_until(lambda r: r.content == "report ready (edited)")
    assert final.history[-1]["content"] == "report ready"
    assert [m.content for m in world.fake.channel_messages(world.orders)] == ["report ready (edited)"]


async def test_by_default_no_wall_clock_deadline_but_the_order_of_events(world: World) -> None:
    """Discord's 3 s are not measured by default (a loaded machine would fail a bot that does nothing wrong): a
    late answer is accepted, and what a test checks is the order of the interaction, its acknowledgement and the
    notes it makes."""
    fake = world.fake
    assert fake.interaction_deadline is None
    before = fake.note("before the command")
    late = await fake.invoke(world.guild, world.orders, world.alice, "sleepy")  # answers after 0.4 s: accepted
    assert late.content == "finally" and not late.deadline_missed and fake.deadline_failures == []
    after = fake.note("after its answer", late)
    assert late.sent_tick is not None and before.tick < late.sent_tick < late.acknowledged_tick
    assert late.acknowledged_before(after.tick) and not late.acknowledged_before(before.tick)
    assert fake.notes == [before, after] and after.interaction is late
    assert fake.interaction_result(late.id) is late


async def test_interaction_deadline_is_enforced(world: World) -> None:
    """Discord's deadline, modelled when a test asks for it (here a short one, the bot answering after 0.4 s)."""
    fake = world.fake
    fake.interaction_deadline = 0.2
    with pytest.raises(InteractionNotAcknowledged) as caught:
        await fake.invoke(world.guild, world.orders, world.alice, "sleepy")
    # The bot answers after 0.4 s: Discord says 404 Unknown interaction and discord.py logs the NotFound.
    record = await fake.wait_for_error(match="10062")
    assert "Unknown interaction" in (record.exc_text or str(record.exc_info))
    assert caught.value.result.deadline_missed
    [failure] = fake.deadline_failures
    assert failure.elapsed > 0.2 and failure.callback_type == 4
    assert fake.channel_messages(world.orders) == []


async def test_second_initial_response_is_rejected(world: World) -> None:
    fake = world.fake
    result = await fake.invoke(world.guild, world.orders, world.alice, "nation show", options={"nation": "Sovatank"})
    url = f"{fake.api_base}/interactions/{result.id}/{result.token}/callback?with_response=1"
    async with aiohttp.ClientSession() as session:
        async with session.post(url, json={"type": 4, "data": {"content": "again"}}) as resp:
            assert resp.status == 400
            assert resp.headers["Content-Type"] == "application/json"
            assert (await resp.json())["code"] == 40060
        async with session.get(f"{fake.api_base}/no/such/route") as resp:
            assert resp.status == 404 and (await resp.json())["code"] == 0
    assert [r.path for r in fake.unhandled_requests] == ["/no/such/route"]
    [record] = fake.take_errors()  # strict_routes logs the unknown route as an error
    assert "does not implement GET /no/such/route" in record.getMessage()


async def test_command_errors_are_forwarded(world: World) -> None:
    with pytest.raises(BotErrorLogged, match="boom: the dice exploded") as caught:
        await world.fake.invoke(world.guild, world.orders, world.alice, "boom")
    assert "RuntimeError" in caught.value.texts[0]
    assert world.fake.errors == []  # consumed by the raise


async def test_modal_round_trip(world: World) -> None:
    opened = await world.fake.invoke(world.guild, world.orders, world.alice, "feedback")
    assert opened.response_type == 9 and opened.modal is not None and opened.modal["title"] == "Feedback"
    submitted = await world.fake.submit_modal(opened, {"fb:text": "attack at dawn"})
    assert submitted.content == "got: attack at dawn" and submitted.ephemeral


async def test_prefix_command_from_user_message(world: World) -> None:
    fake = world.fake
    sent = fake.post_message(world.orders, world.alice, "!ping")
    reply = await fake.wait_for_message(world.orders)
    assert reply.content == "pong"
    assert reply.referenced_message is sent and reply.type == 19


async def test_global_and_guild_sync_are_recorded(fake: FakeDiscord) -> None:
    guild = fake.add_guild("War Room")
    ch = fake.add_channel(guild, "orders")
    alice = fake.add_member(guild, fake.add_user("alice"))
    async with fake.run_bot(make_bot(Shared(), guild.id, sync_global=True)):
        assert [s.guild_id for s in fake.command_syncs] == [None, guild.id]
        expected = ["gm", "nation", "board", "report", "boom", "sleepy", "feedback"]
        assert fake.command_syncs[0].names == expected == fake.command_syncs[1].names
        assert {c["name"] for c in fake.global_commands} == set(expected)
        assert all(c["guild_id"] == str(guild.id) for c in fake.guild_commands(guild))
        # Guild commands win over global ones of the same name.
        result = await fake.invoke(guild, ch, alice, "nation show", options={"nation": "Sol Empire"})
        assert result.payload["data"]["guild_id"] == str(guild.id)


async def test_snowflakes_and_startup(fake: FakeDiscord) -> None:
    guilds = [fake.add_guild(f"g{i}") for i in range(4)]
    assert len({g.shard_id(2) for g in guilds}) == 2
    assert all(discord.utils.snowflake_time(g.id).year >= 2024 for g in guilds)
    bot = make_bot(Shared(), None)
    async with fake.run_bot(bot):
        assert {g.id for g in bot.guilds} == {g.id for g in guilds}
        assert bot.user is not None and bot.user.id == fake.bot_user.id
        assert fake.global_commands == []  # this bot never synced


def make_rest_bot(cls: type[commands.Bot] = commands.Bot, **kwargs: Any) -> commands.Bot:
    """A bot using more of the REST surface; members intent on, so startup chunks members via op 8."""
    bot = cls(command_prefix="!", intents=discord.Intents.all(), guild_ready_timeout=0.05, **kwargs)

    @bot.tree.command(name="muster", description="Exercise REST routes")
    async def muster(
        interaction: discord.Interaction, who: discord.Member, role: discord.Role, doc: discord.Attachment
    ) -> None:
        assert interaction.guild is not None and isinstance(interaction.channel, discord.TextChannel)
        await interaction.response.defer(ephemeral=True)
        orders = (await doc.read()).decode()
        sent = await interaction.channel.send("map", file=discord.File(io.BytesIO(b"PNG"), filename="map.png"))
        assert await sent.attachments[0].read() == b"PNG"
        thread = await sent.create_thread(name="turn 1")
        await thread.send("discuss here")
        await who.add_roles(role)
        hq_role = await interaction.guild.create_role(name="Sovatank")
        secret = discord.PermissionOverwrite(view_channel=False)
        await interaction.guild.create_text_channel("sovatank-hq", overwrites={interaction.guild.default_role: secret})
        await who.send(f"your orders: {orders}")
        await sent.add_reaction("\N{THUMBS UP SIGN}")
        history = [m async for m in interaction.channel.history(limit=5)]
        await sent.edit(content="map v2")
        await interaction.followup.send(f"{thread.id == sent.id} {hq_role.name} {len(history)}")

    @bot.tree.context_menu(name="Inspect")
    async def inspect(interaction: discord.Interaction, member: discord.Member) -> None:
        await interaction.response.send_message(
            f"inspect {member.name} shard={interaction.guild and interaction.guild.shard_id}"
        )

    async def setup_hook() -> None:
        await bot.tree.sync()  # global only: guild invocations fall back to global commands

    async def no_identify_delay(shard_id: int | None, *, initial: bool = False) -> None:
        pass  # AutoShardedBot sleeps 5 s before each non-first IDENTIFY by default

    bot.setup_hook = setup_hook  # type: ignore[method-assign]
    bot.before_identify_hook = no_identify_delay  # type: ignore[method-assign]
    return bot


async def test_rest_surface_resume_and_member_cache(fake: FakeDiscord) -> None:
    guild = fake.add_guild("War Room")
    ch = fake.add_channel(guild, "orders")
    alice = fake.add_member(guild, fake.add_user("alice"))
    bob = fake.add_member(guild, fake.add_user("bob"))
    player = fake.add_role(guild, "Player")
    bot = make_rest_bot()
    async with fake.run_bot(bot):
        cached = bot.get_guild(guild.id)
        assert cached is not None and {m.name for m in cached.members} == {"alice", "bob", "FakeBot"}

        doc = FakeAttachment("orders.txt", b"hold the line")
        result = await fake.invoke(guild, ch, alice, "muster", options={"who": bob, "role": player, "doc": doc})
        final = await result.wait_for_final_message()
        assert final.content == "True Sovatank 1" and final.ephemeral
        [board] = fake.channel_messages(ch)
        assert board.content == "map v2" and board.edited and board.attachments[0].filename == "map.png"
        assert board.reactions == {"\N{THUMBS UP SIGN}": [fake.bot_user.id]}
        assert [m.content for m in fake.channel_messages(board.id)] == ["discuss here"]  # thread id == message id
        assert player.id in bob.role_ids and guild.get_role("Sovatank") is not None
        hq = guild.get_channel("sovatank-hq")
        assert hq is not None and fake.member_permissions(guild, alice, hq) == 0
        assert [m.content for m in fake.dm_messages(bob)] == ["your orders: hold the line"]
        await fake.wait_until(lambda: cached.get_member(bob.id).get_role(player.id), what="GUILD_MEMBER_UPDATE")

        # Drop the socket: the bot RESUMEs the same session and keeps working.
        await fake.disconnect()
        await fake.wait_for_connection(guild)
        inspected = await fake.invoke_context_menu(guild, ch, alice, "Inspect", bob)
        assert inspected.content == "inspect bob shard=0"
        assert (fake.identify_count, fake.resume_count) == (1, 1)
    assert fake.unhandled_requests == []


async def test_sharded_bot_gets_interactions_on_the_right_shard(fake: FakeDiscord) -> None:
    guilds = [fake.add_guild(f"g{i}") for i in range(4)]
    user = fake.add_user("alice")
    channels = [fake.add_channel(g, "orders") for g in guilds]
    for g in guilds:
        fake.add_member(g, user)
    bot = make_rest_bot(commands.AutoShardedBot, shard_count=2)
    async with fake.run_bot(bot):
        assert fake.connected_sessions() == 2
        for g, ch in zip(guilds, channels, strict=True):
            result = await fake.invoke_context_menu(g, ch, user, "Inspect", user)
            assert result.content == f"inspect alice shard={g.shard_id(2)}"
