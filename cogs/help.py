"""/help: the command groups, or one group's commands with their options."""

from __future__ import annotations

import discord
from discord import app_commands
from discord.ext import commands

from cogs.host import RefereeHost
from cogs.render import COLOUR
from cogs.util import about, described, offer_choices, reply
from engine.commands import GUIDE, help_groups, help_lines

GROUPS_LIMIT = 3800  # the list of groups, in an embed's description (4096) with the guide's line


class Help(commands.Cog):
    def __init__(self, bot: RefereeHost) -> None:
        self.bot = bot
        # The groups as the cog loads (a rule set registered since this module was imported adds its own).
        offer_choices(self.help, "topic", list(help_groups()))

    @app_commands.guild_only()
    @app_commands.command(name="help", description=about("help"))
    @described("help")
    @app_commands.choices(topic=[app_commands.Choice(name=word, value=word) for word in help_groups()][:25])
    async def help(self, interaction: discord.Interaction, topic: str | None = None) -> None:
        title, _ = help_lines(topic)  # refuses an unknown topic, with the groups there are
        shown = help_text(topic, self.bot.command_ids, self.bot.tree)
        embed = discord.Embed(title=title, description=fit([*shown, "", GUIDE]), colour=COLOUR)
        await reply(interaction, embed=embed, ephemeral=True)


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


def help_text(topic: str | None, ids: dict[str, int], tree: app_commands.CommandTree | None = None) -> list[str]:
    """/help's lines: each group with its commands, or one group's commands with their options (as Discord
    offers them) and what each does; every command a mention when its id is known."""
    groups = help_groups()
    if not topic:
        lines = {word: f"**/{word}** — " + ", ".join(mention(c.path, ids) for c in commands)
                 for word, commands in groups.items()}
        # Too long for one embed: the longest groups name their commands as text (their topic mentions them).
        while sum(len(line) + 1 for line in lines.values()) > GROUPS_LIMIT:
            word = max((w for w in lines if "</" in lines[w]), key=lambda w: len(lines[w]), default=None)
            if word is None:
                break
            names = ", ".join(c.path.split(" ", 1)[-1] for c in groups[word])
            lines[word] = f"**/{word}** — {names} (/help topic:{word})"
        return list(lines.values())
    lines = []
    for command in groups[str(topic).strip().lstrip("/").split()[0].lower()]:
        slash = slash_command(tree, command.path)
        params = ([(p.name, p.required) for p in slash.parameters] if slash is not None
                  else [(p.name, p.required) for p in command.params])
        options = " ".join(f"`{name}:`" if required else f"`[{name}:]`" for name, required in params)
        gm = " (GM)" if command.gm_only and "(GM)" not in command.help else ""
        lines.append(f"{mention(command.path, ids)}{' ' + options if options else ''} — {command.help}{gm}")
    return lines


def fit(lines: list[str], limit: int = 4000) -> str:
    """The lines that fit an embed's description, whole (a mention cut in two would not render)."""
    kept: list[str] = []
    size = 0
    for line in lines:
        if size + len(line) + 1 > limit:
            break
        kept.append(line)
        size += len(line) + 1
    return "\n".join(kept)


async def setup(bot: RefereeHost) -> None:
    await bot.add_cog(Help(bot))
