"""Nations at peace: claiming and creating nations, economy, stability, propaganda and the army.

Rule references are to the Nations rules as docs/nations.md states them (seed 003).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import timedelta

from engine.core import Tx, require_gm
from engine.errors import BadInput, RuleViolation, UnknownUnit
from engine.names import MAX_NAME, clean_name, name_key, refuse_look_alike
from engine.nations.common import (
    acting_nation,
    actions_left,
    army_mp,
    change_land,
    change_stat,
    clock_now,
    handles,
    notice_if_over_cap,
    rival,
    room_for_nation,
    room_for_units,
    turn_summary,
    type_mp,
)
from engine.nations.events import ActionUsed, BonusSet, NationAdded, TurnEnded, UnitAdded, UnitRemoved
from engine.nations.rules import BONUS_KINDS, Rules
from engine.nations.state import GameState, Nation

# --- actions -------------------------------------------------------------------------------------


@dataclass
class ClaimPreset:
    preset: str
    player: str | None = None
    name: str | None = None


@dataclass
class CreateNation:
    name: str
    economy: int
    military: int
    strength: str
    weakness: str
    units: dict[str, int] = field(default_factory=dict)
    player: str | None = None


@dataclass
class GrowEconomy:
    nation: str | None = None


@dataclass
class GrowMilitary:
    nation: str | None = None


@dataclass
class Recruit:
    unit_type: str
    nation: str | None = None


@dataclass
class RaiseStability:
    nation: str | None = None


@dataclass
class PropagandaAttack:
    target: str
    nation: str | None = None


@dataclass
class Encourage:
    kind: str
    nation: str | None = None


@dataclass
class Disband:
    unit: int
    nation: str | None = None


# --- shared checks -------------------------------------------------------------------------------


def spend_action(tx: Tx[GameState], nation: Nation, kind: str) -> None:
    """Count a rolled action for this turn, or refuse it (ruling: 2 a turn, never two of a kind)."""
    if kind in nation.actions_used:
        raise RuleViolation(
            f"{nation.name} has already made its {kind.upper()} action this turn (turn {tx.state.turn}); "
            "no doubling up"
        )
    if actions_left(tx.state, nation) == 0:
        used = ", ".join(a.upper() for a in nation.actions_used)
        raise RuleViolation(
            f"{nation.name} has used all its actions this turn ({used}); the turn ends at "
            f"{tx.state.turn_ends_at:%Y-%m-%d %H:%M} UTC"
        )
    tx.emit(ActionUsed(nation.name, kind))


def after_action(tx: Tx[GameState]) -> None:
    """Optional house rule: end the turn early once every nation in play has used its actions."""
    state = tx.state
    if not state.house.end_turn_when_all_done or state.paused:
        return
    playing = [n for n in state.nations.values() if n.player and not n.eliminated]
    if playing and all(actions_left(state, n) == 0 for n in playing):
        now = tx.ctx.now
        tx.emit(TurnEnded(state.turn, now, now + timedelta(hours=state.turn_hours), "all done", turn_summary(state)))


def economy_modifiers(tx: Tx[GameState], nation: Nation) -> dict[str, int]:
    return {"mod(E)": tx.rules.modifier(nation.economy), "Workers": nation.bonus("workers")}


def quarter_rule_block(rules: Rules, nation: Nation, unit_type: str) -> str | None:
    """Why the quarter rule forbids recruiting `unit_type` now, or None (seed: STRENGTH comes first)."""
    quarter = nation.military // 4
    for role, kind in (("STRENGTH", nation.strength), ("WEAKNESS", nation.weakness)):
        held = type_mp(rules, nation, kind)
        if held < quarter:  # the first role short of its quarter is the only one that may recruit
            if unit_type == kind:
                return None
            return (
                f"your {role} units ({kind}) cost {held} MP, under a quarter of M {nation.military} "
                f"({quarter} MP): only {kind} may be recruited until they do"
            )
    return None


def validate_name(state: GameState, name: str) -> str:
    """A new nation's name in its stored form (`engine.names.clean_name`), unless another nation has it
    (case, spacing and invisible characters aside)."""
    if not isinstance(name, str) or not name_key(name):
        raise BadInput("a nation needs a name (spaces and invisible characters do not count)")
    name = clean_name(name, "a nation's name", MAX_NAME)
    existing = state.find_nation(name)
    if existing is not None:
        raise RuleViolation(f"there is already a nation called {existing.name} in this game")
    refuse_look_alike(name, [n.name for n in state.nations.values()], "a nation in this game")
    return name


def player_name(raw: str) -> str:
    """A player's name as given (a Discord id, or a name typed in the console) in its stored form."""
    return clean_name(raw, "a player's name", MAX_NAME)


