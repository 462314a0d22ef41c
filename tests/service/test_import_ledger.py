"""Issue 33: /game import checks the roll ledger against the game it comes with (`engine.ledgercheck`, through
`service.imports.check_rolls`), so that /log fairness tests the dice the game rolled and not what an importer wrote.

Every export here is a real one, of a game played with forced dice: a Nations game with a battle fought over a
turn's end, a God Dice campaign whose second game counts its turns from 1 again, and a Godsfire game with a
neutral system's rolls (by no one) and charts read by hand by a player, the GM and a stranger. Each still
imports; each fault put into one of its rolls is refused in one line naming that roll, and leaves nothing behind.
"""

from __future__ import annotations

import copy
import dataclasses
from collections.abc import Callable
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from dicerace import register_dicerace, unregister_dicerace
from storehelpers import RULES, FakeClock, console_on, log_counts, said

from console.app import CHANNEL
from data.store import Store
from engine.dice import ForcedRoller
from engine.errors import BadInput
from engine.gm import QueueDice
from engine.goddice import actions
from engine.nations import gm, war
from engine.nations import peace as nat
from engine.rulesets import register, ruleset
from service.referee import Referee

# --- real games ----------------------------------------------------------------------------------------------


async def nations_game(ref: Referee, clock: FakeClock) -> dict[str, Any]:
    """Two nations, propaganda and economy rolls, a battle's initiative, duels, promotions and retreats (entered
    dice, then the roller's at the turn's end), and a roll of turn 2."""
    await ref.start_game("chan", "gm")
    await ref.act("chan", "gm", nat.ClaimPreset("Gracchan Republic", "alice"), "/nation claim")
    await ref.act("chan", "gm", nat.ClaimPreset("Charon", "bob"), "/nation claim")
    await ref.act("chan", "gm", gm.QueueDice([9, 8, 9, 7]), "/gm dice")
    clock.advance(minutes=20)
    await ref.act("chan", "alice", nat.Encourage("workers"), "/propaganda encourage workers")
    await ref.act("chan", "bob", nat.GrowMilitary(), "/economy military")
    await ref.act("chan", "alice", war.DeclareAttack("Charon", [1, 2], retreat_at=1), "/attack declare")
    await ref.act("chan", "bob", war.CommitUnits([6, 7]), "/attack commit")
    await ref.act("chan", "gm", gm.QueueDice([10, 1, 1, 10, 1, 1]), "/gm dice")
    clock.advance(minutes=20)
    await ref.act("chan", "alice", war.PairUnits(1, 6), "/attack pair")
    assert isinstance(ref.roller, ForcedRoller)
    ref.roller.push(*[5, 6, 4, 3] * 10)  # the rest of the battle, fought by default at the turn's end
    clock.set((await ref.state("chan")).turn_ends_at + timedelta(minutes=1))
    await ref.act("chan", "gm", gm.QueueDice([4]), "/gm dice")
    await ref.act("chan", "bob", nat.GrowMilitary(), "/economy military")
    return await ref.export("chan")


