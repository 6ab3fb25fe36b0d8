"""Ko mouths (NKR J1) and a scratch board to try plays on.

The text defines a ko mouth by shape diagrams that are lost. polygo reads a mouth structurally
(spec J-A1): a connected set M of points split into two sides, every outside neighbour of one
side of colour X and of the other of colour Y != X, the stones of the X-walled side all Y and
of the Y-walled side all X, with at least one stone and one empty point in M (J-A2). Points
cut off by the edge simply have fewer outside neighbours, so the edge clause comes for free.

- Tier 1 (always): every pair of adjacent points, split one and one: the two-point mouth of
  the basic ko, certain and structural on any board graph.
- Tier 2 (``ko_shapes="reconstructed"``): the 3- and 4-point shapes the text names: 3 in a row
  (2+1), 4 in a row (2+2, 3+1), the bent 4 and the 2x2 block (3+1). On grids and tori they
  are placed by coordinates; on other graphs "in a row" is an induced path and the block an
  induced 4-cycle. A reconstruction that cannot be checked against the lost diagrams.

Analyses must also look at positions that are not on the board (a play and its answer), and
must know which points they read, so that a cached verdict is kept until one of those points
changes: :class:`Scratch` is a stones list with changes on top and an optional read log.
"""

from __future__ import annotations

import random
from itertools import islice
from typing import Any, NamedTuple, Sequence

EMPTY = 0
_MISSING = -1


class Scratch:
    """A board to try plays on: ``base`` (never changed) plus ``changes`` (not changed once
    strings are read off it); reads of ``base`` points are added to ``reads`` when it is a set.
    ``chains``: the position's chains, ``base`` being its stones (what :func:`string` reads
    strings off)."""

    __slots__ = ("base", "changes", "reads", "chains", "_pieces")

    def __init__(self, base: Sequence[int], changes: dict[int, int] | None = None,
                 reads: set[int] | None = None, chains: Sequence[Any] | None = None):
        self.base = base
        self.changes = {} if changes is None else changes
        self.reads = reads
        self.chains = chains
        self._pieces: tuple[set[Any], dict[Any, list[int]]] | None = None

    def pieces(self, nbrs: Sequence[Sequence[int]]) -> tuple[set[Any], dict[Any, list[int]]]:
        """The chains that lost a stone to the changes, and each chain beside a
        changed point -> those points (what :func:`string` puts strings together from; worked
        out once for the many strings read off one board)."""
        if self._pieces is None:
            chains, base, changes = self.chains, self.base, self.changes
            near: dict[Any, list[int]] = {}
            for x in changes:
                for r in nbrs[x]:
                    d = chains[r]   # (a changed point's chain, if any, lost a stone)
                    if d is not None:
                        near.setdefault(d, []).append(x)
            self._pieces = ({chains[q] for q in changes if base[q] != EMPTY}, near)
        return self._pieces

    def __getitem__(self, i: int) -> int:
        v = self.changes.get(i, _MISSING)
        if v != _MISSING:
            return v
        if self.reads is not None:
            self.reads.add(i)
        return self.base[i]

    def with_changes(self, more: dict[int, int]) -> "Scratch":
        return Scratch(self.base, {**self.changes, **more}, self.reads, self.chains)

    def same_as(self, other: "Scratch") -> bool:
        """Same stones everywhere (both boards must share ``base``)."""
        return all(self[k] == other[k] for k in self.changes.keys() | other.changes.keys())


