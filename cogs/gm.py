"""/gm …: the game master's powers. Discord offers /gm to members with Manage Server by default (a server's
admin can let a game's GM or a GM role use it, in Server Settings → Integrations); here only the game's GMs may
use it (its creator, the GM role, members with Manage Server); the engine checks each act again and logs who did
it.

This cog owns the /gm group and the powers every game shares (dice, undo, house, export, page rotate). Each rule
set's own powers are a `GMPowers` cog in its adapter's package: loading it adds its commands to this group, whose check
covers them too.
"""

from __future__ import annotations

import io
import json
import logging

import discord
from discord import app_commands
from discord.ext import commands

from cogs.host import RefereeHost
from cogs.render import finish, marked_when, text_embeds
from cogs.render.common import raw_event_line
from cogs.util import about, actor, bot_of, channel_key, described, has_gm_role, reply, run_command, state_or_none
from cogs.views import confirm_view
from engine.errors import BadInput, NoGame
from engine.rulesets import default_ruleset
from service.referee import MAX_UNDO_STEPS, NO_PAGES, PAGE_ROTATED

log = logging.getLogger("referee.gm")


async def gm_check(interaction: discord.Interaction) -> bool:
    """The channel's game's GMs only; with no game here, only the GM role or Manage Server (to import).

    A refusal is a CheckFailure: discord.py hands only AppCommandErrors to the tree's error handler."""
    if has_gm_role(interaction):
        return True
    referee = bot_of(interaction).referee
    try:  # the live game's GMs; with none, the last ended game's (to export it; the other powers need a live one)
        state = await referee.shown_state(channel_key(interaction))
    except NoGame:
        raise app_commands.CheckFailure("only a GM (the GM role or Manage Server) may use /gm here") from None
    if referee.is_gm(state, actor(interaction)):
        return True
    raise app_commands.CheckFailure("only the game's GM may use /gm commands")


class GMGroup(app_commands.Group):
    """/gm, or a group under it: its commands run for the channel's game's GMs only (discord.py checks a
    command's own group; a rule set's `GMPowers` cog checks the commands it adds in subgroups of its own)."""

    async def interaction_check(self, interaction: discord.Interaction) -> bool:
        return await gm_check(interaction)


class GM(commands.Cog):
    gm = app_commands.guild_only(GMGroup(name="gm", description="Game master powers",
                                         default_permissions=discord.Permissions(manage_guild=True)))
    page = GMGroup(name="page", description="The game's page on the web", parent=gm)

    def __init__(self, bot: RefereeHost) -> None:
        self.bot = bot

    @gm.command(name="dice", description=about("gm dice"))
    @described("gm dice")
    async def dice(self, interaction: discord.Interaction, values: str) -> None:
        await run_command(interaction, "gm dice", values=values)

    @gm.command(name="undo", description=about("gm undo"))
    @described("gm undo")
    async def undo(self, interaction: discord.Interaction,
                   steps: app_commands.Range[int, 1, MAX_UNDO_STEPS] | None = None) -> None:
        # The preview first, from the referee (the console prints the same lines); Confirm names the newest
        # action previewed and how many, so it undoes those, once, while they are still the last ones.
        steps = steps or 1
        preview = await self.bot.referee.preview_undo(channel_key(interaction), actor(interaction), steps,
                                                      gm_role=has_gm_role(interaction))
        heading, *lines = [finish(line) for line in preview.lines(raw_event_line, marked_when)]
        await reply(interaction, heading, embeds=text_embeds(lines), ephemeral=True,
                    view=confirm_view("undo", preview.game_id, interaction.user.id, preview.action_ids[0], steps))

    @gm.command(name="house", description=about("gm house"))
    @described("gm house")
    async def house(self, interaction: discord.Interaction, key: str, value: str) -> None:
        await run_command(interaction, "gm house", key=key, value=value)

    @house.autocomplete("key")
    async def house_keys(self, interaction: discord.Interaction, current: str) -> list[app_commands.Choice[str]]:
        """The house settings of this channel's game's rule set (the main game's without a game)."""
        state = await state_or_none(interaction)
        keys = self.bot.referee.rules_for(state.ruleset if state else default_ruleset().name).house.as_dict()
        return [app_commands.Choice(name=f"{k} (default {v})", value=k) for k, v in keys.items()
                if current.lower() in k][:25]

    @gm.command(name="export", description=about("gm export"))
    async def export(self, interaction: discord.Interaction) -> None:
        await interaction.response.defer(ephemeral=True, thinking=True)
        data = await self.bot.referee.export(channel_key(interaction))
        payload = io.BytesIO(json.dumps(data, indent=2).encode())
        name = f"{data['game'].get('ruleset') or default_ruleset().name}-game.json"
        said = "The channel's last game, ended: its export." if data["game"].get("ended") else "The game's export:"
        await interaction.followup.send(said, file=discord.File(payload, name), ephemeral=True)

    @page.command(name="rotate", description=about("gm page rotate"))
    async def page_rotate(self, interaction: discord.Interaction) -> None:
        # The new link to the GM alone (a secret); the channel is told that the old one died, and where the new
        # one is, so that players who kept the old link are not left with a dead page.
        pages = self.bot.pages
        if pages is None:
            raise BadInput(NO_PAGES)
        token = await self.bot.referee.rotate_page_token(channel_key(interaction), actor(interaction),
                                                         gm_role=has_gm_role(interaction))
        await reply(interaction, f"The game's page has a new link: <{pages.url(token)}>\nThe old one no longer "
                                 "works; the pinned status links to the new one.", ephemeral=True)
        await reply(interaction, PAGE_ROTATED)
        clock = self.bot.get_cog("Clock")
        refresh = getattr(clock, "refresh_status", None)
        try:  # the pinned status links to the new page now (its next update would, anyway)
            if refresh is not None:
                await refresh(await self.bot.referee.shown_game_id(channel_key(interaction)))
        except Exception:
            log.warning("could not update the pinned status after its page link changed", exc_info=True)


class GMPowers(commands.Cog):
    """A rule set's /gm subcommands: declared on the cog as usual (`@app_commands.command`, subgroups as
    `app_commands.Group` attributes), they join the shared /gm group when the cog loads (the GM cog first) and
    leave it when it unloads; the group's check keeps them to the game's GMs."""

    def __init__(self, bot: RefereeHost) -> None:
        self.bot = bot
        self._joined: list[app_commands.Command | app_commands.Group] = []
        self._group: app_commands.Group | None = None

    async def interaction_check(self, interaction: discord.Interaction) -> bool:
        """The GMs only, for the commands of its own subgroups too (discord.py checks only a command's group)."""
        return await gm_check(interaction)

    async def cog_load(self) -> None:
        shared = self.bot.get_cog("GM")
        if not isinstance(shared, GM):
            raise RuntimeError("the GM cog (cogs.gm) must be loaded before a rule set's /gm powers")
        self._group = shared.gm
        mine, self.__cog_app_commands__ = self.__cog_app_commands__, []  # none of them at the top level
        for command in mine:  # the cog's own copies, bound to it: they move under /gm as they are
            command.parent = self._group
            self._group.add_command(command)
            self._joined.append(command)

    async def cog_unload(self) -> None:
        for command in self._joined if self._group is not None else []:
            if self._group.get_command(command.name) is command:
                self._group.remove_command(command.name)
        self._joined = []


async def setup(bot: RefereeHost) -> None:
    await bot.add_cog(GM(bot))
