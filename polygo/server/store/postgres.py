"""The store's PostgreSQL database (cluster mode): a writing connection and a pool of readers.

The same shape as ``sqlite.py``, so the store keeps one group commit (``commits.py``) and
one set of queries for both: a whole batch is one transaction on the one writing connection (asyncpg
pipelines each ``executemany``), and reads go through other connections, so a read never sees the
uncommitted half of a batch. The queries are written with SQLite's ``?`` placeholders and numbered
here (``$1``, ``$2``, ...). Several polygo processes share one database: the schema is migrated
under an advisory lock, so two nodes starting together migrate it once.

In cluster mode (a ``Lease`` given) the database also keeps the node's lease (``lease.py``): the
writer holds the node's advisory lock, every transaction renews the lease first and writes only
the rooms this node owns at this epoch, and a third connection, the claimer, takes rooms over.

A PostgreSQL restart or a failover to a standby ends every connection. Each is replaced when next
needed (the writer takes the node's lock again first), and ``reconnect`` replaces them all at
once; meanwhile every operation that finds its connection gone raises ``Unavailable``, which the
store turns into its down state (``Store.down_since``) and the clients into ``unavailable``.

``synchronous`` maps SQLite's setting onto ``synchronous_commit``: FULL (the default) is ``on``,
a COMMIT returns once its WAL is flushed on the database's disk; NORMAL is ``off``, which may lose
the last commits if PostgreSQL's host crashes (never if a polygo process does).

asyncpg is an optional dependency (``pip install 'polygo[postgres]'``), imported only here.
"""

from __future__ import annotations

import asyncio
import functools
import re
from typing import Any, Callable, Collection, Generator, Sequence
from urllib.parse import urlsplit, urlunsplit

try:
    import asyncpg
except ImportError:  # pragma: no cover -- the message below is the point
    asyncpg = None

from . import lease as lease_sql
from .errors import StoreError, Unavailable
from .lease import Fenced, Lease, OwnedElsewhere
from .schema import POSTGRES_MIGRATIONS, SCHEMA_VERSION, SchemaTooNew
from .values import Step

MIGRATION_LOCK = 0x706F6C79676F  # "polygo": the advisory lock held while one node migrates
STEPS_LOCK = 0x706F6C79676F01
"""The advisory lock a transaction with steps holds (rating updates): the steps of all nodes read and
write shared rows one transaction at a time, in one order, so none is lost and none deadlocks."""
READERS = 4
"""Reading connections: the lobby, resyncs and records of one node rarely need more at once."""

LOCK_TRIES = 10
"""Tries to take the node's lock again on a new writing connection, 0.05 s apart: another node's
claim may hold it for the moment of its transaction (``lease.DEAD``)."""

CLOSE_WAIT = 5.0
"""Seconds a connection is given to close politely before it is dropped."""

CLAIM_TRIES = 3
"""Claims begun again when the room changed owner during one: the next one sees the winner."""

Parts = list[list[tuple[str, Sequence[tuple]]]]
"""A transaction's writes: parts of (sql, rows) groups; with several parts each runs under a
savepoint of its own, so that one failing leaves the others."""


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


def lost(exc: BaseException) -> bool:
    """Whether ``exc`` says the connection to PostgreSQL is gone or refused for now (a restart, a
    failover, the network), rather than that the statement was wrong."""
    if asyncpg is None:
        return False
    return isinstance(exc, (OSError, TimeoutError, asyncpg.PostgresConnectionError, asyncpg.InterfaceError,
                            asyncpg.exceptions.OperatorInterventionError,
                            asyncpg.exceptions.InsufficientResourcesError))


