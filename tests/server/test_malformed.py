"""Hostile and broken input: each gets an error with a code, and the connection and the rooms go
on working afterwards."""

from __future__ import annotations

import asyncio
import json

import msgpack
import pytest
from polygo.protocol import PROTOCOL_VERSION

BAD_FRAMES = [
    (b"\xc1\xff\x00garbage", "bad-frame"),
    ("{not json", "bad-frame"),
    ("[1, 2, 3]", "bad-message"),
    (msgpack.packb(42), "bad-message"),
    (json.dumps({"no": "type"}), "bad-message"),
    (json.dumps({"type": 7}), "bad-message"),
    (json.dumps({"type": "launch-missiles"}), "unknown-type"),
    (json.dumps({"type": "move", "room": "r"}), "missing-field"),
    (json.dumps({"type": "move", "room": "r", "move": "D4", "seq": "1"}), "bad-field"),
    (json.dumps({"type": "move", "room": "r", "move": "D4", "seq": -1}), "bad-field"),
    (json.dumps({"type": "move", "room": "r", "move": "D4", "seq": True}), "bad-field"),
    (json.dumps({"type": "move", "room": "r", "move": "D4", "seq": 1, "extra": 1}), "bad-field"),
    (json.dumps({"type": "chat", "room": "r", "text": ""}), "bad-field"),
    (json.dumps({"type": "create", "settings": {"rules": "kee", "players": 99}}), "bad-field"),
    (json.dumps({"type": "create", "settings": "kee"}), "bad-field"),
    ('{"type": "create", "settings": {"rules": "kee", "komi": Infinity}}', "bad-frame"),
    ("[" * 100_000 + "]" * 100_000, "too-large"),
    ("[" * 30_000 + "]" * 30_000, "bad-message"),       # a list, read no deeper than its first byte
    ('{"type": "create", "settings": {"rules": "kee", "board": {"a": ' + "[" * 30_000 + "]" * 30_000 + "}}}",
     "bad-frame"),                                         # nested past the decoder's depth limit
    (msgpack.packb({"type": "move", "room": "r", "move": b"D4", "seq": 1}), "bad-field"),
    (b"\xd4\x01\x00", "bad-frame"),
    (msgpack.packb({1: "x"}), "bad-frame"),
    ('{"type": "chat", "room": "r", "text": "\\ud800"}', "bad-frame"),
    (json.dumps({"type": "chat", "room": "r", "text": "\u20ac" * 30_000}, ensure_ascii=False), "too-large"),
]


@pytest.mark.parametrize("frame,code", BAD_FRAMES, ids=[c + str(i) for i, (_, c) in enumerate(BAD_FRAMES)])
async def test_malformed_frame_gets_an_error_and_the_room_goes_on(players, seat, frame, code):
    black, white = await players(2)
    room = await seat([black, white], {"rules": "chinese", "board": "9"})
    await black.send_raw(frame)
    error = await black.reply()
    assert error["type"] == "error" and error["code"] == code and error["message"]
    assert (await black.move(room, "E5", 1))["type"] == "ack"
    assert (await white.event("move"))["move"] == "E5"


async def test_request_id_is_echoed_even_on_errors(players):
    (client,) = await players(1)
    await client.send(type="move", id=17, room="r", move="D4")
    error = await client.reply()
    assert error["id"] == 17 and error["code"] == "missing-field" and error["field"] == "seq"
    reply = await client.request("list", id=18)
    assert reply == {"type": "rooms", "id": 18, "rooms": [], "total": 0}


async def test_session_and_version_errors(connect_client):
    client = await connect_client("polygo.msgpack")
    assert (await client.request("list"))["code"] == "no-session"
    assert (await client.request("hello", protocol=PROTOCOL_VERSION + 1, name="x"))["code"] == "unsupported-version"
    assert (await client.request("hello", protocol=1, name="x"))["code"] == "unsupported-version"   # version 1 is gone
    assert (await client.request("hello", protocol=PROTOCOL_VERSION))["code"] == "bad-field"
    assert (await client.request("hello", protocol=PROTOCOL_VERSION, name="x", token="y"))["code"] == "bad-field"
    assert (await client.request("hello", protocol=PROTOCOL_VERSION, user="x"))["code"] == "missing-field"
    assert (await client.request("hello", protocol=PROTOCOL_VERSION, name="x" * 33))["code"] == "bad-field"
    welcome = await client.request("hello", protocol=PROTOCOL_VERSION, name="x")
    assert welcome["type"] == "welcome" and welcome["limits"]["frame"] == 65536


async def test_rate_limit_drops_messages_and_recovers(players, make_server, tmp_path):
    srv = await make_server(db=str(tmp_path / "rate.db"), rate=0.001, burst=3)
    (client,) = await players(1, port=srv.port)  # hello used one token
    await client.ok("list")
    await client.ok("list")
    limited = await client.request("list")
    assert limited["code"] == "rate-limited"


async def test_frames_over_the_hard_limit_close_only_that_connection(players, seat, connect_client):
    black, white = await players(2)
    room = await seat([black, white], {"rules": "chinese", "board": "9"})
    rogue = await connect_client()
    await rogue.hello("rogue")
    await rogue.send_raw(b"\x00" * (1100 * 1024))
    await asyncio.wait_for(rogue.ws.wait_closed(), 5)
    assert rogue.ws.close_code == 1009
    assert (await black.move(room, "E5", 1))["type"] == "ack"
    assert (await white.move(room, "D4", 1))["type"] == "ack"


async def test_no_subprotocol_means_msgpack(server):
    from websockets.asyncio.client import connect
    async with connect(f"ws://127.0.0.1:{server.port}/") as ws:
        await ws.send(msgpack.packb({"type": "hello", "protocol": PROTOCOL_VERSION, "name": "plain"}))
        reply = await ws.recv()
        assert isinstance(reply, bytes) and msgpack.unpackb(reply)["type"] == "welcome"
        await ws.send(json.dumps({"type": "list"}))
        assert msgpack.unpackb(await ws.recv())["type"] == "rooms"
