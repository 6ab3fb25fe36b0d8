"""Stones on a board, with chains and liberties kept up to date play by play.

A legality check must cost microseconds, not a scan of the board: every chain keeps its
stones, its liberties and its share of the Zobrist hash, so that :meth:`Position.probe`
can say what a stone play would capture, whether it would be suicide and what the new
position's hash would be without changing anything.
"""

from __future__ import annotations

import random
from typing import NamedTuple

from .board import Board

EMPTY = 0

_zobrist_tables: dict[tuple[int, int], list[list[int]]] = {}


def zobrist_table(points: int, colours: int) -> list[list[int]]:
    """Random 64-bit keys per (colour, point); seeded, so hashes agree between processes."""
    key = (points, colours)
    table = _zobrist_tables.get(key)
    if table is None:
        rng = random.Random(points * 1_000_003 + colours)
        table = [[0] * points] + [[rng.getrandbits(64) for _ in range(points)] for _ in range(colours)]
        _zobrist_tables[key] = table
    return table


class Chain:
    """A maximal connected group of one colour's stones (Kee rules 4-5)."""

    __slots__ = ("colour", "stones", "libs", "hash")

    def __init__(self, colour: int, stones: list[int], libs: set[int], zhash: int):
        self.colour = colour
        self.stones = stones
        self.libs = libs
        self.hash = zhash


def join(chain: list[Chain | None], own: list[Chain], p: int, key: int) -> Chain:
    """The stone on ``p`` (Zobrist key ``key``) joins the chains ``own``: the longest takes it
    and the others' stones, hashes and liberties (``p`` is still among those); ``chain`` is
    the position's point -> chain list."""
    merged = own[0]
    for c in own:
        if len(c.stones) > len(merged.stones):
            merged = c
    merged.stones.append(p)
    merged.hash ^= key
    libs = merged.libs
    for c in own:
        if c is not merged:
            merged.stones.extend(c.stones)
            libs |= c.libs
            merged.hash ^= c.hash
            for s in c.stones:
                chain[s] = merged
    return merged


class Probe(NamedTuple):
    """What a stone play would do, computed without playing it.

    The last three fields are what :meth:`Position.place` needs, so that a play checked by a
    probe is applied without looking at its neighbours a second time.
    """

    captured: list[Chain]   # opponent chains whose last liberty it takes
    suicide: bool           # after the captures, its own chain has no liberty
    hash: int               # hash of the position after the play (and any suicide)
    own: list[Chain]        # the player's chains it joins
    others: list[Chain]     # opponent chains it touches without capturing them
    empties: list[int]      # its empty neighbours


# Probe's own constructor is a Python function; a probe is built for every legality check.
_new_probe = tuple.__new__


