"""The console's answers as text, markdown or BBCode, ready for a forum post (`Formatter`), and without emoji for
old boards that drop 4-byte characters (`no_emoji`)."""

from __future__ import annotations

import re
from collections.abc import Sequence

from engine.commands import PREFIXES
from engine.errors import BadInput
from engine.view import Line, Strong, part_text

FORMATS = ("text", "markdown", "bbcode")
_MD_SPECIAL = re.compile(r"([\\`*_~|<\[\]])")
_MD_LINE_START = re.compile(r"^(?:([#>+=-])|(\d+)([.)])(?=\s|$))")  # what would start a heading, quote or list
_UNIT_ID = r"(?<![\w#`])#\d+\b"
_COMMAND = r"(?<![\w/`])/[a-z]+(?: [a-z]+(?![\w:])){0,2}"  # (a word before `:` is an option's)
_OPTION = r" [a-z_]+:(?:<[^<>\n]+>|\"[^\"\n]*\"|[^\s;,)\]`\"<]+)"  # `step:<step>`, `name:"Sol"`, `unit:AG`
_CODE = re.compile(rf"`(?P<span>[^`\n]+)`|(?P<unit>{_UNIT_ID})|(?P<command>{_COMMAND})(?P<options>(?:{_OPTION})*)")
_HELD = re.compile("\x00(\\d+)\x00")  # a held code span (NUL never reaches here: `decode_line` refuses it)
_ROLL_TOTAL = re.compile(r"(?<= = )(-?\d+)(?= vs |$)")
_VERDICT = re.compile(r"(?<=: )(success|failure)\b")
_LOUD = re.compile(r"\b(GAME OVER|ELIMINATED|OVER ITS MP CAP|OUT OF THE GAME|IN REVOLT)\b")
_BB_CODE_END = re.compile(r"\[(/code)", re.IGNORECASE)

EMOJI_MARKS = {
    # outside the BMP (4 bytes in UTF-8: what old boards drop)
    "🎲": "[die]", "🛡": "[defence]", "👑": "[winner]", "🏁": "[end]", "🏆": "[win]", "💀": "[dead]",
    "🔄": "[reversal]", "🪑": "[seat]", "🃏": "[card]", "🙏": "[favour]", "💥": "[hit]", "🏳": "[flag]",
    "🤝": "[tie]", "🪐": "[planet]", "💰": "[money]", "🧭": "[move]", "📦": "[stack]", "🔒": "[secret]",
    "🔓": "[revealed]",
    # emoji inside the BMP the referee marks its lines with: words too, so no emoji is left
    "⚔": "[battle]", "✨": "[+]", "⚡": "[kill]", "⏳": "[wait]", "⏰": "[time]", "⏸": "[pause]", "▶": "[go]",
    "⏭": "[next]", "⚖": "[GM]", "⌛": "[time up]", "✖": "[miss]", "☠": "[out]", "⚠": "[!]", "↩": "[undo]",
    "✔": "[done]", "☄": "[transit]",
}
"""`--no-emoji`: the text mark each emoji the referee writes becomes; any other character outside the BMP (a
name's emoji) is left out, and so are emoji variation selectors and joiners."""
_EMOJI = re.compile("|".join(map(re.escape, sorted(EMOJI_MARKS, key=len, reverse=True)))
                    + "|[\U00010000-\U0010ffff\ufe0e\ufe0f\u200d]")


def no_emoji(text: str) -> str:
    """`text` without emoji: the referee's marks as words (`EMOJI_MARKS`), any other character outside the BMP
    left out — nothing of 4 bytes in UTF-8."""
    return _EMOJI.sub(lambda m: EMOJI_MARKS.get(m.group(0), ""), text)


def json_no_emoji(body: str) -> str:
    """A printed export without characters outside the BMP: each as its JSON escape (a surrogate pair), so the
    export still reads back the same."""
    def escaped(match: re.Match[str]) -> str:
        code = ord(match.group(0)) - 0x10000
        return f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}"

    return re.sub("[\U00010000-\U0010ffff]", escaped, body)


