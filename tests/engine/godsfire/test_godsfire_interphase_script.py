"""Issue 10's Done-when: a scripted Social Interphase for two players with three systems each, from tax to
new units, played in the console (forum play) with every die entered by the GM, and every result worked
out by hand below from the sheet's rules and `data/godsfire.toml`:

- tax: 1 a planet, A-2 1, I-1 1, I-2 2, nothing from a region in revolt or with enemy units; extortion +1
  and that region's allegiance -1;
- a loan box: ceil(amount x 1.25 / 4); a default: every regional (not in revolt) and national allegiance
  -1, more than 4 GB short deducts that many economic levels, no borrowing this turn, loans barred;
- a unit costs 1 (I-1 up to 4, I-2 up to 6; R wants PDF, M AG, E SQD); loyalty 1 (+1 once a turn, never
  above 5, for every party); economy S->A-1 2, A-1->A-2 3, A-2->I-1 4, I-1->I-2 6 (Moderates only); a spend
  that makes regional jealousy lower other regions of its system is refused unless confirmed;
- party change at allegiance 2: a Moderate 1-3 E, 4-6 R; R or E 1-3 revolt, 4-6 M;
- revolts: negotiate 1-2 -> 3; bribe (R only) 2 GB, 1-4 -> 2, not counted for jealousy; police: die <= PDFs -> 2;
- D.8: subversion without counter-subversion -1, counter removed, money one circle down (off after 3);
- D.9: -1 next to a region in revolt (numbers differ by 1), -1 per GB less spent than the system's best;
- D.10: -1 level in revolt, occupied, I-2 without a free A-2, I-1 without a free A-1 or A-2;
- D.11 subversion from the NG: 2 a GB in A-2/I-2, else 1; D.12 de-subversion from the bank: 3 in S, else 2,
  removed with the subversion it cancels; D.13 counter-subversion: 2 in S, else 1;
- each player's steps in the sheet's order: a step is closed once a later one is taken.

The starting map (after the GM's dice and hand edits), regions as "party allegiance economy":

    alice (NG on Sol, 4 GB; national R 5 M 5 E 5)     bob (NG on Vega, 5 GB; national R 5 M 5 E 5)
    Sol     2 planets, bank 8, loan 8 (box 0)          Vega   1 planet, bank 1, loans 20 (box 1), 4 (box 2)
      1 M 4 I-2 / 2 M 5 A-2 / 3 R 3 A-1                  1 E 4 I-1 / 2 E 3 A-1 / 3 R 2 S
    Procyon 1 planet, bank 0                           Deneb  1 planet, bank 0, 1 PDF in space
      1 E 2 A-1 / 2 R revolt A-2 / 3 M 4 I-1             1 R revolt A-1 (2 PDF) / 2 M 3 A-2 / 3 M 4 I-2
    Altair  1 planet, bank 0                           Rigel  2 planets, bank 4
      1 M 4 A-1 (1 enemy unit) / 2 M 3 S /               1 E revolt A-2 / 2 M 4 A-1 (alice's 1 subversion
      3 R 4 A-2 (bob's 2 subversion, top circle)          on the last circle, 1 counter) / 3 E 3 I-1
"""

from __future__ import annotations

import io
import re
from typing import Any

from godsfireforum import Forum as SharedForum
from storehelpers import RULES, FakeClock, assert_snapshot_is_replay

from console.app import CHANNEL, Console
from data.store import Store
from engine.dice import ForcedRoller
from engine.godsfire.state import STEPS
from service.referee import Referee

# The steps a player marks done by hand (the three checks mark themselves when run).
MARKED = tuple(s for s in STEPS if s not in ("subversion", "allegiance", "economy"))


class Forum(SharedForum):
    """The console in-process (`godsfireforum.Forum`), a roll found by its purpose and value anywhere in the
    answer, and a step marked done."""

    async def rolled(self, line: str, dice: list[tuple[str, int]]) -> list[str]:
        """Enter `dice` (purpose, value), run the line, and find each roll printed by its purpose and value."""
        await self.dice(*(value for _, value in dice))
        said = await self.say(line)
        for purpose, value in dice:
            assert any(purpose in s and re.search(rf"\b{value}\b", s.split(purpose, 1)[1]) for s in said), \
                (purpose, value, said)
        assert not (await self.state()).forced_dice, "an entered die was not used"
        return said

    async def done(self, player: str, step: str) -> None:
        await self.say(f"{player} /godsfire interphase done step:{step}")


def rows(state: Any, system: str) -> list[str]:
    """A system's regions as "party allegiance economy" (+ " revolt")."""
    return [f"{r.party} {r.allegiance} {r.economy}" + (" revolt" if r.revolt else "")
            for r in state.system(system).regions]


def banks(state: Any) -> dict[str, int]:
    return {s.name: s.bank for s in state.systems}


