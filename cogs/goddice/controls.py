"""God Dice's move controls: the opening roll, keep or re-roll, a button per type still to roll and a select of
the legal attacks. Their custom ids carry the game and the move; a control whose move is over is refused ("that
move is over"), and the answer to each move carries the next move's controls while the previous move's come off
their message."""

from __future__ import annotations

import logging
from typing import Any

import discord

from cogs.controls import click_lock, guarded, swap_controls
from cogs.goddice.render import FACES, move_prompt
from cogs.render import pings, report_embeds
from cogs.util import actor, bot_of, channel_key, matched, reply, run_command
from engine.errors import RuleViolation
from engine.goddice.cards import FACE_NAMES
from engine.goddice.common import campaign_game, legal_attacks, rollable, waiting_for
from engine.goddice.describe import attack_text
from engine.goddice.events import MoveAwaited
from engine.goddice.state import FAVOR, OPENING, ROLLING, GoddiceState
from service.reports import Report

log = logging.getLogger("referee.controls")

# the game, and the move: (a Campaign's later game, `game.`) its turn and the attack rolls made so far
MOVE = r"(?P<game>\d+):(?P<move>(?:\d+\.)?\d+-\d+)"


def move_of(state: GoddiceState) -> str:
    """The move a control belongs to: `turn-rolls` (each roll of the attack dice is a new move); in a Campaign's
    second game on, `game.turn-rolls` (each game counts its turns from 1)."""
    game = campaign_game(state)
    return ("" if game == 1 else f"{game}.") + f"{state.turn}-{len(state.current.rolled) if state.current else 0}"


async def _current_move(interaction: discord.Interaction, game_id: int, move: str, phase: str) -> GoddiceState:
    """The game's state if the control's move is still the one the game waits for; else a refusal."""
    referee = bot_of(interaction).referee
    if await referee.store.live_game(channel_key(interaction)) != game_id:
        raise RuleViolation("that move belongs to a game that is over")
    state = await referee.store.load(game_id)
    if state.phase != phase or move_of(state) != move:
        raise RuleViolation("that move is over")
    return state


class RollButton(discord.ui.DynamicItem[discord.ui.Button],
                 template=rf"referee:goddice:roll:{MOVE}:(?P<face>opening|[BRYO5])"):
    """The opening roll, or all the dice of one type (`/goddice roll`)."""

    def __init__(self, game_id: int, move: str, face: str, button: discord.ui.Button | None = None) -> None:
        self.game_id, self.move, self.face = game_id, move, face
        super().__init__(button or discord.ui.Button(custom_id=f"referee:goddice:roll:{game_id}:{move}:{face}"))

    @classmethod
    def offer(cls, game_id: int, state: GoddiceState, face: str) -> RollButton:
        move = move_of(state)
        custom_id = f"referee:goddice:roll:{game_id}:{move}:{face}"
        button: discord.ui.Button[discord.ui.View]
        if face == "opening":
            button = discord.ui.Button(custom_id=custom_id, label="Opening roll", emoji="🎲",
                                       style=discord.ButtonStyle.primary)
        else:
            assert state.current is not None
            style = {"B": discord.ButtonStyle.primary, "R": discord.ButtonStyle.danger}.get(
                face, discord.ButtonStyle.secondary)
            button = discord.ui.Button(custom_id=custom_id, emoji=FACES[face], style=style,
                                       label=f"Roll {FACE_NAMES[face].upper()} ×{state.current.dice.count(face)}")
        return cls(game_id, move, face, button)

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction, item: discord.ui.Item[Any],
                             match: Any) -> RollButton:
        return cls(int(match["game"]), match["move"], match["face"], matched(item, discord.ui.Button))

    async def callback(self, interaction: discord.Interaction) -> None:
        async def work() -> None:
            opening = self.face == "opening"
            async with click_lock(interaction, self.game_id):
                await _current_move(interaction, self.game_id, self.move, OPENING if opening else ROLLING)
                await run_command(interaction, "goddice roll", answer=answer_move,
                                  type=None if opening else FACE_NAMES[self.face])

        await guarded(interaction, work)


