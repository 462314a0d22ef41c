"""What the Nations queries show, written once for every front-end: the game's status, the nation list, a
nation's sheet, an army, the battles (`engine.view`: the console lays them out as text, Discord as embeds).
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from engine.describe import plural, time_left
from engine.events import Event
from engine.game import When
from engine.nations.common import actions_left, army_mp, no_battle, paused_since, viewed_nation
from engine.nations.describe import results_lines, unit_ref, winner_line
from engine.nations.rules import Rules
from engine.nations.state import GameState, Nation
from engine.nations.war import chooser
from engine.view import (
    At,
    Grid,
    Line,
    Part,
    Person,
    Section,
    Strong,
    View,
    cogm_parts,
    item,
    line,
    marking_strong,
    marking_who,
    section,
    table_rows,
    view,
    with_people,
)

SHOWN_UNDER_WAY = 20  # battles under way /attack status lists (the rest counted)
SHOWN_FINISHED = 5  # finished battles it lists, the last ones (the rest counted, and where to read them)


def until(state: GameState, moment: datetime, what: str = "") -> tuple[Part, ...]:
    """When a deadline falls: "until <time>" ("default at <time>"), or while the clock is paused the time it will
    have left when the clock resumes ("default 40 min after the clock resumes": a pause holds every deadline)."""
    since = paused_since(state)
    if since is not None:
        return (f"{what + ' ' if what else ''}{time_left(moment - since)} left when the clock resumes",)
    return (f"{what} at " if what else "until ", At(moment))


STANDING_HEADERS = ("nation", "player", "E", "S", "M", "P", "L", "units", "actions")


def standing(nation: Nation, state: GameState) -> tuple[Part, ...]:
    """A nation's row of the standings, a cell for each of `STANDING_HEADERS` (no actions once the game is over)."""
    tag = " (eliminated)" if nation.eliminated else ""
    player: Part = Person(nation.player) if nation.player else "no player"
    left = "" if state.ended else str(actions_left(state, nation))
    return (f"{nation.name}{tag}", player, str(nation.economy), str(nation.effective_stability),
            str(nation.military), str(nation.propaganda), str(nation.land), str(len(nation.units)), left)


def nation_line(nation: Nation, state: GameState) -> Line:
    """`Charon — bob: E 5 S 5 M 5 P 5 L 10; 2 units; 2 actions left`: its `standing` as a line."""
    name, player, economy, stability, military, propaganda, land, units, left = standing(nation, state)
    return line(f"{name} — ", player, f": E {economy} S {stability} M {military} P {propaganda} L {land}; "
                f"{units} units" + (f"; {plural(int(str(left)), 'action')} left" if left else ""))


def standings_section(state: GameState) -> Section:
    """Every nation's line, and the same as a table for a front-end that draws one (the page)."""
    if not state.nations:
        return Section(None, (line("No nations yet."),))
    headers = STANDING_HEADERS if not state.ended else STANDING_HEADERS[:-1]
    rows = tuple(standing(n, state)[:len(headers)] for n in state.nations.values())
    return Section(None, tuple(nation_line(n, state) for n in state.nations.values()),
                   Grid(headers, rows, frozenset(range(2, len(headers)))))


def status_view(state: GameState, rules: Rules) -> View:
    """/game status of a Nations game: the turn and its clock, every nation, the battle choices waiting."""
    clock: tuple[Part, ...] = ("over",) if state.ended else (
        f"paused: {time_left(timedelta(seconds=state.paused_remaining or 0))} left of the turn",) if state.paused \
        else ("ends ", At(state.turn_ends_at))
    title = line(f"Nations — turn {state.turn} ({state.turn_hours:g} h), ", *clock, "; GM: ", Person(state.gm),
                 *cogm_parts(state.cogms), *((" — ", Strong("GAME OVER")) if state.ended else ()))
    lines: list[Line] = []
    if state.forced_dice:
        count = len(state.forced_dice)
        lines.append(line(f"{count} GM-entered {'die' if count == 1 else 'dice'} waiting."))
    if state.ended and state.nations:  # how it ended: the winner as the final results name them
        lines.append(with_people(winner_line(state.final_standings(), marking_strong)))
    waiting = [b for b in state.battles.values() if b.stage in ("commit", "pairing")]
    after = [line(f"Battle #{b.id} waits for {chooser(b)} to "
                  f"{'commit units' if b.stage == 'commit' else 'pair units'} (", *until(state, b.deadline, "default"),
                  ")")
             for b in waiting if b.deadline]
    return view(title, *lines, standings_section(state), *after, loud=state.ended)


