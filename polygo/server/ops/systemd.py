"""systemd's notify protocol and a watchdog fed by the event loop itself, with the standard library.

Under `Type=notify` systemd waits for READY=1 before it counts the service as started (so
`systemctl start` returns once unfinished games are rebuilt and the port takes players), shows
our STATUS= line, and knows a stop is under way from STOPPING=1. With `WatchdogSec=` it kills and
restarts a server that stops sending WATCHDOG=1: the pings come from a task on the event loop, so
a loop stalled by a runaway computation stops them, which is exactly the failure to catch. The
same task measures the loop's lag for the metrics. Outside systemd (no NOTIFY_SOCKET) every call
here is a no-op.

A datagram is sent without waiting: the socket is non-blocking, so a notify socket whose reader
is stuck (or gone away and replaced by a file nobody reads) costs a dropped message and a
warning, never the event loop (a blocking `sendto` there would hold `/healthz` and the graceful
stop).
"""

from __future__ import annotations

import asyncio
import logging
import os
import socket
import time
from typing import Callable, Mapping

log = logging.getLogger("polygo.systemd")

LAG_INTERVAL = 0.5
"""Seconds between two measurements of the event loop's lag (when no watchdog asks for more)."""

WARN_EVERY = 60.0
"""Seconds between two warnings of failed notifications (the watchdog pings twice a second)."""


class Notifier:
    """Sends sd_notify datagrams to `NOTIFY_SOCKET` (a path, or '@name' in the abstract namespace)."""

    def __init__(self, env: Mapping[str, str] | None = None) -> None:
        env = os.environ if env is None else env
        address = env.get("NOTIFY_SOCKET", "")
        self._address = "\0" + address[1:] if address.startswith("@") else address
        self.watchdog = _watchdog_interval(env)
        self._failed = 0
        self._warned = -WARN_EVERY

    @property
    def enabled(self) -> bool:
        return bool(self._address)

    def notify(self, *lines: str) -> None:
        """Send `KEY=value` lines without waiting; a failure (the reader's queue full, systemd gone
        at stop) drops them and is logged at most every `WARN_EVERY` seconds, never raised."""
        if not self._address:
            return
        try:
            with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM | socket.SOCK_CLOEXEC | socket.SOCK_NONBLOCK) as sock:
                sock.sendto("\n".join(lines).encode(), self._address)
        except OSError as exc:
            self._failed += 1
            now = time.monotonic()
            if now - self._warned >= WARN_EVERY:
                log.warning("sd_notify to %s failed: %s (%d failed since the last warning)",
                            self._address.replace("\0", "@"), exc, self._failed)
                self._warned, self._failed = now, 0


def _watchdog_interval(env: Mapping[str, str]) -> float | None:
    """Half of WATCHDOG_USEC in seconds (systemd's advice), if the watchdog is meant for this process."""
    usec, pid = env.get("WATCHDOG_USEC"), env.get("WATCHDOG_PID")
    if not usec or (pid and pid != str(os.getpid())):
        return None
    try:
        interval = int(usec) / 2e6
    except ValueError:
        log.warning("WATCHDOG_USEC=%r is not a number of microseconds; no watchdog pings", usec)
        return None
    return interval if interval > 0 else None


async def heartbeat(notifier: Notifier, on_lag: Callable[[float], None]) -> None:
    """Forever: sleep, report how late the loop woke (`on_lag`), and ping the watchdog if asked."""
    loop = asyncio.get_running_loop()
    interval = LAG_INTERVAL if notifier.watchdog is None else min(LAG_INTERVAL, notifier.watchdog)
    while True:
        start = loop.time()
        await asyncio.sleep(interval)
        on_lag(max(0.0, loop.time() - start - interval))
        if notifier.watchdog is not None:
            notifier.notify("WATCHDOG=1")
