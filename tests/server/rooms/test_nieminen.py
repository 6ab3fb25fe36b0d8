"""Nieminen 2004 over the wire: a dispute play-out (the owner's first move, a refused pass, given
stones as prisoners, the capture, two passes, back to marking) and a game ended with no result."""

from __future__ import annotations


async def test_a_dispute_played_out_over_the_wire(players, seat):
    black, white = await players(2)
    room = await seat([black, white], {"rules": "nieminen", "board": "5x5"})
    await black.event("start")
    seq = {id(black): 0, id(white): 0}

    async def send(client, move):
        seq[id(client)] += 1
        return await client.move(room, move, seq[id(client)])

    async def play(client, move):
        ack = await send(client, move)
        assert ack["type"] == "ack", ack
        return await white.event("move")

    for client, move in [(black, "C3"), (white, "pass"), (black, "pass")]:
        event = await play(client, move)
    assert event["phase"] == "scoring" and event["to_move"] is None
    await play(white, "dead C3")
    event = await play(black, "dispute C3")
    assert event["phase"] == "dispute" and event["to_move"] == 0 and event["disputed"] == ["C3"]
    assert event["dead"] == []
    wrong = await send(white, "give")
    assert wrong["type"] == "error" and wrong["reason"] == "no-give" and "owner" in wrong["message"]
    await play(black, "pass")
    await play(white, "C4")
    refused = await send(black, "pass")
    assert refused["type"] == "error" and refused["code"] == "illegal-move"
    assert refused["reason"] == "owner-cannot-pass" and "give" in refused["message"]
    event = await play(black, "give")
    assert event["move"] == "give" and event["prisoners"] == [1, 0] and event["to_move"] == 1
    for move in ("B3", "D3", "C2"):
        captured = await play(white, move)
        event = await play(black, "give")
    assert captured["changes"]["clear"] == ["C3"]
    assert event["prisoners"] == [5, 0]   # four given, one captured: all held by White
    await play(white, "pass")
    event = await play(black, "pass")
    assert event["phase"] == "scoring" and event["disputed"] == []

    snapshot = await black.ok("watch", room=room)
    game = snapshot["game"]
    assert game["phase"] == "scoring" and game["disputed"] == [] and "C3" not in game["stones"]
    assert [h[1] for h in game["history"]][3:6] == ["dead C3", "dispute C3", "pass"]
    await play(black, "done")
    event = await play(white, "done")
    assert event["result"]["reason"] == "passes" and event["result"]["ranking"] == [2, 1]
    sgf = await black.ok("game", room=room, format="sgf")
    assert "C[give]" in sgf["record"] and "C[B dispute C3]" in sgf["record"]


async def test_an_endless_loop_ends_with_no_result(players, seat):
    black, white = await players(2, codec="polygo.msgpack")
    room = await seat([black, white], {"rules": "nieminen", "board": "5x5", "options": {"no_result_at": 3}})
    await black.event("start")
    moves = "C2 A2 B1 B2 D1 pass A1 C1 B1 pass A1 C1 B1".split()   # sending two returning one
    for i, move in enumerate(moves):
        client = (black, white)[i % 2]
        assert (await client.move(room, move, i + 1))["type"] == "ack"
        event = await black.event("move")
    assert event["phase"] == "ended" and event["to_move"] is None
    assert event["result"]["reason"] == "no-result" and event["result"]["ranking"] == [1, 1]
    sgf = await white.ok("game", room=room, format="sgf")
    assert "RE[Void]" in sgf["record"]
