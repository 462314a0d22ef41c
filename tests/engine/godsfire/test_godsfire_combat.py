"""B. The Combat Phase with entered dice: attacks announced then resolved together, every strength worked out
by hand (house values: SQD 2; AG 4 on a system cell or region, 2 elsewhere; PDF 3), losses chosen by the enemy,
retreats by the loser, PDFs and the ground, neutrals (controlled, broken off), the deadline's default, and the
nebula's odds (finding 1: halved without rounding the sides)."""

from __future__ import annotations

from datetime import timedelta
from fractions import Fraction

import pytest
from godsfirehelpers import NOW, Table

from engine.errors import BadInput, NotYourNation, RuleViolation
from engine.events import DieRolled
from engine.godsfire import charts
from engine.godsfire.buildup import BuildUp
from engine.godsfire.combat import (
    COMMANDS,
    AnnounceAttack,
    CancelAttack,
    ChooseLosses,
    ResolveAttacks,
    Retreat,
    clear_combat,
    combat_left,
    combat_lines,
    landing_allowed,
)
from engine.godsfire.events import ChartRead
from engine.godsfire.movement import StartInitiative
from engine.godsfire.results import choice_deadlines, choice_defaults
from engine.godsfire.setup import ConquerSystem, SetField
from engine.godsfire.table import AddCounters, RemoveCounters, SetNeutralControl, place_of, reconcile
from engine.vocabulary import build_action, coerce_options

# --- finding 1: the nebula's odds ----------------------------------------------------------------------


@pytest.mark.parametrize(("attack", "defence", "column"), [
    (7, 3, "3-1"),   # 3½ against 1½ = 7:3, rounded in the attacker's favour: 3-1 (was read 2-1: 4 against 2)
    (3, 1, "3-1"),   # 1½ against ½ = 3:1 (was 2-1: 2 against 1)
    (1, 3, "1-3"),   # ½ against 1½ = 1:3 (was 1-2: 1 against 2)
    (4, 7, "1-1"),   # 2 against 3½: 1-1, as out of the nebula (was 1-2: 2 against 4)
    (5, 2, "3-1"), (1, 1, "1-1"), (9, 2, "4-1"),
])
def test_the_nebula_halves_without_rounding_the_sides(attack, defence, column):
    from data import rules_for

    rules = rules_for("godsfire")
    assert charts.combat_odds(rules, attack, defence, True)[0] == column
    assert charts.combat_odds(rules, attack, defence, False)[0] == charts.odds_column(attack, defence) == column
    assert charts.odds_column(Fraction(attack, 2), Fraction(defence, 2)) == column


def test_the_combat_chart_command_reads_the_nebula_the_same_way():
    table = Table(["alice"])
    read = table.chart(table.do(charts.Combat(7, 3, nebula=True), "alice", entered=[4]))
    assert (read.column, read.die, read.result) == ("3-1", 4, "D1")
    assert read.detail == "7 against 3, halved in the nebula to 3½ against 1½: odds 3-1"
    read = table.chart(table.do(charts.Combat(3, 1, nebula=True), "alice", entered=[6]))
    assert (read.column, read.result) == ("3-1", "Dr")
    read = table.chart(table.do(charts.Combat(1, 3, nebula=True), "alice", entered=[3]))
    assert (read.column, read.result) == ("1-3", "A2")
    assert read.detail == "1 against 3, halved in the nebula to ½ against 1½: odds 1-3"
    table.assert_replays()


# --- a table to fight on ---------------------------------------------------------------------------------


def game(*players: str) -> Table:
    """alice (Vega) and bob (Sol, two regions) at war, in turn 1's Combat Phase; `players` join too."""
    table = Table()
    table.system("Vega", "alice")
    table.system("Sol", "bob", ["M 4 A-1", "R 3 I-1"])
    for name in players:
        table.player(name)
    table.game_set(wars=[["alice", "bob"]])
    table.to_phase("combat")
    return table


def put(table: Table, kind: str, at: str, owner: str | None, count: int = 1) -> list[int]:
    """The GM puts counters on the table; their numbers."""
    before = {c.number for c in table.state.counters}
    table.do(AddCounters(kind, at, owner or "none", count))
    return sorted(c.number for c in table.state.counters
                  if c.number not in before and c.kind == kind and c.owner == owner and c.at == place_at(table, at))


def place_at(table: Table, at: str) -> str:
    return place_of(table.state, at).at


def units(numbers: list[int]) -> str:
    return " ".join(map(str, numbers))


def numbers_at(table: Table, at: str, owner: str | None = None) -> list[int]:
    return sorted(c.number for c in table.state.counters_at(at) if c.kind in ("SQD", "AG", "PDF")
                  and (owner is None or c.owner == owner))


# --- two attacks, announced then resolved ------------------------------------------------------------------


