"""Reconnecting: the token restores the session and its seats, `watch` with `since` gives the missed
events (or a snapshot when the gap is too old), and a resent move is acknowledged, not replayed."""

from __future__ import annotations

from polygo.protocol import PROTOCOL_VERSION


async def test_reconnect_resumes_from_a_version(players, seat, connect_client):
    black, white = await players(2)
    room = await seat([black, white], {"rules": "tromp-taylor", "board": "9"})
    ack = await black.move(room, "E5", 1)
    seen = ack["version"]
    await black.close()

    assert (await white.move(room, "C3", 1))["type"] == "ack"
    again = await connect_client()
    welcome = await again.ok("hello", protocol=PROTOCOL_VERSION, token=black.token)
    assert welcome["name"] == "p0" and welcome["seats"] == [{"room": room, "seat": 0, "last_seq": 1}]
    missed = await again.ok("watch", room=room, since=seen)
    assert missed["type"] == "events"
    assert [e["version"] for e in missed["events"]] == [seen + 1]
    assert missed["events"][0]["move"] == "C3"

    resent = await again.move(room, "E5", 1)
    assert resent == {"type": "ack", "room": room, "seq": 1, "version": seen}
    stale = await again.move(room, "D4", 0)
    assert stale["code"] == "stale-seq"
    assert (await again.move(room, "D4", 2))["type"] == "ack"
    snapshot = await white.ok("watch", room=room)
    assert snapshot["game"]["stones"] == {"E5": 0, "C3": 1, "D4": 0}
    assert len(snapshot["game"]["history"]) == 3

    nothing = await again.ok("watch", room=room, since=snapshot["version"])
    assert nothing == {"type": "events", "room": room, "events": []}
    assert (await again.request("hello", protocol=PROTOCOL_VERSION, token="not-a-token"))["code"] == "bad-token"


async def test_a_gap_older_than_the_kept_events_gets_a_snapshot(make_server, players, tmp_path):
    srv = await make_server(resync_events=2, db=str(tmp_path / "small.db"))
    a, b = await players(2, port=srv.port)
    room = (await a.ok("create", settings={"rules": "chinese", "board": "9"}))["room"]
    await a.ok("sit", room=room)
    await b.ok("sit", room=room)
    start = (await a.event("start"))["version"]
    for i, (client, move) in enumerate([(a, "A1"), (b, "B1"), (a, "C1"), (b, "D1")]):
        assert (await client.move(room, move, i))["type"] == "ack"
    reply = await b.ok("watch", room=room, since=start)
    assert reply["type"] == "snapshot" and len(reply["game"]["history"]) == 4
    recent = await b.ok("watch", room=room, since=reply["version"] - 2)
    assert recent["type"] == "events" and len(recent["events"]) == 2
