"""Plain HTTP GETs on the websocket's port: /healthz, /readyz and /metrics for probes and Prometheus,
and the web client's files (`polygo/server/http/webfiles.py`) for any other GET that is not a websocket upgrade.
HEAD gets the headers a GET would (and no body); any other method gets 405 with `Allow`.

websockets hands every opening request to `process_request` before the handshake; a response
returned there is sent instead of upgrading. So probes and scrapes need no second server and no
web framework, and a load balancer checks the very port the players use. A GET that asks for a
websocket upgrade goes on to the handshake, whatever its path; any other GET is the web client's
(a file of polygo/server/web/, or 404).
"""

from __future__ import annotations

import dataclasses
from enum import Enum
from http import HTTPStatus
from typing import Awaitable, Callable

from websockets.asyncio.server import ServerConnection
from websockets.datastructures import Headers
from websockets.http11 import Request, Response

from ..accounts.bans import Bans
from ..limits.addresses import Networks, client_address, forwarded_address
from ..ops.logs import event
from ..ops.metrics import CONTENT_TYPE, NullMetrics
from .webfiles import WebFiles

SERVER_HEADER = "polygo"
"""The `Server` header of every response: websockets' default named the Python and websockets
versions, which tell an attacker which advisories apply."""

METHODS = "GET, HEAD"
"""The methods answered; the others get 405."""

RETRY_AFTER = "5"
"""Seconds a refused client (starting or draining server) is told to wait before trying again."""


class Phase(Enum):
    """Where the server is in its life, as /readyz and new websocket handshakes see it."""

    STARTING = "starting"      # listening, unfinished games not yet rebuilt
    READY = "ready"
    DRAINING = "draining"      # SIGTERM: finishing commits, then closing
    NO_DATABASE = "waiting for its database"   # ready, but the database cannot be reached now


def response(status: HTTPStatus, body: bytes, content_type: str = "text/plain; charset=utf-8",
             **extra: str) -> Response:
    headers = Headers([("Content-Type", content_type), ("Content-Length", str(len(body))),
                       ("Cache-Control", "no-store")])
    for name, value in extra.items():
        headers[name.replace("_", "-")] = value
    return Response(status.value, status.phrase, headers, body)


