"""What the Godsfire queries show, written once for every front-end: the game's status, a system's sheet,
the phase, the Social Interphase's steps left (`engine.view`)."""

from __future__ import annotations

from typing import Any

from engine.describe import plural
from engine.godsfire.phases import phase_line
from engine.godsfire.rules import ECONOMY_NAMES, PARTY_NAMES, GodsfireRules
from engine.godsfire.state import PHASE_NAMES, GodsfireState, System
from engine.godsfire.steps import STEP_NAMES, interphase_checklist
from engine.godsfire.tableviews import procedure_lines
from engine.view import Line, Part, Person, Strong, View, cogm_parts, item, line, view


def units_text(units: dict[str, int]) -> str:
    """`2 SQD, 1 FLT`, or `none`."""
    return ", ".join(f"{n} {kind}" for kind, n in units.items() if n) or "none"


def status_view(state: GodsfireState, rules: GodsfireRules | None = None) -> View:
    """/game status and /godsfire status: the turn and phase, each player (NG, money, allegiances), each system."""
    title = line(f"Godsfire — turn {state.turn}, {PHASE_NAMES[state.phase]}; GM: ", Person(state.gm),
                 *cogm_parts(state.cogms), *((" — ", Strong("GAME OVER")) if state.ended else ()))
    lines: list[Line] = []
    if state.forced_dice:
        count = len(state.forced_dice)
        lines.append(line(f"{count} GM-entered {'die' if count == 1 else 'dice'} waiting."))
    if state.board is not None:
        lines.append(line(f"Map: {state.board.title}, {len(state.board.cells)} cells (/godsfire map show draws the "
                          "table)."))
    for p in state.players:
        systems = ", ".join(s.name for s in state.systems_of(p.name)) or "none"
        allegiance = " ".join(f"{party} {n}" for party, n in p.national_allegiance.items())
        marks: list[Part] = []
        for mark, on in (("Change Ministers! used", p.ministers_changed),
                         ("failed a repayment this turn", p.failed_repayment),
                         ("no new loans until every allegiance is 3+", p.loans_barred)):
            if on:
                marks.append(f"; {mark}")
        if p.out:
            marks += ["; ", Strong("OUT OF THE GAME")]
        lines.append(line(Person(p.name), f": NG on {p.government or 'no system yet'}, {p.ng_money} GB, in transit "
                          f"{p.in_transit} GB; national allegiance {allegiance or 'none'}; systems: {systems}",
                          *marks))
    if not state.players:
        lines.append(line("No players yet: the GM adds systems with /godsfire system add."))
    lines += [system_line(s) for s in state.systems]
    if state.wars:
        lines.append(line("At war: " + "; ".join(" and ".join(pair) for pair in state.wars)))
    lines += procedure_lines(state, rules)
    return view(title, *lines, loud=state.ended)


def system_line(system: System) -> Line:
    """`Alpha (alice): 2 regions, 1 in revolt, bank 3 GB, space 2 SQD`."""
    revolts = sum(1 for r in system.regions if r.revolt)
    return line(system.name, " (", Person(system.owner) if system.owner else "neutral",
                f"): {plural(len(system.regions), 'region')}" + (f", {revolts} in revolt" if revolts else "")
                + f", bank {system.bank} GB, space {units_text(system.units)}")


def system_view(system: System) -> View:
    """A system's sheet: owner, planets, bank, space units, loans (each marker on its box, counted from 1 as
    the sheet's boxes are), a siege, then one line a region."""
    owner: tuple[Part, ...] = (Person(system.owner), "'s system") if system.owner else ("a neutral system",)
    loans = "; ".join(f"{loan.amount} GB (marker on box {loan.box + 1})" for loan in system.loans) or "none"
    siege: tuple[Part, ...] = ("; ", Strong("UNDER SIEGE"), f" ({plural(system.enemy_units, 'enemy unit')})") \
        if system.enemy_units else ()
    title = line(f"{system.name} — ", *owner, f", {plural(system.planets, 'planet')}; bank {system.bank} GB; "
                 f"space {units_text(system.units)}; loans {loans}", *siege)
    regions = []
    for r in system.regions:
        extra: list[str] = [f"ground {units_text(r.units)}"]
        if r.enemy_units:
            extra.append(f"enemy units {r.enemy_units}")
        money = [f"{p} {n} (circle {r.subversion_step.get(p, 0) + 1})" for p, n in r.subversion.items() if n]
        if money:
            extra.append("subversion " + ", ".join(money))
        if r.desubversion:
            extra.append(f"de-subversion {r.desubversion}")
        if r.counter_subversion:
            extra.append(f"counter-subversion {r.counter_subversion}")
        revolt: tuple[Part, ...] = (Strong("IN REVOLT"), "; ") if r.revolt else ()
        regions.append(line(f"Region {r.number}: {PARTY_NAMES[r.party]} ({r.party}), allegiance {r.allegiance}, "
                            f"{ECONOMY_NAMES[r.economy]} ({r.economy}); ", *revolt, "; ".join(extra),
                            item=True, table=True))  # the sheet's rows: a forum post keeps them in a code block
    return view(title, *regions)


def show_system(state: GodsfireState, rules: GodsfireRules | None, actor: str, options: dict[str, Any]) -> View:
    """/godsfire system show name:."""
    return system_view(state.system(options["name"]))


def phase_view(state: GodsfireState, rules: GodsfireRules | None = None, actor: str = "",
               options: dict[str, Any] | None = None) -> View:
    """/godsfire phase show: where the turn is, and the next phase."""
    return view(phase_line(state) + ".")


def interphase_view(state: GodsfireState, rules: GodsfireRules | None = None, actor: str = "",
                    options: dict[str, Any] | None = None) -> View:
    """/godsfire interphase show: the Social Interphase's checklist, each player in the interphase's order with
    every step D.1 to D.14 in the sheet's order: done, next (the first not done) or left; the compulsory ones
    (a loan repayment due this turn, D.8, D.9, D.10) marked, the end of the interphase applies them if left."""
    if state.phase != "interphase":
        return view(f"Not in the Social Interphase: turn {state.turn} is in the {PHASE_NAMES[state.phase]}.")
    lines: list[Line] = []
    for player, rows in interphase_checklist(state).items():
        upcoming = next((row for row in rows if row.state == "next"), None)
        lines.append(line(Person(player), ": " + (f"next {STEP_NAMES[upcoming.step]} ({upcoming.step})"
                                                  if upcoming else "all done")))
        for row in rows:
            marks = ", ".join(m for m in ("compulsory" if row.compulsory else "", row.note) if m)
            lines.append(item(f"{STEP_NAMES[row.step]} ({row.step}): {row.state}" + (f" — {marks}" if marks else "")))
    return view(f"Social Interphase, turn {state.turn}: each player's steps in the sheet's order (a step skipped: "
                f"/godsfire interphase done step:<step>; the compulsory ones left are applied when it ends):", *lines)
