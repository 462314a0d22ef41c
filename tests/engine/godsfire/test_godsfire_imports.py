"""Issue 18, finding 2: a Godsfire import is checked against everything the rules guarantee of a live game
(`snapshot.check_state`, the invariants the property test asserts after every command) and refused naming the
first broken field, with no game or row left behind.

Every hostile file is a mutation of a real export of one game played through the console, taken at several
points: set up (a neutral under a player's control), the Movement Phase with initiative held and a move waiting
on a transit answer, then with a responder's go awaited, the Combat Phase with an attack announced and then
resolved with a retreat to choose, the Last Chance to Declare War after a war, the Social Interphase with
taxes paid, a loan and money in transit, and the game ended by the GM (its `ended` mark taken off, so that
what is refused is the rest).
"""

from __future__ import annotations

import copy
import time
from typing import Any

import pytest
from exportchanges import Change, all_of, node_at, set_at
from godsfireforum import opened
from storehelpers import RULES, log_counts

from console.app import CHANNEL
from data.store import Store
from engine.dice import ForcedRoller
from engine.errors import BadInput, RuleViolation
from service.referee import Referee

SCRIPT: list[tuple[str, str | None]] = [
    ("gm /game start ruleset:godsfire", None),
    ('gm /gm dice values:"3 4 5 3 1 1 6 6 2 5 4 2 3 3 3 3 3 4 5 3"', None),
    ("gm /godsfire system add name:Sol owner:alice planets:2 regions:2", None),
    ("gm /godsfire system add name:Vega owner:bob", None),
    ("gm /godsfire system add name:Rigel neutral:true", None),
    ("gm /godsfire system add name:Deneb owner:alice", None),
    ("gm /godsfire victory set condition:last-ng", None),
    ("gm /godsfire counter add kind:SQD at:Sol owner:alice count:2", None),
    ("gm /godsfire counter add kind:AG at:Sol owner:alice", None),
    ("gm /godsfire counter add kind:SQD at:K4 owner:bob", None),
    ("gm /godsfire system control system:Rigel player:bob", "setup"),
    ('gm /gm dice values:"6 2"', None),
    ("gm /godsfire movement initiative", None),
    ('alice /godsfire movement move counters:"12 13 14" to:K5 through:K4', "transit"),
    ("bob /godsfire movement transit answer:allow", None),
    ("alice /godsfire movement done", "movement"),
    ("bob /godsfire movement pass", None),
    ("alice /godsfire movement pass", None),
    ("bob /godsfire movement pass", None),
    ("gm /godsfire phase next", None),
    ('alice /godsfire combat announce units:"12 13 14" target:Rigel', "announced"),
    ("gm /gm dice values:1", None),
    ("gm /godsfire combat resolve", "combat"),
    ("alice /godsfire combat retreat to:K6", None),
    ("gm /godsfire phase next", None),
    ("alice /godsfire war declare target:bob", "war"),
    ("gm /godsfire phase next", None),
    ("alice /godsfire money tax system:Sol", None),
    ("bob /godsfire money tax system:Vega", None),
    ("bob /godsfire money borrow system:Vega amount:4", None),
    ("alice /godsfire money send amount:1 from:Sol to:Deneb cells:3", "interphase"),
    ("gm /godsfire victory declare player:alice", "ended"),
]
STAGES = ("setup", "transit", "movement", "announced", "combat", "war", "interphase", "ended")
LIVE = STAGES[:-1]
NOT_MOVEMENT = ("announced", "combat", "war", "interphase")
NOT_COMBAT = ("setup", "transit", "movement", "war", "interphase")
NOT_INTERPHASE = ("setup", "transit", "movement", "announced", "combat", "war")
PLAYED: dict[str, dict[str, Any]] = {}


async def play(tmp_path: Any) -> dict[str, dict[str, Any]]:
    """The game's exports at each stage (played once for the module)."""
    if not PLAYED:
        forum = await opened(tmp_path, "played")
        try:
            for line, stage in SCRIPT:
                await forum.say(line)
                if stage is not None:
                    PLAYED[stage] = await forum.console.referee.export(CHANNEL)
        finally:
            await forum.store.close()
        PLAYED["ended"]["game"]["ended"] = False  # what is refused is the rest (an ended game is refused anyway)
    return PLAYED


# --- changes ----------------------------------------------------------------------------------------------------


_node, _set, _do = node_at, set_at, all_of


def _counter(number: int, owner: str | None, at: str, kind: str = "SQD", ground: bool = False, moved: int = 0,
             amount: int = 0) -> dict[str, Any]:
    return {"number": number, "kind": kind, "owner": owner, "at": at, "ground": ground, "moved": moved,
            "amount": amount}


