"""Godsfire's suggestions for its commands' options (Discord's autocomplete): systems, regions, players, purses,
counters, positions, the fields /godsfire set changes, the losses to choose. Only suggestions: the engine checks
every value again."""

from __future__ import annotations

import discord
from discord import app_commands

from cogs.frontends import Autocomplete
from cogs.godsfire.controls import counter_label
from cogs.util import actor, has_gm_role, state_or_none
from engine.game import runs_game
from engine.godsfire.common import RULESET
from engine.godsfire.maps import shipped_names
from engine.godsfire.setup import FIELDS as SET_FIELDS
from engine.godsfire.state import GodsfireState, System
from engine.names import name_key


async def _state(interaction: discord.Interaction) -> GodsfireState | None:
    return await state_or_none(interaction, RULESET)


def display(interaction: discord.Interaction, player: str | None) -> str:
    """A player's name for a choice list (mentions do not render there): the member's name if this process
    knows it, a name that is not a user id as it is."""
    if player is None:
        return "neutral"
    if not player.isdigit():
        return player
    if player == str(interaction.user.id):
        return f"{interaction.user.display_name} (you)"
    member = interaction.guild.get_member(int(player)) if interaction.guild is not None else None
    return member.display_name if member is not None else "a player"


def matching(choices: list[app_commands.Choice], current: str) -> list[app_commands.Choice]:
    key = current.strip().lower()
    return [c for c in choices if key in c.name.lower()][:25]


def system_choice(interaction: discord.Interaction, system: System) -> app_commands.Choice[str]:
    regions = f"{len(system.regions)} region{'' if len(system.regions) == 1 else 's'}"
    name = f"{system.name} ({display(interaction, system.owner)}, {regions}, bank {system.bank} GB)"
    return app_commands.Choice(name=name[:100], value=system.name[:100])


async def system_autocomplete(interaction: discord.Interaction, current: str) -> list[app_commands.Choice[str]]:
    """The game's systems: the user's own first (a GM's: all in order), each with its owner and bank."""
    state = await _state(interaction)
    if state is None:
        return []
    me = actor(interaction)
    systems = sorted(state.systems, key=lambda s: s.owner != me)  # stable: the user's own, then the others
    return matching([system_choice(interaction, s) for s in systems], current)


async def region_autocomplete(interaction: discord.Interaction, current: str) -> list[app_commands.Choice[int]]:
    """The regions of the system chosen in the command's `system` option, with party, allegiance, economy."""
    state = await _state(interaction)
    chosen = str(getattr(interaction.namespace, "system", "") or "")
    system = state.find_system(chosen) if state is not None else None
    if system is None:
        return []
    choices = []
    for region in system.regions:
        revolt = ", IN REVOLT" if region.revolt else ""
        name = f"Region {region.number}: {region.party}, allegiance {region.allegiance}, {region.economy}{revolt}"
        choices.append(app_commands.Choice(name=name[:100], value=region.number))
    key = current.strip()
    return [c for c in choices if not key or key in str(c.value) or key.lower() in c.name.lower()][:25]


async def player_autocomplete(interaction: discord.Interaction, current: str) -> list[app_commands.Choice[str]]:
    """The game's players, with their systems."""
    state = await _state(interaction)
    if state is None:
        return []
    choices = []
    for player in state.players:
        systems = ", ".join(s.name for s in state.systems_of(player.name))
        name = display(interaction, player.name) + (f" — {systems}" if systems else "")
        choices.append(app_commands.Choice(name=name[:100], value=player.name))
    return matching(choices, current)


async def purse_autocomplete(interaction: discord.Interaction, current: str) -> list[app_commands.Choice[str]]:
    """Where money can go from or to: a system's bank, the National Government (ng), the Money in Transit box."""
    state = await _state(interaction)
    fixed = [app_commands.Choice(name="ng (your National Government)", value="ng"),
             app_commands.Choice(name="transit (the Money in Transit box)", value="transit")]
    systems = [system_choice(interaction, s) for s in state.systems] if state is not None else []
    return matching([*fixed, *systems], current)


async def region_list_autocomplete(interaction: discord.Interaction,
                                   current: str) -> list[app_commands.Choice[str]]:
    """Regions of the chosen system for a list option ("1 3"): the ones typed so far, then one more."""
    state = await _state(interaction)
    chosen = str(getattr(interaction.namespace, "system", "") or "")
    system = state.find_system(chosen) if state is not None else None
    if system is None:
        return []
    typed = current.replace(",", " ").split()
    done = [t for t in typed if t.isdigit()]
    prefix = " ".join(done)
    choices = [app_commands.Choice(name=f"{prefix} {r.number}".strip(), value=f"{prefix} {r.number}".strip())
               for r in system.regions if str(r.number) not in done]
    return choices[:25]


