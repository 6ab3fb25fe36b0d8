"""A Lasker-Maas game over the wire through both phases: the unlimited supply of phase 1, two
passes, the prisoners' place as the supply of phase 2, two more passes, the count."""

from __future__ import annotations


async def test_lasker_maas_game_through_both_phases(players, seat):
    black, white = await players(2, codec="polygo.msgpack")
    room = await seat([black, white], {"rules": "lasker-maas", "board": "5x5", "komi": 0})
    await black.event("start")
    seq = {id(black): 0, id(white): 0}

    async def play(client, move):
        seq[id(client)] += 1
        ack = await client.move(room, move, seq[id(client)])
        assert ack["type"] == "ack", ack
        return await white.event("move")

    phases = []
    for client, move in [(black, "C3"), (white, "C4"), (black, "B4"), (white, "pass"), (black, "D4"),
                         (white, "pass"), (black, "C5")]:
        event = await play(client, move)
        phases.append(event["phase"])
    assert event["changes"] == {"clear": ["C4"], "set": {"C5": 0}}
    assert phases == ["phase-1"] * 7
    await play(white, "pass")
    event = await play(black, "pass")
    assert event["phase"] == "phase-2"
    supply = event["prisoners"]
    event = await play(white, "A1")
    assert event["phase"] == "phase-2" and event["prisoners"] != supply
    await play(black, "pass")
    event = await play(white, "pass")
    assert event["phase"] == "ended" and event["to_move"] is None
    assert event["result"]["reason"] == "passes"
    assert len(event["result"]["score"]) == 2

    snapshot = await white.ok("watch", room=room)
    assert snapshot["status"] == "ended" and snapshot["game"]["phase"] == "ended"
    sgf = await black.ok("game", room=room, format="sgf")
    assert sgf["record"].startswith("(;") and "SZ[5]" in sgf["record"]
