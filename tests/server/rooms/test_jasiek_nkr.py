"""Jasiek's New Ko Rules over the wire: the ko analysis in the snapshot and in every move event
of a jasiek-nkr room (and nowhere else), refusals with the rule's reason and sentence."""

from __future__ import annotations

KO7 = [("C4", "D4"), ("B3", "E3"), ("C2", "D2"), ("pass", "C3")]   # White's C3 makes the ko


async def test_ko_analysis_in_snapshot_and_events_and_refusals_named(players, seat):
    black, white = await players(2)
    room = await seat([black, white], {"rules": "jasiek-nkr", "board": "7x5", "options": {"ko_shapes": "two-point"}})
    await black.event("start")
    seqs = {id(black): 0, id(white): 0}

    async def play(client, move):
        seqs[id(client)] += 1
        ack = await client.move(room, move, seqs[id(client)])
        assert ack["type"] == "ack", ack
        return await black.event("move")

    for b, w in KO7:
        event = await play(black, b)
        assert event["kos"] == []
        event = await play(white, w)
    assert event["kos"] == [{"points": ["C3", "D3"], "mouths": [["C3", "D3"]], "coupling": [],
                             "type": "fighting", "state": None, "disturber": None, "disturber_barred": False,
                             "fighting_bar": None}]
    event = await play(black, "D3")
    assert event["changes"] == {"clear": ["C3"], "set": {"D3": 0}}
    assert event["kos"][0]["fighting_bar"] == 1

    seqs[id(white)] += 1
    refused = await white.move(room, "C3", seqs[id(white)])
    assert refused["type"] == "error" and refused["code"] == "illegal-move"
    assert refused["reason"] == "basic-ko" and "(basic ko rule)" in refused["message"]

    snapshot = await white.ok("watch", room=room)
    assert snapshot["game"]["rules"] == "jasiek-nkr"
    assert snapshot["game"]["kos"] == event["kos"]
    assert snapshot["settings"]["options"] == {"ko_shapes": "two-point"}


async def test_other_rooms_carry_no_ko_analysis(players, seat):
    black, white = await players(2)
    room = await seat([black, white], {"rules": "chinese", "board": "5x5"})
    await black.event("start")
    assert (await black.move(room, "C3", 1))["type"] == "ack"
    assert "kos" not in await white.event("move")
    assert "kos" not in (await white.ok("watch", room=room))["game"]


async def test_a_bad_ko_shapes_setting_is_refused_with_a_sentence(players):
    (ann,) = await players(1)
    reply = await ann.request("create", settings={"rules": "jasiek-nkr", "board": "9", "options": {"ko_shapes": "diagrams"}})
    assert reply["type"] == "error" and "ko_shapes must be" in reply["message"]
    reply = await ann.request("create", settings={"rules": "chinese", "board": "9", "options": {"ko_shapes": "two-point"}})
    assert reply["type"] == "error" and "ko_shapes is an option" in reply["message"]