class Formatter:
    """Console answers as text (as they are), markdown or BBCode, to paste into a forum post as they come.

    Markdown: unit ids, commands (with the options written after them) and what the referee wrote in backticks
    as code spans, roll totals, verdicts and alarms in bold (as the Discord embeds show them), lines kept apart
    (two trailing spaces), indented lines as a list, a stat block's rows (`Line.table`) and JSON as code blocks,
    every other markdown character escaped. BBCode: the same with [b], [list][*] and [code] (a forum's
    proportional font keeps a stat block's columns only there).

    `emoji=False` (`--no-emoji`, any format): for old boards that drop 4-byte characters, no emoji is written
    (`no_emoji`)."""

    def __init__(self, fmt: str = "text", emoji: bool = True) -> None:
        if fmt not in FORMATS:
            raise BadInput(f"format is one of {', '.join(FORMATS)}, not {fmt!r}")
        self.fmt = fmt
        self.emoji = emoji

    def answer(self, lines: Sequence[str | Line]) -> str:
        """One command's answer in this format: its lines as the text format prints them, and a view's lines
        (`engine.view.Line`, their emphasis marked)."""
        shown = self._answer(lines)
        return shown if self.emoji else no_emoji(shown)

    def _answer(self, lines: Sequence[str | Line]) -> str:
        if self.fmt == "text":
            return "\n".join(ln if isinstance(ln, str) else ("  " if ln.item else "") + ln.text for ln in lines)
        if lines and isinstance(lines[0], str) and lines[0].startswith("{"):  # an export printed: a code block
            body = "\n".join(ln if isinstance(ln, str) else ln.text for ln in lines)
            body = body if self.emoji else json_no_emoji(body)
            return f"```json\n{body}\n```" if self.fmt == "markdown" else f"[code]{body}[/code]"
        blocks: list[tuple[str, list[str]]] = []  # (its kind: "table", "list" or "lines", its lines), in order
        for line in lines:
            if isinstance(line, Line) and line.table:
                kind, shown = "table", ("  " if line.item else "") + line.text
            else:
                item = line.startswith("  ") if isinstance(line, str) else line.item
                kind = "list" if item else "lines"
                shown = self.line(line.strip()) if isinstance(line, str) else self.view_line(line)
            if not blocks or blocks[-1][0] != kind:
                blocks.append((kind, []))
            blocks[-1][1].append(shown)
        return ("\n\n" if self.fmt == "markdown" else "\n").join(self.block(kind, block) for kind, block in blocks)

    def block(self, kind: str, lines: list[str]) -> str:
        """A run of lines of one kind: a stat block as code (its columns kept), a list, or lines kept apart."""
        if kind == "table":
            body = "\n".join(lines)
            if self.fmt == "bbcode":  # (a `[/code` inside would end the block: a zero-width space breaks it)
                return "[code]" + _BB_CODE_END.sub("[\u200b\\1", body) + "[/code]"
            fence = "`" * max([3, *(len(run) + 1 for run in re.findall("`+", body))])
            return f"{fence}\n{body}\n{fence}"
        if self.fmt == "markdown":  # paragraphs keep their lines apart; a blank line around each list
            return "\n".join(f"- {x}" for x in lines) if kind == "list" else "  \n".join(lines)
        return "\n".join(["[list]", *(f"[*]{x}" for x in lines), "[/list]"]) if kind == "list" else "\n".join(lines)

    def view_line(self, line: Line) -> str:
        """A view's line: each part escaped (markdown), its strong parts in bold, unit ids and commands in code."""
        bold = ("**{}**" if self.fmt == "markdown" else "[b]{}[/b]").format
        out = []
        for index, part in enumerate(line.parts):
            text = part_text(part)
            if self.fmt == "markdown":
                text = _markdown(text, code=isinstance(part, str), start=index == 0)
            out.append(bold(text) if isinstance(part, Strong) else text)
        return "".join(out)

    def line(self, text: str) -> str:
        """A line of finished text (an event's words): escaped, with its roll totals, verdicts and alarms bold."""
        bold = ("**{}**" if self.fmt == "markdown" else "[b]{}[/b]").format
        held: list[str] = []
        if self.fmt == "markdown":
            text = _markdown(text, held=held)
        if text.startswith("🎲"):
            text = _VERDICT.sub(lambda m: bold(m.group(0)), _ROLL_TOTAL.sub(lambda m: bold(m.group(0)), text))
        if text.startswith("error:"):
            text = bold("error:") + text[len("error:"):]
        text = _LOUD.sub(lambda m: bold(m.group(0)), text)
        return _HELD.sub(lambda m: held[int(m.group(1))], text)


def _markdown(text: str, code: bool = True, held: list[str] | None = None, start: bool = True) -> str:
    """Plain text as markdown that shows it as written: every markdown character escaped, and (`code`) what is
    code as code spans — what the referee wrote in backticks (`<your name> /command options`), unit ids, and
    commands with the options written after them (`/godsfire interphase done step:<step>`), their characters
    kept as they are. With `held`, the code spans are left as markers held there (for bolding what is around
    them), else put back. `start`: the text starts a line (what would open a heading or a list is escaped)."""
    keep: list[str] = [] if held is None else held

    def hold(match: re.Match[str]) -> str:
        keep.append(_code_span(match))
        return f"\x00{len(keep) - 1}\x00"

    if code:
        text = _CODE.sub(hold, text)
    text = _MD_SPECIAL.sub(r"\\\1", text)
    if start:
        text = _MD_LINE_START.sub(_line_start, text)
    return text if held is not None else _HELD.sub(lambda m: keep[int(m.group(1))], text)


def _line_start(match: re.Match[str]) -> str:
    """`\\#`, `1\\.`: a line's start that markdown would read as a heading, a quote or a list, escaped."""
    mark, number, dot = match.groups()
    return f"\\{mark}" if mark else f"{number}\\{dot}"


def _code_span(match: re.Match[str]) -> str:
    """One `_CODE` match as a markdown code span: a backticked span as written, a unit id, a command (the longest
    command path its words start with, and the options after it)."""
    if match.group("span") is not None:
        return match.group(0)
    if match.group("unit") is not None:
        return f"`{match.group('unit')}`"
    words = match.group("command")[1:].split()
    while words and " ".join(words) not in PREFIXES:
        words.pop()
    if not words:
        return _MD_SPECIAL.sub(r"\\\1", match.group(0))
    command = "/" + " ".join(words)
    rest = match.group(0)[len(command):]
    options = match.group("options") if len(command) == len(match.group("command")) else ""
    options = options.rstrip(".:")
    rest = rest[len(options):] if options else rest
    return f"`{command}{options}`" + _MD_SPECIAL.sub(r"\\\1", rest)
