"""The Nations events: every change to a Nations game's state, as a typed record.

Stat changes are deltas, so a log with one action taken out (undo) still replays. The events every game
shares (dice, house settings, import, end, undo, notices) are in `engine.events`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any, ClassVar

from engine.events import Event
from engine.nations.rules import HouseSettings
from engine.nations.state import Battle, Bonus, GameState, Nation, Unit

# --- the game ------------------------------------------------------------------------------------


class NationsEvent(Event[GameState], ruleset="nations"):
    """An event of a Nations game."""


@dataclass(frozen=True)
class GameStarted(NationsEvent):
    starts_game: ClassVar[bool] = True
    gm: str
    started_at: datetime
    house: dict[str, Any]

    def apply(self, state: GameState | None) -> GameState:
        house = HouseSettings(**self.house)
        return GameState(
            gm=self.gm, turn=1, turn_hours=house.turn_hours, turn_started_at=self.started_at,
            turn_ends_at=self.started_at + timedelta(hours=house.turn_hours), house=house,
        )


# --- the clock -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class TurnEnded(NationsEvent):
    """Turn `ended` is over; turn `ended + 1` runs from `started_at` to `ends_at`.

    `turns` > 1: a catch-up after a long absence ended that many turns at once (turns `ended - turns + 1`
    to `ended`, each on time; `actions` is what was done in the first of them, the others saw nothing)."""

    ended: int
    started_at: datetime
    ends_at: datetime
    reason: str  # "clock", "gm" or "all done"
    actions: dict[str, list[str]] = field(default_factory=dict)  # who did what in the turn that ended
    turns: int = 1

    def apply(self, state: GameState) -> GameState:
        state.turn = self.ended + 1
        state.turn_started_at = self.started_at
        state.turn_ends_at = self.ends_at
        for nation in state.nations.values():
            nation.actions_used = []
            nation.extra_actions = 0
        return state


@dataclass(frozen=True)
class ClockPaused(NationsEvent):
    """The clock stopped: every deadline is held (`at`: when; None in a log written before it was recorded)."""

    remaining_seconds: float
    at: datetime | None = None

    def apply(self, state: GameState) -> GameState:
        if not state.paused:  # (a turn ended by the GM while paused pauses the new turn: the pause goes on)
            state.paused_at = self.at
        state.paused = True
        state.paused_remaining = self.remaining_seconds
        return state


@dataclass(frozen=True)
class ClockResumed(NationsEvent):
    """The clock runs again: the turn ends at `ends_at`, and every other deadline (bonus expiries, battle
    choices and their reminders) moves on by the pause, `shift_seconds`, so each keeps the time it had left."""

    ends_at: datetime
    shift_seconds: float = 0.0

    def apply(self, state: GameState) -> GameState:
        state.paused = False
        state.paused_remaining = None
        state.paused_at = None
        state.turn_ends_at = self.ends_at
        shift = timedelta(seconds=self.shift_seconds)
        if shift:
            for nation in state.nations.values():
                for bonus in nation.bonuses.values():
                    bonus.expires_at += shift
            for battle in state.battles.values():
                if battle.deadline is not None:
                    battle.deadline += shift
                if battle.reminder_at is not None:
                    battle.reminder_at += shift
        return state


@dataclass(frozen=True)
class TurnLengthChanged(NationsEvent):
    hours: float
    ends_at: datetime
    paused_remaining: float | None = None

    def apply(self, state: GameState) -> GameState:
        state.turn_hours = self.hours
        state.turn_ends_at = self.ends_at
        if state.paused:
            state.paused_remaining = self.paused_remaining
        return state


# --- nations -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class NationAdded(NationsEvent):
    name: str
    player: str | None
    economy: int
    stability: int
    military: int
    propaganda: int
    land: int
    strength: str
    weakness: str
    preset_slot: int | None = None

    def apply(self, state: GameState) -> GameState:
        state.nations[self.name] = Nation(
            name=self.name, player=self.player, economy=self.economy, stability=self.stability,
            military=self.military, propaganda=self.propaganda, land=self.land,
            strength=self.strength, weakness=self.weakness, preset_slot=self.preset_slot,
        )
        return state


@dataclass(frozen=True)
class NationAssigned(NationsEvent):
    nation: str
    player: str | None
    by: str

    def apply(self, state: GameState) -> GameState:
        state.nations[self.nation].player = self.player
        return state


@dataclass(frozen=True)
class StatChanged(NationsEvent):
    """`stat` of `nation` changed by `delta` (stats, land and foreign_patches)."""

    nation: str
    stat: str
    delta: int
    reason: str
    by: str | None = None  # the GM, when a GM did it

    def apply(self, state: GameState) -> GameState:
        nation = state.nations[self.nation]
        setattr(nation, self.stat, getattr(nation, self.stat) + self.delta)
        return state


@dataclass(frozen=True)
class NationEliminated(NationsEvent):
    nation: str
    reason: str
    by: str | None = None

    def apply(self, state: GameState) -> GameState:
        state.nations[self.nation].eliminated = True
        return state


@dataclass(frozen=True)
class NationRestored(NationsEvent):
    nation: str
    by: str

    def apply(self, state: GameState) -> GameState:
        state.nations[self.nation].eliminated = False
        return state


@dataclass(frozen=True)
class ActionUsed(NationsEvent):
    nation: str
    action: str  # attack, economy or propaganda

    def apply(self, state: GameState) -> GameState:
        state.nations[self.nation].actions_used.append(self.action)
        return state


@dataclass(frozen=True)
class ActionGranted(NationsEvent):
    """A GM gave an action back: `action` may be taken again (None: one more action this turn)."""

    nation: str
    action: str | None
    by: str

    def apply(self, state: GameState) -> GameState:
        nation = state.nations[self.nation]
        if self.action is None:
            nation.extra_actions += 1
        else:
            nation.actions_used.remove(self.action)
        return state


@dataclass(frozen=True)
class ActionRevoked(NationsEvent):
    nation: str
    action: str
    by: str

    def apply(self, state: GameState) -> GameState:
        state.nations[self.nation].actions_used.append(self.action)
        return state


@dataclass(frozen=True)
class BonusSet(NationsEvent):
    nation: str
    bonus: str
    value: int
    expires_at: datetime

    def apply(self, state: GameState) -> GameState:
        state.nations[self.nation].bonuses[self.bonus] = Bonus(self.bonus, self.value, self.expires_at)
        return state


@dataclass(frozen=True)
class BonusExpired(NationsEvent):
    nation: str
    bonus: str
    value: int

    def apply(self, state: GameState) -> GameState:
        state.nations[self.nation].bonuses.pop(self.bonus, None)
        return state


# --- units ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class UnitAdded(NationsEvent):
    nation: str
    unit: int
    type: str
    rank: str
    hp: int
    reason: str
    by: str | None = None

    def apply(self, state: GameState) -> GameState:
        state.nations[self.nation].units[self.unit] = Unit(self.unit, self.type, self.rank, self.hp)
        state.next_unit_id = max(state.next_unit_id, self.unit + 1)
        return state


@dataclass(frozen=True)
class UnitRemoved(NationsEvent):
    nation: str
    unit: int
    type: str
    reason: str  # disbanded, removed by the GM, died
    by: str | None = None

    def apply(self, state: GameState) -> GameState:
        state.nations[self.nation].units.pop(self.unit)
        return state


@dataclass(frozen=True)
class UnitChanged(NationsEvent):
    """A unit's rank or HP changed (GM, promotion, demotion, wounds, healing)."""

    nation: str
    unit: int
    rank: str
    hp: int
    reason: str
    old_rank: str = ""
    old_hp: int = 0
    by: str | None = None
    type: str = ""  # the unit's type, for its one spelling ("#1 infantry GREEN"); "" in logs older than it

    def apply(self, state: GameState) -> GameState:
        unit = state.nations[self.nation].units[self.unit]
        unit.rank, unit.hp = self.rank, self.hp
        return state


