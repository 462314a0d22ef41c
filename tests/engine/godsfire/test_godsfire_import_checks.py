"""Issue 33: a Godsfire export that no play can make is refused by the import with one line naming the field, and
no game is made. Each case mutates a real export (a game set up and played with the engine) in one way: the
initiative against the player order, a player named twice, a subversion step off its track or without money,
counters no player owns, counts over the bounds play keeps to, attacks and choices that name nothing.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from datetime import timedelta
from typing import Any

import pytest
from exportchanges import set_at
from godsfirehelpers import NOW, Table
from storehelpers import log_counts

from engine.dice import ForcedRoller
from engine.errors import BadInput, RuleViolation
from engine.godsfire import movement, table
from engine.godsfire.events import GodsfirePhaseChanged
from engine.godsfire.snapshot import state_to_dict
from engine.godsfire.state import (
    MAX_ATTACKS,
    MAX_BOX_UNITS,
    MAX_COUNTER_NUMBER,
    MAX_COUNTERS,
    MAX_PLAYERS,
    MAX_SHIPMENTS,
    MAX_SYSTEMS,
    Attack,
    LossChoice,
    Shipment,
)
from service.referee import Referee

Change = Callable[[dict[str, Any]], Any]


class Clock:
    def __call__(self) -> Any:
        return NOW + timedelta(hours=1)


def setup_game() -> Table:
    """alice (Sol, Altair), bob (Vega), carol (Deneb) and neutral Rigel; the counters made from the boxes."""
    t = Table()
    t.system("Sol", "alice", ["M 4 I-1", "R 3 A-2"], units={"SQD": 2, "AG": 1})
    t.system("Vega", "bob", ["E 3 I-2"], units={"AG": 1})
    t.system("Deneb", "carol", ["R 5 A-1"])
    t.system("Altair", "alice", ["E 4 A-2"])
    t.system("Rigel", None, ["R 2 S"], units={"SQD": 3, "AG": 3, "PDF": 3})
    t.emit(table.reconcile)
    return t


def initiative_game() -> Table:
    """The Movement Phase: the order alice, bob, carol; alice has passed, bob holds initiative."""
    t = setup_game()
    t.do(movement.StartInitiative(), dice=[6, 5, 4])
    t.do(movement.EndGo(True), "alice")
    assert t.state.initiative is not None and t.state.initiative.holder == "bob"
    return t


def combat_game() -> Table:
    """The Combat Phase: alice's attack 1 on Vega resolved, her retreat to name."""
    t = setup_game()
    sqd = next(c.number for c in t.state.counters if c.owner == "alice" and c.kind == "SQD")
    t.emit(lambda tx: tx.emit(GodsfirePhaseChanged(1, "combat")))
    t.game_set(wars=[["alice", "bob"]], next_attack=2,
               attacks=[Attack(1, ["alice"], [sqd], "Vega", False, "bob", "Ar", "1-1", 5, 2, 4)],
               choices=[LossChoice("alice", "retreat", [sqd], 0, "attack 1: alice must retreat", NOW, 1)])
    return t


def interphase_game() -> Table:
    """The Social Interphase: 2 GB on their way from Sol to Altair, carried by alice's SQD."""
    t = setup_game()
    t.to_phase("interphase")
    sqd = next(c.number for c in t.state.counters if c.owner == "alice" and c.kind == "SQD")
    t.game_set(shipments=[Shipment("alice", 2, "Sol", "Altair", 2, sqd)])
    t.player_set("alice", in_transit=2)
    return t


GAMES = {"setup": setup_game, "initiative": initiative_game, "combat": combat_game, "interphase": interphase_game}


def export_of(stage: str) -> dict[str, Any]:
    t = GAMES[stage]()
    t.assert_replays()
    return {**state_to_dict(t.state), "rolls": []}


@pytest.fixture
def ref(store):
    return Referee(store, None, ForcedRoller(), Clock())


async def refused(ref: Referee, stage: str, change: Change, *words: str) -> str:
    """The stage's export, changed, is refused naming `words`, in one line; nothing is stored."""
    data = copy.deepcopy(export_of(stage))
    change(data)
    before = await log_counts(ref.store)
    with pytest.raises((BadInput, RuleViolation)) as refusal:
        await ref.import_game("elsewhere", "gm", data)
    message = str(refusal.value)
    for word in words:
        assert word in message, message
    assert "\n" not in message, message
    assert await ref.store.live_game("elsewhere") is None
    assert await log_counts(ref.store) == before
    return message


def counter(data: dict[str, Any], **fields: Any) -> None:
    """A counter added to the export's table (alice's SQD in Sol unless told)."""
    game = data["game"]
    game["counters"].append({"number": game["next_counter"], "kind": "SQD", "owner": "alice", "at": "Sol",
                             "ground": False, "moved": 0, "amount": 0, "size": 1, "came_from": "", **fields})
    game["next_counter"] += 1


@pytest.mark.parametrize("stage", list(GAMES))
async def test_every_stage_imports_as_it_is(ref, stage):
    await ref.import_game(f"chan-{stage}", "gm", copy.deepcopy(export_of(stage)))


# --- the initiative against the player order -------------------------------------------------------------------


async def test_initiative_held_by_one_later_in_the_order(ref):
    await refused(ref, "initiative", set_at("game.initiative.held", ["alice", "carol"]),
                  "game.initiative.held: carol held initiative before bob, but comes after them in the order")


async def test_initiative_that_passed_over_a_player(ref):
    await refused(ref, "initiative", set_at("game.initiative.held", []),
                  "game.initiative.held: alice comes before bob in the order", "has not held initiative")


# --- a player named twice -----------------------------------------------------------------------------------------


