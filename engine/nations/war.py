"""Nations at war: declared attacks, initiative, duels, retreat, promotion and demotion, conquest.

A battle is a state machine — declared → the defender commits (or its default) → initiative →
pairing → rounds → next pairing → result. Each step is an event; each die a roll record. Dice are
rolled in the fixed order docs/nations.md gives ("Dice order"), so GM-entered dice play out predictably.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from engine.core import Tx, require_gm
from engine.errors import BadInput, RuleViolation, UnknownUnit
from engine.nations.common import (
    acting_nation,
    change_land,
    change_stat,
    clock_now,
    close_battle,
    handles,
    no_battle,
    rival,
    room_for_battle,
)
from engine.nations.events import (
    BattleAwaits,
    BattleDeclared,
    ChoiceDefaulted,
    DuelEnded,
    DuelStarted,
    InitiativeDecided,
    RetreatOrdered,
    RoundFought,
    UnitChanged,
    UnitLeftFight,
    UnitRemoved,
    UnitsCommitted,
)
from engine.nations.peace import after_action, spend_action
from engine.nations.rules import Rules
from engine.nations.state import Battle, GameState, Nation, Unit


@dataclass
class DeclareAttack:
    target: str
    units: list[int]
    retreat_at: int | None = None
    nation: str | None = None


@dataclass
class CommitUnits:
    units: list[int]
    retreat_at: int | None = None
    battle: int | None = None
    nation: str | None = None


@dataclass
class PairUnits:
    attacker_unit: int
    defender_unit: int
    battle: int | None = None


@dataclass
class OrderRetreat:
    unit: int
    at_hp: int | None = None  # None: retreat now; 0: withdraw the order


@dataclass
class DecideChoice:
    """GM: make a battle's pending choice (units to commit, or a pairing); nothing given: the default."""

    battle: int
    units: list[int] | None = None
    attacker_unit: int | None = None
    defender_unit: int | None = None


@dataclass
class CancelBattle:
    battle: int


# --- helpers -------------------------------------------------------------------------------------


def _battle(tx: Tx[GameState], battle_id: int) -> Battle:
    battle = tx.state.battles.get(battle_id)
    if battle is None:
        why = no_battle(tx.state, battle_id)
        raise BadInput(why[:1].lower() + why[1:])
    if battle.over:
        raise RuleViolation(f"battle #{battle_id} is over ({battle.result})")
    return battle


def _waiting_battle(tx: Tx[GameState], nation: Nation, stage: str, battle_id: int | None) -> Battle:
    """The battle this nation's choice is for: the named one, or the only/oldest one waiting on it."""
    if battle_id is not None:
        battle = _battle(tx, battle_id)
        if battle.side_of(nation.name) is None:
            raise RuleViolation(f"{nation.name} is not fighting in battle #{battle_id}")
        return battle
    waiting = [b for b in tx.state.battles.values() if b.stage == stage and chooser(b) == nation.name]
    if not waiting:
        what = "a commitment" if stage == "commit" else "a pairing"
        raise RuleViolation(f"no battle is waiting for {what} from {nation.name}")
    return waiting[0]


def chooser(battle: Battle) -> str | None:
    """The nation whose choice the battle waits for."""
    if battle.stage == "commit":
        return battle.defender
    if battle.stage == "pairing":
        return battle.attacker if battle.initiative == "attacker" else battle.defender
    return None


def _pick_units(tx: Tx[GameState], nation: Nation, ids: list[int]) -> list[Unit]:
    most = tx.rules.max_battle_units
    if not 1 <= len(ids) <= most:
        raise RuleViolation(f"a side fights with 1 to {most} units, not {len(ids)}")
    if len(set(ids)) != len(ids):
        raise BadInput("a unit is named twice")
    units = []
    for unit_id in ids:
        unit = nation.units.get(unit_id)
        if unit is None:
            owner = tx.state.unit_owner(unit_id)
            if owner is None:
                raise UnknownUnit(f"there is no unit #{unit_id}")
            raise RuleViolation(f"unit #{unit_id} belongs to {owner.name}, not {nation.name}")
        if unit.battle is not None:
            raise RuleViolation(f"unit #{unit_id} is already in battle #{unit.battle}")
        units.append(unit)
    return units


def _retreat_threshold(value: int | None) -> int | None:
    if value is not None and value < 0:
        raise BadInput("retreat_at is a number of HP, 0 or more")
    return value or None


def _deadline(tx: Tx[GameState]) -> datetime:
    """When a choice opened now falls to its default (`Rules.choice_hours`: a share of the turn by default)."""
    return clock_now(tx) + timedelta(hours=tx.rules.choice_hours(tx.state.house, tx.state.turn_hours))


