"""A connection cut at COMMIT (issue 33), for the idempotency-key tests: the store's COMMIT made to lose its
connection after the server committed, or before (not a test module itself)."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from typing import Any

import pytest

import data.store.connection as connection


def lost_connection(con: Any) -> BaseException:
    """The error of a connection lost under the store: SQLite's I/O error, or PostgreSQL's server gone (the
    connection closed for real: the store must reconnect to look anything up)."""
    if isinstance(con, sqlite3.Connection):
        err = sqlite3.OperationalError("disk I/O error")
        err.sqlite_errorcode = 10  # type: ignore[attr-defined]  # SQLITE_IOERR
        return err
    import psycopg

    con.close()
    return psycopg.OperationalError("consuming input failed: server closed the connection unexpectedly")


def cut_commits(monkeypatch: pytest.MonkeyPatch, landed: bool, which: Callable[[int], bool] = lambda n: n == 1
                ) -> list[int]:
    """Cut the connection at the COMMITs `which` picks (counted from 1): after the server committed (`landed`), or
    before it did (rolled back). Returns the count of COMMITs so far (a one-item list)."""
    real = connection._commit
    count = [0]

    def cut(con: Any) -> None:
        count[0] += 1
        if not which(count[0]):
            real(con)
            return
        if landed:
            real(con)
        else:
            con.execute("ROLLBACK")
        raise lost_connection(con)

    monkeypatch.setattr(connection, "_commit", cut)
    return count
