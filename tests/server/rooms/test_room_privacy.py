"""Issue 16, items 10 and 12: chat only from players and spectators, within a per-room rate; a
private room answers strangers exactly like a missing one; a second hello on a connection leaves
the old identity's rooms behind."""

from __future__ import annotations

from polygo.protocol import PROTOCOL_VERSION


async def test_only_players_and_spectators_chat(server, players, seat):
    black, white, stranger = await players(3)
    room = await seat([black, white], {"rules": "chinese", "board": "9"})
    refused = await stranger.request("chat", room=room, text="buy gold")
    assert refused["code"] == "not-seated" and "watch" in refused["message"]
    await stranger.ok("watch", room=room)
    await stranger.ok("chat", room=room, text="nice game")
    assert (await black.event("chat"))["text"] == "nice game"


async def test_a_room_chat_is_rate_limited(make_server, players, seat, tmp_path):
    srv = await make_server(db=str(tmp_path / "chat.db"), chat_rate=0.001, rate=1e6, burst=1e6)
    black, white = await players(2, port=srv.port)
    room = await seat([black, white], {"rules": "chinese", "board": "9"})
    codes = [(await (black, white)[i % 2].request("chat", room=room, text=f"line {i}")).get("code")
             for i in range(12)]
    assert codes[:10] == [None] * 10 and codes[10:] == ["rate-limited"] * 2


async def test_a_private_room_looks_missing_to_strangers(server, players):
    owner, stranger = await players(2)
    room = (await owner.ok("create", settings={"rules": "chinese", "board": "9", "private": True}))["room"]
    for kind, fields in [("leave", {}), ("move", {"move": "E5", "seq": 1}), ("undo", {}),
                         ("chat", {"text": "hi"}), ("seat_name", {"name": "x"})]:
        private = await stranger.request(kind, room=room, **fields)
        missing = await stranger.request(kind, room="NoSuchRm", **fields)
        assert private["code"] == missing["code"] == "no-such-room", (kind, private, missing)


async def test_a_second_hello_leaves_the_old_identitys_rooms(server, players):
    owner, friend = await players(2)
    created = await owner.ok("create", settings={"rules": "chinese", "board": "9", "private": True})
    room = created["room"]
    await owner.ok("sit", room=room)
    await friend.ok("sit", room=room, invite=created["invite"])
    await owner.event("seat")
    await owner.ok("hello", protocol=PROTOCOL_VERSION, name="someone else")
    assert (await owner.request("chat", room=room, text="still here?"))["code"] == "no-such-room"
    await friend.ok("chat", room=room, text="hello?")
    await friend.ok("chat", room=room, text="anyone?")
    await owner.ok("list")          # its reply comes after any event sent to this connection before
    assert all(e["kind"] != "chat" for e in [owner.events.get_nowait() for _ in range(owner.events.qsize())])
