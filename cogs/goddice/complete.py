"""God Dice's suggestions for its commands' options (Discord's autocomplete): the user's characters, living, dead
or wounded, the defender's characters, the legal attacks, the players. Only suggestions: the engine checks every
choice again."""

from __future__ import annotations

import discord
from discord import app_commands

from cogs.frontends import Autocomplete
from cogs.util import actor, has_gm_role, state_or_none
from engine.game import runs_game
from engine.goddice.common import RULESET, label, legal_attacks, turn_of
from engine.goddice.describe import attack_text
from engine.goddice.state import Character, GoddiceState, Player


def display(interaction: discord.Interaction, player: str) -> str | None:
    """A player's name for a choice list (mentions do not render there): the member's name if this process
    knows it, a name that is not a user id as it is (a game imported from the console), else None."""
    if not player.isdigit():
        return player
    if player == str(interaction.user.id):
        return f"{interaction.user.display_name} (you)"
    member = interaction.guild.get_member(int(player)) if interaction.guild is not None else None
    return member.display_name if member is not None else None


def character_choice(player: Player, character: Character, state: GoddiceState) -> app_commands.Choice[str]:
    name = label(player, character, state.cards)
    life = f"{character.life}/{character.max_life} life" if character.alive else "dead"
    return app_commands.Choice(name=f"{name} ({life})", value=name)


def matching(choices: list[app_commands.Choice[str]], current: str) -> list[app_commands.Choice[str]]:
    key = current.strip().lower()
    return [c for c in choices if key in c.name.lower()][:25]


async def _goddice_state(interaction: discord.Interaction) -> GoddiceState | None:
    return await state_or_none(interaction, RULESET)


def mine(interaction: discord.Interaction, state: GoddiceState) -> Player | None:
    """The user's seat; a GM who is not seated moves for the player whose move it is."""
    me = actor(interaction)
    seated = state.player(me)
    if seated is None and state.active and (has_gm_role(interaction) or runs_game(state, me)):
        return state.player(state.active)
    return seated


async def living_autocomplete(interaction: discord.Interaction, current: str) -> list[app_commands.Choice[str]]:
    """Your living characters."""
    state = await _goddice_state(interaction)
    player = mine(interaction, state) if state else None
    if state is None or player is None:
        return []
    return matching([character_choice(player, c, state) for c in player.characters if c.alive], current)


async def dead_autocomplete(interaction: discord.Interaction, current: str) -> list[app_commands.Choice[str]]:
    """Your dead characters, and declining."""
    state = await _goddice_state(interaction)
    player = mine(interaction, state) if state else None
    if state is None or player is None:
        return []
    dead = [character_choice(player, c, state) for c in player.characters if not c.alive]
    return matching([*dead, app_commands.Choice(name="decline (no resurrection)", value="decline")], current)


async def wounded_autocomplete(interaction: discord.Interaction, current: str) -> list[app_commands.Choice[str]]:
    """Your wounded living characters (Heal Any)."""
    state = await _goddice_state(interaction)
    player = mine(interaction, state) if state else None
    if state is None or player is None:
        return []
    return matching([character_choice(player, c, state) for c in player.characters
                     if c.alive and c.life < c.max_life], current)


async def target_autocomplete(interaction: discord.Interaction, current: str) -> list[app_commands.Choice[str]]:
    """The defending player's living characters (Attack Any); after a comma, the next arrow's."""
    state = await _goddice_state(interaction)
    if state is None or state.current is None or state.current.defender_player is None:
        return []
    defending = state.player(turn_of(state).defender_player or "")
    if defending is None:
        return []
    done, _, typed = current.rpartition(",")
    prefix = f"{done.strip()}, " if done.strip() else ""
    choices = [character_choice(defending, c, state) for c in defending.characters if c.alive]
    return [app_commands.Choice(name=prefix + c.name, value=prefix + c.value) for c in matching(choices, typed)]


async def attack_autocomplete(interaction: discord.Interaction, current: str) -> list[app_commands.Choice[str]]:
    """The attacks the dice make legal now, with their damage."""
    state = await _goddice_state(interaction)
    if state is None:
        return []
    return matching([app_commands.Choice(name=attack_text(option)[:100], value=option.attack.id)
                     for option in legal_attacks(state)], current)


async def player_autocomplete(interaction: discord.Interaction, current: str) -> list[app_commands.Choice[str]]:
    """The players at the table, by seat, with their characters."""
    state = await _goddice_state(interaction)
    if state is None:
        return []
    choices = []
    for player in state.players:
        characters = ", ".join(label(player, c, state.cards) for c in player.characters if c.alive)
        shown = display(interaction, player.name)
        name = f"Seat {player.seat}" + (f": {shown}" if shown else "") + (f" — {characters}" if characters else "")
        choices.append(app_commands.Choice(name=name[:100], value=player.name))
    return matching(choices, current)


async def any_character_autocomplete(interaction: discord.Interaction,
                                     current: str) -> list[app_commands.Choice[str]]:
    """The characters of the player named in the command's `player` option, living or dead (GM)."""
    state = await _goddice_state(interaction)
    player = state.player(str(getattr(interaction.namespace, "player", "") or "")) if state else None
    if state is None or player is None:
        return []
    return matching([character_choice(player, c, state) for c in player.characters], current)


COMPLETERS: dict[str, Autocomplete] = {
    "living": living_autocomplete, "dead": dead_autocomplete, "wounded": wounded_autocomplete,
    "target": target_autocomplete, "attack": attack_autocomplete, "player": player_autocomplete,
    "any_character": any_character_autocomplete,
}
"""The suggestions God Dice's commands name (`Param.complete`)."""
