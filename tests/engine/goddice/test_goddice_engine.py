"""God Dice, the rules engine, with every die entered: the rulebook's sample attack phase, seating, the
roll-off and the draft, every God dice outcome, each ability, the attack phase's limits, death and the
winner, the optional rules, refusals, export and replay, and the reminder clock."""

from __future__ import annotations

from datetime import timedelta

from goddicehelpers import NOW, Table, attack_values, god_values

from engine.clock import Deadline
from engine.errors import BadInput, NoGame, NotGM, RuleViolation
from engine.events import DiceRolled
from engine.gm import ClearDice, QueueDice, SetHouse
from engine.goddice import clock, common
from engine.goddice.actions import (
    Begin,
    ChooseFirst,
    Declare,
    Defend,
    Favor,
    Join,
    MakeAttack,
    Pick,
    Resurrect,
    Roll,
    SetLife,
)
from engine.goddice.events import (
    AttackDiceSet,
    AttackerDeclared,
    AttackMade,
    AttackMissed,
    CampaignGameStarted,
    CharacterDied,
    CharacterResurrected,
    DirectionReversed,
    FavorDecided,
    FirstChosen,
    GameWon,
    GodDiceRead,
    LifeChanged,
    MoveAwaited,
    PlayerEliminated,
    PlayerReminded,
    ResurrectionDeclined,
    RolloffWon,
    TurnStarted,
)
from engine.goddice.snapshot import state_from_dict, state_to_dict
from engine.goddice.state import (
    CHOOSE,
    DECLARE,
    DEFEND,
    DRAFT,
    FAVOR,
    OPENING,
    OVER,
    RESURRECT,
    RETARGET,
    ROLLING,
    SEATING,
)

GOD = {"hero": "H", "cleric": "C", "monk": "M", "bowman": "B", "sage": "S", "assassin": "A"}

# alice wins the roll-off and attacks first, so bob selects first; alice attacks bob.
DUEL = {"alice": ["hero", "cleric", "bowman", "sage"], "bob": ["monk", "assassin", "sage", "hero"]}
# seats alice, bob, carol; alice attacks first, the draft runs bob, carol, alice; the whole pool is drafted.
TRIO = {"alice": ["hero", "monk", "bowman", "sage"], "bob": ["cleric", "monk", "bowman", "assassin"],
        "carol": ["hero", "cleric", "sage", "assassin"]}


def duel(alice: list[str] | None = None, bob: list[str] | None = None, options: str | None = None) -> Table:
    table = Table(["alice", "bob"], options)
    table.setup({"alice": alice or DUEL["alice"], "bob": bob or DUEL["bob"]}, winner="alice", choice="attack")
    assert (table.state.phase, table.state.active, table.state.current.player) == (DECLARE, "alice", "alice")
    return table


def trio(options: str | None = None) -> Table:
    table = Table(["alice", "bob", "carol"], options)
    table.setup(TRIO, winner="alice", choice="attack")
    assert (table.state.phase, table.state.active) == (DECLARE, "alice")
    return table


def quiet(*types: str) -> str:
    """Two God dice for neither character: no effect."""
    rest = [f for f in "HCMBSA" if f not in {GOD[t] for t in types}]
    return f"{rest[0]} {rest[1]}"


def doubles(kind: str) -> str:
    return f"{GOD[kind]} {GOD[kind]}"


def god_turn(table: Table, player: str, attacker: str, defender: str, god: str) -> None:
    """Declare and defend; the God dice `god` decide the turn at once (God kill, divine intervention)."""
    table.do(Declare(attacker), player)
    defending = table.state.current.defender_player
    table.do(Defend(defender), defending, faces=god)


# --- the rulebook's sample attack phase -----------------------------------------------------------


def test_the_rulebooks_sample_attack_phase_exactly():
    table = duel()
    out = table.do(Declare("hero"), "alice")
    assert table.of(out, AttackerDeclared)[0].defender_player == "bob"  # the player to his left
    assert (table.state.phase, table.state.active) == (DEFEND, "bob")
    out = table.do(Defend("monk"), "bob", faces="S A")  # the God dice have no effect on this battle
    assert table.of(out, GodDiceRead)[0].outcome == "no effect"
    assert table.of(out, GodDiceRead)[0].favor is None
    assert (table.state.phase, table.state.active) == (OPENING, "alice")

    steps = [  # (type rolled, entered faces, the dice after, legal attacks after, types left)
        (None, "B B B R O O 5 5 5", "B B B R O O 5 5 5", [("basic", 15)], ["B", "R", "O", "5"]),
        ("o", "Y O", "B B B R Y O 5 5 5", [("basic", 15)], ["B", "R", "Y", "5"]),
        ("blue", "R O 5", "R R Y O O 5 5 5 5", [], ["R", "Y", "5"]),
        ("red", "B O", "B Y O O O 5 5 5 5", [("basic", 20)], ["Y", "5"]),
        ("yellow", "O", "B O O O O 5 5 5 5", [("basic", 20)], ["5"]),
        ("5", "R O 5 5", "B R O O O O O 5 5",
         [("basic", 10), ("cleave", 20), ("lacerate", 25), ("lunge", 15)], []),
    ]
    for kind, entered, after, legal, left in steps:
        out = table.do(Roll(kind), "alice", faces=entered)
        rolled = table.of(out, DiceRolled)[0].roll
        assert rolled.faces == entered.split() and all(rolled.forced) and rolled.player == "alice"
        assert table.dice() == after.split()
        assert table.legal() == legal
        assert common.rollable(table.state) == left
        assert table.state.phase == ROLLING  # roll 3 has no legal attack, but rolls are left: no miss
    assert table.state.current.rolled == ["opening", "O", "B", "R", "Y", "5"]
    # all five counters are in the centre: no roll left
    table.refuse(Roll("5"), RuleViolation, "has rolled the 5 dice this turn: each type once", "alice")

    out = table.do(MakeAttack("lacerate"), "alice")  # the most damaging Wild choice
    made = table.of(out, AttackMade)[0]
    assert (made.attack, made.damage, made.name, made.target_names) == ("Lacerate", 25, "Hero", ["bob's Monk"])
    assert table.life("bob", "monk") == 30  # the Monk's counter on 35, pointing at 30
    assert table.of(out, LifeChanged)[0].change == -25
    assert table.lives("alice") == {"Hero": 75, "Cleric": 65, "Bowman": 45, "Sage": 35}
    # the Hero's turn is over; the player with the Monk attacks the player to his left
    assert (table.state.phase, table.state.active, table.state.current.player, table.state.turn) == \
        (DECLARE, "bob", "bob", 2)
    table.assert_replays()


# --- seating, the roll-off, the draft ------------------------------------------------------------


def test_two_to_four_seats_and_the_fifth_is_refused():
    table = Table(["alice", "bob", "carol", "dave"])
    assert [(p.name, p.seat) for p in table.state.players] == [("alice", 1), ("bob", 2), ("carol", 3), ("dave", 4)]
    table.refuse(Join(), RuleViolation, "the table is full: God Dice is for 2 to 4 players", "erin")
    table.refuse(Join(), RuleViolation, "already has a seat", "alice")
    table.refuse(Join("erin"), NotGM, "only the GM may seat another player", "alice")

    alone = Table(["alice"])
    alone.refuse(Begin(), RuleViolation, "God Dice needs at least 2 players; seated: 1", faces="Y B B B B B B B B")
    alone.refuse(Begin(), NotGM, "only the GM may begin the game", "alice")
    alone.do(Join("bob"))  # the GM seats bob
    assert [p.name for p in alone.state.players] == ["alice", "bob"]
    alone.do(Begin(), dice=attack_values("B B B B B B B B B"))  # alice's dice: the faces the refusals left
    assert alone.state.chooser == "alice"
    alone.refuse(Join(), RuleViolation, "seating is closed", "carol")


def test_the_rolloff_most_yellow_wins_with_the_roller():
    table = Table(["alice", "bob"])
    out = table.do(Begin(), dice=attack_values("B R O 5 5 B R O 5") + attack_values("Y B B B B B B B B"))
    assert [r.roll.player for r in table.of(out, DiceRolled)] == ["alice", "bob"]
    won = table.of(out, RolloffWon)[0]
    assert (won.player, won.yellows, won.rounds) == ("bob", 1, 1)
    assert (table.state.phase, table.state.chooser, table.state.active) == (CHOOSE, "bob", "bob")


def test_the_rolloff_the_tied_reroll_in_seat_order_until_one_is_left():
    table = Table(["alice", "bob", "carol"])
    out = table.rolloff("bob", rounds=[{"alice": 2, "bob": 2, "carol": 1},  # carol is out
                                        {"alice": 0, "bob": 0},  # tied again
                                        {"alice": 1, "bob": 3}])
    assert [r.roll.player for r in table.of(out, DiceRolled)] == ["alice", "bob", "carol", "alice", "bob",
                                                                  "alice", "bob"]
    won = table.of(out, RolloffWon)[0]
    assert (won.player, won.yellows, won.rounds) == ("bob", 3, 3)