# --- war -----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class BattleDeclared(NationsEvent):
    battle: int
    attacker: str
    defender: str
    units: list[int]
    retreat_at: int | None
    deadline: datetime
    turn: int

    def apply(self, state: GameState) -> GameState:
        state.battles[self.battle] = Battle(
            id=self.battle, attacker=self.attacker, defender=self.defender, turn=self.turn, stage="commit",
            attacking=list(self.units), in_fight_attacking=list(self.units),
            retreat_orders={u: self.retreat_at for u in self.units if self.retreat_at is not None},
            deadline=self.deadline,
        )
        for unit in self.units:
            state.nations[self.attacker].units[unit].battle = self.battle
        state.next_battle_id = max(state.next_battle_id, self.battle + 1)
        return state


@dataclass(frozen=True)
class UnitsCommitted(NationsEvent):
    battle: int
    units: list[int]
    retreat_at: int | None
    by: str  # the defender's player, a GM, or "default"

    def apply(self, state: GameState) -> GameState:
        battle = state.battles[self.battle]
        battle.defending = list(self.units)
        battle.in_fight_defending = list(self.units)
        for unit in self.units:
            state.nations[battle.defender].units[unit].battle = self.battle
            if self.retreat_at is not None:
                battle.retreat_orders[unit] = self.retreat_at
        battle.deadline = battle.reminder_at = None
        return state


