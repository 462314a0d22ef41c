"""God Dice cards and dice: the card file (`data/goddice.toml`) as typed values, validated at load.

The rulebook's facts (each character's life, basic attack and named attacks) are fixed; what a printed
card would add is a house value in the card file. A game keeps the cards it was started (or loaded)
with in its state, so another card file for one game changes nothing else.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any, ClassVar

from engine.errors import BadInput
from engine.house import House, RulesError
from engine.names import named_item
from engine.schema import MAX_FREE_ITEMS, PREFIX, bounded

ATTACK_FACES = ("B", "R", "Y", "O", "5")  # the five results of an attack die, as typed
FACE_NAMES = {"B": "blue", "R": "red", "Y": "yellow", "O": "o", "5": "5"}
TYPE_FACES = {name: face for face, name in FACE_NAMES.items()} | {"0": "O", "five": "5", "b": "B"}
TARGETS = ("defender", "any", "any2", "any3", "all")
ARROWS = {"defender": 1, "any": 1, "any2": 2, "any3": 3, "all": 0}
OPTIONS = ("campaign", "resurrection", "free_for_all")
MAX_LIFE = 1000
MAX_CARD_CHARACTERS = 100
"""The most characters a card file has (a game's pool of cards holds one kind a character)."""
MAX_TITLE = 40
"""The longest title of a character or an attack in a card file."""


MIN_REMINDER_HOURS = 0.1
"""The shortest wait before the player whose move it is is reminded: six minutes ..."""
MAX_REMINDER_HOURS = 24.0 * 14
"""... and the longest: two weeks (0: never)."""


@dataclass(frozen=True)
class GoddiceHouse(House):
    """God Dice's house settings a GM may change per game."""

    RANGES: ClassVar[dict[str, tuple[float, float]]] = {"reminder_hours": (MIN_REMINDER_HOURS, MAX_REMINDER_HOURS)}
    OFF_AT_ZERO: ClassVar[dict[str, str]] = {"reminder_hours": "never"}
    UNITS: ClassVar[dict[str, str]] = {"reminder_hours": "hours"}

    reminder_hours: float = 12.0


@dataclass(frozen=True)
class Attack:
    """One way a character attacks: the basic attack, a named attack, or a Wild choice."""

    id: str
    title: str
    needs: dict[str, int] = field(default_factory=dict)  # faces it needs (not damage dice)
    multiplier: int = 1
    bonus: int = 0
    target: str = "defender"
    heal_any: int = 0
    heal_self: int = 0
    wild: bool = False
    special: bool = False
    house: tuple[str, ...] = ()  # the fields that are house values, not the rulebook's

    @property
    def arrows(self) -> int:
        return ARROWS[self.target]

    def damage(self, fives: int, per_five: int) -> int:
        """Normal damage (the 5 dice) times the multiplier, plus the bonus."""
        return fives * per_five * self.multiplier + self.bonus

    def ability(self) -> str:
        """`×2, Attack Any, Heal Any 15` — the card's words for what it does beyond normal damage."""
        parts = []
        if self.multiplier != 1:
            parts.append(f"×{self.multiplier}")
        if self.bonus:
            parts.append(f"+{self.bonus}")
        parts += {"any": ["Attack Any"], "any2": ["Attack Any 2"], "any3": ["Attack Any 3"],
                  "all": ["Damage to All"]}.get(self.target, [])
        if self.heal_any:
            parts.append(f"Heal Any {self.heal_any}")
        if self.heal_self:
            parts.append(f"Heal Self {self.heal_self}")
        return ", ".join(parts) or "normal"


@dataclass(frozen=True)
class CharacterCard:
    type: str
    title: str
    god: str  # its God die face
    life: int
    attacks: tuple[Attack, ...]  # the basic attack first, then the named ones, then the Wild choices

    def attack(self, attack_id: str) -> Attack | None:
        key = attack_id.strip().lower().replace(" ", "_").replace("-", "_")
        return next((a for a in self.attacks if a.id == key or a.title.lower().replace(" ", "_") == key), None)


@dataclass(frozen=True)
class Cards:
    attack_count: int
    attack_faces: tuple[str, ...]
    god_faces: tuple[str, ...]
    damage_per_five: int
    wild_os: int
    characters: dict[str, CharacterCard]
    copies: int = 2
    characters_each: int = 4
    characters_each_with_four: int = 3
    min_players: int = 2
    max_players: int = 4
    campaign_wins: int = 2
    raw: dict[str, Any] = field(compare=False, repr=False, default_factory=dict)  # as loaded, for export

    def card(self, text: str) -> CharacterCard:
        key = text.strip().lower()
        for card in self.characters.values():
            if key in (card.type, card.title.lower(), card.god.lower()):
                return card
        started = named_item(text, self.characters.values(), lambda c: c.title, "character")  # "assa": Assassin
        if started is not None:
            return started
        raise RulesError(f"no character {text!r}; characters: {', '.join(self.characters)}")

    def characters_per_player(self, players: int) -> int:
        """4 characters each; 3 each in a four-player game (rulebook)."""
        return self.characters_each_with_four if players >= 4 else self.characters_each

    def by_god(self, face: str) -> CharacterCard:
        return next(c for c in self.characters.values() if c.god == face)


@dataclass(frozen=True)
class GoddiceRules:
    """What a God Dice game starts with: the house settings and the shipped cards."""

    house: GoddiceHouse
    cards: Cards


def _count(value: Any, what: str, low: int = 0, high: int = 1000) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise RulesError(f"{what} must be a whole number from {low} to {high}, not {value!r}")
    return value


def _flag(value: Any, what: str) -> bool:
    if not isinstance(value, bool):
        raise RulesError(f"{what} must be true or false, not {value!r}"[:200])
    return value


def _text(value: Any, what: str, limit: int = MAX_TITLE) -> str:
    if not isinstance(value, str) or not 1 <= len(value.strip()) <= limit:
        raise RulesError(f"{what} must be a text of 1 to {limit} characters, not {value!r}"[:200])
    return value.strip()


def _attack(raw: Any, where: str, wild: bool) -> Attack:
    if not isinstance(raw, dict):
        raise RulesError(f"{where}: an attack is a table")
    known = {"id", "title", "needs", "multiplier", "bonus", "target", "heal_any", "heal_self", "special", "house"}
    unknown = set(raw) - known
    if unknown:
        raise RulesError(f"{where}: unknown field {', '.join(sorted(unknown))}")
    needs_raw = raw.get("needs", {})
    if not isinstance(needs_raw, dict) or set(needs_raw) - {"B", "R", "Y", "O"}:
        raise RulesError(f"{where}.needs: faces are B, R, Y and O")
    needs = {face: _count(n, f"{where}.needs.{face}", 1, 9) for face, n in needs_raw.items()}
    if wild and needs:
        raise RulesError(f"{where}: a Wild choice needs only the O's")
    target = raw.get("target", "defender")
    if target not in TARGETS:
        raise RulesError(f"{where}.target must be one of {', '.join(TARGETS)}, not {target!r}")
    ident = raw.get("id")
    if (not isinstance(ident, str) or not ident.replace("_", "").isalnum() or ident != ident.lower()
            or len(ident) > MAX_TITLE):
        raise RulesError(f"{where}.id must be a lower-case name, not {ident!r}")
    house = raw.get("house", [])
    if not isinstance(house, list) or not all(isinstance(h, str) and h in known for h in house):
        raise RulesError(f"{where}.house lists the fields that are house values")
    return Attack(
        id=ident, title=_text(raw.get("title", ident), f"{where}.title"), needs=needs,
        multiplier=_count(raw.get("multiplier", 1), f"{where}.multiplier", 1, 10),
        bonus=_count(raw.get("bonus", 0), f"{where}.bonus", 0, 100), target=target,
        heal_any=_count(raw.get("heal_any", 0), f"{where}.heal_any", 0, 100),
        heal_self=_count(raw.get("heal_self", 0), f"{where}.heal_self", 0, 100),
        wild=wild, special=_flag(raw.get("special", False), f"{where}.special"), house=tuple(house),
    )


def cards_from_dict(raw: dict[str, Any]) -> Cards:
    """Build and validate the cards from a parsed card file."""
    try:
        dice, draft = raw["dice"], raw["draft"]
        faces = tuple(str(f).upper() for f in dice["attack_faces"])
        if not faces or set(faces) != set(ATTACK_FACES):
            raise RulesError(f"dice.attack_faces must show each of {' '.join(ATTACK_FACES)}, not {faces}")
        god_faces = tuple(str(f).upper() for f in dice["god_faces"])
        characters: dict[str, CharacterCard] = {}
        if len(raw["characters"]) > MAX_CARD_CHARACTERS:
            raise RulesError(f"a card file has at most {MAX_CARD_CHARACTERS} characters, not {len(raw['characters'])}")
        for key, c in dict(raw["characters"]).items():
            where = f"characters.{key}"
            unknown = set(c) - {"title", "god", "life", "basic", "attacks", "wild"}
            if unknown:
                raise RulesError(f"{where}: unknown field {', '.join(sorted(unknown))}")
            basic = _attack({"id": "basic", "title": "Basic", "needs": c["basic"]}, f"{where}.basic", False)
            named = tuple(_attack(a, f"{where}.attacks[{i}]", False) for i, a in enumerate(c.get("attacks", [])))
            wild = tuple(_attack(a, f"{where}.wild[{i}]", True) for i, a in enumerate(c.get("wild", [])))
            attacks = (basic, *named, *wild)
            ids = [a.id for a in attacks]
            if len(ids) != len(set(ids)):
                raise RulesError(f"{where}: two attacks share an id")
            characters[str(key)] = CharacterCard(
                type=str(key), title=_text(c["title"], f"{where}.title"),
                god=_text(c["god"], f"{where}.god", 1).upper(),
                life=_count(c["life"], f"{where}.life", 1, MAX_LIFE), attacks=attacks,
            )
        cards = Cards(
            attack_count=_count(dice["attack_count"], "dice.attack_count", 1, 30),
            attack_faces=faces, god_faces=god_faces,
            damage_per_five=_count(dice["damage_per_five"], "dice.damage_per_five", 0, 100),
            wild_os=_count(dice["wild_os"], "dice.wild_os", 1, 30),
            characters=characters, raw=raw,
            copies=_count(draft["copies"], "draft.copies", 1, 10),
            characters_each=_count(draft["characters_each"], "draft.characters_each", 1, 10),
            characters_each_with_four=_count(draft["characters_each_with_four"], "draft.characters_each_with_four",
                                             1, 10),
            min_players=_count(draft["min_players"], "draft.min_players", 2, 8),
            max_players=_count(draft["max_players"], "draft.max_players", 2, 8),
            campaign_wins=_count(draft["campaign_wins"], "draft.campaign_wins", 1, 10),
        )
    except KeyError as missing:
        raise RulesError(f"card file: missing {missing}") from None
    except (AttributeError, TypeError, ValueError) as err:
        if isinstance(err, RulesError):
            raise
        raise RulesError(f"card file: {type(err).__name__}: {err}") from None
    if sorted(cards.god_faces) != sorted(c.god for c in cards.characters.values()):
        raise RulesError("dice.god_faces must be the characters' God faces, one each")
    if len(cards.characters) < 2:
        raise RulesError("a card file needs at least two characters")
    if cards.min_players > cards.max_players:
        raise RulesError("draft.min_players cannot exceed draft.max_players")
    for players in range(cards.min_players, cards.max_players + 1):
        if cards.copies * len(cards.characters) < cards.characters_per_player(players) * players:
            raise RulesError(f"the pool is too small for {players} players' characters")
    return cards


_ROOT = "\x00"  # the card file itself, as `bounded` names its path (replaced in the refusal)


def bound_card_file(raw: Any) -> None:
    """Refuse a card file beyond the bounds an export's `game.cards` is held to on import
    (`engine.schema.bounded`: nesting, how many values, the length of keys and texts, finite numbers), so
    that whatever card file a game takes, its export can restore. RulesError naming where, in one line."""
    try:
        bounded(raw, _ROOT)
    except BadInput as err:
        text = str(err).removeprefix(f"{PREFIX}: {_ROOT}")
        if text.endswith(f"holds more than {MAX_FREE_ITEMS} values"):
            text = f"it holds more than {MAX_FREE_ITEMS:,} values (counting its tables and lists)"
        elif text.startswith(": "):
            text = f"the file{text}"
        raise RulesError(text.removeprefix(".")) from None


def cards_from_file(raw: dict[str, Any]) -> Cards:
    """The cards of a card file a GM loads (/gm cards): bounded as an import is (`bound_card_file`), then
    validated (`cards_from_dict`)."""
    bound_card_file(raw)
    return cards_from_dict(raw)


def rules_from_dict(raw: dict[str, Any]) -> GoddiceRules:
    """The God Dice rules from the parsed card file: house settings and cards."""
    return GoddiceRules(house=GoddiceHouse.from_data(dict(raw.get("house", {}))), cards=cards_from_dict(raw))


def needs_met(attack: Attack, dice: Counter[str], wild_os: int) -> bool:
    if attack.wild:
        return dice["O"] >= wild_os
    return all(dice[face] >= count for face, count in attack.needs.items())
