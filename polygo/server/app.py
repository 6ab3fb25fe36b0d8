"""The server as an object: open the store, listen, rebuild unfinished rooms, serve; drain and close.

`Server` is what `polygo-server` runs and what tests start in-process on a free port. Its life is
a `Phase`: STARTING (listening, so /healthz answers, but websocket handshakes and /readyz get
503 until the unfinished games are rebuilt), READY, then DRAINING on SIGTERM (see `drain`).
"""

from __future__ import annotations

import asyncio
import faulthandler
import logging
import signal
import time
from typing import Any, Callable, Sequence

from websockets.asyncio.server import Server as WsServer
from websockets.asyncio.server import ServerConnection, serve
from websockets.frames import CloseCode

from polygo.protocol import SUBPROTOCOLS

from .accounts.sessions import Sessions
from .admin import AdminSocket
from .config import Config
from .connection import Connection
from .http.api import Api
from .http.endpoints import SERVER_HEADER, Endpoints, Phase
from .http.probes import ProbePort
from .http.webfiles import WebFiles
from .hub import Hub
from .net.gate import AcceptErrorLimiter, Gate, gated
from .ops.logs import event
from .ops.metrics import make_metrics
from .ops.systemd import Notifier, heartbeat
from .rooms.deadlines import sweep_forever
from .store import Store, StoreError
from .store.backup import BackupError, before_migration, last_backup
from .store.lockfile import DatabaseLock
from .store.postgres import is_postgres, redacted

log = logging.getLogger("polygo.server")

CLOSE_BUDGET = 3.0
"""Seconds of the drain timeout kept for the closing handshakes (websockets waits 2 s per peer)."""

RESTART_REASON = "server restarting"

EXIT_GRACE = 2.0
"""Seconds past the drain timeout after which the process exits from a thread of faulthandler's,
printing every thread's stack, if the event loop is too stuck to end the stop itself: the bound
on a stop cannot be enforced by the loop it bounds."""

HOUSEKEEPING = 3600.0
"""Seconds between two sweeps of idle sessions and old chat (or a tenth of the shorter of
`Config.session_idle` and `Config.chat_retention`, if that is less)."""


def _select_subprotocol(connection: ServerConnection, offered: Sequence[str]) -> str | None:
    """The client's preferred polygo codec; none offered (or none known) means msgpack."""
    for name in offered:
        if name in SUBPROTOCOLS:
            return name
    return None


