"""The frames the server builds itself (polygo/server/net/frames.py) read back as websockets reads them, at
each length encoding; a live connection keeps nothing of its handshake's headers."""

from __future__ import annotations

import pytest
from websockets.frames import Frame, Opcode
from websockets.streams import StreamReader

from polygo.server.net.frames import frame


def parsed(data: bytes) -> Frame:
    """`data` as a client parses it: one unmasked frame, nothing left over."""
    reader = StreamReader()
    reader.feed_data(data)
    reader.feed_eof()
    parser = Frame.parse(reader.read_exact, mask=False)
    try:
        next(parser)
    except StopIteration as done:
        assert reader.at_eof()
        return done.value
    raise AssertionError("the frame is incomplete")


@pytest.mark.parametrize("size", [0, 1, 125, 126, 65535, 65536, 70000])
def test_binary_frames_at_every_length_encoding(size):
    payload = bytes(range(256)) * (size // 256) + bytes(size % 256)
    got = parsed(frame(payload))
    assert (got.opcode, got.fin, got.rsv1, got.data) == (Opcode.BINARY, True, False, payload)


@pytest.mark.parametrize("text", ["", "{}", "é" * 100, "ko ☗" * 20000])
def test_text_frames_carry_utf8(text):
    got = parsed(frame(text))
    assert (got.opcode, got.fin, got.data.decode()) == (Opcode.TEXT, True, text)


async def test_a_connection_forgets_its_handshake_headers(server, players):
    clients = await players(2, "polygo.msgpack")
    room = (await clients[0].ok("create", settings={"rules": "chinese", "board": "9"}))["room"]
    for i, client in enumerate(clients):
        await client.ok("sit", room=room, seat=i)
    assert (await clients[0].move(room, "D4", 1))["type"] == "ack"
    assert (await clients[1].event("move"))["move"] == "D4"
    assert len(server.connections) == 2
    for conn in server.connections:
        assert conn.ws.response is None
        assert conn.ws.request.path == "/" and not list(conn.ws.request.headers.raw_items())
