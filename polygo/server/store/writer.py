"""The store's writing connection: a batch's BEGIN and rows written on the event loop, its COMMIT
on a thread of its own.

aiosqlite hands every call to its thread and every result back through the event loop, where on
a busy server each return waits behind the rooms' work while the transaction stays open. A whole
transaction on a thread of its own is worse beside a busy loop: ``sqlite3`` lets go of the GIL
around every row's step and takes it back after, a wait and a thread switch a row. So the rows
are bound and stepped on the loop's own thread, where nothing competes for the GIL; they only
fill SQLite's page cache. Only COMMIT, which writes the WAL and waits for the disk's sync, goes to
the thread: one trip a batch (docs/performance.md has the figures of both ways).

BEGIN IMMEDIATE is tried on the loop without waiting (the connection's busy timeout is 0): the
server is the file's only writer (``lockfile.py``), so the lock is free but for another process
holding it (a backup, a person with the sqlite3 shell). If it is held, BEGIN waits on the thread,
up to the busy timeout, which must not freeze the loop (the graceful stop's deadline runs there:
``tests/server/test_shutdown.py``, ``tests/server/store/test_writer_lock.py``). A large batch
(``LOOP_BEGIN_ROWS``) sends its BEGIN to the thread all the same: the trip gives the loop a turn
(the frames that came meanwhile, the events of the batch before) before its rows hold the loop.

Reads stay on aiosqlite (see ``polygo.server.store``); this module only writes.
"""

from __future__ import annotations

import asyncio
import sqlite3
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Generator, Sequence

from polygo.protocol.names import skeleton

from .errors import StatementFailed, StoreError
from .schema import SCHEMA_VERSION, SQLITE_MIGRATIONS, SchemaTooNew

CHECKPOINT_PAGES = 10_000
"""WAL pages between checkpoints (SQLite's default: 1,000). A batch of many rooms' moves dirties a
page per room in ``moves`` and in ``events``' index, and a checkpoint copies each page of the WAL
back into the file and syncs it: ten times fewer checkpoints copy a busy page once for many batches,
not once for one or two (``bench/store_growth.py``). The WAL file grows to some 40 MiB between checkpoints."""

OLDEST_SQLITE = (3, 35)
"""The schema drops a column (``ALTER TABLE ... DROP COLUMN``, SQLite 3.35, 2021)."""

BUSY_TIMEOUT_MS = 5000
"""How long a BEGIN waits for another process's lock on the file before the batch fails."""

LOOP_BEGIN_ROWS = 600
"""A batch of at most this many rows takes the write lock on the loop; a larger one sends its BEGIN
to the writer's thread, and the trip gives the loop a turn before the rows hold it (the figures
are in docs/performance.md)."""

CACHE_KIB = 32_768
"""The writing connection's page cache (SQLite's default: 2 MiB, the insertion points of a few
hundred rooms); SQLite takes it only as pages are read."""


class Writer:
    """The one connection that writes the file. Open with ``await Writer.open(path, synchronous)``."""

    def __init__(self, executor: ThreadPoolExecutor, connection: sqlite3.Connection) -> None:
        self._executor = executor
        self._connection = connection

    @classmethod
    async def open(cls, path: str, synchronous: str) -> Writer:
        """Connect, set WAL and the sync mode, and migrate the schema, all on the writer's thread."""
        executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="polygo-store-writer")
        try:
            connection = await asyncio.get_running_loop().run_in_executor(executor, _connect, path, synchronous)
        except BaseException:
            executor.shutdown(wait=False)
            raise
        return cls(executor, connection)

    async def transaction(self, parts: list[list[tuple[str, Sequence[tuple]]]],
                          steps: Sequence[Generator[tuple[str, tuple], list[tuple], Any]] = ()
                          ) -> list[BaseException | None]:
        """Run each part's (sql, rows) with executemany inside one IMMEDIATE transaction, here,
        between its BEGIN and its COMMIT on the writer's thread, then each step (a generator that
        yields a statement and receives its rows, `ratings.update_step`). One part is all or
        nothing; with several, each runs under a savepoint of its own, and a part that fails is
        rolled back alone: returns, per part, its exception or None. A failing step fails all.
        The database's refusals are `StatementFailed`, naming the statement's kind for the log."""
        db = self._connection
        loop = asyncio.get_running_loop()
        try:
            if sum(len(rows) for part in parts for _, rows in part) > LOOP_BEGIN_ROWS or not _begun(db):
                await loop.run_in_executor(self._executor, _begin_waiting, db)
        except sqlite3.Error as exc:
            raise StatementFailed("BEGIN", exc) from exc
        try:
            if len(parts) == 1:
                try:
                    for sql, rows in parts[0]:
                        db.executemany(sql, rows)
                except sqlite3.Error as exc:
                    raise StatementFailed(sql, exc) from exc
                errors: list[BaseException | None] = [None]
            else:
                errors = [_savepoint(db, part) for part in parts]
            for step in steps:
                _drive(db, step)
        except BaseException:
            db.execute("ROLLBACK")
            raise
        await loop.run_in_executor(self._executor, self._commit)
        return errors

    def _commit(self) -> None:
        """On the writer's thread: the disk's sync is a wait the loop must not share."""
        db = self._connection
        try:
            db.execute("COMMIT")
        except BaseException as exc:
            if db.in_transaction:
                db.execute("ROLLBACK")
            if isinstance(exc, sqlite3.Error):
                raise StatementFailed("COMMIT", exc) from exc
            raise

    async def close(self) -> None:
        await asyncio.get_running_loop().run_in_executor(self._executor, self._connection.close)
        self._executor.shutdown(wait=False)


