"""jasiek-nkr beside chinese on large boards: µs per play on graphs of about a thousand points
(a triangular lattice, a random planar-ish graph, a 32x32 grid given as a graph) and on 19x19,
and the ratio (the target: at most 3x chinese on a 1,000-point graph).

The games are seeded random playouts made under chinese (``bench/engine.py``'s random legal
non-eye-filling games, to their end), cut where jasiek-nkr refuses a move; both presets replay
the same moves, CPU time of the whole replay divided by its plays, the best of ``--repeat``
runs, the two presets alternated. Random games on large boards leave many lone stones in atari
and ko mouths beside large strings: the kos a play touches, and the strings beside them, are
what jasiek-nkr's analysis costs. A measurement to run by hand, not a test:

    python bench/large_boards.py                 # the three graphs and 19x19, 3 games each
    python bench/large_boards.py --boards grid-32 --games 2 --repeat 5
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests" / "gorules"))

import engine  # noqa: E402
from gorules import Board, Game  # noqa: E402
from large_graphs import LARGE  # noqa: E402

BOARDS = (*LARGE, "19")


def board_for(name: str) -> Board:
    return LARGE[name]() if name in LARGE else Board.parse(name)


def replay(board: Board, rules: str, games: list[list[str]]) -> float:
    """CPU seconds of one replay of every game."""
    start = time.process_time()
    for moves in games:
        play = Game(board, rules=rules, players=2).play
        for move in moves:
            play(move)
    return time.process_time() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--boards", nargs="+", default=list(BOARDS), help="(default: %(default)s)")
    parser.add_argument("--games", type=int, default=3)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    print(f"{'board':<16}{'points':>7}{'plays':>7}{'chinese µs':>12}{'jasiek-nkr µs':>15}{'ratio':>7}")
    for name in args.boards:
        board = board_for(name)
        games = [engine.playable(board, ("chinese", "jasiek-nkr"), engine.random_game(board, "chinese", args.seed + i, 5000))
                 for i in range(args.games)]
        plays = sum(len(g) for g in games)
        best = {"chinese": float("inf"), "jasiek-nkr": float("inf")}
        for _ in range(args.repeat):
            for rules in best:
                best[rules] = min(best[rules], replay(board, rules, games))
        chinese, jasiek = (best[r] / plays * 1e6 for r in ("chinese", "jasiek-nkr"))
        print(f"{name:<16}{len(board):>7}{plays:>7}{chinese:>12.2f}{jasiek:>15.2f}{jasiek / chinese:>7.2f}", flush=True)


if __name__ == "__main__":
    main()
