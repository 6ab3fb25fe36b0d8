"""Crash drill: SIGKILL polygo under load, restart it, and count acknowledged moves missing from the
database (must be 0) and the time until it serves again.

Scripted two-player 19x19 games (as in server_load.py) play as fast as they are answered; every
`ack` a client receives is noted. After --load seconds the server process is killed with SIGKILL.
A new process is started on the same file; the time from its start to its first `welcome` is the
time to serve again. Then the moves table is read with sqlite3 and compared with the acks. Finally
each game is resumed over the protocol (hello with the token, watch, move on) to show play goes on.
Loopback only, bounded.

    python bench/server_crash.py                 # 50 games, killed after 1.5 s of load
    python bench/server_crash.py --games 200 --load 5
"""

from __future__ import annotations

import argparse
import asyncio
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import msgpack
from websockets.asyncio.client import connect
from websockets.exceptions import InvalidStatus

from server_load import PROTOCOL_VERSION, free_port, script

ROOT = Path(__file__).resolve().parents[1]

SERVER = """
import asyncio, logging, sys
sys.path.insert(0, {root!r})
from polygo.server.app import run
from polygo.server.config import Config
logging.basicConfig(level="WARNING")
asyncio.run(run(Config(port={port}, db={db!r}, rate=1e9, burst=1e9,
                       read_rate=1e12, guest_rate=1e6, points_per_address=10**9, rooms_per_creator=10**6,
                       rooms_per_session=10**6,
                       connections_per_address=10**6, rooms_per_address=10**6, create_rate=1e9)))
"""
# Every client comes from loopback: the per-address limits (64 connections, 32 unstarted rooms,
# 5 creates a second) would refuse the drill's games, as they would server_load.py's.


def start(port: int, db: str) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-c", SERVER.format(root=str(ROOT), port=port, db=db)])


async def hello(port: int, **fields) -> tuple[object, dict]:
    ws = await connect(f"ws://127.0.0.1:{port}/", subprotocols=["polygo.msgpack"], compression=None)
    await ws.send(msgpack.packb({"type": "hello", "protocol": PROTOCOL_VERSION, **fields}))
    return ws, msgpack.unpackb(await ws.recv(), raw=False)


async def first_welcome(port: int) -> None:
    for _ in range(2000):
        try:
            ws, reply = await hello(port, name="probe")
            await ws.close()
            if reply["type"] == "welcome":
                return
        except (OSError, InvalidStatus):   # not listening yet, or 503 until its rooms are rebuilt
            await asyncio.sleep(0.005)
    raise RuntimeError("the server did not come back")


async def request(ws, message: dict) -> dict:
    await ws.send(msgpack.packb(message))
    return msgpack.unpackb(await ws.recv(), raw=False)


async def player(ws, room: str, seat: int, moves: list[str], acked: set, go: asyncio.Event) -> None:
    """Move whenever it is this seat's turn; note every ack."""
    sent = 0
    await go.wait()

    async def send_next() -> None:
        nonlocal sent
        if sent < len(moves):
            await ws.send(msgpack.packb({"type": "move", "room": room, "move": moves[sent], "seq": sent + 1}))
            sent += 1

    try:
        async for frame in ws:
            msg = msgpack.unpackb(frame, raw=False)
            if msg["type"] == "ack":
                acked.add((room, seat, msg["seq"]))
            elif msg["type"] == "event" and ((msg["kind"] == "start" and seat == 0)
                                             or (msg["kind"] == "move" and msg["seat"] != seat)):
                await send_next()
    except Exception:
        return


async def load_and_kill(proc: subprocess.Popen, port: int, games_wanted: int, load: float
                        ) -> tuple[set[tuple[str, int, int]], int, list]:
    """Seat the games, let them play for ``load`` seconds, SIGKILL the server; returns the acks
    received, how many there were at the kill, and the games (room, tokens, moves)."""
    await first_welcome(port)
    acked: set[tuple[str, int, int]] = set()
    go = asyncio.Event()
    games, tasks = [], []
    for g in range(games_wanted):
        black, welcome_b = await hello(port, name=f"b{g}")
        white, welcome_w = await hello(port, name=f"w{g}")
        room = (await request(black, {"type": "create", "settings": {"rules": "chinese", "board": "19"}}))["room"]
        moves = script(171)
        for seat, ws in enumerate((black, white)):
            tasks.append(asyncio.create_task(player(ws, room, seat, moves[seat], acked, go)))
        for seat, ws in enumerate((black, white)):
            await ws.send(msgpack.packb({"type": "sit", "room": room, "seat": seat}))
        games.append((room, welcome_b["token"], welcome_w["token"], moves))
    go.set()
    await asyncio.sleep(load)
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=10)
    killed_with = len(acked)
    await asyncio.gather(*tasks, return_exceptions=True)
    return acked, killed_with, games


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=50)
    parser.add_argument("--load", type=float, default=1.5, help="seconds of load before the kill")
    args = parser.parse_args()
    port = free_port()
    with tempfile.TemporaryDirectory() as tmp:
        db = f"{tmp}/crash.db"
        proc = start(port, db)
        try:
            acked, killed_with, games = await load_and_kill(proc, port, args.games, args.load)
        finally:
            if proc.poll() is None:     # the drill failed before the kill: no server left behind
                proc.kill()
                proc.wait(timeout=10)

        began = time.perf_counter()
        proc = start(port, db)
        try:
            await first_welcome(port)
            serving = time.perf_counter() - began
            with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as conn:
                stored = {(r, s, q) for r, s, q in conn.execute("SELECT room_id, seat, seq FROM moves")}
            missing = acked - stored
            unacked = stored - acked
            print(f"games: {args.games}, load: {args.load:.1f} s, acknowledged moves at the kill: {killed_with}")
            print(f"acknowledged moves missing from the database: {len(missing)}")
            print(f"stored moves whose ack never arrived (in flight at the kill): {len(unacked)}")
            print(f"time from restart to the first welcome: {serving * 1000:.0f} ms")
            resumed = finished = 0
            for room, token_b, token_w, moves in games:
                ws_b, wb = await hello(port, token=token_b)
                ws_w, ww = await hello(port, token=token_w)
                snap = await request(ws_b, {"type": "watch", "room": room})
                history = snap["game"]["history"]
                seat = snap["game"]["to_move"]
                mover = (ws_b, ws_w)[seat]
                seq = sum(1 for h in history if h[0] == seat) + 1
                finished += seq > len(moves[seat])
                move = moves[seat][seq - 1] if seq <= len(moves[seat]) else "pass"   # its script all played
                reply = await request(mover, {"type": "move", "room": room, "move": move, "seq": seq})
                while reply.get("type") == "event":
                    reply = msgpack.unpackb(await mover.recv(), raw=False)
                held = [(entry["room"], entry["seat"]) for entry in wb["seats"]]   # with each seat's last seq now
                resumed += reply["type"] == "ack" and held == [(room, 0)]
                await ws_b.close()
                await ws_w.close()
            print(f"games resumed and moved on over the protocol: {resumed}/{len(games)}")
            if finished:
                print(f"games whose script was all played before the kill (resumed with a pass): {finished};"
                      " a shorter --load kills more of them mid-game")
        finally:
            proc.terminate()
            proc.wait(timeout=30)


if __name__ == "__main__":
    asyncio.run(main())