def test_attack_first_means_select_last_and_attack_first():
    table = Table(["alice", "bob", "carol"])
    table.rolloff("bob")
    table.refuse(ChooseFirst("attack"), RuleViolation, "it is not your move", "alice")
    table.refuse(ChooseFirst("defend"), BadInput, "choose first:attack or first:select", "bob")
    out = table.choose("bob", "attack")
    # the draft begins with the player to his left (carol) and bob picks last
    assert table.of(out, FirstChosen)[0].picks == ["carol", "alice", "bob"] * 4
    assert (table.state.phase, table.state.active) == (DRAFT, "carol")
    order = table.draft({"carol": ["hero", "cleric", "monk", "bowman"], "alice": ["sage", "assassin", "hero", "cleric"],
                         "bob": ["monk", "bowman", "sage", "assassin"]})
    assert order == ["carol", "alice", "bob"] * 4
    assert table.state.pool == {t: 0 for t in GOD}  # 4 each with 3 players: the whole pool
    assert (table.state.phase, table.state.current.player, table.state.active) == (DECLARE, "bob", "bob")
    table.do(Declare("monk"), "bob")
    assert table.state.current.defender_player == "carol"  # the player to bob's left


def test_select_first_means_defend_first_and_his_right_attacks_first():
    table = Table(["alice", "bob", "carol"])
    table.rolloff("bob")
    out = table.choose("bob", "select")
    assert table.of(out, FirstChosen)[0].picks == ["bob", "carol", "alice"] * 4
    table.draft(TRIO | {"bob": TRIO["alice"], "alice": TRIO["bob"]})
    # the last to select (alice, bob's right) attacks first, and attacks bob: bob defends first
    assert (table.state.current.player, table.state.active) == ("alice", "alice")
    table.do(Declare("cleric"), "alice")
    assert (table.state.phase, table.state.active, table.state.current.defender_player) == (DEFEND, "bob", "bob")


def test_select_first_in_a_duel():
    table = Table(["alice", "bob"])
    table.rolloff("alice")
    out = table.choose("alice", "select")
    assert table.of(out, FirstChosen)[0].picks == ["alice", "bob"] * 4
    table.draft(DUEL)
    assert table.state.current.player == "bob"  # alice defends first
    assert [len(p.characters) for p in table.state.players] == [4, 4]


def test_four_players_have_three_characters_each():
    table = Table(["alice", "bob", "carol", "dave"])
    table.rolloff("dave")
    out = table.choose("dave", "attack")
    assert table.of(out, FirstChosen)[0].picks == ["alice", "bob", "carol", "dave"] * 3
    table.draft({"alice": ["hero", "hero", "cleric"], "bob": ["cleric", "monk", "monk"],
                 "carol": ["bowman", "bowman", "sage"], "dave": ["sage", "assassin", "assassin"]})
    assert [len(p.characters) for p in table.state.players] == [3, 3, 3, 3]
    assert table.lives("alice") == {"Hero 1": 75, "Hero 2": 75, "Cleric": 65}  # duplicates are legal
    assert (table.state.phase, table.state.current.player) == (DECLARE, "dave")
    table.do(Declare("assassin 2"), "dave")
    assert table.state.current.defender_player == "alice"  # dave's left, round the table


def test_the_pool_runs_out_a_third_sage_is_refused():
    table = Table(["alice", "bob"])
    table.rolloff("alice")
    table.choose("alice", "attack")
    table.do(Pick("sage"), "bob")
    table.refuse(Pick("hero"), RuleViolation, "it is not your move", "bob")
    table.do(Pick("sage"), "alice")
    assert table.state.pool["sage"] == 0
    table.refuse(Pick("sage"), RuleViolation, "the pool has no Sage left", "bob")
    table.refuse(Pick("wizard"), BadInput, "no character 'wizard'", "bob")
    table.do(Pick("assassin"), "bob")
    assert [c.type for c in table.player("bob").characters] == ["sage", "assassin"]
    table.assert_replays()


# --- the God dice: two players -------------------------------------------------------------------


def test_god_kill_kills_the_defender_and_ends_the_turn():
    table = duel()
    table.do(Declare("hero"), "alice")
    out = table.do(Defend("monk"), "bob", faces="H H")
    assert table.of(out, GodDiceRead)[0].outcome == "god kill"
    assert table.life("bob", "monk") == 0
    died = table.of(out, CharacterDied)[0]
    assert (died.player, died.type) == ("bob", "monk")
    assert not table.of(out, AttackMade)
    assert (table.state.phase, table.state.current.player, table.state.turn) == (DECLARE, "bob", 2)
    table.assert_replays()


def test_god_kill_when_both_are_the_same_character():
    table = duel()
    table.do(Declare("hero"), "alice")
    out = table.do(Defend("hero"), "bob", faces="H H")
    assert table.of(out, GodDiceRead)[0].outcome == "god kill"
    assert table.life("bob", "hero") == 0 and table.life("alice", "hero") == 75
    assert table.state.current.player == "bob"


def test_divine_intervention_misses_and_ends_the_turn():
    table = duel()
    table.do(Declare("hero"), "alice")
    out = table.do(Defend("monk"), "bob", faces="M M")
    assert table.of(out, GodDiceRead)[0].outcome == "divine intervention"
    assert table.of(out, AttackMissed)[0].reason == "divine intervention"
    assert table.life("bob", "monk") == 55
    assert (table.state.phase, table.state.current.player) == (DECLARE, "bob")


def test_a_reversal_has_no_effect_with_two_players():
    table = duel()
    table.do(Declare("hero"), "alice")
    out = table.do(Defend("monk"), "bob", faces="C C")
    assert table.of(out, GodDiceRead)[0].outcome == "no reversal"
    assert not table.of(out, DirectionReversed)
    assert table.state.direction == "clockwise"
    assert (table.state.phase, table.state.active, table.state.current.defender_player) == (OPENING, "alice", "bob")
    table.do(Roll(), "alice", faces="B 5 5 5 5 5 5 5 5")
    table.do(MakeAttack("basic"), "alice")
    assert table.life("bob", "monk") == 15
    assert table.state.current.player == "bob"


def test_attacker_in_favor_rerolls_once_seven_rolls_at_most():
    table = duel()
    table.do(Declare("hero"), "alice")
    out = table.do(Defend("monk"), "bob", faces="H S")
    read = table.of(out, GodDiceRead)[0]
    assert (read.outcome, read.favor) == ("in favor", "attacker")
    table.do(Roll(), "alice", faces="R R R R R R R R R")  # ROLL 1: nothing
    assert (table.state.phase, table.state.active) == (FAVOR, "alice")
    table.refuse(Roll("red"), RuleViolation, "that is not a move now", "alice", faces="B")
    table.refuse(MakeAttack("basic"), RuleViolation, "that is not a move now", "alice")
    table.refuse(Favor("reroll"), RuleViolation, "it is not your move", "bob")
    table.refuse(Favor("twice"), BadInput, "keep or choice:reroll", "alice")
    table.do(ClearDice())
    out = table.do(Favor("reroll"), "alice", faces="B R Y O 5 5 5 5 5")  # ROLL 2: the extra opening roll
    assert table.of(out, FavorDecided)[0].choice == "reroll"
    assert table.of(out, DiceRolled)[0].roll.purpose == "favor"
    assert (table.state.phase, table.dice(), table.legal()) == (ROLLING, "B R Y O 5 5 5 5 5".split(), [("basic", 25)])
    table.refuse(Favor("reroll"), RuleViolation, "that is not a move now", "alice")  # one time only
    for kind, entered in (("blue", "B"), ("red", "R"), ("yellow", "Y"), ("o", "O"), ("5", "5 5 5 5 5")):
        table.do(Roll(kind), "alice", faces=entered)  # ROLLS 3 to 7
    assert table.state.current.rolled == ["opening", "favor", "B", "R", "Y", "O", "5"]
    assert [e.rolled for e in table.all_of(AttackDiceSet)] == ["opening", "favor", "B", "R", "Y", "O", "5"]
    assert len([e for e in table.all_of(DiceRolled) if e.roll.purpose != "god"
                and e.roll.player == "alice" and e.roll.turn == 1]) == 7
    assert common.rollable(table.state) == [] and table.legal() == [("basic", 25)]
    table.do(MakeAttack("basic"), "alice")
    assert table.life("bob", "monk") == 30


def test_attacker_in_favor_keeps():
    table = duel()
    table.attack_turn("alice", "hero", "monk", god="S H", opening="B B B R O O 5 5 5")
    assert table.state.phase == FAVOR
    out = table.do(Favor("keep"), "alice")
    assert not table.of(out, DiceRolled)
    assert (table.state.phase, table.dice()) == (ROLLING, "B B B R O O 5 5 5".split())
    assert table.state.current.rolled == ["opening"]


