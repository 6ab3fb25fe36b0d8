"""What the Prometheus hooks cost: server_load.py's games against polygo with prometheus_client
installed (every ack, commit and error observed) and against the same server with it hidden (the
no-op hooks), alternately in one run.

    python bench/server_metrics.py                 # 50 games, 2 rounds
    python bench/server_metrics.py --games 200 --rounds 3
"""

from __future__ import annotations

import argparse
import asyncio
import statistics

import server_load

HIDDEN = "import sys; sys.modules['prometheus_client'] = None\n"


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=50)
    parser.add_argument("--moves", type=int, default=150)
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args()
    template = server_load.POLYGO
    from polygo.server.app import loop_factory
    uvloop = loop_factory() is not None
    results: dict[str, list[dict]] = {"metrics": [], "no metrics": []}
    print(f"{'server':11} {'games':>5} {'moves/s':>8} {'p50 ms':>7} {'p99 ms':>7} {'server CPU':>10}")
    for _ in range(args.rounds):
        for name, source in (("metrics", template), ("no metrics", HIDDEN + template)):
            server_load.POLYGO = source
            r = await server_load.run_load("polygo", args.games, args.moves, "FULL", None, uvloop)
            results[name].append(r)
            print(f"{name:11} {args.games:5d} {r['rate']:8.0f} {r['p50']:7.2f} {r['p99']:7.2f} {r['server_cpu']:10.0%}",
                  flush=True)
    on, off = ({k: statistics.median(r[k] for r in results[n]) for k in ("rate", "p99")} for n in results)
    print(f"ratio metrics/no metrics (medians): moves/s x{on['rate'] / off['rate']:.2f}, p99 x{on['p99'] / off['p99']:.2f}")


if __name__ == "__main__":
    asyncio.run(main())
