"""Machine instructions, and simulated cache misses, a move of polygo and of a baseline that speaks
its messages on its own store (below) under cachegrind, the scripted games of `bench/server_load.py`.

`bench/server_load.py` measures time, which on this shared machine moves by a fifth between
minutes; these counts repeat to within a few per cent, so they judge a change of the server's work
that its ratios cannot. The server runs under valgrind in a process of its own, the scripted
clients natively in this one; each figure is the difference between a run of `--short` and one of
`--long` moves a player, over the moves between them: start-up, the handshakes and the rooms'
creation drop out. The store's writes are resolved by the loop at once instead of committed by its
writer's thread (both servers), because a batch's size depends on the threads' timing and would
move the counts; the commit's share is server_load.py's to measure.

With `--cache`, cachegrind also simulates the caches, with its last level the size of this
machine's L2 (1 MiB a core, 16-way; L1 32 KiB each): a server's misses there are what it reads
from the shared L3 or memory, the memory a move touches beside its work, which the instruction
counts cannot show.

    python bench/server_instructions.py                      # 10 games, both servers
    python bench/server_instructions.py --games 200 --cache  # some ten minutes
    python bench/server_instructions.py --games 200 --cache --no-gc

With the collector on (as the servers run), whether one of its young collections falls between
the two runs' ends moves a count by some 10,000 instructions and 30 misses a move; `--no-gc`
turns it off in both servers once they listen. At 200 games the counts still move by some 5-10%
between runs of the same code when other processes share the cores (how many moves the loop
takes up in one pass depends on the timing): compare versions of the server at 10 games, or run
both in the same quiet minutes.

Needs valgrind (Debian's `valgrind` package).
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import os
import re
import signal
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

import server_load  # noqa: E402

COUNTS = {"I": r"I\s+refs:\s+([\d,]+)", "I1": r"I1\s+misses:\s+([\d,]+)", "D1": r"D1\s+misses:\s+([\d,]+)",
          "L2": r"LLd misses:\s+([\d,]+)"}
CACHES = ["--cache-sim=yes", "--I1=32768,8,64", "--D1=32768,8,64", "--LL=1048576,16,64"]


# -- the baseline --------------------------------------------------------------------------------------

async def baseline_main(port: int, db: str, sync: str) -> None:
    """A baseline speaking polygo's messages for these scripted games, on polygo's own store: decode,
    a plain check (on the board, empty, in turn), store, send; its instructions are the floor of a move."""
    import msgpack
    from websockets.asyncio.connection import broadcast
    from websockets.asyncio.server import serve

    from polygo.server.store import Store

    store = await Store.open(db, synchronous=sync)
    rooms: dict[str, dict] = {}
    counter = 0

    async def handler(ws):
        nonlocal counter
        async for frame in ws:
            m = msgpack.unpackb(frame, raw=False)
            kind = m.get("type")
            if kind == "hello":
                await ws.send(msgpack.packb({"type": "welcome", "token": "t", "name": m.get("name")}))
            elif kind == "create":
                counter += 1
                room_id = f"b{counter}"
                rooms[room_id] = {"board": {}, "turn": 0, "seats": [], "version": 0}
                await store.create_room(room_id, {"rules": "baseline"}, owner="t", invite=None)
                await ws.send(msgpack.packb({"type": "created", "room": room_id}))
            elif kind == "sit":
                room = rooms[m["room"]]
                room["seats"].append(ws)
                await ws.send(msgpack.packb({"type": "snapshot", "room": m["room"], "version": room["version"]}))
                if len(room["seats"]) == 2:
                    room["version"] += 1
                    event = {"type": "event", "room": m["room"], "version": room["version"], "kind": "start", "to_move": 0}
                    await store.record(m["room"], room["version"], event)
                    broadcast(room["seats"], msgpack.packb(event))
            elif kind == "move":
                room = rooms[m["room"]]
                seat = room["seats"].index(ws)
                point = m["move"]
                if seat != room["turn"] or point in room["board"] or point[0] not in server_load.COLUMNS or not 1 <= int(point[1:]) <= 19:
                    await ws.send(msgpack.packb({"type": "error", "code": "illegal-move"}))
                    continue
                room["board"][point] = seat
                room["turn"] = 1 - seat
                room["version"] += 1
                version = room["version"]
                event = {"type": "event", "room": m["room"], "version": version, "kind": "move", "seat": seat,
                         "move": point, "seq": m["seq"]}
                await store.record(m["room"], version, event, move=(seat, point, m["seq"]))
                broadcast(room["seats"], msgpack.packb(event))
                await ws.send(msgpack.packb({"type": "ack", "room": m["room"], "seq": m["seq"], "version": version}))

    async with serve(handler, "127.0.0.1", port, compression=None, max_size=2**16):
        await asyncio.Event().wait()



# -- the server's process ------------------------------------------------------------------------------

def serve(kind: str, portfile: str, collector: bool) -> None:
    """Run one server until SIGTERM, its port written to ``portfile``; every store write resolved
    by the loop at once (see the module's doc); without the ``collector`` once it listens."""
    from polygo.server.store import Store

    def resolved(self: Store, statements: list, room: str | None = None) -> asyncio.Future:
        done = self._loop.create_future()
        self._loop.call_soon(done.set_result, None)
        return done

    Store._write = resolved

    async def main() -> None:
        stop = asyncio.Event()
        asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, stop.set)
        with tempfile.TemporaryDirectory() as tmp:
            db = os.path.join(tmp, f"{kind}.db")
            if kind == "polygo":
                from polygo.server.app import Server
                from polygo.server.ops.collector import tune_for_serving
                from polygo.server.config import Config
                server = await Server(Config(port=0, host="127.0.0.1", db=db, rate=1e9, burst=1e9,
                                             read_rate=1e12, guest_rate=1e6, points_per_address=10**9,
                                             rooms_per_creator=10**6,
                                             rooms_per_session=10**6, connections_per_address=10**6,
                                             rooms_per_address=10**6, create_rate=1e9)).start()
                tune_for_serving()   # as polygo-server's entry point does
                port = server.port
            else:
                port = server_load.free_port()
                # held: a task the loop alone refers to may be collected while it serves
                server = asyncio.create_task(baseline_main(port, db, "FULL"))
                await server_load.wait_ready(port)
            if not collector:
                gc.disable()
            Path(portfile).write_text(str(port))
            await stop.wait()
        os._exit(0)   # valgrind reports at the exit; the baseline's store has no close of its own

    if kind == "polygo":
        from polygo.server.app import loop_factory
        asyncio.Runner(loop_factory=loop_factory()).run(main())
    else:
        asyncio.run(main())


