"""A restart rebuilds only the rooms waiting for players: every started unfinished game comes back
adjourned, listed to its players in `welcome`, counted towards their room limits (also once a guest
registers) and rebuilt by the first request that names it, with
every acknowledged move, its clocks as last committed, and its house bot answering."""

from __future__ import annotations

import asyncio
import dataclasses
import sqlite3
import time

import pytest

from polygo.protocol import PROTOCOL_VERSION
from polygo.server.app import Server
from polygo.server.config import Config

NINE = {"rules": "chinese", "board": "9"}
PATIENCE = 5.0


@pytest.fixture
def config(config) -> Config:
    return dataclasses.replace(config, rooms_per_session=2)


async def _until(client, wanted) -> dict:
    async def read() -> dict:
        while not wanted(event := await client.event()):
            pass
        return event
    return await asyncio.wait_for(read(), PATIENCE)


async def test_a_started_game_comes_back_adjourned_after_a_restart(config, players, connect_client):
    first = await Server(config).start()
    try:
        black, white = await players(2, port=first.port)
        playing = (await black.ok("create", settings={**NINE, "clock": "fischer:600+10"}))["room"]
        await black.ok("sit", room=playing, seat=0)
        await white.ok("sit", room=playing, seat=1)
        acked = ["E5", "C3", "G7"]
        for i, move in enumerate(acked):
            assert (await (black, white)[i % 2].move(playing, move, i // 2))["type"] == "ack"
        waiting = (await black.ok("create", settings=NINE))["room"]
        await black.ok("sit", room=waiting, seat=0)
        saved = (await white.ok("watch", room=playing))["clocks"]
    finally:
        await first.close()

    second = await Server(config).start()
    try:
        hub = second.hub
        assert set(hub.rooms) == {waiting}, "a started game was rebuilt at start-up"
        assert hub.adjourned == 1
        probe, black2, white2 = await connect_client(port=second.port), *[await connect_client(port=second.port)
                                                                          for _ in range(2)]
        await probe.hello("probe")
        assert [r["room"] for r in (await probe.ok("list"))["rooms"]] == [waiting]

        welcome = await black2.ok("hello", protocol=PROTOCOL_VERSION, token=black.token)
        assert sorted((s["room"], s["seat"], s["last_seq"]) for s in welcome["seats"]) == \
            sorted([(playing, 0, 1), (waiting, 0, None)])
        refused = await black2.request("create", settings=NINE)
        assert refused["type"] == "error" and refused["code"] == "too-many-rooms", \
            "the adjourned game no longer counted towards the session's room limit"
        await black2.ok("register", user="blackie", password="correct horse")
        elsewhere = await connect_client(port=second.port)
        await elsewhere.ok("hello", protocol=PROTOCOL_VERSION, user="blackie", password="correct horse")
        refused = await elsewhere.request("create", settings=NINE)
        assert refused["type"] == "error" and refused["code"] == "too-many-rooms", \
            "the adjourned game did not count towards the room limit of the user the guest became"
        assert playing not in hub.rooms, "the welcome rebuilt the game"

        await white2.ok("hello", protocol=PROTOCOL_VERSION, token=white.token)
        snapshot = await white2.ok("watch", room=playing)
        assert [h[1] for h in snapshot["game"]["history"]] == acked
        assert snapshot["status"] == "playing" and snapshot["clocks"]["running"] == 1
        assert playing in hub.rooms and hub.adjourned == 0
        assert snapshot["clocks"]["seats"][0] == saved["seats"][0], "black's clock changed while adjourned"
        assert (await white2.move(playing, "C7", 1))["type"] == "ack"
        assert (await black2.move(playing, "G3", 2))["type"] == "ack"
        final = await black2.ok("watch", room=playing)
        assert [h[1] for h in final["game"]["history"]] == acked + ["C7", "G3"]
    finally:
        await second.close()


async def test_a_house_bot_game_answers_its_player_back_after_a_restart(config, players, connect_client):
    first = await Server(config).start()
    try:
        (ann,) = await players(1, port=first.port)
        room = (await ann.ok("create", settings={"rules": "tromp-taylor", "board": "5x5", "bots": 1}))["room"]
        await ann.ok("sit", room=room, seat=0)
        await ann.move(room, "C3", 1)
        await _until(ann, lambda e: e["kind"] == "move" and e["seat"] == 1)
    finally:
        await first.close()

    second = await Server(config).start()
    try:
        assert room not in second.hub.rooms and second.hub.adjourned == 1
        again = await connect_client(port=second.port)
        welcome = await again.ok("hello", protocol=PROTOCOL_VERSION, token=ann.token)
        assert [(s["room"], s["seat"], s["last_seq"]) for s in welcome["seats"]] == [(room, 0, 1)]
        snapshot = await again.ok("watch", room=room)
        stones = snapshot["game"]["stones"]
        free = next(p for p in ("D4", "D2", "B4", "E5", "A5", "B2") if p not in stones)
        assert (await again.move(room, free, 2))["type"] == "ack"
        await _until(again, lambda e: e["kind"] == "move" and e["seat"] == 1)
    finally:
        await second.close()


async def test_an_overdue_correspondence_game_times_out_after_a_restart_with_nobody_there(config, players):
    """The deadline sweeper reads the store and brings back only the game it times out."""
    first = await Server(config).start()
    try:
        black, white = await players(2, port=first.port)
        rooms = []
        for clock in ("corr:1d", "fischer:600+10"):
            rooms.append((await black.ok("create", settings={**NINE, "clock": clock}))["room"])
            await black.ok("sit", room=rooms[-1], seat=0)
            await white.ok("sit", room=rooms[-1], seat=1)
        corr, live = rooms
    finally:
        await first.close()
    with sqlite3.connect(config.db) as db:
        db.execute("UPDATE rooms SET deadline = deadline - 86400 WHERE room_id = ?", (corr,))

    second = await Server(dataclasses.replace(config, deadline_sweep=0.05)).start()
    try:
        assert not second.hub.rooms and second.hub.adjourned == 2

        def result() -> tuple | None:
            with sqlite3.connect(config.db) as db:
                return db.execute("SELECT body FROM results WHERE room_id = ?", (corr,)).fetchone()
        deadline = time.monotonic() + PATIENCE
        while result() is None:
            assert time.monotonic() < deadline, "the overdue game was not timed out"
            await asyncio.sleep(0.02)
        assert "timeout" in result()[0]
        assert live not in second.hub.rooms and second.hub.adjourned == 1
    finally:
        await second.close()
