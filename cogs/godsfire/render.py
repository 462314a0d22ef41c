"""Godsfire on Discord: chart results as embeds, the system sheet, the game's status, the phases and the
Social Interphase's checklist. A region's 2d6 party roll is one line with its sum and the party it gives;
players are mentions wherever the engine's words name them (a chart's detail included)."""

from __future__ import annotations

import re
from typing import Any

import discord

from cogs.render import COLOUR, bold, dress, finish, line_text, safe, strong, who
from cogs.render.common import USER_ID, raw_event_line, text_embeds
from engine.describe import plural
from engine.events import DieRolled, Event
from engine.godsfire.events import ChartRead, SystemAdded
from engine.godsfire.phases import phase_line
from engine.godsfire.rules import ECONOMY_NAMES, PARTY_NAMES
from engine.godsfire.state import PHASE_NAMES, PHASES, GodsfireState, Player, Region, System
from engine.godsfire.steps import STEP_NAMES, StepState, interphase_checklist
from engine.godsfire.tableviews import procedure_lines

CHART_TITLES = {"combat": "Combat Results Table", "transit": "Transit Attack", "money": "Money",
                "movement": "Movement check", "stacking": "Stacking check"}


def footer(state: GodsfireState, actor: str | None = None) -> str:
    """A report's signature: the turn and its phase."""
    return f"Godsfire · Turn {state.turn}, {PHASE_NAMES.get(state.phase, state.phase)}"


def godsfire_embeds(events: list[Event], state: Any) -> list[discord.Embed]:
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


def _units(units: dict[str, int]) -> str:
    return ", ".join(f"{n} {kind}" for kind, n in units.items() if n) or "none"


def region_value(region: Region) -> str:
    """A region on a system sheet: party, allegiance, economy, revolt, units, enemies and money placed."""
    lines = [f"{PARTY_NAMES[region.party]} ({region.party}) · allegiance {region.allegiance}",
             f"{ECONOMY_NAMES[region.economy]} ({region.economy})"]
    if region.revolt:
        lines.append("**in revolt**")
    lines.append(f"ground: {_units(region.units)}")
    if region.enemy_units:
        lines.append(f"enemy units: {region.enemy_units}")
    money = [f"{who(p)} {n} GB (circle {region.subversion_step.get(p, 0) + 1})"
             for p, n in region.subversion.items() if n]
    if money:
        lines.append("subversion: " + ", ".join(money))
    if region.desubversion:
        lines.append(f"de-subversion: {region.desubversion} GB")
    if region.counter_subversion:
        lines.append(f"counter-subversion: {region.counter_subversion} GB")
    return "\n".join(lines)[:1024]


def system_embed(system: System, state: GodsfireState) -> discord.Embed:
    """`/godsfire system show`: the system sheet — owner, planets, bank, loans, space units and each region."""
    owner = f"{who(system.owner)}'s system" if system.owner else "a neutral system"
    lines = [f"{owner}; {plural(system.planets, 'planet')}.", f"Bank: {system.bank} GB.",
             f"Space: {_units(system.units)}."]
    if system.enemy_units:
        lines.append(f"Under siege: {plural(system.enemy_units, 'enemy unit')} on the system cell.")
    loans = "; ".join(f"{loan.amount} GB (marker on box {loan.box + 1})" for loan in system.loans)
    lines.append(f"Loans: {loans or 'none'}.")
    embed = discord.Embed(title=safe(system.name)[:256], description="\n".join(lines), colour=COLOUR)
    for region in system.regions[:25]:
        embed.add_field(name=f"Region {region.number}", value=region_value(region))
    return embed


def status_embed(state: GodsfireState, rules: object = None) -> discord.Embed:
    """The game at a glance: turn and phase, each player (NG, money, allegiance), each system, and the table:
    the turn's order, whose go it is, the attacks and choices awaited, the money in transit, the victory."""
    title = f"Godsfire — turn {state.turn}, {PHASE_NAMES[state.phase]}" + (" — game over" if state.ended else "")
    lines = [f"GM: {who(state.gm)}."]
    if state.forced_dice:
        count = len(state.forced_dice)
        lines.append(f"{count} GM-entered {'die' if count == 1 else 'dice'} waiting: "
                     f"{' '.join(str(d) for d in state.forced_dice)}")
    if not state.players:
        lines.append("No players yet: the GM adds systems with /godsfire system add.")
    embed = discord.Embed(title=title, description="\n".join(lines), colour=COLOUR)
    for player in state.players[:12]:
        embed.add_field(name=f"Player {len(embed.fields) + 1}", value=player_value(player, state)[:1024])
    systems = [system_line(s) for s in state.systems]
    if systems:
        embed.add_field(name="Systems", value="\n".join(systems)[:1024], inline=False)
    table = [line_text(shown) for shown in procedure_lines(state, rules)]
    if table:
        embed.add_field(name="The table", value="\n".join(table)[:1024], inline=False)
    return embed


def player_value(player: Player, state: GodsfireState) -> str:
    """A player on the status embed: National Government, its money and allegiances, systems."""
    lines = [who(player.name) + (" — **out of the game**" if player.out else "")]
    lines.append(f"NG on {safe(player.government)}" if player.government else "NG not placed")
    lines.append(f"NG {player.ng_money} GB, in transit {player.in_transit} GB")
    if player.national_allegiance:
        lines.append("national allegiance " + " ".join(f"{p} {n}" for p, n in player.national_allegiance.items()))
    marks = [m for m, on in (("Change Ministers! used", player.ministers_changed),
                             ("failed a repayment this turn", player.failed_repayment),
                             ("no new loans until every allegiance is 3+", player.loans_barred)) if on]
    lines += marks
    systems = ", ".join(safe(s.name) for s in state.systems_of(player.name))
    lines.append(f"systems: {systems or 'none'}")
    return "\n".join(lines)


