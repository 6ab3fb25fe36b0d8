"""A client's lone whole data frame read without websockets' parser, handed to a waiting reader.

This module alone reads websockets' private state (the protocol's reader buffer, fragment and
size limits, the assembler's queue): the reason for the pin `websockets<18` in pyproject.toml,
and for the first test of tests/server/net/test_frames_in.py, which fails by name if a release moves
any of it. It stays because it takes 14% of the server's instructions off a move (docs/server.md).

Inbound, a client's frame usually arrives alone in one read: `QuickReading` takes such a frame
without websockets' parser (a generator over a stream reader, the protocol's events, the
connection's checks of what to send and when to close), and when the connection's reader is
waiting for its next message with nothing queued, hands the message straight to it
(`QuickReading.message`), past websockets' assembler. Anything else (a frame in pieces or with
others, a control frame, a fragment, an unmasked or reserved-bit frame, one over the size limit,
text that is not UTF-8, a connection not open) goes through websockets exactly as before.
"""

from __future__ import annotations

import asyncio
from typing import Any, Awaitable

from websockets.asyncio.server import ServerConnection
from websockets.frames import Frame, Opcode, apply_mask
from websockets.protocol import Protocol, State

class QuickReading(ServerConnection):
    """A server connection that takes a lone, whole data frame without websockets' parser and,
    when its reader waits for the next message, hands the message straight to it.

    websockets' path for one message is its parser (a generator over a stream reader), the
    protocol's events, its assembler, `recv` (a queue, a future, flow control) and the coroutines
    around them. A message that is not handed over (the reader busy, or anything queued before
    it) goes to the assembler, and the reader takes it through `recv`, so the order of the
    messages is the order of their frames.
    """

    __slots__ = ("_reader",)   # a slot, not a key more in each connection's dict: 0.3 KiB a connection

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self._reader: asyncio.Future | None = None
        """`message`'s wait for a frame handed over; set only while nothing is queued in the assembler."""
        super().__init__(*args, **kwargs)

    def message(self) -> Awaitable[bytes | str | None]:
        """What the reader awaits for the next message: with nothing queued, the future a lone
        frame's message is handed over by, which gives None when the message went to websockets
        instead (then `recv` gives it, in order, or raises ConnectionClosed); else `recv()`. Not a
        coroutine: the reader awaits the future itself, a coroutine fewer a message."""
        if not len(self.recv_messages.frames) and self.protocol.state is State.OPEN:
            self._reader = reader = self.loop.create_future()
            return reader
        return self.recv()

    def data_received(self, data: bytes) -> None:
        lone = lone_data_frame(self.protocol, data)
        reader = self._reader
        if lone is not None and reader is not None and not reader.done():   # done: cancelled, its reader gone
            message = _message(*lone)
            if message is not None:
                self._reader = None
                reader.set_result(message)
                return
        if lone is None:
            super().data_received(data)
        else:
            self.recv_messages.put(Frame(*lone))
        self._to_recv()

    def connection_lost(self, exc: Exception | None) -> None:
        super().connection_lost(exc)
        self._to_recv()

    def _to_recv(self) -> None:
        """Something went to websockets (a frame into the assembler, a close): a waiting reader
        reads on through `recv`, which gives it in order or raises ConnectionClosed."""
        reader, self._reader = self._reader, None
        if reader is not None and not reader.done():
            reader.set_result(None)


def _message(opcode: Opcode, payload: bytes) -> bytes | str | None:
    """A data frame's message as `recv` gives it, or None for text that is not UTF-8 (websockets
    closes with 1007 for it, through `recv`)."""
    if opcode is Opcode.BINARY:
        return payload
    try:
        return payload.decode()
    except UnicodeDecodeError:
        return None


def lone_data_frame(protocol: Protocol, data: bytes) -> tuple[Opcode, bytes] | None:
    """`data` as the frame websockets' parser would make of it (its opcode and unmasked payload,
    a `Frame`'s first two fields: one is built only for a frame that goes to the assembler), if it
    is exactly one whole frame that needs nothing else from the parser: FIN, no reserved bit, text
    or binary, masked, a 7- or 16-bit length within the limits, read at a frame's boundary
    (nothing buffered) of an open connection with no fragmented message under way. None otherwise."""
    if len(data) < 6 or data[0] not in _DATA:
        return None
    size, start = data[1] ^ 0x80, 6     # the mask bit set: what is left is the 7-bit length
    if size == 126:
        size, start = int.from_bytes(data[2:4], "big"), 8
    elif size > 125:                     # a 64-bit length, or no mask: the parser's to refuse or read
        return None
    if len(data) != start + size or protocol.state is not State.OPEN or protocol.reader.buffer \
            or protocol.current_size is not None or protocol.debug:
        return None
    limit = protocol.max_message_size
    if limit is not None and size > limit:
        return None
    limit = protocol.max_fragment_size
    if limit is not None and size > limit:
        return None
    return _DATA[data[0]], apply_mask(data[start:], data[start - 4:start])


_DATA = {0x81: Opcode.TEXT, 0x82: Opcode.BINARY}
"""The first byte of a whole data frame (FIN and the opcode), and its opcode."""
