"""What the refereed procedure shows (`engine.view`): the counters on the table, the turn's order and
initiative, the attacks, the choices awaited, the Money in Transit box, the victory condition and the final
results — written once for every front-end."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from engine.describe import time_left
from engine.godsfire import table
from engine.godsfire.combat import combat_lines
from engine.godsfire.rules import GodsfireRules
from engine.godsfire.state import Counter, GodsfireState
from engine.names import name_key
from engine.view import At, Line, Part, Person, Strong, View, item, line, view

VICTORY_WORDS = {"gm": "the GM's call", "last-ng": "the last National Government standing",
                 "most-systems": "the most systems after turn {turns}"}


def counters_view(state: GodsfireState, rules: GodsfireRules | None, actor: str, options: dict[str, Any]) -> View:
    """/godsfire counters: every counter (or one player's, or those at one position), by position."""
    shown = list(state.counters)
    who = options.get("player")
    if who:
        name = state.player(who).name
        shown = [c for c in shown if c.owner is not None and name_key(c.owner) == name_key(name)]
    if options.get("at"):
        at = table.place_of(state, options["at"]).at
        shown = [c for c in shown if c.at == at]
    lines: list[Line] = []
    by_at: dict[str, list[Counter]] = {}
    for c in shown:
        by_at.setdefault(c.at, []).append(c)
    for at, here in by_at.items():
        words = ", ".join(f"{f'{c.amount} GB' if c.kind == 'GB' else c.kind} #{c.number} "
                          f"({c.owner or 'neutral'}{', moved' if c.moved == state.turn else ''})" for c in here)
        lines.append(item(f"{at}{' (ground)' if here[0].ground else ''}: {words}"))
    if not lines:
        lines.append(line("No counters" + (" there." if options.get("at") or who else " on the table yet: the units "
                                           "in the systems' boxes become counters at the first move.")))
    return view(line(f"Godsfire — the table, turn {state.turn}"), *lines)


def _until(state: GodsfireState, since: datetime, hours: float, lead: str = " — until ") -> list[Part]:
    """ — until <time>, or while the clock is paused the time left when it resumes (a pause holds every deadline)."""
    due = since + timedelta(hours=hours)
    if state.paused_at is not None:
        return [f" — {time_left(due - state.paused_at)} left when the clock resumes"]
    return [lead, At(due)]


def procedure_lines(state: GodsfireState, rules: GodsfireRules | None = None) -> list[Line]:
    """The status's lines on the procedure: order, initiative, transit, attacks, choices, money, victory."""
    lines: list[Line] = []
    hours = float(state.house.response_hours)
    if state.paused_at is not None:
        lines.append(line("The clock is paused: every deadline waits until it resumes."))
    if state.order:
        lines.append(line(f"Turn {state.turn}'s player order: {', '.join(state.order)}."))
    ini = state.initiative
    if ini is not None and state.phase == "movement":
        due: list[Part] = _until(state, ini.since, hours) if ini.since else []
        lines.append(line(f"Initiative: {ini.holder} (round {ini.round}); awaiting ", Person(ini.awaiting or ""),
                          " (move, done or pass)", *due, "."))
    if state.transit is not None:
        t = state.transit
        until: list[Part] = _until(state, t.since, hours) if t.since else []
        lines.append(line(f"A move through {t.cell} waits on ", Person(t.stationary),
                          ": transit attack, block or allow", *until, "."))
    lines += [item(text[0].upper() + text[1:]) for text in combat_lines(state)]
    for choice in state.choices:
        if choice.since:
            lines.append(line("Awaiting ", Person(choice.chooser), *_until(state, choice.since, hours, " until "), "."))
    if state.shipments:
        lines.append(line(Strong("Money in Transit:")))
        for s in state.shipments:
            carrier = f", carried by #{s.carrier}" if s.carrier else ", at speed 3"
            lines.append(item(f"{s.owner}: {s.amount} GB from {s.source} to {s.to}{carrier} — lands in turn "
                              f"{s.arrives}'s transfer step"))
    if state.victory != "gm" or state.winner:
        words = VICTORY_WORDS.get(state.victory, state.victory).format(turns=state.victory_turns)
        lines.append(line(f"Victory: {words}; nobody wins with loans outstanding."
                          + (f" Winner: {state.winner}." if state.winner else "")))
    return lines


def results_view(standings: dict[str, Any]) -> View | None:
    """A Godsfire game's final results (`GameEnded.standings`)."""
    if standings.get("ruleset") != "godsfire":
        return None
    winner = standings.get("winner")
    title = line("Godsfire — final results: ", *((Person(winner), " wins") if winner else ("no winner",)))
    lines = [item(Person(r["player"]), f": {r['systems']} systems, {r['planets']} planets, {r['money']} GB, "
                  f"loans outstanding {r['loans']}{' — out of the game' if r['out'] else ''}")
             for r in standings.get("players", [])]
    return view(title, *lines, colour="results")
