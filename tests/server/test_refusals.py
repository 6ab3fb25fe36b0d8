"""What the server refuses in rooms: moves from sessions without a seat or out of turn, seats that
are taken, private rooms without their code, settings the engine cannot play, too many rooms."""

from __future__ import annotations

import pytest

from polygo.rules import PRESETS
from polygo.protocol import PROTOCOL_VERSION


async def test_moves_from_non_seated_sessions_and_out_of_turn_are_refused(players, seat, connect_client):
    black, white = await players(2)
    room = await seat([black, white], {"rules": "chinese", "board": "9"})
    stranger = await connect_client()
    await stranger.hello("stranger")
    refused = await stranger.move(room, "E5", 1)
    assert refused["code"] == "not-seated" and refused["ref"] == "move" and refused["room"] == room

    out_of_turn = await white.move(room, "E5", 1)
    assert out_of_turn["code"] == "illegal-move" and out_of_turn["reason"] == "not-your-turn"
    assert (await black.move(room, "E5", 1))["type"] == "ack"
    occupied = await white.move(room, "E5", 2)
    assert occupied["reason"] == "occupied" and "E5" in occupied["message"]
    unknown = await white.move(room, "Z99", 3)
    assert unknown["reason"] == "unknown-point"
    server_only = await white.move(room, "timeout", 4)
    assert server_only["reason"] == "bad-move"
    # a refused move changed nothing: white is still to move
    assert (await white.move(room, "D4", 5))["type"] == "ack"


async def test_seats_invites_settings_and_limits(players, make_server, tmp_path):
    srv = await make_server(db=str(tmp_path / "limits.db"), rooms_per_session=2)
    a, b, c = await players(3, port=srv.port)
    room = (await a.ok("create", settings={"rules": "chinese", "board": "9"}))["room"]
    assert (await b.request("move", room=room, move="E5", seq=1))["code"] == "not-seated"
    await b.ok("sit", room=room, seat=1)
    assert (await b.request("move", room=room, move="E5", seq=1))["code"] == "not-started"
    assert (await c.request("sit", room=room, seat=1))["code"] == "seat-taken"
    assert (await c.request("sit", room=room, seat=5))["code"] == "bad-seat"
    assert (await b.request("sit", room=room, seat=0))["code"] == "already-seated"
    await b.ok("leave", room=room)
    await c.ok("sit", room=room)
    snapshot = await a.ok("sit", room=room)
    assert [s["name"] for s in snapshot["seats"]] == ["p2", "p0"] and snapshot["status"] == "playing"
    assert (await b.request("sit", room=room))["code"] == "room-full"
    assert (await b.request("watch", room="nope"))["code"] == "no-such-room"

    private = await a.ok("create", settings={"rules": "kee", "board": "7", "players": 3, "private": True})
    assert private["invite"]
    assert (await b.request("sit", room=private["room"]))["code"] == "bad-invite"
    assert (await b.request("watch", room=private["room"], invite="wrong"))["code"] == "bad-invite"
    await b.ok("sit", room=private["room"], invite=private["invite"])
    listed = await c.ok("list")
    assert private["room"] not in [r["room"] for r in listed["rooms"]]

    assert (await a.request("create", settings={"rules": "chinese"}))["code"] == "too-many-rooms"
    for settings, field in [({"rules": "no-such-rules"}, "settings"), ({"rules": "chinese", "board": "/etc/passwd"}, "settings"),
                            ({"rules": "chinese", "board": "x.json"}, "settings"),
                            ({"rules": "chinese", "players": 3, "handicap": 2}, "settings"),
                            ({"rules": "chinese", "clock": "fischer:ten"}, "settings"),
                            ({"rules": "chinese", "clock": "absolute:" + "9" * 40}, "settings"),
                            ({"rules": "chinese", "board": {"points": ["a", "b"], "edges": [["a", "c"]]}}, "settings")]:
        reply = await c.request("create", settings=settings)
        assert reply["code"] == "bad-settings" and reply["field"] == field and reply["message"], settings
    graph = await c.ok("create", settings={"rules": "kee", "players": 3,
                                           "board": {"points": ["a", "b", "c"], "edges": [["a", "b"], ["b", "c"]]}})
    snap = await c.ok("watch", room=graph["room"])
    assert snap["game"]["board"]["points"] == ["a", "b", "c"] and "board_spec" not in snap["game"]


