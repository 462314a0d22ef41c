"""Godsfire setup with entered dice: every row of the starting tables (party, allegiance with and without a
Moderate, economy), neutral systems, conquest, players, the GM's hand edits and their checks, the phases,
and a game's export and import through the referee."""

from __future__ import annotations

import pytest
from godsfirehelpers import Table
from storehelpers import FakeClock, assert_snapshot_is_replay

from data.store import Store
from engine.commands import BY_PATH, build_action, coerce_options
from engine.core import Context
from engine.dice import ForcedRoller
from engine.errors import BadInput, NotGM, RuleViolation, UnknownName
from engine.events import DieRolled
from engine.gm import QueueDice
from engine.godsfire import charts, movement, phases, setup
from engine.godsfire.describe import event_line
from engine.godsfire.events import GodsfirePhaseChanged, InterphaseReset, PlayerAdded, SystemAdded
from engine.godsfire.phases import NextPhase
from engine.godsfire.setup import AddPlayer, AddSystem, ConquerSystem, SetField
from engine.godsfire.views import status_view, system_view
from engine.rulesets import ruleset
from engine.view import text_lines
from service.referee import Referee

# die 1, die 2 → the party the 2d6 total reads (each band's both ends)
PARTY_ROWS = [((1, 1), "R"), ((2, 3), "R"), ((3, 3), "M"), ((4, 4), "M"), ((4, 5), "E"), ((6, 6), "E")]
# die → allegiance of a Reactionary and of a Moderate region
ALLEGIANCE_ROWS = [(1, 2, 2), (2, 3, 3), (3, 3, 3), (4, 4, 4), (5, 4, 5), (6, 4, 5)]
ECONOMY_ROWS = [(1, "S"), (2, "S"), (3, "A-1"), (4, "A-1"), (5, "A-2"), (6, "A-2")]


def add(table: Table, name: str, dice: list[int], owner: str | None = "alice", regions: int = 1, **kw) -> None:
    table.do(AddSystem(name, owner, regions=regions, **kw), entered=dice)


@pytest.mark.parametrize(("dice", "party"), PARTY_ROWS)
def test_each_party_band(dice, party):
    table = Table()
    add(table, "Alpha", [*dice, 4, 3])
    region = table.reg("Alpha", 1)
    assert (region.party, region.allegiance, region.economy) == (party, 4, "A-1")


@pytest.mark.parametrize(("die", "other", "moderate"), ALLEGIANCE_ROWS)
def test_each_allegiance_band_with_and_without_a_moderate(die, other, moderate):
    table = Table()
    add(table, "Alpha", [1, 1, die, 1, 3, 3, die, 1], regions=2)  # region 1 Reactionary, region 2 Moderate
    assert (table.reg("Alpha", 1).party, table.reg("Alpha", 1).allegiance) == ("R", other)
    assert (table.reg("Alpha", 2).party, table.reg("Alpha", 2).allegiance) == ("M", moderate)
    add(table, "Beta", [6, 6, die, 1])  # an Extremist reads the others' level
    assert (table.reg("Beta", 1).party, table.reg("Beta", 1).allegiance) == ("E", other)


@pytest.mark.parametrize(("die", "economy"), ECONOMY_ROWS)
def test_each_economy_band(die, economy):
    table = Table()
    add(table, "Alpha", [3, 4, 2, die])
    assert table.reg("Alpha", 1).economy == economy


