"""Random games from random set-ups, one property per rule family.

``test_properties.py`` starts most of its games on an empty board, where a capture seldom comes
before the second or third move of each player. Some readings only show from a crowded start: a
ko at a player's first turn (refused by ``japanese``'s ko, allowed by ``nieminen``'s N7a),
or a string already in atari beside kos of both colours (Hansen's A3'). Here every game starts
from a set-up drawn point by point on a 2x2 to 5x5 grid (the chains left without a liberty
taken off), captures are played more often than other plays, and after every move
``legal_moves()`` must agree with ``why_illegal()`` on every point and the stone verdicts with
the independent model of ``test_properties.py`` (for ``jasiek-nkr`` its suicide verdicts only).

The games are seeded, so a run checks the same games each time; ``POLYGO_SETUP_GAMES`` (games
per preset, default 40, a few seconds in all) and ``POLYGO_SETUP_SEED`` (default 0) widen the
search, e.g. ``POLYGO_SETUP_GAMES=2000 POLYGO_SETUP_SEED=7`` for some minutes. A failure names
the game's record, which ``Game.from_record`` replays.
"""

from __future__ import annotations

import json
import os
import random
from typing import Any

import pytest

from polygo.rules import PRESETS, Board, Game
from polygo.rules.position import EMPTY, Position

from .test_properties import Model, check_legal_moves, check_model, check_position

GAMES = int(os.environ.get("POLYGO_SETUP_GAMES", "40"))
SEED = int(os.environ.get("POLYGO_SETUP_SEED", "0"))
MOVES = 24


def set_up_game(rules: str, rng: random.Random) -> Game:
    """A two-player game of ``rules`` on a small grid, from a random set-up: each point empty
    or a stone of either colour, then every chain without a liberty taken off."""
    board = Board.grid(rng.randint(2, 5), rng.randint(2, 5))
    colours = [rng.choice([EMPTY, EMPTY, 1, 2]) for _ in range(len(board))]
    for chain in Position(board, 2, colours).chains():
        if not chain.libs:
            for p in chain.stones:
                colours[p] = EMPTY
    setup = {board.points[p]: colour - 1 for p, colour in enumerate(colours) if colour != EMPTY}
    options: dict[str, Any] = {}
    if PRESETS[rules].repetition.value == "hansen":
        options.update(a1=rng.choice(["basic-ko", "off"]), a3=rng.choice([True, False]),
                       keying=rng.choice(["config", "identity"]), counter=rng.choice(["immediate", "later"]))
    return Game(board, rules=rules, players=2, setup=setup, **options)


def play_and_check(g: Game, rng: random.Random) -> None:
    """Up to MOVES moves: a capture half the time there is one, a pass one time in ten, an
    appeal (Kee) one in ten where there is one; every verdict checked before each move."""
    model = Model(g)
    for _ in range(MOVES):
        check_legal_moves(g)
        check_model(g, model)
        legal = g.legal_moves()
        plays = [m for m in legal if g.board.find(m) is not None]
        if g.over or not plays:
            return
        captures = [m for m in plays if g.position.probe(g.board.index(m), g.to_move + 1).captured]
        appeals = [m for m in legal if m.startswith("appeal ")]   # Kee's
        r = rng.randrange(10)
        if r == 0:
            move = "pass"
        elif r == 1 and appeals:
            move = rng.choice(appeals)
        else:
            move = rng.choice(captures if captures and r > 4 else plays)
        played = g.play(move)
        model.record(played.seat, played.move)
        check_position(g)


@pytest.mark.parametrize("rules", sorted(PRESETS))
def test_random_set_ups_agree_with_the_model(rules: str) -> None:
    for number in range(GAMES):
        rng = random.Random(f"{rules} {SEED} {number}")
        g = set_up_game(rules, rng)
        try:
            play_and_check(g, rng)
        except AssertionError as failure:
            raise AssertionError(f"game {number}: {json.dumps(g.to_record())}") from failure
