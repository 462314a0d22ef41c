"""Words for the Godsfire events and its queries (the console's text and Discord's embeds share them).
The economy's and the politics' own events are worded by their modules' `event_line`, asked in turn."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from engine.describe import plural
from engine.events import Event, GameImported
from engine.game import When, Who
from engine.godsfire import economy, politics
from engine.godsfire import events as ev
from engine.godsfire.events import LISTS, to_plain
from engine.godsfire.state import PHASE_NAMES, GodsfireState, Region

FIELD_WORDS = {
    "enemy_units": "enemy units", "subversion_step": "subversion circle", "counter_subversion":
    "counter-subversion", "revolt_tried": "revolt dealt with", "ng_money": "NG money",
    "in_transit": "money in transit", "national_allegiance": "national allegiance",
    "ministers_changed": "Change Ministers! used", "failed_repayment": "failed repayment",
    "loans_barred": "barred from loans", "out": "out of the game", "desubversion": "de-subversion",
    "to_place": "units to place", "bought": "units bought", "spent": "money spent", "raised": "allegiance raised",
    "taxed_turn": "tax paid for turn", "repaid_turn": "loans repaid for turn", "forced_dice": "GM-entered dice",
    "forced_for": "what the GM-entered dice are for",
    "next_counter": "next counter number", "next_attack": "next attack number", "victory_turns": "turns to play",
    "neutral_control": "neutral units moved by", "started_at": "started", "done": "interphase steps done",
}
"""A field's words where its name is not one (any other field: its name with spaces, never with underscores)."""


def field_words(name: str) -> str:
    return FIELD_WORDS.get(name, name.replace("_", " "))


def show(value: Any) -> str:
    """A field's value in words: `AG 2, PDF 1`, `none`, `yes`."""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if value is None:
        return "none"
    if isinstance(value, dict):
        return ", ".join(f"{k} {v}" for k, v in value.items()) or "none"
    if isinstance(value, list):
        if value and isinstance(value[0], dict) and "amount" in value[0]:
            return ", ".join(f"{loan['amount']} GB at box {loan['box']}" for loan in value)
        return ", ".join(" and ".join(map(str, v)) if isinstance(v, list) else str(v) for v in value) or "none"
    return str(value)


BOOKKEEPING = frozenset({"taxed_turn", "repaid_turn", "revolt_tried", "raised", "done"})
"""Fields that only mark what was done this turn: the reason says it in words, so they are not listed."""


def changes_text(changes: dict[str, Any], before: dict[str, Any]) -> str:
    """`allegiance 3 → 2, revolt no → yes` (bookkeeping marks left out, unless nothing else changed)."""
    shown = {k: v for k, v in changes.items() if k not in BOOKKEEPING} or changes
    return ", ".join(f"{field_words(k)} {show(before.get(k))} → {show(v)}" for k, v in shown.items())


def region_text(region: Region | dict[str, Any]) -> str:
    """`1: M 4 A-1` (and `in revolt`, enemy units, when so)."""
    raw = region if isinstance(region, dict) else ev.region_to_dict(region)
    text = f"{raw['number']}: {raw['party']} {raw['allegiance']} {raw['economy']}"
    if raw.get("revolt"):
        text += " in revolt"
    if raw.get("enemy_units"):
        text += f" ({raw['enemy_units']} enemy)"
    return text


def _sister_lines() -> list[Callable[[Event[Any], When, Who], str | None]]:
    """The economy's and the politics' own `event_line`, where they define one."""
    lines = (getattr(module, "event_line", None) for module in (economy, politics))
    return [line for line in lines if line is not None]


