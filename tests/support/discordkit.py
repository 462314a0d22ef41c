"""Helpers for tests of the project's Discord bot against the fake Discord (tests/support/fakediscord.py)."""

from __future__ import annotations

import asyncio
import re
import sys
from collections.abc import AsyncIterator, Iterator
from contextlib import AbstractAsyncContextManager, asynccontextmanager, contextmanager
from dataclasses import dataclass
from dataclasses import field as field_
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any, NamedTuple
from unittest import mock

import discord
from fakediscord import (
    HANG_TIMEOUT,
    FakeChannel,
    FakeDiscord,
    FakeGuild,
    FakeMember,
    FakeMessage,
    FakeUser,
    InteractionResult,
    RunningBot,
)

from bot import Runtime, Settings, create_bot
from cogs.render import REFUSED
from engine.dice import ForcedRoller, RandomRoller
from engine.nations.state import GameState
from service import charts
from service.dispatch import Dispatcher

START = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)


class FakeClock:
    """The bot's clock, moved by hand (the scheduler waits real time for the difference)."""

    def __init__(self, now: datetime = START) -> None:
        self.now = now

    def __call__(self) -> datetime:
        return self.now

    def advance(self, **delta: float) -> None:
        self.now += timedelta(**delta)


class Dice(ForcedRoller):
    """Forced dice that fall back to fair ones when the queue is empty (so a slip does not hang a test)."""

    def __init__(self) -> None:
        super().__init__()
        self.fallback = RandomRoller()
        self.fell_back = 0  # fair dice rolled because the queue was empty (an exact test expects 0)

    def roll(self, sides: int) -> int:
        if self.queue:
            return super().roll(sides)
        self.fell_back += 1
        return self.fallback.rng.randint(1, sides)

    def all_used(self) -> bool:
        """Every pushed die was rolled, and no other."""
        return not self.queue and self.fell_back == 0


class Config(NamedTuple):
    """What a bot is made with: `create_bot(*config)`, `RefereeBot(*config)`."""

    settings: Settings
    runtime: Runtime


def config(db: Path, clock: FakeClock, dice: Dice | None = None, *, sync_commands: bool = True,
           freeze_startup: bool = False, **settings: Any) -> Config:
    """The bot on `db` with the fake clock and forced dice; `settings`: more of its settings (`web_port`…)."""
    return Config(Settings(token="fake-bot-token", db_path=str(db), **settings),
                  Runtime(clock=clock, roller=dice or Dice(), sync_commands=sync_commands,
                          freeze_startup=freeze_startup))


@asynccontextmanager
async def running(fake: FakeDiscord, made: Config, **options: object) -> AsyncIterator[RunningBot]:
    """The project's bot (`made` with `config`), connected to the fake until the block ends."""
    bot = create_bot(*made, guild_ready_timeout=0.05, **options)
    running_bot = await fake.start_bot(bot)
    try:
        yield running_bot
    finally:
        await settle(fake, check_errors=False)  # no teardown race with work still under way
        await running_bot.close()


# discord.py's task per interaction (a modal's submission its own), the clock's announcer while it has
# announcements to send, and the sender of a server's commands while servers wait (cogs.commandsets)
BOT_WORK = ("CommandTree-invoker", "discord-ui-dynamic-item-", "discord-ui-modal-dispatch-", "referee-announcer",
            "referee-commands")


def _bot_work(task: Any) -> bool:
    """A task of the bot's own work: an interaction being handled, or a scheduled clock wake running."""
    coro = task.get_coro()
    return task.get_name().startswith(BOT_WORK) or getattr(coro, "__qualname__", "") == "run_coroutine_job"


