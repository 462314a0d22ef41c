"""The Nations commands: `/economy grow` and its options → a Nations action (see `engine.vocabulary`)."""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Any

from engine.errors import BadInput
from engine.nations import clock, gm, peace, views, war
from engine.nations import history as nations_history
from engine.nations.rules import ACTION_KINDS, BONUS_KINDS, STATS
from engine.nations.schema import MAX_STAT, MAX_STAT_HELD
from engine.vocabulary import CHART_FILE, CONSOLE, LIST, NUMBERS, TEXT, Command, Group, Param, Player

# The names offered as choices (data/nations.toml holds the types and ranks; a test keeps these equal).
UNIT_TYPES = ("infantry", "armour", "fighter", "bomber", "warships", "submarines")
RANKS = ("conscript", "green", "regular", "elite", "guard")
SETTABLE_STATS = (*STATS, "foreign_patches")


def parse_units(text: str) -> dict[str, int]:
    """An army as typed: "infantry:3 bomber:1", "3 infantry, 1 bomber", "IN IN IN BM" or "armour=2"."""
    tokens = [t for t in re.split(r"[\s,;]+", text.strip()) if t]
    units: dict[str, int] = {}
    pending: int | None = None
    for token in tokens:
        match = re.fullmatch(r"([A-Za-z]+)[:=x*]?(\d+)?", token) or re.fullmatch(r"(\d+)[x*]?([A-Za-z]+)", token)
        if token.isdecimal():
            pending = int(token)
            continue
        if match is None:
            raise BadInput(f"cannot read {token!r} as units; write e.g. \"infantry:3 bomber:1\"")
        first, second = match.group(1), match.group(2)
        if first.isdigit():
            name, count = second, int(first)
        else:
            name, count = first, int(second) if second else (pending if pending is not None else 1)
        pending = None
        units[name] = units.get(name, 0) + count
    if pending is not None:
        raise BadInput("a number must come with a unit type")
    return units


def parse_unit_ids(text: str) -> list[int]:
    try:
        return [int(v.lstrip("#")) for v in re.split(r"[\s,]+", str(text).strip()) if v]
    except ValueError:
        raise BadInput(f"units are given by their numbers, e.g. \"1 2 3\", not {text!r}") from None


def _set_stat(o: dict[str, Any]) -> gm.SetStat:
    raw = str(o["value"]).strip()
    if not re.fullmatch(r"[+-]?\d+", raw):
        raise BadInput(f"a stat value is a whole number (or +N / -N to adjust), not {raw[:20]!r}")
    if len(raw.lstrip("+-").lstrip("0")) > len(str(MAX_STAT_HELD)):  # (before it is read: it may be very long)
        raise BadInput(f"a GM sets a stat to at most {MAX_STAT:,}, not {raw[:20]}{'…' if len(raw) > 20 else ''}")
    return gm.SetStat(o["nation"], o["stat"], int(raw), relative=raw[0] in "+-")


