"""Three promises of docs/protocol.md held over the wire: a waiting room with a clock shows its
clocks; a dead mark that changes nothing makes no new version (so a `done` sent after the real
mark is not `stale-marks`); a move resent after the game ended gets its first ack also once the
room has left memory (a restart, an eviction), answered from the store."""

from __future__ import annotations

import asyncio

import pytest

from polygo.protocol import PROTOCOL_VERSION

PATIENCE = 5.0


async def test_a_waiting_room_with_a_clock_shows_its_clocks(players):
    (ann,) = await players(1)
    room = (await ann.ok("create", settings={"rules": "chinese", "board": "9",
                                              "clock": "byoyomi:600+5x30"}))["room"]
    snapshot = await ann.ok("sit", room=room, seat=0)
    assert snapshot["status"] == "waiting"
    assert snapshot["clocks"] == {"running": None, "seats": [
        {"main": 600.0, "periods": 5, "period_left": 30.0, "stones_left": 0}] * 2}


async def test_a_waiting_room_without_a_clock_has_no_clocks(players):
    (ann,) = await players(1)
    room = (await ann.ok("create", settings={"rules": "chinese", "board": "9"}))["room"]
    assert "clocks" not in await ann.ok("sit", room=room, seat=0)


async def to_scoring(black, white, room: str) -> None:
    for client, move, seq in [(black, "C3", 1), (white, "A1", 1), (black, "pass", 2), (white, "pass", 2)]:
        assert (await client.move(room, move, seq))["type"] == "ack"


async def test_a_repeated_dead_mark_is_no_new_version_and_done_stands(players, seat):
    black, white = await players(2)
    room = await seat([black, white], {"rules": "kee", "board": "5", "players": 2})
    await to_scoring(black, white, room)
    marked = await white.move(room, "dead A1", 3)
    again = await black.move(room, "dead a1", 3)
    assert again == {"type": "ack", "room": room, "seq": 3, "version": marked["version"]}
    assert (await white.move(room, "alive B2", 4))["code"] == "illegal-move"   # no stone there
    done = await white.request("move", room=room, move="done", seq=5, after=marked["version"])
    assert done["type"] == "ack" and done["version"] == marked["version"] + 1
    final = await black.request("move", room=room, move="done", seq=4, after=marked["version"])
    assert final["type"] == "ack"
    event = await black.event("move")
    while "result" not in event:
        event = await black.event("move")
    assert event["result"]["ranking"] == [1, 2]
    record = await black.ok("game", room=room)
    assert [m for _, m, _ in record["record"]["history"]].count("dead A1") == 1


async def test_an_alive_mark_of_an_unmarked_chain_changes_nothing(players, seat):
    black, white = await players(2)
    room = await seat([black, white], {"rules": "chinese", "board": "5"})
    await to_scoring(black, white, room)
    before = (await black.ok("watch", room=room))["version"]
    assert (await black.move(room, "alive A1", 3))["version"] == before


async def resign_game(black, white) -> tuple[str, dict]:
    room = (await black.ok("create", settings={"rules": "chinese", "board": "9"}))["room"]
    await black.ok("sit", room=room, seat=0)
    await white.ok("sit", room=room, seat=1)
    assert (await black.move(room, "E5", 10))["type"] == "ack"
    last = await white.move(room, "resign", 20)
    assert last["type"] == "ack"
    return room, last


async def until_gone(srv, room: str) -> None:
    deadline = asyncio.get_running_loop().time() + PATIENCE
    while room in srv.hub.rooms:
        if asyncio.get_running_loop().time() > deadline:
            pytest.fail(f"room {room} still in memory after {PATIENCE} s")
        await asyncio.sleep(0.02)


async def test_a_move_resent_after_a_restart_gets_its_first_ack(make_server, connect_client):
    first = await make_server()
    black, white = [await connect_client(port=first.port) for _ in range(2)]
    await black.hello("black")
    await white.hello("white")
    room, last = await resign_game(black, white)
    await first.close()
    second = await make_server()
    assert room not in second.hub.rooms
    again = await connect_client(port=second.port)
    await again.ok("hello", protocol=PROTOCOL_VERSION, token=white.token)
    assert await again.move(room, "Resign", 20) == last
    reused = await again.move(room, "pass", 20)
    assert reused["code"] == "seq-reused" and reused["field"] == "seq"
    assert (await again.move(room, "pass", 21))["code"] == "game-over"
    stranger = await connect_client(port=second.port)
    await stranger.hello("stranger")
    assert (await stranger.move(room, "resign", 20))["code"] == "not-seated"
    assert (await stranger.move("nosuchroom", "resign", 20))["code"] == "no-such-room"


async def test_a_move_resent_after_eviction_gets_its_first_ack(make_server, connect_client):
    srv = await make_server(evict_after=0.05)
    black, white = [await connect_client(port=srv.port) for _ in range(2)]
    await black.hello("black")
    await white.hello("white")
    room, last = await resign_game(black, white)
    first_move = {"type": "ack", "room": room, "seq": 10}
    for client in (black, white):
        await client.ok("leave", room=room)
    await until_gone(srv, room)
    assert await white.move(room, "resign", 20) == last
    resent = await black.move(room, "e5", 10)
    assert {k: resent[k] for k in first_move} == first_move


async def test_a_private_finished_room_stays_unknown_to_strangers(make_server, connect_client):
    srv = await make_server(evict_after=0.05)
    black, white, stranger = [await connect_client(port=srv.port) for _ in range(3)]
    for client, name in [(black, "black"), (white, "white"), (stranger, "stranger")]:
        await client.hello(name)
    created = await black.ok("create", settings={"rules": "chinese", "board": "9", "private": True})
    room = created["room"]
    await black.ok("sit", room=room, seat=0)
    await white.ok("sit", room=room, seat=1, invite=created["invite"])
    last = await black.move(room, "resign", 1)
    for client in (black, white):
        await client.ok("leave", room=room)
    await until_gone(srv, room)
    assert (await stranger.move(room, "resign", 1))["code"] == "no-such-room"
    assert await black.move(room, "resign", 1) == last
