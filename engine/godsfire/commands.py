"""The Godsfire commands: `/godsfire …` → Godsfire actions (see `engine.vocabulary`), the foundation's own
followed by each rule section's (`movement`, `combat`, `war`, `economy`, `loans`, `politics`, `subversion`).

`godsfire phase show`, `godsfire status` and `godsfire system show` are queries the front-ends answer (with
`engine.godsfire.describe`). The GM's hand edits are `/godsfire set` (the shared `/gm set` is Nations').
"""

from __future__ import annotations

from typing import Any

from engine.godsfire import (
    buildup,
    charts,
    combat,
    economy,
    loans,
    maps,
    movement,
    phases,
    politics,
    setup,
    subversion,
    table,
    tableviews,
    views,
    war,
)
from engine.godsfire.rules import MOVERS
from engine.godsfire.state import MAX_PLANETS, MAX_REGIONS
from engine.vocabulary import NUMBERS, TEXT, Command, Group, Param, Player

P = Param


def _flag(o: dict[str, Any], name: str) -> bool:
    return str(o.get(name, "false")).strip().lower() in ("true", "yes", "1")


def _opt_int(o: dict[str, Any], name: str) -> int | None:
    value = o.get(name)
    return None if value is None else int(value)


OWN: tuple[Command, ...] = (
    Command("godsfire status", "the game: turn and phase, players, their systems and money",
            view=lambda state, rules, actor, options: views.status_view(state, rules), shows_ended=True),
    Command("godsfire counters", "the counters on the table: where each unit is, whose, and if it moved",
            (P("player", help="only this player's", complete="player"), P("at", help="only those at this position",
                                                                          words=TEXT, complete="position")),
            view=tableviews.counters_view),
    Command("godsfire player add", "add a player, or move a player's National Government (GM)",
            (P("name", required=True, help="the player", kind=Player),
             P("government", help="the system its National Government is on (one of its own)", complete="system")),
            action=lambda o: setup.AddPlayer(o["name"], o.get("government")), gm_only=True),
    Command("godsfire system add", "add a system, its regions rolled from the starting tables (GM)",
            (P("name", required=True, help="the system"),
             P("owner", help="its player (joins the game if new); none for a neutral system", kind=Player),
             P("planets", int, help="planets (default 1)", low=1, high=MAX_PLANETS),
             P("regions", int, help="regions (default 1)", low=1, high=MAX_REGIONS),
             P("neutral", bool, help="true: a neutral system with 3 SQD, 3 AG, 3 PDF")),
            action=lambda o: setup.AddSystem(o["name"], o.get("owner"), int(o.get("planets") or 1),
                                             int(o.get("regions") or 1), _flag(o, "neutral")),
            gm_only=True),
    Command("godsfire system conquer", "a neutral system conquered: re-rolled, every party R (GM)",
            (P("name", required=True, help="the neutral system", complete="system"),
             P("player", required=True, help="its conqueror", complete="player")),
            action=lambda o: setup.ConquerSystem(o["name"], o["player"]), gm_only=True),
    Command("godsfire system show", "a system's sheet: owner, planets, bank, loans, units and regions",
            (P("name", required=True, help="the system", complete="system"),), view=views.show_system),
    Command("godsfire set", "set any field of a system, region or player by hand (GM)",
            (P("field", required=True, help="e.g. allegiance, economy, party, revolt, bank, units, owner",
               complete="field"),
             P("value", required=True, help='e.g. 3, A-2, M, true, "AG=2 PDF=1"', words=TEXT),
             P("system", help="the system (and region:) whose field is set", complete="system"),
             P("region", int, help="the region's number in its system", low=1, high=MAX_REGIONS, complete="region"),
             P("player", help="the player whose field is set", complete="player")),
            action=lambda o: setup.SetField(o["field"], str(o["value"]), o.get("system"),
                                            _opt_int(o, "region"), o.get("player")),
            gm_only=True),
    Command("godsfire chart combat", "the Combat Results Table: the odds' column, a d6 and the result",
            (P("attack", int, True, help="attack strength", low=0, high=9999),
             P("defence", int, True, help="defence strength", low=0, high=9999),
             P("nebula", bool, help="true: in a nebula (both halved)")),
            action=lambda o: charts.Combat(o["attack"], o["defence"], _flag(o, "nebula"))),
    Command("godsfire chart transit", "Transit Attacks: a d6 on the referee's column",
            (P("column", required=True, choices=("-2", "-1", "0"), help="-2, -1 or 0"),),
            action=lambda o: charts.Transit(str(o["column"]))),
    Command("godsfire chart money", "a money die: black = its face in GB, red = face + 6",
            (P("die", required=True, choices=("black", "red"), help="black or red"),),
            action=lambda o: charts.MoneyDie(o["die"])),
    Command("godsfire chart move", "may this unit move so far? (the allowances, the nebula, the ground)",
            (P("unit", required=True, choices=MOVERS, help="SQD, AG, PDF, NG or GB"),
             P("cells", int, True, help="space cells moved", low=0, high=99),
             P("nebula", int, help="how many of them are in a nebula", low=0, high=99),
             P("ground", int, help="ground areas moved", low=0, high=99)),
            action=lambda o: charts.MoveCheck(o["unit"], o["cells"], int(o.get("nebula") or 0),
                                              int(o.get("ground") or 0))),
    Command("godsfire chart stack", "is this stack within the limits? (space, ground, ground combat)",
            (P("space", int, help="units in a space cell", low=0, high=999),
             P("ground", int, help="units in a ground area", low=0, high=999),
             P("combat", int, help="units in one stack of a ground combat", low=0, high=999),
             P("total", int, help="ground combat: units in the whole combat", low=0, high=999)),
            action=lambda o: charts.StackCheck(_opt_int(o, "space"), _opt_int(o, "ground"),
                                               _opt_int(o, "combat"), _opt_int(o, "total"))),
    Command("godsfire phase show", "where the turn is: its phase and the next", view=views.phase_view),
    Command("godsfire phase next", "step to the next phase (GM)", action=lambda o: phases.NextPhase(), gm_only=True),
    Command("godsfire counter add", "put counters on the table (GM): a unit, an NG or money carried",
            (P("kind", required=True, choices=("SQD", "AG", "PDF", "NG", "GB"), help="SQD, AG, PDF, NG or GB"),
             P("at", required=True, help="a system (Sol), a region (Sol 2) or a cell", words=TEXT, complete="position"),
             P("owner", help="the player (none: a neutral's)", complete="player"),
             P("count", int, help="how many (default 1)", low=1, high=999),
             P("amount", int, help="GB: the money it is", low=1, high=999)),
            action=lambda o: table.AddCounters(o["kind"], o["at"], o.get("owner"), int(o.get("count") or 1),
                                               int(o.get("amount") or 0)), gm_only=True),
    Command("godsfire counter remove", "take counters off the table (GM)",
            (P("counters", required=True, help='e.g. "3 4"', words=NUMBERS, complete="counters"),
             P("reason", help="why (logged)", words=TEXT)),
            action=lambda o: table.RemoveCounters(o["counters"], o.get("reason") or ""), gm_only=True),
    Command("godsfire system control", "name the player who moves a neutral system's units in combat (GM)",
            (P("system", required=True, help="the neutral system", complete="system"),
             P("player", required=True, help="the player", complete="player")),
            action=lambda o: table.SetNeutralControl(o["system"], o["player"]), gm_only=True),
)