def event_line(event: Event[Any], when: When, who: Who) -> str | None:
    """One line for one Godsfire event, or None (other rule sets' events, events without words)."""
    match event:
        case ev.GodsfireStarted(gm=gm):
            return (f"A Godsfire game begins, refereed by the bot; GM: {who(gm)}. The GM adds systems with "
                    "/godsfire system add (their owners join as players); turn 1's Movement Phase.")
        case GameImported(snapshot=snap) if snap.get("game", {}).get("ruleset") == "godsfire":
            return (f"Godsfire game imported with {plural(len(snap.get('players', [])), 'player')} and "
                    f"{plural(len(snap.get('systems', [])), 'system')}.")
        case ev.PlayerAdded(name=name, national_allegiance=levels, government=government):
            where = f", National Government on {government}" if government else ""
            return f"🪐 {who(name)} joins the game (national allegiances {show(levels)}{where})."
        case ev.SystemAdded(system=system):
            owner = f"{who(system['owner'])}'s" if system.get("owner") else "neutral"
            units = f"; units {show(system.get('units', {}))}" if system.get("units") else ""
            regions = "; ".join(region_text(r) for r in system.get("regions", []))
            return (f"✨ {system['name']} ({owner}, {plural(system.get('planets', 1), 'planet')}): regions "
                    f"{regions}{units}.")
        case ev.RegionChanged(system=system, region=region, changes=changes, before=before, reason=reason):
            return f"{system} region {region}: {changes_text(changes, before)} ({reason})."
        case ev.SystemChanged(system=system, changes=changes, before=before, reason=reason):
            return f"{system}: {changes_text(changes, before)} ({reason})."
        case ev.PlayerChanged(player=player, changes=changes, before=before, reason=reason):
            return f"{who(player)}: {changes_text(changes, before)} ({reason})."
        case ev.GameChanged(changes=changes, before=before, reason=reason):
            if set(changes) == {"done"}:
                return None  # the interphase's marks cleared: the phase line says so
            if set(changes) == {"order"}:
                return f"🎲 {reason[0].upper()}{reason[1:]}." if changes["order"] else None
            if set(changes) <= TABLE_FIELDS:
                return f"{TABLE_MARK} {reason[0].upper()}{reason[1:]}."
            return f"The game: {changes_text(changes, before)} ({reason})."
        case ev.GodsfirePhaseChanged(turn=turn, phase=phase):
            return f"⏭ Turn {turn}: the {PHASE_NAMES.get(phase, phase)} begins."
        case ev.InterphaseReset():
            return None
        case ev.StepDone(player=player, step=step):
            return f"✔ {who(player)} is done with the interphase's {step} step."
        case ev.ChartRead(chart=chart, column=column, die=die, words=words, detail=detail):
            return chart_line(chart, column, die, words, detail)
    for line in _sister_lines():
        found = line(event, when, who)
        if found is not None:
            return found
    return None


TABLE_FIELDS = {"counters", "next_counter", "initiative", "transit", "attacks", "next_attack", "choices",
                "shipments", "neutral_control", "victory", "victory_turns", "winner", "wars", "board", "paused_at"}
"""The game's fields the procedure changes: their log line is the reason, which says what happened."""
TABLE_MARK = "▸"


def chart_line(chart: str, column: str, die: int, words: str, detail: str) -> str:
    """`⚔ Combat, 5 against 2: odds 3-1; die 4: D1: the defender loses 1 unit, the attacker chooses`."""
    if chart == "combat":
        return f"⚔ Combat, {detail}; die {die}: {words}."
    if chart == "transit":
        return f"☄ Transit attack, {detail}; die {die}: {words}."
    if chart == "money":
        return f"💰 Money, {detail}: {words}."
    if chart == "movement":
        return f"🧭 Move check ({column}, {detail}): {words}."
    if chart == "stacking":
        return f"📦 Stack check ({column}, {detail}): {words}."
    return f"{chart} {column}: die {die}: {words} ({detail})."


HIDDEN = BOOKKEEPING | {"next_counter", "next_attack"}
"""Fields /log gm leaves out of a change beside others (numbering and marks; the reason says what happened)."""
COUNTED = set(LISTS)
"""The game's fields shown in /log gm by how many they hold (the counters on the table, the choices awaited)."""
PLAYER_KEYED = {"subversion", "subversion_step"}


