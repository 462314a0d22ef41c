"""The God Dice events: every change to a God Dice game's state, as a typed record."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any, ClassVar

from engine.events import Event
from engine.goddice.cards import GoddiceHouse, cards_from_dict
from engine.goddice.state import (
    CHOOSE,
    DECLARE,
    DRAFT,
    OVER,
    SEATING,
    Character,
    GoddiceState,
    Player,
    Turn,
)


class GoddiceEvent(Event[GoddiceState], ruleset="goddice"):
    """An event of a God Dice game."""


@dataclass(frozen=True)
class GoddiceStarted(GoddiceEvent):
    starts_game: ClassVar[bool] = True
    gm: str
    started_at: datetime
    house: dict[str, Any]
    cards: dict[str, Any]  # the card file in force
    options: list[str] = field(default_factory=list)

    def apply(self, state: GoddiceState | None) -> GoddiceState:
        return GoddiceState(gm=self.gm, house=GoddiceHouse(**self.house), cards=cards_from_dict(self.cards),
                            started_at=self.started_at, options=list(self.options), phase=SEATING,
                            move_since=self.started_at)


@dataclass(frozen=True)
class CardsLoaded(GoddiceEvent):
    """A GM loaded another card file for this game (before the draft)."""

    cards: dict[str, Any]
    by: str

    def apply(self, state: GoddiceState) -> GoddiceState:
        state.cards = cards_from_dict(self.cards)
        return state


@dataclass(frozen=True)
class PlayerJoined(GoddiceEvent):
    player: str
    seat: int

    def apply(self, state: GoddiceState) -> GoddiceState:
        state.players.append(Player(self.player, self.seat))
        return state


@dataclass(frozen=True)
class RolloffWon(GoddiceEvent):
    """The opening roll-off: `player` rolled the most YELLOW (`yellows`) after `rounds` rounds."""

    player: str
    yellows: int
    rounds: int

    def apply(self, state: GoddiceState) -> GoddiceState:
        state.phase, state.chooser = CHOOSE, self.player
        return state


@dataclass(frozen=True)
class FirstChosen(GoddiceEvent):
    """The roll-off winner chose to attack first or select first; the draft runs in `picks` order."""

    player: str
    choice: str  # "attack" or "select"
    picks: list[str]
    pool: dict[str, int]

    def apply(self, state: GoddiceState) -> GoddiceState:
        state.phase, state.picks, state.pool = DRAFT, list(self.picks), dict(self.pool)
        return state


@dataclass(frozen=True)
class CharacterPicked(GoddiceEvent):
    player: str
    character: int
    type: str
    life: int
    name: str = ""  # as shown: "Hero", "Hero 2"

    def apply(self, state: GoddiceState) -> GoddiceState:
        player = state.player(self.player)
        assert player is not None
        player.characters.append(Character(self.character, self.type, self.life, self.life))
        state.pool[self.type] -= 1
        state.picks.pop(0)
        state.next_character_id = max(state.next_character_id, self.character + 1)
        return state


@dataclass(frozen=True)
class TurnStarted(GoddiceEvent):
    player: str
    turn: int

    def apply(self, state: GoddiceState) -> GoddiceState:
        state.phase, state.turn, state.current = DECLARE, self.turn, Turn(self.player)
        return state


@dataclass(frozen=True)
class AttackerDeclared(GoddiceEvent):
    player: str
    character: int
    defender_player: str
    name: str = ""

    def apply(self, state: GoddiceState) -> GoddiceState:
        assert state.current is not None
        state.current.attacker, state.current.defender_player = self.character, self.defender_player
        state.current.defender = None  # (after a reversal, the new defending player declares anew)
        state.phase = "defend"
        return state


@dataclass(frozen=True)
class DefenderDeclared(GoddiceEvent):
    player: str
    character: int
    name: str = ""

    def apply(self, state: GoddiceState) -> GoddiceState:
        assert state.current is not None
        state.current.defender = self.character
        return state


@dataclass(frozen=True)
class GodDiceRead(GoddiceEvent):
    """What the God dice mean for this turn (`outcome`, see `engine.goddice.turn.read_god_dice`)."""

    faces: list[str]
    outcome: str  # god kill, divine intervention, reversal, no reversal, resurrection, in favor, push, no effect
    favor: str | None = None  # "attacker" or "defender" when one is in favor

    def apply(self, state: GoddiceState) -> GoddiceState:
        assert state.current is not None
        state.current.god, state.current.favor = list(self.faces), self.favor
        return state


@dataclass(frozen=True)
class PhaseChanged(GoddiceEvent):
    """The turn moves on to `phase` (defend again, resurrect, retarget, opening roll, favor, rolling)."""

    phase: str

    def apply(self, state: GoddiceState) -> GoddiceState:
        state.phase = self.phase
        return state


@dataclass(frozen=True)
class DirectionReversed(GoddiceEvent):
    direction: str  # the new one

    def apply(self, state: GoddiceState) -> GoddiceState:
        state.direction = self.direction
        if state.current is not None:
            state.current.defender_player, state.current.defender = None, None
        return state


@dataclass(frozen=True)
class AttackDiceSet(GoddiceEvent):
    """The attack dice on the table after a roll of `rolled` ("opening", "favor" or a face B R Y O 5)."""

    rolled: str
    dice: list[str]
    legal: list[str] = field(default_factory=list)  # the attacks these dice make legal: "basic 15"

    def apply(self, state: GoddiceState) -> GoddiceState:
        assert state.current is not None
        state.current.dice = list(self.dice)
        state.current.rolled.append(self.rolled)
        return state


@dataclass(frozen=True)
class FavorDecided(GoddiceEvent):
    player: str
    choice: str  # "keep" or "reroll"


@dataclass(frozen=True)
class AttackMade(GoddiceEvent):
    """Words for the attack; the life changes follow as LifeChanged events."""

    player: str
    character: int
    attack: str  # its title
    damage: int
    targets: list[int]
    heal: int | None = None  # the character healed, if any
    name: str = ""  # the attacking character
    target_names: list[str] = field(default_factory=list)
    # what the healing gives (issue 34): the life Heal Any gives `heal` (0: no one of the attacker's is wounded),
    # the life Heal Self gives the attacker (0: it is at full life); None: the attack has no such healing
    heal_any: int | None = None
    heal_self: int | None = None
    heal_name: str = ""  # the character healed by Heal Any


@dataclass(frozen=True)
class AttackMissed(GoddiceEvent):
    player: str
    reason: str


@dataclass(frozen=True)
class LifeChanged(GoddiceEvent):
    player: str
    character: int
    life: int  # the new life
    change: int  # what it changed by (damage is negative; a cap shows as a smaller change)
    reason: str
    by: str | None = None  # the GM, when a GM set it
    name: str = ""
    max_life: int = 0

    def apply(self, state: GoddiceState) -> GoddiceState:
        _, character = state.character(self.character)
        character.life = self.life
        return state


@dataclass(frozen=True)
class CharacterDied(GoddiceEvent):
    player: str
    character: int
    type: str
    name: str = ""


@dataclass(frozen=True)
class CharacterResurrected(GoddiceEvent):
    player: str
    character: int
    life: int
    name: str = ""

    def apply(self, state: GoddiceState) -> GoddiceState:
        _, character = state.character(self.character)
        character.life = self.life
        return state


@dataclass(frozen=True)
class ResurrectionDeclined(GoddiceEvent):
    player: str


@dataclass(frozen=True)
class PlayerEliminated(GoddiceEvent):
    player: str


@dataclass(frozen=True)
class GameWon(GoddiceEvent):
    """`player` is the last with a character breathing; with Campaign, `wins` counts the games won."""

    player: str
    wins: int = 1
    campaign_over: bool = True

    def apply(self, state: GoddiceState) -> GoddiceState:
        player = state.player(self.player)
        assert player is not None
        player.wins = self.wins
        if self.campaign_over:
            state.winner, state.phase, state.ended, state.current, state.active = self.player, OVER, True, None, None
        return state


@dataclass(frozen=True)
class CampaignGameStarted(GoddiceEvent):
    """Campaign: the next game with the same characters at full life, turns clockwise again."""

    game: int

    def apply(self, state: GoddiceState) -> GoddiceState:
        for player in state.players:
            for character in player.characters:
                character.life = character.max_life
        state.direction, state.current, state.turn = "clockwise", None, 0  # the new game's turns count from 1
        return state


@dataclass(frozen=True)
class MoveAwaited(GoddiceEvent):
    """The game now waits for `player` to make a move of `phase`."""

    player: str | None
    phase: str
    since: datetime
    quiet: bool = False  # the same player goes on with the same kind of move: nothing to announce

    def apply(self, state: GoddiceState) -> GoddiceState:
        state.active, state.move_since, state.reminders = self.player, self.since, 0
        return state


@dataclass(frozen=True)
class ClockPaused(GoddiceEvent):
    """/gm clock pause: the reminders of the move awaited wait until the clock resumes."""

    at: datetime

    def apply(self, state: GoddiceState) -> GoddiceState:
        state.paused_at = self.at
        return state


@dataclass(frozen=True)
class ClockResumed(GoddiceEvent):
    """/gm clock resume: the move awaited counts from a moment moved on by the pause, `shift_seconds`."""

    shift_seconds: float

    def apply(self, state: GoddiceState) -> GoddiceState:
        state.paused_at = None
        if state.move_since is not None:
            state.move_since += timedelta(seconds=self.shift_seconds)
        return state


@dataclass(frozen=True)
class PlayerReminded(GoddiceEvent):
    player: str
    phase: str
    waiting_hours: float
    count: int  # reminders for this move so far

    def apply(self, state: GoddiceState) -> GoddiceState:
        state.reminders = self.count
        return state