async def goddice_game(ref: Referee, clock: FakeClock, between: bool = False) -> dict[str, Any]:
    """A campaign: the roll-off, two turns ended by divine intervention, bob's characters killed by the GM (alice
    wins game 1: `between` stops here, game 2's turn 1 and none of its rolls yet), then game 2's God dice."""

    async def do(actor: str, action: Any, dice: str | None = None) -> None:
        if dice is not None:
            await ref.act("chan", "gm", QueueDice(dice.split()), "/gm dice")
        await ref.act("chan", actor, action, type(action).__name__)

    await ref.start_game("chan", "gm", ruleset_name="goddice", options="campaign")
    for player in ("alice", "bob"):
        await do(player, actions.Join())
    await do("gm", actions.Begin(), " ".join("YYYBBBBBB" + "B" * 9))
    await do("alice", actions.ChooseFirst("attack"))
    plans = {"alice": ["hero", "cleric", "bowman", "sage"], "bob": ["monk", "assassin", "sage", "hero"]}
    while (state := await ref.state("chan")).phase == "draft":
        await do(state.picks[0], actions.Pick(plans[state.picks[0]].pop(0)))
    clock.advance(minutes=5)
    await do("alice", actions.Declare("hero"))
    await do("bob", actions.Defend("monk"), "M M")  # divine intervention: turn 2
    clock.advance(minutes=5)
    await do("bob", actions.Declare("monk"))
    await do("alice", actions.Defend("hero"), "H H")  # and turn 3
    for kind in ("monk", "assassin", "sage", "hero"):
        await do("gm", actions.SetLife("bob", kind, 0))
    state = await ref.state("chan")
    assert ([p.wins for p in state.players], state.turn, state.active) == ([1, 0], 1, "bob")
    if between:
        return await ref.export("chan")
    clock.advance(minutes=5)
    await do("bob", actions.Declare("hero"))
    await do("alice", actions.Defend("hero"), "C S")
    return await ref.export("chan")


GODSFIRE = [
    "gm /game start ruleset:godsfire",
    'gm /gm dice values:"3 4 5 3 1 1 6 6 2 5 4 2 3 3 3 3"',
    "gm /godsfire system add name:Sol owner:alice planets:2 regions:2",
    "gm /godsfire system add name:Vega owner:bob",
    "gm /godsfire system add name:Rigel neutral:true",  # a neutral's rolls are nobody's
    'gm /gm dice values:"3 4 5"',
    "zed /godsfire chart combat attack:3 defence:1",  # charts by hand, by anyone in the channel
    "gm /godsfire chart money die:red",
    "alice /godsfire chart transit column:0",
    'gm /gm dice values:"3 4"',
    "gm /godsfire movement initiative",
    "bob /godsfire movement pass",
    "alice /godsfire movement pass",
    "gm /godsfire phase next",
    "gm /godsfire phase next",
    "gm /godsfire phase next",
    'gm /gm dice values:"1 5"',
    "gm /godsfire phase next",  # turn 2: its player order rolled
    'gm /gm dice values:"6"',
    "bob /godsfire chart combat attack:1 defence:1",
]


async def godsfire_game(folder: Path, clock: FakeClock) -> dict[str, Any]:
    console, store, out = await console_on(folder / "godsfire.db")
    console.referee.clock = clock
    try:
        for line in GODSFIRE:
            await console.handle(line)
            assert not [answer for answer in said(out) if answer.startswith("error")], line
            clock.advance(minutes=3)
        export: dict[str, Any] = await console.referee.export(CHANNEL)
        return export
    finally:
        await store.close()


PLAYED: dict[str, tuple[dict[str, Any], datetime]] = {}


async def played(kind: str, clock: FakeClock, folder: Path) -> dict[str, Any]:
    """A copy of the export of a game of `kind` played once for the module; the test's clock set to the
    moment it was exported."""
    if kind not in PLAYED:
        own = FakeClock()
        if kind == "godsfire":
            export = await godsfire_game(folder, own)
        else:
            store = await Store.open(folder / f"played {kind}.db")  # (the game is played in a store of its own)
            try:
                player = Referee(store, RULES, ForcedRoller(), own)
                export = await (nations_game(player, own) if kind == "nations"
                                else goddice_game(player, own, between=kind == "goddice between games"))
            finally:
                await store.close()
        PLAYED[kind] = (export, own.now)
    export, now = PLAYED[kind]
    clock.set(now)
    return copy.deepcopy(export)


@pytest.fixture
def ref(store, clock):
    return Referee(store, RULES, ForcedRoller(), clock)


# --- every real export imports -------------------------------------------------------------------------------


