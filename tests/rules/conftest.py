"""Fixtures for the engine tests.

``script``: a tiny script language for rule-text examples: moves that must be accepted, and claims.

A step is either a move string, which must be accepted, or ``(move, reason)``: the text's
claim that ``move`` is refused now for ``reason`` (checked, not played).
"""

from __future__ import annotations

import pytest

from polygo.rules import Game


def run(game: Game, steps: list) -> Game:
    for number, step in enumerate(steps, 1):
        if isinstance(step, tuple):
            move, reason = step
            assert game.why_illegal(move) == reason, (
                f"step {number}: {move!r} should be refused for {reason!r}, got {game.why_illegal(move)!r}")
        else:
            assert game.why_illegal(step) is None, (
                f"step {number}: {step!r} should be legal, got {game.why_illegal(step)!r}")
            game.play(step)
    return game


@pytest.fixture
def script():
    return run