def test_two_attacks_announced_then_resolved_with_every_strength_by_hand():
    table = game()
    ags = put(table, "AG", "K12", "alice", 2)
    pdf = put(table, "PDF", "Sol", "bob")
    ground = put(table, "AG", "Sol 1", "bob")
    mixed = put(table, "SQD", "K13", "alice") + put(table, "AG", "K13", "alice")
    sqds = put(table, "SQD", "K14", "bob", 2)

    one = table.do(AnnounceAttack(units(ags), "Sol"), "alice")
    assert "alice announces attack 1: alice's AG" in one.events[-1].reason
    table.do(AnnounceAttack(units(mixed), "K14"), "alice")
    assert [a.number for a in table.state.attacks] == [1, 2]
    assert combat_left(table.state) == [
        "attack 1 (alice against bob at Sol) is announced but not resolved (/godsfire combat resolve, or cancel it)",
        "attack 2 (alice against bob at K14) is announced but not resolved (/godsfire combat resolve, or cancel it)"]
    table.refuse(ResolveAttacks(), match="only the GM", actor="alice")

    outcome = table.do(ResolveAttacks(), dice=[4, 1])
    # Attack 1: 2 AGs against a system cell, large: 4 + 4 = 8. Defence: bob's PDF in Sol's cell 3, and his AG on
    # the ground of Sol 1 counted (B.1.5), large: 4; 3 + 4 = 7. 8:7 reads 2-1; die 4 on 2-1: Dr.
    # Attack 2: a SQD 2 and an AG in plain space, small: 2; 2 + 2 = 4 against 2 SQDs, 2 + 2 = 4. 1-1; die 1: D1.
    first, second = table.state.attacks
    assert (first.attack, first.defence, first.column, first.die, first.result) == (8, 7, "2-1", 4, "Dr")
    assert (second.attack, second.defence, second.column, second.die, second.result) == (4, 4, "1-1", 1, "D1")
    reads = table.of(outcome, ChartRead)
    assert [r.detail for r in reads] == ["attack 1 (alice against bob at Sol): 8 against 7: odds 2-1",
                                         "attack 2 (alice against bob at K14): 4 against 4: odds 1-1"]
    assert [r.words for r in reads] == ["Dr: the defender retreats",
                                        "D1: the defender loses 1 unit, the attacker chooses"]
    rolls = [e.roll for e in table.of(outcome, DieRolled)]
    assert [(r.purpose, r.nation, r.die) for r in rolls] == [("attack 1: alice against bob at Sol", "alice", 4),
                                                             ("attack 2: alice against bob at K14", "alice", 1)]
    reasons = [e.reason for e in outcome.events if hasattr(e, "reason") and e.reason.startswith("attack 1:")]
    assert (f"attack 1: alice's AG #{ags[0]}, AG #{ags[1]} (8) against bob's PDF #{pdf[0]}, AG #{ground[0]} at Sol "
            "(7): 2-1, die 4: Dr — bob retreats") in reasons[0]

    retreat, losses = table.state.choices
    assert (retreat.kind, retreat.chooser, retreat.counters) == ("retreat", "bob", pdf)  # the ground AG stays
    assert (losses.kind, losses.chooser, losses.counters, losses.count) == ("losses", "alice", sqds, 1)
    left = combat_left(table.state)
    assert left == ["bob must name a retreat for attack 1", "alice must choose 1 loss for attack 2"]

    # B: all attacks are announced before any is rolled
    late = put(table, "AG", "K15", "alice")
    table.refuse(AnnounceAttack(units(late), "K14"), RuleViolation, "all attacks are announced before any", "alice")
    table.refuse(CancelAttack(1), RuleViolation, "already resolved", "alice")

    # the losses are the enemy's choice
    table.refuse(ChooseLosses(str(sqds[0])), NotYourNation, "losses are chosen by the enemy", "bob")
    table.refuse(ChooseLosses(str(sqds[0]), 2), NotYourNation, "alice's to choose", "bob")
    table.refuse(ChooseLosses(units(sqds)), BadInput, "choose exactly 1", "alice")
    table.refuse(ChooseLosses(str(pdf[0])), RuleViolation, "not among the units", "alice")
    table.do(ChooseLosses(str(sqds[1])), "alice")
    assert numbers_at(table, "K14") == [sqds[0]]

    # the retreat is the loser's
    table.refuse(Retreat("K11"), NotYourNation, "a retreat is made by the side that lost", "alice")
    table.refuse(Retreat("Sol"), RuleViolation, "leave Sol, the position attacked", "bob")
    table.refuse(Retreat("K12"), RuleViolation, "not into enemy units", "bob")
    table.do(Retreat("Sol 2", 1), "bob")  # a PDF lands on its own planet from its system cell
    moved = table.state.counter(pdf[0])
    assert (moved.at, moved.ground) == ("Sol 2", True)
    assert table.sys("Sol").units == {} and table.reg("Sol", 2).units == {"PDF": 1}
    assert combat_left(table.state) == []
    assert any("attack 1" in line and "Dr" in line for line in combat_lines(table.state))

    table.emit(clear_combat)
    assert (table.state.attacks, table.state.next_attack) == ([], 1)
    table.assert_replays()


def test_allies_combine_against_a_common_foe():
    table = game("carol")
    table.game_set(wars=[["alice", "bob"], ["bob", "carol"]])
    mine = put(table, "AG", "K12", "alice")
    hers = put(table, "AG", "K12", "carol")
    put(table, "SQD", "K14", "bob")
    table.refuse(AnnounceAttack(units(mine + hers), "K14"), NotYourNation, "an ally's named in with:", "alice")
    table.refuse(AnnounceAttack(units(mine), "K14", "carol"), BadInput, "carol has no units", "alice")
    table.do(AnnounceAttack(units(mine + hers), "K14", "carol"), "alice")
    assert table.state.attacks[0].attackers == ["alice", "carol"]
    table.do(ResolveAttacks(), dice=[6])
    # 2 AGs in plain space, small: 2 + 2 = 4 against a SQD 2: 2-1; die 6: Ar — the attackers retreat, alice names
    attack = table.state.attacks[0]
    assert (attack.attack, attack.defence, attack.result) == (4, 2, "Ar")
    assert table.state.choices[0].chooser == "alice"
    table.refuse(Retreat("K12"), RuleViolation, "already at K12", "alice")
    table.do(Retreat("K11"), "alice")
    assert numbers_at(table, "K11") == mine + hers
    table.assert_replays()


