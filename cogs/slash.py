"""Every command of the command table (`engine.commands`) as a Discord slash command, built from its row.

A row's path is where it sits (`/gm unit add`: the command `add` in the group `unit` of `/gm`); its groups are the
table's `Group` rows, in the order they are declared (a group the table does not describe is described by its rule
set's title); its options are its params that Discord offers (`Param.only`): their kind as the option's type (a
`Player` a user option, a `File` an attachment, a yes/no a boolean), `low`/`high` as the option's range or length,
`choices` as choices (more than Discord's 25 as suggestions), `complete` as the autocomplete its rule set's adapter
names (or one every game shares), `help` as the description. Each group lists the commands every game shares
first, then each rule set's in the registry's order: its groups, then its commands.

Every command runs the same way (`cogs.run.run_slash`): its options typed by the table, the request dispatched to
the service (`service.dispatch`), the reply rendered (`cogs.answers`). The /gm group is for the channel's game's
GMs and co-GMs (`cogs.gm.gm_check`): Discord offers it to every member, and the bot checks. /server (a server's
own settings) is for members who manage the server, by Discord's default permission and the bot's own check.
"""

from __future__ import annotations

import inspect
import keyword
from collections.abc import Callable, Coroutine, Iterable
from typing import Any

import discord
from discord import app_commands
from discord.ext import commands

from cogs.complete import SHARED as SHARED_COMPLETERS
from cogs.frontends import Autocomplete, adapter_for
from cogs.gm import GMGroup
from cogs.host import RefereeHost
from cogs.run import run_slash
from engine.commands import COMMANDS, GROUPS
from engine.rulesets import RULESETS, ruleset
from engine.vocabulary import Command as Row
from engine.vocabulary import File, Group, Param, Player, Role

DESCRIPTION_LIMIT = 100  # Discord's limit on a command's and an option's description
MAX_CHOICES = 25
FRONT = "discord"


def fit(text: str, limit: int = DESCRIPTION_LIMIT) -> str:
    """A description within Discord's limit, capitalised; when too long, cut after its last whole clause that
    fits (", …"), else at a word ("…")."""
    text = text[:1].upper() + text[1:]
    if len(text) <= limit:
        return text
    head = text[:limit - 3]
    clause = max(head.rfind(", "), head.rfind("; "))
    if clause > limit // 2 and head.count("(", 0, clause) == head.count(")", 0, clause):
        return head[:clause] + ", …"
    return text[:limit - 1].rsplit(" ", 1)[0].rstrip(",;:") + "…"


def python_name(option: str) -> str:
    """An option's name as a Python parameter (`from` → `from_`)."""
    name = option.replace("-", "_")
    return f"{name}_" if keyword.iskeyword(name) or not name.isidentifier() else name


def annotation(param: Param) -> Any:
    """The Python annotation discord.py reads the option's type, range and length from."""
    if param.kind is Player:
        return discord.Member
    if param.kind is Role:
        return discord.Role
    if param.kind is File:
        return discord.Attachment
    if param.kind is bool:
        return bool
    if param.kind in (int, float) and (param.low is not None or param.high is not None):
        return app_commands.Range[param.kind, param.low, param.high]
    if param.kind is str and (param.low is not None or param.high is not None):
        low = int(param.low) if param.low is not None else None
        high = int(param.high) if param.high is not None else None
        return app_commands.Range[str, low, high]
    return param.kind


def completer(command: Row, name: str) -> Autocomplete:
    """The autocomplete a param names: its rule set's adapter's, else one every game shares."""
    own = adapter_for(command.ruleset).completers if command.ruleset is not None else {}
    found = own.get(name) or SHARED_COMPLETERS.get(name)
    if found is None:
        raise RuntimeError(f"/{command.path}: no autocomplete named {name!r} (its rule set's adapter lists them)")
    return found


def complete_from(values: Iterable[str]) -> Autocomplete:
    """An autocomplete offering the values that contain what is typed (more values than Discord's 25 choices)."""
    listed = list(values)

    async def complete(interaction: discord.Interaction, current: str) -> list[app_commands.Choice[str]]:
        key = current.strip().lower()
        return [app_commands.Choice(name=v, value=v) for v in listed if key in v.lower()][:MAX_CHOICES]

    return complete


