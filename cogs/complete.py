"""The suggestions every game's commands share (Discord's autocomplete), by the name a param gives them
(`Param.complete`): a rule set's own are its adapter's (`DiscordAdapter.completers`). Only suggestions: the engine
checks every value again."""

from __future__ import annotations

import discord
from discord import app_commands

from cogs.frontends import Autocomplete, adapter_of
from cogs.quiet import suggest_zones
from cogs.util import bot_of, state_or_none
from engine.rulesets import default_ruleset


async def house_keys(interaction: discord.Interaction, current: str) -> list[app_commands.Choice[str]]:
    """The house settings of this channel's game's rule set (the main game's without a game)."""
    state = await state_or_none(interaction)
    referee = bot_of(interaction).referee
    house = getattr(referee.rules_for(state.ruleset if state else default_ruleset().name), "house", None)
    keys = house.as_dict() if house is not None else {}
    return [app_commands.Choice(name=f"{k} (default {v})", value=k) for k, v in keys.items()
            if current.lower() in k][:25]


async def sides(interaction: discord.Interaction, current: str) -> list[app_commands.Choice[str]]:
    """The sides of the channel's game, as its rule set offers them (the nations of a Nations game, the players
    of a God Dice game); nothing without a game."""
    state = await state_or_none(interaction)
    complete = adapter_of(state).whose_autocomplete if state is not None else None
    return await complete(interaction, current) if complete is not None else []


async def zones(interaction: discord.Interaction, current: str) -> list[app_commands.Choice[str]]:
    """Time zones for /remind me timezone: (tz database names, or the offset being typed), at most 25."""
    return [app_commands.Choice(name=zone, value=zone) for zone in suggest_zones(current)]


SHARED: dict[str, Autocomplete] = {"house_key": house_keys, "side": sides, "timezone": zones}
