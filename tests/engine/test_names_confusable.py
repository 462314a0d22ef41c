"""Look-alike names across scripts are refused (issue 18, finding 7).

Cyrillic "Ѕol" and "аlice" or Greek "Fοο" show as "Sol", "alice" and "Foo". A new name is compared with the names
already in the game by its Unicode TR39 confusable skeleton (`engine.names.look_alike_key`, from the `disarm`
library) and refused, naming the existing name and the odd letter, when another name has the same skeleton.
Names that merely are in another script ("Ελλάδα", "Москва") are still accepted, and existing names are still
found as before.
"""

from __future__ import annotations

import io
import json

import pytest
from goddicehelpers import Table as GoddiceTable
from godsfirehelpers import Table as GodsfireTable
from helpers import Game
from storehelpers import RULES, FakeClock, console_on, said

from console.app import Console
from engine.dice import ForcedRoller
from engine.errors import RuleViolation
from engine.goddice.actions import Join
from engine.godsfire.setup import AddPlayer, AddSystem
from engine.names import look_alike, look_alike_key, name_key
from engine.nations.gm import AssignNation
from engine.nations.peace import ClaimPreset, CreateNation
from service.referee import Referee

CYRILLIC_SOL = "\u0405ol"  # Ѕ: CYRILLIC CAPITAL LETTER DZE
CYRILLIC_ALICE = "\u0430lice"  # а: CYRILLIC SMALL LETTER A
GREEK_FOO = "F\u03bf\u03bf"  # ο: GREEK SMALL LETTER OMICRON


def nation(name: str, player: str | None = None) -> CreateNation:
    return CreateNation(name, 12, 8, "armour", "fighter", {"armour": 1, "fighter": 1}, player=player)


# --- the key -------------------------------------------------------------------------------------------


@pytest.mark.parametrize("spoof, real", [
    (CYRILLIC_SOL, "Sol"), (CYRILLIC_ALICE, "alice"), (GREEK_FOO, "Foo"), (GREEK_FOO, "FOO"),
    ("P\u0430ul", "Paul"), ("\u041c\u043e\u0441\u043a\u0432\u0430", "M\u043eck\u0432a"),  # Москва, half Latin
    ("\u0391\u0392\u0395", "ABE"),  # Greek capitals Α Β Ε
])
def test_names_that_look_alike_share_a_skeleton_but_not_a_name_key(spoof, real):
    assert name_key(spoof) != name_key(real)
    assert look_alike_key(spoof) == look_alike_key(real)
    assert look_alike(spoof, ["Charon", real]) == real


@pytest.mark.parametrize("name, other", [
    ("\u0395\u03bb\u03bb\u03ac\u03b4\u03b1", "Sol"),  # Ελλάδα
    ("\u041c\u043e\u0441\u043a\u0432\u0430", "Sol"),  # Москва
    ("\u6771\u4eac", "Sol"),  # 東京
    ("Zone 1", "Zone l"),  # digits are kept apart from letters
    ("\u00e9t\u00e9", "ete"),  # an accent is a difference one can see
    ("Sol", "sol"),  # the same name (case aside) is not a look-alike: the exact check refuses it
])
def test_names_that_only_differ_in_script_or_letters_are_not_look_alikes(name, other):
    assert look_alike(name, [other]) is None


# --- Nations -------------------------------------------------------------------------------------------


@pytest.mark.parametrize("spoof, real, odd", [
    (CYRILLIC_SOL, "Sol", "\u0405 is CYRILLIC CAPITAL LETTER DZE"),
    (GREEK_FOO, "Foo", "\u03bf is GREEK SMALL LETTER OMICRON"),
])
def test_nations_refuse_a_nation_named_like_another(spoof, real, odd):
    game = Game()
    game.do(nation(real, "alice"), actor="alice")
    error = game.refuse(nation(spoof, "bob"), RuleViolation, actor="bob")
    assert str(error) == (f"{spoof} looks like {real}, already a nation in this game (its {odd}): "
                          "choose a name that reads differently")


def test_nations_refuse_the_unnamed_preset_named_like_another_nation():
    game = Game()
    game.do(ClaimPreset("Charon"), actor="alice")
    slot = next(p.slot for p in game.rules.presets if not p.name)
    game.refuse(ClaimPreset(str(slot), name="\u0421haron"), RuleViolation, "looks like Charon", actor="bob")


def test_nations_refuse_a_player_named_like_another_player_or_the_gm():
    game = Game()
    game.do(nation("Sol", "alice"), actor="alice")
    game.refuse(nation("Terra"), RuleViolation, "looks like alice, already a player's name in this game",
                actor=CYRILLIC_ALICE)
    game.refuse(nation("Terra", CYRILLIC_ALICE), RuleViolation, "looks like alice")
    game.refuse(nation("Terra"), RuleViolation, "looks like gm", actor="g\u043c")  # м: CYRILLIC SMALL LETTER EM
    game.do(nation("Terra", "bob"), actor="bob")
    game.refuse(AssignNation("Terra", CYRILLIC_ALICE), RuleViolation, "looks like alice")


