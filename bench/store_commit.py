"""How fast the store acknowledges durable writes: group commit against one transaction per record.

Each room is a task that records one move after another (awaiting each, as a room's task does),
with a realistic event and clock state. For 1, 50 and 200 concurrent rooms it runs the store twice on
fresh files in the same process -- grouped (the default ``group_window``) and naive (``max_batch=1``,
``group_window=0``: one COMMIT, one WAL sync, per record) -- and prints acknowledged records per
second, transactions per second, p50/p99 ``record()`` latency, and grouped/naive as a ratio.

    python bench/store_commit.py [--seconds 3] [--rooms 1,50,200] [--synchronous FULL] [--dir DIR]

``--dir`` chooses where the database files go: the figures are the disk's sync rate as much as ours.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from polygo.server.store import Store  # noqa: E402  (after the path set-up, to run from a checkout)


async def room_task(store: Store, room_id: str, until: float, latencies: list[float]) -> None:
    version = 0
    while time.perf_counter() < until:
        version += 1
        event = {"type": "move", "room": room_id, "version": version, "seat": version % 2, "move": "D4",
                 "captures": [], "to_move": (version + 1) % 2}
        clocks = {"seats": [{"main": 600.0 - version, "periods": 5, "period_left": 30.0, "stones_left": 0,
                             "flagged": False}] * 2, "running": (version + 1) % 2}
        start = time.perf_counter()
        await store.record(room_id, version, event, move=(version % 2, "D4", version), clocks=clocks)
        latencies.append(time.perf_counter() - start)


async def run(path: str, rooms: int, seconds: float, grouped: bool, synchronous: str) -> dict:
    options = {} if grouped else {"group_window": 0, "max_batch": 1}
    store = await Store.open(path, synchronous=synchronous, **options)
    try:
        ids = [f"room-{i}" for i in range(rooms)]
        for room_id in ids:
            await store.create_room(room_id, {"rules": "chinese", "board": "19"}, owner="bench", invite=None)
        transactions = store.stats.transactions
        latencies: list[float] = []
        start = time.perf_counter()
        await asyncio.gather(*(room_task(store, r, start + seconds, latencies) for r in ids))
        elapsed = time.perf_counter() - start
        transactions = store.stats.transactions - transactions
    finally:
        await store.close()
    quantiles = statistics.quantiles(latencies, n=100, method="inclusive")
    return {"records_s": len(latencies) / elapsed, "tx_s": transactions / elapsed,
            "p50_ms": quantiles[49] * 1e3, "p99_ms": quantiles[98] * 1e3,
            "per_tx": len(latencies) / max(transactions, 1)}


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=3.0, help="run time of each measurement")
    parser.add_argument("--rooms", default="1,50,200", help="comma-separated concurrent room counts")
    parser.add_argument("--synchronous", default="FULL", choices=["FULL", "NORMAL"])
    parser.add_argument("--dir", default=None, help="directory for the database files (default: a temp dir)")
    args = parser.parse_args()
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} CPUs, synchronous={args.synchronous}, "
          f"{args.seconds:g} s per run")
    print(f"{'rooms':>5} {'mode':>7} {'records/s':>10} {'tx/s':>8} {'rec/tx':>7} {'p50 ms':>8} {'p99 ms':>8}")
    with tempfile.TemporaryDirectory(dir=args.dir) as folder:
        for rooms in (int(n) for n in args.rooms.split(",")):
            figures = {}
            for mode in ("grouped", "naive"):
                path = os.path.join(folder, f"{mode}-{rooms}.db")
                f = figures[mode] = await run(path, rooms, args.seconds, mode == "grouped", args.synchronous)
                print(f"{rooms:>5} {mode:>7} {f['records_s']:>10.0f} {f['tx_s']:>8.0f} {f['per_tx']:>7.1f} "
                      f"{f['p50_ms']:>8.2f} {f['p99_ms']:>8.2f}")
            ratio = figures["grouped"]["records_s"] / figures["naive"]["records_s"]
            print(f"{rooms:>5} grouped/naive records/s: {ratio:.2f}x")


if __name__ == "__main__":
    asyncio.run(main())
