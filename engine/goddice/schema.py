"""The import schema of a God Dice export (`snapshot.state_to_dict` plus the rolls): strict types, bounded
sizes and ranges, the card file checked as the card loader checks it, and every cross-reference checked,
before any state is built from it."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, Field

from engine.goddice.cards import MAX_CARD_CHARACTERS, MIN_REMINDER_HOURS, OPTIONS, GoddiceHouse, cards_from_dict
from engine.goddice.state import PHASES
from engine.house import RulesError
from engine.names import name_key
from engine.schema import (
    MAX_FORCED_DICE,
    MAX_ID,
    TIME_WINDOW,
    CoGMs,
    EnteredFor,
    Id,
    Name,
    Short,
    Strict,
    Time,
    TimeText,
    Turn,
    at_most,
    bounded,
    count,
    house_from,
    refuse,
    rolls_from,
    unique,
    validate,
)

MAX_PLAYERS = 8
MAX_CHARACTERS = 20  # per player
MAX_LIFE = 10_000
MAX_POOL = MAX_CARD_CHARACTERS  # kinds of character card left to draft
MAX_REMINDERS = int(TIME_WINDOW.total_seconds() / 3600 / MIN_REMINDER_HOURS) + 1  # a move waited on since move_since
MAX_DICE = 100


def _seatable(name: str) -> str:
    if any(ch in name for ch in "@#:`"):
        raise ValueError("a player's name has no @ # : or `")
    return name


PlayerName = Annotated[Name, AfterValidator(_seatable)]
Faces = Annotated[list[Short], Field(max_length=MAX_DICE)]


class Character(Strict):
    id: Id
    type: Short
    life: Annotated[int, count(0, MAX_LIFE)]
    max_life: Annotated[int, count(1, MAX_LIFE)]
    alive: bool | None = None  # written for readers; the state derives it from life


class Player(Strict):
    name: PlayerName
    seat: Annotated[int, count(1, MAX_PLAYERS)]
    wins: Annotated[int, count(0, 1000)] = 0
    characters: Annotated[list[Character], Field(max_length=MAX_CHARACTERS)] = []


class CurrentTurn(Strict):
    player: PlayerName
    attacker: Id | None = None
    defender_player: PlayerName | None = None
    defender: Id | None = None
    god: Faces = []
    favor: Literal["attacker", "defender"] | None = None
    dice: Faces = []
    rolled: Faces = []


class Game(Strict):
    ruleset: Literal["goddice"]
    gm: Annotated[str, Field(max_length=200)] = "gm"
    cogms: CoGMs = []
    options: Annotated[list[Literal[OPTIONS]], Field(max_length=len(OPTIONS))] = []  # type: ignore[valid-type]
    phase: Literal[PHASES]  # type: ignore[valid-type]
    active: PlayerName | None = None
    direction: Literal["clockwise", "counterclockwise"] = "clockwise"
    winner: PlayerName | None = None
    ended: bool = False
    turn: Turn = 0
    started_at: TimeText
    move_since: Time | None = None
    reminders: Annotated[int, count(0, MAX_REMINDERS)] = 0
    paused_at: TimeText | None = None  # /gm clock pause: when (the move's reminders wait until it resumes)
    chooser: PlayerName | None = None
    picks: Annotated[list[PlayerName], Field(max_length=MAX_PLAYERS * MAX_CHARACTERS)] = []
    pool: Annotated[dict[Short, Annotated[int, count(0, 100)]], Field(max_length=MAX_POOL)] = {}
    next_character_id: Annotated[int, count(1, MAX_ID)] = 1
    forced_dice: Annotated[list[Short], Field(max_length=MAX_FORCED_DICE)] = []
    forced_for: EnteredFor = []
    house: dict[str, Any] = {}
    cards: dict[str, Any]
    current: CurrentTurn | None = None


class Export(Strict):
    game: Game
    players: Annotated[list[Player], Field(max_length=MAX_PLAYERS)]
    rolls: Any = None  # validated one by one (`engine.schema.rolls_from`)


def validate_export(data: dict[str, Any], now: datetime) -> dict[str, Any]:
    """`data` checked field by field and as a whole, in the export format with every name cleaned, or
    BadInput naming the first field that is wrong. The result's `rolls` are checked too."""
    at_most(data.get("players"), MAX_PLAYERS, "players")
    export: Export = validate(Export, data, now)
    game = export.game
    if datetime.fromisoformat(game.started_at) - now > TIME_WINDOW:
        raise refuse("game.started_at", f"is more than {TIME_WINDOW.days} days from now")
    house = house_from(GoddiceHouse, game.house, "game.house")
    bounded(game.cards, "game.cards")
    try:
        cards_from_dict(game.cards)
    except RulesError as err:
        raise refuse("game.cards", str(err)) from None
    players = export.players
    unique([name_key(p.name) for p in players], lambda i: f"players[{i}].name", "that name")
    unique([p.seat for p in players], lambda i: f"players[{i}].seat", "that seat")
    ids: set[int] = set()
    for i, player in enumerate(players):
        for j, character in enumerate(player.characters):
            if character.id in ids:
                raise refuse(f"players[{i}].characters[{j}].id", f"character #{character.id} is already used")
            if character.life > character.max_life:
                raise refuse(f"players[{i}].characters[{j}].life", f"{character.life} is over its max_life")
            ids.add(character.id)
    by_key = {name_key(p.name): p.name for p in players}

    def seated(name: str | None, path: str) -> str | None:
        if name is None:
            return None
        found = by_key.get(name_key(name))
        if found is None:
            raise refuse(path, f"{name!r} is not a player of this game")
        return found

    for field in ("active", "winner", "chooser"):
        setattr(game, field, seated(getattr(game, field), f"game.{field}"))
    game.picks = [seated(name, f"game.picks[{i}]") or "" for i, name in enumerate(game.picks)]
    unique(game.options, lambda i: f"game.options[{i}]", "that option")
    turn = game.current
    if turn is not None:
        turn.player = seated(turn.player, "game.current.player") or ""
        turn.defender_player = seated(turn.defender_player, "game.current.defender_player")
        for field in ("attacker", "defender"):
            ref = getattr(turn, field)
            if ref is not None and ref not in ids:
                raise refuse(f"game.current.{field}", f"character #{ref} is no player's")
    clean = export.model_dump(exclude={"rolls"})
    clean["game"]["house"] = house.as_dict()
    clean["game"]["cards"] = game.cards
    for player in clean["players"]:
        for character in player["characters"]:
            if character["alive"] is None:
                del character["alive"]
    clean["rolls"] = rolls_from(data, now)
    return clean

