"""The server's events as an operator reads them: one JSON object per line with fields, the
client's address as a trusted proxy forwarded it, never a password or a token, and a flood of
refusals written as a few lines that count the rest."""

from __future__ import annotations

import asyncio
import json
import logging
import signal
import socket
import subprocess

import msgpack
import pytest
from websockets.asyncio.client import connect
from websockets.exceptions import InvalidStatus

from polygo.protocol import PROTOCOL_VERSION
from polygo.server.ops import logs
from polygo.server.ops.logs import BUDGETS, EVENTS_LOGGER, EventLog, JsonFormatter, TextFormatter

CLIENT = "203.0.113.7"     # the address the proxy says it forwards for (TEST-NET-3)
PASSWORD = "correct horse battery staple"


async def talk(ws, **message) -> dict:
    """Send a message; its direct reply (events in between are skipped)."""
    await ws.send(msgpack.packb(message))
    while True:
        reply = msgpack.unpackb(await asyncio.wait_for(ws.recv(), 10))
        if reply["type"] != "event":
            return reply


async def test_a_session_through_a_proxy_is_logged_as_events(tmp_path, port, spawn_server):
    proc = await spawn_server(tmp_path / "log.db", port, "--log-format", "json", "--trusted-proxies", "127.0.0.1",
                              "--max-connections", "2",
                              "--log-level", "INFO", stderr=subprocess.PIPE, text=True)
    url = f"ws://127.0.0.1:{port}/"
    proxied = {"X-Forwarded-For": CLIENT}
    ann = await connect(url, additional_headers=proxied)
    bob = await connect(url, additional_headers=proxied)
    with pytest.raises(InvalidStatus):        # a third: over the server's limit of 2
        await connect(url, additional_headers=proxied)
    welcome = await talk(ann, type="hello", protocol=PROTOCOL_VERSION, name="ann")
    assert (await talk(ann, type="register", user="Annie", password=PASSWORD))["type"] == "ok"
    assert (await talk(bob, type="hello", protocol=PROTOCOL_VERSION, user="Annie", password="wrong"))["code"] \
        == "bad-login"
    await talk(bob, type="hello", protocol=PROTOCOL_VERSION, name="bob")
    room = (await talk(ann, type="create", settings={"rules": "japanese", "board": "9"}))["room"]
    await talk(ann, type="sit", room=room, seat=0)
    await talk(bob, type="sit", room=room, seat=1)
    assert (await talk(bob, type="move", room=room, move="E5", seq=1))["code"] == "illegal-move"
    assert (await talk(ann, type="move", room=room, move="resign", seq=1))["type"] == "ack"
    for _ in range(300):                      # over the message rate (a burst of 200)
        await bob.send(msgpack.packb({"type": "list"}))
    replies = [msgpack.unpackb(await asyncio.wait_for(bob.recv(), 10)) for _ in range(300)]
    assert "rate-limited" in {r.get("code") for r in replies}
    await ann.close()
    await bob.close()
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=30)
    entries = [json.loads(line) for line in err.splitlines()]
    assert PASSWORD not in err and "wrong" not in err and welcome["token"] not in err
    events = [e for e in entries if "event" in e]
    assert all(e["logger"] == EVENTS_LOGGER and e["message"] == e["event"] for e in events)

    def of(kind: str) -> list[dict]:
        return [e for e in events if e["event"] == kind]

    opened = of("connection-opened")
    assert [e["address"] for e in opened] == [CLIENT, CLIENT] and opened[0]["peer"] == "127.0.0.1"
    closed = of("connection-closed")
    assert sorted(e["code"] for e in closed) == [1000, 1000]
    assert {e["address"] for e in closed} == {CLIENT}
    assert {(e["name"], e["user"]) for e in closed} == {("Annie", "Annie"), ("bob", None)}
    refused = of("handshake-refused")
    assert [(e["reason"], e["status"], e["address"]) for e in refused] == [("limit", 503, CLIENT)]
    assert [(e["how"], e["name"]) for e in of("login")] == [("guest", "ann"), ("guest", "bob")]
    assert [(e["how"], e["user"], e["code"], e["address"]) for e in of("login-refused")] \
        == [("password", "Annie", "bad-login", CLIENT)]
    assert [(e["user"], e["address"]) for e in of("register")] == [("Annie", CLIENT)]
    assert [(e["room"], e["rules"], e["board"], e["address"]) for e in of("room-created")] \
        == [(room, "japanese", "9", CLIENT)]
    assert [(e["room"], e["rules"], e["seats"]) for e in of("game-started")] == [(room, "japanese", ["Annie", "bob"])]
    ended = of("game-ended")
    assert [(e["room"], e["rules"], e["reason"], e["ranking"]) for e in ended] \
        == [(room, "japanese", "resignation", [2, 1])]
    errors = of("error")
    assert ("illegal-move", room, "move") in {(e["code"], e["room"], e["ref"]) for e in errors}
    assert of("rate-limited") and {e["address"] for e in of("rate-limited")} == {CLIENT}