def test_what_an_announcement_must_respect():
    table = game("carol")
    split = put(table, "AG", "K12", "alice") + put(table, "AG", "K13", "alice")
    put(table, "SQD", "K14", "bob")
    put(table, "SQD", "K15", "carol")
    put(table, "SQD", "K15", "bob")
    pdf = put(table, "PDF", "K16", "alice")
    sqd = put(table, "SQD", "Vega", "alice")
    theirs = put(table, "AG", "K17", "bob")
    table.refuse(AnnounceAttack(units(split), "K14"), RuleViolation, "B.1.1: combat is cell-to-cell, no splitting",
                 "alice")
    table.refuse(AnnounceAttack(units(pdf), "K14"), RuleViolation, "B.2.4: a PDF can only attack when on a system",
                 "alice")
    table.refuse(AnnounceAttack(units(theirs), "K14"), NotYourNation, "B.2.5", "alice")
    table.refuse(AnnounceAttack(units(split[:1]), "K13"), RuleViolation, "holds none of the attackers' enemies",
                 "alice")
    table.refuse(AnnounceAttack(units(split[:1]), "K15"), RuleViolation, "holds units of carol and bob", "alice")
    table.refuse(AnnounceAttack(units(sqd), "Sol 1"), RuleViolation, "B.2.3", "alice")
    table.game_set(wars=[])
    table.refuse(AnnounceAttack(units(split[:1]), "K14"), RuleViolation, "C: alice is not at war with bob", "alice")
    table.game_set(wars=[["alice", "bob"]])
    table.do(AnnounceAttack(units(split[:1]), "K14"), "alice")
    table.refuse(AnnounceAttack(units(split[:1]), "K17"), RuleViolation, "each unit attacks once a phase", "alice")
    table.refuse(CancelAttack(1), NotYourNation, "only they or the GM", "bob")
    table.do(CancelAttack(1), "alice")
    assert table.state.attacks == []
    table.next_phase()
    table.refuse(AnnounceAttack(units(split[:1]), "K14"), RuleViolation, "done in the Combat Phase", "alice")
    table.assert_replays()


def test_ags_on_the_ground_join_an_attack_on_their_system_cell():
    table = game()
    space = put(table, "AG", "K12", "alice")
    below = put(table, "AG", "Sol 1", "alice")
    pdf = put(table, "PDF", "Sol 1", "alice")
    put(table, "SQD", "Sol", "bob")
    put(table, "PDF", "Sol", "bob", 2)
    table.refuse(AnnounceAttack(units(space + pdf), "Sol"), RuleViolation, "B.2.2: AGs on the ground attack", "alice")
    table.refuse(AnnounceAttack(units(below), "K12"), RuleViolation, "B.2.2", "alice")
    table.do(AnnounceAttack(units(space + below), "Sol"), "alice")
    table.do(ResolveAttacks(), dice=[5])
    # the AG in K12 against a system cell, large, 4 + the AG on Sol 1, large, 4 = 8 against bob's SQD 2 and 2 PDFs 6
    # in the cell: 8. 1-1; die 5: Ar — the AG from K12 retreats; the one on the ground stays on its planet
    attack = table.state.attacks[0]
    assert (attack.attack, attack.defence, attack.column, attack.result) == (8, 8, "1-1", "Ar")
    assert table.state.choices[0].counters == space
    table.refuse(Retreat("Sol 2"), RuleViolation, "B.2.1: units land from the system cell", "alice")
    table.do(Retreat("K11"), "alice")
    assert numbers_at(table, "K11") == space and numbers_at(table, "Sol 1", "alice") == below + pdf
    table.assert_replays()


# --- SQDs against a planet, the ground in a system cell's defence -----------------------------------------------


def test_a_sqd_counts_nothing_against_a_planet():
    table = game()
    sqd = put(table, "SQD", "Sol", "alice")
    ag = put(table, "AG", "Sol", "alice")
    put(table, "AG", "Sol 1", "bob")
    table.refuse(AnnounceAttack(units(sqd), "Sol 1"), RuleViolation, "B.1.3: a SQD has no effect on a planet", "alice")
    table.do(AnnounceAttack(units(sqd + ag), "Sol 1"), "alice")  # AGs in space can attack units on the ground
    table.do(ResolveAttacks(), dice=[4])
    # the SQD 0 (B.1.3) + the AG over its system, large, 4 = 4 against bob's AG on the ground, large, 4: 1-1; die 4: ne
    attack = table.state.attacks[0]
    assert (attack.attack, attack.defence, attack.column, attack.result) == (4, 4, "1-1", "ne")
    assert table.state.choices == []
    table.assert_replays()


def test_units_on_the_ground_are_counted_in_a_system_cells_defence():
    table = game()
    ags = put(table, "AG", "K12", "alice", 3)
    put(table, "SQD", "Sol", "bob")
    put(table, "AG", "Sol 1", "bob")
    put(table, "PDF", "Sol 2", "bob", 2)
    table.do(AnnounceAttack(units(ags), "Sol"), "alice")
    table.do(ResolveAttacks(), dice=[1])
    # 3 AGs against a system cell, large: 12. Defence: the SQD 2 in the cell, the AG on Sol 1, large, 4, and the
    # 2 PDFs on Sol 2, 3 + 3 (B.1.5): 2 + 4 + 6 = 12. 12:12 reads 1-1; die 1: D1 — alice chooses among bob's SQD
    # and AG (the PDFs take no losses: no attacker is on the ground, B.2.4).
    attack = table.state.attacks[0]
    assert (attack.attack, attack.defence, attack.column, attack.result) == (12, 12, "1-1", "D1")
    [choice] = table.state.choices
    assert [table.state.counter(n).kind for n in choice.counters] == ["SQD", "AG"]
    table.assert_replays()


# --- PDFs and the ground (B.2.4) ------------------------------------------------------------------------------


def test_pdfs_take_no_losses_unless_half_the_enemy_is_on_the_ground():
    table = game()
    space = put(table, "AG", "K12", "alice", 2)
    pdfs = put(table, "PDF", "Sol", "bob", 2)
    table.do(AnnounceAttack(units(space), "Sol"), "alice")
    outcome = table.do(ResolveAttacks(), dice=[3])
    # 2 AGs against a system cell, large: 8 against 2 PDFs, 6: 8:6 reads 2-1; die 3: D1 — but bob has only PDFs and
    # none of alice's units is on the ground: the loss is void.
    attack = table.state.attacks[0]
    assert (attack.attack, attack.defence, attack.column, attack.result) == (8, 6, "2-1", "D1")
    assert table.state.choices == [] and numbers_at(table, "Sol", "bob") == pdfs
    assert any("the loss is void" in getattr(e, "reason", "") and "B.2.4" in e.reason for e in outcome.events)
    table.assert_replays()