def loans(state: Any, system: str) -> list[tuple[int, int]]:
    return [(loan.amount, loan.box) for loan in state.system(system).loans]


def money(state: Any, player: str) -> tuple[int, int]:
    """A player's (NG money, Money in Transit)."""
    found = state.player(player)
    return found.ng_money, found.in_transit


async def set_up(forum: Forum) -> None:
    """The map above: each system rolled from the starting tables with entered dice (party 2d6, allegiance
    1d6, economy 1d6, region by region), then the GM's hand edits (`/godsfire set`)."""
    await forum.say("gm /game start ruleset:godsfire")
    # Per region: party dice (sum: 2-5 R, 6-8 M, 9-12 E), allegiance die (1: 2; 2-3: 3; 4: 4; 5-6: 4, M 5),
    # economy die (1-2 S, 3-4 A-1, 5-6 A-2).
    rolled = {
        # Sol: 3+4=7 M, 4 -> 4, 5 -> A-2 | 3+3=6 M, 5 -> 5 (M), 6 -> A-2 | 1+2=3 R, 2 -> 3, 3 -> A-1
        "Sol owner:alice planets:2": ([3, 4, 4, 5, 3, 3, 5, 6, 1, 2, 2, 3], ["M 4 A-2", "M 5 A-2", "R 3 A-1"]),
        # Procyon: 5+5=10 E, 1 -> 2, 3 -> A-1 | 2+2=4 R, 4 -> 4, 5 -> A-2 | 4+4=8 M, 4 -> 4, 4 -> A-1
        "Procyon owner:alice": ([5, 5, 1, 3, 2, 2, 4, 5, 4, 4, 4, 4], ["E 2 A-1", "R 4 A-2", "M 4 A-1"]),
        # Altair: 2+4=6 M, 4 -> 4, 3 -> A-1 | 5+2=7 M, 2 -> 3, 1 -> S | 1+1=2 R, 6 -> 4 (not M), 6 -> A-2
        "Altair owner:alice": ([2, 4, 4, 3, 5, 2, 2, 1, 1, 1, 6, 6], ["M 4 A-1", "M 3 S", "R 4 A-2"]),
        # Vega: 6+6=12 E, 4 -> 4, 4 -> A-1 | 6+5=11 E, 3 -> 3, 3 -> A-1 | 2+3=5 R, 1 -> 2, 2 -> S
        "Vega owner:bob": ([6, 6, 4, 4, 6, 5, 3, 3, 2, 3, 1, 2], ["E 4 A-1", "E 3 A-1", "R 2 S"]),
        # Deneb: 3+2=5 R, 2 -> 3, 4 -> A-1 | 4+3=7 M, 3 -> 3, 5 -> A-2 | 6+2=8 M, 4 -> 4, 6 -> A-2
        "Deneb owner:bob": ([3, 2, 2, 4, 4, 3, 3, 5, 6, 2, 4, 6], ["R 3 A-1", "M 3 A-2", "M 4 A-2"]),
        # Rigel: 4+5=9 E, 1 -> 2, 5 -> A-2 | 3+5=8 M, 4 -> 4, 4 -> A-1 | 5+6=11 E, 2 -> 3, 3 -> A-1
        "Rigel owner:bob planets:2": ([4, 5, 1, 5, 3, 5, 4, 4, 5, 6, 2, 3], ["E 2 A-2", "M 4 A-1", "E 3 A-1"]),
    }
    for spec, (values, expected) in rolled.items():
        name = spec.split()[0]
        purposes = [f"{name} region {n} {what}" for n in (1, 2, 3) for what in ("party", "party", "allegiance",
                                                                               "economy")]
        await forum.rolled(f"gm /godsfire system add name:{spec} regions:3", list(zip(purposes, values,
                                                                                      strict=True)))
        assert rows(await forum.state(), name) == expected, name
    edits = [
        ("Sol", None, "bank", "8"), ("Sol", None, "loans", '"8=0"'), ("Sol", 1, "economy", "I-2"),
        ("Procyon", 2, "allegiance", "0"), ("Procyon", 2, "revolt", "true"), ("Procyon", 3, "economy", "I-1"),
        ("Altair", 1, "enemy_units", "1"), ("Altair", 3, "subversion", '"bob=2"'),
        ("Altair", 3, "subversion_step", '"bob=0"'),
        ("Vega", None, "bank", "1"), ("Vega", None, "loans", '"20=1 4=2"'), ("Vega", 1, "economy", "I-1"),
        ("Deneb", None, "units", '"PDF=1"'), ("Deneb", 1, "allegiance", "0"), ("Deneb", 1, "revolt", "true"),
        ("Deneb", 1, "units", '"PDF=2"'), ("Deneb", 3, "economy", "I-2"),
        ("Rigel", None, "bank", "4"), ("Rigel", 1, "allegiance", "0"), ("Rigel", 1, "revolt", "true"),
        ("Rigel", 2, "subversion", '"alice=1"'), ("Rigel", 2, "subversion_step", '"alice=2"'),
        ("Rigel", 2, "counter_subversion", "1"), ("Rigel", 3, "economy", "I-1"),
    ]
    for system, region, field, value in edits:
        where = f"system:{system}" + (f" region:{region}" if region else "")
        await forum.say(f"gm /godsfire set {where} field:{field} value:{value}")
    await forum.say("gm /godsfire set player:alice field:ng_money value:4")
    await forum.say("gm /godsfire set player:bob field:ng_money value:5")