def ipv6_loopback() -> bool:
    try:
        with socket.socket(socket.AF_INET6) as probe:
            probe.bind(("::1", 0))
    except OSError:
        return False
    return True


@pytest.mark.skipif(not ipv6_loopback(), reason="this machine has no IPv6 loopback")
async def test_an_ipv6_client_is_logged_by_its_address_not_its_slash_64(make_server, tmp_path, caplog, monkeypatch):
    """The limits count an IPv6 client by its /64 (polygo/server/limits/addresses.py), but an operator reading
    the log needs the host: `::/64` names 2^64 of them."""
    monkeypatch.setattr(logs.event, "_buckets", {})     # budgets fresh, whatever earlier tests logged
    srv = await make_server(db=str(tmp_path / "v6.db"), host="::1")
    url = f"ws://[::1]:{srv.port}/"
    with caplog.at_level(logging.INFO, logger=EVENTS_LOGGER):
        with pytest.raises(InvalidStatus):
            await connect(url, origin="https://elsewhere.example")
        async with connect(url) as ws:
            await talk(ws, type="hello", protocol=PROTOCOL_VERSION, name="ann")
            await talk(ws, type="create", settings={"rules": "japanese", "board": "9"})
        await srv.close()
    addresses = {(r.msg, r.fields["address"]) for r in caplog.records if "address" in getattr(r, "fields", {})}
    assert addresses == {("handshake-refused", "::1"), ("connection-opened", "::1"), ("login", "::1"),
                         ("room-created", "::1"), ("connection-closed", "::1")}


def test_a_flood_of_refusals_is_a_few_lines_that_count_the_rest(caplog, monkeypatch):
    now = [1000.0]
    monkeypatch.setattr("polygo.server.ops.logs.time.monotonic", lambda: now[0])
    log = EventLog()
    rate, burst = BUDGETS["handshake-refused"]
    with caplog.at_level(logging.INFO, logger=EVENTS_LOGGER):
        for _ in range(10_000):
            log("handshake-refused", reason="flood", peer="198.51.100.1")
        log("login", name="ann")                   # another kind has its own budget
        now[0] += 1.0
        log("handshake-refused", reason="flood", peer="198.51.100.1")
    lines = [r for r in caplog.records if r.msg == "handshake-refused"]
    assert len(lines) == burst + 1
    assert lines[-1].fields["suppressed"] == 10_000 - burst
    assert [r.msg for r in caplog.records].count("login") == 1


def test_error_lines_are_budgeted_per_code(caplog):
    log = EventLog()
    _, burst = BUDGETS["error"]
    with caplog.at_level(logging.INFO, logger=EVENTS_LOGGER):
        for _ in range(500):
            log("error", code="illegal-move", room="r")
        log("error", code="internal", room="r")
    codes = [r.fields["code"] for r in caplog.records]
    assert codes.count("illegal-move") == burst and codes.count("internal") == 1


def test_the_text_format_shows_an_event_s_fields_as_key_value():
    record = logging.LogRecord(EVENTS_LOGGER, logging.INFO, __file__, 1, "login", None, None)
    record.fields = {"address": "203.0.113.7", "name": "Ann B", "user": None}
    line = TextFormatter().format(record)
    assert line.endswith('INFO polygo.events: login address="203.0.113.7" name="Ann B" user=null')
    entry = json.loads(JsonFormatter().format(record))
    assert entry["event"] == "login" and entry["address"] == "203.0.113.7" and entry["user"] is None
