"""This node's part in a cluster: taking rooms over, on demand and by sweeping, and letting them
all go when the node is fenced. The database side of it is ``lease.py``; docs/cluster.md tells
the whole story.

- A request for a room this node does not serve claims it (``Store.claim``): the room's owner is
  gone (killed, fenced, out of lease) or there is none, so this node replays it from the store and
  serves it from now on. While the owner's lease is live the request is answered ``moved`` with
  the owner's node id and path; if the owner's renewal is overdue (it may be paused or cut off,
  and HAProxy then answers its path 503) it is answered ``unavailable`` with the seconds left on
  that lease, so clients wait instead of bouncing between nodes.
- The sweeper claims orphaned rooms every third of a lease, so clocks run and flags fall, and bots
  play on, in rooms nobody asks for.
- A fenced node's rooms belong to other nodes already: it drops them from memory at once, closes
  its watchers' connections with 1012 (service restart: they reconnect and land on the rooms' new
  owners), joins again with a new epoch and sweeps at once. A room the database refused to the
  node (``Store.on_lost``: another node took it) is let go the same way, alone.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any, Mapping, Protocol

from polygo.protocol import ErrorCode, ProtocolError

from ..net.peer import send_elsewhere
from ..rooms.lobby import Lobby
from ..rooms.room import Room
from ..store import Store
from ..store.errors import StoreError
from ..store.lease import Fenced, OwnedElsewhere

log = logging.getLogger("polygo.cluster")

SWEEP_BATCH = 50
"""Orphans claimed per sweep: a dead node's rooms spread over the nodes sweeping at once."""

RETRY = 1.0
"""Seconds an `unavailable` asks a client to wait when the cause is this node's own (fenced, a claim race)."""

OVERDUE = 0.55
"""An owner with less than this share of its lease left has missed a renewal: it renews every
third of a lease (or sooner, with every commit), so at most two thirds are ever left to wait."""


class ClusterHost(Protocol):
    """What taking rooms over needs of the hub: its room table, and rooms brought in from a
    stored row or dropped."""

    store: Store
    draining: bool
    rooms: Mapping[str, Room]
    lobby: Lobby

    async def adopt(self, row: dict[str, Any]) -> Room | None: ...

    def forget_all(self) -> list[Room]: ...

    def forget(self, room_id: str) -> Room | None: ...