def string(board: Scratch, nbrs: Sequence[Sequence[int]], p: int, enough: int = 0) -> tuple[list[int], set[int]]:
    """The stones of the string at ``p`` and its breaths (liberties).

    With ``enough``, the search stops once it has found that many breaths (then the stones
    are only part of the string): a question like "is it in atari?" reads few points, and a
    verdict that read few points is kept longer. The type analyses spend most of their time
    here, so it reads the scratch board's parts itself (what ``Scratch.__getitem__`` does,
    without a method call per point).

    The scratch board has the position's chains (what ``base`` is the stones of), and the
    string is put together from them instead of walked (on a large board the strings beside a ko are hundreds of stones): a
    chain none of whose stones changed is a piece of the string with its breaths at hand (those
    not changed, and the changed points beside it that are empty now), and it meets the rest of
    the string only at changed points (two chains of one colour never touch). Changed points,
    and the stones of chains that lost a stone, are looked at one by one.

    The points read (the analysis keeps a type until a play changes one of them): for a whole
    string, every neighbour of its stones. Where ``enough`` breaths are found first, the
    breaths found and one stone of each chain on the way there (the one it was reached by):
    while none of those changes, no chain of them was taken off (a chain goes whole), so the
    string still holds those breaths."""
    changes, base, reads, chains = board.changes, board.base, board.reads, board.chains
    if not changes and base[p] != EMPTY:   # the position's own chain
        c = chains[p]
        if enough and len(c.libs) >= enough:
            libs = set(islice(c.libs, enough))
            if reads is not None:
                reads.add(p)
                reads.update(libs)
            return list(c.stones), libs
        if reads is not None:
            reads.add(p)
            reads.update(*map(nbrs.__getitem__, c.stones))
        return list(c.stones), set(c.libs)
    colour = changes.get(p, _MISSING)
    if colour == _MISSING:
        if reads is not None:
            reads.add(p)
        colour = base[p]
    touched, near = board.pieces(nbrs)   # chains that lost a stone; chain -> changed points beside
    stones: list[int] = []
    libs: set[int] = set()
    whole: list[Any] = []           # the untouched chains of the string
    seen = {p}                      # the points looked at one by one
    first = None if p in changes else chains[p]
    met = {first}                   # the chains met
    todo = [p]
    while todo:
        q = todo.pop()
        c = None if q in changes else chains[q]
        if c is not None and c not in touched:
            whole.append(c)
            stones.extend(c.stones)
            libs.update(c.libs.difference(changes))
            for x in near.get(c, ()):
                v = changes[x]
                if v == EMPTY:
                    libs.add(x)
                elif v == colour and x not in seen:
                    seen.add(x)
                    todo.append(x)
        else:
            stones.append(q)
            for r in nbrs[q]:
                s = changes.get(r, _MISSING)
                if s == _MISSING:
                    if reads is not None:
                        reads.add(r)
                    s = base[r]
                if s == EMPTY:
                    libs.add(r)
                elif s == colour and r not in seen:
                    seen.add(r)
                    d = None if r in changes else chains[r]
                    if d is None or d in touched:
                        todo.append(r)
                    elif d not in met:   # a chain: its stones all at once
                        met.add(d)
                        todo.append(r)
        if enough and len(libs) >= enough:
            libs = set(islice(libs, enough))
            if reads is not None:   # (each chain's stone it was reached by is read already)
                reads.update(libs)
            return stones, libs
    if reads is not None:
        for c in whole:
            reads.update(*map(nbrs.__getitem__, c.stones))
    return stones, libs


def play(board: Scratch, nbrs: Sequence[Sequence[int]], p: int, colour: int) -> Scratch | None:
    """The board after ``colour`` plays on empty ``p``: captures, then a multi-stone suicide
    removes its own string; None for a single-stone suicide, which is refused (NKR 1.4)."""
    after = board.with_changes({p: colour})
    removed: dict[int, int] = {}
    for q in nbrs[p]:
        s = after[q]
        if s != EMPTY and s != colour and q not in removed:
            stones, libs = string(after, nbrs, q, 1)
            if not libs:
                removed.update(dict.fromkeys(stones, EMPTY))
    if removed:
        return after.with_changes(removed)
    stones, libs = string(after, nbrs, p, 1)
    if not libs:
        if len(stones) == 1:
            return None
        return after.with_changes(dict.fromkeys(stones, EMPTY))
    return after


class Template(NamedTuple):
    """A place a ko mouth may be: its points split into two sides, and each side's outside
    neighbours (its walls)."""

    points: frozenset[int]
    side_a: tuple[int, ...]
    side_b: tuple[int, ...]
    out_a: tuple[int, ...]
    out_b: tuple[int, ...]
    row4: bool              # 4 points in a row (NKR J8's special clause)


def matches(board: "Scratch | Sequence[int]", t: Template) -> bool:
    """Is the template a ko mouth on this board? X is the colour walling side a."""
    x = 0
    for n in t.out_a:
        v = board[n]
        if v == EMPTY or (x and v != x):
            return False
        x = v
    for n in t.out_b:
        v = board[n]
        if v == EMPTY:
            return False
        v = 3 - v
        if x and v != x:
            return False
        x = v
    stone = empty = False
    for a in t.side_a:
        v = board[a]
        if v == EMPTY:
            empty = True
            continue
        stone = True
        v = 3 - v
        if x and v != x:
            return False
        x = v
    for b in t.side_b:
        v = board[b]
        if v == EMPTY:
            empty = True
            continue
        stone = True
        if x and v != x:
            return False
        x = v
    return stone and empty


