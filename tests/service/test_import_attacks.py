"""Issue 9, finding 3: `/game import` refuses hostile exports with a reason naming the field, and leaves no game.

Every hostile file is a targeted mutation of a valid export of a real game (two nations, GM-entered dice,
bonuses, rolls, a battle waiting for its pairing; and a drafted God Dice game), sent through `read_export`
as bytes where the attack is in the bytes themselves.
"""

from __future__ import annotations

import copy
import json
import time
from collections.abc import Callable
from typing import Any

import pytest
from exportchanges import Change, all_of, delete_at, set_at
from storehelpers import RULES, FakeClock, log_counts

from data.store import Store
from engine.dice import ForcedRoller
from engine.errors import BadInput, RefereeError, RuleViolation
from engine.gm import QueueDice
from engine.goddice import actions
from engine.nations import clock as clk
from engine.nations import gm, war
from engine.nations import peace as nat
from service.imports import MAX_EXPORT_BYTES, read_export
from service.referee import Referee

_del, _do = delete_at, all_of


def _set(path: str, value: Any) -> Change:
    """`set_at` without copying: some values here are too deep or too big to copy."""
    return set_at(path, value, copied=False)


def _many_units(data: dict[str, Any]) -> None:
    unit = data["nations"][0]["units"][0]
    data["nations"][0]["units"] = [dict(unit, battle=None)] * 10**6


def _nested(depth: int, path: str) -> Change:
    """`path` set to a list nested `depth` deep."""
    value: Any = 1
    for _ in range(depth):
        value = [value]
    return _set(path, value)