async def test_a_scripted_interphase_for_two_players_with_three_systems_each(tmp_path):
    store = await Store.open(tmp_path / "interphase.db")
    out = io.StringIO()
    forum = Forum(Console(Referee(store, RULES, ForcedRoller(), FakeClock()), out), store, out)
    try:
        await set_up(forum)
        s = await forum.state()
        assert [p.name for p in s.players] == ["alice", "bob"]
        assert (s.player("alice").government, s.player("bob").government) == ("Sol", "Vega")
        assert rows(s, "Sol") == ["M 4 I-2", "M 5 A-2", "R 3 A-1"]
        assert rows(s, "Procyon") == ["E 2 A-1", "R 0 A-2 revolt", "M 4 I-1"]
        assert rows(s, "Altair") == ["M 4 A-1", "M 3 S", "R 4 A-2"]
        assert rows(s, "Vega") == ["E 4 I-1", "E 3 A-1", "R 2 S"]
        assert rows(s, "Deneb") == ["R 0 A-1 revolt", "M 3 A-2", "M 4 I-2"]
        assert rows(s, "Rigel") == ["E 0 A-2 revolt", "M 4 A-1", "E 3 I-1"]
        assert banks(s) == {"Sol": 8, "Procyon": 0, "Altair": 0, "Vega": 1, "Deneb": 0, "Rigel": 4}
        assert loans(s, "Sol") == [(8, 0)] and loans(s, "Vega") == [(20, 1), (4, 2)]

        # The GM steps Movement -> Combat -> the last chance to declare war -> the Social Interphase;
        # a step is refused before it.
        await forum.refused("alice /godsfire money tax system:Sol", "Social Interphase")
        await forum.dice(6, 5)  # the turn's player order (A.1.1): alice 6, bob 5
        await forum.say("gm /godsfire phase next")  # A.1: initiative starts; each player passes it on
        await forum.say("alice /godsfire movement pass")
        await forum.say("bob /godsfire movement pass")
        for _ in range(3):
            await forum.say("gm /godsfire phase next")
        s = await forum.state()
        assert (s.turn, s.phase, s.order) == (1, "interphase", ["alice", "bob"])

        # --- D.1 tax -----------------------------------------------------------------------------
        # Sol: 2 planets +2, region 1 I-2 +2, region 2 A-2 +1, region 3 A-1 +0, extortion of region 3 +1
        #   = 6: bank 8 -> 14; region 3's allegiance 3 -> 2.
        # Procyon: 1 planet +1, region 1 A-1 +0, region 2 in revolt +0, region 3 I-1 +1 = 2: bank 0 -> 2.
        # Altair: 1 planet +1, region 1 enemy units +0, region 2 S +0, region 3 A-2 +1 = 2: bank 0 -> 2.
        # Vega: 1 planet +1, region 1 I-1 +1, region 2 A-1 +0, region 3 S +0, extortion of region 2 +1
        #   = 3: bank 1 -> 4; region 2's allegiance 3 -> 2.
        # Deneb: 1 planet +1, region 1 in revolt +0, region 2 A-2 +1, region 3 I-2 +2 = 4: bank 0 -> 4.
        # Rigel: 2 planets +2, region 1 in revolt +0, region 2 A-1 +0, region 3 I-1 +1 = 3: bank 4 -> 7.
        await forum.refused("alice /godsfire money tax system:Procyon extort:2", "revolt")
        await forum.say("alice /godsfire money tax system:Sol extort:3")
        await forum.say("alice /godsfire money tax system:Procyon")
        await forum.say("alice /godsfire money tax system:Altair")
        await forum.refused("alice /godsfire money tax system:Sol", "already")
        await forum.say("bob /godsfire money tax system:Vega extort:2")
        await forum.say("bob /godsfire money tax system:Deneb")
        await forum.say("bob /godsfire money tax system:Rigel")
        s = await forum.state()
        assert banks(s) == {"Sol": 14, "Procyon": 2, "Altair": 2, "Vega": 4, "Deneb": 4, "Rigel": 7}
        assert rows(s, "Sol")[2] == "R 2 A-1" and rows(s, "Vega")[1] == "E 2 A-1"
        for player in ("alice", "bob"):
            await forum.done(player, "tax")

        # --- D.1 loan repayment ------------------------------------------------------------------
        # alice, Sol: one loan of 8, a box of ceil(8 x 1.25 / 4) = ceil(2.5) = 3: bank 14 -> 11, marker to box 1.
        # bob, Vega: 20 -> ceil(25 / 4) = 7, and 4 -> ceil(5 / 4) = 2: 9 due, bank 4 pays 4, 5 short: a
        #   default. Both markers move up (20: box 2, 4: box 3). Every allegiance of bob's not in revolt
        #   falls by 1: Vega 4/2/2 -> 3/1/1, Deneb 2 and 3: 3/4 -> 2/3, Rigel 2 and 3: 4/3 -> 3/2 (Deneb 1
        #   and Rigel 1 are in revolt); national R 5 M 5 E 5 -> 4 4 4. 5 GB is more than 4: 5 economic levels,
        #   bob's choice: Deneb 2 A-2 -> A-1, Deneb 1 A-1 -> S, Rigel 2 A-1 -> S, Rigel 3 I-1 -> A-2,
        #   Rigel 1 A-2 -> A-1. bob failed a repayment (no borrowing this turn) and is barred from loans.
        await forum.say("alice /godsfire money repay system:Sol")
        said = await forum.say('bob /godsfire money repay system:Vega '
                              'lower:"Deneb 2, Deneb 1, Rigel 2, Rigel 3, Rigel 1"')
        assert any("9 GB due, 4 GB paid, 5 GB short" in line for line in said), said
        s = await forum.state()
        assert banks(s)["Sol"] == 11 and loans(s, "Sol") == [(8, 1)]
        assert banks(s)["Vega"] == 0 and loans(s, "Vega") == [(20, 2), (4, 3)]
        assert rows(s, "Vega") == ["E 3 I-1", "E 1 A-1", "R 1 S"]
        assert rows(s, "Deneb") == ["R 0 S revolt", "M 2 A-1", "M 3 I-2"]
        assert rows(s, "Rigel") == ["E 0 A-1 revolt", "M 3 S", "E 2 A-2"]
        assert s.player("bob").national_allegiance == {"R": 4, "M": 4, "E": 4}
        assert (s.player("bob").failed_repayment, s.player("bob").loans_barred) == (True, True)
        assert (s.player("alice").failed_repayment, s.player("alice").loans_barred) == (False, False)
        assert s.player("alice").national_allegiance == {"R": 5, "M": 5, "E": 5}
        for player in ("alice", "bob"):
            await forum.done(player, "loans")

        # --- D.2 borrowing -----------------------------------------------------------------------
        # bob failed a repayment this turn: refused, nothing changes. alice borrows 4 onto Procyon: bank
        # 2 -> 6, a loan of 4 on the bottom box (boxes of ceil(5 / 4) = 2, the first due next turn).
        await forum.refused("bob /godsfire money borrow system:Deneb amount:5", "failed a loan repayment")
        await forum.say("alice /godsfire money borrow system:Procyon amount:4")
        s = await forum.state()
        assert banks(s)["Procyon"] == 6 and loans(s, "Procyon") == [(4, 0)]
        for player in ("alice", "bob"):
            await forum.done(player, "borrow")

        # --- D.3 transfers -----------------------------------------------------------------------
        # Never straight from system to system. alice: Sol -> transit 4 (Sol 11 -> 7, transit 0 -> 4), moved
        # on the map, transit -> Altair 4 (Altair 2 -> 6, transit 0). bob: Rigel -> transit 2 (7 -> 5),
        # transit -> Vega 2 (0 -> 2), and NG -> Vega 1 on the NG's own system (NG 5 -> 4, Vega 2 -> 3).
        await forum.refused("alice /godsfire money transfer from:Sol to:Altair amount:4", "through space")
        await forum.say("alice /godsfire money transfer from:Sol to:transit amount:4")
        assert money(await forum.state(), "alice") == (4, 4)
        await forum.say("alice /godsfire money transfer from:transit to:Altair amount:4")
        await forum.say("bob /godsfire money transfer from:Rigel to:transit amount:2")
        await forum.say("bob /godsfire money transfer from:transit to:Vega amount:2")
        await forum.say("bob /godsfire money transfer from:ng to:Vega amount:1")
        s = await forum.state()
        assert banks(s) == {"Sol": 7, "Procyon": 6, "Altair": 6, "Vega": 3, "Deneb": 4, "Rigel": 5}
        assert (money(s, "alice"), money(s, "bob")) == ((4, 0), (4, 0))
        for player in ("alice", "bob"):
            await forum.done(player, "transfer")

        # --- D.4 purchases -----------------------------------------------------------------------
        # Sol 1 (M, I-2, up to 6) wants AG, not SQD: refused. 2 AG there: Sol 7 -> 5, spent 2.
        # Procyon 3 (M, I-1): 1 AG: Procyon 6 -> 5, spent 1. Vega 1 (E, I-1): 1 SQD: Vega 3 -> 2, spent 1.
        # Altair 1 is A-1: no purchase in a non-industrial region. Each of the three buys makes its system's
        # other regions jealous (D.9): refused with what it will cost until confirmed — e.g. Sol 2 (5) and
        # Sol 3 (2) shorted 2; Procyon 1 (2) shorted 1 (Procyon 2 is in revolt); Vega 2 (1) and 3 (1) shorted 1.
        await forum.refused("alice /godsfire region buy system:Sol region:1 type:SQD count:1", "wants AG")
        await forum.refused("alice /godsfire region buy system:Altair region:1 type:AG count:1", "industrial")
        await forum.refused("alice /godsfire region buy system:Sol region:1 type:AG count:2",
                            "regional jealousy (D.9): spending 2 in Sol 1 will lower Sol 2 by 2: allegiance 5 → 3; "
                            "Sol 3 by 2: allegiance 2 → 0, in revolt — add confirm:true to spend")
        await forum.say("alice /godsfire region buy system:Sol region:1 type:AG count:2 confirm:true")
        await forum.refused("alice /godsfire region buy system:Procyon region:3 type:AG count:1",
                            "will lower Procyon 1 by 1: allegiance 2 → 1 — add confirm:true")
        await forum.say("alice /godsfire region buy system:Procyon region:3 type:AG count:1 confirm:true")
        await forum.refused("bob /godsfire region buy system:Vega region:1 type:SQD count:1",
                            "Vega 2 by 1: allegiance 1 → 0, in revolt; Vega 3 by 1: allegiance 1 → 0, in revolt")
        await forum.say("bob /godsfire region buy system:Vega region:1 type:SQD count:1 confirm:true")
        s = await forum.state()
        assert banks(s) == {"Sol": 5, "Procyon": 5, "Altair": 6, "Vega": 2, "Deneb": 4, "Rigel": 5}
        assert s.system("Sol").region(1).to_place == {"AG": 2}
        assert s.system("Procyon").region(3).to_place == {"AG": 1}
        assert s.system("Vega").region(1).to_place == {"SQD": 1}
        for player in ("alice", "bob"):
            await forum.done(player, "purchase")

        # --- D.5 loyalty and economy raises --------------------------------------------------------
        # Sol 2 is M at 5, the highest level: `amount:2` spends 2 for regional jealousy, no rise (5 -> 3).
        # Sol 3 (R 2) amount 2: +1 -> 3, spent 2 (3 -> 1). Sol spent 2/2/2: nobody jealous.
        # Altair 2 (M, S): develop S -> A-1 for 2 (6 -> 4; Altair 1 and 3 shorted 2: confirmed). Altair 1
        #   (M 4): +1 -> 5 for 1 (4 -> 3; the most spent stays 2: no warning). Altair 3
        #   (R 4) amount 1: +1 -> 5 (allegiance runs to 5 for every party) (3 -> 2). Altair spent 1/2/1.
        # Vega 2 (E 1) +1 -> 2 and Vega 3 (R 1) +1 -> 2, 1 each: Vega 2 -> 0; Vega spent 1/1/1.
        # Refused: raising Sol 3's economy (Reactionary), a second rise in Altair 1 this turn.
        await forum.say("alice /godsfire region loyalty system:Sol region:2 amount:2")
        await forum.say("alice /godsfire region loyalty system:Sol region:3 amount:2")
        await forum.refused("alice /godsfire region develop system:Sol region:3", "Moderate")
        await forum.say("alice /godsfire region develop system:Altair region:2 confirm:true")
        await forum.say("alice /godsfire region loyalty system:Altair region:1")
        await forum.refused("alice /godsfire region loyalty system:Altair region:1", "1 per turn")
        await forum.say("alice /godsfire region loyalty system:Altair region:3 amount:1")
        await forum.say("bob /godsfire region loyalty system:Vega region:2")
        await forum.say("bob /godsfire region loyalty system:Vega region:3")
        s = await forum.state()
        assert banks(s) == {"Sol": 1, "Procyon": 5, "Altair": 2, "Vega": 0, "Deneb": 4, "Rigel": 5}
        assert rows(s, "Sol") == ["M 4 I-2", "M 5 A-2", "R 3 A-1"]
        assert rows(s, "Altair") == ["M 5 A-1", "M 3 A-1", "R 5 A-2"]
        assert rows(s, "Vega") == ["E 3 I-1", "E 2 A-1", "R 2 S"]
        assert [r.spent for r in s.system("Sol").regions] == [2, 2, 2]
        assert [r.spent for r in s.system("Altair").regions] == [1, 2, 1]
        for player in ("alice", "bob"):
            await forum.done(player, "raise")

        # --- D.6 party change ---------------------------------------------------------------------
        # Sol 3 is at allegiance 3: refused (allegiance 2 only). Procyon 1 (E 2), paid 1 from alice's NG
        # (4 -> 3, spent 1): die 5 (4-6: the adjacent party) -> M. Vega 3 (R 2), paid with bob's national R
        # allegiance (4 -> 3): die 4 -> M.
        await forum.refused("alice /godsfire region party system:Sol region:3", "allegiance 2")
        await forum.rolled("alice /godsfire region party system:Procyon region:1 pay:ng",
                           [("party change (Procyon region 1)", 5)])
        await forum.rolled("bob /godsfire region party system:Vega region:3 pay:loyalty",
                           [("party change (Vega region 3)", 4)])
        s = await forum.state()
        assert rows(s, "Procyon")[0] == "M 2 A-1" and rows(s, "Vega")[2] == "M 2 S"
        assert money(s, "alice") == (3, 0) and s.player("bob").national_allegiance == {"R": 3, "M": 4, "E": 4}
        for player in ("alice", "bob"):
            await forum.done(player, "party")

        # --- D.7 revolts --------------------------------------------------------------------------
        # Procyon 2 (R, in revolt): bribe, 2 from the bank (5 -> 3, not counted as spent), die 3 (1-4):
        #   allegiance 2. Deneb 1 (R): police, 3 PDFs (1 in space, 2 on the ground), die 3 <= 3: allegiance 2.
        # Rigel 1 (E): bribery refused (Reactionary revolts only); negotiate, die 5 (not 1-2): the revolt goes
        #   on; a second try this turn is refused.
        await forum.rolled("alice /godsfire region revolt system:Procyon region:2 way:bribe",
                           [("bribery (Procyon region 2)", 3)])
        await forum.rolled("bob /godsfire region revolt system:Deneb region:1 way:police",
                           [("police action, 3 PDF (Deneb region 1)", 3)])
        await forum.refused("bob /godsfire region revolt system:Rigel region:1 way:bribe", "Reactionary")
        await forum.rolled("bob /godsfire region revolt system:Rigel region:1 way:negotiate",
                           [("negotiate (Rigel region 1)", 5)])
        await forum.refused("bob /godsfire region revolt system:Rigel region:1 way:police", "ONE option")
        s = await forum.state()
        assert rows(s, "Procyon") == ["M 2 A-1", "R 2 A-2", "M 4 I-1"]
        assert rows(s, "Deneb") == ["R 2 S", "M 2 A-1", "M 3 I-2"]
        assert rows(s, "Rigel")[0] == "E 0 A-1 revolt"
        assert banks(s)["Procyon"] == 3
        for player in ("alice", "bob"):
            await forum.done(player, "revolts")  # no system has every region in revolt: none goes neutral
        assert [s.owner for s in (await forum.state()).systems] == ["alice"] * 3 + ["bob"] * 3

        # --- D.8 subversion -----------------------------------------------------------------------
        # Altair 3: bob's 2, no counter-subversion: allegiance 5 -> 4; the money moves to circle 1.
        # Rigel 2: alice's 1 with 1 counter-subversion: no drop; the counter-subversion is removed; the
        #   money moves past the last (third) circle and leaves the track.
        await forum.say("alice /godsfire subversion resolve")
        await forum.say("bob /godsfire subversion resolve")
        s = await forum.state()
        altair3, rigel2 = s.system("Altair").region(3), s.system("Rigel").region(2)
        assert (altair3.allegiance, altair3.subversion, altair3.subversion_step) == (4, {"bob": 2}, {"bob": 1})
        assert (rigel2.allegiance, rigel2.subversion, rigel2.counter_subversion) == (3, {}, 0)

        # --- D.9 allegiance drops -----------------------------------------------------------------
        # Sol: spent 2/2/2, no revolt: nothing. Procyon: spent 1 (party change) / 0 (the bribe does not
        #   count) / 1: region 2 loses 1 (2 -> 1). Altair: spent 1/2/1: regions 1 and 3 lose 1 (5 -> 4,
        #   4 -> 3). Vega: 1/1/1: nothing. Deneb: nothing spent, no revolt left: nothing. Rigel: region 2 is
        #   next to region 1 in revolt: 3 -> 2; region 3 is not (3 and 1 differ by 2).
        await forum.say("alice /godsfire interphase allegiance")
        await forum.say("bob /godsfire interphase allegiance")
        s = await forum.state()
        assert rows(s, "Sol") == ["M 4 I-2", "M 5 A-2", "R 3 A-1"]
        assert rows(s, "Procyon") == ["M 2 A-1", "R 1 A-2", "M 4 I-1"]
        assert rows(s, "Altair") == ["M 4 A-1", "M 3 A-1", "R 3 A-2"]
        assert rows(s, "Vega") == ["E 3 I-1", "E 2 A-1", "M 2 S"]
        assert rows(s, "Deneb") == ["R 2 S", "M 2 A-1", "M 3 I-2"]
        assert rows(s, "Rigel") == ["E 0 A-1 revolt", "M 2 S", "E 2 A-2"]

        # --- D.10 economy drops -------------------------------------------------------------------
        # Sol 1 I-2 is fed by Sol 2 A-2; Procyon 3 I-1 by Procyon 1 A-1; Vega 1 I-1 by Vega 2 A-1.
        # Altair 1 is occupied: A-1 -> S. Deneb 3 is I-2 with no A-2 to feed it: I-2 -> I-1.
        # Rigel 1 is in revolt: A-1 -> S.
        await forum.say("alice /godsfire interphase economy")
        await forum.say("bob /godsfire interphase economy")
        s = await forum.state()
        assert rows(s, "Altair") == ["M 4 S", "M 3 A-1", "R 3 A-2"]
        assert rows(s, "Deneb") == ["R 2 S", "M 2 A-1", "M 3 I-1"]
        assert rows(s, "Rigel") == ["E 0 S revolt", "M 2 S", "E 2 A-2"]
        assert rows(s, "Sol") == ["M 4 I-2", "M 5 A-2", "R 3 A-1"]
        assert rows(s, "Procyon") == ["M 2 A-1", "R 1 A-2", "M 4 I-1"]
        assert rows(s, "Vega") == ["E 3 I-1", "E 2 A-1", "M 2 S"]

        # --- D.11 subversion placing ----------------------------------------------------------------
        # alice in Rigel 2 (S: 1 a GB): 1 -> NG 3 -> 2. bob in Sol 2 (A-2: 2 a GB): 1 -> NG 4 -> 2; and in
        # Altair 3: 1 more on his 2 there -> 3, the stack back to the top circle; NG 2 -> 0.
        # Not in his own system. Once alice has placed subversion (D.11), her purchases (D.4) are closed.
        await forum.refused("bob /godsfire subversion subvert system:Deneb region:2 amount:1", "own system")
        await forum.say("alice /godsfire subversion subvert system:Rigel region:2 amount:1")
        await forum.refused("alice /godsfire region buy system:Sol region:1 type:AG count:1",
                            "D.4 is closed for alice: a later step (D.10) was taken")
        await forum.say("bob /godsfire subversion subvert system:Sol region:2 amount:1")
        await forum.say("bob /godsfire subversion subvert system:Altair region:3 amount:1")
        s = await forum.state()
        assert (money(s, "alice"), money(s, "bob")) == ((2, 0), (0, 0))
        altair3 = s.system("Altair").region(3)
        assert (altair3.subversion, altair3.subversion_step) == ({"bob": 3}, {"bob": 0})
        assert s.system("Sol").region(2).subversion == {"bob": 1}
        assert s.system("Rigel").region(2).subversion == {"alice": 1}
        for player in ("alice", "bob"):
            await forum.done(player, "subvert")

        # --- D.12 de-subversion ---------------------------------------------------------------------
        # alice removes 1 of bob's 3 in Altair 3 (A-2: 2 a GB): Altair 2 -> 0, 2 left on the top circle.
        # bob removes alice's 1 in Rigel 2 (S: 3 a GB): Rigel 5 -> 2. The de-subversion money is removed with
        # the subversion it cancels (D.12.2): none stays on the regions.
        await forum.say("alice /godsfire subversion desubvert system:Altair region:3 amount:1")
        await forum.say("bob /godsfire subversion desubvert system:Rigel region:2 amount:1")
        s = await forum.state()
        altair3, rigel2 = s.system("Altair").region(3), s.system("Rigel").region(2)
        assert (altair3.subversion, altair3.subversion_step, altair3.desubversion) == ({"bob": 2}, {"bob": 0}, 0)
        assert (rigel2.subversion, rigel2.desubversion) == ({}, 0)
        for player in ("alice", "bob"):
            await forum.done(player, "desubvert")

        # --- D.13 counter-subversion ----------------------------------------------------------------
        # alice in Sol 2 (A-2: 1 a GB): Sol 1 -> 0. bob in Rigel 3: Rigel 2 -> 1.
        await forum.say("alice /godsfire subversion counter system:Sol region:2 amount:1")
        await forum.say("bob /godsfire subversion counter system:Rigel region:3 amount:1")
        s = await forum.state()
        assert (s.system("Sol").region(2).counter_subversion, s.system("Rigel").region(3).counter_subversion) == (1, 1)
        for player in ("alice", "bob"):
            await forum.done(player, "counter")

        # --- D.14 new units -----------------------------------------------------------------------
        # Sol 1: 2 AG on the ground; Procyon 3: 1 AG; Vega 1's SQD goes to Vega's system cell.
        await forum.refused("alice /godsfire region place system:Sol region:1 type:AG count:3", "2 AG")
        await forum.say("alice /godsfire region place system:Sol region:1 type:AG count:2")
        await forum.say("alice /godsfire region place system:Procyon region:3 type:AG count:1")
        await forum.say("bob /godsfire region place system:Vega region:1 type:SQD count:1")
        for player in ("alice", "bob"):
            await forum.done(player, "units")
        said = await forum.say("alice /godsfire interphase show")
        assert [line for line in said[1:] if not line.startswith("  ")] == ["alice: all done", "bob: all done"], said
        assert len(said) == 1 + 2 * 16 and all(line.endswith((": done", ": done — compulsory"))
                                               for line in said if line.startswith("  ")), said

        # --- the end of the interphase: turn 2's Movement Phase -----------------------------------
        await forum.refused("alice /godsfire interphase end", "GM")
        await forum.dice(6, 5)  # turn 2's player order (A.1.1), rolled as the interphase ends: alice 6, bob 5
        await forum.say("gm /godsfire interphase end")
        s = await forum.state()
        assert (s.turn, s.phase) == (2, "movement")
        assert banks(s) == {"Sol": 0, "Procyon": 3, "Altair": 0, "Vega": 0, "Deneb": 4, "Rigel": 1}
        assert {n: loans(s, n) for n in ("Sol", "Procyon", "Altair", "Vega", "Deneb", "Rigel")} == {
            "Sol": [(8, 1)], "Procyon": [(4, 0)], "Altair": [], "Vega": [(20, 2), (4, 3)], "Deneb": [], "Rigel": []}
        assert {n: rows(s, n) for n in ("Sol", "Procyon", "Altair", "Vega", "Deneb", "Rigel")} == {
            "Sol": ["M 4 I-2", "M 5 A-2", "R 3 A-1"],
            "Procyon": ["M 2 A-1", "R 1 A-2", "M 4 I-1"],
            "Altair": ["M 4 S", "M 3 A-1", "R 3 A-2"],
            "Vega": ["E 3 I-1", "E 2 A-1", "M 2 S"],
            "Deneb": ["R 2 S", "M 2 A-1", "M 3 I-1"],
            "Rigel": ["E 0 S revolt", "M 2 S", "E 2 A-2"],
        }
        units = {(sy.name, r.number): r.units for sy in s.systems for r in sy.regions if r.units}
        assert units == {("Sol", 1): {"AG": 2}, ("Procyon", 3): {"AG": 1}, ("Deneb", 1): {"PDF": 2}}
        assert {sy.name: sy.units for sy in s.systems if sy.units} == {"Vega": {"SQD": 1}, "Deneb": {"PDF": 1}}
        assert all(not r.to_place for sy in s.systems for r in sy.regions)
        subversion = {(sy.name, r.number): (r.subversion, r.subversion_step, r.counter_subversion)
                      for sy in s.systems for r in sy.regions if r.subversion or r.counter_subversion}
        assert subversion == {("Sol", 2): ({"bob": 1}, {"bob": 0}, 1), ("Altair", 3): ({"bob": 2}, {"bob": 0}, 0),
                              ("Rigel", 3): ({}, {}, 1)}
        alice, bob = s.player("alice"), s.player("bob")
        assert (alice.ng_money, alice.in_transit, alice.national_allegiance) == (2, 0, {"R": 5, "M": 5, "E": 5})
        assert (bob.ng_money, bob.in_transit, bob.national_allegiance) == (0, 0, {"R": 3, "M": 4, "E": 4})
        assert (alice.loans_barred, bob.loans_barred, alice.out, bob.out) == (False, True, False, False)
        assert s.system("Altair").enemy_units == 0 and s.system("Altair").region(1).enemy_units == 1

        # Every entered die was used, each one is in the ledger as a GM die, and the snapshot is the replay.
        assert s.forced_dice == []
        game_id = await forum.console.referee.game_id(CHANNEL)
        rolls = await store.rolls(game_id)
        assert len(rolls) == forum.entered == 6 * 12 + 5 + 2 * 2  # with turn 1's and turn 2's player orders
        assert all(r.forced for r in rolls)
        assert [(r.purpose, r.die) for r in rolls if "player order" not in r.purpose][-5:] == [
            ("party change (Procyon region 1)", 5), ("party change (Vega region 3)", 4),
            ("revolt: bribery (Procyon region 2)", 3), ("revolt: police action, 3 PDF (Deneb region 1)", 3),
            ("revolt: negotiate (Rigel region 1)", 5)]
        await assert_snapshot_is_replay(store, game_id)
    finally:
        await store.close()
