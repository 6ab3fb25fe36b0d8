"""`polygo-server ratings --rebuild`: every rating recomputed from the rated games in order.

Ratings are a function of the stored rated games (polygo/server/finding/ratings.py); this replays them from the
first and writes the result back in one transaction, the same kind of step the live update is, so
it may run beside a live server (on PostgreSQL under the same lock as the live updates). `--check`
only reports which stored ratings differ from the replay.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
from typing import Mapping, Sequence

from ..store import Store, StoreError
from ..store.postgres import redacted
from .pool_store import PoolQueries, Rebuilt


async def rebuild(db: str, write: bool) -> Rebuilt:
    store = await Store.open(db)
    try:
        return await PoolQueries(store).rebuild(write)
    finally:
        await store.close()


def main(argv: Sequence[str], env: Mapping[str, str] | None = None) -> int:
    """`polygo-server ratings (--rebuild | --check) [--db TARGET]`; prints a line, returns the exit status."""
    env = os.environ if env is None else env
    parser = argparse.ArgumentParser(prog="polygo-server ratings",
                                     description="Recompute every rating from the rated games in order.")
    what = parser.add_mutually_exclusive_group(required=True)
    what.add_argument("--rebuild", action="store_true", help="replay the rated games and write the ratings back")
    what.add_argument("--check", action="store_true", help="replay them and report the ratings that differ")
    parser.add_argument("--db", default=env.get("POLYGO_DB", "polygo.db"),
                        help="the SQLite file or postgresql:// URL (POLYGO_DB, default %(default)s)")
    args = parser.parse_args(argv)
    try:
        report = asyncio.run(rebuild(args.db, write=args.rebuild))
    except (OSError, StoreError) as exc:
        print(f"polygo-server ratings: error: database {redacted(args.db)}: {exc}", file=sys.stderr)
        return 1
    differed = ", ".join(f"{player} in {pool}" for pool, player in report.differed[:10])
    print(f"{report.games} rated games replayed, {report.players} ratings; "
          + (f"{len(report.differed)} differed{': ' + differed if differed else ''}"
             + (" (rewritten)" if args.rebuild else "") if report.differed else "all equal to the stored ones"))
    return 1 if args.check and report.differed else 0