def unreachable(exc: BaseException) -> Unavailable:
    return Unavailable("unavailable", f"The database cannot be reached now ({type(exc).__name__}: {exc}); "
                                      f"nothing was written.")


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
        cannot be reached or refuses us, ("no-privilege") if its role may not create the tables,
        SchemaTooNew for a newer schema. With a lease, join the cluster: StoreError("node-in-use")
        if a live process already has this node id."""
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
                claimer = await _connect_claimer(url)
            readers = await asyncpg.create_pool(url, min_size=1, max_size=READERS,
                                                server_settings={"application_name": "polygo-reader"})
        except BaseException:
            for connection in (writer, claimer):
                if connection is not None:
                    await connection.close()
            raise
        return cls(url, settings, writer, readers, lease, epoch, claimer)

    async def transaction(self, build: Callable[[set[str]], Parts], rooms: Collection[str] = (),
                          steps: Callable[[set[str]], list[Step]] | None = None
                          ) -> tuple[set[str], list[BaseException | None]]:
        """One transaction: in cluster mode the lease renewed first (Fenced, nothing committed, if
        it is gone) and the ``rooms`` the batch writes locked, those this node owns at this epoch;
        then the parts ``build(refused)`` returns for the others, each (sql, rows) with
        executemany; then the steps ``steps(refused)`` returns (generators that yield a statement
        and receive its rows) under `STEPS_LOCK`. Returns the refused rooms and, per part, the
        exception that rolled it back to its savepoint (with one part, none: its failure fails the transaction). Unavailable if
        the connection is lost; a lost writer is replaced at the next transaction."""
        writer = await self._writing()
        try:
            async with writer.transaction():
                refused: set[str] = set()
                if self.lease is not None:
                    await self._renew(writer)
                    if rooms:
                        owned = await writer.fetch(lease_sql.OWNED, list(rooms), self.lease.node_id, self.epoch)
                        refused = set(rooms).difference(row[0] for row in owned)
                parts = build(refused)
                if len(parts) == 1:
                    for sql_text, rows in parts[0]:
                        await writer.executemany(numbered(sql_text), rows)
                    errors: list[BaseException | None] = [None]
                else:
                    errors = [await _savepoint(writer, part) for part in parts]
                ready = steps(refused) if steps else []
                if ready:
                    await writer.execute("SELECT pg_advisory_xact_lock($1)", STEPS_LOCK)
                for step in ready:
                    await _drive(writer, step)
                return refused, errors
        except Exception as exc:
            if not lost(exc):
                raise
            writer.terminate()
            raise unreachable(exc) from exc

    async def rejoin(self) -> int:
        """After a fence: the node's next epoch (it owns no room until it claims them again)."""
        writer = await self._writing()
        try:
            self.epoch = await writer.fetchval(lease_sql.JOIN, self.lease.node_id, self.lease.url, self.lease.seconds)
        except Exception as exc:
            if not lost(exc):
                raise
            writer.terminate()
            raise unreachable(exc) from exc
        return self.epoch

    async def reconnect(self) -> None:
        """Replace every connection found gone: the writer (taking the node's lock again: Fenced
        if another process has it), the claimer, the readers; Unavailable while PostgreSQL cannot
        be reached."""
        try:
            await self._writing()
            async with self._claiming:
                await self._claiming_connection()
            await self._readers.expire_connections()
            await self._readers.fetchval("SELECT 1")
        except Exception as exc:
            if not lost(exc):
                raise
            raise unreachable(exc) from exc

    async def claim(self, room_id: str) -> None:
        """Make this node the room's owner: at once if it has none, or its owner is fenced or dead
        (its lock is free, ``lease.DEAD``); OwnedElsewhere while the owner's lease is live;
        StoreError("no-room"). A room whose owner changed during the claim (another node claimed
        it at the same moment) is claimed again: the winner is then the live owner.

        Locks are taken in the writers' order, the owner's node row before the room's row (a
        writer renews its row, then locks its rooms), so a claim never deadlocks with the owner's
        commit. This node's own lease is read without a lock: if it is fenced before this claim
        commits, the room's owner_epoch is already stale and any node may claim it again.
        """
        async with self._claiming:
            try:
                claimer = await self._claiming_connection()
                for _ in range(CLAIM_TRIES):
                    async with claimer.transaction():
                        if await self._claim(claimer, room_id):
                            return
            except Exception as exc:
                if not lost(exc):
                    raise
                self._claimer.terminate()
                raise unreachable(exc) from exc
        raise Unavailable("claim-raced", f"Room {room_id!r} changed owner during each claim; ask again.")

    async def _claim(self, claimer: "asyncpg.Connection", room_id: str) -> bool:
        """One try of `claim`, in the claimer's transaction; False if the owner changed meanwhile."""
        me = self.lease.node_id
        row = await claimer.fetchrow("SELECT owner_node, owner_epoch FROM rooms WHERE room_id = $1", room_id)
        if row is None:
            raise StoreError("no-room", f"There is no room {room_id!r}.")
        owner, owner_epoch = row
        if (owner, owner_epoch) == (me, self.epoch):
            return True
        lease = None if owner in (None, me) else await claimer.fetchrow(lease_sql.OWNER_LEASE, owner)
        if tuple(await claimer.fetchrow(lease_sql.OWNER, room_id)) != (owner, owner_epoch):
            return False
        if lease is not None and lease[0] == owner_epoch:
            _, url, remaining, expires_at = lease
            if remaining > 0 and not await claimer.fetchval(lease_sql.DEAD_OWNER, owner, expires_at,
                                                            self.lease.seconds):
                raise OwnedElsewhere(room_id, owner, url, float(remaining))
            await claimer.execute(lease_sql.FENCE, owner)
        if not await claimer.fetchval(lease_sql.LIVE, me, self.epoch):
            raise Fenced(me, self.epoch)
        await claimer.execute(lease_sql.CLAIM, room_id, me, self.epoch)
        return True

    async def orphans(self, limit: int) -> list[str]:
        """Unfinished rooms without a live owner, the longest untouched first."""
        async with self._claiming:
            try:
                claimer = await self._claiming_connection()
                return [row[0] for row in await claimer.fetch(lease_sql.ORPHANS, limit, self.lease.node_id,
                                                              self.lease.seconds, self.epoch)]
            except Exception as exc:
                if not lost(exc):
                    raise
                self._claimer.terminate()
                raise unreachable(exc) from exc

    async def _writing(self) -> "asyncpg.Connection":
        """The writing connection; a lost one is replaced first and takes the node's lock again:
        Fenced if another process has it by then."""
        if self._writer.is_closed():
            try:
                writer = await asyncpg.connect(self._url, server_settings=self._settings)
            except Exception as exc:
                if not lost(exc):
                    raise
                raise unreachable(exc) from exc
            if self.lease is not None:
                await _lock_node(writer, self.lease.node_id, fenced=Fenced(self.lease.node_id, self.epoch))
            self._writer = writer
        return self._writer

    async def _claiming_connection(self) -> "asyncpg.Connection":
        """The claimer (under ``_claiming``); a lost one is replaced first."""
        if self._claimer.is_closed():
            self._claimer = await _connect_claimer(self._url)
        return self._claimer

    async def _renew(self, writer: "asyncpg.Connection") -> None:
        """First in every transaction of the writer: renew the lease, or Fenced (the batch rolls back)."""
        status = await writer.execute(lease_sql.RENEW, self.lease.seconds, self.lease.node_id, self.epoch)
        if status != "UPDATE 1":
            raise Fenced(self.lease.node_id, self.epoch)

    async def one(self, sql: str, params: tuple) -> tuple | None:
        try:
            row = await self._readers.fetchrow(numbered(sql), *params)
        except Exception as exc:
            raise await self._reader_lost(exc) from exc
        return None if row is None else tuple(row)

    async def all(self, sql: str, params: tuple) -> list[tuple]:
        try:
            return [tuple(row) for row in await self._readers.fetch(numbered(sql), *params)]
        except Exception as exc:
            raise await self._reader_lost(exc) from exc

    async def _reader_lost(self, exc: Exception) -> Exception:
        """A reader's failure as raised: if the connection was lost, Unavailable, and the pool's
        other connections are replaced when next taken (they died with it)."""
        if not lost(exc):
            return exc
        await self._readers.expire_connections()
        return unreachable(exc)

    async def close(self) -> None:
        for connection in (self._writer, self._claimer):
            if connection is None:
                continue
            try:
                await asyncio.wait_for(connection.close(), CLOSE_WAIT)
            except Exception:  # noqa: BLE001 -- a connection PostgreSQL dropped is let go as it is
                connection.terminate()
        try:
            await asyncio.wait_for(self._readers.close(), CLOSE_WAIT)
        except Exception:  # noqa: BLE001
            self._readers.terminate()


