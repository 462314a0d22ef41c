"""A reply of the service (`service.replies`) as Discord shows it: embeds, files, buttons, mentions.

`show` renders one reply to the interaction that asked; what each kind of reply looks like lives here or in the
module of its subject (`cogs.ledger`: the ledger's pages and their buttons, `cogs.help`, `cogs.charts`). A rule set's
adapter may answer its own changes its own way (`DiscordAdapter.answer`, `answers`: God Dice's move controls,
Godsfire's buttons, Nations' battles) and lay out its own queries (`shows`); nothing here names a rule set.
"""

from __future__ import annotations

import io
import logging
import tempfile

import discord

from cogs.charts import send_chart
from cogs.controls import confirm_view
from cogs.frontends import adapter_for
from cogs.help import help_embed
from cogs.ledger import gm_log_answer, ledger_answer, story_answer
from cogs.render import (
    digest_embeds,
    finish,
    free_roll_embed,
    line_text,
    marked_when,
    report_embeds,
    results_embed,
    safe,
    secret_roll_embed,
    text_embeds,
    timestamped,
    view_embeds,
)
from cogs.render.common import raw_event_line
from cogs.util import (
    actor,
    answer_change,
    answer_events,
    bot_of,
    channel_id_of,
    reply,
)
from engine.errors import BadInput
from engine.fairness import DieFairness, fairness_lines
from engine.vocabulary import Command
from service.dispatch import Request
from service.referee import GAME_OVER, MAX_LISTED, PAGE_ABOUT, PAGE_ROTATED
from service.replies import (
    Asked,
    Attached,
    Changed,
    Digested,
    Drawn,
    GmLogPage,
    Helped,
    Judged,
    Linked,
    Listed,
    Reply,
    Rolled,
    RollsPage,
    Shown,
    Told,
)
from service.reports import GameList

log = logging.getLogger("referee.discord")
NO_GAMES = "No game is running in this server: /game start starts one in a channel."
END_PROMPT = "End this game for good? Its log and export stay in the database."


async def show(interaction: discord.Interaction, asked_for: Request, answered: Reply) -> None:
    """Render one reply to the interaction that asked for it (`asked_for`: its request)."""
    command, private = asked_for.command, answered.private
    if isinstance(answered, Changed):
        await changed(interaction, command, answered)
    elif isinstance(answered, Shown):
        await shown(interaction, asked_for, answered)
    elif isinstance(answered, Asked):
        await asked(interaction, answered)
    elif isinstance(answered, Attached):
        await attached(interaction, answered)
    elif isinstance(answered, Drawn):
        await send_chart(interaction, answered.chart)
    elif isinstance(answered, RollsPage):
        embed, view = await ledger_answer(interaction, answered.game_id, answered.where, answered.page.page,
                                          answered.size, answered.page)
        await reply(interaction, embed=embed, view=view, ephemeral=private)
    elif isinstance(answered, GmLogPage):
        embed, view = await gm_log_answer(interaction, answered.game_id, answered.page.page)
        await reply(interaction, embed=embed, view=view, ephemeral=private)
    elif isinstance(answered, Told):
        embeds, view = await story_answer(interaction, answered.game_id, answered.story.turn, answered.story)
        await reply(interaction, embeds=embeds, view=view, ephemeral=private)
    elif isinstance(answered, Digested):
        await reply(interaction, embeds=digest_embeds(answered.digest), ephemeral=private)
    elif isinstance(answered, Rolled) and answered.secret:
        await reply(interaction, embed=secret_roll_embed(actor(interaction), answered.roll, answered.number),
                    ephemeral=True)
    elif isinstance(answered, Rolled):
        await reply(interaction, embed=free_roll_embed(actor(interaction), answered.roll, answered.logged),
                    ephemeral=private)
    elif isinstance(answered, Listed):
        await reply(interaction, embeds=game_list_embeds(answered.games), ephemeral=private)
    elif isinstance(answered, Helped):
        bot = bot_of(interaction)
        await reply(interaction, embed=help_embed(answered.topic, answered.game,
                                                      bot.command_sets.ids(interaction.guild_id), bot.tree),
                    ephemeral=private)
    elif isinstance(answered, Linked):
        await linked(interaction, answered)
    elif isinstance(answered, Judged):
        await reply(interaction, embed=fairness_embed(answered.judged), ephemeral=private)
    else:
        raise TypeError(f"no Discord rendering of {type(answered).__name__}")


async def changed(interaction: discord.Interaction, command: Command, answered: Changed) -> None:
    """An action applied: what a file held first (to the asker alone), then its events as its rule set answers
    its own commands (the shared ones: as events), then the follow-up (the status, choices, reminders)."""
    report = answered.report
    if answered.lead is not None:
        await reply(interaction, finish(answered.lead), ephemeral=True)
    if not answered.events:
        return
    if answered.private:  # (the GM's entered dice: to the GM alone, the command's options with it)
        await reply(interaction, embeds=report_embeds(report.caught_up + report.events, report.state,
                                                      actor(interaction)), ephemeral=True)
        return
    adapter = adapter_for(command.ruleset) if command.ruleset is not None else None
    answer = adapter.answers.get(command.path) or adapter.answer if adapter is not None else None
    await answer_change(interaction, report, answer or answer_events)