@pytest.mark.parametrize("kind", ["nations", "goddice", "goddice between games", "godsfire"])
async def test_a_real_export_imports_with_its_whole_ledger(ref, store, clock, tmp_path, kind):
    export = await played(kind, clock, tmp_path)
    await ref.import_game("elsewhere", "carol", copy.deepcopy(export))
    again = await ref.export("elsewhere")
    assert again["game"].pop("gm") == "carol"
    export["game"].pop("gm")
    assert again == export
    assert len(again["rolls"]) >= 4


async def test_the_real_ledgers_hold_what_the_check_must_let_through(clock, tmp_path):
    nations = (await played("nations", clock, tmp_path))["rolls"]
    assert {r["turn"] for r in nations} == {1, 2} and any(r["unit"] for r in nations)
    assert any(r["modifiers"] for r in nations) and any(r["success"] is False for r in nations)
    assert {r["forced"] for r in nations} == {True, False}
    goddice = [r["turn"] for r in (await played("goddice", clock, tmp_path))["rolls"]]
    assert goddice == [0, 0, 1, 2, 1]  # the campaign's game 2 counts its turns again
    between = await played("goddice between games", clock, tmp_path)
    assert [r["turn"] for r in between["rolls"]] == [0, 0, 1, 2] and between["game"]["turn"] == 1  # game 1's rolls
    godsfire = {(r["nation"], r["purpose"]) for r in (await played("godsfire", clock, tmp_path))["rolls"]}
    assert {("zed", "combat"), ("gm", "money (red die)"), ("alice", "transit attack"),
            (None, "Rigel region 1 party")} <= godsfire


async def test_an_imported_game_exported_again_imports_again(ref, store, clock, tmp_path):
    """The GM changes with each import: the ledger of the first GM's game still fits."""
    await ref.import_game("second", "carol", await played("godsfire", clock, tmp_path))
    await ref.import_game("third", "dora", await ref.export("second"))
    assert len((await ref.export("third"))["rolls"]) == len((await ref.export("second"))["rolls"])


# --- each fault is refused, naming the roll ------------------------------------------------------------------

Rolls = list[dict[str, Any]]


def first(rolls: Rolls, test: Callable[[dict[str, Any]], Any]) -> int:
    return next(i for i, roll in enumerate(rolls) if test(roll))


def change(test: Callable[[dict[str, Any]], Any], **fields: Any) -> Callable[[Rolls], int]:
    """Set `fields` of the first roll that passes `test`; the roll's index."""

    def apply(rolls: Rolls) -> int:
        index = first(rolls, test)
        rolls[index].update(fields)
        return index
    return apply


def swap(test: Callable[[dict[str, Any]], Any], make: Callable[[dict[str, Any]], dict[str, Any]]
         ) -> Callable[[Rolls], int]:
    """Replace the first roll that passes `test` with `make(it)`."""

    def apply(rolls: Rolls) -> int:
        index = first(rolls, test)
        rolls[index] = make(rolls[index])
        return index
    return apply


def at(rolls: Rolls, index: int, delta: timedelta) -> str:
    return (datetime.fromisoformat(rolls[index]["at"]) + delta).isoformat()


def ahead(rolls: Rolls) -> int:
    rolls[-1]["at"] = at(rolls, -1, timedelta(days=2))
    return len(rolls) - 1


def back(rolls: Rolls) -> int:
    rolls[3]["at"] = at(rolls, 2, -timedelta(hours=1))
    return 3


def turned_back(rolls: Rolls) -> int:
    """A roll of a turn after the one below it (so the next roll's turn goes back)."""
    index = first(rolls, lambda r: r["turn"] > 0)
    rolls[index]["turn"] += 1
    return index + 1


def appended(turn: int) -> Callable[[Rolls], int]:
    """A copy of the last roll after it, of `turn`."""

    def apply(rolls: Rolls) -> int:
        rolls.append(dict(rolls[-1], turn=turn))
        return len(rolls) - 1
    return apply


def any_roll(roll: dict[str, Any]) -> bool:
    return True


