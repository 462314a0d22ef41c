"""House settings: the rulings' [house] values a GM may change per game. Each rule set subclasses `House`."""

from __future__ import annotations

from dataclasses import dataclass, fields, replace
from typing import Any, Self


class RulesError(ValueError):
    """A data file (or a GM's value) does not hold valid rules."""


@dataclass(frozen=True)
class House:
    """A frozen set of typed settings; subclasses add the fields and `validate`."""

    def with_value(self, key: str, raw: Any) -> Self:
        """A copy with `key` set from `raw` (a string from a command, or a typed value), validated."""
        kinds = {f.name: f.type for f in fields(self)}
        if key not in kinds:
            raise RulesError(f"unknown house setting {key!r}; settings: {', '.join(kinds)}")
        current = getattr(self, key)
        try:
            if isinstance(current, bool):
                value: Any = raw if isinstance(raw, bool) else parse_bool(str(raw))
            elif isinstance(current, int):
                value = int(raw)
            elif isinstance(current, float):
                value = float(raw)
            else:
                value = str(raw).lower()
        except ValueError:
            raise RulesError(f"{key} takes a {type(current).__name__}, not {raw!r}") from None
        new = replace(self, **{key: value})
        new.validate()
        return new

    def validate(self) -> None:
        """Raise RulesError when a value is out of its bounds."""

    def as_dict(self) -> dict[str, Any]:
        return {f.name: getattr(self, f.name) for f in fields(self)}

    @classmethod
    def from_data(cls, raw: dict[str, Any], where: str = "house") -> Self:
        """Settings from a data file's table: known keys only, each of its default's type; validated."""
        known = {f.name for f in fields(cls)}
        unknown = set(raw) - known
        if unknown:
            raise RulesError(f"unknown house settings: {', '.join(sorted(unknown))}")
        for key, value in raw.items():
            default = getattr(cls, key)
            wanted = (int, float) if isinstance(default, float) else type(default)
            if isinstance(value, bool) != isinstance(default, bool) or not isinstance(value, wanted):
                raise RulesError(f"{where}.{key} must be a {type(default).__name__}, not {value!r}")
        house = cls(**raw)
        house.validate()
        return house


def parse_bool(text: str) -> bool:
    lowered = text.strip().lower()
    if lowered in ("true", "yes", "on", "1"):
        return True
    if lowered in ("false", "no", "off", "0"):
        return False
    raise ValueError(text)