def _add_counter(**fields: Any) -> Change:
    def change(data: dict[str, Any]) -> None:
        game = data["game"]
        number = game["next_counter"]
        game["counters"].append(_counter(number, **fields))
        game["next_counter"] = number + 1
    return change


def _counter_field(field: str, value: Any, kind: str = "SQD") -> Change:
    """Set a field of the first of alice's counters of `kind`."""
    def change(data: dict[str, Any]) -> None:
        found = next(c for c in data["game"]["counters"] if c["owner"] == "alice" and c["kind"] == kind)
        found[field] = value
    return change


def _built_up(number: int, size: int) -> Change:
    """Counter `number` built up to `size` units (A.2.5)."""
    def change(data: dict[str, Any]) -> None:
        next(c for c in data["game"]["counters"] if c["number"] == number)["size"] = size
    return change


def _first_counter_path(stage: str, kind: str = "SQD") -> str:
    counters = PLAYED[stage]["game"]["counters"]
    index = next(i for i, c in enumerate(counters) if c["owner"] == "alice" and c["kind"] == kind)
    return f"game.counters[{index}]"


INITIATIVE = {"holder": "alice", "round": 1, "awaiting": "alice", "since": None, "moved": False, "held": [],
              "reminded": False}
ATTACK = {"number": 1, "attackers": ["alice"], "units": [12], "target": "Rigel", "ground": False,
          "defender": None, "result": "", "column": "", "die": 0, "attack": 0.0, "defence": 0.0, "nebula": False}
SHIPMENT = {"owner": "alice", "amount": 1, "source": "Sol", "to": "Deneb", "arrives": 1, "carrier": None}


def _attack(**fields: Any) -> Change:
    """A second attack (or the first, outside combat) with these fields."""
    def change(data: dict[str, Any]) -> None:
        game = data["game"]
        number = game["next_attack"]
        game["attacks"].append({**ATTACK, "number": number, **fields})
        game["next_attack"] = number + 1
    return change


