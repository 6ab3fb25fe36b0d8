"""The door: how many connections the server holds, in total and per address, and what it says to
the ones over the limit.

At the descriptor limit, accept() fails with EMFILE and asyncio logs that at every retry while the
backlog waits; players already connected can no longer be answered either (a commit's file, a
log line). So the server counts its sockets as they are accepted and keeps the total below the
descriptor limit (`Config.connection_limit`): a connection over a limit still gets a polite HTTP
503 with Retry-After from the handshake (`Endpoints` asks `refusal`); one far over the total (more
than `MARGIN` beyond), or one of a flood of refusals (more than `POLITE_REFUSALS` a second), is
dropped at once without a word.

Behind a trusted proxy the socket's peer is the proxy, whose connections count in the total only;
the client is known once the handshake's `X-Forwarded-For` is read. So a websocket handshake a
trusted proxy forwards is counted then under the client's address, and refused over the same
per-address limit: the cap holds behind any proxy, also one that cannot cap its clients itself
(stock Caddy).
"""

from __future__ import annotations

import asyncio
import logging
import time
from typing import Any

from websockets.http11 import Request

from ..limits.addresses import Networks, client_address, is_trusted, limit_key
from ..limits.ratelimit import Tally, TokenBucket
from ..ops.logs import event
from ..ops.metrics import NullMetrics
from .quick_reading import QuickReading

log = logging.getLogger("polygo.gate")

MARGIN = 32
"""Connections beyond the total limit that are still answered 503 rather than dropped; they fit in
`config.FD_RESERVE`."""

POLITE_REFUSALS = 50
"""Refused connections answered 503 per second (after a burst of twice that); the others of a flood
are dropped at once."""


class Gate:
    """Counts open connections by address; says whether a new one is over a limit."""

    def __init__(self, total: int, per_address: int, trusted: Networks = (),
                 metrics: NullMetrics | None = None) -> None:
        self.total = total
        self.metrics = metrics or NullMetrics()
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

    def enter_forwarded(self, address: str) -> str | None:
        """Count a websocket a trusted proxy forwards for the client at `address` (already in the
        total since it was accepted); the sentence to refuse it with, or None."""
        if self.by_address.add(address) > self.per_address:
            return f"{self.per_address} connections from your address are open, the limit; close one first"
        return None

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
            self.gate.metrics.handshake_refused("flood")
            event("handshake-refused", reason="flood", status=None, peer=address)
            transport.abort()

    forwarded: str | None = None
    """The client's address a trusted proxy forwarded this websocket for, once counted under it."""

    def count_client(self, request: Request) -> None:
        """From a trusted proxy: count a websocket handshake under the client its
        `X-Forwarded-For` names (refused, like a direct one, over the per-address limit). Plain
        GETs (the web page, probes) are not counted: each is one short request."""
        if self._address is not None or self.refusal is not None or self.forwarded is not None:
            return
        if request.headers.get("Upgrade", "").lower() != "websocket":
            return
        peer = self.transport.get_extra_info("peername") if self.transport else None
        address = client_address(str(peer[0]) if peer else "", request.headers.get("X-Forwarded-For"),
                                 self.gate.trusted)
        if is_trusted(address, self.gate.trusted):
            return      # the proxy's own connection, naming no client
        self.forwarded = address
        self.refusal = self.gate.enter_forwarded(address)

    def connection_lost(self, exc: Exception | None) -> None:
        self.gate.leave(self._address)
        if self.forwarded is not None:
            self.gate.by_address.remove(self.forwarded)
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
