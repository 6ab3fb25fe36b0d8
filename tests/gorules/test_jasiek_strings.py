"""The strings the ko types read, put together from the position's chains, against the walk.

``shapes.string`` reads a string off the position's chains where the scratch board has them
(a chain that kept all its stones is a piece of the string with its breaths at hand) instead of
walking it point by point. On crowded random positions of a 32x32 grid graph, with scratch
boards made as the type analyses make them (plays with their captures, one on another, and
stones put back), every string and breath count must be the walk's, and the points read must
let a kept type go no later than the walk's would: for a whole string every point the walk
reads; for "that many breaths" the breaths named, each still a breath of the string.
"""

from __future__ import annotations

import random

import pytest

from gorules.position import EMPTY, Position
from gorules.repetition.jasiek.shapes import Scratch, play, string

from .large_graphs import grid_graph


def positions(seed: int) -> list[Position]:
    board = grid_graph(32)
    rng = random.Random(seed)
    out = []
    for _ in range(3):
        stones = [EMPTY if rng.random() < 0.3 else rng.choice([1, 2]) for _ in range(len(board))]
        pos = Position(board, 2, stones)
        for chain in pos.chains():   # no chain without a breath on a real board
            if not chain.libs:
                for p in chain.stones:
                    stones[p] = EMPTY
        out.append(Position(board, 2, stones))
    return out


def scratch_boards(pos: Position, rng: random.Random) -> list[dict[int, int]]:
    """Changes as the analyses make them: up to three plays one on another (captures and
    multi-stone suicides as ``play`` makes them), or a stone taken off and another put back."""
    nbrs = pos.board.neighbour_indices
    out: list[dict[int, int]] = [{}]
    for _ in range(30):
        board = Scratch(pos.stones)
        for _ in range(rng.randint(1, 3)):
            empty = [p for p in range(len(pos.stones)) if board[p] == EMPTY]
            after = play(board, nbrs, rng.choice(empty), rng.choice([1, 2]))
            if after is not None:
                board = after
        out.append(board.changes)
        stone = rng.choice([p for p, s in enumerate(pos.stones) if s != EMPTY])
        out.append({stone: EMPTY, rng.choice(nbrs[stone]): pos.stones[stone]})
    return out


@pytest.mark.parametrize("seed", [1, 2])
def test_strings_read_off_the_chains_are_the_walks(seed: int) -> None:
    rng = random.Random(seed)
    for pos in positions(seed):
        nbrs = pos.board.neighbour_indices
        for changes in scratch_boards(pos, rng):
            walked_board = Scratch(pos.stones, dict(changes))
            points = [p for p in range(len(pos.stones)) if walked_board[p] != EMPTY]
            for p in rng.sample(points, 40):
                walk_reads: set[int] = set()
                stones, libs = string(Scratch(pos.stones, dict(changes), walk_reads), nbrs, p)
                reads: set[int] = set()
                got_stones, got_libs = string(Scratch(pos.stones, dict(changes), reads, pos.chain), nbrs, p)
                assert sorted(got_stones) == sorted(stones) and got_libs == libs
                assert reads >= walk_reads
                for enough in (1, 2):
                    reads = set()
                    part, some = string(Scratch(pos.stones, dict(changes), reads, pos.chain), nbrs, p, enough)
                    assert len(some) == min(enough, len(libs)) and some <= libs and set(part) <= set(stones)
                    if len(some) == enough:   # the answer rests on its breaths and p
                        assert some - changes.keys() <= reads and (p in changes or p in reads)
                    else:
                        assert reads >= walk_reads
