"""Three nodes behind the shipped HAProxy config: a room request at the wrong node is answered
`moved`, and /n/<node>/ reaches that node; a node killed with SIGKILL has its rooms taken over
by the node a reconnecting client lands on, with every acknowledged move and a resent seq
acknowledged as the first time; a node stopped with SIGSTOP past its lease is fenced when it
wakes: the move it was sent while stopped is refused and never stored."""

from __future__ import annotations

import asyncio
import json
import signal
import urllib.error
import urllib.request
from typing import Any

import pytest
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, InvalidStatus

from polygo.client.session import Client
from polygo.protocol import PROTOCOL_VERSION

WAIT = 10.0
SETTINGS = {"rules": "chinese", "board": "9"}


class Peer:
    """A JSON client: `request` returns the next reply, events are skipped."""

    def __init__(self, ws: ClientConnection) -> None:
        self.ws = ws
        self.token: str | None = None

    @classmethod
    async def connect(cls, url: str, name: str | None = None, token: str | None = None) -> "Peer":
        peer = cls(await connect(url, subprotocols=["polygo.json"]))
        who = {"token": token} if token else {"name": name}
        welcome = await peer.request("hello", protocol=PROTOCOL_VERSION, **who)
        assert welcome["type"] == "welcome", welcome
        peer.token = welcome["token"]
        return peer

    async def request(self, type: str, **fields: Any) -> dict:
        await self.send(type, **fields)
        return await self.reply()

    async def send(self, type: str, **fields: Any) -> None:
        await self.ws.send(json.dumps({"type": type, **fields}))

    async def reply(self) -> dict:
        while True:
            message = json.loads(await asyncio.wait_for(self.ws.recv(), WAIT))
            if message["type"] != "event":
                return message

    async def patiently(self, type: str, **fields: Any) -> dict:
        """`request`, asked again while the answer is `unavailable` (after its retry_after), as a
        client does: a node whose lease renewal a loaded machine delayed past two thirds of the
        lease, or a claim racing another node's sweeper, is answered so for a moment."""
        for _ in range(50):
            reply = await self.request(type, **fields)
            if reply.get("code") != "unavailable":
                return reply
            await asyncio.sleep(reply["retry_after"])
        raise AssertionError(f"{type} {fields} was unavailable 50 times")

    @classmethod
    async def reach(cls, url: str, token: str, type: str, **fields: Any) -> tuple["Peer", dict]:
        """Connect at `url` and ask as a client does, following `moved` and waiting out
        `unavailable`; the peer where the answer came from, and the answer."""
        for _ in range(10):
            peer = await cls.connect(url, token=token)
            reply = await peer.patiently(type, **fields)
            if reply.get("code") != "moved":
                return peer, reply
            await peer.ws.close()
            url = f"{url.split('/n/')[0].rstrip('/')}{reply['url']}"
        raise AssertionError(f"{type} {fields} was moved 10 times")


