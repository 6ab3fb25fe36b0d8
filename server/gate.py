"""The door: how many connections the server holds, in total and per address, and what it says to
the ones over the limit.

At the descriptor limit, accept() fails with EMFILE and asyncio logs that at every retry while the
backlog waits; players already connected can no longer be answered either (a commit's file, a
log line). So the server counts its sockets as they are accepted and keeps the total below the
descriptor limit (`Config.connection_limit`): a connection over a limit still gets a polite HTTP
503 with Retry-After from the handshake (`Endpoints` asks `refusal`); one far over the total (more
than `MARGIN` beyond), or one of a flood of refusals (more than `POLITE_REFUSALS` a second), is
dropped at once without a word.
"""

from __future__ import annotations

import asyncio
import logging
import time
from typing import Any

from .addresses import Networks, is_trusted, limit_key
from .frames import QuickReading
from .ratelimit import Tally, TokenBucket

log = logging.getLogger("polygo.gate")

MARGIN = 32
"""Connections beyond the total limit that are still answered 503 rather than dropped; they fit in
`config.FD_RESERVE`."""

POLITE_REFUSALS = 50
"""Refused connections answered 503 per second (after a burst of twice that); the others of a flood
are dropped at once."""


class Gate:
    """Counts open connections by address; says whether a new one is over a limit."""

    def __init__(self, total: int, per_address: int, trusted: Networks = ()) -> None:
        self.total = total
        self.per_address = per_address
        self.trusted = trusted
        """Reverse proxies (`Config.trusted_proxies`): their connections count in the total only,
        since each carries some client's; the proxy bounds its clients' connections itself."""
        self.open = 0
        self.by_address = Tally()
        """Open connections by address (an address with none is forgotten)."""
        self._polite = TokenBucket(POLITE_REFUSALS, 2 * POLITE_REFUSALS, time.monotonic())

    def enter(self, address: str | None) -> str | None:
        """Count a new connection (`address` None: from a trusted proxy); the sentence to refuse it
        with, or None to serve it."""
        self.open += 1
        mine = 0 if address is None else self.by_address.add(address)
        if self.open > self.total:
            return f"the server holds its limit of {self.total} connections; try again in a few seconds"
        if mine > self.per_address:
            return f"{self.per_address} connections from your address are open, the limit; close one first"
        return None

    def full(self) -> bool:
        """Whether the server holds its limit of connections, besides the one asking (/readyz)."""
        return self.open > self.total

    def leave(self, address: str | None) -> None:
        self.open -= 1
        if address is not None:
            self.by_address.remove(address)

    def answerable(self, now: float) -> bool:
        """Whether a refused connection gets its 503: not when so far over the total that the
        reply's descriptor is not to spare, nor beyond `POLITE_REFUSALS` a second (a flood of
        handshakes answered one by one took the loop from the games)."""
        return self.open <= self.total + MARGIN and self._polite.allow(now)


class GatedConnection(QuickReading):
    """A websocket connection counted by its server's `Gate` from accept to close."""

    gate: Gate

    refusal: str | None = None
    """Why the handshake is to be answered 503 (set when accepted over a limit)."""

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        peer = transport.get_extra_info("peername")
        address = str(peer[0]) if peer else ""
        self._address = None if is_trusted(address, self.gate.trusted) else limit_key(address)
        self.refusal = self.gate.enter(self._address)
        super().connection_made(transport)
        if self.refusal is not None and not self.gate.answerable(time.monotonic()):
            transport.abort()

    def connection_lost(self, exc: Exception | None) -> None:
        self.gate.leave(self._address)
        super().connection_lost(exc)


def gated(gate: Gate) -> type[GatedConnection]:
    """The connection class of a server guarded by `gate`."""
    return type("ServerGatedConnection", (GatedConnection,), {"gate": gate})


class AcceptErrorLimiter:
    """A loop exception handler that lets one "accept() out of system resource" report through per
    `every` seconds (with how many were held back) and passes every other report on."""

    def __init__(self, every: float = 10.0) -> None:
        self.every = every
        self._last = -float("inf")
        self._held = 0

    def __call__(self, loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
        if "accept" not in str(context.get("message", "")):
            loop.default_exception_handler(context)
            return
        now = time.monotonic()
        if now - self._last < self.every:
            self._held += 1
            return
        log.error("%s: %s (%d more like it in the last %.0f s; lower --max-connections or raise the "
                  "descriptor limit)", context.get("message"), context.get("exception"), self._held, self.every)
        self._last, self._held = now, 0
