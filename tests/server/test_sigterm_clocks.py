"""Issue 16, item 8: SIGTERM stops every clock before the close wait. A peer that never answers the
closing handshake holds the stop for websockets' close timeout (2 s); a player with less than that
on the clock must not lose on time meanwhile, nor be charged the wait after the restart."""

from __future__ import annotations

import asyncio
import signal
import socket
import sqlite3


def mute_peer(port: int) -> socket.socket:
    """A websocket client that completes the handshake and then never reads nor answers a close."""
    sock = socket.create_connection(("127.0.0.1", port))
    sock.sendall(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                 b"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n")
    assert b" 101 " in sock.recv(4096)
    return sock


async def test_sigterm_stops_the_clocks_before_the_close_wait(spawn_server, players, seat, tmp_path, port):
    db = tmp_path / "clocks.db"
    proc = await spawn_server(db, port)
    black, white = await players(2, port=port)
    room = await seat([black, white], {"rules": "chinese", "board": "9", "clock": "absolute:1.5"})
    mute = await asyncio.to_thread(mute_peer, port)
    proc.send_signal(signal.SIGTERM)
    assert await asyncio.to_thread(proc.wait, 30) == 0        # after the mute peer's 2 s close wait
    mute.close()
    with sqlite3.connect(db) as con:
        moves = con.execute("SELECT move FROM moves WHERE room_id = ?", (room,)).fetchall()
    assert moves == []                                        # no timeout was recorded

    proc = await spawn_server(db, port)
    (watcher,) = await players(1, port=port)
    snapshot = await watcher.ok("watch", room=room)
    assert snapshot["status"] == "playing" and snapshot["clocks"]["seats"][0]["main"] > 0.5
    proc.terminate()
    assert await asyncio.to_thread(proc.wait, 30) == 0
