"""The largest legal Godsfire game and its slowest commands (issue 33): engine CPU of each heavy command on a game
at every bound of `engine.godsfire.state` (players, systems of 12 regions, counters on the table, attacks a phase,
money in transit, loans, subversion), the slowest printed first.

    python -m bench.godsfire_worst            # every command's engine CPU, the slowest first
    python -m bench.godsfire_worst --profile  # and a profile of the slowest

`worst_command_seconds()` is the slowest command's engine CPU; `worst_godsfire(store)` imports the largest game
into a store and returns a coroutine function that runs its slowest command there once a call (through
`Referee.act`, so in the store's database thread), for `bench/stall.py`.
"""

from __future__ import annotations

import argparse
import asyncio
import copy
import cProfile
import itertools
import pstats
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from data import rules_for
from engine.core import Context, execute
from engine.godsfire import (
    combat,
    economy,
    loans,
    movement,
    phases,
    politics,
    schema,
    setup,
    snapshot,
    subversion,
    table,
    tableviews,
    views,
)
from engine.godsfire.rules import GodsfireRules
from engine.godsfire.state import (
    MAX_ATTACKS,
    MAX_BOX_UNITS,
    MAX_COUNTERS,
    MAX_PLAYERS,
    MAX_REGIONS,
    MAX_SHIPMENTS,
    MAX_SYSTEMS,
    Attack,
    Counter,
    GodsfireState,
    Initiative,
    Loan,
    Player,
    Region,
    Shipment,
    System,
)
from engine.godsfire.steps import STEPS
from engine.rulesets import RULESETS

NOW = datetime(2026, 1, 1, tzinfo=UTC)
GM = "gm"


class Sixes:
    """A roller that rolls one face (the bench's dice: the same work every run)."""

    def __init__(self, face: int) -> None:
        self.face = face

    def roll(self, sides: int) -> int:
        return min(self.face, sides)


def _rules() -> GodsfireRules:
    rules: GodsfireRules = rules_for("godsfire")
    return rules


def _name(i: int) -> str:
    return f"p{i:02d}"


def largest_state(phase: str = "movement") -> GodsfireState:
    """The largest legal game in `phase`: every bound met at once. MAX_PLAYERS players, all at war; MAX_SYSTEMS
    systems of MAX_REGIONS regions (the first players' seats, the rest dealt round; every tenth neutral); the
    counters filling the table (MAX_COUNTERS); in the Combat Phase MAX_ATTACKS attacks of one unit each on one
    enemy unit; in the interphase every region subverted by the next two players, every system at its most
    loans, MAX_SHIPMENTS shipments landing this turn."""
    rules = _rules()
    state: GodsfireState = RULESETS["godsfire"].start(Context(NOW, GM, rules, True, Sixes(1)), {}).state
    state.turn, state.phase = 2, phase
    players = [_name(i) for i in range(MAX_PLAYERS)]
    state.players = [Player(name, f"S{i:03d}", {"R": 5, "M": 5, "E": 5}, ng_money=999) for i, name in
                     enumerate(players)]
    state.wars = [sorted(pair) for pair in itertools.combinations(players, 2)]
    state.order = list(players)
    state.done = {name: [] for name in players}
    parties, economies = "RME", ("S", "A-1", "A-2", "I-1", "I-2")
    for i in range(MAX_SYSTEMS):
        owner = None if i >= MAX_PLAYERS and i % 10 == 9 else players[i % MAX_PLAYERS]
        regions = [Region(n, parties[(i + n) % 3], 2 + (i + n) % 4, economies[(i + n) % 5])
                   for n in range(1, MAX_REGIONS + 1)]
        state.systems.append(System(f"S{i:03d}", owner, planets=MAX_REGIONS, bank=999, regions=regions))
    # the counters: each player's NG on its seat, then units box by box in turn, as stacking allows (a system
    # cell's SQD, AG, PDF, 3 a cell; a region's AG, PDF, 6 a region), until the table is full
    counters = [Counter(i + 1, "NG", name, f"S{i:03d}") for i, name in enumerate(players)]
    room = [(s, None, kind) for _ in range(1) for s in state.systems for kind in ("SQD", "AG", "PDF")]
    room += [(s, r, kind) for _ in range(3) for s in state.systems for r in s.regions for kind in ("AG", "PDF")]
    for s, r, kind in room[:MAX_COUNTERS - len(counters)]:
        at = s.name if r is None else f"{s.name} {r.number}"
        counters.append(Counter(len(counters) + 1, kind, s.owner, at, r is not None))
        box = s.units if r is None else r.units
        box[kind] = box.get(kind, 0) + 1
    assert len(counters) == MAX_COUNTERS, len(counters)
    assert all(n <= MAX_BOX_UNITS for s in state.systems for b in (s.units, *(r.units for r in s.regions))
               for n in b.values())
    state.counters, state.next_counter = counters, len(counters) + 1
    if phase == "movement":
        state.initiative = Initiative(players[0], 1, players[0], NOW)
    if phase == "combat":
        _attacks(state)
    if phase == "interphase":
        _interphase(state, rules)
    problems = snapshot.check_state(state, rules)
    assert not problems, problems[:3]
    return state