def test_defender_in_favor_makes_the_attacker_reroll():
    table = duel()
    table.do(Declare("hero"), "alice")
    out = table.do(Defend("monk"), "bob", faces="M C")
    read = table.of(out, GodDiceRead)[0]
    assert (read.outcome, read.favor) == ("in favor", "defender")
    table.do(Roll(), "alice", faces="B B Y Y 5 5 5 5 5")  # a Critical for 50 …
    assert table.legal() == [] and table.state.phase == FAVOR  # … not yet: the defender decides first
    assert table.state.active == "bob"
    table.refuse(Favor("keep"), RuleViolation, "it is not your move", "alice")
    out = table.do(Favor("reroll"), "bob", faces="R R R O O O Y 5 5")  # the defender decides for the attacker
    assert table.of(out, FavorDecided)[0].player == "bob"
    assert table.of(out, DiceRolled)[0].roll.player == "alice"
    assert (table.state.phase, table.state.active, table.dice()) == (ROLLING, "alice", "R R R Y O O O 5 5".split())
    assert table.legal() == []


def test_defender_in_favor_keeps():
    table = duel()
    table.attack_turn("alice", "hero", "monk", god="A M", opening="B 5 5 5 5 5 5 5 5")
    table.do(Favor("keep"), "bob")
    assert table.legal() == [("basic", 40)]


def test_push_neither_is_in_favor():
    table = duel()
    table.do(Declare("hero"), "alice")
    out = table.do(Defend("monk"), "bob", faces="M H")
    read = table.of(out, GodDiceRead)[0]
    assert (read.outcome, read.favor) == ("push", None)
    table.do(Roll(), "alice", faces="B 5 5 5 5 5 5 5 5")
    assert table.state.phase == ROLLING  # straight to rolling: nobody decides keep or re-roll


def test_the_same_character_is_never_in_favor():
    table = duel()
    table.do(Declare("hero"), "alice")
    out = table.do(Defend("hero"), "bob", faces="H C")
    read = table.of(out, GodDiceRead)[0]
    assert (read.outcome, read.favor) == ("same character", None)
    table.do(Roll(), "alice", faces="B 5 5 5 5 5 5 5 5")
    assert table.state.phase == ROLLING


def test_the_god_dice_are_rolled_by_the_attacker_with_the_roller():
    table = duel()
    table.do(Declare("hero"), "alice")
    out = table.do(Defend("monk"), "bob", dice=god_values("C B"))
    rolled = table.of(out, DiceRolled)[0].roll
    assert (rolled.player, rolled.purpose, rolled.faces, rolled.forced) == ("alice", "god", ["C", "B"], [False, False])
    assert table.of(out, GodDiceRead)[0].outcome == "no effect"


# --- the God dice: three players -----------------------------------------------------------------


def test_reversal_with_three_players_new_defender_and_counterclockwise_turns():
    table = trio()
    table.do(Declare("hero"), "alice")
    assert table.state.current.defender_player == "bob"
    out = table.do(Defend("cleric"), "bob", faces="M M")  # neither Hero nor Cleric: a God reversal
    assert table.of(out, GodDiceRead)[0].outcome == "reversal"
    assert table.of(out, DirectionReversed)[0].direction == "counterclockwise"
    assert table.state.direction == "counterclockwise"
    # the Hero keeps attacking, now the player to alice's right, who declares a defender
    assert (table.state.phase, table.state.active, table.state.current.defender_player) == (DEFEND, "carol", "carol")
    assert table.state.current.attacker == table.char("alice", "hero").id
    table.refuse(Defend("cleric"), RuleViolation, "it is not your move", "bob")
    out = table.do(Defend("assassin"), "carol")  # the God dice are never rolled twice in a turn
    assert not table.of(out, DiceRolled) and not table.of(out, GodDiceRead)
    assert (table.state.phase, table.state.active) == (OPENING, "alice")
    table.do(Roll(), "alice", faces="B 5 5 O O R R Y Y")
    table.do(MakeAttack("basic"), "alice")
    assert table.life("carol", "assassin") == 15 and table.life("bob", "cleric") == 65
    # play goes on counterclockwise: carol next, attacking her right (bob), then bob attacking alice
    assert table.state.current.player == "carol"
    table.do(Declare("sage"), "carol")
    assert table.state.current.defender_player == "bob"
    table.do(Defend("bowman"), "bob", faces="B B")  # divine intervention
    assert table.state.current.player == "bob"
    table.do(Declare("monk"), "bob")
    assert table.state.current.defender_player == "alice"
    # a second reversal switches play back clockwise: bob now attacks carol
    out = table.do(Defend("hero"), "alice", faces="A A")
    assert table.of(out, DirectionReversed)[0].direction == "clockwise"
    assert table.state.current.defender_player == "carol"
    table.do(Defend("hero"), "carol")
    table.do(Roll(), "bob", faces="B B R 5 5 O O O O")
    table.do(MakeAttack("basic"), "bob")
    assert table.life("carol", "hero") == 65
    assert table.state.current.player == "carol"  # clockwise from bob
    table.assert_replays()


def test_in_favor_and_god_kill_with_three_players():
    table = trio()
    table.do(Declare("bowman"), "alice")
    out = table.do(Defend("monk"), "bob", faces="B A")
    assert table.of(out, GodDiceRead)[0].favor == "attacker"
    table.do(Roll(), "alice", faces="R R R R R R R R R")
    table.do(Favor("reroll"), "alice", faces="B B B Y 5 5 5 5 5")
    table.do(MakeAttack("acid_arrow", targets="assassin"), "alice")
    assert table.life("bob", "assassin") == 0 and table.life("bob", "monk") == 55
    assert table.state.current.player == "bob"
    god_turn(table, "bob", "cleric", "sage", "C C")  # bob's Cleric God-kills carol's Sage
    assert table.life("carol", "sage") == 0
    assert table.state.current.player == "carol"


def test_attack_any_only_the_defending_players_characters():
    table = Table(["alice", "bob", "carol"])
    table.setup({"alice": ["hero", "hero", "monk", "cleric"], "bob": ["sage", "monk", "cleric", "assassin"],
                 "carol": ["bowman", "bowman", "sage", "assassin"]}, winner="carol", choice="attack")
    assert table.state.current.player == "carol"
    table.attack_turn("carol", "bowman 1", "hero 1", god=quiet("bowman", "hero"), opening="B B B Y 5 5 5 5 5")
    assert table.state.current.defender_player == "alice"
    table.refuse(MakeAttack("acid_arrow", targets="sage"), RuleViolation, "Sage is bob's, not the defending alice's",
                 "carol")
    table.refuse(MakeAttack("acid_arrow", targets="bowman 2"), RuleViolation, "you cannot target your own character",
                 "carol")
    table.refuse(MakeAttack("acid_arrow", targets="hero"), BadInput, "alice has more than one Hero", "carol")
    table.do(MakeAttack("acid_arrow", targets="hero 2"), "carol")
    assert table.lives("alice") == {"Hero 1": 75, "Hero 2": 40, "Monk": 55, "Cleric": 65}


# --- abilities ------------------------------------------------------------------------------------


def test_x2_critical():
    table = duel()
    table.attack_turn("alice", "hero", "monk", god=quiet("hero", "monk"), opening="B B Y Y 5 5 5 5 5")
    assert table.legal() == [("basic", 25), ("critical", 50)]
    out = table.do(MakeAttack("critical"), "alice")
    assert table.of(out, AttackMade)[0].damage == 50
    assert table.life("bob", "monk") == 5


def test_x3_whirlwind_with_heal_self_10():
    table = duel(alice=["monk", "hero", "cleric", "bowman"], bob=["hero", "sage", "assassin", "monk"])
    table.do(SetLife("alice", "monk", 40))
    table.attack_turn("alice", "monk", "hero", god=quiet("monk", "hero"), opening="B B R R Y 5 5 5 5")
    assert table.legal() == [("basic", 20), ("whirlwind", 60), ("flying_kick", 25)]
    table.refuse(MakeAttack("whirlwind", heal="hero"), RuleViolation, "Whirlwind heals only the Monk making it",
                 "alice")
    out = table.do(MakeAttack("whirlwind"), "alice")
    assert [(e.player, e.change, e.life) for e in table.of(out, LifeChanged)] == [("bob", -60, 15), ("alice", 10, 50)]
    assert table.life("bob", "hero") == 15 and table.life("alice", "monk") == 50


def test_heal_self_never_above_full_life():
    table = duel(alice=["monk", "hero", "cleric", "bowman"], bob=["hero", "sage", "assassin", "monk"])
    table.do(SetLife("alice", "monk", 50))
    table.attack_turn("alice", "monk", "hero", god=quiet("monk", "hero"), opening="B B R R Y 5 O O O")
    out = table.do(MakeAttack("whirlwind"), "alice")
    assert table.life("alice", "monk") == 55  # 5 of the 10 wasted
    assert [e.change for e in table.of(out, LifeChanged)] == [-15, 5]


