"""Random well-formed and ill-formed requests against a live room: every one gets a reply that is
not `internal` (the server never fails on input), and the game goes on afterwards."""

from __future__ import annotations

import random

from polygo.protocol import CLIENT_MESSAGES


async def test_random_requests_never_break_the_server(players, seat, make_server, tmp_path):
    srv = await make_server(db=str(tmp_path / "fuzz.db"), rate=1e6, burst=1e6)
    black, white, chaos, drifter = await players(4, port=srv.port)
    room = await seat([black, white], {"rules": "kee", "board": "5", "players": 2})
    rng = random.Random(1234)
    values = [None, True, 0, -1, 1, 2, 7, 2**60, 1.5, "", "x", room, "E5", "pass", "appeal C3", "dead C3",
              "rank 1 2", "accept", "done", "resign", "undo", "timeout", "C3", "zz", "\u0000", "é" * 40,
              [], [1], {}, {"rules": "kee"}, {"rules": "kee", "board": "torus:3x3", "players": 3},
              "\u202eecila", "a\u200bb", " ", "\u3164", "p0", "P0 ", "\u0440\u0030",
              10**30, -10**30, 1e300, {"rules": "chinese", "board": {"points": ["a", "b"], "edges": [["a", "b"]],
                                                                    "coords": {"a": [10**30, 0]}}}]
    fields = ["room", "move", "seq", "seat", "since", "settings", "text", "name", "token", "protocol",
              "accept", "limit", "offset", "cursor", "invite", "user", "password", "format", "id",
              "everywhere"]
    kinds = sorted(CLIENT_MESSAGES) + ["nope"]
    actors = [black, white, chaos]
    for _ in range(400):
        message = {"type": rng.choice(kinds)}
        for name in rng.sample(fields, rng.randint(0, 4)):
            message[name] = rng.choice(values)
        if message["type"] == "hello":
            continue  # keep the three identities
        if message["type"] == "logout":     # ends a session: the drifter's, which comes back each time
            assert (await drifter.request(**message)).get("code") != "internal", message
            await drifter.hello("drifter")
            continue
        if message["type"] == "move" and rng.random() < 0.7:
            message.update(room=room, move=rng.choice(["A1", "B2", "C3", "pass", "appeal C3", "dead A1", "done"]),
                           seq=rng.randint(0, 50))
        actor = rng.choice(actors)
        reply = await actor.request(**message)
        assert reply.get("code") != "internal", (message, reply)
    for client in actors:
        while not client.events.empty():
            client.events.get_nowait()
    snapshot = await chaos.ok("watch", room=room)
    assert snapshot["room"] == room
    if snapshot["status"] == "playing" and snapshot["game"]["to_move"] is not None:
        mover = (black, white)[snapshot["game"]["to_move"]]
        reply = await mover.move(room, "pass", 10**6)
        assert reply["type"] == "ack" or reply.get("code") == "illegal-move", reply
