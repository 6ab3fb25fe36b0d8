"""The durable history, on SQLite or PostgreSQL, behind one `Store`.

The only room that writes SQL. It imports `ops` (events, flags) and nothing else of the server:
rooms, finding and the hub call it, never the other way.

`Store` is the commit engine with the queries of every table:

- ``commits.py``: the engine. Every write joins a group commit (one transaction, one WAL
  sync, for all the rooms writing at that moment); a failed batch is tried again room by room
  under savepoints; the down state while the database is away, healing, fencing in a cluster.
- ``tables/sessions.py``, ``tables/users.py``, ``tables/rooms.py`` (rooms, seats, moves, events,
  results: what a room writes and a restart reads), ``tables/games.py`` (games read back: records,
  listings), ``tables/chat.py``, ``tables/bans.py``, ``tables/leases.py`` (cluster mode's ownership of
  rooms): each a class of queries on the engine, with the statements its writes name (``WRITES``).
- ``values.py``: the checks a value passes before it joins a batch, and JSON text.
- ``sqlite.py`` (its writer, ``writer.py``) and ``postgres.py``: the two databases. Both
  hold the same tables (``schema.py``) and answer the same queries, so everything above is one
  code for both.
- ``lease.py`` (a cluster node's lease and the statements that fence it), ``backup.py``,
  ``lockfile.py`` (one server per database file), ``walcheck.py`` (a damaged WAL found at start).

A table whose queries only read and run steps (``values.Step``) is a class over `Store.query` and
`Store.run_step` in a module of its own, as ``polygo/server/finding/pool_store.py`` is; one
with writes of its own adds its ``WRITES`` and its class of queries here.

``synchronous=FULL`` by default: in WAL mode, NORMAL already survives the process being killed
(the WAL is in the OS's cache), but a power cut or kernel crash can lose the last commits -- moves
the players were told were played. FULL syncs the WAL at each commit, and group commit shares that
sync among all the rooms in the batch, which is what makes FULL affordable. NORMAL is available
for machines where losing the last moments on power loss is acceptable.
"""

from __future__ import annotations

from .commits import CommitObserver, Database
from .errors import StoreError, Unavailable
from .lease import Lease
from .postgres import PostgresDatabase, is_postgres
from .schema import SCHEMA_VERSION, SchemaTooNew
from .sqlite import SqliteDatabase
from .tables import bans, chat, leases, rooms, sessions, users
from .tables.bans import BanQueries
from .tables.chat import ChatQueries
from .tables.games import GameQueries
from .tables.leases import LeaseQueries
from .tables.rooms import RoomQueries
from .tables.sessions import SessionQueries
from .tables.users import UserQueries

__all__ = ["SCHEMA_VERSION", "CommitObserver", "Database", "Store", "StoreError", "Unavailable"]


class Store(SessionQueries, UserQueries, RoomQueries, GameQueries, ChatQueries, BanQueries, LeaseQueries):
    """The server's store. Open with ``await Store.open(target)``; one Store per file and process."""

    WRITES = users.WRITES | sessions.WRITES | rooms.WRITES | chat.WRITES | bans.WRITES | leases.WRITES
    """A batch runs users before the sessions that name them, a room's row before its seats,
    events and moves, a move before its rescission, and releases last (writes queued before a
    release commit first)."""

    @classmethod
    async def open(cls, target: str, *, group_window: float = 0.002, max_batch: int = 1000,
                   synchronous: str = "FULL", lease: Lease | None = None) -> Store:
        """Open (creating and migrating as needed) the store: ``target`` is a SQLite file, or a
        ``postgresql://`` URL (needs ``pip install 'polygo[postgres]'``). With a ``lease`` (cluster
        mode, PostgreSQL only) the store joins the cluster as that node: it writes only rooms it
        created or claimed (``claim``), and every commit renews the lease (``lease.py``).

        ``max_batch`` bounds one transaction; ``max_batch=1`` gives one transaction per write (the
        baseline the benchmark compares group commit with).
        """
        if synchronous not in ("FULL", "NORMAL"):
            raise StoreError("bad-value", f"synchronous must be FULL or NORMAL, not {synchronous!r}.")
        if group_window < 0 or max_batch < 1:
            raise StoreError("bad-value", "group_window must be >= 0 and max_batch >= 1.")
        if lease is not None and not is_postgres(target):
            raise StoreError("bad-value", "A node lease needs a PostgreSQL database (cluster mode), not a SQLite file.")
        try:
            if is_postgres(target):
                db: Database = await PostgresDatabase.open(target, synchronous, lease)
            else:
                db = await SqliteDatabase.open(target, synchronous)
        except SchemaTooNew as exc:
            raise StoreError("schema-too-new", f"The database has schema version {exc.found}; this polygo "
                                               f"knows up to {SCHEMA_VERSION}. Upgrade polygo.") from None
        return cls(db, group_window, max_batch)
