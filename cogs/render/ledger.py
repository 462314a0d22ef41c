"""The roll ledger on Discord, shared by every rule set: /log rolls' pages, /roll's free rolls and /game digest."""

from __future__ import annotations

from datetime import UTC, date

import discord

from cogs.render.common import finish, raw_event_lines, report_embeds, stamp, strong, text_embeds, timestamped
from engine.describe import faces_line, roll_line
from engine.dice import FacesRecord, FreeRoll, RollRecord, free_roll_line
from ledger import LedgerPage
from referee import Digest, digest_lines


def rolls_embed(rolls: list[RollRecord | FacesRecord], title: str, lead: str | None = None) -> discord.Embed:
    """The roll ledger (/log): numbered dice, dice with named faces (God Dice) and free rolls (/roll, marked as
    no rule roll), each with its turn and moment (`ledger_times`); `lead` heads the list. Stamped with the
    moment it was asked for."""
    lines = [f"T{r.turn} {moment} {ledger_line(r)}" for r, moment in zip(rolls, ledger_times(rolls), strict=True)]
    return timestamped(text_embeds(([lead] if lead else []) + (lines or ["No rolls yet."]), title))[0]


def ledger_page_embed(page: LedgerPage, title: str, lead: str | None, empty: str,
                      channel_url: str | None = None) -> discord.Embed:
    """/log rolls: one page of the filtered ledger (`rolls_embed`), its footer where it stands ("Page 2 of 5 · 43
    rolls"), its title a link to the channel that announced the rolls (the store keeps no report's message id)."""
    lines = [f"T{r.turn} {moment} {ledger_line(r)}"
             for r, moment in zip(page.rolls, ledger_times(page.rolls), strict=True)]
    embed = timestamped(text_embeds(([lead] if lead else []) + (lines or [empty]), title))[0]
    if channel_url is not None:
        embed.url = channel_url
    if page.total:
        embed.set_footer(text=f"Page {page.page} of {page.pages} · {page.total} roll{'' if page.total == 1 else 's'}"
                              " · newest first")
    return embed


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
        style = "t" if moment.date() == day else "f"
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