def refuse_look_alike_player(state: GameState, player: str) -> None:
    """Refuse a player's name that looks like (`engine.names.look_alike`) the GM's or another player's."""
    refuse_look_alike(player, [state.gm, *(n.player for n in state.nations.values() if n.player)],
                      "a player's name in this game")


def resolve_player(tx: Tx[GameState], player: str | None) -> str:
    """Whom a new nation is for: the actor, or (GM only) another player who has no nation yet."""
    who = player_name(player or tx.ctx.actor)
    if name_key(who) != name_key(tx.ctx.actor):
        require_gm(tx, "claim or create a nation for another player")
    held = tx.state.nation_of(who)
    if held is not None and not held.eliminated:
        raise RuleViolation(f"{who} already plays {held.name}")
    refuse_look_alike_player(tx.state, who)
    return who


def add_nation(tx: Tx[GameState], added: NationAdded, units: dict[str, int]) -> Nation:
    tx.emit(added)
    nation = tx.state.nations[added.name]
    rank = tx.state.house.preset_unit_rank
    for unit_type, count in units.items():
        for _ in range(count):
            add_unit(tx, nation, unit_type, rank, "starting army")
    notice_if_over_cap(tx, nation)
    return nation


def add_unit(tx: Tx[GameState], nation: Nation, unit_type: str, rank: str, reason: str, by: str | None = None) -> int:
    unit_id = tx.state.next_unit_id
    hp = tx.rules.max_hp(unit_type, rank, nation.strength, nation.weakness)
    tx.emit(UnitAdded(nation.name, unit_id, unit_type, rank, hp, reason, by))
    return unit_id


# --- nations -------------------------------------------------------------------------------------


@handles(ClaimPreset)
def claim_preset(tx: Tx[GameState], action: ClaimPreset) -> None:
    """Claim one of the seed's nations (ruling: presets as listed; the unnamed slot is named by whoever claims
    it, in the same command)."""
    try:
        preset = tx.rules.preset(action.preset)
    except ValueError as err:
        raise BadInput(str(err)) from None
    taken = [n for n in tx.state.nations.values() if n.preset_slot == preset.slot]
    if taken:
        raise RuleViolation(f"preset {preset.slot} is already claimed: {taken[0].name}")
    given = action.name if action.name and action.name.strip() else None
    name = preset.name
    if not name:  # ruling: whoever claims the unnamed slot, player or GM, names it in the same command
        if given is None:
            raise BadInput(f"preset slot {preset.slot} has no name in the seed: name it in the same command "
                           f"with name: (/nation claim preset:{preset.slot} name:<its name>)")
        name = given
    elif given is not None and name_key(given) != name_key(name):
        raise BadInput(f"{name} (slot {preset.slot}) keeps the seed's name: leave out name:")
    name = validate_name(tx.state, name)
    player = resolve_player(tx, action.player)
    room_for_nation(tx.state)
    room_for_units(tx.state, None, sum(preset.units.values()))
    house = tx.state.house
    add_nation(tx, NationAdded(
        name=name, player=player, economy=preset.economy, stability=preset.stability,
        military=preset.military, propaganda=preset.propaganda, land=house.new_nation_land,
        strength=preset.strength, weakness=preset.weakness, preset_slot=preset.slot,
    ), preset.units)