def _awaits(tx: Tx[GameState], battle_id: int, stage: str, nation: str) -> None:
    """The battle waits for `nation`'s choice until its deadline, with a reminder part-way (none if the rules'
    `choice_reminder_share` is 0)."""
    deadline = _deadline(tx)
    share = tx.rules.choice_reminder_share
    opened = clock_now(tx)
    reminder = opened + (deadline - opened) * share if share > 0 else None
    tx.emit(BattleAwaits(battle_id, stage, nation, deadline, reminder))


def _strength(tx: Tx[GameState], nation: Nation, unit: Unit, side: str) -> tuple[int, int, int]:
    """How strong a unit is for the defaults: HP + COMBAT + its side's change; then rank; then the older."""
    profile = tx.rules.profile(unit.type, nation.strength, nation.weakness)
    change = profile.attack if side == "attacker" else profile.defence
    return (unit.hp + profile.combat + change, tx.rules.ranks.index(unit.rank), -unit.id)


def _strongest(tx: Tx[GameState], nation: Nation, units: list[Unit], side: str) -> list[Unit]:
    return sorted(units, key=lambda u: _strength(tx, nation, u, side), reverse=True)


# --- declaring and committing --------------------------------------------------------------------


@handles(DeclareAttack)
def declare_attack(tx: Tx[GameState], action: DeclareAttack) -> None:
    """ATTACK action: send 1–3 free units against a nation; no defenders means an instant win."""
    nation = acting_nation(tx, action.nation)
    target = rival(tx, nation, action.target, "attack")
    units = _pick_units(tx, nation, action.units)
    retreat_at = _retreat_threshold(action.retreat_at)
    room_for_battle(tx.state)
    spend_action(tx, nation, "attack")
    battle_id = tx.state.next_battle_id
    tx.emit(BattleDeclared(battle_id, nation.name, target.name, [u.id for u in units], retreat_at,
                           _deadline(tx), tx.state.turn))
    if not [u for u in target.units.values() if u.battle is None]:
        _end_battle(tx, tx.state.battles[battle_id], "attacker won")
    else:
        _awaits(tx, battle_id, "commit", target.name)
    after_action(tx)


@handles(CommitUnits)
def commit_units(tx: Tx[GameState], action: CommitUnits) -> None:
    """The defender commits 1–3 free units; initiative follows at once."""
    nation = acting_nation(tx, action.nation)
    battle = _waiting_battle(tx, nation, "commit", action.battle)
    if battle.stage != "commit" or battle.defender != nation.name:
        raise RuleViolation(f"battle #{battle.id} is not waiting for {nation.name} to commit units")
    _commit(tx, battle, action.units, _retreat_threshold(action.retreat_at), tx.ctx.actor)


def _commit(tx: Tx[GameState], battle: Battle, unit_ids: list[int], retreat_at: int | None, by: str) -> None:
    defender = tx.state.nations[battle.defender]
    units = _pick_units(tx, defender, unit_ids)
    tx.emit(UnitsCommitted(battle.id, [u.id for u in units], retreat_at, by))
    _initiative(tx, tx.state.battles[battle.id])


def _initiative(tx: Tx[GameState], battle: Battle) -> None:
    """Each side d10 + mod(M) + Morale, the attacker first; the defender wins ties (seed)."""
    totals = {}
    for side in ("attacker", "defender"):
        nation = tx.state.nations[getattr(battle, side)]
        roll = tx.roll(f"initiative ({side}), battle #{battle.id}", nation.name,
                       {"mod(M)": tx.rules.modifier(nation.military), "Morale": nation.bonus("morale")},
                       battle=battle.id)
        totals[side] = roll.total
    winner = "attacker" if totals["attacker"] > totals["defender"] else "defender"
    tx.emit(InitiativeDecided(battle.id, winner))
    _next_pairing(tx, battle.id)


def _next_pairing(tx: Tx[GameState], battle_id: int) -> None:
    """End the battle if a side has no unit left in the fight; pair at once if only one pairing is possible."""
    battle = tx.state.battles[battle_id]
    if not battle.in_fight_defending:
        _end_battle(tx, battle, "attacker won")
    elif not battle.in_fight_attacking:
        _end_battle(tx, battle, "defender won")
    elif len(battle.in_fight_attacking) == 1 and len(battle.in_fight_defending) == 1:
        _duel(tx, battle, battle.in_fight_attacking[0], battle.in_fight_defending[0], "only pairing")
    else:
        chooser = getattr(battle, battle.initiative or "defender")
        _awaits(tx, battle.id, "pairing", chooser)