def callback_for(command: Row) -> Callable[..., Coroutine[Any, Any, None]]:
    """A slash command's callback whose parameters are the command's Discord options, typed, ranged, described,
    with their choices and suggestions, all from the table (discord.py reads them from its signature)."""
    params = command.params_for(FRONT)
    renamed = {python_name(p.name): p.name for p in params if python_name(p.name) != p.name}
    signature = [inspect.Parameter("interaction", inspect.Parameter.POSITIONAL_OR_KEYWORD,
                                   annotation=discord.Interaction)]
    for param in params:
        kind = annotation(param)
        signature.append(inspect.Parameter(
            python_name(param.name), inspect.Parameter.KEYWORD_ONLY, annotation=kind if param.required else kind | None,
            default=inspect.Parameter.empty if param.required else None))

    async def callback(interaction: discord.Interaction, **options: Any) -> None:
        given = {renamed.get(name, name): value for name, value in options.items() if value is not None}
        await run_slash(interaction, command, given)

    # (a function's __signature__ is no attribute typeshed declares; inspect.signature reads it)
    callback.__signature__ = inspect.Signature(signature)  # type: ignore[attr-defined]
    decorated: Any = app_commands.describe(**{python_name(p.name): fit(p.help or p.name.replace("_", " "))
                                              for p in params})(callback)
    fixed = {python_name(p.name): [app_commands.Choice(name=c, value=c) for c in p.choices]
             for p in params if p.choices and p.kind is str}
    few = {name: listed for name, listed in fixed.items() if len(listed) <= MAX_CHOICES}
    if few:
        decorated = app_commands.choices(**few)(decorated)
    suggested = {name: complete_from(c.value for c in listed) for name, listed in fixed.items()
                 if len(listed) > MAX_CHOICES}
    suggested.update({python_name(p.name): completer(command, p.complete) for p in params if p.complete})
    if suggested:
        decorated = app_commands.autocomplete(**suggested)(decorated)
    if renamed:
        decorated = app_commands.rename(**renamed)(decorated)
    return decorated


class Tree:
    """The slash commands being built: each group by its path, the top-level ones in order."""

    def __init__(self, groups: dict[str, Group]) -> None:
        self.described = groups
        self.groups: dict[str, app_commands.Group] = {}
        self.top: list[app_commands.Command[Any, ..., Any] | app_commands.Group] = []

    def group(self, path: str, title: str) -> app_commands.Group:
        """The group of that path, made (with its parents) when new."""
        found = self.groups.get(path)
        if found is not None:
            return found
        words = path.split()
        parent = self.group(" ".join(words[:-1]), title) if len(words) > 1 else None
        described = self.described.get(path)
        description = described.help if described is not None else fit(f"{title}: /{path}")
        gm = words[0] == "gm"
        kind = GMGroup if gm else app_commands.Group
        extra: dict[str, Any] = {}
        if parent is None and described is not None and described.manage_server:
            extra["default_permissions"] = discord.Permissions(manage_guild=True)
        made = kind(name=words[-1], description=description, parent=parent, **extra)
        if parent is None:
            app_commands.guild_only(made)
            self.top.append(made)
        self.groups[path] = made
        return made

    def add(self, command: Row, title: str) -> None:
        words = command.path.split()
        parent = self.group(" ".join(words[:-1]), title) if len(words) > 1 else None
        built: app_commands.Command[Any, ..., Any] = app_commands.Command(
            name=words[-1], description=fit(command.described), callback=callback_for(command), parent=parent)
        if parent is None:
            app_commands.guild_only(built)
            self.top.append(built)
        else:
            parent.add_command(built)


def build() -> list[app_commands.Command[Any, ..., Any] | app_commands.Group]:
    """Every command of the table as slash commands: the top-level commands and groups, in order."""
    sections: list[tuple[str | None, tuple[Group, ...]]] = [(None, GROUPS)]
    sections += [(name, found.groups) for name, found in RULESETS.items()]
    described = {g.path: g for _, groups in sections for g in groups}
    tree = Tree(described)
    for name, groups in sections:
        title = ruleset(name).title if name is not None else "Referee"
        for group in groups:
            tree.group(group.path, title)
        for command in COMMANDS:
            if command.ruleset == name:
                tree.add(command, title)
    return tree.top


class Slash(commands.Cog):
    """The command table's commands, on the bot's tree while this cog is loaded."""

    def __init__(self, bot: RefereeHost) -> None:
        self.bot = bot
        self._added: list[str] = []

    async def cog_load(self) -> None:
        for top in build():
            self.bot.tree.add_command(top)
            self._added.append(top.name)

    async def cog_unload(self) -> None:
        for name in self._added:
            self.bot.tree.remove_command(name)
        self._added = []


async def setup(bot: RefereeHost) -> None:
    await bot.add_cog(Slash(bot))
