"""What every cog shares: who and where an interaction is, answering it once, and running an action of the
command table through the service (`service.dispatch`) with its answer and follow-up."""

from __future__ import annotations

import contextlib
import logging
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator, Sequence
from contextvars import ContextVar
from typing import Any, TypeVar, cast

import discord

from cogs.frontends import adapter_of
from cogs.host import RefereeHost
from cogs.render import NO_PINGS, message_batches, report_embeds
from engine.commands import BY_PATH, coerce_options
from engine.errors import NoGame
from engine.events import DiceRolled, DieRolled
from engine.rulesets import GameState
from engine.vocabulary import Command
from service.dispatch import Dispatcher, Front, Request, Upload
from service.reports import Report

log = logging.getLogger("referee.discord")
REPLIED = "referee:replied"
"""`Interaction.extras` key: (channel id, message id) of the interaction's first public answer (`reply`)."""


def bot_of(interaction: discord.Interaction) -> RefereeHost:
    """The bot that received the interaction: the one that loaded the cogs."""
    return cast(RefereeHost, interaction.client)


ItemT = TypeVar("ItemT", bound="discord.ui.Item[Any]")


def matched(item: discord.ui.Item[Any], kind: type[ItemT]) -> ItemT:
    """The component a dynamic item's template matched (`DynamicItem.from_custom_id`'s `item`) as the kind that
    dynamic item wraps: discord.py finds it on the clicked message by its custom id and its component type, but
    types it as any item."""
    return cast(ItemT, item)


def channel_key(interaction: discord.Interaction) -> str:
    """Where a game lives: one game per channel, many per server."""
    if interaction.guild_id is None:
        raise NoGame("games are played in a server channel, not in direct messages")
    return f"discord:{interaction.guild_id}:{interaction.channel_id}"


def channel_id_of(key: str) -> int | None:
    parts = key.split(":")
    return int(parts[2]) if len(parts) == 3 and parts[0] == "discord" else None


def actor(interaction: discord.Interaction) -> str:
    """A player is their Discord user id; it renders as a mention."""
    return str(interaction.user.id)


SERVER_ROLES_COG = "ServerRoles"
"""The cog keeping each server's GM role set with /server gmrole (`cogs.server.ServerRoles`), looked up by name
(that module imports this one): its `roles`, server id → role id."""


def has_gm_role(interaction: discord.Interaction) -> bool:
    """Server GMs, GMs of every game in the server: members with Manage Server, members of the server's GM role set
    with /server gmrole, and members of the role named by the GM_ROLE setting."""
    member = interaction.user
    if not isinstance(member, discord.Member):
        return False
    if member.guild_permissions.manage_guild:
        return True
    set_in_bot = getattr(bot_of(interaction).get_cog(SERVER_ROLES_COG), "roles", {}).get(interaction.guild_id)
    if set_in_bot is not None and any(role.id == set_in_bot for role in member.roles):
        return True
    wanted = bot_of(interaction).settings.gm_role.lower()
    return any(role.name.lower() == wanted for role in member.roles)


async def reply(interaction: discord.Interaction, content: str | None = None, *, embeds: Sequence[discord.Embed] = (),
                embed: discord.Embed | None = None, ephemeral: bool = False, view: discord.ui.View | None = None,
                file: discord.File | None = None,
                allowed_mentions: discord.AllowedMentions | None = None) -> int | None:
    """Answer an interaction once; what does not fit one message follows up. Returns the id of the first
    message (the one carrying the content and the view), when Discord says it; a public one is noted in the
    interaction's `extras` (`REPLIED`), where a command's report finds the message that announced it.

    It pings no one unless `allowed_mentions` names whom (`render.pings`)."""
    batches = message_batches([embed] if embed is not None else list(embeds))
    extra: dict[str, Any] = {"allowed_mentions": allowed_mentions or NO_PINGS}
    if view is not None:
        extra["view"] = view
    if file is not None:
        extra["file"] = file
    first, rest = batches[0], batches[1:]
    interaction.extras.pop(THINKING, None)  # (something is said now)
    if interaction.response.is_done():
        sent = await interaction.followup.send(content or "", embeds=first, ephemeral=ephemeral, wait=True, **extra)
        message_id: int | None = sent.id
    else:
        response = await interaction.response.send_message(content, embeds=first, ephemeral=ephemeral, **extra)
        message_id = response.message_id
    if message_id is not None and not ephemeral:
        interaction.extras.setdefault(REPLIED, (interaction.channel_id, message_id))
    for batch in rest:
        await interaction.followup.send(embeds=batch, ephemeral=ephemeral, allowed_mentions=NO_PINGS)
    return message_id


