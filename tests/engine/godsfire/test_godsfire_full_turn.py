"""Two whole Godsfire turns played in the console (forum play), from the Movement Phase to the end of the Social
Interphase, every die entered by the GM (`/gm dice`) and every figure worked out by hand below from the chart
sheet (seed 000), the rulings (RULINGS.md, docs/godsfire.md) and `data/godsfire.toml`:

- the player order (A.1.1): a d6 each, highest first, tied players roll again;
- initiative (A.1): the holder moves at least one counter (then done) or passes; each other player in the order
  responds (moves, or passes); 4 rounds with two players, 3 with three; a holder's pass, or the last round, hands
  initiative to the next player in the order, until every player has held it;
- moves (A.2): allowances SQD 4, AG 4, PDF 3; ground movement 1 area; transit attacks (A.2.3) in the house column
  0 (die 1 ME, 2 M1, 3 Ms, 4-5 ne, 6 S1), one die a moving counter, M1 removing that counter;
- combat (B): strengths (house) SQD 2, AG 4 on a system cell or region and 2 elsewhere, PDF 3; the odds rounded in
  the attacker's favour (at or above even: the ratio rounded up; below: 1 to the ratio rounded down; worse than
  1-3 reads 1-3); the Combat Results Table:

      die  1-3  1-2  1-1  2-1  3-1  4-1
       1   Ar   Dr   D1   DE   DE   DE
       3   A2   ne   Dr   D1   D2   DE
       6   AE   AE   A1   Ar   Dr   D2

  losses chosen by the enemy (PDFs take none unless half the enemy is on the ground, B.2.4), retreats by the loser;
- war only in phase C;
- the Social Interphase, each player's steps D.1 to D.14 in order: tax +1 a planet, A-2 and I-1 +1, I-2 +2, none
  from a region in revolt, extortion +1 and allegiance -1; a loan box ceil(N x 1.25 / 4); a unit 1 GB (I-1 up to
  4; R wants PDF, M AG, E SQD); loyalty 1 GB, +1 once a turn, up to 5; economy A-1 -> A-2 3 GB (Moderates); a
  party change at allegiance 2 (M: 1-3 E, 4-6 R; R or E: 1-3 revolt, 4-6 M); revolts: negotiate 1-2 -> 3, police
  die <= PDFs -> 2; D.8 undefended subversion -1, counter-subversion removed, money one circle down (off after
  the third); D.9 -1 next to a revolt, -1 a GB shorted against the system's best-served region; D.10 I-2
  without an A-2 -1 level; subversion from the NG 2 a GB in A-2/I-2, else 1; de-subversion from the bank 3 a GB
  in S, else 2; counter-subversion 2 a GB in S, else 1; new units at D.14 (SQD to the system cell);
- money sent between systems at speed 3: 3 cells take 1 turn, landing at the next turn's transfer step (D.3).
"""

from __future__ import annotations

from typing import Any

from godsfireforum import Forum, opened
from storehelpers import assert_snapshot_is_replay

from console.app import CHANNEL


def rows(state: Any, system: str) -> list[str]:
    """A system's regions as "party allegiance economy" (+ " revolt")."""
    return [f"{r.party} {r.allegiance} {r.economy}" + (" revolt" if r.revolt else "")
            for r in state.system(system).regions]


def table(state: Any) -> dict[int, tuple[str, str | None, str]]:
    """The counters on the table: number -> (kind, owner, position)."""
    return {c.number: (c.kind, c.owner, c.at) for c in state.counters}


def going(state: Any) -> tuple[str, int, str | None, list[str]] | None:
    """Initiative as (holder, round, whose go, who has held it), None once movement is over."""
    ini = state.initiative
    return None if ini is None else (ini.holder, ini.round, ini.awaiting, list(ini.held))


async def roll_systems(forum: Forum, systems: dict[str, tuple[list[int], list[str]]]) -> None:
    """Add each system, its regions rolled from the starting tables with entered dice: per region the party
    (2d6), the allegiance (1d6), the economy (1d6)."""
    for spec, (values, expected) in systems.items():
        name = spec.split()[0]
        count = len(expected)
        purposes = [f"{name} region {n} {what}" for n in range(1, count + 1)
                    for what in ("party", "party", "allegiance", "economy")]
        await forum.rolled(f"gm /godsfire system add name:{spec} regions:{count}",
                           list(zip(purposes, values, strict=True)))
        assert rows(await forum.state(), name) == expected, name


async def edit(forum: Forum, edits: list[tuple[str, str]]) -> None:
    """The GM's hand edits (`/godsfire set`): (where, "field value")."""
    for where, change in edits:
        field, value = change.split(" ", 1)
        await forum.say(f"gm /godsfire set {where} field:{field} value:{value}")


# --- two players ----------------------------------------------------------------------------------------------


