"""Nations on Discord: a nation, its army, the battles, the pinned status and the final results as embeds."""

from __future__ import annotations

from typing import Any

import discord

from cogs.render import (
    FIELD_LIMIT,
    OUTCOME_COLOURS,
    dress,
    event_lines,
    footer_of,
    report_embeds,
    safe,
    text_embeds,
    when,
    who,
)
from cogs.util import actor, reply, run_command
from engine.describe import plural
from engine.events import DieRolled, Event
from engine.nations.common import actions_left
from engine.nations.describe import unit_name, unit_ref
from engine.nations.events import BattleAwaits, BattleEnded, ChoiceReminded, DuelStarted, UnitLeftFight
from engine.nations.state import Battle, GameState, Nation

# A heading per event kind: a report is headed by the first of these kinds it holds (most telling first; the
# shared kinds placed among Nations').
HEADINGS = {
    "game_ended": "Game over", "game_started": "New game", "game_imported": "Game imported",
    "battle_ended": "Battle over", "duel_started": "Duel", "units_committed": "Defence committed",
    "battle_declared": "Attack declared", "choice_defaulted": "Battle decision", "turn_ended": "Turn over",
    "action_undone": "Undo", "nation_eliminated": "Nation eliminated", "nation_restored": "Nation restored",
    "nation_added": "Nation joins", "nation_assigned": "Player changed", "dice_queued": "GM dice",
    "dice_cleared": "GM dice cleared", "house_changed": "House setting", "clock_paused": "Clock paused",
    "clock_resumed": "Clock running", "turn_length_changed": "Turn length", "action_granted": "Action granted",
    "action_revoked": "Action taken away", "retreat_ordered": "Retreat order", "battle_awaits": "Battle waits",
    "bonus_set": "Bonus", "bonus_expired": "Bonus over", "unit_added": "New unit", "unit_removed": "Unit gone",
    "unit_changed": "Unit changed", "stat_changed": "Stat changed", "choice_reminded": "Battle reminder",
    "notice": "Warning",
}
MINOR_KINDS = frozenset({"stat_changed", "bonus_set", "unit_added", "unit_changed"})
GM_KINDS = frozenset({"turn_length_changed", "clock_paused", "clock_resumed", "nation_restored", "action_granted",
                      "action_revoked"})
CLOCK_KINDS = frozenset({"turn_ended", "bonus_expired", "choice_defaulted", "choice_reminded"})


def side_of(state: GameState, actor: str) -> str | None:
    """The acting user's nation."""
    nation = state.nation_of(actor)
    return nation.name if nation is not None else None


def gm_act(event: Event) -> bool | None:
    """A turn ended by the GM is a GM's act; a defence committed is its player's (a GM's says so in its words)."""
    if event.kind == "turn_ended" and getattr(event, "reason", "") == "gm":
        return True
    if event.kind == "units_committed":
        return False
    return None


def outcome(events: list[Event], side: str | None) -> str | None:
    """A battle the report ended: won or lost, for the acting nation when it fought in it."""
    for event in events:
        if isinstance(event, BattleEnded) and event.winner:
            if side is None or side in (event.winner, event.loser):
                return "success" if side is None or side == event.winner else "failure"
    return None


def report_fields(state: GameState, events: list[Event], actor: str) -> list[tuple[str, str]]:
    """After an action: the acting nation's actions left and when the turn ends."""
    if not any(e.kind == "action_used" for e in events):
        return []
    nation = state.nation_of(actor)
    if nation is None or nation.eliminated:
        return []
    return [("Actions", actions_footer(state, nation))]


def actions_footer(state: GameState, nation: Nation) -> str:
    ends = "the clock is paused" if state.paused else f"turn ends {when(state.turn_ends_at)}"
    return f"{actions_left(state, nation)} of {state.house.actions_per_turn} actions left, {ends}"


# --- a report: its battles as fields -----------------------------------------------------------------

EMBED_CHARS = 6000  # Discord's limit on one embed's characters (title, description, fields, footer)
FIELDS = 25  # Discord's limit on one embed's fields
DESCRIPTION_CHARS = 1500  # a battle's opening lines (its commitment and initiative), at most
CONSEQUENCE_KINDS = frozenset({"unit_changed", "unit_removed", "stat_changed", "nation_eliminated"})
"""Events that follow a battle's own as its consequences (wounds, promotions, healing, conquest): they belong to
the battle they follow."""


