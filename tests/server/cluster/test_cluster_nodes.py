"""Two nodes of a cluster in one process on one real PostgreSQL: a room is served by the node that
has it and the other answers `moved`; a node that stops has its rooms taken over with every
acknowledged move and resent moves acknowledged as the first time; a fenced node commits nothing
more, drops its rooms and closes its watchers, and its rooms go on elsewhere."""

from __future__ import annotations

import asyncio

import pytest
from websockets.asyncio.client import connect

from polygo.protocol import PROTOCOL_VERSION
from polygo.server.app import Server
from polygo.server.config import Config

from tests.server.conftest import Client

SETTINGS = {"rules": "chinese", "board": "9"}


@pytest.fixture
async def nodes(postgres_url):
    """A factory of nodes on the test's database (`start(node_id)`), and of clients of them."""
    servers: list[Server] = []
    clients: list[Client] = []

    async def start(node_id: str) -> Server:
        config = Config(host="127.0.0.1", port=0, db=postgres_url, group_window=0.001, node_id=node_id, lease=5.0)
        servers.append(await Server(config).start())
        return servers[-1]

    async def client(node: Server, name: str | None = None, token: str | None = None) -> Client:
        ws = await connect(f"ws://127.0.0.1:{node.port}/", subprotocols=["polygo.json"])
        clients.append(Client(ws, "polygo.json"))
        who = {"token": token} if token else {"name": name}
        welcome = await clients[-1].ok("hello", protocol=PROTOCOL_VERSION, **who)
        clients[-1].token = welcome["token"]
        clients[-1].welcome = welcome
        return clients[-1]

    start.client = client
    yield start
    for c in clients:
        await c.close()
    for server in servers:
        await server.close()
    assert not [m for c in clients for m in c.undescribed]


async def when_taken_over(client: Client, room: str) -> dict:
    """Watch the room until the node asked serves it: PostgreSQL frees a closed node's lock when
    it has seen its connection end, a moment after the close."""
    for _ in range(100):
        reply = await client.request("watch", room=room)
        if reply["type"] != "error" or reply["code"] != "moved":
            return reply
        await asyncio.sleep(0.05)
    raise AssertionError(f"room {room} was never taken over")


async def game_at(nodes, node: Server) -> tuple[Client, Client, str, dict]:
    """Black and White seated in a room of `node`, Black's E5 acknowledged: (black, white, room, ack)."""
    black, white = await nodes.client(node, "black"), await nodes.client(node, "white")
    room = (await black.ok("create", settings=SETTINGS))["room"]
    await black.ok("sit", room=room, seat=0)
    await white.ok("sit", room=room, seat=1)
    first = await black.move(room, "E5", 1)
    assert first["type"] == "ack"
    return black, white, room, first


async def test_one_node_serves_a_room_the_other_redirects_then_takes_it_over(nodes):
    a, b = await nodes("a"), await nodes("b")
    black, white, room, _ = await game_at(nodes, a)
    second = await white.move(room, "C3", 1)
    assert second["type"] == "ack"

    carol = await nodes.client(b, "carol")
    moved = await carol.request("watch", room=room)
    assert moved["type"] == "error" and moved["code"] == "moved"
    assert (moved["node"], moved["url"]) == ("a", "/n/a/") and moved["room"] == room
    white_at_b = await nodes.client(b, token=white.token)
    assert white_at_b.welcome["seats"] == [{"room": room, "seat": 1, "last_seq": 1}]   # held at a, told at b
    refused = await white_at_b.move(room, "C3", 1)
    assert refused["code"] == "moved" and refused["seq"] == 1

    await a.close()                  # its rooms are orphans once its lock is free
    snapshot = await when_taken_over(carol, room)
    assert [h[1] for h in snapshot["game"]["history"]] == ["E5", "C3"]
    again = await white_at_b.move(room, "C3", 1)          # resent: acknowledged as the first time
    assert again == {"type": "ack", "room": room, "seq": 1, "version": second["version"]}
    black_at_b = await nodes.client(b, token=black.token)
    assert (await black_at_b.move(room, "G7", 2))["type"] == "ack"


