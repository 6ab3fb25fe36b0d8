"""The separate metrics port (`--metrics-port`), served by a thread with an event loop of its own.

On the game port an HTTP answer waits its turn on the loop behind every game's frames
(`bench/server_http.py`, figures in docs/performance.md). Prometheus and the probes on the metrics
port need none of the game loop's state but a few counts, so that port is served from a thread:
its answers wait only for the interpreter's lock, which a busy loop hands over at every switch
interval (`sys.getswitchinterval`), and they still come when the game loop is stuck. What the
thread reads of the server (the phase, the gauges, the registry) is read without locks; see
`Server._gauges` for the copies it takes.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import threading

from websockets.asyncio.server import Server as WsServer
from websockets.asyncio.server import ServerConnection, serve

from .endpoints import SERVER_HEADER, Endpoints


async def _never_upgraded(ws: ServerConnection) -> None:
    """The metrics port answers every request in `Endpoints` (404 for what is not its own), so no
    websocket is ever opened there."""
    await ws.close()


class ProbePort:
    """`Endpoints` on a port of its own, in a daemon thread: `port = ProbePort(...).start()`, later
    `await probes.close()`."""

    def __init__(self, endpoints: Endpoints, host: str | None, port: int) -> None:
        self._endpoints = endpoints
        self._host = host
        self._port = port
        self._loop: asyncio.AbstractEventLoop | None = None
        self._server: WsServer | None = None
        self._thread = threading.Thread(target=self._run, name="polygo-metrics-port", daemon=True)
        self._ready: concurrent.futures.Future[int] = concurrent.futures.Future()

    async def start(self) -> int:
        """Listen, in the thread; the port listened on (useful with port 0). A port that cannot
        be bound raises here, as the game port's would."""
        self._thread.start()
        return await asyncio.wrap_future(self._ready)

    def _run(self) -> None:
        asyncio.run(self._serve())

    async def _serve(self) -> None:
        try:
            self._server = await serve(_never_upgraded, self._host, self._port, process_request=self._endpoints,
                                       server_header=SERVER_HEADER)
        except BaseException as exc:
            self._ready.set_exception(exc)
            return
        self._loop = asyncio.get_running_loop()
        self._ready.set_result(self._server.sockets[0].getsockname()[1])
        await self._server.wait_closed()

    async def close(self) -> None:
        """Stop listening and end the thread."""
        if self._loop is not None and self._server is not None:
            self._loop.call_soon_threadsafe(self._server.close)
        if self._thread.is_alive():
            await asyncio.to_thread(self._thread.join)
