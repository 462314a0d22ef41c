"""The state of one God Dice game: typed dataclasses, nothing else."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from engine.goddice.cards import Cards, GoddiceHouse
from engine.names import name_key

# Where the game stands, i.e. what it waits for (and from whom: `GoddiceState.active`).
SEATING = "seating"  # players join; the GM begins
CHOOSE = "choose"  # the roll-off winner chooses: attack first or select first
DRAFT = "draft"  # players pick character cards
DECLARE = "declare"  # the active player declares an attacker (and, Free for All, a target player)
DEFEND = "defend"  # the defending player declares a defender; the God dice follow at once
RESURRECT = "resurrect"  # unrelated doubles with Resurrection: the attacker resurrects or declines
RETARGET = "retarget"  # Free for All reversal: the attacker names another player to attack
OPENING = "opening"  # the attacker makes the opening roll
FAVOR = "favor"  # whoever is in favor decides: keep or re-roll the opening roll
ROLLING = "rolling"  # the attacker rolls a type or attacks
OVER = "over"
PHASES = (SEATING, CHOOSE, DRAFT, DECLARE, DEFEND, RESURRECT, RETARGET, OPENING, FAVOR, ROLLING, OVER)


@dataclass
class Character:
    id: int
    type: str
    life: int
    max_life: int

    @property
    def alive(self) -> bool:
        return self.life > 0


@dataclass
class Player:
    name: str
    seat: int  # 1, 2, … in join order, clockwise
    characters: list[Character] = field(default_factory=list)
    wins: int = 0  # games won (Campaign)

    @property
    def in_game(self) -> bool:
        """Drafted and with a character still breathing."""
        return any(c.alive for c in self.characters)


@dataclass
class Turn:
    """The current turn: who attacks whom, the God dice, and the attack dice on the table."""

    player: str
    attacker: int | None = None  # character id
    defender_player: str | None = None
    defender: int | None = None
    god: list[str] = field(default_factory=list)
    favor: str | None = None  # "attacker" or "defender": who decides keep/re-roll of the opening roll
    dice: list[str] = field(default_factory=list)
    rolled: list[str] = field(default_factory=list)  # "opening", "favor" and the types rolled (B R Y O 5)


@dataclass
class GoddiceState:
    gm: str
    house: GoddiceHouse
    cards: Cards
    started_at: datetime
    ruleset: str = "goddice"
    options: list[str] = field(default_factory=list)
    phase: str = SEATING
    players: list[Player] = field(default_factory=list)  # in seat order
    active: str | None = None  # the player whose move it is
    move_since: datetime | None = None  # since when the game waits for `active`
    reminders: int = 0  # reminders sent for this move
    paused_at: datetime | None = None  # /gm clock pause: when (the move's reminders wait until /gm clock resume)
    direction: str = "clockwise"
    pool: dict[str, int] = field(default_factory=dict)  # character cards left to draft
    picks: list[str] = field(default_factory=list)  # who picks next, in order, until the draft is done
    chooser: str | None = None  # the roll-off winner
    turn: int = 0
    current: Turn | None = None
    winner: str | None = None
    ended: bool = False
    cogms: list[str] = field(default_factory=list)  # co-GMs (/gm cogm add): the GM's powers in this game
    forced_dice: list[str] = field(default_factory=list)
    forced_for: list[str] = field(default_factory=list)  # each entered die's binding (engine.game.entered_for)
    next_character_id: int = 1

    def player(self, name: str) -> Player | None:
        """A seated player by name: case, spacing and invisible characters aside (`engine.names.name_key`)."""
        key = name_key(name)
        return next((p for p in self.players if name_key(p.name) == key), None) if key else None

    def character(self, character_id: int) -> tuple[Player, Character]:
        for player in self.players:
            for character in player.characters:
                if character.id == character_id:
                    return player, character
        raise KeyError(character_id)

    def in_game(self) -> list[Player]:
        return [p for p in self.players if p.in_game]

    def neighbour(self, name: str, step: int, seated: bool = False) -> Player:
        """The next player still in the game (any seated one, with `seated`): `step` +1 is the left
        (clockwise), −1 the right."""
        seats = self.players
        index = next(i for i, p in enumerate(seats) if p.name == name)
        for offset in range(1, len(seats) + 1):
            candidate = seats[(index + step * offset) % len(seats)]
            if seated or candidate.in_game:
                return candidate
        return seats[index]

    @property
    def step(self) -> int:
        return 1 if self.direction == "clockwise" else -1
