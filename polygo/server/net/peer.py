"""A client's connection as the rooms, the seeks, the challenges and the arena see it.

They keep connections (to tell them news) and write to them, but never need the whole
`Connection` (connection.py), which reads frames and answers every client message by calling
into the hub. Naming only what they use keeps the import graph one-way: connection.py and the
hub import these modules, and these modules import nothing of theirs.
"""

from __future__ import annotations

from typing import Any, Iterable, Protocol

from websockets.asyncio.server import ServerConnection
from websockets.frames import CloseCode

from polygo.protocol import ServerMessage, encode

from ..accounts.sessions import Session
from .frames import frame


class Peer(Protocol):
    """The side of a client's connection that others write to."""

    id: int
    ws: ServerConnection
    codec: str
    """The wire codec the client speaks (`protocol.MSGPACK` or `protocol.JSON`)."""
    address: str
    session: Session | None
    closed: bool
    watching: set[Any]
    """The rooms the connection watches (the room adds and removes itself)."""

    def send(self, message: ServerMessage) -> None: ...

    def send_frame(self, framed: bytes) -> None: ...


async def send_elsewhere(peer: Peer, reason: str) -> None:
    """Close the connection as a service restart (1012): the client reconnects at once, to `/`,
    which reaches the node that serves its room or its search now."""
    await peer.ws.close(CloseCode.SERVICE_RESTART, reason)


def broadcast(peers: Iterable[Peer], message: dict[str, Any],
              encoded: dict[str, bytes | str] | None = None) -> None:
    """Send one message to many peers, encoded and framed once per codec, when the first peer
    speaking it comes (`Connection.send_frame` skips a peer that cannot take it); `encoded`
    holds the message already encoded, by codec."""
    framed: dict[str, bytes] = {}
    for peer in peers:
        codec = peer.codec
        data = framed.get(codec)
        if data is None:
            payload = encoded.get(codec) if encoded else None
            data = framed[codec] = frame(encode(message, codec) if payload is None else payload)
        peer.send_frame(data)
