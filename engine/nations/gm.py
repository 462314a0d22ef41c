"""The GM's powers over a Nations game (ruling: GM powers). Every one is logged with who did it."""

from __future__ import annotations

from dataclasses import dataclass

from engine.core import Tx, require_gm
from engine.errors import BadInput, RuleViolation, UnknownUnit
from engine.gm import ClearDice, QueueDice, SetHouse  # noqa: F401  (the shared GM powers, for one import)
from engine.house import RulesError
from engine.names import name_key
from engine.nations.common import (
    acting_nation,
    broken_rules,
    change_land,
    eliminate_nation,
    find_nation,
    handles,
    notice_gm_override,
    notice_if_over_cap,
    room_for_units,
)
from engine.nations.events import (
    ActionGranted,
    ActionRevoked,
    NationAssigned,
    NationRestored,
    StatChanged,
    UnitChanged,
    UnitRemoved,
)
from engine.nations.peace import add_unit, player_name, refuse_look_alike_player
from engine.nations.rules import ACTION_KINDS, STAT_CODES, STATS, Rules
from engine.nations.schema import MAX_STAT
from engine.nations.state import GameState, Nation, Unit


@dataclass
class SetStat:
    nation: str
    stat: str
    value: int
    relative: bool = False  # "+2" / "-1": adjust instead of set


@dataclass
class AddUnit:
    nation: str
    unit_type: str
    rank: str = "green"


@dataclass
class RemoveUnit:
    unit: int


@dataclass
class SetUnitRank:
    unit: int
    rank: str
    hp: int | None = None


@dataclass
class GrantAction:
    nation: str
    kind: str | None = None


@dataclass
class RevokeAction:
    nation: str
    kind: str | None = None


@dataclass
class AssignNation:
    nation: str
    player: str | None


@dataclass
class Eliminate:
    nation: str


@dataclass
class Restore:
    nation: str


def stat_name(text: str) -> str:
    key = text.strip().lower()
    key = STAT_CODES.get(key, key)
    if key in ("patches", "foreign", "foreign patches"):
        key = "foreign_patches"
    if key not in (*STATS, "foreign_patches"):
        raise BadInput(f"unknown stat {text!r}; stats: {', '.join(STATS)}, foreign_patches")
    return key


@handles(SetStat)
def set_stat(tx: Tx[GameState], action: SetStat) -> None:
    """Set or adjust a stat. A GM fixes anything: the change applies, and what the nation now breaks of the
    rules (E + M over its land, a type under its quarter, an army over its MP cap) is shown as a warning.
    Land below E + M still cuts them to fit (the land rule), and no stat goes below 0."""
    require_gm(tx, "set stats")
    nation = find_nation(tx.state, action.nation)
    stat = stat_name(action.stat)
    current = nation.stat(stat)
    value = current + action.value if action.relative else action.value
    if value < 0:
        raise RuleViolation(f"{stat.upper()} cannot go below 0 (it would be {value})")
    if value > MAX_STAT and value > current:  # (one that play took higher may still be lowered)
        raise BadInput(f"a GM sets {stat.upper()} to at most {MAX_STAT:,}, not {value:,}")
    if value == current:
        raise RuleViolation(f"{nation.name}'s {stat.upper()} is already {value}")
    before = broken_rules(tx.rules, nation)
    if stat == "land":
        change_land(tx, nation, value - current, "set by GM", by=tx.ctx.actor)  # tells of an army over its cap
    else:
        tx.emit(StatChanged(nation.name, stat, value - current, "set by GM", tx.ctx.actor))
        if stat == "military":
            notice_if_over_cap(tx, nation)
    notice_gm_override(tx, nation, before)


def _rank(tx: Tx[GameState], text: str) -> str:
    rules: Rules = tx.rules
    try:
        return rules.rank_name(text)
    except RulesError as err:
        raise BadInput(str(err)) from None


def _unit(tx: Tx[GameState], unit_id: int) -> tuple[Nation, Unit]:
    owner = tx.state.unit_owner(unit_id)
    if owner is None:
        raise UnknownUnit(f"there is no unit #{unit_id}")
    return owner, owner.units[unit_id]


@handles(AddUnit)
def gm_add_unit(tx: Tx[GameState], action: AddUnit) -> None:
    require_gm(tx, "add units")
    nation = find_nation(tx.state, action.nation)
    try:
        unit_type = tx.rules.unit_type(action.unit_type)
    except RulesError as err:
        raise BadInput(str(err)) from None
    rank = _rank(tx, action.rank)
    room_for_units(tx.state, nation, 1)
    add_unit(tx, nation, unit_type, rank, "added by GM", by=tx.ctx.actor)
    notice_if_over_cap(tx, nation)


@handles(RemoveUnit)
def gm_remove_unit(tx: Tx[GameState], action: RemoveUnit) -> None:
    require_gm(tx, "remove units")
    nation, unit = _unit(tx, action.unit)
    if unit.battle is not None:
        raise RuleViolation(f"unit #{unit.id} is fighting in battle #{unit.battle}: cancel the battle first")
    tx.emit(UnitRemoved(nation.name, unit.id, unit.type, "removed by GM", tx.ctx.actor))


