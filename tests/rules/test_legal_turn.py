"""``Game.legal_turn`` probes only suspect points; it must say what asking every point says.

Seeded random games on boards small enough for captures, kos and repeated positions, under
every preset, compared at every position with ``why_illegal`` asked of each empty point.
"""

from __future__ import annotations

import random

import pytest

from polygo.rules import PRESETS, Board, Game


def every_point(g: Game) -> dict[str, str]:
    """The slow answer: every empty point asked on its own."""
    seat = g.to_move
    out = {}
    for point in g.board.points:
        if g.stone_at(point) is None:
            reason = g.why_illegal(point, seat)
            if reason is not None:
                out[point] = reason
    return out


@pytest.mark.parametrize("spec", ["5", "torus:4x4", "hex5"])
@pytest.mark.parametrize("rules", sorted(PRESETS))
def test_legal_turn_agrees_with_every_point(rules: str, spec: str) -> None:
    board = Board.parse(spec)
    for seed in range(3):
        rng = random.Random(seed)
        g = Game(board, rules=rules, players=2)
        for _ in range(150):
            if g.to_move is None:
                break
            prohibited, words = g.legal_turn()
            assert prohibited == every_point(g)
            assert list(prohibited) == sorted(prohibited, key=board.index)
            legal = g.legal_moves()
            assert legal[len(legal) - len(words):] == words
            stones = [m for m in legal if m not in words]
            assert set(stones) == {p for p in board.points if g.stone_at(p) is None} - set(prohibited)
            g.play(rng.choice(legal) if rng.random() < 0.95 else "pass")
