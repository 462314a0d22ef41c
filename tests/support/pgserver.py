"""A throwaway PostgreSQL server for the tests and the benchmarks.

`initdb` in a temporary folder, `pg_ctl start` on a free port of 127.0.0.1 (trust authentication, no other
address), removed again at `stop`. The server refuses to run as root: run as root, it runs as the `postgres`
user (through `runuser`). `unavailable()` says in one line why no server can be started here, or None.
"""

from __future__ import annotations

import contextlib
import glob
import os
import shutil
import socket
import subprocess
import tempfile
from pathlib import Path

SERVER_USER = "postgres"  # the unprivileged user a root process runs the server as


def binaries() -> Path | None:
    """The folder of `initdb`/`pg_ctl` (on the PATH, else Debian's /usr/lib/postgresql/N/bin), or None."""
    found = shutil.which("initdb")
    if found and shutil.which("pg_ctl"):
        return Path(found).resolve().parent
    for folder in sorted(glob.glob("/usr/lib/postgresql/*/bin"), reverse=True):
        if (Path(folder) / "initdb").exists() and (Path(folder) / "pg_ctl").exists():
            return Path(folder)
    return None


def _as_root() -> bool:
    return hasattr(os, "geteuid") and os.geteuid() == 0


def unavailable() -> str | None:
    """Why a throwaway server cannot start on this machine (one line), or None when it can."""
    if binaries() is None:
        return "the PostgreSQL server binaries (initdb, pg_ctl) are not installed (Debian: apt-get install postgresql)"
    if _as_root():
        if shutil.which("runuser") is None:
            return "running as root without runuser: cannot start PostgreSQL as an unprivileged user"
        try:
            import pwd

            pwd.getpwnam(SERVER_USER)
        except KeyError:
            return f"running as root and there is no {SERVER_USER!r} user to run PostgreSQL as"
    try:
        import psycopg  # noqa: F401
    except ImportError:
        return "the PostgreSQL driver psycopg is not installed (pip install -r requirements.txt)"
    return None


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class PgServer:
    """One throwaway server: `url = server.start()`, then `server.stop()` (or use it as a context manager)."""

    def __init__(self, folder: str | Path | None = None) -> None:
        self.root = Path(folder or tempfile.mkdtemp(prefix="referee-pg-"))
        self.data = self.root / "data"
        self.port = 0
        self.url = ""

    def _run(self, *command: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        bin_dir = binaries()
        assert bin_dir is not None, unavailable()
        argv = [str(bin_dir / command[0]), *command[1:]]
        if _as_root():
            argv = ["runuser", "-u", SERVER_USER, "--", *argv]
        return subprocess.run(argv, check=check, capture_output=True, text=True, timeout=120)

    def start(self) -> str:
        """Create and start the server; returns the URL of its database `referee`."""
        reason = unavailable()
        if reason is not None:
            raise RuntimeError(reason)
        self.root.mkdir(parents=True, exist_ok=True)
        if _as_root():
            import pwd

            user = pwd.getpwnam(SERVER_USER)
            os.chown(self.root, user.pw_uid, user.pw_gid)
            self.root.chmod(0o700)
        self._run("initdb", "-D", str(self.data), "-A", "trust", "-U", "referee", "-E", "UTF8", "--no-sync")
        self.port = _free_port()
        options = (f"-p {self.port} -c listen_addresses=127.0.0.1 -k {self.root} -c max_connections=200"
                   " -c shared_buffers=64MB -c fsync=on -c synchronous_commit=on")
        try:
            self._run("pg_ctl", "-D", str(self.data), "-l", str(self.root / "server.log"), "-o", options,
                      "-w", "-t", "60", "start")
        except subprocess.CalledProcessError as err:
            server_log = self.root / "server.log"
            log = server_log.read_text(errors="replace")[-2000:] if server_log.exists() else ""
            raise RuntimeError(f"PostgreSQL did not start: {err.stderr.strip()} {log}") from None
        import psycopg

        with psycopg.connect(f"postgresql://referee@127.0.0.1:{self.port}/postgres", autocommit=True) as con:
            con.execute("CREATE DATABASE referee")
        self.url = f"postgresql://referee@127.0.0.1:{self.port}/referee"
        return self.url

    def stop(self) -> None:
        """Stop the server (fast shutdown) and remove its folder."""
        if self.data.exists():
            with contextlib.suppress(Exception):
                self._run("pg_ctl", "-D", str(self.data), "-m", "immediate", "-w", "-t", "30", "stop", check=False)
        shutil.rmtree(self.root, ignore_errors=True)

    def __enter__(self) -> PgServer:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()
