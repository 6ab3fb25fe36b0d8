"""The server as an object: open the store, rebuild unfinished rooms, listen; and close again.

`Server` is what `polygo-server` runs and what tests start in-process on a free port.
"""

from __future__ import annotations

import asyncio
import gc
import logging
import signal
from typing import Sequence

from websockets.asyncio.server import Server as WsServer
from websockets.asyncio.server import ServerConnection, serve

from protocol import SUBPROTOCOLS

from .config import Config
from .connection import Connection
from .hub import Hub
from .sessions import Sessions
from .store import Store

log = logging.getLogger("polygo.server")

GC_THRESHOLDS = (50_000, 20, 100)
"""Every move leaves a few objects alive (its event in the resync window, its row); with the default
thresholds the collector's full passes over all games' state stalled every room for tens of
milliseconds at 200 games (p99 move latency x3). Collect young objects less often instead."""


def _select_subprotocol(connection: ServerConnection, offered: Sequence[str]) -> str | None:
    """The client's preferred polygo codec; none offered (or none known) means msgpack."""
    for name in offered:
        if name in SUBPROTOCOLS:
            return name
    return None


class Server:
    """A running polygo server; `await Server(config).start()`, later `await server.close()`."""

    def __init__(self, config: Config) -> None:
        self.config = config
        self.store: Store | None = None
        self.hub: Hub | None = None
        self._ws: WsServer | None = None

    async def start(self) -> "Server":
        config = self.config
        self.store = await Store.open(config.db, group_window=config.group_window,
                                      synchronous=config.synchronous)
        self.hub = Hub(config, self.store, Sessions(self.store))
        restored = await self.hub.restore()
        gc.freeze()
        gc.set_threshold(*GC_THRESHOLDS)
        self._ws = await serve(
            self._handler, config.host, config.port,
            subprotocols=list(SUBPROTOCOLS), select_subprotocol=_select_subprotocol,
            max_size=config.hard_frame, compression=None, max_queue=8,
            ping_interval=config.ping_interval, ping_timeout=config.ping_timeout, close_timeout=2,
        )
        log.info("polygo listening on %s:%d, database %s, %d unfinished rooms resumed",
                 config.host, self.port, config.db, restored)
        return self

    @property
    def port(self) -> int:
        """The port actually listened on (useful with port 0)."""
        return self._ws.sockets[0].getsockname()[1]

    async def _handler(self, ws: ServerConnection) -> None:
        await Connection(self.hub, ws).serve()

    async def close(self) -> None:
        """Stop listening, drop the connections, stop the rooms, close the store."""
        if self._ws is not None:
            self._ws.close()
            await self._ws.wait_closed()
        if self.hub is not None:
            await self.hub.close()
        if self.store is not None:
            await self.store.close()


async def run(config: Config) -> None:
    """Serve until SIGINT or SIGTERM."""
    server = await Server(config).start()
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    await stop.wait()
    log.info("shutting down")
    await server.close()
