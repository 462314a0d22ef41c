"""Slash commands built from a rule set's command table, for every registered rule set without a Discord
package of its own (`RuleSet.discord` None): a fourth game is playable on Discord with nothing written here.

Each command's first word is its group (`/race join`, `/race roll`); a `gm …` command joins the shared /gm
group (GMs only). Options follow the table: text, whole numbers and numbers, its help as their description,
its choices as choices, required as required; the option naming a TOML file (`Command.toml_option`) is an
attachment, read before the action is built. An action runs through `run_command` (refused, with the reason,
in a game of another rule set); a query (`Command.view`) answers with its view laid out as embeds.
"""

from __future__ import annotations

import inspect
import keyword
from collections.abc import Awaitable, Callable
from typing import Any

import discord
from discord import app_commands
from discord.ext import commands

from cogs.gm import GM, GMGroup, gm_check
from cogs.host import RefereeHost
from cogs.render import safe, view_embeds
from cogs.util import about, actor, answer_events, bot_of, channel_key, fit, read_toml, reply, run_command
from engine.commands import BY_PATH, MAX_TOML_FILE, Command, coerce_options
from engine.errors import BadInput
from engine.rulesets import RULESETS
from service.referee import GAME_OVER, Report

KINDS: dict[type, type] = {str: str, int: int, float: float}
MAX_CHOICES = 25


def python_name(option: str) -> str:
    """An option's name as a Python parameter (`from` → `from_`)."""
    name = option.replace("-", "_")
    return f"{name}_" if keyword.iskeyword(name) or not name.isidentifier() else name


async def answer(interaction: discord.Interaction, command: Command, given: dict[str, Any]) -> None:
    """Run one command of the table as the interaction's user: a query's view, or an action."""
    if command.view is not None:
        shown, state = await bot_of(interaction).referee.show(channel_key(interaction), command, actor(interaction),
                                                             coerce_options(command, given))
        await reply(interaction, GAME_OVER if state.ended else None, embeds=view_embeds(shown))
        return
    file = given.get(command.toml_option or "")
    if not isinstance(file, discord.Attachment):
        await run_command(interaction, command.path, **given)
        return
    # A file read first: ephemeral, like /game import, so that a refusal (too large, not TOML, not valid)
    # reaches its sender alone; the change itself is then answered to the channel.
    if file.size > MAX_TOML_FILE:
        raise BadInput(f"that file is too large ({file.size} bytes; at most {MAX_TOML_FILE})")
    await interaction.response.defer(ephemeral=True, thinking=True)
    given = {**given, command.toml_option: await read_toml(file, MAX_TOML_FILE, "a TOML file")}

    async def read(interaction: discord.Interaction, report: Report) -> None:
        await reply(interaction, f"{safe(file.filename)} read.", ephemeral=True)
        await answer_events(interaction, report)

    await run_command(interaction, command.path, answer=read, **given)


def callback_for(command: Command) -> Callable[..., Awaitable[None]]:
    """A slash command's callback whose parameters are the command's options, typed and described from the
    table (discord.py reads them from its signature)."""
    renamed: dict[str, str] = {}
    parameters = [inspect.Parameter("interaction", inspect.Parameter.POSITIONAL_OR_KEYWORD,
                                    annotation=discord.Interaction)]
    for param in command.params:
        name = python_name(param.name)
        if name != param.name:
            renamed[name] = param.name
        kind: Any = discord.Attachment if param.name == command.toml_option else KINDS.get(param.kind, str)
        parameters.append(inspect.Parameter(
            name, inspect.Parameter.KEYWORD_ONLY, annotation=kind if param.required else kind | None,
            default=inspect.Parameter.empty if param.required else None))

    async def callback(interaction: discord.Interaction, **options: Any) -> None:
        given = {renamed.get(name, name): value for name, value in options.items() if value is not None}
        await answer(interaction, command, given)

    callback.__signature__ = inspect.Signature(parameters)  # type: ignore[attr-defined]
    descriptions = {python_name(p.name): fit(p.help) for p in command.params if p.help}
    descriptions.update({python_name(p.name): fit(p.name.replace("_", " "))
                         for p in command.params if not p.help})  # Discord needs one for each option
    decorated: Any = app_commands.describe(**descriptions)(callback)
    fixed = {python_name(p.name): [app_commands.Choice(name=c, value=c) for c in p.choices]
             for p in command.params if p.choices and KINDS.get(p.kind, str) is str and p.name != command.toml_option}
    if any(len(c) <= MAX_CHOICES for c in fixed.values()):
        decorated = app_commands.choices(**{k: v for k, v in fixed.items() if len(v) <= MAX_CHOICES})(decorated)
    many = {k: v for k, v in fixed.items() if len(v) > MAX_CHOICES}
    if many:
        decorated = app_commands.autocomplete(**{k: complete_from([c.value for c in v])
                                                 for k, v in many.items()})(decorated)
    if renamed:
        decorated = app_commands.rename(**renamed)(decorated)
    return decorated


