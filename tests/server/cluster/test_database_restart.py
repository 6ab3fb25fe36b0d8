"""A PostgreSQL restart under three nodes behind the shipped HAProxy config: while the database is
down a node answers room requests `unavailable` with `retry_after`, its /readyz says 503 and its
metrics say the database is down; once it is back every game goes on to its end (SDK players
through HAProxy against house bots, which try their refused moves again with the same seq) and no
node is restarted. Every stored move is stored once, and every acknowledged one is stored.
A private PostgreSQL cluster, since the test stops it."""

from __future__ import annotations

import asyncio
import time

import pytest

from polygo.client.bots import BuiltinBot
from polygo.client.runner import BotRunner
from polygo.client.session import Client
from polygo.protocol import RoomSettings
from tests.haproxy_cluster import NODES, start_cluster
from tests.postgres import PostgresCluster

from .test_haproxy import Peer, http_get

GUARD = 120.0
HOUSE = RoomSettings(rules="tromp-taylor", board="5x5", bots=1)
GAMES = 6
DOWN = 2.0
"""Seconds PostgreSQL stays stopped: the fault injected, not a wait for anything."""


@pytest.fixture
async def restartable():
    postgres = PostgresCluster.start()
    running = start_cluster(postgres.new_database())
    try:
        for node in NODES:
            await running.ready(node)
        yield postgres, running
    finally:
        running.stop()
        postgres.stop()


def unfinished(postgres, database: str, clients: list[Client], runners: list[BotRunner]) -> list[tuple]:
    """Each game not ended: its player, room, the store's owner|epoch|version|moves, and the
    version the player's mirror holds."""
    return [(client.name, room, postgres.psql(
                f"SELECT owner_node, owner_epoch, version, (SELECT string_agg(seat || ':' || move, ' ')"
                f" FROM moves m WHERE m.room_id = r.room_id) FROM rooms r WHERE room_id = '{room}'", database).strip(),
             client.rooms[room].version)
            for client, runner in zip(clients, runners) for room in client.rooms if room not in runner.results]


async def until(condition, what: str) -> None:
    deadline = time.monotonic() + GUARD
    while not await asyncio.to_thread(condition):
        if time.monotonic() > deadline:
            raise AssertionError(f"never: {what}")
        await asyncio.sleep(0.05)


async def test_every_game_goes_on_after_a_database_restart_without_a_node_restart(restartable):
    postgres, cluster = restartable
    database = cluster.db.rsplit("/", 1)[1]
    node_a = f"http://127.0.0.1:{cluster.ports['a']}"
    clients, runners = [], []
    games = None
    try:
        for i in range(GAMES):
            client = Client(f"{cluster.url}/n/{NODES[i % 3]}/", name=f"p{i}")
            await client.connect()
            room = (await client.create(HOUSE)).room
            runner = BotRunner(BuiltinBot(seed=i), client)
            await runner.join(room, 0)
            clients.append(client)
            runners.append(runner)
        # A raw player straight at node a (not through HAProxy, which cuts a node it marks down).
        peer = await Peer.connect(f"ws://127.0.0.1:{cluster.ports['a']}/", "raw")
        room = (await peer.request("create", settings={"rules": "chinese", "board": "9", "bots": 1}))["room"]
        assert (await peer.request("sit", room=room, seat=0))["type"] == "snapshot"
        assert (await peer.request("move", room=room, move="E5", seq=1))["type"] == "ack"
        games = asyncio.gather(*(asyncio.wait_for(runner.run(), GUARD) for runner in runners))
        await until(lambda: int(postgres.psql("SELECT count(DISTINCT room_id) FROM moves", database)) > GAMES,
                    "every game has begun")
        await until(lambda: int(postgres.psql(f"SELECT count(*) FROM moves WHERE room_id = '{room}'", database)) == 2,
                    "the house bot answered the raw player")

        answer = postgres.psql(f"SELECT move FROM moves WHERE room_id = '{room}' AND idx = 1", database).strip()
        second = "C3" if answer != "C3" else "G7"       # the house bot plays where it likes
        postgres.stop_server()
        started = time.monotonic()
        refused = await peer.request("move", room=room, move=second, seq=2)
        assert refused["code"] == "unavailable" and refused["retry_after"] > 0, refused
        await until(lambda: http_get(f"{node_a}/readyz") == (503, "waiting for its database\n"), "/readyz says 503")
        assert "polygo_database_up 0.0" in http_get(f"{node_a}/metrics")[1]
        await asyncio.sleep(max(0.0, DOWN - (time.monotonic() - started)))
        postgres.start_server()

        await until(lambda: http_get(f"{node_a}/readyz")[0] == 200, "/readyz says 200 again")
        assert "polygo_database_up 1.0" in http_get(f"{node_a}/metrics")[1]
        # Its connection may have been closed (1012): an outage longer than the 3 s lease fences
        # the nodes, which let their rooms go and join again. It asks again through HAProxy.
        for node in NODES:
            await cluster.ready(node)       # HAProxy has marked it up again
        _, again = await Peer.reach(cluster.url, peer.token, "move", room=room, move=second, seq=2)
        assert again["type"] == "ack", again
        try:
            results = await games
        except TimeoutError:
            raise AssertionError(f"games never ended: {unfinished(postgres, database, clients, runners)}") from None
        assert all(result and result["reason"] for runner in results for result in runner.values()), results
        assert all(proc.poll() is None for proc in cluster.nodes.values())     # no node was restarted
        doubled = postgres.psql("SELECT room_id, seat, seq FROM moves WHERE seq IS NOT NULL"
                                " GROUP BY room_id, seat, seq HAVING count(*) > 1", database)
        assert doubled.strip() == ""
        assert postgres.psql(f"SELECT move FROM moves WHERE room_id = '{room}' AND seat = 0 ORDER BY idx",
                             database).split() == ["E5", second]
    finally:
        if games is not None:
            games.cancel()
            await asyncio.gather(games, return_exceptions=True)
        for client in clients:
            await client.close()
