"""The TLS proxies: `nginx -t` accepts the shipped site, and a real websocket game is played
through nginx with a self-signed certificate on the loopback (acks, events, the 1012 of a
graceful stop all pass; /metrics does not). Caddy validates its Caddyfile. Both keep idle
websockets open for more than three ping intervals."""

from __future__ import annotations

import asyncio
import json
import os
import re
import socket
import ssl
import subprocess
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from websockets.asyncio.client import connect

from polygo.protocol import PROTOCOL_VERSION
from polygo.server.limits.addresses import parse_networks
from polygo.server.app import Server
from polygo.server.config import Config

DEPLOY = Path(__file__).resolve().parents[2] / "deploy"
CERTS = "/etc/letsencrypt/live/go.example.org/"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def self_signed(openssl: str, directory: Path) -> tuple[Path, Path]:
    cert, key = directory / "cert.pem", directory / "key.pem"
    subprocess.run([openssl, "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj", "/CN=localhost",
                    "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1", "-keyout", str(key), "-out", str(cert)],
                   check=True, capture_output=True, timeout=120)
    return cert, key


def nginx_site(directory: Path, upstream: int, http: int, tls: int, cert: Path, key: Path) -> Path:
    """The shipped site with only its addresses, ports and certificate paths changed (each once)."""
    text = (DEPLOY / "nginx" / "polygo.conf").read_text()
    for old, new in [("server 127.0.0.1:8765;", f"server 127.0.0.1:{upstream};"),
                     ("listen 80;", f"listen 127.0.0.1:{http};"), ("listen [::]:80;", ""),
                     ("listen 443 ssl;", f"listen 127.0.0.1:{tls} ssl;"), ("listen [::]:443 ssl;", ""),
                     (CERTS + "fullchain.pem", str(cert)), (CERTS + "privkey.pem", str(key)),
                     ("root /var/www/letsencrypt;", f"root {directory};")]:
        assert text.count(old) == 1, old
        text = text.replace(old, new)
    (directory / "polygo.conf").write_text(text)
    for sub in ("body", "proxy", "fastcgi", "uwsgi", "scgi"):
        (directory / sub).mkdir(exist_ok=True)
    main = directory / "nginx.conf"
    main.write_text(("user root;\n" if os.geteuid() == 0 else "") + f"""
daemon off;
worker_processes 1;
pid {directory}/nginx.pid;
error_log {directory}/error.log;
events {{ worker_connections 64; }}
http {{
    access_log off;
    client_body_temp_path {directory}/body;
    proxy_temp_path {directory}/proxy;
    fastcgi_temp_path {directory}/fastcgi;
    uwsgi_temp_path {directory}/uwsgi;
    scgi_temp_path {directory}/scgi;
    include {directory}/polygo.conf;
}}
""")
    return main


def nginx_cmd(nginx: str, main: Path, *args: str) -> list[str]:
    return [nginx, "-p", str(main.parent), "-c", str(main), "-e", str(main.parent / "error.log"), *args]


def seconds(value: str) -> float:
    number, unit = re.fullmatch(r"(\d+)(s|m)?", value).groups()
    return float(number) * (60 if unit == "m" else 1)


def test_the_read_timeouts_outlast_three_ping_intervals():
    three = 3 * Config().ping_interval
    nginx = (DEPLOY / "nginx" / "polygo.conf").read_text()
    assert all(seconds(v) > three for v in re.findall(r"proxy_(?:read|send)_timeout (\w+);", nginx))
    assert len(re.findall(r"proxy_read_timeout", nginx)) == 1
    caddy = (DEPLOY / "caddy" / "Caddyfile").read_text()
    assert seconds(re.search(r"read_timeout (\w+)", caddy).group(1)) > three


def test_nginx_accepts_the_shipped_site(tool, tmp_path):
    cert, key = self_signed(tool("openssl"), tmp_path)
    main = nginx_site(tmp_path, 8765, free_port(), free_port(), cert, key)
    done = subprocess.run(nginx_cmd(tool("nginx"), main, "-t"), capture_output=True, text=True, timeout=60)
    assert done.returncode == 0 and "test is successful" in done.stderr, done.stderr


def test_caddy_validates_the_shipped_caddyfile(tool, tmp_path):
    env = dict(os.environ, XDG_DATA_HOME=str(tmp_path / "data"), XDG_CONFIG_HOME=str(tmp_path / "config"),
               POLYGO_DOMAIN="go.example.org", POLYGO_UPSTREAM="127.0.0.1:8765")
    done = subprocess.run([tool("caddy"), "validate", "--config", str(DEPLOY / "caddy" / "Caddyfile"),
                           "--adapter", "caddyfile"], capture_output=True, text=True, timeout=120, env=env)
    assert done.returncode == 0 and "Valid configuration" in done.stdout + done.stderr, done.stderr
    fmt = subprocess.run([tool("caddy"), "fmt", str(DEPLOY / "caddy" / "Caddyfile")], capture_output=True,
                         text=True, timeout=60)
    assert fmt.stdout == (DEPLOY / "caddy" / "Caddyfile").read_text()     # in caddy's own layout


