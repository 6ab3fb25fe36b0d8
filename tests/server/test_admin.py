"""`polygo-server admin` on a live server: who is connected, closing a room, removing a chat line,
bans of a name or an address (with their clients cut off), a password reset that ends the user's
sessions; through the real Unix socket, some from the command line in a process of its own."""

from __future__ import annotations

import asyncio
import dataclasses
import json
import os
import stat
import subprocess
import sys
from ipaddress import ip_network

import pytest
from websockets.asyncio.client import connect
from websockets.exceptions import InvalidStatus

from polygo.protocol import PROTOCOL_VERSION
from polygo.server import admin

from .conftest import ROOT, WAIT, Client


@pytest.fixture
def config(config, tmp_path):
    return dataclasses.replace(config, admin_socket=str(tmp_path / "admin.sock"),
                               trusted_proxies=(ip_network("127.0.0.1/32"),))


async def ask(server, **message) -> dict:
    return await asyncio.to_thread(admin.request, server.config.admin_socket, message)


def cli(server, *args: str, stdin: str = "") -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "polygo.server", "admin", "--socket", server.config.admin_socket, *args],
                          cwd=ROOT, capture_output=True, text=True, input=stdin, timeout=60,
                          env=dict(os.environ, PYTHONPATH=str(ROOT)))


async def from_address(server, address: str) -> Client:
    ws = await connect(f"ws://127.0.0.1:{server.port}/", subprotocols=["polygo.json"],
                       additional_headers={"X-Forwarded-For": address})
    return Client(ws, "polygo.json")


async def test_only_the_server_s_user_may_open_the_socket(server):
    assert stat.S_IMODE(os.stat(server.config.admin_socket).st_mode) == 0o600


async def test_who_lists_the_connections(server, players, seat):
    ann, bob = await players(2)
    room = await seat([ann, bob], {"rules": "chinese", "board": "9"})
    done = await asyncio.to_thread(cli, server, "--json", "who")
    assert done.returncode == 0, done.stderr
    listed = {c["name"]: c for c in json.loads(done.stdout)["connections"]}
    assert set(listed) == {"p0", "p1"} and listed["p0"]["rooms"] == [room]
    assert listed["p0"]["address"] == "127.0.0.1" and listed["p0"]["user"] is None
    table = await asyncio.to_thread(cli, server, "who")
    assert "2 connections" in table.stdout and room in table.stdout


async def test_who_shows_an_ipv6_client_by_its_address_beside_its_limit_key(server):
    """The limits and address bans count an IPv6 client by its /64; the operator asking who is
    connected needs the host itself."""
    client = await from_address(server, "2001:db8::5")
    await client.hello("v6")
    done = await asyncio.to_thread(cli, server, "--json", "who")
    [listed] = json.loads(done.stdout)["connections"]
    assert (listed["address"], listed["limit_key"]) == ("2001:db8::5", "2001:db8::/64")


async def test_closing_a_game_being_played_ends_it_for_everyone(server, players, seat):
    ann, bob = await players(2)
    room = await seat([ann, bob], {"rules": "chinese", "board": "9"})
    assert (await ann.move(room, "E5", 1))["type"] == "ack"
    answer = await ask(server, command="close-room", room=room, message="closed for abuse")
    assert answer == {"ok": True, "room": room, "was": "playing"}
    closed = await bob.event("closed")
    assert (closed["reason"], closed["message"]) == ("operator", "closed for abuse")
    assert (await bob.move(room, "C3", 1))["code"] == "game-over"
    games = await ann.ok("games")
    assert games["games"][0]["room"] == room and games["games"][0]["result"]["reason"] == "closed"
    again = await ask(server, command="close-room", room=room)
    assert again["ok"] is False and "ended" in again["error"]


async def test_closing_a_waiting_room_drops_it(server, players):
    (ann,) = await players(1)
    room = (await ann.ok("create", settings={"rules": "chinese", "board": "9"}))["room"]
    await ann.ok("sit", room=room, seat=0)
    assert (await ask(server, command="close-room", room=room))["was"] == "waiting"
    assert (await ann.event("closed"))["reason"] == "operator"
    assert (await ann.request("watch", room=room))["code"] == "no-such-room"


