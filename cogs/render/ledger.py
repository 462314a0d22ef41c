"""The roll ledger on Discord, shared by every rule set: /log's rows, /roll's free rolls and /game digest."""

from __future__ import annotations

import discord

from cogs.render.common import finish, raw_event_lines, report_embeds, stamp, strong, text_embeds, when
from engine.describe import faces_line, roll_line
from engine.dice import FacesRecord, FreeRoll, RollRecord, free_roll_line
from referee import Digest, digest_lines


def rolls_embed(rolls: list[RollRecord | FacesRecord], title: str, lead: str | None = None) -> discord.Embed:
    """The roll ledger (/log): numbered dice, dice with named faces (God Dice) and free rolls (/roll, marked as
    no rule roll); `lead` heads the list."""
    lines = [f"T{r.turn} {when(r.at) if r.at.year > 2000 else ''} {ledger_line(r)}" for r in rolls] or ["No rolls yet."]
    return text_embeds(([lead] if lead else []) + lines, title)[0]


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
    [embed] = text_embeds([free_roll_text(player, roll.breakdown)], "🎲 Free roll")
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
    return [*embeds, *text_embeds([finish(line) for line in lines], "🗞 Digest")]
