"""The web client's files (polygo/server/web/), served by plain HTTP GETs on the game port.

The set of files is read once, at start-up, from the package: a request names one of them or gets
404. No request path is ever joined to a directory, so no path outside the web folder can be read,
whatever its dots, slashes, percent-escapes or backslashes. Every file gets its content type, an
ETag (304 to a matching If-None-Match), `Cache-Control: no-cache` (the browser keeps the file but
asks each time whether it changed: a server upgrade is seen at once, and the answer is a 304 of a
few bytes), and the page's Content-Security-Policy: scripts, styles and connections only from the
server itself (the page's websocket included), nothing inline, no frames.
"""

from __future__ import annotations

import hashlib
from http import HTTPStatus
from importlib import resources

from websockets.datastructures import Headers
from websockets.http11 import Request, Response

CONTENT_TYPES = {
    ".html": "text/html; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".svg": "image/svg+xml",
    ".png": "image/png",
    ".ico": "image/x-icon",
    ".json": "application/json",
    ".webmanifest": "application/manifest+json",
}

CSP = ("default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:; "
       "connect-src 'self'; manifest-src 'self'; base-uri 'none'; form-action 'none'; "
       "frame-ancestors 'none'")
"""No inline script or style anywhere in the page. The page connects to its own origin only:
`ws:`/`wss:` let any page script reach any websocket host; 'self' covers the page's own ws:/wss:
origin in every browser of CSP level 3 (Chrome, Firefox and Safari since 2022)."""


class WebFiles:
    """The files of `polygo/server/web/` by URL path, read once: `/` is index.html. Each file's answers
    (200 and 304, headers and ETag) are made here too, so a request only picks one and copies its
    headers (websockets adds its Server header to the copy it sends)."""

    def __init__(self, package: str = "polygo.server", folder: str = "web") -> None:
        self.files: dict[str, _File] = {}
        root = resources.files(package).joinpath(folder)
        if root.is_dir():
            for entry in root.iterdir():
                suffix = "." + entry.name.rpartition(".")[2]
                if entry.is_file() and suffix in CONTENT_TYPES:
                    self.files["/" + entry.name] = _File(entry.read_bytes(), CONTENT_TYPES[suffix])
        if "/index.html" in self.files:
            self.files["/"] = self.files["/index.html"]

    def wants(self, request: Request) -> bool:
        """A plain GET (not a websocket upgrade): the web client's business."""
        return "websocket" not in request.headers.get("Upgrade", "").lower()

    def respond(self, request: Request) -> Response:
        path = request.path.split("?", 1)[0].split("#", 1)[0]
        found = self.files.get(path)
        if found is None:
            return _answer(NOT_FOUND)
        if found.etag in (t.strip() for t in request.headers.get("If-None-Match", "").split(",")):
            return _answer(found.not_modified)
        return _answer(found.ok)


class _File:
    """One file's body, ETag, and its two answers (status, headers, body) made ready."""

    def __init__(self, body: bytes, content_type: str) -> None:
        self.etag = '"' + hashlib.sha256(body).hexdigest()[:20] + '"'
        self.ok = _prepared(HTTPStatus.OK, body, content_type, self.etag)
        self.not_modified = _prepared(HTTPStatus.NOT_MODIFIED, b"", content_type, self.etag)


def _prepared(status: HTTPStatus, body: bytes, content_type: str, etag: str | None) -> Response:
    headers = Headers([("Content-Type", content_type), ("Content-Length", str(len(body))),
                       ("Cache-Control", "no-cache" if etag else "no-store"),
                       ("Content-Security-Policy", CSP), ("X-Content-Type-Options", "nosniff"),
                       ("Referrer-Policy", "no-referrer")])
    if etag:
        headers["ETag"] = etag
    return Response(status.value, status.phrase, headers, body)


def _answer(prepared: Response) -> Response:
    """A prepared answer with headers of its own, which websockets may add to."""
    return Response(prepared.status_code, prepared.reason_phrase, Headers(prepared.headers.raw_items()), prepared.body)


NOT_FOUND = _prepared(HTTPStatus.NOT_FOUND, b"not found\n", "text/plain; charset=utf-8", None)
