"""Cluster load benchmark: moves/s and latency of 1, 2 and 3 polygo nodes on one PostgreSQL,
beside one polygo on SQLite, under the same scripted games as bench/server_load.py.

Each game is two msgpack clients moving as soon as it is their turn (server_load's script: no
captures, every move legal); a move counts when the opponent receives its event, its latency is
from the mover's send to that receipt. With N nodes, game i is created and played at node i mod N
(as HAProxy's least-connections would spread them; clients connect to the nodes directly, so the
figures are the nodes' and the database's, not HAProxy's). PostgreSQL is a private cluster with
fsync on (tests/postgres.py makes it); SQLite is synchronous=FULL. Every process shares this
machine's cores, PostgreSQL included. Loopback only; every loop is bounded.

    python bench/cluster_load.py                    # 200 games, 60 moves per player
    python bench/cluster_load.py --games 50 --moves 100
"""

from __future__ import annotations

import argparse
import asyncio
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.cluster_failover import ready  # noqa: E402
from bench.server_load import Game, close_games, cpu_seconds, free_port, script, seat_games  # noqa: E402
from tests.postgres import PostgresCluster  # noqa: E402

NODE = """
import asyncio, logging, sys
sys.path.insert(0, {root!r})
from polygo.server.app import run
from polygo.server.config import Config
logging.basicConfig(level="WARNING")
asyncio.run(run(Config(port={port}, db={db!r}, node_id={node!r}, rate=1e9, burst=1e9,
                       read_rate=1e12, guest_rate=1e6, points_per_address=10**9, rooms_per_creator=10**6,
                       rooms_per_session=10**6,
                       create_rate=1e9, rooms_per_address=10**6, connections_per_address=10**6)))
"""


def start(port: int, db: str, node: str) -> subprocess.Popen:
    code = NODE.format(root=str(ROOT), port=port, db=db, node=node)
    return subprocess.Popen([sys.executable, "-c", code], cwd=ROOT)


async def run_load(db: str, nodes: int, games: int, moves_per_player: int) -> dict:
    ports = [free_port() for _ in range(nodes)]
    procs = [start(port, db, f"n{i}") for i, port in enumerate(ports)]
    try:
        for port in ports:
            await ready(port)
        states = [Game(script(moves_per_player)) for _ in range(games)]
        opened, tasks, go = await seat_games("polygo", ports, states)
        await asyncio.sleep(0.5)
        began, cpu = time.perf_counter(), sum(cpu_seconds(p.pid) for p in procs)
        go.set()
        await asyncio.wait_for(asyncio.gather(*(g.done.wait() for g in states)), timeout=600)
        elapsed = time.perf_counter() - began
        cpu = sum(cpu_seconds(p.pid) for p in procs) - cpu
        await close_games(opened, tasks)
    finally:
        for proc in procs:
            proc.terminate()
            proc.wait(timeout=30)
    latencies = sorted(x for g in states for x in g.latencies)
    moves = sum(g.delivered for g in states)
    return {"moves": moves, "seconds": elapsed, "rate": moves / elapsed, "cpu": cpu / elapsed,
            "p50": latencies[len(latencies) // 2] * 1000, "p99": latencies[int(len(latencies) * 0.99)] * 1000}


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--moves", type=int, default=60, help="moves per player per game (at most 171)")
    args = parser.parse_args()
    moves = min(args.moves, 171)
    print(f"{args.games} games, {moves} moves per player, {os.cpu_count()} cores shared by every process")
    print(f"{'store':22} {'moves':>7} {'seconds':>8} {'moves/s':>9} {'p50 ms':>7} {'p99 ms':>7} {'nodes CPU':>9}")

    def show(label: str, r: dict) -> None:
        print(f"{label:22} {r['moves']:7d} {r['seconds']:8.2f} {r['rate']:9.0f} {r['p50']:7.2f} {r['p99']:7.2f}"
              f" {r['cpu']:9.0%}", flush=True)

    with tempfile.TemporaryDirectory() as tmp:
        show("SQLite, 1 node", await run_load(os.path.join(tmp, "polygo.db"), 1, args.games, moves))
    postgres = PostgresCluster.start({"fsync": "on"})
    try:
        for nodes in (1, 2, 3):
            show(f"PostgreSQL, {nodes} node{'s' * (nodes > 1)}",
                 await run_load(postgres.new_database(), nodes, args.games, moves))
    finally:
        postgres.stop()


if __name__ == "__main__":
    asyncio.run(main())
