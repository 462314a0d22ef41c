"""What the Nations action modules share: dispatch, lookups and the land and stat rules every action uses."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timedelta
from typing import TypeVar

from engine import core
from engine.core import Tx
from engine.errors import NotYourNation, RuleViolation, UnknownNation
from engine.events import Notice
from engine.names import name_key
from engine.nations.events import BattleEnded, NationEliminated, StatChanged, UnitChanged
from engine.nations.rules import ACTION_KINDS, Rules
from engine.nations.schema import MAX_GAME_UNITS, MAX_KEPT_BATTLES, MAX_LIVE_BATTLES, MAX_NATIONS, MAX_UNITS
from engine.nations.state import Battle, GameState, Nation

RULESET = "nations"
A = TypeVar("A")  # a Nations action's class
Handler = Callable[[Tx[GameState], A], None]  # the function that applies it


def handles(action_type: type[A]) -> Callable[[Handler[A]], Handler[A]]:
    """Register the function that applies one kind of Nations action."""
    return core.handles(action_type, RULESET)


def clock_now(tx: Tx[GameState]) -> datetime:
    """The game clock's time: now, or while the clock is paused the moment it stopped, so that a deadline opened
    during a pause (a battle choice, a bonus's expiry) has its whole span left when the clock resumes."""
    return paused_since(tx.state) or tx.ctx.now


def paused_since(state: GameState) -> datetime | None:
    """When the clock was paused (None: it runs). A game paused before the moment was recorded counts from when
    its turn's time left was taken."""
    if not state.paused:
        return None
    if state.paused_at is not None:
        return state.paused_at
    return state.turn_ends_at - timedelta(seconds=state.paused_remaining or 0)


def change_stat(tx: Tx[GameState], nation: Nation, stat: str, delta: int, reason: str, by: str | None = None) -> int:
    """Change a stat by `delta`, never below 0; returns the change actually made."""
    current: int = getattr(nation, stat)
    applied = max(-current, delta)
    if applied:
        tx.emit(StatChanged(nation.name, stat, applied, reason, by))
    return applied


def change_land(tx: Tx[GameState], nation: Nation, delta: int, reason: str, by: str | None = None) -> None:
    """Gain or lose land; a loss cuts E and M to fit, and 0 land eliminates the nation."""
    change_stat(tx, nation, "land", delta, reason, by)
    if cut_to_land(tx, nation, reason):
        notice_if_over_cap(tx, nation)
    if nation.land == 0 and not nation.eliminated:
        eliminate_nation(tx, nation, f"no land left ({reason})")


def eliminate_nation(tx: Tx[GameState], nation: Nation, reason: str, by: str | None = None) -> None:
    """Eliminate a nation; every battle it is still in is cancelled at once (ruling: its units go home and
    heal, and no land or PROPAGANDA changes hands)."""
    tx.emit(NationEliminated(nation.name, reason, by))
    for battle in list(tx.state.battles.values()):
        if not battle.over and battle.side_of(nation.name) is not None:
            close_battle(tx, battle, "cancelled", None, None, f"{nation.name} was eliminated")


def close_battle(tx: Tx[GameState], battle: Battle, result: str, winner: str | None, loser: str | None,
                 reason: str = "") -> None:
    """End the battle, freeing its units; survivors return to full HP (house setting)."""
    survivors = [(n, u) for n in sides_of(tx.state, battle) for u in n.units.values() if u.battle == battle.id]
    tx.emit(BattleEnded(battle.id, result, winner, loser, reason))
    if tx.state.house.full_hp_after_battle:
        for owner, unit in survivors:
            top = tx.rules.max_hp(unit.type, unit.rank, owner.strength, owner.weakness)
            if unit.hp < top:
                tx.emit(UnitChanged(owner.name, unit.id, unit.rank, top, "back to full HP after the battle",
                                    unit.rank, unit.hp, type=unit.type))


def sides_of(state: GameState, battle: Battle) -> list[Nation]:
    """The battle's two nations, in the game's order: only their units can be in it (not every unit of the game
    is looked at when it ends: an elimination may end a hundred battles at once)."""
    return [n for n in state.nations.values() if n.name in (battle.attacker, battle.defender)]


def cut_to_land(tx: Tx[GameState], nation: Nation, reason: str) -> bool:
    """Cut E and M to fit the land, one point at a time from the larger (ruling: M on a tie), worked out at once.

    True if MILITARY was cut.
    """
    excess = nation.economy + nation.military - nation.land
    if excess <= 0:
        return False
    economy, military = nation.economy, nation.military
    first = min(excess, abs(military - economy))  # from the larger, until they are equal
    if military > economy or (military == economy and tx.state.house.land_cut_tie == "military"):
        military -= first
    else:
        economy -= first
    rest = excess - first  # then in turn, the tie's first (the next point always comes off the larger)
    tie_first = -(-rest // 2)
    if tx.state.house.land_cut_tie == "military":
        military, economy = military - tie_first, economy - rest // 2
    else:
        economy, military = economy - tie_first, military - rest // 2
    cut = {"economy": nation.economy - economy, "military": nation.military - military}
    for stat, points in cut.items():
        if points:
            change_stat(tx, nation, stat, -points, f"cut to fit land ({reason})")
    return cut["military"] > 0


def notice_if_over_cap(tx: Tx[GameState], nation: Nation) -> None:
    """Tell the players when an army costs more MP than its nation's MILITARY (it keeps its units)."""
    mp = army_mp(tx.rules, nation)
    if mp > nation.military and not nation.eliminated:
        tx.emit(Notice(
            f"{nation.name}'s army costs {mp} MP against M {nation.military}: over its MP cap. It keeps its "
            "units but cannot recruit until it fits; its player may disband units.",
            nation=nation.name,
        ))


def broken_rules(rules: Rules, nation: Nation) -> list[str]:
    """What a nation's stats and army break of the rules a GM may override (an army over its MP cap has a
    notice of its own, `notice_if_over_cap`)."""
    broken = []
    if nation.economy + nation.military > nation.land:
        broken.append(f"E+M = {nation.economy + nation.military} is over its land {nation.land}")
    quarter = nation.military // 4
    for role, kind in (("STRENGTH", nation.strength), ("WEAKNESS", nation.weakness)):
        held = type_mp(rules, nation, kind)
        if held < quarter:
            broken.append(f"its {role} units ({kind}) cost {held} MP, under a quarter of M {nation.military} "
                          f"({quarter} MP)")
    return broken


def notice_gm_override(tx: Tx[GameState], nation: Nation, before: list[str]) -> None:
    """After a GM's change (which always applies), warn of each rule the nation now breaks that it did not."""
    new = [b for b in broken_rules(tx.rules, nation) if b not in before]
    if new and not nation.eliminated:
        tx.emit(Notice(f"GM override: {nation.name} now breaks the rules: {'; '.join(new)}.", nation=nation.name))


# --- the game's bounds (an export of the game always imports again: `engine.nations.schema`) --------


def room_for_nation(state: GameState) -> None:
    """Refuse a new nation in a game that has MAX_NATIONS."""
    if len(state.nations) >= MAX_NATIONS:
        raise RuleViolation(f"this game has {len(state.nations)} nations, the most a game may have")


def room_for_units(state: GameState, nation: Nation | None, count: int) -> None:
    """Refuse `count` new units of `nation` (None: a nation not made yet) beyond MAX_UNITS a nation or
    MAX_GAME_UNITS a game."""
    held = len(nation.units) if nation is not None else 0
    if held + count > MAX_UNITS:
        whose = f"{nation.name} has {held}" if nation is not None else f"that is {count}"
        raise RuleViolation(f"a nation has at most {MAX_UNITS} units: {whose}")
    total = sum(len(n.units) for n in state.nations.values())
    if total + count > MAX_GAME_UNITS:
        raise RuleViolation(f"a game has at most {MAX_GAME_UNITS:,} units in all, and this one has {total:,}: "
                            "disband or remove some first")


def room_for_battle(state: GameState) -> None:
    """Refuse a new battle while MAX_LIVE_BATTLES are under way."""
    live = sum(1 for b in state.battles.values() if not b.over)
    if live >= MAX_LIVE_BATTLES:
        raise RuleViolation(f"{live} battles are under way in this game, the most at once: wait for one to end")


def no_battle(state: GameState, battle_id: int) -> str:
    """Why there is no battle of that number: there never was, or it ended long ago (`snapshot.kept_battles`)."""
    if 1 <= battle_id < state.next_battle_id:
        return (f"Battle #{battle_id} is over and no longer kept: a game keeps its last {MAX_KEPT_BATTLES} battles "
                "over (/log game tells every one)")
    return f"There is no battle #{battle_id}"


# --- lookups -------------------------------------------------------------------------------------


def find_nation(state: GameState, name: str) -> Nation:
    """The nation `name` names (whole name, unambiguous start, or preset slot); a refusal naming the nations."""
    nation = state.named_nation(name)
    if nation is None:
        known = ", ".join(state.nations) or "none yet"
        raise UnknownNation(f"no nation called {name!r} in this game (nations: {known})")
    return nation


def viewed_nation(state: GameState, actor: str, name: str | None) -> Nation:
    """The nation a query is about: the named one, or the actor's own."""
    if name:
        return find_nation(state, name)
    nation = state.nation_of(actor)
    if nation is None:
        raise UnknownNation("you have no nation in this game: name one")
    return nation


def acting_nation(tx: Tx[GameState], name: str | None) -> Nation:
    """The nation an action is for: the named one (its player or the GM only) or the actor's own."""
    if name:
        nation = find_nation(tx.state, name)
        if not tx.ctx.is_gm and not (nation.player and name_key(nation.player) == name_key(tx.ctx.actor)):
            raise NotYourNation(f"{nation.name} is not your nation")
    else:
        found = tx.state.nation_of(tx.ctx.actor)
        if found is None:
            raise RuleViolation("you have no nation in this game: claim one with /nation claim or /nation create")
        nation = found
    if nation.eliminated:
        raise RuleViolation(f"{nation.name} has been eliminated")
    return nation


def rival(tx: Tx[GameState], nation: Nation, name: str, verb: str) -> Nation:
    """The nation an attack of `nation` aims at: another nation still in the game."""
    target = find_nation(tx.state, name)
    if target.name == nation.name:
        raise RuleViolation(f"a nation cannot {verb} itself")
    if target.eliminated:
        raise RuleViolation(f"{target.name} has been eliminated")
    return target


def army_mp(rules: Rules, nation: Nation) -> int:
    """What the nation's units cost in MP, with its STRENGTH/WEAKNESS changes."""
    return sum(rules.profile(u.type, nation.strength, nation.weakness).mp for u in nation.units.values())


def type_mp(rules: Rules, nation: Nation, unit_type: str) -> int:
    mp = rules.profile(unit_type, nation.strength, nation.weakness).mp
    return mp * sum(1 for u in nation.units.values() if u.type == unit_type)


def turn_summary(state: GameState) -> dict[str, list[str]]:
    """Who did what this turn: each nation in play and the kinds of action it used."""
    return {n.name: list(n.actions_used) for n in state.nations.values() if not n.eliminated}


def actions_left(state: GameState, nation: Nation) -> int:
    allowed = state.house.actions_per_turn + nation.extra_actions
    return max(0, min(allowed - len(nation.actions_used), len(ACTION_KINDS) - len(set(nation.actions_used))))
