"""The moves any seat may send out of turn, over the wire: ranking proposals (Kee rule 16),
dead-stone marking and agreement, resignation."""

from __future__ import annotations

from polygo.protocol import PROTOCOL_VERSION


async def final_event(client) -> dict:
    event = await client.event("move")
    while "result" not in event:
        event = await client.event("move")
    return event


async def test_ranking_proposal_rejected_then_agreed(players, seat):
    ann, bob, cy = await players(3)
    room = await seat([ann, bob, cy], {"rules": "kee", "board": "5", "players": 3})
    assert (await ann.move(room, "C3", 1))["type"] == "ack"
    assert (await cy.move(room, "rank 2 1 3", 1))["type"] == "ack"      # out of turn
    proposed = await ann.event("move")
    proposed = await ann.event("move") if proposed["seat"] != 2 else proposed
    assert proposed["proposal"] == {"ranking": [2, 1, 3]}
    assert (await ann.move(room, "reject", 2))["type"] == "ack"
    assert (await bob.move(room, "rank 1 2 3", 1))["type"] == "ack"
    assert (await ann.move(room, "accept", 3))["type"] == "ack"
    assert (await cy.move(room, "accept", 2))["type"] == "ack"
    final = await final_event(bob)
    assert final["result"]["reason"] == "agreement" and final["result"]["ranking"] == [1, 2, 3]
    assert (await ann.request("undo", room=room))["code"] == "game-over"
    bad = await cy.move(room, "rank 1", 3)
    assert bad["code"] == "game-over"


async def test_dead_stones_marked_and_agreed(players, seat):
    black, white = await players(2)
    room = await seat([black, white], {"rules": "kee", "board": "5", "players": 2})
    for client, move, seq in [(black, "C3", 1), (white, "A1", 1), (black, "pass", 2), (white, "pass", 2)]:
        assert (await client.move(room, move, seq))["type"] == "ack"
    event = await black.event("move")
    while event["phase"] != "scoring":
        event = await black.event("move")
    assert event["to_move"] is None
    assert (await white.move(room, "dead A1", 3))["type"] == "ack"
    marked = await black.event("move")
    assert marked["dead"] == ["A1"] and marked["accepted"] == []
    assert (await black.move(room, "done", 3))["type"] == "ack"
    assert (await white.move(room, "done", 4))["type"] == "ack"
    final = await final_event(black)
    assert final["changes"] == {"clear": ["A1"], "set": {}}
    assert final["result"]["ranking"] == [1, 2]


async def test_resignation_ends_a_two_player_game(players, seat):
    black, white = await players(2)
    room = await seat([black, white], {"rules": "tromp-taylor", "board": "9"})
    assert (await black.move(room, "E5", 1))["type"] == "ack"
    assert (await black.move(room, "resign", 2))["type"] == "ack"
    final = await final_event(white)
    assert final["result"]["reason"] == "resignation" and final["result"]["ranking"] == [2, 1]
    listed = await white.ok("list")
    assert listed["rooms"] == []
    welcome = await white.ok("hello", protocol=PROTOCOL_VERSION, token=white.token)
    assert welcome["seats"] == []
