"""What the store's parts use of each other. `Store` is made of its parts (`Games`, `Ledger`, `FrontEnd`, `Schema`,
`Connection`), and a part calls on what another provides: the connection's attributes and its reads, writes and
transactions (every part), the schema's migration (opening a store), the ledger's log writing and reading (the
games). `Part`, the base of every part, names these once, for the type checker: at run time it declares nothing
(the attributes are annotations; the methods exist only while type checking), and each one is its own part's,
found before `Part` in `Store`'s method order.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterable
from datetime import datetime
from typing import TYPE_CHECKING, Any, TypeVar

if TYPE_CHECKING:
    import aiosqlite

    from data import postgres
    from data.store import keys
    from data.store.dialect import Dialect
    from engine.dice import FacesRecord, RollRecord
    from engine.events import Event
    from engine.history import HistoryEntry

T = TypeVar("T")


class Part:
    """The base of the store's parts: the attributes and the helpers they share (see the module)."""

    # the connection's (`Connection.__init__`)
    db: aiosqlite.Connection | postgres.Worker
    _dialect: Dialect  # what SQLite and PostgreSQL do differently
    dialect: str  # "sqlite" or "postgresql"
    path: str  # what logs may show
    busy_timeout: float  # seconds a write waits for another program's lock
    page_rotations: int
    _errors: tuple[type[BaseException], ...]  # the database's errors

    if TYPE_CHECKING:
        # the connection's reads, writes and transactions (`Connection`)
        async def _read(self, function: Callable[..., T], *args: Any) -> T: ...
        async def _fetchall(self, query: str, params: Any = ()) -> list[sqlite3.Row]: ...
        async def _write(self, function: Callable[..., T], *args: Any) -> T: ...
        async def _transaction(self, work: Callable[[sqlite3.Connection], T]) -> T: ...
        async def _grouped(self, work: Callable[[sqlite3.Connection], T], channel: str) -> T: ...
        def _defer(self, statement: str, rows: Iterable[tuple[Any, ...]]) -> None: ...
        async def flush_deferred(self) -> None: ...

        # the games' (`Games`): a keyed command's outcome after its COMMIT lost the connection
        async def _landed(self, key: str, err: Any) -> keys.Recorded: ...  # err: a CommitUnknown

        # the schema's (`Schema`)
        async def migrate(self) -> int: ...

        # the ledger's (`Ledger`)
        def _log(self, con: sqlite3.Connection, game_id: int, actor: str, command: str, now: datetime,
                 events: list[Event]) -> int: ...
        def _insert_roll(self, con: sqlite3.Connection, game_id: int, action_id: int | None,
                         roll: dict[str, Any]) -> None: ...
        async def rolls(self, game_id: int, nation: str | None = None, limit: int | None = None,
                        include_undone: bool = False, include_free: bool = True) -> list[RollRecord | FacesRecord]: ...
        async def history(self, game_id: int) -> list[HistoryEntry]: ...