# Each: (what it attacks, the change, a field the refusal must name)
NATIONS: list[tuple[str, Change, str]] = [
    # the battle and its cross-references
    ("battle against a missing nation", _set("battles.0.defender", "Atlantis"), "battles[0].defender"),
    ("battle by a missing nation", _set("battles.0.attacker", "Nowhere"), "battles[0].attacker"),
    ("battle against itself", _set("battles.0.defender", "Gracchan Republic"), "battles[0].defender"),
    ("battle unit of the wrong nation", _set("battles.0.attacking.0", 6), "battles[0].attacking[0]"),
    ("battle unit that does not exist", _set("battles.0.defending.0", 999), "battles[0].defending[0]"),
    ("battle unit listed twice", _set("battles.0.attacking.1", 1), "battles[0].attacking[1]"),
    ("retreat order for a unit not in the battle", _set("battles.0.retreat_orders.0.unit", 5),
     "battles[0].retreat_orders[0].unit"),
    ("unit in a battle that does not exist", _set("nations.0.units.4.battle", 77), "nations[0].units[4].battle"),
    ("duplicate battle ids", lambda d: d["battles"].append(copy.deepcopy(d["battles"][0])), "battles[1].id"),
    ("unknown battle stage", _set("battles.0.state", "siege"), "battles[0].state"),
    ("unknown battle result", _set("battles.0.result", "draw"), "battles[0].result"),
    ("unknown initiative", _set("battles.0.initiative", "both"), "battles[0].initiative"),
    ("battle deadline not a date", _set("battles.0.deadline", "soon"), "battles[0].deadline"),
    ("battle id a string", _set("battles.0.id", "1"), "battles[0].id"),
    ("battles not a list", _set("battles", {"1": {}}), "battles"),
    ("10^4 battles", lambda d: d.__setitem__("battles", [d["battles"][0]] * 10_000), "battles"),
    # times
    ("turn that ended in year 1", _set("game.turn_ends_at", "0001-01-01T00:00:00+00:00"), "game.turn_ends_at"),
    ("turn that ends in 9999", _set("game.turn_ends_at", "9999-12-31T00:00:00+00:00"), "game.turn_ends_at"),
    ("turn end without a time zone", _set("game.turn_ends_at", "2030-01-01T12:00:00"), "game.turn_ends_at"),
    ("turn end not a date", _set("game.turn_ends_at", "tomorrow"), "game.turn_ends_at"),
    ("turn end a number", _set("game.turn_ends_at", 1893456000), "game.turn_ends_at"),
    ("turn start after its end", _set("game.turn_started_at", "2030-01-05T00:00:00+00:00"),
     "game.turn_started_at"),
    ("bonus expiring in year 1", _set("nations.0.bonuses.0.expires_at", "0001-01-01T00:00:00+00:00"),
     "nations[0].bonuses[0].expires_at"),
    ("roll time not a date", _set("rolls.0.at", "yesterday"), "rolls[0].at"),
    ("roll time a list", _set("rolls.0.at", ["2030"]), "rolls[0].at"),
    # house values and the turn length
    ("NaN house value", _set("game.house.bonus_hours", float("nan")), "game.house.bonus_hours"),
    ("infinite house value", _set("game.house.reminder_hours", float("inf")), "game.house.reminder_hours"),
    ("string house value", _set("game.house.bonus_hours", "36"), "game.house.bonus_hours"),
    ("unknown house setting", _set("game.house.free_wins", True), "game.house"),
    ("unknown preset rank", _set("game.house.preset_unit_rank", "legendary"), "preset_unit_rank"),
    ("0 actions per turn", _set("game.house.actions_per_turn", 0), "game.house.actions_per_turn"),
    ("house not an object", _set("game.house", [1, 2]), "game.house"),
    ("tiny turn length", _set("game.turn_hours", 1e-300), "game.turn_hours"),
    ("NaN turn length", _set("game.turn_hours", float("nan")), "game.turn_hours"),
    ("negative turn length", _set("game.turn_hours", -12.0), "game.turn_hours"),
    ("turn length a string", _set("game.turn_hours", "12"), "game.turn_hours"),
    ("NaN paused remainder", _set("game.paused_remaining", float("nan")), "game.paused_remaining"),
    # names
    ("duplicate nation names", _set("nations.1.name", "Gracchan Republic"), "nations[1].name"),
    ("case-equal nation names", _set("nations.1.name", "gracchan REPUBLIC"), "nations[1].name"),
    ("zero-width look-alike name", _set("nations.1.name", "Gracchan\u200b Republic"), "nations[1].name"),
    ("10,000-character name", _set("nations.0.name", "A" * 10_000), "nations[0].name"),
    ("invisible name", _set("nations.0.name", "\u200b\u200d"), "nations[0].name"),
    ("null name", _set("nations.0.name", None), "nations[0].name"),
    ("name a number", _set("nations.0.name", 7), "nations[0].name"),
    ("10,000-character player", _set("nations.0.player", "p" * 10_000), "nations[0].player"),
    ("10,000-character unit type", _set("nations.0.units.0.type", "x" * 10_000), "nations[0].units[0].type"),
    ("10,000-character roll purpose", _set("rolls.0.purpose", "x" * 10_000), "rolls[0].purpose"),
    # strict types
    ("12.9 read as 12", _set("nations.0.economy", 12.9), "nations[0].economy"),
    ("12.0 for an int", _set("game.turn", 1.0), "game.turn"),
    ("string for a stat", _set("nations.0.land", "8"), "nations[0].land"),
    ('"false" read as true', _set("game.paused", "false"), "game.paused"),
    ("1 for a bool", _set("nations.0.eliminated", 1), "nations[0].eliminated"),
    ("true for an int", _set("nations.0.units.0.hp", True), "nations[0].units[0].hp"),
    ("10^30 for an int", _set("nations.0.military", 10**30), "nations[0].military"),
    ("10^30 unit id", _set("nations.0.units.0.id", 10**30), "nations[0].units[0].id"),
    ("list for a unit type", _set("nations.0.units.0.type", ["infantry"]), "nations[0].units[0].type"),
    ("list for a turn", _set("game.turn", [1]), "game.turn"),
    ("object for a stat", _set("nations.0.stability", {"v": 10}), "nations[0].stability"),
    ("nation not an object", _set("nations.0", "Gracchan Republic"), "nations[0]"),
    ("negative HP", _set("nations.0.units.0.hp", -5), "nations[0].units[0].hp"),
    ("turn 0", _set("game.turn", 0), "game.turn"),
    ("unknown bonus kind", _set("nations.0.bonuses.0.kind", "luck"), "nations[0].bonuses[0].kind"),
    ("duplicate bonus kinds", lambda d: d["nations"][0]["bonuses"].append(dict(d["nations"][0]["bonuses"][0])),
     "nations[0].bonuses[1].kind"),
    ("unknown action kind", _set("nations.0.actions_used", ["dance"]), "nations[0].actions_used[0]"),
    ("unknown field", _set("nations.0.gold", 100), "nations[0].gold"),
    ("missing required field", _del("nations.0.land"), "nations[0].land"),
    ("missing nations", _del("nations"), "nations"),
    # units and counts
    ("duplicate unit ids in a nation", _set("nations.0.units.1.id", 1), "nations[0].units[1].id"),
    ("duplicate unit ids across nations", _set("nations.1.units.0.id", 3), "nations[1].units[0].id"),
    ("10^6 units", _many_units, "nations[0].units"),
    ("10^3 nations", lambda d: d.__setitem__("nations", [d["nations"][0]] * 1000), "nations"),
    ("10^6 forced dice", _set("game.forced_dice", [5] * 10**6), "game.forced_dice"),
    ("forced die a string", _set("game.forced_dice", ["5"]), "game.forced_dice[0]"),
    ("10^6 rolls", lambda d: d.__setitem__("rolls", [d["rolls"][0]] * 10**6), "rolls"),
    # the rolls ledger
    ("roll without a purpose", _del("rolls.0.purpose"), "rolls[0].purpose"),
    ("roll die a float", _set("rolls.0.die", 9.5), "rolls[0].die"),
    ("roll forced a string", _set("rolls.0.forced", "no"), "rolls[0].forced"),
    ("roll not an object", _set("rolls.0", [1, 2]), "rolls[0]"),
    ("roll modifier 10^30", _set("rolls.0.modifiers", {"M": 10**30}), "rolls[0].modifiers.M"),
    ("rolls not a list", _set("rolls", "none"), "rolls"),
    # the game object
    ("game not an object", _set("game", [1]), "game"),
    ("ruleset a list", _set("game.ruleset", ["nations"]), "game.ruleset"),
    ("100,000-deep house value", _nested(100_000, "game.house.bonus_hours"), "game.house.bonus_hours"),
    ("100,000-deep name", _nested(100_000, "nations.0.name"), "nations[0].name"),
]