def test_heal_self_heals_only_the_attacking_monk():
    table = duel(alice=["monk", "monk", "hero", "cleric"], bob=["hero", "sage", "assassin", "bowman"])
    table.do(SetLife("alice", "monk 1", 20))
    table.do(SetLife("alice", "monk 2", 30))
    table.attack_turn("alice", "monk 2", "hero", god=quiet("monk", "hero"), opening="O O O O O 5 5 B B")
    assert ("meditation", 15) in table.legal()
    table.do(MakeAttack("meditation"), "alice")
    assert table.lives("alice") == {"Monk 1": 20, "Monk 2": 40, "Hero": 75, "Cleric": 65}
    assert table.life("bob", "hero") == 60


def test_x4_backstab_attack_any_kills_any_character_with_one_blow():
    table = duel(alice=["assassin", "hero", "cleric", "sage"], bob=["monk", "hero", "bowman", "sage"])
    table.attack_turn("alice", "assassin", "bowman", god=quiet("assassin", "bowman"), opening="B B B B Y 5 5 5 5")
    assert table.legal() == [("basic", 20), ("backstab", 80)]
    out = table.do(MakeAttack("backstab", targets="hero"), "alice")  # one chosen target, not the defender
    assert [(e.name, e.change, e.life) for e in table.of(out, LifeChanged)] == [("Hero", -75, 0)]
    assert table.of(out, CharacterDied)[0].type == "hero"
    assert table.lives("bob") == {"Monk": 55, "Hero": 0, "Bowman": 45, "Sage": 35}


def test_plus_n_acid_arrow_attack_any_the_rulebooks_example():
    # A Bowman attacking, a Hero defending: the acid arrow goes to the Assassin instead; four 5s = 30, killing
    # him, the extra 5 wasted.
    table = duel(alice=["bowman", "hero", "cleric", "sage"], bob=["hero", "assassin", "monk", "sage"])
    table.attack_turn("alice", "bowman", "hero", god=quiet("bowman", "hero"), opening="B B B Y O 5 5 5 5")
    assert table.legal() == [("basic", 20), ("acid_arrow", 30)]
    out = table.do(MakeAttack("acid arrow", targets="assassin"), "alice")
    assert [(e.name, e.change, e.life) for e in table.of(out, LifeChanged)] == [("Assassin", -25, 0)]
    assert table.life("bob", "hero") == 75 and table.life("bob", "monk") == 55


def test_attack_any_without_a_target_hits_the_defender():
    table = duel(alice=["bowman", "hero", "cleric", "sage"], bob=["hero", "assassin", "monk", "sage"])
    table.attack_turn("alice", "bowman", "hero", god=quiet("bowman", "hero"), opening="B B B Y O 5 5 5 5")
    table.refuse(MakeAttack("acid_arrow", targets="monk, sage"), BadInput, "has 1 arrow; 2 targets given", "alice")
    table.do(MakeAttack("acid_arrow"), "alice")
    assert table.life("bob", "hero") == 45


def test_attack_any_2_each_arrow_its_own_damage():
    table = duel(alice=["bowman", "hero", "cleric", "sage"], bob=["hero", "monk", "sage", "assassin"])
    table.attack_turn("alice", "bowman", "hero", god=quiet("bowman", "hero"), opening="B B B Y Y O 5 5 5")
    assert table.legal() == [("basic", 15), ("acid_arrow", 25), ("double_shot", 15)]
    out = table.do(MakeAttack("double_shot", targets="hero, monk"), "alice")
    assert table.of(out, AttackMade)[0].target_names == ["bob's Hero", "bob's Monk"]
    assert table.lives("bob") == {"Hero": 60, "Monk": 40, "Sage": 35, "Assassin": 25}


def test_attack_any_2_both_arrows_at_one_target():
    table = duel(alice=["bowman", "hero", "cleric", "sage"], bob=["hero", "monk", "sage", "assassin"])
    table.attack_turn("alice", "bowman", "hero", god=quiet("bowman", "hero"), opening="B B B Y Y O 5 5 5")
    table.do(MakeAttack("double_shot", targets="sage sage"), "alice")
    assert table.lives("bob") == {"Hero": 75, "Monk": 55, "Sage": 5, "Assassin": 25}  # 30 to the Sage


def test_attack_any_2_no_carry_over_to_the_other_arrow():
    table = duel(alice=["bowman", "hero", "cleric", "sage"], bob=["hero", "monk", "sage", "assassin"])
    table.do(SetLife("bob", "sage", 10))
    table.attack_turn("alice", "bowman", "hero", god=quiet("bowman", "hero"), opening="B B B Y Y O 5 5 5")
    out = table.do(MakeAttack("double_shot", targets="sage, sage"), "alice")
    # the first arrow kills the Sage (10 of its 15 used); the second is wasted, nothing carries over
    assert [(e.name, e.change, e.life) for e in table.of(out, LifeChanged)] == [("Sage", -10, 0)]
    assert table.lives("bob") == {"Hero": 75, "Monk": 55, "Sage": 0, "Assassin": 25}


def test_attack_any_2_one_arrow_named_the_other_at_the_defender():
    table = duel(alice=["bowman", "hero", "cleric", "sage"], bob=["hero", "monk", "sage", "assassin"])
    table.attack_turn("alice", "bowman", "hero", god=quiet("bowman", "hero"), opening="B B B Y Y O 5 5 5")
    table.do(MakeAttack("double_shot", targets="assassin"), "alice")
    assert table.lives("bob") == {"Hero": 60, "Monk": 55, "Sage": 35, "Assassin": 10}


def test_attack_any_3_triple_shot():
    table = duel(alice=["bowman", "hero", "cleric", "sage"], bob=["hero", "monk", "sage", "assassin"])
    table.attack_turn("alice", "bowman", "hero", god=quiet("bowman", "hero"), opening="B B B Y Y Y 5 5 5")
    assert ("triple_shot", 15) in table.legal()
    table.refuse(MakeAttack("triple_shot", targets="monk hero sage assassin"), BadInput,
                 "has 3 arrows; 4 targets given", "alice")
    out = table.do(MakeAttack("triple_shot", targets="monk, hero, monk"), "alice")
    assert [(e.name, e.change) for e in table.of(out, LifeChanged)] == [("Monk", -15), ("Hero", -15), ("Monk", -15)]
    assert table.lives("bob") == {"Hero": 60, "Monk": 25, "Sage": 35, "Assassin": 25}


def test_damage_to_all_chain_lightning():
    # the rulebook: two 5s = 10 to each of the defending player's characters (a Hero, a Bowman, two Assassins)
    table = duel(alice=["sage", "hero", "cleric", "monk"], bob=["hero", "bowman", "assassin", "assassin"])
    table.attack_turn("alice", "sage", "bowman", god=quiet("sage", "bowman"), opening="R R R R Y Y 5 5 O")
    assert table.legal() == [("basic", 10), ("touch_of_death", 30), ("chain_lightning", 10)]
    table.refuse(MakeAttack("chain_lightning", targets="hero"), BadInput, "it takes no targets", "alice")
    out = table.do(MakeAttack("chain lightning"), "alice")
    assert sum(-e.change for e in table.of(out, LifeChanged)) == 40
    assert table.lives("bob") == {"Hero": 65, "Bowman": 35, "Assassin 1": 15, "Assassin 2": 15}


def test_damage_to_all_skips_the_dead():
    table = duel(alice=["sage", "hero", "cleric", "monk"], bob=["hero", "bowman", "assassin", "assassin"])
    table.do(SetLife("bob", "assassin 1", 0))
    table.attack_turn("alice", "sage", "bowman", god=quiet("sage", "bowman"), opening="R R R R Y Y 5 5 5")
    out = table.do(MakeAttack("chain_lightning"), "alice")
    assert [e.name for e in table.of(out, LifeChanged)] == ["Hero", "Bowman", "Assassin 2"]
    assert table.lives("bob") == {"Hero": 60, "Bowman": 30, "Assassin 1": 0, "Assassin 2": 10}


def test_x3_touch_of_death_and_x2_lightning_bolt_attack_any():
    table = duel(alice=["sage", "hero", "cleric", "monk"], bob=["hero", "bowman", "assassin", "sage"])
    table.attack_turn("alice", "sage", "hero", god=quiet("sage", "hero"), opening="R R R R B Y 5 5 5")
    assert table.legal() == [("basic", 15), ("touch_of_death", 45), ("lightning_bolt", 30)]
    table.refuse(MakeAttack("touch_of_death", targets="bowman"), RuleViolation,
                 "Touch of Death can only hit the defending Hero (it has no Attack Any)", "alice")
    table.do(MakeAttack("lightning_bolt", targets="bowman"), "alice")
    assert table.lives("bob") == {"Hero": 75, "Bowman": 15, "Assassin": 25, "Sage": 35}