@handles(CreateNation)
def create_nation(tx: Tx[GameState], action: CreateNation) -> None:
    """A custom nation (ruling: E + M = 20, S = 10, P = 10, L = 20; army within cap, quarter rule met)."""
    rules: Rules = tx.rules
    house = tx.state.house
    name = validate_name(tx.state, action.name)
    strength, weakness = _unit_type(rules, action.strength), _unit_type(rules, action.weakness)
    if strength == weakness:
        raise RuleViolation(f"STRENGTH and WEAKNESS must be different types (both are {strength})")
    economy, military = action.economy, action.military
    if economy < 0 or military < 0:
        raise RuleViolation("ECONOMY and MILITARY cannot be negative")
    if economy + military != house.new_nation_total:
        raise RuleViolation(
            f"a new nation has E + M = {house.new_nation_total}; {economy} + {military} = {economy + military}"
        )
    units: dict[str, int] = {}
    for raw_type, count in action.units.items():
        if count < 0:
            raise BadInput("a unit count cannot be negative")
        unit_type = _unit_type(rules, raw_type)
        units[unit_type] = units.get(unit_type, 0) + count
    draft = Nation(name, None, economy, house.new_nation_stability, military, house.new_nation_propaganda,
                   house.new_nation_land, strength, weakness)
    mp = {t: rules.profile(t, strength, weakness).mp * n for t, n in units.items()}
    if sum(mp.values()) > military:
        raise RuleViolation(f"that army costs {sum(mp.values())} MP, more than M {military}")
    quarter = military // 4
    for role, kind in (("STRENGTH", strength), ("WEAKNESS", weakness)):
        if mp.get(kind, 0) < quarter:
            raise RuleViolation(
                f"your {role} units ({kind}) must cost at least a quarter of M {military}, {quarter} MP; "
                f"they cost {mp.get(kind, 0)}"
            )
    player = resolve_player(tx, action.player)
    room_for_nation(tx.state)
    room_for_units(tx.state, None, sum(units.values()))
    add_nation(tx, NationAdded(
        name=name, player=player, economy=economy, stability=draft.stability, military=military,
        propaganda=draft.propaganda, land=draft.land, strength=strength, weakness=weakness,
    ), units)


def _unit_type(rules: Rules, text: str) -> str:
    try:
        return rules.unit_type(text)
    except ValueError as err:
        raise BadInput(str(err)) from None


# --- economy -------------------------------------------------------------------------------------


@handles(GrowEconomy)
def grow_economy(tx: Tx[GameState], action: GrowEconomy) -> None:
    """ECONOMY check: d10 + mod(E) + Workers > E gains 1 E (refused when E + M already fills the land)."""
    nation = acting_nation(tx, action.nation)
    if nation.economy + nation.military >= nation.land:
        raise RuleViolation(
            f"no room: E+M = {nation.economy + nation.military} already equals your land {nation.land}"
        )
    spend_action(tx, nation, "economy")
    roll = tx.roll("grow economy", nation.name, economy_modifiers(tx, nation), nation.economy, ">")
    if roll.success:
        change_stat(tx, nation, "economy", 1, "grow economy")
    after_action(tx)


@handles(GrowMilitary)
def grow_military(tx: Tx[GameState], action: GrowMilitary) -> None:
    """ECONOMY check: d10 + mod(E) + Workers > M gains 1 M for 1 E (seed: M never above E + mod(E))."""
    nation = acting_nation(tx, action.nation)
    rules: Rules = tx.rules
    if nation.economy < 1:
        raise RuleViolation("growing MILITARY costs 1 ECONOMY and you have none")
    new_economy = nation.economy - 1
    cap = new_economy + rules.modifier(new_economy)
    if nation.military + 1 > cap:
        raise RuleViolation(
            f"MILITARY cannot rise above ECONOMY + its modifier: M would be {nation.military + 1}, "
            f"the cap after paying 1 E is {new_economy}{rules.modifier(new_economy):+d} = {cap}"
        )
    spend_action(tx, nation, "economy")
    roll = tx.roll("grow military", nation.name, economy_modifiers(tx, nation), nation.military, ">")
    if roll.success:
        change_stat(tx, nation, "military", 1, "grow military")
    if roll.success or not tx.state.house.military_cost_on_success:
        change_stat(tx, nation, "economy", -1, "cost of growing military")
    after_action(tx)


