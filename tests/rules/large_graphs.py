"""Graph boards of about a thousand points, for Jasiek's ko analysis on large boards
(tests/rules/test_jasiek_large_boards.py, bench/large_boards.py): a triangular lattice, a
random planar-ish graph and a 32x32 grid given as a graph (a grid board stops at 25x25)."""

from __future__ import annotations

import random

from polygo.rules import Board
from tests.lattices import triangular_lattice


def _name(x: int, y: int) -> str:
    return f"p{x}_{y}"


def grid_graph(n: int = 32) -> Board:
    names = [_name(x, y) for y in range(n) for x in range(n)]
    edges = [(_name(x, y), _name(x + 1, y)) for y in range(n) for x in range(n - 1)]
    edges += [(_name(x, y), _name(x, y + 1)) for y in range(n - 1) for x in range(n)]
    return Board(names, edges)


def triangular(n: int = 32) -> Board:
    """An n x n grid with one diagonal in every cell: six neighbours inside."""
    return Board.from_json(triangular_lattice(n))


def random_planar(n: int = 1000, seed: int = 3) -> Board:
    """Seeded random points in the unit square, each joined to its three nearest: mostly planar,
    degrees from 3 to about 7."""
    rng = random.Random(seed)
    xy = [(rng.random(), rng.random()) for _ in range(n)]
    edges: set[tuple[int, int]] = set()
    for i, (x, y) in enumerate(xy):
        near = sorted(range(n), key=lambda j: (xy[j][0] - x) ** 2 + (xy[j][1] - y) ** 2)[1:4]
        edges.update((min(i, j), max(i, j)) for j in near)
    return Board([f"n{i}" for i in range(n)], [(f"n{a}", f"n{b}") for a, b in sorted(edges)])


LARGE = {"triangular": triangular, "random-planar": random_planar, "grid-32": grid_graph}
