"""Fencing decided by PostgreSQL at COMMIT, not by the node's memory: a write that passed every
check of the store lands only if the room's owner is the writer's node and epoch when it commits
(an injected race: the node paused between its checks and its commit, fenced, joined again, let
go); a refused room fails alone in its batch and is dropped from the node; claiming a room the
node already serves leaves its counters (they are ahead of any reader's snapshot)."""

from __future__ import annotations

import asyncio

import pytest

from polygo.server.store.lease import Lease, OwnedElsewhere
from polygo.server.store import Store, StoreError, Unavailable


async def open_node(url: str, name: str, seconds: float = 30.0) -> Store:
    return await Store.open(url, lease=Lease(name, f"/n/{name}/", seconds), group_window=0.0)


class Gate:
    """Holds the store's next transaction before it reaches PostgreSQL, until `open()`."""

    def __init__(self, store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
        self.entered = asyncio.Event()
        self._open = asyncio.Event()
        real = store._db.transaction

        async def held(build, rooms=(), steps=None):
            monkeypatch.setattr(store._db, "transaction", real)
            self.entered.set()
            await self._open.wait()
            return await real(build, rooms, steps)

        monkeypatch.setattr(store._db, "transaction", held)

    def open(self) -> None:
        self._open.set()


async def test_a_write_checked_before_a_fence_and_a_rejoin_lands_nothing(postgres, postgres_url, monkeypatch):
    database = postgres_url.rsplit("/", 1)[1]
    a, b = await open_node(postgres_url, "a"), await open_node(postgres_url, "b")
    lost: list[set[str]] = []
    a.on_lost = lost.append
    try:
        for room_id in ("r", "s"):
            await a.create_room(room_id, {}, owner="t", invite=None)
            await a.record(room_id, 1, {"node": "a", "v": 1}, move=(0, "D4", 1))
        gate = Gate(a, monkeypatch)
        first = asyncio.ensure_future(a.put_session("tok", "ann"))
        await asyncio.wait_for(gate.entered.wait(), 10)
        # Both records pass every check of a's memory and wait for the next batch.
        r = asyncio.ensure_future(a.record("r", 2, {"node": "a", "v": 2}, move=(1, "E5", 2)))
        s = asyncio.ensure_future(a.record("s", 2, {"node": "a", "v": 2}, move=(1, "E5", 2)))
        await asyncio.sleep(0)
        assert a.pending == 2
        # Meanwhile a is fenced, b takes r (owned by a's ended epoch), a joins again, and s is a's
        # again at its new epoch (as its sweep would make it).
        postgres.psql("UPDATE nodes SET epoch = epoch + 1 WHERE node_id = 'a'", database)
        await b.claim("r")
        await b.record("r", 2, {"node": "b", "v": 2}, move=(1, "C3", 5))
        await a.rejoin()
        postgres.psql(f"UPDATE rooms SET owner_epoch = {a._db.epoch} WHERE room_id = 's'", database)
        gate.open()
        await first
        with pytest.raises(Unavailable) as info:
            await r
        assert info.value.code == "not-owner"
        await s                                     # its neighbour in the batch landed
        assert lost == [{"r"}]
        assert [(e["node"], e["v"]) for e in await b.events_since("r", 0)] == [("a", 1), ("b", 2)]
        assert [m[:3] for m in (await b.game("r"))["moves"]] == [[0, "D4", 1], [1, "C3", 5]]
        assert [(e["node"], e["v"]) for e in await a.events_since("s", 0)] == [("a", 1), ("a", 2)]
        with pytest.raises(Unavailable) as info:    # a no longer writes r at all
            await a.record("r", 3, {"node": "a", "v": 3})
        assert info.value.code == "not-owner"
    finally:
        await a.close()
        await b.close()


async def test_a_room_read_while_the_node_is_fenced_is_not_taken_back(postgres, postgres_url, monkeypatch):
    """The memory's side of the race: the counters' read returns after the fence and the rejoin."""
    database = postgres_url.rsplit("/", 1)[1]
    a = await open_node(postgres_url, "a")
    try:
        await a.create_room("r", {}, owner="t", invite=None)
        await a.record("r", 1, {"v": 1})
        a._rooms.clear()            # as after a failed commit: the counters are read again when needed
        reading, go_on = asyncio.Event(), asyncio.Event()
        real = a._db.one

        async def slow_read(sql, params):
            if "count(*)" in sql:
                reading.set()
                await go_on.wait()
            return await real(sql, params)

        monkeypatch.setattr(a._db, "one", slow_read)
        record = asyncio.ensure_future(a.record("r", 2, {"v": 2}))
        await asyncio.wait_for(reading.wait(), 10)
        postgres.psql("UPDATE nodes SET epoch = epoch + 1 WHERE node_id = 'a'", database)
        with pytest.raises(StoreError):
            await a.put_session("tok", "ann")       # the fence is found
        await a.rejoin()
        go_on.set()
        with pytest.raises(Unavailable) as info:
            await record
        assert info.value.code == "not-owner"
        assert [e["v"] for e in await a.events_since("r", 0)] == [1]
    finally:
        await a.close()


async def test_claiming_a_room_the_node_serves_keeps_its_counters(postgres_url, monkeypatch):
    """The sweeper once claimed rooms its node served: the claim read the counters from a reader
    that could not see the batch being committed, and the next move broke the batch's primary key."""
    a = await open_node(postgres_url, "a")
    try:
        await a.create_room("r", {}, owner="t", invite=None)
        await a.record("r", 1, {"v": 1}, move=(0, "D4", 1))
        gate = Gate(a, monkeypatch)
        second = asyncio.ensure_future(a.record("r", 2, {"v": 2}, move=(1, "E5", 2)))
        await asyncio.wait_for(gate.entered.wait(), 10)
        await a.claim("r")                      # while move 1 is being committed
        gate.open()
        await second
        await a.record("r", 3, {"v": 3}, move=(0, "C3", 3))
        assert [m[1] for m in (await a.game("r"))["moves"]] == ["D4", "E5", "C3"]
        assert a.stats.failed == 0
    finally:
        await a.close()


async def test_a_role_that_may_not_create_tables_is_told_in_one_sentence(postgres):
    postgres.psql("CREATE ROLE limited LOGIN")
    postgres.psql("CREATE DATABASE not_owned")      # owned by postgres: PostgreSQL 15 lets only its owner create
    url = postgres.url("not_owned").replace("postgres@", "limited@")
    with pytest.raises(StoreError) as info:
        await Store.open(url)
    assert info.value.code == "no-privilege"
    assert "CREATE DATABASE not_owned OWNER limited" in info.value.message and "\n" not in info.value.message


async def test_of_two_nodes_claiming_a_room_at_once_the_loser_is_told_the_winner(postgres_url):
    """Once the loser was answered `claim-raced` (clients: `unavailable`, ask again in 1 s); it
    looks again and finds the winner, whose lease is live: `moved` there."""
    a = await open_node(postgres_url, "a")
    ids = [f"r{i}" for i in range(10)]
    for room_id in ids:
        await a.create_room(room_id, {}, owner="t", invite=None)
    await a.release()
    b, c = await open_node(postgres_url, "b"), await open_node(postgres_url, "c")
    try:
        for room_id in ids:
            outcomes = await asyncio.gather(b.claim(room_id), c.claim(room_id), return_exceptions=True)
            assert outcomes.count(None) == 1, outcomes
            [lost] = [o for o in outcomes if o is not None]
            assert isinstance(lost, OwnedElsewhere) and lost.node_id in ("b", "c"), lost
    finally:
        await a.close()
        await b.close()
        await c.close()