def _attacks(state: GodsfireState) -> None:
    """MAX_ATTACKS attacks of one unit each: a player's SQD in a free cell on the enemy SQD in the next cell."""
    players = [p.name for p in state.players]
    for n in range(MAX_ATTACKS):
        attacker, defender = players[n % len(players)], players[(n + 1) % len(players)]
        number = state.next_counter
        state.counters += [Counter(number, "SQD", attacker, f"A{n}"), Counter(number + 1, "SQD", defender, f"B{n}")]
        state.next_counter += 2
        state.attacks.append(Attack(n + 1, [attacker], [number], f"B{n}", False, defender))
    state.next_attack = MAX_ATTACKS + 1
    drop = len(state.counters) - MAX_COUNTERS  # the table stays full: units off the boxes' counters
    kept = state.counters[:MAX_COUNTERS - 2 * MAX_ATTACKS] if drop > 0 else state.counters[:-2 * MAX_ATTACKS]
    if drop > 0:
        gone = state.counters[MAX_COUNTERS - 2 * MAX_ATTACKS:-2 * MAX_ATTACKS]
        for c in gone:
            system = next(s for s in state.systems if c.at == s.name or c.at.startswith(s.name + " "))
            box = system.units if c.at == system.name else system.region(int(c.at.rsplit(" ", 1)[1])).units
            box[c.kind] -= 1
            if not box[c.kind]:
                del box[c.kind]
        state.counters = kept + state.counters[-2 * MAX_ATTACKS:]


def _interphase(state: GodsfireState, rules: GodsfireRules) -> None:
    """Subversion in every region by the next two players, every owned system's loans, MAX_SHIPMENTS shipments."""
    players = [p.name for p in state.players]
    track = int(rules.table("subversion")["track"])
    payments = int(rules.table("loans")["payments"])
    for i, system in enumerate(state.systems):
        subverters = [players[(i + k) % len(players)] for k in (1, 2)]
        for region in system.regions:
            region.subversion = {p: 99 for p in subverters if p != system.owner}
            region.subversion_step = {p: (region.number + k) % track for k, p in enumerate(region.subversion)}
        if system.owner is not None:
            system.loans = [Loan(999, k % payments) for k in range(setup.MAX_LOANS)]
    owned = [s for s in state.systems if s.owner is not None]
    state.shipments = [Shipment(s.owner or "", 5, "the NG", s.name, state.turn)
                       for s in itertools.islice(itertools.cycle(owned), MAX_SHIPMENTS)]
    for name in players:
        state.players[players.index(name)].in_transit = sum(x.amount for x in state.shipments if x.owner == name)


@dataclass
class Case:
    """One command on the largest game in a phase: who, what (an action, or one made from the state), and a setup
    of the state first (if any); `face`: what every die shows."""

    label: str
    phase: str
    actor: str
    action: Any
    prepare: Callable[[GodsfireState], None] | None = None
    face: int = 1
    view: Callable[[GodsfireState], Any] | None = None  # a query instead of an action: what it shows