def test_regions_are_rolled_in_order_and_the_owner_joins():
    table = Table()
    outcome = table.do(AddSystem("Alpha", "alice", planets=2, regions=3),
                       dice=[1, 2, 6, 5, 3, 5, 5, 3, 6, 6, 1, 2])
    rolls = [(e.roll.purpose, e.roll.die, e.roll.nation) for e in table.of(outcome, DieRolled)]
    assert rolls[:4] == [("Alpha region 1 party", 1, "alice"), ("Alpha region 1 party", 2, "alice"),
                         ("Alpha region 1 allegiance", 6, "alice"), ("Alpha region 1 economy", 5, "alice")]
    assert [r[0].split()[2:] for r in rolls] == [[n, what] for n in "123" for what in
                                                  ("party", "party", "allegiance", "economy")]
    alpha = table.sys("Alpha")
    assert [(r.number, r.party, r.allegiance, r.economy) for r in alpha.regions] == [
        (1, "R", 4, "A-2"), (2, "M", 5, "A-1"), (3, "E", 2, "S")]
    assert (alpha.owner, alpha.planets, alpha.bank, alpha.units, alpha.loans) == ("alice", 2, 0, {}, [])
    alice = table.state.player("alice")
    assert (alice.government, alice.national_allegiance) == ("Alpha", {"R": 5, "M": 5, "E": 5})
    assert [type(e) for e in outcome.events if not isinstance(e, DieRolled)][:2] == [PlayerAdded, SystemAdded]
    assert event_line(table.of(outcome, SystemAdded)[0], str, str) == (
        "✨ Alpha (alice's, 2 planets): regions 1: R 4 A-2; 2: M 5 A-1; 3: E 2 S.")
    # a second system of hers: she does not join again, and her government stays on Alpha
    outcome = table.do(AddSystem("Beta", "ALICE"), dice=[3, 3, 1, 1])
    assert not table.of(outcome, PlayerAdded)
    assert (table.sys("Beta").owner, table.state.player("alice").government) == ("alice", "Alpha")
    table.assert_replays()


def test_the_house_start_level_sets_the_national_allegiances():
    table = Table()
    table.do(QueueDice([1]))  # entered dice wait; the house setting below changes no dice
    from engine.gm import SetHouse
    table.do(SetHouse("national_allegiance_start", "4"))
    table.do(AddSystem("Alpha", "bob"), entered=[1, 1, 1], dice=[])
    assert table.state.player("bob").national_allegiance == {"R": 4, "M": 4, "E": 4}


def test_a_neutral_system():
    table = Table()
    add(table, "Nix", [1, 1, 1, 1, 3, 3, 6, 6], owner=None, regions=2, neutral=True)
    nix = table.sys("Nix")
    assert (nix.owner, nix.units) == (None, {"SQD": 3, "AG": 3, "PDF": 3})
    assert [(r.party, r.allegiance, r.economy) for r in nix.regions] == [("R", 2, "S"), ("M", 5, "A-2")]
    assert table.state.players == []
    table.refuse(AddSystem("Nox", "alice", neutral=True), BadInput, "a neutral system has no owner")
    table.assert_replays()


def test_a_conquered_neutral_is_rerolled_with_every_party_reactionary():
    table = Table()
    add(table, "Nix", [3, 3, 6, 6, 4, 4, 5, 1], owner=None, regions=2, neutral=True)
    table.system("Home", "bob", ["M 4 A-1"])
    table.region("Nix", 1, subversion={"bob": 2}, subversion_step={"bob": 1}, enemy_units=2)
    outcome = table.do(ConquerSystem("nix", "bob"), entered=[6, 1, 2, 5])  # allegiance, economy per region
    assert [(e.roll.purpose, e.roll.die) for e in table.of(outcome, DieRolled)] == [
        ("Nix region 1 allegiance", 6), ("Nix region 1 economy", 1),
        ("Nix region 2 allegiance", 2), ("Nix region 2 economy", 5)]
    nix = table.sys("Nix")
    assert (nix.owner, nix.units) == ("bob", {})
    assert [(r.party, r.allegiance, r.economy, r.subversion, r.enemy_units) for r in nix.regions] == [
        ("R", 4, "S", {}, 0), ("R", 3, "A-2", {}, 0)]  # a Reactionary reads 4 on a 6
    table.refuse(ConquerSystem("Nix", "alice"), RuleViolation, "Nix is bob's, not neutral")
    table.refuse(ConquerSystem("Home", "alice"), RuleViolation, "not neutral")
    table.refuse(ConquerSystem("Nowhere", "bob"), UnknownName, "no system called 'Nowhere'")
    table.assert_replays()


def test_a_conqueror_new_to_the_game_joins_it():
    table = Table()
    add(table, "Nix", [3, 3, 6, 6], owner=None, neutral=True)
    table.do(ConquerSystem("Nix", "carol"), dice=[1, 1])
    assert table.state.player("carol").national_allegiance == {"R": 5, "M": 5, "E": 5}
    assert table.reg("Nix", 1).allegiance == 2


