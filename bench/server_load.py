"""Load benchmark: concurrent two-player 19x19 games of scripted clients against polygo, and against
the minimal server of ../shared/peers/minimal-server/ (its README) in the same run, on the same
event loop.

Each game is two msgpack clients that move as soon as it is their turn: Black fills the left nine
columns, White the right nine (no captures, no repetition, so every move is legal and checked in
full by the engine). Both servers are sent the same points in the same order, each in its own
messages. A move counts when the opponent receives its broadcast; the latency is from the mover's
send to that receipt. The clock and the CPU counters start once every game has started (polygo
answers the sits with commits and start events), so only the moves are measured. Both servers
acknowledge a move only after its commit (SQLite in WAL mode, synchronous=FULL, group commit);
the minimal server only decodes, checks a plain board, commits with one thread hop per batch and
broadcasts.

Servers run in their own processes (one core each, as the clients take the other); the
per-connection rate limit is raised because scripted clients move as fast as they are answered, and
the per-address limits because every client comes from loopback.
Loopback only; every loop is bounded.

Server CPU per move (µs/move) is split into the process's main thread, which runs the event loop
(`loop`), and its other threads (`other`: the threads that commit and read), from /proc's
per-thread counters. polygo sends three frames a move (the event to both players and the mover's
ack), the minimal server two (its broadcast is its ack).

`--repeat N` runs each game count N times, the two servers alternately, and ends with each
ratio's median and range over the N pairs: on a shared machine runs of the same code move by
20-30%, so one pair proves little.

    python bench/server_load.py                    # 50 and 200 games
    python bench/server_load.py --games 20 --moves 100
    python bench/server_load.py --repeat 5
"""

from __future__ import annotations

import argparse
import asyncio
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import msgpack
from websockets.asyncio.client import connect
from websockets.exceptions import InvalidStatus

ROOT = Path(__file__).resolve().parents[1]
PEER = ROOT.parent / "shared" / "peers" / "minimal-server"
sys.path.insert(0, str(ROOT))

from polygo.protocol import PROTOCOL_VERSION  # noqa: E402

COLUMNS = "ABCDEFGHJKLMNOPQRST"


def script(moves_per_player: int) -> tuple[list[str], list[str]]:
    """Black's and White's moves: left and right halves, row by row, never a capture."""
    black = [f"{COLUMNS[x]}{y}" for y in range(1, 20) for x in range(0, 9)]
    white = [f"{COLUMNS[x]}{y}" for y in range(1, 20) for x in range(10, 19)]
    return black[:moves_per_player], white[:moves_per_player]


def cpu_seconds(pid: int, task: int | None = None) -> float:
    """User + system CPU time of a process, or of one of its threads (``task``), from /proc (Linux)."""
    where = f"/proc/{pid}/stat" if task is None else f"/proc/{pid}/task/{task}/stat"
    fields = Path(where).read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


# -- servers as processes -------------------------------------------------------------------------------

POLYGO = """
import asyncio, logging, sys
sys.path.insert(0, {root!r})
from polygo.server.app import run, run_sync
from polygo.server.ops.collector import tune_for_serving
from polygo.server.config import Config
logging.basicConfig(level="WARNING")
config = Config(port={port}, db={db!r}, rate=1e9, burst=1e9,
                read_rate=1e12, guest_rate=1e6, points_per_address=10**9, rooms_per_creator=10**6,
                rooms_per_session=10**6, synchronous={sync!r},
                connections_per_address=10**6, rooms_per_address=10**6, create_rate=1e9)
asyncio.run(run(config, tune_for_serving)) if {stock!r} else run_sync(config, tune_for_serving)
"""

# The peer's server.py, run unchanged on the loop polygo runs on.
ON_UVLOOP = """
import asyncio, runpy, sys, uvloop
asyncio.set_event_loop_policy(uvloop.EventLoopPolicy())
sys.argv = sys.argv[1:]
runpy.run_path(sys.argv[0], run_name="__main__")
"""


