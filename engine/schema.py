"""What every rule set's import schema shares: strict pydantic models, bounded types, the rolls ledger, and
one-line refusals that name the field (`nations[2].name: at most 40 characters`).

An export is validated before any state is built from it: strict types (12.9 is not an int, "false" is not
a bool, NaN is not a number), bounded sizes, counts and ranges, and times near the importing clock.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from datetime import datetime, timedelta
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, StringConstraints, ValidationError, ValidationInfo

from engine.errors import BadInput
from engine.game import MAX_COGMS
from engine.house import House, RulesError
from engine.names import MAX_NAME, clean_name

MAX_TEXT = 200  # any other text: a purpose, a unit type, a duel's outcome
MAX_ID = 1_000_000_000  # unit, battle and character ids
MAX_TURN = 10_000_000  # ten years of six-minute turns is under 900,000
MAX_ROLLS = 100_000
MAX_FORCED_DICE = 100
MAX_DICE_PER_ROLL = 100
MAX_MODIFIERS = 50
MAX_NUMBER = 1_000_000  # a roll's total, target and modifiers
TIME_WINDOW = timedelta(days=366)  # how far from the importing clock a game's live times may be
MAX_TIME_TEXT = 64
MAX_HOUSE_KEYS = 50
MAX_FREE_ITEMS = 5_000  # values in a free-form table (a God Dice card file)

PREFIX = "that export is not valid"


class Strict(BaseModel):
    """No coercion, no unknown fields, no NaN or infinity."""

    model_config = ConfigDict(strict=True, extra="forbid", allow_inf_nan=False, hide_input_in_errors=True)


def _name(raw: str) -> str:
    try:
        return clean_name(raw, "the name")
    except BadInput as err:
        raise ValueError(str(err).removeprefix("the name ")) from None


def _player(raw: str) -> str:
    try:
        return clean_name(raw, "the name", limit=MAX_TEXT)
    except BadInput as err:
        raise ValueError(str(err).removeprefix("the name ")) from None


def _time(raw: str) -> str:
    try:
        moment = datetime.fromisoformat(raw)
    except ValueError:
        raise ValueError(f"{raw[:40]!r} is not an ISO 8601 date and time") from None
    if moment.tzinfo is None or moment.utcoffset() is None:
        raise ValueError("a time needs its time zone (e.g. +00:00)")
    return moment.isoformat()


def _near(raw: str, info: ValidationInfo) -> str:
    now = (info.context or {}).get("now")
    if now is not None and abs(datetime.fromisoformat(raw) - now) > TIME_WINDOW:
        raise ValueError(f"{raw} is more than {TIME_WINDOW.days} days from now")
    return raw


Name = Annotated[str, AfterValidator(_name)]  # a nation's or player's name: cleaned, at most MAX_NAME
Player = Annotated[str, AfterValidator(_player)]  # who plays (a console name or a Discord id)
Text = Annotated[str, StringConstraints(max_length=MAX_TEXT)]
Short = Annotated[str, StringConstraints(max_length=MAX_NAME)]
EnteredFor = Annotated[list[Annotated[str, StringConstraints(max_length=48)]], Field(max_length=MAX_FORCED_DICE)]
"""Each waiting GM-entered die's binding (`engine.game.entered_for`)."""
TimeText = Annotated[str, StringConstraints(max_length=MAX_TIME_TEXT), AfterValidator(_time)]
Time = Annotated[TimeText, AfterValidator(_near)]  # a live time: within TIME_WINDOW of the clock
Id = Annotated[int, Field(ge=1, le=MAX_ID)]
CoGMs = Annotated[list[Annotated[str, StringConstraints(max_length=200)]], Field(max_length=MAX_COGMS)]
"""A game's co-GMs (`engine.game.MAX_COGMS` at most)."""
Turn = Annotated[int, Field(ge=0, le=MAX_TURN)]
Number = Annotated[int, Field(ge=-MAX_NUMBER, le=MAX_NUMBER)]


def count(low: int, high: int) -> Any:
    """An int field from `low` to `high`."""
    return Field(ge=low, le=high)


