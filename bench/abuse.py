"""Abuse benchmark: what floods of hostile clients cost a game being played on the same server.

One polygo process: its default protection limits, except the per-connection message rate (raised,
as in server_load.py, so that the floods are as fast as the loopback allows) and, unless
`--default-limits`, the creation limits, so that the lobby holds 5,000 waiting rooms (20 of them
with 2,000-point graph boards) through every phase and each refused create reaches the engine. A
peer pair of msgpack clients plays a 19x19 game at a steady pace (a move, its ack, 5 ms, the next
move) through every phase; each phase reports the peer's move latency (send to ack, p50 and p99),
the server's resident memory (largest sample) and what the flood got done:

- quiet: no flood, the peer alone (the baseline of the same server in the same run);
- refused creates: 12 clients send 60 KB `create`s with unknown rules, as fast as they are refused
  (with `--default-limits`, the per-address create rate refuses most before the engine sees them);
- lobby: 10 clients send `list` as fast as they are answered;
- connections: 200 tasks open websocket connections as fast as they can, hold each 0.5 s, close it.

Each flood runs in a process of its own, so the flooders' work does not slow the peer's client.

    python bench/abuse.py                   # 5 s per phase
    python bench/abuse.py --seconds 10
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

import msgpack
from websockets.asyncio.client import connect
from websockets.exceptions import InvalidMessage, InvalidStatus

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.server_load import free_port, script, wait_ready  # noqa: E402
from polygo.protocol import PROTOCOL_VERSION  # noqa: E402

POLYGO = """
import asyncio, logging, sys
sys.path.insert(0, {root!r})
from polygo.server.app import run
from polygo.server.config import Config
logging.basicConfig(level="ERROR")
asyncio.run(run(Config(port={port}, db={db!r}, rate=1e9, burst=1e9, rooms_per_session=10**6{limits})))
"""

POINTS = [f"p{i}" for i in range(2000)]
LARGE_BOARD = {"points": POINTS, "edges": [[POINTS[i], POINTS[i + 1]] for i in range(1999)]}
BIG_POINTS = [f"p{i}" for i in range(4096)]
REFUSED = json.dumps({"type": "create", "settings": {"rules": "no-such-rules", "board": {
    "points": BIG_POINTS, "edges": [[BIG_POINTS[i], BIG_POINTS[i + 1]] for i in range(0, 2400, 2)]}}})


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


FLOOD_FROM = ("127.0.0.2", 0)
"""The floods' address: the peer's (127.0.0.1) is a bystander's, whose own limits the floods do not spend."""


async def hello(port: int, name: str, codec: str = "polygo.json", local: tuple[str, int] | None = None):
    ws = await connect(f"ws://127.0.0.1:{port}/", subprotocols=[codec], max_size=2**24, open_timeout=10,
                       local_addr=local)
    await ask(ws, {"type": "hello", "protocol": PROTOCOL_VERSION, "name": name})
    return ws


async def ask(ws, message: dict) -> dict:
    binary = ws.subprotocol == "polygo.msgpack"
    await ws.send(msgpack.packb(message) if binary else json.dumps(message))
    while True:
        frame = await ws.recv()
        reply = msgpack.unpackb(frame, raw=False) if binary else json.loads(frame)
        if reply.get("type") != "event":
            return reply