def test_heal_any_devotion_own_characters_excess_wasted():
    table = duel(alice=["cleric", "hero", "bowman", "sage"], bob=["monk", "assassin", "bowman", "hero"])
    table.do(SetLife("alice", "hero", 70))
    table.do(SetLife("alice", "bowman", 20))
    table.do(SetLife("alice", "sage", 0))
    table.attack_turn("alice", "cleric", "monk", god=quiet("cleric", "monk"), opening="B B R R 5 5 5 5 5")
    assert table.legal() == [("basic", 25), ("devotion", 50)]
    table.refuse(MakeAttack("devotion", heal="monk"), RuleViolation, "you may not heal another player's character",
                 "alice")
    table.refuse(MakeAttack("devotion", heal="assassin"), RuleViolation, "you may not heal another player's character",
                 "alice")
    table.refuse(MakeAttack("devotion", heal="sage"), RuleViolation, "alice's Sage is dead", "alice")
    table.refuse(MakeAttack("devotion", heal="bowman 2"), RuleViolation, "alice has no character 'bowman 2'", "alice")
    table.refuse(MakeAttack("devotion", heal="cleric"), RuleViolation, "Cleric is not wounded", "alice")
    out = table.do(MakeAttack("devotion", heal="hero"), "alice")  # needs 5 of the 15: 10 wasted
    assert [(e.player, e.name, e.change, e.life) for e in table.of(out, LifeChanged)] == \
        [("bob", "Monk", -50, 5), ("alice", "Hero", 5, 75)]
    assert table.lives("alice") == {"Cleric": 65, "Hero": 75, "Bowman": 20, "Sage": 0}


def test_heal_any_refuses_ones_own_dead_character_as_dead_and_an_enemy_by_id():
    # both players have a Bowman: healing alice's dead one is refused because it is dead, not as bob's
    table = duel(alice=["cleric", "hero", "bowman", "sage"], bob=["monk", "assassin", "bowman", "hero"])
    table.do(SetLife("alice", "bowman", 0))
    table.do(SetLife("alice", "hero", 60))
    table.attack_turn("alice", "cleric", "monk", god=quiet("cleric", "monk"), opening="B B R R 5 O O O O")
    table.refuse(MakeAttack("devotion", heal="bowman"), RuleViolation, "alice's Bowman is dead", "alice")
    monk, hero = table.char("bob", "monk").id, table.char("alice", "hero").id
    table.refuse(MakeAttack("devotion", heal=f"#{monk}"), RuleViolation, "you may not heal another player's character",
                 "alice")
    table.do(MakeAttack("devotion", heal=f"#{hero}"), "alice")
    assert table.lives("alice") == {"Cleric": 65, "Hero": 75, "Bowman": 0, "Sage": 35}


def test_heal_any_by_default_heals_the_most_wounded_own_character():
    table = duel(alice=["cleric", "hero", "bowman", "sage"], bob=["monk", "assassin", "bowman", "hero"])
    table.do(SetLife("alice", "hero", 70))
    table.do(SetLife("alice", "bowman", 20))
    table.attack_turn("alice", "cleric", "monk", god=quiet("cleric", "monk"), opening="B B R R 5 O O O O")
    out = table.do(MakeAttack("devotion"), "alice")
    assert table.of(out, AttackMade)[0].heal == table.char("alice", "bowman").id
    assert table.lives("alice") == {"Cleric": 65, "Hero": 70, "Bowman": 35, "Sage": 35}
    assert table.life("bob", "monk") == 45


def test_heal_any_with_nobody_wounded_is_wasted():
    table = duel(alice=["cleric", "hero", "bowman", "sage"], bob=["monk", "assassin", "bowman", "hero"])
    table.attack_turn("alice", "cleric", "monk", god=quiet("cleric", "monk"), opening="B B R R 5 O O O O")
    out = table.do(MakeAttack("devotion"), "alice")
    assert [e.player for e in table.of(out, LifeChanged)] == ["bob"]
    assert table.of(out, AttackMade)[0].heal is None


def test_wild_five_os_and_the_heros_choices():
    table = duel()
    table.attack_turn("alice", "hero", "monk", god=quiet("hero", "monk"), opening="O O O O R 5 5 5 5")
    assert table.legal() == []  # four O's: no Wild, no BLUE: no basic
    table.refuse(MakeAttack("lacerate"), RuleViolation, "Lacerate needs 5 O; the dice show R O O O O 5 5 5 5", "alice")
    table.refuse(MakeAttack("basic"), RuleViolation, "Basic needs 1 BLUE", "alice")
    table.do(Roll("red"), "alice", faces="O")
    assert table.legal() == [("cleave", 30), ("lacerate", 35), ("lunge", 25)]
    table.refuse(MakeAttack("lacerate", targets="assassin"), RuleViolation, "can only hit the defending Monk",
                 "alice")
    table.refuse(MakeAttack("smite"), BadInput, "the Hero has no attack 'smite'", "alice")
    table.do(SetLife("alice", "sage", 30))
    out = table.do(MakeAttack("lunge"), "alice")  # +5 and Heal Any 5 (house)
    assert [(e.name, e.change) for e in table.of(out, LifeChanged)] == [("Monk", -25), ("Sage", 5)]


def test_wild_choices_of_every_character():
    expected = {  # four 5s with five O's: 20 normal damage
        "cleric": [("smite", 30), ("sanctuary", 20)],
        "monk": [("iron_fist", 35), ("meditation", 25)],
        "bowman": [("piercing_arrow", 35), ("rapid_fire", 40)],
        "sage": [("fireball", 35), ("mana_burn", 40)],
        "assassin": [("poison_blade", 35), ("shadow_strike", 30)],
    }
    for kind, wild in expected.items():
        table = duel(alice=[kind, "hero", "hero", "cleric" if kind != "cleric" else "monk"],
                     bob=["monk" if kind != "monk" else "sage", "bowman", "assassin",
                          "sage" if kind != "monk" else "cleric"])
        defender = table.player("bob").characters[0].type
        table.attack_turn("alice", kind, defender, god=quiet(kind, defender), opening="O O O O O 5 5 5 5")
        assert table.legal() == wild, kind


# --- the attack phase ----------------------------------------------------------------------------


def test_each_type_once_and_only_types_with_dice():
    table = duel()
    table.attack_turn("alice", "hero", "monk", god=quiet("hero", "monk"), opening="B R R R O O 5 5 5")
    table.refuse(Roll("yellow"), RuleViolation, "alice has no yellow dice to roll", "alice", faces="Y")
    table.refuse(Roll("purple"), BadInput, "roll one type", "alice")
    table.refuse(Roll(), RuleViolation, "that is not a move now", "alice")  # one opening roll
    table.do(Roll("red"), "alice", dice=attack_values("5 5"))  # the Y the refusal left queued, and two more
    assert table.state.forced_dice == [] and table.dice() == "B Y O O 5 5 5 5 5".split()
    table.refuse(Roll("red"), RuleViolation, "alice has rolled the red dice this turn: each type once", "alice",
                 faces="B B")
    table.refuse(Roll("0"), RuleViolation, "it is not your move", "bob")
    table.do(Roll("0"), "alice")  # the two O's: the entered B B
    assert table.state.current.rolled == ["opening", "R", "O"]


def test_rolling_a_type_rolls_all_its_dice_together():
    table = duel()
    table.attack_turn("alice", "hero", "monk", god=quiet("hero", "monk"), opening="B B R R R 0 0 5 5")
    # the rulebook's example: rolling red rolls all three red dice, and nothing else
    out = table.do(Roll("red"), "alice", faces="Y", dice=attack_values("5 B"))
    rolled = table.of(out, DiceRolled)[0].roll
    assert (rolled.faces, rolled.forced, rolled.purpose) == (["Y", "5", "B"], [True, False, False], "red")
    assert table.dice() == "B B B Y O O 5 5 5".split()
    assert table.legal() == [("basic", 15)]


def test_a_miss_no_legal_attack_after_every_type_rolled_ends_the_turn():
    table = duel(alice=["sage", "hero", "cleric", "bowman"], bob=["monk", "assassin", "sage", "hero"])
    table.attack_turn("alice", "sage", "monk", god=quiet("sage", "monk"), opening="B Y O 5 R R R 5 5")
    table.do(Roll("blue"), "alice", faces="5")
    table.do(Roll("yellow"), "alice", faces="5")
    table.do(Roll("o"), "alice", faces="5")
    table.do(Roll("red"), "alice", faces="B B B")  # no RED left at all
    assert (table.state.phase, common.rollable(table.state), table.legal()) == (ROLLING, ["5"], [])
    out = table.do(Roll("5"), "alice", faces="5 5 5 5 5 5")
    assert table.of(out, AttackMissed)[0].reason == "no legal attack after every type was rolled"
    assert not table.of(out, LifeChanged)
    assert (table.state.phase, table.state.current.player, table.state.turn) == (DECLARE, "bob", 2)
    assert table.life("bob", "monk") == 55