class NumberedRoll(Strict):
    """One numbered die of the ledger (`engine.dice.RollRecord` as exported)."""

    nation: Name | None = None
    purpose: Text
    die: Annotated[int, Field(ge=1, le=1000)]
    modifiers: Annotated[dict[Text, Number], Field(max_length=MAX_MODIFIERS)] = {}
    total: Number
    target: Number | None = None
    comparison: Literal[">", ">="] | None = None
    success: bool | None = None
    forced: bool
    turn: Turn = 0
    at: TimeText | None = None
    battle: Id | None = None
    unit: Id | None = None
    sides: Annotated[int, Field(ge=2, le=1000)] = 10
    faces: Annotated[list[Short], Field(max_length=1)] | None = None  # a numbered die's face, as Godsfire exports it


class FacesRoll(Strict):
    """Dice with named faces (`engine.dice.FacesRecord` as exported)."""

    player: Player | None = None
    purpose: Text
    faces: Annotated[list[Short], Field(max_length=MAX_DICE_PER_ROLL)]
    forced: Annotated[list[bool], Field(max_length=MAX_DICE_PER_ROLL)] | bool = []
    turn: Turn = 0
    at: TimeText | None = None


class Ledger(Strict):
    rolls: Annotated[list[Any], Field(max_length=MAX_ROLLS)] = []


def where(loc: tuple[Any, ...]) -> str:
    """A pydantic location as the export's path: `nations[2].units[0].hp`."""
    text = ""
    for part in loc:
        if isinstance(part, int):
            text += f"[{part}]"
        elif part in ("function-after", "constrained-str", "str", "int", "bool", "float", "list", "dict",
                      "none") or "[" in str(part):
            continue  # pydantic's own steps of a union or a validator, not a field
        else:
            text += f".{part}" if text else str(part)
    return text or "the export"


_TYPES = {bool: "true or false", int: "a whole number", float: "a number", str: "text", list: "a list",
          dict: "an object", type(None): "null"}


def _reason(error: Mapping[str, Any]) -> str:
    kind, ctx, given = error["type"], error.get("ctx") or {}, error.get("input")
    got = _TYPES.get(type(given), type(given).__name__)
    match kind:
        case "missing":
            return "is required"
        case "extra_forbidden":
            return "is not a field of the export"
        case "too_long":
            return f"at most {ctx.get('max_length')} items"
        case "string_too_long":
            return f"at most {ctx.get('max_length')} characters"
        case "less_than_equal" | "less_than":
            return f"at most {ctx.get('le', ctx.get('lt'))}, not {_short(given)}"
        case "greater_than_equal" | "greater_than":
            return f"at least {ctx.get('ge', ctx.get('gt'))}, not {_short(given)}"
        case "finite_number":
            return "must be a finite number"
        case "int_type" | "int_from_float":
            return f"must be a whole number, not {got if not isinstance(given, float) else _short(given)}"
        case "bool_type":
            return f"must be true or false, not {got if not isinstance(given, str) else repr(given[:20])}"
        case "float_type":
            return f"must be a number, not {got}"
        case "string_type":
            return f"must be text, not {got}"
        case "list_type":
            return f"must be a list, not {got}"
        case "dict_type" | "model_type" | "model_attributes_type":
            return f"must be an object, not {got}"
        case "literal_error":
            return f"must be {ctx.get('expected')}, not {_short(given)}"
        case "value_error":
            return str(ctx.get("error", error["msg"]))
    return str(error["msg"]).lower()


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def refusal(err: ValidationError, prefix: tuple[Any, ...] = ()) -> BadInput:
    """The first problem pydantic found, as one line naming the field."""
    first = err.errors(include_url=False)[0]
    return BadInput(f"{PREFIX}: {where((*prefix, *first['loc']))}: {_reason(first)}")


def refuse(path: str, reason: str) -> BadInput:
    """A refusal found after the schema (a cross-reference, a duplicate)."""
    return BadInput(f"{PREFIX}: {path}: {reason}")


def validate(model: type[Strict], data: Any, now: datetime | None = None, prefix: tuple[Any, ...] = ()) -> Any:
    """`data` as `model`, or BadInput naming the field."""
    try:
        return model.model_validate(data, context={"now": now})
    except ValidationError as err:
        raise refusal(err, prefix) from None
    except RecursionError:
        raise refuse(where(prefix), "nested too deeply") from None


