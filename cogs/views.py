"""Buttons and selects that keep working after a restart: their custom ids carry the game and battle.

They are `DynamicItem`s registered once on the bot, so a click on a message posted before a restart
is still routed here. The engine decides who may make each choice; a click by anyone else gets the
engine's refusal, ephemeral.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import Any

import discord

from cogs.render import error_embed, report_embeds
from cogs.util import actor, bot_of, channel_key, has_gm_role, publish, reply, run_action
from engine.clock import EndGame
from engine.errors import RefereeError, RuleViolation
from engine.nations import war
from engine.nations.state import Battle, GameState

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
            options=[discord.SelectOption(label=f"#{u.id} {u.type} {u.rank} {u.hp} HP", value=str(u.id))
                     for u in free] or [discord.SelectOption(label="no free units", value="0")],
        )
        return cls(game_id, battle.id, select)

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction, item: discord.ui.Select,
                             match: Any) -> CommitSelect:
        return cls(int(match["game"]), int(match["battle"]), item)

    async def callback(self, interaction: discord.Interaction) -> None:
        async def work() -> None:
            _, battle = await _battle(interaction, self.game_id, self.battle_id)
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
                label=f"#{a} {attacker.units[a].type} against #{d} {defender.units[d].type}", value=f"{a}:{d}")
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
            await _battle(interaction, self.game_id, self.battle_id)
            attacker, defender = (int(v) for v in self.item.values[0].split(":"))
            await run_action(interaction, war.PairUnits(attacker, defender, self.battle_id),
                             f"/attack pair battle:{self.battle_id} attacker:{attacker} defender:{defender}")

        await guarded(interaction, work)


class RetreatSelect(discord.ui.DynamicItem[discord.ui.Select],
                    template=r"referee:retreat:(?P<game>\d+):(?P<battle>\d+)"):
    """Order one of your units still in the fight to retreat before its next round."""

    def __init__(self, game_id: int, battle_id: int, select: discord.ui.Select | None = None) -> None:
        self.game_id, self.battle_id = game_id, battle_id
        super().__init__(select or discord.ui.Select(custom_id=f"referee:retreat:{game_id}:{battle_id}"))

    @classmethod
    def offer(cls, game_id: int, state: GameState, battle: Battle) -> RetreatSelect:
        options = []
        for side, ids in ((battle.attacker, battle.in_fight_attacking), (battle.defender, battle.in_fight_defending)):
            for unit_id in ids:
                unit = state.nations[side].units[unit_id]
                options.append(discord.SelectOption(label=f"Retreat #{unit.id} {unit.type} ({side})",
                                                    value=str(unit.id)))
        select = discord.ui.Select(custom_id=f"referee:retreat:{game_id}:{battle.id}",
                                   placeholder="Or order a retreat (fight is the default)", options=options[:25])
        return cls(game_id, battle.id, select)

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction, item: discord.ui.Select,
                             match: Any) -> RetreatSelect:
        return cls(int(match["game"]), int(match["battle"]), item)

    async def callback(self, interaction: discord.Interaction) -> None:
        async def work() -> None:
            await _battle(interaction, self.game_id, self.battle_id)
            unit = int(self.item.values[0])
            await run_action(interaction, war.OrderRetreat(unit), f"/attack retreat unit:{unit}")

        await guarded(interaction, work)


class ConfirmButton(discord.ui.DynamicItem[discord.ui.Button],
                    template=r"referee:confirm:(?P<what>end|undo):(?P<game>\d+):(?P<user>\d+)"):
    """Confirm a GM's irreversible step (end the game, undo the last action); only the one who asked."""

    def __init__(self, what: str, game_id: int, user_id: int) -> None:
        self.what, self.game_id, self.user_id = what, game_id, user_id
        label = {"end": "End the game", "undo": "Undo it"}[what]
        super().__init__(discord.ui.Button(label=label, style=discord.ButtonStyle.danger,
                                           custom_id=f"referee:confirm:{what}:{game_id}:{user_id}"))

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction, item: discord.ui.Button,
                             match: Any) -> ConfirmButton:
        return cls(match["what"], int(match["game"]), int(match["user"]))

    async def callback(self, interaction: discord.Interaction) -> None:
        async def work() -> None:
            if interaction.user.id != self.user_id:
                raise RuleViolation("this button is not for you")
            if await bot_of(interaction).referee.store.live_game(channel_key(interaction)) != self.game_id:
                raise RuleViolation("that game is already over")
            # The prompt is ephemeral: only this response can take its button off (a message edit cannot),
            # and it must go first, or a second click would confirm again (a second undo).
            await interaction.response.edit_message(view=None)
            if self.what == "end":
                await run_action(interaction, EndGame(), "/game end")
            else:
                await confirmed_undo(interaction)

        await guarded(interaction, work)


async def confirmed_undo(interaction: discord.Interaction) -> None:
    """Undo the game's last action (after the GM confirmed)."""
    bot = bot_of(interaction)
    report = await bot.referee.undo(channel_key(interaction), actor(interaction), gm_role=has_gm_role(interaction))
    await reply(interaction, embeds=report_embeds(report.caught_up + report.events, report.state))
    await publish(interaction, report)


def confirm_view(what: str, game_id: int, user_id: int) -> discord.ui.View:
    view = discord.ui.View(timeout=None)
    view.add_item(ConfirmButton(what, game_id, user_id))
    return view


def choice_view(game_id: int, state: GameState, battle: Battle, most: int) -> discord.ui.View | None:
    """The controls for what a battle waits for now, or None."""
    view = discord.ui.View(timeout=None)
    if battle.stage == "commit":
        view.add_item(CommitSelect.offer(game_id, state, battle, most))
    elif battle.stage == "pairing":
        view.add_item(PairSelect.offer(game_id, state, battle))
        view.add_item(RetreatSelect.offer(game_id, state, battle))
    else:
        return None
    return view


DYNAMIC_ITEMS = (CommitSelect, PairSelect, RetreatSelect, ConfirmButton)