def test_pdfs_survive_elimination_from_space_but_not_on_the_ground():
    table = game()
    space = put(table, "AG", "K12", "alice", 3)
    pdf = put(table, "PDF", "Sol", "bob")
    sqd = put(table, "SQD", "Sol", "bob")
    landed = put(table, "AG", "Sol 1", "alice", 2)
    ground = put(table, "PDF", "Sol 1", "bob") + put(table, "AG", "Sol 1", "bob")
    table.do(AnnounceAttack(units(space), "Sol"), "alice")
    table.do(AnnounceAttack(units(landed), "Sol 1"), "alice")  # AGs on the ground attack units in their region
    table.do(ResolveAttacks(), dice=[1, 3])
    # Attack 1: 3 AGs, large, 12 against the cell's PDF 3 and SQD 2, and the ground's PDF 3 and AG 4 (B.1.5): 12.
    # 12:12 reads 1-1; die 1: D1 — alice chooses 1 among bob's SQD and his AG (not the PDFs: her 3 are in space).
    # Attack 2: 2 AGs on the ground, large, 8 against the PDF 3 and AG 4 of Sol 1: 7. 8:7 reads 2-1; die 3: D1 —
    # every attacker is on the ground, so the PDF can be chosen.
    first, second = table.state.attacks
    assert (first.attack, first.defence, first.column, first.result) == (12, 12, "1-1", "D1")
    assert (second.attack, second.defence, second.column, second.result) == (8, 7, "2-1", "D1")
    one, two = table.state.choices
    assert one.counters == sqd + ground[1:] and two.counters == ground
    table.refuse(ChooseLosses(str(pdf[0]), 1), RuleViolation, "B.2.4", "alice")
    table.do(ChooseLosses(str(ground[0]), 2), "alice")
    table.do(ChooseLosses(str(sqd[0]), 1), "alice")
    assert numbers_at(table, "Sol 1", "bob") == ground[1:] and numbers_at(table, "Sol", "bob") == pdf
    table.assert_replays()


def test_de_from_space_leaves_the_pdfs():
    table = game()
    ags = put(table, "AG", "K12", "alice", 3)
    pdf = put(table, "PDF", "Sol", "bob")
    sqd = put(table, "SQD", "Sol", "bob")
    table.do(AnnounceAttack(units(ags), "Sol"), "alice")
    outcome = table.do(ResolveAttacks(), dice=[1])
    # 12 against PDF 3 + SQD 2 = 5: 12:5 reads 3-1; die 1: DE — the SQD is eliminated, the PDF stays (B.2.4)
    assert (table.state.attacks[0].column, table.state.attacks[0].result) == ("3-1", "DE")
    assert numbers_at(table, "Sol", "bob") == pdf
    assert sqd[0] not in {c.number for c in table.state.counters}
    assert any("stay: PDFs take no losses" in getattr(e, "reason", "") for e in outcome.events)
    table.assert_replays()


# --- neutrals --------------------------------------------------------------------------------------------------


def neutral_game() -> Table:
    table = game("carol")
    table.system("Rigel", None, ["R 2 S"], units={"SQD": 3, "AG": 3, "PDF": 3})
    table.do(SetNeutralControl("Rigel", "carol"))
    table.emit(reconcile)  # Rigel's boxes as counters on the table
    return table


def rigel(table: Table) -> dict[str, int]:
    found: dict[str, int] = {}
    for c in table.state.counters:
        if c.owner is None and c.at.startswith("Rigel"):
            found[c.kind] = found.get(c.kind, 0) + 1
    return found


def test_a_neutral_is_moved_in_combat_by_the_player_the_gm_named():
    table = neutral_game()
    ags = [c.number for c in table.state.counters if c.owner is None and c.kind == "AG"]
    sqd = put(table, "SQD", "K20", "alice")
    table.refuse(AnnounceAttack(units(ags), "K20"), NotYourNation, "controlled by carol", "bob")
    table.do(AnnounceAttack(units(ags), "K20"), "carol")  # a neutral's units need no war
    attack = table.state.attacks[0]
    assert (attack.attackers, attack.defender) == (["carol"], "alice")
    table.do(ResolveAttacks(), dice=[1])
    # 3 AGs in Rigel's cell, large: 12 against a SQD 2: 6:1 reads 4-1; die 1: DE
    assert (attack.number, table.state.attacks[0].attack, table.state.attacks[0].defence) == (1, 12, 2)
    assert table.state.attacks[0].result == "DE" and sqd[0] not in {c.number for c in table.state.counters}
    table.assert_replays()


def test_the_controller_decides_for_the_neutral_and_may_not_attack_it():
    table = neutral_game()
    mine = put(table, "AG", "K21", "carol")
    table.refuse(AnnounceAttack(units(mine), "Rigel"), RuleViolation, "controlled by carol", "carol")
    ags = put(table, "AG", "K21", "alice", 3)
    table.do(AnnounceAttack(units(ags), "Rigel"), "alice")
    table.do(ResolveAttacks(), dice=[1])
    # 3 AGs, large, 12 against Rigel's 3 SQD 6, 3 AG 12 and 3 PDF 9: 27. 12:27 reads 1-2; die 1: Dr — carol retreats
    attack = table.state.attacks[0]
    assert (attack.attack, attack.defence, attack.column, attack.result, attack.defender) == (12, 27, "1-2", "Dr", None)
    [choice] = table.state.choices
    assert choice.chooser == "carol" and len(choice.counters) == 9
    table.refuse(Retreat("K22"), NotYourNation, "carol's", "bob")
    table.do(Retreat("K22"), "carol")
    assert len(numbers_at(table, "K22")) == 9
    table.assert_replays()


