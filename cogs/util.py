"""What every cog shares: who and where an interaction is, answering it once, running a command."""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable
from typing import Any, cast

import discord
from discord import app_commands

from cogs.host import RefereeHost
from cogs.render import NO_PINGS, message_batches, report_embeds
from engine.commands import BY_PATH, build_action, check_ruleset, choices, coerce_options
from engine.errors import NoGame
from engine.nations.describe import unit_ref
from engine.nations.state import Battle, GameState, Unit
from engine.nations.war import chooser
from referee import Report


def bot_of(interaction: discord.Interaction) -> RefereeHost:
    """The bot that received the interaction: the one that loaded the cogs."""
    return cast(RefereeHost, interaction.client)


def channel_key(interaction: discord.Interaction) -> str:
    """Where a game lives: one game per channel, many per server."""
    if interaction.guild_id is None:
        raise NoGame("games are played in a server channel, not in direct messages")
    return f"discord:{interaction.guild_id}:{interaction.channel_id}"


def channel_id_of(key: str) -> int | None:
    parts = key.split(":")
    return int(parts[2]) if len(parts) == 3 and parts[0] == "discord" else None


def actor(interaction: discord.Interaction) -> str:
    """A player is their Discord user id; it renders as a mention."""
    return str(interaction.user.id)


def has_gm_role(interaction: discord.Interaction) -> bool:
    """Members with Manage Server or the configured GM role are GMs of every game in the server."""
    member = interaction.user
    if not isinstance(member, discord.Member):
        return False
    if member.guild_permissions.manage_guild:
        return True
    wanted = bot_of(interaction).settings.gm_role.lower()
    return any(role.name.lower() == wanted for role in member.roles)


async def reply(interaction: discord.Interaction, content: str | None = None, *, embeds: list[discord.Embed] = (),
                embed: discord.Embed | None = None, ephemeral: bool = False, view: discord.ui.View | None = None,
                file: discord.File | None = None,
                allowed_mentions: discord.AllowedMentions | None = None) -> int | None:
    """Answer an interaction once; what does not fit one message follows up. Returns the id of the first
    message (the one carrying the content and the view), when Discord says it.

    It pings no one unless `allowed_mentions` names whom (`render.pings`)."""
    batches = message_batches([embed] if embed is not None else list(embeds))
    extra: dict[str, Any] = {"allowed_mentions": allowed_mentions or NO_PINGS}
    if view is not None:
        extra["view"] = view
    if file is not None:
        extra["file"] = file
    first, rest = batches[0], batches[1:]
    if interaction.response.is_done():
        sent = await interaction.followup.send(content or "", embeds=first, ephemeral=ephemeral, wait=True, **extra)
        message_id: int | None = sent.id
    else:
        response = await interaction.response.send_message(content, embeds=first, ephemeral=ephemeral, **extra)
        message_id = response.message_id
    for batch in rest:
        await interaction.followup.send(embeds=batch, ephemeral=ephemeral, allowed_mentions=NO_PINGS)
    return message_id


def given_options(**values: Any) -> dict[str, Any]:
    """The options the user gave (the others arrive as None)."""
    return {name: value for name, value in values.items() if value is not None}


def command_text(path: str, given: dict[str, Any]) -> str:
    """The command as the game's log records it: its path and the options given, e.g. "/log limit:5"."""
    return "/" + " ".join([path, *(f"{k}:{v}" for k, v in given.items())])


Answer = Callable[[discord.Interaction, Report], Awaitable[None]]
"""How a command's result is answered when not as its events alone (God Dice: with the next move's controls)."""


async def run_command(interaction: discord.Interaction, path: str, *, answer: Answer | None = None,
                      **options: Any) -> Report:
    """Run one vocabulary command as the interaction's user, answer with its events, then publish.

    A rule set's command is refused in a channel whose game is of another rule set."""
    command = BY_PATH[path]
    if command.ruleset is not None:
        check_ruleset(command, await bot_of(interaction).referee.ruleset_name(channel_key(interaction)))
    given = given_options(**options)
    action = build_action(command, coerce_options(command, given))
    return await run_action(interaction, action, command_text(path, given), answer)


async def run_action(interaction: discord.Interaction, action: Any, text: str,
                     answer: Answer | None = None) -> Report:
    """Run one engine action as the interaction's user, answer with its events (or `answer`), then publish."""
    bot = bot_of(interaction)
    report = await bot.referee.act(channel_key(interaction), actor(interaction), action, text,
                                   gm_role=has_gm_role(interaction))
    if answer is not None:
        await answer(interaction, report)
    else:
        await reply(interaction, embeds=report_embeds(report.caught_up + report.events, report.state,
                                                      actor(interaction)))
    await publish(interaction, report)
    return report


