"""The state of one Nations game: typed dataclasses, nothing else."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from engine.dice import RollRecord  # noqa: F401  (the Nations roll record, re-exported)
from engine.names import name_key, named_item
from engine.nations.rules import HouseSettings


@dataclass
class Unit:
    id: int
    type: str
    rank: str
    hp: int
    battle: int | None = None


@dataclass
class Bonus:
    kind: str
    value: int
    expires_at: datetime


@dataclass
class Nation:
    name: str
    player: str | None
    economy: int
    stability: int
    military: int
    propaganda: int
    land: int
    strength: str
    weakness: str
    foreign_patches: int = 0
    eliminated: bool = False
    preset_slot: int | None = None
    actions_used: list[str] = field(default_factory=list)
    extra_actions: int = 0
    battles_won: int = 0  # battles this nation ended as the winner (attacker or defender)
    bonuses: dict[str, Bonus] = field(default_factory=dict)
    units: dict[int, Unit] = field(default_factory=dict)

    def stat(self, name: str) -> int:
        return int(getattr(self, name))

    @property
    def effective_stability(self) -> int:
        """Base STABILITY less one per foreign patch of land held (never below 0)."""
        return max(0, self.stability - self.foreign_patches)

    def bonus(self, kind: str) -> int:
        held = self.bonuses.get(kind)
        return held.value if held else 0


@dataclass
class Battle:
    """One declared attack, from declaration to result (the War rules: docs/nations.md)."""

    id: int
    attacker: str
    defender: str
    turn: int
    stage: str  # "commit" (waits for the defender), "pairing" (waits for the initiative winner), "over"
    attacking: list[int]  # units sent, in order
    defending: list[int] = field(default_factory=list)  # units committed
    in_fight_attacking: list[int] = field(default_factory=list)
    in_fight_defending: list[int] = field(default_factory=list)
    retreat_orders: dict[int, int | None] = field(default_factory=dict)  # unit -> retreat at HP <= N (None: now)
    initiative: str | None = None  # "attacker" or "defender": who picks the pairings
    deadline: datetime | None = None  # when the pending choice falls to its default
    reminder_at: datetime | None = None  # when its person is reminded of it (None: reminded, or no reminder)
    result: str | None = None  # "attacker won", "defender won", "cancelled"
    duels: list[dict[str, Any]] = field(default_factory=list)  # the battle report: one record per duel, every round

    @property
    def over(self) -> bool:
        return self.stage == "over"

    def side_of(self, nation: str) -> str | None:
        if nation == self.attacker:
            return "attacker"
        if nation == self.defender:
            return "defender"
        return None


@dataclass
class GameState:
    gm: str
    turn: int
    turn_hours: float
    turn_started_at: datetime
    turn_ends_at: datetime
    house: HouseSettings
    ruleset: str = "nations"
    paused: bool = False
    paused_remaining: float | None = None  # seconds of the turn left when the clock was paused
    paused_at: datetime | None = None  # when the clock was paused (resuming moves every deadline on by the pause)
    ended: bool = False
    cogms: list[str] = field(default_factory=list)  # co-GMs (/gm cogm add): the GM's powers in this game
    next_unit_id: int = 1
    forced_dice: list[int] = field(default_factory=list)
    forced_for: list[str] = field(default_factory=list)  # each entered die's binding (engine.game.entered_for)
    nations: dict[str, Nation] = field(default_factory=dict)
    battles: dict[int, Battle] = field(default_factory=dict)
    next_battle_id: int = 1

    def find_nation(self, name: str) -> Nation | None:
        """A nation by its whole name: case, spacing and invisible characters aside (`engine.names.name_key`)."""
        key = name_key(name)
        if not key:
            return None
        for nation in self.nations.values():
            if name_key(nation.name) == key:
                return nation
        return None

    def named_nation(self, text: str) -> Nation | None:
        """The nation a player names: its whole name, an unambiguous start of it ("char"), or the slot of the
        preset it was claimed from ("7"); BadInput naming the matches when several nations start so."""
        found = named_item(text, self.nations.values(), lambda n: n.name, "nation")
        if found is None and str(text).strip().isdecimal():
            found = next((n for n in self.nations.values() if n.preset_slot == int(str(text).strip())), None)
        return found

    def side_player(self, side: str) -> str | None:
        """Who plays a nation (`engine.core.Tx.takes`: dice the GM entered for a player go to their nation's rolls,
        whoever runs the command)."""
        nation = self.find_nation(side)
        return nation.player if nation is not None else None

    def nation_of(self, player: str) -> Nation | None:
        """The nation a player holds (the newest, if somehow several); names compared by `name_key`."""
        key = name_key(player)
        if not key:
            return None
        held = [n for n in self.nations.values() if n.player and name_key(n.player) == key]
        return held[-1] if held else None

    def final_standings(self) -> dict[str, Any]:
        """The game's results, as `GameEnded` records them: every nation's LAND, stats and battles won, best
        first, and the winner.

        The winner is the nation still in the game with the most LAND; a tie on LAND goes to the one of them
        with more battles won; nations tied on both share the game (`winner` None, `tied` names them). With no
        nation left in the game there is no winner."""
        def key(n: Nation) -> tuple[bool, int, int, str]:
            return (n.eliminated, -n.land, -n.battles_won, name_key(n.name))

        ranked = sorted(self.nations.values(), key=key)
        nations = [{"name": n.name, "player": n.player, "land": n.land, "economy": n.economy,
                    "stability": n.effective_stability, "military": n.military, "propaganda": n.propaganda,
                    "battles_won": n.battles_won, "eliminated": n.eliminated} for n in ranked]
        alive = [n for n in ranked if not n.eliminated]
        top = (alive[0].land, alive[0].battles_won) if alive else None
        best = [n.name for n in alive if (n.land, n.battles_won) == top]
        return {"turn": self.turn, "nations": nations, "winner": best[0] if len(best) == 1 else None,
                "tied": best if len(best) > 1 else []}

    def unit_owner(self, unit_id: int) -> Nation | None:
        for nation in self.nations.values():
            if unit_id in nation.units:
                return nation
        return None
