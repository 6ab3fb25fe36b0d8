"""One websocket connection to a polygo server: requests matched to their replies, events queued.

Every request gets a fresh `id`; the server copies it into its direct reply, which settles the
request's future. Everything else the server sends (room events, and the replies to `watch`) goes to
`events` in arrival order. When the socket closes, pending requests fail with `ConnectionFailed`
and `events` yields `None`: reconnecting is the session's job (`polygo.client.session`).
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools

import websockets
from websockets.asyncio.client import ClientConnection, connect

from polygo.protocol import MSGPACK, ClientMessage, Error, ProtocolError, ServerMessage, client_to_wire, decode_server, encode

from polygo.client.errors import ConnectionFailed, ServerRefused

MAX_INBOUND = 2**24
"""Largest frame accepted from the server (snapshots of long games on big graphs exceed 64 KiB)."""

REQUEST_TIMEOUT = 30.0


class Connection:
    """An open connection. Create with `Connection.open`; `request` sends, `events` receives."""

    def __init__(self, ws: ClientConnection, codec: str) -> None:
        self.ws = ws
        self.codec = codec
        self.events: asyncio.Queue[ServerMessage | None] = asyncio.Queue()
        self._ids = itertools.count(1)
        self._pending: dict[int, asyncio.Future[ServerMessage]] = {}
        self._reader = asyncio.create_task(self._read())

    @classmethod
    async def open(cls, url: str, *, codec: str = MSGPACK, timeout: float = 5.0) -> Connection:
        """Connect to `url` (ws://host:port/); `ConnectionFailed` when nothing answers there."""
        try:
            ws = await connect(url, subprotocols=[codec], max_size=MAX_INBOUND, open_timeout=timeout,
                               compression=None)
        except (OSError, asyncio.TimeoutError, websockets.InvalidHandshake, websockets.InvalidURI) as exc:
            raise ConnectionFailed(f"cannot connect to {url}: {exc}") from None
        return cls(ws, codec)

    @property
    def closed(self) -> bool:
        return self._reader.done()

    async def request(self, message: ClientMessage, *, timeout: float = REQUEST_TIMEOUT) -> ServerMessage:
        """Send `message` and return the server's direct reply; an `error` reply raises `ServerRefused`."""
        ident = next(self._ids)
        future: asyncio.Future[ServerMessage] = asyncio.get_running_loop().create_future()
        self._pending[ident] = future
        try:
            if self.closed:
                raise ConnectionFailed("the connection to the server is closed")
            frame = encode(client_to_wire(message, id=ident), self.codec)
            try:
                await self.ws.send(frame)
            except websockets.ConnectionClosed:
                raise ConnectionFailed("the connection to the server was lost") from None
            try:
                reply = await asyncio.wait_for(future, timeout)
            except asyncio.TimeoutError:
                raise ConnectionFailed(f"the server did not answer {message.TYPE!r} within {timeout:g} s") from None
        finally:
            self._pending.pop(ident, None)
        if isinstance(reply, Error):
            raise ServerRefused(reply.message, code=reply.code, reason=reply.reason, url=reply.url,
                                retry_after=reply.retry_after)
        return reply

    async def close(self) -> None:
        await self.ws.close()
        with contextlib.suppress(asyncio.CancelledError):
            await self._reader

    async def _read(self) -> None:
        try:
            async for frame in self.ws:
                try:
                    message = decode_server(frame)
                except ProtocolError:
                    continue
                future = self._pending.get(message.id) if message.id is not None else None
                if future is not None and not future.done():
                    future.set_result(message)
                else:
                    self.events.put_nowait(message)
        except websockets.ConnectionClosed:
            pass
        finally:
            for future in self._pending.values():
                if not future.done():
                    future.set_exception(ConnectionFailed("the connection to the server was lost"))
            self.events.put_nowait(None)
