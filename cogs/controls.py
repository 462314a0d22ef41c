"""Controls every game shares that keep working after a restart: a GM's confirmation (end the game, undo an
action). Their custom ids carry the game (and the user, and the action undone).

Controls are `DynamicItem`s registered once on the bot, so a click on a message posted before a restart is
still routed to them; each rule set's own (Nations' battle choices, God Dice's move controls) live in its
adapter's package and are registered from its adapter (`cogs.frontends`). The engine decides who may make each
choice; a click by anyone else gets the engine's refusal, ephemeral.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

import discord

from cogs.host import RefereeHost
from cogs.render import error_embed
from cogs.util import actor, answer_report, bot_of, channel_key, following, has_gm_role, reply, run_action
from engine.clock import EndGame
from engine.errors import RefereeError, RuleViolation

log = logging.getLogger("referee.controls")

GAME_CONTROLS = 0
"""The `choice_messages` row of the message carrying a game's own controls (a rule set's moves and choices, not a
battle's): battle 0, a number no battle has."""


async def swap_controls(bot: RefereeHost, channel: discord.PartialMessageable, game_id: int,
                        message_id: int | None) -> None:
    """Record the message now carrying a game's controls (None: none now) and take the controls off the message
    that carried them before."""
    old = await bot.store.choice_message(game_id, GAME_CONTROLS, message_id or 0)
    if old and old != message_id:
        try:
            await channel.get_partial_message(old).edit(view=None)
        except discord.HTTPException:
            log.warning("could not clear the controls of message %s", old)


async def guarded(interaction: discord.Interaction, work: Callable[[], Awaitable[Any]]) -> None:
    """Run a component's work (what it changed followed up once it is answered: `following`); refusals and failures
    answer the clicker alone."""
    try:
        async with following(interaction):
            await work()
    except RefereeError as err:
        await reply(interaction, embed=error_embed(str(err)), ephemeral=True)
    except Exception:
        data: Mapping[str, Any] = interaction.data or {}
        log.exception("component %s failed (guild %s, channel %s, user %s)",
                      data.get("custom_id"), interaction.guild_id, interaction.channel_id, interaction.user.id)
        await reply(interaction, ephemeral=True,
                    embed=error_embed("Sorry, the referee hit a problem; it was logged. /game status shows the game."))


_click_locks: dict[tuple[int, int], asyncio.Lock] = {}


def click_lock(interaction: discord.Interaction, game_id: int) -> asyncio.Lock:
    """Clicks on one game's controls run one at a time, from the check that the choice or move is still open
    to its answer: a double click (or fifty clicks at once) applies once, and the others are told why not."""
    return _click_locks.setdefault((id(bot_of(interaction)), game_id), asyncio.Lock())


class ConfirmButton(discord.ui.DynamicItem[discord.ui.Button],
                    template=r"referee:confirm:(?P<what>end|undo):(?P<game>\d+):(?P<user>\d+)"
                             r"(?::(?P<action>\d+)(?::(?P<steps>\d+))?)?"):
    """Confirm a GM's irreversible step (end the game, undo the actions the preview showed); only the one who
    asked. An undo's custom id carries the newest action it undoes and how many: however many clicks arrive
    at once, and however long after the preview (a restart between), those actions are undone once, and only
    while they are still the last ones (the referee checks it; any other click is told the game moved on)."""

    def __init__(self, what: str, game_id: int, user_id: int, action_id: int | None = None, steps: int = 1) -> None:
        self.what, self.game_id, self.user_id, self.action_id, self.steps = what, game_id, user_id, action_id, steps
        label = {"end": "End the game", "undo": "Confirm"}[what]
        custom_id = f"referee:confirm:{what}:{game_id}:{user_id}" + (f":{action_id}" if action_id else "")
        if action_id and steps != 1:
            custom_id += f":{steps}"
        super().__init__(discord.ui.Button(label=label, style=discord.ButtonStyle.danger, custom_id=custom_id))

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction, item: discord.ui.Item[Any],
                             match: Any) -> ConfirmButton:
        return cls(match["what"], int(match["game"]), int(match["user"]),
                   int(match["action"]) if match["action"] else None, int(match["steps"] or 1))

    async def callback(self, interaction: discord.Interaction) -> None:
        async def work() -> None:
            if interaction.user.id != self.user_id:
                raise RuleViolation("this button is not for you")
            if self.what == "undo" and self.action_id is None:  # a prompt posted before undo named its action
                raise RuleViolation("this confirmation is too old to say what it undoes: /gm undo again")
            if await bot_of(interaction).referee.store.live_game(channel_key(interaction)) != self.game_id:
                raise RuleViolation("that game is already over")
            # The prompt is ephemeral: only this response can take its buttons off (a message edit cannot).
            # Clicks that arrived together all get here; the referee applies the step once and refuses the rest
            # (an undo names its actions; a game that has ended cannot end again).
            await interaction.response.edit_message(view=None)
            if self.what == "end":
                await run_action(interaction, EndGame(), "/game end")
                bot_of(interaction).command_sets.changed(interaction.guild_id)  # its last game here: commands go
            else:
                await confirmed_undo(interaction, self.action_id, self.steps)

        await guarded(interaction, work)


class CancelButton(discord.ui.DynamicItem[discord.ui.Button],
                   template=r"referee:cancel:(?P<what>end|undo):(?P<game>\d+):(?P<user>\d+)"):
    """Cancel a GM's step: the prompt loses its buttons and says nothing changed (works after a restart too)."""

    def __init__(self, what: str, game_id: int, user_id: int) -> None:
        self.what, self.game_id, self.user_id = what, game_id, user_id
        super().__init__(discord.ui.Button(label="Cancel", style=discord.ButtonStyle.secondary,
                                           custom_id=f"referee:cancel:{what}:{game_id}:{user_id}"))

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction, item: discord.ui.Item[Any],
                             match: Any) -> CancelButton:
        return cls(match["what"], int(match["game"]), int(match["user"]))

    async def callback(self, interaction: discord.Interaction) -> None:
        async def work() -> None:
            if interaction.user.id != self.user_id:
                raise RuleViolation("this button is not for you")
            said = CANCELLED[self.what]
            await interaction.response.edit_message(content=said, embeds=[], view=None)

        await guarded(interaction, work)


CANCELLED = {"undo": "Cancelled: nothing was undone.", "end": "Cancelled: the game goes on."}


async def confirmed_undo(interaction: discord.Interaction, action_id: int | None = None, steps: int = 1) -> None:
    """Undo the actions the GM confirmed (if they are still the last ones), answered as the game's rule set
    answers a command (God Dice: the move undone is offered again)."""
    bot = bot_of(interaction)
    report = await bot.referee.undo(channel_key(interaction), actor(interaction), gm_role=has_gm_role(interaction),
                                    expected=action_id, steps=steps)
    await answer_report(interaction, report)


def confirm_view(what: str, game_id: int, user_id: int, action_id: int | None = None, steps: int = 1,
                 cancel: bool = True) -> discord.ui.View:
    """The confirmation of a GM's step (an undo names the newest action it undoes and how many), with Cancel."""
    view = discord.ui.View(timeout=None)
    view.add_item(ConfirmButton(what, game_id, user_id, action_id, steps))
    if cancel:
        view.add_item(CancelButton(what, game_id, user_id))
    return view


DYNAMIC_ITEMS = (ConfirmButton, CancelButton)
"""The shared controls; each rule set's come from its adapter (`cogs.frontends.dynamic_items`)."""