async def shown(interaction: discord.Interaction, asked_for: Request, answered: Shown) -> None:
    """A view laid out as embeds; an ended game says so."""
    await reply(interaction, GAME_OVER if answered.over else None, embeds=view_embeds(answered.view),
                ephemeral=answered.private)


async def asked(interaction: discord.Interaction, answered: Asked) -> None:
    """A GM's step that asks first: what it would do, with Confirm and Cancel (to the GM alone)."""
    user = interaction.user.id
    if answered.what == "end":
        subject, standings = answered.subject, answered.standings
        shown = results_embed(subject, standings) if subject is not None and standings is not None else None
        said = END_PROMPT + (" These are the final standings it will post:" if shown else "")
        await reply(interaction, said, embeds=[shown] if shown is not None else [], ephemeral=True,
                    view=confirm_view("end", answered.game_id, user))
        return
    preview = answered.preview
    assert preview is not None
    heading, *lines = [finish(line) for line in preview.lines(raw_event_line, marked_when)]
    await reply(interaction, heading, embeds=text_embeds(lines), ephemeral=True,
                view=confirm_view("undo", preview.game_id, user, preview.action_ids[0], preview.steps))


async def attached(interaction: discord.Interaction, answered: Attached) -> None:
    """A file (an export): sent as an attachment, within the server's upload limit."""
    if not interaction.response.is_done():
        await interaction.response.defer(ephemeral=answered.private, thinking=True)
    if answered.data is not None:
        file = discord.File(io.BytesIO(answered.data), answered.name)
        await interaction.followup.send(answered.caption, file=file, ephemeral=answered.private)
        return
    assert answered.write is not None
    with tempfile.TemporaryFile() as handle:  # written a chunk at a time in a thread: the bot keeps answering
        count = await answered.write(handle)
        size = handle.tell()
        most = interaction.guild.filesize_limit if interaction.guild is not None else 10 * 1024 * 1024
        if size > most:
            kind = answered.name.rsplit(".", 1)[-1].upper()
            raise BadInput(f"the {kind} is {size / 2**20:.1f} MB, more than this server's upload limit of "
                           f"{most / 2**20:.0f} MB: the console writes it whole")
        handle.seek(0)
        said = f"{answered.caption}: {count} {answered.what}{'' if count == 1 else 's'}."
        await interaction.followup.send(said, file=discord.File(handle, answered.name), ephemeral=answered.private)


async def linked(interaction: discord.Interaction, answered: Linked) -> None:
    """A game's page link, to the asker alone, in <…> (Discord shows no preview: its crawler would fetch the page).
    A new link: the channel is told the old one died, and the pinned status links to the new one."""
    if not answered.rotated:
        said = "This channel's last game, ended: its page stays readable." if answered.ended else "This game's page:"
        await reply(interaction, f"{said} <{answered.url}>\n{PAGE_ABOUT}", ephemeral=True)
        return
    await reply(interaction, f"The game's page has a new link: <{answered.url}>\nThe old one no longer works; the "
                             "pinned status links to the new one.", ephemeral=True)
    await reply(interaction, PAGE_ROTATED)
    clock = bot_of(interaction).get_cog("Clock")
    refresh = getattr(clock, "refresh_status", None)
    try:  # the pinned status links to the new page now (its next update would, anyway)
        if refresh is not None:
            await refresh(answered.game_id)
    except Exception:
        log.warning("could not update the pinned status after its page link changed", exc_info=True)


def game_list_embeds(listed: GameList) -> list[discord.Embed]:
    """/game list: one line a game, its channel as a link, then how many more there are than were shown."""
    lines = []
    for key, shown_line in listed.games:
        channel = channel_id_of(key)
        lines.append(f"• {f'<#{channel}>' if channel is not None else safe(key)} — {line_text(shown_line)}")
    if listed.more:
        lines.append(f"…and {listed.more} more (at most {MAX_LISTED} are shown).")
    return text_embeds(lines or [NO_GAMES], f"Games running in this server: {listed.count}")


def fairness_embed(judged: list[DieFairness]) -> discord.Embed:
    """/log fairness: each kind of die's verdict in bold, then its faces (rolled/fair share, the GM's apart)."""
    verdicts = range(0, 2 * len(judged), 2)  # `fairness_lines`: each die's verdict, then its faces; a note last
    lines = [f"**{safe(line)}**" if index in verdicts else safe(line.strip())
             for index, line in enumerate(fairness_lines(judged))]
    return timestamped(text_embeds(lines, "🎲 Are the dice fair?"))[0]

