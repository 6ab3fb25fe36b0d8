"""SIGKILL of a real server process mid-game, then a restart on the same SQLite file: every
acknowledged move is there, sessions and seats come back, the clock resumes, and play goes on."""

from __future__ import annotations

import asyncio
import os
import signal
import socket
import subprocess
import sys
from pathlib import Path

from websockets.asyncio.client import connect
from protocol import PROTOCOL_VERSION

ROOT = Path(__file__).resolve().parents[2]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


async def start_server(db: Path, port: int) -> subprocess.Popen:
    env = dict(os.environ, PYTHONPATH=str(ROOT), POLYGO_LOG_LEVEL="WARNING")
    proc = subprocess.Popen([sys.executable, "-m", "server", "--port", str(port), "--db", str(db)],
                            cwd=ROOT, env=env)
    for _ in range(200):
        try:
            async with connect(f"ws://127.0.0.1:{port}/"):
                return proc
        except OSError:
            await asyncio.sleep(0.05)
    proc.kill()
    raise AssertionError("the server did not start")


async def test_sigkill_mid_game_then_restart_loses_no_acknowledged_move(tmp_path, connect_client):
    db, port = tmp_path / "crash.db", free_port()
    proc = await start_server(db, port)
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

    proc = await start_server(db, port)
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