def test_a_miss_when_no_type_is_left_to_roll():
    table = duel(alice=["sage", "hero", "cleric", "bowman"], bob=["monk", "assassin", "sage", "hero"])
    table.attack_turn("alice", "sage", "monk", god=quiet("sage", "monk"), opening="B B B B B B B B B")
    out = table.do(Roll("blue"), "alice", faces="B B B B B B B B B")  # only BLUE, already rolled: nothing left
    assert table.of(out, AttackMissed)
    assert table.state.current.player == "bob"


def test_stop_any_time_with_a_legal_attack_after_the_last_roll():
    table = duel()
    table.attack_turn("alice", "hero", "monk", god=quiet("hero", "monk"), opening="B B B B B B B B B")
    out = table.do(Roll("blue"), "alice", faces="B B B B B B B B B")
    assert not table.of(out, AttackMissed)  # no roll left, but a legal basic (for 0): the attack is made
    assert (table.state.phase, table.legal()) == (ROLLING, [("basic", 0)])


def test_nothing_before_the_opening_roll():
    table = duel()
    table.refuse(Roll(), RuleViolation, "that is not a move now", "alice")
    table.do(Declare("hero"), "alice")
    table.do(Defend("monk"), "bob", faces="C B")
    table.refuse(MakeAttack("basic"), RuleViolation, "make the opening roll first", "alice")
    table.refuse(Roll("blue"), RuleViolation, "the opening roll comes first", "alice", faces="B")
    table.refuse(Roll(), RuleViolation, "it is not your move", "bob")
    table.refuse(Roll(), RuleViolation, "not a face of the attack dice", "alice", faces="H")  # wrong kind of die
    assert table.state.forced_dice == ["B", "H"]
    table.do(ClearDice())
    table.do(Roll(), "alice", dice=attack_values("B B B R O O 5 5 5"))
    assert table.legal() == [("basic", 15)]


# --- death, elimination, the winner --------------------------------------------------------------


def test_a_whole_duel_to_the_winner():
    table = duel()
    # 1 alice: Critical for 50 on the Monk
    table.attack_turn("alice", "hero", "monk", god=quiet("hero", "monk"), opening="B B Y Y 5 5 5 5 5")
    table.do(MakeAttack("critical"), "alice")
    # 2 bob: divine intervention for alice's Sage
    god_turn(table, "bob", "assassin", "sage", "S S")
    # 3 alice: an acid arrow at the wounded Monk
    table.attack_turn("alice", "bowman", "assassin", god=quiet("bowman", "assassin"), opening="B B B Y 5 5 5 5 5")
    out = table.do(MakeAttack("acid_arrow", targets="monk"), "alice")
    assert [(e.name, e.change) for e in table.of(out, LifeChanged)] == [("Monk", -5)]
    assert table.of(out, CharacterDied)[0].type == "monk" and not table.of(out, PlayerEliminated)
    # 4 bob: his Hero's basic for 40 on the Cleric; a dead Monk cannot attack or defend
    table.refuse(Declare("monk"), RuleViolation, "bob's Monk is dead", "bob")
    table.attack_turn("bob", "hero", "cleric", god=quiet("hero", "cleric"), opening="B 5 5 5 5 5 5 5 5")
    table.do(MakeAttack("basic"), "bob")
    # 5 alice: the Sage God-kills bob's Hero
    god_turn(table, "alice", "sage", "hero", "S S")
    # 6 bob: Chain Lightning, 10 to each of alice's characters
    table.attack_turn("bob", "sage", "cleric", god=quiet("sage", "cleric"), opening="R R R R Y Y 5 5 O")
    table.do(MakeAttack("chain_lightning"), "bob")
    assert table.lives("alice") == {"Hero": 65, "Cleric": 15, "Bowman": 35, "Sage": 25}
    # 7 alice: Devotion kills the Assassin and heals the Cleric 15
    table.refuse(Defend("monk"), RuleViolation, "that is not a move now", "bob")
    table.do(Declare("cleric"), "alice")
    table.refuse(Defend("monk"), RuleViolation, "bob's Monk is dead", "bob", faces="H M")
    table.do(Defend("assassin"), "bob")
    table.do(Roll(), "alice", faces="B B R R 5 5 5 5 5")
    table.do(MakeAttack("devotion"), "alice")
    assert table.lives("alice") == {"Hero": 65, "Cleric": 30, "Bowman": 35, "Sage": 25}
    assert table.lives("bob") == {"Monk": 0, "Assassin": 0, "Sage": 35, "Hero": 0}
    # 8 bob: Touch of Death on the Hero
    table.attack_turn("bob", "sage", "hero", god=quiet("sage", "hero"), opening="R R R R Y 5 5 5 5")
    table.do(MakeAttack("touch_of_death"), "bob")
    assert table.life("alice", "hero") == 5
    # 9 alice: the Hero's basic for 40 kills the last Sage: bob is out and alice wins
    table.attack_turn("alice", "hero", "sage", god=quiet("hero", "sage"), opening="B 5 5 5 5 5 5 5 5")
    out = table.do(MakeAttack("basic"), "alice")
    assert table.of(out, PlayerEliminated)[0].player == "bob"
    won = table.of(out, GameWon)[0]
    assert (won.player, won.wins, won.campaign_over) == ("alice", 1, True)
    assert not table.of(out, TurnStarted)
    assert (table.state.phase, table.state.ended, table.state.winner, table.state.active) == (OVER, True, "alice", None)
    assert table.state.turn == 9
    table.refuse(Declare("sage"), NoGame, "this game has ended", "bob")
    assert clock.deadlines(table.state) == []
    table.assert_replays()
    assert state_from_dict(state_to_dict(table.state)) == table.state


def test_a_whole_three_player_game_to_the_winner():
    table = trio()
    god_turn(table, "alice", "hero", "assassin", "H H")  # 1: God kill
    god_turn(table, "bob", "cleric", "hero", "H H")  # 2: divine intervention
    god_turn(table, "carol", "sage", "sage", "S S")  # 3: God kill, Sage on Sage
    assert [table.life(*who) for who in (("bob", "assassin"), ("carol", "hero"), ("alice", "sage"))] == [0, 75, 0]
    # 4: alice's Bowman, reversed onto carol, sends an acid arrow at carol's Sage
    table.do(Declare("bowman"), "alice")
    table.do(Defend("cleric"), "bob", faces="M M")
    table.do(Defend("assassin"), "carol")
    table.do(Roll(), "alice", faces="B B B Y 5 5 5 5 5")
    table.refuse(MakeAttack("acid_arrow", targets="monk"), RuleViolation, "you cannot target your own character",
                 "alice")
    table.refuse(MakeAttack("acid_arrow", targets="bowman 2"), RuleViolation, "carol has no character 'bowman 2'",
                 "alice")
    table.do(MakeAttack("acid_arrow", targets="sage"), "alice")
    assert table.life("carol", "sage") == 0 and table.state.direction == "counterclockwise"
    god_turn(table, "carol", "hero", "cleric", "H H")  # 5: carol attacks her right, bob
    god_turn(table, "bob", "monk", "monk", "M M")  # 6: bob attacks his right, alice
    god_turn(table, "alice", "hero", "hero", "H H")  # 7: alice attacks carol
    god_turn(table, "carol", "assassin", "monk", "A A")  # 8
    god_turn(table, "bob", "bowman", "hero", "H H")  # 9: divine intervention
    god_turn(table, "alice", "bowman", "cleric", "B B")  # 10
    assert table.lives("bob") == {"Cleric": 0, "Monk": 0, "Bowman": 45, "Assassin": 0}
    assert table.lives("carol") == {"Hero": 0, "Cleric": 0, "Sage": 0, "Assassin": 25}
    table.do(Declare("assassin"), "carol")  # 11: carol kills bob's last character
    out = table.do(Defend("bowman"), "bob", faces="A A")
    assert table.of(out, PlayerEliminated)[0].player == "bob" and not table.of(out, GameWon)
    # counterclockwise from carol, past bob: alice, who attacks carol (bob is skipped)
    assert (table.state.current.player, table.state.turn) == ("alice", 12)
    table.refuse(Declare("hero", target="bob"), RuleViolation, "must attack the player to the right, carol", "alice")
    table.attack_turn("alice", "hero", "assassin", god=quiet("hero", "assassin"), opening="B 5 5 5 5 5 5 5 5")
    assert table.state.current.defender_player == "carol"
    out = table.do(MakeAttack("basic"), "alice")
    assert [e.player for e in table.of(out, PlayerEliminated)] == ["carol"]
    assert table.of(out, GameWon)[0].player == "alice"
    assert (table.state.phase, table.state.winner, table.state.ended) == (OVER, "alice", True)
    assert table.lives("alice") == {"Hero": 75, "Monk": 0, "Bowman": 45, "Sage": 0}
    table.assert_replays()


# --- Campaign ------------------------------------------------------------------------------------


