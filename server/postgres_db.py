"""The store's PostgreSQL database (cluster mode): a writing connection and a pool of readers.

The same shape as ``sqlite_db.py``, so ``store.py`` keeps one group commit and one set of queries
for both: a whole batch is one transaction on the one writing connection (asyncpg pipelines each
``executemany``), and reads go through other connections, so a read never sees the uncommitted
half of a batch. The queries are written with SQLite's ``?`` placeholders and numbered here
(``$1``, ``$2``, ...). Several polygo processes share one database: the schema is migrated under
an advisory lock, so two nodes starting together migrate it once.

In cluster mode (a ``Lease`` given) the database also keeps the node's lease (``lease.py``): the
writer holds the node's advisory lock, every transaction renews the lease first, and a third
connection, the claimer, takes rooms over.

``synchronous`` maps SQLite's setting onto ``synchronous_commit``: FULL (the default) is ``on``,
a COMMIT returns once its WAL is flushed on the database's disk; NORMAL is ``off``, which may lose
the last commits if PostgreSQL's host crashes (never if a polygo process does).

asyncpg is an optional dependency (``pip install 'polygo[postgres]'``), imported only here.
"""

from __future__ import annotations

import asyncio
import functools
import re
from typing import Any, Generator, Iterable, Sequence
from urllib.parse import urlsplit, urlunsplit

try:
    import asyncpg
except ImportError:  # pragma: no cover -- the message below is the point
    asyncpg = None

from . import lease as lease_sql
from .lease import Fenced, Lease, OwnedElsewhere
from .schema import POSTGRES_MIGRATIONS, SCHEMA_VERSION, SchemaTooNew
from .store_errors import StoreError

