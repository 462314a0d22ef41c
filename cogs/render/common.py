"""What every rule set's answers share on Discord: colours, mentions, timestamps, escaping, embeds within
Discord's limits, a report's colour, heading and footer, refusals.

Escaping is the default: text the engine writes (an event's line, a roll, a view's parts) goes out through
`finish`, which escapes all of it — every name a player gave, whatever field it came from — and only then
puts in what the engine marked: a strong part in bold, a moment as a timestamp, a bare user id (players are
their Discord ids) as a mention. A `View` is laid out in `cogs.render.layout`; each rule set's own embeds
live in its package (`cogs.<rule set>.render`) and are found through its adapter (`cogs.frontends`).
"""

from __future__ import annotations

import re
import secrets
import string
from collections.abc import Callable, Iterable
from datetime import UTC, datetime

import discord

from cogs.frontends import DiscordAdapter, adapter_of
from engine.describe import event_line, roll_line, same
from engine.events import DieRolled, Event, GameEnded
from engine.rulesets import GameState, ruleset_of

COLOUR = discord.Colour.dark_gold()  # neutral: views (status, army, battles, help) and what has no outcome
ERROR_COLOUR = discord.Colour.red()

# One colour per outcome, for every answer and announcement (`outcome_of` decides it from the events).
OUTCOME_COLOURS = {
    "success": discord.Colour.green(),  # a check passed, a battle won
    "failure": discord.Colour.orange(),  # a check failed, a battle lost
    "refusal": ERROR_COLOUR,  # the referee refused: nothing changed
    "gm": discord.Colour.purple(),  # a GM's act: dice entered, a stat set, an undo, a turn ended by hand
    "clock": discord.Colour.blue(),  # the clock: a turn over, a bonus run out, a choice timed out
    "neutral": COLOUR,
    "results": discord.Colour.gold(),  # a game's final results
}
LOUD_COLOUR = OUTCOME_COLOURS["failure"]  # a view that shows something alarming (`View.loud`)

# The events every rule set shares: a GM's acts, and a heading per kind (a rule set's adapter places them
# among its own; in this order otherwise).
GM_KINDS = frozenset({"dice_queued", "dice_cleared", "action_undone", "house_changed", "game_ended", "game_imported"})
HEADINGS = {"game_ended": "Game over", "game_imported": "Game imported", "action_undone": "Undo",
            "dice_queued": "GM dice", "dice_cleared": "GM dice cleared", "house_changed": "House setting",
            "notice": "Warning"}
MINOR_KINDS = frozenset({"notice"})  # head a report only when nothing else does
DESCRIPTION_LIMIT = 4000
FIELD_LIMIT = 1024
FIELDS_PER_EMBED = 25
EMBEDS_PER_MESSAGE = 10
MESSAGE_EMBED_CHARS = 6000  # Discord's limit on the characters of all the embeds of one message


# --- the moment a report is made --------------------------------------------------------------------------
# An embed that reports something that happened (an action, a roll, a turn's end, a digest, the log) carries
# Discord's own timestamp (shown under it in each reader's time zone): the moment it was made, by the bot's
# clock (`use_clock`: the bot's settings; tests inject a fake one). Views (a status, /help) carry none.

_clock: list[Callable[[], datetime]] = [lambda: datetime.now(UTC)]


def use_clock(clock: Callable[[], datetime]) -> None:
    """Stamp reports by `clock` (the bot's, as it starts)."""
    _clock[0] = clock


def reported_at() -> datetime:
    """Now by the bot's clock, in UTC: the moment of a report made now."""
    moment = _clock[0]()
    return moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment.astimezone(UTC)


def timestamped(embeds: list[discord.Embed], at: datetime | None = None) -> list[discord.Embed]:
    """Each embed stamped with the moment of its report (`at`, or now by the bot's clock)."""
    moment = at or reported_at()
    for embed in embeds:
        embed.timestamp = moment
    return embeds


def when(moment: datetime) -> str:
    """A moment as Discord timestamps, shown in each reader's time zone: the date and time (`:f`), so players
    in other time zones can plan, and the countdown (`:R`), e.g. "1 March 2026 00:00 (in 12 hours)"."""
    return f"{discord.utils.format_dt(moment, 'f')} ({discord.utils.format_dt(moment, 'R')})"