def test_an_attack_on_a_neutral_broken_off_restores_its_starting_strength():
    table = neutral_game()
    lost = [c.number for c in table.state.counters if c.owner is None][:5]  # losses of an earlier turn
    table.do(RemoveCounters(units(lost), "lost last turn"))
    assert rigel(table) == {"PDF": 3, "AG": 1}
    ags = put(table, "AG", "K21", "alice", 3)
    table.do(AnnounceAttack(units(ags), "Rigel"), "alice")
    outcome = table.do(CancelAttack(1), "alice")
    assert rigel(table) == {"PDF": 3, "AG": 3, "SQD": 3}
    assert table.sys("Rigel").units == {"SQD": 3, "AG": 3, "PDF": 3}
    assert any("neutral Rigel goes back to its starting strength" in getattr(e, "reason", "") for e in outcome.events)
    table.assert_replays()


def test_attackers_retreating_from_a_neutral_restore_it():
    table = neutral_game()
    sqds = [c.number for c in table.state.counters if c.owner is None and c.kind == "SQD"]
    table.do(RemoveCounters(units(sqds)))
    ags = put(table, "AG", "K21", "alice", 3)
    table.do(AnnounceAttack(units(ags), "Rigel"), "alice")
    table.do(ResolveAttacks(), dice=[4])
    # 12 against 3 AG 12 + 3 PDF 9 = 21: 12:21 reads 1-1; die 4: ne. Another try, another table:
    assert table.state.attacks[0].result == "ne"
    table = neutral_game()
    table.do(RemoveCounters(units([c.number for c in table.state.counters if c.owner is None and c.kind == "SQD"])))
    ags = put(table, "AG", "K21", "alice", 2)
    table.do(AnnounceAttack(units(ags), "Rigel"), "alice")
    table.do(ResolveAttacks(), dice=[4])
    # 2 AGs, large, 8 against 21: 8:21 reads 1-2; die 4: Ar — alice retreats, and the attack is broken off
    attack = table.state.attacks[0]
    assert (attack.attack, attack.defence, attack.column, attack.result) == (8, 21, "1-2", "Ar")
    assert rigel(table) == {"AG": 3, "PDF": 3}
    table.do(Retreat("K22"), "alice")
    assert rigel(table) == {"AG": 3, "PDF": 3, "SQD": 3}
    table.assert_replays()


# --- counters leaving the table while a choice waits ---------------------------------------------------------


def reasons(outcome: object) -> str:
    return " ".join(getattr(e, "reason", "") for e in getattr(outcome, "events", []))


def test_the_gm_taking_off_the_only_unit_of_a_pending_retreat_makes_it_void():
    """Found by random play: the GM took off (/godsfire counter remove) the only unit of a pending retreat, and
    the choice stayed, among a counter no longer on the table (a state the invariants, and so the import, refuse).
    The GM may take units off at any time (RULINGS: GM powers): the choice is void, as when its units are
    destroyed in another attack, and the phase can end."""
    table = game()
    sqd = put(table, "SQD", "K12", "alice")
    put(table, "AG", "K13", None, 2)
    table.do(AnnounceAttack(units(sqd), "K13"), "alice")
    table.do(ResolveAttacks(), dice=[4])
    # a SQD 2 against 2 neutral AGs in plain space, small, 2 + 2 = 4: 1-2; die 4: Ar — alice names where
    assert table.state.attacks[0].result == "Ar"
    [choice] = table.state.choices
    assert (choice.kind, choice.chooser, choice.counters) == ("retreat", "alice", sqd)
    out = table.do(RemoveCounters(units(sqd), "disbanded"))
    assert sqd[0] not in {c.number for c in table.state.counters}
    assert table.state.choices == []
    assert "attack 1's retreat is void: its units are gone" in reasons(out)
    assert combat_left(table.state) == []
    table.refuse(Retreat("K11"), BadInput, "there is no retreat to make pending", "alice")
    table.assert_replays()
    table.next_phase()
    assert table.state.phase == "war"


def test_the_gm_taking_off_one_unit_of_a_pending_retreat_leaves_the_others_to_retreat():
    table = game()
    ags = put(table, "AG", "K12", "alice", 2)
    put(table, "SQD", "K14", "bob")
    table.do(AnnounceAttack(units(ags), "K14"), "alice")
    table.do(ResolveAttacks(), dice=[6])
    # 2 AGs in plain space, small: 4 against a SQD 2: 2-1; die 6: Ar
    assert table.state.choices[0].counters == ags
    table.do(RemoveCounters(str(ags[0])))
    [choice] = table.state.choices
    assert (choice.kind, choice.counters) == ("retreat", ags[1:])
    table.assert_replays()
    table.do(Retreat("K11"), "alice")
    assert numbers_at(table, "K11") == ags[1:] and table.state.choices == []
    table.assert_replays()


def test_the_gm_taking_off_units_of_pending_losses_leaves_the_rest_to_choose_then_takes_the_last_at_once():
    """Losses with no more units left than they take are taken at once (as when other attacks destroyed the
    rest): the key's "enemy's choice" has nothing left to choose."""
    table = game()
    ags = put(table, "AG", "K12", "alice", 2)
    sqds = put(table, "SQD", "K14", "bob", 3)
    table.do(AnnounceAttack(units(ags), "K14"), "alice")
    table.do(ResolveAttacks(), dice=[1])
    # 2 AGs in plain space, small: 4 against 3 SQDs, 6: 1-1; die 1: D1 — alice chooses 1 of bob's 3
    assert table.state.attacks[0].column == "1-1"
    [choice] = table.state.choices
    assert (choice.kind, choice.chooser, choice.counters, choice.count) == ("losses", "alice", sqds, 1)
    out = table.do(RemoveCounters(str(sqds[1])))
    [choice] = table.state.choices
    assert choice.counters == [sqds[0], sqds[2]] and "no longer among the choices" in reasons(out)
    table.refuse(ChooseLosses(str(sqds[1])), RuleViolation, "not among the units that can be lost", "alice")
    out = table.do(RemoveCounters(str(sqds[0])))
    assert table.state.choices == [] and numbers_at(table, "K14") == []
    assert f"attack 1: SQD #{sqds[2]} lost (all that is left to choose from)" in reasons(out)
    table.assert_replays()