def list_view(state: GameState, rules: Rules, actor: str, options: dict[str, Any]) -> View:
    """/nation list."""
    nations = [nation_line(n, state) for n in state.nations.values()]
    if not nations:
        return view("No nations yet: /nation claim or /nation create.")
    return view(None, *nations)


def nation_view(nation: Nation, state: GameState, rules: Rules) -> View:
    """A nation's sheet: its stats with their modifiers, LAND, actions, bonuses and army."""
    mod = rules.modifier
    stab = f"{nation.effective_stability} (base {nation.stability}, −{nation.foreign_patches} foreign)" \
        if nation.foreign_patches else f"{nation.stability}"
    title = line(nation.name, *((" — ", Strong("ELIMINATED")) if nation.eliminated else ()), " — played by ",
                 Person(nation.player) if nation.player else "nobody")
    lines = [  # the stat block: its columns line up (a forum post keeps them in a code block)
        *table_rows((f"ECONOMY {nation.economy} ({mod(nation.economy):+d})",
                     f"STABILITY {stab} ({mod(nation.effective_stability):+d})"),
                    (f"MILITARY {nation.military} ({mod(nation.military):+d})",
                     f"PROPAGANDA {nation.propaganda} ({mod(nation.propaganda):+d})",
                     f"LAND {nation.land} (E+M {nation.economy + nation.military})"),
                    (f"STRENGTH {nation.strength}, WEAKNESS {nation.weakness}",)),
        line("The game is over." if state.ended else
             f"Actions: {actions_left(state, nation)} of {state.house.actions_per_turn} left this turn"
             + (f" (used: {', '.join(a.upper() for a in nation.actions_used)})" if nation.actions_used else "")),
    ]
    for bonus in nation.bonuses.values():
        lines.append(line(f"{bonus.kind.capitalize()} {bonus.value:+d} ", *until(state, bonus.expires_at)))
    army = army_view(nation, rules)
    return view(title, *lines, section(army.title, *army.lines), loud=nation.eliminated)


def army_view(nation: Nation, rules: Rules) -> View:
    """A nation's army: its MP against its cap, then each unit with its HP and battle."""
    mp = army_mp(rules, nation)
    over = (" — ", Strong("OVER ITS MP CAP")) if mp > nation.military else ()
    title = line(f"Army of {nation.name}: {mp} of {nation.military} MP", *over)
    units = []
    for unit in sorted(nation.units.values(), key=lambda u: u.id):
        top = rules.max_hp(unit.type, unit.rank, nation.strength, nation.weakness)
        where = f", in battle #{unit.battle}" if unit.battle is not None else ""
        units.append(item(f"{unit_ref(unit.id, unit.type, unit.rank)} {unit.hp}/{top} HP{where}"))
    return view(title, *units)


def show_nation(state: GameState, rules: Rules, actor: str, options: dict[str, Any]) -> View:
    """/nation show [nation:]."""
    return nation_view(viewed_nation(state, actor, options.get("nation")), state, rules)


def show_army(state: GameState, rules: Rules, actor: str, options: dict[str, Any]) -> View:
    """/army show [nation:]."""
    return army_view(viewed_nation(state, actor, options.get("nation")), rules)


