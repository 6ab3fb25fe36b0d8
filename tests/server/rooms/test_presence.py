"""Presence: every watcher learns which seats' players are here and who watches, as connections
open and close, without the room's versions moving (docs/protocol.md, "Presence")."""

from __future__ import annotations

from typing import Any, Callable

from websockets.asyncio.client import connect

from polygo.protocol import PROTOCOL_VERSION

from tests.server.conftest import Client


async def presence(client: Client, wanted: Callable[[dict[str, Any]], bool] = lambda e: True) -> dict[str, Any]:
    """The next presence event that is as `wanted` (the earlier ones, sent while changes were on
    their way, are skipped: each presence is whole, a client keeps the latest)."""
    while True:
        event = await client.event("presence")
        if wanted(event):
            return event


def state(event: dict[str, Any]) -> tuple:
    return event["online"], event["spectators"], event["names"]


async def test_seats_online_as_connections_open_and_close(players, seat, connect_client):
    black, white = await players(2)
    room = await seat([black, white], {"rules": "chinese", "board": "9"})
    version = (await black.ok("watch", room=room))["version"]
    assert state(await presence(black, lambda e: all(e["online"]))) == ([True, True], 0, [])

    await white.close()
    gone = await presence(black, lambda e: e["online"] == [True, False])
    assert gone["version"] == version and gone["room"] == room

    again = await connect_client()
    await again.ok("hello", protocol=PROTOCOL_VERSION, token=white.token)
    await again.ok("watch", room=room, since=version)
    mine = await presence(again)
    assert state(mine) == ([True, True], 0, [])
    assert state(await presence(black, lambda e: e["online"] == [True, True])) == ([True, True], 0, [])

    # presence moves no version: the room's events since then are none, and a move is the next one
    assert (await black.ok("watch", room=room, since=version)) == {"type": "events", "room": room, "events": []}
    assert (await black.move(room, "E5", 1))["version"] == version + 1


async def test_spectators_counted_by_person_and_named(players, seat, connect_client):
    black, white = await players(2)
    room = await seat([black, white], {"rules": "kee", "board": "5", "players": 2})
    fan = await connect_client()
    await fan.hello("zoe")
    await fan.ok("watch", room=room)
    assert state(await presence(fan)) == ([True, True], 1, ["zoe"])
    second_tab = await connect_client("polygo.msgpack")
    await second_tab.ok("hello", protocol=PROTOCOL_VERSION, token=fan.token)
    await second_tab.ok("watch", room=room)
    assert state(await presence(second_tab)) == ([True, True], 1, ["zoe"])
    other = await connect_client()
    await other.hello("Adam")
    await other.ok("watch", room=room)
    assert state(await presence(other)) == ([True, True], 2, ["Adam", "zoe"])
    assert state(await presence(white, lambda e: e["spectators"] == 2)) == ([True, True], 2, ["Adam", "zoe"])

    # a registered user watching from two browsers is one spectator
    reg = await connect_client()
    await reg.hello("guest")
    await reg.ok("register", user="Ulla", password="secret")
    await reg.ok("watch", room=room)
    elsewhere = await connect_client()
    await elsewhere.ok("hello", protocol=PROTOCOL_VERSION, user="Ulla", password="secret")
    await elsewhere.ok("watch", room=room)
    assert state(await presence(elsewhere)) == ([True, True], 3, ["Adam", "Ulla", "zoe"])
    await reg.close()
    await elsewhere.close()

    await other.ok("leave", room=room)
    await fan.close()
    assert state(await presence(white, lambda e: e["names"] == ["zoe"])) == ([True, True], 1, ["zoe"])
    await second_tab.close()
    assert state(await presence(white, lambda e: e["spectators"] == 0)) == ([True, True], 0, [])


async def test_waiting_room_free_seats_and_house_bot(players, connect_client):
    (ann,) = await players(1)
    room = (await ann.ok("create", settings={"rules": "kee", "board": "5", "players": 3, "bots": 1}))["room"]
    await ann.ok("sit", room=room, seat=0)
    assert state(await presence(ann)) == ([True, False, True], 0, [])
    bob = await connect_client()
    await bob.hello("bob")
    await bob.ok("watch", room=room)
    assert state(await presence(ann, lambda e: e["spectators"] == 1)) == ([True, False, True], 1, ["bob"])
    await bob.ok("sit", room=room, seat=1)
    assert state(await presence(ann, lambda e: e["online"] == [True, True, True])) == ([True, True, True], 0, [])


async def test_a_login_then_a_watch_puts_the_user_in_his_seat(players, connect_client):
    (ann,) = await players(1)
    await ann.ok("register", user="ann", password="secret")
    room = (await ann.ok("create", settings={"rules": "chinese", "board": "9"}))["room"]
    await ann.ok("sit", room=room, seat=0)
    other = await connect_client()
    await other.hello("guest")
    await other.ok("watch", room=room)
    assert state(await presence(other)) == ([True, False], 1, ["guest"])
    await ann.close()
    assert state(await presence(other, lambda e: e["online"][0] is False)) == ([False, False], 1, ["guest"])
    await other.ok("hello", protocol=PROTOCOL_VERSION, user="ann", password="secret")
    await other.ok("watch", room=room)         # a second hello leaves the old identity's rooms
    assert state(await presence(other, lambda e: e["online"][0])) == ([True, False], 0, [])


async def test_changes_close_together_are_sent_together(make_server):
    """With an interval of an hour, the first change goes out at once and the next ones wait: the
    player sees no second broadcast, while each newcomer still gets the presence as it is."""
    srv = await make_server(presence_interval=3600.0)
    url = f"ws://127.0.0.1:{srv.port}/"
    clients = []
    try:
        for _ in range(5):
            clients.append(Client(await connect(url, subprotocols=["polygo.json"]), "polygo.json"))
        ann, *fans = clients
        await ann.hello("ann")
        room = (await ann.ok("create", settings={"rules": "chinese", "board": "9"}))["room"]
        await ann.ok("sit", room=room, seat=0)
        # one presence after the reply, one broadcast for the change: the interval starts now
        first = [await presence(ann), await presence(ann)]
        for i, fan in enumerate(fans, 1):
            await fan.hello(f"fan{i}")
            await fan.ok("watch", room=room)
            assert (await presence(fan))["spectators"] == i
        await ann.ok("list")      # whatever was sent to Ann before this reply has arrived
        later = [e for e in _drain(ann) if e["kind"] == "presence"]
        assert [e["spectators"] for e in first] == [0, 0] and later == []
    finally:
        for client in clients:
            await client.close()
        assert not [m for c in clients for m in c.undescribed]


def _drain(client: Client) -> list[dict[str, Any]]:
    out = []
    while not client.events.empty():
        out.append(client.events.get_nowait())
    return out