async def test_moved_points_at_the_node_and_a_killed_nodes_room_goes_on(cluster):
    black = await Peer.connect(f"{cluster.url}/n/a/", "black")
    white = await Peer.connect(f"{cluster.url}/n/a/", "white")
    room = (await black.request("create", settings=SETTINGS))["room"]
    assert (await black.request("sit", room=room, seat=0))["type"] == "snapshot"
    assert (await white.request("sit", room=room, seat=1))["type"] == "snapshot"
    acks = [await black.request("move", room=room, move="E5", seq=1),
            await white.request("move", room=room, move="C3", seq=1)]
    assert [a["type"] for a in acks] == ["ack", "ack"]

    carol = await Peer.connect(f"{cluster.url}/n/b/", "carol")
    moved = await carol.patiently("watch", room=room)
    assert moved["code"] == "moved" and (moved["node"], moved["url"]) == ("a", "/n/a/")
    there = await Peer.connect(f"{cluster.url}{moved['url']}", token=carol.token)
    assert (await there.request("watch", room=room))["type"] == "snapshot"

    cluster.kill("a")
    # a client reconnects to /: HAProxy sends it to a live node, which takes the room over at once
    # (the dead node's lock is free) -- or, for a moment, still says moved or unavailable (on a
    # loaded machine PostgreSQL may not yet have ended the dead node's session): then it asks again
    for _ in range(100):
        white = await Peer.connect(f"{cluster.url}/", token=white.token)
        resent = await white.request("move", room=room, move="C3", seq=1)
        if resent.get("code") not in ("moved", "unavailable"):
            break
        await white.ws.close()
        await asyncio.sleep(resent.get("retry_after") or 0.05)
    else:
        raise AssertionError("the room was never taken over")
    assert resent == {"type": "ack", "room": room, "seq": 1, "version": acks[1]["version"]}
    snapshot = await white.request("watch", room=room)
    assert [h[1] for h in snapshot["game"]["history"]] == ["E5", "C3"]
    # black lands on either live node: the other one's answer is moved (or, while its sweeper's
    # claim races white's, unavailable for a moment)
    black, reply = await Peer.reach(f"{cluster.url}/", black.token, "move", room=room, move="G7", seq=2)
    assert reply["type"] == "ack" and reply["version"] == acks[1]["version"] + 1

    cluster.start("a")                  # a comes back with a new epoch: the room stays where it is
    await cluster.ready("a")
    back = await Peer.connect(f"{cluster.url}/n/a/", token=carol.token)
    moved = await back.patiently("watch", room=room)
    assert moved["code"] == "moved" and moved["node"] in ("b", "c")


async def test_sigterm_drains_a_node_and_its_players_go_on_elsewhere(cluster):
    black = await Peer.connect(f"{cluster.url}/n/c/", "black")
    white = await Peer.connect(f"{cluster.url}/n/c/", "white")
    room = (await black.request("create", settings=SETTINGS))["room"]
    await black.request("sit", room=room, seat=0)
    await white.request("sit", room=room, seat=1)
    first = await black.request("move", room=room, move="E5", seq=1)
    assert first["type"] == "ack"
    cluster.kill("c", signal.SIGTERM)           # drains: commits what is queued, closes with 1012
    with pytest.raises(ConnectionClosed):       # (or HAProxy cuts it, having marked c down)
        await white.reply()
    # reconnect to / as a client does, backing off while c is still draining (HAProxy may still
    # send a handshake there, answered 503) or still holds the room (moved to c)
    for _ in range(100):
        try:
            white = await Peer.connect(f"{cluster.url}/", token=white.token)
            reply = await white.request("move", room=room, move="C3", seq=1)
        except InvalidStatus:
            reply = {"code": "handshake refused"}
        if reply.get("code") == "moved" and reply["node"] != "c":    # the other survivor took it
            white = await Peer.connect(f"{cluster.url}{reply['url']}", token=white.token)
            reply = await white.request("move", room=room, move="C3", seq=1)
        if reply["type"] == "ack":
            break
        await asyncio.sleep(0.1)
    assert reply["type"] == "ack" and reply["version"] == first["version"] + 1, reply


async def test_the_sdk_follows_moved_to_the_rooms_node(cluster):
    black = await Peer.connect(f"{cluster.url}/n/a/", "black")
    room = (await black.request("create", settings=SETTINGS))["room"]
    assert (await black.request("sit", room=room, seat=0))["type"] == "snapshot"
    async with Client(f"{cluster.url}/n/b/", name="white") as white:
        view = await white.sit(room, 1)                  # b answers moved: the client goes to a
        assert white.url_of(room) == f"{cluster.url}/n/a/" and white.connections[white.url_of(room)] and view.room == room
        first = await black.request("move", room=room, move="E5", seq=1)
        ack = await white.move(room, "C3")                # acknowledged at a, where the room is
        assert ack.room == room and ack.version == first["version"] + 1