class Position:
    """Whose stone is on each point; colours are 1..N (seat + 1), 0 is empty."""

    __slots__ = ("board", "stones", "chain", "hash", "freed", "_z", "_nbrs", "_dirty", "_cramped", "_short")

    def __init__(self, board: Board, colours: int, stones: list[int] | None = None):
        self.board = board
        self._nbrs = board.neighbour_indices
        self._z = zobrist_table(len(board), colours)
        self.stones = list(stones) if stones is not None else [EMPTY] * len(board)
        # per colour, the points a stone of that colour was taken off since the set-up: only there
        # can a play that captures nothing bring back an earlier board (see :meth:`suspects`)
        self.freed: list[set[int]] = [set() for _ in range(colours + 1)]
        # kept for :meth:`suspects`, brought up to date around the points changed since its last
        # call (a list: the quick path appends to it on every stone play, cheaper than a set's add)
        self._dirty: list[int] = []
        self._cramped: set[int] = set()   # empty points with no empty neighbour
        self._short: set[int] = set()     # the only liberty of some chain
        self.chain: list[Chain | None] = [None] * len(board)
        self.hash = 0
        self._rebuild()

    def _rebuild(self) -> None:
        """Chains, liberties and hash from the stones alone (after setup or a roll-back)."""
        stones, nbrs, z = self.stones, self._nbrs, self._z
        self.chain = [None] * len(stones)
        self._dirty = list(range(len(stones)))
        self.hash = 0
        for start, colour in enumerate(stones):
            if colour == EMPTY or self.chain[start] is not None:
                continue
            chain = Chain(colour, [start], set(), 0)
            self.chain[start] = chain
            todo = [start]
            while todo:
                p = todo.pop()
                chain.hash ^= z[colour][p]
                for q in nbrs[p]:
                    s = stones[q]
                    if s == EMPTY:
                        chain.libs.add(q)
                    elif s == colour and self.chain[q] is None:
                        self.chain[q] = chain
                        chain.stones.append(q)
                        todo.append(q)
            self.hash ^= chain.hash

    def copy(self) -> "Position":
        """An independent position; the chains are cloned, which is cheaper than rebuilding them."""
        other = object.__new__(Position)
        other.board, other._nbrs, other._z = self.board, self._nbrs, self._z
        other.stones = self.stones[:]
        other.hash = self.hash
        other.freed = [set(points) for points in self.freed]
        other._dirty, other._cramped, other._short = self._dirty[:], set(self._cramped), set(self._short)
        chain = self.chain[:]
        clones: dict[int, Chain] = {}
        for p, c in enumerate(chain):
            if c is not None:
                clone = clones.get(id(c))
                if clone is None:
                    clone = clones[id(c)] = Chain(c.colour, c.stones[:], set(c.libs), c.hash)
                chain[p] = clone
        other.chain = chain
        return other

    def chains(self) -> list[Chain]:
        seen: dict[int, Chain] = {}
        for c in self.chain:
            if c is not None:
                seen.setdefault(id(c), c)
        return list(seen.values())

    def probe(self, p: int, colour: int) -> Probe:
        """The effect of ``colour`` playing on empty point ``p``, without playing it."""
        chain = self.chain
        captured: list[Chain] = []
        own: list[Chain] = []
        others: list[Chain] = []
        empties: list[int] = []
        for q in self._nbrs[p]:
            c = chain[q]
            if c is None:
                empties.append(q)
            elif c.colour == colour:
                if c not in own:
                    own.append(c)
            elif len(c.libs) == 1:
                if c not in captured:
                    captured.append(c)
            elif c not in others:
                others.append(c)
        key = self._z[colour][p]
        h = self.hash ^ key
        for c in captured:
            h ^= c.hash
        suicide = not empties and not captured
        if suicide:
            for c in own:
                if len(c.libs) != 1:
                    suicide = False
                    break
            else:
                h ^= key
                for c in own:
                    h ^= c.hash
        return _new_probe(Probe, (captured, suicide, h, own, others, empties))

    def place(self, p: int, colour: int, probe: Probe | None = None) -> list[Chain]:
        """Play ``colour`` on empty ``p``: captures (Kee rule 8), then suicide (rule 9).

        ``probe`` must be this position's probe of the same play, if given. Returns the chains
        removed: opponents' captured chains, or the player's own chain if the play was suicide
        (usually none at all).
        """
        if probe is None:
            probe = self.probe(p, colour)
        captured, suicide, _, own, others, empties = probe
        chain = self.chain
        key = self._z[colour][p]
        for c in others:
            c.libs.discard(p)
        if own:
            merged = join(chain, own, p, key)
            merged.libs.discard(p)
            merged.libs.update(empties)
        else:
            merged = Chain(colour, [p], set(empties), key)
        chain[p] = merged
        self.stones[p] = colour
        self.hash ^= key
        self._dirty.append(p)
        if suicide:
            # Kee rule 9: the stone's whole chain goes, and nothing else (no capture happened)
            self._remove(merged)
            return [merged]
        for c in captured:
            # each captured chain's only liberty was p: all of them go at once (Kee rule 8)
            self._remove(c)
        return captured

    def suspects(self, colour: int) -> set[int]:
        """The empty points where ``colour``'s stone play may be anything but a plain one.

        A plain play has an empty neighbour and captures nothing, so it is no suicide, and its
        position is this one plus its stone: a position that cannot have stood before unless a
        stone of ``colour`` was taken off that point since (:attr:`freed`). The rest are the
        points with no empty neighbour, the last liberties of chains and those freed points.
        Kept up to date lazily, around the points plays changed: no scan of the board.
        """
        if self._dirty:
            self._refresh()
        out = self._cramped | self._short
        freed = self.freed[colour]
        if freed:
            stones = self.stones
            out.update(p for p in freed if stones[p] == EMPTY)
        return out

    def has_suspects(self, colour: int) -> bool:
        """Whether :meth:`suspects` names any point. The legal view asks every move, and most
        turns there is none: then no set is built to say so."""
        if self._dirty:
            self._refresh()
        if self._cramped or self._short:
            return True
        stones = self.stones
        for p in self.freed[colour]:
            if stones[p] == EMPTY:
                return True
        return False

    def _refresh(self) -> None:
        """Bring the cramped points and the last liberties up to date after plays and captures.

        Whether a point is cramped depends on it and its neighbours; a chain's liberties change
        only where a stone came or went on it or beside it. So the points changed and their
        neighbours are all there is to look at, and a last liberty no chain has any more is
        dropped.
        """
        stones, nbrs, chain = self.stones, self._nbrs, self.chain
        dirty = self._dirty
        if len(dirty) == 1:   # a plain play (most refreshes): its point and neighbours, no set built
            near = (dirty[0], *nbrs[dirty[0]])
        else:
            near = set(dirty)
            for d in dirty:
                near.update(nbrs[d])
        dirty.clear()
        cramped, short = self._cramped, self._short
        for p in near:
            if stones[p] == EMPTY:
                for q in nbrs[p]:
                    if stones[q] == EMPTY:
                        cramped.discard(p)
                        break
                else:
                    cramped.add(p)
            else:
                cramped.discard(p)
                c = chain[p]
                if len(c.libs) == 1:
                    short.update(c.libs)
        if short:   # most plays leave no chain in atari
            self._short = {p for p in short if stones[p] == EMPTY and self._last_liberty(p)}

    def _last_liberty(self, p: int) -> bool:
        """Is empty point ``p`` the only liberty of a chain beside it?"""
        chain = self.chain
        for q in self._nbrs[p]:
            c = chain[q]
            if c is not None and len(c.libs) == 1:
                return True
        return False

    def _remove(self, c: Chain) -> None:
        stones, chain, nbrs = self.stones, self.chain, self._nbrs
        self.hash ^= c.hash
        self.freed[c.colour].update(c.stones)
        self._dirty.extend(c.stones)
        for s in c.stones:
            stones[s] = EMPTY
            chain[s] = None
        for s in c.stones:
            for q in nbrs[s]:
                other = chain[q]
                if other is not None:
                    other.libs.add(s)

    def remove_points(self, points: list[int]) -> None:
        """Take stones off without a capture (agreed dead stones); chains are rebuilt."""
        for p in points:
            self.freed[self.stones[p]].add(p)
            self.stones[p] = EMPTY
        self._rebuild()

    def regions(self) -> list[tuple[list[int], set[int]]]:
        """Every empty group (Kee rule 6) with the colours of the stones it touches."""
        stones, nbrs = self.stones, self._nbrs
        seen = [False] * len(stones)
        out = []
        for start, s in enumerate(stones):
            if s != EMPTY or seen[start]:
                continue
            seen[start] = True
            region, borders, todo = [start], set(), [start]
            while todo:
                p = todo.pop()
                for q in nbrs[p]:
                    t = stones[q]
                    if t != EMPTY:
                        borders.add(t)
                    elif not seen[q]:
                        seen[q] = True
                        region.append(q)
                        todo.append(q)
            out.append((region, borders))
        return out

    def area(self, colours: int) -> list[int]:
        """Kee rule 17 (b)-(d): stones plus empty groups that touch only that colour."""
        points = [0] * (colours + 1)
        for s in self.stones:
            points[s] += 1
        for region, borders in self.regions():
            if len(borders) == 1:
                points[next(iter(borders))] += len(region)
        return points[1:]

    def territory(self, colours: int, unbordered: bool = False) -> list[int]:
        """Empty groups that touch only one colour (Lasker-Maas counting); with ``unbordered``,
        one touching no stone counts for every colour too (Nieminen N16 read literally)."""
        points = [0] * (colours + 1)
        for region, borders in self.regions():
            if len(borders) == 1:
                points[next(iter(borders))] += len(region)
            elif unbordered and not borders:
                points = [c + len(region) for c in points]
        return points[1:]