def battles_view(state: GameState, rules: Rules, actor: str, options: dict[str, Any]) -> View:
    """/attack status [battle:]: the battles under way (at most SHOWN_UNDER_WAY) and the last SHOWN_FINISHED
    finished ones, with a count of the rest and where to read them (or one battle, finished or not), each with
    what it waits for and its duels so far."""
    battle_id = options.get("battle")
    battles = [b for b in state.battles.values() if battle_id in (None, b.id)]
    if not battles:
        return view("No battles." if battle_id is None else f"{no_battle(state, battle_id)}.")
    rest: list[str] = []
    if battle_id is None:
        under_way = [b for b in battles if not b.over]
        finished = [b for b in battles if b.over]
        kept = {b.id for b in under_way[:SHOWN_UNDER_WAY]} | {b.id for b in finished[-SHOWN_FINISHED:]}
        battles = [b for b in battles if b.id in kept]
        if len(under_way) > SHOWN_UNDER_WAY:
            rest.append(f"{plural(len(under_way) - SHOWN_UNDER_WAY, 'more battle')} under way not shown: "
                        "/attack status with battle: shows any one.")
        if len(finished) > SHOWN_FINISHED:
            rest.append(f"{plural(len(finished) - SHOWN_FINISHED, 'earlier finished battle')} not shown: "
                        "/attack status with battle: shows any one, /log game tells each turn's story.")
    shown: list[Section | str] = []
    for b in battles:
        status = b.result if b.over else {
            "commit": f"waits for {b.defender} to commit units",
            "pairing": f"waits for {chooser(b)} to pair units",
        }.get(b.stage, "being fought")
        due: tuple[Part, ...] = (" (", *until(state, b.deadline), ")") if b.deadline and not b.over else ()
        lines = [item(f"attacking: {_unit_list(b.attacking, b.in_fight_attacking, b.retreat_orders)}")]
        if b.defending:
            lines.append(item(f"defending: {_unit_list(b.defending, b.in_fight_defending, b.retreat_orders)}"))
        for duel in b.duels:
            rounds = len([r for r in duel["rounds"] if r["kind"] == "round"])
            lines.append(item(f"duel: {unit_ref(duel['attacker_unit'], duel['attacker_type'])} vs "
                              f"{unit_ref(duel['defender_unit'], duel['defender_type'])}, {rounds} rounds — "
                              f"{duel['outcome'] or 'under way'}"))
        shown.append(section(line(f"Battle #{b.id}, turn {b.turn}: {b.attacker} against {b.defender} — {status}",
                                  *due), *lines))
    return view(None, *shown, *rest)


def _unit_list(ids: list[int], in_fight: list[int], orders: dict[int, int | None]) -> str:
    def one(unit: int) -> str:
        order = ""
        if unit in orders:
            order = ", retreat now" if orders[unit] is None else f", retreat at {orders[unit]} HP"
        return f"#{unit}" + ("" if unit in in_fight else " (out)") + order

    return "; ".join(one(u) for u in ids)


def results_view(standings: dict[str, Any]) -> View | None:
    """A Nations game's final standings (`GameEnded.standings`) as a view; None when there are none."""
    if not standings.get("nations"):
        return None
    lines = [with_people(text) for text in results_lines(standings, marking_who, marking_strong)]
    turn = standings.get("turn")
    ended = [f"The game ended in turn {turn}."] if turn else []
    return view("🏁 Game over — final results", lines[0], *ended, *lines[1:], colour="results")


def actor_note(state: GameState, events: list[Event[Any]], actor: str, when: When) -> str | None:
    """After a player's action: how many actions their nation has left, and when the turn ends."""
    nation = state.nation_of(actor)
    used = [e for e in events if e.kind == "action_used"]
    if nation is None or not used or nation.eliminated:
        return None
    return (f"{nation.name}: {actions_left(state, nation)} of {state.house.actions_per_turn} actions left; "
            f"turn {state.turn} ends {when(state.turn_ends_at)}.")
