"""Names that players give (nations, characters, players): one normal form for storing and comparing.

Unicode look-alikes would otherwise make two entries that show the same ("Foo" and "Foo" with a
zero-width space), so every name is NFKC-normalised and stripped of format and control characters
before it is stored, and compared case-insensitively (`name_key`).
"""

from __future__ import annotations

import unicodedata
from collections.abc import Callable, Iterable
from typing import TypeVar

from engine.errors import BadInput

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


def name_key(name: str) -> str:
    """What two names are compared by: the clean form, case-folded."""
    try:
        return clean_name(name, limit=10**6).casefold()
    except BadInput:
        return ""


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
