"""A `View` (what a query shows, written once by its rule set) laid out as embeds, and each game's status and
final results by its rule set: its adapter's own embed (`cogs.frontends`), else its view laid out."""

from __future__ import annotations

from typing import Any

import discord

from cogs.frontends import adapter_of
from cogs.render.common import (
    COLOUR,
    FIELD_LIMIT,
    FIELDS_PER_EMBED,
    LOUD_COLOUR,
    MESSAGE_EMBED_CHARS,
    OUTCOME_COLOURS,
    finish,
    marked_when,
    safe,
    strong,
    text_embeds,
    timestamped,
)
from engine.describe import same
from engine.rulesets import ruleset_of
from engine.view import At, Line, Part, Person, Strong, View


def raw_part(part: Part) -> str:
    """A view's part marked for `finish`: strong, a moment, a person as stored (a user id becomes a mention)."""
    if isinstance(part, Strong):
        return strong(part.text)
    if isinstance(part, At):
        return marked_when(part.moment)
    if isinstance(part, Person):
        return part.who
    return part


def line_text(shown: Line) -> str:
    """One line of a view: every plain part escaped, strong parts in bold, moments as timestamps, people (their
    user ids) as mentions; a list item bulleted."""
    return ("• " if shown.item else "") + finish("".join(raw_part(p) for p in shown.parts))


def title_text(title: Line) -> str | None:
    """A view's title as an embed's title, when it can be one: Discord shows no mention or timestamp there."""
    if any(isinstance(p, At | Person) for p in title.parts):
        return None
    return safe(title.text)[:256] or None


def view_embeds(shown: View, colour: discord.Colour = COLOUR) -> list[discord.Embed]:
    """A view as embeds: its title, its untitled sections as the description, each titled section a field
    (within Discord's limits: what does not fit one embed follows in the next); `loud` coloured as alarming.
    A title naming a person or a moment heads the description in bold instead (an embed's title renders
    neither)."""
    colour = LOUD_COLOUR if shown.loud else colour
    title = title_text(shown.title)
    head = [] if title is not None else [f"**{finish(''.join(raw_part(p) for p in shown.title.parts))}**"]
    untitled = head + [line_text(ln) for s in shown.sections if s.heading is None for ln in s.lines]
    embeds = text_embeds(untitled, title, colour) if untitled else [discord.Embed(title=title, colour=colour)]
    for section in shown.sections:
        if section.heading is None:
            continue
        if len(embeds[-1].fields) == FIELDS_PER_EMBED or len(embeds[-1]) > MESSAGE_EMBED_CHARS - 1500:
            embeds.append(discord.Embed(colour=colour))
        value = "\n".join(line_text(ln) for ln in section.lines) or "—"
        embeds[-1].add_field(name=(safe(section.heading) or "—")[:256], value=value[:FIELD_LIMIT], inline=False)
    return embeds


def view_embed(shown: View, colour: discord.Colour = COLOUR) -> discord.Embed:
    """A view as one embed (the first of `view_embeds`, for what must be one: the pinned status)."""
    return view_embeds(shown, colour)[0]


# --- each rule set's status and results, through its adapter ------------------------------------------


def status_embed(state: Any, rules: Any) -> discord.Embed:
    """The game at a glance, by its rule set; the pinned status message."""
    adapter = adapter_of(state)
    if adapter.status_embed is not None:
        return adapter.status_embed(state, rules)
    return view_embed(ruleset_of(state).status(state, rules))


def results_embed(state: Any, standings: dict[str, Any]) -> discord.Embed | None:
    """A game's final results (`GameEnded.standings`) by its rule set, or None when it shows none; stamped with
    the moment it is posted (the game's end, by the clock)."""
    adapter = adapter_of(state)
    if adapter.results_embed is not None:
        embed = adapter.results_embed(standings)
    else:
        found = ruleset_of(state)
        shown = found.results(standings, same) if found.results is not None else None
        embed = view_embed(shown, OUTCOME_COLOURS["results"]) if shown is not None else None
    return timestamped([embed])[0] if embed is not None else None  # the game's end: a report of the moment




PAGE_LINE = "Game page"


def with_page_link(embed: discord.Embed, link: str | None) -> discord.Embed:
    """The embed (the pinned status, the final results) linking to the game's page, when there is one: its title
    a link, and a line "Game page" at the end of its description (when it fits Discord's limits). A link is of
    PUBLIC_URL and a URL-safe token: nothing in it to escape."""
    if link is None:
        return embed
    if embed.title:
        embed.url = link
    line = f"[{PAGE_LINE}]({link}): the standings, charts, ledger and story, always current"
    description = embed.description or ""
    if len(description) + len(line) + 1 <= 4096 and len(embed) + len(line) + 1 <= MESSAGE_EMBED_CHARS:
        embed.description = f"{description}\n{line}" if description else line
    return embed
