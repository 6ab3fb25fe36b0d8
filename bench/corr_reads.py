"""What a correspondence server reads often: a player's `my_games` list and the deadline sweep's
search for overdue games, on a store holding many unfinished games.

It fills a fresh SQLite file with ROOMS unfinished two-player correspondence games (each started:
two seats, a `start` record with its deadline and seat to move), GAMES of them held by one player,
then times `Store.held_games` (the list's query) and `Store.overdue` (one sweep, with OVERDUE games
past their deadline), best and median of the rounds.

    python bench/corr_reads.py [--rooms 10000] [--games 16] [--overdue 100] [--rounds 50]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from polygo.server.store import Store  # noqa: E402  (after the path set-up, to run from a checkout)

SETTINGS = {"rules": "chinese", "board": "19", "players": 2, "clock": {"kind": "corr", "period": 259200,
                                                                        "cap": 259200}}
CLOCKS = {"seats": [{"main": 259200.0, "periods": 0, "period_left": 0.0, "stones_left": 0, "flagged": False}] * 2,
          "running": 0}


async def fill(store: Store, rooms: int, games: int, overdue: int, now: float) -> None:
    """The games, written by many tasks at once so that group commit batches them."""
    async def game(i: int) -> None:
        room = f"r{i:06d}"
        await store.put_session(f"t{i}", f"p{i}")
        await store.create_room(room, SETTINGS, owner=f"t{i}", invite=None)
        await store.set_seat(room, 0, "ann" if i < games else f"t{i}")
        await store.set_seat(room, 1, f"t{(i + 1) % rooms}")
        deadline = now - i if i < overdue else now + 3600 + i
        await store.record(room, 1, {"kind": "start", "to_move": 0}, clocks=CLOCKS, deadline=float(deadline))

    for start in range(0, rooms, 500):
        await asyncio.gather(*(game(i) for i in range(start, min(start + 500, rooms))))


async def timed(call, rounds: int) -> tuple[float, float, int]:
    times, size = [], 0
    for _ in range(rounds):
        start = time.perf_counter()
        size = len(await call())
        times.append(time.perf_counter() - start)
    return min(times), statistics.median(times), size


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rooms", type=int, default=10_000)
    parser.add_argument("--games", type=int, default=16)
    parser.add_argument("--overdue", type=int, default=100)
    parser.add_argument("--rounds", type=int, default=50)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        store = await Store.open(str(Path(tmp) / "corr.db"))
        now = time.time()
        await store.put_session("ann", "ann", user="ann")
        await fill(store, args.rooms, args.games, args.overdue, now)
        for what, call in (("my_games (held_games)", lambda: store.held_games("ann", "ann", 1000)),
                           ("deadline sweep (overdue)", lambda: store.overdue(now, 100))):
            best, median, size = await timed(call, args.rounds)
            print(f"{what:<26} best {best * 1e3:6.2f} ms, median {median * 1e3:6.2f} ms "
                  f"({size} rows of {args.rooms} unfinished games)")
        await store.close()


if __name__ == "__main__":
    asyncio.run(main())
