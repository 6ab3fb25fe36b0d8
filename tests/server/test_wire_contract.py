"""Where a client written from docs/protocol.md alone tripped (issue 9): each case is the behaviour
the page promises, against a real server."""

from __future__ import annotations

import json

import pytest

from polygo.protocol import PROTOCOL_VERSION


async def test_to_move_is_null_in_a_snapshot_before_the_start(players):
    ann, bob = await players(2)
    room = (await ann.ok("create", settings={"rules": "chinese", "board": "9"}))["room"]
    snapshot = await ann.ok("sit", room=room, seat=0)
    assert snapshot["status"] == "waiting"
    assert snapshot["game"]["to_move"] is None and snapshot["game"]["legal"] is None
    snapshot = await bob.ok("sit", room=room, seat=1)
    assert snapshot["status"] == "playing" and snapshot["game"]["to_move"] == 0


async def test_a_too_large_frame_is_answered_with_its_id(players):
    (ann,) = await players(1)
    await ann.send_raw(json.dumps({"type": "chat", "room": "r", "text": "x" * 70_000, "id": 77}))
    error = await ann.reply()
    assert error["code"] == "too-large" and error["id"] == 77 and error["ref"] == "chat"


@pytest.mark.parametrize("frame", ['{"type": "chat", "id": 5', '[{"id": 5}]'])
async def test_errors_that_cannot_read_an_id_have_none(players, frame):
    (ann,) = await players(1)
    await ann.send_raw(frame)
    error = await ann.reply()
    assert error["code"] in ("bad-frame", "bad-message") and "id" not in error


async def test_a_move_after_the_movers_flag_fell_gets_timeout_in_a_two_player_game(players, seat):
    black, white = await players(2)
    room = await seat([black, white], {"rules": "chinese", "board": "9", "clock": "absolute:0.3"})
    await black.event("timeout")
    late = await black.move(room, "E5", 1)
    assert late["code"] == "timeout" and late["seq"] == 1
    other = await white.move(room, "E5", 1)
    assert other["code"] == "game-over"


async def test_a_move_after_the_movers_flag_fell_gets_timeout_in_a_three_player_game(players, seat):
    ann, bob, cy = await players(3)
    room = await seat([ann, bob, cy], {"rules": "kee", "board": "5", "players": 3, "clock": "fischer:1.5+60"})
    assert (await ann.move(room, "A1", 1))["type"] == "ack"
    timeout = await cy.event("timeout")
    assert timeout["seat"] == 1
    late = await bob.move(room, "E5", 1)
    assert late["code"] == "timeout", late


async def test_a_seq_reused_for_another_move_is_refused_and_nothing_is_played(players, seat):
    black, white = await players(2)
    room = await seat([black, white], {"rules": "chinese", "board": "9"})
    first = await black.move(room, "E5", 1)
    assert first["type"] == "ack"
    await white.move(room, "C3", 1)
    again = await black.move(room, "e5", 1)               # the same move, spelled otherwise: a resend
    assert again == {"type": "ack", "room": room, "seq": 1, "version": first["version"]}
    reused = await black.move(room, "G7", 1)
    assert reused["code"] == "seq-reused" and reused["field"] == "seq" and "E5" in reused["message"]
    stale = await black.move(room, "G7", 0)
    assert stale["code"] == "stale-seq"
    snapshot = await black.ok("watch", room=room)
    assert [h[1] for h in snapshot["game"]["history"]] == ["E5", "C3"]


async def test_a_seq_between_a_seats_seqs_is_stale_and_an_undone_moves_seq_is_still_known(players, seat):
    black, white = await players(2)
    room = await seat([black, white], {"rules": "chinese", "board": "9"})
    first = await black.move(room, "E5", 2)
    assert (await white.move(room, "C3", 7))["type"] == "ack"
    taken_back = await black.move(room, "G7", 5)
    await black.ok("undo", room=room)
    await white.ok("undo_reply", room=room, accept=True)
    assert (await black.move(room, "G3", 9))["type"] == "ack"
    assert (await black.move(room, "e5", 2)) == {"type": "ack", "room": room, "seq": 2, "version": first["version"]}
    assert (await black.move(room, "G7", 5)) == {"type": "ack", "room": room, "seq": 5,
                                                 "version": taken_back["version"]}   # taken back, still its seq
    for gap in (1, 3, 4, 8):      # never one of black's: below its last, so stale (7 was white's)
        assert (await black.move(room, "J9", gap))["code"] == "stale-seq"
    assert (await black.move(room, "J9", 7))["code"] == "stale-seq"
    assert (await white.move(room, "c3", 7))["type"] == "ack"
    snapshot = await black.ok("watch", room=room)
    assert [h[1] for h in snapshot["game"]["history"]] == ["E5", "C3", "G3"]