THINKING = "referee:thinking"
"""`Interaction.extras` key: the interaction was acknowledged publicly, with nothing said yet (a refusal then takes
that acknowledgement away and is said to the user alone)."""


async def refuse(interaction: discord.Interaction, embed: discord.Embed) -> None:
    """Tell the user alone why nothing changed, even after a public acknowledgement ("thinking…")."""
    if interaction.extras.pop(THINKING, False):
        try:
            await interaction.delete_original_response()
        except discord.HTTPException:
            pass
    await reply(interaction, embed=embed, ephemeral=True)


def given_options(**values: Any) -> dict[str, Any]:
    """The options the user gave (the others arrive as None)."""
    return {name: value for name, value in values.items() if value is not None}


def option_text(value: Any) -> str:
    """An option's value as the game's log records it (a yes/no as true or false, a file by its name)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(getattr(value, "name", value)) if isinstance(value, Upload) else str(value)


def command_text(path: str, given: dict[str, Any]) -> str:
    """The command as the game's log records it: its path and the options given, e.g. "/log limit:5"."""
    return "/" + " ".join([path, *(f"{k}:{option_text(v)}" for k, v in given.items())])


FRONT = "discord"
"""This front-end's name (`Param.only`, `service.dispatch.Front`)."""


def dispatcher(interaction: discord.Interaction) -> Dispatcher:
    """The service as this interaction's bot offers it (its page links, Discord's words)."""
    bot = bot_of(interaction)
    return Dispatcher(bot.referee, Front(FRONT, bot.pages))


def command_key(interaction: discord.Interaction) -> str:
    """The idempotency key of the interaction's command: its id (Discord may deliver an interaction again; a
    commit whose connection was lost is looked up by it)."""
    return f"discord:{interaction.id}"


def request(interaction: discord.Interaction, command: Command, given: dict[str, Any],
            confirmed: bool = False) -> Request:
    """The interaction's command as the service takes it: typed by the table (a refusal names the option)."""
    return Request(channel_key(interaction), actor(interaction), command, coerce_options(command, given),
                   command_text(command.path, given), gm_role=has_gm_role(interaction),
                   guild_id=interaction.guild_id, confirmed=confirmed, key=command_key(interaction))


Answer = Callable[[discord.Interaction, Report], Awaitable[None]]
"""How a command's result is answered when not as its events alone (God Dice: with the next move's controls)."""


async def run_command(interaction: discord.Interaction, path: str, *, answer: Answer | None = None,
                      **options: Any) -> Report:
    """Run one action of the command table as the interaction's user (a button's, a select's), answer with its
    events (or `answer`), then follow up.

    A rule set's command is refused in a channel whose game is of another rule set (checked by the referee in
    the command's own transaction: no round trip of its own)."""
    reply_ = await dispatcher(interaction).act(request(interaction, BY_PATH[path], given_options(**options)))
    await answer_change(interaction, reply_.report, answer)
    return reply_.report


async def run_action(interaction: discord.Interaction, action: Any, text: str,
                     answer: Answer | None = None, vocabulary: Command | None = None) -> Report:
    """Run one engine action as the interaction's user, answer with its events (or `answer`), then follow up.
    `vocabulary`: the command it was built from (refused in a game of another rule set)."""
    bot = bot_of(interaction)
    report = await bot.referee.act(channel_key(interaction), actor(interaction), action, text,
                                   gm_role=has_gm_role(interaction), vocabulary=vocabulary,
                                   key=command_key(interaction))
    await answer_change(interaction, report, answer)
    return report