# --- pairing and the duel ------------------------------------------------------------------------


@handles(PairUnits)
def pair_units(tx: Tx[GameState], action: PairUnits) -> None:
    """The initiative winner pairs one attacking unit with one defending unit; the duel is rolled at once."""
    actor_nation = tx.state.nation_of(tx.ctx.actor)
    if actor_nation is None and not tx.ctx.is_gm:
        raise RuleViolation("you have no nation in this game")
    if action.battle is not None:
        battle = _battle(tx, action.battle)
    elif actor_nation is not None:
        battle = _waiting_battle(tx, actor_nation, "pairing", None)
    else:
        raise BadInput("name the battle with battle:")
    if battle.stage != "pairing":
        raise RuleViolation(f"battle #{battle.id} is not waiting for a pairing")
    picker = chooser(battle)
    if not tx.ctx.is_gm and (actor_nation is None or actor_nation.name != picker):
        raise RuleViolation(f"{picker} won the initiative in battle #{battle.id}: only its player pairs the units")
    by = picker if actor_nation is not None and actor_nation.name == picker else tx.ctx.actor
    _pair(tx, battle, action.attacker_unit, action.defender_unit, by or "")


def _pair(tx: Tx[GameState], battle: Battle, attacker_unit: int, defender_unit: int, by: str) -> None:
    if attacker_unit not in battle.in_fight_attacking:
        raise RuleViolation(f"unit #{attacker_unit} is not an attacking unit still in battle #{battle.id}; "
                            f"those are {_ids(battle.in_fight_attacking)}")
    if defender_unit not in battle.in_fight_defending:
        raise RuleViolation(f"unit #{defender_unit} is not a defending unit still in battle #{battle.id}; "
                            f"those are {_ids(battle.in_fight_defending)}")
    _duel(tx, battle, attacker_unit, defender_unit, by)


def _ids(ids: list[int]) -> str:
    return ", ".join(f"#{i}" for i in ids) or "none"


Fighter = tuple[str, Nation, Unit]  # side, nation, unit (the same objects the state holds)


def _duel(tx: Tx[GameState], battle: Battle, attacker_id: int, defender_id: int, by: str) -> None:
    """Round after round until a unit dies or retreats; then promotions; then the next pairing."""
    state = tx.state
    rules: Rules = tx.rules
    attacker, defender = state.nations[battle.attacker], state.nations[battle.defender]
    fighters: list[Fighter] = [
        ("attacker", attacker, attacker.units[attacker_id]),
        ("defender", defender, defender.units[defender_id]),
    ]
    tx.emit(DuelStarted(battle.id, attacker_id, defender_id, fighters[0][2].type, fighters[1][2].type, by))
    retreated: set[int] = set()
    outcome = ""
    while not outcome:
        tried = False
        # Retreat attempts come before the round, the attacker's first; an attempt takes the round's place.
        for side, nation, unit in fighters:
            if not _wants_retreat(battle, unit):
                continue
            tried = True
            roll = tx.roll(f"retreat of #{unit.id} {unit.type}, battle #{battle.id}", nation.name,
                           {"mod(S)": rules.modifier(nation.effective_stability),
                            "Patriotism": nation.bonus("patriotism")},
                           nation.military, ">", battle=battle.id, unit=unit.id)
            tx.emit(RoundFought(battle.id, {"kind": "retreat", "unit": unit.id, "side": side,
                                            "total": roll.total, "target": roll.target, "success": roll.success}))
            if roll.success:
                tx.emit(UnitLeftFight(battle.id, nation.name, unit.id, "retreated", unit.type))
                retreated.add(unit.id)
                outcome = f"the {side}'s #{unit.id} {unit.type} retreated"
                break
            if _wound(tx, battle, nation, unit, _opponent(fighters, side)):
                outcome = f"the {side}'s #{unit.id} {unit.type} was killed trying to retreat"
                break
        if outcome or tried:
            continue
        totals = {
            side: tx.roll(f"combat, #{unit.id} {unit.type} vs #{_opponent(fighters, side).id} "
                          f"{_opponent(fighters, side).type}", nation.name,
                          _combat_modifiers(tx, nation, unit, _opponent(fighters, side), side),
                          battle=battle.id, unit=unit.id).total
            for side, nation, unit in fighters
        }
        loser_side = "defender" if totals["attacker"] > totals["defender"] else "attacker"  # seed: defender wins ties
        _, loser_nation, loser = next(f for f in fighters if f[0] == loser_side)
        tx.emit(RoundFought(battle.id, {"kind": "round", "attacker_total": totals["attacker"],
                                        "defender_total": totals["defender"], "loser": loser.id}))
        if _wound(tx, battle, loser_nation, loser, _opponent(fighters, loser_side)):
            outcome = f"the {loser_side}'s #{loser.id} {loser.type} was killed"
    tx.emit(DuelEnded(battle.id, outcome))
    _promotions(tx, battle, fighters, retreated)
    _next_pairing(tx, battle.id)


