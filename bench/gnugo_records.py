"""Write the GNU Go self-play records that ``bench/engine.py --records`` times.

Random playouts flatter the engine (few real kos, small chains early on); real games are the
measure. GNU Go plays itself at level 0 with a fixed seed per game, so the records are
reproducible where the same GNU Go is installed; they are committed as ``bench/data/gnugo-<size>.txt``,
one game a line, moves separated by spaces:

    python bench/gnugo_records.py                   # 8 games each of 9x9 and 19x19
    python bench/gnugo_records.py --sizes 19 --games 2
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from engine import GNUGO, gnugo_game  # noqa: E402

DATA = Path(__file__).resolve().parent / "data"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[9, 19])
    parser.add_argument("--games", type=int, default=8)
    parser.add_argument("--cap", type=int, default=600, help="plays per game at most")
    args = parser.parse_args()
    if GNUGO is None:
        parser.error("GNU Go is not installed (apt-get install gnugo)")
    DATA.mkdir(exist_ok=True)
    for size in args.sizes:
        games = [gnugo_game(size, seed, args.cap) for seed in range(1, args.games + 1)]
        path = DATA / f"gnugo-{size}.txt"
        path.write_text("".join(" ".join(moves) + "\n" for moves in games))
        print(f"{path}: {len(games)} games, {sum(map(len, games))} moves")


if __name__ == "__main__":
    main()
