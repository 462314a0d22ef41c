"""The logs on Discord, shared by every rule set: /log rolls' pages, /log gm's pages, /log game's story of a turn,
/roll's free rolls and /game digest."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, date
from typing import Literal

import discord

from cogs.render.common import (
    DESCRIPTION_LIMIT,
    finish,
    raw_event_lines,
    report_embeds,
    stamp,
    strong,
    text_embeds,
    timestamped,
)
from engine.describe import faces_line, roll_line
from engine.dice import FacesRecord, FreeRoll, RollRecord, free_roll_line, secret_roll_line
from service.digest import digest_lines
from service.gmlog import GmPage, act_lines, page_footer
from service.ledger import LedgerPage
from service.reports import Digest
from service.story import Story, story_lines


def rolls_embed(rolls: list[RollRecord | FacesRecord], title: str, lead: str | None = None) -> discord.Embed:
    """The roll ledger (/log): numbered dice, dice with named faces (God Dice) and free rolls (/roll, marked as
    no rule roll), each with its turn and moment (`ledger_times`); `lead` heads the list. Stamped with the
    moment it was asked for."""
    lines = [f"T{r.turn} {moment} {ledger_line(r)}" for r, moment in zip(rolls, ledger_times(rolls), strict=True)]
    return timestamped(text_embeds(([lead] if lead else []) + (lines or ["No rolls yet."]), title))[0]


def ledger_page_embed(page: LedgerPage, title: str, lead: str | None, empty: str,
                      channel_url: str | None = None, links: Sequence[str | None] = ()) -> discord.Embed:
    """/log rolls: one page of the filtered ledger (`rolls_embed`), its footer where it stands ("Page 2 of 5 · 43
    rolls"), its title a link to the channel that announced the rolls, and each row that has one in `links` (the
    jump URL of the message that announced it) a link "[↗](…)" at its end: the newest rows first as long as the
    page stays one embed; a row with none (a free roll, an import's, an old game's) shows none."""
    lines = [f"T{r.turn} {moment} {ledger_line(r)}"
             for r, moment in zip(page.rolls, ledger_times(page.rolls), strict=True)]
    lines = _linked(lines, links, DESCRIPTION_LIMIT - (len(lead) + 1 if lead else 0))
    embed = timestamped(text_embeds(([lead] if lead else []) + (lines or [empty]), title))[0]
    if channel_url is not None:
        embed.url = channel_url
    if page.total:
        embed.set_footer(text=f"Page {page.page} of {page.pages} · {page.total} roll{'' if page.total == 1 else 's'}"
                              " · newest first")
    return embed


def jump_url(guild_id: int, channel_id: int, message_id: int) -> str:
    """A Discord message's link (what discord.py's `Message.jump_url` gives)."""
    return f"https://discord.com/channels/{guild_id}/{channel_id}/{message_id}"


def _linked(lines: list[str], links: Sequence[str | None], room: int) -> list[str]:
    """Each line with its link, if it has one, newest (last) first while they all fit `room` characters."""
    lines = list(lines)
    size = sum(len(line) + 1 for line in lines)
    for index in reversed(range(min(len(lines), len(links)))):
        if (url := links[index]) is not None and size + len(suffix := f" [↗]({url})") <= room:
            lines[index] += suffix
            size += len(suffix)
    return lines


def ledger_times(rolls: list[RollRecord | FacesRecord]) -> list[str]:
    """Each row's moment as Discord timestamps: the date once a day — the day's first row with its date and time
    (`:f`), the next ones of that day (UTC) with the time of day alone (`:t`) — and each how long ago (`:R`).
    A row of no known moment (an old import's) shows none."""
    shown: list[str] = []
    day: date | None = None
    for roll in rolls:
        if roll.at.year <= 2000:
            shown.append("")
            continue
        moment = roll.at.astimezone(UTC) if roll.at.tzinfo is not None else roll.at.replace(tzinfo=UTC)
        style: Literal["t", "f"] = "t" if moment.date() == day else "f"
        day = moment.date()
        shown.append(f"{discord.utils.format_dt(moment, style)} ({discord.utils.format_dt(moment, 'R')})")
    return shown


def raw_ledger_line(roll: RollRecord | FacesRecord) -> str:
    """One ledger row, marked but not escaped: a free /roll row (sides 0, its breakdown in `free`) with its total
    strong."""
    if isinstance(roll, FacesRecord):
        return faces_line(roll)
    if roll.free is not None:
        return raw_free_roll(roll.nation, roll.free)
    return roll_line(roll)


def ledger_line(roll: RollRecord | FacesRecord) -> str:
    """One ledger row for Discord: escaped, players as mentions, a free roll's total in bold."""
    return finish(raw_ledger_line(roll))


def raw_free_roll(player: str | None, breakdown: str) -> str:
    _, sep, total = breakdown.rpartition(" = ")
    return free_roll_line(player, breakdown, strong(total) if sep else None)


def free_roll_text(player: str | None, breakdown: str) -> str:
    """A free roll: the player as a mention, the breakdown escaped, the total in bold."""
    return finish(raw_free_roll(player, breakdown))


def secret_roll_embed(player: str | None, roll: FreeRoll, number: int | None) -> discord.Embed:
    """A secret /roll's answer, to its roller alone."""
    _, sep, total = roll.breakdown.rpartition(" = ")
    text = finish(secret_roll_line(player, roll.breakdown, number, strong(total) if sep else None))
    [embed] = timestamped(text_embeds([text], "🔒 Secret roll" + (f" #{number}" if number is not None else "")))
    embed.set_footer(text="Logged in this game's /log as a secret roll, its dice hidden; it counts for no rule.")
    return embed


def free_roll_embed(player: str | None, roll: FreeRoll, logged: bool) -> discord.Embed:
    """/roll's answer; a roll logged in the channel's game says so in its footer."""
    [embed] = timestamped(text_embeds([free_roll_text(player, roll.breakdown)], "🎲 Free roll"))
    if logged:
        embed.set_footer(text="Logged in this game's /log; it counts for no rule.")
    return embed


def digest_embeds(digest: Digest) -> list[discord.Embed]:
    """/game digest: what the clock caught up on first (a report of its own), then the digest's lines. Each
    entry's time is absolute only (a countdown on every line is noise); Discord renders no timestamp in a
    title, so the head is the first line."""
    lines = digest_lines(digest, when=stamp, events=raw_event_lines, free=raw_ledger_line)
    caught = digest.caught_up
    embeds = report_embeds(caught.events, caught.state) if caught is not None and caught.events else []
    return [*embeds, *timestamped(text_embeds([finish(line) for line in lines], "🗞 Digest"))]


def gm_log_embed(shown: GmPage, lines: list[list[str]]) -> discord.Embed:
    """/log gm: one page of the GM's log, each act's head (when, who, the command) then its changes, everything
    escaped, players as mentions, moments as timestamps; the footer where it stands."""
    entries = [finish(line) for act, own in zip(shown.acts, lines, strict=True)
               for line in act_lines(act, own, when=lambda moment: stamp(moment, "f"))]
    embed = timestamped(text_embeds(entries or ["No GM acts yet."], "🛡 The GM's log"))[0]
    if shown.total:
        embed.set_footer(text=page_footer(shown))
    return embed


def story_embeds(told: Story) -> list[discord.Embed]:
    """/log game: the turn's story over as many embeds as it needs (`reply` sends them a message's worth at a
    time); its head is the first embed's title, each entry's time absolute only."""
    lines = story_lines(told, when=stamp, events=raw_event_lines, free=raw_ledger_line)
    return timestamped(text_embeds([finish(line) for line in lines[1:]], f"📜 {lines[0]}"))