def _god_many_players(data: dict[str, Any]) -> None:
    data["players"] = [dict(data["players"][0], name=f"p{i}", seat=i + 1, characters=[]) for i in range(100)]


GODDICE: list[tuple[str, Change, str]] = [
    ("duplicate player names", _set("players.1.name", "ALICE"), "players[1].name"),
    ("look-alike player name", _set("players.1.name", "ali\u200bce"), "players[1].name"),
    ("duplicate seats", _set("players.1.seat", 1), "players[1].seat"),
    ("duplicate character ids", _set("players.1.characters.0.id", 2), "players[1].characters[0].id"),
    ("life over its maximum", _set("players.0.characters.0.life", 9_999), "players[0].characters[0].life"),
    ("active player missing", _set("game.active", "mallory"), "game.active"),
    ("unknown phase", _set("game.phase", "victory lap"), "game.phase"),
    ("unknown option", _set("game.options", ["cheats"]), "game.options[0]"),
    ("NaN house value", _set("game.house.reminder_hours", float("nan")), "game.house.reminder_hours"),
    ("string house value", _set("game.house.reminder_hours", "12"), "game.house.reminder_hours"),
    ("start time not a date", _set("game.started_at", "once upon a time"), "game.started_at"),
    ("waiting since year 1", _set("game.move_since", "0001-01-01T00:00:00+00:00"), "game.move_since"),
    ("current turn names a missing character", _set("game.current", {"player": "alice", "attacker": 404}),
     "game.current.attacker"),
    ("10,000-character card title", _set("game.cards.characters.hero.title", "H" * 10_000),
     "game.cards.characters.hero.title"),
    ("card file that is not one", _set("game.cards", {"dice": {}}), "game.cards"),
    ("100 players", _god_many_players, "players"),
    ("100,000-deep card file", _nested(100_000, "game.cards.characters.hero.attacks"),
     "game.cards.characters.hero.attacks"),
    ("12.9 life", _set("players.0.characters.0.life", 12.9), "players[0].characters[0].life"),
    ('"false" ended', _set("game.ended", "false"), "game.ended"),
    ("faces roll with 10^6 dice", _set("rolls.0.faces", ["B"] * 10**6), "rolls[0].faces"),
]