def test_setup_refusals_change_nothing():
    table = Table()
    add(table, "Alpha", [3, 3, 1, 1])
    table.refuse(AddSystem("alpha", "bob"), RuleViolation, "already a system called Alpha")
    table.refuse(AddSystem("Beta", "bob", planets=0), BadInput, "1 to 12 planets")
    table.refuse(AddSystem("Beta", "bob", regions=13), BadInput, "1 to 12 regions")
    table.refuse(AddSystem("Beta", None), BadInput, "name the system's owner")
    table.refuse(AddSystem("  ", "bob"), BadInput)
    table.refuse(AddSystem("Beta", "bob"), NotGM, "only the GM may add systems", actor="alice")
    table.refuse(AddPlayer("bob"), NotGM, actor="alice")
    table.refuse(AddPlayer("Alice"), RuleViolation, "alice is already playing")
    table.refuse(AddPlayer("bob", government="Alpha"), RuleViolation, "Alpha is not bob's")
    table.refuse(AddPlayer("bob", government="Nowhere"), UnknownName)


def test_players_and_their_national_government():
    table = Table()
    table.do(AddPlayer("bob"))
    assert table.state.player("bob").government is None
    table.system("B1", "bob", ["R 3 S"], government=False)
    table.system("B2", "bob", ["R 3 S"], government=False)
    table.do(AddPlayer("BOB", government="b2"))
    assert table.state.player("bob").government == "B2"
    table.assert_replays()


# --- /godsfire set -------------------------------------------------------------------------------


@pytest.fixture
def sheet() -> Table:
    table = Table()
    table.system("Alpha", "alice", ["M 4 A-1", "R 3 S"], bank=2)
    table.system("Beta", "bob", ["E 2 A-2"])
    return table


@pytest.mark.parametrize(("action", "check"), [
    (SetField("allegiance", "5", "Alpha", 1), lambda s: s.system("Alpha").region(1).allegiance == 5),
    (SetField("allegiance", "0", "Alpha", 1), lambda s: s.system("Alpha").region(1).allegiance == 0),
    (SetField("party", "Extremist", "Alpha", 1), lambda s: s.system("Alpha").region(1).party == "E"),
    (SetField("economy", "i2", "Alpha", 2), lambda s: s.system("Alpha").region(2).economy == "I-2"),
    (SetField("revolt", "yes", "Alpha", 2), lambda s: s.system("Alpha").region(2).revolt),
    (SetField("units", "AG=2, pdf:1", "Alpha", 2), lambda s: s.system("Alpha").region(2).units == {"AG": 2, "PDF": 1}),
    (SetField("subversion", "bob=3", "Alpha", 2), lambda s: s.system("Alpha").region(2).subversion == {"bob": 3}),
    (SetField("enemy units", "4", "Alpha", 1), lambda s: s.system("Alpha").region(1).enemy_units == 4),
    (SetField("bank", "9", "Alpha"), lambda s: s.system("Alpha").bank == 9),
    (SetField("units", "SQD=3", "Alpha"), lambda s: s.system("Alpha").units == {"SQD": 3}),
    (SetField("planets", "3", "Alpha"), lambda s: s.system("Alpha").planets == 3),
    (SetField("loans", "6/1 4/0", "Alpha"), lambda s: [(x.amount, x.box) for x in s.system("Alpha").loans] ==
     [(6, 1), (4, 0)]),
    (SetField("owner", "none", "Beta"), lambda s: s.system("Beta").owner is None and
     s.player("bob").government is None),
    (SetField("owner", "alice", "Beta"), lambda s: s.system("Beta").owner == "alice" and
     s.player("bob").government is None),
    (SetField("ng_money", "7", player="bob"), lambda s: s.player("bob").ng_money == 7),
    (SetField("national_allegiance", "R=3 M=5 E=4", player="bob"),
     lambda s: s.player("bob").national_allegiance == {"R": 3, "M": 5, "E": 4}),
    (SetField("ministers_changed", "true", player="bob"), lambda s: s.player("bob").ministers_changed),
    (SetField("government", "none", player="alice"), lambda s: s.player("alice").government is None),
])
def test_the_gm_sets_any_field_by_hand(sheet, action, check):
    outcome = sheet.do(action)
    assert check(sheet.state)
    # (a change of owner first makes the counters match the boxes: they are the old owner's)
    assert any("set by GM gm" in (event_line(e, str, str) or "") for e in outcome.events)
    sheet.assert_replays()