async def settle(fake: FakeDiscord, timeout: float | None = None, check_errors: bool = True) -> None:
    """Wait until the bot has finished handling every interaction sent so far, follow-up work included.

    A command's reply, battle choices, reminder and status edit all run in discord.py's one task for
    that interaction (a clock wake in APScheduler's task), so when no such task is left, the bot is
    done: deterministic, however long it takes. `timeout` (default `HANG_TIMEOUT`) only turns a hang into a
    failure. Then errors the bot logged fail the test (unless `check_errors` is off)."""
    loop = asyncio.get_running_loop()
    timeout = HANG_TIMEOUT if timeout is None else timeout
    deadline = loop.time() + timeout
    while True:
        busy = [t for t in asyncio.all_tasks() if not t.done() and _bot_work(t)]
        if not busy:
            break
        if loop.time() > deadline:
            raise AssertionError(f"the bot is still busy after {timeout:.0f} s (a hang): {busy}")
        await asyncio.wait(busy, timeout=deadline - loop.time())
    if check_errors:
        fake.assert_no_errors()


# --- a table of players around one channel ----------------------------------------------------------

ERROR_LOGGERS = ("discord", "fakediscord", "referee")  # an ERROR from the bot's own loggers fails the test too


# The footer `render.dress` signs a report with: "Charon · Turn 3", "Nations · Turn 1", "God Dice · Turn 2",
# "God Dice", "Godsfire · Turn 1, Movement Phase".
REPORT_FOOTER = re.compile(r"^(?:.+ · Turn \d+.*|God Dice)$", re.DOTALL)


def is_report(embed: dict[str, Any]) -> bool:
    """A command's or the clock's report (`render.report_embeds`): signed with the nation and turn."""
    return bool(REPORT_FOOTER.match((embed.get("footer") or {}).get("text", "")))


def texts(*items: object) -> str:
    """Everything a reader sees in results/messages: content, embed titles, descriptions and fields.

    A report's title is its event kind's heading ("Turn over", "Grow military"), a refusal's is `REFUSED`: left
    out here, so that the words asserted are the report's own lines; a test of the heading reads
    `embed["title"]`."""
    parts: list[str] = []
    for item in items:
        parts.append(getattr(item, "content", "") or "")
        for embed in getattr(item, "embeds", None) or []:
            heading = is_report(embed) or embed.get("title") == REFUSED  # the kind's heading, not the words
            parts += ["" if heading else embed.get("title", ""), embed.get("description", "")]
            parts += [f"{f['name']}: {f['value']}" for f in embed.get("fields", [])]
    return "\n".join(p for p in parts if p)


def said_alone(result: InteractionResult) -> FakeMessage:
    """What a refused command said to its asker alone: its ephemeral answer, or, after a public acknowledgement
    (a slow command's "thinking…", then taken back: deleted), its one ephemeral follow-up."""
    said = result.message
    if said is not None and said.deleted:
        [said] = result.followups
    assert said is not None and said.ephemeral, result.describe()
    return said


def field(embed: dict[str, Any] | None, name: str) -> str:
    """The value of an embed's field."""
    assert embed is not None
    found = [f["value"] for f in embed.get("fields", []) if f["name"] == name]
    assert found, f"no field {name!r} in {embed}"
    return found[0]


# --- the acknowledgement comes first ------------------------------------------------------------------------
# Discord drops an interaction not acknowledged within 3 s. Seconds measured on a test machine say nothing of the
# bot (a loaded machine misses them with a bot that does nothing wrong); what keeps the bot within them is order:
# a command that may take a while acknowledges (defers) before its slow work begins. The tests check that order.


def asking(fake: FakeDiscord) -> InteractionResult | None:
    """The interaction being handled where this is called: the innermost `interaction` on the call stack (a
    coroutine resumed by its task has the coroutines awaiting it below it on the stack), as the fake sent it."""
    frame = sys._getframe(1)
    while frame is not None:
        found = frame.f_locals.get("interaction")
        if isinstance(found, discord.Interaction):
            return fake.interaction_result(found.id)
        frame = frame.f_back
    return None


