"""Buttons and selects that keep working after a restart: their custom ids carry the game and battle
(God Dice: the game and the move).

They are `DynamicItem`s registered once on the bot, so a click on a message posted before a restart
is still routed here. The engine decides who may make each choice; a click by anyone else gets the
engine's refusal, ephemeral. A God Dice control runs the same command as its slash command; one
whose move is over is refused ("that move is over"), and the answer to each move carries the next
move's controls while the previous move's come off their message.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from typing import Any

import discord

from cogs.host import RefereeHost
from cogs.render import FACES, error_embed, move_prompt, pings, report_embeds
from cogs.util import actor, bot_of, channel_key, has_gm_role, publish, reply, run_action, run_command, unit_label
from engine.clock import EndGame
from engine.errors import RefereeError, RuleViolation
from engine.goddice.cards import FACE_NAMES
from engine.goddice.describe import attack_text
from engine.goddice.events import MoveAwaited
from engine.goddice.play import legal_attacks, rollable, waiting_for
from engine.goddice.state import FAVOR, OPENING, ROLLING, GoddiceState
from engine.nations import war
from engine.nations.describe import unit_ref
from engine.nations.state import Battle, GameState, Unit
from referee import Report

log = logging.getLogger("referee.views")


async def guarded(interaction: discord.Interaction, work: Callable[[], Awaitable[Any]]) -> None:
    """Run a component's work; refusals and failures answer the clicker alone."""
    try:
        await work()
    except RefereeError as err:
        await reply(interaction, embed=error_embed(str(err)), ephemeral=True)
    except Exception:
        log.exception("component %s failed (guild %s, channel %s, user %s)",
                      (interaction.data or {}).get("custom_id"), interaction.guild_id, interaction.channel_id,
                      interaction.user.id)
        await reply(interaction, ephemeral=True,
                    embed=error_embed("Sorry, the referee hit a problem; it was logged. /game status shows the game."))


_click_locks: dict[tuple[int, int], asyncio.Lock] = {}


def click_lock(interaction: discord.Interaction, game_id: int) -> asyncio.Lock:
    """Clicks on one game's controls run one at a time, from the check that the choice or move is still open
    to its answer: a double click (or fifty clicks at once) applies once, and the others are told why not."""
    return _click_locks.setdefault((id(bot_of(interaction)), game_id), asyncio.Lock())


async def _battle(interaction: discord.Interaction, game_id: int, battle_id: int) -> tuple[GameState, Battle]:
    referee = bot_of(interaction).referee
    if await referee.store.live_game(channel_key(interaction)) != game_id:
        raise RuleViolation("that choice belongs to a game that is over")
    state = await referee.store.load(game_id)
    battle = state.battles.get(battle_id)
    if battle is None or battle.over:
        raise RuleViolation(f"battle #{battle_id} is over")
    return state, battle


class CommitSelect(discord.ui.DynamicItem[discord.ui.Select], template=r"referee:commit:(?P<game>\d+):(?P<battle>\d+)"):
    """The defender picks 1–3 free units to commit."""

    def __init__(self, game_id: int, battle_id: int, select: discord.ui.Select | None = None) -> None:
        self.game_id, self.battle_id = game_id, battle_id
        super().__init__(select or discord.ui.Select(custom_id=f"referee:commit:{game_id}:{battle_id}"))

    @classmethod
    def offer(cls, game_id: int, state: GameState, battle: Battle, most: int) -> CommitSelect:
        defender = state.nations[battle.defender]
        free = [u for u in defender.units.values() if u.battle is None][:25]
        select = discord.ui.Select(
            custom_id=f"referee:commit:{game_id}:{battle.id}", placeholder=f"Commit 1 to {most} units",
            min_values=1, max_values=min(most, len(free)) or 1,
            options=[discord.SelectOption(label=unit_label(u)[:100], value=str(u.id))
                     for u in free] or [discord.SelectOption(label="no free units", value="0")],
        )
        return cls(game_id, battle.id, select)

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction, item: discord.ui.Select,
                             match: Any) -> CommitSelect:
        return cls(int(match["game"]), int(match["battle"]), item)

    async def callback(self, interaction: discord.Interaction) -> None:
        async def work() -> None:
            async with click_lock(interaction, self.game_id):
                _, battle = await _battle(interaction, self.game_id, self.battle_id)
                if battle.stage != "commit":
                    raise RuleViolation(f"the defender's units are already committed in battle #{battle.id}")
                units = [int(v) for v in self.item.values]
                await run_action(interaction, war.CommitUnits(units, battle=battle.id, nation=battle.defender),
                                 f"/attack commit battle:{battle.id} units:{' '.join(self.item.values)}")

        await guarded(interaction, work)