def nations_report_embeds(events: list[Event], state: GameState, actor: str | None = None,
                          by_clock: bool = False) -> list[discord.Embed]:
    """A Nations report (a command's answer or the clock's announcement): each battle the report fought (a duel)
    or ended as an embed of fields (`battle_embed`); everything else, before, between and after them, as the
    shared report's text embeds — so a turn end or a bonus expiry in the same report is an embed of its own, never
    mixed into a battle's. A report with no battle fought is the shared report as it was."""
    segments = _segments(events)
    if not any(battle is not None for battle, _ in segments):
        return report_embeds(events, state, actor, by_clock=by_clock)
    embeds: list[discord.Embed] = []
    for at, (battle_id, part) in enumerate(segments):
        if battle_id is None:
            lines = event_lines(part)
            if lines:
                embeds += dress(text_embeds(lines), part, state, actor, by_clock=by_clock)
        else:
            later = sum(1 for b, rest in segments[at:] if b == battle_id for e in rest if isinstance(e, DuelStarted))
            first_duel = len(state.battles[battle_id].duels) - later + 1
            embed = battle_embed(state, battle_id, part, first_duel)
            embed.set_footer(text=(footer_of(state, actor) or "")[:2048] or None)
            embeds.append(embed)
    for name, value in report_fields(state, events, actor) if actor is not None else []:
        last = embeds[-1]
        if len(last.fields) < FIELDS and len(last) + len(name) + len(value[:FIELD_LIMIT]) <= EMBED_CHARS:
            last.add_field(name=name, value=value[:FIELD_LIMIT], inline=False)
    return embeds


def _battle_of(event: Event) -> int | None:
    """The battle an event is part of (a roll: the battle it was rolled in); a reminder stands apart."""
    if isinstance(event, DieRolled):
        return event.roll.battle
    if isinstance(event, ChoiceReminded):
        return None
    battle = getattr(event, "battle", None)
    return battle if isinstance(battle, int) else None


def _segments(events: list[Event]) -> list[tuple[int | None, list[Event]]]:
    """The report cut into runs: a battle's (its events, rolls and consequences, in order) where it fought a duel
    or ended, else the rest (battle None: shown as text)."""
    runs: list[tuple[int | None, list[Event]]] = []
    for event in events:
        battle = _battle_of(event)
        if battle is None and runs and runs[-1][0] is not None and event.kind in CONSEQUENCE_KINDS:
            battle = runs[-1][0]
        if runs and runs[-1][0] == battle:
            runs[-1][1].append(event)
        else:
            runs.append((battle, [event]))
    merged: list[tuple[int | None, list[Event]]] = []
    for battle, part in runs:
        if battle is not None and not any(isinstance(e, DuelStarted | BattleEnded) for e in part):
            battle = None  # declared, committed, waiting: a line or two of the report's text
        if merged and battle is None and merged[-1][0] is None:
            merged[-1][1].extend(part)
        else:
            merged.append((battle, list(part)))
    return merged


def battle_colour(events: list[Event]) -> discord.Colour:
    """A battle embed's colour: the attacker's outcome. The channel is shared, so one colour must read the same
    for everyone, and the attacker is the one who acted: green when the attacker won (conquest), orange when it
    lost (the defender held), purple when a GM cancelled the battle, gold (neutral) while it goes on or when it
    was cancelled by an elimination."""
    ended = next((e for e in events if isinstance(e, BattleEnded)), None)
    if ended is None:
        return OUTCOME_COLOURS["neutral"]
    if ended.result == "attacker won":
        return OUTCOME_COLOURS["success"]
    if ended.result == "defender won":
        return OUTCOME_COLOURS["failure"]
    return OUTCOME_COLOURS["neutral"] if ended.reason else OUTCOME_COLOURS["gm"]


def battle_embed(state: GameState, battle_id: int, events: list[Event], first_duel: int = 1) -> discord.Embed:
    """One battle's part of a report as an embed of fields, within Discord's limits: the title names the battle;
    the description its opening (commitment, initiative, a default); a field per side (its player and units, the
    killed and retreated marked); a field per duel (who paired them, every roll with its modifiers, the rounds,
    wounds, demotions, the outcome, the promotions), named by its winner; a field for the choice it waits for next;
    the result (the winner, healing, PROPAGANDA, the conquest). Duels that would pass 25 fields or 6000 characters
    are folded, one line each, into one field after the last shown. `first_duel` numbers the first duel here
    (the battle's earlier duels were in earlier reports). Coloured by `battle_colour`."""
    battle = state.battles[battle_id]
    title = f"⚔ Battle #{battle.id}: {safe(battle.attacker)} attacks {safe(battle.defender)}"[:256]
    sections = _sections(events)
    opening = _fit(event_lines(sections[0][1]) if sections and sections[0][0] == "opening" else [],
                   DESCRIPTION_CHARS)
    embed = discord.Embed(title=title, description=opening or None, colour=battle_colour(events))
    for side in ("attacker", "defender"):
        name, value = _side_field(state, battle, side)
        embed.add_field(name=name, value=value, inline=True)
    fields: list[tuple[str, str, bool]] = []  # name, value, is a duel
    number = first_duel
    for kind, part in sections:
        if kind == "duel":
            fields.append((_duel_name(battle, part, number), _fit(event_lines(part)), True))
            number += 1
        elif kind == "waiting":
            fields.append(("Next choice", _fit(event_lines(part)), False))
        elif kind == "result":
            fields.append((_result_name(part), _fit(event_lines(part)), False))
    others = [f for f in fields if not f[2]]
    room = EMBED_CHARS - 200 - len(embed) - sum(len(n) + len(v) for n, v, _ in others)  # 200: the footer, a field
    slots = FIELDS - len(embed.fields) - len(others) - 1  # one for the folded duels
    duels = [(n, v) for n, v, is_duel in fields if is_duel]
    if len(duels) > slots or sum(len(n) + len(v) for n, v in duels) > room:
        room -= FIELD_LIMIT + 30  # some duels will be folded: keep room for their field
    folded: list[str] = []
    for name, value, is_duel in fields:
        if is_duel and (folded or slots <= 0 or len(name) + len(value) > room):
            folded.append(name)
            continue
        if is_duel:
            slots -= 1
            room -= len(name) + len(value)
        elif folded and not any((f.name or "").startswith("More duels") for f in embed.fields):
            _add_folded(embed, folded)
        embed.add_field(name=name[:256], value=value, inline=False)
    if folded and not any((f.name or "").startswith("More duels") for f in embed.fields):
        _add_folded(embed, folded)
    return embed