@dataclass(frozen=True)
class InitiativeDecided(NationsEvent):
    battle: int
    winner: str  # "attacker" or "defender"

    def apply(self, state: GameState) -> GameState:
        state.battles[self.battle].initiative = self.winner
        return state


@dataclass(frozen=True)
class BattleAwaits(NationsEvent):
    """The battle waits on a person: the defender's commitment or the initiative winner's pairing."""

    battle: int
    stage: str
    nation: str
    deadline: datetime
    reminder_at: datetime | None = None  # when its person is reminded (None: no reminder; logs older than it)

    def apply(self, state: GameState) -> GameState:
        battle = state.battles[self.battle]
        battle.stage, battle.deadline, battle.reminder_at = self.stage, self.deadline, self.reminder_at
        return state


@dataclass(frozen=True)
class ChoiceReminded(NationsEvent):
    """Part-way to a battle choice's deadline (`war.choice_reminder_share`), its person is reminded: the chooser
    `nation`, played by `player` (a Discord user id or a console name; None: no player), is to make the `choice`
    ("commit" or "pairing") of battle `battle` before `deadline`, when the default applies.

    `missed`: the referee was away past the deadline too, so the reminder came too late to be of use (the default
    follows in the same report): a front-end says nothing of it."""

    battle: int
    choice: str
    nation: str
    player: str | None
    deadline: datetime
    missed: bool = False

    def apply(self, state: GameState) -> GameState:
        state.battles[self.battle].reminder_at = None
        return state


@dataclass(frozen=True)
class ChoiceDefaulted(NationsEvent):
    """A choice's deadline passed: the default is applied (the events that follow) and announced."""

    battle: int
    choice: str
    nation: str
    default: str
    by: str = "default"  # "default": the deadline passed; else the GM who decided (/gm decide)


@dataclass(frozen=True)
class RetreatOrdered(NationsEvent):
    battle: int
    nation: str
    unit: int
    at_hp: int | None  # None: retreat now; 0: no retreat (the order is withdrawn)

    def apply(self, state: GameState) -> GameState:
        orders = state.battles[self.battle].retreat_orders
        if self.at_hp == 0:
            orders.pop(self.unit, None)
        else:
            orders[self.unit] = self.at_hp
        return state


@dataclass(frozen=True)
class DuelStarted(NationsEvent):
    battle: int
    attacker_unit: int
    defender_unit: int
    attacker_type: str
    defender_type: str
    chosen_by: str  # who paired them: a nation, a GM, "default" or "only pairing"

    def apply(self, state: GameState) -> GameState:
        battle = state.battles[self.battle]
        battle.stage, battle.deadline, battle.reminder_at = "duel", None, None
        battle.duels.append({
            "attacker_unit": self.attacker_unit, "defender_unit": self.defender_unit,
            "attacker_type": self.attacker_type, "defender_type": self.defender_type,
            "chosen_by": self.chosen_by, "rounds": [], "outcome": None,
        })
        return state


@dataclass(frozen=True)
class RoundFought(NationsEvent):
    """One round of the current duel, for the battle report (HP changes come as UnitChanged)."""

    battle: int
    round: dict[str, Any]

    def apply(self, state: GameState) -> GameState:
        state.battles[self.battle].duels[-1]["rounds"].append(dict(self.round))
        return state


@dataclass(frozen=True)
class UnitLeftFight(NationsEvent):
    battle: int
    nation: str
    unit: int
    reason: str  # "retreated" or "killed"
    type: str = ""  # the unit's type ("" in logs written before events named it)

    def apply(self, state: GameState) -> GameState:
        battle = state.battles[self.battle]
        for side in (battle.in_fight_attacking, battle.in_fight_defending):
            if self.unit in side:
                side.remove(self.unit)
        return state  # a retreated unit stays tied to the battle until it ends


@dataclass(frozen=True)
class DuelEnded(NationsEvent):
    battle: int
    outcome: str

    def apply(self, state: GameState) -> GameState:
        state.battles[self.battle].duels[-1]["outcome"] = self.outcome
        return state


@dataclass(frozen=True)
class BattleEnded(NationsEvent):
    battle: int
    result: str  # "attacker won", "defender won" or "cancelled"
    winner: str | None
    loser: str | None
    reason: str = ""  # why a battle was cancelled ("Brigid was eliminated"); empty: by the GM, or a result

    def apply(self, state: GameState) -> GameState:
        battle = state.battles[self.battle]
        battle.stage, battle.result, battle.deadline, battle.reminder_at = "over", self.result, None, None
        if self.winner is not None and self.winner in state.nations:
            state.nations[self.winner].battles_won += 1
        for name in (battle.attacker, battle.defender):  # only its two nations' units can be in it
            for unit in state.nations[name].units.values() if name in state.nations else ():
                if unit.battle == self.battle:
                    unit.battle = None
        return state


