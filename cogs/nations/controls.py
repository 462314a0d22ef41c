"""Nations' battle choices as controls that keep working after a restart: their custom ids carry the game and
the battle. The defender commits units, the initiative winner picks a pairing, a player orders a retreat."""

from __future__ import annotations

from typing import Any

import discord

from cogs.controls import click_lock, guarded
from cogs.nations.autocomplete import unit_label
from cogs.nations.render import answer
from cogs.util import actor, bot_of, channel_key, has_gm_role, matched, reply, run_action
from engine.errors import RuleViolation
from engine.nations import war
from engine.nations.describe import unit_ref
from engine.nations.state import Battle, GameState, Unit


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
        select: discord.ui.Select[discord.ui.View] = discord.ui.Select(
            custom_id=f"referee:commit:{game_id}:{battle.id}", placeholder=f"Commit 1 to {most} units",
            min_values=1, max_values=min(most, len(free)) or 1,
            options=[discord.SelectOption(label=unit_label(u)[:100], value=str(u.id))
                     for u in free] or [discord.SelectOption(label="no free units", value="0")],
        )
        return cls(game_id, battle.id, select)

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction, item: discord.ui.Item[Any],
                             match: Any) -> CommitSelect:
        return cls(int(match["game"]), int(match["battle"]), matched(item, discord.ui.Select))

    async def callback(self, interaction: discord.Interaction) -> None:
        async def work() -> None:
            async with click_lock(interaction, self.game_id):
                _, battle = await _battle(interaction, self.game_id, self.battle_id)
                if battle.stage != "commit":
                    raise RuleViolation(f"the defender's units are already committed in battle #{battle.id}")
                units = [int(v) for v in self.item.values]
                await run_action(interaction, war.CommitUnits(units, battle=battle.id, nation=battle.defender),
                                 f"/attack commit battle:{battle.id} units:{' '.join(self.item.values)}", answer)

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
        select: discord.ui.Select[discord.ui.View] = discord.ui.Select(
            custom_id=f"referee:pair:{game_id}:{battle.id}", placeholder="Pick a pairing", options=options)
        return cls(game_id, battle.id, select)

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction, item: discord.ui.Item[Any],
                             match: Any) -> PairSelect:
        return cls(int(match["game"]), int(match["battle"]), matched(item, discord.ui.Select))

    async def callback(self, interaction: discord.Interaction) -> None:
        async def work() -> None:
            async with click_lock(interaction, self.game_id):
                _, battle = await _battle(interaction, self.game_id, self.battle_id)
                attacker, defender = (int(v) for v in self.item.values[0].split(":"))
                if attacker not in battle.in_fight_attacking or defender not in battle.in_fight_defending:
                    raise RuleViolation(f"that pairing is no longer open in battle #{battle.id}")
                await run_action(interaction, war.PairUnits(attacker, defender, self.battle_id),
                                 f"/attack pair battle:{self.battle_id} attacker:{attacker} defender:{defender}",
                                 answer)

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
    async def from_custom_id(cls, interaction: discord.Interaction, item: discord.ui.Item[Any],
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
        select: discord.ui.Select[discord.ui.View] = discord.ui.Select(
            custom_id=f"referee:retreat:{game_id}:{battle.id}", placeholder="Order a retreat (fight is the default)",
            options=options[:25])
        return cls(game_id, battle.id, select)

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction, item: discord.ui.Item[Any],
                             match: Any) -> RetreatSelect:
        return cls(int(match["game"]), int(match["battle"]), matched(item, discord.ui.Select))

    async def callback(self, interaction: discord.Interaction) -> None:
        async def work() -> None:
            async with click_lock(interaction, self.game_id):
                _, battle = await _battle(interaction, self.game_id, self.battle_id)
                unit = int(self.item.values[0])
                if unit in battle.retreat_orders and battle.retreat_orders[unit] is None:
                    raise RuleViolation(f"unit #{unit} is already ordered to retreat")
                await run_action(interaction, war.OrderRetreat(unit), f"/attack retreat unit:{unit}", answer)

        await guarded(interaction, work)


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


def _ref(unit: Unit) -> str:
    """`#3 infantry GREEN`, as every list of units names a unit."""
    return unit_ref(unit.id, unit.type, unit.rank)


DYNAMIC_ITEMS = (CommitSelect, PairSelect, RetreatButton, RetreatSelect)