async def test_a_node_paused_past_its_lease_is_fenced_when_it_wakes(cluster, postgres):
    black = await Peer.connect(f"{cluster.url}/n/a/", "black")
    white = await Peer.connect(f"{cluster.url}/n/a/", "white")
    room = (await black.request("create", settings=SETTINGS))["room"]
    await black.request("sit", room=room, seat=0)
    await white.request("sit", room=room, seat=1)
    assert (await black.request("move", room=room, move="E5", seq=1))["type"] == "ack"
    assert (await white.request("move", room=room, move="C3", seq=1))["type"] == "ack"

    cluster.kill("a", signal.SIGSTOP)
    await black.send("move", room=room, move="G7", seq=2)         # waits in a's socket
    database = cluster.db.rsplit("/", 1)[1]
    while a_lease(postgres, database)[1] == "t":
        await asyncio.sleep(0.1)
    # b takes the room over, or c's sweeper did (moved), or is doing so (unavailable a moment)
    black_at_b, moved_on = await Peer.reach(f"{cluster.url}/n/b/", black.token, "move", room=room,
                                            move="D4", seq=3)
    assert moved_on["type"] == "ack", moved_on
    paused_epoch = a_lease(postgres, database)[0]

    cluster.kill("a", signal.SIGCONT)
    # a wakes and finds itself fenced, by G7's commit or by its lease keeper's, whichever runs
    # first: G7 is refused (unavailable, or moved once a has joined again), or its connection
    # closes with 1012 as a lets the room go; never acknowledged. Or HAProxy, whose checks found
    # the paused a silent, marked it down and cut its sessions (no close frame): how soon that
    # comes against the lease's expiry is the machine's load, and the client reconnects either way
    try:
        refused = await black.reply()
        assert refused["code"] in ("unavailable", "moved") and refused["seq"] == 2, refused
    except ConnectionClosed as closed:
        assert closed.rcvd is None or closed.rcvd.code == 1012, closed
    # a has been through its fence once it has joined again with a new epoch: from then on G7 can
    # be stored by nobody (a's old epoch commits nothing, its new one owns no room of b's)
    for _ in range(400):
        assert cluster.nodes["a"].poll() is None, "a exited after waking"
        epoch, live = a_lease(postgres, database)
        if epoch > paused_epoch and live == "t":
            break
        await asyncio.sleep(0.05)
    else:
        raise AssertionError("a never joined the cluster again after waking")
    snapshot = await black_at_b.request("watch", room=room)
    assert [h[1] for h in snapshot["game"]["history"]] == ["E5", "C3", "D4"]
    assert postgres.psql(f"SELECT count(*) FROM moves WHERE room_id = '{room}' AND move = 'G7'",
                         database).strip() == "0"


def a_lease(postgres, database: str) -> tuple[int, str]:
    """Node a's row: its epoch, and whether its lease is live ("t" or "f")."""
    epoch, live = postgres.psql("SELECT epoch || ' ' || (expires_at > clock_timestamp()) FROM nodes"
                                " WHERE node_id = 'a'", database).split()
    return int(epoch), live[0]


async def test_metrics_are_refused_on_every_path_through_haproxy(cluster):
    """The deny rule once judged the path before HAProxy took `/n/<node>/` off it, so
    /n/a/metrics reached node a's /metrics."""
    base = f"http://127.0.0.1:{cluster.port}"
    for path in ("/metrics", "/metrics?x=1", "/n/a/metrics", "/n/b/metrics?format=text", "/n/c/metrics"):
        status, body = await asyncio.to_thread(http_get, base + path)
        assert status == 404 and "polygo_" not in body, (path, status)
    status, body = await asyncio.to_thread(http_get, f"http://127.0.0.1:{cluster.ports['a']}/metrics")
    assert status == 200 and "polygo_database_up 1.0" in body      # the operator's, at the node itself
    assert (await asyncio.to_thread(http_get, base + "/n/a/readyz"))[0] == 200


def http_get(url: str) -> tuple[int, str]:
    try:
        with urllib.request.urlopen(url, timeout=5) as resp:
            return resp.status, resp.read().decode()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read().decode()