async def test_undo_requested_then_refused_then_accepted(players, seat):
    black, white = await players(2)
    room = await seat([black, white], {"rules": "chinese", "board": "9"})
    assert (await black.move(room, "E5", 1))["type"] == "ack"
    assert (await white.request("undo", room=room))["code"] == "no-undo"
    await black.ok("undo", room=room)
    assert (await white.event("undo-request"))["seat"] == 0
    await white.ok("undo_reply", room=room, accept=False)
    assert (await black.event("undo-reply"))["accept"] is False
    await black.ok("undo", room=room)
    await white.ok("undo_reply", room=room, accept=True)
    undo = await black.event("undo")
    assert undo["changes"] == {"clear": ["E5"], "set": {}} and undo["to_move"] == 0 and undo["index"] == 0
    assert (await white.request("undo_reply", room=room, accept=True))["code"] == "no-undo"
    assert (await black.move(room, "D4", 2))["type"] == "ack"
    snapshot = await white.ok("watch", room=room)
    assert snapshot["game"]["stones"] == {"D4": 0} and [h[1] for h in snapshot["game"]["history"]] == ["D4"]
    record = await white.ok("game", room=room)
    assert record["record"]["record"]["moves"] == [[0, "D4"]]


async def test_register_and_login(connect_client, no_failure_delay):
    guest = await connect_client()
    await guest.hello("guest")
    await guest.ok("register", user="alice", password="correct horse")
    other = await connect_client()
    await other.hello("someone")
    assert (await other.request("register", user="alice", password="x"))["code"] == "name-taken"
    login = await other.ok("hello", protocol=PROTOCOL_VERSION, user="alice", password="correct horse")
    assert login["user"] == "alice" and login["token"] != guest.token
    bad = await other.request("hello", protocol=PROTOCOL_VERSION, user="alice", password="wrong")
    assert bad["code"] == "bad-login"
    room = (await guest.ok("create", settings={"rules": "chinese", "board": "9"}))["room"]
    await guest.ok("sit", room=room, seat=0)
    again = await other.ok("hello", protocol=PROTOCOL_VERSION, user="alice", password="correct horse")
    assert again["seats"] == [{"room": room, "seat": 0, "last_seq": None}]


async def test_boards_and_options_reach_the_engine(players):
    (host,) = await players(1)
    for settings, spec in [({"rules": "kee", "board": "torus:5x5", "players": 4}, "torus:5x5"),
                           ({"rules": "kee", "board": "hex5", "players": 3}, "hex5")]:
        room = (await host.ok("create", settings=settings))["room"]
        game = (await host.ok("watch", room=room))["game"]
        assert game["board_spec"] == spec and len(game["players"]) == settings["players"]
    room = (await host.ok("create", settings={"rules": "chinese", "board": "9", "handicap": 2, "komi": 0.5}))["room"]
    snapshot = await host.ok("watch", room=room)
    assert len(snapshot["game"]["stones"]) == 2 and set(snapshot["game"]["stones"].values()) == {0}
    assert snapshot["settings"]["komi"] == 0.5 and snapshot["settings"]["handicap"] == 2


@pytest.mark.parametrize("rules", sorted(PRESETS))
async def test_every_ruleset_of_the_engine_is_playable_over_the_wire(players, seat, rules):
    black, white = await players(2)
    room = await seat([black, white], {"rules": rules, "board": "9"})
    assert (await black.move(room, "E5", 1))["type"] == "ack"
    assert (await white.move(room, "C3", 1))["type"] == "ack"
    assert (await black.move(room, "pass", 2))["type"] == "ack"
    snapshot = await white.ok("watch", room=room)
    assert snapshot["game"]["rules"] == rules and snapshot["game"]["to_move"] == 1
