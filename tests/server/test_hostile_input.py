"""Hostile frames against a live server: a deeply nested create is answered with a code and at
most a log line, and the connection reads on; an address's frames are refused before they are
decoded once it is over its read rate (over all its connections), and a large create once its
create rate is spent."""

from __future__ import annotations

import asyncio
import logging

import msgpack
import pytest
from websockets.asyncio.client import connect
from websockets.exceptions import InvalidStatus

from polygo.protocol import PROTOCOL_VERSION, decode_client
from polygo.server import connection
from polygo.server.config import parse_config

from .conftest import Client


async def test_a_deeply_nested_create_gets_a_code_and_at_most_a_log_line(server, connect_client, caplog):
    client = await connect_client("polygo.msgpack")
    await client.hello("deep")
    head = {"type": "create", "id": 7, "settings": {"rules": "chinese", "board": {"points": [], "coords": None}}}
    frame = msgpack.packb(head)[:-1] + b"\x81\xa1a" * 400 + b"\x90"     # 1,261 bytes, 400 levels
    with caplog.at_level(logging.DEBUG):
        for _ in range(5):
            await client.send_raw(frame)
            reply = await client.reply()
            assert reply["type"] == "error" and reply["code"] == "bad-field" and reply["id"] == 7, reply
            assert "deeper than" in reply["message"]
    assert len([r for r in caplog.records if r.name.startswith("polygo") or r.name.startswith("websockets")]) <= 5
    assert "Traceback" not in caplog.text
    assert (await client.ok("list"))["type"] == "rooms"
    assert (await client.request("hello", protocol=PROTOCOL_VERSION, name="still"))["type"] == "welcome"


BIG_POINTS = [f"p{i}" for i in range(4096)]
EDGES = [[BIG_POINTS[i], BIG_POINTS[i + 1]] for i in range(0, 2400, 2)]
REFUSED = {"rules": "no-such-rules", "board": {"points": BIG_POINTS, "edges": EDGES}}


@pytest.fixture
def decoded(monkeypatch) -> list[int]:
    """The sizes of the frames the server decoded into messages."""
    sizes: list[int] = []

    def counted(frame, **kwargs):
        sizes.append(len(frame))
        return decode_client(frame, **kwargs)

    monkeypatch.setattr(connection, "decode_client", counted)
    return sizes


async def test_an_address_over_its_read_rate_is_refused_before_decoding(make_server, decoded, tmp_path):
    srv = await make_server(db=str(tmp_path / "reads.db"), read_rate=20_000.0, rate=1e9, burst=10**9)
    flooders = [await from_address(srv.port, "127.0.0.1") for _ in range(4)]
    for flooder in flooders:
        await flooder.hello("flood")
    codes = []
    for n in range(6):
        for i, flooder in enumerate(flooders):
            await flooder.send(type="create", id=n, settings=REFUSED)
            reply = await flooder.reply()
            codes.append(reply["code"])
            assert reply["id"] == n and reply["ref"] == "create"
            assert reply["code"] == "bad-settings" or "bytes a second from your address" in reply["message"]
    big = [size for size in decoded if size > 1024]
    assert len(big) <= 3, f"{len(big)} frames of 58 KB decoded; 20,000 bytes a second, 80,000 at once"
    assert codes.count("rate-limited") >= 20

    bystander = await from_address(srv.port, "127.0.0.2")
    await bystander.hello("bystander")
    assert (await bystander.ok("create", settings={"rules": "chinese", "board": "9"}))["type"] == "created"
    for client in [*flooders, bystander]:
        await client.close()


async def test_a_large_create_over_the_create_rate_is_refused_before_decoding(make_server, decoded, tmp_path):
    srv = await make_server(db=str(tmp_path / "creates.db"), create_rate=0.01, rate=1e9, burst=10**9,
                            read_rate=1e9)
    client = await from_address(srv.port, "127.0.0.1")
    await client.hello("creator")
    replies = [await client.request("create", settings=REFUSED) for _ in range(30)]
    assert [r["code"] for r in replies] == ["bad-settings"] * 20 + ["rate-limited"] * 10
    assert all("creates a second" in r["message"] and r["ref"] == "create" for r in replies[20:])
    assert len([size for size in decoded if size > 1024]) == 20, "refused creates were decoded"
    await client.close()


async def from_address(port: int, address: str) -> Client:
    """A client connected from `address` (any of 127.0.0.0/8 reaches the loopback server)."""
    ws = await connect(f"ws://127.0.0.1:{port}/", subprotocols=["polygo.json"], local_addr=(address, 0),
                       max_size=2**22)
    return Client(ws, "polygo.json")


@pytest.mark.parametrize("x", [1.79e308, -1.79e308, 1_000_001, float("nan")])
async def test_board_coordinates_are_bounded(server, players, x):
    (client,) = await players(1, "polygo.msgpack")
    board = {"points": ["a", "b"], "edges": [["a", "b"]], "coords": {"a": [0, 0], "b": [x, 0]}}
    refused = await client.request("create", settings={"rules": "chinese", "board": board})
    assert refused["code"] == "bad-settings" and refused["field"] == "settings", refused
    board["coords"]["b"] = [1_000_000, -1_000_000]
    assert (await client.ok("create", settings={"rules": "chinese", "board": board}))["type"] == "created"