def complete_from(values: list[str]) -> Callable[[discord.Interaction, str], Awaitable[list[app_commands.Choice[str]]]]:
    """An autocomplete offering the values that contain what is typed (more values than Discord's 25 choices)."""
    async def complete(interaction: discord.Interaction, current: str) -> list[app_commands.Choice[str]]:
        key = current.strip().lower()
        return [app_commands.Choice(name=v, value=v) for v in values if key in v.lower()][:MAX_CHOICES]

    return complete


def slash_command(command: Command, parent: app_commands.Group | None) -> app_commands.Command:
    name = command.path.split()[-1]
    built = app_commands.Command(name=name, description=about(command.path), callback=callback_for(command),
                                 parent=parent)
    if command.path.split()[0] == "gm":
        built.add_check(gm_check)  # whichever /gm group it lands in
    if parent is None:
        app_commands.guild_only(built)
    return built


class Vocabulary(commands.Cog):
    """The commands of every registered rule set that has no Discord package of its own."""

    def __init__(self, bot: RefereeHost) -> None:
        self.bot = bot
        self._top: list[str] = []  # the top-level groups and commands it added to the tree
        self._under: list[tuple[app_commands.Group, str]] = []  # what it added to a group it did not make

    async def cog_load(self) -> None:
        for found in RULESETS.values():
            if found.discord is not None:
                continue
            for own in found.commands:
                command = BY_PATH[own.path]  # as the table holds it (its rule set named)
                if command.action is None and command.view is None:
                    continue  # a front-end's own command: nothing the engine answers by itself
                self.add(command, found.title)

    def group(self, words: list[str], title: str) -> app_commands.Group | None:
        """The group a command of these words goes in (made if new); None for a one-word command."""
        if len(words) == 1:
            return None
        if words[0] == "gm":
            shared = self.bot.get_cog("GM")
            if not isinstance(shared, GM):
                raise RuntimeError("the GM cog (cogs.gm) must be loaded before a rule set's /gm commands")
            top: app_commands.Group = shared.gm
        else:
            found = self.bot.tree.get_command(words[0])
            if found is None:
                found = app_commands.Group(name=words[0], description=fit(f"{title}: /{words[0]}"))
                app_commands.guild_only(found)
                self.bot.tree.add_command(found)
                self._top.append(words[0])
            if not isinstance(found, app_commands.Group):
                raise RuntimeError(f"/{words[0]} is already a command: a rule set's group cannot take its name")
            top = found
        if len(words) == 2:
            return top
        sub = top.get_command(words[1])
        if sub is None:
            sub = (GMGroup if words[0] == "gm" else app_commands.Group)(
                name=words[1], description=fit(f"{title}: /{' '.join(words[:2])}"))
            self._attach(top, sub, words[0])
        if not isinstance(sub, app_commands.Group):
            raise RuntimeError(f"/{' '.join(words[:2])} is already a command: it cannot be a group too")
        return sub

    def _attach(self, group: app_commands.Group, item: app_commands.Command | app_commands.Group, top: str) -> None:
        group.add_command(item)
        if top not in self._top:  # a group it made goes with its children
            self._under.append((group, item.name))

    def add(self, command: Command, title: str) -> None:
        words = command.path.split()
        parent = self.group(words, title)
        built = slash_command(command, parent)
        if parent is None:
            self.bot.tree.add_command(built)
            self._top.append(built.name)
        else:
            self._attach(parent, built, words[0])

    async def cog_unload(self) -> None:
        for group, name in reversed(self._under):
            group.remove_command(name)
        for name in self._top:
            self.bot.tree.remove_command(name)
        self._top, self._under = [], []


async def setup(bot: RefereeHost) -> None:
    await bot.add_cog(Vocabulary(bot))
