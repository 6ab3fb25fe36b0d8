"""The built-in bot behind the SDK: `polygo bot --builtin` and the opponents of `polygo play --bots N`."""

from __future__ import annotations

import random

from polygo.client.builtin_bot import choose_move
from polygo.client.sdk import Bot, Turn


class BuiltinBot(Bot):
    """`builtin_bot.choose_move` as an SDK bot: any board, any number of players, every ruleset."""

    name = "builtin"

    def __init__(self, seed: int | None = None) -> None:
        self.rng = random.Random(seed)

    def choose_move(self, turn: Turn) -> str:
        return choose_move(turn.game, turn.seat, self.rng) or "pass"
