"""The server's websocket frames as bytes built once, for every peer they go to.

websockets builds a frame per connection and per message (a `Frame`, its checks, a buffer, a pass
through the extensions) and writes it: one event broadcast to a room's watchers would be framed
once per watcher, and the mover's event and ack would leave in two writes. A frame from a server
is simple (RFC 6455, section 5.2): FIN and the opcode, the payload's length, the payload, no mask.
The server negotiates no extension (`compression=None` in app.py), so the payload goes as it is,
and one frame's bytes can be written to any number of connections. Only websockets' public
connection API is used: its `state`, and its `transport` (the asyncio transport, which websockets'
documentation reads for a peer's write buffer).
"""

from __future__ import annotations

import logging
from asyncio import Transport
from struct import Struct

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
        return _SHORT.pack(head, size) + data
    if size < 65536:
        return _MEDIUM.pack(head, 126, size) + data
    return _LONG.pack(head, 127, size) + data


_SHORT = Struct("!BB")      # the first byte, then a 7-bit length
_MEDIUM = Struct("!BBH")    # the first byte, 126, then a 16-bit length
_LONG = Struct("!BBQ")      # the first byte, 127, then a 64-bit length


def write(ws: ServerConnection, transport: Transport, frames: bytes, address: str = "") -> None:
    """Write framed bytes to an open websocket through its `transport` (the caller has it in
    hand). websockets writes each frame it makes itself (a pong, its close) to the transport as it
    makes it, so these follow it in the order they were made; a websocket that is no longer open
    is skipped, as websockets' `broadcast` skips it. `address` names the client in a warning (its
    own, not a proxy's)."""
    if ws.state is not State.OPEN:
        return
    try:
        transport.write(frames)
    except Exception as exc:   # as broadcast does: the peer is going away, its reader ends
        log.warning("%s: skipped a write: %s", address, exc)