class Cluster:
    """Takes rooms over for a hub whose store holds a node lease."""

    def __init__(self, hub: ClusterHost) -> None:
        self.hub = hub
        self.store = hub.store
        self.store.on_fenced = self._fenced
        self.store.on_lost = self._lost
        self._taking: dict[str, asyncio.Future[Room]] = {}
        self._sweeper: asyncio.Task[None] | None = None
        self._rejoining: asyncio.Task[None] | None = None
        self._closing: set[asyncio.Task[None]] = set()     # rooms being let go (the loop keeps weak references)

    def start(self) -> None:
        self._sweeper = asyncio.create_task(self._sweep_forever(), name="sweeper")

    def stop(self) -> None:
        for task in (self._sweeper, self._rejoining):
            if task is not None:
                task.cancel()

    async def take(self, room_id: str) -> Room:
        """Serve the room from now on, or ProtocolError: moved, unavailable, no-such-room. Requests
        for one room arriving together share one claim; a room served here already is returned."""
        room = self.hub.rooms.get(room_id)
        if room is not None:
            return room
        pending = self._taking.get(room_id)
        if pending is None:
            pending = self._taking[room_id] = asyncio.ensure_future(self._claim(room_id))
            pending.add_done_callback(lambda _: self._taking.pop(room_id, None))
        return await asyncio.shield(pending)

    async def _claim(self, room_id: str) -> Room:
        if self.hub.draining:
            raise ProtocolError(ErrorCode.UNAVAILABLE, "this node is stopping; ask again", retry_after=RETRY)
        try:
            await self.store.claim(room_id)
        except OwnedElsewhere as elsewhere:
            if elsewhere.retry_after < self.store.lease.seconds * OVERDUE:
                raise ProtocolError(ErrorCode.UNAVAILABLE,
                                    f"room {room_id!r} is held by node {elsewhere.node_id!r}, whose lease renewal "
                                    f"is overdue; ask again in {elsewhere.retry_after:.1f} s",
                                    retry_after=round(max(elsewhere.retry_after, 0.1), 3)) from None
            raise ProtocolError(ErrorCode.MOVED, f"room {room_id!r} is served by node {elsewhere.node_id!r}",
                                node=elsewhere.node_id, url=elsewhere.url) from None
        except StoreError as exc:
            if exc.code == "no-room":
                raise ProtocolError(ErrorCode.NO_SUCH_ROOM, f"no room {room_id!r}", field="room") from None
            raise ProtocolError(ErrorCode.UNAVAILABLE, f"room {room_id!r} cannot be served here now "
                                                       f"({exc.message}); ask again",
                                retry_after=getattr(exc, "retry_after", RETRY)) from None
        room = self.hub.rooms.get(room_id)
        if room is not None:
            return room
        rows = await self.store.unfinished_rooms(only=room_id)
        room = await self.hub.adopt(rows[0]) if rows else None
        if room is None:        # finished: its record is served by `game`
            raise ProtocolError(ErrorCode.NO_SUCH_ROOM, f"no room {room_id!r}", field="room")
        self.hub.lobby.changed()
        log.info("took over room %s at version %d", room_id, room.version)
        return room

    async def sweep(self) -> int:
        """Claim orphaned rooms (a batch); returns how many this node took."""
        taken = 0
        for room_id in await self.store.orphans(SWEEP_BATCH):
            try:
                await self.take(room_id)
                taken += 1
            except ProtocolError:
                pass            # another node was quicker, or the room ended meanwhile
        return taken

    async def _sweep_forever(self) -> None:
        period = self.store.lease.seconds / 3
        while True:
            await asyncio.sleep(period)
            try:
                await self.sweep()
            except Exception as exc:  # noqa: BLE001 -- the sweeper must outlive a bad moment of the database
                log.warning("sweep failed (%s); trying again in %.1f s", exc, period)

    def _fenced(self, fenced: Fenced) -> None:
        """The store found the lease gone (``Store.on_fenced``): let every room go, tell their
        watchers to reconnect, join again."""
        log.error("%s Dropping %d rooms.", fenced.message, len(self.hub.rooms))
        for room in self.hub.forget_all():
            self._closing.add(task := asyncio.create_task(self._let_go(room)))
            task.add_done_callback(self._closing.discard)
        if self._rejoining is None or self._rejoining.done():
            self._rejoining = asyncio.create_task(self._rejoin(), name="rejoin")

    def _lost(self, rooms: set[str]) -> None:
        """The database refused these rooms' writes (``Store.on_lost``): another node owns them.
        Let each go as a fenced node lets all of its rooms go."""
        for room_id in rooms:
            room = self.hub.forget(room_id)
            if room is not None:
                self._closing.add(task := asyncio.create_task(self._let_go(room)))
                task.add_done_callback(self._closing.discard)

    @staticmethod
    async def _let_go(room: Room) -> None:
        """The requests already queued run and fail at their commit (the store is fenced), so each
        is answered (`unavailable`); later ones are refused; then the watchers are told to
        reconnect and the room's task ends."""
        await room.halt()
        await asyncio.gather(*(send_elsewhere(connection, "room moved to another node") for connection in list(room.watchers)),
                             return_exceptions=True)
        await room.close()

    async def _rejoin(self) -> None:
        while True:
            try:
                await self.store.rejoin()
            except Exception as exc:  # noqa: BLE001 -- keep trying while the database is away
                log.warning("rejoining the cluster failed (%s); trying again in %g s", exc, RETRY)
                await asyncio.sleep(RETRY)
            else:
                log.info("joined the cluster again as node %s", self.store.lease.node_id)
                break
        try:
            await self.sweep()      # its rooms are orphans now: take back those nobody asked for yet
        except Exception as exc:  # noqa: BLE001 -- the sweeper tries again in a third of a lease
            log.warning("sweep after rejoining failed (%s)", exc)
