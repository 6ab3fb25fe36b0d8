"""Reading games back: one game's whole record, the finished games, the public rooms, and the
games a player holds a seat in; each joins ``rooms`` with its ``seats`` (and their sessions' names),
``moves`` and ``results``.
"""

from __future__ import annotations

import json
from typing import Any

from ..commits import GroupCommit
from ..errors import StoreError


class GameQueries(GroupCommit):
    """The store's queries of stored games, for listings, records and resends."""

    async def finished_seats(self, room_id: str) -> dict | None:
        """A finished room's settings, invite and seats as {seat: (token, user)}, or None (no such
        room, or not finished): who may have a move of it acknowledged again (polygo/server/rooms/resends.py)."""
        row = await self._one("SELECT c.settings, r.invite FROM rooms r JOIN results f USING (room_id)"
                              " JOIN room_settings c USING (room_id) WHERE r.room_id = ?", (room_id,))
        if row is None:
            return None
        seats, _, users = await self._seats(room_id)
        return {"settings": json.loads(row[0]), "invite": row[1],
                "seats": {int(seat): (token, users[seat]) for seat, token in seats.items()}}

    async def held_games(self, token: str, user: str | None, limit: int) -> list[dict]:
        """The unfinished rooms where the session ``token`` or the registered ``user`` holds a
        seat (at most ``limit``), each with its settings, version, seat held, the seat to move
        (``turn``), the calendar deadline and its seats as `_seats_of` gives them."""
        tokens = "?" if user is None else 'SELECT ? UNION SELECT token FROM sessions WHERE "user" = ?'
        rows = await self._all(
            "SELECT r.room_id, c.settings, r.version, r.turn, r.deadline, min(s.seat) FROM seats s"
            f" JOIN rooms r USING (room_id) JOIN room_settings c USING (room_id) WHERE s.token IN ({tokens})"
            " AND NOT EXISTS (SELECT 1 FROM results f WHERE f.room_id = s.room_id)"
            " GROUP BY r.room_id, c.settings, r.version, r.turn, r.deadline ORDER BY r.room_id LIMIT ?",
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
        rows = await self._all(f"SELECT room_id, c.settings, version FROM rooms JOIN room_settings c USING (room_id)"
                               f" WHERE {listed}"
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
            "SELECT r.room_id, c.settings, r.created_at, f.body, f.finished_at,"
            " (SELECT count(*) - 2 * count(*) FILTER (WHERE m.move = 'undo') FROM moves m WHERE m.room_id = r.room_id)"
            " FROM results f JOIN rooms r USING (room_id) JOIN room_settings c USING (room_id)"
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
            "SELECT c.settings, r.owner, r.invite, r.version, r.clocks, r.created_at, f.body, f.finished_at"
            " FROM rooms r JOIN room_settings c USING (room_id) LEFT JOIN results f USING (room_id)"
            " WHERE r.room_id = ?", (room_id,))
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
