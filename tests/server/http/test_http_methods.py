"""HTTP beside the websocket: HEAD answers like GET without a body, other methods get 405 with
`Allow`; /readyz says not ready while the server refuses new connections at its limit; the
`Server` header names no versions; the page's CSP lets it connect to its own origin only."""

from __future__ import annotations

import asyncio
import http.client

import pytest
from websockets.asyncio.client import connect


async def ask(port: int, method: str, path: str) -> tuple[int, dict[str, str], bytes]:
    """One plain HTTP request, in a thread so the server's loop keeps running."""
    def fetch() -> tuple[int, dict[str, str], bytes]:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        try:
            conn.request(method, path)
            resp = conn.getresponse()
            return resp.status, dict(resp.getheaders()), resp.read()
        finally:
            conn.close()
    return await asyncio.to_thread(fetch)


@pytest.mark.parametrize("path", ["/healthz", "/readyz", "/", "/index.html"])
async def test_head_answers_like_get_without_a_body(server, path):
    got = await ask(server.port, "GET", path)
    head = await ask(server.port, "HEAD", path)
    assert head[0] == got[0] == 200 and head[2] == b""
    assert head[1]["Content-Length"] == got[1]["Content-Length"] == str(len(got[2]))
    assert head[1]["Content-Type"] == got[1]["Content-Type"]


@pytest.mark.parametrize("method", ["POST", "PUT", "DELETE", "OPTIONS", "PATCH"])
@pytest.mark.parametrize("path", ["/", "/healthz"])
async def test_other_methods_get_405_with_allow(server, method, path):
    status, headers, body = await ask(server.port, method, path)
    assert status == 405 and headers["Allow"] == "GET, HEAD" and b"GET" in body


async def test_no_versions_in_the_server_header(server):
    for path in ("/healthz", "/", "/nothing-here"):
        _, headers, _ = await ask(server.port, "GET", path)
        assert "Server" not in headers or headers["Server"] == "polygo", headers
    async with connect(f"ws://127.0.0.1:{server.port}/", subprotocols=["polygo.json"]) as ws:
        assert ws.response.headers.get("Server", "polygo") == "polygo"


async def test_the_page_connects_to_its_own_origin_only(server):
    _, headers, _ = await ask(server.port, "GET", "/")
    policy = dict(part.strip().split(" ", 1) for part in headers["Content-Security-Policy"].split(";") if part.strip())
    assert policy["connect-src"] == "'self'"


async def test_readyz_is_not_ready_at_the_connection_limit(make_server, tmp_path):
    srv = await make_server(db=str(tmp_path / "full.db"), max_connections=2)
    assert (await ask(srv.port, "GET", "/readyz"))[0] == 200
    held = [await connect(f"ws://127.0.0.1:{srv.port}/", subprotocols=["polygo.json"]) for _ in range(2)]
    status, headers, body = await ask(srv.port, "GET", "/readyz")
    assert status == 503 and b"connections" in body and headers["Retry-After"]
    for ws in held:
        await ws.close()
    for _ in range(200):
        if (await ask(srv.port, "GET", "/readyz"))[0] == 200:
            break
        await asyncio.sleep(0.02)
    else:
        pytest.fail("/readyz did not come back once connections closed")


async def test_head_sends_no_body_on_the_wire(server):
    reader, writer = await asyncio.open_connection("127.0.0.1", server.port)
    writer.write(b"HEAD /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
    raw = await asyncio.wait_for(reader.read(), 10)
    writer.close()
    head, _, body = raw.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 200") and b"Content-Length: 3" in head and body == b""