@pytest.mark.parametrize(("action", "error", "words"), [
    (SetField("allegiance", "6", "Alpha", 1), BadInput, "allegiance is 0 to 5, not 6"),
    (SetField("allegiance", "-1", "Alpha", 1), BadInput, "allegiance is 0 to 5"),
    (SetField("allegiance", "two", "Alpha", 1), BadInput, "a whole number"),
    (SetField("party", "X", "Alpha", 1), BadInput, "a party is R, M or E"),
    (SetField("economy", "I-3", "Alpha", 1), BadInput, "an economy level is S, A-1, A-2, I-1, I-2"),
    (SetField("revolt", "maybe", "Alpha", 1), BadInput, "true or false"),
    (SetField("units", "SQD=1", "Alpha", 1), BadInput, "SQDs never go on the ground"),  # (they would land, A.2.4)
    (SetField("units", "TANK=1", "Alpha", 1), BadInput, "unit types are SQD, AG, PDF"),
    (SetField("units", "AG", "Alpha", 1), BadInput, 'written like "AG=2 PDF=1"'),
    (SetField("subversion", "carol=1", "Alpha", 1), UnknownName, "no player called 'carol'"),
    (SetField("number", "3", "Alpha", 1), BadInput, "a region has no field 'number'"),
    (SetField("bank", "-1", "Alpha"), BadInput, "bank is 0 to 999"),
    (SetField("bank", "1000", "Alpha"), BadInput, "bank is 0 to 999"),
    (SetField("planets", "0", "Alpha"), BadInput, "planets is 1 to 12"),
    (SetField("owner", "carol", "Alpha"), UnknownName, "no player called 'carol'"),
    (SetField("name", "Gamma", "Alpha"), BadInput, "a system has no field 'name'"),
    (SetField("loans", "0/1", "Alpha"), BadInput, "a loan's amount is 1 to 999"),
    (SetField("loans", "8/4", "Alpha"), BadInput, "a loan's box is 0 to 3"),  # a 4-box track
    (SetField("bank", "2", "Alpha"), RuleViolation, "Alpha's bank is already 2"),
    (SetField("national_allegiance", "X=3", player="bob"), BadInput, "by party R, M, E"),
    (SetField("national_allegiance", "R=6", player="bob"), BadInput, "0 to 5"),
    (SetField("government", "Alpha", player="bob"), RuleViolation, "Alpha is not bob's"),
    (SetField("ng_money", "3", "Alpha", player="bob"), BadInput, "not both"),
    (SetField("bank", "3"), BadInput, "name the system"),
    (SetField("allegiance", "3", "Alpha", 9), UnknownName, "Alpha has no region 9"),
])
def test_hand_edits_are_checked(sheet, action, error, words):
    sheet.refuse(action, error, words)


def test_only_the_gm_sets_fields(sheet):
    sheet.refuse(SetField("bank", "5", "Alpha"), NotGM, "only the GM may set fields by hand", actor="alice")


# --- the phases ------------------------------------------------------------------------------------


def test_the_phases_step_through_the_turn():
    table = Table()
    table.system("Alpha", "alice", ["M 4 A-1"])
    table.system("Beta", "bob", ["R 3 S"])
    table.player("carol")
    table.player_set("carol", out=True)
    assert (table.state.turn, table.state.phase) == (1, "movement")
    assert phases.phase_line(table.state) == "Turn 1: Movement Phase (next: Combat Phase)"
    table.refuse(NextPhase(), NotGM, "only the GM may step the phases", actor="alice")
    seen = []
    for _ in range(3):
        outcome = table.next_phase()
        seen.append((table.state.turn, table.state.phase))
    assert seen == [(1, "combat"), (1, "war"), (1, "interphase")]
    assert [type(e) for e in outcome.events][:2] == [GodsfirePhaseChanged, InterphaseReset]
    assert table.state.order == ["alice", "bob"]  # in the order they joined; carol is out
    assert phases.phase_line(table.state) == "Turn 1: Social Interphase (next: Movement Phase of turn 2)"
    table.region("Alpha", 1, bought=2, raised=True, spent=3)
    table.game_set(done={"alice": ["tax"], "bob": [], "carol": []})
    table.next_phase()
    assert (table.state.turn, table.state.phase, table.state.done) == (
        2, "movement", {"alice": [], "bob": [], "carol": []})
    table.to_phase("interphase")
    region = table.reg("Alpha", 1)
    assert (region.bought, region.raised, region.spent) == (0, False, 0)  # cleared entering the interphase
    assert "⏭ Turn 2: the Social Interphase begins." in [event_line(e, str, str) for e in table.events[-4:]]
    table.assert_replays()


