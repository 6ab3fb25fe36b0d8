"""Fixtures of the server tests: a real server on a loopback port with a real SQLite file, and a
small websocket client that keeps replies (in order) apart from room events."""

from __future__ import annotations

import asyncio
import dataclasses
import json
import math
import os
import socket
import subprocess
import sys
import urllib.request
from pathlib import Path
from typing import Any

import msgpack
import msgspec
import pytest
from websockets.asyncio.client import ClientConnection, connect

from polygo.protocol import PROTOCOL_VERSION, views
from polygo.server.store.tables import rooms as room_store
from polygo.server.app import Server
from polygo.server.config import Config

WAIT = 5.0  # seconds any single expected message may take before the test fails


class Client:
    """A test client: `request` sends a message and returns its direct reply; events queue apart."""

    def __init__(self, ws: ClientConnection, codec: str) -> None:
        self.ws = ws
        self.codec = codec
        self.replies: asyncio.Queue[dict] = asyncio.Queue()
        self.events: asyncio.Queue[dict] = asyncio.Queue()
        self.token: str | None = None
        self.undescribed: list[str] = []    # messages not as protocol.views describes them
        self._reader = asyncio.create_task(self._read())

    async def _read(self) -> None:
        try:
            async for frame in self.ws:
                data = json.loads(frame) if isinstance(frame, str) else msgpack.unpackb(frame, raw=False)
                try:
                    views.check(data)
                except msgspec.ValidationError as exc:
                    self.undescribed.append(f"{exc}: {data}")
                (self.events if data.get("type") == "event" else self.replies).put_nowait(data)
        except Exception:
            pass

    async def send_raw(self, frame: bytes | str) -> None:
        await self.ws.send(frame)

    async def send(self, **message: Any) -> None:
        if self.codec == "polygo.json":
            await self.ws.send(json.dumps(message))
        else:
            await self.ws.send(msgpack.packb(message, use_bin_type=True))

    async def reply(self) -> dict:
        return await asyncio.wait_for(self.replies.get(), WAIT)

    async def request(self, type: str, **fields: Any) -> dict:
        await self.send(type=type, **fields)
        return await self.reply()

    async def ok(self, type: str, **fields: Any) -> dict:
        """A request that must not fail."""
        reply = await self.request(type, **fields)
        assert reply["type"] != "error", reply
        return reply

    async def hello(self, name: str) -> dict:
        welcome = await self.ok("hello", protocol=PROTOCOL_VERSION, name=name)
        self.token = welcome["token"]
        return welcome

    async def event(self, kind: str | None = None) -> dict:
        """The next event (of `kind`, skipping others)."""
        while True:
            event = await asyncio.wait_for(self.events.get(), WAIT)
            if kind is None or event["kind"] == kind:
                return event

    async def move(self, room: str, move: str, seq: int) -> dict:
        return await self.request("move", room=room, move=move, seq=seq)

    async def close(self) -> None:
        await self.ws.close()
        self._reader.cancel()


def not_plain(value: Any, path: str = "$") -> str | None:
    """Where `value` holds something other than JSON's own values (str, int, bool, None, finite
    floats, lists, maps with str keys), or None: what `Store.record(plain=True)` is vouched for."""
    kind = type(value)
    if kind in (str, int, bool) or value is None:
        return None
    if kind is float:
        return None if math.isfinite(value) else f"{path}: {value!r}"
    if kind is list:
        return next((bad for i, v in enumerate(value) if (bad := not_plain(v, f"{path}[{i}]"))), None)
    if kind is dict:
        for key, v in value.items():
            bad = f"{path}: the key {key!r}" if type(key) is not str else not_plain(v, f"{path}.{key}")
            if bad:
                return bad
        return None
    return f"{path}: a {kind.__name__} ({value!r})"


@pytest.fixture(autouse=True)
def plain_events_checked(monkeypatch):
    """Every event a server of these tests stores as plain (a room's moves: `Room._commit`) is
    checked as the store once checked every event: JSON's own values only, and its text reads back
    as the same value. The store keeps such text without the read-back; this is what would fail
    if a move event came to hold a tuple, a NaN or any other value JSON does not give back."""
    wrong: list[str] = []
    plain_dumps = room_store.plain_dumps

    def checked(value: Any, what: str) -> str:
        text = plain_dumps(value, what)
        bad = not_plain(value)
        if bad is not None or json.loads(text) != value:
            wrong.append(f"{bad or 'reads back otherwise'}: {value!r}")
        return text

    monkeypatch.setattr(room_store, "plain_dumps", checked)
    yield
    assert not wrong, f"events stored as plain that are not: {wrong[:3]}"


