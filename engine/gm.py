"""The GM's powers over a Nations game (ruling: GM powers). Every one is logged with who did it."""

from __future__ import annotations

from dataclasses import dataclass

from engine.core import Tx, acting_nation, find_nation, handles, require_gm
from engine.errors import BadInput, RuleViolation, UnknownUnit
from engine.events import (
    ActionGranted,
    ActionRevoked,
    DiceCleared,
    DiceQueued,
    HouseChanged,
    NationAssigned,
    NationEliminated,
    NationRestored,
    StatChanged,
    UnitChanged,
    UnitRemoved,
)
from engine.nations import add_unit
from engine.rules import ACTION_KINDS, STAT_CODES, STATS, RulesError
from engine.state import Nation, Unit

MAX_QUEUED_DICE = 100


@dataclass
class QueueDice:
    values: list[int]


@dataclass
class ClearDice:
    pass


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


@dataclass
class SetHouse:
    key: str
    value: str


@handles(QueueDice)
def queue_dice(tx: Tx, action: QueueDice) -> None:
    """Enter the next dice by hand; each is used by the next roll and logged as GM-entered."""
    require_gm(tx, "enter dice")
    sides = tx.rules.die_sides
    if not action.values:
        raise BadInput("give the dice to enter, e.g. values:\"7 3 10\"")
    bad = [v for v in action.values if not 1 <= v <= sides]
    if bad:
        raise BadInput(f"a d{sides} shows 1 to {sides}; not {', '.join(map(str, bad))}")
    if len(tx.state.forced_dice) + len(action.values) > MAX_QUEUED_DICE:
        raise BadInput(f"at most {MAX_QUEUED_DICE} dice may wait in the queue")
    tx.emit(DiceQueued(list(action.values), tx.ctx.actor))


@handles(ClearDice)
def clear_dice(tx: Tx, action: ClearDice) -> None:
    require_gm(tx, "clear entered dice")
    if not tx.state.forced_dice:
        raise RuleViolation("no entered dice are waiting")
    tx.emit(DiceCleared(tx.ctx.actor))


def stat_name(text: str) -> str:
    key = text.strip().lower()
    key = STAT_CODES.get(key, key)
    if key in ("patches", "foreign", "foreign patches"):
        key = "foreign_patches"
    if key not in (*STATS, "foreign_patches"):
        raise BadInput(f"unknown stat {text!r}; stats: {', '.join(STATS)}, foreign_patches")
    return key


@handles(SetStat)
def set_stat(tx: Tx, action: SetStat) -> None:
    """Set or adjust a stat. Land below E + M cuts them to fit; E or M above the land is refused."""
    require_gm(tx, "set stats")
    nation = find_nation(tx.state, action.nation)
    stat = stat_name(action.stat)
    current = nation.stat(stat)
    value = current + action.value if action.relative else action.value
    if value < 0:
        raise RuleViolation(f"{stat.upper()} cannot go below 0 (it would be {value})")
    if stat in ("economy", "military"):
        other = nation.military if stat == "economy" else nation.economy
        if value + other > nation.land:
            raise RuleViolation(
                f"E+M would be {value + other}, over {nation.name}'s land {nation.land}: raise its land first"
            )
    if value == current:
        raise RuleViolation(f"{nation.name}'s {stat.upper()} is already {value}")
    if stat == "land":
        tx.change_land(nation, value - current, "set by GM", by=tx.ctx.actor)  # tells of an army over its cap
    else:
        tx.emit(StatChanged(nation.name, stat, value - current, "set by GM", tx.ctx.actor))
        if stat == "military":
            tx.notice_if_over_cap(nation)


def _rank(tx: Tx, text: str) -> str:
    try:
        return tx.rules.rank_name(text)
    except RulesError as err:
        raise BadInput(str(err)) from None


def _unit(tx: Tx, unit_id: int) -> tuple[Nation, Unit]:
    owner = tx.state.unit_owner(unit_id)
    if owner is None:
        raise UnknownUnit(f"there is no unit #{unit_id}")
    return owner, owner.units[unit_id]


@handles(AddUnit)
def gm_add_unit(tx: Tx, action: AddUnit) -> None:
    require_gm(tx, "add units")
    nation = find_nation(tx.state, action.nation)
    try:
        unit_type = tx.rules.unit_type(action.unit_type)
    except RulesError as err:
        raise BadInput(str(err)) from None
    add_unit(tx, nation, unit_type, _rank(tx, action.rank), "added by GM", by=tx.ctx.actor)
    tx.notice_if_over_cap(nation)


@handles(RemoveUnit)
def gm_remove_unit(tx: Tx, action: RemoveUnit) -> None:
    require_gm(tx, "remove units")
    nation, unit = _unit(tx, action.unit)
    if unit.battle is not None:
        raise RuleViolation(f"unit #{unit.id} is fighting in battle #{unit.battle}: cancel the battle first")
    tx.emit(UnitRemoved(nation.name, unit.id, unit.type, "removed by GM", tx.ctx.actor))


@handles(SetUnitRank)
def gm_set_rank(tx: Tx, action: SetUnitRank) -> None:
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
    tx.emit(UnitChanged(nation.name, unit.id, rank, hp, "changed by GM", unit.rank, unit.hp, tx.ctx.actor))


def _kind(text: str | None) -> str | None:
    if text is None or not text.strip():
        return None
    key = text.strip().lower()
    if key not in ACTION_KINDS:
        raise BadInput(f"unknown action kind {text!r}; kinds: {', '.join(ACTION_KINDS)}")
    return key


@handles(GrantAction)
def grant_action(tx: Tx, action: GrantAction) -> None:
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
def revoke_action(tx: Tx, action: RevokeAction) -> None:
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
def assign_nation(tx: Tx, action: AssignNation) -> None:
    require_gm(tx, "assign nations")
    nation = find_nation(tx.state, action.nation)
    player = action.player.strip() if action.player else None
    if player:
        held = tx.state.nation_of(player)
        if held is not None and held is not nation and not held.eliminated:
            raise RuleViolation(f"{player} already plays {held.name}")
    if (nation.player or None) == player:
        raise RuleViolation(f"{nation.name} is already {'played by ' + player if player else 'unassigned'}")
    tx.emit(NationAssigned(nation.name, player, tx.ctx.actor))


@handles(Eliminate)
def eliminate(tx: Tx, action: Eliminate) -> None:
    require_gm(tx, "eliminate nations")
    nation = acting_nation(tx, action.nation)  # refuses an already eliminated one
    tx.emit(NationEliminated(nation.name, "eliminated by GM", tx.ctx.actor))


@handles(Restore)
def restore(tx: Tx, action: Restore) -> None:
    require_gm(tx, "restore nations")
    nation = find_nation(tx.state, action.nation)
    if not nation.eliminated:
        raise RuleViolation(f"{nation.name} is not eliminated")
    if nation.land == 0:
        raise RuleViolation(f"{nation.name} has no land: give it land with /gm set first")
    tx.emit(NationRestored(nation.name, tx.ctx.actor))


@handles(SetHouse)
def set_house(tx: Tx, action: SetHouse) -> None:
    """Change one house setting for this game only."""
    require_gm(tx, "change house settings")
    if action.key.strip().lower() == "turn_hours":
        raise BadInput("the turn length is changed with /gm clock length")
    try:
        changed = tx.state.house.with_value(action.key, action.value)
    except RulesError as err:
        raise BadInput(str(err)) from None
    tx.emit(HouseChanged(action.key, getattr(changed, action.key)))