async def test_guest_sessions_and_registrations_are_rate_limited_per_address(make_server, tmp_path):
    srv = await make_server(db=str(tmp_path / "guests.db"), guest_rate=0.01, register_rate=0.01)
    clients = [await from_address(srv.port, "127.0.0.3") for _ in range(2)]
    replies = [await clients[i % 2].request("hello", protocol=PROTOCOL_VERSION, name=f"g{i}") for i in range(31)]
    assert [r["type"] for r in replies[:30]] == ["welcome"] * 30
    assert replies[30]["code"] == "rate-limited" and "guest sessions" in replies[30]["message"]
    other = await from_address(srv.port, "127.0.0.4")
    assert (await other.request("hello", protocol=PROTOCOL_VERSION, name="elsewhere"))["type"] == "welcome"

    registered = [await clients[0].request("register", user=f"user{i}", password="a good password")
                  for i in range(4)]
    assert [r["type"] for r in registered] == ["ok", "error", "error", "error"]   # the session is registered
    assert registered[1]["code"] == "name-taken"
    fresh = [await from_address(srv.port, "127.0.0.3") for _ in range(3)]
    outcomes = []
    for i, client in enumerate([clients[1], *fresh]):
        await client.request("hello", protocol=PROTOCOL_VERSION, token=replies[1 + i]["token"])
        outcomes.append(await client.request("register", user=f"member{i}", password="a good password"))
    assert [r.get("code", r["type"]) for r in outcomes] == ["ok", "ok", "rate-limited", "rate-limited"]
    assert "registrations" in outcomes[-1]["message"]
    for client in [*clients, other, *fresh]:
        await client.close()


async def test_a_connection_that_says_no_hello_is_closed(make_server, tmp_path):
    srv = await make_server(db=str(tmp_path / "silent.db"), hello_timeout=0.3)
    silent = await connect(f"ws://127.0.0.1:{srv.port}/", subprotocols=["polygo.json"])
    talker = await from_address(srv.port, "127.0.0.1")
    await talker.hello("talker")
    await asyncio.wait_for(silent.wait_closed(), 5)
    assert silent.close_code == 1008 and "no hello within 0.3 s" in silent.close_reason
    await asyncio.sleep(0.4)   # past the silent one's deadline: the talker's passed too, and it was greeted
    assert (await talker.ok("list"))["type"] == "rooms"
    await talker.close()


@pytest.mark.parametrize("origin, allowed, accepted", [
    (None, (), True),                                    # a bot or the terminal client
    ("http://127.0.0.1:{port}", (), True),               # the server's own page
    ("https://evil.example", (), False),
    ("http://127.0.0.1:1", (), False),                   # another port is another origin
    ("https://games.example", ("https://games.example",), True),
    ("https://evil.example", ("*",), True),
])
async def test_websockets_from_other_origins_are_refused(make_server, tmp_path, origin, allowed, accepted):
    srv = await make_server(db=str(tmp_path / "origins.db"), allowed_origins=allowed)
    headers = {} if origin is None else {"Origin": origin.format(port=srv.port)}
    try:
        ws = await connect(f"ws://127.0.0.1:{srv.port}/", subprotocols=["polygo.json"], additional_headers=headers,
                           origin=None)
    except InvalidStatus as exc:
        assert not accepted and exc.response.status_code == 403
        assert b"--allowed-origins" in exc.response.body
        return
    assert accepted
    await ws.close()


def test_allowed_origins_from_the_command_line_and_the_environment(capsys):
    assert parse_config([], {}).allowed_origins == ()
    assert parse_config(["--allowed-origins", "https://a.example, http://b.example:8080/"], {}).allowed_origins == \
        ("https://a.example", "http://b.example:8080")
    assert parse_config([], {"POLYGO_ALLOWED_ORIGINS": "*"}).allowed_origins == ("*",)
    with pytest.raises(SystemExit):
        parse_config(["--allowed-origins", "a.example"], {})
    assert "an origin is scheme://host[:port]" in capsys.readouterr().err


async def test_the_chat_rate_holds_per_session_over_rooms(make_server, tmp_path, players):
    srv = await make_server(db=str(tmp_path / "chat.db"), chat_rate=0.01)
    (talker,) = await players(1, port=srv.port)
    rooms = [(await talker.ok("create", settings={"rules": "chinese", "board": "9"}))["room"] for _ in range(3)]
    for room in rooms:
        await talker.ok("watch", room=room)
    said = [await talker.request("chat", room=rooms[i % 3], text=f"line {i}") for i in range(12)]
    assert [r["type"] for r in said] == ["ok"] * 10 + ["error"] * 2    # 10 at once in all, not in each room
    assert "over all your rooms" in said[-1]["message"]


async def test_a_creator_leaving_a_waiting_room_frees_its_slot(make_server, tmp_path, players, connect_client):
    srv = await make_server(db=str(tmp_path / "slots.db"), rooms_per_address=2)
    creator, fan, other = await players(3, port=srv.port)
    empty = (await creator.ok("create", settings={"rules": "chinese", "board": "9"}))["room"]
    await creator.ok("sit", room=empty, seat=0)
    await fan.ok("watch", room=empty)
    joined = (await creator.ok("create", settings={"rules": "chinese", "board": "9"}))["room"]
    await other.ok("sit", room=joined, seat=1)
    assert (await creator.request("create", settings={"rules": "chinese", "board": "9"}))["code"] == "too-many-rooms"

    await creator.ok("leave", room=empty)
    closed = await fan.event("closed")
    assert closed["room"] == empty and closed["reason"] == "left"
    assert (await fan.request("watch", room=empty))["code"] == "no-such-room"
    await creator.ok("leave", room=joined)        # someone sits: it waits on, not counted against the creator
    assert joined in srv.hub.rooms
    made = [await creator.request("create", settings={"rules": "chinese", "board": "9"}) for _ in range(3)]
    assert [r["type"] for r in made] == ["created", "created", "error"]
    snapshot = await other.ok("sit", room=joined, seat=1)
    assert snapshot["status"] == "waiting"
