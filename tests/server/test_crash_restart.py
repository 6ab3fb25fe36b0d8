"""SIGKILL of a real server process mid-game, then a restart on the same database (a SQLite file,
and a PostgreSQL database through `--db postgresql://...`): every acknowledged move is there,
sessions and seats come back, the clock resumes, and play goes on."""

from __future__ import annotations

import signal

import pytest

from polygo.protocol import PROTOCOL_VERSION


@pytest.fixture(params=["sqlite", "postgres"])
def database(request, tmp_path) -> str:
    if request.param == "sqlite":
        return str(tmp_path / "crash.db")
    return request.getfixturevalue("postgres_url")


async def test_sigkill_mid_game_then_restart_loses_no_acknowledged_move(database, port, connect_client, spawn_server):
    db = database
    proc = await spawn_server(db, port)
    try:
        black = await connect_client("polygo.msgpack", port=port)
        white = await connect_client("polygo.json", port=port)
        await black.hello("black")
        await white.hello("white")
        room = (await black.ok("create", settings={"rules": "chinese", "board": "9", "clock": "fischer:600+10"}))["room"]
        await black.ok("sit", room=room)
        await white.ok("sit", room=room)
        acked = []
        for i, move in enumerate(["E5", "C3", "G7", "C7", "G3", "E3"]):
            client, seq = (black, white)[i % 2], i // 2 + 1
            ack = await client.move(room, move, seq)
            assert ack["type"] == "ack"
            acked.append(move)
        await black.send(type="move", room=room, move="E7", seq=4)   # in flight when the server dies
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=10)
    finally:
        if proc.poll() is None:
            proc.kill()

    proc = await spawn_server(db, port)
    try:
        black2 = await connect_client("polygo.msgpack", port=port)
        white2 = await connect_client("polygo.json", port=port)
        welcome = await black2.ok("hello", protocol=PROTOCOL_VERSION, token=black.token)
        [held] = welcome["seats"]
        assert held["room"] == room and held["seat"] == 0 and held["last_seq"] in (3, 4)   # E7 in flight
        await white2.ok("hello", protocol=PROTOCOL_VERSION, token=white.token)
        snapshot = await white2.ok("watch", room=room)
        moves = [h[1] for h in snapshot["game"]["history"]]
        assert moves[:6] == acked and len(moves) in (6, 7)
        assert snapshot["status"] == "playing" and snapshot["clocks"]["running"] in (0, 1)
        resent = await black2.move(room, "E7", 4)          # the client resends what it saw no ack for
        assert resent["type"] == "ack"
        assert (await white2.move(room, "D6", 4))["type"] == "ack"
        final = await black2.ok("watch", room=room)
        assert [h[1] for h in final["game"]["history"]] == acked + ["E7", "D6"]
        assert final["clocks"]["running"] == 0
    finally:
        proc.terminate()
        proc.wait(timeout=10)