def who(player: str) -> str:
    """A player as a mention when it is a Discord user id (any other name shown as written, escaped)."""
    return f"<@{player}>" if player.isdigit() and player.isascii() else safe(player)


MENTION_START = re.compile(r"<(?=\S)")  # <@id>, <@&role>, <#channel>, <t:…>, <:emoji:id>, </command:id>
BARE_MENTION = re.compile(r"@(?=everyone|here|[!&]?\d)", re.IGNORECASE)
USER_ID = re.compile(r"(?<![<@\d])\d{15,21}(?![>\d])")  # a bare Discord user id (players are their ids)
# Where `safe` could change text: discord.py's Markdown escape acts only at _ \ ~ | * ` [ # - and a > that starts
# a line, its mention escape and ours only at @ and <. Text with none of them is shown as it is (most lines are).
UNSAFE = re.compile(r"[_\\~|*`\[#\-@<]|^>", re.MULTILINE)


def safe(text: object) -> str:
    """Text shown exactly as written: its Markdown escaped, and no mention, timestamp or emoji markup left live.

    Messages that ping name their players in `pings`, so even a name that slipped through would ping nobody."""
    shown = str(text)
    if UNSAFE.search(shown) is None:
        return shown
    shown = discord.utils.escape_markdown(shown, ignore_links=False)
    shown = discord.utils.escape_mentions(shown)
    shown = MENTION_START.sub("<\u200b", shown)
    return BARE_MENTION.sub("@\u200b", shown)


# --- the engine's words, escaped by default -----------------------------------------------------------
# What the engine marks in its text (a strong part, a moment) is wrapped in markers no player can type (private
# use characters around a word drawn at start-up), so that escaping the whole text leaves them for `finish`.

_NONCE = "".join(secrets.choice(string.ascii_letters) for _ in range(12))
_STRONG_OPEN, _STRONG_CLOSE = f"\ue000{_NONCE}", f"\ue001{_NONCE}"
_STAMP = re.compile(f"\ue002{_NONCE}(-?\\d+):([fR])\ue003")


def strong(text: str) -> str:
    """Mark a part of the engine's text as strong (bold once `finish`ed)."""
    return f"{_STRONG_OPEN}{text}{_STRONG_CLOSE}"


def stamp(moment: datetime, style: str = "f") -> str:
    """Mark a moment in the engine's text: a Discord timestamp once `finish`ed."""
    return f"\ue002{_NONCE}{int(moment.timestamp())}:{style}\ue003"


def marked_when(moment: datetime) -> str:
    """`when` for the engine's words: the date and time and the countdown, marked."""
    return f"{stamp(moment, 'f')} ({stamp(moment, 'R')})"


def mention_ids(text: str) -> str:
    return USER_ID.sub(lambda m: f"<@{m.group()}>", text)


def finish(text: str) -> str:
    """The engine's text for Discord: all of it escaped (names included, whatever field they came from), a bare
    user id as a mention, then what the engine marked: strong parts in bold, moments as timestamps."""
    text = mention_ids(safe(text))
    text = text.replace(_STRONG_OPEN, "**").replace(_STRONG_CLOSE, "**")
    return _STAMP.sub(r"<t:\1:\2>", text) if "\ue002" in text else text


def bold(text: str) -> str:
    return f"**{text}**"


def pings(*players: str | None) -> discord.AllowedMentions:
    """The mentions a message may notify: exactly these players (Discord user ids), no one else, no role,
    not @everyone."""
    users = [discord.Object(int(p)) for p in dict.fromkeys(players) if p and p.isdigit() and p.isascii()]
    return discord.AllowedMentions(everyone=False, roles=False, replied_user=False, users=users)


NO_PINGS = discord.AllowedMentions.none()


def raw_event_line(event: Event) -> str | None:
    """An event's line with its strong parts and moments marked, not yet escaped (`finish` does it)."""
    if isinstance(event, DieRolled):
        return roll_line(event.roll, strong=strong)
    return event_line(event, when=marked_when, who=same)


def raw_event_lines(events: Iterable[Event]) -> list[str]:
    return [line for e in events if (line := raw_event_line(e))]


def event_lines(events: Iterable[Event]) -> list[str]:
    """Events as lines for Discord: everything escaped, players as mentions, a roll's total and verdict in bold."""
    return [finish(line) for line in raw_event_lines(events)]


