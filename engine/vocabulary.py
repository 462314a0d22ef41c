"""The command vocabulary's machinery, shared by every front-end: a command path and typed options → an
engine action.

The console parses a typed line into a path and options; a Discord cog receives them as typed slash
options. Both call `build_action`, so a command means the same thing everywhere. Commands whose
`action` is None are queries or store-level operations the front-end answers itself (status, export…).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from engine.errors import BadInput

ONE = "one"
"""A value of one word (a number, a choice, a player): a word after it, unquoted, is refused (never taken as the
next option)."""
TEXT = "text"
"""A value that may have several words (a nation's name, a position "Sol 2", a dice expression "1d20 adv", a file):
in the console, the words after `name:` up to the next option are read whole."""
LIST = "list"
"""Several values in one option (dice "7 3 10", regions "Sol 2, Vega 1"): read whole after `name:` like TEXT; a
list given without its name must be quoted."""
NUMBERS = "numbers"
"""A list of whole numbers (units "1 5", counters "3 4"): as LIST, and each word is checked (`#3` and commas
allowed), so that a stray word is refused by name, on Discord as in the console."""
WORDS = (ONE, TEXT, LIST, NUMBERS)


class Player(str):
    """The kind of an option naming a player of the server: on Discord a user option (the member's id is given);
    in the console, a name as typed."""


class Role(str):
    """The kind of an option naming a role of the server: on Discord a role option (the role's id is given); the
    console has no servers, so no roles (a command taking one is Discord's alone)."""


class File:
    """The kind of an option that is a file: an attachment on Discord, a regular file's path in the console. The
    front-end gives it as an upload (`service.dispatch.Upload`: its name, and its bytes read when needed, at most
    the option's `high`)."""


KINDS = (str, int, float, bool, Player, Role, File)
CONSOLE = "console"
"""`Param.only`: an option only the console offers (a file it writes, a confirmation Discord asks with buttons)."""


@dataclass(frozen=True)
class Param:
    name: str
    kind: type = str  # str, int, float, bool, Player, Role or File
    required: bool = False
    help: str = ""
    choices: tuple[str, ...] = ()  # offered as choices on Discord; the engine checks the value
    words: str = ONE  # how many words its value may have: ONE, TEXT, LIST or NUMBERS
    # what a front-end offers and checks at its edge (the engine checks every value again):
    low: float | None = None  # the least value of a number, the shortest text
    high: float | None = None  # the greatest value of a number, the longest text, the largest file (bytes)
    complete: str | None = None  # where its suggestions come from (Discord's autocomplete), by name
    only: str | None = None  # the one front-end that offers it (`CONSOLE`); None: every one
    named_only: bool = False  # the console gives it no bare word: only `name:value` (a word too many is refused)

    def __post_init__(self) -> None:
        if self.words not in WORDS:
            raise ValueError(f"option {self.name}: words is one of {', '.join(WORDS)}, not {self.words!r}")
        if self.kind not in KINDS:
            raise ValueError(f"option {self.name}: its kind is one of str, int, float, bool, Player, Role, File")
        if self.words != ONE and self.kind not in (str, File):
            raise ValueError(f"option {self.name}: only a text option may take several words")
        if self.kind is File and self.high is None:
            raise ValueError(f"option {self.name}: a file option says the largest file it takes (high, in bytes)")

    @property
    def several(self) -> bool:
        """Whether its value may have several words (read whole after `name:` in the console)."""
        return self.words != ONE

    @property
    def offered(self) -> tuple[str, ...]:
        """The fixed values a front-end offers for it: its choices (true and false for a yes/no option)."""
        return ("true", "false") if self.kind is bool and not self.choices else self.choices

    def for_front(self, front: str) -> bool:
        """Whether the front-end named `front` offers this option."""
        return self.only is None or self.only == front


@dataclass(frozen=True)
class Group:
    """A group of commands (`gm unit`: the commands whose path starts so), as a front-end shows it: its words and
    what it is for. `gm_only`: a group of the GM's commands (the game's GM and co-GMs may use them: the bot checks);
    `manage_server`: Discord offers it to members with Manage Server by default (a server's settings)."""

    path: str
    help: str
    gm_only: bool = False
    manage_server: bool = False


CHART_FILE = (Param("file", help="console: the picture's file under the working folder or $REFEREE_EXPORT_DIR",
                    words=TEXT, only=CONSOLE),
              Param("overwrite", bool, help="console: true to replace an existing file", only=CONSOLE))
"""The console's options of a chart (Discord sends the picture itself)."""

MAX_TOML_FILE = 200_000
"""The largest TOML file a command reads (`Command.toml_option`: God Dice's card file, 5 kB as shipped), in bytes."""


@dataclass(frozen=True)
class Command:
    path: str
    help: str
    params: tuple[Param, ...] = ()
    action: Callable[[dict[str, Any]], Any] | None = None
    gm_only: bool = False
    ruleset: str | None = None  # the rule set it belongs to (None: every game)
    # a query: what it shows, from (state, rules, actor, typed options); the front-ends lay the view out
    view: Callable[[Any, Any, str, dict[str, Any]], Any] | None = None
    shows_ended: bool = False  # the query shows the channel's last ended game when none runs (a status)
    toml_option: str | None = None  # an option that is a TOML file: read into a dict before the action is built
    file_what: str = "a TOML file"  # what its file option takes, as a refusal names it ("a card file", "an export")
    # a chart: (state, its stat history, typed options) → what to draw (`engine.chartspec.Chart`); the front-ends
    # draw it (`service.charts`): a PNG on Discord, a file in the console
    chart: Callable[[Any, Any, dict[str, Any]], Any] | None = None
    private: bool = False  # its answer is for the asker alone (ephemeral on Discord)
    slow: bool = False  # it may take a while: a front-end that must acknowledge in time does so first

    def __post_init__(self) -> None:
        if self.toml_option is not None:  # the TOML file's option is a file, wherever it is declared
            params = tuple(replace(p, kind=File, high=p.high or MAX_TOML_FILE)
                           if p.name == self.toml_option else p for p in self.params)
            object.__setattr__(self, "params", params)

    @property
    def described(self) -> str:
        """Its help as every front-end shows it: a GM's command marked (GM), unless its help says so already."""
        return self.help + (" (GM)" if self.gm_only and "(GM" not in self.help else "")

    def params_for(self, front: str) -> tuple[Param, ...]:
        """The options the front-end named `front` offers."""
        return tuple(p for p in self.params if p.for_front(front))


def parse_dice(text: str) -> list[int | str]:
    """Entered dice as typed: numbers ("7 3 10") or face names ("B R O 5", "H C"); each rule set checks them."""
    tokens = [t for t in re.split(r"[\s,]+", text.strip()) if t]
    return [int(t) if t.isdecimal() else t.upper() for t in tokens]


def unknown_option(command: Command, names: set[str]) -> BadInput:
    """The refusal of options a command does not have, naming the ones it has."""
    params = [p.name for p in command.params]
    return BadInput(f"/{command.path} has no option {', '.join(sorted(names))}"
                    + (f"; its options: {', '.join(params)}" if params else ""))


def coerce_options(command: Command, raw: dict[str, Any]) -> dict[str, Any]:
    """Check names, required options, types and choices; returns typed options."""
    params = {p.name: p for p in command.params}
    unknown = set(raw) - set(params)
    if unknown:
        raise unknown_option(command, unknown)
    typed: dict[str, Any] = {}
    for name, param in params.items():
        value = raw.get(name)
        if value is None or value == "":
            if param.required:
                raise BadInput(f"/{command.path} needs {name}:")
            continue
        if param.words == NUMBERS:
            check_numbers(name, str(value))
        if param.kind is bool:
            value = yes_no(value, name)
        elif param.kind is File:
            if isinstance(value, str):
                raise TypeError(f"/{command.path}: the front-end gives {name}: as an upload, not its name")
        elif param.kind in (Player, Role):
            value = str(value)
        elif param.kind is not str and isinstance(value, str):
            try:
                value = param.kind(value)
            except ValueError:
                kind = {int: "a whole number", float: "a number"}.get(param.kind, param.kind.__name__)
                raise BadInput(f"{name} must be {kind}, not {value!r}") from None
        typed[name] = value
    return typed


def yes_no(value: object, name: str) -> bool:
    """A yes/no option's value: a bool as Discord gives it, or true/false (yes/no) as typed."""
    if isinstance(value, bool):
        return value
    text = str(value).strip().lower()
    if text not in ("true", "false", "yes", "no"):
        raise BadInput(f"{name} must be true or false, not {value!r}")
    return text in ("true", "yes")


MAX_SHOWN_WORD = 40  # a refused word is shown at most this long
MAX_NUMBER_DIGITS = 18  # a number of a NUMBERS list has at most this many digits


def shown_word(word: str) -> str:
    """A word of the input as a refusal quotes it: repr, cut to MAX_SHOWN_WORD characters."""
    return repr(word if len(word) <= MAX_SHOWN_WORD else word[:MAX_SHOWN_WORD] + "…")


def check_numbers(name: str, value: str) -> None:
    """A NUMBERS option's value: whole numbers apart by spaces or commas (`#3` allowed); refuses the first word
    that is not one, by name."""
    for word in re.split(r"[\s,]+", value.strip()):
        if word and not word.removeprefix("#").isdecimal():
            raise BadInput(f"{name}: {shown_word(word)} is not a number; give numbers, e.g. {name}:\"1 5\"")
        if len(word.removeprefix("#")) > MAX_NUMBER_DIGITS:
            raise BadInput(f"{name}: {shown_word(word)} is too large for a number here")


# --- reading a typed line's options (the console) ----------------------------------------------------

_BLANKS = " \t\r\n"


@dataclass(frozen=True)
class Word:
    """One word of a typed line as the shell would read it (`shlex`, POSIX, `#` comments): its text, whether
    any of it was quoted, and where it stands in the line (`start`, `end`: the raw text, quotes included)."""
    text: str
    quoted: bool
    start: int
    end: int


def split_words(line: str) -> list[Word]:
    """The words of `line`, exactly as `shlex.split(line, comments=True)` reads them, with their places.

    Raises ValueError ("No closing quotation", "No escaped character") as shlex does."""
    words: list[Word] = []
    i, n = 0, len(line)
    while i < n:
        if line[i] in _BLANKS:
            i += 1
            continue
        if line[i] == "#":
            break
        start, text, quoted, comment = i, [], False, False
        while i < n and line[i] not in _BLANKS:
            ch = line[i]
            if ch == "#":  # a comment, even inside a word (as shlex reads it)
                comment = True
                break
            if ch == "\\":
                if i + 1 >= n:
                    raise ValueError("No escaped character")
                text.append(line[i + 1])
                i += 2
            elif ch == "'":
                end = line.find("'", i + 1)
                if end < 0:
                    raise ValueError("No closing quotation")
                text.append(line[i + 1:end])
                quoted, i = True, end + 1
            elif ch == '"':
                quoted, i = True, i + 1
                while True:
                    if i >= n:
                        raise ValueError("No closing quotation")
                    ch = line[i]
                    if ch == '"':
                        i += 1
                        break
                    if ch == "\\" and i + 1 < n and line[i + 1] in '"\\':
                        text.append(line[i + 1])
                        i += 2
                    elif ch == "\\" and i + 1 >= n:
                        raise ValueError("No escaped character")
                    else:
                        text.append(ch)
                        i += 1
            else:
                text.append(ch)
                i += 1
        words.append(Word("".join(text), quoted, start, i))
        if comment:
            break
    return words


def read_options(command: Command, words: list[Word], line: str) -> dict[str, str]:
    """A command's options from the words typed after its path: `name:value`, or values in the order of the
    options not named (`/nation claim Charon bob`).

    Nothing typed is ever given to another option than the one it was written for:
    - after an unquoted `name:value`, the next words up to the next `name:` belong to it when the option takes
      several words (`Param.words`: `units:1 5`, `name:flying kick`, `dice:1d20 adv`, spaced as typed), a word
      after `name:` with nothing after the colon is its value (`player: alice`), and any other word is refused,
      named (`'5' after retreat_at:1 is not an option`);
    - a word after a list given without its name, unquoted, is refused, named (`/attack declare Charon 1 5`:
      quote a list, `units:"1 5"`);
    - an option named twice is refused, and so is a value with no option left to take it."""
    params = {p.name: p for p in command.params}
    items: list[tuple[str | None, Word]] = []  # (the option named, or None for a bare value; the word)
    named: set[str] = set()
    for word in words:
        name, sep, _ = word.text.partition(":")
        if sep and name.isidentifier():
            option = name.lower()
            if option in named:
                raise BadInput(f"{option}: is given twice on this line; give each option once")
            named.add(option)
            items.append((option, word))
        else:
            items.append((None, word))
    free = [p for p in command.params if p.name not in named and not p.named_only]
    options: dict[str, str] = {}
    last: tuple[str, Param | None, Word] | None = None  # ("named" or "bare", its option, the word)
    for position, (key, word) in enumerate(items):
        if key is not None:
            options[key] = word.text.partition(":")[2]
            last = ("named", params.get(key), word)
            continue
        if last is not None and last[0] == "named" and not last[2].quoted:  # a word after an unquoted name:value
            name = last[2].text.partition(":")[0].lower()
            param = last[1]
            if param is None:
                raise unknown_option(command, {name})
            if param.several or options[name] == "":
                gap = line[items[position - 1][1].end:word.start]  # the spaces as typed
                options[name] = options[name] + gap + word.text if options[name] else word.text
                if not param.several:
                    last = ("named", param, Word(f"{name}:{word.text}", False, last[2].start, word.end))
                continue
            raise BadInput(f"{shown_word(word.text)} after {name}:{_shown_value(options[name])} is not an option: "
                           f"{name}: takes one word (write each option as name:value)")
        before = last[1] if last is not None and last[0] == "bare" and not last[2].quoted else None
        if not free:
            stray = [w.text for k, w in items[position:] if k is None]
            hint = ""
            if before is not None and before.several:
                hint = f": quote it, {before.name}:\"{' '.join([options[before.name], *_bare_run(items, position)])}\""
            bare = [name for name, p in params.items() if not p.named_only]
            raise BadInput(f"/{command.path} takes {', '.join(bare) or 'no options'}; "
                           f"{shown_word(' '.join(stray))} is too much{hint}")
        if before is not None and before.words in (LIST, NUMBERS):
            listed = " ".join([options[before.name], *_bare_run(items, position)])
            raise BadInput(f"{shown_word(word.text)} after {before.name} {_shown_value(options[before.name])} "
                           f"is not an option: quote a list, {before.name}:\"{listed}\"")
        param = free.pop(0)
        options[param.name] = word.text
        last = ("bare", param, word)
    return options


def _bare_run(items: list[tuple[str | None, Word]], position: int) -> list[str]:
    """The bare words from `position` up to the next named option."""
    run = []
    for key, word in items[position:]:
        if key is not None:
            break
        run.append(word.text)
    return run


def _shown_value(value: str) -> str:
    """A value as a refusal shows it (cut if long)."""
    return value if len(value) <= MAX_SHOWN_WORD else value[:MAX_SHOWN_WORD] + "…"


def build_action(command: Command, options: dict[str, Any]) -> Any:
    """The engine action a command with typed options stands for."""
    if command.action is None:
        raise ValueError(f"/{command.path} is not an engine action")
    return command.action(options)
