"""Correspondence games on a real server and a real SQLite file: the `corr` clock on the wire, its
deadline kept as a wall-clock instant across a restart, the flag falling while nobody is there,
and `my_games`, the list of a player's games with those where it is his turn first.

Days cannot pass in a test, so time passes two ways: a short clock in the same grammar
(`corr:2s`), waited out for real; or, with a clock of days, the stored deadline moved back while
the server is down, which is what days offline look like to the next start."""

from __future__ import annotations

import asyncio
import dataclasses
import sqlite3
import time

import pytest

from polygo.protocol import PROTOCOL_VERSION
from polygo.server.app import Server

DAY = 86400


async def wait_until(condition, what: str, timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        await asyncio.sleep(0.02)


async def test_a_corr_clock_on_the_wire_has_its_deadline(players, seat):
    black, white = await players(2)
    room = await seat([black, white], {"rules": "chinese", "board": "9", "clock": "corr:2d/5d"})
    start = await black.event("start")
    clocks = start["clocks"]
    assert clocks["running"] == 0 and clocks["seats"][1] == {"main": 2.0 * DAY, "periods": 0, "period_left": 0.0,
                                                             "stones_left": 0}
    assert time.time() < clocks["deadline"] <= time.time() + 2 * DAY
    snapshot = await white.ok("watch", room=room)
    assert snapshot["settings"]["clock"] == {"kind": "corr", "period": 2 * DAY, "cap": 5 * DAY}
    assert (await black.move(room, "E5", 1))["type"] == "ack"
    moved = await white.event("move")
    assert moved["clocks"]["running"] == 1
    assert 3.9 * DAY < moved["clocks"]["seats"][0]["main"] <= 4 * DAY     # what was left plus two days


async def test_a_bad_corr_clock_is_refused_with_a_sentence(players):
    (ann,) = await players(1)
    for clock, words in [("corr:3", "units d, h, m, s"), ("corr:3d/1d", "bank"), ("corr:0d", "more than 0")]:
        refused = await ann.request("create", settings={"rules": "chinese", "board": "9", "clock": clock})
        assert refused["code"] == "bad-settings" and words in refused["message"], refused


async def test_the_deadline_survives_a_restart_and_falls_while_the_server_is_down(config, connect_client):
    """The first restart keeps the deadline where it was (the time away is charged); then the
    server stops again and, to the next start, a day has passed: the flag is found fallen when the
    game comes back (tests/server/test_lazy_restart.py: also with nobody there)."""
    server = await Server(config).start()
    black, white = await _players(connect_client, server, 2)
    room = await _seated([black, white], {"rules": "chinese", "board": "9", "clock": "corr:1d"})
    deadline = (await black.event("start"))["clocks"]["deadline"]
    for client in (black, white):
        await client.close()
    await server.close()
    stopped = time.time()
    await wait_until(lambda: time.time() > stopped + 0.2, "some time offline")

    server = await Server(config).start()
    (watcher,) = await _players(connect_client, server, 1)
    snapshot = await watcher.ok("watch", room=room)
    assert snapshot["status"] == "playing" and abs(snapshot["clocks"]["deadline"] - deadline) < 0.01
    assert snapshot["clocks"]["seats"][0]["main"] <= DAY - 0.2
    await watcher.close()
    await server.close()

    with sqlite3.connect(config.db) as db:
        db.execute("UPDATE rooms SET deadline = deadline - ? WHERE room_id = ?", (DAY, room))
    server = await Server(config).start()
    try:
        (watcher,) = await _players(connect_client, server, 1)
        snapshot = await watcher.ok("watch", room=room)
        assert snapshot["status"] == "ended" and snapshot["game"]["history"] == [[0, "timeout", False]]
        assert snapshot["game"]["result"]["reason"] == "timeout"
    finally:
        await server.close()


async def test_the_sweeper_times_out_an_overdue_game_in_memory(config, connect_client):
    """The room's own timer is one way the flag falls; the sweeper, reading the store, is the other,
    and finds the same game overdue: the flag falls once."""
    server = await Server(dataclasses.replace(config, deadline_sweep=0.05)).start()
    try:
        black, white = await _players(connect_client, server, 2)
        room = await _seated([black, white], {"rules": "chinese", "board": "9", "clock": "corr:1s"})
        timeout = await white.event("timeout")
        assert timeout["seat"] == 0 and timeout["result"]["reason"] == "timeout"
        with sqlite3.connect(config.db) as db:
            moves = db.execute("SELECT move FROM moves WHERE room_id = ?", (room,)).fetchall()
        assert moves == [("timeout",)]
    finally:
        await server.close()


async def test_my_games_lists_exactly_the_games_where_it_is_my_turn(players, seat):
    ann, bob, cy = await players(3)
    ann_to_move = await seat([ann, bob], {"rules": "chinese", "board": "9", "clock": "corr:3d"})
    bob_to_move = await seat([bob, ann], {"rules": "chinese", "board": "9"})
    cy_to_move = await seat([ann, cy], {"rules": "chinese", "board": "9", "clock": "fischer:600+5"})
    assert (await ann.move(cy_to_move, "E5", 1))["type"] == "ack"
    waiting = (await ann.ok("create", settings={"rules": "chinese", "board": "9", "title": "open"}))["room"]
    await ann.ok("sit", room=waiting, seat=0)
    over = await seat([ann, cy], {"rules": "chinese", "board": "9"})
    await cy.ok("move", room=over, move="resign", seq=1)

    mine = await ann.ok("my_games")
    assert mine["your_turn"] == 1
    assert [g["room"] for g in mine["games"] if g["your_turn"]] == [ann_to_move]
    assert {g["room"] for g in mine["games"]} == {ann_to_move, bob_to_move, cy_to_move, waiting}
    first = mine["games"][0]
    assert first["room"] == ann_to_move and first["seat"] == 0 and first["to_move"] == 0
    assert first["seats"] == ["p0", "p1"] and first["deadline"] > time.time() + 2.9 * DAY
    by_room = {g["room"]: g for g in mine["games"]}
    assert by_room[bob_to_move]["to_move"] == 0 and by_room[bob_to_move]["seat"] == 1
    assert by_room[bob_to_move]["deadline"] is None
    assert by_room[cy_to_move]["to_move"] == 1 and by_room[cy_to_move]["deadline"] > time.time()
    assert by_room[waiting]["status"] == "waiting" and by_room[waiting]["to_move"] is None

    bobs = await bob.ok("my_games")
    assert bobs["your_turn"] == 1 and [g["room"] for g in bobs["games"] if g["your_turn"]] == [bob_to_move]
    assert (await ann.move(ann_to_move, "D4", 1))["type"] == "ack"
    assert (await ann.ok("my_games"))["your_turn"] == 0
    assert (await bob.ok("my_games"))["your_turn"] == 2


@pytest.mark.slow
async def test_a_corr_flag_falls_while_nobody_is_there_and_the_game_is_out_of_memory(config, connect_client):
    """Both players gone, nobody watching: the game leaves memory (adjourned) with its clock
    running on the calendar; the sweeper finds it overdue in the store, brings it back and times
    the player out, and the players find the result when they come back."""
    server = await Server(dataclasses.replace(config, evict_after=0.05, deadline_sweep=0.05)).start()
    try:
        black, white = await _players(connect_client, server, 2)
        room = await _seated([black, white], {"rules": "chinese", "board": "9", "clock": "corr:4s"})
        deadline = (await black.event("start"))["clocks"]["deadline"]
        for client in (black, white):
            await client.close()
        await wait_until(lambda: room not in server.hub.rooms, "the game adjourned")
        away = await connect_client(port=server.port)
        await away.ok("hello", protocol=PROTOCOL_VERSION, token=black.token)
        mine = await away.ok("my_games")                # read from the store: the room stays out
        assert [(g["room"], g["your_turn"]) for g in mine["games"]] == [(room, True)]
        assert abs(mine["games"][0]["deadline"] - deadline) < 0.01
        await away.close()
        assert room not in server.hub.rooms and time.time() < deadline, "the game was back, or adjourned late"

        def stored() -> list:
            with sqlite3.connect(config.db) as db:
                return db.execute("SELECT body FROM results WHERE room_id = ?", (room,)).fetchall()

        await wait_until(lambda: stored(), "the flag to fall", timeout=deadline - time.time() + 10)
        assert '"timeout"' in stored()[0][0]
        # the ended room leaves memory again evict_after (50 ms) after the sweep, so a player who
        # comes back reads the finished game's record, as after any eviction
        (back,) = await _players(connect_client, server, 1)
        record = (await back.ok("game", room=room))["record"]
        assert record["result"]["reason"] == "timeout" and [h[1] for h in record["history"]] == ["timeout"]
    finally:
        await server.close()


async def _players(connect_client, server, n: int):
    clients = []
    for i in range(n):
        client = await connect_client(port=server.port)
        await client.hello(f"p{i}")
        clients.append(client)
    return clients


async def _seated(clients, settings) -> str:
    room = (await clients[0].ok("create", settings=settings))["room"]
    for i, client in enumerate(clients):
        await client.ok("sit", room=room, seat=i)
    return room
