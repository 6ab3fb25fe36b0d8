"""Jasiek's ko analysis on graphs of about a thousand points, where a play must cost the kos it
touches and not the board.

Two comparisons, from seeded random set-ups crowded with kos (``large_graphs.py``'s triangular
lattice, where no two-point mouth fits, random planar-ish graph and 32x32 grid), most moves ko
stone moves:

- after every move the kept analysis (mouths, ko positions, couplings, R4's class) equals
  :func:`plain_ko_positions`, the definitions J1-J5 read over the whole board with nothing kept
  from the play before;
- every move's verdicts (``legal_turn``) and ``ko_analysis``, and a replay's ko analysis with no
  verdict asked between plays (the types left to be worked out when read), hash to the digests
  the whole-board analysis gave before the analysis was made local to the kos a play touches.
"""

from __future__ import annotations

import hashlib
import json
import random

import pytest

from polygo.rules import Game
from polygo.rules.position import EMPTY, Position
from polygo.rules.repetition.jasiek.shapes import matches

from .large_graphs import LARGE

MOVES = 40

# the whole-board analysis's digests (verdicts, ko_analysis after every move; then the replay's)
DIGESTS = {
    ("triangular", "two-point"): "5539370ce0fe9c72",
    ("random-planar", "two-point"): "d206a9d9cc0527ea",
    ("grid-32", "two-point"): "af180c078619bef8",
    ("grid-32", "reconstructed"): "0f4b8c5bb4a3d6ac",
}


def set_up_game(name: str, shapes: str, seed: int) -> tuple[Game, random.Random]:
    """A game on board ``name`` from a crowded set-up (a point empty one time in seven, else a
    stone of either colour) with sixty two-point mouths drawn into it (a lone stone S, its
    other neighbours the other colour, its breath E, E's other neighbours S's colour), the
    chains without a liberty then taken off: dozens of kos, large strings beside them."""
    board = LARGE[name]()
    rng = random.Random(seed)
    nbrs = board.neighbour_indices
    colours = [EMPTY if rng.random() < 0.15 else rng.choice([1, 2]) for _ in range(len(board))]
    for _ in range(60):
        s = rng.randrange(len(board))
        e, c = rng.choice(nbrs[s]), rng.choice([1, 2])
        colours[s], colours[e] = c, EMPTY
        for q in nbrs[s]:
            colours[q] = colours[q] if q == e else 3 - c
        for q in nbrs[e]:
            colours[q] = colours[q] if q == s else c
    for chain in Position(board, 2, colours).chains():
        if not chain.libs:
            for p in chain.stones:
                colours[p] = EMPTY
    setup = {board.points[p]: c - 1 for p, c in enumerate(colours) if c != EMPTY}
    return Game(board, rules="jasiek-nkr", players=2, setup=setup, ko_shapes=shapes), rng


def choose(g: Game, rng: random.Random, prohibited: dict[str, str]) -> str:
    """A ko stone move's point 60% of the time there is one, a pass 3%, else any empty point
    the player may play."""
    names, stones = g.board.points, g.position.stones
    kos = [p for p in g._rule.analysis.ko_at if stones[p] == EMPTY and names[p] not in prohibited]
    empty = [p for p, s in enumerate(stones) if s == EMPTY and names[p] not in prohibited]
    r = rng.random()
    if kos and r < 0.6:
        return names[rng.choice(sorted(kos))]
    return "pass" if r > 0.97 or not empty else names[rng.choice(empty)]


def lowest(stones: list[int], nbrs: tuple[tuple[int, ...], ...], p: int) -> int:
    """The lowest point of the string at ``p``: its name in a ko coupling."""
    seen, todo = {p}, [p]
    while todo:
        for q in nbrs[todo.pop()]:
            if q not in seen and stones[q] == stones[p]:
                seen.add(q)
                todo.append(q)
    return min(seen)


def plain_ko_positions(g: Game) -> dict[frozenset[int], tuple[frozenset[frozenset[int]], tuple[int, ...]]]:
    """J1-J5 over the whole board: every template matched, the normal strings beside each mouth
    by a flood fill, mouths beside the same strings (two or more, some strings) one ko position
    coupled by them; each ko position as its points -> (its mouths, its coupling's lowest points)."""
    shapes, stones = g._rule.shapes, g.position.stones
    mouths = {}
    for t in shapes.templates:
        if matches(stones, t):
            mouths.setdefault(t.points, t)
    ko_stones = {p for m in mouths for p in m if stones[p] != EMPTY}
    groups: dict[frozenset[int], list[frozenset[int]]] = {}
    for m, t in mouths.items():
        beside = frozenset(lowest(stones, shapes.nbrs, n) for n in t.out_a + t.out_b if n not in ko_stones)
        groups.setdefault(beside, []).append(m)
    out = {}
    for beside, ms in groups.items():
        if len(ms) >= 2 and beside:
            out[frozenset().union(*ms)] = (frozenset(ms), tuple(sorted(beside)))
        else:
            out.update({m: (frozenset([m]), ()) for m in ms})
    return out


def plain_class(g: Game) -> int:
    """R4's class key from scratch: the hash without the stones on the ko positions' points,
    with each of those points' union key."""
    pos, keys = g.position, g._rule.shapes.union_keys
    key = pos.hash
    for u in frozenset().union(*plain_ko_positions(g)):
        key ^= keys[u] ^ (pos._z[pos.stones[u]][u] if pos.stones[u] != EMPTY else 0)
    return key


def kept_ko_positions(g: Game) -> dict[frozenset[int], tuple[frozenset[frozenset[int]], tuple[int, ...]]]:
    stones, nbrs = g.position.stones, g._rule.shapes.nbrs
    return {k: (frozenset(m.points for m in ko.mouths), tuple(sorted(lowest(stones, nbrs, r) for r in ko.coupling)))
            for k, ko in g._rule.analysis.kos.items()}


@pytest.mark.parametrize("name", sorted(LARGE))
def test_the_kept_analysis_equals_the_definitions_read_over_the_whole_board(name: str) -> None:
    shapes = "reconstructed" if name == "grid-32" else "two-point"
    g, rng = set_up_game(name, shapes, 11)
    for _ in range(MOVES):
        assert kept_ko_positions(g) == plain_ko_positions(g)
        rule = g._rule
        kept = g.position.hash if rule.mouth_watch is not None else rule.analysis.class_key
        assert kept == plain_class(g)
        prohibited, _ = g.legal_turn()
        g.play(choose(g, rng, prohibited))


@pytest.mark.parametrize("name, shapes", sorted(DIGESTS))
def test_verdicts_on_large_graphs_are_the_whole_board_analysis_ones(name: str, shapes: str) -> None:
    g, rng = set_up_game(name, shapes, 7)
    digest = hashlib.sha256()
    moves = []
    for _ in range(MOVES):
        prohibited, _ = g.legal_turn()
        digest.update(json.dumps([sorted(prohibited.items()), g.ko_analysis()]).encode())
        moves.append(choose(g, rng, prohibited))
        g.play(moves[-1])
    replay, _ = set_up_game(name, shapes, 7)
    for move in moves:
        replay.play(move)
    digest.update(json.dumps(replay.ko_analysis()).encode())
    assert digest.hexdigest()[:16] == DIGESTS[(name, shapes)]