class PairSelect(discord.ui.DynamicItem[discord.ui.Select], template=r"referee:pair:(?P<game>\d+):(?P<battle>\d+)"):
    """The initiative winner picks the next pairing; the duel is fought at once."""

    def __init__(self, game_id: int, battle_id: int, select: discord.ui.Select | None = None) -> None:
        self.game_id, self.battle_id = game_id, battle_id
        super().__init__(select or discord.ui.Select(custom_id=f"referee:pair:{game_id}:{battle_id}"))

    @classmethod
    def offer(cls, game_id: int, state: GameState, battle: Battle) -> PairSelect:
        attacker, defender = state.nations[battle.attacker], state.nations[battle.defender]
        options = [
            discord.SelectOption(
                label=f"{_ref(attacker.units[a])} against {_ref(defender.units[d])}"[:100], value=f"{a}:{d}")
            for a in battle.in_fight_attacking for d in battle.in_fight_defending
        ][:25]
        select = discord.ui.Select(custom_id=f"referee:pair:{game_id}:{battle.id}", placeholder="Pick a pairing",
                                   options=options)
        return cls(game_id, battle.id, select)

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction, item: discord.ui.Select, match: Any) -> PairSelect:
        return cls(int(match["game"]), int(match["battle"]), item)

    async def callback(self, interaction: discord.Interaction) -> None:
        async def work() -> None:
            async with click_lock(interaction, self.game_id):
                _, battle = await _battle(interaction, self.game_id, self.battle_id)
                attacker, defender = (int(v) for v in self.item.values[0].split(":"))
                if attacker not in battle.in_fight_attacking or defender not in battle.in_fight_defending:
                    raise RuleViolation(f"that pairing is no longer open in battle #{battle.id}")
                await run_action(interaction, war.PairUnits(attacker, defender, self.battle_id),
                                 f"/attack pair battle:{self.battle_id} attacker:{attacker} defender:{defender}")

        await guarded(interaction, work)


class RetreatButton(discord.ui.DynamicItem[discord.ui.Button],
                    template=r"referee:retreat-ask:(?P<game>\d+):(?P<battle>\d+)"):
    """"Order a retreat" on a battle's public pairing message: it answers each clicker alone with a select of
    their own units still in the fight (a GM with no nation in the battle: both sides')."""

    def __init__(self, game_id: int, battle_id: int) -> None:
        self.game_id, self.battle_id = game_id, battle_id
        super().__init__(discord.ui.Button(label="Order a retreat", style=discord.ButtonStyle.secondary,
                                           custom_id=f"referee:retreat-ask:{game_id}:{battle_id}"))

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction, item: discord.ui.Button,
                             match: Any) -> RetreatButton:
        return cls(int(match["game"]), int(match["battle"]))

    async def callback(self, interaction: discord.Interaction) -> None:
        async def work() -> None:
            state, battle = await _battle(interaction, self.game_id, self.battle_id)
            if battle.stage != "pairing":
                raise RuleViolation(f"battle #{battle.id} is not between duels: no retreat to order now")
            me = actor(interaction)
            mine = state.nation_of(me)
            sides = [side for side in (battle.attacker, battle.defender) if mine is not None and side == mine.name]
            gm = has_gm_role(interaction) or bot_of(interaction).referee.is_gm(state, me)
            if not sides and gm:
                sides = [battle.attacker, battle.defender]
            if not sides:
                raise RuleViolation(f"you have no units in battle #{battle.id}")
            select = RetreatSelect.offer(self.game_id, state, battle, sides)
            if not select.item.options:
                raise RuleViolation(f"you have no units left in the fight in battle #{battle.id}")
            view = discord.ui.View(timeout=None)
            view.add_item(select)
            await reply(interaction, f"Battle #{battle.id}: which unit retreats before its next round?", view=view,
                        ephemeral=True)

        await guarded(interaction, work)