def _begun(db: sqlite3.Connection) -> bool:
    """BEGIN IMMEDIATE without waiting (the connection's busy timeout is 0): False when another
    process holds the file's write lock."""
    try:
        db.execute("BEGIN IMMEDIATE")
    except sqlite3.OperationalError as exc:
        if exc.sqlite_errorcode == sqlite3.SQLITE_BUSY:
            return False
        raise
    return True


def _begin_waiting(db: sqlite3.Connection) -> None:
    """On the writer's thread: BEGIN IMMEDIATE, waiting up to the busy timeout for another
    process's lock on the file."""
    db.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
    try:
        db.execute("BEGIN IMMEDIATE")
    finally:
        db.execute("PRAGMA busy_timeout = 0")


def _drive(db: sqlite3.Connection, step: Generator[tuple[str, tuple], list[tuple], Any]) -> None:
    """Run a step's statements in order, sending each one's rows back to it."""
    try:
        sql, params = next(step)
        while True:
            sql, params = step.send(db.execute(sql, params).fetchall())
    except StopIteration:
        pass
    except sqlite3.Error as exc:
        raise StatementFailed(sql, exc) from exc


def _savepoint(db: sqlite3.Connection, part: list[tuple[str, Sequence[tuple]]]) -> BaseException | None:
    """Run one part under a savepoint: its exception (the part rolled back, the rest kept), or None."""
    db.execute("SAVEPOINT part")
    try:
        for sql, rows in part:
            db.executemany(sql, rows)
    except sqlite3.Error as exc:
        db.execute("ROLLBACK TO part")
        db.execute("RELEASE part")
        return StatementFailed(sql, exc)
    db.execute("RELEASE part")
    return None


def _connect(path: str, synchronous: str) -> sqlite3.Connection:
    if sqlite3.sqlite_version_info < OLDEST_SQLITE:
        raise StoreError("sqlite-too-old", f"polygo needs SQLite {'.'.join(map(str, OLDEST_SQLITE))} or newer;"
                                           f" this Python's sqlite3 module has {sqlite3.sqlite_version}.")
    # Used from two threads, never at once: the rows on the loop's, COMMIT on the writer's.
    db = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    db.create_function("name_skeleton", 1, skeleton, deterministic=True)
    try:
        db.execute("PRAGMA journal_mode = WAL")
        db.execute(f"PRAGMA synchronous = {synchronous}")
        db.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        db.execute(f"PRAGMA cache_size = -{CACHE_KIB}")
        db.execute(f"PRAGMA wal_autocheckpoint = {CHECKPOINT_PAGES}")
        _migrate(db)
        db.execute("PRAGMA busy_timeout = 0")   # BEGIN on the loop must not wait; _begin_waiting does
    except BaseException:
        db.close()
        raise
    return db


def _migrate(db: sqlite3.Connection) -> None:
    """Bring the schema to SCHEMA_VERSION in one transaction with its version bump, so a crash
    mid-migration leaves the old schema, and two processes opening a new file do not both migrate."""
    db.execute("BEGIN IMMEDIATE")
    try:
        db.execute("CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)")
        row = db.execute("SELECT version FROM schema_version").fetchone()
        current = 0 if row is None else row[0]
        if current > SCHEMA_VERSION:
            raise SchemaTooNew(current)
        for statements in SQLITE_MIGRATIONS[current:]:
            for sql in statements:
                db.execute(sql)
        if row is None:
            db.execute("INSERT INTO schema_version VALUES (?)", (SCHEMA_VERSION,))
        else:
            db.execute("UPDATE schema_version SET version = ?", (SCHEMA_VERSION,))
        db.execute("COMMIT")
    except BaseException:
        db.execute("ROLLBACK")
        raise
