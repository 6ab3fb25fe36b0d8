"""Cluster mode's leases on a real PostgreSQL: a node writes only rooms it owns, a live owner's
rooms are refused to others, a killed node's rooms are taken at once (its advisory lock is free),
and a paused node whose lease ran out is fenced: it commits nothing after the fence."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from polygo.server.store.lease import Lease, OwnedElsewhere
from polygo.server.store import Store, StoreError

WRITER = Path(__file__).with_name("lease_writer.py")
ROOT = Path(__file__).resolve().parents[3]


def node(url: str, name: str, rooms: int, seconds: float) -> subprocess.Popen:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
    return subprocess.Popen([sys.executable, str(WRITER), url, name, str(seconds), str(rooms)],
                            stdout=subprocess.PIPE, text=True, env=env)


def acked(lines: list[str]) -> dict[str, int]:
    last: dict[str, int] = {}
    for line in lines:
        if line.startswith("ack "):
            _, room_id, version = line.split()
            last[room_id] = int(version)
    return last


async def open_node(url: str, name: str, seconds: float = 30.0) -> Store:
    return await Store.open(url, lease=Lease(name, f"/n/{name}/", seconds))


async def claim_when_the_owner_is_gone(store: Store, room_id: str) -> None:
    """PostgreSQL ends a killed client's backend (and frees its lock) when it sees the socket
    close, a moment after the kill; until then the owner still looks alive."""
    for _ in range(200):
        try:
            return await store.claim(room_id)
        except OwnedElsewhere:
            await asyncio.sleep(0.05)
    raise AssertionError(f"room {room_id} was never released")


async def test_a_node_writes_only_the_rooms_it_owns(postgres_url):
    a, b = await open_node(postgres_url, "a"), await open_node(postgres_url, "b")
    try:
        await a.create_room("r", {}, owner="t", invite=None)
        await a.record("r", 1, {"v": 1}, move=(0, "D4", 1))
        with pytest.raises(StoreError) as info:
            await b.record("r", 2, {"v": 2})
        assert info.value.code == "not-owner" and "'b'" in info.value.message
        with pytest.raises(OwnedElsewhere) as moved:
            await b.claim("r")
        assert (moved.value.node_id, moved.value.url) == ("a", "/n/a/") and 0 < moved.value.retry_after <= 30
        with pytest.raises(StoreError) as info:
            await b.claim("nowhere")
        assert info.value.code == "no-room"
        await a.record("r", 2, {"v": 2})        # the refusals changed nothing for the owner
        assert await b.orphans() == []
    finally:
        await a.close()
        await b.close()


async def test_one_node_id_is_one_live_process(postgres_url):
    a = await open_node(postgres_url, "a")
    try:
        with pytest.raises(StoreError) as info:
            await open_node(postgres_url, "a")
        assert info.value.code == "node-in-use" and "--node-id" in info.value.message
    finally:
        await a.close()


async def test_a_killed_nodes_rooms_are_taken_at_once_with_every_acknowledged_move(postgres, postgres_url):
    child = node(postgres_url, "a", 10, seconds=60)
    ready = child.stdout.readline().split()
    assert ready[0] == "ready"
    lines = [child.stdout.readline().strip() for _ in range(200)]
    child.send_signal(signal.SIGKILL)
    lines += child.communicate(timeout=60)[0].split("\n")[:-1]
    acks = acked(lines)
    assert len(acks) == 10
    b = await open_node(postgres_url, "b")
    try:
        for room_id, version in acks.items():
            await claim_when_the_owner_is_gone(b, room_id)
            events = await b.events_since(room_id, 0)
            stored = [e["v"] for e in events]
            assert stored == list(range(1, len(stored) + 1)) and len(stored) >= version
            await b.record(room_id, len(stored) + 1, {"node": "b"}, move=(1, "pass", 1))   # play goes on
        assert await b.orphans() == []
        # a's lease (60 s) had not run out: its free lock, not its lease, let b in
        assert postgres.psql("SELECT expires_at > clock_timestamp() FROM nodes WHERE node_id = 'a'",
                             postgres_url.rsplit("/", 1)[1]).strip() == "t"
    finally:
        await b.close()


async def test_a_paused_node_past_its_lease_is_fenced_and_commits_nothing_after(postgres, postgres_url):
    child = node(postgres_url, "a", 5, seconds=1)
    ready = child.stdout.readline().split()
    rooms = ready[1:]
    lines = [child.stdout.readline().strip() for _ in range(50)]
    child.send_signal(signal.SIGSTOP)
    b = await open_node(postgres_url, "b")
    try:
        database = postgres_url.rsplit("/", 1)[1]
        while postgres.psql("SELECT expires_at > clock_timestamp() FROM nodes WHERE node_id = 'a'",
                            database).strip() == "t":
            await asyncio.sleep(0.1)
        assert sorted(await b.orphans()) == sorted(rooms)
        fence = {}
        for room_id in rooms:
            await b.claim(room_id)      # a's lock is still held (paused, not dead): its lease decided
            fence[room_id] = len(await b.events_since(room_id, 0))
            await b.record(room_id, fence[room_id] + 1, {"node": "b", "v": fence[room_id] + 1})
        child.send_signal(signal.SIGCONT)
        lines += child.communicate(timeout=60)[0].split("\n")[:-1]
        assert lines[-1] == "fenced"
        for room_id in rooms:
            events = await b.events_since(room_id, 0)
            assert [e["v"] for e in events] == list(range(1, fence[room_id] + 2))
            assert [e["node"] for e in events] == ["a"] * fence[room_id] + ["b"]
            assert acked(lines).get(room_id, 0) <= fence[room_id]
    finally:
        if child.poll() is None:
            child.kill()
        await b.close()


async def test_a_fenced_store_refuses_writes_until_it_rejoins_and_claims_again(postgres, postgres_url):
    a = await open_node(postgres_url, "a")
    told = []
    a.on_fenced = told.append
    try:
        await a.create_room("r", {}, owner="t", invite=None)
        await a.record("r", 1, {"v": 1})
        postgres.psql("UPDATE nodes SET epoch = epoch + 1 WHERE node_id = 'a'", postgres_url.rsplit("/", 1)[1])
        with pytest.raises(StoreError) as info:
            await a.record("r", 2, {"v": 2})
        assert info.value.code == "fenced" and len(told) == 1
        with pytest.raises(StoreError) as info:
            await a.put_session("t", "ann")
        assert info.value.code == "fenced"
        await a.rejoin()
        with pytest.raises(StoreError) as info:
            await a.record("r", 2, {"v": 2})
        assert info.value.code == "not-owner"
        await a.claim("r")       # owned by a's old epoch: an orphan anyone may claim
        await a.record("r", 2, {"v": 2})
        assert [e["v"] for e in await a.events_since("r", 0)] == [1, 2]
    finally:
        await a.close()


async def test_claims_at_once_share_the_claiming_connection(postgres_url):
    """A dead node's rooms are asked for together (every player reconnects at once)."""
    a = await open_node(postgres_url, "a")
    ids = [f"r{i}" for i in range(20)]
    for room_id in ids:
        await a.create_room(room_id, {}, owner="t", invite=None)
    await a.close()
    b = await open_node(postgres_url, "b")
    try:
        for _ in range(200):        # until PostgreSQL has seen a's connection end and freed its lock
            if len(await b.orphans()) == len(ids):
                break
            await asyncio.sleep(0.05)
        await asyncio.gather(*(b.claim(room_id) for room_id in ids), b.orphans())
        await asyncio.gather(*(b.record(room_id, 1, {"v": 1}) for room_id in ids))
        assert await b.orphans() == []
    finally:
        await b.close()