async def test_a_removed_chat_line_is_gone_from_the_store_and_from_resyncs(server, players, seat):
    ann, bob = await players(2)
    room = await seat([ann, bob], {"rules": "chinese", "board": "9"})
    await bob.ok("chat", room=room, text="something rude")
    line = await ann.event("chat")
    await ann.ok("chat", room=room, text="hello")
    assert (await ask(server, command="remove-chat", room=room, version=line["version"] - 1))["ok"] is False
    answer = await ask(server, command="remove-chat", room=room, version=line["version"])
    assert answer["removed"] == {"name": "p1", "user": None, "text": "something rude"}
    assert await server.store.chat_line(room, line["version"]) is None
    resync = await ann.ok("watch", room=room, since=line["version"] - 1)
    assert resync["type"] == "snapshot"            # not the events: the line is gone from them
    assert [c["text"] for c in resync["chat"]] == ["hello"]      # and from the snapshot's chat tail


async def test_a_banned_name_is_cut_off_and_refused_with_its_look_alikes(server, connect_client):
    mallory = await connect_client()
    await mallory.hello("Mallory")
    answer = await ask(server, command="ban", kind="name", target="mallory", reason="spam")
    assert answer == {"ok": True, "kind": "name", "banned": "mallory", "disconnected": 1}
    await asyncio.wait_for(mallory.ws.wait_closed(), WAIT)
    assert mallory.ws.close_code == 1008
    again = await connect_client()
    refused = await again.request("hello", protocol=PROTOCOL_VERSION, name="Ma11ory")
    assert refused["code"] == "banned" and "spam" in refused["message"]
    assert (await ask(server, command="bans"))["bans"] == [{"kind": "name", "target": "mallory", "reason": "spam"}]
    assert (await ask(server, command="unban", kind="name", target="MALLORY"))["ok"]
    assert (await again.request("hello", protocol=PROTOCOL_VERSION, name="Mallory"))["type"] == "welcome"


async def test_a_banned_address_is_cut_off_and_its_handshakes_refused(server):
    bad = await from_address(server, "203.0.113.9")
    good = await from_address(server, "198.51.100.1")
    try:
        await bad.hello("eve")
        await good.hello("ann")
        answer = await ask(server, command="ban", kind="address", target="203.0.113.0/24")
        assert answer["disconnected"] == 1
        await asyncio.wait_for(bad.ws.wait_closed(), WAIT)
        with pytest.raises(InvalidStatus) as refused:
            await from_address(server, "203.0.113.77")
        assert refused.value.response.status_code == 403
        assert (await good.ok("list"))["type"] == "rooms"      # others go on
        await ask(server, command="unban", kind="address", target="203.0.113.0/24")
        back = await from_address(server, "203.0.113.77")
        await back.close()
    finally:
        await bad.close()
        await good.close()


async def test_bans_outlive_a_restart(make_server, config):
    first = await make_server()
    await ask(first, command="ban", kind="address", target="203.0.113.9")
    await first.close()
    second = await make_server()
    with pytest.raises(InvalidStatus):
        await from_address(second, "203.0.113.9")


@pytest.mark.slow
async def test_a_password_reset_ends_the_user_s_sessions(server, connect_client, no_failure_delay):
    ann = await connect_client()
    await ann.hello("ann")
    await ann.ok("register", user="Ann", password="old secret")
    done = await asyncio.to_thread(cli, server, "reset-password", "Ann", "--password-stdin", stdin="new secret\n")
    assert done.returncode == 0 and "new secret" not in done.stdout + done.stderr, done.stderr
    assert (await ann.request("list"))["code"] == "no-session"
    other = await connect_client()
    assert (await other.request("hello", protocol=PROTOCOL_VERSION, token=ann.token))["code"] == "bad-token"
    assert (await other.request("hello", protocol=PROTOCOL_VERSION, user="Ann", password="old secret"))["code"] \
        == "bad-login"
    assert (await other.request("hello", protocol=PROTOCOL_VERSION, user="Ann", password="new secret"))["type"] \
        == "welcome"
    generated = await asyncio.to_thread(cli, server, "reset-password", "Ann")
    password = generated.stdout.strip().rsplit(" ", 1)[1]
    third = await connect_client()
    assert (await third.request("hello", protocol=PROTOCOL_VERSION, user="Ann", password=password))["type"] \
        == "welcome"
    missing = await asyncio.to_thread(cli, server, "reset-password", "nobody")
    assert missing.returncode == 1 and "no registered user 'nobody'" in missing.stderr


def test_without_a_socket_the_command_line_says_what_it_needs(capsys):
    with pytest.raises(SystemExit):
        admin.main(["who"], env={})
    assert "POLYGO_ADMIN_SOCKET" in capsys.readouterr().err
