"""A three-player Kee game over the wire to its end, with an appeal and a rescission.

The game of docs/protocol.md's first example (which tests/server/test_protocol_doc.py replays as
written), checked here down to the records and the database rows: on a 2x1 board six captures
bring back the position after Black's first play; Black appeals, White passes, Red passes without
appeal and her stone play B1 is rescinded (Kee rules 12-14); B1 is then excluded for Red, everyone
passes, dead stones are agreed, and White wins.
"""

from __future__ import annotations

import sqlite3


async def test_three_player_kee_game_with_appeal_and_rescission(players, seat, server):
    ann, bob, cy = await players(3)
    room = await seat_all_and_start(ann, bob, cy, seat)
    seqs = {id(c): 0 for c in (ann, bob, cy)}

    async def play(client, move):
        seqs[id(client)] += 1
        reply = await client.move(room, move, seqs[id(client)])
        assert reply["type"] == "ack", reply
        return await ann.event("move")

    for client, move in zip([ann, bob, cy, ann, bob, cy], ["A1", "B1", "A1", "B1", "A1", "B1"]):
        event = await play(client, move)
    assert event["changes"] == {"clear": ["A1"], "set": {"B1": 2}}

    refused = await ann.move(room, "A1", 99)
    assert refused["type"] == "error" and refused["code"] == "illegal-move" and refused["reason"] == "cycle"
    assert refused["seq"] == 99 and refused["message"]

    event = await play(ann, "appeal A1")
    assert event["move"] == "appeal A1" and event["to_move"] == 1
    await play(bob, "pass")
    event = await play(cy, "pass")
    assert event["rescinded"] == [5, 6, 7, 8]
    assert event["changes"] == {"clear": ["B1"], "set": {"A1": 1}}
    assert event["to_move"] == 2

    again = await cy.move(room, "B1", 50)
    assert again["type"] == "error" and again["reason"] == "rescinded"

    await play(cy, "pass")
    await play(ann, "pass")
    event = await play(bob, "pass")
    assert event["to_move"] is None and event["phase"] == "scoring"
    for client in (ann, bob, cy):
        seqs[id(client)] += 1
        assert (await client.move(room, "done", seqs[id(client)]))["type"] == "ack"
    final = await ann.event("move")
    while "result" not in final:
        final = await ann.event("move")
    assert final["result"] == {"reason": "passes", "ranking": [2, 1, 2], "score": [0.0, 2.0, 0.0]}

    snapshot = await cy.ok("watch", room=room)
    assert snapshot["status"] == "ended"
    assert [h[2] for h in snapshot["game"]["history"]][5:9] == [True] * 4
    assert snapshot["game"]["stones"] == {"A1": 1}

    record = await ann.ok("game", room=room)
    assert record["record"]["result"]["ranking"] == [2, 1, 2]
    assert record["record"]["seats"] == ["p0", "p1", "p2"]
    assert len(record["record"]["record"]["moves"]) == 15
    sgf = await ann.request("game", room=room, format="sgf")
    assert sgf["type"] == "error" and sgf["code"] == "not-exportable"
    listed = await bob.ok("games")
    assert [g["room"] for g in listed["games"]] == [room]

    # The database keeps every move, the rescinded ones (with the pass that rescinded them) marked.
    with sqlite3.connect(server.config.db) as db:
        rows = db.execute("SELECT move, rescinded FROM moves WHERE room_id = ? ORDER BY idx", (room,)).fetchall()
    assert [r for r in rows][5:9] == [("B1", 1), ("appeal A1", 1), ("pass", 1), ("pass", 1)]
    assert sum(flag for _, flag in rows) == 4


async def seat_all_and_start(ann, bob, cy, seat) -> str:
    room = await seat([ann, bob, cy], {"rules": "kee", "board": "2x1", "players": 3})
    start = await ann.event("start")
    assert start["to_move"] == 0 and start["phase"] == "play"
    return room


async def test_resume_from_a_disputed_marking_over_the_wire(players, seat):
    ann, bob = await players(2)
    room = await seat([ann, bob], {"rules": "kee", "board": "5x5"})
    await ann.event("start")
    for n, (client, move) in enumerate([(ann, "C3"), (bob, "D4"), (ann, "pass"), (bob, "pass")], 1):
        assert (await client.move(room, move, n))["type"] == "ack"
    assert (await bob.move(room, "resume", 10))["type"] == "ack"
    event = await ann.event("move")
    while event.get("move") != "resume":
        event = await ann.event("move")
    assert event["phase"] == "play" and event["to_move"] == 0
    assert (await ann.move(room, "E5", 11))["type"] == "ack"
