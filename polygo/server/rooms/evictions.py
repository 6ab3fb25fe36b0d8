"""When rooms leave memory: evictions and expiries.

Memory holds the rooms in play. An ended room, and a started game that nobody watches, are looked
at `Config.evict_after` seconds after the end (or after the game started, or came back) and again
every `evict_after` seconds while anyone watches: an ended room nobody watches leaves memory, its
record in the store; an unwatched game is adjourned, stored as it is, and comes back when someone
asks for it (`Hub.room`). A room still waiting for players after `Config.waiting_expiry` seconds
expires: it is dropped from memory and store, as is one an operator closes and one its creator left
with nobody seated.
"""

from __future__ import annotations

import asyncio
from typing import Any, Coroutine, Protocol

from polygo.protocol import ProtocolError

from ..net.peer import broadcast
from ..store import Store
from .lobby import Lobby
from .room import HouseSeats, Room
from .table import RoomTable


class EvictionConfig(Protocol):
    """The server's settings the evictions read (`Config` holds them with the rest)."""

    evict_after: float
    waiting_expiry: float


class EvictionHost(Protocol):
    """What the evictions need of the server around them (the hub): its room table and lobby, the
    store, whether it began to stop, and a way to run work it does not wait for."""

    config: EvictionConfig
    store: Store
    draining: bool
    table: RoomTable
    lobby: Lobby
    house_bots: HouseSeats

    def background(self, work: Coroutine[Any, Any, None]) -> None: ...


class Evictions:
    """The timers of the rooms in memory: each ended or started room's next look, each waiting
    room's expiry."""

    def __init__(self, host: EvictionHost, *, adjourns: bool) -> None:
        """`adjourns`: whether unwatched games leave memory (not on a node of a cluster, where the
        room's lease would have to be let go)."""
        self.host = host
        self.adjourns = adjourns
        self._evictions: dict[str, asyncio.TimerHandle] = {}             # ended or started room -> its next look
        self._expiries: dict[str, asyncio.TimerHandle] = {}              # unstarted room -> its expiry

    def cancel(self, room_id: str) -> None:
        """The room left memory another way: its timers go."""
        for timer in (self._evictions.pop(room_id, None), self._expiries.pop(room_id, None)):
            if timer is not None:
                timer.cancel()

    def cancel_all(self) -> None:
        for timer in [*self._evictions.values(), *self._expiries.values()]:
            timer.cancel()
        self._evictions.clear()
        self._expiries.clear()

    # -- ended and unwatched rooms --------------------------------------------------------------------

    def schedule(self, room_id: str) -> None:
        """Look at the room again in `evict_after` seconds (its watchers may keep it then)."""
        pending = self._evictions.pop(room_id, None)
        if pending is not None:
            pending.cancel()
        loop = asyncio.get_running_loop()
        self._evictions[room_id] = loop.call_later(self.host.config.evict_after, self._evict, room_id)

    def no_longer_waiting(self, room: Room) -> None:
        """The room no longer waits for players (its game started, or it went): it no longer counts
        against its address, and a started game in memory is looked at in `evict_after`."""
        self.host.table.no_longer_waiting(room.id)
        if room.status == "playing" and self.host.table.rooms.get(room.id) is room:
            self.schedule(room.id)

    def _evict(self, room_id: str) -> None:
        """An ended room nobody watches leaves memory; so does a started game nobody watches
        (adjourned, in its own task, `_adjourn`). A waiting room stays (it expires instead)."""
        self._evictions.pop(room_id, None)
        room = self.host.table.rooms.get(room_id)
        if room is None or room.status == "waiting":
            return
        if room.watchers or (room.status == "playing" and (not self.adjourns or self.host.draining)):
            self.schedule(room_id)
            return
        if room.status == "playing":
            self.host.background(self._call_adjourn(room))
            return
        self._forget(room)

    def _forget(self, room: Room) -> None:
        """The room leaves memory (whatever is stored stays)."""
        self.host.table.leave_memory(room)
        self.host.lobby.forget(room.id)
        self.host.background(room.close())

    async def _call_adjourn(self, room: Room) -> None:
        try:
            await room.call(self._adjourn, room)
        except ProtocolError:
            pass            # the server began to stop: the game is stored, and comes back after the restart

    async def _adjourn(self, room: Room) -> None:
        """In the room's task: a started game that nobody watches leaves memory, stored as it is;
        its seats still count and are still listed in `welcome`. A request that names it brings
        it back (`Hub.room`)."""
        if self.host.table.rooms.get(room.id) is not room or room.status != "playing":
            return
        if room.watchers:
            self.schedule(room.id)
            return
        self.host.table.adjourned.add(room.id)
        self._forget(room)
        self.host.lobby.changed()

    # -- unstarted rooms expire ------------------------------------------------------------------------

    def expire_later(self, room_id: str) -> None:
        loop = asyncio.get_running_loop()
        self._expiries[room_id] = loop.call_later(self.host.config.waiting_expiry, self._expire, room_id)

    def _expire(self, room_id: str) -> None:
        self._expiries.pop(room_id, None)
        room = self.host.table.rooms.get(room_id)
        if room is not None and room.status == "waiting" and not self.host.draining:
            self.host.background(self._call_drop(room))

    async def _call_drop(self, room: Room) -> None:
        try:
            await room.call(self.drop_unstarted, room)
        except ProtocolError:
            pass            # the server began to stop: the room stays stored and expires after the restart

    async def close_unstarted(self, room: Room, message: str) -> None:
        """An operator closes a room waiting for players: it goes as an expired one does."""
        await room.call(self.drop_unstarted, room, "operator", message)

    async def creator_left(self, room: Room) -> None:
        """In the room's task: the creator left a room still waiting for players. With nobody
        seated (the house bot aside) the room is closed; else it waits on for the others, no longer
        counted against the creator's address (the refusal of a create says "start or leave
        them first")."""
        if any(seat is not None and not self.host.house_bots.holds(seat) for seat in room.seats):
            self.host.table.no_longer_waiting(room.id)
            return
        await self.drop_unstarted(room, "left", "its creator left before the game started; the room is closed")

    async def drop_unstarted(self, room: Room, reason: str = "expired",
                             message: str = "nobody started this game in time; the room is closed") -> None:
        """In the room's task: a room still waiting for players after `waiting_expiry` is forgotten
        (memory and store), so free guest sessions cannot pile up rooms that come back at every
        restart; also one an operator closes (`reason` "operator"), and one its creator left with
        nobody seated ("left"). Its watchers are told by a `closed` event."""
        if room.status != "waiting" or self.host.table.rooms.get(room.id) is not room:
            return
        await self.host.store.drop_unstarted(room.id)
        self.host.table.uncount(room)
        self._forget(room)
        broadcast(room.watchers, {"type": "event", "room": room.id, "version": room.version + 1,
                                  "kind": "closed", "reason": reason, "message": message})
