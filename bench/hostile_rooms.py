"""What one address's started big-board rooms cost the server's memory, and what a refused frame
costs its CPU.

Two measurements on a fresh polygo process each:

- rooms: from one address, pairs of guest sessions create rooms on the largest board (a path of
  4,096 points) and take both seats, so each game starts. With `--raised` the per-address limits
  are lifted, so that every room is accepted and the resident memory per started room is
  measured; without, the server's default limits apply and the script reports how many rooms one
  address got into memory and the memory they hold.
- restart: as `rooms --raised`, then the server is stopped and started again on the same
  database: the seconds until it serves, its resident memory then, and the seconds a `watch`
  takes to bring one of the games back.
- refused: one connection (the per-connection rate raised) sends 60 KB `create`s that are refused
  (unknown rules, and the create rate of the address spent first), and the server's CPU time is
  divided by the frames sent.

    python bench/hostile_rooms.py rooms --rooms 100 --raised
    python bench/hostile_rooms.py rooms --rooms 300
    python bench/hostile_rooms.py restart --rooms 300
    python bench/hostile_rooms.py refused --frames 2000
"""

from __future__ import annotations

import argparse
import asyncio
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import msgpack
from websockets.asyncio.client import connect

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.abuse import REFUSED, rss_mb  # noqa: E402
from bench.server_load import cpu_seconds, free_port, wait_ready  # noqa: E402
from polygo.protocol import PROTOCOL_VERSION  # noqa: E402

POLYGO = """
import asyncio, logging, sys
sys.path.insert(0, {root!r})
from polygo.server.app import run
from polygo.server.config import Config
logging.basicConfig(level="ERROR")
asyncio.run(run(Config(port={port}, db={db!r}{limits})))
"""

RAISED = (", rate=1e9, burst=10**9, rooms_per_session=10**6, create_rate=1e6, rooms_per_address=10**6,"
          " max_rooms=10**6, points_per_address=10**9, points_per_user=10**9, rooms_per_creator=10**6,"
          " read_rate=1e12, guest_rate=1e6")
"""Limits lifted so that every room is accepted (the fields a server without them ignores are
dropped by `limits_for`)."""

LETTERS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-"
PATH = [a + b for a in LETTERS for b in LETTERS]
"""4,096 points named in two letters each, so that the path's create fits in a 64 KB frame."""
BIGGEST = {"rules": "chinese", "board": {"points": PATH, "edges": [[PATH[i], PATH[i + 1]] for i in range(4095)]}}


def limits_for(raised: bool) -> str:
    """The Config keyword arguments of the run, only those this checkout's Config has."""
    from polygo.server.config import Config
    fields = set(Config.__dataclass_fields__)
    chosen = [part for part in (RAISED if raised else ", rate=1e9, burst=10**9").split(",") if part.strip()]
    return "".join(f", {part.strip()}" for part in chosen if part.split("=")[0].strip() in fields)


async def ask(ws, message: dict) -> dict:
    await ws.send(msgpack.packb(message))
    while True:
        reply = msgpack.unpackb(await ws.recv(), raw=False)
        if reply.get("type") != "event":
            return reply


async def hello(port: int, name: str):
    """A guest's connection, and the hello's refusal code (None: welcomed)."""
    ws = await connect(f"ws://127.0.0.1:{port}/", subprotocols=["polygo.msgpack"], max_size=2**24)
    reply = await ask(ws, {"type": "hello", "protocol": PROTOCOL_VERSION, "name": name})
    return ws, reply.get("code")