@pytest.mark.parametrize("then", ["a GM edit", "the answer"])
def test_a_box_lowered_by_hand_gives_up_units_of_a_pending_retreat(then: str) -> None:
    """The other way a unit leaves the table: the GM lowers the box it stands in (/godsfire set units), and the
    next command that makes the counters match the boxes (a GM edit, or the retreat itself) gives it up."""
    table = game()
    ags = put(table, "AG", "K12", "alice", 2)
    pdfs = put(table, "PDF", "Sol", "bob", 2)
    table.do(AnnounceAttack(units(ags), "Sol"), "alice")
    table.do(ResolveAttacks(), dice=[4])
    # 2 AGs against a system cell, large: 8 against 2 PDFs, 6: 2-1; die 4: Dr — bob names where his PDFs go
    assert (table.state.attacks[0].column, table.state.attacks[0].result) == ("2-1", "Dr")
    [choice] = table.state.choices
    assert (choice.kind, choice.chooser, choice.counters) == ("retreat", "bob", pdfs)
    table.do(SetField("units", "PDF=1", "Sol"))  # the box only: the counters follow at the next command
    assert table.state.choices[0].counters == pdfs
    if then == "a GM edit":
        table.do(AddCounters("AG", "K40", "alice"))
        assert table.state.choices[0].counters == pdfs[:1]
        table.do(Retreat("Sol 2"), "bob")
    else:
        table.do(Retreat("Sol 2"), "bob")
    assert pdfs[1] not in {c.number for c in table.state.counters}
    assert numbers_at(table, "Sol 2") == pdfs[:1] and table.state.choices == []
    table.assert_replays()


@pytest.mark.parametrize("then", ["a GM edit", "the answer"])
def test_a_box_emptied_by_hand_makes_a_pending_retreat_void(then: str) -> None:
    table = game()
    ags = put(table, "AG", "K12", "alice", 2)
    pdfs = put(table, "PDF", "Sol", "bob", 2)
    table.do(AnnounceAttack(units(ags), "Sol"), "alice")
    table.do(ResolveAttacks(), dice=[4])  # 8 against 6: 2-1; die 4: Dr
    assert table.state.choices[0].counters == pdfs
    table.do(SetField("units", "PDF=0", "Sol"))
    if then == "a GM edit":
        out = table.do(AddCounters("AG", "K40", "alice"))
        table.refuse(Retreat("Sol 2"), BadInput, "there is no retreat to make pending", "bob")
    else:
        out = table.do(Retreat("Sol 2"), "bob")  # nothing left to move: the retreat is void, no refusal
    assert "attack 1's retreat is void: its units are gone" in reasons(out)
    assert not set(pdfs) & {c.number for c in table.state.counters}
    assert table.state.choices == [] and combat_left(table.state) == []
    table.assert_replays()


def test_a_conquest_by_the_gm_takes_the_neutral_units_out_of_a_pending_retreat():
    table = neutral_game()
    ags = put(table, "AG", "K21", "alice", 3)
    table.do(AnnounceAttack(units(ags), "Rigel"), "alice")
    table.do(ResolveAttacks(), dice=[1])  # 12 against 27: 1-2; die 1: Dr — carol names where Rigel's units go
    [choice] = table.state.choices
    assert choice.chooser == "carol" and len(choice.counters) == 9
    out = table.do(ConquerSystem("Rigel", "alice"), dice=[3, 3])  # the region's allegiance and economy rolled
    assert rigel(table) == {} and table.state.choices == []
    assert "attack 1's retreat is void: its units are gone" in reasons(out)
    table.assert_replays()


# --- losses from a built-up counter (A.2.5) --------------------------------------------------------------------


def built_up_game() -> tuple[Table, int]:
    """bob's 3 SQDs in Sol's cell built up into one counter (SQD ×3: 2 each, 6) in turn 1's Movement Phase, alice's
    3 AGs at K12; then the Combat Phase. The built-up counter's number."""
    table = Table()
    table.system("Vega", "alice")
    table.system("Sol", "bob", ["M 4 A-1", "R 3 I-1"])
    table.game_set(wars=[["alice", "bob"]])
    sqds = put(table, "SQD", "Sol", "bob", 3)
    table.do(StartInitiative(), dice=[1, 6])  # bob first
    table.do(BuildUp(units(sqds)), "bob")
    assert [(c.number, c.size) for c in table.state.counters if c.kind == "SQD"] == [(sqds[0], 3)]
    table.to_phase("combat")
    return table, sqds[0]


def d2_on_the_built_up_counter(table: Table, sqd: int) -> None:
    ags = put(table, "AG", "K12", "alice", 3)
    table.do(AnnounceAttack(units(ags), "Sol"), "alice")
    table.do(ResolveAttacks(), dice=[2])
    # 3 AGs against a system cell, large: 12 against SQD ×3, 6: 2-1; die 2: D2 — alice chooses 2 of its 3 units
    assert (table.state.attacks[0].column, table.state.attacks[0].result) == ("2-1", "D2")
    [choice] = table.state.choices
    assert (choice.kind, choice.chooser, choice.counters, choice.count) == ("losses", "alice", [sqd], 2)