async def test_a_two_player_turn_from_movement_to_the_end_of_the_interphase(tmp_path):
    """alice (Sol, Altair) and bob (Vega), with neutral Rigel: four rounds of alice's initiative with a transit
    attack, bob's initiative passed; two attacks on Rigel announced then resolved together, a loss chosen and a
    retreat; every interphase step D.1 to D.14, the regional jealousy of a purchase warned then confirmed, money
    sent from Sol to Altair landing in turn 2's interphase."""
    forum = await opened(tmp_path, "two")
    try:
        await forum.say("gm /game start ruleset:godsfire")
        await roll_systems(forum, {
            # 3+4=7 M, 4 -> 4, 5 -> A-2 | 3+3=6 M, 2 -> 3, 3 -> A-1 | 1+2=3 R, 4 -> 4, 6 -> A-2
            "Sol owner:alice planets:2": ([3, 4, 4, 5, 3, 3, 2, 3, 1, 2, 4, 6], ["M 4 A-2", "M 3 A-1", "R 4 A-2"]),
            # 2+4=6 M, 1 -> 2, 1 -> S
            "Altair owner:alice": ([2, 4, 1, 1], ["M 2 S"]),
            # 6+5=11 E, 4 -> 4, 5 -> A-2 | 2+2=4 R, 1 -> 2, 2 -> S
            "Vega owner:bob": ([6, 5, 4, 5, 2, 2, 1, 2], ["E 4 A-2", "R 2 S"]),
            # 1+1=2 R, 4 -> 4, 4 -> A-1; a neutral starts with 3 SQD, 3 AG, 3 PDF in its cell
            "Rigel neutral:true": ([1, 1, 4, 4], ["R 4 A-1"]),
        })
        await edit(forum, [
            ("system:Sol region:1", "economy I-1"), ("system:Sol", 'units "SQD=2 AG=1"'),
            ("system:Sol region:1", 'units "PDF=1"'), ("system:Sol", "bank 3"),
            ("system:Sol region:2", 'subversion "bob=1"'), ("system:Sol region:2", 'subversion_step "bob=2"'),
            ("system:Altair", 'units "AG=2"'),
            ("system:Vega", 'units "SQD=2"'), ("system:Vega", "bank 6"), ("system:Vega", 'loans "8=0"'),
            ("system:Vega region:2", "allegiance 0"), ("system:Vega region:2", "revolt true"),
            ("system:Vega region:1", 'subversion "alice=2"'), ("system:Vega region:1", 'subversion_step "alice=1"'),
            ("system:Rigel", 'units "SQD=1 AG=1 PDF=1"'),  # Rigel lost the rest in an earlier turn
            ("player:alice", "ng_money 5"), ("player:bob", "ng_money 3"),
        ])
        s = await forum.state()
        assert (s.turn, s.phase, [p.name for p in s.players]) == (1, "movement", ["alice", "bob"])
        assert (s.player("alice").government, s.player("bob").government) == ("Sol", "Vega")

        # === A. Movement ===========================================================================================
        # The order (A.1.1): alice 4, bob 4 tie and roll again: alice 6, bob 1 -> alice, bob. The boxes become
        # counters, numbered box by box (systems in order, the cell then its regions; SQD, AG, PDF), then the NGs.
        await forum.rolled("gm /godsfire movement initiative",
                           [("alice, turn 1 player order", 4), ("bob, turn 1 player order", 4),
                            ("alice, turn 1 player order", 6), ("bob, turn 1 player order", 1)],
                           "Turn 1's player order (A.1.1): alice, bob.")
        s = await forum.state()
        assert s.order == ["alice", "bob"] and going(s) == ("alice", 1, "alice", [])
        assert table(s) == {
            1: ("SQD", "alice", "Sol"), 2: ("SQD", "alice", "Sol"), 3: ("AG", "alice", "Sol"),
            4: ("PDF", "alice", "Sol 1"), 5: ("AG", "alice", "Altair"), 6: ("AG", "alice", "Altair"),
            7: ("SQD", "bob", "Vega"), 8: ("SQD", "bob", "Vega"),
            9: ("SQD", None, "Rigel"), 10: ("AG", None, "Rigel"), 11: ("PDF", None, "Rigel"),
            12: ("NG", "alice", "Sol"), 13: ("NG", "bob", "Vega")}
        await forum.refused("bob /godsfire movement move counters:7 to:K5", "A.1: it is alice's go")
        # the holder moves at least one counter, or passes
        await forum.refused("alice /godsfire movement done", "A.1.2")

        # Round 1: alice's AGs #5 #6 Altair -> K7 -> K8 (2 cells of an AG's 4); bob responds: SQD #7 Vega -> K5.
        await forum.say('alice /godsfire movement move counters:"5 6" to:K8 through:K7')
        await forum.say("alice /godsfire movement done", "bob may respond (A.1.3)")
        await forum.say("bob /godsfire movement move counters:7 to:K5")
        await forum.say("bob /godsfire movement done", "round 2: alice holds initiative")
        assert going(await forum.state()) == ("alice", 2, "alice", [])

        # Round 2: alice's SQDs #1 #2 Sol -> K5 -> K6 pass bob's SQD #7 in K5: bob may attack them (A.2.3). Column 0
        # (the house's), one die a mover: #1 die 2 -> M1, SQD #1 lost; #2 die 4 -> ne, it goes on to K6.
        await forum.say('alice /godsfire movement move counters:"1 2" to:K6 through:K5',
                        "Bob's units at K5 may make a transit attack on them or block them (A.2.3)")
        await forum.refused("alice /godsfire movement done", "A.2.3")
        said = await forum.rolled("bob /godsfire movement transit answer:attack",
                                  [("transit attack on alice's SQD #1 at K5", 2),
                                   ("transit attack on alice's SQD #2 at K5", 4)], "Alice moves SQD #2 to K6.")
        assert [line for line in said if line.startswith("☄")] == [
            ("☄ Transit attack, bob attacks SQD #1 in transit; die 2: M1: the movers lose 1 unit, the stationary "
             "units choose."),
            "☄ Transit attack, bob attacks SQD #2 in transit; die 4: ne: no effect."]
        s = await forum.state()
        assert 1 not in table(s) and table(s)[2] == ("SQD", "alice", "K6") and s.transit is None
        await forum.say("alice /godsfire movement done", "bob may respond (A.1.3)")
        await forum.say("bob /godsfire movement pass", "round 3: alice holds initiative")

        # Round 3: AG #3 Sol -> K7 -> K8, joining #5 #6 (3 units: the space limit). bob passes.
        await forum.say("alice /godsfire movement move counters:3 to:K8 through:K7")
        await forum.say("alice /godsfire movement done")
        await forum.say("bob /godsfire movement pass", "round 4: alice holds initiative")
        # Round 4: PDF #4 Sol 1 -> Sol 2 (ground movement, 1 area). bob passes: 4 rounds in a two-player game are
        # over, and initiative goes to bob (A.1.4), who passes at once: both have held it, movement is over.
        await forum.refused("alice /godsfire movement move counters:2 to:K7", "A.2.1")  # each counter moves once a turn
        await forum.say('alice /godsfire movement move counters:4 to:"Sol 2"')
        await forum.say("alice /godsfire movement done")
        await forum.say("bob /godsfire movement pass", "4 rounds are over (A.1.4); initiative passes to bob (A.1.4)")
        assert going(await forum.state()) == ("bob", 1, "bob", ["alice"])
        await forum.say("bob /godsfire movement pass", "every player has held initiative (A.1.5): movement is over")
        s = await forum.state()
        assert s.initiative is None
        assert table(s) == {
            2: ("SQD", "alice", "K6"), 3: ("AG", "alice", "K8"), 4: ("PDF", "alice", "Sol 2"),
            5: ("AG", "alice", "K8"), 6: ("AG", "alice", "K8"), 7: ("SQD", "bob", "K5"), 8: ("SQD", "bob", "Vega"),
            9: ("SQD", None, "Rigel"), 10: ("AG", None, "Rigel"), 11: ("PDF", None, "Rigel"),
            12: ("NG", "alice", "Sol"), 13: ("NG", "bob", "Vega")}
        # the boxes follow the counters: Sol's cell is empty, its PDF on Sol 2's ground
        assert (s.system("Sol").units, s.system("Sol").region(2).units, s.system("Vega").units) == (
            {}, {"PDF": 1}, {"SQD": 1})

        # === B. Combat =============================================================================================
        await forum.say("gm /godsfire phase next", "the Combat Phase begins")
        # Both attacks are announced first (B), then resolved together on the table as it stands (simultaneous).
        # Attack 1: AGs #3 #5 #6 from K8 on Rigel's cell, large against a system: 4 + 4 + 4 = 12. Rigel's SQD 2 +
        #   AG 4 + PDF 3 = 9. 12:9 is above even: 1.33 rounded up, 2-1; die 3 on 2-1: D1 — alice chooses the loss,
        #   between the SQD and the AG (the PDF takes none: no attacker is on the ground, B.2.4).
        # Attack 2: SQD #2 from K6, 2 against the same 9 (counted before attack 1's loss): 9 / 2 = 4.5, 1 to 4,
        #   worse than 1-3: 1-3; die 1 on 1-3: Ar — alice retreats SQD #2.
        await forum.say('alice /godsfire combat announce units:"3 5 6" target:Rigel', "announces attack 1")
        await forum.say("alice /godsfire combat announce units:2 target:Rigel", "announces attack 2")
        await forum.refused("gm /godsfire phase next", "attack 1", "announced but not resolved")
        said = await forum.rolled("gm /godsfire combat resolve",
                                  [("attack 1: alice against neutral Rigel at Rigel", 3),
                                   ("attack 2: alice against neutral Rigel at Rigel", 1)])
        assert [line for line in said if line.startswith("⚔")] == [
            ("⚔ Combat, attack 1 (alice against neutral Rigel at Rigel): 12 against 9: odds 2-1; die 3: D1: the "
             "defender loses 1 unit, the attacker chooses."),
            ("⚔ Combat, attack 2 (alice against neutral Rigel at Rigel): 2 against 9: odds 1-3; die 1: Ar: the "
             "attacker retreats.")]
        s = await forum.state()
        assert [(a.attack, a.defence, a.column, a.die, a.result) for a in s.attacks] == [
            (12, 9, "2-1", 3, "D1"), (2, 9, "1-3", 1, "Ar")]
        assert [(c.kind, c.chooser, c.counters, c.count) for c in s.choices] == [
            ("losses", "alice", [9, 10], 1), ("retreat", "alice", [2], 0)]
        await forum.refused("alice /godsfire combat losses units:11", "not among the units")  # the PDF: B.2.4
        await forum.say("alice /godsfire combat losses units:10", "neutral Rigel's AG #10 eliminated")
        await forum.refused("alice /godsfire combat retreat to:Rigel", "the position attacked")
        await forum.say("alice /godsfire combat retreat to:K7", "alice retreats alice's SQD #2 to K7")
        s = await forum.state()
        assert s.choices == [] and s.system("Rigel").units == {"SQD": 1, "PDF": 1}
        assert table(s)[2] == ("SQD", "alice", "K7") and 10 not in table(s)

        # === C. Last chance to declare war: nobody does; D. the Social Interphase ==================================
        await forum.say("gm /godsfire phase next", "Combat Phase is over: its attacks are cleared",
                        "Last Chance to Declare War")
        await forum.say("gm /godsfire phase next", "the Social Interphase begins")
        s = await forum.state()
        assert (s.phase, s.wars) == ("interphase", [])

        # --- D.1 tax --------------------------------------------------------------------------------------------
        # Sol: 2 planets +2, region 1 I-1 +1, region 2 A-1 +0, region 3 A-2 +1, extortion of region 3 +1 = 5:
        #   bank 3 -> 8; region 3's allegiance 4 -> 3.
        # Altair: 1 planet +1, region 1 S +0 = 1: bank 0 -> 1.
        # Vega: 1 planet +1, region 1 A-2 +1, region 2 in revolt +0 = 2: bank 6 -> 8.
        await forum.say("alice /godsfire money tax system:Sol extort:3", "= 5 GB")
        await forum.say("alice /godsfire money tax system:Altair", "= 1 GB")
        await forum.say("bob /godsfire money tax system:Vega", "= 2 GB")
        # --- D.1 loan repayment: Vega's 8 GB loan, a box of ceil(8 x 1.25 / 4) = ceil(2.5) = 3: bank 8 -> 5, the
        # marker up from the bottom box (0) to box 1.
        await forum.say("bob /godsfire money repay system:Vega", "3 GB due, 3 GB paid")
        s = await forum.state()
        assert {n: s.system(n).bank for n in ("Sol", "Altair", "Vega")} == {"Sol": 8, "Altair": 1, "Vega": 5}
        assert rows(s, "Sol")[2] == "R 3 A-2"
        assert [(loan.amount, loan.box) for loan in s.system("Vega").loans] == [(8, 1)]

        # --- D.2 borrowing: alice borrows 4 on Sol: bank 8 -> 12, a loan of 4 boxes of ceil(4 x 1.25 / 4) = 2 GB,
        # its marker on the bottom box, the first due next turn. bob skips the step.
        await forum.say("alice /godsfire money borrow system:Sol amount:4", "4 boxes of 2 GB, the first due next turn")
        await forum.say("bob /godsfire interphase done step:borrow")
        # --- D.3 transfers: 2 from Sol's bank to alice's NG (the NG is on Sol): bank 12 -> 10, NG 5 -> 7. Money for
        # Altair is not transferred straight across: it is sent through space, 3 cells at speed 3 by itself, one
        # turn: bank 10 -> 7, 3 GB in the Money in Transit box, landing in turn 2.
        await forum.refused("alice /godsfire money transfer from:Sol to:Altair amount:3", "must move through space")
        await forum.say("alice /godsfire money transfer from:Sol to:ng amount:2")
        await forum.refused("alice /godsfire money send amount:3 from:Sol to:Altair cells:4 turns:1",
                            "4 cells take 2 turns")  # 4 cells at speed 3: ceil(4 / 3) = 2 turns
        await forum.say("alice /godsfire money send amount:3 from:Sol to:Altair cells:3",
                        "lands in turn 2's transfer step")
        s = await forum.state()
        assert (s.system("Sol").bank, s.player("alice").ng_money, s.player("alice").in_transit) == (7, 7, 3)
        assert [(m.amount, m.source, m.to, m.arrives) for m in s.shipments] == [(3, "Sol", "Altair", 2)]

        # --- D.4 purchases: Sol 1 is M (wants AG) and I-1 (up to 4 units): 2 AG for 2 GB. Nothing spent yet in Sol:
        # the most spent on one region becomes 2, so regional jealousy (D.9) would lower Sol 2 by 2 (3 -> 1) and
        # Sol 3 by 2 (3 -> 1): refused with the cost named, then confirmed: bank 7 -> 5.
        await forum.refused("alice /godsfire region buy system:Sol region:1 type:PDF count:2", "M wants AG")
        await forum.refused("alice /godsfire region buy system:Sol region:1 type:AG count:2",
                            "regional jealousy (D.9): spending 2 in Sol 1 will lower Sol 2 by 2: allegiance 3 → 1; "
                            "Sol 3 by 2: allegiance 3 → 1 — add confirm:true to spend")
        await forum.say("alice /godsfire region buy system:Sol region:1 type:AG count:2 confirm:true")

        # --- D.5 loyalty: Sol 2 with amount 2 (the most spent stays 2: no warning): +1, 3 -> 4, bank 5 -> 3; Sol 3
        # 1 GB: 3 -> 4, bank 3 -> 2 (Sol spent 2/2/1). Vega 1 1 GB: 4 -> 5, bank 5 -> 4 (Vega 2 is in revolt: it
        # cannot fall, so nothing is warned).
        await forum.say("alice /godsfire region loyalty system:Sol region:2 amount:2")
        await forum.say("alice /godsfire region loyalty system:Sol region:3")
        await forum.refused("alice /godsfire region loyalty system:Sol region:3", "1 per turn")
        await forum.say("bob /godsfire region loyalty system:Vega region:1")
        s = await forum.state()
        assert rows(s, "Sol") == ["M 4 I-1", "M 4 A-1", "R 4 A-2"] and rows(s, "Vega")[0] == "E 5 A-2"
        assert [r.spent for r in s.system("Sol").regions] == [2, 2, 1]
        assert (s.system("Sol").bank, s.system("Vega").bank) == (2, 4)

        # --- D.6 party change: Altair 1 is at allegiance 2: 1 GB from alice's NG (7 -> 6, counted as spent), a d6
        # of 2: a Moderate on 1-3 becomes Extremist.
        await forum.rolled("alice /godsfire region party system:Altair region:1",
                           [("party change (Altair region 1)", 2)], "Moderate becomes Extremist")
        # --- D.7 revolts: Vega 2 (R, in revolt): negotiate, a d6 of 2 (1-2): the revolt ends at allegiance 3.
        await forum.rolled("bob /godsfire region revolt system:Vega region:2 way:negotiate",
                           [("revolt: negotiate (Vega region 2)", 2)], "the revolt ends, allegiance 3")
        s = await forum.state()
        assert rows(s, "Altair") == ["E 2 S"] and rows(s, "Vega") == ["E 5 A-2", "R 3 S"]
        assert s.player("alice").ng_money == 6

        # --- D.8 subversion, D.9 allegiance, D.10 economy: alice ------------------------------------------------
        # D.8: Sol 2 holds bob's 1 on the third circle, no counter-subversion: 4 -> 3, and the money moves past the
        #   last circle, off the track.
        # D.9: Sol spent 2/2/1: Sol 3 is shorted 1, 4 -> 3; no revolt in Sol. Altair's one region: nobody shorted.
        # D.10: Sol 1 (I-1) is fed by Sol 2 (A-1): nothing drops; Altair 1 is S.
        await forum.say("alice /godsfire subversion resolve", "undefended subversion lowers allegiance by 1")
        await forum.say("alice /godsfire interphase allegiance", "1 less spent")
        await forum.say("alice /godsfire interphase economy")
        s = await forum.state()
        assert rows(s, "Sol") == ["M 4 I-1", "M 3 A-1", "R 3 A-2"] and rows(s, "Altair") == ["E 2 S"]
        assert s.system("Sol").region(2).subversion == {}
        # D.11 waits for the target's D.8 of this turn (the money first acts at the next turn's D.8)
        await forum.refused("alice /godsfire subversion subvert system:Vega region:1 amount:1",
                            "bob has not resolved this turn's subversion (D.8)")

        # --- D.8, D.9, D.10: bob -----------------------------------------------------------------------------------
        # D.8: Vega 1 holds alice's 2 on the second circle (step 1), no counter: 5 -> 4, the money to step 2.
        # D.9: Vega spent 1/0: Vega 2 shorted 1, 3 -> 2; no region in revolt any more. D.10: nothing (A-2, S).
        await forum.say("bob /godsfire subversion resolve")
        await forum.say("bob /godsfire interphase allegiance")
        await forum.say("bob /godsfire interphase economy")
        s = await forum.state()
        assert rows(s, "Vega") == ["E 4 A-2", "R 2 S"]
        assert (s.system("Vega").region(1).subversion, s.system("Vega").region(1).subversion_step) == (
            {"alice": 2}, {"alice": 2})

        # --- D.11 subversion placing: alice in Vega 1 (A-2: 2 a GB), 1: NG 6 -> 4; her stack 2 + 1 = 3, back to
        # the top circle. bob in Sol 3 (A-2), 1: NG 3 -> 1.
        await forum.say("alice /godsfire subversion subvert system:Vega region:1 amount:1")
        await forum.say("bob /godsfire subversion subvert system:Sol region:3 amount:1")
        # --- D.12 de-subversion: bob in Vega 1 (A-2: 2 a GB), 1: bank 4 -> 2; alice's 3 -> 2, and the
        # de-subversion money is removed with it (D.12.2).
        await forum.say("bob /godsfire subversion desubvert system:Vega region:1 amount:1")
        # --- D.13 counter-subversion: bob in Vega 1 (1 a GB outside S), 1: bank 2 -> 1.
        await forum.say("bob /godsfire subversion counter system:Vega region:1 amount:1")
        s = await forum.state()
        vega1, sol3 = s.system("Vega").region(1), s.system("Sol").region(3)
        assert (vega1.subversion, vega1.subversion_step, vega1.desubversion, vega1.counter_subversion) == (
            {"alice": 2}, {"alice": 0}, 0, 1)
        assert (sol3.subversion, sol3.subversion_step) == ({"bob": 1}, {"bob": 0})
        assert (s.player("alice").ng_money, s.player("bob").ng_money, s.system("Vega").bank) == (4, 1, 1)

        # --- D.14 new units: Sol 1's 2 AG on its ground. bob has nothing to place.
        await forum.refused("alice /godsfire region buy system:Sol region:1 type:AG count:1", "D.4 is closed for alice")
        await forum.say("alice /godsfire region place system:Sol region:1 type:AG count:2")
        await forum.say("alice /godsfire interphase done step:units")
        await forum.say("bob /godsfire interphase done step:units")
        said = await forum.say("alice /godsfire interphase show")
        assert [line for line in said[1:] if not line.startswith("  ")] == ["alice: all done", "bob: all done"]

        # --- the end: turn 2's order, bob 3, alice 2: bob holds initiative --------------------------------------
        await forum.refused("alice /godsfire interphase end", "GM")
        await forum.rolled("gm /godsfire interphase end",
                           [("alice, turn 2 player order", 2), ("bob, turn 2 player order", 3)],
                           "Turn 2: the Movement Phase begins", "Bob holds initiative (A.1.2)")
        s = await forum.state()
        assert (s.turn, s.phase, s.order) == (2, "movement", ["bob", "alice"])
        assert going(s) == ("bob", 1, "bob", [])
        # Sol: 3 + 5 + 4 - 2 - 3 - 2 - 2 - 1 = 2; Altair 1; Vega: 6 + 2 - 3 - 1 - 2 - 1 = 1.
        assert {sy.name: sy.bank for sy in s.systems} == {"Sol": 2, "Altair": 1, "Vega": 1, "Rigel": 0}
        assert {sy.name: rows(s, sy.name) for sy in s.systems} == {
            "Sol": ["M 4 I-1", "M 3 A-1", "R 3 A-2"], "Altair": ["E 2 S"], "Vega": ["E 4 A-2", "R 2 S"],
            "Rigel": ["R 4 A-1"]}
        assert [(loan.amount, loan.box) for loan in s.system("Sol").loans] == [(4, 0)]
        alice, bob = s.player("alice"), s.player("bob")
        assert (alice.ng_money, alice.in_transit, bob.ng_money, bob.in_transit) == (4, 3, 1, 0)
        assert alice.national_allegiance == bob.national_allegiance == {"R": 5, "M": 5, "E": 5}
        # the 2 AG placed at D.14 are counters on Sol 1's ground (the next numbers, #14 and #15)
        assert {n: c for n, c in table(s).items() if n > 13} == {14: ("AG", "alice", "Sol 1"),
                                                                  15: ("AG", "alice", "Sol 1")}

        # --- turn 2: both pass; in its interphase the 3 GB sent last turn land in Altair's bank ------------------
        await forum.say("bob /godsfire movement pass", "initiative passes to alice")
        await forum.say("alice /godsfire movement pass", "movement is over")
        for _ in range(3):
            await forum.say("gm /godsfire phase next")
        assert ((await forum.state()).turn, (await forum.state()).phase) == (2, "interphase")
        # alice's D.1: Sol's tax, 2 planets +2, region 1 I-1 +1, region 2 A-1 +0, region 3 A-2 +1 = 4: bank 2 -> 6.
        # Her loan's first box (2 GB) is due this turn: her D.3 is refused until it is paid; paid, bank 6 -> 4, the
        # marker to box 1. At her D.3 (the transfer step) the money is in Altair's bank: 1 + 3 = 4, and the Money
        # in Transit box is empty.
        await forum.say("alice /godsfire money tax system:Sol", "= 4 GB")
        await forum.refused("alice /godsfire interphase done step:transfer", "D.1 loan repayment comes first")
        await forum.say("alice /godsfire money repay system:Sol", "2 GB due, 2 GB paid")
        await forum.say("alice /godsfire interphase done step:transfer")
        s = await forum.state()
        assert (s.system("Sol").bank, [(loan.amount, loan.box) for loan in s.system("Sol").loans]) == (4, [(4, 1)])
        assert (s.system("Altair").bank, s.player("alice").in_transit, s.shipments) == (4, 0, [])

        # every entered die was used and is in the ledger as a GM die; the snapshot is the replay of the log
        game_id = await forum.console.referee.game_id(CHANNEL)
        rolls = await forum.store.rolls(game_id)
        assert len(rolls) == forum.entered == 4 * 7 + 4 + 2 + 2 + 1 + 1 + 2
        assert all(r.forced for r in rolls)
        await assert_snapshot_is_replay(forum.store, game_id)
    finally:
        await forum.store.close()