class FavorButton(discord.ui.DynamicItem[discord.ui.Button],
                  template=rf"referee:goddice:favor:{MOVE}:(?P<choice>keep|reroll)"):
    """In favor: keep the opening roll or re-roll it (`/goddice favor`)."""

    def __init__(self, game_id: int, move: str, choice: str, button: discord.ui.Button | None = None) -> None:
        self.game_id, self.move, self.choice = game_id, move, choice
        custom_id = f"referee:goddice:favor:{game_id}:{move}:{choice}"
        super().__init__(button or discord.ui.Button(
            custom_id=custom_id, label={"keep": "Keep", "reroll": "Re-roll"}[choice],
            style=discord.ButtonStyle.success if choice == "keep" else discord.ButtonStyle.danger))

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction, item: discord.ui.Item[Any],
                             match: Any) -> FavorButton:
        return cls(int(match["game"]), match["move"], match["choice"], matched(item, discord.ui.Button))

    async def callback(self, interaction: discord.Interaction) -> None:
        async def work() -> None:
            async with click_lock(interaction, self.game_id):
                await _current_move(interaction, self.game_id, self.move, FAVOR)
                await run_command(interaction, "goddice favor", answer=answer_move, choice=self.choice)

        await guarded(interaction, work)


class AttackSelect(discord.ui.DynamicItem[discord.ui.Select], template=rf"referee:goddice:attack:{MOVE}"):
    """Stop rolling and make one of the legal attacks (`/goddice attack`; Attack Any hits the defender)."""

    def __init__(self, game_id: int, move: str, select: discord.ui.Select | None = None) -> None:
        self.game_id, self.move = game_id, move
        super().__init__(select or discord.ui.Select(custom_id=f"referee:goddice:attack:{game_id}:{move}"))

    @classmethod
    def offer(cls, game_id: int, state: GoddiceState) -> AttackSelect | None:
        legal = legal_attacks(state)[:25]
        if not legal:
            return None
        move = move_of(state)
        select: discord.ui.Select[discord.ui.View] = discord.ui.Select(
            custom_id=f"referee:goddice:attack:{game_id}:{move}", placeholder="Attack now (or roll a type)",
            options=[discord.SelectOption(label=attack_text(option)[:100], value=option.attack.id)
                     for option in legal],
        )
        return cls(game_id, move, select)

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction, item: discord.ui.Item[Any],
                             match: Any) -> AttackSelect:
        return cls(int(match["game"]), match["move"], matched(item, discord.ui.Select))

    async def callback(self, interaction: discord.Interaction) -> None:
        async def work() -> None:
            async with click_lock(interaction, self.game_id):
                await _current_move(interaction, self.game_id, self.move, ROLLING)
                await run_command(interaction, "goddice attack", answer=answer_move, name=self.item.values[0])

        await guarded(interaction, work)


def move_view(game_id: int, state: GoddiceState) -> discord.ui.View | None:
    """The controls of the move the game waits for: the opening roll; keep or re-roll; a button per type
    still to roll and a select of the legal attacks. None for moves made by command only."""
    if state.ended or waiting_for(state) is None:
        return None
    view = discord.ui.View(timeout=None)
    if state.phase == OPENING:
        view.add_item(RollButton.offer(game_id, state, "opening"))
    elif state.phase == FAVOR:
        move = move_of(state)
        view.add_item(FavorButton(game_id, move, "keep"))
        view.add_item(FavorButton(game_id, move, "reroll"))
    elif state.phase == ROLLING:
        for face in rollable(state):
            view.add_item(RollButton.offer(game_id, state, face))
        attack = AttackSelect.offer(game_id, state)
        if attack is not None:
            view.add_item(attack)
    return view if view.children else None


async def answer_move(interaction: discord.Interaction, report: Report) -> None:
    """Answer a God Dice move: its events, whose move it is now (mentioned; pinged unless it is the one who
    moved) and that move's controls; the previous move's controls come off their message."""
    state = report.state
    view = move_view(report.game_id, state)
    prompt = move_prompt(state)
    waiting = waiting_for(state)
    # The prompt says whose move it is (and mentions them): the events' own "⏳ …'s move" line would repeat it.
    events = [e for e in report.caught_up + report.events if not (prompt and isinstance(e, MoveAwaited))]
    message_id = await reply(interaction, prompt, view=view, embeds=report_embeds(events, state, actor(interaction)),
                             allowed_mentions=pings(waiting if waiting != actor(interaction) else None))
    channel = bot_of(interaction).get_partial_messageable(interaction.channel_id or 0, guild_id=interaction.guild_id)
    await swap_controls(bot_of(interaction), channel, report.game_id, message_id if view else None)




DYNAMIC_ITEMS = (RollButton, FavorButton, AttackSelect)
