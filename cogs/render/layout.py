"""A `View` (what a query shows, written once by its rule set) laid out as embeds, and each game's status and
final results by its rule set: its adapter's own embed (`cogs.frontends`), else its view laid out."""

from __future__ import annotations

from typing import Any

import discord

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
from engine.game import GameState, Rules
from engine.rulesets import ruleset_of
from engine.view import At, Line, Part, Person, Section, Strong, View


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


SEPARATORS = ("; ", ", ", " — ")  # where a title naming a person or a moment is cut for an embed's title


def split_title(title: Line) -> tuple[str | None, Line | None]:
    """A view's title as an embed's title and what follows it: Discord shows no mention or timestamp in a title,
    so a title naming a person or a moment is cut at its last clause before the first of them ("Nations — turn 1
    (12 h)" | "ends <moment>; GM: <person>"); the rest leads the embed's text. (None, the title) when there is no
    such clause."""
    first = next((i for i, p in enumerate(title.parts) if isinstance(p, At | Person)), None)
    if first is None:
        return safe(title.text)[:256] or None, None  # (an untitled view: no title)
    plain = "".join(p.text if isinstance(p, Strong) else p for p in title.parts[:first] if isinstance(p, str | Strong))
    cut = max((plain.rfind(s), s) for s in SEPARATORS)
    if cut[0] <= 0 or any(isinstance(p, Strong) for p in title.parts[:first]):
        return None, title
    head, rest = plain[:cut[0]], plain[cut[0] + len(cut[1]):]
    return safe(head)[:256], Line(((rest,) if rest else ()) + title.parts[first:])


def title_text(title: Line) -> str | None:
    """A view's title as an embed's title, when it can be one (`split_title`)."""
    return split_title(title)[0]


def block_lines(lines: tuple[Line, ...] | list[Line]) -> list[str]:
    """A section's lines as Discord shows them: each line escaped and marked (`line_text`); a run of stat-block rows
    (`Line.table`) as one code block, so that its columns line up (their words as written: no emphasis there)."""
    shown: list[str] = []
    rows: list[str] = []
    for ln in [*lines, None]:
        if ln is not None and ln.table:
            rows.append(("• " if ln.item else "") + ln.text.replace("`", "ˋ"))
            continue
        if rows:
            shown.append("```\n" + "\n".join(rows) + "\n```")
            rows = []
        if ln is not None:
            shown.append(line_text(ln))
    return shown


def field_of(section: Section) -> tuple[str, list[str]]:
    """A titled section as an embed field's name and lines: a heading that names a person or a moment (which a
    field's name does not render) heads the field's text in bold instead."""
    head = section.head
    assert head is not None
    lines = block_lines(section.lines)
    if any(isinstance(p, At | Person) for p in head.parts):
        return "\u200b", [f"**{finish(''.join(raw_part(p) for p in head.parts))}**", *lines]
    return (safe(head.text) or "—")[:256], lines


def view_colour(shown: View, colour: discord.Colour) -> discord.Colour:
    """The embed's colour: alarming when the view is `loud`, else the one it asks for, else `colour`."""
    if shown.loud:
        return LOUD_COLOUR
    return OUTCOME_COLOURS[shown.colour] if shown.colour is not None else colour


def view_embeds(shown: View, colour: discord.Colour = COLOUR) -> list[discord.Embed]:
    """A view as embeds: its title, its untitled sections as the description, each titled section a field, its
    stat blocks as code blocks, its colour as it asks (within Discord's limits: what does not fit one
    embed follows in the next). A title naming a person or a moment heads the description in bold instead (an
    embed's title renders neither)."""
    colour = view_colour(shown, colour)
    title, rest = split_title(shown.title)
    if rest is None:
        head = []
    elif title is None:
        head = [f"**{finish(''.join(raw_part(p) for p in rest.parts))}**"]
    else:
        head = [line_text(rest)]
    untitled = head + [text for s in shown.sections if s.heading is None for text in block_lines(s.lines)]
    embeds = text_embeds(untitled, title, colour) if untitled else [discord.Embed(title=title, colour=colour)]
    for section in shown.sections:
        if section.heading is None:
            continue
        if len(embeds[-1].fields) == FIELDS_PER_EMBED or len(embeds[-1]) > MESSAGE_EMBED_CHARS - 1500:
            embeds.append(discord.Embed(colour=colour))
        name, lines = field_of(section)
        value = "\n".join(lines) or "—"
        embeds[-1].add_field(name=name, value=cut(value, FIELD_LIMIT), inline=False)
    return embeds


def cut(value: str, limit: int) -> str:
    """`value` within `limit` characters: whole lines, then `…`."""
    if len(value) <= limit:
        return value
    return value[:limit - 2].rsplit("\n", 1)[0] + "\n…"


def view_embed(shown: View, colour: discord.Colour = COLOUR) -> discord.Embed:
    """A view as one embed (the first of `view_embeds`, for what must be one: the pinned status)."""
    return view_embeds(shown, colour)[0]


# --- each rule set's status and results, through its adapter ------------------------------------------


def status_embed(state: GameState, rules: Rules) -> discord.Embed:
    """The game at a glance, its rule set's status view laid out; the pinned status message."""
    return view_embed(ruleset_of(state).status(state, rules))


def results_embed(state: GameState, standings: dict[str, Any]) -> discord.Embed | None:
    """A game's final results (`GameEnded.standings`), its rule set's view laid out, or None when it shows none;
    stamped with the moment it is posted (the game's end, by the clock)."""
    found = ruleset_of(state)
    shown = found.results(standings) if found.results is not None else None
    if shown is None:
        return None
    return timestamped([view_embed(shown, OUTCOME_COLOURS["results"])])[0]  # the game's end: a report of the moment


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
