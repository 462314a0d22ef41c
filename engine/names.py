"""Names that players give (nations, characters, players): one normal form for storing and comparing.

Unicode look-alikes would otherwise make two entries that show the same ("Foo" and "Foo" with a
zero-width space), so every name is NFKC-normalised and stripped of format and control characters
before it is stored, and compared case-insensitively (`name_key`).

Letters of other scripts can look the same too: Cyrillic "Ѕol" and Greek "Fοο" show as "Sol" and "Foo". A new
name is therefore also compared by its confusable skeleton (Unicode TR39, `look_alike_key`, from the `disarm`
library and the Unicode confusables data it ships), and refused when another name already has that skeleton
(`refuse_look_alike`). Names are still found by `name_key`: the skeleton only keeps look-alikes out.
"""

from __future__ import annotations

import functools
import unicodedata
from collections.abc import Callable, Iterable
from typing import TypeVar

from disarm import skeleton_key

from engine.errors import BadInput, RuleViolation

T = TypeVar("T")

MAX_NAME = 40
"""The longest name (in characters, after normalising)."""


def clean_name(raw: str, what: str = "a name", limit: int = MAX_NAME) -> str:
    """`raw` in its stored form: NFKC, no format (Cf) or control (Cc) characters, single spaces, trimmed.

    Raises BadInput when nothing is left or it is longer than `limit`."""
    if not isinstance(raw, str):
        raise BadInput(f"{what} must be text")
    text = unicodedata.normalize("NFKC", raw)
    text = "".join(" " if ch.isspace() else ch for ch in text
                   if ch.isspace() or unicodedata.category(ch) not in ("Cf", "Cc", "Cs", "Co", "Cn"))
    text = " ".join(text.split())
    if not text:
        raise BadInput(f"{what} cannot be empty (or only invisible characters)")
    if len(text) > limit:
        raise BadInput(f"{what} has at most {limit} characters, not {len(text)}")
    return text


CACHED_KEY_LENGTH = 100
"""Names up to this long keep their `name_key` in a bounded cache: every lookup of a nation by its player or name
(several a command and a report) would otherwise clean each name of the game again."""


def name_key(name: str) -> str:
    """What two names are compared by: the clean form, case-folded."""
    if type(name) is str and len(name) <= CACHED_KEY_LENGTH:
        return _cached_name_key(name)
    return _name_key(name)


def _name_key(name: str) -> str:
    try:
        return clean_name(name, limit=10**6).casefold()
    except BadInput:
        return ""


_cached_name_key = functools.lru_cache(maxsize=4096)(_name_key)


def look_alike_key(name: str) -> str:
    """What two names that look alike share: the TR39 confusable skeleton of the clean name, case-folded ("Ѕol",
    "Sol" and "SOL" → "sol"). Letters are folded, digits kept apart ("Zone 1" is not "Zone l"). A name whose
    skeleton would be empty (only marks, say) is its own: its `name_key`."""
    clean = name_key(name)
    if not clean:
        return ""
    return skeleton_key(clean) or "\0" + clean


def look_alike(name: str, names: Iterable[str]) -> str | None:
    """The first of `names` that looks like `name` (the same `look_alike_key`) without being the same name (a
    different `name_key`), or None."""
    key, exact = look_alike_key(name), name_key(name)
    if not key:
        return None
    return next((other for other in names if name_key(other) != exact and look_alike_key(other) == key), None)


def look_alike_problems(names: Iterable[str], what: str) -> list[str]:
    """An import's check: each name of `names` that looks like an earlier one (`look_alike`), in words ("Ѕol
    looks like the system Sol"); empty when none does."""
    seen: list[str] = []
    problems = []
    for name in names:
        other = look_alike(name, seen)
        if other is not None:
            problems.append(f"{name!r} looks like the {what} {other!r}")
        seen.append(name)
    return problems


def refuse_look_alike(name: str, names: Iterable[str], what: str) -> None:
    """RuleViolation when `name` looks like one of `names` (`look_alike`), naming it: `what` says what that
    name is already, e.g. "a nation in this game"."""
    other = look_alike(name, names)
    if other is None:
        return
    seen = set(other.casefold())
    odd = next((ch for ch in name if not ch.isspace() and ch.casefold() not in seen), None)
    which = f" (its {odd} is {unicodedata.name(odd, f'U+{ord(odd):04X}')})" if odd else ""
    raise RuleViolation(f"{name} looks like {other}, already {what}{which}: choose a name that reads differently")


def named_item(text: str, items: Iterable[T], name_of: Callable[[T], str], what: str) -> T | None:
    """The item `text` names: by its whole name (`name_key`), else by an unambiguous start of its name, as
    Discord's autocomplete would find it ("char" → Charon). None when nothing matches; BadInput naming the
    matches when several names start so."""
    key = name_key(text)
    if not key:
        return None
    listed = list(items)
    exact = [item for item in listed if name_key(name_of(item)) == key]
    if exact:
        return exact[0]
    starts = [item for item in listed if name_key(name_of(item)).startswith(key)]
    if len(starts) > 1:
        found = ", ".join(name_of(item) for item in starts)
        raise BadInput(f"{text[:40]!r} matches more than one {what}: {found}; give more of the name")
    return starts[0] if starts else None