def text_embeds(lines: list[str], title: str | None = None, colour: discord.Colour = COLOUR) -> list[discord.Embed]:
    """Lines laid out over as many embeds as their length needs."""
    embeds: list[discord.Embed] = []
    chunk: list[str] = []
    size = 0
    for line in lines:
        if chunk and size + len(line) + 1 > DESCRIPTION_LIMIT:
            embeds.append(discord.Embed(description="\n".join(chunk), colour=colour))
            chunk, size = [], 0
        chunk.append(line[:DESCRIPTION_LIMIT])
        size += len(line) + 1
    if chunk or not embeds:
        embeds.append(discord.Embed(description="\n".join(chunk) or "Nothing happened.", colour=colour))
    if title:
        embeds[0].title = title
    return embeds


def message_batches(embeds: list[discord.Embed]) -> list[list[discord.Embed]]:
    """Embeds grouped into messages within Discord's limits: 10 embeds and 6000 characters in all."""
    batches: list[list[discord.Embed]] = [[]]
    size = 0
    for embed in embeds:
        if batches[-1] and (len(batches[-1]) == EMBEDS_PER_MESSAGE or size + len(embed) > MESSAGE_EMBED_CHARS):
            batches.append([])
            size = 0
        batches[-1].append(embed)
        size += len(embed)
    return batches


# --- a report: its colour, heading and footer --------------------------------------------------------


def is_gm_act(event: Event, adapter: DiscordAdapter) -> bool:
    said = adapter.gm_act(event) if adapter.gm_act is not None else None
    if said is not None:
        return said
    if event.kind in GM_KINDS or event.kind in adapter.gm_kinds:
        return True
    by = getattr(event, "by", None)
    return bool(by) and by != "default"  # "default": the clock decided


def side_of(state: GameState | None, actor: str | None) -> str | None:
    """The acting user's side (a nation), if the game's rule set has sides apart from its players."""
    return _side(adapter_of(state), state, actor)


def _side(adapter: DiscordAdapter, state: GameState | None, actor: str | None) -> str | None:
    if state is None or actor is None or adapter.side_of is None:
        return None
    return adapter.side_of(state, actor)


def outcome_of(events: list[Event], state: GameState | None = None, actor: str | None = None,
               by_clock: bool = False) -> str:
    """The outcome a report's colour shows: a GM's act; else what its events settled (for the acting side when
    there is one: its battle won or lost, its roll passed or failed); else the clock (its doings, or what it
    announces `by_clock`); else neutral."""
    adapter = adapter_of(state)
    if any(is_gm_act(e, adapter) for e in events):
        return "gm"
    return _settled(events, adapter, _side(adapter, state, actor), by_clock)


def _settled(events: list[Event], adapter: DiscordAdapter, side: str | None, by_clock: bool) -> str:
    """`outcome_of` once no event is a GM's act, for the acting `side`."""
    settled = adapter.outcome(events, side) if adapter.outcome is not None else None
    if settled is not None:
        return settled
    judged = [e.roll for e in events if isinstance(e, DieRolled) and e.roll.success is not None]
    mine = [r for r in judged if side is not None and r.nation == side] or judged
    if mine:
        return "success" if mine[0].success else "failure"
    if by_clock or any(e.kind in adapter.clock_kinds for e in events):
        return "clock"
    return "neutral"


def headings(adapter: DiscordAdapter) -> dict[str, str]:
    """Event kind → heading, most telling first: the rule set's order, then the shared kinds it left out."""
    return {**adapter.headings, **{k: v for k, v in HEADINGS.items() if k not in adapter.headings}}


# Per adapter (by identity: adapters are their modules' constants, never changed): its headings, and the kinds
# that may head a report by their rank (most telling first) with their heading.
_heading_tables: dict[int, tuple[DiscordAdapter, dict[str, str], dict[str, tuple[int, str]]]] = {}


def _heading_table(adapter: DiscordAdapter) -> tuple[dict[str, str], dict[str, tuple[int, str]]]:
    known = _heading_tables.get(id(adapter))
    if known is None or known[0] is not adapter:
        table = headings(adapter)
        minor = MINOR_KINDS | adapter.minor_kinds
        ranked = {kind: (rank, heading) for rank, (kind, heading) in enumerate(table.items()) if kind not in minor}
        known = _heading_tables[id(adapter)] = (adapter, table, ranked)
    return known[1], known[2]


