"""Names on a live server (issue 16, item 11): normalised, no invisible characters, no look-alikes
of a registered name, registered names marked; and a guest who registers keeps its seats (item 12)."""

from __future__ import annotations

import sqlite3

from polygo.protocol import PROTOCOL_VERSION
from polygo.server.store.schema import SQLITE_MIGRATIONS
from polygo.server.store import Store

from tests.server.conftest import Client

LOGIN = {"protocol": PROTOCOL_VERSION, "password": "correct horse"}


async def registered_alice(connect_client) -> Client:
    """A connection whose session registered the name "Alice"."""
    alice = await connect_client()
    await alice.hello("guest")
    await alice.ok("register", user="Alice", password="correct horse")
    return alice


async def test_look_alikes_of_a_registered_name_are_refused(connect_client):
    await registered_alice(connect_client)
    other = await connect_client()
    await other.hello("someone")
    for like in ("Alice", "alice ", "\u0430lice", "Ａｌｉｃｅ", "AIice", "Al ice"):
        refused = await other.request("register", user=like, password="x")
        assert refused["code"] == "name-taken" and "Alice" in refused["message"], refused
    assert (await other.request("register", user="Ali\u200bce", password="x"))["code"] == "bad-name"
    await other.ok("register", user="Alicia", password="x")


async def test_a_guest_may_not_take_a_registered_name(connect_client):
    await registered_alice(connect_client)
    for like in ("Alice", " alice", "\u0410lice", "ALICE"):
        guest = await connect_client()
        refused = await guest.request("hello", protocol=PROTOCOL_VERSION, name=like)
        assert refused["code"] == "name-taken" and refused["field"] == "name", refused
    login = await (await connect_client()).ok("hello", user="Alice", **LOGIN)
    assert login["name"] == "Alice" and login["user"] == "Alice"


async def test_invisible_and_control_characters_are_refused(connect_client):
    client = await connect_client()
    for name in ("ali\x00ce", " ", "\u202eecilA", "a\u200db", "\u3164"):
        refused = await client.request("hello", protocol=PROTOCOL_VERSION, name=name)
        assert refused["code"] == "bad-name" and refused["field"] == "name", refused
    welcome = await client.ok("hello", protocol=PROTOCOL_VERSION, name="  Ｂｏｂ  ")
    assert welcome["name"] == "Bob"
    assert (await client.request("register", user="\x00", password="x"))["code"] == "bad-name"


async def test_listings_and_chat_mark_registered_names(connect_client):
    alice = await registered_alice(connect_client)
    bob = await connect_client()
    await bob.hello("Bob")
    room = (await alice.ok("create", settings={"rules": "chinese", "board": "9"}))["room"]
    await alice.ok("sit", room=room, seat=0)
    await bob.ok("sit", room=room, seat=1)
    listed = next(r for r in (await bob.ok("list"))["rooms"] if r["room"] == room)
    assert listed["seats"] == ["Alice", "Bob"] and listed["registered"] == [True, False]
    await bob.ok("chat", room=room, text="hi")
    said = await alice.event("chat")
    assert (said["name"], said["user"]) == ("Bob", None)
    await alice.ok("chat", room=room, text="hello")
    said = await alice.event("chat")
    assert (said["name"], said["user"]) == ("Alice", "Alice")
    refused = await bob.request("seat_name", room=room, name="alice")
    assert refused["code"] == "name-taken", refused
    await bob.ok("move", room=room, move="resign", seq=1)
    finished = next(g for g in (await bob.ok("games"))["games"] if g["room"] == room)
    assert finished["seats"] == ["Alice", "Bob"] and finished["registered"] == [True, False]


async def test_a_guest_who_sat_then_registered_holds_the_seat_logging_in_elsewhere(connect_client):
    guest = await connect_client()
    await guest.hello("carol")
    bob = await connect_client()
    await bob.hello("bob")
    room = (await guest.ok("create", settings={"rules": "chinese", "board": "9"}))["room"]
    await guest.ok("sit", room=room, seat=0)
    await bob.ok("sit", room=room, seat=1)
    await guest.ok("register", user="Carol", password="correct horse")
    told = await bob.event("seat")
    assert (told["seat"], told["name"], told["user"]) == (0, "Carol", "Carol")
    elsewhere = await connect_client()
    welcome = await elsewhere.ok("hello", user="Carol", **LOGIN)
    assert welcome["seats"] == [{"room": room, "seat": 0, "last_seq": None}]
    assert (await elsewhere.move(room, "E5", 1))["type"] == "ack"
    listed = next(r for r in (await bob.ok("list"))["rooms"] if r["room"] == room)
    assert listed["seats"] == ["Carol", "bob"] and listed["registered"] == [True, False]


async def test_names_registered_before_the_upgrade_are_found_by_their_look_alikes(tmp_path):
    path = str(tmp_path / "old.db")
    with sqlite3.connect(path) as db:        # the schema of version 1, with a registered "Alice"
        db.executescript(";".join(SQLITE_MIGRATIONS[0]) + ";CREATE TABLE schema_version (version INTEGER NOT NULL);"
                         "INSERT INTO schema_version VALUES (1);"
                         "INSERT INTO users VALUES ('Alice', 'h', 0);"
                         "INSERT INTO sessions VALUES ('t', 'Alice', 'Alice', 0);")
    store = await Store.open(path)
    try:
        assert await store.registered_like("\u0430lice") == "Alice"
        assert await store.get_session("t") == {"token": "t", "name": "Alice", "user": "Alice"}
    finally:
        await store.close()


async def test_no_one_may_pass_for_the_house_bot(connect_client):
    """The house bot's seats are named bot1, bot2, ... and carry no registered user, like a guest's:
    a guest, a registration or a seat name "bot1" (or a look-alike) would pass for the server's bot."""
    host = await connect_client()
    await host.hello("host")
    room = (await host.ok("create", settings={"rules": "chinese", "board": "9", "bots": 1}))["room"]
    await host.ok("sit", room=room, seat=0)
    for like in ("bot1", "Bot 1", "B0T1", "bot7"):
        guest = await connect_client()
        refused = await guest.request("hello", protocol=PROTOCOL_VERSION, name=like)
        assert refused["code"] == "name-taken" and "house bot" in refused["message"], refused
        assert (await host.request("register", user=like, password="x"))["code"] == "name-taken"
        assert (await host.request("seat_name", room=room, name=like))["code"] == "name-taken"
    await host.ok("seat_name", room=room, name="bot fan")
    await host.ok("register", user="robot1", password="x")