def faces_roll(roll: dict[str, Any]) -> dict[str, Any]:
    return {"player": roll["nation"], "purpose": roll["purpose"], "faces": ["B"], "forced": [False],
            "turn": roll["turn"], "at": roll["at"]}


def numbered_roll(roll: dict[str, Any]) -> dict[str, Any]:
    return {"nation": roll["player"], "purpose": roll["purpose"], "die": 3, "modifiers": {}, "total": 3,
            "forced": False, "turn": roll["turn"], "at": roll["at"], "sides": 10}


def god(roll: dict[str, Any]) -> bool:
    return bool(roll["purpose"] == "god")


def rolloff(roll: dict[str, Any]) -> bool:
    return bool(roll["purpose"] == "rolloff")


def targeted(roll: dict[str, Any]) -> bool:
    return roll["target"] is not None


def untargeted(roll: dict[str, Any]) -> bool:
    return roll["target"] is None


# Each: (the game, what is wrong, the change (returns the index of the roll refused), words of the refusal)
CASES: list[tuple[str, str, Callable[[Rolls], int], str]] = [
    ("nations", "a d10 showing 11", change(any_roll, die=11, total=11), "a d10 shows 1 to 10, not 11"),
    ("nations", "a d6 in a game of d10s", change(any_roll, sides=6, die=3, total=3),
     "Nations rolls no d6 (its dice: d10)"),
    ("nations", "a roll by a nation not in the game", change(any_roll, nation="Atlantis"),
     "Atlantis is not one of the game's nations, nor its GM"),
    ("nations", "a roll by no one", change(any_roll, nation=None), "it names no one who rolled it"),
    ("nations", "turn 999", change(any_roll, turn=999), "its turn 999 is after the game's turn 2"),
    ("nations", "a turn going back", turned_back,
     "comes after turn 2 (a ledger's turns go back only when Nations starts again: never here)"),
    ("nations", "a total that is not the die with its modifiers", change(lambda r: r["modifiers"], total=30),
     "its total 30 is not its die 9 with its modifiers (8)"),
    ("nations", "a failure called a success", change(lambda r: r["success"] is False, success=True),
     "it says success, but 8 against better than 9 is a failure"),
    ("nations", "a comparison without a target", change(untargeted, comparison=">"),
     "it has no target, so neither a comparison nor a success"),
    ("nations", "a verdict without a target", change(untargeted, success=True),
     "it has no target, so neither a comparison nor a success"),
    ("nations", "a battle never declared", change(lambda r: r["battle"], battle=99),
     "its battle #99 is not one of the game's"),
    ("nations", "a unit never raised", change(lambda r: r["unit"], unit=999), "its unit #999 is not one of the game's"),
    ("nations", "dice with named faces", swap(any_roll, faces_roll), "Nations rolls no dice with named faces"),
    ("nations", "a roll in the future", ahead, "in the future"),
    ("nations", "a roll before the one above it", back, "before the roll above it"),
    ("goddice", "a face the attack die does not have", change(rolloff, faces=["Q"] * 9),
     "the attack die has no face Q (its faces: B R Y O 5)"),
    ("goddice", "a God face on the attack dice", change(rolloff, faces=["H"] * 9), "the attack die has no face H"),
    ("goddice", "three God dice", change(god, faces=["H", "S", "C"], forced=[True] * 3),
     "it rolls 3 dice at once, and God dice are rolled 1 to 2 at a time"),
    ("goddice", "a roll of no dice", change(god, faces=[], forced=[]), "it rolls 0 dice at once"),
    ("goddice", "more attack dice than the card file's", change(lambda r: r["purpose"] == "god", purpose="opening",
                                                                faces=["B"] * 10, forced=[False] * 10),
     "it rolls 10 dice at once, and attack dice are rolled 1 to 9 at a time"),
    ("goddice", "entered marks for other dice", change(god, forced=[True]),
     "it marks 1 die as entered or not, for 2"),
    ("goddice", "a GM's die after a rolled one", change(god, forced=[False, True]),
     "a die the GM entered comes after a rolled one"),
    ("goddice", "a numbered die", swap(any_roll, numbered_roll), "God Dice rolls no d10 (it rolls no numbered dice)"),
    ("goddice", "a roll by a stranger", change(god, player="mallory"),
     "mallory is not one of the game's players, nor its GM"),
    ("goddice", "turn 999", appended(999), "its turn 999 is after the game's turn 1"),
    ("goddice", "a campaign's turns going back once more than its games", appended(0),
     "its turn 0 comes after turn 1 (a ledger's turns go back only when God Dice starts again: once here)"),
    ("goddice", "a roll in the future", ahead, "in the future"),
    ("godsfire", "a d6 showing 7", change(any_roll, die=7, total=7, faces=["7"]), "a d6 shows 1 to 6, not 7"),
    ("godsfire", "a d10 in a game of d6s", change(any_roll, sides=10), "Godsfire rolls no d10 (its dice: d6)"),
    ("godsfire", "a face that is not its die", change(any_roll, faces=["6"]), "its faces ['6'] are not its die 3"),
    ("godsfire", "a player's roll by a stranger", change(lambda r: "party" in r["purpose"], nation="zed"),
     "zed is not one of the game's players, nor its GM"),
    ("godsfire", "a battle named", change(any_roll, battle=1), "it names battle #1, and Godsfire has no battles"),
    ("godsfire", "a unit named", change(any_roll, unit=12), "it names unit #12, and Godsfire has no units"),
    ("godsfire", "turn 999", change(any_roll, turn=999), "its turn 999 is after the game's turn 2"),
    ("godsfire", "a roll in the future", ahead, "in the future"),
    ("godsfire", "a roll before the one above it", back, "before the roll above it"),
]