def at_most(items: Any, limit: int, path: str) -> None:
    """Refuse a list longer than `limit` at once, before the schema validates its items one by one."""
    if isinstance(items, list) and len(items) > limit:
        raise refuse(path, f"at most {limit} items, not {len(items):,}")


def house_from(cls: type[House], raw: Any, path: str) -> House:
    """House settings of `cls` from an export: known keys, each of its default's type, finite, validated."""
    if not isinstance(raw, dict):
        raise refuse(path, f"must be an object, not {_TYPES.get(type(raw), type(raw).__name__)}")
    if len(raw) > MAX_HOUSE_KEYS:
        raise refuse(path, f"at most {MAX_HOUSE_KEYS} settings")
    for key, value in raw.items():
        if not isinstance(value, bool | int | float | str):  # before anything prints it: it may nest deep
            raise refuse(f"{path}.{key}", f"must be a number, a word or true/false, not "
                         f"{_TYPES.get(type(value), type(value).__name__)}")
        if isinstance(value, float) and not math.isfinite(value):
            raise refuse(f"{path}.{key}", "must be a finite number")
        if isinstance(value, str) and len(value) > MAX_TEXT:
            raise refuse(f"{path}.{key}", f"at most {MAX_TEXT} characters")
    try:
        return cls.from_data(raw, where=path)
    except RulesError as err:
        text = str(err)
        raise BadInput(f"{PREFIX}: {text if text.startswith(path) else f'{path}: {text}'}") from None


def checked_value(house: House, key: str, value: Any, path: str) -> None:
    """Refuse `value` where `house`'s `key` would not take it (the same bounds as /gm house)."""
    try:
        house.with_value(key, value)
    except RulesError as err:
        raise refuse(path, str(err)) from None


def rolls_from(data: dict[str, Any], now: datetime) -> list[dict[str, Any]]:
    """The export's rolls, each validated (numbered dice, or dice with named faces), as plain dicts."""
    at_most(data.get("rolls"), MAX_ROLLS, "rolls")
    ledger = validate(Ledger, {"rolls": data.get("rolls", [])}, now)
    rolls = []
    for index, roll in enumerate(ledger.rolls):
        if not isinstance(roll, dict):
            raise refuse(f"rolls[{index}]", f"must be an object, not {_TYPES.get(type(roll), type(roll).__name__)}")
        model: type[Strict] = FacesRoll if "faces" in roll and "die" not in roll else NumberedRoll
        rolls.append(validate(model, roll, now, ("rolls", index)).model_dump())
    return rolls


def bounded(value: Any, path: str, depth: int = 8, budget: list[int] | None = None) -> None:
    """Refuse free-form JSON (a card file) deeper than `depth`, with more than MAX_FREE_ITEMS values, text
    longer than MAX_TEXT or numbers that are not finite or beyond MAX_NUMBER."""
    budget = [MAX_FREE_ITEMS] if budget is None else budget
    budget[0] -= 1
    if budget[0] < 0:
        raise refuse(path, f"holds more than {MAX_FREE_ITEMS} values")
    if depth < 0:
        raise refuse(path, "is nested too deeply")
    if isinstance(value, dict):
        for key, item in value.items():
            if not isinstance(key, str) or len(key) > MAX_NAME:
                raise refuse(path, f"a key is longer than {MAX_NAME} characters")
            bounded(item, f"{path}.{key}", depth - 1, budget)
    elif isinstance(value, list):
        for index, item in enumerate(value):
            bounded(item, f"{path}[{index}]", depth - 1, budget)
    elif isinstance(value, str):
        if len(value) > MAX_TEXT:
            raise refuse(path, f"at most {MAX_TEXT} characters")
    elif isinstance(value, bool) or value is None:
        pass
    elif isinstance(value, int | float):
        if isinstance(value, float) and not math.isfinite(value) or abs(value) > MAX_NUMBER:
            raise refuse(path, f"must be a finite number of at most {MAX_NUMBER}")
    else:
        raise refuse(path, f"{type(value).__name__} is not a JSON value")


def unique(keys: list[Any], path: Callable[[int], str], what: str) -> None:
    """Refuse the first key an earlier item already has (`what`: the key's words, e.g. "the name")."""
    seen: dict[Any, int] = {}
    for index, key in enumerate(keys):
        if key in seen:
            raise refuse(path(index), f"{what} is already used by item {seen[key]}")
        seen[key] = index