async def _savepoint(writer: "asyncpg.Connection", part: list[tuple[str, Sequence[tuple]]]) -> BaseException | None:
    """Run one part under a savepoint: its exception (the part rolled back, the rest kept), or None.
    A lost connection is raised: nothing of the transaction can commit then."""
    try:
        async with writer.transaction():
            for sql_text, rows in part:
                await writer.executemany(numbered(sql_text), rows)
    except asyncpg.PostgresError as exc:
        if lost(exc):
            raise
        return exc
    return None


async def _connect_claimer(url: str) -> "asyncpg.Connection":
    return await asyncpg.connect(url, server_settings={"application_name": "polygo-claimer"})


async def _lock_node(db: "asyncpg.Connection", node_id: str, *, fenced: Fenced | None = None) -> None:
    """Take the node's advisory lock for this connection's life, or refuse: another live process
    has the node id (at start, StoreError("node-in-use")), or took the lock since the writer's last
    connection ended (``fenced``; tried a few times, since a claim holds it for a moment)."""
    for attempt in range(1 if fenced is None else LOCK_TRIES):
        if attempt:
            await asyncio.sleep(0.05)
        if await db.fetchval(f"SELECT pg_try_advisory_lock(({lease_sql.NODE_KEY}))", node_id):
            return
    await db.close()
    raise fenced or StoreError("node-in-use", f"Node id {node_id!r} is in use by another live polygo "
                                              f"process on this database; give this one another --node-id.")


async def _migrate(db: "asyncpg.Connection") -> None:
    """Bring the schema to SCHEMA_VERSION in one transaction with its version bump, under an
    advisory lock so that nodes starting together do not both migrate. A role that may not create
    tables in the database (PostgreSQL 15 lets only the database's owner create in schema public)
    is told so in one sentence."""
    try:
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
    except asyncpg.InsufficientPrivilegeError as exc:
        role, database = await db.fetchrow("SELECT current_user, current_database()")
        raise StoreError("no-privilege", f"The PostgreSQL role {role} may not create polygo's tables in "
                                         f"database {database} ({exc}): make it the database's owner, "
                                         f"CREATE DATABASE {database} OWNER {role} (docs/cluster.md).") from None


async def _drive(writer: asyncpg.Connection, step: Generator[tuple[str, tuple], list[tuple], Any]) -> None:
    """Run a step's statements in order, sending each one's rows back to it."""
    try:
        sql_text, params = next(step)
        while True:
            rows = await writer.fetch(numbered(sql_text), *params)
            sql_text, params = step.send([tuple(row) for row in rows])
    except StopIteration:
        pass