def test_campaign_next_game_full_life_winners_right_begins_two_wins_end_it():
    table = duel(options="campaign")
    assert table.state.options == ["campaign"]
    for kind in ("assassin", "sage", "hero"):
        table.do(SetLife("bob", kind, 0))
    table.do(SetLife("alice", "cleric", 10))
    out = table.do(Declare("hero"), "alice")
    out = table.do(Defend("monk"), "bob", faces="H H")  # game 1: alice's God kill of the last
    won = table.of(out, GameWon)[0]
    assert (won.player, won.wins, won.campaign_over) == ("alice", 1, False)
    assert table.of(out, CampaignGameStarted)[0].game == 2
    # the same cards at full life; the player to the winner's right begins and attacks the winner
    assert table.lives("alice") == {"Hero": 75, "Cleric": 65, "Bowman": 45, "Sage": 35}
    assert table.lives("bob") == {"Monk": 55, "Assassin": 25, "Sage": 35, "Hero": 75}
    assert (table.state.phase, table.state.current.player, table.state.active) == (DECLARE, "bob", "bob")
    assert (table.state.ended, table.state.winner) == (False, None)
    assert [p.wins for p in table.state.players] == [1, 0]
    table.do(Declare("hero"), "bob")
    assert table.state.current.defender_player == "alice"
    # game 2: bob wins
    for kind in ("hero", "cleric", "bowman"):
        table.do(SetLife("alice", kind, 0))
    out = table.do(Defend("sage"), "alice", faces="H H")
    assert (table.of(out, GameWon)[0].player, table.of(out, GameWon)[0].wins) == ("bob", 1)
    assert table.of(out, CampaignGameStarted)[0].game == 3
    assert table.state.current.player == "alice"  # bob's right
    # game 3: alice's second win ends the campaign
    for kind in ("monk", "sage", "hero"):
        table.do(SetLife("bob", kind, 0))
    table.do(Declare("bowman"), "alice")
    out = table.do(Defend("assassin"), "bob", faces="B B")
    won = table.of(out, GameWon)[0]
    assert (won.player, won.wins, won.campaign_over) == ("alice", 2, True)
    assert not table.of(out, CampaignGameStarted)
    assert (table.state.phase, table.state.ended, table.state.winner) == (OVER, True, "alice")
    assert [p.wins for p in table.state.players] == [2, 1]
    table.assert_replays()


def test_campaign_next_game_is_clockwise_whatever_the_direction_was():
    table = trio(options="campaign")
    table.do(Declare("hero"), "alice")
    table.do(Defend("cleric"), "bob", faces="M M")  # reversal: counterclockwise
    table.do(Defend("hero"), "carol")
    table.do(Roll(), "alice", faces="B 5 O O O O R R R")
    table.do(MakeAttack("basic"), "alice")
    assert table.life("carol", "hero") == 70
    assert (table.state.direction, table.state.current.player) == ("counterclockwise", "carol")
    for player in ("bob", "carol"):
        for character in table.player(player).characters:
            if (player, character.type) != ("carol", "assassin"):
                table.do(SetLife(player, common.character_label(table.state, character.id), 0))
    table.do(Declare("assassin"), "carol")
    assert table.state.current.defender_player == "alice"  # carol's right, past bob
    table.do(Defend("monk"), "alice", faces="M M")  # divine intervention
    assert table.state.current.player == "alice"
    out = table.do(SetLife("carol", "assassin", 0))  # the GM ends game 1: alice wins it
    assert table.of(out, GameWon)[0].player == "alice"
    assert table.state.direction == "clockwise"
    # alice's right, carol, begins game 2 and attacks alice, to her left; the game waits for carol
    assert (table.state.current.player, table.state.active) == ("carol", "carol")
    assert table.of(out, MoveAwaited)[-1].player == "carol"
    table.do(Declare("sage"), "carol")
    assert table.state.current.defender_player == "alice"
    table.assert_replays()


# --- Resurrection --------------------------------------------------------------------------------


def test_resurrection_raises_one_dead_character_and_ends_the_turn():
    table = duel(options="resurrection")
    table.do(SetLife("alice", "hero", 0))
    table.do(Declare("cleric"), "alice")
    out = table.do(Defend("monk"), "bob", faces="H H")  # doubles for neither character, alice's Hero is dead
    assert table.of(out, GodDiceRead)[0].outcome == "resurrection offered"
    assert (table.state.phase, table.state.active) == (RESURRECT, "alice")
    table.refuse(Resurrect("hero"), RuleViolation, "it is not your move", "bob")
    table.refuse(Resurrect("cleric"), RuleViolation, "Cleric is alive", "alice")
    out = table.do(Resurrect("hero"), "alice")
    assert table.of(out, CharacterResurrected)[0].life == 75
    assert table.life("alice", "hero") == 75
    assert not table.of(out, AttackMade)  # the attack is forfeited
    assert (table.state.phase, table.state.current.player, table.state.direction) == (DECLARE, "bob", "clockwise")
    table.assert_replays()


def test_resurrection_only_one_of_two_dead():
    table = duel(alice=["hero", "hero", "cleric", "sage"], bob=["monk", "assassin", "sage", "bowman"],
                 options="resurrection")
    table.do(SetLife("alice", "hero 1", 0))
    table.do(SetLife("alice", "hero 2", 0))
    table.do(Declare("cleric"), "alice")
    table.do(Defend("monk"), "bob", faces="H H")
    table.refuse(Resurrect("sage"), RuleViolation, "Sage is alive", "alice")
    table.refuse(Resurrect("hero"), BadInput, "say Hero 1 or Hero 2", "alice")
    table.do(Resurrect("hero 2"), "alice")
    assert table.lives("alice") == {"Hero 1": 0, "Hero 2": 75, "Cleric": 65, "Sage": 35}
    assert table.state.current.player == "bob"


def test_resurrection_wrong_kind_refused():
    table = duel(options="resurrection")
    table.do(SetLife("alice", "hero", 0))
    table.do(SetLife("alice", "bowman", 0))
    table.do(Declare("cleric"), "alice")
    table.do(Defend("monk"), "bob", faces="H H")
    table.refuse(Resurrect("bowman"), RuleViolation, "the God dice show Hero: only a dead Hero may rise", "alice")


def test_resurrection_without_a_dead_character_of_that_kind_is_a_plain_reversal():
    table = trio(options="resurrection")
    table.do(Declare("hero"), "alice")
    out = table.do(Defend("cleric"), "bob", faces="S S")  # alice's Sage lives: nothing to raise
    assert table.of(out, GodDiceRead)[0].outcome == "reversal"
    assert (table.state.phase, table.state.active) == (DEFEND, "carol")


def test_resurrection_in_three_players_play_goes_on_without_switching():
    table = trio(options="resurrection")
    table.do(SetLife("alice", "sage", 0))
    table.do(Declare("hero"), "alice")
    table.do(Defend("cleric"), "bob", faces="S S")
    table.do(Resurrect("sage"), "alice")
    assert table.life("alice", "sage") == 35
    assert (table.state.direction, table.state.current.player) == ("clockwise", "bob")  # the player to his left


def test_resurrection_declined_is_a_reversal():
    table = trio(options="resurrection")
    table.do(SetLife("alice", "sage", 0))
    table.do(Declare("bowman"), "alice")
    table.do(Defend("monk"), "bob", faces="S S")
    out = table.do(Resurrect("decline"), "alice")
    assert table.of(out, ResurrectionDeclined)[0].player == "alice"
    assert table.of(out, GodDiceRead)[0].outcome == "reversal"
    assert table.state.direction == "counterclockwise"
    assert (table.state.phase, table.state.active, table.state.current.defender_player) == (DEFEND, "carol", "carol")
    assert table.life("alice", "sage") == 0
    out = table.do(Defend("hero"), "carol")
    assert not table.of(out, DiceRolled)
    table.do(Roll(), "alice", faces="B B B 5 5 5 5 5 5")
    table.do(MakeAttack("basic"), "alice")
    assert table.life("carol", "hero") == 45
    assert table.state.current.player == "carol"


def test_resurrection_declined_with_two_players_attacks_on():
    table = duel(options="resurrection")
    table.do(SetLife("alice", "sage", 0))
    table.do(Declare("hero"), "alice")
    table.do(Defend("monk"), "bob", faces="S S")
    out = table.do(Resurrect("no"), "alice")
    assert table.of(out, GodDiceRead)[0].outcome == "no reversal"
    assert (table.state.phase, table.state.active) == (OPENING, "alice")


# --- Free for All --------------------------------------------------------------------------------


def test_free_for_all_is_refused_with_two_players_at_begin():
    table = Table(["alice", "bob"], "free_for_all")
    table.refuse(Begin(), RuleViolation, "Free for All is for three or four players", faces="Y B B B B B B B B")
    assert table.state.phase == SEATING
    table.do(Join("carol"))
    table.do(Begin(), faces="B B B B B B B B B  B B B B B B B B B")
    assert table.state.chooser == "alice"