def system_line(system: System) -> str:
    owner = who(system.owner) if system.owner else "neutral"
    revolts = sum(1 for r in system.regions if r.revolt)
    extra = f", {revolts} in revolt" if revolts else ""
    return (f"**{safe(system.name)}** ({owner}): {plural(len(system.regions), 'region')}{extra}, "
            f"bank {system.bank} GB, space {_units(system.units)}")


def godsfire_phase_embed(state: GodsfireState) -> discord.Embed:
    """`/godsfire phase show`: the turn, the phase, the next one and the phases of a turn in order."""
    steps = [("▶ " if phase == state.phase else "• ") + PHASE_NAMES[phase] for phase in PHASES]
    return discord.Embed(title=f"Godsfire — {phase_line(state)}", description="\n".join(steps), colour=COLOUR)


STEP_MARKS = {"done": "✅", "compulsory": "❗", "left": "▫️"}
"""A checklist step's mark: done; compulsory and not done yet (the end of the interphase applies it); left."""
EMBED_BUDGET = 5800  # Discord's 6000 characters an embed, less a margin
NOTE_LIMIT = 120  # a step's note (`due on Sol, Vega, …`) shown at most this long


def step_mark(row: StepState) -> str:
    return STEP_MARKS["done" if row.state == "done" else "compulsory" if row.compulsory else "left"]


def step_line(row: StepState) -> str:
    """`❗ **D.1 loan repayment** (`loans`) — due on Sol`: the mark, the step as the engine names it (the next one
    in bold), its id for /godsfire interphase done, and its note."""
    name = safe(STEP_NAMES[row.step])
    return (f"{step_mark(row)} {bold(name) if row.state == 'next' else name} (`{row.step}`)"
            + (f" — {safe(row.note if len(row.note) <= NOTE_LIMIT else row.note[:NOTE_LIMIT - 1] + '…')}"
               if row.note else ""))


def checklist_value(player: str, rows: list[StepState], compact: bool = False) -> str:
    """One player's checklist: whose, the next step (or all done), then each step D.1–D.14 in the sheet's order
    (`compact`: the steps done on one line, by id)."""
    upcoming = next((row for row in rows if row.state == "next"), None)
    head = f"{who(player)}: " + (f"next {safe(STEP_NAMES[upcoming.step])} (`{upcoming.step}`)" if upcoming
                                 else "all done")
    if not compact:
        return "\n".join([head, *(step_line(row) for row in rows)])
    done = [row.step for row in rows if row.state == "done"]
    lines = [head] + ([f"{STEP_MARKS['done']} " + ", ".join(f"`{step}`" for step in done)] if done else [])
    return "\n".join(lines + [step_line(row) for row in rows if row.state != "done"])


def godsfire_interphase_embed(state: GodsfireState) -> discord.Embed:
    """`/godsfire interphase show`: the Social Interphase's checklist (`interphase_checklist`, as the console
    shows it): a field for each player in the interphase's order, every step D.1 to D.14 in the sheet's order
    with its mark. With many players the steps done shrink to one line, so the embed stays within Discord's
    limits (8 players fit whole)."""
    if state.phase != "interphase":
        return discord.Embed(title="Social Interphase", colour=COLOUR,
                             description=f"Not now: turn {state.turn} is in the {PHASE_NAMES[state.phase]}.")
    checklist = list(interphase_checklist(state).items())[:25]
    description = (f"Each player's steps in the sheet's order: {STEP_MARKS['done']} done, {STEP_MARKS['compulsory']} "
                   f"compulsory (applied when the interphase ends if not taken), {STEP_MARKS['left']} left; the next "
                   "in bold. A step skipped: /godsfire interphase done step:<step>.")
    if not checklist:
        description += "\nNo players in the game."
    title = f"Social Interphase — turn {state.turn}"
    embed = discord.Embed(title=title, colour=COLOUR, description=description)
    names = [f"Player {i}" for i in range(1, len(checklist) + 1)]
    budget = EMBED_BUDGET - len(title) - len(description) - sum(len(n) for n in names)
    values = [cut(checklist_value(player, rows), 1024) for player, rows in checklist]
    if sum(len(v) for v in values) > budget:
        values = [cut(checklist_value(player, rows, compact=True), 1024) for player, rows in checklist]
    if sum(len(v) for v in values) > budget:
        values = [cut(v, budget // len(values)) for v in values]
    for name, value in zip(names, values, strict=True):
        embed.add_field(name=name, value=value, inline=False)
    return embed


def cut(value: str, limit: int) -> str:
    """`value` within `limit` characters: whole lines, then `…`."""
    if len(value) <= limit:
        return value
    return value[:limit - 2].rsplit("\n", 1)[0] + "\n…"


SHOWS = {
    "godsfire status": lambda state, rules, actor, options: [status_embed(state, rules)],
    "godsfire system show": lambda state, rules, actor, options: [system_embed(state.system(options["name"]), state)],
    "godsfire phase show": lambda state, rules, actor, options: [godsfire_phase_embed(state)],
    "godsfire interphase show": lambda state, rules, actor, options: [godsfire_interphase_embed(state)],
}
"""Godsfire's queries laid out its own way, by path."""
