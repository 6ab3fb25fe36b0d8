"""A child process for the lease tests: one cluster node recording events in its rooms.

Usage: lease_writer.py URL NODE LEASE_SECONDS ROOMS. Prints "ready ROOM..." once its rooms exist,
then "ack ROOM VERSION" for each acknowledged record (flushed), and "fenced" when a commit finds
its lease gone, then exits. Event bodies name the node, so a test can tell whose rows are whose.
"""

from __future__ import annotations

import asyncio
import sys

from polygo.server.store.lease import Lease
from polygo.server.store import Store, StoreError


async def room_loop(store: Store, node: str, room_id: str) -> None:
    version = 0
    while True:
        version += 1
        await store.record(room_id, version, {"node": node, "v": version}, move=(0, f"m{version}", version))
        print(f"ack {room_id} {version}", flush=True)


async def main(url: str, node: str, seconds: float, count: int) -> None:
    store = await Store.open(url, lease=Lease(node, f"/n/{node}/", seconds))
    ids = [f"{node}-room-{i}" for i in range(count)]
    for room_id in ids:
        await store.create_room(room_id, {}, owner="t", invite=None)
    print("ready", *ids, flush=True)
    try:
        await asyncio.gather(*(room_loop(store, node, room_id) for room_id in ids))
    except StoreError as exc:
        print(exc.code, flush=True)


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2], float(sys.argv[3]), int(sys.argv[4])))