def _opponent(fighters: list[Fighter], side: str) -> Unit:
    return next(unit for s, _, unit in fighters if s != side)


def _wants_retreat(battle: Battle, unit: Unit) -> bool:
    if unit.id not in battle.retreat_orders:
        return False
    at_hp = battle.retreat_orders[unit.id]
    return at_hp is None or unit.hp <= at_hp


def _combat_modifiers(tx: Tx[GameState], nation: Nation, unit: Unit, opponent: Unit, side: str) -> dict[str, int]:
    """COMBAT, WINS/FAILS against the opposing type, the side's STRENGTH/WEAKNESS change, Morale."""
    profile = tx.rules.profile(unit.type, nation.strength, nation.weakness)
    change = profile.attack if side == "attacker" else profile.defence
    return {
        "COMBAT": profile.combat,
        f"WINS vs {opponent.type}": profile.wins.get(opponent.type, 0),
        f"FAILS vs {opponent.type}": profile.fails.get(opponent.type, 0),
        "attack" if side == "attacker" else "defence": change,
        "Morale": nation.bonus("morale"),
    }


def _wound(tx: Tx[GameState], battle: Battle, nation: Nation, unit: Unit, opponent: Unit) -> bool:
    """Lose 1 HP; death at 0, else the demotion roll (CONSCRIPTs cannot drop). True if the unit died."""
    rules: Rules = tx.rules
    reason = f"wounded in battle #{battle.id}"
    tx.emit(UnitChanged(nation.name, unit.id, unit.rank, unit.hp - 1, reason, unit.rank, unit.hp, type=unit.type))
    if unit.hp <= 0:
        tx.emit(UnitLeftFight(battle.id, nation.name, unit.id, "killed", unit.type))
        tx.emit(UnitRemoved(nation.name, unit.id, unit.type, f"killed in battle #{battle.id}"))
        return True
    if unit.rank == rules.ranks[0]:
        return False
    need = rules.demotion[unit.rank][opponent.rank]
    roll = tx.roll(f"demotion of #{unit.id} {unit.type} (needs {need}+)", nation.name, target=need,
                   comparison=">=", battle=battle.id, unit=unit.id)
    if roll.success:
        lower = rules.ranks[rules.ranks.index(unit.rank) - 1]
        hp = min(unit.hp, rules.max_hp(unit.type, lower, nation.strength, nation.weakness))
        tx.emit(UnitChanged(nation.name, unit.id, lower, hp, "demoted", unit.rank, unit.hp, type=unit.type))
    return False


def _promotions(tx: Tx[GameState], battle: Battle, fighters: list[Fighter], retreated: set[int]) -> None:
    """Each surviving unit rolls for promotion, the attacking unit first; −2 after a retreat. GUARD is the top."""
    rules: Rules = tx.rules
    opponent_rank = {side: _opponent(fighters, side).rank for side, _, _ in fighters}  # before anyone rises
    for side, nation, unit in fighters:
        if unit.hp <= 0 or unit.rank == rules.ranks[-1]:
            continue
        need = rules.promotion[unit.rank][opponent_rank[side]]
        mods = {"retreated": rules.promotion_retreat_penalty} if unit.id in retreated else {}
        roll = tx.roll(f"promotion of #{unit.id} {unit.type} (needs {need}+)", nation.name, mods, need, ">=",
                       battle=battle.id, unit=unit.id)
        if roll.success:
            higher = rules.ranks[rules.ranks.index(unit.rank) + 1]
            tx.emit(UnitChanged(nation.name, unit.id, higher, unit.hp, "promoted", unit.rank, unit.hp,
                                type=unit.type))


# --- the end -------------------------------------------------------------------------------------