def test_free_for_all_choose_the_target_and_the_defender_attacks_next():
    table = trio(options="ffa")
    assert table.state.options == ["free_for_all"]
    table.refuse(Declare("hero"), BadInput, "name the player you attack", "alice")
    table.refuse(Declare("hero", target="alice"), RuleViolation, "you cannot attack yourself", "alice")
    table.refuse(Declare("hero", target="dave"), RuleViolation, "dave is not playing in this game", "alice")
    table.do(Declare("hero", target="carol"), "alice")  # not the player to her left
    assert (table.state.phase, table.state.active) == (DEFEND, "carol")
    table.do(Defend("cleric"), "carol", faces=quiet("hero", "cleric"))
    table.do(Roll(), "alice", faces="B 5 5 5 O O O O R")
    table.do(MakeAttack("basic"), "alice")
    assert table.life("carol", "cleric") == 50
    assert table.state.current.player == "carol"  # whoever defended attacks next
    table.do(Declare("sage", target="alice"), "carol")
    table.do(Defend("bowman"), "alice", faces="B B")  # divine intervention
    assert table.state.current.player == "alice"  # the defender again
    table.assert_replays()


def test_free_for_all_unrelated_doubles_retarget_another_player():
    table = trio(options="free_for_all")
    table.do(Declare("hero", target="bob"), "alice")
    out = table.do(Defend("cleric"), "bob", faces="A A")
    assert table.of(out, GodDiceRead)[0].outcome == "reversal"
    assert (table.state.phase, table.state.active, table.state.direction) == (RETARGET, "alice", "clockwise")
    table.refuse(Declare(target="bob"), RuleViolation, "after the reversal alice must attack another player than bob",
                 "alice")
    table.refuse(Declare("monk", target="carol"), RuleViolation, "after a reversal alice keeps attacking with Hero",
                 "alice")
    table.refuse(Defend("monk"), RuleViolation, "that is not a move now", "bob")
    table.do(Declare(target="carol"), "alice")
    assert (table.state.phase, table.state.active, table.state.current.defender_player) == (DEFEND, "carol", "carol")
    out = table.do(Defend("sage"), "carol")
    assert not table.of(out, DiceRolled)  # never twice a turn
    table.do(Roll(), "alice", faces="B 5 5 5 5 O O O O")
    table.do(MakeAttack("basic"), "alice")
    assert table.life("carol", "sage") == 15 and table.life("bob", "cleric") == 65
    assert table.state.current.player == "carol"


def test_free_for_all_eliminated_defender_the_attackers_left_attacks_next():
    table = trio(options="free_for_all")
    for kind in ("hero", "cleric", "sage"):
        table.do(SetLife("carol", kind, 0))
    table.do(Declare("hero", target="carol"), "alice")
    out = table.do(Defend("assassin"), "carol", faces="H H")
    assert table.of(out, PlayerEliminated)[0].player == "carol"
    assert table.state.current.player == "bob"  # left of alice
    table.refuse(Declare("monk", target="carol"), RuleViolation, "carol has no character left", "bob")


def test_free_for_all_with_resurrection_the_next_attack_goes_left():
    table = trio(options="free_for_all resurrection")
    table.do(SetLife("alice", "monk", 0))
    table.do(Declare("hero", target="carol"), "alice")
    table.do(Defend("sage"), "carol", faces="M M")
    table.do(Resurrect("monk"), "alice")
    assert table.life("alice", "monk") == 55
    assert table.state.current.player == "bob"  # the player to alice's left, not carol


def test_free_for_all_with_two_left_unrelated_doubles_have_no_effect():
    table = trio(options="free_for_all")
    for kind in ("hero", "cleric", "sage", "assassin"):
        table.do(SetLife("carol", kind, 0))
    table.do(Declare("hero", target="bob"), "alice")
    out = table.do(Defend("cleric"), "bob", faces="A A")
    assert table.of(out, GodDiceRead)[0].outcome == "no reversal"
    assert table.state.phase == OPENING


# --- refusals ------------------------------------------------------------------------------------


def test_out_of_turn_and_dead_characters_and_own_targets_refused():
    table = duel(alice=["bowman", "hero", "cleric", "sage"], bob=["monk", "assassin", "sage", "hero"])
    table.refuse(Declare("monk"), RuleViolation, "it is not your move: alice declares an attacker", "bob")
    table.refuse(Declare(), BadInput, "declare which of your characters attacks", "alice")
    table.refuse(Declare("monk"), RuleViolation, "alice has no character 'monk'", "alice")
    table.refuse(Declare("hero", target="bob"), RuleViolation, "you are not seated in this game", "carol")
    table.do(SetLife("bob", "sage", 0))
    table.do(SetLife("alice", "cleric", 0))
    table.refuse(Declare("cleric"), RuleViolation, "alice's Cleric is dead", "alice")
    table.do(Declare("bowman"), "alice")
    table.refuse(Declare("hero"), RuleViolation, "that is not a move now", "alice")
    table.refuse(Defend("sage"), RuleViolation, "bob's Sage is dead", "bob", faces="H C")
    table.refuse(Defend("monk"), RuleViolation, "it is not your move: bob declares a defender", "alice")
    table.do(Defend("monk"), "bob")  # the entered H C: no effect
    table.do(Roll(), "alice", faces="B B B Y 5 5 5 5 5")
    table.refuse(MakeAttack("acid_arrow", targets="cleric"), RuleViolation, "you cannot target your own character",
                 "alice")
    table.refuse(MakeAttack("acid_arrow", targets="sage"), RuleViolation, "bob's Sage is dead", "alice")
    table.refuse(MakeAttack("acid_arrow"), RuleViolation, "it is not your move", "bob")
    table.refuse(MakeAttack("backstab"), BadInput, "the Bowman has no attack 'backstab'", "alice")
    table.refuse(MakeAttack("triple_shot"), RuleViolation, "Triple Shot needs 3 BLUE, 3 YELLOW", "alice")
    table.do(MakeAttack("acid_arrow", targets="assassin"), "alice")
    assert table.lives("bob") == {"Monk": 55, "Assassin": 0, "Sage": 0, "Hero": 75}
    table.assert_replays()


def test_gm_entered_faces_are_checked():
    table = duel()
    table.refuse(QueueDice(["X", "B"]), BadInput, "God Dice faces are B R Y O 5")
    table.refuse(QueueDice(["B"]), NotGM, "only the GM may enter dice", "alice")
    table.refuse(SetLife("bob", "monk", 56), BadInput, "Monk's life is 0 to 55, not 56")
    table.refuse(SetLife("bob", "monk", 30), NotGM, "only the GM may set life", "alice")
    table.do(QueueDice(["0", "h"]))
    assert table.state.forced_dice == ["O", "H"]  # 0 is read as O, lower case as upper


# --- export, replay, reminders -------------------------------------------------------------------


def test_export_round_trip_mid_turn_and_replay():
    table = duel(options="campaign resurrection")
    table.attack_turn("alice", "hero", "monk", god="H S", opening="B B B R O O 5 5 5")
    table.enter("Y")  # a die waiting in the queue is exported too
    state = table.state
    data = state_to_dict(state)
    assert data["game"]["current"]["dice"] == "B B B R O O 5 5 5".split()
    assert data["game"]["forced_dice"] == ["Y"]
    assert (data["game"]["phase"], data["game"]["active"]) == (FAVOR, "alice")
    again = state_from_dict(data)
    assert again == state
    assert state_to_dict(again) == data
    table.assert_replays()


def test_reminder_once_per_catch_up_however_long_the_wait():
    table = duel()
    assert table.state.house.reminder_hours == 12.0
    since = table.state.move_since
    assert clock.deadlines(table.state) == [Deadline(since + timedelta(hours=12), "reminder", "alice")]
    table.advance(hours=11, minutes=59)
    assert table.tick().events == []
    table.advance(minutes=1)
    out = table.tick()
    reminded = table.of(out, PlayerReminded)
    assert [(r.player, r.phase, r.waiting_hours, r.count) for r in reminded] == [("alice", DECLARE, 12.0, 1)]
    assert table.tick().events == []  # nothing more until 24 hours
    table.advance(hours=50)  # 62 hours: one reminder, however many were missed
    out = table.tick()
    assert [(r.waiting_hours, r.count) for r in table.of(out, PlayerReminded)] == [(60.0, 5)]
    assert table.state.reminders == 5
    table.advance(hours=9)
    assert table.tick().events == []  # the next is due at 72 hours
    table.do(Declare("hero"), "alice")  # a move: bob's wait starts now
    assert (table.state.active, table.state.move_since, table.state.reminders) == ("bob", table.now, 0)
    table.advance(hours=12)
    assert [r.player for r in table.of(table.tick(), PlayerReminded)] == ["bob"]
    table.assert_replays()


def test_no_reminder_when_reminder_hours_is_zero():
    table = duel()
    table.do(SetHouse("reminder_hours", "0"))
    table.advance(hours=100)
    assert clock.deadlines(table.state) == [] and table.tick().events == []


def test_no_reminder_while_seating():
    table = Table(["alice"])
    table.advance(hours=48)
    assert table.tick().events == [] and table.state.move_since == NOW
