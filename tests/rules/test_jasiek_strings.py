"""The strings the ko types read, put together from the position's chains, against a walk.

``shapes.string`` reads a string off the position's chains (a chain that kept all its stones
is a piece of the string with its breaths at hand) instead of walking it point by point. On
crowded random positions of a 32x32 grid graph, with scratch boards made as the type analyses
make them (plays with their captures, one on another, and stones moved), every string and
breath count must be the walk's, and the points read must let a kept type go no later than the
walk's would: for a whole string every neighbour of its stones; for "that many breaths" the
breaths named and the string's point.
"""

from __future__ import annotations

import random

import pytest

from polygo.rules.position import EMPTY, Position
from polygo.rules.repetition.jasiek.shapes import Scratch, play, string

from .large_graphs import grid_graph


def walk(stones: list[int], changes: dict[int, int], nbrs: tuple[tuple[int, ...], ...],
         p: int) -> tuple[set[int], set[int], set[int]]:
    """The string at ``p`` flooded point by point: its stones, breaths, and the points of the
    position (not changed) next to its stones."""
    at = {**dict(enumerate(stones)), **changes}
    found, breaths, todo = {p}, set(), [p]
    while todo:
        for r in nbrs[todo.pop()]:
            if at[r] == EMPTY:
                breaths.add(r)
            elif at[r] == at[p] and r not in found:
                found.add(r)
                todo.append(r)
    return found, breaths, {r for q in found for r in nbrs[q] if r not in changes}


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
        board = Scratch(pos.stones, chains=pos.chain)
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
            points = [p for p in range(len(pos.stones)) if changes.get(p, pos.stones[p]) != EMPTY]
            for p in rng.sample(points, 40):
                stones, libs, next_to = walk(pos.stones, changes, nbrs, p)
                reads: set[int] = set()
                got_stones, got_libs = string(Scratch(pos.stones, dict(changes), reads, pos.chain), nbrs, p)
                assert sorted(got_stones) == sorted(stones) and got_libs == libs
                assert reads >= next_to
                for enough in (1, 2):
                    reads = set()
                    part, some = string(Scratch(pos.stones, dict(changes), reads, pos.chain), nbrs, p, enough)
                    assert len(some) == min(enough, len(libs)) and some <= libs and set(part) <= stones
                    if len(some) == enough:   # the answer rests on its breaths and p
                        assert some - changes.keys() <= reads and (p in changes or p in reads)
                    else:
                        assert reads >= next_to
