"""The durable history: sessions, users, rooms, seats, moves, events and results in one SQLite file
(the default), or in one PostgreSQL database shared by the nodes of a cluster (docs/cluster.md).

Why it looks like this:

- A move is acknowledged only after its row is committed, so every ``record()`` waits for a COMMIT.
  One COMMIT per move would make the disk's sync rate the server's move rate; instead every write
  goes through one writer task that batches the calls arriving within ``group_window`` seconds (and
  those that arrive while a commit is in flight) into a single transaction -- group commit. Each
  caller's future is resolved after that COMMIT. If it fails, the batch is tried again with each
  room's writes under a savepoint of their own: one room's bad write fails that room's callers
  only, never its neighbours' (a lost connection or a fence fails them all: nothing committed).
  The window is waited only when the last transaction held more than one write: a lone room (no
  one to share with) commits at once instead of paying the window on every move.
- ``synchronous=FULL`` by default: in WAL mode, NORMAL already survives the process being killed (the
  WAL is in the OS's cache), but a power cut or kernel crash can lose the last commits -- moves the
  players were told were played. FULL syncs the WAL at each commit, and group commit shares that sync
  among all the rooms in the batch, which is what makes FULL affordable. NORMAL is available for
  machines where losing the last moments on power loss is acceptable.
- Writes go through one connection, reads through others, so a read never sees the uncommitted
  half of a batch: ``sqlite_db.py`` (the writer, ``writer.py``: rows on the loop, COMMIT on a thread of its own; reads
  through aiosqlite, WAL lets them run while the writer commits) and ``postgres_db.py`` (asyncpg).
  Both hold the same tables (``schema.py``) and answer the same queries, so everything here,
  the checks and the group commit, is one code for both.
- The store checks what it can before a write joins a batch (room exists, version grows, JSON-able
  values, free user name), so one caller's mistake fails that caller alone, not the whole batch.
  It keeps each room's version and move count in memory for this; it assumes it is the only process
  writing the room (one server per SQLite file; in a cluster, the room's owner node). Counters
  are read only once the room's writes in flight are answered (`_settled`), so never from a
  snapshot older than this process's own commits.
- In a cluster the database, not this memory, decides who writes a room: each transaction writes
  only the rooms whose owner is this node at its epoch at COMMIT (``postgres_db.py``, ``lease.OWNED``);
  the others' writes are left out, answered ``not-owner`` and the rooms dropped (``on_lost``).
- A database that cannot be reached (a PostgreSQL restart, a failover) fails the writes in hand
  with ``Unavailable``; the store is then down (``down_since``): writes are refused at once while
  a task reconnects with backoff, and the lease is renewed as soon as it has.
- Values (settings, events, clocks, results) are stored as JSON text, readable with the sqlite3 shell
  and its JSON functions; like any JSON, dict keys come back as strings and tuples as lists.
- Moves are numbered per room from 0 in the order recorded, the same order as ``Game.history``:
  ``rescinded`` names moves by that number. Per room, callers await ``record()`` before the next one
  (the room, one request at a time, does), so the numbering and the versions follow the game.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import logging
import math
import random
import time
from dataclasses import dataclass
from typing import Any, Callable, Collection, Iterable, Protocol, Sequence

import msgspec

from .lease import Fenced, Lease
from .postgres_db import PostgresDatabase, is_postgres
from .ratings import Step
from .schema import SCHEMA_VERSION, SchemaTooNew
from .sqlite_db import SqliteDatabase
from .store_errors import StoreError, Unavailable

from protocol.names import skeleton

log = logging.getLogger("polygo.store")

__all__ = ["SCHEMA_VERSION", "CommitObserver", "Database", "Store", "StoreError", "Unavailable"]

HEAL_FIRST, HEAL_CAP = 0.1, 1.0
"""Seconds between tries to reach a lost database: doubling from the first to the cap, jittered."""


class Database(Protocol):
    """What the store needs of a database: a transaction of batched statements (SQLite's ``?``
    placeholders) in parts, each under a savepoint when there are several, writing only the
    ``rooms`` this node owns (it returns the others, refused); reads that never see an
    uncommitted batch; close. ``sqlite_db.py`` and ``postgres_db.py`` are the two."""

    dialect: str

    async def transaction(self, build: Callable[[set[str]], list[list[tuple[str, Sequence[tuple]]]]],
                          rooms: Collection[str] = (), steps: Callable[[set[str]], list[Step]] | None = None
                          ) -> tuple[set[str], list[BaseException | None]]: ...

    async def one(self, sql: str, params: tuple) -> tuple | None: ...

    async def all(self, sql: str, params: tuple) -> list[tuple]: ...

    async def close(self) -> None: ...


class CommitObserver(Protocol):
    """Told of every group commit (the server's metrics)."""

    def committed(self, writes: int, seconds: float) -> None: ...

    def commit_failed(self) -> None: ...


# The writes a batch may hold, in the order a batch runs them (a room before its seats and events,
# a move before its rescission). Statements of one kind run together with executemany.
_WRITES: dict[str, str] = {
    "user": "INSERT INTO users (name, password_hash, created_at, skeleton) VALUES (?, ?, ?, ?)",
    "session": 'INSERT INTO sessions (token, name, "user", created_at, last_seen) VALUES (?, ?, ?, ?, ?)'
               ' ON CONFLICT (token) DO UPDATE SET name = excluded.name, "user" = excluded."user"',
    "touch": "UPDATE sessions SET last_seen = ? WHERE token = ?",
    "forget_session": "DELETE FROM sessions WHERE token = ? AND NOT EXISTS (SELECT 1 FROM seats WHERE token = ?)"
                      " AND NOT EXISTS (SELECT 1 FROM rooms WHERE owner = ?)",
    "revoke": "UPDATE sessions SET revoked_at = ? WHERE token = ? AND revoked_at IS NULL",
    "revoke_user": 'UPDATE sessions SET revoked_at = ? WHERE "user" = ? AND revoked_at IS NULL',
    "room": "INSERT INTO rooms (room_id, settings, owner, invite, version, created_at, updated_at)"
            " VALUES (?, ?, ?, ?, 0, ?, ?)",
    "own": "UPDATE rooms SET owner_node = ?, owner_epoch = ? WHERE room_id = ?",   # cluster mode only
    "seat": "INSERT INTO seats (room_id, seat, token) VALUES (?, ?, ?)"
            " ON CONFLICT (room_id, seat) DO UPDATE SET token = excluded.token",
    "event": "INSERT INTO events (room_id, version, body, chat_at) VALUES (?, ?, ?, ?)",
    "move": "INSERT INTO moves (room_id, idx, seat, move, seq, version) VALUES (?, ?, ?, ?, ?, ?)",
    "rescind": "UPDATE moves SET rescinded = 1 WHERE room_id = ? AND idx = ?",
    "room_state": "UPDATE rooms SET version = ?, updated_at = ?, clocks = coalesce(?, clocks),"
                  " deadline = CASE WHEN ? THEN ? ELSE deadline END, turn = CASE WHEN ? THEN ? ELSE turn END"
                  " WHERE room_id = ?",
    "result": "INSERT INTO results (room_id, body, finished_at) VALUES (?, ?, ?)"
              " ON CONFLICT (room_id) DO UPDATE SET body = excluded.body, finished_at = excluded.finished_at",
    "drop_events": "DELETE FROM events WHERE room_id = ?",
    "drop_chat": "DELETE FROM events WHERE chat_at < ?",
    "drop_seats": "DELETE FROM seats WHERE room_id = ?",
    "drop_room": "DELETE FROM rooms WHERE room_id = ? AND NOT EXISTS (SELECT 1 FROM moves WHERE room_id = ?)",
    "release": "UPDATE rooms SET owner_node = NULL, owner_epoch = NULL WHERE owner_node = ? AND owner_epoch = ?",
    "password": "UPDATE users SET password_hash = ? WHERE name = ?",
    "remove_chat": "DELETE FROM events WHERE room_id = ? AND version = ? AND chat_at IS NOT NULL",
    "ban": "INSERT INTO bans (kind, value, shown, reason, created_at) VALUES (?, ?, ?, ?, ?)"
           " ON CONFLICT (kind, value) DO UPDATE SET shown = excluded.shown, reason = excluded.reason",
    "unban": "DELETE FROM bans WHERE kind = ? AND value = ?",
}
_ORDER = {kind: i for i, kind in enumerate(_WRITES)}


@dataclass
class _Write:
    """One caller's share of a batch."""

    statements: list[tuple[str, tuple]]
    future: asyncio.Future
    room: str | None = None
    step: Step | None = None


@dataclass
class _Room:
    """What the store must know of a room to check a write before it joins a batch."""

    version: int
    moves: int


@dataclass
class _Stats:
    """Counters for tests and benchmarks: committed transactions, the writes they held, failures."""

    transactions: int = 0
    writes: int = 0
    failed: int = 0
    largest_batch: int = 0


class Store:
    """The server's SQLite file. Open with ``await Store.open(path)``; one Store per file and process."""

    def __init__(self, db: Database, group_window: float, max_batch: int) -> None:
        self._db = db
        self.lease: Lease | None = getattr(db, "lease", None)
        self.fenced: Fenced | None = None      # set when a commit found the lease gone, until rejoin()
        self.on_fenced: Callable[[Fenced], None] | None = None
        self.on_lost: Callable[[set[str]], None] | None = None   # rooms the database refused (owned elsewhere)
        self.down_since: float | None = None   # monotonic time the database was found unreachable, until healed
        self._healer: asyncio.Task[None] | None = None
        self._generation = 0                   # bumped when every room is let go (fence, release)
        self._inflight: list[_Write] = []      # the batch being committed
        self._committed_at = time.monotonic()
        self._window = group_window
        self._max_batch = max_batch
        self._pending: list[_Write] = []
        self._loop = asyncio.get_running_loop()     # kept: asking for it is a getpid call, once a write
        self._wake = asyncio.Event()
        self._closing = False
        self._rooms: dict[str, _Room] = {}
        self._owned: set[str] = set()          # cluster mode: the rooms this node created or claimed
        self._users_reserved: set[str] = set()
        self.stats = _Stats()
        self.observer: CommitObserver | None = None
        self._task = asyncio.create_task(self._run(), name="store-writer")
        self._keeper = None if self.lease is None else asyncio.create_task(self._keep_lease(), name="lease-keeper")

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

    @property
    def epoch(self) -> int:
        """Cluster mode: this node's epoch (the lease's generation its writes are fenced by)."""
        return self._db.epoch

    @property
    def pending(self) -> int:
        """Writes waiting for the next group commit."""
        return len(self._pending)

    @property
    def reachable(self) -> bool:
        """Whether the database answered the last time it was asked (/readyz, the metrics)."""
        return self.down_since is None

    async def close(self) -> None:
        """Commit what is queued, then close; later calls raise StoreError("closed")."""
        if self._closing:
            return
        self._closing = True
        for task in (self._keeper, self._healer):
            if task is not None:
                task.cancel()
        self._wake.set()
        await self._task
        await self._db.close()

    # -- sessions and users ----------------------------------------------------------------------

    async def put_session(self, token: str, name: str, user: str | None = None) -> None:
        _check_text("token", token)
        _check_text("name", name)
        _check_text("user", user, optional=True)
        now = time.time()
        await self._write([("session", (token, name, user, now, now))])

    async def get_session(self, token: str) -> dict | None:
        """The session of ``token``; None if there is none, or it was revoked or expired."""
        row = await self._one('SELECT token, name, "user" FROM sessions WHERE token = ? AND revoked_at IS NULL',
                              (token,))
        return None if row is None else {"token": row[0], "name": row[1], "user": row[2]}

    async def session_name(self, token: str) -> tuple[str, str | None] | None:
        """The name and user of the session ``token``, also a revoked one (a seat keeps its name)."""
        row = await self._one('SELECT name, "user" FROM sessions WHERE token = ?', (token,))
        return None if row is None else (row[0], row[1])

    async def touch_session(self, token: str) -> None:
        """The session was used now (its idle time starts again)."""
        await self._write([("touch", (time.time(), token))])

    async def revoke_sessions(self, token: str, user: str | None = None) -> None:
        """End the session ``token`` (logout), and with ``user`` every session of that user."""
        _check_text("token", token)
        _check_text("user", user, optional=True)
        now = time.time()
        statements: list[tuple[str, tuple]] = [("revoke", (now, token))]
        if user is not None:
            statements.append(("revoke_user", (now, user)))
        await self._write(statements)

    async def expire_sessions(self, idle_since: float, limit: int = 10_000) -> list[str]:
        """End the sessions unused since ``idle_since`` (a time.time()) that hold no seat in an
        unfinished game; returns their tokens. A session that never sat nor created a room is
        deleted; the others are revoked and kept, because finished games name their players
        through them."""
        rows = await self._all(
            "SELECT token FROM sessions WHERE revoked_at IS NULL AND last_seen < ? AND token NOT IN"
            " (SELECT token FROM seats WHERE token IS NOT NULL AND room_id NOT IN (SELECT room_id FROM results))"
            " LIMIT ?", (idle_since, limit))
        tokens = [token for (token,) in rows]
        if tokens:
            now = time.time()
            await self._write([("forget_session", (t, t, t)) for t in tokens] + [("revoke", (now, t)) for t in tokens])
        return tokens

    async def put_user(self, name: str, password_hash: str) -> None:
        """Register ``name``; StoreError("name-taken") if it, or a name that looks like it (the same
        ``protocol.names.skeleton``), is registered or being registered."""
        self._check_open()
        _check_text("name", name)
        _check_text("password_hash", password_hash)
        key = skeleton(name)
        if key in self._users_reserved:
            raise StoreError("name-taken", f"The name {name!r} is being registered.")
        self._users_reserved.add(key)
        try:
            like = await self.registered_like(name)
            if like is not None:
                raise StoreError("name-taken", f"The name {name!r} is already registered." if like == name else
                                 f"The name {name!r} looks like the registered name {like!r}.")
            await self._write([("user", (name, password_hash, time.time(), key))])
        finally:
            self._users_reserved.discard(key)

    async def registered_like(self, name: str) -> str | None:
        """The registered name that ``name`` is or looks like, or None."""
        row = await self._one("SELECT name FROM users WHERE skeleton = ? ORDER BY name = ? DESC LIMIT 1",
                              (skeleton(name), name))
        return None if row is None else row[0]

    async def get_user(self, name: str) -> dict | None:
        row = await self._one("SELECT name, password_hash FROM users WHERE name = ?", (name,))
        return None if row is None else {"name": row[0], "password_hash": row[1]}

    # -- the operator's commands (server/admin.py) ---------------------------------------------------

    async def set_password(self, user: str, password_hash: str) -> None:
        """Replace a registered user's password hash (the user exists: `get_user`)."""
        _check_text("user", user)
        _check_text("password_hash", password_hash)
        await self._write([("password", (password_hash, user))])

    async def chat_line(self, room_id: str, version: int) -> dict | None:
        """The chat event at `version` of the room, or None (no such line, or not a chat line)."""
        row = await self._one("SELECT body FROM events WHERE room_id = ? AND version = ? AND chat_at IS NOT NULL",
                              (room_id, version))
        return None if row is None else json.loads(row[0])

    async def remove_chat(self, room_id: str, version: int) -> None:
        """Delete the chat line at `version` of the room (a resync over it then finds a gap)."""
        _check_text("room", room_id)
        _check_int("version", version)
        await self._write([("remove_chat", (room_id, version))])

    async def bans(self) -> list[dict]:
        """Every ban, oldest first: `kind`, `value` (what is matched), `shown`, `reason`, `created_at`."""
        rows = await self._all("SELECT kind, value, shown, reason, created_at FROM bans ORDER BY created_at")
        return [{"kind": k, "value": v, "shown": s, "reason": r, "created_at": t} for k, v, s, r, t in rows]

    async def ban(self, kind: str, value: str, shown: str, reason: str) -> None:
        for what, text in (("kind", kind), ("value", value), ("shown", shown), ("reason", reason)):
            _check_text(what, text)
        await self._write([("ban", (kind, value, shown, reason, time.time()))])

    async def unban(self, kind: str, value: str) -> None:
        await self._write([("unban", (kind, value))])

    # -- rooms -----------------------------------------------------------------------------------

    async def create_room(self, room_id: str, settings: dict, *, owner: str, invite: str | None) -> None:
        """Store a new room at version 0; StoreError("room-exists") if the id is in use."""
        self._check_open()
        _check_text("room_id", room_id)
        _check_text("owner", owner)
        _check_text("invite", invite, optional=True)
        exists = StoreError("room-exists", f"There is already a room {room_id!r}.")
        if room_id in self._rooms:
            raise exists
        body = _dumps(settings, "room settings")
        self._rooms[room_id] = _Room(version=0, moves=0)
        try:
            taken = await self._one("SELECT 1 FROM rooms WHERE room_id = ?", (room_id,)) is not None
        except BaseException:
            del self._rooms[room_id]
            raise
        if taken:
            del self._rooms[room_id]
            raise exists
        now = time.time()
        statements = [("room", (room_id, body, owner, invite, now, now))]
        if self.lease is not None:
            statements.append(("own", (self.lease.node_id, self._db.epoch, room_id)))
        try:
            written = self._write(statements, room=room_id)
        except StoreError:
            del self._rooms[room_id]
            raise
        if self.lease is not None:
            self._owned.add(room_id)
        await written

    async def drop_unstarted(self, room_id: str) -> None:
        """Forget a room whose game never started (it expired): its row, seats and events go."""
        room = await self._room(room_id)
        if room.moves:
            raise StoreError("bad-value", f"Room {room_id!r} has moves; only an unstarted room is dropped.")
        await self._write([("drop_events", (room_id,)), ("drop_seats", (room_id,)),
                           ("drop_room", (room_id, room_id))], room=room_id)
        self._rooms.pop(room_id, None)
        self._owned.discard(room_id)

    async def set_seat(self, room_id: str, seat: int, token: str | None) -> None:
        """Bind ``seat`` to the session ``token``, or free it with None."""
        await self._room(room_id)
        _check_int("seat", seat)
        _check_text("token", token, optional=True)
        await self._write([("seat", (room_id, seat, token))], room=room_id)

    async def record(self, room_id: str, version: int, event: dict, *,
                     move: tuple[int, str, int | None] | None = None,
                     rescinded: list[int] = (),
                     clocks: dict | None = None,
                     deadline: float | None = None,
                     result: dict | None = None,
                     plain: bool = False,
                     step: Step | None = None) -> None:
        """Durably store one change of a room: its event, and the move, rescissions, clocks and
        result that came with it. Returns once the batch holding it is committed.

        ``deadline`` goes with ``clocks``: the wall-clock instant (a time.time()) the running
        seat's flag falls if the clock is a calendar one, else None; a record without clocks
        leaves both as they were. An event with a ``to_move`` also stores it as the room's
        ``turn`` (listings read it without replaying the game).

        ``rescinded`` may name this record's own move (the pass that triggers a rescission is itself
        rescinded): its number is the room's move count before this call.

        ``plain``: the caller vouches that ``event`` holds only JSON's own values (str, int, bool,
        None, finite floats, lists, maps with str keys), so its text reads back as the same value
        by construction and is stored without `_dumps`' read-back (``_plain_dumps``).

        ``step`` runs in the same transaction, after the batch's statements: the rating update of
        the game this record ends (``ratings.update_step``).
        """
        room = self._rooms.get(room_id)
        if room is None or self._closing:   # a room in memory without `_room`'s coroutine
            room = await self._room(room_id)
        _check_int("version", version)
        if version <= room.version:
            raise StoreError("stale-version", f"Room {room_id!r} is at version {room.version}; "
                                              f"a new event needs a higher one, not {version!r}.")
        now = time.time()
        chat_at = now if event.get("kind") == "chat" else None
        body = _plain_dumps(event, "the event") if plain else _dumps(event, "the event")
        statements: list[tuple[str, tuple]] = [("event", (room_id, version, body, chat_at))]
        moves = room.moves
        if move is not None:
            if not isinstance(move, (tuple, list)) or len(move) != 3:
                raise StoreError("bad-value", f"A move is (seat, move string, client seq), not {move!r}.")
            seat, text, seq = move
            _check_int("move seat", seat)
            _check_text("move", text)
            _check_int("seq", seq, optional=True)
            statements.append(("move", (room_id, moves, seat, text, seq, version)))
            moves += 1
        if rescinded:   # most records rescind nothing: no comprehension (a function call in 3.11) then
            bad = [i for i in rescinded if not (_is_int(i) and i < moves)]
            if bad:
                raise StoreError("bad-rescission", f"Room {room_id!r} has moves 0 to {moves - 1}; "
                                                   f"it cannot rescind {bad}.")
            statements += [("rescind", (room_id, i)) for i in rescinded]
        clocks_text = None if clocks is None else _dumps(clocks, "the clocks")
        if deadline is not None and not (isinstance(deadline, float) and math.isfinite(deadline)):
            raise StoreError("bad-value", f"A deadline is a finite float (a time.time()), not {deadline!r}.")
        statements.append(("room_state", (version, now, clocks_text, clocks is not None, deadline,
                                            "to_move" in event, event.get("to_move"), room_id)))
        if result is not None:
            statements.append(("result", (room_id, _dumps(result, "the result"), now)))
        # raises, reserving nothing, while it cannot be written; the benches stand in for `_write`
        # with (statements, room)
        written = self._write(statements, room_id) if step is None else self._write(statements, room_id, step)
        room.version, room.moves = version, moves
        await written

    async def drop_chat(self, said_before: float) -> dict[str, int]:
        """Forget the chat lines said before ``said_before`` (a time.time()): the retention of chat.
        A client resyncing over them finds a gap in the versions, as after any event it may skip.
        Returns each room's last version dropped, so that live rooms can drop them from memory too
        (a line said now is never before the cutoff, so the rows read are the rows deleted)."""
        rows = await self._all("SELECT room_id, max(version) FROM events WHERE chat_at < ? GROUP BY room_id",
                               (said_before,))
        if rows:
            await self._write([("drop_chat", (said_before,))])
        return {room_id: version for room_id, version in rows}

    # -- cluster mode: claiming rooms, the lease ---------------------------------------------------

    async def claim(self, room_id: str) -> None:
        """Own the room from now on (``PostgresDatabase.claim``: OwnedElsewhere while another
        node's lease on it is live), and read its version and move count as committed. A room
        this node already serves is left as it is: its counters are ahead of any reader's."""
        self._check_writable()
        if room_id in self._owned and room_id in self._rooms:
            return
        generation = self._generation
        try:
            await self._db.claim(room_id)
        except Unavailable as exc:
            self._went_down(exc)
            raise
        if generation != self._generation:
            raise Unavailable("not-owner", f"Room {room_id!r} was claimed under an epoch that has ended; ask again.")
        self._owned.add(room_id)
        if room_id not in self._rooms:
            await self._load_room(room_id)

    async def orphans(self, limit: int = 100) -> list[str]:
        """Unfinished rooms no live node owns, for the sweeper to claim."""
        self._check_writable()
        try:
            return await self._db.orphans(limit)
        except Unavailable as exc:
            self._went_down(exc)
            raise

    async def release(self) -> None:
        """Let every room of this node go (a graceful stop, once the rooms are halted): other nodes
        take them at once instead of waiting for this process to end. Writes queued before this
        commit first (a batch runs releases last); later writes to those rooms are refused."""
        self._owned.clear()
        self._rooms.clear()
        self._generation += 1
        await self._write([("release", (self.lease.node_id, self._db.epoch))])

    async def rejoin(self) -> None:
        """After a fence, join again with a new epoch; the node owns no room until it claims them."""
        self._check_open()
        try:
            await self._db.rejoin()
        except Unavailable as exc:
            self._went_down(exc)
            raise
        self.fenced = None

    async def _keep_lease(self) -> None:
        """Renew the lease when no commit has for a third of its length (an empty batch renews it)."""
        period = self.lease.seconds / 3
        while True:
            await asyncio.sleep(max(0.0, self._committed_at + period - time.monotonic()))
            if self._committed_at + period <= time.monotonic() and self.fenced is None:
                try:
                    await self._write([])
                except StoreError:
                    pass    # fenced or failed: the commit path has told on_fenced and the metrics

    # -- reading -----------------------------------------------------------------------------------

    async def events_since(self, room_id: str, version: int) -> list[dict]:
        """The room's events with a version above ``version``, oldest first."""
        rows = await self._all("SELECT body FROM events WHERE room_id = ? AND version > ? ORDER BY version",
                               (room_id, version))
        return [json.loads(body) for (body,) in rows]

    async def chat_tail(self, room_id: str, lines: int) -> list[dict]:
        """The room's last ``lines`` chat lines still kept, oldest first, as their events less the kind."""
        rows = await self._all("SELECT body FROM events WHERE room_id = ? AND chat_at IS NOT NULL"
                               " ORDER BY version DESC LIMIT ?", (room_id, lines))
        tail = [json.loads(body) for (body,) in reversed(rows)]
        for line in tail:
            del line["kind"]
        return tail

    async def finished_seats(self, room_id: str) -> dict | None:
        """A finished room's settings, invite and seats as {seat: (token, user)}, or None (no such
        room, or not finished): who may have a move of it acknowledged again (server/resends.py)."""
        row = await self._one("SELECT r.settings, r.invite FROM rooms r JOIN results f USING (room_id)"
                              " WHERE r.room_id = ?", (room_id,))
        if row is None:
            return None
        seats, _, users = await self._seats(room_id)
        return {"settings": json.loads(row[0]), "invite": row[1],
                "seats": {int(seat): (token, users[seat]) for seat, token in seats.items()}}

    async def seat_seqs(self, room_id: str, seat: int) -> list[tuple[int, str, int]]:
        """Every stored move of `seat` in the room that came with a seq, as (seq, move, version)."""
        rows = await self._all("SELECT seq, move, version FROM moves WHERE room_id = ? AND seat = ?"
                               " AND seq IS NOT NULL ORDER BY idx", (room_id, seat))
        return [(seq, move, version) for seq, move, version in rows]

    async def unfinished_rooms(self, only: str | None = None) -> list[dict]:
        """Every room without a result (or just the room ``only``, if unfinished), with what a
        restart or a takeover needs to rebuild it: settings, seats, all moves in order as
        ``[seat, move, seq, version]`` (replaying them reproduces the rescissions; seq and version
        re-acknowledge a resent move), clocks, version."""
        unfinished = "SELECT room_id FROM rooms WHERE room_id NOT IN (SELECT room_id FROM results)"
        params: tuple = ()
        if only is not None:
            unfinished += " AND room_id = ?"
            params = (only,)
        rooms = await self._all(
            "SELECT room_id, settings, owner, invite, version, clocks, created_at, updated_at, deadline FROM rooms"
            f" WHERE room_id IN ({unfinished}) ORDER BY created_at, room_id", params)
        seats: dict[str, dict[int, str | None]] = {}
        for room_id, seat, token in await self._all(
                f"SELECT room_id, seat, token FROM seats WHERE room_id IN ({unfinished}) ORDER BY room_id, seat",
                params):
            seats.setdefault(room_id, {})[seat] = token
        moves: dict[str, list[list[Any]]] = {}
        for room_id, seat, move, seq, version, rescinded in await self._all(
                "SELECT room_id, seat, move, seq, version, rescinded FROM moves"
                f" WHERE room_id IN ({unfinished}) ORDER BY room_id, idx", params):
            moves.setdefault(room_id, []).append([seat, move, seq, version, bool(rescinded)])
        out = []
        for room_id, settings, owner, invite, version, clocks, created_at, updated_at, deadline in rooms:
            played = moves.get(room_id, [])
            out.append({
                "room_id": room_id, "settings": json.loads(settings), "owner": owner, "invite": invite,
                "seats": seats.get(room_id, {}),
                "moves": [m[:4] for m in played], "rescinded": [i for i, m in enumerate(played) if m[4]],
                "clocks": None if clocks is None else json.loads(clocks),
                "version": version, "created_at": created_at, "updated_at": updated_at, "deadline": deadline,
            })
        return out

    async def unfinished_seats(self) -> list[dict]:
        """Every room without a result, with what a start needs to tell a waiting room from a
        started game without rebuilding it: its number of players and its taken seats as {seat:
        (token, the session's user)}. Neither moves nor settings are read (a 4,096-point board's
        settings are some 50 KB)."""
        players = ("json_extract(settings, '$.players')" if self._db.dialect == "sqlite"
                   else "(settings::json ->> 'players')::bigint")
        unfinished = "room_id NOT IN (SELECT room_id FROM results)"
        rooms = await self._all(f"SELECT room_id, {players} FROM rooms WHERE {unfinished} ORDER BY created_at, room_id")
        seats: dict[str, dict[int, tuple[str, str | None]]] = {}
        for room_id, seat, token, user in await self._all(
                'SELECT s.room_id, s.seat, s.token, x."user" FROM seats s LEFT JOIN sessions x USING (token)'
                f" WHERE s.token IS NOT NULL AND s.{unfinished}"):
            seats.setdefault(room_id, {})[seat] = (token, user)
        return [{"room_id": room_id, "players": players, "seats": seats.get(room_id, {})}
                for room_id, players in rooms]

    async def overdue(self, now: float, limit: int = 100) -> list[str]:
        """Unfinished rooms whose calendar clock's deadline is at or before ``now`` (a time.time()),
        the most overdue first: what the deadline sweeper times out (server/deadlines.py)."""
        rows = await self._all("SELECT room_id FROM rooms r WHERE deadline <= ? AND NOT EXISTS"
                               " (SELECT 1 FROM results f WHERE f.room_id = r.room_id) ORDER BY deadline LIMIT ?",
                               (now, limit))
        return [room_id for (room_id,) in rows]

    async def held_games(self, token: str, user: str | None, limit: int) -> list[dict]:
        """The unfinished rooms where the session ``token`` or the registered ``user`` holds a
        seat (at most ``limit``), each with its settings, version, seat held, the seat to move
        (``turn``), the calendar deadline and its seats as `_seats_of` gives them."""
        tokens = "?" if user is None else 'SELECT ? UNION SELECT token FROM sessions WHERE "user" = ?'
        rows = await self._all(
            "SELECT r.room_id, r.settings, r.version, r.turn, r.deadline, min(s.seat) FROM seats s"
            f" JOIN rooms r USING (room_id) WHERE s.token IN ({tokens})"
            " AND NOT EXISTS (SELECT 1 FROM results f WHERE f.room_id = s.room_id)"
            " GROUP BY r.room_id, r.settings, r.version, r.turn, r.deadline ORDER BY r.room_id LIMIT ?",
            ((token,) if user is None else (token, user)) + (limit,))
        seats = await self._seats_of([row[0] for row in rows])
        return [{"room_id": room_id, "settings": json.loads(settings), "version": version, "turn": turn,
                 "deadline": deadline, "seat": seat, "seats": seats.get(room_id, {})}
                for room_id, settings, version, turn, deadline, seat in rows]

    async def held_seats(self, token: str, user: str | None) -> list[tuple[str, int, int | None]]:
        """The seats in unfinished rooms bound to the session ``token`` or to any session of the
        registered ``user``, as (room, seat, the seat's last acknowledged seq or None)."""
        whose = "s.token = ?" + (' OR x."user" = ?' if user is not None else "")
        return await self._all(
            "SELECT s.room_id, s.seat,"
            " (SELECT max(m.seq) FROM moves m WHERE m.room_id = s.room_id AND m.seat = s.seat)"
            f" FROM seats s LEFT JOIN sessions x ON x.token = s.token WHERE ({whose})"
            " AND s.room_id NOT IN (SELECT room_id FROM results) ORDER BY s.room_id, s.seat",
            (token,) if user is None else (token, user))

    async def public_rooms(self, limit: int, offset: int) -> tuple[list[dict], int]:
        """A page of the unfinished rooms without an invitation code, the oldest first, and how
        many there are: what a node of a cluster lists, whichever node serves them. Each has its
        settings, version and seats as {seat: (token, the session's name, its user)}."""
        listed = "invite IS NULL AND room_id NOT IN (SELECT room_id FROM results)"
        rows = await self._all(f"SELECT room_id, settings, version FROM rooms WHERE {listed}"
                               " ORDER BY created_at, room_id LIMIT ? OFFSET ?", (limit, offset))
        (total,) = await self._one(f"SELECT count(*) FROM rooms WHERE {listed}", ())
        seats = await self._seats_of([row[0] for row in rows])
        return [{"room_id": room_id, "settings": json.loads(settings), "version": version,
                 "seats": seats.get(room_id, {})} for room_id, settings, version in rows], total

    async def _seats_of(self, room_ids: list[str]) -> dict[str, dict[int, tuple]]:
        """The seats of these rooms as {room: {seat: (token, the session's name, its user)}}."""
        seats: dict[str, dict[int, tuple]] = {}
        if room_ids:
            marks = ", ".join("?" * len(room_ids))
            for room_id, seat, token, name, user in await self._all(
                    'SELECT s.room_id, s.seat, s.token, x.name, x."user" FROM seats s'
                    f" LEFT JOIN sessions x USING (token) WHERE s.room_id IN ({marks})", tuple(room_ids)):
                seats.setdefault(room_id, {})[seat] = (token, name, user)
        return seats

    async def finished_games(self, limit: int = 50, offset: int = 0, *, public: bool = False) -> list[dict]:
        """Finished games, the latest first: a summary each (use ``game()`` for the moves).

        ``moves`` counts the entries of the game's history: every stored move row except that an
        accepted undo (its own row) takes back the row before it.

        ``public`` leaves out rooms with an invitation code in the query itself, so that a page
        holds ``limit`` listable games and offsets count only those.
        """
        if not (isinstance(limit, int) and 1 <= limit <= 1000 and isinstance(offset, int) and offset >= 0):
            raise StoreError("bad-value", f"limit must be 1 to 1000 and offset >= 0, not {limit!r}, {offset!r}.")
        rows = await self._all(
            "SELECT r.room_id, r.settings, r.created_at, f.body, f.finished_at,"
            " (SELECT count(*) - 2 * count(*) FILTER (WHERE m.move = 'undo') FROM moves m WHERE m.room_id = r.room_id)"
            " FROM results f JOIN rooms r USING (room_id)"
            + (" WHERE r.invite IS NULL" if public else "") +
            " ORDER BY f.finished_at DESC, r.room_id LIMIT ? OFFSET ?", (limit, offset))
        out = []
        for room_id, settings, created_at, result, finished_at, moves in rows:
            seats, names, users = await self._seats(room_id)
            out.append({"room_id": room_id, "settings": json.loads(settings), "seats": seats,
                        "names": names, "users": users, "result": json.loads(result), "moves": moves,
                        "created_at": created_at, "finished_at": finished_at})
        return out

    async def game(self, room_id: str) -> dict | None:
        """One room's whole record. ``seats`` holds session tokens, which are secrets: send
        ``names`` to clients, never ``seats``."""
        row = await self._one(
            "SELECT r.settings, r.owner, r.invite, r.version, r.clocks, r.created_at, f.body, f.finished_at"
            " FROM rooms r LEFT JOIN results f USING (room_id) WHERE r.room_id = ?", (room_id,))
        if row is None:
            return None
        settings, owner, invite, version, clocks, created_at, result, finished_at = row
        moves = await self._moves(room_id)
        seats, names, users = await self._seats(room_id)
        return {
            "room_id": room_id, "settings": json.loads(settings), "owner": owner, "invite": invite,
            "seats": seats, "names": names, "users": users,
            "moves": moves, "rescinded": [i for i, m in enumerate(moves) if m[3]],
            "clocks": None if clocks is None else json.loads(clocks), "version": version,
            "result": None if result is None else json.loads(result),
            "created_at": created_at, "finished_at": finished_at,
        }

    async def query(self, sql: str, params: tuple = ()) -> list[tuple]:
        """Rows of a read-only query (SQLite's ``?`` placeholders) for the modules that own their
        tables' queries (``pool_store.py``); like every read here, it never sees an uncommitted batch."""
        return await self._all(sql, params)

    async def run_step(self, step: Step) -> None:
        """Run a step (``ratings.Step``: statements that depend on rows read in the same
        transaction) in the next group commit; returns once it is committed."""
        await self._write([], None, step)

    # -- the writer --------------------------------------------------------------------------------

    def _write(self, statements: list[tuple[str, tuple]], room: str | None = None,
               step: Step | None = None) -> asyncio.Future:
        """Queue a write for the next batch; its future is resolved once the batch is committed.
        Not a coroutine: the caller awaits the future itself, a coroutine fewer made, run and freed a
        move."""
        self._check_writable()
        future = self._loop.create_future()
        self._pending.append(_Write(statements, future, room, step))
        self._wake.set()
        return future

    async def _run(self) -> None:
        """The writer task: wait for a first write, let the window gather more, commit them all."""
        previous_batch = 0
        while True:
            if not self._pending:
                if self._closing:
                    return
                self._wake.clear()
                await self._wake.wait()
                if previous_batch > 1:
                    await asyncio.sleep(self._window)
            batch = self._pending[:self._max_batch]
            del self._pending[:self._max_batch]
            previous_batch = len(batch)
            self._inflight = batch
            started = time.perf_counter()
            try:
                failed = await self._commit(batch)
            except Fenced as exc:
                self._fence(batch, exc)
            except Unavailable as exc:
                self._unreachable(batch, exc)
            except Exception as exc:  # noqa: BLE001 -- every failure is handed to the callers
                self._fail(batch, exc)
            else:
                self._committed_at = time.monotonic()
                if self.observer is not None:
                    self.observer.committed(len(batch), time.perf_counter() - started)
                self.stats.transactions += 1
                self.stats.writes += len(batch)
                self.stats.largest_batch = max(self.stats.largest_batch, len(batch))
                for write in batch:
                    if not write.future.done():
                        if failed and id(write) in failed:
                            write.future.set_exception(failed[id(write)])
                        else:
                            write.future.set_result(None)
            finally:
                self._inflight = []

    async def _commit(self, batch: list[_Write]) -> dict[int, Exception] | None:
        """Commit the batch; the writes that failed alone (by id), if any: those of rooms the
        database refused (owned elsewhere), or, once the batch as a whole failed, those of rooms
        whose part failed when each room's writes were tried under a savepoint of their own."""
        rooms = self._guarded(batch) if self.lease is not None else ()
        try:
            refused, _ = await self._db.transaction(
                lambda refused: [_groups([w for w in batch if w.room not in refused] if refused else batch)], rooms,
                lambda refused: [w.step for w in batch if w.step is not None and w.room not in refused])
        except Unavailable:
            raise
        except Exception as exc:  # noqa: BLE001 -- tried again room by room
            return await self._commit_apart(batch, rooms, exc)
        return self._refused(batch, refused) if refused else None

    async def _commit_apart(self, batch: list[_Write], rooms: Collection[str], cause: Exception) -> dict[int, Exception]:
        """The batch failed as a whole: commit it again with each room's writes (and each write
        of no room) under a savepoint of its own, so that one room's failure fails only its own.
        A write with a step (a rating update, the finder's claim) is not tried again: its step
        already ran in the failed transaction, and it fails with the batch's error."""
        stepped = {id(w): StoreError("commit-failed", f"The store could not commit: {cause}.")
                   for w in batch if w.step is not None}
        batch = [w for w in batch if w.step is None]
        parts: dict[Any, list[_Write]] = {}

        def build(refused: set[str]) -> list[list[tuple[str, Sequence[tuple]]]]:
            parts.clear()
            for write in batch:
                if write.room not in refused:
                    parts.setdefault(id(write) if write.room is None else write.room, []).append(write)
            return [_groups(writes) for writes in parts.values()]

        refused, errors = await self._db.transaction(build, rooms)
        failed = self._refused(batch, refused) if refused else {}
        failed.update(stepped)
        broken: set[str] = set()
        for writes, error in zip(parts.values(), errors):
            if error is None:
                continue
            log.error("a write of %s could not be committed (%s); its neighbours in the batch were",
                      writes[0].room or "no room", error)
            failure = StoreError("commit-failed", f"The store could not commit: {error}.")
            failure.__cause__ = error
            failed.update((id(w), failure) for w in writes)
            if writes[0].room is not None:
                broken.add(writes[0].room)
        if broken:
            self._forget_rooms(broken, StoreError("commit-failed", f"An earlier write of the room failed: {cause}."))
            self.stats.failed += 1
            if self.observer is not None:
                self.observer.commit_failed()
        return failed

    @staticmethod
    def _guarded(batch: list[_Write]) -> set[str]:
        """The rooms the batch writes that must be this node's at COMMIT: all but those it creates."""
        rooms = {w.room for w in batch if w.room is not None}
        return rooms.difference(w.room for w in batch if w.statements and w.statements[0][0] == "room")

    def _refused(self, batch: list[_Write], rooms: set[str]) -> dict[int, Exception]:
        """The database refused these rooms' writes (another node owns them, or an earlier epoch
        of this one): none of them landed. Their callers and queued writes fail, the rooms are
        dropped from this node (``on_lost``)."""
        log.warning("rooms %s are no longer this node's; their writes were left out", ", ".join(sorted(rooms)))
        self._owned.difference_update(rooms)
        lost = Unavailable("not-owner", "The room is no longer served by this node; nothing was written, ask again.")
        self._forget_rooms(rooms, lost)
        if self.on_lost is not None:
            self.on_lost(rooms)
        return {id(w): lost for w in batch if w.room in rooms}

    def _forget_rooms(self, rooms: set[str], error: Exception) -> None:
        """Forget the rooms' counters and fail their queued writes (checked against them)."""
        for room in rooms:
            self._rooms.pop(room, None)
        doomed = [w for w in self._pending if w.room in rooms]
        self._pending = [w for w in self._pending if w.room not in rooms]
        for write in doomed:
            if not write.future.done():
                write.future.set_exception(error)

    def _fail(self, batch: list[_Write], exc: Exception) -> None:
        """Fail the batch's callers, forget what they reserved, and fail queued writes that were
        checked against those reservations."""
        error = StoreError("commit-failed", f"The store could not commit: {exc}.")
        error.__cause__ = exc
        self._forget_rooms({w.room for w in batch if w.room is not None}, error)
        self.stats.failed += 1
        if self.observer is not None:
            self.observer.commit_failed()
        for write in batch:
            if not write.future.done():
                write.future.set_exception(error)

    def _unreachable(self, batch: list[_Write], exc: Unavailable) -> None:
        """The database cannot be reached: nothing of the batch committed, and nothing queued can
        be now. Fail them all (their rooms' counters are read again once it is back) and heal."""
        doomed, self._pending = batch + self._pending, []
        for write in doomed:
            if write.room is not None:
                self._rooms.pop(write.room, None)
        self.stats.failed += 1
        if self.observer is not None:
            self.observer.commit_failed()
        for write in doomed:
            if not write.future.done():
                write.future.set_exception(exc)
        self._went_down(exc)

    def _went_down(self, exc: Unavailable) -> None:
        """An operation found the database unreachable: refuse writes at once until ``_heal`` has
        reached it again."""
        if exc.code != "unavailable" or self._closing:
            return
        if self.down_since is None:
            self.down_since = time.monotonic()
            log.error("%s Reconnecting.", exc.message)
        if self._healer is None or self._healer.done():
            self._healer = asyncio.create_task(self._heal(), name="store-healer")

    async def _heal(self) -> None:
        """Reconnect with backoff until every connection works, then renew the lease (an empty
        commit: a node whose lease ran out meanwhile is fenced there, and rejoins)."""
        delay = HEAL_FIRST
        while True:
            await asyncio.sleep(delay * (0.5 + random.random() / 2))
            delay = min(HEAL_CAP, delay * 2)
            try:
                await self._db.reconnect()
            except Fenced as exc:
                self.down_since = None
                self._fence([], exc)
                return
            except Unavailable:
                continue
            except Exception:  # noqa: BLE001 -- the healer outlives a bad moment of the database
                log.exception("reconnecting to the database failed")
                continue
            log.warning("the database is reachable again after %.1f s", time.monotonic() - self.down_since)
            self.down_since = None
            if self.lease is not None:
                try:
                    await self._write([])
                except StoreError:
                    pass    # fenced or down again: the commit path has handled it
            return

    def _fence(self, batch: list[_Write], fenced: Fenced) -> None:
        """The lease is gone: nothing of this batch was committed, nothing queued can be. Fail them
        all, forget every room (other nodes own them now) and tell the server."""
        doomed, self._pending = batch + self._pending, []
        self.fenced = fenced
        self._generation += 1
        self._rooms.clear()
        self._owned.clear()
        self.stats.failed += 1
        for write in doomed:
            if not write.future.done():
                write.future.set_exception(fenced)
        if self.on_fenced is not None:
            self.on_fenced(fenced)

    # -- helpers -----------------------------------------------------------------------------------

    def _check_open(self) -> None:
        if self._closing:
            raise StoreError("closed", "The store is closed.")

    def _check_writable(self) -> None:
        self._check_open()
        if self.fenced is not None:
            raise self.fenced
        if self.down_since is not None:
            raise Unavailable("unavailable", "The database cannot be reached now; nothing was written.",
                              retry_after=HEAL_CAP)

    async def _room(self, room_id: str) -> _Room:
        """The room's version and move count, loaded from the file the first time it is needed.
        A node of a cluster writes only the rooms it created or claimed."""
        self._check_open()
        room = self._rooms.get(room_id)
        if room is not None:
            return room
        if self.lease is not None and room_id not in self._owned:
            raise Unavailable("not-owner", f"Room {room_id!r} is not served by node {self.lease.node_id!r}; "
                                           f"claim it first.")
        return await self._load_room(room_id)

    async def _load_room(self, room_id: str) -> _Room:
        """Read the room's counters once its writes in flight are answered (a read cannot see a
        batch being committed). A node that let its rooms go meanwhile (a fence, a release, the
        database refusing the room) does not take the room back: Unavailable("not-owner")."""
        generation = self._generation
        await self._settled(room_id)
        row = await self._one("SELECT version, (SELECT count(*) FROM moves WHERE room_id = ?)"
                              " FROM rooms WHERE room_id = ?", (room_id, room_id))
        if row is None:
            raise StoreError("no-room", f"There is no room {room_id!r}.")
        if self.lease is not None and (generation != self._generation or room_id not in self._owned):
            raise Unavailable("not-owner", f"Room {room_id!r} was let go while it was read; ask again.")
        return self._rooms.setdefault(room_id, _Room(version=row[0], moves=row[1]))

    async def _settled(self, room_id: str) -> None:
        """Until every write of the room queued or being committed is answered."""
        waiting = [w.future for w in (*self._inflight, *self._pending) if w.room == room_id]
        if waiting:
            await asyncio.gather(*waiting, return_exceptions=True)

    async def _seats(self, room_id: str) -> tuple[dict[int, str | None], dict[int, str | None],
                                                   dict[int, str | None]]:
        """The room's seats as {seat: token}, {seat: the session's name} and {seat: its user}."""
        rows = await self._all('SELECT seat, token, name, "user" FROM seats LEFT JOIN sessions USING (token)'
                               " WHERE room_id = ? ORDER BY seat", (room_id,))
        return ({seat: token for seat, token, _, _ in rows}, {seat: name for seat, _, name, _ in rows},
                {seat: user for seat, _, _, user in rows})

    async def _moves(self, room_id: str) -> list[list[Any]]:
        rows = await self._all("SELECT seat, move, seq, rescinded FROM moves WHERE room_id = ? ORDER BY idx",
                               (room_id,))
        return [[seat, move, seq, bool(rescinded)] for seat, move, seq, rescinded in rows]

    async def _one(self, sql: str, params: tuple) -> tuple | None:
        self._check_open()
        try:
            return await self._db.one(sql, params)
        except Unavailable as exc:
            self._went_down(exc)
            raise

    async def _all(self, sql: str, params: tuple = ()) -> list[tuple]:
        self._check_open()
        try:
            return await self._db.all(sql, params)
        except Unavailable as exc:
            self._went_down(exc)
            raise


def _groups(writes: Iterable[_Write]) -> list[tuple[str, list[tuple]]]:
    """The writes' statements as (sql, rows) in a batch's order, one executemany a kind."""
    statements = sorted((s for w in writes for s in w.statements), key=lambda s: _ORDER[s[0]])
    return [(_WRITES[kind], [params for _, params in group])
            for kind, group in itertools.groupby(statements, key=lambda s: s[0])]


def _is_int(value: Any) -> bool:
    """A whole number SQLite stores as an integer (bool is not one)."""
    return isinstance(value, int) and not isinstance(value, bool) and 0 <= value < 2**63


def _check_int(what: str, value: Any, *, optional: bool = False) -> None:
    """Checked before a write joins a batch: a value SQLite refuses would fail the whole batch."""
    if not (_is_int(value) or (optional and value is None)):
        raise StoreError("bad-value", f"The {what} must be a whole number from 0, not {value!r}.")


def _check_text(what: str, value: Any, *, optional: bool = False) -> None:
    if optional and value is None:
        return
    if not isinstance(value, str):
        raise StoreError("bad-value", f"The {what} must be a string, not {value!r}.")
    if "\x00" in value:
        raise StoreError("bad-value", f"The {what} holds a NUL character, which PostgreSQL cannot store "
                                      f"(refused on SQLite too, so both accept the same values): {value!r}.")
    _check_utf8(what, value)


def _check_utf8(what: str, text: str) -> None:
    """SQLite stores UTF-8: a lone surrogate would fail the whole batch at COMMIT, not this caller."""
    if not text.isascii():
        try:
            text.encode()
        except UnicodeEncodeError:
            raise StoreError("bad-value", f"The {what} is not Unicode text (a lone surrogate): {text!r}.") from None


_ENCODER = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False, allow_nan=False)
_FAST_ENCODER = msgspec.json.Encoder()
_FAST_DECODER = msgspec.json.Decoder()