GROUPS: tuple[Group, ...] = (
    Group("godsfire", "Godsfire: systems, the table, the phases and the social interphase"),
    Group("godsfire player", "Players and their National Governments"),
    Group("godsfire system", "Star systems: set up, conquer, show, neutral control"),
    Group("godsfire phase", "The turn's phases"),
    Group("godsfire counter", "Counters on the table (GM)"),
    Group("godsfire map", "The map: load one, and the table as a picture"),
    Group("godsfire chart", "The sheet's charts by hand: combat, transit, money, movement, stacking"),
    Group("godsfire movement", "A. The Movement Phase: initiative, moves, transit attacks"),
    Group("godsfire combat", "B. The Combat Phase: attacks, losses, retreats"),
    Group("godsfire war", "C. War between players"),
    Group("godsfire money", "D.1-D.3: tax, loans, transfers, money in transit"),
    Group("godsfire region", "A region: buy, place, develop, loyalty, party, revolt"),
    Group("godsfire subversion", "Subversion, de-subversion, counter-subversion"),
    Group("godsfire interphase", "The social interphase: steps, checks, ministers"),
    Group("godsfire victory", "The scenario's victory condition"),
)
"""/godsfire's groups, by the sheet's sections (A movement, B combat, C war, D the Social Interphase): Discord
allows 25 subcommands and groups to a command, and these leave room for the board's."""

def _by_group(commands: tuple[Command, ...]) -> tuple[Command, ...]:
    """The commands in their groups' order (so /help lists each group together), each group's in its own."""
    order = {group.path: index for index, group in enumerate(GROUPS)}

    def group_index(command: Command) -> int:
        return order.get(command.path.rsplit(" ", 1)[0], 0)
    return tuple(sorted(commands, key=group_index))


COMMANDS: tuple[Command, ...] = _by_group((*OWN, *maps.COMMANDS, *movement.COMMANDS, *buildup.COMMANDS,
                                           *combat.COMMANDS, *war.COMMANDS, *economy.COMMANDS, *loans.COMMANDS,
                                           *politics.COMMANDS, *subversion.COMMANDS))

RENAMED = {
    "godsfire initiative start": "godsfire movement initiative", "godsfire initiative": "godsfire movement initiative",
    "godsfire move": "godsfire movement move", "godsfire done": "godsfire movement done",
    "godsfire pass": "godsfire movement pass", "godsfire transit answer": "godsfire movement transit",
    "godsfire transit": "godsfire movement transit", "godsfire attack announce": "godsfire combat announce",
    "godsfire attack cancel": "godsfire combat cancel", "godsfire attack resolve": "godsfire combat resolve",
    "godsfire attack": "godsfire combat", "godsfire losses choose": "godsfire combat losses",
    "godsfire losses": "godsfire combat losses", "godsfire retreat": "godsfire combat retreat",
    "godsfire tax": "godsfire money tax", "godsfire loan repay": "godsfire money repay",
    "godsfire loan borrow": "godsfire money borrow", "godsfire loan": "godsfire money",
    "godsfire transfer": "godsfire money transfer",
}
"""Where the commands of the sheet's sections went when /godsfire was grouped by them (old path → new)."""
