"""A move the store could not take is tried again with the same seq: by the house bot, which once
never played again (the player waited for ever: nothing else nudges a bot whose turn it is), and
by the SDK, whose caller once got the `internal` refusal of a move nothing of which was stored."""

from __future__ import annotations

import asyncio
import sqlite3

from polygo.client.session import Client
from polygo.protocol import RoomSettings

WAIT = 20.0


async def test_the_house_bot_plays_again_after_its_move_failed_to_commit(server, players, monkeypatch):
    (ann,) = await players(1)
    room = (await ann.ok("create", settings={"rules": "chinese", "board": "5x5", "bots": 1}))["room"]
    await ann.ok("sit", room=room, seat=0)
    database = server.store._db
    real = database.transaction
    refused = []

    async def failing(build, rooms=(), steps=None):
        refused.append(rooms)
        if len(refused) == 4:       # the bot's move: its batch and the batch's room by room, twice
            monkeypatch.setattr(database, "transaction", real)
        raise sqlite3.OperationalError("disk I/O error")

    assert (await ann.move(room, "C3", 1))["type"] == "ack"
    monkeypatch.setattr(database, "transaction", failing)
    while True:
        event = await asyncio.wait_for(ann.events.get(), WAIT)
        if event["kind"] == "move" and event["seat"] == 1:
            break
    assert len(refused) == 4
    game = await server.store.game(room)
    assert [(m[0], m[2]) for m in game["moves"]] == [(0, 1), (1, 0)]        # stored once, with its first seq
    point = "B2" if event["move"] != "B2" else "D4"
    assert (await ann.move(room, point, 2))["type"] == "ack"


async def test_the_sdk_sends_a_move_refused_internal_again_with_its_seq(server, monkeypatch):
    database = server.store._db
    real = database.transaction
    refused = []

    async def failing(build, rooms=(), steps=None):
        refused.append(rooms)
        if len(refused) == 2:       # the move's batch, and the batch room by room
            monkeypatch.setattr(database, "transaction", real)
        raise sqlite3.OperationalError("disk I/O error")

    async with Client(f"ws://127.0.0.1:{server.port}/", name="ann") as client:
        room = (await client.create(RoomSettings(rules="chinese", board="5x5", bots=1))).room
        await client.sit(room, 0)
        monkeypatch.setattr(database, "transaction", failing)
        ack = await asyncio.wait_for(client.move(room, "C3"), 20)
        assert len(refused) == 2
        game = await server.store.game(room)
        assert [(m[0], m[1], m[2]) for m in game["moves"]][:1] == [(0, "C3", ack.seq)]
