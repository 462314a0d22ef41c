"""/help: the channel's game's commands first (its rule set's groups, then the ones every game shares), or, where
no game runs, the shared ones and how to start each game; or one group's commands with their options."""

from __future__ import annotations

import discord
from discord import app_commands

from cogs.render import COLOUR
from engine.commands import GUIDE, SHARED, Command, group_commands, help_lines, help_sections

DESCRIPTION_LIMIT = 4096  # Discord's: the characters of an embed's description
GROUPS_LIMIT = DESCRIPTION_LIMIT - len(GUIDE) - 2  # the list of groups, with a blank line and the guide's line


def help_embed(topic: str | None, game: str | None, ids: dict[str, int],
               tree: app_commands.CommandTree | None) -> discord.Embed:
    """/help's answer in a channel whose game is of rule set `game` (None: none there): the groups, or one group's
    commands with their options, then where the guides are."""
    title, _ = help_lines(topic)
    shown = help_text(topic, ids, tree, game)
    return discord.Embed(title=title, description=fit([*shown, "", GUIDE]), colour=COLOUR)


def mention(path: str, ids: dict[str, int]) -> str:
    """A command as Discord shows it clickable (`</attack declare:id>`), or as code when its id is unknown."""
    command_id = ids.get(path)
    return f"</{path}:{command_id}>" if command_id else f"`/{path}`"


def slash_command(tree: app_commands.CommandTree | None, path: str) -> app_commands.Command | None:
    """The Discord command of a vocabulary path ("gm unit add"), if the bot has one."""
    found: object = tree.get_command(path.split()[0]) if tree is not None else None
    for word in path.split()[1:]:
        found = found.get_command(word) if isinstance(found, app_commands.Group) else None
    return found if isinstance(found, app_commands.Command) else None


def help_text(topic: str | None, ids: dict[str, int], tree: app_commands.CommandTree | None = None,
              game: str | None = None) -> list[str]:
    """/help's lines in a channel whose game is of rule set `game` (None: no game runs there): the groups
    (`group_list`), or one group's commands that game takes with their options (as Discord offers them) and
    what each does; every command a mention when its id is known."""
    if not topic:
        return group_list(ids, game)
    lines = []
    for command in group_commands(topic, game)[1]:
        slash = slash_command(tree, command.path)
        params = ([(p.name, p.required) for p in slash.parameters] if slash is not None
                  else [(p.name, p.required) for p in command.params])
        options = " ".join(f"`{name}:`" if required else f"`[{name}:]`" for name, required in params)
        lines.append(f"{mention(command.path, ids)}{' ' + options if options else ''} — {command.described}")
    return lines


def group_line(word: str, commands: list[Command], ids: dict[str, int], short: bool = False) -> str:
    """`**/economy** — </economy grow:id>, …`; `short`, the commands named as text (their topic mentions them)."""
    if short:
        names = ", ".join(c.path.split(" ", 1)[-1] for c in commands)
        return f"**/{word}** — {names} (/help topic:{word})"
    return f"**/{word}** — " + ", ".join(mention(c.path, ids) for c in commands)


def group_list(ids: dict[str, int], game: str | None = None) -> list[str]:
    """The groups with their commands (`help_sections`): in a game's channel, its rule set's under its title,
    then the shared ones; in a channel with no game, the shared ones, then how to start each game (its
    /game start and its groups). Within GROUPS_LIMIT: the longest groups name their commands as text."""
    lines: list[str] = []
    groups: dict[int, tuple[str, list[Command]]] = {}  # a line's index → its group, for shortening
    for found, section in help_sections(game):
        if found is not None and found.name != game:  # no game here: how to start this one, in one line
            if "**Start a game**" not in lines:
                lines.append("**Start a game**")
            words = ", ".join(f"/{word}" for word in section)
            lines.append(f"**{found.title}** — {mention('game start', ids)} `ruleset:{found.name}`"
                         + (f", then {words}" if words else ""))
            continue
        if found is not None:
            lines.append(f"**{found.title}** — this channel's game")
        else:
            lines.append(f"**{SHARED}**" + ("" if game is not None else " — no game in this channel yet"))
        for word, listed in section.items():
            groups[len(lines)] = (word, listed)
            lines.append(group_line(word, listed, ids))
    # Too long for one embed: the longest groups name their commands as text (their topic mentions them).
    while sum(len(line) + 1 for line in lines) > GROUPS_LIMIT:
        index = max((i for i in groups if "</" in lines[i]), key=lambda i: len(lines[i]), default=None)
        if index is None:
            break
        lines[index] = group_line(*groups[index], ids, short=True)
    return lines


def fit(lines: list[str], limit: int = DESCRIPTION_LIMIT) -> str:
    """The lines that fit an embed's description, whole (a mention cut in two would not render)."""
    kept: list[str] = []
    size = 0
    for line in lines:
        if size + len(line) + 1 > limit:
            break
        kept.append(line)
        size += len(line) + 1
    return "\n".join(kept)