def note_slow_work(fake: FakeDiscord, what: str) -> None:
    """Mark the start of slow work in the fake's order of events, for the interaction it is done for (work for
    none, a clock's wake, is not marked)."""
    result = asking(fake)
    if result is not None:
        fake.note(what, result)


@contextmanager
def watching_slow_work(fake: FakeDiscord) -> Iterator[None]:
    """Note each start of slow work for an interaction: the dispatch of a command the table marks slow (an
    export, /log fairness: the ledger counted, scipy loaded) or of a chart (the stat history loaded), and the
    drawing of a picture."""
    dispatch, render = Dispatcher.run, charts.render

    async def run(self: Dispatcher, request: Any) -> Any:
        command = request.command
        if command.slow or command.chart is not None:
            note_slow_work(fake, f"/{command.path} dispatched")
        return await dispatch(self, request)

    async def draw(drawn: Any, *args: Any, **kwargs: Any) -> bytes:
        note_slow_work(fake, f"{drawn.file_name} drawn")
        return await render(drawn, *args, **kwargs)

    with mock.patch.object(Dispatcher, "run", run), mock.patch.object(charts, "render", draw):
        yield


def assert_acknowledged_first(fake: FakeDiscord) -> None:
    """Every interaction was acknowledged, and before any slow work for it began (`watching_slow_work`): the order
    of events, never the wall clock."""
    assert fake.deadline_failures == []
    for result in fake.interactions:
        assert result.acknowledged and not result.deadline_missed, result.describe()
    late = [f"{n.what} before {n.interaction.describe()} was acknowledged" for n in fake.notes
            if n.interaction is not None and not n.interaction.acknowledged_before(n.tick)]
    assert late == [], late


def at(hours: float = 0) -> str:
    """A moment `hours` after START as the bot shows it: Discord timestamps, absolute (`:f`) and relative (`:R`)."""
    stamp = int((START + timedelta(hours=hours)).timestamp())
    return f"<t:{stamp}:f> (<t:{stamp}:R>)"


def mention(user: FakeUser | FakeMember) -> str:
    return f"<@{user.id}>"


@dataclass
class Table:
    """One fake server with a game channel, a GM and two players; `bot()` runs the project's bot."""

    fake: FakeDiscord
    db: Path
    guild: FakeGuild
    channel: FakeChannel
    gm: FakeMember
    alice: FakeMember
    bob: FakeMember
    clock: FakeClock = field_(default_factory=FakeClock)
    dice: Dice = field_(default_factory=Dice)

    def bot(self, **options: object) -> AbstractAsyncContextManager[RunningBot]:
        """The bot on this table's database, clock and dice; it closes when the block ends, its work done."""
        return running(self.fake, config(self.db, self.clock, self.dice), **options)

    async def run(self, user: FakeMember, command: str, channel: FakeChannel | None = None,
                  **options: object) -> InteractionResult:
        """A slash command; its follow-up work (choices, status message) is done when this returns."""
        result = await self.fake.invoke(self.guild, channel or self.channel, user, command, options=options)
        await settle(self.fake)
        return result

    async def select(self, user: FakeMember, message: FakeMessage, custom_id: str, values: list[str],
                     channel: FakeChannel | None = None) -> InteractionResult:
        result = await self.fake.select(self.guild, channel or self.channel, user, message, custom_id, values)
        await settle(self.fake)
        return result

    async def click(self, user: FakeMember, message: FakeMessage, custom_id: str,
                    channel: FakeChannel | None = None) -> InteractionResult:
        result = await self.fake.click(self.guild, channel or self.channel, user, message, custom_id)
        await settle(self.fake)
        return result

    async def submit(self, opened: InteractionResult, values: dict[str, Any],
                     user: FakeMember | None = None) -> InteractionResult:
        """Fill in and submit the modal a click or command opened; its work is done when this returns."""
        result = await self.fake.submit_modal(opened, values, user=user)
        await settle(self.fake)
        return result

    def key(self, channel: FakeChannel | None = None) -> str:
        return f"discord:{self.guild.id}:{(channel or self.channel).id}"

    async def state(self, rb: RunningBot, channel: FakeChannel | None = None) -> GameState:
        return await rb.bot.referee.state(self.key(channel))  # type: ignore[attr-defined]

    def messages(self, channel: FakeChannel | None = None) -> list[FakeMessage]:
        return self.fake.channel_messages(channel or self.channel)

    def status_message(self, channel: FakeChannel | None = None) -> FakeMessage:
        """The one pinned message of the channel: the game's status."""
        [pinned] = self.fake.pinned_messages(channel or self.channel)
        return pinned


