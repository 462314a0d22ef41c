"""The console's files: what a command reads (a regular file, bounded, never a device or a pipe) and what an export
writes (under the working folder or $REFEREE_EXPORT_DIR only, atomically, never over a file unless told, the
leftovers of an export killed midway cleaned up)."""

from __future__ import annotations

import contextlib
import logging
import os
import stat
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import IO

try:
    import fcntl
except ImportError:  # Windows: an export's leftovers are known by their age instead
    fcntl = None  # type: ignore[assignment]  # (the module, or None where there is none)

from engine.errors import BadInput

EXPORT_DIR_ENV = "REFEREE_EXPORT_DIR"
"""A folder `/gm export file:` may write under, besides the working folder (read with the settings, bot.py)."""
log = logging.getLogger("referee.console")


def read_regular_file(file: str, limit: int, what: str) -> bytes:
    """The bytes of `file`, a regular file of at most `limit` bytes; BadInput for anything else.

    Devices, FIFOs and folders are refused before they are opened (and a FIFO swapped in meanwhile
    cannot block: it is opened non-blocking and checked again); at most `limit` + 1 bytes are read."""
    try:
        if not stat.S_ISREG(os.stat(file).st_mode):
            raise BadInput(f"cannot read {file}: {what} must be a regular file")
        fd = os.open(file, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
        with os.fdopen(fd, "rb") as handle:
            if not stat.S_ISREG(os.fstat(handle.fileno()).st_mode):
                raise BadInput(f"cannot read {file}: {what} must be a regular file")
            raw = handle.read(limit + 1)
    except (OSError, ValueError) as err:  # ValueError: a path with a NUL
        reason = err.strerror if isinstance(err, OSError) and err.strerror else str(err)
        raise BadInput(f"cannot read {file}: {reason}") from None
    if len(raw) > limit:
        raise BadInput(f"cannot read {file}: {what} has at most {limit:,} bytes")
    return raw


def export_folders(extra: str | None = None) -> list[Path]:
    """Where `/gm export file:` may write: the working folder, and `extra` ($REFEREE_EXPORT_DIR) when set."""
    folders = [Path.cwd().resolve()]
    if extra:
        folders.append(Path(extra).resolve())
    return folders


def export_path(file: str, extra: str | None = None) -> Path:
    """`file` (relative to the working folder) with symlinks and `..` resolved, if it lies under an export
    folder (the working folder, `extra`); BadInput otherwise."""
    try:
        target = (Path.cwd() / file).resolve()
        folders = export_folders(extra)
    except (OSError, RuntimeError, ValueError) as err:  # RuntimeError: a symlink loop
        raise BadInput(f"cannot write {file}: {err}") from None
    if not any(target != folder and target.is_relative_to(folder) for folder in folders):
        where = " or ".join(str(f) for f in folders)
        raise BadInput(f"cannot write {file}: exports are written only under {where} "
                       f"(set {EXPORT_DIR_ENV} for another folder)")
    return target


def write_new_file(target: Path, content: bytes, overwrite: bool, shown: str) -> None:
    """Write `content` to `target` as `new_file` does."""
    with new_file(target, overwrite, shown) as handle:
        handle.write(content)


@contextlib.contextmanager
def new_file(target: Path, overwrite: bool, shown: str) -> Iterator[IO[bytes]]:
    """A file to write `target` with, atomically (a temporary file, renamed when the block ends without an error;
    else nothing is written), never over an existing file unless `overwrite`, and only ever over a regular file.
    What an export killed midway left in that folder is removed first (`clean_leftovers`); the temporary file is
    held locked until it is gone, so that no other export's cleaning takes it for a leftover."""
    try:
        if target.exists() or target.is_symlink():
            if not target.is_file():
                raise BadInput(f"cannot write {shown}: it exists and is not a regular file")
            if not overwrite:
                raise BadInput(f"{shown} exists already: add overwrite:true to replace it")
        if not target.parent.is_dir():
            raise BadInput(f"cannot write {shown}: there is no folder {target.parent}")
        clean_leftovers(target.parent)
        fd, temp = _locked_temp(target.parent)
        with os.fdopen(fd, "wb") as handle:  # the lock lasts until it is closed
            try:
                yield handle
                handle.flush()
                os.fsync(handle.fileno())
                if overwrite:
                    os.replace(temp, target)
                else:
                    _link_new(temp, target, shown)
            finally:
                with contextlib.suppress(FileNotFoundError):  # renamed: nothing is left
                    os.unlink(temp)
    except OSError as err:
        raise BadInput(f"cannot write {shown}: {err.strerror or err}") from None


EXPORT_TEMP = (".export-", ".tmp")
"""How the temporary file of an export being written is named: `.export-XXXXXXXX.tmp`, in the export's folder."""
LEFTOVER_AGE = 3600.0
"""Where files cannot be locked (no fcntl): how old, in seconds, an export's temporary file is before it is taken
for a leftover."""


def _locked_temp(folder: Path) -> tuple[int, str]:
    """A new temporary file for an export in `folder`, locked: its descriptor and path. (A cleaning that took it
    in the moment between its creation and its lock has removed it: then another is made.)"""
    for _ in range(10):
        fd, temp = tempfile.mkstemp(dir=folder, prefix=EXPORT_TEMP[0], suffix=EXPORT_TEMP[1])
        if fcntl is None:
            return fd, temp
        fcntl.flock(fd, fcntl.LOCK_EX)
        with contextlib.suppress(FileNotFoundError):
            if os.stat(temp).st_ino == os.fstat(fd).st_ino:
                return fd, temp
        os.close(fd)
    raise OSError(0, "another program keeps removing the export's temporary file")


def clean_leftovers(folder: Path) -> int:
    """Remove the temporary files of exports killed while writing in `folder` (`.export-*.tmp` regular files
    that no export holds locked); how many. Anything that cannot be removed is left, quietly."""
    removed = 0
    try:
        entries = [e for e in os.scandir(folder) if e.name.startswith(EXPORT_TEMP[0])
                   and e.name.endswith(EXPORT_TEMP[1]) and e.is_file(follow_symlinks=False)]
    except OSError:
        return 0
    for entry in entries:
        try:
            fd = os.open(entry.path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
                         | getattr(os, "O_CLOEXEC", 0))
        except OSError:
            continue
        try:
            held = os.fstat(fd)
            if not stat.S_ISREG(held.st_mode):
                continue
            if fcntl is not None:
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                except OSError:  # an export is writing it
                    continue
            elif time.time() - held.st_mtime < LEFTOVER_AGE:
                continue
            if os.lstat(entry.path).st_ino == held.st_ino:
                os.unlink(entry.path)
                removed += 1
        except OSError:
            continue
        finally:
            os.close(fd)
    if removed:
        log.info("removed %d temporary file(s) left by an interrupted export in %s", removed, folder)
    return removed


def _link_new(temp: str, target: Path, shown: str) -> None:
    """Give the written `temp` the name `target`, failing if that name exists (even if it appeared just now)."""
    try:
        os.link(temp, target)
    except FileExistsError:
        raise BadInput(f"{shown} exists already: add overwrite:true to replace it") from None
    except OSError:  # a file system without hard links: the check above has to do
        if os.path.lexists(target):
            raise BadInput(f"{shown} exists already: add overwrite:true to replace it") from None
        os.replace(temp, target)