class RetreatSelect(discord.ui.DynamicItem[discord.ui.Select],
                    template=r"referee:retreat:(?P<game>\d+):(?P<battle>\d+)"):
    """Order one of your units still in the fight to retreat before its next round (offered to each player
    alone, by `RetreatButton`)."""

    def __init__(self, game_id: int, battle_id: int, select: discord.ui.Select | None = None) -> None:
        self.game_id, self.battle_id = game_id, battle_id
        super().__init__(select or discord.ui.Select(custom_id=f"referee:retreat:{game_id}:{battle_id}"))

    @classmethod
    def offer(cls, game_id: int, state: GameState, battle: Battle, sides: list[str]) -> RetreatSelect:
        """The units in the fight of the nations `sides` (one player's own; a GM's: both)."""
        options = []
        for side, ids in ((battle.attacker, battle.in_fight_attacking), (battle.defender, battle.in_fight_defending)):
            for unit_id in ids if side in sides else ():
                unit = state.nations[side].units[unit_id]
                options.append(discord.SelectOption(label=f"Retreat {_ref(unit)} ({side})"[:100],
                                                    value=str(unit.id)))
        select = discord.ui.Select(custom_id=f"referee:retreat:{game_id}:{battle.id}",
                                   placeholder="Order a retreat (fight is the default)", options=options[:25])
        return cls(game_id, battle.id, select)

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction, item: discord.ui.Select,
                             match: Any) -> RetreatSelect:
        return cls(int(match["game"]), int(match["battle"]), item)

    async def callback(self, interaction: discord.Interaction) -> None:
        async def work() -> None:
            async with click_lock(interaction, self.game_id):
                _, battle = await _battle(interaction, self.game_id, self.battle_id)
                unit = int(self.item.values[0])
                if unit in battle.retreat_orders and battle.retreat_orders[unit] is None:
                    raise RuleViolation(f"unit #{unit} is already ordered to retreat")
                await run_action(interaction, war.OrderRetreat(unit), f"/attack retreat unit:{unit}")

        await guarded(interaction, work)


class ConfirmButton(discord.ui.DynamicItem[discord.ui.Button],
                    template=r"referee:confirm:(?P<what>end|undo):(?P<game>\d+):(?P<user>\d+)(?::(?P<action>\d+))?"):
    """Confirm a GM's irreversible step (end the game, undo the action named in the prompt); only the one who
    asked. An undo's custom id carries the action it undoes: however many clicks arrive at once, that action
    is undone once and every other click is told so (the referee checks it is still the last one)."""

    def __init__(self, what: str, game_id: int, user_id: int, action_id: int | None = None) -> None:
        self.what, self.game_id, self.user_id, self.action_id = what, game_id, user_id, action_id
        label = {"end": "End the game", "undo": "Undo it"}[what]
        custom_id = f"referee:confirm:{what}:{game_id}:{user_id}" + (f":{action_id}" if action_id else "")
        super().__init__(discord.ui.Button(label=label, style=discord.ButtonStyle.danger, custom_id=custom_id))

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction, item: discord.ui.Button,
                             match: Any) -> ConfirmButton:
        return cls(match["what"], int(match["game"]), int(match["user"]),
                   int(match["action"]) if match["action"] else None)

    async def callback(self, interaction: discord.Interaction) -> None:
        async def work() -> None:
            if interaction.user.id != self.user_id:
                raise RuleViolation("this button is not for you")
            if self.what == "undo" and self.action_id is None:  # a prompt posted before undo named its action
                raise RuleViolation("this confirmation is too old to say what it undoes: /gm undo again")
            if await bot_of(interaction).referee.store.live_game(channel_key(interaction)) != self.game_id:
                raise RuleViolation("that game is already over")
            # The prompt is ephemeral: only this response can take its button off (a message edit cannot).
            # Clicks that arrived together all get here; the referee applies the step once and refuses the rest
            # (an undo names its action; a game that has ended cannot end again).
            await interaction.response.edit_message(view=None)
            if self.what == "end":
                await run_action(interaction, EndGame(), "/game end")
            else:
                await confirmed_undo(interaction, self.action_id)

        await guarded(interaction, work)