def heading_of(events: list[Event], state: GameState | None = None) -> str | None:
    """The report's heading: the most telling event kind's, else a check's purpose, else the first event's kind."""
    table, ranked = _heading_table(adapter_of(state))
    telling = [ranked[e.kind] for e in events if e.kind in ranked]
    if telling:
        return min(telling)[1]
    rolls = [e.roll for e in events if isinstance(e, DieRolled)]
    if rolls:
        return rolls[0].purpose[:1].upper() + rolls[0].purpose[1:]
    for event in events:
        if event.kind in table:
            return table[event.kind]
    return events[0].kind.replace("_", " ").capitalize() if events else None


def footer_of(state: GameState | None, actor: str | None = None) -> str | None:
    """`Gracchan Republic · Turn 3` (the acting side, if any, else the rule set's title); before the first turn,
    the title alone. A rule set's adapter may sign its own way (Godsfire: the turn and its phase)."""
    if state is None:
        return None
    adapter = adapter_of(state)
    return _footer(adapter, state, actor, _side(adapter, state, actor))


def _footer(adapter: DiscordAdapter, state: GameState, actor: str | None, side: str | None) -> str | None:
    """`footer_of` for the acting `side`."""
    if adapter.footer is not None:
        return adapter.footer(state, actor)
    name = side or ruleset_of(state).title
    turn = getattr(state, "turn", 0)
    return f"{name} · Turn {turn}" if turn else name


def dress(embeds: list[discord.Embed], events: list[Event], state: GameState, actor: str | None = None,
          outcome: str | None = None, by_clock: bool = False, at: datetime | None = None) -> list[discord.Embed]:
    """Colour the embeds by outcome, title the first by its event kind, and sign each with side and turn and
    the moment of the report (`at`, else now: `timestamped`; a long report may be split over several
    messages: each part is signed)."""
    adapter = adapter_of(state)
    side = _side(adapter, state, actor)  # looked up once: the colour and the footer both need it
    if not outcome:
        gm = any(is_gm_act(e, adapter) for e in events)
        outcome = "gm" if gm else _settled(events, adapter, side, by_clock)
    colour = OUTCOME_COLOURS[outcome]
    for embed in embeds:
        embed.colour = colour
    heading = heading_of(events, state)
    if embeds and heading and not embeds[0].title:
        embeds[0].title = heading[:256]
    footer = _footer(adapter, state, actor, side) if state is not None else None
    if footer:
        for embed in embeds:
            embed.set_footer(text=footer[:2048])
    return timestamped(embeds, at)


def report_embeds(events: list[Event], state: GameState, actor: str | None = None, title: str | None = None,
                  by_clock: bool = False) -> list[discord.Embed]:
    """A command's or the clock's events (`by_clock`: what the clock caught up on, coloured as the clock's when
    nothing in it was won, lost or done by a GM); what the acting user has left (Nations: actions) after them.
    A game's end is said in one line here: its final results are a message of their own (`results_embed`,
    posted by the clock)."""
    events = [GameEnded() if isinstance(e, GameEnded) else e for e in events]
    lines = event_lines(events)
    adapter = adapter_of(state)
    fields: list[tuple[str, str]] = []
    if state is not None and actor is not None and events:
        if adapter.report_fields is not None:
            fields = adapter.report_fields(state, events, actor)
        else:
            note = ruleset_of(state).actor_note
            said = note(state, events, actor, marked_when) if note is not None else None
            if said:
                lines.append(finish(said))
    embeds = text_embeds(lines, title)
    for name, value in fields:
        embeds[-1].add_field(name=name, value=value[:FIELD_LIMIT], inline=False)
    return dress(embeds, events, state, actor, by_clock=by_clock)


REFUSED = "Refused — nothing changed"


def error_embed(message: str) -> discord.Embed:
    """A refusal; a player named by a bare user id in the engine's reason shows as a mention.

    The reason may quote what was typed: Markdown that would render is escaped and no mention is live."""
    text = discord.utils.escape_markdown(message, as_needed=True)
    text = BARE_MENTION.sub("@\u200b", MENTION_START.sub("<\u200b", discord.utils.escape_mentions(text)))
    reason = f"⛔ {mention_ids(text)}"[:DESCRIPTION_LIMIT]
    return discord.Embed(title=REFUSED, description=reason, colour=OUTCOME_COLOURS["refusal"])