@handles(Recruit)
def recruit(tx: Tx[GameState], action: Recruit) -> None:
    """ECONOMY check against the type's RD: one GREEN unit (refused over the MP cap or by the quarter rule)."""
    nation = acting_nation(tx, action.nation)
    rules: Rules = tx.rules
    unit_type = _unit_type(rules, action.unit_type)
    profile = rules.profile(unit_type, nation.strength, nation.weakness)
    mp = army_mp(rules, nation)
    if mp + profile.mp > nation.military:
        raise RuleViolation(
            f"no MP to spare: your army costs {mp} MP, one {unit_type} unit {profile.mp} more, and M is "
            f"{nation.military}"
        )
    blocked = quarter_rule_block(rules, nation, unit_type)
    if blocked:
        raise RuleViolation(blocked)
    room_for_units(tx.state, nation, 1)
    spend_action(tx, nation, "economy")
    comparison = ">=" if tx.state.house.recruit_meets_difficulty else ">"
    roll = tx.roll(f"recruit {unit_type}", nation.name, economy_modifiers(tx, nation), profile.rd, comparison)
    if roll.success:
        add_unit(tx, nation, unit_type, "green", "recruited")
    after_action(tx)


@handles(Disband)
def disband(tx: Tx[GameState], action: Disband) -> None:
    """Disband one of your units (no roll, no action); the quarter rule holds unless the army is over its cap."""
    nation = acting_nation(tx, action.nation)
    unit = nation.units.get(action.unit)
    if unit is None:
        owner = tx.state.unit_owner(action.unit)
        if owner is None:
            raise UnknownUnit(f"there is no unit #{action.unit}")
        raise RuleViolation(f"unit #{action.unit} belongs to {owner.name}, not {nation.name}")
    if unit.battle is not None:
        raise RuleViolation(f"unit #{unit.id} is fighting in battle #{unit.battle}")
    blocked = quarter_rule_disband_block(tx.rules, nation, unit.type)
    if blocked:
        raise RuleViolation(blocked)
    tx.emit(UnitRemoved(nation.name, unit.id, unit.type, "disbanded"))


def quarter_rule_disband_block(rules: Rules, nation: Nation, unit_type: str) -> str | None:
    """Why disbanding one `unit_type` unit would break the quarter rule, or None (ruling: a STRENGTH or
    WEAKNESS type may not go below a quarter of M by disbanding, unless the army is over its MP cap)."""
    if army_mp(rules, nation) > nation.military:
        return None
    quarter = nation.military // 4
    for role, kind in (("STRENGTH", nation.strength), ("WEAKNESS", nation.weakness)):
        if unit_type != kind:
            continue
        left = type_mp(rules, nation, kind) - rules.profile(kind, nation.strength, nation.weakness).mp
        if left < quarter:
            return (
                f"your {role} units ({kind}) would cost {left} MP, under a quarter of M {nation.military} "
                f"({quarter} MP): disband another type (only an army over its MP cap may go below)"
            )
    return None


# --- stability -----------------------------------------------------------------------------------


@handles(RaiseStability)
def raise_stability(tx: Tx[GameState], action: RaiseStability) -> None:
    """Trade: permanently lose 2 MILITARY to gain 1 STABILITY (no roll, no action)."""
    nation = acting_nation(tx, action.nation)
    cost, gain = tx.rules.trade_military, tx.rules.trade_stability
    if nation.military < cost:
        raise RuleViolation(f"raising STABILITY costs {cost} MILITARY and you have {nation.military}")
    mp = army_mp(tx.rules, nation)
    if mp > nation.military - cost:
        raise RuleViolation(
            f"your army costs {mp} MP; with M {nation.military - cost} it would be over its cap "
            "(disband units first)"
        )
    change_stat(tx, nation, "military", -cost, "traded for stability")
    change_stat(tx, nation, "stability", gain, "traded military")


