"""The console at a real terminal (a pseudo-terminal): Tab completes commands, subcommands, option names and an
option's fixed values; the line history is kept beside the database between runs; a bare /help answers.

Each test spawns `python console.py` (or `python bot.py`) with no token in its environment; every wait has a
deadline, and a process still running at the end is killed."""

from __future__ import annotations

import os
import select
import subprocess
import sys
import time
from pathlib import Path

import pytest
from storehelpers import REPO, console_env

from console.terminal import MAX_HISTORY, MAX_HISTORY_BYTES, completions, history_path

pty = pytest.importorskip("pty", reason="pseudo-terminals are POSIX only")
readline = pytest.importorskip("readline", reason="this Python has no readline: the console reads plain lines")

WAIT = int(os.environ.get("TERMINAL_WAIT", "30"))  # seconds: a guard against a hang, never a timing assertion
PROMPT = b"\n> "  # the prompt, at the start of a line ("> " alone shows in /help's "<group> for")


class Terminal:
    """`python <script> --console --db <db>` on a pseudo-terminal: type keys, read what the terminal shows."""

    def __init__(self, script: str, db: Path) -> None:
        self.controller, terminal = pty.openpty()
        self.process = subprocess.Popen([sys.executable, str(REPO / script), "--console", "--db", str(db)],
                                        stdin=terminal, stdout=terminal, stderr=terminal, cwd=db.parent, close_fds=True,
                                        env=console_env({"TERM": "dumb"}))
        os.close(terminal)
        self.seen = b""

    def read_until(self, text: bytes, start: int | None = None) -> int:
        """Read until `text` shows after `start` (default: what was seen so far); the place just after it.
        Fails, showing the screen, if it does not come in time."""
        start = len(self.seen) if start is None else start
        deadline = time.monotonic() + WAIT
        while text not in self.seen[start:] and time.monotonic() < deadline:
            ready, _, _ = select.select([self.controller], [], [], 1)
            if ready:
                try:
                    self.seen += os.read(self.controller, 4096)
                except OSError:  # the process ended
                    break
        found = self.seen.find(text, start)
        assert found >= 0, f"{text!r} never showed; the terminal showed:\n{self.screen()}"
        return found + len(text)

    def type(self, keys: bytes, shows: bytes) -> None:
        """Type `keys` and wait until `shows` appears after them."""
        start = len(self.seen)
        os.write(self.controller, keys)
        self.read_until(shows, start)

    def enter(self, keys: bytes, answer: bytes) -> None:
        """Type `keys`, Enter, and wait for `answer` and the next prompt."""
        start = len(self.seen)
        os.write(self.controller, keys + b"\r")
        self.read_until(PROMPT, self.read_until(answer, start))

    def quit(self) -> int:
        """Ctrl-D at an empty prompt (the end of input); the exit status."""
        os.write(self.controller, b"\x04")
        try:
            return self.process.wait(timeout=WAIT)
        except subprocess.TimeoutExpired:
            self.read_until(b"\x00never", len(self.seen))  # fails, showing the screen
            raise

    def close(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait(timeout=WAIT)
        os.close(self.controller)

    def screen(self) -> str:
        return self.seen.decode("utf-8", "replace")


@pytest.fixture
def terminal():
    opened: list[Terminal] = []

    def open_terminal(script: str, db: Path) -> Terminal:
        t = Terminal(script, db)
        opened.append(t)
        t.read_until(PROMPT, t.read_until(b"lists them."))
        return t

    yield open_terminal
    for t in opened:
        t.close()


def test_tab_completes_commands_subcommands_option_names_and_values(terminal, tmp_path):
    t = terminal("bot.py", tmp_path / "tab.db")
    t.type(b"alice /eco\t", b"nomy ")  # the group, and a space
    t.type(b"re\t", b"cruit ")  # its subcommand
    t.type(b"u\t", b"nit:")  # the option name (no space: its value follows)
    t.type(b"inf\t", b"antry ")  # the option's fixed value
    t.enter(b"", b"error: there is no game in this channel")  # read as `alice /economy recruit unit:infantry`
    t.type(b"alice /economy \t\t", b"recruit")  # Tab twice: every subcommand listed
    assert b"grow" in t.seen and b"military" in t.seen
    t.type(b"\x15", b"")  # Ctrl-U: the line cleared
    t.enter(b"/he\t", b"Referee commands")  # a bare /help, completed, answers with the groups
    assert t.quit() == 0
    text = t.screen()
    assert "unknown command" not in text and "U+0009" not in text  # Tab was never sent as part of a line


def test_the_history_is_kept_beside_the_database_between_runs(terminal, tmp_path):
    db = tmp_path / "kept.db"
    first = terminal("bot.py", db)
    first.enter(b"gm /game start", b"A Nations game begins")
    first.enter(b"alice /game status", b"Nations \xe2\x80\x94 turn 1")
    assert first.quit() == 0
    assert Path(history_path(str(db))).read_text(encoding="utf-8").splitlines()[-2:] == [
        "gm /game start", "alice /game status"]

    second = terminal("bot.py", db)  # the same console through bot.py, no token
    second.enter(b"\x1b[A\x1b[A", b"already has a game running")  # Up twice: `gm /game start` again
    assert second.quit() == 0
    assert "U+001B" not in second.screen()  # the arrows were keys, not text sent as a line
    assert Path(history_path(str(db))).read_text(encoding="utf-8").splitlines()[-1] == "gm /game start"


# --- in-process: what completes, and the history file's bounds ------------------------------------------------


@pytest.mark.parametrize(("before", "offered"), [
    ("", []),
    ("/he", ["/help "]),
    ("alice /eco", ["/economy "]),
    ("alice /economy ", ["grow ", "military ", "recruit "]),
    ("alice /economy re", ["recruit "]),
    ("alice /economy recruit ", ["unit:", "nation:"]),
    ("alice /economy recruit unit:infantry ", ["nation:"]),
    ("alice /economy recruit unit:in", ["unit:infantry "]),
    ("alice /attack declare target:Charon u", ["units:"]),
    ("alice /godsfire system a", ["add "]),
    ("alice /godsfire system add ", ["name:", "owner:", "planets:", "regions:", "neutral:"]),
    ("alice /conquer ", []),
    ("alice economy ", []),
])
def test_what_tab_offers(before, offered):
    assert completions(before) == offered


def test_the_history_keeps_the_last_lines_and_leaves_a_file_it_cannot_read(tmp_path, caplog):
    from console.terminal import line_editing

    kept = tmp_path / "long.db.history"
    kept.write_text("".join(f"alice /roll dice:1d{n}\n" for n in range(MAX_HISTORY + 500)), encoding="utf-8")
    save = line_editing(str(kept))
    assert save is not None
    save()
    lines = kept.read_text(encoding="utf-8").splitlines()
    assert len(lines) == MAX_HISTORY and lines[-1] == f"alice /roll dice:1d{MAX_HISTORY + 499}"

    huge = tmp_path / "huge.db.history"
    with huge.open("wb") as handle:
        handle.truncate(MAX_HISTORY_BYTES + 1)
    save = line_editing(str(huge))
    assert save is not None
    save()  # a history too large to load is left as it is
    assert huge.stat().st_size == MAX_HISTORY_BYTES + 1

    folder = tmp_path / "folder.db.history"
    folder.mkdir()
    save = line_editing(str(folder))  # not a file: noted in the log, and the console goes on
    assert save is not None
    save()
    assert folder.is_dir()
    assert any("was not loaded" in r.getMessage() for r in caplog.records)


def test_the_history_is_not_used_when_stdin_is_not_the_terminal(tmp_path):
    """Lines piped in are not a person's typing: no history file is written."""
    done = subprocess.run([sys.executable, str(REPO / "bot.py"), "--console", "--db", str(tmp_path / "piped.db")],
                          input="/help\n", capture_output=True, text=True, encoding="utf-8", timeout=WAIT,
                          cwd=tmp_path, env=console_env())
    assert done.returncode == 0 and done.stderr == "", done.stderr
    assert done.stdout.startswith("Referee commands")
    assert not Path(history_path(str(tmp_path / "piped.db"))).exists()