class Endpoints:
    """The `process_request` of the game port (and of the metrics port when it has its own)."""

    def __init__(self, phase: Callable[[], Phase], metrics: NullMetrics, *, metrics_here: bool,
                 game_port: bool = True, web: WebFiles | None = None, trusted: Networks = (),
                 bans: Bans | None = None, full: Callable[[], bool] = lambda: False,
                 origins: tuple[str, ...] = (),
                 api: Callable[[Request], Awaitable[Response]] | None = None) -> None:
        self._phase = phase
        self._full = full
        """Whether the server holds its connection limit (then /readyz says it is not ready)."""
        self._origins = origins
        self._trusted = trusted
        self._bans = bans
        self._api = api
        self._metrics = metrics
        self._metrics_here = metrics_here
        self._game_port = game_port
        self._web = web

    def __call__(self, connection: ServerConnection,
                 request: Request) -> Response | Awaitable[Response] | None:
        if request.method not in ("GET", "HEAD"):
            return response(HTTPStatus.METHOD_NOT_ALLOWED, f"this server answers {METHODS} only\n".encode(),
                            Allow=METHODS)
        answer = self._answer(connection, request)
        if answer is None or request.method != "HEAD":
            return answer
        if isinstance(answer, Response):
            return dataclasses.replace(answer, body=b"")     # Content-Length stays the GET's
        return _headless(answer)

    def _answer(self, connection: ServerConnection, request: Request) -> Response | Awaitable[Response] | None:
        path = request.path.split("?", 1)[0]
        if path == "/healthz":
            return response(HTTPStatus.OK, b"ok\n")
        if path == "/readyz":
            phase = self._phase()
            if phase is Phase.READY and self._full():
                return response(HTTPStatus.SERVICE_UNAVAILABLE, b"at its limit of connections\n",
                                Retry_After=RETRY_AFTER)
            if phase is Phase.READY:
                return response(HTTPStatus.OK, b"ready\n")
            return response(HTTPStatus.SERVICE_UNAVAILABLE, f"{phase.value}\n".encode(), Retry_After=RETRY_AFTER)
        if path == "/metrics":
            if not self._metrics_here:
                return response(HTTPStatus.NOT_FOUND, b"/metrics is served on the metrics port\n")
            if not self._metrics.enabled:
                return response(HTTPStatus.NOT_IMPLEMENTED, self._metrics.render())
            return response(HTTPStatus.OK, self._metrics.render(), CONTENT_TYPE)
        if not self._game_port:
            return response(HTTPStatus.NOT_FOUND, b"this port serves /metrics, /healthz and /readyz\n")
        if self._bans is not None:
            ban = self._bans.address(self._client(connection, request))
            if ban is not None:
                self._refused(connection, request, "banned", HTTPStatus.FORBIDDEN)
                return response(HTTPStatus.FORBIDDEN, f"your address is banned from this server"
                                                      f"{': ' + ban.reason if ban.reason else ''}\n".encode())
        count_client = getattr(connection, "count_client", None)
        if count_client is not None:
            count_client(request)
        refusal = getattr(connection, "refusal", None)
        if refusal is not None:
            self._refused(connection, request, "limit")
            return response(HTTPStatus.SERVICE_UNAVAILABLE, f"{refusal}\n".encode(), Retry_After=RETRY_AFTER)
        if self._api is not None and path.startswith("/api/") and not _upgrade(request):
            if self._phase() is not Phase.READY:
                return response(HTTPStatus.SERVICE_UNAVAILABLE, b"the server is not ready\n", Retry_After=RETRY_AFTER)
            return self._api(request)
        if self._web is not None and self._web.wants(request):
            return self._web.respond(request)
        refused = origin_refusal(request, self._origins)
        if refused is not None:
            self._refused(connection, request, "origin", HTTPStatus.FORBIDDEN)
            return response(HTTPStatus.FORBIDDEN, f"{refused}\n".encode())
        phase = self._phase()
        if phase is not Phase.READY:
            self._refused(connection, request, phase.value)
            return response(HTTPStatus.SERVICE_UNAVAILABLE,
                            f"the server is {phase.value}; try again in a few seconds\n".encode(),
                            Retry_After=RETRY_AFTER)
        return None

    def _client(self, connection: ServerConnection, request: Request) -> str:
        """The client's address, through the trusted proxies."""
        peer = connection.remote_address
        return client_address(str(peer[0]) if peer else "", request.headers.get("X-Forwarded-For"), self._trusted)

    def _refused(self, connection: ServerConnection, request: Request, reason: str,
                 status: HTTPStatus = HTTPStatus.SERVICE_UNAVAILABLE) -> None:
        """Count and log (within the log's budget) a refused handshake."""
        self._metrics.handshake_refused(reason)
        peer = connection.remote_address
        event("handshake-refused", reason=reason, status=status.value, peer=str(peer[0]) if peer else "",
              address=forwarded_address(str(peer[0]) if peer else "", request.headers.get("X-Forwarded-For"),
                                        self._trusted))


async def _headless(answer: Awaitable[Response]) -> Response:
    """A HEAD of an /api/ path: the GET's answer without its body (Content-Length stays the GET's)."""
    return dataclasses.replace(await answer, body=b"")


def _upgrade(request: Request) -> bool:
    """Whether the request asks for a websocket (such a request goes on to the handshake)."""
    return "websocket" in request.headers.get("Upgrade", "").lower()


def origin_refusal(request: Request, allowed: tuple[str, ...]) -> str | None:
    """Why a websocket handshake's `Origin` is refused, or None.

    A browser sends the page's origin with every websocket it opens, and any page may open one to
    any host: without this check a page elsewhere could open guest sessions from its visitors'
    browsers and spend their addresses' quotas. Allowed: no `Origin` (bots, the terminal client,
    anything but a browser), the server's own origin (the host and port the request names in
    `Host`, as a proxy passes it on), and the origins of `Config.allowed_origins` ("*": any)."""
    origin = request.headers.get("Origin")
    if origin is None or "*" in allowed or origin in allowed:
        return None
    scheme, _, rest = origin.partition("://")
    if scheme in ("http", "https") and rest and rest == request.headers.get("Host"):
        return None
    return (f"websocket connections from pages of {origin[:100]} are not allowed here; the server's "
            f"--allowed-origins lists the other pages that may connect")