# Each: (what it attacks, the stages it is applied to, the change, a field the refusal must name)
Case = tuple[str, tuple[str, ...], Change, str]
EVERYWHERE: list[Case] = [
    # wars
    ("a player at war with herself", LIVE, _set("game.wars", [["alice", "alice"]]), "game.wars[0]"),
    ("a war with a stranger", LIVE, _set("game.wars", [["alice", "zed"]]), "game.wars[0]"),
    ("the same war twice", LIVE, _set("game.wars", [["alice", "bob"], ["bob", "alice"]]), "game.wars[1]"),
    ("a war of three", LIVE, _set("game.wars", [["alice", "bob", "bob"]]), "game.wars[0]"),
    # the player order
    ("an order that repeats a player", LIVE, _set("game.order", ["alice", "bob", "alice"]), "game.order[2]"),
    ("an order that misses a player", LIVE, _set("game.order", ["bob"]), "game.order"),
    ("an order naming a stranger", LIVE, _set("game.order", ["alice", "bob", "zed"]), "game.order[2]"),
    # systems, regions and loans
    ("a loan at box 100 of a 4-box track", LIVE, _set("systems.1.loans", [{"amount": 4, "box": 100}]),
     "systems[1].loans[0].box"),
    ("a loan past the top box", LIVE, _set("systems.1.loans", [{"amount": 4, "box": 4}]),
     "systems[1].loans[0].box"),
    ("a loan on a neutral system", LIVE, _set("systems.2.loans", [{"amount": 4, "box": 0}]), "systems[2].loans"),
    ("a loan of nothing", LIVE, _set("systems.1.loans", [{"amount": 0, "box": 0}]), "systems[1].loans[0].amount"),
    ("taxes paid in a later turn", LIVE, _set("systems.0.taxed_turn", 2), "systems[0].taxed_turn"),
    ("loans repaid in a later turn", LIVE, _set("systems.1.repaid_turn", 9), "systems[1].repaid_turn"),
    ("a region subverted by its own owner", LIVE, _set("systems.0.regions.0.subversion", {"alice": 2}),
     "systems[0].regions[0].subversion"),
    ("a subversion circle of the owner", LIVE, _set("systems.0.regions.1.subversion_step", {"ALICE": 1}),
     "systems[0].regions[1].subversion_step"),
    ("a region subverted by a stranger", LIVE, _set("systems.1.regions.0.subversion", {"zed": 1}),
     "systems[1].regions[0].subversion"),
    ("regions numbered 1 and 5", LIVE, _set("systems.0.regions.1.number", 5), "systems[0].regions"),
    ("two regions numbered 1", LIVE, _set("systems.0.regions.1.number", 1), "systems[0].regions[1].number"),
    ("a system owned by a stranger", LIVE, _set("systems.1.owner", "zed"), "systems[1].owner"),
    ("a government on another's system", LIVE, _set("players.1.government", "Sol"), "players[1].government"),
    # the game
    ("a winner of a game not ended", LIVE, _set("game.winner", "alice"), "game.winner"),
    ("a count of turns for last-ng", LIVE, _set("game.victory_turns", 5), "game.victory_turns"),
    ("most-systems without its last turn", LIVE, _set("game.victory", "most-systems"), "game.victory_turns"),
    ("most-systems past its last turn", LIVE,
     _do(_set("game.victory", "most-systems"), _set("game.victory_turns", 1), _set("game.turn", 2)),
     "game.victory_turns"),
    ("the interphase of a stranger", LIVE, _set("game.done", {"zed": []}), "game.done"),
    ("an unknown interphase step", LIVE, _set("game.done", {"alice": ["nap"]}), "game.done"),
    ("neutral control of a stranger", LIVE, _set("game.neutral_control", {"Rigel": "zed"}),
     "game.neutral_control.Rigel"),
    ("neutral control of no system", LIVE, _set("game.neutral_control", {"Nowhere": "bob"}),
     "game.neutral_control.Nowhere"),
    ("neutral control of a look-alike twice", LIVE, _set("game.neutral_control", {"Rigel": "bob", "RIGEL": "alice"}),
     "game.neutral_control"),
    # counters
    ("a counter that moved in a later turn", LIVE, _counter_field("moved", 3), ".moved"),
    ("a counter on a region its system lacks", LIVE, _add_counter(owner="bob", at="Vega 7", kind="AG", ground=True),
     ".at"),
    ("a counter in a region but in space", LIVE, _add_counter(owner="alice", at="Sol 1", kind="AG"), ".ground"),
    ("a counter on the ground of a cell", LIVE, _add_counter(owner="alice", at="K9", kind="AG", ground=True),
     ".ground"),
    ("a squadron on the ground", LIVE, _add_counter(owner="alice", at="Sol 2", ground=True), ".ground"),
    ("a counter of a stranger", LIVE, _add_counter(owner="zed", at="K9"), ".owner"),
    ("a GB counter of nothing", LIVE, _add_counter(owner="alice", at="K9", kind="GB"), ".amount"),
    ("a counter numbered past next_counter", LIVE, _set("game.next_counter", 2), "game.counters"),
    ("a counter at a misspelt system", LIVE, _add_counter(owner="alice", at="SOL", kind="AG"), ".at"),
    # money in transit
    ("money to no system", LIVE, _set("game.shipments", [{**SHIPMENT, "to": "Nowhere", "arrives": 5}]),
     "game.shipments[0].to"),
    ("money of a stranger", LIVE, _set("game.shipments", [{**SHIPMENT, "owner": "zed", "arrives": 5}]),
     "game.shipments[0].owner"),
    ("money carried by a counter never made", LIVE,
     _set("game.shipments", [{**SHIPMENT, "carrier": 999, "arrives": 5}]), "game.shipments[0].carrier"),
]
OUT_OF_PHASE: list[Case] = [
    ("initiative outside the Movement Phase", NOT_MOVEMENT, _set("game.initiative", INITIATIVE), "game.initiative"),
    ("a transit outside the Movement Phase", NOT_MOVEMENT,
     _set("game.transit", {"mover": "alice", "counters": [12], "cell": "K4", "to": "K5", "ground": False,
                           "stationary": "bob"}), "game.transit"),
    ("an attack outside the Combat Phase", NOT_COMBAT, _attack(), "game.attacks"),
    ("attack numbers running outside the Combat Phase", NOT_COMBAT, _set("game.next_attack", 4), "game.attacks"),
    ("a retreat to choose outside the Combat Phase", NOT_COMBAT,
     _set("game.choices", [{"chooser": "alice", "kind": "retreat", "counters": [12], "count": 0}]), "game.choices"),
    ("interphase steps done outside the interphase", NOT_INTERPHASE, _set("game.done", {"alice": ["tax"]}),
     "game.done.alice"),
    ("money that should have landed last turn", LIVE,
     _do(_set("game.turn", 2), _set("game.shipments", [SHIPMENT])), "game.shipments[0].arrives"),
]
MOVEMENT: list[Case] = [
    ("initiative held by a stranger", ("transit", "movement"), _set("game.initiative.holder", "zed"),
     "game.initiative.holder"),
    ("initiative held by a player not in the order", ("transit", "movement"),
     _do(_set("game.initiative.holder", "carol"), lambda d: d["players"].append({"name": "carol"})),
     "game.initiative.holder"),
    ("initiative awaiting nobody", ("transit", "movement"), _set("game.initiative.awaiting", None),
     "game.initiative.awaiting"),
    ("initiative in round 5 of 4", ("transit", "movement"), _set("game.initiative.round", 5), "game.initiative.round"),
    ("initiative held twice by its holder", ("transit", "movement"), _set("game.initiative.held", ["alice"]),
     "game.initiative.held"),
    ("initiative held before by a stranger", ("transit", "movement"), _set("game.initiative.held", ["zed"]),
     "game.initiative.held"),
    ("initiative held before twice", ("transit", "movement"), _set("game.initiative.held", ["bob", "bob"]),
     "game.initiative.held"),
    ("initiative without an order", ("transit", "movement"), _set("game.order", []), "game.initiative"),
    ("a transit with nobody's initiative", ("transit",), _set("game.initiative", None), "game.transit"),
    ("a transit by a player whose go it is not", ("transit",), _set("game.transit.mover", "bob"),
     "game.transit.mover"),
    ("a transit of counters not on the table", ("transit",), _set("game.transit.counters", [999]),
     "game.transit.counters"),
    ("a transit of no counters", ("transit",), _set("game.transit.counters", []), "game.transit.counters"),
    ("a transit answered by a stranger", ("transit",), _set("game.transit.stationary", "zed"),
     "game.transit.stationary"),
]
COMBAT: list[Case] = [
    ("an attack with no attacker", ("announced", "combat"), _set("game.attacks.0.attackers", []),
     "game.attacks[0].attackers"),
    ("an attacker named twice", ("announced", "combat"), _set("game.attacks.0.attackers", ["alice", "Alice"]),
     "game.attacks[0].attackers"),
    ("an attacker who is a stranger", ("announced", "combat"), _set("game.attacks.0.attackers", ["zed"]),
     "game.attacks[0].attackers[0]"),
    ("an attack on oneself", ("announced", "combat"), _set("game.attacks.0.defender", "alice"),
     "game.attacks[0].defender"),
    ("an attack with units never made", ("announced", "combat"), _set("game.attacks.0.units", [999]),
     "game.attacks[0].units"),
    ("an attack using a unit twice", ("announced", "combat"), _set("game.attacks.0.units", [12, 12]),
     "game.attacks[0].units"),
    ("a unit in two attacks", ("announced", "combat"), _attack(units=[12]), "game.attacks[1].units"),
    ("an attack numbered past next_attack", ("announced", "combat"), _set("game.next_attack", 1), "game.attacks"),
    ("two attacks numbered 1", ("announced", "combat"),
     lambda d: d["game"]["attacks"].append(dict(d["game"]["attacks"][0], units=[13])), "game.attacks"),
    ("a choice for a stranger", ("combat",), _set("game.choices.0.chooser", "zed"), "game.choices[0].chooser"),
    ("a retreat among counters not on the table", ("combat",), _set("game.choices.0.counters", [999]),
     "game.choices[0].counters"),
    ("a retreat among no counters", ("combat",), _set("game.choices.0.counters", []), "game.choices[0].counters"),
    ("no losses to choose", ("combat",), _set("game.choices.0", {"chooser": "bob", "kind": "losses",
                                                                 "counters": [12, 13], "count": 0}),
     "game.choices[0].count"),
    ("more losses than units", ("combat",), _set("game.choices.0", {"chooser": "bob", "kind": "losses",
                                                                    "counters": [12], "count": 3}),
     "game.choices[0].count"),
    ("more losses than a built-up counter's units", ("combat",),
     _do(_built_up(12, 2), _set("game.choices.0", {"chooser": "bob", "kind": "losses", "counters": [12], "count": 3})),
     "game.choices[0].count"),
]
INTERPHASE: list[Case] = [
    ("a step done twice", ("interphase",), _set("game.done.alice", ["tax", "tax"]), "game.done.alice"),
    ("money that should have landed two turns ago", ("interphase",),
     _do(_set("game.turn", 3), _set("game.shipments.0.arrives", 2)), "game.shipments[0].arrives"),
    ("money of a stranger in transit", ("interphase",), _set("game.shipments.0.owner", "zed"),
     "game.shipments[0].owner"),
    ("the new loan at box 7", ("interphase",), _set("systems.1.loans.0.box", 7), "systems[1].loans[0].box"),
    ("the tax of turn 2 paid in turn 1", ("interphase",), _set("systems.1.taxed_turn", 2), "systems[1].taxed_turn"),
    ("the interphase order empty of players", ("interphase",), _set("game.order", ["zed"]), "game.order[0]"),
]
ENDED: list[Case] = [
    ("a winner in a game that has not ended", ("ended",), lambda d: None, "game.winner"),
    ("a winner who is a stranger", ("ended",), _set("game.winner", "zed"), "game.winner"),
    ("an ended game", ("ended",), _set("game.ended", True), "its rules ended it"),
]
CASES: list[tuple[str, str, Change, str]] = [
    (f"{stage}: {what}", stage, change, field)
    for what, stages, change, field in [*EVERYWHERE, *OUT_OF_PHASE, *MOVEMENT, *COMBAT, *INTERPHASE, *ENDED]
    for stage in stages
]
MESSAGES: list[str] = []


