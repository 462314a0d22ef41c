"""Issue 32: a full game on each shipped map — three players, to a victory ("the last National Government
standing"), every die entered. The turn's order is rolled and initiative played; alice declares war in the Movement
Phase, moves on the map next to both rivals' home systems (cells found from the map itself), attacks them from
touching cells; bob's guard is eliminated and both National Governments destroyed; the picture shows the moves
and attacks; the game ends at the end of the turn with alice the winner."""

from __future__ import annotations

import pytest
from godsfirehelpers import Table

from engine.godsfire import combat, maps, movement, war
from engine.godsfire.board import Board, Cell
from engine.godsfire.table import AddCounters

HOMES = {"twin-reaches": ("Aster", "Brand", "Cinder"), "four-winds": ("Zephyr", "Euros", "Boreas")}


def approach(board: Board, target: str, taken: set[str]) -> tuple[Cell, Cell]:
    """A plain cell touching `target` (where the attack comes from), and a plain cell touching that one but not
    `target` (where the attackers wait): neither a system nor a nebula."""
    def plain(cell: Cell) -> bool:
        return not cell.system and not cell.nebula and cell.name not in taken

    for near in (board.cell(n) for n in board.cell(target).touches):
        if not plain(near):
            continue
        for far in (board.cell(n) for n in near.touches):
            if plain(far) and not board.touching(far.name, target):
                return near, far
    raise AssertionError(f"no approach to {target}")


@pytest.mark.parametrize("map_name", sorted(HOMES))
def test_a_three_player_game_on_the_map_to_a_victory(map_name: str) -> None:
    assert sorted(HOMES) == maps.shipped_names()
    mine, first, second = HOMES[map_name]
    t = Table()
    t.do(maps.LoadMap(map_name))
    board = t.state.board
    assert board is not None
    t.system(mine, "alice", ["M 4 I-1", "M 4 A-2"], planets=board.cell(mine).planets)
    t.system(first, "bob", ["E 4 A-2"], planets=board.cell(first).planets)
    t.system(second, "carol", ["R 4 A-1"], planets=board.cell(second).planets)
    t.do(war.SetVictory("last-ng"))
    t.system_set(first, units={"AG": 1})  # bob's one AG guards Brand's cell; carol's NG stands alone
    near1, far1 = approach(board, first, set())
    near2, far2 = approach(board, second, {near1.name, far1.name})
    t.do(AddCounters("AG", far1.name, "alice", count=3))
    t.do(AddCounters("AG", far2.name, "alice", count=2))
    ags = {c.number for c in t.state.counters if c.owner == "alice" and c.kind == "AG"}
    group1 = sorted(c.number for c in t.state.counters if c.number in ags and c.at == far1.name)
    group2 = sorted(c.number for c in t.state.counters if c.number in ags and c.at == far2.name)

    # --- turn 1, A. Movement: alice 6, bob 5, carol 4 -----------------------------------------------------
    t.next_phase(dice=[6, 5, 4])
    assert t.state.initiative is not None and t.state.initiative.holder == "alice"
    t.do(war.DeclareWar("bob"), "alice")  # the rulings: war may be declared in the Movement Phase
    t.do(war.DeclareWar("carol"), "alice")
    t.do(movement.Move(" ".join(map(str, group1)), near1.name), "alice")
    t.do(movement.Move(" ".join(map(str, group2)), near2.name), "alice")
    assert {t.state.counter(n).at for n in group1} == {near1.name}
    assert {t.state.counter(n).came_from for n in group2} == {far2.name}
    t.do(movement.EndGo(), "alice")
    t.pass_movement()
    assert movement.movement_left(t.state, t.rules) == []
    picture = maps.picture(t.state)
    assert {(a.start, a.end) for a in picture.arrows} == {(far1.name, near1.name), (far2.name, near2.name)}

    # --- B. Combat: two attacks, announced first, resolved together -------------------------------------------
    t.next_phase()
    t.do(combat.AnnounceAttack(" ".join(map(str, group1)), first), "alice")
    t.do(combat.AnnounceAttack(" ".join(map(str, group2)), second), "alice")
    assert {(a.start, a.end, a.kind) for a in maps.picture(t.state).arrows if a.kind == "attack"} == {
        (near1.name, first, "attack"), (near2.name, second, "attack")}
    # attack 1: 3 AGs at 4 (a system cell) = 12 against bob's AG 4: 3-1, die 1: DE — bob's AG is eliminated and
    # his NG, left without a defender, destroyed; attack 2: carol's NG alone, nothing to roll
    out = t.do(combat.ResolveAttacks(), dice=[1])
    assert [r.die for r in out.rolls] == [1]
    assert t.state.player("bob").out and t.state.player("carol").out
    assert not t.state.player("alice").out and not t.state.ended

    # --- C., D. and the turn's end: the last National Government standing -----------------------------------
    t.next_phase()
    t.next_phase()
    assert t.state.phase == "interphase"
    t.next_phase(dice=[])
    assert t.state.ended and t.state.winner == "alice"
    t.assert_replays()