class JsonClient:
    """Just enough of the protocol for a game: requests with their replies, events apart."""

    def __init__(self, ws) -> None:
        self.ws = ws
        self.events: list[dict] = []

    async def request(self, **message) -> dict:
        await self.ws.send(json.dumps(message))
        while True:
            data = json.loads(await asyncio.wait_for(self.ws.recv(), 10))
            if data["type"] != "event":
                return data
            self.events.append(data)


async def test_a_websocket_game_through_nginx_with_tls(tool, tmp_path):
    cert, key = self_signed(tool("openssl"), tmp_path)
    server = await Server(Config(port=0, db=str(tmp_path / "polygo.db"), group_window=0.001)).start()
    http, tls = free_port(), free_port()
    main = nginx_site(tmp_path, server.port, http, tls, cert, key)
    nginx = subprocess.Popen(nginx_cmd(tool("nginx"), main), stderr=subprocess.PIPE, text=True)
    context = ssl.create_default_context(cafile=str(cert))
    try:
        for _ in range(200):
            try:
                with socket.create_connection(("127.0.0.1", tls), timeout=1):
                    break
            except OSError:
                assert nginx.poll() is None, nginx.stderr.read()
                await asyncio.sleep(0.05)

        def get(path: str) -> int:
            try:
                with urllib.request.urlopen(f"https://localhost:{tls}{path}", context=context, timeout=10) as r:
                    return r.status
            except urllib.error.HTTPError as exc:
                return exc.code
        assert await asyncio.to_thread(get, "/healthz") == 200
        assert await asyncio.to_thread(get, "/readyz") == 200
        assert await asyncio.to_thread(get, "/metrics") == 404            # hidden by the proxy...
        direct = await asyncio.to_thread(urllib.request.urlopen, f"http://127.0.0.1:{server.port}/metrics", None, 10)
        assert direct.status == 200                                      # ...served to the loopback
        direct.close()
        redirect = urllib.request.Request(f"http://127.0.0.1:{http}/x")
        with pytest.raises(urllib.error.HTTPError) as moved:
            opener = urllib.request.build_opener(NoRedirect)
            await asyncio.to_thread(opener.open, redirect, None, 10)
        assert moved.value.code == 301 and moved.value.headers["Location"] == "https://127.0.0.1/x"

        url = f"wss://localhost:{tls}/"
        async with connect(url, ssl=context, subprotocols=["polygo.json"]) as b, \
                connect(url, ssl=context, subprotocols=["polygo.json"]) as w:
            black, white = JsonClient(b), JsonClient(w)
            assert (await black.request(type="hello", protocol=PROTOCOL_VERSION, name="black"))["type"] == "welcome"
            assert (await white.request(type="hello", protocol=PROTOCOL_VERSION, name="white"))["type"] == "welcome"
            room = (await black.request(type="create", settings={"rules": "chinese", "board": "9"}))["room"]
            assert (await black.request(type="sit", room=room))["type"] == "snapshot"
            assert (await white.request(type="sit", room=room))["type"] == "snapshot"
            for i, move in enumerate(["E5", "C3", "G7", "C7"]):
                player = (black, white)[i % 2]
                ack = await player.request(type="move", room=room, move=move, seq=i // 2 + 1)
                assert ack["type"] == "ack", ack
            watched = await white.request(type="watch", room=room)
            assert [h[1] for h in watched["game"]["history"]] == ["E5", "C3", "G7", "C7"]
            assert [e["move"] for e in black.events if e["kind"] == "move"] == ["E5", "C3", "G7"]
            await server.drain()                               # the graceful stop reaches through nginx
            await asyncio.wait_for(b.wait_closed(), 10)
            assert (b.close_code, b.close_reason) == (1012, "server restarting")
    finally:
        nginx.terminate()
        nginx.wait(timeout=30)
        await server.close()


class NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args, **kwargs):
        return None


def test_every_shipped_trusted_proxies_setting_is_a_list_of_networks():
    """Each deployment that puts a proxy in front trusts it, in a form the server accepts."""
    found = {}
    for path in DEPLOY.rglob("*"):
        if path.is_file():
            for value in re.findall(r"POLYGO_TRUSTED_PROXIES[=:]\s*(\S+)", path.read_text()):
                found[path.name] = parse_networks(value)
    assert set(found) == {"polygo.env.example", "polygo-cluster.env.example", "compose.yaml",
                          "compose.cluster.yaml"}
    assert all(found.values())