def test_two_losses_from_one_counter_built_up_x3_are_chosen_once_a_unit():
    """Found while fixing d922176: a D2 against one SQD ×3 waits on 2 losses among 1 counter of 3 units, a state the
    invariants refused ("2 losses to choose among 1 units": they counted counters), so its export did not import
    back. The key's 1, 2 are units lost, and a loss takes one unit of a built-up counter (A.2.5): the enemy names
    the counter once for each unit it loses."""
    table, sqd = built_up_game()
    d2_on_the_built_up_counter(table, sqd)
    table.assert_replays()  # the invariants hold, and the export imports back
    assert combat_lines(table.state)[-1].endswith(f"— among SQD #{sqd} ×3")
    table.refuse(ChooseLosses(str(sqd)), BadInput, "choose exactly 2", "alice")
    table.refuse(ChooseLosses(f"{sqd} {sqd} {sqd}"), BadInput, f"choose exactly 2 of SQD #{sqd} ×3, not 3", "alice")
    table.refuse(ChooseLosses(f"{sqd} " * 4), BadInput, "holds 3 units: name it at most that many times", "alice")
    out = table.do(ChooseLosses(f"{sqd} {sqd}"), "alice")
    assert (f"alice chooses the losses (the key: 1, 2 = units lost (enemy's choice)): bob's 2 units of SQD #{sqd} ×3 "
            "eliminated") in reasons(out)
    assert table.state.choices == [] and table.state.counter(sqd).size == 1
    assert table.sys("Sol").units == {"SQD": 1}
    table.assert_replays()
    table.next_phase()
    assert table.state.phase == "war"


def test_two_losses_from_one_built_up_counter_left_to_the_deadline():
    table, sqd = built_up_game()
    d2_on_the_built_up_counter(table, sqd)
    out = table.emit(lambda tx: choice_defaults(tx, NOW + timedelta(days=2)))
    assert table.state.choices == [] and table.state.counter(sqd).size == 1  # the first listed: 2 of its units
    assert f"the first listed are lost (the key: 1, 2 = units lost (enemy's choice)): bob's 2 units of SQD #{sqd} ×3" \
        in " ".join(getattr(e, "reason", "") for e in out)
    table.assert_replays()


@pytest.mark.parametrize("left", [2, 1])
def test_a_box_lowered_by_hand_to_no_more_units_than_the_losses_takes_them_at_once(left: int) -> None:
    """The GM lowers the box of a built-up counter whose losses are pending: the counter stays, holding fewer
    units. With no more units left than the losses take, nothing is left to choose: they are lost at once (as when
    the GM takes counters off, d922176), and no choice waits on more units than there are."""
    table, sqd = built_up_game()
    d2_on_the_built_up_counter(table, sqd)
    table.do(SetField("units", f"SQD={left}", "Sol"))
    out = table.do(AddCounters("AG", "K40", "alice"))  # a GM edit: the counters match the boxes
    assert table.state.choices == [] and sqd not in {c.number for c in table.state.counters}
    assert f"attack 1: SQD #{sqd}{' ×2' if left == 2 else ''} lost (all that is left to choose from)" in reasons(out)
    assert table.sys("Sol").units == {}
    table.assert_replays()


def test_a_box_lowered_by_hand_keeps_the_losses_to_choose_while_more_units_are_left():
    table, sqd = built_up_game()
    ags = put(table, "AG", "K12", "alice", 3)
    table.do(AnnounceAttack(units(ags), "Sol"), "alice")
    table.do(ResolveAttacks(), dice=[3])  # 12 against 6: 2-1; die 3: D1 — alice chooses 1 of its 3 units
    assert table.state.choices[0].count == 1
    table.do(SetField("units", "SQD=2", "Sol"))
    table.do(ChooseLosses(str(sqd)), "alice")  # the answer makes the counters match the boxes first
    assert table.state.choices == [] and table.state.counter(sqd).size == 1
    table.assert_replays()


# --- the deadline ------------------------------------------------------------------------------------------------


def test_a_choice_past_its_deadline_takes_its_default():
    table = game()
    ags = put(table, "AG", "Sol", "alice", 2)
    ground = put(table, "AG", "Sol 1", "bob") + put(table, "PDF", "Sol 1", "bob")
    mixed = put(table, "SQD", "K13", "alice") + put(table, "AG", "K13", "alice")
    sqds = put(table, "SQD", "K14", "bob", 2)
    table.do(AnnounceAttack(units(ags), "Sol 1"), "alice")
    table.do(AnnounceAttack(units(mixed), "K14"), "alice")
    table.do(ResolveAttacks(), dice=[4, 1])
    # Attack 1: 2 AGs over their system, large, 8 against the AG 4 and PDF 3 of Sol 1: 7; 2-1, die 4: Dr.
    # Attack 2: SQD 2 + AG small 2 = 4 against 2 SQDs 4; 1-1, die 1: D1.
    assert [a.result for a in table.state.attacks] == ["Dr", "D1"]
    hours = table.state.house.response_hours
    due = [at for at, _ in choice_deadlines(table.state)]
    assert due == [NOW + timedelta(hours=hours)] * 2
    table.emit(lambda tx: choice_defaults(tx, NOW + timedelta(hours=hours - 1)))
    assert len(table.state.choices) == 2
    table.emit(lambda tx: choice_defaults(tx, NOW + timedelta(hours=hours)))
    assert table.state.choices == []
    # the retreat from the ground cannot go up to the system cell (alice's AGs are in it), so it goes to the first
    # region of Sol without enemy units, Sol 2; the losses are the first listed
    assert numbers_at(table, "Sol 2", "bob") == ground
    assert numbers_at(table, "K14") == sqds[1:]
    table.assert_replays()