def start(kind: str, port: int, tmp: str, sync: str, uvloop: bool, peer: Path = PEER) -> subprocess.Popen:
    """A server process: polygo as `polygo-server` runs it (on uvloop when ``uvloop``), or the
    minimal server of ``peer`` on the same loop; the database in ``tmp``."""
    if kind == "polygo":
        script = POLYGO.format(root=str(ROOT), port=port, db=os.path.join(tmp, "polygo.db"), sync=sync,
                               stock=not uvloop)
        return subprocess.Popen([sys.executable, "-c", script], cwd=ROOT)
    mode = "full_group" if sync == "FULL" else "normal_group"
    server = [str(peer / "server.py"), str(port), mode]
    argv = [sys.executable, "-c", ON_UVLOOP, *server] if uvloop else [sys.executable, *server]
    return subprocess.Popen(argv, cwd=peer, env={**os.environ, "TMPDIR": tmp}, stdout=subprocess.DEVNULL)


async def wait_ready(port: int) -> None:
    for _ in range(400):
        try:
            async with connect(f"ws://127.0.0.1:{port}/", subprotocols=["polygo.msgpack"]):
                return
        except (OSError, InvalidStatus):   # not listening yet, or 503 while it rebuilds its rooms
            await asyncio.sleep(0.025)
    raise RuntimeError(f"no server on port {port}")


# -- scripted clients -------------------------------------------------------------------------------------

class Game:
    def __init__(self, moves: tuple[list[str], list[str]]) -> None:
        self.moves = moves
        self.total = len(moves[0]) + len(moves[1])
        self.sent_at = 0.0
        self.delivered = 0
        self.latencies: list[float] = []
        self.started = asyncio.Event()     # both seats taken: the server has set the game up
        self.done = asyncio.Event()

    def delivered_one(self) -> None:
        self.latencies.append(time.perf_counter() - self.sent_at)
        self.delivered += 1
        if self.delivered == self.total:
            self.done.set()


async def request(ws, message: dict) -> dict:
    await ws.send(msgpack.packb(message))
    return msgpack.unpackb(await ws.recv(), raw=False)


class PolygoClients:
    """polygo's protocol: hello, create, sit; a move is answered by an event to both and an ack."""

    @staticmethod
    async def open(port: int, index: int, game: Game):
        clients = []
        for seat in range(2):
            ws = await connect(f"ws://127.0.0.1:{port}/", subprotocols=["polygo.msgpack"], compression=None)
            await request(ws, {"type": "hello", "protocol": PROTOCOL_VERSION, "name": f"g{index}s{seat}"})
            clients.append(ws)
        room = (await request(clients[0], {"type": "create", "settings": {"rules": "chinese", "board": "19"}}))["room"]
        return room, clients

    @staticmethod
    async def seat(room: str, clients: list) -> None:
        for seat, ws in enumerate(clients):
            await ws.send(msgpack.packb({"type": "sit", "room": room, "seat": seat}))

    @staticmethod
    async def play(ws, room: str, seat: int, game: Game, go: asyncio.Event) -> None:
        mine = game.moves[seat]
        sent = 0

        async def send_next() -> None:
            nonlocal sent
            if sent < len(mine):
                game.sent_at = time.perf_counter()
                await ws.send(msgpack.packb({"type": "move", "room": room, "move": mine[sent], "seq": sent + 1}))
                sent += 1

        async for frame in ws:
            msg = msgpack.unpackb(frame, raw=False)
            kind = msg.get("type")
            if kind == "event":
                if msg["kind"] == "start":
                    game.started.set()
                    if seat == 0:
                        await go.wait()
                        await send_next()
                elif msg["kind"] == "move" and msg["seat"] != seat:
                    game.delivered_one()
                    await send_next()
            elif kind == "error":
                raise RuntimeError(f"refused: {msg}")