# --- three players --------------------------------------------------------------------------------------------


async def test_a_three_player_turn_from_movement_to_the_end_of_the_interphase(tmp_path):
    """alice (Sol), bob (Vega) and carol (Deneb), with neutral Nix (its units moved by alice): three rounds of bob's
    initiative, alice's passed on, carol's; carol's attack on Nix costing her a unit alice chooses; carol declares
    war on bob in phase C; the interphase in the order bob, alice, carol — an economy raise's jealousy warned then
    confirmed, a party change paid with national loyalty, police action, subversion placed across, SQDs placed —
    and carol's compulsory D.8, D.9 and D.10 applied by the end of the interphase."""
    forum = await opened(tmp_path, "three")
    try:
        await forum.say("gm /game start ruleset:godsfire")
        await roll_systems(forum, {
            # 3+4=7 M, 2 -> 3, 3 -> A-1 | 5+1=6 M, 4 -> 4, 1 -> S
            "Sol owner:alice": ([3, 4, 2, 3, 5, 1, 4, 1], ["M 3 A-1", "M 4 S"]),
            # 5+5=10 E, 4 -> 4, 4 -> A-1 | 2+1=3 R, 1 -> 2, 2 -> S | 1+3=4 R, 3 -> 3, 6 -> A-2
            "Vega owner:bob": ([5, 5, 4, 4, 2, 1, 1, 2, 1, 3, 3, 6], ["E 4 A-1", "R 2 S", "R 3 A-2"]),
            # 4+2=6 M, 5 -> 5 (a Moderate), 6 -> A-2 | 6+4=10 E, 2 -> 3, 3 -> A-1
            "Deneb owner:carol": ([4, 2, 5, 6, 6, 4, 2, 3], ["M 5 A-2", "E 3 A-1"]),
            # 6+6=12 E, 1 -> 2, 1 -> S
            "Nix neutral:true": ([6, 6, 1, 1], ["E 2 S"]),
        })
        await edit(forum, [
            ("system:Sol", 'units "SQD=1"'), ("system:Sol", "bank 5"),
            ("system:Vega", 'units "AG=3"'), ("system:Vega region:1", 'units "PDF=1"'),
            ("system:Vega region:1", "economy I-1"), ("system:Vega", "bank 3"),
            ("system:Vega region:3", "allegiance 0"), ("system:Vega region:3", "revolt true"),
            ("system:Vega region:1", 'subversion "carol=1"'), ("system:Vega region:1", 'subversion_step "carol=0"'),
            ("system:Deneb", 'units "SQD=1 AG=2"'), ("system:Deneb region:1", "economy I-2"),
            ("system:Deneb region:2", 'subversion "alice=2"'), ("system:Deneb region:2", 'subversion_step "alice=2"'),
            ("system:Nix", 'units "SQD=1 AG=1 PDF=1"'),
            ("player:alice", "ng_money 2"),
        ])
        await forum.say("gm /godsfire system control system:Nix player:alice", "Alice controls neutral Nix's units")

        # === A. Movement ===========================================================================================
        # The order: alice 3, bob 6, carol 1 -> bob, alice, carol.
        await forum.rolled("gm /godsfire movement initiative",
                           [("alice, turn 1 player order", 3), ("bob, turn 1 player order", 6),
                            ("carol, turn 1 player order", 1)],
                           "Turn 1's player order (A.1.1): bob, alice, carol.", "Bob holds initiative")
        s = await forum.state()
        assert table(s) == {
            1: ("SQD", "alice", "Sol"), 2: ("AG", "bob", "Vega"), 3: ("AG", "bob", "Vega"), 4: ("AG", "bob", "Vega"),
            5: ("PDF", "bob", "Vega 1"), 6: ("SQD", "carol", "Deneb"), 7: ("AG", "carol", "Deneb"),
            8: ("AG", "carol", "Deneb"), 9: ("SQD", None, "Nix"), 10: ("AG", None, "Nix"), 11: ("PDF", None, "Nix"),
            12: ("NG", "alice", "Sol"), 13: ("NG", "bob", "Vega"), 14: ("NG", "carol", "Deneb")}

        # bob's initiative, 3 rounds with three players; alice then carol respond in each.
        # Round 1: bob AG #2 #3 Vega -> K2; alice SQD #1 Sol -> K1; carol AG #7 #8 Deneb -> K10 -> K9.
        await forum.say('bob /godsfire movement move counters:"2 3" to:K2')
        await forum.say("bob /godsfire movement done", "alice may respond (A.1.3)")
        await forum.refused("carol /godsfire movement move counters:6 to:K11", "A.1: it is alice's go")
        await forum.say("alice /godsfire movement move counters:1 to:K1")
        await forum.say("alice /godsfire movement done", "carol may respond (A.1.3)")
        await forum.say('carol /godsfire movement move counters:"7 8" to:K9 through:K10')
        await forum.say("carol /godsfire movement done", "round 2: bob holds initiative")
        # Round 2: bob AG #4 Vega -> K3; alice and carol pass.
        await forum.say("bob /godsfire movement move counters:4 to:K3")
        await forum.say("bob /godsfire movement done")
        await forum.say("alice /godsfire movement pass", "carol may respond")
        await forum.say("carol /godsfire movement pass", "round 3: bob holds initiative")
        # Round 3: bob PDF #5 Vega 1 -> Vega 2 (1 ground area); alice and carol pass: 3 rounds are over, and
        # initiative goes to the next in the order, alice.
        await forum.say('bob /godsfire movement move counters:5 to:"Vega 2"')
        await forum.say("bob /godsfire movement done")
        await forum.say("alice /godsfire movement pass")
        await forum.say("carol /godsfire movement pass",
                        "3 rounds are over (A.1.4); initiative passes to alice (A.1.4)")
        assert going(await forum.state()) == ("alice", 1, "alice", ["bob"])
        # alice, holding initiative, passes: it goes on to carol at once (A.1.4).
        await forum.say("alice /godsfire movement pass", "initiative passes to carol (A.1.4)")
        assert going(await forum.state()) == ("carol", 1, "carol", ["bob", "alice"])
        # carol's round 1: SQD #6 Deneb -> K11; her responders are the others in the order from her on: bob, alice
        # (both pass). Round 2: carol passes: everyone has held initiative, movement is over.
        await forum.say("carol /godsfire movement move counters:6 to:K11")
        await forum.say("carol /godsfire movement done", "bob may respond (A.1.3)")
        await forum.say("bob /godsfire movement pass", "alice may respond (A.1.3)")
        await forum.say("alice /godsfire movement pass", "round 2: carol holds initiative")
        await forum.say("carol /godsfire movement pass", "every player has held initiative (A.1.5): movement is over")
        s = await forum.state()
        assert s.initiative is None
        assert {n: at for n, (_, _, at) in table(s).items() if n <= 8} == {
            1: "K1", 2: "K2", 3: "K2", 4: "K3", 5: "Vega 2", 6: "K11", 7: "K9", 8: "K9"}

        # === B. Combat =============================================================================================
        await forum.say("gm /godsfire phase next", "the Combat Phase begins")
        await forum.refused("carol /godsfire war declare target:bob", "never in Combat or the Social Interphase")
        await forum.refused('carol /godsfire combat announce units:"7 8" target:K2', "not at war with bob")
        # carol's AGs #7 #8 from K9 on Nix's cell, large against a system: 4 + 4 = 8 against Nix's SQD 2 + AG 4 +
        # PDF 3 = 9 (a neutral's units need no war). 8:9 is below even: 9 / 8 = 1.125, 1 to 1: 1-1. Die 6 on 1-1:
        # A1 — carol loses 1 unit, her enemy chooses: alice, who moves Nix's units.
        await forum.say('carol /godsfire combat announce units:"7 8" target:Nix', "announces attack 1")
        said = await forum.rolled("gm /godsfire combat resolve", [("attack 1: carol against neutral Nix at Nix", 6)])
        assert ("⚔ Combat, attack 1 (carol against neutral Nix at Nix): 8 against 9: odds 1-1; die 6: A1: the "
                "attacker loses 1 unit, the defender chooses.") in said
        s = await forum.state()
        assert [(c.kind, c.chooser, c.counters, c.count) for c in s.choices] == [("losses", "alice", [7, 8], 1)]
        await forum.refused("carol /godsfire combat losses units:8", "losses are chosen by the enemy")
        await forum.say("alice /godsfire combat losses units:8", "carol's AG #8 eliminated")
        s = await forum.state()
        assert s.choices == [] and 8 not in table(s) and table(s)[7] == ("AG", "carol", "K9")

        # === C. Last chance to declare war: carol on bob ============================================================
        await forum.say("gm /godsfire phase next", "Last Chance to Declare War")
        await forum.say("carol /godsfire war declare target:bob", "Carol declares war on bob (C)")
        await forum.refused("bob /godsfire war declare target:carol", "already at war")
        await forum.say("gm /godsfire phase next", "the Social Interphase begins")
        s = await forum.state()
        assert (s.phase, s.wars, s.order) == ("interphase", [["bob", "carol"]], ["bob", "alice", "carol"])

        # === D. The Social Interphase, in the order bob, alice, carol ===============================================
        # --- D.1 tax: Vega 1 planet +1, region 1 I-1 +1, region 2 S +0, region 3 in revolt +0 = 2: bank 3 -> 5.
        # Sol: 1 planet +1, A-1 +0, S +0 = 1: bank 5 -> 6. Deneb: 1 planet +1, region 1 I-2 +2, region 2 A-1 +0 = 3:
        # bank 0 -> 3.
        await forum.say("bob /godsfire money tax system:Vega", "= 2 GB")
        await forum.say("alice /godsfire money tax system:Sol", "= 1 GB")
        await forum.say("carol /godsfire money tax system:Deneb", "= 3 GB")
        s = await forum.state()
        assert {sy.name: sy.bank for sy in s.systems} == {"Sol": 6, "Vega": 5, "Deneb": 3, "Nix": 0}

        # --- bob: D.3 a transfer of 1 from Vega's bank to his NG (on Vega): bank 5 -> 4, NG 0 -> 1.
        await forum.say("bob /godsfire money transfer from:Vega to:ng amount:1")
        # D.4: Vega 1 is E (wants SQD) and I-1: 1 SQD for 1 GB. The most spent in Vega becomes 1: Vega 2 would be
        # shorted 1 (2 -> 1); Vega 3 is in revolt and cannot fall. Warned, then confirmed: bank 4 -> 3.
        await forum.refused("bob /godsfire region buy system:Vega region:1 type:SQD count:1",
                            "regional jealousy (D.9): spending 1 in Vega 1 will lower Vega 2 by 1: allegiance 2 → 1 "
                            "— add confirm:true to spend")
        await forum.say("bob /godsfire region buy system:Vega region:1 type:SQD count:1 confirm:true")
        # D.6: Vega 2 (R, at allegiance 2) paid with bob's national R allegiance (5 -> 4); die 5 (4-6): a
        # Reactionary changes to the adjacent party, Moderate.
        await forum.rolled("bob /godsfire region party system:Vega region:2 pay:loyalty",
                           [("party change (Vega region 2)", 5)], "Reactionary becomes Moderate")
        # D.7: Vega 3 in revolt: police action, Vega's PDFs: the one on Vega 2's ground = 1; die 1 <= 1: the revolt
        # ends at allegiance 2.
        await forum.rolled("bob /godsfire region revolt system:Vega region:3 way:police",
                           [("revolt: police action, 1 PDF (Vega region 3)", 1)], "the revolt ends, allegiance 2")
        # D.8: Vega 1 holds carol's 1 on the top circle, undefended: 4 -> 3; the money to the second circle.
        # D.9: Vega spent 1/0/0: Vega 2 and 3 shorted 1: 2 -> 1 each (the revolt is over: no adjacency drop).
        # D.10: Vega 1 (I-1) has no A-1 but is fed by Vega 3's A-2: nothing drops.
        await forum.say("bob /godsfire subversion resolve")
        await forum.say("bob /godsfire interphase allegiance")
        await forum.say("bob /godsfire interphase economy")
        s = await forum.state()
        assert rows(s, "Vega") == ["E 3 I-1", "M 1 S", "R 1 A-2"]
        assert (s.system("Vega").region(1).subversion, s.system("Vega").region(1).subversion_step) == (
            {"carol": 1}, {"carol": 1})
        assert s.player("bob").national_allegiance == {"R": 4, "M": 5, "E": 5}
        assert (s.system("Vega").bank, s.player("bob").ng_money) == (3, 1)

        # --- alice: D.5 raise Sol 1 (M) A-1 -> A-2 for 3 GB: the most spent in Sol becomes 3, Sol 2 would be
        # shorted 3 (4 -> 1): warned, then confirmed, bank 6 -> 3. Then Sol 2's Loyalty box, 1 GB: 4 -> 5, bank
        # 3 -> 2 (the most spent stays 3: no warning).
        await forum.refused("alice /godsfire region develop system:Sol region:1",
                            "regional jealousy (D.9): spending 3 in Sol 1 will lower Sol 2 by 3: allegiance 4 → 1 "
                            "— add confirm:true to spend")
        await forum.say("alice /godsfire region develop system:Sol region:1 confirm:true", "A-1 → A-2")
        await forum.say("alice /godsfire region loyalty system:Sol region:2")
        # D.8: nothing in Sol. D.9: Sol spent 3/1: Sol 2 shorted 2, 5 -> 3. D.10: nothing (A-2, S).
        await forum.say("alice /godsfire subversion resolve")
        await forum.say("alice /godsfire interphase allegiance", "2 less spent")
        await forum.say("alice /godsfire interphase economy")
        s = await forum.state()
        assert rows(s, "Sol") == ["M 3 A-2", "M 3 S"] and s.system("Sol").bank == 2

        # --- D.11 subversion placing. alice in Vega 2 (S: 1 a GB), 1: NG 2 -> 1. bob in Sol 2 (S), 1: NG 1 -> 0.
        # carol has not taken her own compulsory D.8 yet: her D.11 is refused until she has.
        await forum.say("alice /godsfire subversion subvert system:Vega region:2 amount:1")
        await forum.say("bob /godsfire subversion subvert system:Sol region:2 amount:1")
        await forum.refused("carol /godsfire subversion subvert system:Sol region:1 amount:1",
                            "D.8 subversion resolve comes first")
        # D.12: bob de-subverts carol's 1 in Vega 1 (I-1: 2 a GB): bank 3 -> 1; the stack and the de-subversion
        # money are removed. D.13: alice protects Sol 2 (S: 2 a GB), 1: bank 2 -> 0.
        await forum.say("bob /godsfire subversion desubvert system:Vega region:1 amount:1")
        await forum.say("alice /godsfire subversion counter system:Sol region:2 amount:1")
        # D.14: bob's SQD goes to Vega's system cell.
        await forum.say("bob /godsfire region place system:Vega region:1 type:SQD count:1", "Vega's system cell")
        await forum.say("alice /godsfire interphase done step:units")
        s = await forum.state()
        assert {sy.name: sy.bank for sy in s.systems} == {"Sol": 0, "Vega": 1, "Deneb": 3, "Nix": 0}
        assert [p.ng_money for p in s.players] == [1, 0, 0]
        assert (s.system("Vega").region(2).subversion, s.system("Sol").region(2).subversion) == (
            {"alice": 1}, {"bob": 1})
        assert s.system("Vega").region(1).subversion == {} and s.system("Sol").region(2).counter_subversion == 1
        assert s.system("Vega").units == {"SQD": 1}
        said = await forum.say("gm /godsfire interphase show")
        carol = said[said.index(next(line for line in said if line.startswith("carol:"))):]
        assert "alice: all done" in said and [line for line in carol if "compulsory" in line] == [
            "  D.8 subversion (subversion): left — compulsory",
            "  D.9 allegiance drops (allegiance): left — compulsory",
            "  D.10 economy drops (economy): left — compulsory"]

        # --- the end: carol's compulsory steps applied as if she had run them, in the sheet's order --------------
        # D.8: Deneb 2 holds alice's 2 on the third circle, undefended: 3 -> 2, and the money leaves the track.
        # D.9: nothing spent in Deneb, no revolt: nothing. D.10: Deneb 1 is I-2 and Deneb has no A-2 to feed it:
        # I-2 -> I-1.
        # Turn 2's order: alice 5, bob 2, carol 5; alice and carol tie and roll again: alice 1, carol 4 ->
        # carol, alice, bob.
        await forum.rolled("gm /godsfire interphase end",
                           [("alice, turn 2 player order", 5), ("bob, turn 2 player order", 2),
                            ("carol, turn 2 player order", 5), ("alice, turn 2 player order", 1),
                            ("carol, turn 2 player order", 4)],
                           "I-2 with no A-2 to feed it", "Turn 2's player order (A.1.1): carol, alice, bob.",
                           "Carol holds initiative (A.1.2)")
        s = await forum.state()
        assert (s.turn, s.phase, s.order) == (2, "movement", ["carol", "alice", "bob"])
        assert going(s) == ("carol", 1, "carol", [])
        assert {sy.name: rows(s, sy.name) for sy in s.systems} == {
            "Sol": ["M 3 A-2", "M 3 S"], "Vega": ["E 3 I-1", "M 1 S", "R 1 A-2"], "Deneb": ["M 5 I-1", "E 2 A-1"],
            "Nix": ["E 2 S"]}
        assert s.system("Deneb").region(2).subversion == {}
        assert {sy.name: sy.bank for sy in s.systems} == {"Sol": 0, "Vega": 1, "Deneb": 3, "Nix": 0}
        assert s.wars == [["bob", "carol"]]
        assert [p.national_allegiance for p in s.players] == [
            {"R": 5, "M": 5, "E": 5}, {"R": 4, "M": 5, "E": 5}, {"R": 5, "M": 5, "E": 5}]
        # the SQD placed at D.14 is a counter in Vega's cell (#15); carol's lost AG #8 is gone
        assert table(s)[15] == ("SQD", "bob", "Vega") and 8 not in table(s)

        game_id = await forum.console.referee.game_id(CHANNEL)
        rolls = await forum.store.rolls(game_id)
        assert len(rolls) == forum.entered == 4 * 8 + 3 + 1 + 1 + 1 + 5
        assert all(r.forced for r in rolls)
        await assert_snapshot_is_replay(forum.store, game_id)
    finally:
        await forum.store.close()