def test_require_phase_refuses_outside_it():
    table = Table()
    from engine.core import Tx
    tx = Tx(table.state, table.context(None))
    with pytest.raises(RuleViolation, match="buying units is done in the Social Interphase; it is now turn 1's "
                                            "Movement Phase"):
        phases.require_phase(tx, "interphase", "buying units")


# --- starting, entered dice, commands, words ------------------------------------------------------


def test_starting_a_game_and_entered_dice():
    table = Table()
    assert (table.state.ruleset, table.state.turn, table.state.phase, table.state.gm) == (
        "godsfire", 1, "movement", "gm")
    rules = ruleset("godsfire")
    with pytest.raises(BadInput, match="turn_hours is for Nations"):
        rules.start(Context(table.now, "gm", table.rules, is_gm=True, roller=ForcedRoller()), {"turn_hours": 12})
    with pytest.raises(BadInput, match="options is for God Dice"):
        rules.start(Context(table.now, "gm", table.rules, is_gm=True, roller=ForcedRoller()), {"options": "ffa"})
    table.refuse(QueueDice([7]), BadInput, "a d6 shows 1 to 6; not 7")
    table.refuse(QueueDice(["B"]), BadInput, "Godsfire dice are d6 faces")
    table.do(QueueDice([6, 1]))
    assert table.state.forced_dice == [6, 1]
    assert rules.deadlines(table.state) == []


@pytest.mark.parametrize(("line", "expected"), [
    ("godsfire system add", ({"name": "Alpha", "owner": "alice", "planets": "2", "regions": "3"},
                             AddSystem("Alpha", "alice", 2, 3, False))),
    ("godsfire system add", ({"name": "Nix", "neutral": "true"}, AddSystem("Nix", None, 1, 1, True))),
    ("godsfire system conquer", ({"name": "Nix", "player": "bob"}, ConquerSystem("Nix", "bob"))),
    ("godsfire player add", ({"name": "bob"}, AddPlayer("bob", None))),
    ("godsfire set", ({"system": "Alpha", "region": "2", "field": "allegiance", "value": "3"},
                      SetField("allegiance", "3", "Alpha", 2, None))),
    ("godsfire chart combat", ({"attack": "5", "defence": "2", "nebula": "true"}, charts.Combat(5, 2, True))),
    ("godsfire chart transit", ({"column": "-2"}, charts.Transit("-2"))),
    ("godsfire chart money", ({"die": "red"}, charts.MoneyDie("red"))),
    ("godsfire chart move", ({"unit": "AG", "cells": "3", "nebula": "1"}, charts.MoveCheck("AG", 3, 1, 0))),
    ("godsfire chart stack", ({"combat": "7", "total": "12"}, charts.StackCheck(None, None, 7, 12))),
    ("godsfire phase next", ({}, NextPhase())),
])
def test_the_commands_build_their_actions(line, expected):
    raw, action = expected
    command = BY_PATH[line]
    assert command.ruleset == "godsfire"
    assert build_action(command, coerce_options(command, raw)) == action


def test_the_query_words():
    table = Table()
    table.system("Alpha", "alice", ["M 4 A-1", {"party": "R", "allegiance": 0, "economy": "S", "revolt": True,
                                                "enemy_units": 2}], bank=3, units={"SQD": 2}, loans=[(5, 1)])
    add(table, "Nix", [1, 1, 1, 1], owner=None, neutral=True)
    # one sheet for every front-end: a loan's marker counted from 1, as the sheet's boxes are (stored 0-based)
    assert text_lines(system_view(table.sys("Alpha"))) == [
        "Alpha — alice's system, 1 planet; bank 3 GB; space 2 SQD; loans 5 GB (marker on box 2)",
        "  Region 1: Moderate (M), allegiance 4, Agriculture-1 (A-1); ground none",
        "  Region 2: Reactionary (R), allegiance 0, Subsistence (S); IN REVOLT; ground none; enemy units 2"]
    assert text_lines(status_view(table.state)) == [
        "Godsfire — turn 1, Movement Phase; GM: gm",
        "alice: NG on Alpha, 0 GB, in transit 0 GB; national allegiance R 5 M 5 E 5; systems: Alpha",
        "Alpha (alice): 2 regions, 1 in revolt, bank 3 GB, space 2 SQD",
        "Nix (neutral): 1 region, bank 0 GB, space 3 SQD, 3 AG, 3 PDF"]


