"""Godsfire on Discord: its reports, chart results as embeds and their signature (the turn and its phase); its
queries are the engine's views laid out (`cogs.render.layout`). A region's 2d6 party roll is one line with its sum
and the party it gives; players are mentions wherever the engine's words name them (a chart's detail included)."""

from __future__ import annotations

import re
from typing import Any

import discord

from cogs.render import COLOUR, dress, finish, safe, strong
from cogs.render.common import USER_ID, raw_event_line, text_embeds
from engine.events import DieRolled, Event
from engine.godsfire.events import ChartRead, SystemAdded
from engine.godsfire.rules import PARTY_NAMES
from engine.godsfire.state import PHASE_NAMES, GodsfireState

CHART_TITLES = {"combat": "Combat Results Table", "transit": "Transit Attack", "money": "Money",
                "movement": "Movement check", "stacking": "Stacking check"}


def footer(state: GodsfireState, actor: str | None = None) -> str:
    """A report's signature: the turn and its phase."""
    return f"Godsfire · Turn {state.turn}, {PHASE_NAMES.get(state.phase, state.phase)}"


def godsfire_embeds(events: list[Event[Any]], state: GodsfireState) -> list[discord.Embed]:
    """A Godsfire command's answer: its events as lines, each chart read as its own embed after them."""
    charts = [e for e in events if isinstance(e, ChartRead)]
    rest = [e for e in events if not isinstance(e, ChartRead)]
    embeds = text_embeds(godsfire_lines(rest)) if rest or not charts else []
    dressed = dress(embeds + [chart_embed(e) for e in charts], events, state)
    for embed in dressed:
        if embed.title:
            embed.title = titled(embed.title)
    return dressed


def titled(title: str) -> str:
    """A title naming no raw user id (a title shows no mention): `Transit attack on 123…'s SQD #1 at K5` reads
    `Transit attack on SQD #1 at K5`."""
    return USER_ID.sub("a player", POSSESSIVE_ID.sub("", title))


POSSESSIVE_ID = re.compile(r"(?<![<@\d])\d{15,21}'s ")


PARTY_ROLL = re.compile(r"^(?P<system>.+) region (?P<region>\d+) party$")


def godsfire_lines(events: list[Event]) -> list[str]:
    """Events as lines for Discord (escaped, players as mentions); a region's two party dice as one line."""
    lines: list[str] = []
    i = 0
    while i < len(events):
        event, after = events[i], events[i + 1] if i + 1 < len(events) else None
        if isinstance(event, DieRolled) and isinstance(after, DieRolled) and PARTY_ROLL.match(event.roll.purpose) \
                and (after.roll.purpose, after.roll.nation) == (event.roll.purpose, event.roll.nation):
            lines.append(finish(party_roll_line(event, after, events)))
            i += 2
            continue
        raw = raw_event_line(event)
        if raw:
            lines.append(finish(raw))
        i += 1
    return lines


def party_roll_line(first: DieRolled, second: DieRolled, events: list[Event]) -> str:
    """`🎲 @alice, Sol region 1 party: 2d6 3 + 4 = 7: Moderate (M)` (marked, not yet escaped): the sum, and the
    party the starting table gives, as the system's sheet in the same answer records it."""
    a, b = first.roll, second.roll
    gm = " (GM dice)" if a.forced and b.forced else " (GM die)" if a.forced or b.forced else ""
    party = _rolled_party(a.purpose, events)
    gives = f": {PARTY_NAMES.get(party, party)} ({party})" if party else ""
    who_ = f"{a.nation}, " if a.nation else ""
    return f"🎲 {who_}{a.purpose}: 2d6 {a.die} + {b.die}{gm} = {strong(str(a.die + b.die))}{gives}"


def _rolled_party(purpose: str, events: list[Event]) -> str | None:
    found = PARTY_ROLL.match(purpose)
    if found is None:
        return None
    for event in events:
        if isinstance(event, SystemAdded) and event.system.get("name") == found["system"]:
            for region in event.system.get("regions", []):
                if str(region.get("number")) == found["region"]:
                    return str(region.get("party"))
    return None


def chart_embed(read: ChartRead) -> discord.Embed:
    """One chart read: the column, the die and the result in words (the detail, e.g. the odds, above; a player
    it names is a mention)."""
    title = CHART_TITLES.get(read.chart, read.chart.replace("_", " ").capitalize())
    embed = discord.Embed(title=title, description=finish(read.detail) if read.detail else None, colour=COLOUR)
    embed.add_field(name="Column", value=read.column or "—")
    if read.die:  # the movement and stacking checks roll nothing
        embed.add_field(name="Die", value=str(read.die))
    words = read.words.removeprefix(f"{read.result}: ")  # the words may start with the code itself
    embed.add_field(name="Result", value=f"**{safe(read.result)}** — {finish(words)}"[:1024], inline=False)
    return embed
