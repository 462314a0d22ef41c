"""The console's input lines: read bounded, decoded strictly, and parsed into who, which command and its options
(`engine.vocabulary.read_options`: a word is never given to another option than the one it was written for)."""

from __future__ import annotations

import unicodedata
from typing import IO, Any

from console.terminal import MAX_LINE, MAX_LINE_BYTES
from engine.commands import BY_PATH, PREFIXES, Command, find_command, unknown_command
from engine.errors import BadInput
from engine.vocabulary import Word, read_options, split_words


def read_line(stream: IO[Any]) -> bytes | str | None:
    """The next line of `stream` (bytes or text, as it gives), None at its end.

    At most MAX_LINE_BYTES + 1 of a line is kept, so a line without end cannot fill the memory: the rest
    of a longer line is read and dropped, and `decode_line` refuses what was kept."""
    line = stream.readline(MAX_LINE_BYTES + 1)
    if not line:
        return None
    newline = b"\n" if isinstance(line, bytes) else "\n"
    if len(line) > MAX_LINE_BYTES and not line.endswith(newline):
        while True:
            more = stream.readline(65_536)
            if not more or more.endswith(newline):
                break
    return line


def decode_line(raw: bytes | str) -> str:
    """One input line as text: strict UTF-8, at most MAX_LINE characters, no control character but tab.

    Raises BadInput (nothing changed) for anything else."""
    if isinstance(raw, bytes):
        raw = raw.removesuffix(b"\n").removesuffix(b"\r")
        if len(raw) > MAX_LINE_BYTES:
            raise BadInput(f"that line is too long: at most {MAX_LINE:,} characters; nothing changed")
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError:
            raise BadInput("that line is not UTF-8 text; nothing changed") from None
    else:
        text = raw.removesuffix("\n").removesuffix("\r")
    if len(text) > MAX_LINE:
        raise BadInput(f"that line is too long: at most {MAX_LINE:,} characters; nothing changed")
    for column, ch in enumerate(text, 1):
        if ch != "\t" and unicodedata.category(ch) in ("Cc", "Cs", "Zl", "Zp"):
            what = {"Cs": "a surrogate", "Zl": "a line separator", "Zp": "a paragraph separator"}.get(
                unicodedata.category(ch), "a control character")
            raise BadInput(f"that line has {what} (U+{ord(ch):04X}, column {column}); nothing changed")
    return text


def parse_line(line: str) -> tuple[str, Command, dict[str, str]] | None:
    """`alice /economy recruit unit:infantry` → ("alice", the command, {"unit": "infantry"}); None if blank.

    A bare `/help` (no name in front) is read with the name "" (help needs none); any other command without a
    name is refused with the line as it should be written. Options are read by `read_options`: a word is never
    given to another option than the one it was written for."""
    try:
        words = split_words(line)
    except ValueError as err:
        raise BadInput(f"cannot read that line: {err}") from None
    if not words:
        return None
    if words[0].text.startswith("/"):  # a command without a name in front
        words = [Word("", False, words[0].start, words[0].start), *words]
        if words[1].text[1:].lower() != "help":
            raise BadInput(f"write `<your name> /command options`, e.g. `alice {_example(line, words)}`")
    if len(words) < 2 or not words[1].text.startswith("/"):
        raise BadInput("write `<your name> /command options`, e.g. `alice /economy grow`")
    actor = words[0].text
    path = [words[1].text[1:]]
    rest = words[2:]
    while rest and ":" not in rest[0].text and " ".join([*path, rest[0].text]).lower() in PREFIXES:
        path.append(rest.pop(0).text)
    try:
        command, leftover = find_command(path)
    except BadInput:
        raise unknown_command(path, rest[0].text if rest else None) from None
    if not actor and command.path != "help":
        raise BadInput("write `<your name> /command options`, e.g. `alice /economy grow`")
    after_path = 1 + len(path)  # the path's words are words[1:after_path]; those left over are options
    return actor, command, read_options(command, [*words[after_path - len(leftover):after_path], *rest], line)


def strip_comment(line: str) -> str:
    """The line without its `#` comment (a `#` outside quotes starts one, as the line's words are read): what is
    parsed and recorded, so that nothing of a comment reaches the game's log. A whole-line comment leaves "". A
    line that cannot be read (an open quote) is left whole, for `parse_line` to refuse."""
    try:
        words = split_words(line)
    except ValueError:
        return line
    return line[:words[-1].end] if words else ""


def typed_command(text: str, actor: str) -> str:
    """The command as typed, without the name in front: what the game's log records."""
    return text.strip().split(None, 1)[1] if actor else text.strip()


MAX_EXAMPLE = 80  # the longest command shown back in "write `<your name> /command options`, e.g. …"


def _example(line: str, words: list[Word]) -> str:
    """The command typed without a name, as it should be written after one (the usual example when it names no
    command, or is long)."""
    typed = line[words[1].start:words[-1].end]
    path = [words[1].text[1:]]
    for word in words[2:]:
        if " ".join([*path, word.text]).lower() not in PREFIXES:
            break
        path.append(word.text)
    known = any(" ".join(path[:n]).lower() in BY_PATH for n in range(1, len(path) + 1))
    return typed if known and len(typed) <= MAX_EXAMPLE else "/economy grow"
