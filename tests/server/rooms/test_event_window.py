"""The window of a room's latest events that a resync is answered from: bounded by count and by
bytes (by count alone, 256 events were most of a 19x19 room, and an event has no fixed size), the
rest of a resync's events read from the store, the same as broadcast."""

from __future__ import annotations

import msgpack

from polygo.server.rooms.event_window import EventWindow


def packed(version: int, size: int) -> bytes:
    return msgpack.packb({"version": version, "pad": "x" * size})


def test_the_window_keeps_the_latest_events_within_its_count_and_its_bytes():
    window = EventWindow(count=4, budget=1000)
    events = {v: packed(v, 100) for v in range(1, 11)}
    for version, event in events.items():
        window.append(version, event)
        assert len(window) <= 4 and window.size <= 1000
    assert window.since(6) == [events[v] for v in (7, 8, 9, 10)]
    assert window.since(9) == [events[10]] and window.since(10) == []
    assert window.since(5) is None        # event 6 is no longer held

    for version in range(11, 21):
        window.append(version, packed(version, 300))
    assert window.size <= 1000 and len(window) == 3
    assert window.since(16) is None and [msgpack.unpackb(e)["version"] for e in window.since(17)] == [18, 19, 20]


def test_an_event_over_the_whole_budget_empties_the_window_and_a_gap_restarts_it():
    window = EventWindow(count=10, budget=500)
    window.append(1, packed(1, 10))
    window.append(2, packed(2, 600))
    assert len(window) == 0 and window.size == 0 and window.since(1) is None
    window.append(3, packed(3, 10))
    assert window.since(2) == [packed(3, 10)] and window.since(1) is None
    window.append(7, packed(7, 10))       # not the next version: the window starts again there
    assert window.since(3) is None and window.since(6) == [packed(7, 10)]


def test_forgetting_drops_the_oldest_events_up_to_a_version():
    window = EventWindow(count=10, budget=10_000)
    for version in range(1, 6):
        window.append(version, packed(version, 10))
    window.forget(3)
    assert window.since(2) is None and len(window.since(3)) == 2
    assert window.size == sum(len(packed(v, 10)) for v in (4, 5))
    window.forget(9)
    assert len(window) == 0 and window.size == 0


async def test_a_resync_past_the_bytes_a_room_keeps_gets_every_event_as_broadcast(make_server, players):
    srv = await make_server(resync_bytes=1024)
    black, white, watcher = await players(3, port=srv.port)
    room = (await black.ok("create", settings={"rules": "chinese", "board": "19"}))["room"]
    await black.ok("sit", room=room, seat=0)
    await white.ok("sit", room=room, seat=1)
    start = (await white.ok("watch", room=room))["version"]
    await watcher.ok("watch", room=room)
    moves = ["D4", "Q16", "D16", "Q4", "C3", "R17", "K10", "K11", "F3", "O17", "C6", "R14"]
    for i, move in enumerate(moves):
        assert (await (black, white)[i % 2].move(room, move, i // 2 + 1))["type"] == "ack"
    broadcast = []
    while len(broadcast) < len(moves):
        event = await watcher.event()
        if event["version"] > start:
            broadcast.append({k: v for k, v in event.items() if k not in ("type", "room")})

    kept = srv.hub.rooms[room].events
    assert 0 < kept.size <= 1024 and len(kept) < len(moves)
    resync = await white.ok("watch", room=room, since=start)
    assert resync["type"] == "events" and resync["events"] == broadcast
    recent = await white.ok("watch", room=room, since=broadcast[-2]["version"])
    assert recent["events"] == broadcast[-1:]