async def started_rooms(port: int, pid: int, rooms: int) -> list[str]:
    """Create and start `rooms` rooms, print what they cost; returns the started ones."""
    before = rss_mb(pid)
    accepted, refusals, started = 0, {}, []
    for i in range(rooms):
        (black, refused), (white, also) = await hello(port, f"b{i}"), await hello(port, f"w{i}")
        if refused or also:
            key = f"hello {refused or also}"
            refusals[key] = refusals.get(key, 0) + 1
            await black.close()
            await white.close()
            continue
        reply = await ask(black, {"type": "create", "settings": BIGGEST})
        while reply.get("code") == "rate-limited":
            await asyncio.sleep(0.2)
            reply = await ask(black, {"type": "create", "settings": BIGGEST})
        if reply["type"] == "created":
            room = reply["room"]
            sat = [await ask(black, {"type": "sit", "room": room, "seat": 0}),
                   await ask(white, {"type": "sit", "room": room, "seat": 1})]
            if all(s["type"] == "snapshot" for s in sat):
                accepted += 1
                started.append(room)
        else:
            refusals[reply.get("code")] = refusals.get(reply.get("code"), 0) + 1
        await black.close()
        await white.close()
    after = rss_mb(pid)
    print(json.dumps({"rooms asked": rooms, "started": accepted, "refused": refusals,
                      "rss before MB": round(before, 1), "rss after MB": round(after, 1),
                      "MB per started room": round((after - before) / max(accepted, 1), 3)}))
    return started


async def restarted(port: int, pid: int, began: float, room: str) -> None:
    """How long the restarted server took to serve, its memory then, and one game's return."""
    await wait_ready(port)
    serving = time.monotonic() - began
    rss = rss_mb(pid)
    ws, _ = await hello(port, "back")
    began = time.monotonic()
    snapshot = await ask(ws, {"type": "watch", "room": room})
    back = time.monotonic() - began
    await ws.close()
    print(json.dumps({"restart: s until serving": round(serving, 2), "rss when serving MB": round(rss, 1),
                      "s to bring one game back": round(back, 3), "its status": snapshot.get("status"),
                      "rss after MB": round(rss_mb(pid), 1)}))


async def refused_frames(port: int, pid: int, frames: int) -> None:
    ws, _ = await hello(port, "refused")
    codes: dict[str, int] = {}
    for _ in range(25):     # spend the address's create burst first
        await ws.send(REFUSED)
        await ws.recv()
    cpu = cpu_seconds(pid)
    for _ in range(frames):
        await ws.send(REFUSED)
        reply = msgpack.unpackb(await ws.recv(), raw=False)
        codes[reply.get("code")] = codes.get(reply.get("code"), 0) + 1
    spent = cpu_seconds(pid) - cpu
    print(json.dumps({"frames": frames, "bytes each": len(REFUSED), "codes": codes,
                      "server CPU s": round(spent, 3), "ms per refused frame": round(1000 * spent / frames, 3)}))


async def main(what: str, count: int, raised: bool) -> None:
    port = free_port()
    with tempfile.TemporaryDirectory() as tmp:
        code = POLYGO.format(root=str(ROOT), port=port, db=f"{tmp}/bench.db",
                             limits=limits_for(raised or what == "restart"))
        server = subprocess.Popen([sys.executable, "-c", code], cwd=ROOT)
        try:
            await wait_ready(port)
            if what == "refused":
                await refused_frames(port, server.pid, count)
                return
            rooms = await started_rooms(port, server.pid, count)
            if what == "restart":
                server.terminate()
                server.wait(timeout=60)
                began = time.monotonic()
                server = subprocess.Popen([sys.executable, "-c", code], cwd=ROOT)
                await restarted(port, server.pid, began, rooms[0])
        finally:
            server.terminate()
            server.wait(timeout=60)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("what", choices=["rooms", "restart", "refused"])
    parser.add_argument("--rooms", type=int, default=100, help="rooms to create and start (rooms, restart)")
    parser.add_argument("--frames", type=int, default=2000, help="refused frames to send (refused)")
    parser.add_argument("--raised", action="store_true", help="lift the per-address limits (rooms)")
    args = parser.parse_args()
    asyncio.run(main(args.what, args.rooms if args.what != "refused" else args.frames, args.raised))