@handles(SetUnitRank)
def gm_set_rank(tx: Tx[GameState], action: SetUnitRank) -> None:
    """Change a unit's rank; its HP becomes the new rank's full HP unless given (1..max)."""
    require_gm(tx, "change units")
    nation, unit = _unit(tx, action.unit)
    rank = _rank(tx, action.rank)
    top = tx.rules.max_hp(unit.type, rank, nation.strength, nation.weakness)
    hp = top if action.hp is None else action.hp
    if not 1 <= hp <= top:
        raise RuleViolation(f"a {rank} {unit.type} unit of {nation.name} has 1 to {top} HP, not {hp}")
    if (rank, hp) == (unit.rank, unit.hp):
        raise RuleViolation(f"unit #{unit.id} is already {rank} with {hp} HP")
    tx.emit(UnitChanged(nation.name, unit.id, rank, hp, "changed by GM", unit.rank, unit.hp, tx.ctx.actor,
                        type=unit.type))


def _kind(text: str | None) -> str | None:
    if text is None or not text.strip():
        return None
    key = text.strip().lower()
    if key not in ACTION_KINDS:
        raise BadInput(f"unknown action kind {text!r}; kinds: {', '.join(ACTION_KINDS)}")
    return key


@handles(GrantAction)
def grant_action(tx: Tx[GameState], action: GrantAction) -> None:
    """Give an action back: the named (or last) used kind may be taken again; none used: one extra action."""
    require_gm(tx, "grant actions")
    nation = find_nation(tx.state, action.nation)
    kind = _kind(action.kind)
    if kind is not None and kind not in nation.actions_used:
        raise RuleViolation(f"{nation.name} has not used its {kind.upper()} action this turn")
    if kind is None and nation.actions_used:
        kind = nation.actions_used[-1]
    tx.emit(ActionGranted(nation.name, kind, tx.ctx.actor))


@handles(RevokeAction)
def revoke_action(tx: Tx[GameState], action: RevokeAction) -> None:
    """Take an action away for this turn: the named kind (or the first unused one) counts as used."""
    require_gm(tx, "revoke actions")
    nation = find_nation(tx.state, action.nation)
    kind = _kind(action.kind)
    unused = [k for k in ACTION_KINDS if k not in nation.actions_used]
    if kind is None:
        if not unused:
            raise RuleViolation(f"{nation.name} has no action left to take away")
        kind = unused[0]
    elif kind in nation.actions_used:
        raise RuleViolation(f"{nation.name} has already used its {kind.upper()} action")
    tx.emit(ActionRevoked(nation.name, kind, tx.ctx.actor))


@handles(AssignNation)
def assign_nation(tx: Tx[GameState], action: AssignNation) -> None:
    require_gm(tx, "assign nations")
    nation = find_nation(tx.state, action.nation)
    player = player_name(action.player) if action.player and action.player.strip() else None
    if player:
        held = tx.state.nation_of(player)
        if held is not None and held is not nation and not held.eliminated:
            raise RuleViolation(f"{player} already plays {held.name}")
        refuse_look_alike_player(tx.state, player)
    if (name_key(nation.player) if nation.player else None) == (name_key(player) if player else None):
        raise RuleViolation(f"{nation.name} is already {'played by ' + player if player else 'unassigned'}")
    tx.emit(NationAssigned(nation.name, player, tx.ctx.actor))


@handles(Eliminate)
def eliminate(tx: Tx[GameState], action: Eliminate) -> None:
    require_gm(tx, "eliminate nations")
    nation = acting_nation(tx, action.nation)  # refuses an already eliminated one
    eliminate_nation(tx, nation, "eliminated by GM", tx.ctx.actor)


@handles(Restore)
def restore(tx: Tx[GameState], action: Restore) -> None:
    require_gm(tx, "restore nations")
    nation = find_nation(tx.state, action.nation)
    if not nation.eliminated:
        raise RuleViolation(f"{nation.name} is not eliminated")
    if nation.land == 0:
        raise RuleViolation(f"{nation.name} has no land: give it land with /gm set first")
    tx.emit(NationRestored(nation.name, tx.ctx.actor))


def forced_dice(values: list[int | str], tx: Tx[GameState]) -> list[int]:
    """GM-entered Nations dice: whole numbers that a die of the rules shows."""
    sides = tx.rules.die_sides
    try:
        numbers = [int(v) for v in values]
    except (TypeError, ValueError):
        raise BadInput(f"Nations dice are whole numbers 1 to {sides}, not {' '.join(map(str, values))}") from None
    bad = [v for v in numbers if not 1 <= v <= sides]
    if bad:
        raise BadInput(f"a d{sides} shows 1 to {sides}; not {', '.join(map(str, bad))}")
    return numbers