def _last_step(state: GodsfireState) -> None:
    _done(state, STEPS[-1])


def _done(state: GodsfireState, step: str) -> None:
    """Every player has taken the interphase's steps before `step` (its loans repaid)."""
    state.done = {p.name: list(STEPS[:STEPS.index(step)]) for p in state.players}
    for system in state.systems:
        system.repaid_turn = state.turn if STEPS.index(step) > STEPS.index("loans") else 0


def cases() -> list[Case]:
    """The heavy commands: what touches every counter, system, region or player, at each phase."""
    first = _name(0)
    return [
        Case("GM sets a box to the most units (the counters rebuilt)", "movement", GM,
             setup.SetField("units", f"AG={MAX_BOX_UNITS // 2} PDF={MAX_BOX_UNITS // 2}", "S001", 1)),
        Case("GM puts 40 counters on the table", "movement", GM, table.AddCounters("SQD", "K1", first, 40),
             lambda s: _free(s, 40)),
        Case("GM takes 40 counters off", "movement", GM, table.RemoveCounters(" ".join(map(str, range(60, 100))))),
        Case("a move of a full stack (3 counters) through 3 cells", "movement", first,
             lambda s: movement.Move(" ".join(str(c.number) for c in s.counters if c.at == "K7"), "K8", "J1, J2, J3"),
             lambda s: _gather(s, first, "K7", 3)),
        Case("phase next: Combat → war, every system of the others taken by force", "combat", GM, phases.NextPhase(),
             _all_taken),
        Case("phase next: the turn's order rolled and every counter made from the boxes", "movement", GM,
             phases.NextPhase(), _boxes_only),
        Case(f"GM sets a box to the most units ({MAX_BOX_UNITS} AG, made into counters at once)", "movement", GM,
             setup.SetField("units", f"AG={MAX_BOX_UNITS}", "S001", 1), lambda s: _free(s, MAX_BOX_UNITS)),
        Case("the go ends (initiative passes)", "movement", first, movement.EndGo(True)),
        Case("phase next: Movement → Combat", "movement", GM, phases.NextPhase(),
             lambda s: setattr(s, "initiative", None)),
        Case(f"resolve {MAX_ATTACKS} attacks (every defender eliminated)", "combat", GM, combat.ResolveAttacks()),
        Case(f"resolve {MAX_ATTACKS} attacks (every attacker eliminated)", "combat", GM, combat.ResolveAttacks(),
             face=6),
        Case("phase next: Combat → war (conquests looked for)", "combat", GM, phases.NextPhase(),
             lambda s: (setattr(s, "attacks", []), setattr(s, "next_attack", 1))),
        Case("phase next: war → interphase", "combat", GM, phases.NextPhase(),
             lambda s: (setattr(s, "attacks", []), setattr(s, "next_attack", 1), setattr(s, "phase", "war"))),
        Case("interphase end (every compulsory step of every player)", "interphase", GM, politics.EndInterphase()),
        Case("interphase end after every step", "interphase", GM, politics.EndInterphase(), _last_step),
        Case("D.8 subversion resolved for every player", "interphase", GM, politics.ResolveSubversion(),
             lambda s: _done(s, "subversion")),
        Case("a loan repayment defaulted (levels lowered)", "interphase", first, loans.Repay("S000"),
             lambda s: setattr(s.systems[0], "bank", 0)),
        Case("D.11 subversion placed", "interphase", first, subversion.Subvert("S001", 1, 1),
             lambda s: (_done(s, "subvert"), setattr(s, "wars", []))),
        Case("/godsfire counters (every counter, by position)", "movement", first, None,
             view=lambda s: tableviews.counters_view(s, _rules(), first, {})),
        Case("/game status", "combat", first, None, view=lambda s: views.status_view(s, _rules())),
        Case("/godsfire interphase show", "interphase", first, None, view=lambda s: views.interphase_view(s, _rules())),
        Case("D.14 units placed", "interphase", _name(1), economy.Place("S001", 3, "AG", 1),
             lambda s: (_free(s, 1), setattr(s.systems[1].regions[2], "to_place", {"AG": 1}), _done(s, "units"))),
    ]


