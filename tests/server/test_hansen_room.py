"""Hansen's SST ko rules over the wire: a hansen-sst room, a ko, and rule 9's refusal with its
sentence (the server passes the engine's reason code and words through unchanged)."""

from __future__ import annotations


async def test_a_hansen_room_refuses_the_immediate_recapture_with_its_cycle_set(players, seat):
    black, white = await players(2)
    room = await seat([black, white], {"rules": "hansen-sst", "board": "9"})
    seqs = {0: 0, 1: 0}
    for i, move in enumerate(["C4", "D4", "B3", "E3", "C2", "D2", "pass", "C3", "D3"]):
        client, turn = (black, 0) if i % 2 == 0 else (white, 1)
        seqs[turn] += 1
        assert (await client.move(room, move, seqs[turn]))["type"] == "ack", move
    refused = await white.move(room, "C3", seqs[1] + 1)
    assert refused["code"] == "illegal-move" and refused["reason"] == "cycle-set"
    assert ("Black's capture at D3 has the cycle set {C3, D3}: C3 is in it, play elsewhere first (Hansen rule 9)"
            in refused["message"])
    assert (await white.move(room, "J9", seqs[1] + 1))["type"] == "ack"
    snapshot = await black.ok("watch", room=room)
    assert snapshot["game"]["rules"] == "hansen-sst" and snapshot["game"]["to_move"] == 0
    assert "C3" not in snapshot["game"]["stones"] and snapshot["game"]["stones"]["D3"] == 0
