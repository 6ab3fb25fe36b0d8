"""Issue 16, item 1: every value a room is created with must encode as msgpack and JSON, so that no
room can break the clients of the other codec (a JSON integer beyond 64 bits, a msgpack NaN)."""

from __future__ import annotations

import json
import sqlite3

import msgpack

GRAPH = {"points": ["a", "b"], "edges": [["a", "b"]]}


def graph(x):
    return {**GRAPH, "coords": {"a": [x, 0], "b": [1, 1]}}


async def test_a_huge_integer_from_json_is_refused_and_msgpack_clients_keep_listing(players, connect_client):
    (guest,) = await players(1, "polygo.json")
    for x in (10**29, -10**29, 2**64):
        await guest.send_raw('{"type": "create", "settings": {"rules": "chinese", "board": '
                             + json.dumps(graph(0)).replace("[0, 0]", f"[{x}, 0]") + "}}")
        reply = await guest.reply()
        assert reply["code"] == "bad-settings" and "2^53" in reply["message"], reply
    (binary,) = await players(1, "polygo.msgpack")
    assert (await binary.ok("list"))["type"] == "rooms"


async def test_nan_and_infinite_coordinates_are_bad_settings_not_internal(players):
    (guest,) = await players(1, "polygo.msgpack")
    for x in (float("nan"), float("inf"), -float("inf")):
        await guest.send_raw(msgpack.packb({"type": "create", "settings": {"rules": "chinese", "board": graph(x)}}))
        reply = await guest.reply()
        assert reply["code"] == "bad-settings" and "finite" in reply["message"], reply
    assert (await guest.request("create", settings={"rules": "chinese", "board": graph(2**53)}))["code"] == "bad-settings"
    assert (await guest.ok("create", settings={"rules": "chinese", "board": graph(10**6)}))["type"] == "created"


async def test_a_poisoned_room_stored_before_the_check_is_left_out_at_restart(config, make_server, players):
    first = await make_server()
    (guest,) = await players(1, port=first.port)
    room = (await guest.ok("create", settings={"rules": "chinese", "board": graph(3)}))["room"]
    await first.close()
    with sqlite3.connect(config.db) as con:     # what an older server let in
        (text,) = con.execute("SELECT settings FROM room_settings WHERE room_id = ?", (room,)).fetchone()
        con.execute("UPDATE room_settings SET settings = ? WHERE room_id = ?",
                    (text.replace('[3,0]', '[100000000000000000000000000000,0]').replace('[3, 0]', '[100000000000000000000000000000, 0]'), room))
        assert "100000000000000000000000000000" in con.execute("SELECT settings FROM room_settings").fetchone()[0]
    second = await make_server()
    (binary,) = await players(1, "polygo.msgpack", port=second.port)
    listing = await binary.ok("list")
    assert room not in [r["room"] for r in listing["rooms"]]
    assert (await binary.request("watch", room=room))["code"] == "no-such-room"


async def test_the_msgpack_timestamp_extension_is_refused_like_the_others(players):
    (guest,) = await players(1, "polygo.msgpack")
    frame = msgpack.packb({"type": "create", "id": 4,
                           "settings": {"rules": "chinese", "board": graph(msgpack.Timestamp(1, 0))}})
    await guest.send_raw(frame)
    reply = await guest.reply()
    assert reply["code"] == "bad-frame" and "extension" in reply["message"] and reply["id"] == 4