def test_losses_with_nothing_to_choose_and_the_default_retreats():
    table = game()
    ags = put(table, "AG", "K12", "alice")
    sqd = put(table, "SQD", "K14", "bob")
    table.do(AnnounceAttack(units(ags), "K14"), "alice")
    table.do(ResolveAttacks(), dice=[1])
    # an AG in plain space, small: 2 against a SQD 2: 1-1; die 1: D1 — bob's only SQD goes (nothing to choose)
    assert table.state.attacks[0].result == "D1" and sqd[0] not in {c.number for c in table.state.counters}
    assert table.state.choices == []

    other = game()
    ags = put(other, "AG", "K12", "alice")
    put(other, "SQD", "K14", "bob", 2)
    ground = put(other, "AG", "Sol 1", "alice")
    put(other, "AG", "Sol 1", "bob")
    far = put(other, "AG", "K30", "alice")
    put(other, "SQD", "K31", "bob")
    other.do(AnnounceAttack(units(ags), "K14"), "alice")
    other.do(AnnounceAttack(units(ground), "Sol 1"), "alice")
    other.do(AnnounceAttack(units(far), "K31"), "alice")
    other.do(ResolveAttacks(), dice=[1, 5, 5])
    # Attack 1: an AG in plain space, small, 2 against 2 SQDs, 4: 1-2; die 1: Dr — bob must retreat from K14.
    # Attack 2: an AG on the ground, large, 4 against an AG, 4: 1-1; die 5: Ar — alice must retreat from Sol 1.
    # Attack 3: an AG in plain space, 2 against a SQD, 2: 1-1; die 5: Ar — alice must retreat from K30.
    assert [(a.attack, a.defence, a.column, a.result) for a in other.state.attacks] == [
        (2, 4, "1-2", "Dr"), (4, 4, "1-1", "Ar"), (2, 2, "1-1", "Ar")]
    assert [c.chooser for c in other.state.choices] == ["bob", "alice", "alice"]
    outcome = other.emit(lambda tx: choice_defaults(tx, NOW + timedelta(days=2)))
    assert other.state.choices == []
    assert numbers_at(other, "K14") == []  # in plain space the bot knows no cell: they cannot retreat
    moved = other.state.counter(ground[0])
    assert (moved.at, moved.ground) == ("Sol", False)  # from the ground to the system cell, free of enemy units
    assert other.state.counter(far[0]).at == "K30"  # an attacker is already a cell away: it stays
    reasons = " ".join(getattr(e, "reason", "") for e in outcome)
    assert "bob did not choose within 12 hours" in reasons and "cannot retreat without a cell named" in reasons
    other.assert_replays()


# --- landing ------------------------------------------------------------------------------------------------


def test_landing_needs_the_system_cell_held_and_only_ags_land_on_hostile_planets():
    table = game()
    numbers = [put(table, kind, "Sol", owner)[0] for kind, owner in
               (("SQD", "alice"), ("AG", "alice"), ("PDF", "alice"), ("PDF", "bob"))]
    sqd, ag, pdf, own = (table.state.counter(n) for n in numbers)
    sol1 = place_of(table.state, "Sol 1")
    assert landing_allowed(table.state, sqd, sol1).startswith("A.2.4")
    assert landing_allowed(table.state, ag, sol1).startswith("B.2.1")  # bob's PDF holds the cell
    assert landing_allowed(table.state, own, sol1).startswith("B.2.1")  # alice's units are in it too
    table.do(RemoveCounters(str(own.number)))
    ng = next(c for c in table.state.counters if c.kind == "NG" and c.owner == "bob")
    assert landing_allowed(table.state, ag, sol1).startswith("B.2.1")  # bob's National Government holds it too
    assert f"NG #{ng.number} (bob)" in landing_allowed(table.state, ag, sol1)
    table.do(SetField("government", "none", player="bob"))
    table.do(RemoveCounters(str(ng.number)))
    assert landing_allowed(table.state, ag, sol1) is None
    assert landing_allowed(table.state, pdf, sol1) == ("B.2.2: only AGs can land on hostile planets; Sol is bob's "
                                                        f"and PDF #{pdf.number} is not an AG")
    assert landing_allowed(table.state, pdf, place_of(table.state, "K12")) is None


# --- the commands -----------------------------------------------------------------------------------------------


def test_the_commands_build_the_actions():
    found = {c.path: c for c in COMMANDS}
    assert set(found) == {"godsfire combat announce", "godsfire combat cancel", "godsfire combat resolve",
                          "godsfire combat losses", "godsfire combat retreat"}
    announce = found["godsfire combat announce"]
    options = coerce_options(announce, {"units": "3 4", "target": "Sol", "with": "carol", "nebula": "true"})
    assert build_action(announce, options) == AnnounceAttack("3 4", "Sol", "carol", True, None)
    assert build_action(found["godsfire combat cancel"], coerce_options(found["godsfire combat cancel"],
                                                                         {"number": "2"})) == CancelAttack(2)
    assert found["godsfire combat resolve"].gm_only
    assert build_action(found["godsfire combat retreat"], {"to": "K11"}) == Retreat("K11", None)


def test_a_nebula_attack_halves_both_sides_without_rounding():
    table = game()
    ags = put(table, "AG", "K12", "alice")
    sqd = put(table, "SQD", "K12", "alice")
    put(table, "AG", "K14", "bob")
    put(table, "SQD", "K14", "bob")
    table.do(AnnounceAttack(units(ags + sqd), "K14", nebula=True), "alice")
    assert "in a nebula" in combat_lines(table.state)[0]
    outcome = table.do(ResolveAttacks(), dice=[5])
    # AG small 2 + SQD 2 = 4 against AG small 2 + SQD 2 = 4, halved: 2 against 2: 1-1; die 5: Ar
    [read] = table.of(outcome, ChartRead)
    assert read.detail == ("attack 1 (alice against bob at K14): 4 against 4, halved in the nebula to 2 against 2: "
                           "odds 1-1")
    assert table.state.attacks[0].result == "Ar"
    table.assert_replays()