# --- propaganda ----------------------------------------------------------------------------------


@handles(PropagandaAttack)
def propaganda_attack(tx: Tx[GameState], action: PropagandaAttack) -> None:
    """d10 + mod(P) > target's effective S + Patriotism: P + 1 and d10 x 3 land (house); failure P - 1."""
    nation = acting_nation(tx, action.nation)
    target = rival(tx, nation, action.target, "make a propaganda attack on")
    spend_action(tx, nation, "propaganda")
    defence = target.effective_stability + target.bonus("patriotism")
    roll = tx.roll(
        f"propaganda attack on {target.name}{_defence_parts(target)}", nation.name,
        {"mod(P)": tx.rules.modifier(nation.propaganda)}, defence, ">",
    )
    if not roll.success:
        change_stat(tx, nation, "propaganda", tx.rules.propaganda_failure_change, "failed propaganda attack")
        after_action(tx)
        return
    change_stat(tx, nation, "propaganda", tx.rules.propaganda_success_change, "successful propaganda attack")
    spoils = tx.roll(f"propaganda spoils from {target.name}", nation.name, target=None, comparison=None)
    taken = min(spoils.die * tx.state.house.spoils_multiplier, target.land)
    reason = f"propaganda by {nation.name}"
    change_land(tx, target, -taken, reason)
    change_land(tx, nation, taken, f"propaganda against {target.name}")
    change_stat(tx, nation, "foreign_patches", 1, f"land taken from {target.name}")
    after_action(tx)


def _defence_parts(target: Nation) -> str:
    """What a propaganda attack's target is made of, as every roll shows its modifiers: " (S 9 + Patriotism
    2 = 11)", " (S 4 − 3 for 3 foreign patches = 1)" — every patch counted, and "never below 0" where they
    take more than its STABILITY; nothing when it is the plain STABILITY (a part worth 0 is not listed)."""
    parts = [f"S {target.stability}"]
    patches = target.foreign_patches
    if patches:
        parts.append(f"− {patches} for {patches} foreign patch{'' if patches == 1 else 'es'}")
        if patches > target.stability:
            parts[-1] += ", never below 0" + ("," if target.bonus("patriotism") else "")
    patriotism = target.bonus("patriotism")
    if patriotism:
        parts.append(f"{'+' if patriotism > 0 else '−'} Patriotism {abs(patriotism)}")
    if len(parts) == 1:
        return ""
    return f" ({' '.join(parts)} = {target.effective_stability + patriotism})"


@handles(Encourage)
def encourage(tx: Tx[GameState], action: Encourage) -> None:
    """d10 + mod(P), bonus from the PROPAGANDA table for 36 h (same kind: the higher value, the later end)."""
    kind = action.kind.strip().lower()
    if kind not in BONUS_KINDS:
        raise BadInput(f"encourage what? one of {', '.join(BONUS_KINDS)}")
    nation = acting_nation(tx, action.nation)
    spend_action(tx, nation, "propaganda")
    first_row = min(tx.rules.propaganda_bonus)
    roll = tx.roll(f"encourage {kind}", nation.name, {"mod(P)": tx.rules.modifier(nation.propaganda)},
                   first_row, ">=")
    value = tx.rules.encourage_bonus(roll.total)
    if value is not None:
        expires = clock_now(tx) + timedelta(hours=tx.state.house.bonus_hours)
        held = nation.bonuses.get(kind)
        if held is not None:
            value, expires = max(value, held.value), max(expires, held.expires_at)
        if held is None or (held.value, held.expires_at) != (value, expires):
            tx.emit(BonusSet(nation.name, kind, value, expires))
    after_action(tx)
