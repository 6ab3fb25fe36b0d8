"""Hostile frames against a live server: a deeply nested create is answered with a code and at
most a log line, and the connection reads on."""

from __future__ import annotations

import logging

import msgpack

from protocol import PROTOCOL_VERSION


async def test_a_deeply_nested_create_gets_a_code_and_at_most_a_log_line(server, connect_client, caplog):
    client = await connect_client("polygo.msgpack")
    await client.hello("deep")
    head = {"type": "create", "id": 7, "settings": {"rules": "chinese", "board": {"points": [], "coords": None}}}
    frame = msgpack.packb(head)[:-1] + b"\x81\xa1a" * 400 + b"\x90"     # 1,261 bytes, 400 levels
    with caplog.at_level(logging.DEBUG):
        for _ in range(5):
            await client.send_raw(frame)
            reply = await client.reply()
            assert reply["type"] == "error" and reply["code"] == "bad-field" and reply["id"] == 7, reply
            assert "deeper than" in reply["message"]
    assert len([r for r in caplog.records if r.name.startswith("polygo") or r.name.startswith("websockets")]) <= 5
    assert "Traceback" not in caplog.text
    assert (await client.ok("list"))["type"] == "rooms"
    assert (await client.request("hello", protocol=PROTOCOL_VERSION, name="still"))["type"] == "welcome"