# --- through the referee: the store's log, export and import ------------------------------------------


@pytest.fixture
async def referee(tmp_path):
    store = await Store.open(tmp_path / "r.db")
    referee = Referee(store, None, ForcedRoller(), FakeClock())
    yield referee, store
    await store.close()


async def test_export_and_import_round_trip_a_godsfire_game(referee):
    referee, store = referee
    await referee.start_game("chan", "gm", ruleset_name="godsfire")
    await referee.act("chan", "gm", QueueDice([3, 4, 5, 6, 1, 1, 2, 2, 6, 6, 1, 3]), "/gm dice")
    await referee.act("chan", "gm", setup.AddSystem("Alpha", "alice", planets=2, regions=2), "/godsfire system add")
    await referee.act("chan", "gm", setup.AddSystem("Nix", None, neutral=True), "/godsfire system add")
    await referee.act("chan", "gm", setup.SetField("bank", "4", "Alpha"), "/godsfire set")
    await referee.act("chan", "gm", QueueDice([2]), "/gm dice")
    await referee.act("chan", "alice", charts.Combat(5, 2), "/godsfire chart combat")
    await referee.act("chan", "gm", phases.NextPhase(), "/godsfire phase next")  # A.1: alice holds initiative
    await referee.act("chan", "alice", movement.EndGo(True), "/godsfire movement pass")
    for _ in range(3):
        await referee.act("chan", "gm", phases.NextPhase(), "/godsfire phase next")
    export = await referee.export("chan")
    game = export["game"]
    assert (game["ruleset"], game["turn"], game["phase"], game["order"]) == ("godsfire", 1, "interphase", ["alice"])
    alpha, nix = export["systems"]
    assert (alpha["name"], alpha["owner"], alpha["planets"], alpha["bank"], alpha["units"]) == (
        "Alpha", "alice", 2, 4, {})
    assert [(r["party"], r["allegiance"], r["economy"], r["revolt"]) for r in alpha["regions"]] == [
        ("M", 5, "A-2", False), ("R", 3, "S", False)]
    assert (nix["owner"], nix["units"]) == (None, {"SQD": 3, "AG": 3, "PDF": 3})
    assert [r["purpose"] for r in export["rolls"]][-1] == "combat"
    assert len(export["rolls"]) == 13
    # the contract: each roll's purpose, faces and whether the GM entered it
    assert {k: export["rolls"][-1][k] for k in ("purpose", "faces", "forced")} == {
        "purpose": "combat", "faces": ["2"], "forced": True}
    await assert_snapshot_is_replay(store, await referee.game_id("chan"))

    report = await referee.import_game("other", "carol", export)
    imported = await referee.export("other")
    assert {**imported, "game": {**imported["game"], "gm": "gm"}} == export
    await assert_snapshot_is_replay(store, report.game_id)
    await referee.act("other", "carol", phases.NextPhase(), "/godsfire phase next")
    assert ((await referee.state("other")).turn, (await referee.state("other")).phase) == (2, "movement")


@pytest.mark.parametrize(("mutate", "words"), [
    (lambda d: d["systems"][0]["regions"][0].update(allegiance=6), "systems[0].regions[0].allegiance"),
    (lambda d: d["systems"][0]["regions"][0].update(party="X"), "systems[0].regions[0].party"),
    (lambda d: d["systems"][0]["regions"][0].update(economy="I-3"), "systems[0].regions[0].economy"),
    (lambda d: d["systems"][0].update(owner="zed"), "'zed' is not a player"),
    (lambda d: d["systems"][0].update(bank=-1), "systems[0].bank"),
    (lambda d: d["systems"][0]["units"].update(TANK=1), "systems[0].units"),
    (lambda d: d["players"][0].update(government="Nowhere"), "not a system of this game"),
    (lambda d: d["game"].update(phase="lunch"), "game.phase"),
    (lambda d: d["game"].update(forced_dice=[7]), "game.forced_dice"),
    (lambda d: d["systems"].append(dict(d["systems"][0])), "systems[1].name"),
])
async def test_a_bad_import_is_refused_naming_the_field(referee, mutate, words):
    referee, store = referee
    await referee.start_game("chan", "gm", ruleset_name="godsfire")
    await referee.act("chan", "gm", QueueDice([3, 4, 5, 6]), "/gm dice")
    await referee.act("chan", "gm", setup.AddSystem("Alpha", "alice"), "/godsfire system add")
    export = await referee.export("chan")
    mutate(export)
    with pytest.raises(BadInput, match="that export is not valid") as info:
        await referee.import_game("other", "carol", export)
    assert words in str(info.value)