def change_line(state: GodsfireState, event: Event[Any], when: When, who: Who) -> str | None:
    """/log gm: a Godsfire event's change as "what field: before → after (reason).", the before as it stood just
    before the event (None: the event's own line says it). The changes carry their before (what the game held
    when the event was made), so each event of one act is worded against its own before."""
    match event:
        case ev.RegionChanged(system=name, region=number, changes=changes, before=before, reason=reason):
            system = state.find_system(name)
            target = None if system is None else next((r for r in system.regions if r.number == number), None)
            return _fields_line(f"{name} region {number} ", target, changes, before, reason, who)
        case ev.SystemChanged(system=name, changes=changes, before=before, reason=reason):
            return _fields_line(f"{name} ", state.find_system(name), changes, before, reason, who)
        case ev.PlayerChanged(player=name, changes=changes, before=before, reason=reason):
            return _fields_line(f"{who(name)} ", state.find_player(name), changes, before, reason, who)
        case ev.GameChanged(changes=changes, before=before, reason=reason) if set(changes) - {"done"}:
            return _fields_line("", state, changes, before, reason, who)
        case ev.GodsfirePhaseChanged(turn=turn, phase=phase):
            return (f"Phase: turn {state.turn}, {PHASE_NAMES.get(state.phase, state.phase)} → turn {turn}, "
                    f"{PHASE_NAMES.get(phase, phase)}.")
    return None


def _fields_line(what: str, target: Any, changes: dict[str, Any], before: dict[str, Any], reason: str,
                 who: Who) -> str:
    """`Sol bank: 5 → 7 (set by GM gm).`; several fields: `Sol region 1 allegiance: 3 → 2; economy: A-1 → A-2
    (…)`; the game's own fields with no one in front: `Counters on the table: 13 → 15 (…)`. The before is the
    event's own (the target's as it stands where the event lacks it)."""
    shown = [k for k in changes if k not in HIDDEN] or list(changes)
    parts = []
    for key in shown:
        if key in before or target is None or not hasattr(target, key):
            old = before.get(key)
        else:
            old = to_plain(getattr(target, key))
        parts.append(f"{_field_name(key)}: {_value(key, old, who)} → {_value(key, changes[key], who)}")
    text = "; ".join(parts)
    return f"{what}{text if what else text[:1].upper() + text[1:]} ({reason})."


def _field_name(key: str) -> str:
    if key == "counters":
        return "counters on the table"
    if key == "choices":
        return "choices awaited"
    return field_words(key)


def _value(key: str, value: Any, who: Who) -> str:
    """A field's value in /log gm: players by `who`, the game's lists of records by how many they hold."""
    if key in COUNTED and isinstance(value, list):
        return str(len(value))
    if key in ("owner", "winner") and isinstance(value, str):
        return who(value)
    if key == "order" and isinstance(value, list):
        return ", ".join(who(player) for player in value) or "none"
    if key == "wars" and isinstance(value, list):
        return ", ".join(" and ".join(who(p) for p in pair) for pair in value) or "none"
    if key == "neutral_control" and isinstance(value, dict):
        return ", ".join(f"{system}: {who(player)}" for system, player in value.items()) or "none"
    if key in PLAYER_KEYED and isinstance(value, dict):
        return ", ".join(f"{who(player)} {amount}" for player, amount in value.items()) or "none"
    if key == "initiative" and isinstance(value, dict):
        return f"{who(value['holder'])} holds it, round {value['round']}, {who(value.get('awaiting') or '-')}'s go"
    if key == "transit" and isinstance(value, dict):
        return f"{who(value['mover'])}'s move through {value['cell']}, {who(value['stationary'])} to answer"
    if key == "board" and isinstance(value, dict):
        return repr(value.get("title", "a map"))
    return show(value)
