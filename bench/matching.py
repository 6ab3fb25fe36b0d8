"""What finding games costs the server: one run of the matcher over 10,000 waiting seeks of a pool,
one arena pairing, and one rated game's rating update (the model alone, and as a step of the
transaction that stores the game's result, on a real SQLite file). Run it by hand (a benchmark,
not a test):

    python bench/matching.py                      # 10,000 seeks, best of 5
    python bench/matching.py --seeks 2000 --repeat 3

The seeks' ratings are spread as a pool's would be (normal, mean 1500, sd 300) and their waits
over the last minute; the matcher's window is the server's default (polygo/server/finding/matching.py). Times
are CPU time of this process (the store's, wall time: its COMMIT waits for the disk), the best of
`--repeat` runs. docs/performance.md keeps the figures.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from polygo.server.finding.matching import Entry, Window, arena_groups, match  # noqa: E402
from polygo.server.finding.ratings import RatedGame, Rating, rate, update_step  # noqa: E402
from polygo.server.store import Store  # noqa: E402


def seeks(count: int, rng: random.Random) -> list[Entry]:
    return [Entry(f"s{i}", f"p{i}", rng.gauss(1500, 300), rng.uniform(0, 60), (rng.randrange(20), rng.randrange(20)))
            for i in range(count)]


def best_cpu(fn, repeat: int) -> tuple[float, object]:
    """The least CPU seconds of `repeat` calls of `fn`, and the last call's value."""
    times, value = [], None
    for _ in range(repeat):
        start = time.process_time()
        value = fn()
        times.append(time.process_time() - start)
    return min(times), value


async def store_updates(games: int) -> tuple[float, float]:
    """Wall seconds a game's ending record takes, without and with its rating update."""
    with tempfile.TemporaryDirectory() as tmp:
        store = await Store.open(str(Path(tmp) / "bench.db"))
        try:
            plain, rated = [], []
            for i in range(games):
                for kind, times in (("p", plain), ("r", rated)):
                    room = f"{kind}{i}"
                    await store.create_room(room, {"players": 2}, owner="t", invite=None)
                    step = update_step(RatedGame(room, "pool", (f"a{i % 50}", f"b{i % 50}"), (1, 2)), 1.0) \
                        if kind == "r" else None
                    start = time.perf_counter()
                    await store.record(room, 1, {"kind": "move"}, result={"reason": "resignation"}, step=step)
                    times.append(time.perf_counter() - start)
            return sorted(plain)[len(plain) // 2], sorted(rated)[len(rated) // 2]
        finally:
            await store.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeks", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--games", type=int, default=200, help="rated games stored for the update's cost")
    args = parser.parse_args()
    rng = random.Random(1)
    entries = seeks(args.seeks, rng)
    apart = [Entry(e.key, e.player, i * 250.0, 60.0, e.seats) for i, e in enumerate(entries)]
    for players in (2, 3):
        for label, waiting in (("waited up to a minute", entries), ("just came, none within reach", apart)):
            seconds, groups = best_cpu(lambda: match(waiting, players, 60.0, Window()), args.repeat)
            print(f"match, {args.seeks:,} seeks ({label}), {players} players: {seconds * 1000:.1f} ms CPU, "
                  f"{len(groups):,} rooms ({len(groups) * players:,} seekers placed)")
    seconds, groups = best_cpu(lambda: arena_groups(entries, 2, random.Random(2)), args.repeat)
    print(f"arena pairing, {args.seeks:,} free players: {seconds * 1000:.1f} ms CPU, {len(groups):,} games")
    for players in (2, 3, 8):
        before = [Rating()] * players
        ranks = list(range(1, players + 1))
        seconds, _ = best_cpu(lambda: [rate(before, ranks) for _ in range(1000)], args.repeat)
        print(f"rating update (openskill Plackett-Luce), {players} players: {seconds * 1000:.1f} µs CPU a game")
    plain, rated = asyncio.run(store_updates(args.games))
    print(f"a game's ending record on SQLite (synchronous=FULL), median of {args.games}: {plain * 1000:.2f} ms, "
          f"with its rating update {rated * 1000:.2f} ms")


if __name__ == "__main__":
    main()
