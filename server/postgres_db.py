"""The store's PostgreSQL database (cluster mode): a writing connection and a pool of readers.

The same shape as ``sqlite_db.py``, so ``store.py`` keeps one group commit and one set of queries
for both: a whole batch is one transaction on the one writing connection (asyncpg pipelines each
``executemany``), and reads go through other connections, so a read never sees the uncommitted
half of a batch. The queries are written with SQLite's ``?`` placeholders and numbered here
(``$1``, ``$2``, ...). Several polygo processes share one database: the schema is migrated under
an advisory lock, so two nodes starting together migrate it once.

``synchronous`` maps SQLite's setting onto ``synchronous_commit``: FULL (the default) is ``on``,
a COMMIT returns once its WAL is flushed on the database's disk; NORMAL is ``off``, which may lose
the last commits if PostgreSQL's host crashes (never if a polygo process does).

asyncpg is an optional dependency (``pip install 'polygo[postgres]'``), imported only here.
"""

from __future__ import annotations

import functools
import re
from typing import Iterable, Sequence
from urllib.parse import urlsplit, urlunsplit

try:
    import asyncpg
except ImportError:  # pragma: no cover -- the message below is the point
    asyncpg = None

from .schema import POSTGRES_MIGRATIONS, SCHEMA_VERSION, SchemaTooNew
from .store_errors import StoreError

MIGRATION_LOCK = 0x706F6C79676F  # "polygo": the advisory lock held while one node migrates
READERS = 4
"""Reading connections: the lobby, resyncs and records of one node rarely need more at once."""


def is_postgres(target: str) -> bool:
    """Whether ``--db`` names a PostgreSQL database (a URL) rather than a SQLite file."""
    return target.startswith(("postgresql://", "postgres://"))


def redacted(url: str) -> str:
    """The URL without its password, for messages and logs."""
    parts = urlsplit(url)
    if parts.password is None:
        return url
    host = parts.netloc.rpartition("@")[2]
    return urlunsplit(parts._replace(netloc=f"{parts.username}:***@{host}"))


@functools.lru_cache(maxsize=256)
def numbered(sql: str) -> str:
    """``?`` placeholders as PostgreSQL's ``$1, $2, ...`` (the store's queries hold no literal ``?``)."""
    counter = iter(range(1, 1 + sql.count("?")))
    return re.sub(r"\?", lambda _: f"${next(counter)}", sql)


class PostgresDatabase:
    """One PostgreSQL database, as the store uses it. Open with ``await PostgresDatabase.open(url, ...)``."""

    dialect = "postgres"

    def __init__(self, url: str, settings: dict[str, str], writer: "asyncpg.Connection",
                 readers: "asyncpg.Pool") -> None:
        self._url = url
        self._settings = settings
        self._writer = writer
        self._readers = readers

    @classmethod
    async def open(cls, url: str, synchronous: str) -> PostgresDatabase:
        """Connect, migrate the schema, open the readers; StoreError("unreachable") if the database
        cannot be reached or refuses us, SchemaTooNew for a newer schema."""
        if asyncpg is None:
            raise StoreError("no-driver", "A PostgreSQL database needs asyncpg: pip install 'polygo[postgres]'.")
        settings = {"synchronous_commit": "on" if synchronous == "FULL" else "off",
                    "application_name": "polygo-writer"}
        try:
            writer = await asyncpg.connect(url, server_settings=settings)
        except (OSError, TimeoutError, asyncpg.PostgresError, asyncpg.InterfaceError) as exc:
            raise StoreError("unreachable", f"Cannot open the PostgreSQL database {redacted(url)}: {exc}.") from None
        try:
            await _migrate(writer)
            readers = await asyncpg.create_pool(url, min_size=1, max_size=READERS,
                                                server_settings={"application_name": "polygo-reader"})
        except BaseException:
            await writer.close()
            raise
        return cls(url, settings, writer, readers)

    async def transaction(self, groups: Iterable[tuple[str, Sequence[tuple]]]) -> None:
        """Run each (sql, rows) with executemany inside one transaction; all or nothing. A writer
        connection lost in an earlier batch is replaced first (that batch failed as a whole)."""
        if self._writer.is_closed():
            self._writer = await asyncpg.connect(self._url, server_settings=self._settings)
        async with self._writer.transaction():
            for sql, rows in groups:
                await self._writer.executemany(numbered(sql), rows)

    async def one(self, sql: str, params: tuple) -> tuple | None:
        row = await self._readers.fetchrow(numbered(sql), *params)
        return None if row is None else tuple(row)

    async def all(self, sql: str, params: tuple) -> list[tuple]:
        return [tuple(row) for row in await self._readers.fetch(numbered(sql), *params)]

    async def close(self) -> None:
        await self._writer.close()
        await self._readers.close()


async def _migrate(db: "asyncpg.Connection") -> None:
    """Bring the schema to SCHEMA_VERSION in one transaction with its version bump, under an
    advisory lock so that nodes starting together do not both migrate."""
    async with db.transaction():
        await db.execute("SELECT pg_advisory_xact_lock($1)", MIGRATION_LOCK)
        await db.execute("CREATE TABLE IF NOT EXISTS schema_version (version integer NOT NULL)")
        current = await db.fetchval("SELECT version FROM schema_version")
        if current is not None and current > SCHEMA_VERSION:
            raise SchemaTooNew(current)
        for statements in POSTGRES_MIGRATIONS[current or 0:]:
            for sql in statements:
                await db.execute(sql)
        if current is None:
            await db.execute("INSERT INTO schema_version VALUES ($1)", SCHEMA_VERSION)
        else:
            await db.execute("UPDATE schema_version SET version = $1", SCHEMA_VERSION)
