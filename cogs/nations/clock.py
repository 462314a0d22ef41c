"""What the clock does for a Nations game: announce what fell due (its battles as fields, a choice's reminder as a
mention of its chooser); after each change, offer the battle choices a report opened (and take the controls off
the choices it settled), and once a turn, before its end, remind the players who still have actions left."""

from __future__ import annotations

import logging
from datetime import datetime, timedelta

import discord

from cogs.clock import CONTENT_LIMIT, Clock, _chunks
from cogs.nations.controls import choice_view
from cogs.nations.render import nations_report_embeds
from cogs.render import NO_PINGS, event_lines, message_batches, pings, safe, when, who
from data.store import GameRow
from engine.nations.common import RULESET, actions_left
from engine.nations.events import (
    BattleAwaits,
    BattleEnded,
    ChoiceReminded,
    ClockPaused,
    ClockResumed,
    DuelStarted,
    UnitsCommitted,
)
from engine.nations.state import Battle, GameState
from engine.nations.war import chooser
from service.reports import Report

log = logging.getLogger("referee.clock")


async def announce(clock: Clock, channel: discord.PartialMessageable, report: Report) -> None:
    """What the clock caught up on, as embeds (`nations_report_embeds`: a battle as fields, a turn end on its own),
    then each choice's reminder as a message of its own that mentions (and pings) the chooser's player only — unless
    the choice was made, or fell to its default, in the meantime. A reminder the referee missed (`missed`: it was
    away past the deadline) is not said."""
    state = report.state
    shown = [e for e in report.events if not isinstance(e, ChoiceReminded)]
    if shown:
        for batch in message_batches(nations_report_embeds(shown, state, by_clock=True)):
            await channel.send(embeds=batch, allowed_mentions=NO_PINGS)
    for event in report.events:
        if not isinstance(event, ChoiceReminded) or event.missed:
            continue
        battle = state.battles.get(event.battle)
        if battle is None or battle.over or battle.stage != event.choice or battle.deadline != event.deadline:
            continue
        await channel.send("\n".join(event_lines([event])), allowed_mentions=pings(event.player))


async def after_change(clock: Clock, channel: discord.PartialMessageable, report: Report, state: GameState,
                       row: GameRow) -> GameRow:
    """Offer the battle choices, then remind if it is time; the game's row as it is now."""
    await offer_choices(clock, channel, report, state)
    if not state.ended:
        row = await remind_if_due(clock, row, state, channel)
    return row


async def offer_choices(clock: Clock, channel: discord.PartialMessageable, report: Report, state: GameState) -> None:
    """For each battle whose choice this report settled or opened: clear the old controls, offer the new."""
    bot = clock.bot
    waiting: dict[int, BattleAwaits] = {}
    moved: set[int] = set()
    for event in report.caught_up + report.events:
        if isinstance(event, BattleAwaits):
            waiting[event.battle] = event
        if isinstance(event, BattleAwaits | UnitsCommitted | DuelStarted | BattleEnded):
            moved.add(event.battle)
    for battle_id in sorted(moved):
        await clear_choice(clock, channel, report.game_id, battle_id)
    most = bot.referee.rules_for(RULESET).max_battle_units
    for battle_id, event in waiting.items():
        battle = state.battles.get(battle_id)
        if battle is None or battle.stage != event.stage or battle.deadline != event.deadline:
            continue  # the choice was made (or defaulted) since
        view = choice_view(report.game_id, state, battle, most)
        player = state.nations[event.nation].player
        # (a None view: discord.py's send() takes it, its default, but its overloads leave it out)
        message = await channel.send(choice_text(state, battle, most), view=view,  # type: ignore[arg-type]
                                     allowed_mentions=pings(player))
        await bot.store.choice_message(report.game_id, battle_id, message.id)
    if any(isinstance(e, ClockPaused | ClockResumed) for e in report.events):
        # a pause holds each open choice's default, a resume moves it on: the offers say so, never an old time
        for battle in state.battles.values():
            if battle.id not in moved and not battle.over and chooser(battle) is not None:
                await retell_choice(clock, channel, report.game_id, battle.id, choice_text(state, battle, most))


def choice_text(state: GameState, battle: Battle, most: int) -> str:
    """A battle's open choice as its message says it: who chooses what, and when its default falls."""
    nation = chooser(battle) or ""
    player = state.nations[nation].player if nation in state.nations else None
    what = f"commit 1 to {most} units" if battle.stage == "commit" else "pick the next pairing"
    due = "the clock is paused: its default waits" if state.paused or battle.deadline is None \
        else f"default {when(battle.deadline)}"
    return f"⚔ Battle #{battle.id}: {who(player) if player else safe(nation)}, {what} ({due})."


async def retell_choice(clock: Clock, channel: discord.PartialMessageable, game_id: int, battle_id: int,
                        text: str) -> None:
    """Edit the message that offers a battle's choice to say `text` (its controls stay)."""
    message_id = await clock.bot.store.choice_message(game_id, battle_id)
    if message_id is None:
        return
    try:
        await channel.get_partial_message(message_id).edit(content=text)
    except discord.HTTPException:
        log.warning("could not update the offer of battle %s's choice (message %s)", battle_id, message_id)


async def clear_choice(clock: Clock, channel: discord.PartialMessageable, game_id: int, battle_id: int) -> None:
    """Take the controls off the message that offered a battle's last choice (made or defaulted)."""
    bot = clock.bot
    old = await bot.store.choice_message(game_id, battle_id)
    if old is None:
        return
    try:
        await channel.get_partial_message(old).edit(view=None)
    except discord.HTTPException:
        log.warning("could not clear the controls of message %s", old)


def reminder_time(state: GameState) -> datetime:
    return state.turn_ends_at - timedelta(hours=state.house.reminder_hours)


def remind_at(row: GameRow, state: GameState) -> datetime | None:
    """The turn's reminder, if not given yet (none while the clock is paused)."""
    if state.paused or row.reminded_turn >= state.turn:
        return None
    return reminder_time(state)


async def remind_if_due(clock: Clock, row: GameRow, state: GameState, channel: discord.PartialMessageable) -> GameRow:
    """Once per turn, before its end: mention only the players who still have actions left."""
    if state.paused or row.reminded_turn >= state.turn or clock.now() < reminder_time(state):
        return row
    if clock.now() < state.turn_ends_at:
        waiting = [n for n in state.nations.values()
                   if n.player and not n.eliminated and actions_left(state, n) > 0]
        if waiting:
            lines = [f"⏰ Turn {state.turn} ends {when(state.turn_ends_at)}. Still to act:"]
            lines += [f"{who(n.player or '')} ({safe(n.name)}, {actions_left(state, n)} left)" for n in waiting]
            for content in _chunks(lines, CONTENT_LIMIT):
                await channel.send(content, allowed_mentions=pings(*(n.player for n in waiting)))
    bot = clock.bot
    await bot.store.set_front_end(row.id, reminded_turn=state.turn)
    return await bot.store.game(row.id)