async def answer_change(interaction: discord.Interaction, report: Report, answer: Answer | None = None) -> None:
    """Answer a change (its events, or `answer`) and note the message that announced its rolls (the follow-up —
    the status, choices, reminders — comes once the interaction is answered: `following`)."""
    bot = bot_of(interaction)
    interaction.extras.pop(REPLIED, None)
    await (answer or answer_events)(interaction, report)
    if (replied := interaction.extras.get(REPLIED)) is not None:
        await note_report_message(bot, report, *replied)


def rolled(report: Report) -> bool:
    return any(isinstance(e, DieRolled | DiceRolled) for e in (*report.caught_up, *report.events))


async def note_report_message(bot: RefereeHost, report: Report, channel_id: int | None, message_id: int) -> None:
    """Record the message that announced a report that rolled dice, for /log rolls' links to it: no transaction of
    its own, it rides on the next commit (`Store.note_report_message`). A failure is logged and changes nothing
    else: the command or announcement stands."""
    if not report.action_ids or not rolled(report):
        return
    try:
        await bot.store.note_report_message(report.action_ids, channel_id, message_id)
    except Exception:
        log.warning("could not record message %s as the report of actions %s", message_id, report.action_ids,
                    exc_info=True)


async def answer_events(interaction: discord.Interaction, report: Report) -> None:
    """A command's answer: its events (the clock's catch-up first)."""
    await reply(interaction, embeds=report_embeds(report.caught_up + report.events, report.state, actor(interaction)))


FollowUp = Callable[[], Awaitable[None]]
HELD: ContextVar[list[FollowUp] | None] = ContextVar("referee_held_follow_ups", default=None)
"""The follow-ups of the changes committed while an interaction is being answered (`following`): they wait for the
answer."""


@contextlib.contextmanager
def holding() -> Iterator[list[FollowUp]]:
    """Commits made meanwhile are followed up by whoever holds them (the clock's own wakes): the clock, hearing of
    them, leaves their follow-ups here."""
    held: list[FollowUp] = []
    token = HELD.set(held)
    try:
        yield held
    finally:
        HELD.reset(token)


@contextlib.asynccontextmanager
async def following(interaction: discord.Interaction) -> AsyncIterator[None]:
    """Answer an interaction first, then follow up on what it changed: the referee tells its listeners of each commit
    (`Referee.on_commit`; Discord's clock among them), which leave their follow-ups here while the interaction is
    being answered; they run (the status message, battle choices, reminders, the timer) once the answer is out —
    failed or not."""
    with holding() as held:
        try:
            yield
        finally:
            for follow_up in held:
                try:
                    await follow_up()
                except discord.HTTPException as err:  # its channel gone, or no longer ours to write in
                    log.warning("could not follow up a change in channel %s: %s", interaction.channel_id, err)
                except Exception:
                    log.exception("the follow-up of a change in channel %s failed", interaction.channel_id)


async def game_state(interaction: discord.Interaction) -> GameState:
    """The channel's game's state (a Nations `GameState`, a God Dice `GoddiceState`…)."""
    return await bot_of(interaction).referee.state(channel_key(interaction))


async def answer_report(interaction: discord.Interaction, report: Report) -> None:
    """A report answered as its game's rule set answers a command (God Dice: with the next move's controls),
    else as its events."""
    await (adapter_of(report.state).answer or answer_events)(interaction, report)


# --- autocomplete ---------------------------------------------------------------------------------


async def state_or_none(interaction: discord.Interaction, ruleset: str | None = None) -> Any:
    """The channel's game's state for an autocomplete: None without a game (or with one of another rule set)."""
    try:
        state = await game_state(interaction)
    except NoGame:
        return None
    return state if ruleset is None or state.ruleset == ruleset else None
