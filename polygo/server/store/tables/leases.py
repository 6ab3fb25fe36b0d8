"""Cluster mode's ownership of rooms (``lease.py``, ``docs/cluster.md``): claiming a room, the
rooms no live node owns, letting every room go, and joining again after a fence. The lease itself is
renewed inside every group commit (``commits.py``, ``postgres.py``).
"""

from __future__ import annotations

from ..commits import GroupCommit
from ..errors import Unavailable

WRITES: dict[str, str] = {
    "release": "UPDATE rooms SET owner_node = NULL, owner_epoch = NULL WHERE owner_node = ? AND owner_epoch = ?",
}


class LeaseQueries(GroupCommit):
    """The store's queries of rooms' owners and the node's lease."""

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