def minimal_point(name: str) -> int:
    """A point's index on the minimal server's padded 21x21 board."""
    return int(name[1:]) * 21 + COLUMNS.index(name[0]) + 1


class MinimalClients:
    """The minimal server's protocol: a room is a path; a move is broadcast to both as ``moved``."""

    @staticmethod
    async def open(port: int, index: int, game: Game):
        clients = [await connect(f"ws://127.0.0.1:{port}/g{index}", compression=None, ping_interval=None)
                   for _ in range(2)]
        return f"g{index}", clients

    @staticmethod
    async def seat(room: str, clients: list) -> None:
        return None

    @staticmethod
    async def play(ws, room: str, seat: int, game: Game, go: asyncio.Event) -> None:
        mine = [minimal_point(name) for name in game.moves[seat]]
        sent = 0

        async def send_next() -> None:
            nonlocal sent
            if sent < len(mine):
                game.sent_at = time.perf_counter()
                move = {"t": "move", "seq": 2 * sent + seat + 1, "p": mine[sent], "ts": game.sent_at}
                await ws.send(msgpack.packb(move))
                sent += 1

        game.started.set()     # a room is a path: nothing to set up
        await go.wait()
        if seat == 0:
            await send_next()
        async for frame in ws:
            msg = msgpack.unpackb(frame, raw=False)
            if msg.get("t") != "moved":
                raise RuntimeError(f"refused: {msg}")
            if (msg["seq"] - 1) % 2 != seat:
                game.delivered_one()
                await send_next()


CLIENTS = {"polygo": PolygoClients, "minimal": MinimalClients}


async def seat_games(kind: str, ports: list[int], states: list[Game]):
    """Open every game (game i at ports[i % len(ports)]), start its players and seat them, and
    return once every game has started; the players move once the returned event is set."""
    clients = CLIENTS[kind]
    opened = await asyncio.gather(*(clients.open(ports[i % len(ports)], i, g) for i, g in enumerate(states)))
    go = asyncio.Event()
    tasks = [asyncio.create_task(clients.play(ws, room, seat, game, go))
             for (room, sockets), game in zip(opened, states) for seat, ws in enumerate(sockets)]
    for room, sockets in opened:
        await clients.seat(room, sockets)
    # polygo answers the sits and starts the games in its own time: measuring from then on would
    # charge that work to the moves
    await asyncio.wait_for(asyncio.gather(*(g.started.wait() for g in states)), timeout=120)
    return opened, tasks, go


async def close_games(opened: list, tasks: list[asyncio.Task]) -> None:
    for task in tasks:
        task.cancel()
    for _, clients in opened:
        for ws in clients:
            await ws.close()


