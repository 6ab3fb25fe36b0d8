"""A room's window of its latest events, kept in memory for a reconnect's resync.

A resync (`watch` with `since`, docs/protocol.md) is answered with the events the client missed
when there are at most `Config.resync_events` of them; the room answers from this window what it
holds, the store the rest. The window keeps each event as the msgpack bytes its broadcast sent
(`Room._commit` says why not its map), for consecutive versions, so one version number and the
bytes are all it holds of each: a (version, bytes) pair would cost every event a tuple more.

It is bounded by count (`Config.resync_events`) and by bytes (`Config.resync_bytes`): by count
alone, 256 events are most of a 19x19 room's memory (`bench/room_memory.py`), and events have no
fixed size (a chat line, an analysis' variation, the prohibited points and kos of a large board).
"""

from __future__ import annotations

from collections import deque
from itertools import islice


class EventWindow:
    """The latest events of a room, oldest first, each the msgpack bytes of its `event` message."""

    __slots__ = ("_packed", "_first", "_size", "_count", "_budget")

    def __init__(self, count: int, budget: int) -> None:
        """At most `count` events and `budget` bytes of them."""
        self._packed: deque[bytes] = deque()
        self._first = 0
        """The version of the oldest event held."""
        self._size = 0
        """Bytes held: the sum of the events' lengths."""
        self._count = count
        self._budget = budget

    def __len__(self) -> int:
        return len(self._packed)

    @property
    def size(self) -> int:
        """The bytes of the events held."""
        return self._size

    def append(self, version: int, packed: bytes) -> None:
        """Keep the event of `version`, the one after the newest held (the window then starts
        there otherwise), dropping the oldest beyond either bound: an event over the whole budget
        is not kept at all."""
        held = self._packed
        if version != self._first + len(held) or not held:
            held.clear()
            self._first, self._size = version, 0
        held.append(packed)
        size = self._size + len(packed)
        while size > self._budget or len(held) > self._count:
            size -= len(held.popleft())
            self._first += 1
        self._size = size

    def since(self, version: int) -> list[bytes] | None:
        """The events after `version`, oldest first, if the window holds all of them (none
        missing between `version` and its oldest); else None."""
        if not self._packed or self._first > version + 1:
            return None
        return list(islice(self._packed, max(version + 1 - self._first, 0), None))

    def forget(self, through: int) -> None:
        """Drop the events up to version `through`, so that a resync over them is not answered
        from here (a chat line there was deleted)."""
        held = self._packed
        while held and self._first <= through:
            self._size -= len(held.popleft())
            self._first += 1