def _dumps(value: Any, what: str) -> str:
    """``value`` as JSON text, or StoreError. msgspec writes it several times quicker than ``json``
    (every move's event is stored: 14 µs became 4); its text is kept when it reads back as
    the same value. It does not for NaN and infinities (msgspec writes null), tuples and keys that
    are not strings: those take ``json``'s path, which refuses what it always refused."""
    try:
        data = _FAST_ENCODER.encode(value)
        if _FAST_DECODER.decode(data) == value:
            return data.decode()
    except (TypeError, ValueError):   # a lone surrogate is a UnicodeEncodeError, a ValueError
        pass
    try:
        text = _ENCODER.encode(value)
    except (TypeError, ValueError) as exc:
        raise StoreError("bad-value", f"Cannot store {what} as JSON: {exc}.") from None
    _check_utf8(what, text)
    return text


def _plain_dumps(value: Any, what: str) -> str:
    """``value``, which holds only JSON's own values (``Store.record``'s ``plain``), as JSON text:
    msgspec's, without `_dumps`' read-back. The read-back decoded every move's event a second time
    and compared the two, 0.85 of `_dumps`' 1.35 µs a move warm; for such a value msgspec's text
    is what ``json`` writes. A lone surrogate, which
    msgspec refuses, still goes to `_dumps` and is refused there."""
    try:
        return _FAST_ENCODER.encode(value).decode()
    except (TypeError, ValueError):
        return _dumps(value, what)
