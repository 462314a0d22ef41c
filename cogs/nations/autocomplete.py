"""Nations' autocompletes: nations, presets, units (one or a list), battles and pairings. Only suggestions:
the engine checks every choice again."""

from __future__ import annotations

import re

import discord
from discord import app_commands

from cogs.frontends import Autocomplete
from cogs.util import actor, bot_of, has_gm_role, state_or_none
from engine.game import runs_game
from engine.nations.common import RULESET
from engine.nations.describe import unit_ref
from engine.nations.state import Battle, GameState, Unit
from engine.nations.war import chooser


async def _state(interaction: discord.Interaction) -> GameState | None:
    """The channel's Nations game, or None (no game, or one of another rule set)."""
    return await state_or_none(interaction, RULESET)


async def nation_autocomplete(interaction: discord.Interaction, current: str) -> list[app_commands.Choice[str]]:
    state = await _state(interaction)
    if state is None:
        return []
    names = [n.name for n in state.nations.values() if current.lower() in n.name.lower()]
    return [app_commands.Choice(name=name, value=name) for name in names[:25]]


async def own_unit_autocomplete(interaction: discord.Interaction, current: str) -> list[app_commands.Choice[int]]:
    """The user's own units (a GM sees every unit)."""
    state = await _state(interaction)
    if state is None:
        return []
    me = actor(interaction)
    gm = has_gm_role(interaction) or runs_game(state, me)
    choices = []
    for nation in state.nations.values():
        if not gm and nation.player != me:
            continue
        for unit in nation.units.values():
            label = f"{unit_label(unit)} ({nation.name})"
            if current.strip("#") in str(unit.id) or current.lower() in label.lower():
                choices.append(app_commands.Choice(name=label, value=unit.id))
    return choices[:25]


async def preset_autocomplete(interaction: discord.Interaction, current: str) -> list[app_commands.Choice[str]]:
    rules = bot_of(interaction).referee.rules_for(RULESET)
    state = await state_or_none(interaction)
    if state is not None and state.ruleset != RULESET:
        return []
    taken = {n.preset_slot for n in state.nations.values()} if state else set()
    choices = []
    for preset in rules.presets:
        if preset.slot in taken:
            continue
        label = f"{preset.slot}: {preset.name or '(unnamed: name it with name:)'}"
        if current.lower() in label.lower():
            choices.append(app_commands.Choice(name=label, value=str(preset.slot)))
    return choices[:25]


MAX_CHOICES = 25
MAX_CHOICE_TEXT = 100  # Discord's limit for a choice's name and its value


def unit_label(unit: Unit) -> str:
    """`#3 infantry GREEN 3 HP`: a unit as every list of units names it (`unit_ref`)."""
    return f"{unit_ref(unit.id, unit.type, unit.rank)} {unit.hp} HP"


def _is_gm(interaction: discord.Interaction, state: GameState) -> bool:
    return bot_of(interaction).referee.is_gm(state, actor(interaction), has_gm_role(interaction))


def _live_battles(state: GameState) -> list[Battle]:
    return [b for b in state.battles.values() if not b.over]


def _battle_option(interaction: discord.Interaction) -> int | None:
    """The `battle` option already filled in (None when empty or not a number)."""
    value = getattr(interaction.namespace, "battle", None)
    try:
        return int(str(value).lstrip("#")) if value not in (None, "") else None
    except ValueError:
        return None


def _waiting_on_me(interaction: discord.Interaction, state: GameState, stage: str) -> list[Battle]:
    """The live battles at `stage` whose choice is the user's nation's (a GM: every one), narrowed to the
    `battle` option when it is filled in."""
    gm = _is_gm(interaction, state)
    mine = state.nation_of(actor(interaction))
    wanted = _battle_option(interaction)
    return [b for b in _live_battles(state) if b.stage == stage and (wanted is None or b.id == wanted)
            and (gm or (mine is not None and chooser(b) == mine.name))]


def unit_list_choices(units: list[Unit], current: str) -> list[app_commands.Choice[str]]:
    """Complete the last number being typed in a unit list, keeping the numbers already typed:
    "1 2 " → "1 2 3 (#3 infantry GREEN 3 HP)" with the value "1 2 3"."""
    text = str(current)
    tokens = re.split(r"[\s,]+", text)
    partial = tokens[-1] if tokens else ""
    prefix = text[:len(text) - len(partial)]
    if prefix and not prefix[-1].isspace() and prefix[-1] != ",":
        prefix += " "
    typed = {t.lstrip("#") for t in tokens[:-1] if t}
    wanted = partial.lstrip("#").lower()
    found = []
    for unit in units:
        label = unit_label(unit)
        if str(unit.id) in typed or not (wanted in str(unit.id) or wanted in label.lower()):
            continue
        value = f"{prefix}{unit.id}"
        if len(value) > MAX_CHOICE_TEXT:
            continue
        name = f"{value} ({label})"
        if len(name) > MAX_CHOICE_TEXT:
            name = f"{value[:MAX_CHOICE_TEXT - len(label) - 4]}… ({label})"[:MAX_CHOICE_TEXT]
        found.append(app_commands.Choice(name=name, value=value))
    return found[:MAX_CHOICES]


