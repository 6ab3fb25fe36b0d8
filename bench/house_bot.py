"""The server's house bot against the client's built-in bot: results and time per move, side by side.

    python bench/house_bot.py [--games 40] [--size 9] [--rules chinese] [--seed 1]

The house bot (`polygo/server/house/play.py`, polygo.rules only, because the server may not import polygo.client)
plays `polygo play --bots N` games; the built-in bot (`polygo/client/builtin_bot.py`) is the peer it is
measured against, in strength (games won by each, colours alternating) and in the time it takes to
choose a move. A game past `--max-moves` is scored as it stands; the marking phase is accepted at
once, so what is on the board counts.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from polygo.rules import Board, Game  # noqa: E402

from polygo.client.builtin_bot import choose_move  # noqa: E402
from polygo.server.house.play import choose  # noqa: E402

PLAYERS = {"house": choose, "builtin": choose_move}


def play_one(board: Board, rules: str, seats: tuple[str, str], seed: int, max_moves: int,
             spent: dict[str, list[float]]) -> list[int]:
    """One game with `seats[i]` playing seat i; returns the ranking."""
    game = Game(board, rules=rules, players=2)
    rngs = [random.Random(seed), random.Random(seed + 1)]
    moves = 0
    while not game.over and moves < max_moves:
        seat = game.to_move
        name = seats[seat]
        start = time.perf_counter()
        move = PLAYERS[name](game, seat, rngs[seat]) or "pass"
        spent[name].append(time.perf_counter() - start)
        game.play(move)
        moves += 1
    if game.phase == "scoring":
        for seat in range(2):
            if game.phase == "scoring":
                game.play("done", seat=seat)
    return game.ranking()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=40)
    parser.add_argument("--size", type=int, default=9)
    parser.add_argument("--rules", default="chinese")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--max-moves", type=int, default=400)
    args = parser.parse_args()
    board = Board.grid(args.size, args.size)
    wins = {"house": 0, "builtin": 0, "draw": 0}
    spent: dict[str, list[float]] = {"house": [], "builtin": []}
    for i in range(args.games):
        seats = ("house", "builtin") if i % 2 == 0 else ("builtin", "house")
        ranking = play_one(board, args.rules, seats, args.seed + 2 * i, args.max_moves, spent)
        wins["draw" if ranking[0] == ranking[1] else seats[ranking.index(1)]] += 1
    house_ms = 1000 * sum(spent["house"]) / len(spent["house"])
    builtin_ms = 1000 * sum(spent["builtin"]) / len(spent["builtin"])
    print(f"{args.games} games, {args.size}x{args.size} {args.rules}, colours alternating")
    print(f"wins: house bot {wins['house']}, built-in bot {wins['builtin']}, draws {wins['draw']}")
    print(f"time per move: house bot {house_ms:.2f} ms, built-in bot {builtin_ms:.2f} ms "
          f"(house / built-in = {house_ms / builtin_ms:.2f})")


if __name__ == "__main__":
    main()
