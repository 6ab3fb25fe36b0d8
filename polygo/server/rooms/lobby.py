"""The lobby: the public rooms' listing, a page at a time, from caches rather than rebuilt per request.

A listing of every public room in full, graph boards included, would be megabytes with large
boards, and would make every `list` cost the server in proportion to the lobby. So a page holds
at most `LIST_MAX` rooms; a graph board is shown by its size (`graph:N`), a client that wants the
graph watches the room. The order of the public rooms (oldest first) is kept until a room joins
or leaves it, and each room's entry is kept until the room's version or status changes, so a
`list` costs a slice and the entries of the rooms on that page.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable, Iterable

from polygo.protocol import Rooms

from .house_seats import bot_name

if TYPE_CHECKING:
    from .room import Room


def brief_settings(settings: dict[str, Any]) -> dict[str, Any]:
    """Settings as listed: a graph board by its size ("graph:N"), the rest as stored."""
    board = settings.get("board")
    if isinstance(board, dict):
        return dict(settings, board=f"graph:{len(board.get('points') or ())}")
    return settings


def listed(row: dict[str, Any]) -> dict[str, Any]:
    """A room's entry from its stored row (``Store.public_rooms``), as `Lobby` lists one in memory;
    a room is waiting until every seat is taken."""
    settings = row["settings"]
    seats = [row["seats"].get(i) for i in range(settings["players"])]
    return {"room": row["room_id"], "title": settings.get("title", ""), "settings": brief_settings(settings),
            "seats": [None if s is None or s[0] is None else bot_name(s[0], settings) or s[1] for s in seats],
            "registered": [bool(s and s[2]) for s in seats],
            "status": "playing" if all(s and s[0] for s in seats) else "waiting", "version": row["version"]}


class Lobby:
    """Pages of the public, unfinished rooms."""

    def __init__(self, rooms: Callable[[], Iterable[Room]]) -> None:
        self._rooms = rooms
        self._order: list[Room] | None = None
        self._entries: dict[str, tuple[tuple[int, str], dict[str, Any]]] = {}

    def changed(self) -> None:
        """A room was created, ended, expired or evicted: the order is built again at the next list."""
        self._order = None

    def forget(self, room_id: str) -> None:
        self._entries.pop(room_id, None)
        self._order = None

    def page(self, limit: int, offset: int) -> Rooms:
        order = self._order
        if order is None:
            order = self._order = [room for room in self._rooms() if room.invite is None and room.status != "ended"]
        rooms = [self._entry(room) for room in order[offset:offset + limit]]
        more = offset + limit < len(order)
        return Rooms(rooms=rooms, total=len(order), next=offset + limit if more else None)

    def _entry(self, room: Room) -> dict[str, Any]:
        key = (room.version, room.status)
        cached = self._entries.get(room.id)
        if cached is not None and cached[0] == key:
            return cached[1]
        entry = {"room": room.id, "title": room.settings.get("title", ""),
                 "settings": brief_settings(room.settings),
                 "seats": [s.name if s else None for s in room.seats],
                 "registered": [bool(s and s.user) for s in room.seats],
                 "status": room.status, "version": room.version}
        self._entries[room.id] = (key, entry)
        return entry