@pytest.fixture
def ref(store, clock):
    return Referee(store, RULES, ForcedRoller(), clock)


async def assert_refused(ref: Referee, store: Store, data: dict[str, Any], field: str, what: str) -> None:
    before = await log_counts(store)
    games = len(await store.games())
    with pytest.raises((BadInput, RuleViolation)) as refused:
        await ref.import_game("elsewhere", "gm", data)
    message = str(refused.value)
    MESSAGES.append(f"{what}: {message}")
    assert field in message, message
    assert "\n" not in message, message
    assert await store.live_game("elsewhere") is None
    assert len(await store.games()) == games
    assert await log_counts(store) == before


def test_at_least_100_hostile_exports():
    assert len(CASES) >= 100, len(CASES)
    assert {stage for _, stage, _, _ in CASES} == set(STAGES)


@pytest.mark.parametrize(("what", "stage", "change", "field"), CASES, ids=[c[0] for c in CASES])
async def test_a_hostile_godsfire_export_is_refused_naming_the_field(ref, store, tmp_path, what, stage, change, field):
    data = copy.deepcopy((await play(tmp_path))[stage])
    counters = len(data["game"]["counters"])
    change(data)
    if field.startswith("."):  # a counter's field: the one added, or alice's first SQD
        grown = len(data["game"]["counters"]) > counters
        field = (f"game.counters[{counters}]" if grown else _first_counter_path(stage)) + field
    await assert_refused(ref, store, data, field, what)