def _end_battle(tx: Tx[GameState], battle: Battle, result: str) -> None:
    """Conquest for a winning attacker (the loser's land, at most 5, moves to the winner; E/M cut; a foreign
    patch), P ± 1, full HP."""
    rules: Rules = tx.rules
    state = tx.state
    attacker, defender = state.nations[battle.attacker], state.nations[battle.defender]
    winner, loser = (attacker, defender) if result == "attacker won" else (defender, attacker)
    _close(tx, battle, result, winner.name, loser.name)
    change_stat(tx, winner, "propaganda", rules.propaganda_success_change, f"won battle #{battle.id}")
    change_stat(tx, loser, "propaganda", rules.propaganda_failure_change, f"lost battle #{battle.id}")
    if result == "attacker won":
        # Ruling: a province removes 5 land from the loser (at most what it has) and adds to the winner exactly
        # what the loser lost: land is never created.
        lost = min(rules.province_land, defender.land)
        if lost:
            change_land(tx, defender, -lost, f"province lost to {attacker.name}")
            change_land(tx, attacker, lost, f"province conquered from {defender.name}")
            change_stat(tx, attacker, "foreign_patches", 1, f"province of {defender.name}")


def _close(tx: Tx[GameState], battle: Battle, result: str, winner: str | None, loser: str | None) -> None:
    """End the battle, freeing its units; survivors return to full HP (house setting)."""
    close_battle(tx, battle, result, winner, loser)


# --- orders, GM decisions, deadlines -------------------------------------------------------------


@handles(OrderRetreat)
def order_retreat(tx: Tx[GameState], action: OrderRetreat) -> None:
    """A standing order: retreat now (no at_hp), when HP falls to at_hp, or never again (at_hp 0)."""
    owner = tx.state.unit_owner(action.unit)
    if owner is None:
        raise UnknownUnit(f"there is no unit #{action.unit}")
    nation = acting_nation(tx, owner.name)
    unit = nation.units[action.unit]
    if unit.battle is None:
        raise RuleViolation(f"unit #{unit.id} is not in a battle")
    battle = _battle(tx, unit.battle)
    if unit.id not in battle.in_fight_attacking + battle.in_fight_defending:
        raise RuleViolation(f"unit #{unit.id} has left the fight in battle #{battle.id}")
    if action.at_hp is not None and action.at_hp < 0:
        raise BadInput("at_hp is a number of HP, 0 or more")
    tx.emit(RetreatOrdered(battle.id, nation.name, unit.id, action.at_hp))


@handles(DecideChoice)
def decide_choice(tx: Tx[GameState], action: DecideChoice) -> None:
    require_gm(tx, "decide battle choices")
    battle = _battle(tx, action.battle)
    if battle.stage == "commit":
        if action.units:
            _commit(tx, battle, action.units, None, tx.ctx.actor)
        else:
            apply_default(tx, battle, tx.ctx.actor)
    elif battle.stage == "pairing":
        if action.attacker_unit is not None and action.defender_unit is not None:
            _pair(tx, battle, action.attacker_unit, action.defender_unit, tx.ctx.actor)
        elif action.attacker_unit is None and action.defender_unit is None:
            apply_default(tx, battle, tx.ctx.actor)
        else:
            raise BadInput("a pairing needs both attacker: and defender:")
    else:
        raise RuleViolation(f"battle #{battle.id} is not waiting for a choice")


def apply_default(tx: Tx[GameState], battle: Battle, by: str = "default") -> None:
    """The default for the pending choice: the defender's strongest free units, or strongest against strongest."""
    state = tx.state
    if battle.stage == "commit":
        defender = state.nations[battle.defender]
        free = [u for u in defender.units.values() if u.battle is None]
        chosen = _strongest(tx, defender, free, "defender")[:tx.rules.max_battle_units]
        if not chosen:
            tx.emit(ChoiceDefaulted(battle.id, "commit", defender.name, "no free units: the attacker wins", by=by))
            _end_battle(tx, battle, "attacker won")
            return
        tx.emit(ChoiceDefaulted(battle.id, "commit", defender.name,
                                f"its strongest free units {_ids([u.id for u in chosen])}", by=by))
        _commit(tx, battle, [u.id for u in chosen], None, by)
    elif battle.stage == "pairing":
        attacker, defender = state.nations[battle.attacker], state.nations[battle.defender]
        a = _strongest(tx, attacker, [attacker.units[i] for i in battle.in_fight_attacking], "attacker")[0]
        d = _strongest(tx, defender, [defender.units[i] for i in battle.in_fight_defending], "defender")[0]
        tx.emit(ChoiceDefaulted(battle.id, "pairing", chooser(battle) or "",
                                f"strongest against strongest: #{a.id} against #{d.id}", by=by))
        _duel(tx, battle, a.id, d.id, by)


@handles(CancelBattle)
def cancel_battle(tx: Tx[GameState], action: CancelBattle) -> None:
    """GM: stop a battle with no result; its units are freed (and healed, as after any battle)."""
    require_gm(tx, "cancel battles")
    _close(tx, _battle(tx, action.battle), "cancelled", None, None)
