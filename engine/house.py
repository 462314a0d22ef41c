"""House settings: the rulings' [house] values a GM may change per game. Each rule set subclasses `House`.

Every setting is checked whenever it is set (a data file, `/gm house`, an import): a number must be finite,
of its kind (a whole number where the default is one) and within the range its subclass declares in
`RANGES`; a word must be one of its `CHOICES`; a yes/no must be a bool. Settings that only the rule set's
tables can judge (a rank's name) are checked by `check_rules`.
"""

from __future__ import annotations

import math
import reprlib
from dataclasses import MISSING, dataclass, fields, replace
from typing import Any, ClassVar, Self


class RulesError(ValueError):
    """A data file (or a GM's value) does not hold valid rules."""


MAX_HOUSE_TEXT = 40
"""The longest word a house setting may hold (its allowed words are shorter still)."""


@dataclass(frozen=True)
class House:
    """A frozen set of typed settings; subclasses add the fields, their bounds and `validate`."""

    RANGES: ClassVar[dict[str, tuple[float, float]]] = {}
    """Each number's inclusive range (every int and float setting must have one)."""
    OFF_AT_ZERO: ClassVar[dict[str, str]] = {}
    """Numbers for which 0 is also allowed, and what 0 means ("off", "never")."""
    UNITS: ClassVar[dict[str, str]] = {}
    """A number's unit, for messages ("hours")."""
    CHOICES: ClassVar[dict[str, tuple[str, ...]]] = {}
    """The words a text setting may be."""

    def with_value(self, key: str, raw: Any) -> Self:
        """A copy with `key` set from `raw` (a string from a command, or a typed value), validated."""
        defaults = _defaults(type(self))
        if key not in defaults:
            raise RulesError(f"unknown house setting {_brief(key)}; settings: {', '.join(defaults)}")
        new = replace(self, **{key: _parse(key, defaults[key], raw)})
        new.validate()
        return new

    def with_logged_value(self, key: str, value: Any) -> Self:
        """A copy with `key` set to a value taken from the log (checked when it was set): not validated
        again, so a log written under older bounds still replays."""
        defaults = _defaults(type(self))
        if key not in defaults:
            raise RulesError(f"unknown house setting {_brief(key)}")
        return replace(self, **{key: value})

    def validate(self) -> None:
        """Raise RulesError when a value is not of its kind or out of its bounds (subclasses add cross-checks)."""
        for key, default in _defaults(type(self)).items():
            self.check_value(key, default, getattr(self, key))

    @classmethod
    def check_value(cls, key: str, default: Any, value: Any) -> None:
        """Raise RulesError unless `value` is a valid `key` (of the kind of `default`)."""
        if isinstance(default, bool):
            if not isinstance(value, bool):
                raise RulesError(f"{key} must be true or false, not {_brief(value)}")
            return
        if isinstance(default, int | float):
            if isinstance(value, bool) or not isinstance(value, int | float):
                raise RulesError(f"{key} must be a number, not {_brief(value)}")
            if isinstance(default, int) and not isinstance(value, int):
                raise RulesError(f"{key} must be a whole number, not {_brief(value)}")
            low, high = cls.RANGES[key]
            if _finite(value) and low <= value <= high:
                return
            if value == 0 and key in cls.OFF_AT_ZERO:
                return
            unit = f" {cls.UNITS[key]}" if key in cls.UNITS else ""
            zero = f"0 ({cls.OFF_AT_ZERO[key]}) or " if key in cls.OFF_AT_ZERO else ""
            raise RulesError(f"{key} must be {zero}between {_show(low)} and {_show(high)}{unit}, not {_show(value)}")
        if not isinstance(value, str):
            raise RulesError(f"{key} must be a word, not {_brief(value)}")
        choices = cls.CHOICES.get(key)
        if choices is not None and value not in choices:
            raise RulesError(f"{key} must be {' or '.join(choices)}, not {_brief(value)}")
        if not value or len(value) > MAX_HOUSE_TEXT:
            raise RulesError(f"{key} must be a word of 1 to {MAX_HOUSE_TEXT} characters, not {_brief(value)}")

    def check_rules(self, rules: Any) -> None:
        """Raise RulesError when a setting names something the rule set's tables do not have."""

    def as_dict(self) -> dict[str, Any]:
        return {f.name: getattr(self, f.name) for f in fields(self)}

    @classmethod
    def from_data(cls, raw: dict[str, Any], where: str = "house") -> Self:
        """Settings from a data file's (or an import's) table: known keys only, each of its default's type;
        validated (whole numbers given for a decimal setting become decimals)."""
        defaults = _defaults(cls)
        unknown = set(raw) - set(defaults)
        if unknown:
            raise RulesError(f"unknown house settings: {', '.join(sorted(map(str, unknown)))}")
        values = {}
        for key, value in raw.items():
            default = defaults[key]
            wanted = (int, float) if isinstance(default, float) else type(default)
            if isinstance(value, bool) != isinstance(default, bool) or not isinstance(value, wanted):
                raise RulesError(f"{where}.{key} must be a {type(default).__name__}, not {_brief(value)}")
            try:
                cls.check_value(key, default, value)
            except RulesError as err:
                raise RulesError(f"{where}.{err}") from None
            values[key] = float(value) if isinstance(default, float) else value
        house = cls(**values)
        house.validate()
        return house


def _defaults(cls: type) -> dict[str, Any]:
    return {f.name: f.default for f in fields(cls) if f.default is not MISSING}


def _parse(key: str, default: Any, raw: Any) -> Any:
    """`raw` (typed, or as typed in a command) as a value of the kind of `default`; RulesError if it is not."""
    kind = "true or false" if isinstance(default, bool) else "a whole number" if isinstance(default, int) \
        else "a number" if isinstance(default, float) else "a word"
    try:
        if isinstance(default, bool):
            return raw if isinstance(raw, bool) else parse_bool(str(raw))
        if isinstance(raw, bool):
            raise ValueError(raw)
        if isinstance(default, int):
            if isinstance(raw, float):
                if not raw.is_integer():
                    raise ValueError(raw)
                return int(raw)
            return int(raw if isinstance(raw, int) else str(raw).strip())
        if isinstance(default, float):
            return float(raw if isinstance(raw, int | float) else str(raw).strip())
        return str(raw).strip().lower()
    except (ValueError, OverflowError):
        raise RulesError(f"{key} takes {kind}, not {_brief(raw)}") from None


def _finite(value: int | float) -> bool:
    try:
        return math.isfinite(value)
    except OverflowError:  # an int too large for a float
        return False


def _show(value: Any) -> str:
    """A number as a message shows it: 336, 0.5, 1e-300, 1e+30."""
    if isinstance(value, int) and abs(value) < 10**15:
        return str(value)
    try:
        return f"{float(value):g}"
    except OverflowError:
        return f"{'-' if value < 0 else ''}a number of {len(str(abs(value)))} digits"


_SHORT = reprlib.Repr()
_SHORT.maxlevel, _SHORT.maxstring, _SHORT.maxother, _SHORT.maxlong = 2, 60, 60, 40


def _brief(value: Any) -> str:
    """A value for a message, cut short if it is long (or deeply nested)."""
    try:
        text = _SHORT.repr(value)
    except (RecursionError, ValueError):
        text = f"a {type(value).__name__}"
    return text if len(text) <= 60 else text[:57] + "..."


def parse_bool(text: str) -> bool:
    lowered = text.strip().lower()
    if lowered in ("true", "yes", "on", "1"):
        return True
    if lowered in ("false", "no", "off", "0"):
        return False
    raise ValueError(text)