@pytest.mark.parametrize("stage", LIVE)
async def test_every_stage_of_the_real_game_imports_back_to_the_same_state(ref, store, tmp_path, stage):
    export = copy.deepcopy((await play(tmp_path))[stage])
    started = time.perf_counter()
    await ref.import_game("elsewhere", "carol", export)
    again = await ref.export("elsewhere")
    assert again["game"].pop("gm") == "carol"
    export["game"].pop("gm")
    assert again == export
    assert time.perf_counter() - started < 5


async def test_losses_to_take_from_one_built_up_counter_import(ref, store, tmp_path):
    """A.2.5: a loss takes one unit of a built-up counter, so 2 losses may wait on one SQD ×3 (the units count, not
    the counters): such an export imports back (the invariants once counted counters and refused it)."""
    export = copy.deepcopy((await play(tmp_path))["combat"])
    _built_up(12, 3)(export)
    _set("game.choices.0", {"chooser": "bob", "kind": "losses", "counters": [12], "count": 2, "reason": "",
                            "since": None, "attack": 1})(export)
    await ref.import_game("elsewhere", "gm", export)
    again = await ref.export("elsewhere")
    assert again["game"]["choices"] == export["game"]["choices"]
    assert next(c for c in again["game"]["counters"] if c["number"] == 12)["size"] == 3


def test_the_stages_are_what_they_claim():
    assert PLAYED, "run with the module's other tests"
    game = {stage: PLAYED[stage]["game"] for stage in STAGES}
    assert game["transit"]["transit"] and game["transit"]["initiative"]["awaiting"] == "alice"
    assert game["movement"]["initiative"]["awaiting"] == "bob"
    assert game["announced"]["attacks"] and not game["announced"]["choices"]
    assert game["combat"]["attacks"][0]["result"] and game["combat"]["choices"]
    assert game["war"]["wars"] == [["alice", "bob"]]
    interphase = PLAYED["interphase"]
    assert game["interphase"]["shipments"] and interphase["systems"][1]["loans"]
    assert game["ended"]["winner"] == "alice"


def test_zz_report_the_refusals():
    """Not an assertion on words: the refusals for the report (run with -s to see them)."""
    print("", *MESSAGES, f"{len(MESSAGES)} hostile Godsfire exports refused", sep="\n")
