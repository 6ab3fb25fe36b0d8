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
    python bench/large_boards.py --instructions  # instructions a play under cachegrind

Times on a shared machine move by a tenth and more between runs; ``--instructions`` counts the
machine instructions of a play instead (``bench/engine_instructions.py``'s way: a process that
replays the games 1 + 3 times less one that replays them 1 + 1 times, halved), which do not
move between runs. Needs valgrind.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests" / "rules"))

import engine  # noqa: E402
from polygo.rules import Board, Game  # noqa: E402
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


def instructions(name: str, rules: str, games: list[list[str]]) -> float:
    """Machine instructions a play of ``rules`` over ``games`` on board ``name``, under cachegrind."""
    counts = []
    with tempfile.NamedTemporaryFile("w", suffix=".json") as f:
        json.dump(games, f)
        f.flush()
        for times in (1, 3):
            done = subprocess.run(
                ["valgrind", "--tool=cachegrind", "--cache-sim=no", "--cachegrind-out-file=/dev/null",
                 sys.executable, __file__, "--replay", name, rules, f.name, str(times)],
                capture_output=True, text=True, env={**os.environ, "PYTHONHASHSEED": "0"}, check=True)
            refs = re.search(r"I\s+refs:\s+([\d,]+)", done.stderr)
            if refs is None:
                raise SystemExit(f"no instruction count from valgrind:\n{done.stderr[-2000:]}")
            counts.append(int(refs.group(1).replace(",", "")))
    return (counts[1] - counts[0]) / 2 / sum(len(g) for g in games)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--boards", nargs="+", default=list(BOARDS), help="(default: %(default)s)")
    parser.add_argument("--games", type=int, default=3)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--instructions", action="store_true", help="instructions a play (cachegrind), not time")
    args = parser.parse_args()
    unit = "instr" if args.instructions else "µs"
    print(f"{'board':<16}{'points':>7}{'plays':>7}{'chinese ' + unit:>14}{'jasiek-nkr ' + unit:>17}{'ratio':>7}")
    for name in args.boards:
        board = board_for(name)
        games = [engine.playable(board, ("chinese", "jasiek-nkr"), engine.random_game(board, "chinese", args.seed + i, 5000))
                 for i in range(args.games)]
        plays = sum(len(g) for g in games)
        if args.instructions:
            chinese, jasiek = (instructions(name, r, games) for r in ("chinese", "jasiek-nkr"))
            print(f"{name:<16}{len(board):>7}{plays:>7}{chinese:>14,.0f}{jasiek:>17,.0f}{jasiek / chinese:>7.2f}",
                  flush=True)
            continue
        best = {"chinese": float("inf"), "jasiek-nkr": float("inf")}
        for _ in range(args.repeat):
            for rules in best:
                best[rules] = min(best[rules], replay(board, rules, games))
        chinese, jasiek = (best[r] / plays * 1e6 for r in ("chinese", "jasiek-nkr"))
        print(f"{name:<16}{len(board):>7}{plays:>7}{chinese:>14.2f}{jasiek:>17.2f}{jasiek / chinese:>7.2f}", flush=True)


if __name__ == "__main__":
    if len(sys.argv) == 6 and sys.argv[1] == "--replay":   # (the process instructions() measures)
        _, _, board_name, preset, path, repeats = sys.argv
        with open(path) as f:
            recorded = json.load(f)
        on = board_for(board_name)
        for _ in range(1 + int(repeats)):
            replay(on, preset, recorded)
    else:
        main()