MIGRATION_LOCK = 0x706F6C79676F  # "polygo": the advisory lock held while one node migrates
STEPS_LOCK = 0x706F6C79676F01
"""The advisory lock a transaction with steps holds (rating updates): the steps of all nodes read and
write shared rows one transaction at a time, in one order, so none is lost and none deadlocks."""
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
                 readers: "asyncpg.Pool", lease: Lease | None, epoch: int,
                 claimer: "asyncpg.Connection | None") -> None:
        self._url = url
        self._settings = settings
        self._writer = writer
        self._readers = readers
        self.lease = lease
        self.epoch = epoch
        self._claimer = claimer
        self._claiming = asyncio.Lock()     # one operation at a time on the claimer (asyncpg's rule)

    @classmethod
    async def open(cls, url: str, synchronous: str, lease: Lease | None = None) -> PostgresDatabase:
        """Connect, migrate the schema, open the readers; StoreError("unreachable") if the database
        cannot be reached or refuses us, SchemaTooNew for a newer schema. With a lease, join the
        cluster: StoreError("node-in-use") if a live process already has this node id."""
        if asyncpg is None:
            raise StoreError("no-driver", "A PostgreSQL database needs asyncpg: pip install 'polygo[postgres]'.")
        settings = {"synchronous_commit": "on" if synchronous == "FULL" else "off",
                    "application_name": "polygo-writer"}
        try:
            writer = await asyncpg.connect(url, server_settings=settings)
        except (OSError, TimeoutError, asyncpg.PostgresError, asyncpg.InterfaceError) as exc:
            raise StoreError("unreachable", f"Cannot open the PostgreSQL database: {exc}.") from None
        readers = claimer = None
        try:
            await _migrate(writer)
            epoch = 0
            if lease is not None:
                await _lock_node(writer, lease.node_id)
                epoch = await writer.fetchval(lease_sql.JOIN, lease.node_id, lease.url, lease.seconds)
                claimer = await asyncpg.connect(url, server_settings={"application_name": "polygo-claimer"})
            readers = await asyncpg.create_pool(url, min_size=1, max_size=READERS,
                                                server_settings={"application_name": "polygo-reader"})
        except BaseException:
            for connection in (writer, claimer):
                if connection is not None:
                    await connection.close()
            raise
        return cls(url, settings, writer, readers, lease, epoch, claimer)

    async def transaction(self, groups: Iterable[tuple[str, Sequence[tuple]]],
                          steps: Sequence[Generator[tuple[str, tuple], list[tuple], Any]] = ()) -> None:
        """Run each (sql, rows) with executemany inside one transaction, then each step (a
        generator that yields a statement and receives its rows) under `STEPS_LOCK`; all or
        nothing. In cluster mode the lease is renewed first, and Fenced (nothing committed) if it
        is gone. A writer connection lost in an earlier batch is replaced first (that batch failed
        as a whole), and takes the node's lock again: Fenced if another process has it by then."""
        if self._writer.is_closed():
            self._writer = await asyncpg.connect(self._url, server_settings=self._settings)
            if self.lease is not None:
                await _lock_node(self._writer, self.lease.node_id, fenced=Fenced(self.lease.node_id, self.epoch))
        async with self._writer.transaction():
            await self._renew()
            for sql_text, rows in groups:
                await self._writer.executemany(numbered(sql_text), rows)
            if steps:
                await self._writer.execute("SELECT pg_advisory_xact_lock($1)", STEPS_LOCK)
            for step in steps:
                await self._drive(step)

    async def _drive(self, step: Generator[tuple[str, tuple], list[tuple], Any]) -> None:
        """Run a step's statements in order, sending each one's rows back to it."""
        try:
            sql_text, params = next(step)
            while True:
                rows = await self._writer.fetch(numbered(sql_text), *params)
                sql_text, params = step.send([tuple(row) for row in rows])
        except StopIteration:
            pass

    async def rejoin(self) -> int:
        """After a fence: the node's next epoch (it owns no room until it claims them again)."""
        self.epoch = await self._writer.fetchval(lease_sql.JOIN, self.lease.node_id, self.lease.url, self.lease.seconds)
        return self.epoch

    async def claim(self, room_id: str) -> None:
        """Make this node the room's owner: at once if it has none, or its owner is fenced or dead
        (its lock is free); OwnedElsewhere while the owner's lease is live; StoreError("no-room").

        Locks are taken in the writers' order, the owner's node row before the room's row (a
        writer renews its row, then writes its rooms), so a claim never deadlocks with the owner's
        commit. This node's own lease is read without a lock: if it is fenced before this claim
        commits, the room's owner_epoch is already stale and any node may claim it again.
        """
        me = self.lease.node_id
        async with self._claiming, self._claimer.transaction():
            row = await self._claimer.fetchrow("SELECT owner_node, owner_epoch FROM rooms WHERE room_id = $1",
                                               room_id)
            if row is None:
                raise StoreError("no-room", f"There is no room {room_id!r}.")
            owner, owner_epoch = row
            if (owner, owner_epoch) == (me, self.epoch):
                return
            lease = None if owner in (None, me) else await self._claimer.fetchrow(lease_sql.OWNER_LEASE, owner)
            if tuple(await self._claimer.fetchrow(lease_sql.OWNER, room_id)) != (owner, owner_epoch):
                raise StoreError("claim-raced", f"Room {room_id!r} changed owner during the claim; ask again.")
            if lease is not None and lease[0] == owner_epoch:
                _, url, remaining = lease
                dead = await self._claimer.fetchval(f"SELECT pg_try_advisory_xact_lock(({lease_sql.NODE_KEY}))", owner)
                if remaining > 0 and not dead:
                    raise OwnedElsewhere(room_id, owner, url, float(remaining))
                await self._claimer.execute(lease_sql.FENCE, owner)
            if not await self._claimer.fetchval(lease_sql.LIVE, me, self.epoch):
                raise Fenced(me, self.epoch)
            await self._claimer.execute(lease_sql.CLAIM, room_id, me, self.epoch)

    async def orphans(self, limit: int) -> list[str]:
        """Unfinished rooms without a live owner, the longest untouched first."""
        async with self._claiming:
            return [row[0] for row in await self._claimer.fetch(lease_sql.ORPHANS, limit)]

    async def _renew(self) -> None:
        """First in every transaction of the writer: renew the lease, or Fenced (the batch rolls back)."""
        if self.lease is None:
            return
        status = await self._writer.execute(lease_sql.RENEW, self.lease.seconds, self.lease.node_id, self.epoch)
        if status != "UPDATE 1":
            raise Fenced(self.lease.node_id, self.epoch)

    async def one(self, sql: str, params: tuple) -> tuple | None:
        row = await self._readers.fetchrow(numbered(sql), *params)
        return None if row is None else tuple(row)

    async def all(self, sql: str, params: tuple) -> list[tuple]:
        return [tuple(row) for row in await self._readers.fetch(numbered(sql), *params)]

    async def close(self) -> None:
        await self._writer.close()
        if self._claimer is not None:
            await self._claimer.close()
        await self._readers.close()


async def _lock_node(db: "asyncpg.Connection", node_id: str, *, fenced: Fenced | None = None) -> None:
    """Take the node's advisory lock for this connection's life, or refuse: another live process
    has the node id (at start, StoreError("node-in-use")), or took the lock since the writer's last
    connection ended (``fenced``)."""
    if not await db.fetchval(f"SELECT pg_try_advisory_lock(({lease_sql.NODE_KEY}))", node_id):
        await db.close()
        raise fenced or StoreError("node-in-use", f"Node id {node_id!r} is in use by another live polygo "
                                                  f"process on this database; give this one another --node-id.")


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