async def test_interphase_steps_of_one_player_named_twice(ref):
    await refused(ref, "interphase", set_at("game.done", {"alice": ["tax"], "ALICE": []}),
                  "game.done.ALICE: 'ALICE' and 'alice' are one player, named twice")


async def test_subversion_money_of_one_player_named_twice(ref):
    await refused(ref, "setup", set_at("systems.2.regions.0.subversion", {"alice": 1, "Alice": 2}),
                  "systems[2].regions[0].subversion.Alice: 'Alice' and 'alice' are one player, named twice")


# --- subversion steps ---------------------------------------------------------------------------------------------


async def test_a_subversion_step_off_the_track(ref):
    def change(data: dict[str, Any]) -> None:
        set_at("systems.2.regions.0.subversion", {"alice": 2})(data)
        set_at("systems.2.regions.0.subversion_step", {"alice": 3})(data)
    await refused(ref, "setup", change, "systems[2].regions[0].subversion_step: Deneb region 1: alice's money on "
                  "circle 3 of a 3-circle track")


async def test_a_subversion_step_without_money(ref):
    await refused(ref, "setup", set_at("systems.2.regions.0.subversion_step", {"bob": 1}),
                  "systems[2].regions[0].subversion_step: Deneb region 1: a subversion step for bob, who has no "
                  "subversion money there")


# --- counters no player owns, or one too many ---------------------------------------------------------------------


async def test_a_national_government_counter_of_no_player(ref):
    await refused(ref, "setup", lambda d: counter(d, kind="NG", owner=None),
                  "game.counters[", ".owner: NG #", "is no player's")


async def test_money_counter_of_no_player(ref):
    await refused(ref, "setup", lambda d: counter(d, kind="GB", owner=None, amount=3),
                  ".owner: GB #", "is no player's")


async def test_a_second_national_government_counter(ref):
    await refused(ref, "setup", lambda d: counter(d, kind="NG"), "alice has a second NG counter")


async def test_money_built_up(ref):
    await refused(ref, "setup", lambda d: counter(d, kind="GB", amount=3, size=3),
                  ".size: GB #", "only units (SQD, AG, PDF) are built up")


async def test_squadrons_in_a_regions_box(ref):
    await refused(ref, "setup", set_at("systems.0.regions.0.units", {"SQD": 2}),
                  "systems[0].regions[0].units: Sol region 1 holds 2 SQD on the ground")


# --- counts over the bounds play keeps to -------------------------------------------------------------------------


async def test_a_box_over_its_bound(ref):
    await refused(ref, "setup", set_at("systems.0.units", {"AG": MAX_BOX_UNITS + 1}),
                  f"systems[0].units.AG: at most {MAX_BOX_UNITS}")


async def test_boxes_that_would_overflow_the_table(ref):
    def change(data: dict[str, Any]) -> None:
        for system in data["systems"][:4]:
            system["units"] = {"AG": MAX_BOX_UNITS, "PDF": MAX_BOX_UNITS}
    await refused(ref, "setup", change, f"game.counters: the table holds at most {MAX_COUNTERS:,} counters")


async def test_counter_numbers_past_their_end(ref):
    await refused(ref, "setup", set_at("game.next_counter", MAX_COUNTER_NUMBER + 1),
                  f"game.next_counter: at most {MAX_COUNTER_NUMBER}")


async def test_too_many_players(ref):
    await refused(ref, "setup", lambda d: d["players"].extend({"name": f"x{i}"} for i in range(MAX_PLAYERS)),
                  f"players: at most {MAX_PLAYERS} items")


async def test_too_many_systems(ref):
    def change(data: dict[str, Any]) -> None:
        data["systems"] += [{**copy.deepcopy(data["systems"][4]), "name": f"Far {i}", "units": {}}
                            for i in range(MAX_SYSTEMS)]
    await refused(ref, "setup", change, f"systems: at most {MAX_SYSTEMS} items")


async def test_too_many_attacks(ref):
    def change(data: dict[str, Any]) -> None:
        one = data["game"]["attacks"][0]
        data["game"]["attacks"] = [{**one, "number": n} for n in range(1, MAX_ATTACKS + 2)]
    await refused(ref, "combat", change, f"game.attacks: at most {MAX_ATTACKS} items")


async def test_too_much_money_in_transit(ref):
    def change(data: dict[str, Any]) -> None:
        data["game"]["shipments"] *= MAX_SHIPMENTS + 1
    await refused(ref, "interphase", change, f"game.shipments: at most {MAX_SHIPMENTS} items")


# --- attacks, choices and shipments that name nothing -------------------------------------------------------------


async def test_an_attack_on_a_region_its_system_lacks(ref):
    await refused(ref, "combat", set_at("game.attacks.0.target", "Vega 9"),
                  "game.attacks[0].target: attack 1 is on 'Vega 9', which names no region of that system")


async def test_an_attack_on_a_system_cell_said_to_be_on_the_ground(ref):
    await refused(ref, "combat", set_at("game.attacks.0.ground", True),
                  "game.attacks[0].target: attack 1 is on 'Vega' on the ground, which the table writes 'Vega' in space")


async def test_a_choice_of_an_attack_never_resolved(ref):
    await refused(ref, "combat", set_at("game.choices.0.attack", 7),
                  "game.choices[0].attack: a pending retreat choice of attack 7, which is no attack resolved")


async def test_money_carried_by_a_counter_that_is_no_ship(ref):
    def change(data: dict[str, Any]) -> None:
        ng = next(c["number"] for c in data["game"]["counters"] if c["kind"] == "NG" and c["owner"] == "alice")
        data["game"]["shipments"][0]["carrier"] = ng
    await refused(ref, "interphase", change, "game.shipments[0].carrier: #", "is alice's NG, not one of alice's "
                  "ships (SQD or AG")
