"""The example of docs/bots.md: a complete polygo bot that plays random points but never its own eyes."""

import asyncio
import random
import sys

from polygo.client.sdk import Bot, Turn, run_bot


class RandomBot(Bot):
    name = "random"

    def choose_move(self, turn: Turn) -> str:
        game, me = turn.game, turn.seat
        stones = game.stones()

        def own_eye(point: str) -> bool:
            return all(stones.get(n) == me for n in game.board.neighbours(point))

        points = [m for m in game.legal_moves() if m in game.board and not own_eye(m)]
        return random.choice(points) if points else "pass"


if __name__ == "__main__":
    url, room = sys.argv[1], sys.argv[2]
    print(asyncio.run(run_bot(RandomBot(), url, room=room)))