def _all_taken(state: GodsfireState) -> None:
    """The first player's units alone on every cell and region of the others' systems (theirs gone, their National
    Governments destroyed): at the end of the Combat Phase each system is taken by force, one after another."""
    taker = state.players[0].name
    state.attacks, state.next_attack = [], 1
    for player in state.players[1:]:  # their National Governments destroyed in this phase's combats
        player.out, player.government = True, None
    mine = [c for c in state.counters if c.owner == taker]
    number = max(c.number for c in state.counters) + 1
    for system in state.systems:
        if system.owner == taker:
            continue
        places = [(system.name, False, "SQD"), *((f"{system.name} {r.number}", True, "AG") for r in system.regions)]
        for at, ground, kind in places:
            mine.append(Counter(number, kind, taker, at, ground))
            number += 1
    state.counters, state.next_counter = mine[:MAX_COUNTERS], number
    for system in state.systems:
        system.units, system.enemy_units = {}, 0
        for region in system.regions:
            region.units, region.enemy_units = {}, 0
    for c in state.counters:  # the boxes: the owner's units, or enemies
        system = next((s for s in state.systems if c.at == s.name or c.at.startswith(s.name + " ")), None)
        if system is None:
            continue
        box = system if c.at == system.name else system.region(int(c.at.rsplit(" ", 1)[1]))
        if c.kind in ("SQD", "AG", "PDF"):
            if c.owner == system.owner:
                box.units[c.kind] = box.units.get(c.kind, 0) + 1
            else:
                box.enemy_units += 1


def _gather(state: GodsfireState, player: str, at: str, count: int) -> None:
    """`count` of the player's units moved by hand to the free cell `at` (their boxes written from the table)."""
    mine = [c for c in state.counters if c.owner == player and c.kind in ("SQD", "AG") and not c.ground][:count]
    for c in mine:
        system = next(s for s in state.systems if s.name == c.at)
        system.units[c.kind] -= 1
        if not system.units[c.kind]:
            del system.units[c.kind]
        c.at = at


def _boxes_only(state: GodsfireState) -> None:
    """The table as the boxes alone (a game set up by hand): the counters are made by the next table command."""
    state.counters = [c for c in state.counters if c.kind == "NG"]
    state.initiative, state.order = None, []


def _free(state: GodsfireState, room: int) -> None:
    """Room for `room` more counters: the last ones off the table (and their boxes)."""
    for c in state.counters[-room:]:
        system = next(s for s in state.systems if c.at == s.name or c.at.startswith(s.name + " "))
        box = system.units if c.at == system.name else system.region(int(c.at.rsplit(" ", 1)[1])).units
        box[c.kind] -= 1
        if not box[c.kind]:
            del box[c.kind]
    del state.counters[-room:]


def run(case: Case, states: dict[str, GodsfireState], profile: bool = False) -> tuple[float, int, str]:
    """Engine CPU seconds of `case` on a fresh copy of its phase's largest game (as the referee runs a command on
    a state just loaded: in place), the events it made, and its refusal if it was refused."""
    state = copy.deepcopy(states[case.phase])
    if case.prepare is not None:
        case.prepare(state)
    action = case.action(state) if callable(case.action) else case.action
    ctx = Context(NOW, case.actor, _rules(), case.actor == GM, Sixes(case.face))
    profiler = cProfile.Profile() if profile else None
    started = time.process_time()
    if profiler is not None:
        profiler.enable()
    try:
        events = 0 if case.view is not None else len(execute(state, action, ctx, fresh=True).events)
        if case.view is not None:
            case.view(state)
        refused = ""
    except Exception as refusal:
        events, refused = 0, f"{type(refusal).__name__}: {refusal}"
    spent = time.process_time() - started
    if profiler is not None:
        profiler.disable()
        pstats.Stats(profiler).sort_stats("cumulative").print_stats(30)
    return spent, events, refused


def measure() -> list[tuple[float, Case, int, str]]:
    """Every case's engine CPU (the best of 3), the slowest first."""
    states = {phase: largest_state(phase) for phase in ("movement", "combat", "interphase")}
    found = []
    for case in cases():
        best = min(run(case, states) for _ in range(3))
        found.append((best[0], case, best[1], best[2]))
    return sorted(found, key=lambda row: -row[0])


