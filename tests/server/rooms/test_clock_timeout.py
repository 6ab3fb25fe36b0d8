"""The server's clock: a player whose flag falls loses a two-player game, and drops out of a game of
three (its turns are skipped, it is ranked last). Clocks are short; nothing asserts a duration."""

from __future__ import annotations


async def test_timeout_loses_a_two_player_game(players, seat):
    black, white = await players(2)
    room = await seat([black, white], {"rules": "chinese", "board": "9", "clock": "absolute:0.3"})
    start = await black.event("start")
    assert start["clocks"]["running"] == 0 and start["clocks"]["seats"][0]["main"] <= 0.3
    timeout = await black.event("timeout")
    assert timeout["seat"] == 0 and timeout["to_move"] is None
    assert timeout["result"]["reason"] == "timeout" and timeout["result"]["ranking"] == [2, 1]
    late = await black.move(room, "E5", 1)
    assert late["code"] == "timeout"
    snapshot = await black.ok("watch", room=room)
    assert snapshot["status"] == "ended" and snapshot["game"]["history"] == [[0, "timeout", False]]


async def test_timeout_drops_a_player_out_of_a_three_player_game(players, seat):
    ann, bob, cy = await players(3)
    room = await seat([ann, bob, cy], {"rules": "kee", "board": "5", "players": 3, "clock": "fischer:1.5+60"})
    await ann.event("start")
    assert (await ann.move(room, "A1", 1))["type"] == "ack"
    timeout = await cy.event("timeout")
    assert timeout["seat"] == 1 and timeout["dropped"] == [1] and timeout["to_move"] == 2
    assert "result" not in timeout and timeout["clocks"]["running"] == 2
    assert (await cy.move(room, "C3", 1))["type"] == "ack"
    event = await cy.event("move")
    assert event["to_move"] == 0
    assert (await bob.move(room, "E5", 1))["code"] == "timeout"
    assert (await ann.move(room, "B2", 2))["type"] == "ack"
    assert (await cy.event("move"))["to_move"] == 2
    for i, client in enumerate([cy, ann]):
        reply = await client.move(room, "pass", 10 + i)
        assert reply["type"] == "ack", reply
    for client in (ann, cy):
        assert (await client.move(room, "done", 20))["type"] == "ack"
    final = await ann.event("move")
    while "result" not in final:
        final = await ann.event("move")
    assert final["result"]["ranking"][1] == 3


async def test_a_timeout_ends_a_pending_undo_request(players, seat):
    """The undo would take back the last live move, which is now the timeout, not the asker's move."""
    ann, bob, cy = await players(3)
    room = await seat([ann, bob, cy], {"rules": "kee", "board": "5", "players": 3, "clock": "fischer:1.5+60"})
    await ann.event("start")
    assert (await ann.move(room, "A1", 1))["type"] == "ack"
    await ann.ok("undo", room=room)
    await cy.event("timeout")
    assert (await cy.request("undo_reply", room=room, accept=True))["code"] == "no-undo"
    snapshot = await cy.ok("watch", room=room)
    assert "undo" not in snapshot
    assert snapshot["game"]["history"] == [[0, "A1", False], [1, "timeout", False]]
    assert snapshot["game"]["dropped"] == [1] and snapshot["game"]["to_move"] == 2


async def test_a_dropped_out_player_cannot_answer_an_undo_request(players, seat):
    """Its turns are skipped, so it has no say in taking a move back: neither a veto nor a vote."""
    ann, bob, cy = await players(3)
    room = await seat([ann, bob, cy], {"rules": "kee", "board": "5", "players": 3, "clock": "fischer:1.5+60"})
    await ann.event("start")
    assert (await ann.move(room, "A1", 1))["type"] == "ack"
    await cy.event("timeout")
    assert (await cy.move(room, "C3", 1))["type"] == "ack"
    await cy.ok("undo", room=room)
    refused = await bob.request("undo_reply", room=room, accept=False)
    assert refused["code"] == "no-undo" and "dropped out" in refused["message"]
    await ann.ok("undo_reply", room=room, accept=True)
    undone = await ann.event("undo")
    assert undone["seat"] == 2 and undone["to_move"] == 2
    snapshot = await ann.ok("watch", room=room)
    assert snapshot["game"]["history"] == [[0, "A1", False], [1, "timeout", False]]
