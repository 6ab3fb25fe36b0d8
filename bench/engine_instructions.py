"""Machine instructions a move of ``Game.play`` under cachegrind, beside sgfmill's ``Board.play``
over the same stone plays of the committed GNU Go records (`bench/engine.py --records`' games).

Times on this shared machine move by a tenth between runs of the same code; instruction counts do
not move at all (``PYTHONHASHSEED=0``), so they judge a change of 0.3% that CPU-time ratios cannot.
Each figure is the difference between a process that replays the records 1 + 5 times and one that
replays them 1 + 1 times, over 4 replays: start-up and the first replay drop out. An instruction
ratio is not the time ratio the targets are stated in (cache misses and mispredicted
branches cost time too): `bench/engine.py` stays the measure, this one the level.

    python bench/engine_instructions.py                                  # every preset, 19x19 and 9x9
    python bench/engine_instructions.py --rules japanese hansen-sst --boards 19

Needs valgrind (Debian's `valgrind` package) and sgfmill.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import engine  # noqa: E402
from polygo.rules.ruleset import PRESETS  # noqa: E402

PEER = "sgfmill"


def replay(rules: str, spec: str, times: int) -> int:
    """Play the records ``1 + times`` times (sgfmill's stone plays for ``rules`` "sgfmill"); the
    number of moves in one replay."""
    board = engine.Board.parse(spec)
    games = [engine.playable(board, (rules if rules != PEER else "chinese",), moves)
             for moves in engine.recorded_games(board.width, 6)]
    run = engine.sgfmill_run(board.width, games) if rules == PEER else engine.play_run(board, rules, games)
    if run is None:
        raise SystemExit("sgfmill is not installed (pip install sgfmill)")
    for _ in range(1 + times):
        run()
    return sum(len(engine.sgfmill_moves(g)) if rules == PEER else len(g) for g in games)


def instructions(rules: str, spec: str, times: int) -> tuple[int, int]:
    """Instructions of a replaying process under cachegrind, and the moves of one replay."""
    done = subprocess.run(
        ["valgrind", "--tool=cachegrind", "--cache-sim=no", "--cachegrind-out-file=/dev/null",
         sys.executable, __file__, "--replay", rules, spec, str(times)],
        capture_output=True, text=True, env={**os.environ, "PYTHONHASHSEED": "0"}, check=True)
    refs = re.search(r"I\s+refs:\s+([\d,]+)", done.stderr)
    if refs is None:
        raise SystemExit(f"no instruction count from valgrind:\n{done.stderr[-2000:]}")
    return int(refs.group(1).replace(",", "")), int(done.stdout.split()[-1])


def per_move(rules: str, spec: str) -> float:
    once, moves = instructions(rules, spec, 1)
    five, _ = instructions(rules, spec, 5)
    return (five - once) / 4 / moves


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rules", nargs="*", default=list(PRESETS))
    parser.add_argument("--boards", nargs="*", default=["19", "9"])
    args = parser.parse_args()
    print(f"{'board':<6} {'rules':<13} {'instructions/move':>17} {PEER + '/play':>13} {'ratio':>6}")
    for spec in args.boards:
        peer = per_move(PEER, spec)
        for rules in args.rules:
            mine = per_move(rules, spec)
            print(f"{spec:<6} {rules:<13} {mine:17,.0f} {peer:13,.0f} {mine / peer:6.2f}", flush=True)


if __name__ == "__main__":
    if len(sys.argv) == 5 and sys.argv[1] == "--replay":
        print(replay(sys.argv[2], sys.argv[3], int(sys.argv[4])))
    else:
        main()