@pytest.fixture
def no_failure_delay(monkeypatch):
    """A failed login answered at once, without its second's delay: for the tests that count
    failures or only need one (the delay itself is tests/server/accounts/test_logins.py's)."""
    monkeypatch.setattr("polygo.server.accounts.sessions.FAILURE_DELAY", 0.0)


@pytest.fixture
def config(tmp_path) -> Config:
    """Every test client comes from 127.0.0.1: the per-address rates of new guest sessions and
    registrations are raised (tests/server/test_hostile_input.py checks them). metrics_max_age=0:
    each scrape renders anew, so a test reads its own step's counts at once."""
    return Config(host="127.0.0.1", port=0, db=str(tmp_path / "polygo.db"), group_window=0.001,
                  guest_rate=1e6, register_rate=1e6, metrics_max_age=0)


@pytest.fixture
async def server(config, tmp_path):
    """A server on a database of its own: `make_server`'s servers use `config.db`, and a database
    has one server at a time (polygo/server/store/lockfile.py)."""
    srv = await Server(dataclasses.replace(config, db=str(tmp_path / "server.db"))).start()
    yield srv
    await srv.close()


@pytest.fixture
async def make_server(config):
    """A factory of extra servers on the test's database with some settings changed."""
    started: list[Server] = []

    async def make(**changes: Any) -> Server:
        srv = await Server(dataclasses.replace(config, **changes)).start()
        started.append(srv)
        return srv

    yield make
    for srv in started:
        await srv.close()


@pytest.fixture
async def connect_client(server):
    """A factory of connected clients (closed at the end of the test)."""
    clients: list[Client] = []

    async def make(codec: str = "polygo.json", *, port: int | None = None) -> Client:
        ws = await connect(f"ws://127.0.0.1:{port or server.port}/", subprotocols=[codec], max_size=2**22)
        client = Client(ws, codec)
        clients.append(client)
        return client

    yield make
    for client in clients:
        await client.close()
    undescribed = [m for client in clients for m in client.undescribed]
    assert not undescribed, f"the server sent messages polygo/protocol/views.py does not describe: {undescribed[:3]}"


@pytest.fixture
async def players(connect_client):
    """A factory: n clients that said hello (named p0, p1, ...)."""

    async def make(n: int, codec: str = "polygo.json", *, port: int | None = None) -> list[Client]:
        out = []
        for i in range(n):
            client = await connect_client(codec, port=port)
            await client.hello(f"p{i}")
            out.append(client)
        return out

    return make


async def seat_all(clients: list[Client], settings: dict[str, Any]) -> str:
    """Create a room with `settings` and seat client i at seat i; returns the room id."""
    room = (await clients[0].ok("create", settings=settings))["room"]
    for i, client in enumerate(clients):
        await client.ok("sit", room=room, seat=i)
    return room


@pytest.fixture
def seat():
    return seat_all


ROOT = Path(__file__).resolve().parents[2]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def port() -> int:
    """A free loopback port for a server process."""
    return free_port()


@pytest.fixture
async def spawn_server():
    """A factory of `python -m polygo.server` processes, answered by /readyz before it returns; any still
    running at the end of the test are killed."""
    procs: list[subprocess.Popen] = []

    async def spawn(db: Path, port: int, *args: str, env: dict[str, str] | None = None,
                    **popen: Any) -> subprocess.Popen:
        environ = dict(os.environ, PYTHONPATH=str(ROOT), POLYGO_LOG_LEVEL="WARNING", **(env or {}))
        proc = subprocess.Popen([sys.executable, "-m", "polygo.server", "--port", str(port), "--db", str(db), *args],
                                cwd=ROOT, env=environ, **popen)
        procs.append(proc)
        for _ in range(400):
            if proc.poll() is not None:
                raise AssertionError(f"the server exited with {proc.returncode}")
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/readyz", timeout=5) as resp:
                    if resp.status == 200:
                        return proc
            except OSError:
                pass
            await asyncio.sleep(0.05)
        raise AssertionError("the server did not become ready")

    yield spawn
    for proc in procs:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
