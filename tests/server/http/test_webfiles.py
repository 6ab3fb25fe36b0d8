"""The web client's files on the game port: content types, caching, the Content-Security-Policy,
and no way out of the web folder."""

from __future__ import annotations

import asyncio
import http.client

import pytest

from polygo.server.http.webfiles import CSP


def get(port: int, path: str, headers: dict[str, str] | None = None) -> tuple[int, dict[str, str], bytes]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
    conn.putrequest("GET", path, skip_accept_encoding=True)
    for name, value in (headers or {}).items():
        conn.putheader(name, value)
    conn.endheaders()
    resp = conn.getresponse()
    body = resp.read()
    conn.close()
    return resp.status, {k.lower(): v for k, v in resp.getheaders()}, body


async def fetch(port: int, path: str, headers: dict[str, str] | None = None):
    return await asyncio.to_thread(get, port, path, headers)


@pytest.mark.parametrize("path, content_type, start", [
    ("/", "text/html; charset=utf-8", b"<!doctype html>"),
    ("/index.html", "text/html; charset=utf-8", b"<!doctype html>"),
    ("/app.js", "text/javascript; charset=utf-8", b"//"),
    ("/style.css", "text/css; charset=utf-8", b":root"),
    ("/favicon.svg", "image/svg+xml", b"<svg"),
    ("/?x=1#y", "text/html; charset=utf-8", b"<!doctype html>"),
])
async def test_the_page_files_have_their_type_caching_and_policy(server, path, content_type, start):
    status, headers, body = await fetch(server.port, path)
    assert status == 200
    assert headers["content-type"] == content_type
    assert body.startswith(start)
    assert headers["content-length"] == str(len(body))
    assert headers["cache-control"] == "no-cache"
    assert headers["content-security-policy"] == CSP
    assert "script-src 'self'" in CSP and "unsafe-inline" not in CSP and "frame-ancestors 'none'" in CSP
    assert headers["x-content-type-options"] == "nosniff"
    assert headers["etag"].startswith('"')


async def test_an_unchanged_file_is_a_304(server):
    _, headers, _ = await fetch(server.port, "/app.js")
    status, again, body = await fetch(server.port, "/app.js", {"If-None-Match": headers["etag"]})
    assert (status, body) == (304, b"")
    assert again["etag"] == headers["etag"]
    status, _, body = await fetch(server.port, "/app.js", {"If-None-Match": '"something-else"'})
    assert status == 200 and body


@pytest.mark.parametrize("path", [
    "/../server/app.py", "/..%2fserver%2fapp.py", "/%2e%2e/%2e%2e/etc/passwd", "/web/../app.py",
    "//etc/passwd", "/..\\webfiles.py", "/webfiles.py", "/app.py", "/__init__.py", "/web/app.js",
    "/.%2e/pyproject.toml", "/app.js/", "/APP.JS", "/app.js%00.html", "/nope",
])
async def test_no_path_outside_the_web_folder_is_served(server, path):
    status, headers, body = await fetch(server.port, path)
    assert status == 404, (path, body[:80])
    assert body == b"not found\n"


async def test_a_websocket_upgrade_still_reaches_the_game(server, connect_client):
    client = await connect_client()
    welcome = await client.hello("web")
    assert welcome["type"] == "welcome"
    status, _, _ = await fetch(server.port, "/healthz")
    assert status == 200


async def test_the_prepared_answers_are_not_worn_by_use(server):
    """Each answer is a copy of the one made at start: websockets' Server header, added to every
    answer, is there once however many times a file was served."""
    def servers(path: str) -> list[str]:
        conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=5)
        conn.request("GET", path)
        resp = conn.getresponse()
        resp.read()
        conn.close()
        return resp.msg.get_all("Server") or []
    for _ in range(3):
        for path in ("/", "/app.js", "/no-such-file"):
            assert len(await asyncio.to_thread(servers, path)) == 1
