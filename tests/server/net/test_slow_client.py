"""A client that stops reading is cut off once its outbound data passes the limit; its room and the
other players go on as if nothing happened."""

from __future__ import annotations

import asyncio
import json
import socket
from polygo.protocol import PROTOCOL_VERSION

HANDSHAKE = ("GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
             "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n"
             "Sec-WebSocket-Protocol: polygo.json\r\n\r\n")


def text_frame(message: dict) -> bytes:
    """A masked client text frame (mask key zero, so the payload is sent as is)."""
    payload = json.dumps(message).encode()
    if len(payload) < 126:
        header = bytes([0x81, 0x80 | len(payload)])
    else:
        header = bytes([0x81, 0x80 | 126]) + len(payload).to_bytes(2, "big")
    return header + b"\x00\x00\x00\x00" + payload


async def test_a_client_that_stops_reading_is_disconnected_and_the_room_goes_on(players, make_server, tmp_path):
    srv = await make_server(db=str(tmp_path / "slow.db"), rate=1e6, burst=1e6, outbound_limit=64 * 1024)
    black, white = await players(2, port=srv.port)
    room = (await black.ok("create", settings={"rules": "chinese", "board": "19"}))["room"]
    await black.ok("sit", room=room)
    await white.ok("sit", room=room)

    loop = asyncio.get_running_loop()
    sock = socket.socket()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    sock.setblocking(False)
    await loop.sock_connect(sock, ("127.0.0.1", srv.port))
    await loop.sock_sendall(sock, HANDSHAKE.encode())
    response = b""
    while b"\r\n\r\n" not in response:
        response += await loop.sock_recv(sock, 1024)
    assert b" 101 " in response
    await loop.sock_sendall(sock, text_frame({"type": "hello", "protocol": PROTOCOL_VERSION, "name": "sleeper"}))
    watchers = srv.hub.rooms[room].watchers
    watch = text_frame({"type": "watch", "room": room})
    subscribed = False
    try:
        for _ in range(5000):
            try:
                await loop.sock_sendall(sock, watch)
            except OSError:
                break
            await asyncio.sleep(0)
            subscribed = subscribed or len(watchers) == 3
            if subscribed and len(watchers) == 2:
                break
        for _ in range(500):
            if subscribed and len(watchers) == 2:
                break
            await asyncio.sleep(0.01)
        assert subscribed and len(watchers) == 2, "the sleeping client was not cut off"
        for i, (client, move) in enumerate([(black, "D4"), (white, "Q16"), (black, "Q4")]):
            assert (await client.move(room, move, i))["type"] == "ack"
    finally:
        sock.close()
