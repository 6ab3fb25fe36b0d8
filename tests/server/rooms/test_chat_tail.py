"""A room's snapshot carries its chat so far (the last lines, bounded), for a reload or a late
spectator, also after a restart; a `create` may be larger than any other message."""

from __future__ import annotations

import json

from polygo.protocol import PROTOCOL_VERSION
from polygo.server.rooms.room import CHAT_TAIL
from tests.lattices import triangular_lattice


async def test_a_late_spectator_reads_the_chat_tail_in_the_snapshot(players, seat, connect_client):
    black, white = await players(2)
    room = await seat([black, white], {"rules": "chinese", "board": "9"})
    await black.ok("chat", room=room, text="good luck")
    await white.ok("chat", room=room, text="you too")
    fan = await connect_client()
    await fan.hello("fan")
    snapshot = await fan.ok("watch", room=room)
    assert [(line["name"], line["seat"], line["text"]) for line in snapshot["chat"]] == [
        ("p0", 0, "good luck"), ("p1", 1, "you too")]
    assert snapshot["chat"][-1]["version"] == snapshot["version"]


async def test_the_tail_is_bounded_and_survives_a_restart(make_server, connect_client):
    srv = await make_server(chat_rate=1e9)
    talk = await connect_client(port=srv.port)
    await talk.hello("talk")
    room = (await talk.ok("create", settings={"rules": "chinese", "board": "9"}))["room"]
    await talk.ok("sit", room=room, seat=0)
    for i in range(CHAT_TAIL + 5):
        await talk.ok("chat", room=room, text=f"line {i}")
    tail = [line["text"] for line in (await talk.ok("watch", room=room))["chat"]]
    assert tail == [f"line {i}" for i in range(5, CHAT_TAIL + 5)]
    await srv.close()
    srv = await make_server()
    again = await connect_client(port=srv.port)
    await again.ok("hello", protocol=PROTOCOL_VERSION, token=talk.token)
    snapshot = await again.ok("watch", room=room)
    assert [line["text"] for line in snapshot["chat"]] == tail
    assert snapshot["chat"][0]["name"] == "talk" and snapshot["chat"][0]["seat"] == 0


async def test_a_create_may_carry_a_4096_point_board_and_other_messages_may_not(players):
    (host,) = await players(1)
    settings = {"rules": "chinese", "board": triangular_lattice(64), "players": 2}
    assert len(json.dumps({"type": "create", "settings": settings})) > 4 * 65536
    created = await host.ok("create", settings=settings)
    snapshot = await host.ok("sit", room=created["room"], seat=0)
    assert len(snapshot["game"]["board"]["points"]) == 4096
    refused = await host.request("chat", room=created["room"], text="x", padding="y" * 70_000)
    assert refused["code"] == "too-large" and refused["ref"] == "chat"
