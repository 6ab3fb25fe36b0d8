"""Client frames as bytes on the socket, written by hand: the server's quick reading of a lone whole
frame (`polygo/server/net/quick_reading.py`, `QuickReading`) and websockets' parser for everything else must read
the same messages in the same order, and refuse what websockets refuses, with its close codes. The
quick reading reads websockets' private state: the first test names all of it, so that a release
of websockets that moves any of it fails here, by name (CI runs on the newest the pin allows)."""

from __future__ import annotations

import asyncio
import json

import msgpack
import pytest
from websockets.frames import apply_mask
from websockets.protocol import State

from polygo.protocol import PROTOCOL_VERSION

from tests.server.conftest import WAIT

MASK = b"\x5a\x17\xc3\x08"


def masked(payload: bytes, opcode: int = 0x2, *, first: int = 0x80, mask: bytes | None = MASK) -> bytes:
    """A client's frame: FIN (or the `first` bits given) and the opcode, the length, the mask, the
    masked payload (no mask and the payload as it is for `mask=None`)."""
    size = len(payload)
    length = bytes([size]) if size < 126 else bytes([126]) + size.to_bytes(2, "big")
    if mask is None:
        return bytes([first | opcode]) + length + payload
    return bytes([first | opcode, 0x80 | length[0]]) + length[1:] + mask + apply_mask(payload, mask)


def hello(name: str, ref: int) -> bytes:
    return msgpack.packb({"type": "hello", "protocol": PROTOCOL_VERSION, "name": name, "id": ref})


async def closed_with(client) -> int:
    await asyncio.wait_for(client.ws.wait_closed(), WAIT)
    return client.ws.close_code


async def test_the_private_state_quick_reading_reads_is_where_it_reads_it(server, connect_client):
    await connect_client("polygo.msgpack")
    (connection,) = server.connections
    ws = connection.ws
    protocol = ws.protocol
    assert protocol.state is State.OPEN and protocol.debug is False
    assert protocol.reader.buffer == b"" and protocol.current_size is None
    assert protocol.max_message_size == server.config.hard_frame
    assert protocol.max_fragment_size is None or protocol.max_fragment_size >= protocol.max_message_size
    assert len(ws.recv_messages.frames) == 0 and callable(ws.recv_messages.put)
    assert ws.loop is asyncio.get_running_loop()


async def test_frames_in_pieces_together_and_alone_are_each_one_message_in_order(connect_client):
    client = await connect_client("polygo.msgpack")
    write = client.ws.transport.write
    first = masked(hello("ann", 1))
    write(first[:3])                  # the header in two pieces: websockets' parser reads it
    await asyncio.sleep(0.05)
    write(first[3:])
    assert (await client.reply())["id"] == 1
    write(masked(hello("bob", 2)) + masked(hello("cat", 3)))     # two frames in one write
    assert [(await client.reply())["id"] for _ in range(2)] == [2, 3]
    write(masked(hello("dan", 4)))                               # alone again: the quick path
    assert (await client.reply())["id"] == 4
    write(masked(hello("e" * 150, 5)))           # a 16-bit length (a name too long: refused, but read)
    assert (await client.reply())["id"] == 5


async def test_a_text_frame_read_alone_is_json(connect_client):
    client = await connect_client("polygo.json")
    message = {"type": "hello", "protocol": PROTOCOL_VERSION, "name": "ann", "id": 7}
    client.ws.transport.write(masked(json.dumps(message).encode(), opcode=0x1))
    reply = await client.reply()
    assert reply["type"] == "welcome" and reply["id"] == 7


@pytest.mark.parametrize("frame,code", [
    (masked(b"\xff\xfe not utf-8", opcode=0x1), 1007),         # a text frame must be UTF-8
    (masked(hello("ann", 1), mask=None), 1002),               # a client's frame must be masked
    (masked(hello("ann", 1), first=0xC0), 1002),              # RSV1 with no extension negotiated
    (masked(hello("ann", 1), opcode=0x0), 1002),              # a continuation with nothing to continue
], ids=["bad-utf8", "unmasked", "rsv1", "stray-continuation"])
async def test_frames_websockets_refuses_are_refused_with_its_close_code(connect_client, frame, code):
    client = await connect_client("polygo.json")
    client.ws.transport.write(frame)
    assert await closed_with(client) == code


async def test_a_frame_over_the_size_limit_read_alone_closes_with_1009(make_server, connect_client):
    server = await make_server(hard_frame=100, max_frame=50)
    client = await connect_client("polygo.msgpack", port=server.port)
    client.ws.transport.write(masked(b"\x00" * 120))
    assert await closed_with(client) == 1009


def fragments(payload: bytes) -> bytes:
    """A binary message in two frames: the first without FIN, then a continuation with it."""
    half = len(payload) // 2
    return masked(payload[:half], opcode=0x2, first=0x00) + masked(payload[half:], opcode=0x0)


async def test_a_lone_frame_to_a_waiting_reader_is_handed_over_past_the_assembler(server, connect_client):
    client = await connect_client("polygo.msgpack")
    (connection,) = server.connections
    queued = []
    put = connection.ws.recv_messages.put
    connection.ws.recv_messages.put = lambda frame: (queued.append(frame), put(frame))
    write = client.ws.transport.write
    write(masked(hello("ann", 1)))
    assert (await client.reply())["id"] == 1
    assert queued == []
    pieces = fragments(hello("bob", 2))
    write(pieces[:len(pieces) // 2 + 2])     # the first fragment and a few bytes of the second
    await asyncio.sleep(0.05)
    write(pieces[len(pieces) // 2 + 2:])
    assert (await client.reply())["id"] == 2
    assert len(queued) == 2                  # both fragments went through websockets
    write(masked(hello("cat", 3)))           # the reader waits again: handed over
    assert (await client.reply())["id"] == 3
    assert len(queued) == 2


async def test_messages_keep_their_order_whichever_way_each_is_read(connect_client):
    client = await connect_client("polygo.msgpack")
    write = client.ws.transport.write
    write(fragments(hello("ann", 1)))        # websockets' parser, into the assembler
    for ref in range(2, 8):                  # lone frames, some while the reader is busy with the last
        write(masked(hello(f"p{ref}", ref)))
        if ref % 3 == 0:
            await asyncio.sleep(0.01)
    assert [(await client.reply())["id"] for _ in range(7)] == list(range(1, 8))


async def test_a_ping_while_the_reader_waits_is_answered_and_reading_goes_on(connect_client):
    client = await connect_client("polygo.msgpack")
    pong = await client.ws.ping(b"here?")
    await asyncio.wait_for(pong, WAIT)
    client.ws.transport.write(masked(hello("ann", 1)))
    assert (await client.reply())["id"] == 1


async def test_the_reader_ends_when_the_peer_goes_away_while_it_waits(server, connect_client):
    client = await connect_client("polygo.msgpack")
    assert len(server.connections) == 1
    client.ws.transport.abort()              # no closing handshake: the connection is lost
    for _ in range(100):
        if not server.connections:
            break
        await asyncio.sleep(0.01)
    assert not server.connections
