"""A child process for the durability tests: records events and prints each acknowledgment.

Usage: crash_writer.py DB ROOMS MODE. Each acknowledged record prints "ack ROOM VERSION" (flushed).
MODE "self-kill": SIGKILL itself right after the 25th acknowledgment; "run": keep going until killed.
"""

from __future__ import annotations

import asyncio
import os
import signal
import sys

from polygo.server.store import Store


async def room_loop(store: Store, room_id: str, acks: list[int], mode: str) -> None:
    version = 0
    while True:
        version += 1
        await store.record(room_id, version, {"v": version}, move=(version % 2, f"move {version}", version),
                           clocks={"at": version})
        print(f"ack {room_id} {version}", flush=True)
        acks[0] += 1
        if mode == "self-kill" and acks[0] == 25:
            os.kill(os.getpid(), signal.SIGKILL)


async def main(path: str, count: int, mode: str) -> None:
    store = await Store.open(path)
    ids = [f"room-{i}" for i in range(count)]
    for room_id in ids:
        await store.create_room(room_id, {"n": room_id}, owner="t", invite=None)
    print("ready", flush=True)
    acks = [0]
    await asyncio.gather(*(room_loop(store, room_id, acks, mode) for room_id in ids))


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], int(sys.argv[2]), sys.argv[3]))