class Server:
    """A running polygo server; `await Server(config).start()`, later `await server.shutdown()`
    (the graceful stop of SIGTERM) or `await server.close()` (at once; tests)."""

    def __init__(self, config: Config, notifier: Notifier | None = None) -> None:
        self.config = config
        self.notifier = notifier or Notifier({})
        self.phase = Phase.STARTING
        self.store: Store | None = None
        self.hub: Hub | None = None
        self.connections: set[Connection] = set()
        self.metrics = make_metrics(self._gauges, config.metrics_max_age)
        self._ws: WsServer | None = None
        self._probes: ProbePort | None = None
        self._metrics_port: int | None = None
        self._heartbeat: asyncio.Task[None] | None = None
        self._housekeeping: asyncio.Task[None] | None = None
        self._deadlines: asyncio.Task[None] | None = None
        self._admin: AdminSocket | None = None
        self._lock: DatabaseLock | None = None
        self.gate = Gate(config.connection_limit(), config.connections_per_address, config.trusted_proxies,
                         self.metrics)

    async def start(self) -> "Server":
        config = self.config
        # One server per SQLite file; the nodes of a cluster share their PostgreSQL database.
        self._lock = None if is_postgres(config.db) else DatabaseLock.acquire(config.db)
        try:
            if config.migration_backup:
                await self._backup_before_migration()
            self.store = await Store.open(config.db, group_window=config.group_window, synchronous=config.synchronous,
                                          lease=config.lease_of_node() if is_postgres(config.db) else None)
        except BaseException:
            if self._lock is not None:
                self._lock.release()
            raise
        self.store.observer = self.metrics
        self.hub = Hub(config, self.store, Sessions(self.store, failures_per_name=config.login_failures,
                                                       failures_per_address=config.login_failures_per_address,
                                                       window=config.login_window, guest_rate=config.guest_rate,
                                                       register_rate=config.register_rate), metrics=self.metrics)
        try:
            await self.hub.bans.load(self.store)
            self._ws = await serve(   # no compression: frames.py writes frames without extensions
                self._handler, config.host, config.port,
                process_request=Endpoints(self._phase, self.metrics, metrics_here=config.metrics_port is None,
                                          web=WebFiles(), trusted=config.trusted_proxies, bans=self.hub.bans,
                                          full=self.gate.full, origins=config.allowed_origins, api=Api(self.hub)),
                server_header=SERVER_HEADER,
                subprotocols=list(SUBPROTOCOLS), select_subprotocol=_select_subprotocol,
                max_size=config.hard_frame, compression=None, max_queue=8, create_connection=gated(self.gate),
                ping_interval=config.ping_interval, ping_timeout=config.ping_timeout, close_timeout=2,
            )
            if config.metrics_port is not None:
                self._probes = ProbePort(Endpoints(self._phase, self.metrics, metrics_here=True, game_port=False),
                                         config.metrics_host or config.host, config.metrics_port)
                self._metrics_port = await self._probes.start()
            if config.admin_socket is not None:
                self._admin = await AdminSocket(self, config.admin_socket).start()
            started = time.monotonic()
            restored = await self.hub.restore()
        except BaseException:
            await self.close()
            raise
        self.phase = Phase.READY
        self._heartbeat = asyncio.create_task(heartbeat(self.notifier, self.metrics.loop_lag), name="heartbeat")
        self._housekeeping = asyncio.create_task(self._sweep(), name="housekeeping")
        self._deadlines = asyncio.create_task(sweep_forever(self.hub, config.deadline_sweep), name="deadlines")
        log.info("polygo listening on %s:%d, database %s, %d unfinished rooms resumed and %d games adjourned"
                 " in %.2f s%s", config.host, self.port, redacted(config.db), restored, self.hub.adjourned,
                 time.monotonic() - started, f", metrics on port {self.metrics_port}" if self._probes else "")
        self.notifier.notify("READY=1", f"STATUS=serving on port {self.port}, {restored} rooms resumed, "
                                        f"{self.hub.adjourned} games adjourned")
        return self

    async def _backup_before_migration(self) -> None:
        """Copy a SQLite file whose schema this version is about to migrate (`backup.py`); a copy
        that fails stops the start, unless the operator said `--no-migration-backup`."""
        try:
            copy = await asyncio.to_thread(before_migration, self.config.db)
        except BackupError as exc:
            raise StoreError("migration-backup", f"No copy before migrating the schema: {exc}. Free the space, "
                                                 f"or start with --no-migration-backup to migrate without one.") from None
        if copy is not None:
            event("migration-backup", path=str(copy.path), bytes=copy.size, rooms=copy.rooms, moves=copy.moves,
                  seconds=round(copy.seconds, 3))

    @property
    def port(self) -> int:
        """The port actually listened on (useful with port 0)."""
        return self._ws.sockets[0].getsockname()[1]

    @property
    def metrics_port(self) -> int | None:
        """The separate metrics port, if there is one."""
        return self._metrics_port

    async def housekeep(self) -> None:
        """Expire the sessions idle for `session_idle` and delete chat older than `chat_retention`,
        from the store and from the live rooms' resync windows."""
        expired = await self.hub.sessions.expire(self.config.session_idle)
        self.hub.chat_dropped(await self.store.drop_chat(time.time() - self.config.chat_retention))
        if expired:
            log.info("%d sessions idle for %g s expired", expired, self.config.session_idle)

    async def _sweep(self) -> None:
        every = min(HOUSEKEEPING, self.config.session_idle / 10, self.config.chat_retention / 10)
        while True:
            await asyncio.sleep(every)
            try:
                await self.housekeep()
            except Exception:
                log.exception("housekeeping failed; trying again in %g s", every)

    def _phase(self) -> Phase:
        """The server's phase as /readyz and new handshakes see it: a ready server whose database
        cannot be reached is not ready (its rooms answer `unavailable` meanwhile)."""
        if self.phase is Phase.READY and self.store is not None and not self.store.reachable:
            return Phase.NO_DATABASE
        return self.phase

    def _gauges(self) -> dict[str, Any]:
        """The metrics read at scrape time, perhaps from the metrics port's thread (`probes.py`):
        the rooms and connections are copied first (one step each under the interpreter's lock),
        so the loop's changes to them cannot break the count."""
        rooms: dict[str, int] = {}
        for room in (list(self.hub.rooms.values()) if self.hub else ()):
            rooms[room.status] = rooms.get(room.status, 0) + 1
        connections = list(self.connections)
        return {"connections": len(connections),
                "sessions": sum(1 for c in connections if c.session is not None),
                "rooms": rooms, "pending_writes": self.store.pending if self.store else 0,
                "ready": self._phase() is Phase.READY,
                "database_up": self.store is None or self.store.reachable,
                "last_backup": None if self.config.backup_dir is None else last_backup(self.config.backup_dir)}

    async def _handler(self, ws: ServerConnection) -> None:
        connection = Connection(self.hub, ws)
        self.connections.add(connection)
        try:
            await connection.serve()
        finally:
            self.connections.discard(connection)

    async def drain(self) -> None:
        """The graceful stop's first half: /readyz and new handshakes answer 503; each room finishes
        the requests already queued (their commits too), cancels its clock timer and refuses the
        rest; then every socket closes with 1012 (service restart) so clients reconnect and resume."""
        if self.phase is Phase.DRAINING:
            return
        self.phase = Phase.DRAINING
        self.notifier.notify("STOPPING=1", "STATUS=draining: finishing commits, closing connections")
        log.info("draining: %d connections, %d rooms", len(self.connections), len(self.hub.rooms))
        budget = max(self.config.drain_timeout / 2, self.config.drain_timeout - CLOSE_BUDGET)
        try:
            await asyncio.wait_for(self.hub.halt(), budget)
        except TimeoutError:
            log.warning("rooms still busy after %.1f s of draining; closing the connections anyway", budget)
        if self.hub.cluster is not None:
            await self.store.release()      # other nodes take the rooms at once, while clients reconnect
        self._ws.close(close_connections=True, code=CloseCode.SERVICE_RESTART, reason=RESTART_REASON)
        await self._ws.wait_closed()

    async def shutdown(self) -> None:
        """Drain, then close: what SIGTERM does."""
        await self.drain()
        await self.close()

    async def close(self) -> None:
        """Stop listening, drop the connections, stop the rooms, commit what is queued, close the store."""
        for task in (self._heartbeat, self._housekeeping, self._deadlines):
            if task is not None:
                task.cancel()
        if self._admin is not None:
            await self._admin.close()
        if self._probes is not None:
            await self._probes.close()
        if self._ws is not None:
            self._ws.close()
            await self._ws.wait_closed()
        if self.hub is not None:
            await self.hub.close()
        if self.store is not None:
            await self.store.close()
        if self._lock is not None:
            self._lock.release()