# Attacks on the file's bytes, through `read_export`.
RAW: list[tuple[str, Callable[[bytes], bytes], str]] = [
    ("not UTF-8", lambda raw: raw.replace(b"Charon", b"Ch\xffron"), "UTF-8"),
    ("not JSON", lambda raw: raw[:-10], "not valid JSON"),
    ("a JSON array", lambda raw: b"[" + raw + b"]", "top level"),
    ("100,000-deep nesting", lambda raw: b"[" * 100_000 + b"]" * 100_000, "nested too deeply"),
    ("too large", lambda raw: raw[:-1] + b"," + b'"x": "' + b"x" * MAX_EXPORT_BYTES + b'"}', "too large"),
    ("an integer of 10,000 digits", lambda raw: raw.replace(b'"turn": 1,', b'"turn": ' + b"9" * 10_000 + b","),
     "not valid JSON"),
]

SLOWEST: list[tuple[float, str]] = []
MESSAGES: list[str] = []


@pytest.fixture
def ref(store, clock):
    return Referee(store, RULES, ForcedRoller(), clock)


async def nations_export(ref: Referee, clock: FakeClock) -> dict[str, Any]:
    """Two nations, bonuses, rolls and a battle waiting for its pairing (every die entered by the GM)."""
    await ref.start_game("chan", "gm")
    await ref.act("chan", "gm", nat.ClaimPreset("Gracchan Republic", "alice"), "/nation claim")
    await ref.act("chan", "gm", nat.ClaimPreset("Charon", "bob"), "/nation claim")
    await ref.act("chan", "gm", gm.QueueDice([9, 8, 9, 7]), "/gm dice")
    clock.advance(minutes=20)
    await ref.act("chan", "alice", nat.Encourage("workers"), "/propaganda encourage workers")
    await ref.act("chan", "bob", nat.GrowMilitary(), "/economy military")
    await ref.act("chan", "alice", war.DeclareAttack("Charon", [1, 2], retreat_at=1), "/attack declare")
    await ref.act("chan", "bob", war.CommitUnits([6, 7]), "/attack commit")
    export = await ref.export("chan")
    battle = export["battles"][0]
    assert (battle["state"], battle["attacking"], battle["defending"]) == ("pairing", [1, 2], [6, 7])
    assert export["nations"][0]["bonuses"] and len(export["rolls"]) >= 3
    return export


async def goddice_export(ref: Referee) -> dict[str, Any]:
    """A drafted two-player God Dice game (the roll-off entered by the GM)."""
    await ref.start_game("chan", "gm", ruleset_name="goddice")
    for player in ("alice", "bob"):
        await ref.act("chan", player, actions.Join(), "/goddice join")
    await ref.act("chan", "gm", QueueDice(list("YYYBBBBBB" + "BBBBBBBBB")), "/gm dice")
    await ref.act("chan", "gm", actions.Begin(), "/goddice begin")
    await ref.act("chan", "alice", actions.ChooseFirst("attack"), "/goddice choose")
    for player, card in zip(["bob", "alice"] * 4, ["monk", "hero", "sage", "cleric", "assassin", "bowman", "hero",
                                                    "sage"], strict=True):
        await ref.act("chan", player, actions.Pick(card), f"/goddice pick {card}")
    await ref.act("chan", "alice", actions.Declare("hero"), "/goddice declare")
    return await ref.export("chan")


async def assert_refused(ref: Referee, store: Store, data: Any, field: str, what: str) -> None:
    before = await log_counts(store)
    games = len(await store.games())
    started = time.perf_counter()
    with pytest.raises((BadInput, RuleViolation)) as refused:
        if isinstance(data, bytes):
            data = read_export(data)
        await ref.import_game("elsewhere", "gm", data)
    SLOWEST.append((time.perf_counter() - started, what))
    message = str(refused.value)
    MESSAGES.append(f"{what}: {message}")
    assert field in message, message
    assert "\n" not in message and len(message) < 400, message
    assert await store.live_game("elsewhere") is None
    assert len(await store.games()) == games
    assert await log_counts(store) == before


PLAYED: dict[str, dict[str, Any]] = {}


async def played(kind: str, ref: Referee, clock: FakeClock) -> dict[str, Any]:
    """A copy of the export of a game played once for the whole module (each test's clock starts at T0)."""
    if kind not in PLAYED:
        PLAYED[kind] = await (nations_export(ref, clock) if kind == "nations" else goddice_export(ref))
    return copy.deepcopy(PLAYED[kind])


