"""The built-in bot against a uniformly random legal player: win rate and games per second.

    python bench/bot_vs_random.py [--games 200] [--size 9] [--rules chinese] [--seed 1]

The two players alternate colours from game to game; the random player picks uniformly among
`Game.legal_moves()` (passes and appeals included). A game that runs past `--max-moves` is
stopped and scored as it stands. In the marking phase both players accept at once (no dead
stones), so what is on the board is what counts. The target: the bot wins at least 90%.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from polygo.rules import PRESETS, Board, BoardError, Game  # noqa: E402

from polygo.client.builtin_bot import choose_move  # noqa: E402


def play_one(board: Board, rules: str, komi: float | None, bot_seat: int, seed: int, max_moves: int) -> tuple[bool, int]:
    """One game; returns (the bot ranked first alone, number of moves played)."""
    options = {} if komi is None else {"komi": komi}
    game = Game(board, rules=rules, players=2, **options)
    bot_rng, random_rng = random.Random(seed), random.Random(seed + 1)
    moves = 0
    while not game.over and moves < max_moves:
        seat = game.to_move
        if seat == bot_seat:
            move = choose_move(game, seat, bot_rng)
        else:
            move = random_rng.choice(game.legal_moves())
        game.play(move)
        moves += 1
    if game.phase == "scoring":
        for seat in range(2):
            if seat not in game.accepted:
                game.play("done", seat=seat)
    ranking = game.ranking()
    return ranking[bot_seat] == 1 and ranking[1 - bot_seat] == 2, moves


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--size", type=int, default=9)
    parser.add_argument("--rules", default="chinese")
    parser.add_argument("--komi", type=float, default=None, help="default: the ruleset's")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--max-moves", type=int, default=None, help="default: 6 per point")
    args = parser.parse_args(argv)
    if args.games < 1:
        parser.error("--games takes a number of games above 0")
    if args.rules not in PRESETS:
        parser.error(f"--rules takes one of {', '.join(PRESETS)}")
    try:
        board = Board.grid(args.size, args.size)
    except BoardError as exc:
        parser.error(str(exc))
    max_moves = args.max_moves or 6 * len(board.points)
    wins = total_moves = 0
    start = time.perf_counter()
    for i in range(args.games):
        won, moves = play_one(board, args.rules, args.komi, i % 2, args.seed * 100_003 + i, max_moves)
        wins += won
        total_moves += moves
    elapsed = time.perf_counter() - start
    print(f"rules {args.rules}, {args.size}x{args.size}, {args.games} games, seed {args.seed}")
    print(f"built-in bot wins {wins}/{args.games} = {100 * wins / args.games:.1f}%")
    print(f"{args.games / elapsed:.2f} games/s, {total_moves / elapsed:.0f} moves/s, "
          f"{total_moves / args.games:.0f} moves per game")


if __name__ == "__main__":
    main()
