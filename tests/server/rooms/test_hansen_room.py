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


async def test_hansen_options_reach_the_engine_and_bad_ones_are_bad_settings(players, seat):
    black, white = await players(2)
    room = await seat([black, white], {"rules": "hansen-sst", "board": "9", "options": {"a1": "off"}})
    seqs = {0: 0, 1: 0}
    for i, move in enumerate(["C4", "D4", "B3", "E3", "C2", "D2", "pass", "C3", "D3", "C3"]):
        client, turn = (black, 0) if i % 2 == 0 else (white, 1)
        seqs[turn] += 1
        assert (await client.move(room, move, seqs[turn]))["type"] == "ack", move   # a1 off: (d) retakes
    snapshot = await black.ok("watch", room=room)
    assert snapshot["settings"]["options"] == {"a1": "off"} and snapshot["game"]["stones"]["C3"] == 1
    for options, words in [({"a1": "on"}, "a1 must be"), ({"nope": 1}, "unknown ruleset option"),
                           ({"komi": 3}, "setting of its own"), ({"setup": {"A1": 0}}, "not a room setting"),
                           ({"move_cap_per_point": [1]}, "move_cap_per_point")]:
        reply = await black.request("create", settings={"rules": "hansen-sst", "options": options})
        assert reply["code"] == "bad-settings" and words in reply["message"], (options, reply)
    reply = await black.request("create", settings={"rules": "chinese", "options": {"a1": "off"}})
    assert reply["code"] == "bad-settings" and "option of Hansen" in reply["message"]
