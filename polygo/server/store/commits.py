"""The store's commit engine: every write of the store goes through one group commit.

Why it looks like this:

- A move is acknowledged only after its row is committed, so every write waits for a COMMIT.
  One COMMIT per move would make the disk's sync rate the server's move rate; instead every write
  goes through one writer task that batches the calls arriving within ``group_window`` seconds (and
  those that arrive while a commit is in flight) into a single transaction -- group commit. Each
  caller's future is resolved after that COMMIT. If it fails, the batch is tried again with each
  room's writes under a savepoint of their own: one room's bad write fails that room's callers
  only, never its neighbours' (a lost connection or a fence fails them all: nothing committed).
  The window is waited only when the last transaction held more than one write: a lone room (no
  one to share with) commits at once instead of paying the window on every move.
- A write is a list of (kind, params): ``kind`` names a statement of ``WRITES``, which the store
  composes from its tables' modules in the order a batch runs them (a room before its seats and
  events, a move before its rescission); statements of one kind run together with executemany.
- The queries check what they can before a write joins a batch (room exists, version grows,
  JSON-able values, free user name), so one caller's mistake fails that caller alone, not the whole
  batch. This engine keeps each room's version and move count in memory for them (``_room``); it
  assumes it is the only process writing the room (one server per SQLite file; in a cluster, the
  room's owner node). Counters are read only once the room's writes in flight are answered
  (``_settled``), so never from a snapshot older than this process's own commits.
- In a cluster the database, not this memory, decides who writes a room: each transaction writes
  only the rooms whose owner is this node at its epoch at COMMIT (``postgres.py``, ``lease.OWNED``);
  the others' writes are left out, answered ``not-owner`` and the rooms dropped (``on_lost``). A
  lease found gone fences the node (``on_fenced``): every room is let go.
- A database that cannot be reached (a PostgreSQL restart, a failover) fails the writes in hand
  with ``Unavailable``; the store is then down (``down_since``): writes are refused at once while
  a task reconnects with backoff (``_heal``), and the lease is renewed as soon as it has.

The table modules (``tables/sessions.py``, ``tables/rooms.py``, ...) subclass `GroupCommit` and build
on ``_write`` (queue statements, await the commit), ``_one``/``_all`` (reads, which never see an
uncommitted batch) and ``_room`` (a room's counters); the package (``__init__.py``) composes them into `Store`.
"""

from __future__ import annotations

import asyncio
import logging
import random
import time
from dataclasses import dataclass
from typing import Any, Awaitable, Callable, ClassVar, Collection, Iterable, Protocol, Sequence

from ..ops.logs import event
from .errors import StatementFailed, StoreError, Unavailable
from .lease import Fenced, Lease
from .values import Step

log = logging.getLogger("polygo.store")

HEAL_FIRST, HEAL_CAP = 0.1, 1.0
"""Seconds between tries to reach a lost database: doubling from the first to the cap, jittered."""


class Database(Protocol):
    """What the store needs of a database: a transaction of batched statements (SQLite's ``?``
    placeholders) in parts, each under a savepoint when there are several, writing only the
    ``rooms`` this node owns (it returns the others, refused); reads that never see an
    uncommitted batch; close. ``sqlite.py`` and ``postgres.py`` are the two."""

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


@dataclass
class _Write:
    """One caller's share of a batch."""

    statements: list[tuple[str, tuple]]
    future: asyncio.Future
    room: str | None = None
    step: Step | None = None


@dataclass
class RoomCounters:
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


