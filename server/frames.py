"""The server's websocket frames as bytes built once, for every peer they go to.

websockets builds a frame per connection and per message (a `Frame`, its checks, a buffer, a pass
through the extensions), queues it in the connection's protocol and then writes it: one event
broadcast to a room's watchers was framed once per watcher, and the mover's event and ack each
went through it (issue 13: framing was 7% of the server's time, the sends 25%). A frame from a
server is simple (RFC 6455, section 5.2): FIN and the opcode, the payload's length, the payload,
no mask. The server negotiates no extension (`compression=None` in app.py), so the payload goes
as it is, and one frame's bytes can be written to any number of connections.
"""

from __future__ import annotations

import logging

from websockets.asyncio.server import ServerConnection
from websockets.protocol import State

log = logging.getLogger("polygo.frames")

_TEXT = 0x81      # FIN, opcode 1
_BINARY = 0x82    # FIN, opcode 2


def frame(payload: bytes | str) -> bytes:
    """A whole unmasked frame: text for a str (JSON), binary for bytes (msgpack)."""
    if isinstance(payload, str):
        data, head = payload.encode(), _TEXT
    else:
        data, head = payload, _BINARY
    size = len(data)
    if size < 126:
        return bytes((head, size)) + data
    if size < 65536:
        return bytes((head, 126)) + size.to_bytes(2, "big") + data
    return bytes((head, 127)) + size.to_bytes(8, "big") + data


def write(ws: ServerConnection, frames: bytes) -> None:
    """Write framed bytes to an open websocket, after anything websockets still holds for it (a
    pong), so the order of the frames on the wire is the order they were made in. A websocket
    that is closing is skipped, as websockets' `broadcast` skips it."""
    if ws.protocol.state is not State.OPEN:
        return
    try:
        if ws.protocol.writes:
            ws.send_data()
        ws.transport.write(frames)
    except Exception as exc:   # as broadcast does: the peer is going away, its reader ends
        log.warning("%s: skipped a write: %s", ws.remote_address, exc)