@pytest.mark.parametrize(("kind", "what", "fault", "reason"), CASES, ids=[f"{c[0]}: {c[1]}" for c in CASES])
async def test_a_roll_its_game_could_not_have_made_is_refused_naming_it(ref, store, clock, tmp_path, kind, what,
                                                                       fault, reason):
    data = await played(kind, clock, tmp_path)
    index = fault(data["rolls"])
    before, games = await log_counts(store), len(await store.games())
    with pytest.raises(BadInput) as refused:
        await ref.import_game("elsewhere", "gm", data)
    message = str(refused.value)
    assert message.startswith(f"that export's ledger does not fit its game: rolls[{index}] ("), message
    assert reason in message, message
    assert "\n" not in message and len(message) < 400, message
    assert await store.live_game("elsewhere") is None
    assert (await log_counts(store), len(await store.games())) == (before, games)


def test_every_rule_set_and_fault_is_covered():
    assert {kind for kind, *_ in CASES} == {"nations", "goddice", "godsfire"}
    assert len(CASES) >= 35


# --- a rule set that says nothing of its dice -----------------------------------------------------------------


async def test_a_rule_set_that_says_nothing_of_its_dice_imports_only_without_rolls(store, clock, tmp_path):
    register_dicerace()
    try:
        console, own, out = await console_on(tmp_path / "race.db")
        try:
            for line in ("gm /game start ruleset:dicerace", "alice /race join", "bob /race join",
                         "gm /gm dice values:4", "alice /race roll"):
                await console.handle(line)
            export = await console.referee.export(CHANNEL)
        finally:
            await own.close()
        said(out)
        ref = Referee(store, RULES, ForcedRoller(), console.referee.clock)
        await ref.import_game("checked", "gm", copy.deepcopy(export))  # its terms given: the roll fits
        register(dataclasses.replace(ruleset("dicerace"), ledger_terms=None))
        with pytest.raises(BadInput, match="that export's rolls cannot be checked: Dice Race does not say what its "
                                           "dice are, so its games import without rolls"):
            await ref.import_game("unchecked", "gm", copy.deepcopy(export))
        await ref.import_game("unchecked", "gm", {**export, "rolls": []})
    finally:
        unregister_dicerace()

