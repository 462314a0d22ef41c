"""TOML text a command reads (God Dice's card file for /gm cards), parsed only once its nesting is known to be
shallow.

`tomllib` reads nested arrays and inline tables by recursion: a 20,000-deep array ends in a RecursionError
(which, caught or not, has already taken the parser to the interpreter's limit), and a few hundred levels
parse but cannot be stored (orjson stops at 255) nor exported. So the brackets are counted first, outside
strings and comments, in one pass that does not recurse, and text nested deeper than MAX_TOML_DEPTH is refused
before `tomllib` sees it. MAX_TOML_DEPTH is the nesting an export's free-form table (`engine.schema.bounded`,
God Dice's `game.cards`) allows, so nothing refused here would have been accepted afterwards.
"""

from __future__ import annotations

import re
import tomllib
from typing import Any

MAX_TOML_DEPTH = 8
"""The deepest nesting of brackets ([…] arrays and table headers, {…} inline tables) a TOML file may have."""

_TOKENS = re.compile(
    r'"""(?:\\.|[^\\])*?"{3,5}'  # a multi-line basic string (it may end in one or two quotes of its own)
    r"|'''.*?'{3,5}"  # a multi-line literal string
    r'|"(?:\\.|[^"\\\n])*"'  # a basic string (a key or a value)
    r"|'[^'\n]*'"  # a literal string
    r"|#[^\n]*"  # a comment
    r"|[\[\]{}]",  # what nests
    re.DOTALL,
)


def toml_depth(text: str) -> int:
    """The deepest nesting of brackets and braces in `text` outside its strings and comments (no recursion)."""
    depth = deepest = 0
    for token in _TOKENS.finditer(text):
        mark = token.group()
        if mark in ("[", "{"):
            depth += 1
            deepest = max(deepest, depth)
        elif mark in ("]", "}"):
            depth = max(0, depth - 1)
    return deepest


def parse_toml(text: str) -> dict[str, Any]:
    """`text` as its TOML table; ValueError with the reason, in one line, if it is nested deeper than
    MAX_TOML_DEPTH or is not TOML."""
    if toml_depth(text) > MAX_TOML_DEPTH:
        raise ValueError(f"it is nested too deeply (at most {MAX_TOML_DEPTH} levels of brackets)")
    try:
        return tomllib.loads(text)
    except RecursionError:  # not reached: the depth is checked above; kept so that no traceback can escape
        raise ValueError("it is nested too deeply") from None
    except tomllib.TOMLDecodeError as err:
        raise ValueError(str(err)) from None
