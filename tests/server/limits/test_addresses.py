"""Behind the reverse proxies deploy/ ships, every connection comes from the proxy: the
per-address limits counted the proxy, so 64 players behind nginx filled one address's
connections and 32 waiting rooms anywhere filled its rooms. A trusted proxy's X-Forwarded-For now
names the client; without one the header is ignored, since anyone can write it."""

from __future__ import annotations

import asyncio
import urllib.request
from ipaddress import ip_network

import pytest
from websockets.asyncio.client import connect
from websockets.exceptions import InvalidStatus

from polygo.server.limits.addresses import client_address, forwarded_address, limit_key, parse_networks

from tests.server.conftest import Client

LOOPBACK = (ip_network("127.0.0.1/32"),)


def test_a_trusted_proxy_is_believed_about_its_client_and_no_further():
    proxies = parse_networks("127.0.0.1, 10.0.0.0/8")
    assert client_address("127.0.0.1", "203.0.113.7", proxies) == "203.0.113.7"
    # the client wrote the left entry itself; our proxies appended the rest
    assert client_address("127.0.0.1", "198.51.100.1, 203.0.113.7, 10.1.2.3", proxies) == "203.0.113.7"
    assert client_address("203.0.113.9", "198.51.100.1", proxies) == "203.0.113.9"   # not a proxy
    assert client_address("127.0.0.1", "198.51.100.1", ()) == "127.0.0.1"            # none trusted
    assert client_address("127.0.0.1", None, proxies) == "127.0.0.1"


def test_an_ipv6_client_counts_by_its_slash_64():
    assert limit_key("2001:db8:1:2:aaaa::1") == limit_key("2001:db8:1:2:bbbb::9") == "2001:db8:1:2::/64"
    assert limit_key("2001:db8:1:3::1") != limit_key("2001:db8:1:2::1")
    assert limit_key("::ffff:203.0.113.7") == "203.0.113.7"
    assert limit_key("203.0.113.7") == "203.0.113.7"
    # ... while the logs name the host itself
    assert forwarded_address("2001:db8:1:2:aaaa::1", None, ()) == "2001:db8:1:2:aaaa::1"
    assert forwarded_address("::ffff:203.0.113.7", None, ()) == "203.0.113.7"


def test_a_bad_proxy_list_names_the_entry():
    with pytest.raises(ValueError, match="'nope' is not an IP address or network"):
        parse_networks("127.0.0.1, nope")


async def _client(port: int, forwarded: str) -> Client:
    ws = await connect(f"ws://127.0.0.1:{port}/", subprotocols=["polygo.json"],
                       additional_headers={"X-Forwarded-For": forwarded})
    return Client(ws, "polygo.json")


async def test_clients_behind_a_trusted_proxy_have_limits_of_their_own(make_server, tmp_path):
    srv = await make_server(db=str(tmp_path / "proxied.db"), trusted_proxies=LOOPBACK,
                            connections_per_address=2, rooms_per_address=1)
    ann = await _client(srv.port, "203.0.113.1")
    bob = await _client(srv.port, "203.0.113.2")       # the proxy's second connection
    ann2 = await _client(srv.port, "203.0.113.1")
    with pytest.raises(InvalidStatus) as third:        # the client's third, over its limit of 2
        await _client(srv.port, "203.0.113.1")
    assert third.value.response.status_code == 503
    try:
        await ann.hello("ann")
        await bob.hello("bob")
        await ann2.hello("ann2")
        await ann.ok("create", settings={"rules": "chinese", "board": "9"})
        refused = await ann2.request("create", settings={"rules": "chinese", "board": "9"})
        assert refused["type"] == "error" and "from your address" in refused["message"]
        await bob.ok("create", settings={"rules": "chinese", "board": "9"})
    finally:
        for c in (ann, bob, ann2):
            await c.close()


async def test_a_forwarded_client_gets_its_connections_back_as_they_close(make_server, tmp_path):
    srv = await make_server(db=str(tmp_path / "back.db"), trusted_proxies=LOOPBACK, connections_per_address=1)
    first = await _client(srv.port, "203.0.113.1")
    await first.close()
    await first.ws.wait_closed()
    for _ in range(100):                    # the server counts it out when its socket is gone
        if not srv.gate.by_address["203.0.113.1"]:
            break
        await asyncio.sleep(0.02)
    second = await _client(srv.port, "203.0.113.1")
    try:
        assert srv.gate.by_address["203.0.113.1"] == 1
        plain = await asyncio.to_thread(_get_with_header, srv.port, "203.0.113.1")
        assert plain == 200                 # a plain GET is not a websocket: not counted
    finally:
        await second.close()


def _get_with_header(port: int, forwarded: str) -> int:
    request = urllib.request.Request(f"http://127.0.0.1:{port}/", headers={"X-Forwarded-For": forwarded})
    with urllib.request.urlopen(request, timeout=10) as response:
        return response.status


async def test_without_trusted_proxies_the_header_is_ignored(make_server, tmp_path):
    srv = await make_server(db=str(tmp_path / "direct.db"), connections_per_address=1)
    first = await _client(srv.port, "203.0.113.1")
    try:
        with pytest.raises(InvalidStatus) as refused:
            await _client(srv.port, "203.0.113.2")
        assert refused.value.response.status_code == 503
    finally:
        await first.close()