async def confirmed_undo(interaction: discord.Interaction, action_id: int | None = None) -> None:
    """Undo the action the GM confirmed (if it is still the last one); in God Dice, the move undone is offered
    again."""
    bot = bot_of(interaction)
    report = await bot.referee.undo(channel_key(interaction), actor(interaction), gm_role=has_gm_role(interaction),
                                    expected=action_id)
    if report.state.ruleset == "goddice":
        await answer_move(interaction, report)
    else:
        await reply(interaction, embeds=report_embeds(report.caught_up + report.events, report.state))
    await publish(interaction, report)


def confirm_view(what: str, game_id: int, user_id: int, action_id: int | None = None) -> discord.ui.View:
    """The one-button confirmation of a GM's step (an undo names the action it undoes)."""
    view = discord.ui.View(timeout=None)
    view.add_item(ConfirmButton(what, game_id, user_id, action_id))
    return view


def choice_view(game_id: int, state: GameState, battle: Battle, most: int) -> discord.ui.View | None:
    """The controls for what a battle waits for now, or None."""
    view = discord.ui.View(timeout=None)
    if battle.stage == "commit":
        view.add_item(CommitSelect.offer(game_id, state, battle, most))
    elif battle.stage == "pairing":
        view.add_item(PairSelect.offer(game_id, state, battle))
        view.add_item(RetreatButton(game_id, battle.id))
    else:
        return None
    return view


# --- God Dice: the controls of the move the game waits for ---------------------------------------------

MOVE_CONTROLS = 0  # the `choice_messages` row (battle 0: God Dice has no battles) of a game's move controls
MOVE = r"(?P<game>\d+):(?P<move>\d+-\d+)"  # the game, and the move: its turn and the attack rolls made so far


def move_of(state: GoddiceState) -> str:
    """The move a control belongs to: `turn-rolls` (each roll of the attack dice is a new move)."""
    return f"{state.turn}-{len(state.current.rolled) if state.current else 0}"


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
    async def from_custom_id(cls, interaction: discord.Interaction, item: discord.ui.Button,
                             match: Any) -> RollButton:
        return cls(int(match["game"]), match["move"], match["face"], item)

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
    async def from_custom_id(cls, interaction: discord.Interaction, item: discord.ui.Button,
                             match: Any) -> FavorButton:
        return cls(int(match["game"]), match["move"], match["choice"], item)

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
        select = discord.ui.Select(
            custom_id=f"referee:goddice:attack:{game_id}:{move}", placeholder="Attack now (or roll a type)",
            options=[discord.SelectOption(label=attack_text(option)[:100], value=option.attack.id)
                     for option in legal],
        )
        return cls(game_id, move, select)

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction, item: discord.ui.Select,
                             match: Any) -> AttackSelect:
        return cls(int(match["game"]), match["move"], item)

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


async def swap_controls(bot: RefereeHost, channel: discord.PartialMessageable, game_id: int,
                        message_id: int | None) -> None:
    """Record the message carrying a God Dice game's move controls (None: no controls now) and take the
    controls off the message that carried them before."""
    old = await bot.store.choice_message(game_id, MOVE_CONTROLS, message_id or 0)
    if old and old != message_id:
        try:
            await channel.get_partial_message(old).edit(view=None)
        except discord.HTTPException:
            log.warning("could not clear the controls of message %s", old)


DYNAMIC_ITEMS = (CommitSelect, PairSelect, RetreatButton, RetreatSelect, ConfirmButton, RollButton, FavorButton,
                 AttackSelect)


def _ref(unit: Unit) -> str:
    """`#3 infantry GREEN`, as every list of units names a unit."""
    return unit_ref(unit.id, unit.type, unit.rank)