async def test_a_refused_moves_seq_may_be_used_again(players, seat):
    black, white = await players(2)
    room = await seat([black, white], {"rules": "chinese", "board": "9"})
    assert (await black.move(room, "Z9", 1))["code"] == "illegal-move"
    assert (await black.move(room, "E5", 1))["type"] == "ack"


async def test_a_seated_sessions_snapshot_and_welcome_tell_its_last_acknowledged_seq(players, seat,
                                                                                    connect_client):
    black, white = await players(2)
    room = await seat([black, white], {"rules": "chinese", "board": "9"})
    snapshot = await black.ok("watch", room=room)
    assert snapshot["you"] == {"seat": 0, "last_seq": None}
    await black.move(room, "E5", 41)
    await white.move(room, "C3", 7)
    again = await connect_client()
    welcome = await again.ok("hello", protocol=PROTOCOL_VERSION, token=black.token)
    assert welcome["seats"] == [{"room": room, "seat": 0, "last_seq": 41}]
    snapshot = await again.ok("watch", room=room)
    assert snapshot["you"] == {"seat": 0, "last_seq": 41}
    spectator = (await players(1))[0]
    assert "you" not in await spectator.ok("watch", room=room)


async def test_the_last_move_resent_after_it_ended_the_game_is_acknowledged(players, seat):
    black, white = await players(2)
    room = await seat([black, white], {"rules": "chinese", "board": "9"})
    ack = await black.move(room, "resign", 1)
    assert ack["type"] == "ack"
    assert await black.move(room, "resign", 1) == ack


async def test_seq_versions_survive_a_restart(players, seat, make_server, connect_client, tmp_path):
    db = str(tmp_path / "restart.db")
    srv = await make_server(db=db)
    black, white = await players(2, port=srv.port)
    room = await seat([black, white], {"rules": "chinese", "board": "9"})
    first = await black.move(room, "E5", 1)
    for i, (client, move) in enumerate([(white, "C3"), (black, "G7"), (white, "C7")]):
        assert (await client.move(room, move, 2 + i))["type"] == "ack"
    await srv.close()
    srv = await make_server(db=db)
    again = await connect_client(port=srv.port)
    await again.ok("hello", protocol=PROTOCOL_VERSION, token=black.token)
    resent = await again.move(room, "E5", 1)
    assert resent == {"type": "ack", "room": room, "seq": 1, "version": first["version"]}
    assert (await again.move(room, "D4", 1))["code"] == "seq-reused"
    snapshot = await again.ok("watch", room=room)
    assert snapshot["you"]["last_seq"] == 3 and len(snapshot["game"]["history"]) == 4


async def test_analysis_seat_name_and_a_stale_done_are_as_documented(players, seat):
    """The bots' messages (issue 10) on the raw wire: every reply and event passes the
    descriptions of polygo/protocol/views.py that the schema is made from (the fixture checks them)."""
    black, white = await players(2)
    room = await seat([black, white], {"rules": "chinese", "board": "5"})
    assert (await black.ok("analysis", room=room, score=2.5, winrate=0.6, pv=["C3", "D4"]))["type"] == "ok"
    event = await white.event("analysis")
    assert (event["seat"], event["index"], event["pv"]) == (0, 0, ["C3", "D4"])
    assert (await white.ok("seat_name", room=room, name="gnugo (built-in bot)"))["type"] == "ok"
    while (renamed := await black.event("seat"))["name"] == "p1":   # white's sitting down came first
        pass
    assert renamed == {**renamed, "seat": 1, "name": "gnugo (built-in bot)"}
    for i, move in enumerate(["C3", "pass", "pass"]):
        assert (await (black, white)[i % 2].move(room, move, i))["type"] == "ack"
    decided = (await black.ok("watch", room=room))["version"]
    assert (await white.move(room, "dead C3", 5))["type"] == "ack"
    stale = await black.request("move", room=room, move="done", seq=6, after=decided)
    assert stale["code"] == "stale-marks" and stale["seq"] == 6
