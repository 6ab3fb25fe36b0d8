"""The durable history: sessions, users, rooms, seats, moves, events and results in one SQLite file.

Why it looks like this:

- A move is acknowledged only after its row is committed, so every ``record()`` waits for a COMMIT.
  One COMMIT per move would make the disk's sync rate the server's move rate; instead every write
  goes through one writer task that batches the calls arriving within ``group_window`` seconds (and
  those that arrive while a commit is in flight) into a single transaction -- group commit. Each
  caller's future is resolved after that COMMIT; if it fails, every caller in it gets a StoreError.
  The window is waited only when the last transaction held more than one write: a lone room (no
  one to share with) commits at once instead of paying the window on every move.
- ``synchronous=FULL`` by default: in WAL mode, NORMAL already survives the process being killed (the
  WAL is in the OS's cache), but a power cut or kernel crash can lose the last commits -- moves the
  players were told were played. FULL syncs the WAL at each commit, and group commit shares that sync
  among all the rooms in the batch, which is what makes FULL affordable. NORMAL is available for
  machines where losing the last moments on power loss is acceptable.
- Writes go through one connection (the writer, ``writer.py``: a whole transaction is one trip to
  its thread), reads through another (aiosqlite): a read never sees the uncommitted half of a
  batch, and WAL lets it run while the writer commits.
- The store checks what it can before a write joins a batch (room exists, version grows, JSON-able
  values, free user name), so one caller's mistake fails that caller alone, not the whole batch.
  It keeps each room's version and move count in memory for this; it assumes it is the only process
  writing the file.
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
import time
from dataclasses import dataclass
from typing import Any, Protocol

import aiosqlite
import msgspec

from .writer import SCHEMA_VERSION, SchemaTooNew, Writer


class CommitObserver(Protocol):
    """Told of every group commit (the server's metrics)."""

    def committed(self, writes: int, seconds: float) -> None: ...

    def commit_failed(self) -> None: ...


# The writes a batch may hold, in the order a batch runs them (a room before its seats and events,
# a move before its rescission). Statements of one kind run together with executemany.
_WRITES: dict[str, str] = {
    "user": "INSERT INTO users (name, password_hash, created_at) VALUES (?, ?, ?)",
    "session": "INSERT INTO sessions (token, name, user, created_at) VALUES (?, ?, ?, ?)"
               " ON CONFLICT (token) DO UPDATE SET name = excluded.name, user = excluded.user",
    "room": "INSERT INTO rooms (room_id, settings, owner, invite, version, created_at, updated_at)"
            " VALUES (?, ?, ?, ?, 0, ?, ?)",
    "seat": "INSERT INTO seats (room_id, seat, token) VALUES (?, ?, ?)"
            " ON CONFLICT (room_id, seat) DO UPDATE SET token = excluded.token",
    "event": "INSERT INTO events (room_id, version, body) VALUES (?, ?, ?)",
    "move": "INSERT INTO moves (room_id, idx, seat, move, seq, version) VALUES (?, ?, ?, ?, ?, ?)",
    "rescind": "UPDATE moves SET rescinded = 1 WHERE room_id = ? AND idx = ?",
    "room_state": "UPDATE rooms SET version = ?, updated_at = ?, clocks = coalesce(?, clocks) WHERE room_id = ?",
    "result": "INSERT INTO results (room_id, body, finished_at) VALUES (?, ?, ?)"
              " ON CONFLICT (room_id) DO UPDATE SET body = excluded.body, finished_at = excluded.finished_at",
}
_ORDER = {kind: i for i, kind in enumerate(_WRITES)}


class StoreError(Exception):
    """Every error the store raises. ``code`` is stable for programs; the message is for people.

    Codes: ``name-taken``, ``room-exists``, ``no-room``, ``stale-version``, ``bad-rescission``,
    ``bad-value``, ``commit-failed``, ``closed``, ``schema-too-new``.
    """

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message

    def __str__(self) -> str:
        return f"{self.message} [{self.code}]"


@dataclass
class _Write:
    """One caller's share of a batch."""

    statements: list[tuple[str, tuple]]
    future: asyncio.Future
    room: str | None = None


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

    def __init__(self, writer: Writer, reader: aiosqlite.Connection,
                 group_window: float, max_batch: int) -> None:
        self._db = writer
        self._reader = reader
        self._window = group_window
        self._max_batch = max_batch
        self._pending: list[_Write] = []
        self._wake = asyncio.Event()
        self._closing = False
        self._rooms: dict[str, _Room] = {}
        self._users_reserved: set[str] = set()
        self.stats = _Stats()
        self.observer: CommitObserver | None = None
        self._task = asyncio.create_task(self._run(), name="store-writer")

    @classmethod
    async def open(cls, path: str, *, group_window: float = 0.002, max_batch: int = 1000,
                   synchronous: str = "FULL") -> Store:
        """Open (creating and migrating as needed) the store at ``path``.

        ``max_batch`` bounds one transaction; ``max_batch=1`` gives one transaction per write (the
        baseline the benchmark compares group commit with).
        """
        if synchronous not in ("FULL", "NORMAL"):
            raise StoreError("bad-value", f"synchronous must be FULL or NORMAL, not {synchronous!r}.")
        if group_window < 0 or max_batch < 1:
            raise StoreError("bad-value", "group_window must be >= 0 and max_batch >= 1.")
        try:
            writer = await Writer.open(path, synchronous)
        except SchemaTooNew as exc:
            raise StoreError("schema-too-new", f"The database has schema version {exc.found}; this polygo "
                                               f"knows up to {SCHEMA_VERSION}. Upgrade polygo.") from None
        try:
            reader = await aiosqlite.connect(path, isolation_level=None)
        except BaseException:
            await writer.close()
            raise
        try:
            await reader.execute("PRAGMA query_only = 1")
            await reader.execute("PRAGMA busy_timeout = 5000")
        except BaseException:
            await reader.close()
            await writer.close()
            raise
        return cls(writer, reader, group_window, max_batch)

    @property
    def pending(self) -> int:
        """Writes waiting for the next group commit."""
        return len(self._pending)

    async def close(self) -> None:
        """Commit what is queued, then close; later calls raise StoreError("closed")."""
        if self._closing:
            return
        self._closing = True
        self._wake.set()
        await self._task
        await self._db.close()
        await self._reader.close()

    # -- sessions and users ----------------------------------------------------------------------

    async def put_session(self, token: str, name: str, user: str | None = None) -> None:
        _check_text("token", token)
        _check_text("name", name)
        _check_text("user", user, optional=True)
        await self._write([("session", (token, name, user, time.time()))])

    async def get_session(self, token: str) -> dict | None:
        row = await self._one("SELECT token, name, user FROM sessions WHERE token = ?", (token,))
        return None if row is None else {"token": row[0], "name": row[1], "user": row[2]}

    async def put_user(self, name: str, password_hash: str) -> None:
        """Register ``name``; StoreError("name-taken") if it is registered (or being registered)."""
        self._check_open()
        _check_text("name", name)
        _check_text("password_hash", password_hash)
        taken = StoreError("name-taken", f"The name {name!r} is already registered.")
        if name in self._users_reserved:
            raise taken
        self._users_reserved.add(name)
        try:
            if await self._one("SELECT 1 FROM users WHERE name = ?", (name,)) is not None:
                raise taken
            await self._write([("user", (name, password_hash, time.time()))])
        finally:
            self._users_reserved.discard(name)

    async def get_user(self, name: str) -> dict | None:
        row = await self._one("SELECT name, password_hash FROM users WHERE name = ?", (name,))
        return None if row is None else {"name": row[0], "password_hash": row[1]}

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
        if await self._one("SELECT 1 FROM rooms WHERE room_id = ?", (room_id,)) is not None:
            del self._rooms[room_id]
            raise exists
        now = time.time()
        await self._write([("room", (room_id, body, owner, invite, now, now))], room=room_id)

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
                     result: dict | None = None) -> None:
        """Durably store one change of a room: its event, and the move, rescissions, clocks and
        result that came with it. Returns once the batch holding it is committed.

        ``rescinded`` may name this record's own move (the pass that triggers a rescission is itself
        rescinded): its number is the room's move count before this call.
        """
        room = await self._room(room_id)
        _check_int("version", version)
        if version <= room.version:
            raise StoreError("stale-version", f"Room {room_id!r} is at version {room.version}; "
                                              f"a new event needs a higher one, not {version!r}.")
        now = time.time()
        statements: list[tuple[str, tuple]] = [("event", (room_id, version, _dumps(event, "the event")))]
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
        bad = [i for i in rescinded if not (_is_int(i) and i < moves)]
        if bad:
            raise StoreError("bad-rescission", f"Room {room_id!r} has moves 0 to {moves - 1}; "
                                               f"it cannot rescind {bad}.")
        statements += [("rescind", (room_id, i)) for i in rescinded]
        clocks_text = None if clocks is None else _dumps(clocks, "the clocks")
        statements.append(("room_state", (version, now, clocks_text, room_id)))
        if result is not None:
            statements.append(("result", (room_id, _dumps(result, "the result"), now)))
        room.version, room.moves = version, moves
        await self._write(statements, room=room_id)

    # -- reading -----------------------------------------------------------------------------------

    async def events_since(self, room_id: str, version: int) -> list[dict]:
        """The room's events with a version above ``version``, oldest first."""
        rows = await self._all("SELECT body FROM events WHERE room_id = ? AND version > ? ORDER BY version",
                               (room_id, version))
        return [json.loads(body) for (body,) in rows]

    async def unfinished_rooms(self) -> list[dict]:
        """Every room without a result, with what a restart needs to rebuild it: settings, seats,
        all moves in order as ``[seat, move, seq, version]`` (replaying them reproduces the
        rescissions; seq and version re-acknowledge a resent move), clocks, version."""
        unfinished = "SELECT room_id FROM rooms WHERE room_id NOT IN (SELECT room_id FROM results)"
        rooms = await self._all(
            "SELECT room_id, settings, owner, invite, version, clocks, created_at, updated_at FROM rooms"
            f" WHERE room_id IN ({unfinished}) ORDER BY created_at, room_id")
        seats: dict[str, dict[int, str | None]] = {}
        for room_id, seat, token in await self._all(
                f"SELECT room_id, seat, token FROM seats WHERE room_id IN ({unfinished}) ORDER BY room_id, seat"):
            seats.setdefault(room_id, {})[seat] = token
        moves: dict[str, list[list[Any]]] = {}
        for room_id, seat, move, seq, version, rescinded in await self._all(
                "SELECT room_id, seat, move, seq, version, rescinded FROM moves"
                f" WHERE room_id IN ({unfinished}) ORDER BY room_id, idx"):
            moves.setdefault(room_id, []).append([seat, move, seq, version, bool(rescinded)])
        out = []
        for room_id, settings, owner, invite, version, clocks, created_at, updated_at in rooms:
            played = moves.get(room_id, [])
            out.append({
                "room_id": room_id, "settings": json.loads(settings), "owner": owner, "invite": invite,
                "seats": seats.get(room_id, {}),
                "moves": [m[:4] for m in played], "rescinded": [i for i, m in enumerate(played) if m[4]],
                "clocks": None if clocks is None else json.loads(clocks),
                "version": version, "created_at": created_at, "updated_at": updated_at,
            })
        return out

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
            " (SELECT count(*) - 2 * coalesce(sum(m.move = 'undo'), 0) FROM moves m WHERE m.room_id = r.room_id)"
            " FROM results f JOIN rooms r USING (room_id)"
            + (" WHERE r.invite IS NULL" if public else "") +
            " ORDER BY f.finished_at DESC, r.room_id LIMIT ? OFFSET ?", (limit, offset))
        out = []
        for room_id, settings, created_at, result, finished_at, moves in rows:
            seats, names = await self._seats(room_id)
            out.append({"room_id": room_id, "settings": json.loads(settings), "seats": seats,
                        "names": names, "result": json.loads(result), "moves": moves,
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
        seats, names = await self._seats(room_id)
        return {
            "room_id": room_id, "settings": json.loads(settings), "owner": owner, "invite": invite,
            "seats": seats, "names": names,
            "moves": moves, "rescinded": [i for i, m in enumerate(moves) if m[3]],
            "clocks": None if clocks is None else json.loads(clocks), "version": version,
            "result": None if result is None else json.loads(result),
            "created_at": created_at, "finished_at": finished_at,
        }

    # -- the writer --------------------------------------------------------------------------------

    async def _write(self, statements: list[tuple[str, tuple]], *, room: str | None = None) -> None:
        self._check_open()
        future = asyncio.get_running_loop().create_future()
        self._pending.append(_Write(statements, future, room))
        self._wake.set()
        await future

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
            started = time.perf_counter()
            try:
                await self._commit(batch)
            except Exception as exc:  # noqa: BLE001 -- every failure is handed to the callers
                self._fail(batch, exc)
                if self.observer is not None:
                    self.observer.commit_failed()
            else:
                if self.observer is not None:
                    self.observer.committed(len(batch), time.perf_counter() - started)
                self.stats.transactions += 1
                self.stats.writes += len(batch)
                self.stats.largest_batch = max(self.stats.largest_batch, len(batch))
                for write in batch:
                    if not write.future.done():
                        write.future.set_result(None)

    async def _commit(self, batch: list[_Write]) -> None:
        statements = sorted((s for w in batch for s in w.statements), key=lambda s: _ORDER[s[0]])
        await self._db.transaction((_WRITES[kind], [params for _, params in group])
                                   for kind, group in itertools.groupby(statements, key=lambda s: s[0]))

    def _fail(self, batch: list[_Write], exc: Exception) -> None:
        """Fail the batch's callers, forget what they reserved, and fail queued writes that were
        checked against those reservations."""
        rooms = {w.room for w in batch if w.room is not None}
        for room in rooms:
            self._rooms.pop(room, None)
        doomed = batch + [w for w in self._pending if w.room in rooms]
        self._pending = [w for w in self._pending if w.room not in rooms]
        self.stats.failed += 1
        for write in doomed:
            if not write.future.done():
                error = StoreError("commit-failed", f"The store could not commit: {exc}.")
                error.__cause__ = exc
                write.future.set_exception(error)

    # -- helpers -----------------------------------------------------------------------------------

    def _check_open(self) -> None:
        if self._closing:
            raise StoreError("closed", "The store is closed.")

    async def _room(self, room_id: str) -> _Room:
        """The room's version and move count, loaded from the file the first time it is needed."""
        self._check_open()
        room = self._rooms.get(room_id)
        if room is not None:
            return room
        row = await self._one("SELECT version, (SELECT count(*) FROM moves WHERE room_id = ?)"
                              " FROM rooms WHERE room_id = ?", (room_id, room_id))
        if row is None:
            raise StoreError("no-room", f"There is no room {room_id!r}.")
        return self._rooms.setdefault(room_id, _Room(version=row[0], moves=row[1]))

    async def _seats(self, room_id: str) -> tuple[dict[int, str | None], dict[int, str | None]]:
        """The room's seats as {seat: token} and {seat: the session's name}."""
        rows = await self._all("SELECT seat, token, name FROM seats LEFT JOIN sessions USING (token)"
                               " WHERE room_id = ? ORDER BY seat", (room_id,))
        return {seat: token for seat, token, _ in rows}, {seat: name for seat, _, name in rows}

    async def _moves(self, room_id: str) -> list[list[Any]]:
        rows = await self._all("SELECT seat, move, seq, rescinded FROM moves WHERE room_id = ? ORDER BY idx",
                               (room_id,))
        return [[seat, move, seq, bool(rescinded)] for seat, move, seq, rescinded in rows]

    async def _one(self, sql: str, params: tuple) -> tuple | None:
        self._check_open()
        async with self._reader.execute(sql, params) as cursor:
            return await cursor.fetchone()

    async def _all(self, sql: str, params: tuple = ()) -> list[tuple]:
        self._check_open()
        return list(await self._reader.execute_fetchall(sql, params))


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
    (every move's event is stored: 14 µs became 4, issue 13); its text is kept when it reads back as
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