# -- the clients ---------------------------------------------------------------------------------------

async def play(port: int, games: int, moves: int) -> None:
    """The scripted games of server_load.py, opened one after the other (a server under valgrind
    answers handshakes slowly, and 400 at once time out)."""
    states = [server_load.Game(server_load.script(moves)) for _ in range(games)]
    clients = server_load.PolygoClients
    opened = [await clients.open(port, i, g) for i, g in enumerate(states)]
    go = asyncio.Event()
    tasks = [asyncio.create_task(clients.play(ws, room, seat, game, go))
             for (room, sockets), game in zip(opened, states) for seat, ws in enumerate(sockets)]
    for room, sockets in opened:
        await clients.seat(room, sockets)
    go.set()
    await asyncio.wait_for(asyncio.gather(*(g.done.wait() for g in states)), timeout=3600)
    await server_load.close_games(opened, tasks)


async def counts(kind: str, games: int, moves: int, cache: bool, collector: bool) -> dict[str, int]:
    """A server's counts under cachegrind over a run of ``moves`` a player."""
    with tempfile.TemporaryDirectory() as tmp:
        portfile = os.path.join(tmp, "port")
        argv = ["valgrind", "--tool=cachegrind", "--cachegrind-out-file=/dev/null",
                *(CACHES if cache else ["--cache-sim=no"]), sys.executable, __file__, "--serve", kind, portfile,
                "on" if collector else "off"]
        proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                                env={**os.environ, "PYTHONHASHSEED": "0"})
        try:
            for _ in range(12000):
                if Path(portfile).exists() and Path(portfile).read_text():
                    break
                if proc.poll() is not None:
                    raise SystemExit(f"the {kind} server ended before listening:\n{proc.stderr.read()[-2000:]}")
                await asyncio.sleep(0.05)
            else:
                raise SystemExit(f"the {kind} server did not listen within 10 minutes under valgrind")
            await play(int(Path(portfile).read_text()), games, moves)
        finally:
            proc.send_signal(signal.SIGTERM)
            report = await asyncio.to_thread(proc.communicate, timeout=600)
    found = {}
    for name, pattern in COUNTS.items():
        match = re.search(pattern, report[1])
        if match:
            found[name] = int(match.group(1).replace(",", ""))
    if "I" not in found:
        raise SystemExit(f"no instruction count from valgrind:\n{report[1][-2000:]}")
    return found


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=10)
    parser.add_argument("--short", type=int, default=10, help="moves a player of the shorter run")
    parser.add_argument("--long", type=int, default=30, help="moves a player of the longer run (at most 171)")
    parser.add_argument("--cache", action="store_true", help="simulate the caches too (some five times slower)")
    parser.add_argument("--no-gc", action="store_true", help="the servers' collector off once they listen")
    args = parser.parse_args()
    moves = 2 * (args.long - args.short) * args.games
    print(f"{args.games} games, runs of {args.short} and {args.long} moves a player: per move over the "
          f"{moves} moves between them; the store's writes resolved without a commit (both servers)"
          + ("; the collector off" if args.no_gc else ""))
    names = {"I": "instructions", "I1": "I1 misses", "D1": "D1 misses", "L2": "L2 data misses"}
    print(f"{'server':9}" + "".join(f"{names[n]:>16}" for n in names if args.cache or n == "I"))
    per_move = {}
    for kind in ("baseline", "polygo"):
        short = await counts(kind, args.games, args.short, args.cache, not args.no_gc)
        long = await counts(kind, args.games, args.long, args.cache, not args.no_gc)
        per_move[kind] = {n: (long[n] - short[n]) / moves for n in long}
        print(f"{kind:9}" + "".join(f"{per_move[kind][n]:16,.0f}" for n in names if n in long), flush=True)
    ratios = ", ".join(f"{names[n]} x{per_move['polygo'][n] / per_move['baseline'][n]:.2f}"
                       for n in names if n in per_move["polygo"])
    print(f"ratio polygo/baseline: {ratios}")


if __name__ == "__main__":
    if len(sys.argv) == 5 and sys.argv[1] == "--serve":
        serve(sys.argv[2], sys.argv[3], sys.argv[4] == "on")
    else:
        asyncio.run(main())
