"""Connections per client through each shipped proxy on the loopback: nginx's `limit_conn` and
HAProxy's stick table refuse a client's connection over the cap with 503 (the configs' cap set
to 2 here), and behind Caddy, which cannot cap clients itself, polygo-server's own
--connections-per-address does, counting each websocket under the client Caddy forwards."""

from __future__ import annotations

import asyncio
import os
import random
import socket
import ssl
import subprocess
from pathlib import Path

import pytest
from websockets.asyncio.client import connect
from websockets.exceptions import InvalidStatus

from polygo.server.limits.addresses import parse_networks
from polygo.server.app import Server
from polygo.server.config import Config

from .test_proxies import DEPLOY, free_port, nginx_cmd, nginx_site, self_signed

CAP = 2
CLIENT = "127.0.0.2"


def unassigned_port() -> int:
    """A free port below the kernel's ephemeral range, for Caddy: it listens on every address
    (its site address names the host to serve, not where to listen), so a port that `free_port`
    found free can be handed by the kernel, before Caddy binds it, to any outgoing connection of
    the machine as its source port; Caddy then exits with "address already in use", the more
    often the busier the machine. The kernel never hands out a port below that range itself."""
    low = int(Path("/proc/sys/net/ipv4/ip_local_port_range").read_text().split()[0])
    start = random.randrange(1024, low)
    for port in [*range(start, low), *range(1024, start)]:
        with socket.socket() as probe:
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)     # as Caddy's listener
            try:
                probe.bind(("", port))
            except OSError:
                continue
            return port
    raise AssertionError(f"no free port below {low}")


async def until_listening(port: int, proc: subprocess.Popen) -> None:
    for _ in range(400):
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1):
                return
        except OSError:
            assert proc.poll() is None, "the proxy exited"
            await asyncio.sleep(0.05)
    raise AssertionError("the proxy did not listen")


async def opened(url: str, **options) -> object | int:
    """A websocket through the proxy, or the HTTP status it was refused with."""
    try:
        return await connect(url, open_timeout=10, **options)
    except InvalidStatus as exc:
        return exc.response.status_code


async def assert_capped(url: str, **options) -> None:
    """CAP connections from this client open; the next is refused 503; one closed makes room."""
    kept = [await opened(url, **options) for _ in range(CAP)]
    try:
        assert not [k for k in kept if isinstance(k, int)], kept
        assert await opened(url, **options) == 503
        await kept.pop().close()
        for _ in range(100):                     # the proxy counts the closed one out
            again = await opened(url, **options)
            if not isinstance(again, int):
                kept.append(again)
                break
            await asyncio.sleep(0.05)
        else:
            pytest.fail("a closed connection's place was not given back")
    finally:
        for ws in kept:
            await ws.close()


async def test_nginx_caps_connections_per_client(tool, tmp_path):
    cert, key = self_signed(tool("openssl"), tmp_path)
    server = await Server(Config(port=0, db=str(tmp_path / "polygo.db"), group_window=0.001)).start()
    tls = free_port()
    main = nginx_site(tmp_path, server.port, free_port(), tls, cert, key)
    site = tmp_path / "polygo.conf"
    text = site.read_text()
    assert text.count("limit_conn polygo_per_client 64;") == 1
    site.write_text(text.replace("limit_conn polygo_per_client 64;", f"limit_conn polygo_per_client {CAP};"))
    nginx = subprocess.Popen(nginx_cmd(tool("nginx"), main), stderr=subprocess.PIPE, text=True)
    try:
        await until_listening(tls, nginx)
        await assert_capped(f"wss://localhost:{tls}/", ssl=ssl.create_default_context(cafile=str(cert)))
    finally:
        nginx.terminate()
        nginx.wait(timeout=30)
        await server.close()


async def test_haproxy_caps_connections_per_client(tool, tmp_path):
    server = await Server(Config(port=0, db=str(tmp_path / "polygo.db"), group_window=0.001)).start()
    text = (DEPLOY / "haproxy" / "haproxy.cfg").read_text()
    assert text.count("sc0_conn_cur gt 64") == 1
    config = tmp_path / "haproxy.cfg"
    config.write_text(text.replace("sc0_conn_cur gt 64", f"sc0_conn_cur gt {CAP}"))
    listen = free_port()
    node = f"127.0.0.1:{server.port}"
    env = dict(os.environ, POLYGO_LISTEN=f"127.0.0.1:{listen}", POLYGO_NODE_A=node, POLYGO_NODE_B=node,
               POLYGO_NODE_C=node)
    haproxy = subprocess.Popen([tool("haproxy"), "-db", "-f", str(config)], env=env, stdout=subprocess.DEVNULL,
                               stderr=subprocess.PIPE, text=True)
    try:
        await until_listening(listen, haproxy)
        for _ in range(100):                     # the nodes' first health checks pass
            if not isinstance(status := await opened(f"ws://127.0.0.1:{listen}/"), int):
                await status.close()
                break
            await asyncio.sleep(0.1)
        await assert_capped(f"ws://127.0.0.1:{listen}/")
    finally:
        haproxy.terminate()
        haproxy.wait(timeout=30)
        await server.close()


async def test_behind_caddy_the_server_caps_connections_per_client(tool, tmp_path):
    server = await Server(Config(port=0, db=str(tmp_path / "polygo.db"), group_window=0.001,
                                 trusted_proxies=parse_networks("127.0.0.1"),
                                 connections_per_address=CAP)).start()
    listen = unassigned_port()
    wrapper = tmp_path / "Caddyfile"
    wrapper.write_text("{\n\tadmin off\n}\n\nimport "
                       f"{DEPLOY / 'caddy' / 'Caddyfile'}\n")
    env = dict(os.environ, XDG_DATA_HOME=str(tmp_path / "data"), XDG_CONFIG_HOME=str(tmp_path / "config"),
               POLYGO_DOMAIN=f"http://127.0.0.1:{listen}", POLYGO_UPSTREAM=f"127.0.0.1:{server.port}")
    caddy = subprocess.Popen([tool("caddy"), "run", "--config", str(wrapper), "--adapter", "caddyfile"], env=env,
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        await until_listening(listen, caddy)
        # the client comes from 127.0.0.2: the server trusts only Caddy, at 127.0.0.1
        await assert_capped(f"ws://127.0.0.1:{listen}/", local_addr=(CLIENT, 0))
        assert server.gate.by_address["127.0.0.1"] == 0       # nothing counted under Caddy's address
    finally:
        caddy.terminate()
        caddy.wait(timeout=30)
        await server.close()
