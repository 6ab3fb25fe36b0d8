"""Spectators see the public state and every event, chat with the players, and cannot move."""

from __future__ import annotations


async def test_spectator_sees_snapshot_events_and_chat_but_cannot_move(players, seat, connect_client):
    black, white = await players(2)
    room = await seat([black, white], {"rules": "chinese", "board": "9"})
    assert (await black.move(room, "E5", 1))["type"] == "ack"

    fan = await connect_client("polygo.msgpack")
    await fan.hello("fan")
    listed = await fan.ok("list")
    assert [r["room"] for r in listed["rooms"]] == [room]
    assert listed["rooms"][0]["seats"] == ["p0", "p1"] and listed["rooms"][0]["status"] == "playing"

    snapshot = await fan.ok("watch", room=room)
    assert snapshot["type"] == "snapshot" and snapshot["status"] == "playing"
    assert snapshot["game"]["stones"] == {"E5": 0} and snapshot["game"]["to_move"] == 1
    assert [s["name"] for s in snapshot["seats"]] == ["p0", "p1"]
    assert "token" not in str(snapshot)

    assert (await white.move(room, "D5", 1))["type"] == "ack"
    event = await fan.event("move")
    assert event["version"] == snapshot["version"] + 1 and event["move"] == "D5"

    refused = await fan.move(room, "C3", 1)
    assert refused["code"] == "not-seated"
    seat_refused = await fan.request("sit", room=room)
    assert seat_refused["code"] == "room-full"

    await fan.ok("chat", room=room, text="nice move")
    chat = await black.event("chat")
    assert chat["text"] == "nice move" and chat["seat"] is None and chat["name"] == "fan"
    assert (await fan.request("chat", room=room, text="x" * 501))["code"] == "bad-field"

    await fan.ok("leave", room=room)
    left_at = (await black.ok("watch", room=room))["version"]
    assert (await black.move(room, "C3", 2))["type"] == "ack"
    assert (await white.move(room, "F5", 2))["type"] == "ack"
    await fan.ok("list")   # anything sent to the fan before this reply has arrived by now
    while not fan.events.empty():
        assert fan.events.get_nowait()["version"] <= left_at
