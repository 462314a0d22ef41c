"""/goddice join|begin|choose|pick|declare|defend|roll|favor|attack|resurrect|status|cards.

Each move answers with its events, a mention of the player whose move it is now and, for the attack
phase, that move's controls (`cogs.goddice.views`).
"""

from __future__ import annotations

import discord
from discord import app_commands
from discord.ext import commands

from cogs.goddice.render import cards_embeds, status_embed
from cogs.goddice.views import answer_move
from cogs.host import RefereeHost
from cogs.util import about, actor, choice_list, described, has_gm_role, query_state, reply, run_command, state_or_none
from engine.goddice.common import RULESET, label, legal_attacks, turn_of
from engine.goddice.describe import attack_text
from engine.goddice.state import Character, GoddiceState, Player

FIRST = choice_list("goddice choose", "first")
CHARACTERS = choice_list("goddice pick", "character")
TYPES = choice_list("goddice roll", "type")
FAVOR = choice_list("goddice favor", "choice")


# --- autocomplete ----------------------------------------------------------------------------------


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
    if seated is None and state.active and (has_gm_role(interaction) or state.gm == me):
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


# --- the commands ----------------------------------------------------------------------------------


@app_commands.guild_only()
class Goddice(commands.GroupCog, group_name="goddice", group_description="God Dice: seats, draft, turns"):
    def __init__(self, bot: RefereeHost) -> None:
        self.bot = bot

    @app_commands.command(name="join", description=about("goddice join"))
    @described("goddice join")
    async def join(self, interaction: discord.Interaction, player: discord.Member | None = None) -> None:
        await run_command(interaction, "goddice join", answer=answer_move,
                          player=str(player.id) if player else None)

    @app_commands.command(name="begin", description=about("goddice begin"))
    async def begin(self, interaction: discord.Interaction) -> None:
        await run_command(interaction, "goddice begin", answer=answer_move)

    @app_commands.command(name="choose", description=about("goddice choose"))
    @described("goddice choose")
    @app_commands.choices(first=FIRST)
    async def choose(self, interaction: discord.Interaction, first: app_commands.Choice[str]) -> None:
        await run_command(interaction, "goddice choose", answer=answer_move, first=first.value)

    @app_commands.command(name="pick", description=about("goddice pick"))
    @described("goddice pick")
    @app_commands.choices(character=CHARACTERS)
    async def pick(self, interaction: discord.Interaction, character: app_commands.Choice[str]) -> None:
        await run_command(interaction, "goddice pick", answer=answer_move, character=character.value)

    @app_commands.command(name="declare", description=about("goddice declare"))
    @described("goddice declare")
    @app_commands.autocomplete(attacker=living_autocomplete, target=player_autocomplete)
    async def declare(self, interaction: discord.Interaction, attacker: str | None = None,
                      target: str | None = None) -> None:
        await run_command(interaction, "goddice declare", answer=answer_move, attacker=attacker, target=target)

    @app_commands.command(name="defend", description=about("goddice defend"))
    @described("goddice defend")
    @app_commands.autocomplete(character=living_autocomplete)
    async def defend(self, interaction: discord.Interaction, character: str) -> None:
        await run_command(interaction, "goddice defend", answer=answer_move, character=character)

    @app_commands.command(name="roll", description=about("goddice roll"))
    @described("goddice roll")
    @app_commands.choices(type=TYPES)
    async def roll(self, interaction: discord.Interaction, type: app_commands.Choice[str] | None = None) -> None:
        await run_command(interaction, "goddice roll", answer=answer_move, type=type.value if type else None)

    @app_commands.command(name="favor", description=about("goddice favor"))
    @described("goddice favor")
    @app_commands.choices(choice=FAVOR)
    async def favor(self, interaction: discord.Interaction, choice: app_commands.Choice[str]) -> None:
        await run_command(interaction, "goddice favor", answer=answer_move, choice=choice.value)

    @app_commands.command(name="attack", description=about("goddice attack"))
    @described("goddice attack")
    @app_commands.autocomplete(name=attack_autocomplete, targets=target_autocomplete, heal=wounded_autocomplete)
    async def attack(self, interaction: discord.Interaction, name: str, targets: str | None = None,
                     heal: str | None = None) -> None:
        await run_command(interaction, "goddice attack", answer=answer_move, name=name, targets=targets, heal=heal)

    @app_commands.command(name="resurrect", description=about("goddice resurrect"))
    @described("goddice resurrect")
    @app_commands.autocomplete(character=dead_autocomplete)
    async def resurrect(self, interaction: discord.Interaction, character: str) -> None:
        await run_command(interaction, "goddice resurrect", answer=answer_move, character=character)

    @app_commands.command(name="status", description=about("goddice status"))
    async def status(self, interaction: discord.Interaction) -> None:
        state = await query_state(interaction, "goddice status")
        await reply(interaction, embed=status_embed(state))

    @app_commands.command(name="cards", description=about("goddice cards"))
    async def cards(self, interaction: discord.Interaction) -> None:
        state = await query_state(interaction, "goddice cards")
        await reply(interaction, embeds=cards_embeds(state.cards))


async def setup(bot: RefereeHost) -> None:
    await bot.add_cog(Goddice(bot))
