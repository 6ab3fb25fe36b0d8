"""A PostgreSQL restart is an ordinary event for a node: while the database is down every write
is refused at once with `unavailable` (nothing written), and once it is back every connection the
node holds (writer, readers, claimer, and the lease through the writer) works again without a
restart of the node. A restart shorter than the lease keeps the node's epoch (its rooms stay its
own; a free lock after a restart is no proof of death); a longer one fences it, and it joins again.
A private PostgreSQL cluster, since these tests stop it."""

from __future__ import annotations

import asyncio
import time

import pytest

from polygo.server.store.lease import Lease
from polygo.server.store import Store, StoreError, Unavailable
from tests.postgres import PostgresCluster

WAIT = 30.0


@pytest.fixture(scope="module")
def restartable():
    cluster = PostgresCluster.start()
    yield cluster
    cluster.stop()


async def until(condition, what: str) -> None:
    deadline = time.monotonic() + WAIT
    while not await condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"never: {what}")
        await asyncio.sleep(0.05)


async def writes(store: Store, room_id: str, version: int) -> bool:
    """Whether the record at `version` is stored now (False: refused as unavailable, or fenced)."""
    try:
        await store.record(room_id, version, {"v": version}, move=(version % 2, f"m{version}", version))
    except Unavailable:
        return False
    return True


async def test_every_connection_heals_after_a_restart_shorter_than_the_lease(restartable):
    url = restartable.new_database()
    a = await Store.open(url, lease=Lease("a", "/n/a/", 30.0))
    b = await Store.open(url, lease=Lease("b", "/n/b/", 30.0))
    fenced = []
    a.on_fenced = b.on_fenced = fenced.append
    try:
        await a.create_room("r", {}, owner="t", invite=None)
        await a.record("r", 1, {"v": 1}, move=(1, "m1", 1))
        epoch = a._db.epoch
        restartable.stop_server()
        with pytest.raises(Unavailable) as info:
            await a.record("r", 2, {"v": 2}, move=(0, "m2", 2))
        assert info.value.code == "unavailable" and info.value.retry_after > 0
        assert not a.reachable
        with pytest.raises(Unavailable):            # refused at once while down, not after a timeout
            await a.put_session("tok", "ann")
        with pytest.raises(Unavailable):
            await b.orphans()
        restartable.start_server()
        await until(lambda: writes(a, "r", 2), "a writes again")
        assert a.reachable and a._db.epoch == epoch and not fenced
        assert [e["v"] for e in await a.events_since("r", 0)] == [1, 2]     # the readers
        await until(lambda: asyncio.sleep(0, b.reachable), "b heals")
        assert await b.orphans() == []               # b's claimer; a's free lock meant no death
        with pytest.raises(StoreError) as moved:
            await b.claim("r")
        assert moved.value.code == "owned-elsewhere"
        await a.put_session("tok", "ann")
        assert (await a.get_session("tok"))["name"] == "ann"
    finally:
        await a.close()
        await b.close()


@pytest.mark.slow
async def test_a_restart_longer_than_the_lease_fences_and_the_node_joins_again(restartable):
    url = restartable.new_database()
    a = await Store.open(url, lease=Lease("a", "/n/a/", 1.0))
    fenced = []
    a.on_fenced = fenced.append
    try:
        await a.create_room("r", {}, owner="t", invite=None)
        await a.record("r", 1, {"v": 1}, move=(1, "m1", 1))
        restartable.stop_server()
        started = time.monotonic()
        with pytest.raises(Unavailable):
            await a.record("r", 2, {"v": 2}, move=(0, "m2", 2))
        await asyncio.sleep(max(0.0, 2.0 - (time.monotonic() - started)))   # longer than the 1 s lease
        restartable.start_server()
        await until(lambda: asyncio.sleep(0, bool(fenced)), "a finds its lease gone")

        async def rejoined() -> bool:
            try:
                await a.rejoin()
            except Unavailable:
                return False
            return True

        await until(rejoined, "a joins again")
        await a.claim("r")                     # its earlier epoch's room is an orphan
        await a.record("r", 2, {"v": 2}, move=(0, "m2", 2))
        assert [e["v"] for e in await a.events_since("r", 0)] == [1, 2]
    finally:
        await a.close()


async def test_a_node_killed_after_a_restart_is_taken_over_at_once(restartable):
    """After the restart the killed node had its lock again (it renewed): its free lock is death."""
    url = restartable.new_database()
    a = await Store.open(url, lease=Lease("a", "/n/a/", 30.0))
    b = await Store.open(url, lease=Lease("b", "/n/b/", 30.0))
    try:
        await a.create_room("r", {}, owner="t", invite=None)
        restartable.stop_server()
        restartable.start_server()
        await until(lambda: writes(a, "r", 1), "a writes again")
        a._db._writer.terminate()         # its process is gone: PostgreSQL frees the lock it took again
        await until(lambda: claimed(b, "r"), "b takes the room")
        await b.record("r", 2, {"v": 2}, move=(0, "m2", 2))
    finally:
        await a.close()
        await b.close()


async def claimed(store: Store, room_id: str) -> bool:
    try:
        await store.claim(room_id)
    except (Unavailable, StoreError):
        return False
    return True