def _add_folded(embed: discord.Embed, names: list[str]) -> None:
    embed.add_field(name=f"More duels ({len(names)})", value=_fit(names), inline=False)


def _sections(events: list[Event]) -> list[tuple[str, list[Event]]]:
    """A battle's events cut where a duel starts, a choice is awaited and the battle ends."""
    sections: list[tuple[str, list[Event]]] = [("opening", [])]
    for event in events:
        if isinstance(event, DuelStarted):
            sections.append(("duel", []))
        elif isinstance(event, BattleAwaits):
            sections.append(("waiting", []))
        elif isinstance(event, BattleEnded):
            sections.append(("result", []))
        sections[-1][1].append(event)
    return [s for s in sections if s[1]]


def _side_field(state: GameState, battle: Battle, side: str) -> tuple[str, str]:
    """A side's field: `Attacker: Gracchan Republic`, its player, and each unit it sent or committed."""
    name = battle.attacker if side == "attacker" else battle.defender
    nation = state.nations.get(name)
    ids = battle.attacking if side == "attacker" else battle.defending
    in_fight = battle.in_fight_attacking if side == "attacker" else battle.in_fight_defending
    types = {d[f"{s}_unit"]: d[f"{s}_type"] for d in battle.duels for s in ("attacker", "defender")}
    lines = [who(nation.player) if nation is not None and nation.player else "no player"]
    for unit_id in ids:
        unit = nation.units.get(unit_id) if nation is not None else None
        if unit is None:
            lines.append(f"`#{unit_id}` {safe(types.get(unit_id, 'unit'))} — killed")
        else:
            left = " — retreated" if unit_id not in in_fight else ""
            lines.append(f"`#{unit_id}` {safe(unit_name(unit.type, unit.rank))}{left}")
    if not ids:
        lines.append("no units" if battle.over or side == "attacker" else "no units committed yet")
    return f"{side.capitalize()}: {safe(name)}"[:256], _fit(lines)


def _duel_name(battle: Battle, events: list[Event], number: int) -> str:
    """`Duel 2 — Charon's #6 armour wins`: the unit left standing (the other was killed or retreated)."""
    started = next(e for e in events if isinstance(e, DuelStarted))
    left = next((e for e in events if isinstance(e, UnitLeftFight)), None)
    if left is None:
        return f"Duel {number}"
    if left.unit == started.attacker_unit:
        nation, unit, kind = battle.defender, started.defender_unit, started.defender_type
    else:
        nation, unit, kind = battle.attacker, started.attacker_unit, started.attacker_type
    return safe(f"Duel {number} — {nation}'s {unit_ref(unit, kind)} wins")


def _result_name(events: list[Event]) -> str:
    ended = next(e for e in events if isinstance(e, BattleEnded))
    if ended.winner:
        return f"Result — {safe(ended.winner)} wins"
    return "Result — cancelled"


def _fit(lines: list[str], limit: int = FIELD_LIMIT) -> str:
    """Lines joined within `limit` characters: what does not fit is counted on a last line (`… 3 more lines`)."""
    text = "\n".join(lines)
    if len(text) <= limit:
        return text
    kept: list[str] = []
    for count, line in enumerate(lines):
        more = f"… {plural(len(lines) - count, 'more line')}"
        if len("\n".join([*kept, line[:limit]])) + len(more) + 1 > limit:
            return "\n".join([*kept, more])[:limit]
        kept.append(line)
    return text[:limit]




async def answer(interaction: discord.Interaction, report: Any) -> None:
    """A Nations command's answer: its events (the clock's catch-up first), its battles as fields."""
    await reply(interaction, embeds=nations_report_embeds(report.caught_up + report.events, report.state,
                                                          actor(interaction)))


async def run(interaction: discord.Interaction, path: str, **options: Any) -> Any:
    """`cogs.util.run_command` answered the Nations way (`answer`: its battles as fields)."""
    return await run_command(interaction, path, answer=answer, **options)
