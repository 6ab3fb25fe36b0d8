"""The clients of issue 15 behind three nodes and HAProxy: one SDK session plays a game on each
of two nodes at once (a connection per node, each room's requests at its own node), and
`polygo bot` (the GTP bridge) and `polygo play` follow `moved` to the room's node."""

from __future__ import annotations

import asyncio

from client_cli.bots import BuiltinBot
from client_cli.runner import BotRunner
from client_cli.session import Client
from protocol import RoomSettings

GUARD = 120.0
HOUSE = RoomSettings(rules="tromp-taylor", board="5x5", bots=1)


async def test_one_sdk_session_plays_on_two_nodes_at_once(cluster, postgres):
    rooms = {}
    for node in ("a", "b"):
        async with Client(f"{cluster.url}/n/{node}/", name=f"host-{node}") as host:
            rooms[node] = (await host.create(HOUSE)).room
    async with Client(f"{cluster.url}/n/c/", name="both") as client:     # c serves neither room
        runner = BotRunner(BuiltinBot(seed=3), client)
        for room in rooms.values():
            await runner.join(room, 0)
        assert client.connections == {f"{cluster.url}/n/{node}/": True for node in "abc"}
        results = await asyncio.wait_for(runner.run(), GUARD)
        assert all(results[room] and results[room]["reason"] for room in rooms.values()), results
        assert {node: client.url_of(room) for node, room in rooms.items()} == \
               {node: f"{cluster.url}/n/{node}/" for node in rooms}
        assert client.connections == {f"{cluster.url}/n/{node}/": True for node in "abc"}
    database = cluster.db.rsplit("/", 1)[1]
    for node, room in rooms.items():       # the rooms stayed where they were made
        assert postgres.psql(f"SELECT owner_node FROM rooms WHERE room_id = '{room}'", database).strip() == node
