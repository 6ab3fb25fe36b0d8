"""A room's rows: ``rooms`` (version, clocks, deadline, turn, owner), ``room_settings`` (written
once: every change rewrites the room's row, and a graph's settings are tens of KiB), ``seats``,
``moves``, ``events`` and ``results``; what a room in play writes, and what a restart or a
takeover reads to rebuild it.

Moves are numbered per room from 0 in the order recorded, the same order as ``Game.history``:
``rescinded`` names moves by that number. Per room, callers await ``record()`` before the next one
(the room, one request at a time, does), so the numbering and the versions follow the game.
"""

from __future__ import annotations

import json
import math
import time
from typing import Any

from ..commits import GroupCommit, RoomCounters
from ..errors import StoreError
from ..values import Step
from ..values import check_int, check_text, dumps, is_int, plain_dumps

WRITES: dict[str, str] = {
    "room": "INSERT INTO rooms (room_id, owner, invite, version, created_at, updated_at) VALUES (?, ?, ?, 0, ?, ?)",
    "room_settings": "INSERT INTO room_settings (room_id, settings) VALUES (?, ?)",
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
    "drop_seats": "DELETE FROM seats WHERE room_id = ?",
    "drop_room": "DELETE FROM rooms WHERE room_id = ? AND NOT EXISTS (SELECT 1 FROM moves WHERE room_id = ?)",
    "drop_settings": "DELETE FROM room_settings WHERE room_id = ?"
                     " AND NOT EXISTS (SELECT 1 FROM rooms WHERE room_id = ?)",
}


class RoomQueries(GroupCommit):
    """The store's queries of a room's rows, in play and at a restart."""

    async def create_room(self, room_id: str, settings: dict, *, owner: str, invite: str | None) -> None:
        """Store a new room at version 0; StoreError("room-exists") if the id is in use."""
        self._check_open()
        check_text("room_id", room_id)
        check_text("owner", owner)
        check_text("invite", invite, optional=True)
        exists = StoreError("room-exists", f"There is already a room {room_id!r}.")
        if room_id in self._rooms:
            raise exists
        body = dumps(settings, "room settings")
        self._rooms[room_id] = RoomCounters(version=0, moves=0)
        try:
            taken = await self._one("SELECT 1 FROM rooms WHERE room_id = ?", (room_id,)) is not None
        except BaseException:
            del self._rooms[room_id]
            raise
        if taken:
            del self._rooms[room_id]
            raise exists
        now = time.time()
        statements = [("room", (room_id, owner, invite, now, now)), ("room_settings", (room_id, body))]
        if self.lease is not None:
            statements.append(("own", (self.lease.node_id, self.epoch, room_id)))
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
                           ("drop_room", (room_id, room_id)), ("drop_settings", (room_id, room_id))], room=room_id)
        self._rooms.pop(room_id, None)
        self._owned.discard(room_id)

    async def set_seat(self, room_id: str, seat: int, token: str | None) -> None:
        """Bind ``seat`` to the session ``token``, or free it with None."""
        await self._room(room_id)
        check_int("seat", seat)
        check_text("token", token, optional=True)
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
        by construction and is stored without `dumps`' read-back (``values.plain_dumps``).

        ``step`` runs in the same transaction, after the batch's statements: the rating update of
        the game this record ends (``ratings.update_step``).
        """
        room = self._rooms.get(room_id)
        if room is None or self._closing:   # a room in memory without `_room`'s coroutine
            room = await self._room(room_id)
        check_int("version", version)
        if version <= room.version:
            raise StoreError("stale-version", f"Room {room_id!r} is at version {room.version}; "
                                              f"a new event needs a higher one, not {version!r}.")
        now = time.time()
        chat_at = now if event.get("kind") == "chat" else None
        body = plain_dumps(event, "the event") if plain else dumps(event, "the event")
        statements: list[tuple[str, tuple]] = [("event", (room_id, version, body, chat_at))]
        moves = room.moves
        if move is not None:
            if not isinstance(move, (tuple, list)) or len(move) != 3:
                raise StoreError("bad-value", f"A move is (seat, move string, client seq), not {move!r}.")
            seat, text, seq = move
            check_int("move seat", seat)
            check_text("move", text)
            check_int("seq", seq, optional=True)
            statements.append(("move", (room_id, moves, seat, text, seq, version)))
            moves += 1
        if rescinded:   # most records rescind nothing: no comprehension (a function call in 3.11) then
            bad = [i for i in rescinded if not (is_int(i) and i < moves)]
            if bad:
                raise StoreError("bad-rescission", f"Room {room_id!r} has moves 0 to {moves - 1}; "
                                                   f"it cannot rescind {bad}.")
            statements += [("rescind", (room_id, i)) for i in rescinded]
        clocks_text = None if clocks is None else dumps(clocks, "the clocks")
        if deadline is not None and not (isinstance(deadline, float) and math.isfinite(deadline)):
            raise StoreError("bad-value", f"A deadline is a finite float (a time.time()), not {deadline!r}.")
        statements.append(("room_state", (version, now, clocks_text, clocks is not None, deadline,
                                            "to_move" in event, event.get("to_move"), room_id)))
        if result is not None:
            statements.append(("result", (room_id, dumps(result, "the result"), now)))
        # raises, reserving nothing, while it cannot be written; the benches stand in for `_write`
        # with (statements, room)
        written = self._write(statements, room_id) if step is None else self._write(statements, room_id, step)
        room.version, room.moves = version, moves
        await written

    async def events_since(self, room_id: str, version: int) -> list[dict]:
        """The room's events with a version above ``version``, oldest first."""
        rows = await self._all("SELECT body FROM events WHERE room_id = ? AND version > ? ORDER BY version",
                               (room_id, version))
        return [json.loads(body) for (body,) in rows]

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
            "SELECT room_id, c.settings, owner, invite, version, clocks, created_at, updated_at, deadline"
            f" FROM rooms JOIN room_settings c USING (room_id) WHERE room_id IN ({unfinished})"
            " ORDER BY created_at, room_id", params)
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
        rooms = await self._all(f"SELECT room_id, {players} FROM rooms JOIN room_settings USING (room_id)"
                                f" WHERE {unfinished} ORDER BY created_at, room_id")
        seats: dict[str, dict[int, tuple[str, str | None]]] = {}
        for room_id, seat, token, user in await self._all(
                'SELECT s.room_id, s.seat, s.token, x."user" FROM seats s LEFT JOIN sessions x USING (token)'
                f" WHERE s.token IS NOT NULL AND s.{unfinished}"):
            seats.setdefault(room_id, {})[seat] = (token, user)
        return [{"room_id": room_id, "players": players, "seats": seats.get(room_id, {})}
                for room_id, players in rooms]

    async def overdue(self, now: float, limit: int = 100) -> list[str]:
        """Unfinished rooms whose calendar clock's deadline is at or before ``now`` (a time.time()),
        the most overdue first: what the deadline sweeper times out (polygo/server/rooms/deadlines.py)."""
        rows = await self._all("SELECT room_id FROM rooms r WHERE deadline <= ? AND NOT EXISTS"
                               " (SELECT 1 FROM results f WHERE f.room_id = r.room_id) ORDER BY deadline LIMIT ?",
                               (now, limit))
        return [room_id for (room_id,) in rows]
