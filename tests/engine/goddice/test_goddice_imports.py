"""Issue 18, finding 1: a God Dice import is checked against everything the rules guarantee of a live game
(`engine.goddice.invariants`), and an inconsistent one is refused naming the first broken field, leaving no
game, row or log entry behind.

The hostile exports are generated: each mutation below is applied to every real export it fits, the exports
taken at several points of real games played through the referee with GM-entered dice (seating, the roll-off
choice, mid-draft, each step of an attack, a resurrection, a Free for All retarget, and a Campaign's second
game after a win).
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import pytest
from storehelpers import RULES, log_counts

from data.store import Store
from engine.dice import ForcedRoller
from engine.errors import BadInput, RuleViolation
from engine.gm import QueueDice
from engine.goddice import actions
from service.referee import Referee

# --- real exports ----------------------------------------------------------------------------------

ROLLOFF = list("YYYBBBBBB")  # alice's nine dice: three YELLOW; everybody else rolls BLUE only
DUEL = {"alice": ["hero", "cleric", "bowman", "sage"], "bob": ["monk", "assassin", "sage", "hero"]}
TRIO = {"alice": ["hero", "monk", "bowman", "sage"], "bob": ["cleric", "monk", "bowman", "assassin"],
        "carol": ["hero", "cleric", "sage", "assassin"]}


class Play:
    """One game in one channel of a referee, exported at each point worth attacking."""

    def __init__(self, ref: Referee, channel: str, exports: dict[str, dict[str, Any]]) -> None:
        self.ref, self.channel, self.exports = ref, channel, exports

    async def do(self, actor: str, action: Any, dice: str | None = None) -> None:
        if dice is not None:
            await self.ref.act(self.channel, "gm", QueueDice(dice.split()), "/gm dice")
        await self.ref.act(self.channel, actor, action, type(action).__name__)

    async def keep(self, point: str) -> None:
        self.exports[point] = await self.ref.export(self.channel)

    async def seat(self, players: list[str], options: str | None = None) -> None:
        await self.ref.start_game(self.channel, "gm", ruleset_name="goddice", options=options)
        for player in players:
            await self.do(player, actions.Join())

    async def begin(self, players: list[str]) -> None:
        await self.do("gm", actions.Begin(), " ".join(ROLLOFF + ["B"] * 9 * (len(players) - 1)))
        await self.do("alice", actions.ChooseFirst("attack"))

    async def draft(self, plans: dict[str, list[str]], stop_after: int | None = None) -> None:
        if not hasattr(self, "plans"):
            self.plans = {name: list(cards) for name, cards in plans.items()}
        plans, picked = self.plans, 0
        while (await self.ref.state(self.channel)).phase == "draft":
            if picked == stop_after:
                return
            who = (await self.ref.state(self.channel)).picks[0]
            await self.do(who, actions.Pick(plans[who].pop(0)))
            picked += 1


async def play_exports(ref: Referee) -> dict[str, dict[str, Any]]:
    exports: dict[str, dict[str, Any]] = {}
    duel = Play(ref, "duel", exports)
    await duel.seat(["alice", "bob"])
    await duel.keep("seating")
    await duel.do("gm", actions.Begin(), " ".join(ROLLOFF + ["B"] * 9))
    await duel.keep("choose")
    await duel.do("alice", actions.ChooseFirst("attack"))
    await duel.draft(DUEL, stop_after=3)
    await duel.keep("draft")
    await duel.draft(DUEL)
    await duel.keep("declare")
    await duel.do("alice", actions.Declare("hero"))
    await duel.keep("defend")
    await duel.do("bob", actions.Defend("monk"), "H S")  # alice's Hero is in favor
    await duel.keep("opening")
    await duel.do("alice", actions.Roll(), "B B B R R 5 5 O O")
    await duel.keep("favor")
    await duel.do("alice", actions.Favor("keep"))
    await duel.keep("rolling")
    await duel.do("alice", actions.Roll("red"), "5 5")
    await duel.keep("rolled")

    trio = Play(ref, "trio", exports)  # Resurrection: alice's Sage is dead, the God dice show two Sages
    await trio.seat(["alice", "bob", "carol"], "resurrection")
    await trio.begin(["alice", "bob", "carol"])
    await trio.draft(TRIO)
    await trio.do("gm", actions.SetLife("alice", "sage", 0))
    await trio.do("alice", actions.Declare("hero"))
    await trio.do("bob", actions.Defend("cleric"), "S S")
    await trio.keep("resurrect")
    await trio.do("alice", actions.Resurrect("decline"))
    await trio.keep("reversed")

    ffa = Play(ref, "ffa", exports)  # Free for All: unrelated doubles, alice names another player
    await ffa.seat(["alice", "bob", "carol"], "free_for_all")
    await ffa.begin(["alice", "bob", "carol"])
    await ffa.draft(TRIO)
    await ffa.do("alice", actions.Declare("hero", target="bob"))
    await ffa.do("bob", actions.Defend("cleric"), "S S")
    await ffa.keep("retarget")

    campaign = Play(ref, "campaign", exports)  # Campaign: bob falls, alice wins game 1, game 2 begins
    await campaign.seat(["alice", "bob"], "campaign")
    await campaign.begin(["alice", "bob"])
    await campaign.draft(DUEL)
    for kind in ("monk", "assassin", "sage", "hero"):
        await campaign.do("gm", actions.SetLife("bob", kind, 0))
    await campaign.keep("campaign")
    state = await ref.state("campaign")
    assert ([p.wins for p in state.players], state.phase, state.turn) == ([1, 0], "declare", 1)
    phases = {point: data["game"]["phase"] for point, data in exports.items()}
    assert phases == {"seating": "seating", "choose": "choose", "draft": "draft", "declare": "declare",
                      "defend": "defend", "opening": "opening", "favor": "favor", "rolling": "rolling",
                      "rolled": "rolling", "resurrect": "resurrect", "reversed": "defend", "retarget": "retarget",
                      "campaign": "declare"}
    return exports


# --- the mutations --------------------------------------------------------------------------------
# Each takes an export and changes it in place, returning the field the refusal must name, or None when it
# does not fit that export (then the export is left as it was).

Mutation = Callable[[dict[str, Any]], str | None]
TURN = ("declare", "defend", "resurrect", "retarget", "opening", "favor", "rolling")
DECLARED = ("resurrect", "retarget", "opening", "favor", "rolling")


def _game(data: dict[str, Any]) -> dict[str, Any]:
    return data["game"]


def _current(data: dict[str, Any]) -> dict[str, Any] | None:
    return data["game"]["current"]


def _player(data: dict[str, Any], name: str | None) -> tuple[int, dict[str, Any]]:
    return next((i, p) for i, p in enumerate(data["players"]) if p["name"] == name)


def _characters(data: dict[str, Any]) -> list[dict[str, Any]]:
    return [c for p in data["players"] for c in p["characters"]]


def _phase(*phases: str) -> Callable[[Mutation], Mutation]:
    """The mutation fits only exports in one of `phases`."""
    def wrap(mutation: Mutation) -> Mutation:
        def fitted(data: dict[str, Any]) -> str | None:
            return mutation(data) if data["game"]["phase"] in phases else None
        fitted.__name__ = mutation.__name__
        return fitted
    return wrap


def _drafted(mutation: Mutation) -> Mutation:
    def fitted(data: dict[str, Any]) -> str | None:
        return mutation(data) if _characters(data) else None
    fitted.__name__ = mutation.__name__
    return fitted


@_phase(*TURN)
def current_null(data):
    _game(data)["current"] = None
    return "game.current"


@_phase(*TURN)
def nine_unknown_dice(data):
    _current(data)["dice"] = ["X"] * 9
    return "game.current.dice"


@_phase(*TURN)
def a_hundred_attack_dice(data):
    _current(data)["dice"] = ["5"] * 100
    return "game.current.dice"


@_phase("favor", "rolling")
def eight_attack_dice(data):
    _current(data)["dice"] = _current(data)["dice"][:8]
    return "game.current.dice"


@_phase("favor", "rolling")
def no_attack_dice(data):
    _current(data)["dice"] = []
    return "game.current.dice"


@_phase("rolling")
def dice_that_missed(data):
    _current(data)["dice"] = ["R"] * 9
    _current(data)["rolled"] = ["opening", "R"]
    return "game.current.dice"


@_phase(*DECLARED, "defend")
def attacker_of_another_player(data):
    _, defending = _player(data, _current(data)["defender_player"])
    _current(data)["attacker"] = defending["characters"][0]["id"]
    return "game.current.attacker"


@_phase(*DECLARED)
def defender_of_the_attacker(data):
    _, attacking = _player(data, _current(data)["player"])
    turn = _current(data)
    turn["defender"] = next(c["id"] for c in attacking["characters"] if c["id"] != turn["attacker"])
    return "game.current.defender"


@_phase(*DECLARED)
def attack_on_ones_own_character(data):
    turn = _current(data)
    _, attacking = _player(data, turn["player"])
    turn["defender_player"] = turn["player"]
    turn["defender"] = next(c["id"] for c in attacking["characters"] if c["id"] != turn["attacker"])
    return "game.current.defender_player"


@_phase(*DECLARED, "defend")
def dead_attacker(data):
    i, attacking = _player(data, _current(data)["player"])
    j = next(j for j, c in enumerate(attacking["characters"]) if c["id"] == _current(data)["attacker"])
    attacking["characters"][j]["life"] = 0
    attacking["characters"][j]["alive"] = False
    return "game.current.attacker"


@_phase(*DECLARED)
def dead_defender(data):
    _, defending = _player(data, _current(data)["defender_player"])
    character = next(c for c in defending["characters"] if c["id"] == _current(data)["defender"])
    character["life"], character["alive"] = 0, False
    return "game.current.defender"


@_phase(*DECLARED, "defend")
def defender_with_no_living_character(data):
    _, defending = _player(data, _current(data)["defender_player"])
    for character in defending["characters"]:
        character["life"], character["alive"] = 0, False
    return "game.current.defender_player"


@_phase(*TURN)
def attacking_player_out(data):
    _, attacking = _player(data, _current(data)["player"])
    for character in attacking["characters"]:
        character["life"], character["alive"] = 0, False
    return "game.current.player"


@_phase(*DECLARED, "defend")
def defending_player_missing(data):
    _current(data)["defender_player"] = None
    return "game.current.defender_player"


@_phase(*DECLARED)
def defender_missing(data):
    _current(data)["defender"] = None
    return "game.current.defender"


@_phase(*DECLARED, "defend")
def attacker_missing(data):
    _current(data)["attacker"] = None
    return "game.current.attacker"


@_phase("declare")
def attacker_before_declaring(data):
    _, attacking = _player(data, _current(data)["player"])
    _current(data)["attacker"] = attacking["characters"][0]["id"]
    return "game.current.attacker"


@_phase("defend")
def defender_before_defending(data):
    _, defending = _player(data, _current(data)["defender_player"])
    _current(data)["defender"] = defending["characters"][0]["id"]
    return "game.current.defender"


@_phase(*DECLARED)
def three_god_dice(data):
    _current(data)["god"] = ["S", "A", "H"]
    return "game.current.god"


@_phase(*DECLARED)
def one_god_die(data):
    _current(data)["god"] = ["S"]
    return "game.current.god"


@_phase(*DECLARED)
def unknown_god_dice(data):
    _current(data)["god"] = ["Z", "Q"]
    return "game.current.god[0]"


@_phase(*DECLARED)
def a_god_kill_left_standing(data):
    hero = next(c for c in _characters(data) if c["id"] == _current(data)["attacker"])
    assert hero["type"] == "hero"
    _current(data)["god"] = ["H", "H"]
    _current(data)["favor"] = None
    return "game.current.god"


@_phase("declare")
def god_dice_before_the_defender(data):
    _current(data)["god"] = ["S", "A"]
    return "game.current.god"


@_phase("resurrect", "retarget")
def singles_where_doubles_were(data):
    _current(data)["god"] = ["S", "A"]
    return "game.current.god"


@_phase("resurrect", "retarget")
def favor_on_doubles(data):
    _current(data)["favor"] = "attacker"
    return "game.current.favor"


@_phase("opening", "favor", "rolling")
def favor_to_the_wrong_side(data):
    _current(data)["favor"] = "defender"
    return "game.current.favor"


@_phase("favor")
def favor_phase_without_favor(data):
    _current(data)["favor"] = None
    return "game.current.favor"


@_phase("opening")
def dice_before_the_opening_roll(data):
    _current(data)["dice"] = ["B"] * 9
    return "game.current.dice"


@_phase("favor", "rolling")
def opening_roll_twice(data):
    _current(data)["rolled"] = ["opening", "opening"]
    return "game.current.rolled"


@_phase("favor", "rolling")
def no_opening_roll(data):
    _current(data)["rolled"] = []
    return "game.current.rolled"


@_phase("rolling")
def unknown_type_rolled(data):
    _current(data)["rolled"] = ["opening", "purple"]
    return "game.current.rolled"


@_phase("rolling")
def a_type_rolled_twice(data):
    _current(data)["rolled"] = ["opening", "R", "R"]
    return "game.current.rolled"


@_phase("rolling")
def rerolled_without_favor(data):
    _current(data)["rolled"] = ["opening", "favor"]
    _current(data)["favor"] = None
    _current(data)["god"] = ["S", "A"]
    return "game.current"


@_phase(*TURN)
def turn_zero(data):
    _game(data)["turn"] = 0
    return "game.turn"


@_phase("seating", "choose", "draft")
def a_turn_before_the_draft_is_done(data):
    _game(data)["current"] = {"player": data["players"][0]["name"]}
    return "game.current"


@_phase("seating", "choose", "draft")
def turn_number_before_turns(data):
    _game(data)["turn"] = 3
    return "game.turn"


@_phase("seating", "choose", "draft")
def reversed_before_turns(data):
    _game(data)["direction"] = "counterclockwise"
    return "game.direction"


@_phase("retarget")
def free_for_all_reversed(data):
    _game(data)["direction"] = "counterclockwise"
    return "game.direction"


@_phase("resurrect")
def resurrection_without_the_option(data):
    _game(data)["options"] = []
    return "game.phase"


@_phase("retarget")
def retarget_without_free_for_all(data):
    _game(data)["options"] = []
    return "game.phase"


@_phase("seating", "choose", "declare", "defend", "opening", "favor", "rolling")
def free_for_all_for_two(data):
    if len(data["players"]) != 2 or data["game"]["phase"] == "seating":
        return None
    _game(data)["options"] = ["free_for_all"]
    return "game.options"


def unknown_pool_kind(data):
    _game(data)["pool"]["dragon"] = 1
    return "game.pool"


def pool_missing_a_kind(data):
    if not _game(data)["pool"]:
        return None
    del _game(data)["pool"]["hero"]
    return "game.pool"


def pool_with_extra_copies(data):
    if not _game(data)["pool"]:
        return None
    _game(data)["pool"]["monk"] += 1
    return "game.pool.monk"


def pool_before_the_draft(data):
    if data["game"]["phase"] not in ("seating", "choose"):
        return None
    _game(data)["pool"] = {"hero": 2}
    return "game.pool"


@_drafted
def colliding_next_character_id(data):
    _game(data)["next_character_id"] = max(c["id"] for c in _characters(data))
    return "game.next_character_id"


def next_character_id_far_ahead(data):
    _game(data)["next_character_id"] += 50
    return "game.next_character_id"


@_drafted
def character_id_out_of_range(data):
    turn = _current(data) or {}
    i, j = next((i, j) for i, p in enumerate(data["players"]) for j, c in enumerate(p["characters"])
                if c["id"] not in (turn.get("attacker"), turn.get("defender")))
    data["players"][i]["characters"][j]["id"] = 77
    return f"players[{i}].characters[{j}].id"


@_drafted
def unknown_character_type(data):
    data["players"][0]["characters"][0]["type"] = "dragon"
    return "players[0].characters[0].type"


@_drafted
def max_life_not_the_cards(data):
    data["players"][0]["characters"][0]["max_life"] += 5
    return "players[0].characters[0].max_life"


@_drafted
def extra_character(data):
    characters = data["players"][1]["characters"]
    characters.append(dict(characters[0], id=len(_characters(data)) + 1))
    _game(data)["next_character_id"] = len(_characters(data)) + 1
    return "game.pool"


def characters_before_the_draft(data):
    if data["game"]["phase"] not in ("seating", "choose"):
        return None
    data["players"][0]["characters"] = [{"id": 1, "type": "hero", "life": 75, "max_life": 75}]
    _game(data)["next_character_id"] = 2
    return "players[0].characters"


def a_seat_left_empty(data):
    data["players"][-1]["seat"] = len(data["players"]) + 1
    return f"players[{len(data['players']) - 1}].seat"


def seats_out_of_order(data):
    if len(data["players"]) < 2:
        return None
    data["players"][0]["seat"], data["players"][1]["seat"] = 2, 1
    return "players[0].seat"


def wins_that_end_the_game(data):
    wins = 2 if "campaign" in data["game"]["options"] else 1
    data["players"][-1]["wins"] = wins
    return f"players[{len(data['players']) - 1}].wins"


def a_winner_mid_game(data):
    _game(data)["winner"] = data["players"][0]["name"]
    return "game.winner"


def over_without_a_winner(data):
    _game(data)["phase"] = "over"
    return "game.ended"


def active_is_another_player(data):
    others = [p["name"] for p in data["players"] if p["name"] != data["game"]["active"]]
    _game(data)["active"] = others[0]
    return "game.active"


def chooser_changed(data):
    phase = data["game"]["phase"]
    _game(data)["chooser"] = data["players"][1]["name"] if phase == "seating" else None
    return "game.chooser"


@_phase("choose")
def too_few_players(data):
    data["players"] = data["players"][:1]
    return "players"


@_phase("draft")
def picks_out_of_turn(data):
    picks = _game(data)["picks"]
    picks[1] = picks[0]
    return "game.picks[1]"


@_phase("draft")
def a_pick_too_many(data):
    picks = _game(data)["picks"]
    picks.append(picks[len(picks) % len(data["players"])])
    return "players["


@_phase("draft")
def draft_with_no_picks_left(data):
    _game(data)["picks"] = []
    return "game.picks"


@_phase(*TURN)
def picks_left_after_the_draft(data):
    _game(data)["picks"] = [data["players"][0]["name"]]
    return "game.picks"


@_phase("draft")
def picker_not_a_player(data):
    _game(data)["picks"][0] = "mallory"
    return "game.picks[0]"


@_phase(*TURN)
def turn_for_a_stranger(data):
    _current(data)["player"] = "mallory"
    return "game.current.player"


def unknown_forced_face(data):
    _game(data)["forced_dice"] = ["Q"]
    return "game.forced_dice[0]"


MUTATIONS: list[Mutation] = [
    current_null, nine_unknown_dice, a_hundred_attack_dice, eight_attack_dice, no_attack_dice, dice_that_missed,
    attacker_of_another_player, defender_of_the_attacker, attack_on_ones_own_character, dead_attacker,
    dead_defender, defender_with_no_living_character, attacking_player_out, defending_player_missing,
    defender_missing, attacker_missing, attacker_before_declaring, defender_before_defending, three_god_dice,
    one_god_die, unknown_god_dice, a_god_kill_left_standing, god_dice_before_the_defender,
    singles_where_doubles_were, favor_on_doubles, favor_to_the_wrong_side, favor_phase_without_favor,
    dice_before_the_opening_roll, opening_roll_twice, no_opening_roll, unknown_type_rolled, a_type_rolled_twice,
    rerolled_without_favor, turn_zero, a_turn_before_the_draft_is_done, turn_number_before_turns,
    reversed_before_turns, free_for_all_reversed, resurrection_without_the_option, retarget_without_free_for_all,
    free_for_all_for_two, unknown_pool_kind, pool_missing_a_kind, pool_with_extra_copies, pool_before_the_draft,
    colliding_next_character_id, next_character_id_far_ahead, character_id_out_of_range, unknown_character_type,
    max_life_not_the_cards, extra_character, characters_before_the_draft, a_seat_left_empty, seats_out_of_order,
    wins_that_end_the_game, a_winner_mid_game, over_without_a_winner, active_is_another_player, chooser_changed,
    too_few_players, picks_out_of_turn, a_pick_too_many, draft_with_no_picks_left, picks_left_after_the_draft,
    picker_not_a_player, turn_for_a_stranger, unknown_forced_face,
]


def hostile(exports: dict[str, dict[str, Any]]) -> list[tuple[str, dict[str, Any], str]]:
    """(what, the hostile export, the field its refusal names) for every mutation of every export it fits."""
    cases = []
    for point, export in exports.items():
        for mutation in MUTATIONS:
            data = copy.deepcopy(export)
            field = mutation(data)
            if field is not None:
                assert data != export, f"{mutation.__name__} changed nothing in {point}"
                cases.append((f"{point}: {mutation.__name__}", data, field))
    return cases


# --- the tests ------------------------------------------------------------------------------------

PLAYED: dict[str, dict[str, Any]] = {}


@pytest.fixture
def ref(store, clock):
    return Referee(store, RULES, ForcedRoller(), clock)


async def exports_of(ref: Referee) -> dict[str, dict[str, Any]]:
    if not PLAYED:
        PLAYED.update(await play_exports(ref))
    return copy.deepcopy(PLAYED)


async def test_every_real_export_imports_back_to_the_same_state(ref):
    for point, export in (await exports_of(ref)).items():
        await ref.import_game(f"copy-{point}", "gm", copy.deepcopy(export))
        assert await ref.export(f"copy-{point}") == export, point


async def refused(ref: Referee, store: Store, what: str, data: dict[str, Any], field: str) -> str | None:
    """None when the import is refused naming `field` and leaves nothing behind; else what went wrong."""
    before, games = await log_counts(store), len(await store.games())
    try:
        await ref.import_game("elsewhere", "gm", data)
    except (BadInput, RuleViolation) as err:
        message = str(err)
    else:
        return f"{what}: imported (and every case after it refused for the game left in that channel)"
    if field not in message or "\n" in message:
        return f"{what}: {message!r} does not name {field}"
    if await store.live_game("elsewhere") is not None or len(await store.games()) != games:
        return f"{what}: a game was left behind"
    if await log_counts(store) != before:
        return f"{what}: rows were left behind"
    return None


async def test_hostile_god_dice_exports_are_refused_naming_the_field(ref, store):
    cases = hostile(await exports_of(ref))
    assert len(cases) >= 100, len(cases)
    failures = [found for what, data, field in cases if (found := await refused(ref, store, what, data, field))]
    assert not failures, "\n".join(failures)


async def test_the_issues_exports_are_among_them(ref):
    names = {what for what, _, _ in hostile(await exports_of(ref))}
    for expected in ("favor: current_null", "rolling: nine_unknown_dice", "opening: attacker_of_another_player",
                     "rolling: attack_on_ones_own_character", "favor: a_hundred_attack_dice",
                     "rolling: dead_attacker", "opening: defender_with_no_living_character",
                     "opening: three_god_dice", "opening: unknown_god_dice", "draft: unknown_pool_kind",
                     "declare: colliding_next_character_id", "campaign: colliding_next_character_id",
                     "resurrect: dead_attacker", "retarget: attack_on_ones_own_character"):
        assert expected in names, expected


async def test_a_hostile_export_in_the_middle_of_an_attack_no_longer_breaks_every_move(ref, store):
    """The issue's first case: `game.current` null mid-attack imported, then every move hit an AssertionError."""
    data = (await exports_of(ref))["rolling"]
    data["game"]["current"] = None
    with pytest.raises(RuleViolation, match=r"game\.current: a turn is under way in phase rolling"):
        await ref.import_game("elsewhere", "gm", data)
    assert await store.live_game("elsewhere") is None
