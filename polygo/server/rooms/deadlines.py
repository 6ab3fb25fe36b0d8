"""The deadline sweeper: a correspondence flag falls on time even when nobody is there.

A room in memory arms a timer for its running clock's deadline (`Room._schedule`), but a game can
be out of memory while its clock runs on the calendar: adjourned because nobody watched it, or
served by a node that died. So every `Config.deadline_sweep` seconds the sweeper asks the store
for the unfinished games whose stored calendar deadline (`rooms.deadline`, written with every
change's clocks) has passed, and has each one's room handle it: `Hub.room` brings an adjourned
game back (its clocks resume with the stored deadline, `Room.resume_clocks`, so the flag is found
fallen) and `Room.tick` times the player out, under the room's lock like any request, with the
usual `timeout` event and result. A room already in memory is only ticked, which does nothing if
its own timer was first. In a cluster, a game another live node serves answers `moved` and is
left to that node's timer; an orphaned one is taken over.
"""

from __future__ import annotations

import asyncio
import logging
import time
from typing import Protocol

from polygo.protocol import ProtocolError

from ..store import Store
from .room import Room

log = logging.getLogger("polygo.deadlines")

BATCH = 100
"""Overdue games handled a sweep; more wait for the next one."""


class Rooms(Protocol):
    """Where the sweeper finds the games (the hub): the store, and a room by its id, brought back
    from the store when it is out of memory."""

    store: Store

    async def room(self, room_id: str) -> Room: ...


async def sweep(hub: Rooms) -> int:
    """Time out the overdue games of the store (a batch); returns how many flags fell."""
    fell = 0
    for room_id in await hub.store.overdue(time.time(), BATCH):
        try:
            room = await hub.room(room_id)
            before = room.version
            await room.call(room.tick)
        except ProtocolError as exc:
            log.debug("room %s is overdue but not handled here: %s", room_id, exc)
            continue
        fell += room.version != before
    return fell


async def sweep_forever(hub: Rooms, every: float) -> None:
    """`sweep` every `every` seconds until cancelled; a failed sweep is logged and retried."""
    while True:
        await asyncio.sleep(every)
        try:
            fell = await sweep(hub)
        except Exception:
            log.exception("the deadline sweep failed; trying again in %g s", every)
            continue
        if fell:
            log.info("%d correspondence flags fell at the sweep", fell)