async def run_load(kind: str, games: int, moves_per_player: int, sync: str, where: str | None,
                   uvloop: bool, peer: Path = PEER) -> dict:
    port = free_port()
    with tempfile.TemporaryDirectory(dir=where) as tmp:
        proc = start(kind, port, tmp, sync, uvloop, peer)
        try:
            await wait_ready(port)
            states = [Game(script(moves_per_player)) for _ in range(games)]
            opened, tasks, go = await seat_games(kind, [port], states)
            await asyncio.sleep(0.2)
            began, server_cpu, client_cpu = time.perf_counter(), cpu_seconds(proc.pid), time.process_time()
            loop_cpu = cpu_seconds(proc.pid, proc.pid)
            go.set()
            await asyncio.wait_for(asyncio.gather(*(g.done.wait() for g in states)), timeout=300)
            elapsed = time.perf_counter() - began
            server_cpu = cpu_seconds(proc.pid) - server_cpu
            loop_cpu = cpu_seconds(proc.pid, proc.pid) - loop_cpu
            client_cpu = time.process_time() - client_cpu
            await close_games(opened, tasks)
        finally:
            proc.terminate()
            proc.wait(timeout=20)
    latencies = sorted(x for g in states for x in g.latencies)
    moves = sum(g.delivered for g in states)
    return {"moves": moves, "seconds": elapsed, "rate": moves / elapsed, "server_cpu": server_cpu / elapsed,
            "cpu_per_move": server_cpu / moves * 1e6, "loop_per_move": loop_cpu / moves * 1e6,
            "client_cpu": client_cpu / elapsed,
            "p50": latencies[len(latencies) // 2] * 1000, "p99": latencies[int(len(latencies) * 0.99)] * 1000}


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, nargs="*", default=[50, 200])
    parser.add_argument("--moves", type=int, default=150, help="moves per player per game (at most 171)")
    parser.add_argument("--synchronous", default="FULL", choices=["FULL", "NORMAL"],
                        help="SQLite sync mode of both servers (NORMAL survives a killed process, not a power cut)")
    parser.add_argument("--dir", help="where the databases go (default: the system's temporary directory)")
    parser.add_argument("--repeat", type=int, default=1, help="pairs of runs per game count, alternated")
    parser.add_argument("--stock-loop", action="store_true",
                        help="run both servers on asyncio's own loop even when uvloop is installed")
    parser.add_argument("--peer", type=Path, default=PEER, help=f"the minimal server's folder (default {PEER})")
    args = parser.parse_args()
    if not (args.peer / "server.py").exists():
        parser.error(f"no minimal server in {args.peer}: this benchmark compares polygo with it")
    from polygo.server.app import loop_factory
    uvloop = not args.stock_loop and loop_factory() is not None
    print(f"SQLite synchronous={args.synchronous}, databases in {args.dir or tempfile.gettempdir()}; "
          f"both servers on {'uvloop' if uvloop else 'asyncio'}; load average {os.getloadavg()[0]:.1f}")
    print(f"{'server':8} {'games':>5} {'moves':>7} {'seconds':>8} {'moves/s':>9} {'p50 ms':>7} {'p99 ms':>7}"
          f" {'server CPU':>10} {'client CPU':>10} {'µs/move':>8} {'loop':>5} {'other':>5}")
    summary: dict[int, list[dict[str, float]]] = {}
    for games in args.games:
        for _ in range(args.repeat):
            results = {}
            for kind in ("minimal", "polygo"):
                r = results[kind] = await run_load(kind, games, min(args.moves, 171), args.synchronous, args.dir,
                                                   uvloop, args.peer)
                print(f"{kind:8} {games:5d} {r['moves']:7d} {r['seconds']:8.2f} {r['rate']:9.0f} {r['p50']:7.2f}"
                      f" {r['p99']:7.2f} {r['server_cpu']:10.0%} {r['client_cpu']:10.0%} {r['cpu_per_move']:8.0f}"
                      f" {r['loop_per_move']:5.0f} {r['cpu_per_move'] - r['loop_per_move']:5.0f}", flush=True)
            b, p = results["minimal"], results["polygo"]
            ratios = {"moves/s": p["rate"] / b["rate"], "p50": p["p50"] / b["p50"], "p99": p["p99"] / b["p99"],
                      "server CPU per move": p["cpu_per_move"] / b["cpu_per_move"]}
            summary.setdefault(games, []).append(ratios)
            print(f"{'ratio':8} {games:5d}   polygo/minimal: moves/s x{ratios['moves/s']:.2f}, "
                  f"p50 x{ratios['p50']:.2f}, p99 x{ratios['p99']:.2f}, "
                  f"server CPU per move x{ratios['server CPU per move']:.2f}", flush=True)
    if args.repeat > 1:
        for games, runs in summary.items():
            for name in ("server CPU per move", "moves/s", "p99"):
                values = sorted(r[name] for r in runs)
                print(f"{'median':8} {games:5d}   {name} polygo/minimal x{statistics.median(values):.2f}"
                      f" (x{values[0]:.2f}-{values[-1]:.2f} over {len(values)} pairs)", flush=True)
    print(f"load average at the end {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    asyncio.run(main())
