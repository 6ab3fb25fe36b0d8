"""The writer takes the file's write lock on the loop when it is free, and waits for it on its own
thread when another process holds it (a backup, the sqlite3 shell): the loop runs on meanwhile,
and the batch commits once the lock is let go."""

from __future__ import annotations

import asyncio
import sqlite3

from polygo.server.store import Store


async def test_a_batch_waits_on_its_thread_for_another_process_lock(tmp_path):
    db = str(tmp_path / "polygo.db")
    store = await Store.open(db, group_window=0)
    try:
        await store.create_room("r", {"board": "9"}, owner="t", invite=None)
        other = sqlite3.connect(db, isolation_level=None)
        other.execute("BEGIN IMMEDIATE")
        try:
            record = asyncio.ensure_future(store.record("r", 1, {"move": "E5"}, move=(0, "E5", 1)))
            for _ in range(20):     # the loop turns while the batch waits: BEGIN is not waiting on it
                await asyncio.sleep(0.01)
            assert not record.done(), "the batch neither waited for the lock nor let the loop run"
        finally:
            other.execute("ROLLBACK")
            other.close()
        await asyncio.wait_for(record, 5)
        assert await store.events_since("r", 0) == [{"move": "E5"}]
        await store.record("r", 2, {"move": "C3"}, move=(1, "C3", 1))    # the lock is free again: on the loop
        assert [e["move"] for e in await store.events_since("r", 0)] == ["E5", "C3"]
    finally:
        await store.close()