async def publish(interaction: discord.Interaction, report: Report) -> None:
    """After a change: the clock reschedules, the status message updates, battle choices are offered."""
    clock = bot_of(interaction).get_cog("Clock")
    if clock is not None:
        await clock.after_change(report)  # type: ignore[attr-defined]


async def game_state(interaction: discord.Interaction) -> Any:
    """The channel's game's state (a Nations `GameState`, a God Dice `GoddiceState`…)."""
    return await bot_of(interaction).referee.state(channel_key(interaction))


async def query_state(interaction: discord.Interaction, path: str) -> Any:
    """The state for a query of the vocabulary: a rule set's query is refused, with the reason, in a game
    of another rule set."""
    state = await game_state(interaction)
    check_ruleset(BY_PATH[path], state.ruleset)
    return state


# --- autocomplete --------------------------------------------------------------------------------


def choice_list(path: str, param: str) -> list[app_commands.Choice[str]]:
    """Discord choices for a vocabulary option with fixed values."""
    return [app_commands.Choice(name=value, value=value) for value in choices(path, param)]


async def state_or_none(interaction: discord.Interaction, ruleset: str | None = None) -> Any:
    """The channel's game's state for an autocomplete: None without a game (or with one of another rule set)."""
    try:
        state = await game_state(interaction)
    except NoGame:
        return None
    return state if ruleset is None or state.ruleset == ruleset else None


async def nation_autocomplete(interaction: discord.Interaction, current: str) -> list[app_commands.Choice[str]]:
    state: GameState | None = await state_or_none(interaction, "nations")
    if state is None:
        return []
    names = [n.name for n in state.nations.values() if current.lower() in n.name.lower()]
    return [app_commands.Choice(name=name, value=name) for name in names[:25]]


async def own_unit_autocomplete(interaction: discord.Interaction, current: str) -> list[app_commands.Choice[int]]:
    """The user's own units (a GM sees every unit)."""
    state: GameState | None = await state_or_none(interaction, "nations")
    if state is None:
        return []
    me = actor(interaction)
    gm = has_gm_role(interaction) or state.gm == me
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
    rules = bot_of(interaction).referee.rules
    state = await state_or_none(interaction)
    if state is not None and state.ruleset != "nations":
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


# Unit lists ("1 2 3") and battle numbers: only suggestions; the engine checks every choice again.

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
    state: GameState | None = await state_or_none(interaction, "nations")
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
    state: GameState | None = await state_or_none(interaction, "nations")
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
        ids = battle.in_fight_attacking if side == "attacker" else battle.in_fight_defending
        for unit_id in ids:
            unit = nation.units.get(unit_id) if nation is not None else None
            if unit is None:
                continue
            label = f"{unit_label(unit)} ({nation.name}, battle #{battle.id})"[:MAX_CHOICE_TEXT]
            if wanted in str(unit.id) or wanted in label.lower():
                found.append(app_commands.Choice(name=label, value=unit.id))
    return found[:MAX_CHOICES]


async def pair_attacker_autocomplete(interaction: discord.Interaction,
                                     current: str) -> list[app_commands.Choice[int]]:
    """The attacking units still fighting in the battles waiting for the user's pairing (a GM: every one)."""
    return _pairing_choices(interaction, await state_or_none(interaction, "nations"), "attacker", current)


async def pair_defender_autocomplete(interaction: discord.Interaction,
                                     current: str) -> list[app_commands.Choice[int]]:
    """The defending units still fighting in the battles waiting for the user's pairing (a GM: every one)."""
    return _pairing_choices(interaction, await state_or_none(interaction, "nations"), "defender", current)


def battle_label(battle: Battle) -> str:
    return f"#{battle.id} {battle.attacker} → {battle.defender} ({battle.stage})"[:MAX_CHOICE_TEXT]


def battle_choices(battles: list[Battle], current: str) -> list[app_commands.Choice[int]]:
    wanted = str(current).strip().lstrip("#").lower()
    return [app_commands.Choice(name=battle_label(b), value=b.id) for b in battles
            if wanted in str(b.id) or wanted in battle_label(b).lower()][:MAX_CHOICES]


async def my_battle_autocomplete(interaction: discord.Interaction, current: str) -> list[app_commands.Choice[int]]:
    """The channel's live battles the user's nation fights in (a GM: every live battle)."""
    state: GameState | None = await state_or_none(interaction, "nations")
    if state is None:
        return []
    gm = _is_gm(interaction, state)
    mine = state.nation_of(actor(interaction))
    battles = [b for b in _live_battles(state)
               if gm or (mine is not None and b.side_of(mine.name) is not None)]
    return battle_choices(battles, current)


async def any_battle_autocomplete(interaction: discord.Interaction, current: str) -> list[app_commands.Choice[int]]:
    """Every live battle of the channel (for looking, e.g. /attack status)."""
    state: GameState | None = await state_or_none(interaction, "nations")
    return battle_choices(_live_battles(state), current) if state is not None else []