async def lower_autocomplete(interaction: discord.Interaction, current: str) -> list[app_commands.Choice[str]]:
    """`<system> <region>` pairs of the user's systems (a GM: every system) for a voluntary economy drop."""
    state = await _state(interaction)
    if state is None:
        return []
    me = actor(interaction)
    gm = has_gm_role(interaction) or runs_game(state, me)
    choices = []
    for system in state.systems:
        if not gm and system.owner != me:
            continue
        for region in system.regions:
            value = f"{system.name} {region.number}"
            choices.append(app_commands.Choice(name=f"{value} ({region.economy})"[:100], value=value[:100]))
    return matching(choices, current)


async def field_autocomplete(interaction: discord.Interaction, current: str) -> list[app_commands.Choice[str]]:
    """The fields `/godsfire set` can change: a region's when a region is given, else a system's when a
    system is, else a player's when a player is (all of them otherwise)."""
    namespace = interaction.namespace
    if getattr(namespace, "region", None) is not None:
        kinds = ["region"]
    elif getattr(namespace, "system", None):
        kinds = ["system"]
    elif getattr(namespace, "player", None):
        kinds = ["player"]
    else:
        kinds = ["region", "system", "player"]
    names = dict.fromkeys(name for kind in kinds for name in SET_FIELDS[kind])
    return matching([app_commands.Choice(name=n, value=n) for n in names], current)


async def counters_autocomplete(interaction: discord.Interaction,
                                current: str) -> list[app_commands.Choice[str]]:
    """Counters for a list option ("3 4"): the ones typed so far, then one more of the user's (a GM's: any),
    named with where it is."""
    state = await _state(interaction)
    if state is None:
        return []
    me = actor(interaction)
    gm = has_gm_role(interaction) or runs_game(state, me)
    typed = current.replace(",", " ").replace("#", " ").split()
    done = [t for t in typed if t.isdigit()]
    prefix = " ".join(done)
    choices = []
    for c in state.counters:
        if str(c.number) in done or (not gm and (c.owner is None or name_key(c.owner) != name_key(me))):
            continue
        value = f"{prefix} {c.number}".strip()
        moved = ", moved" if c.moved == state.turn else ""
        name = f"{value} — {counter_label(state, c.number)} ({display(interaction, c.owner)}{moved})"
        choices.append(app_commands.Choice(name=name[:100], value=value[:100]))
    return choices[:25]


async def position_autocomplete(interaction: discord.Interaction,
                                current: str) -> list[app_commands.Choice[str]]:
    """Positions: each system's cell, its regions ("Sol 2", on the ground) and the cells counters are on; any
    other cell of the group's map may be typed as it is."""
    state = await _state(interaction)
    if state is None:
        return []
    names = [current.strip()] if current.strip() else []
    for system in state.systems:
        names.append(system.name)
        names += [f"{system.name} {r.number}" for r in system.regions]
    names += [c.at for c in state.counters]
    if state.board is not None and current.strip():  # the map's cells, as typed
        key = current.strip().lower()
        names += [c.name for c in state.board.cells if key in c.name.lower()][:25]
    unique = list(dict.fromkeys(n for n in names if n))
    key = current.strip().lower()
    return [app_commands.Choice(name=n[:100], value=n[:100]) for n in unique if key in n.lower()][:25]


async def losses_autocomplete(interaction: discord.Interaction, current: str) -> list[app_commands.Choice[str]]:
    """The units among which the user's pending losses are chosen (a GM: any pending)."""
    state = await _state(interaction)
    if state is None:
        return []
    me = actor(interaction)
    gm = has_gm_role(interaction) or runs_game(state, me)
    among = [n for c in state.choices if c.kind == "losses" and (gm or name_key(c.chooser) == name_key(me))
             for n in c.counters]
    sizes = {c.number: c.size for c in state.counters}
    typed = current.replace(",", " ").replace("#", " ").split()
    done = [t for t in typed if t.isdigit()]
    prefix = " ".join(done)
    # a built-up counter is named once for each unit it loses (A.2.5): offered while it has units not yet named
    choices = [app_commands.Choice(name=f"{prefix} {n} — {counter_label(state, n)}".strip()[:100],
                                   value=f"{prefix} {n}".strip()[:100])
               for n in dict.fromkeys(among) if done.count(str(n)) < sizes.get(n, 1)]
    return choices[:25]


async def map_autocomplete(interaction: discord.Interaction, current: str) -> list[app_commands.Choice[str]]:
    """The shipped maps, and none (the map taken off)."""
    key = current.strip().lower()
    return [app_commands.Choice(name=n, value=n) for n in [*shipped_names(), "none"] if key in n][:25]


COMPLETERS: dict[str, Autocomplete] = {
    "system": system_autocomplete, "region": region_autocomplete, "player": player_autocomplete,
    "purse": purse_autocomplete, "region_list": region_list_autocomplete, "lower": lower_autocomplete,
    "field": field_autocomplete, "counters": counters_autocomplete, "position": position_autocomplete,
    "losses": losses_autocomplete, "map": map_autocomplete,
}
"""The suggestions Godsfire's commands name (`Param.complete`)."""
