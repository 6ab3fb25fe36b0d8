"""The store's writing connection: SQLite on a thread of its own, one trip there per transaction.

aiosqlite hands every call to its thread and every result back through the event loop. A group
commit made of BEGIN, one ``executemany`` per table and COMMIT is five such trips, and on a busy
server each return trip waits in the loop's queue behind the rooms' work while the transaction
stays open, so commits took half again as long as the SQLite work in them. Here a whole
transaction is one function run on the writer's thread: one trip per batch, whatever it holds.
Reads stay on aiosqlite (see ``store.py``); this module only writes.
"""

from __future__ import annotations

import asyncio
import sqlite3
from concurrent.futures import ThreadPoolExecutor
from typing import Iterable, Sequence

from protocol.names import skeleton

SCHEMA_VERSION = 2

# Each migration takes the schema from version i to i + 1.
MIGRATIONS: tuple[tuple[str, ...], ...] = (
    (
        "CREATE TABLE users (name TEXT PRIMARY KEY, password_hash TEXT NOT NULL, created_at REAL NOT NULL)",
        "CREATE TABLE sessions (token TEXT PRIMARY KEY, name TEXT NOT NULL, user TEXT, created_at REAL NOT NULL)",
        "CREATE TABLE rooms (room_id TEXT PRIMARY KEY, settings TEXT NOT NULL, owner TEXT NOT NULL,"
        " invite TEXT, version INTEGER NOT NULL, clocks TEXT, created_at REAL NOT NULL,"
        " updated_at REAL NOT NULL)",
        "CREATE TABLE seats (room_id TEXT NOT NULL, seat INTEGER NOT NULL, token TEXT,"
        " PRIMARY KEY (room_id, seat)) WITHOUT ROWID",
        "CREATE TABLE moves (room_id TEXT NOT NULL, idx INTEGER NOT NULL, seat INTEGER NOT NULL,"
        " move TEXT NOT NULL, seq INTEGER, version INTEGER NOT NULL, rescinded INTEGER NOT NULL DEFAULT 0,"
        " PRIMARY KEY (room_id, idx)) WITHOUT ROWID",
        "CREATE TABLE events (room_id TEXT NOT NULL, version INTEGER NOT NULL, body TEXT NOT NULL,"
        " PRIMARY KEY (room_id, version)) WITHOUT ROWID",
        "CREATE TABLE results (room_id TEXT PRIMARY KEY, body TEXT NOT NULL, finished_at REAL NOT NULL)",
        "CREATE INDEX results_by_time ON results (finished_at DESC)",
    ),
    (   # 2: look-alike names are found by their skeleton; sessions expire when idle and can be revoked;
        "ALTER TABLE users ADD COLUMN skeleton TEXT",
        "UPDATE users SET skeleton = name_skeleton(name)",
        "CREATE INDEX users_by_skeleton ON users (skeleton)",
        "ALTER TABLE sessions ADD COLUMN last_seen REAL",
        "ALTER TABLE sessions ADD COLUMN revoked_at REAL",
        "UPDATE sessions SET last_seen = created_at",
        "CREATE INDEX sessions_by_last_seen ON sessions (last_seen) WHERE revoked_at IS NULL",
        "CREATE INDEX sessions_by_user ON sessions (user) WHERE user IS NOT NULL",
        # chat lines are kept for a while only: when each was said (NULL for the other events)
        "ALTER TABLE events ADD COLUMN chat_at REAL",
        "UPDATE events SET chat_at = (SELECT updated_at FROM rooms WHERE rooms.room_id = events.room_id)"
        " WHERE json_extract(body, '$.kind') = 'chat'",
        "CREATE INDEX events_by_chat_at ON events (chat_at) WHERE chat_at IS NOT NULL",
    ),
)


class SchemaTooNew(Exception):
    """The file was written by a newer polygo; the store turns this into its own error."""

    def __init__(self, found: int) -> None:
        super().__init__(found)
        self.found = found


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

    async def transaction(self, groups: Iterable[tuple[str, Sequence[tuple]]]) -> None:
        """Run each (sql, rows) with executemany inside one IMMEDIATE transaction; all or nothing."""
        await asyncio.get_running_loop().run_in_executor(self._executor, self._transaction, list(groups))

    def _transaction(self, groups: list[tuple[str, Sequence[tuple]]]) -> None:
        db = self._connection
        db.execute("BEGIN IMMEDIATE")
        try:
            for sql, rows in groups:
                db.executemany(sql, rows)
            db.execute("COMMIT")
        except BaseException:
            if db.in_transaction:
                db.execute("ROLLBACK")
            raise

    async def close(self) -> None:
        await asyncio.get_running_loop().run_in_executor(self._executor, self._connection.close)
        self._executor.shutdown(wait=False)


def _connect(path: str, synchronous: str) -> sqlite3.Connection:
    db = sqlite3.connect(path, isolation_level=None)
    db.create_function("name_skeleton", 1, skeleton, deterministic=True)
    try:
        db.execute("PRAGMA journal_mode = WAL")
        db.execute(f"PRAGMA synchronous = {synchronous}")
        db.execute("PRAGMA busy_timeout = 5000")
        _migrate(db)
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
        for statements in MIGRATIONS[current:]:
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