class Shapes:
    """The mouth templates of one board and catalogue, indexed by point."""

    def __init__(self, nbrs: Sequence[Sequence[int]], templates: list[Template]):
        self.nbrs = nbrs
        self.templates = templates
        n = len(nbrs)
        self.containing: list[list[int]] = [[] for _ in range(n)]  # templates with p in M
        self.near: list[list[int]] = [[] for _ in range(n)]        # templates with p in M or its walls
        self.area: list[frozenset[int]] = []                    # per template: M and its walls
        self.pairs: list[dict[int, int]] = [{} for _ in range(n)]   # p -> q -> the template {p, q}
        for i, t in enumerate(templates):
            for p in t.points:
                self.containing[p].append(i)
            if len(t.points) == 2:
                p, q = t.points
                self.pairs[p][q] = self.pairs[q][p] = i
            area = t.points | frozenset(t.out_a) | frozenset(t.out_b)
            self.area.append(area)
            for p in area:
                self.near[p].append(i)
        # Tier 1 alone: the mouths a change may make are found from the chains (Analysis.placed)
        self.pairs_only = all(len(t.points) == 2 for t in templates)
        self.rows4 = any(t.row4 for t in templates)   # J8's 4-in-a-row clause can apply
        # R4's key of each point as a point of a ko position (Analysis._class): random 64-bit
        # keys, seeded (as the position's own, apart from them) so classes agree between processes
        rng = random.Random(n * 1_000_003 + 999_983)
        self.union_keys = [rng.getrandbits(64) for _ in range(n)]

    def in_mouth(self, board: Scratch, p: int) -> bool:
        """Is ``p`` a point of some ko mouth on ``board``?"""
        if self.pairs_only:
            return self._in_pair(board, p)
        templates = self.templates
        return any(matches(board, templates[i]) for i in self.containing[p])

    def _in_pair(self, board: Scratch, p: int) -> bool:
        """:meth:`in_mouth` with two-point templates alone, read off the neighbours instead of
        matching the templates through ``p``: a two-point mouth is a stone S whose other
        neighbours are all the other colour and an empty E whose other neighbours are all S's
        colour (the readable path of a play in a ko position and the type analyses ask it)."""
        nbrs = self.nbrs
        v = board[p]
        if v == EMPTY:   # p as E: beside a stone S, and the rest of its neighbours S's colour
            stones = [board[q] for q in nbrs[p]]
            if not stones or EMPTY in stones or stones.count(stones[0]) != len(stones):
                return False
            walls = 3 - stones[0]
            return any(all(board[r] == walls for r in nbrs[q] if r != p) for q in nbrs[p])
        breath = -1     # p as S: its one empty neighbour is E, the others the other colour
        for q in nbrs[p]:
            w = board[q]
            if w == EMPTY:
                if breath >= 0:
                    return False
                breath = q
            elif w == v:
                return False
        return breath >= 0 and all(board[r] == v for r in nbrs[breath] if r != p)


    def stone_in_pair(self, stones: Sequence[int], changes: dict[int, int], p: int, colour: int) -> bool:
        """:meth:`_in_pair` for the stone ``colour`` has on ``p`` once ``changes`` are made to
        ``stones`` (a play's facts ask it of the play's own stone), read off the two directly:
        through a scratch board it is a method call a point. A lone stone whose one breath E
        has every other neighbour of its colour."""
        nbrs = self.nbrs
        breath = -1
        for q in nbrs[p]:
            w = changes.get(q, stones[q])
            if w == EMPTY:
                if breath >= 0:
                    return False
                breath = q
            elif w == colour:
                return False
        if breath < 0:
            return False
        for r in nbrs[breath]:
            if r != p and changes.get(r, stones[r]) != colour:
                return False
        return True

def _template(nbrs: Sequence[Sequence[int]], a: Sequence[int], b: Sequence[int], row4: bool = False) -> Template:
    points = frozenset(a) | frozenset(b)
    out_a = tuple(sorted({n for p in a for n in nbrs[p] if n not in points}))
    out_b = tuple(sorted({n for p in b for n in nbrs[p] if n not in points}))
    return Template(points, tuple(sorted(a)), tuple(sorted(b)), out_a, out_b, row4)


def two_point_templates(nbrs: Sequence[Sequence[int]]) -> list[Template]:
    return [_template(nbrs, (p,), (q,)) for p in range(len(nbrs)) for q in nbrs[p] if p < q]