def test_the_import_schema_knows_every_field_of_the_state():
    """A field added to the state must be added to the schema (or imports of it would be refused)."""
    from dataclasses import fields

    from engine.godsfire import schema, state
    for model, cls in ((schema.Region, state.Region), (schema.System, state.System),
                       (schema.Player, state.Player), (schema.Loan, state.Loan)):
        assert set(model.model_fields) == {f.name for f in fields(cls)}, cls.__name__
    game = set(schema.Game.model_fields) - {"started_at", "ruleset"}
    assert game == {f.name for f in fields(state.GodsfireState)} - {"players", "systems", "started_at", "ruleset"}


def _counter(number: int, owner: str | None, kind: str = "SQD", amount: int = 0) -> dict:
    return {"number": number, "kind": kind, "owner": owner, "at": "Alpha", "ground": False, "moved": 0,
            "amount": amount}


@pytest.mark.parametrize(("mutate", "words"), [
    (lambda g: g.update(counters=[_counter(1, "zed")], next_counter=2), "counter #1 names 'zed', who is not a player"),
    (lambda g: g.update(counters=[_counter(1, "alice"), _counter(1, "alice")], next_counter=2),
     "counter numbers must be distinct"),
    (lambda g: g.update(counters=[_counter(4, "alice")], next_counter=2), "below next_counter 2"),
    (lambda g: g.update(counters=[_counter(1, "alice", "GB")], next_counter=2), "a GB counter carries 1 GB or more"),
    (lambda g: g.update(counters=[_counter(1, "alice")], next_counter=2, phase="combat", next_attack=2,
                        attacks=[{"number": 1, "attackers": ["zed"], "units": [1], "target": "K1",
                                  "ground": False, "defender": None}]), "attack 1 names 'zed'"),
    (lambda g: g.update(counters=[_counter(1, "alice")], next_counter=2, phase="combat",
                        choices=[{"chooser": "zed", "kind": "losses", "counters": [1], "count": 1}]),
     "a pending choice names 'zed'"),
    (lambda g: g.update(counters=[_counter(1, "alice")], next_counter=2, phase="combat",
                        choices=[{"chooser": "alice", "kind": "retreat", "counters": [9], "count": 0}]),
     "among counters not on the table"),
    (lambda g: g.update(neutral_control={"Alpha": "zed"}), "neutral control of Alpha names 'zed'"),
])
async def test_an_import_naming_unknown_players_or_counters_in_the_procedure_is_refused(referee, mutate, words):
    referee, store = referee
    await referee.start_game("chan", "gm", ruleset_name="godsfire")
    await referee.act("chan", "gm", QueueDice([3, 4, 5, 6]), "/gm dice")
    await referee.act("chan", "gm", setup.AddSystem("Alpha", "alice"), "/godsfire system add")
    export = await referee.export("chan")
    mutate(export["game"])
    with pytest.raises(RuleViolation, match="that export breaks the rules") as info:
        await referee.import_game("other", "carol", export)
    assert words in str(info.value)
    assert await store.live_game("other") is None


def test_an_owner_set_by_hand_keeps_the_sheet_consistent(sheet):
    """Neutral systems have no loans; a system's new owner has no subversion in it."""
    sheet.do(SetField("loans", "8/1", "Alpha"))
    sheet.do(SetField("subversion", "bob=2", "Alpha", 2))
    sheet.do(SetField("owner", "none", "Alpha"))  # gone neutral: its loans go with its owner
    assert sheet.state.system("Alpha").loans == []
    sheet.refuse(SetField("loans", "8/0", "Alpha"), RuleViolation, "Alpha is neutral: a neutral system has no loans")
    sheet.do(SetField("owner", "bob", "Alpha"))
    assert sheet.state.system("Alpha").region(2).subversion == {}
    sheet.assert_replays()