class GroupCommit:
    """The writer task, its batches and their failures, the store's down and fenced states, and
    the rooms' counters. `Store` is this with the queries of every table."""

    WRITES: ClassVar[dict[str, str]] = {}
    """Every statement a write may name, by kind, in the order a batch runs them."""

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
        self._rooms: dict[str, RoomCounters] = {}
        self._owned: set[str] = set()          # cluster mode: the rooms this node created or claimed
        self.stats = _Stats()
        self.observer: CommitObserver | None = None
        self._task = asyncio.create_task(self._run(), name="store-writer")
        self._keeper = None if self.lease is None else asyncio.create_task(self._keep_lease(), name="lease-keeper")
        self._order = {kind: i for i, kind in enumerate(self.WRITES)}

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

    async def query(self, sql: str, params: tuple = ()) -> list[tuple]:
        """Rows of a read-only query (SQLite's ``?`` placeholders) for the modules that own their
        tables' queries (``pool_store.py``); like every read here, it never sees an uncommitted batch."""
        return await self._all(sql, params)

    async def run_step(self, step: Step) -> None:
        """Run a step (``values.Step``: statements that depend on rows read in the same
        transaction) in the next group commit; returns once it is committed."""
        await self._write([], None, step)

    # -- the writer --------------------------------------------------------------------------------

    def _write(self, statements: list[tuple[str, tuple]], room: str | None = None,
               step: Step | None = None) -> asyncio.Future:
        """Queue a write for the next batch; its future is resolved once the batch is committed.
        Not a coroutine: the caller awaits the future itself, so no coroutine is made, run and freed
        for every move."""
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
            await asyncio.sleep(0)     # the callers answered send their events before the next rows hold the loop

    async def _commit(self, batch: list[_Write]) -> dict[int, Exception] | None:
        """Commit the batch; the writes that failed alone (by id), if any: those of rooms the
        database refused (owned elsewhere), or, once the batch as a whole failed, those of rooms
        whose part failed when each room's writes were tried under a savepoint of their own."""
        rooms = self._guarded(batch) if self.lease is not None else ()
        try:
            refused, _ = await self._db.transaction(
                lambda refused: [self._groups([w for w in batch if w.room not in refused] if refused else batch)], rooms,
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
        stepped = [w for w in batch if w.step is not None]
        batch = [w for w in batch if w.step is None]
        parts: dict[Any, list[_Write]] = {}

        def build(refused: set[str]) -> list[list[tuple[str, Sequence[tuple]]]]:
            parts.clear()
            for write in batch:
                if write.room not in refused:
                    parts.setdefault(id(write) if write.room is None else write.room, []).append(write)
            return [self._groups(writes) for writes in parts.values()]

        refused, errors = await self._db.transaction(build, rooms)
        failed = self._refused(batch, refused) if refused else {}
        _log_failure(stepped, cause)
        failed.update((id(w), StoreError("commit-failed", f"The store could not commit: {cause}.")) for w in stepped)
        broken: set[str] = set()
        for writes, error in zip(parts.values(), errors):
            if error is None:
                continue
            _log_failure(writes, error)
            failure = StoreError("commit-failed", f"The store could not commit: {error}.")
            failure.__cause__ = error
            failed.update((id(w), failure) for w in writes)
            if writes[0].room is not None:
                broken.add(writes[0].room)
        if broken:
            self._forget_rooms(broken, StoreError("commit-failed", f"An earlier write of the room failed: {cause}."))
            self._count_failed((), cause)
        return failed

    def _groups(self, writes: Iterable[_Write]) -> list[tuple[str, list[tuple]]]:
        """The writes' statements as (sql, rows) in a batch's order, one executemany a kind."""
        rows: dict[str, list[tuple]] = {}
        for write in writes:
            for kind, params in write.statements:
                if kind in rows:
                    rows[kind].append(params)
                else:
                    rows[kind] = [params]
        return [(self.WRITES[kind], rows[kind]) for kind in sorted(rows, key=self._order.__getitem__)]

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
        _log_failure(batch, exc)
        self._forget_rooms({w.room for w in batch if w.room is not None}, error)
        self._count_failed(batch, error)

    def _unreachable(self, batch: list[_Write], exc: Unavailable) -> None:
        """The database cannot be reached: nothing of the batch committed, and nothing queued can
        be now. Fail them all (their rooms' counters are read again once it is back) and heal."""
        doomed, self._pending = batch + self._pending, []
        for write in doomed:
            if write.room is not None:
                self._rooms.pop(write.room, None)
        self._count_failed(doomed, exc)
        self._went_down(exc)

    def _count_failed(self, writes: Iterable[_Write], error: Exception) -> None:
        """A commit failed: count it (the metrics), and fail the writes' callers still waiting."""
        self.stats.failed += 1
        if self.observer is not None:
            self.observer.commit_failed()
        for write in writes:
            if not write.future.done():
                write.future.set_exception(error)

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

    async def _room(self, room_id: str) -> RoomCounters:
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

    async def _load_room(self, room_id: str) -> RoomCounters:
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
        return self._rooms.setdefault(room_id, RoomCounters(version=row[0], moves=row[1]))

    async def _settled(self, room_id: str) -> None:
        """Until every write of the room queued or being committed is answered."""
        waiting = [w.future for w in (*self._inflight, *self._pending) if w.room == room_id]
        if waiting:
            await asyncio.gather(*waiting, return_exceptions=True)

    async def _one(self, sql: str, params: tuple) -> tuple | None:
        """The first row of a read, or None."""
        return await self._read(self._db.one, sql, params)

    async def _all(self, sql: str, params: tuple = ()) -> list[tuple]:
        """Every row of a read."""
        return await self._read(self._db.all, sql, params)

    async def _read(self, read: Callable[[str, tuple], Awaitable[Any]], sql: str, params: tuple) -> Any:
        """A read on the database's reading connections; one that finds it unreachable starts healing."""
        self._check_open()
        try:
            return await read(sql, params)
        except Unavailable as exc:
            self._went_down(exc)
            raise


def _log_failure(writes: Iterable[_Write], error: BaseException) -> None:
    """A `database-error` event for each room whose writes failed (`room` null for writes of no
    room: a session, a user), with the kind of statement the database refused, when it says
    (`StatementFailed`), and why: the room an operator asks about is a field, not a sentence."""
    statement = error.statement if isinstance(error, StatementFailed) else None
    for room in dict.fromkeys(w.room for w in writes):
        event("database-error", logging.ERROR, room=room, statement=statement, cause=str(error))
