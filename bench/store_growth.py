"""The store's CPU a move as its file grows: many rooms recording moves at once, as server_load.py's
games do, with the writer's SQLite settings against SQLite's defaults.

Each of ``--rooms`` rooms records ``--moves`` moves one after another through the real `Store` (its
group commit, SQLite in WAL mode, synchronous=FULL), all rooms at once. The process's CPU time
(user and system, every thread: the loop binds the rows, the writer's thread commits) is divided
by the moves recorded, per third of the run: the later thirds are the same work on a larger file.

Two settings alternate, each on a fresh file: the store's own (``polygo/server/store/writer.py``: a WAL of
``CHECKPOINT_PAGES`` pages between checkpoints, a page cache of ``CACHE_KIB``) and SQLite's defaults
(1,000 pages, 2 MiB), set back on the writer's connection. A move's rows go to a place of its
room in ``moves`` and in ``events``' index, so a batch of many rooms dirties a page per room:
with the defaults each checkpoint copies and syncs those pages again, and a cache of 2 MiB holds
the insertion points of a few hundred rooms only.

    python bench/store_growth.py
    python bench/store_growth.py --rooms 200 --moves 150 --repeat 3
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from polygo.server.store import Store  # noqa: E402  (after the path set-up, to run from a checkout)

SQLITE_DEFAULTS = ("PRAGMA wal_autocheckpoint = 1000", "PRAGMA cache_size = -2000")


async def room_task(store: Store, room_id: str, moves: int, progress: Progress) -> None:
    """Record ``moves`` moves with a realistic event and clocks."""
    for version in range(1, moves + 1):
        event = {"type": "move", "room": room_id, "version": version, "seat": version % 2, "move": "D4",
                 "captures": [], "to_move": (version + 1) % 2}
        clocks = {"seats": [{"main": 600.0 - version, "periods": 5, "period_left": 30.0, "stones_left": 0,
                             "flagged": False}] * 2, "running": (version + 1) % 2}
        await store.record(room_id, version, event, move=(version % 2, "D4", version), clocks=clocks)
        progress.recorded()


class Progress:
    """The process's CPU time (every thread) read at the start and after each third of the moves."""

    def __init__(self, total: int) -> None:
        self.total = total
        self.done = 0
        self.cpu = [_cpu()]

    def recorded(self) -> None:
        self.done += 1
        if self.done * 3 % self.total == 0:
            self.cpu.append(_cpu())

    def per_third(self) -> list[float]:
        """µs of CPU a move over each third."""
        return [(after - before) / (self.total / 3) * 1e6 for before, after in zip(self.cpu, self.cpu[1:])]


def _cpu() -> float:
    times = os.times()
    return times.user + times.system


async def run(path: str, rooms: int, moves: int, defaults: bool) -> list[float]:
    """µs of CPU a move over each third of the run (``rooms * moves`` a multiple of 3)."""
    store = await Store.open(path)
    try:
        if defaults:
            for pragma in SQLITE_DEFAULTS:      # the bench's one reach into the writer's connection
                store._db._writer._connection.execute(pragma)
        ids = [f"room-{i:05d}" for i in range(rooms)]
        for room_id in ids:
            await store.create_room(room_id, {"rules": "chinese", "board": "19"}, owner="bench", invite=None)
        progress = Progress(rooms * moves)
        await asyncio.gather(*(room_task(store, r, moves, progress) for r in ids))
    finally:
        await store.close()
    return progress.per_third()


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rooms", type=int, default=1000)
    parser.add_argument("--moves", type=int, default=300, help="moves a room")
    parser.add_argument("--repeat", type=int, default=2, help="rounds of the two settings, alternated")
    parser.add_argument("--dir", default=None, help="directory for the database files (default: a temp dir)")
    args = parser.parse_args()
    if args.rooms < 1 or args.moves < 1 or args.rooms * args.moves % 3:
        parser.error("--rooms times --moves must be a positive multiple of 3 (the run is read in thirds)")
    print(f"python {sys.version.split()[0]}, {args.rooms} rooms x {args.moves} moves, synchronous=FULL, "
          f"load average {os.getloadavg()[0]:.1f}")
    print(f"{'settings':>16} {'µs/move, 1st third':>19} {'2nd':>6} {'3rd':>6}")
    figures: dict[str, list[list[float]]] = {"the store's": [], "SQLite's defaults": []}
    with tempfile.TemporaryDirectory(dir=args.dir) as folder:
        for round_ in range(args.repeat):
            for name in figures:
                path = os.path.join(folder, f"{round_}-{len(name)}.db")
                thirds = await run(path, args.rooms, args.moves, name != "the store's")
                figures[name].append(thirds)
                print(f"{name:>16} {thirds[0]:>19.1f} {thirds[1]:>6.1f} {thirds[2]:>6.1f}", flush=True)
    medians = {name: [statistics.median(r[i] for r in runs) for i in range(3)] for name, runs in figures.items()}
    ratios = [medians["the store's"][i] / medians["SQLite's defaults"][i] for i in range(3)]
    print("median ratio, the store's / SQLite's defaults: " + ", ".join(f"x{r:.2f}" for r in ratios)
          + f"; load average at the end {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    asyncio.run(main())