@pytest.mark.parametrize(("what", "change", "field"), NATIONS, ids=[n for n, _, _ in NATIONS])
async def test_a_hostile_nations_export_is_refused_naming_the_field(ref, store, clock, what, change, field):
    data = await played("nations", ref, clock)
    change(data)
    await assert_refused(ref, store, data, field, what)


@pytest.mark.parametrize(("what", "change", "field"), GODDICE, ids=[n for n, _, _ in GODDICE])
async def test_a_hostile_god_dice_export_is_refused_naming_the_field(ref, store, clock, what, change, field):
    data = await played("goddice", ref, clock)
    change(data)
    await assert_refused(ref, store, data, field, what)


@pytest.mark.parametrize(("what", "change", "reason"), RAW, ids=[n for n, _, _ in RAW])
async def test_hostile_export_bytes_are_refused_with_a_reason(ref, store, clock, what, change, reason):
    raw = json.dumps(await played("nations", ref, clock)).encode()
    await assert_refused(ref, store, change(raw), reason, what)


def test_every_hostile_file_is_counted():
    assert len(NATIONS) + len(GODDICE) + len(RAW) >= 60


async def test_a_valid_nations_export_imports_through_read_export_and_plays_on(ref, store, clock):
    export = await nations_export(ref, clock)
    imported = await ref.import_game("elsewhere", "gm", read_export(json.dumps(export)))
    assert await ref.export("elsewhere") == export
    # the battle goes on: alice won the initiative and pairs; the duel's dice are entered
    await ref.act("elsewhere", "gm", gm.QueueDice([10, 1, 1, 10, 1, 1]), "/gm dice")
    await ref.act("elsewhere", "alice", war.PairUnits(1, 6), "/attack pair")
    state = await store.load(imported.game_id)
    assert state.battles[1].duels and state.battles[1].duels[0]["rounds"]
    await ref.act("elsewhere", "gm", clk.PauseClock(), "/gm clock pause")
    assert (await store.load(imported.game_id)).paused


async def test_a_valid_god_dice_export_imports_and_plays_on(ref, store):
    export = await goddice_export(ref)
    await ref.import_game("elsewhere", "carol", read_export(json.dumps(export).encode()))
    again = await ref.export("elsewhere")
    assert again["game"].pop("gm") == "carol" and export["game"].pop("gm") == "gm"
    assert again == export
    await ref.act("elsewhere", "carol", QueueDice(["S", "A"]), "/gm dice")
    await ref.act("elsewhere", "bob", actions.Defend("monk"), "/goddice defend")
    assert (await ref.state("elsewhere")).phase == "opening"


async def test_names_are_stored_clean(ref, store, clock):
    export = await nations_export(ref, clock)
    export["nations"][1]["name"] = "  Charon\u200b  "
    export["battles"][0]["defender"] = "charon"
    await ref.import_game("elsewhere", "gm", export)
    state = await ref.state("elsewhere")
    assert list(state.nations) == ["Gracchan Republic", "Charon"]
    assert state.battles[1].defender == "Charon"


def test_read_export_refuses_what_is_not_an_export_object():
    assert read_export(b'\xef\xbb\xbf{"game": {}}') == {"game": {}}
    for raw, reason in [(b"", "not valid JSON"), (b"null", "top level"), ('"\ud800"', "UTF-8"),
                        (b'{"a": ' * 50_000, "nested too deeply"), ("x" * (MAX_EXPORT_BYTES + 1), "too large")]:
        with pytest.raises(BadInput, match=reason):
            read_export(raw)


def test_zz_report_the_slowest_refusal():
    """Not an assertion on time: the figure for the report (run with -s to see it)."""
    if SLOWEST:
        worst = max(SLOWEST)
        print("", *MESSAGES, sep="\n")
        print(f"\n{len(SLOWEST)} hostile files refused; slowest {worst[0] * 1000:.0f} ms ({worst[1]})")
    assert all(isinstance(t, float) for t, _ in SLOWEST)


def test_refusals_are_referee_errors():
    assert issubclass(BadInput, RefereeError) and issubclass(RuleViolation, RefereeError)