# Tier 2 on coordinates: cells of each shape in order, and its splits (indices of side a).
_SHAPES = {
    "row3": ([(0, 0), (1, 0), (2, 0)], [(0, 1)]),
    "row4": ([(0, 0), (1, 0), (2, 0), (3, 0)], [(0, 1), (0, 1, 2), (0,)]),
    "bent4": ([(0, 0), (1, 0), (2, 0), (2, 1)], [(0, 1, 2), (0,)]),
    "block": ([(0, 0), (1, 0), (1, 1), (0, 1)], [(0,), (1,), (2,), (3,)]),
}


def _symmetries(cells: list[tuple[int, int]]) -> list[list[tuple[int, int]]]:
    out = []
    for sx in (1, -1):
        for sy in (1, -1):
            for swap in (False, True):
                out.append([((y * sx, x * sy) if swap else (x * sx, y * sy)) for x, y in cells])
    return out


def grid_templates(nbrs: Sequence[Sequence[int]], coords: dict[int, tuple[int, int]], width: int,
                   height: int, wrap: bool) -> list[Template]:
    at = {xy: i for i, xy in coords.items()}
    seen: set[tuple[frozenset[int], frozenset[int]]] = set()
    out = []
    for name, (cells, splits) in _SHAPES.items():
        for shape in _symmetries(cells):
            for (x0, y0) in list(at):
                placed = []
                for dx, dy in shape:
                    x, y = x0 + dx, y0 + dy
                    if wrap:
                        x, y = x % width, y % height
                    placed.append(at.get((x, y)))
                if None in placed or len(set(placed)) != len(placed):
                    continue
                for split in splits:
                    a = [placed[i] for i in split]
                    b = [p for i, p in enumerate(placed) if i not in split]
                    key = (frozenset(placed), frozenset(a))
                    if key in seen or (frozenset(placed), frozenset(b)) in seen:
                        continue
                    seen.add(key)
                    out.append(_template(nbrs, a, b, row4=name == "row4"))
    return out


def graph_templates(nbrs: Sequence[Sequence[int]]) -> list[Template]:
    """Tier 2 on a graph without a grid's geometry: induced paths of 3 and 4 points ("in a
    row") and induced 4-cycles ("block"), with the same splits."""
    adj = [set(n) for n in nbrs]
    out, seen = [], set()

    def add(a: Sequence[int], b: Sequence[int], row4: bool = False) -> None:
        key = frozenset([frozenset(a), frozenset(b)])
        if key not in seen:
            seen.add(key)
            out.append(_template(nbrs, a, b, row4))

    for b in range(len(nbrs)):
        for a in adj[b]:
            for c in adj[b]:
                if a < c and c not in adj[a]:
                    add((a, b), (c,))
                    add((a,), (b, c))
    for b in range(len(nbrs)):
        for c in adj[b]:
            for a in adj[b] - {c}:
                for d in adj[c] - {b, a}:
                    if c in adj[a] or d in adj[b]:
                        continue
                    if d in adj[a]:
                        if a < c:  # an induced 4-cycle a-b-c-d: each point alone against the rest
                            for single in (a, b, c, d):
                                add((single,), tuple(p for p in (a, b, c, d) if p != single))
                        continue
                    add((a, b), (c, d), True)
                    add((a, b, c), (d,), True)
                    add((a,), (b, c, d), True)
    return out


_cache: dict[tuple, Shapes] = {}
_CACHED_BOARDS = 64   # a server with many custom graph boards keeps only the recent ones
# the same, by the Board object itself: the key above hashes every point's name and neighbours
# (a sixth of a new game's cost); an entry holds its board, so its id is not reused meanwhile
_by_board: dict[tuple[int, bool], tuple[object, Shapes]] = {}


def shapes_for(board, reconstructed: bool) -> Shapes:
    """The templates of ``board`` (a polygo.rules Board), built once per board and catalogue."""
    hit = _by_board.get((id(board), reconstructed))
    if hit is not None:
        return hit[1]
    nbrs = board.neighbour_indices
    key = (board.points, nbrs, reconstructed)
    shapes = _cache.get(key)
    if shapes is None:
        templates = two_point_templates(nbrs)
        if reconstructed:
            if board.kind in ("grid", "torus") and board.coords:
                coords = {board.exact_index[name]: (int(x), int(y)) for name, (x, y) in board.coords.items()}
                templates += grid_templates(nbrs, coords, board.width, board.height, board.kind == "torus")
            else:
                templates += graph_templates(nbrs)
        shapes = _cache[key] = Shapes(nbrs, templates)
        while len(_cache) > _CACHED_BOARDS:
            del _cache[next(iter(_cache))]
    _by_board[(id(board), reconstructed)] = (board, shapes)
    while len(_by_board) > _CACHED_BOARDS:
        del _by_board[next(iter(_by_board))]
    return shapes