class Peer:
    """Two clients playing room after room (prepared before any flood, so no limit refuses them)."""

    def __init__(self, port: int, rooms: int) -> None:
        self.port, self.count = port, rooms
        self.latencies: list[float] = []

    async def prepare(self) -> None:
        self.black = await hello(self.port, "peer-black", "polygo.msgpack")
        self.white = await hello(self.port, "peer-white", "polygo.msgpack")
        self.rooms = []
        for _ in range(self.count):
            room = (await ask(self.black, {"type": "create", "settings": {"rules": "chinese", "board": "19"}}))["room"]
            await ask(self.black, {"type": "sit", "room": room, "seat": 0})
            await ask(self.white, {"type": "sit", "room": room, "seat": 1})
            self.rooms.append(room)

    async def play(self, stop: asyncio.Event) -> None:
        black_moves, white_moves = script(171)
        for room in self.rooms:
            for i in range(342):
                ws, moves = (self.black, black_moves) if i % 2 == 0 else (self.white, white_moves)
                started = time.perf_counter()
                reply = await ask(ws, {"type": "move", "room": room, "move": moves[i // 2], "seq": i // 2 + 1})
                assert reply["type"] == "ack", reply
                self.latencies.append(time.perf_counter() - started)
                if stop.is_set():
                    return
                await asyncio.sleep(0.005)
        raise RuntimeError("the peer ran out of prepared rooms: give it more (--peer-rooms)")


async def fill_lobby(port: int, rooms: int) -> None:
    """The lobby every phase runs with: `rooms` waiting rooms, the first 20 with 2,000-point graphs."""
    async def client(i: int) -> None:
        ws = await hello(port, f"filler{i}")
        for n in range(i, rooms, 10):
            board = LARGE_BOARD if n < 20 else "9"
            reply = await ask(ws, {"type": "create", "settings": {"rules": "chinese", "board": board}})
            assert reply["type"] == "created", reply
        await ws.close()
    await asyncio.gather(*(client(i) for i in range(10)))


async def lobby_flood(port: int, stop: asyncio.Event, stats: Counter[str]) -> None:
    async def client(i: int) -> None:
        ws = await hello(port, f"lobby{i}", local=FLOOD_FROM)
        while not stop.is_set():
            await ask(ws, {"type": "list"})
            stats["lists"] += 1
        await ws.close()
    await asyncio.gather(*(client(i) for i in range(10)))


async def refused_flood(port: int, stop: asyncio.Event, stats: Counter[str]) -> None:
    async def client(i: int) -> None:
        ws = await hello(port, f"refused{i}", local=FLOOD_FROM)
        while not stop.is_set():
            await ws.send(REFUSED)
            reply = json.loads(await ws.recv())
            stats[f"refused {reply.get('code')}"] += 1
        await ws.close()
    await asyncio.gather(*(client(i) for i in range(12)))


async def connection_flood(port: int, stop: asyncio.Event, stats: Counter[str]) -> None:
    async def opener() -> None:
        while not stop.is_set():
            try:
                ws = await connect(f"ws://127.0.0.1:{port}/", open_timeout=5, local_addr=FLOOD_FROM)
            except InvalidStatus as exc:
                stats[f"answered {exc.response.status_code}"] += 1
                continue
            except InvalidMessage:
                stats["dropped"] += 1
                continue
            except (OSError, TimeoutError):
                stats["failed"] += 1
                continue
            stats["accepted"] += 1
            await asyncio.sleep(0.5)
            await ws.close()
    await asyncio.gather(*(opener() for _ in range(200)))


FLOODS = {"lobby": lobby_flood, "refused": refused_flood, "connections": connection_flood}


async def flood_process(kind: str, port: int, seconds: float) -> None:
    """`--flood KIND`: one flood for `seconds`, in a process of its own (so that the flooders' own
    work does not slow the peer's client), then its counts as JSON on stdout."""
    stop = asyncio.Event()
    stats: Counter[str] = Counter()
    asyncio.get_running_loop().call_later(seconds, stop.set)
    await asyncio.wait_for(FLOODS[kind](port, stop, stats), seconds + 30)
    print(json.dumps(stats))


async def phase(name: str, peer: Peer, pid: int, seconds: float, flood: str | None, *, quiet: bool = False) -> None:
    peer.latencies = []
    stop = asyncio.Event()
    playing = asyncio.create_task(peer.play(stop))
    flooding = None
    if flood is not None:
        flooding = await asyncio.create_subprocess_exec(
            sys.executable, __file__, "--flood", flood, "--port", str(peer.port), "--seconds", str(seconds),
            stdout=asyncio.subprocess.PIPE)
    peak, started = 0.0, time.monotonic()
    while time.monotonic() - started < seconds:
        peak = max(peak, rss_mb(pid))
        await asyncio.sleep(0.1)
    stop.set()
    await playing
    stats: dict[str, int] = {}
    if flooding is not None:
        out, _ = await asyncio.wait_for(flooding.communicate(), 60)
        stats = json.loads(out)
    if quiet:
        return
    lat = sorted(peer.latencies)
    p50 = statistics.median(lat) * 1000
    p99 = lat[min(len(lat) - 1, int(len(lat) * 0.99))] * 1000
    done = ", ".join(f"{k} {v / seconds:,.0f}/s" for k, v in sorted(stats.items()))
    print(f"{name:16} {len(lat):6} moves  p50 {p50:6.1f} ms  p99 {p99:7.1f} ms  RSS max {peak:6.0f} MB  {done}",
          flush=True)


RAISED = (", create_rate=1e9, rooms_per_address=10**6, read_rate=1e12, points_per_address=10**9,"
          " rooms_per_creator=10**6, guest_rate=1e6")
"""The creation limits and the per-address read rate raised (the default): so that the lobby holds
its thousands of rooms and every refused create reaches the engine, the worst case of the
floods."""


async def main(seconds: float, peer_rooms: int, lobby: int, default_limits: bool) -> None:
    port = free_port()
    with tempfile.TemporaryDirectory() as tmp:
        script = POLYGO.format(root=str(ROOT), port=port, db=f"{tmp}/abuse.db", limits="" if default_limits else RAISED)
        proc = subprocess.Popen([sys.executable, "-c", script], cwd=ROOT)
        try:
            await wait_ready(port)
            peer = Peer(port, peer_rooms)
            await peer.prepare()
            if not default_limits:
                await fill_lobby(port, lobby)
            await phase("warm-up", peer, proc.pid, 1.0, None, quiet=True)
            print(f"polygo pid {proc.pid}, {seconds:g} s per phase, {0 if default_limits else lobby} rooms in the "
                  f"lobby, creation limits {'default' if default_limits else 'raised'}; the peer's move latency "
                  f"and the server's memory")
            for name, flood in [("quiet", None), ("refused creates", "refused"), ("lobby flood", "lobby"),
                                ("connection flood", "connections"), ("quiet again", None)]:
                await phase(name, peer, proc.pid, seconds, flood)
                await asyncio.sleep(1.0)
        finally:
            proc.terminate()
            proc.wait(30)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=5.0, help="length of each phase")
    parser.add_argument("--peer-rooms", type=int, default=16, help="games prepared for the peer")
    parser.add_argument("--lobby", type=int, default=5000, help="waiting rooms created before the phases")
    parser.add_argument("--default-limits", action="store_true",
                        help="keep the server's creation limits (per-address create rate and waiting rooms): "
                             "no lobby is filled and most refused creates are rate-limited")
    parser.add_argument("--flood", choices=sorted(FLOODS), help=argparse.SUPPRESS)
    parser.add_argument("--port", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.flood:
        asyncio.run(flood_process(args.flood, args.port, args.seconds))
    else:
        asyncio.run(main(args.seconds, args.peer_rooms, args.lobby, args.default_limits))