P = Param
NATION = P("nation", help="a nation (default: yours)", words=TEXT, complete="nation")
UNITS_NATION = replace(NATION, only=CONSOLE)
"""The nation of a command that names its units (their numbers say whose they are): the console's GM may name it."""
COMMANDS: tuple[Command, ...] = (
    Command("nation claim", "claim one of the seed's nations",
            (P("preset", required=True, help="name, unambiguous start of a name, or slot", words=TEXT,
               complete="preset"),
             P("player", help="for another player (GM)", kind=Player),
             P("name", help="the name of slot 11, the seed's unnamed nation: required to claim it", words=TEXT)),
            action=lambda o: peace.ClaimPreset(str(o["preset"]), o.get("player"), o.get("name"))),
    Command("nation create", "create a custom nation",
            (P("name", required=True, help="your nation's name", words=TEXT, low=1, high=40),
             P("economy", int, True, help="starting ECONOMY (E + M = 20)", low=0, high=100),
             P("military", int, True, help="starting MILITARY (E + M = 20)", low=0, high=100),
             P("strength", required=True, choices=UNIT_TYPES, help="the unit type your nation is strong in"),
             P("weakness", required=True, choices=UNIT_TYPES, help="the unit type your nation is weak in"),
             P("units", help='e.g. "infantry:3 bomber:1"', words=LIST),
             P("player", help="for someone else (GM)", kind=Player)),
            action=lambda o: peace.CreateNation(o["name"], o["economy"], o["military"], o["strength"],
                                                  o["weakness"], parse_units(o.get("units") or ""), o.get("player"))),
    Command("nation show", "a nation's stats, bonuses and army", (NATION,), view=views.show_nation),
    Command("nation chart", "a picture of the nations' stats over the turns: one nation or all, one stat or all "
                            "(default: LAND)",
            (P("nation", help="a nation (default: every nation)", words=TEXT, complete="nation"),
             P("stat", help="one stat (default: LAND for every nation, all five for one)", choices=STATS),
             *CHART_FILE), chart=nations_history.nation_chart, shows_ended=True),
    Command("nation list", "every nation of this game", view=views.list_view),
    Command("economy grow", "ECONOMY check to raise ECONOMY", (NATION,),
            action=lambda o: peace.GrowEconomy(o.get("nation"))),
    Command("economy military", "ECONOMY check to raise MILITARY (costs 1 E)", (NATION,),
            action=lambda o: peace.GrowMilitary(o.get("nation"))),
    Command("economy recruit", "ECONOMY check to recruit a unit",
            (P("unit", required=True, choices=UNIT_TYPES, help="the unit type to recruit"), NATION),
            action=lambda o: peace.Recruit(o["unit"], o.get("nation"))),
    Command("stability raise", "trade 2 MILITARY for 1 STABILITY", (NATION,),
            action=lambda o: peace.RaiseStability(o.get("nation"))),
    Command("propaganda attack", "propaganda attack on a nation",
            (P("target", required=True, help="the nation to sway", words=TEXT, complete="nation"), NATION),
            action=lambda o: peace.PropagandaAttack(o["target"], o.get("nation"))),
    Command("propaganda encourage", "encourage workers, patriotism or morale for 36 hours",
            (P("kind", required=True, choices=BONUS_KINDS, help="the bonus: workers, patriotism or morale"), NATION),
            action=lambda o: peace.Encourage(o["kind"], o.get("nation"))),
    Command("army show", "a nation's units", (NATION,), view=views.show_army),
    Command("army disband", "disband one of your units",
            (P("unit", int, True, help="your unit's number (see /army show)", complete="own_unit"), UNITS_NATION),
            action=lambda o: peace.Disband(o["unit"], o.get("nation"))),
    Command("attack declare", "ATTACK: send 1-3 of your units against a nation",
            (P("target", required=True, help="the nation to attack", words=TEXT, complete="nation"),
             P("units", required=True, help='unit numbers, e.g. "1 2 3"', words=NUMBERS, complete="own_units"),
             P("retreat_at", int, help="every sent unit retreats when its HP falls to this", low=0,
               high=10), UNITS_NATION),
            action=lambda o: war.DeclareAttack(o["target"], parse_unit_ids(o["units"]), o.get("retreat_at"),
                                               o.get("nation"))),
    Command("attack commit", "defend: commit 1-3 of your units to the battle",
            (P("units", required=True, help='your unit numbers, e.g. "1 2 3" (see /army show)', words=NUMBERS,
               complete="commit_units"),
             P("retreat_at", int, help="each unit retreats when its HP falls to this", low=0, high=10),
             P("battle", int, help="the battle's number, if several wait for you (see /attack status)",
               complete="my_battle"), UNITS_NATION),
            action=lambda o: war.CommitUnits(parse_unit_ids(o["units"]), o.get("retreat_at"), o.get("battle"),
                                             o.get("nation"))),
    Command("attack pair", "initiative winner: pair an attacking and a defending unit; the duel is fought at once",
            (P("attacker", int, True, help="the attacking unit's number", complete="pair_attacker"),
             P("defender", int, True, help="the defending unit's number", complete="pair_defender"),
             P("battle", int, help="the battle's number, if several wait for you (see /attack status)",
               complete="my_battle")),
            action=lambda o: war.PairUnits(o["attacker"], o["defender"], o.get("battle"))),
    Command("attack retreat", "order a unit to retreat now, or when its HP falls to at_hp (0: cancel)",
            (P("unit", int, True, help="your unit's number (see /army show)", complete="own_unit"),
             P("at_hp", int, help="retreat when HP falls to this (0 withdraws the order; empty: now)", low=0, high=10)),
            action=lambda o: war.OrderRetreat(o["unit"], o.get("at_hp"))),
    Command("attack status", "the battles of this game and what each waits for",
            (P("battle", int, help="one battle's number (none: every battle)", complete="any_battle"),),
            view=views.battles_view),
    Command("gm set", "set a stat (N) or adjust it (+N / -N)",
            (P("nation", required=True, help="the nation", words=TEXT, complete="nation"),
             P("stat", required=True, choices=SETTABLE_STATS, help="the stat to set"),
             P("value", required=True, help="a number (N) or a change (+N / -N)")),
            action=_set_stat, gm_only=True),
    Command("gm unit add", "give a nation a unit",
            (P("nation", required=True, help="the nation", words=TEXT, complete="nation"),
             P("type", required=True, choices=UNIT_TYPES, help="the unit type"),
             P("rank", choices=RANKS, help="its rank (default: GREEN)")),
            action=lambda o: gm.AddUnit(o["nation"], o["type"], o.get("rank") or "green"), gm_only=True),
    Command("gm unit remove", "remove a unit", (P("unit", int, True, help="the unit's number (see /army show)",
                                                  complete="own_unit"),),
            action=lambda o: gm.RemoveUnit(o["unit"]), gm_only=True),
    Command("gm unit rank", "change a unit's rank (and HP)",
            (P("unit", int, True, help="the unit's number (see /army show)", complete="own_unit"),
             P("rank", required=True, choices=RANKS, help="the new rank"),
             P("hp", int, help="its HP (default: the rank's full HP)")),
            action=lambda o: gm.SetUnitRank(o["unit"], o["rank"], o.get("hp")), gm_only=True),
    Command("gm action grant", "give a nation an action back this turn",
            (P("nation", required=True, help="the nation", words=TEXT, complete="nation"),
             P("kind", choices=ACTION_KINDS, help="which action: attack, economy or propaganda (none: any)")),
            action=lambda o: gm.GrantAction(o["nation"], o.get("kind")), gm_only=True),
    Command("gm action revoke", "take an action away this turn",
            (P("nation", required=True, help="the nation", words=TEXT, complete="nation"),
             P("kind", choices=ACTION_KINDS, help="which action: attack, economy or propaganda (none: any)")),
            action=lambda o: gm.RevokeAction(o["nation"], o.get("kind")), gm_only=True),
    Command("gm battle cancel", "stop a battle with no result",
            (P("battle", int, True, help="the battle's number (see /attack status)", complete="my_battle"),),
            action=lambda o: war.CancelBattle(o["battle"]), gm_only=True),
    Command("gm turn end", "end the turn now", action=lambda o: clock.EndTurn(), gm_only=True),
    Command("gm clock length", "change the turn length",
            (P("hours", float, True, help="the new turn length, in hours", low=0.1, high=336.0),),
            action=lambda o: clock.SetTurnLength(o["hours"]), gm_only=True),
    Command("gm assign", "give a nation to a player (none: unassign)",
            (P("nation", required=True, help="the nation", words=TEXT, complete="nation"),
             P("player", help="its new player (none: unassign it)", kind=Player)),
            action=lambda o: gm.AssignNation(o["nation"], None if (o.get("player") or "none").lower() == "none"
                                             else o["player"]), gm_only=True),
    Command("gm eliminate", "eliminate a nation", (P("nation", required=True, help="the nation", words=TEXT,
                                                     complete="nation"),),
            action=lambda o: gm.Eliminate(o["nation"]), gm_only=True),
    Command("gm restore", "bring an eliminated nation back",
            (P("nation", required=True, help="the eliminated nation", words=TEXT, complete="nation"),),
            action=lambda o: gm.Restore(o["nation"]), gm_only=True),
    Command("gm decide", "make a battle's pending choice (no units/pairing: the default)",
            (P("battle", int, True, help="the battle's number (see /attack status)", complete="my_battle"),
             P("units", help='commit: the defender\'s unit numbers, e.g. "6 7"', words=NUMBERS,
               complete="commit_units"),
             P("attacker", int, help="pairing: the attacking unit's number", complete="pair_attacker"),
             P("defender", int, help="pairing: the defending unit's number", complete="pair_defender")),
            action=lambda o: war.DecideChoice(o["battle"], parse_unit_ids(o["units"]) if o.get("units") else None,
                                              o.get("attacker"), o.get("defender")), gm_only=True),
)

GROUPS: tuple[Group, ...] = (
    Group("nation", "Nations: claim, create, look"), Group("economy", "ECONOMY checks"),
    Group("stability", "STABILITY"), Group("propaganda", "PROPAGANDA actions"), Group("army", "Your units"),
    Group("attack", "War: battles between nations"),
    Group("gm unit", "Add, remove or change units"), Group("gm action", "Give or take actions this turn"),
    Group("gm turn", "The turn"), Group("gm battle", "Battles"),
)
