"""The console at a terminal: how long a line may be, line editing with Tab completion of commands and option
names (`completions`), and the history kept beside the database (`history_path`)."""

from __future__ import annotations

import logging
import os
from collections.abc import Callable
from typing import Any

from engine.commands import BY_PATH, PREFIXES

log = logging.getLogger("referee.console")

MAX_LINE = 4_000
"""The longest console line, in characters (a longer one is refused, not cut)."""
MAX_LINE_BYTES = 4 * MAX_LINE  # what MAX_LINE characters of UTF-8 can take

MAX_HISTORY = 1_000
"""The most lines the history file beside the database keeps (the oldest go first)."""
MAX_HISTORY_BYTES = MAX_HISTORY * MAX_LINE_BYTES  # a larger history file is not loaded (nor overwritten)


def history_path(db_path: str) -> str:
    """The console's line history, beside its database: `game.db` → `game.db.history`."""
    return f"{db_path}.history"


def line_editing(history_file: str) -> Callable[[], None] | None:
    """Turn on `readline` for `input()`: arrows, Tab completion of commands and option names (`completions`),
    and history kept between runs in `history_file` (at most MAX_HISTORY lines), loaded now. Returns what saves
    the history at the end; None where there is no readline (the plain reader then)."""
    try:
        import readline
    except ImportError:  # e.g. Windows without pyreadline: the plain reader
        return None
    readline.set_auto_history(True)
    readline.set_history_length(MAX_HISTORY)
    readline.set_completer_delims(" \t")
    readline.set_completer(_completer(readline))
    if "libedit" in (readline.__doc__ or ""):  # macOS's readline
        readline.parse_and_bind("bind ^I rl_complete")
    else:
        readline.parse_and_bind("tab: complete")
    loaded = False
    try:
        if os.path.getsize(history_file) <= MAX_HISTORY_BYTES:
            readline.read_history_file(history_file)
            loaded = True
    except FileNotFoundError:
        loaded = True  # none yet: the first run writes it
    except (OSError, ValueError) as err:  # unreadable or not text: the session goes on without it
        log.warning("the console's history %s was not loaded: %s", history_file, err)

    def save() -> None:
        if not loaded:  # never over a history file that could not be read
            return
        try:
            readline.write_history_file(history_file)
        except OSError as err:
            log.warning("the console's history was not saved to %s: %s", history_file, err)

    return save


def _completer(readline: Any) -> Callable[[str, int], str | None]:
    """readline's completer: the `state`th completion of the word before the cursor (`completions`)."""
    found: list[str] = []

    def complete(text: str, state: int) -> str | None:
        if state == 0:
            found[:] = completions(readline.get_line_buffer()[:readline.get_endidx()])
        return found[state] if state < len(found) else None

    return complete


def completions(before: str) -> list[str]:
    """What the last word of `before` (the line up to the cursor) may become: a command group or subcommand
    (`alice /eco` → `/economy `, `alice /economy re` → `recruit `), an option name of the command typed so far
    (`alice /economy recruit u` → `unit:`), or one of an option's fixed values (`unit:inf` → `unit:infantry `).
    A whole word comes with the space after it (Python's readline adds none)."""
    words = before.split()
    partial = "" if not words or before[-1:].isspace() else words.pop()
    if not words:  # the name, or a command alone (`/help`)
        return sorted({f"/{p.split()[0]} " for p in PREFIXES if f"/{p}".startswith(partial.lower())}) \
            if partial.startswith("/") else []
    if len(words) == 1:
        return sorted({f"/{p.split()[0]} " for p in PREFIXES if f"/{p}".startswith(partial.lower())})
    if not words[1].startswith("/"):
        return []
    path = [words[1][1:].lower()]
    for word in words[2:]:
        if " ".join([*path, word.lower()]) not in PREFIXES:
            break
        path.append(word.lower())
    given = words[1 + len(path):]
    if " ".join(path) not in PREFIXES:
        return []
    found: list[str] = []
    if not given:  # still in the path: the next word of a longer command
        found += sorted({p.split()[len(path)] + " " for p in PREFIXES
                         if p.split()[:len(path)] == path and len(p.split()) > len(path)
                         and p.split()[len(path)].startswith(partial.lower())})
    command = BY_PATH.get(" ".join(path))
    if command is None:
        return found
    name, colon, value = partial.partition(":")
    if colon:  # an option's value: its fixed values, if it has any
        param = next((p for p in command.params if p.name == name.lower()), None)
        return [f"{name}:{c} " for c in (param.offered if param else ()) if c.lower().startswith(value.lower())]
    used = {w.partition(":")[0].lower() for w in given if ":" in w}
    return found + [f"{p.name}:" for p in command.params if p.name not in used and p.name.startswith(partial.lower())]