async def own_units_autocomplete(interaction: discord.Interaction, current: str) -> list[app_commands.Choice[str]]:
    """A list of the user's own units not already in a battle (a GM: every nation's)."""
    state = await _state(interaction)
    if state is None:
        return []
    gm = _is_gm(interaction, state)
    me = actor(interaction)
    units = [u for n in state.nations.values() if gm or n.player == me for u in n.units.values() if u.battle is None]
    return unit_list_choices(units, current)


async def commit_units_autocomplete(interaction: discord.Interaction,
                                    current: str) -> list[app_commands.Choice[str]]:
    """A list of the defender's units for the battles waiting for the user's commitment (a GM: every such
    battle's defender's, or the one named in `battle`)."""
    state = await _state(interaction)
    if state is None:
        return []
    defenders = {b.defender for b in _waiting_on_me(interaction, state, "commit")}
    units = [u for name in defenders if name in state.nations
             for u in state.nations[name].units.values() if u.battle is None]
    return unit_list_choices(sorted(units, key=lambda u: u.id), current)


def _pairing_choices(interaction: discord.Interaction, state: GameState | None, side: str,
                     current: str) -> list[app_commands.Choice[int]]:
    if state is None:
        return []
    wanted = str(current).strip().lstrip("#").lower()
    found = []
    for battle in _waiting_on_me(interaction, state, "pairing"):
        nation = state.nations.get(battle.attacker if side == "attacker" else battle.defender)
        if nation is None:
            continue
        ids = battle.in_fight_attacking if side == "attacker" else battle.in_fight_defending
        for unit_id in ids:
            unit = nation.units.get(unit_id)
            if unit is None:
                continue
            label = f"{unit_label(unit)} ({nation.name}, battle #{battle.id})"[:MAX_CHOICE_TEXT]
            if wanted in str(unit.id) or wanted in label.lower():
                found.append(app_commands.Choice(name=label, value=unit.id))
    return found[:MAX_CHOICES]


async def pair_attacker_autocomplete(interaction: discord.Interaction,
                                     current: str) -> list[app_commands.Choice[int]]:
    """The attacking units still fighting in the battles waiting for the user's pairing (a GM: every one)."""
    return _pairing_choices(interaction, await _state(interaction), "attacker", current)


async def pair_defender_autocomplete(interaction: discord.Interaction,
                                     current: str) -> list[app_commands.Choice[int]]:
    """The defending units still fighting in the battles waiting for the user's pairing (a GM: every one)."""
    return _pairing_choices(interaction, await _state(interaction), "defender", current)


def battle_label(battle: Battle) -> str:
    return f"#{battle.id} {battle.attacker} → {battle.defender} ({battle.stage})"[:MAX_CHOICE_TEXT]


def battle_choices(battles: list[Battle], current: str) -> list[app_commands.Choice[int]]:
    wanted = str(current).strip().lstrip("#").lower()
    return [app_commands.Choice(name=battle_label(b), value=b.id) for b in battles
            if wanted in str(b.id) or wanted in battle_label(b).lower()][:MAX_CHOICES]


async def my_battle_autocomplete(interaction: discord.Interaction, current: str) -> list[app_commands.Choice[int]]:
    """The channel's live battles the user's nation fights in (a GM: every live battle)."""
    state = await _state(interaction)
    if state is None:
        return []
    gm = _is_gm(interaction, state)
    mine = state.nation_of(actor(interaction))
    battles = [b for b in _live_battles(state)
               if gm or (mine is not None and b.side_of(mine.name) is not None)]
    return battle_choices(battles, current)


async def any_battle_autocomplete(interaction: discord.Interaction, current: str) -> list[app_commands.Choice[int]]:
    """Every live battle of the channel (for looking, e.g. /attack status)."""
    state = await _state(interaction)
    return battle_choices(_live_battles(state), current) if state is not None else []


COMPLETERS: dict[str, Autocomplete] = {
    "nation": nation_autocomplete, "preset": preset_autocomplete, "own_unit": own_unit_autocomplete,
    "own_units": own_units_autocomplete, "commit_units": commit_units_autocomplete,
    "pair_attacker": pair_attacker_autocomplete, "pair_defender": pair_defender_autocomplete,
    "my_battle": my_battle_autocomplete, "any_battle": any_battle_autocomplete,
}
"""The suggestions Nations' commands name (`Param.complete`)."""
