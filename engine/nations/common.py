"""What the Nations action modules share: dispatch, lookups and the land and stat rules every action uses."""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from engine import core
from engine.core import Tx
from engine.errors import NotYourNation, RuleViolation, UnknownNation
from engine.events import Notice
from engine.names import name_key
from engine.nations.events import BattleEnded, NationEliminated, StatChanged, UnitChanged
from engine.nations.rules import ACTION_KINDS, Rules
from engine.nations.state import Battle, GameState, Nation

RULESET = "nations"
A = TypeVar("A")  # a Nations action's class
Handler = Callable[[Tx[GameState], A], None]  # the function that applies it


def handles(action_type: type[A]) -> Callable[[Handler[A]], Handler[A]]:
    """Register the function that applies one kind of Nations action."""
    return core.handles(action_type, RULESET)


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
    survivors = [(n, u) for n in tx.state.nations.values() for u in n.units.values() if u.battle == battle.id]
    tx.emit(BattleEnded(battle.id, result, winner, loser, reason))
    if tx.state.house.full_hp_after_battle:
        for owner, unit in survivors:
            top = tx.rules.max_hp(unit.type, unit.rank, owner.strength, owner.weakness)
            if unit.hp < top:
                tx.emit(UnitChanged(owner.name, unit.id, unit.rank, top, "back to full HP after the battle",
                                    unit.rank, unit.hp, type=unit.type))


def cut_to_land(tx: Tx[GameState], nation: Nation, reason: str) -> bool:
    """Cut E and M to fit the land, one point at a time from the larger (ruling: M on a tie).

    True if MILITARY was cut.
    """
    tie = tx.state.house.land_cut_tie
    cut = {"economy": 0, "military": 0}
    economy, military = nation.economy, nation.military
    while economy + military > nation.land:
        if military > economy or (military == economy and tie == "military"):
            military -= 1
            cut["military"] += 1
        else:
            economy -= 1
            cut["economy"] += 1
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