def run_sync(config: Config, on_ready: Callable[[], None] | None = None) -> bool:
    """`run` on a new event loop: uvloop's when it is installed (a default dependency where it
    installs), else asyncio's. uvloop's sockets and scheduling are compiled, and under load they
    take a large share off the server's CPU time per move (docs/performance.md)."""
    with asyncio.Runner(loop_factory=loop_factory()) as runner:
        return runner.run(run(config, on_ready))


def loop_factory() -> Callable[[], asyncio.AbstractEventLoop] | None:
    """uvloop's loop constructor if uvloop is installed, else None (asyncio's default loop)."""
    try:
        import uvloop
    except ImportError:
        return None
    return uvloop.new_event_loop


async def run(config: Config, on_ready: Callable[[], None] | None = None) -> bool:
    """Serve until SIGTERM or SIGINT, then stop gracefully (`Server.shutdown`); a second signal
    during the stop is ignored (systemd and Docker follow up with SIGKILL after their own timeout).
    `on_ready` is called once the server is ready (the entry point tunes the collector there).
    Returns False if the stop overran `config.drain_timeout`."""
    loop = asyncio.get_running_loop()
    loop.set_exception_handler(AcceptErrorLimiter())
    server = await Server(config, Notifier()).start()
    if on_ready is not None:
        on_ready()
    stop: asyncio.Future[int] = loop.create_future()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, _on_signal, stop, sig)
    received = await stop
    log.info("%s: graceful stop within %g s", signal.Signals(received).name, config.drain_timeout)
    faulthandler.dump_traceback_later(config.drain_timeout + EXIT_GRACE, exit=True)
    try:
        await asyncio.wait_for(server.shutdown(), config.drain_timeout)
    except TimeoutError:
        log.error("the graceful stop took longer than %g s; exiting with work unfinished", config.drain_timeout)
        return False
    faulthandler.cancel_dump_traceback_later()
    log.info("stopped")
    return True


def _on_signal(stop: asyncio.Future[int], sig: int) -> None:
    if stop.done():
        log.warning("%s: already stopping", signal.Signals(sig).name)
    else:
        stop.set_result(sig)