def import_seconds() -> tuple[float, int]:
    """Engine CPU of importing the largest game (the schema, the state built, every rule checked; the best of 3),
    and the export's size in JSON bytes."""
    import orjson

    export = {**snapshot.state_to_dict(largest_state("interphase")), "rolls": []}
    rules = _rules()
    best = float("inf")
    for _ in range(3):
        data = copy.deepcopy(export)
        started = time.process_time()
        clean = schema.validate_export(data, NOW)
        clean.pop("rolls")
        problems = snapshot.check_state(snapshot.state_from_dict(clean), rules)
        best = min(best, time.process_time() - started)
        assert not problems, problems[:3]
    return best, len(orjson.dumps(export))


def worst_command_seconds() -> float:
    """The engine CPU of the slowest legal command on the largest legal game (seconds, the best of 3)."""
    return measure()[0][0]


async def worst_godsfire(store: Any, copies: int = 4) -> Callable[[], Awaitable[None]]:
    """The largest game, in its Social Interphase with every step left, imported `copies` times into `store`
    (channels "godsfire-worst-0", …), and a coroutine function that runs its slowest command once a call on the
    next copy: the GM's `/godsfire interphase end` through `Referee.act` (the engine and the store's commit of its
    5,000 events, in the store's database thread). A call past the copies imports one more first (not part of
    the command: time `copies` calls at most)."""
    from service.referee import Referee

    referee = Referee(store, roller=Sixes(1), clock=lambda: NOW)
    export = {**snapshot.state_to_dict(largest_state("interphase")), "rolls": []}
    channels = itertools.count()
    ready: list[str] = []

    async def prepared() -> None:
        channel = f"godsfire-worst-{next(channels)}"
        await referee.import_game(channel, GM, copy.deepcopy(export))
        ready.append(channel)

    for _ in range(copies):
        await prepared()

    async def slowest() -> None:
        if not ready:
            await prepared()
        await referee.act(ready.pop(0), GM, politics.EndInterphase(), "/godsfire interphase end", gm_role=True)

    return slowest


async def _through_store(copies: int = 3) -> list[float]:
    """Wall seconds of the slowest command through the referee and a fresh SQLite store, each call."""
    import shutil
    import tempfile
    from pathlib import Path

    from data.store import Store

    folder = Path(tempfile.mkdtemp(prefix="bench-godsfire-"))
    store = await Store.open(folder / "referee.db")
    try:
        slowest = await worst_godsfire(store, copies)
        spent = []
        for _ in range(copies):
            started = time.perf_counter()
            await slowest()
            spent.append(time.perf_counter() - started)
        return spent
    finally:
        await store.close()
        shutil.rmtree(folder, ignore_errors=True)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--profile", action="store_true", help="profile the slowest command")
    args = parser.parse_args(argv)
    rows = measure()
    print(f"Godsfire's slowest commands on the largest legal game ({MAX_PLAYERS} players, {MAX_SYSTEMS} systems of "
          f"{MAX_REGIONS} regions, {MAX_COUNTERS:,} counters, {MAX_ATTACKS} attacks, {MAX_SHIPMENTS} shipments), "
          "engine CPU:")
    for spent, case, events, refused in rows:
        what = "a query" if case.view is not None else f"{events} events"
        print(f"  {spent * 1000:8.1f} ms  {case.label} ({what}){'  REFUSED ' + refused if refused else ''}")
    spent, size = import_seconds()
    print(f"  {spent * 1000:8.1f} ms  /game import of the largest game ({size:,} bytes of JSON: schema, build, rules)")
    walls = asyncio.run(_through_store())
    print(f"`/godsfire interphase end` on it through the referee and SQLite (engine, snapshot, 5,000 events "
          f"committed), wall: {', '.join(f'{w * 1000:.0f} ms' for w in walls)}")
    if args.profile:
        states = {rows[0][1].phase: largest_state(rows[0][1].phase)}
        run(rows[0][1], states, profile=True)


if __name__ == "__main__":
    main()
