"""The house bot: seats the server itself plays, through a whole game and across a restart."""

from __future__ import annotations

import asyncio
import random

from gorules import Board, Game

from protocol import PROTOCOL_VERSION
from server.app import Server
from server.house_play import choose

WAIT = 20.0


async def _until(client, predicate) -> dict:
    """Events until one satisfies `predicate` (generous timeout: a shared machine is slow)."""
    while True:
        event = await asyncio.wait_for(client.events.get(), WAIT)
        if predicate(event):
            return event


async def test_a_room_with_bots_starts_when_the_player_sits_and_the_bot_answers(server, players):
    (ann,) = await players(1)
    room = (await ann.ok("create", settings={"rules": "kee", "board": "5x5", "players": 3, "bots": 2}))["room"]
    snapshot = await ann.ok("sit", room=room, seat=0)
    assert [s["name"] for s in snapshot["seats"]] == ["p0", "bot1", "bot2"]
    assert snapshot["status"] == "playing"
    assert (await ann.move(room, "C3", 1))["type"] == "ack"
    white = await _until(ann, lambda e: e["kind"] == "move" and e["seat"] == 1)
    red = await _until(ann, lambda e: e["kind"] == "move" and e["seat"] == 2)
    assert red["to_move"] == 0 and white["version"] < red["version"]


async def test_bots_leave_a_seat_for_a_player(server, players):
    (ann,) = await players(1)
    reply = await ann.request("create", settings={"rules": "chinese", "board": "5x5", "players": 2, "bots": 2})
    assert reply["type"] == "error" and reply["code"] == "bad-settings"
    assert "leave none for a player" in reply["message"]


async def test_a_player_takes_back_a_move_the_bot_has_answered(server, players):
    """Issue 11 item 8: the bot's answer came at once, so the player's move was never the last one."""
    (ann,) = await players(1)
    room = (await ann.ok("create", settings={"rules": "chinese", "board": "5x5", "bots": 1}))["room"]
    await ann.ok("sit", room=room, seat=0)
    await ann.move(room, "C3", 1)
    await _until(ann, lambda e: e["kind"] == "move" and e["seat"] == 1)
    await ann.ok("undo", room=room)
    reply = await _until(ann, lambda e: e["kind"] == "undo-reply")
    assert reply["seat"] == 1 and reply["accept"] is True          # the bot's policy: yes
    first = await _until(ann, lambda e: e["kind"] == "undo")
    second = await _until(ann, lambda e: e["kind"] == "undo")
    assert (first["seat"], first["index"], second["seat"], second["index"]) == (1, 1, 0, 0)
    snapshot = await ann.ok("watch", room=room)
    assert snapshot["game"]["history"] == [] and snapshot["game"]["to_move"] == 0
    assert (await ann.move(room, "B2", 2))["type"] == "ack"


async def test_a_move_a_player_answered_is_not_taken_back_by_the_one_before(server, players):
    ann, bob = await players(2)
    room = (await ann.ok("create", settings={"rules": "kee", "board": "5x5", "players": 3, "bots": 1}))["room"]
    await ann.ok("sit", room=room, seat=0)
    await bob.ok("sit", room=room, seat=1)
    await ann.move(room, "C3", 1)
    await bob.move(room, "B2", 1)
    await _until(ann, lambda e: e["kind"] == "move" and e["seat"] == 2)
    refused = await ann.request("undo", room=room)
    assert refused["type"] == "error" and refused["code"] == "no-undo"   # bob, a person, answered C3


async def test_a_bot_game_survives_a_server_restart(config, players, connect_client):
    first = await Server(config).start()
    try:
        (ann,) = await players(1, port=first.port)
        room = (await ann.ok("create", settings={"rules": "tromp-taylor", "board": "5x5", "bots": 1}))["room"]
        await ann.ok("sit", room=room, seat=0)
        await ann.move(room, "C3", 1)
        await _until(ann, lambda e: e["kind"] == "move" and e["seat"] == 1)
        await ann.move(room, "B2", 2)   # acknowledged, so committed; the bot has not answered yet
    finally:
        await first.close()
    second = await Server(config).start()
    try:
        again = await connect_client(port=second.port)
        await again.ok("hello", protocol=PROTOCOL_VERSION, token=ann.token)
        snapshot = await again.ok("watch", room=room)
        assert snapshot["seats"][1]["name"] == "bot1"
        stones = snapshot["game"]["stones"]
        if snapshot["game"]["to_move"] == 1:     # the bot's answer to B2 came after the restart
            event = await _until(again, lambda e: e["kind"] == "move" and e["seat"] == 1)
            stones.update(event["changes"]["set"])
        free = next(p for p in ("D4", "D2", "B4", "E5", "A5") if p not in stones)
        assert (await again.move(room, free, 3))["type"] == "ack"
        await _until(again, lambda e: e["kind"] == "move" and e["seat"] == 1)
    finally:
        await second.close()


def test_the_house_bot_captures_and_never_fills_its_own_eye():
    eye = Game(Board.grid(3, 3), rules="chinese")
    for move in ["A2", "pass", "B2", "pass", "B3", "pass", "B1", "pass", "C1", "pass", "C2", "pass", "C3", "pass"]:
        eye.play(move)
    # Black owns the board with eyes at A1 and A3: filling either is useless, so the bot passes.
    assert choose(eye, 0, random.Random(1)) == "pass"
    atari = Game(Board.grid(5, 5), rules="chinese")
    for move in ["C3", "C2", "pass", "B3", "pass", "D3", "pass"]:
        atari.play(move)
    # White's C4 captures the black stone at C3 (its last liberty).
    assert choose(atari, 1, random.Random(1)) == "C4"