def test_nations_still_accept_names_in_other_scripts():
    game = Game()
    game.do(nation("Sol", "alice"), actor="alice")
    game.do(nation("\u0395\u03bb\u03bb\u03ac\u03b4\u03b1", "\u0391\u03bb\u03ad\u03be\u03b7\u03c2"),
            actor="\u0391\u03bb\u03ad\u03be\u03b7\u03c2")  # Ελλάδα for Αλέξης
    game.do(nation("\u041c\u043e\u0441\u043a\u0432\u0430", "bob"), actor="bob")  # Москва
    assert [n.name for n in game.state.nations.values()] == ["Sol", "Ελλάδα", "Москва"]
    assert game.nation("sol").player == "alice"


# --- Godsfire ------------------------------------------------------------------------------------------


def test_godsfire_refuses_look_alike_systems_and_players():
    table = GodsfireTable(players=["alice"])
    table.do(AddSystem("Sol", "alice"), dice=[3, 3, 1, 1])
    table.refuse(AddSystem(CYRILLIC_SOL, "alice"), RuleViolation, "looks like Sol, already a system in this game")
    table.refuse(AddPlayer(CYRILLIC_ALICE), RuleViolation, "looks like alice, already a player's name in this game")
    table.refuse(AddSystem("Vega", CYRILLIC_ALICE), RuleViolation, "looks like alice")
    table.do(AddSystem("\u0395\u03bb\u03bb\u03ac\u03b4\u03b1", "bob"), dice=[3, 3, 1, 1])  # Ελλάδα beside Sol
    table.do(AddPlayer("\u0391\u03bb\u03ad\u03be\u03b7\u03c2"))  # Αλέξης
    assert [s.name for s in table.state.systems] == ["Sol", "Ελλάδα"]
    assert [p.name for p in table.state.players] == ["alice", "bob", "Αλέξης"]


# --- God Dice ------------------------------------------------------------------------------------------


def test_god_dice_refuses_a_seat_for_a_look_alike_player():
    table = GoddiceTable(players=["alice"])
    table.refuse(Join(), RuleViolation, "looks like alice, already a player's name at this table",
                 actor=CYRILLIC_ALICE)
    table.refuse(Join(CYRILLIC_ALICE), RuleViolation, "looks like alice")
    table.do(Join(), "\u0391\u03bb\u03ad\u03be\u03b7\u03c2")  # Αλέξης
    assert [p.name for p in table.state.players] == ["alice", "Αλέξης"]


# --- the console: a player's name is what they type -----------------------------------------------------


async def test_the_console_refuses_a_look_alike_player_with_one_line(store):
    out = io.StringIO()
    console = Console(Referee(store, RULES, ForcedRoller(), FakeClock()), out)

    async def line(text: str) -> str:
        out.seek(0)
        out.truncate()
        await console.handle(text)
        return out.getvalue()

    assert "error" not in await line("gm /game start")
    assert "error" not in await line("alice /nation claim 1")
    answer = await line(f"{CYRILLIC_ALICE} /nation claim 7")
    assert answer == (f"error: {CYRILLIC_ALICE} looks like alice, already a player's name in this game (its \u0430 is "
                      "CYRILLIC SMALL LETTER A): choose a name that reads differently\n")
    assert "error" not in await line("bob /nation claim 7")


# --- imports -----------------------------------------------------------------------------------------


async def test_an_import_with_look_alike_names_is_refused(tmp_path):
    """An export edited to hold two names that look alike is refused, as a new name would be: a nation, and a
    God Dice player."""
    console, store, out = await console_on(tmp_path / "r.db")
    try:
        for line in ('gm /game start', 'alice /nation claim preset:"Gracchan Republic"', "bob /nation claim 7"):
            await console.handle(line)
        said(out)
        await console.handle("gm /gm export")
        export = json.loads("\n".join(said(out)))
        second = export["nations"][1]
        second["name"] = "Grаcchan Republic"  # a Cyrillic а
        with pytest.raises(RuleViolation, match="'Grаcchan Republic' looks like the nation 'Gracchan Republic'"):
            await console.referee.import_game("other", "gm", export)
        assert await store.live_game("other") is None
    finally:
        await store.close()


async def test_a_god_dice_import_with_look_alike_players_is_refused(tmp_path):
    console, store, out = await console_on(tmp_path / "r.db")
    try:
        for line in ("gm /game start ruleset:goddice", "alice /goddice join", "bob /goddice join"):
            await console.handle(line)
        said(out)
        export = await console.referee.export("console")
        export["players"][1]["name"] = "аlice"  # a Cyrillic а
        with pytest.raises(RuleViolation, match="'аlice' looks like the player 'alice'"):
            await console.referee.import_game("other", "gm", export)
        assert await store.live_game("other") is None
    finally:
        await store.close()


async def test_a_godsfire_import_with_look_alike_systems_is_refused(tmp_path):
    console, store, out = await console_on(tmp_path / "r.db")
    try:
        for line in ("gm /game start ruleset:godsfire", 'gm /gm dice values:"3 4 5 3 6 6 1 1"',
                     "gm /godsfire system add name:Sol owner:alice", "gm /godsfire system add name:Vega owner:bob"):
            await console.handle(line)
        said(out)
        export = await console.referee.export("console")
        export["systems"][1]["name"] = "Ѕol"  # a Cyrillic Ѕ
        export["players"][1]["government"] = "Ѕol"
        with pytest.raises(RuleViolation, match="'Ѕol' looks like the system 'Sol'"):
            await console.referee.import_game("other", "gm", export)
        assert await store.live_game("other") is None
    finally:
        await store.close()