async def test_a_fenced_node_commits_nothing_more_and_its_room_goes_on_elsewhere(nodes, postgres, postgres_url):
    a, b = await nodes("a"), await nodes("b")
    black, white, room, _ = await game_at(nodes, a)
    postgres.psql("UPDATE nodes SET epoch = epoch + 1 WHERE node_id = 'a'", postgres_url.rsplit("/", 1)[1])

    refused = await white.move(room, "C3", 1)
    assert refused["type"] == "error" and refused["code"] == "unavailable" and refused["retry_after"] > 0
    await asyncio.wait_for(black._reader, 5)              # a dropped the room and closed its watchers
    assert black.ws.close_code == 1012
    assert room not in a.hub.rooms

    white_again = await nodes.client(b, token=white.token)
    snapshot = await white_again.request("watch", room=room)
    if snapshot.get("code") == "moved":     # a joined again and swept its old epoch's room back first
        white_again = await nodes.client(a, token=white.token)
        snapshot = await white_again.ok("watch", room=room)
    assert [h[1] for h in snapshot["game"]["history"]] == ["E5"]     # the fenced move was never stored
    assert (await white_again.move(room, "C3", 1))["type"] == "ack"


async def test_every_node_lists_every_nodes_public_rooms(nodes):
    a, b = await nodes("a"), await nodes("b")
    ann, bob = await nodes.client(a, "ann"), await nodes.client(b, "bob")
    playing = (await ann.ok("create", settings=dict(SETTINGS, title="at a")))["room"]
    await ann.ok("sit", room=playing, seat=0)
    await ann.ok("create", settings=dict(SETTINGS, private=True))
    waiting = (await bob.ok("create", settings={"rules": "chinese", "board": "9", "bots": 1}))["room"]
    bob_at_a = await nodes.client(a, token=bob.token)
    assert (await bob_at_a.ok("sit", room=playing, seat=1))["status"] == "playing"
    for client in (ann, bob):
        page = await client.ok("list", limit=1)
        assert page["total"] == 2 and page["next"] == 1 and [r["room"] for r in page["rooms"]] == [playing]
        [entry] = page["rooms"]
        assert entry["title"] == "at a" and entry["seats"] == ["ann", "bob"] and entry["status"] == "playing"
        assert entry["registered"] == [False, False] and entry["version"] >= 3
        [entry] = (await client.ok("list", limit=1, offset=1))["rooms"]
        assert entry["room"] == waiting and entry["seats"] == [None, "bot1"] and entry["status"] == "waiting"


async def test_a_draining_node_lets_its_rooms_go_at_once(nodes):
    a, b = await nodes("a"), await nodes("b")
    _, white, room, first = await game_at(nodes, a)
    await a.drain()                             # a still runs (its lease and lock held), rooms let go
    white_at_b = await nodes.client(b, token=white.token)
    assert (await white_at_b.move(room, "C3", 1)) == {"type": "ack", "room": room, "seq": 1,
                                                       "version": first["version"] + 1}


async def test_a_house_bot_plays_on_in_its_room_taken_back_after_a_fence(nodes, postgres, postgres_url):
    """The bot's move failed at the fence; the node joined again and swept its room back (a new
    Room): the bot must play there. Its driver once waited on the dropped room, took the new
    room's nudge for its own and ended, and the game waited for ever."""
    a = await nodes("a")
    ann = await nodes.client(a, "ann")
    room = (await ann.ok("create", settings=dict(SETTINGS, bots=1)))["room"]
    await ann.ok("sit", room=room, seat=0)
    postgres.psql("UPDATE nodes SET epoch = epoch + 1 WHERE node_id = 'a'", postgres_url.rsplit("/", 1)[1])
    assert (await ann.move(room, "E5", 1))["code"] == "unavailable"          # the fence is found
    for _ in range(200):
        again = await nodes.client(a, token=ann.token)
        reply = await again.request("move", room=room, move="E5", seq=1)
        if reply["type"] == "ack":
            break
        assert reply["code"] == "unavailable", reply
        await asyncio.sleep(0.05)
    else:
        raise AssertionError("node a never took its room back")
    snapshot = await again.ok("watch", room=room)
    while len(snapshot["game"]["history"]) < 2:
        event = await asyncio.wait_for(again.events.get(), 20)
        if event["kind"] == "move" and event["seat"] == 1:
            break
