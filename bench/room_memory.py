"""Memory a game holds on the server, by board: what `tracemalloc` sees allocated for N games of
the same settings (each from its own copy of the settings, as rooms read them from the store), with
M random moves each, divided by N. Graph boards are shared by the rooms on the same graph
(`server.games.board_of`); a named board (19x19) always was.

    python bench/room_memory.py
    python bench/room_memory.py --games 20 --moves 120
"""

from __future__ import annotations

import argparse
import copy
import gc
import random
import sys
import tracemalloc
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from protocol import RoomSettings  # noqa: E402
from server.games import new_game, normalize  # noqa: E402
from tests.lattices import triangular_lattice  # noqa: E402


def per_game(settings: dict, games: int, moves: int) -> float:
    """KiB allocated per game, the games kept alive while measured."""
    gc.collect()
    tracemalloc.start()
    before = tracemalloc.get_traced_memory()[0]
    kept = []
    for g in range(games):
        game = new_game(copy.deepcopy(settings))
        rng = random.Random(g)
        points = list(game.board.points)
        played = 0
        while played < moves:
            try:
                game.play(rng.choice(points))
                played += 1
            except Exception:
                continue
        kept.append(game)
    gc.collect()
    used = tracemalloc.get_traced_memory()[0] - before
    tracemalloc.stop()
    return used / games / 1024


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=10)
    parser.add_argument("--moves", type=int, default=60)
    args = parser.parse_args()
    print(f"{args.games} games of {args.moves} random moves each; KiB per game")
    for name, board in (("19x19", "19"), ("lattice 32x32 (1,024 points)", triangular_lattice(32))):
        for rules in ("chinese", "jasiek-nkr"):
            settings = normalize(RoomSettings(rules=rules, board=board, players=2))
            print(f"{name:30} {rules:12} {per_game(settings, args.games, args.moves):9.1f}")


if __name__ == "__main__":
    main()