class Discord(FakeDiscord):
    """The fake Discord with a server's per-command permission overrides (Server Settings → Integrations):
    `allow(guild, "gm", member)` lets a member use a command whose default permissions they lack, as a server's
    admin does for a game's GM without Manage Server."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.command_overrides: dict[tuple[int, str], set[int]] = {}

    def allow(self, guild: FakeGuild, command: str, member: FakeMember) -> None:
        self.command_overrides.setdefault((guild.id, command), set()).add(member.id)

    def _check_command_access(self, guild: FakeGuild, channel: FakeChannel, member: FakeMember, cmd: Any) -> None:
        if member.id in self.command_overrides.get((guild.id, cmd["name"]), set()):
            return
        super()._check_command_access(guild, channel, member, cmd)


@asynccontextmanager
async def table(tmp_path: Path) -> AsyncIterator[Table]:
    """A started fake Discord with one server, a #nations channel and three members (gm, alice, bob).

    Discord offers /gm to every member (the bot checks who is the game's GM or a co-GM); the table's gm is a plain
    member. At the end every interaction must have been acknowledged, before any slow work for it began."""
    async with Discord(error_loggers=ERROR_LOGGERS) as fake:
        guild = fake.add_guild("War Room")
        channel = fake.add_channel(guild, "nations")
        members = [fake.add_member(guild, fake.add_user(name)) for name in ("gm", "alice", "bob")]
        with watching_slow_work(fake):
            yield Table(fake, tmp_path / "referee.db", guild, channel, *members)
        assert_acknowledged_first(fake)


async def start_war(t: Table) -> None:
    """The GM starts a 12-hour game; alice claims Gracchan Republic (units #1-#5), bob Charon (#6-#9)."""
    await t.run(t.gm, "game start", turn_hours=12)
    await t.run(t.alice, "nation claim", preset="Gracchan Republic")
    await t.run(t.bob, "nation claim", preset="Charon")


# --- hostile and simultaneous interactions (tests/cogs/test_discord_hardening.py) ------------------------


async def invoke_raw(fake: FakeDiscord, guild: FakeGuild, channel: FakeChannel, member: FakeMember, command: str,
                     options: list[dict[str, Any]]) -> InteractionResult:
    """A slash command whose option payloads go as given, unchecked (wrong types, missing required options,
    values no client would send): what a broken or hostile client could make Discord deliver."""
    from fakediscord import InteractionType

    cmd, path, _ = fake._resolve_command_path(guild, command)
    resolved: dict[str, Any] = {}
    for option in options:  # a user option that names a real user comes with its resolved data, as on Discord
        user = fake.users.get(int(option["value"])) if option["type"] == 6 and str(option["value"]).isdigit() else None
        if user is not None:
            fake._resolve_user(guild, channel, member, user, resolved)
    data = fake._command_data(cmd, path, options, resolved)
    return await fake._send_interaction(InteractionType.APPLICATION_COMMAND, guild, channel, member, data,
                                        label=f"{command} (raw)")


async def at_once(*sends: Any) -> list[InteractionResult]:
    """Interactions sent together (each an awaitable `fake.invoke/click/select`), their initial responses
    awaited together; every one must be answered."""
    return list(await asyncio.gather(*sends))
