"""What the clock does for a God Dice game: the engine's reminders as a message that mentions the player, with
the awaited move's controls; a game ended by the GM keeps no move controls."""

from __future__ import annotations

import discord

from cogs.clock import CONTENT_LIMIT, Clock
from cogs.controls import swap_controls
from cogs.goddice.controls import move_view
from cogs.goddice.render import move_prompt
from cogs.render import NO_PINGS, event_lines, message_batches, pings, report_embeds
from data.store import GameRow
from engine.goddice.events import PlayerReminded
from engine.goddice.state import GoddiceState
from service.reports import Report


async def announce(clock: Clock, channel: discord.PartialMessageable, report: Report) -> None:
    """The caught-up events (the engine's reminders) as a message that mentions the player, with the awaited
    move's controls (they replace the previous ones)."""
    state = report.state
    reminded = any(isinstance(e, PlayerReminded) for e in report.events)
    view = move_view(report.game_id, state) if reminded else None
    text: str | None = "\n".join(event_lines(report.events))
    if text and len(text) > CONTENT_LIMIT:  # too long for a message's text: embeds, then the prompt
        for batch in message_batches(report_embeds(report.events, state)):
            await channel.send(embeds=batch, allowed_mentions=NO_PINGS)
        text = move_prompt(state) if reminded else None
    if not text:
        return
    reminded_players = [e.player for e in report.events if isinstance(e, PlayerReminded)]
    # (a None view: discord.py's send() takes it, its default, but its overloads leave it out)
    message = await channel.send(text, view=view, allowed_mentions=pings(*reminded_players))  # type: ignore[arg-type]
    if reminded:
        await swap_controls(clock.bot, channel, report.game_id, message.id if view else None)


async def after_change(clock: Clock, channel: discord.PartialMessageable, report: Report, state: GoddiceState,
                       row: GameRow) -> GameRow:
    """A game ended by the GM keeps no move controls."""
    if state.ended:
        await swap_controls(clock.bot, channel, report.game_id, None)
    return row
