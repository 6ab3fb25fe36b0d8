"""Local reading of a position for the built-in bot: chains, liberties, eyes and regions.

The bot needs a few facts about one position many times per move (which chains are in atari, what
a play at a point would capture, which empty regions belong to whom). They are computed once from
`Game.stones()` and the board's neighbour lists into a `Snapshot`, then each candidate point is
read in a few set operations. Works on any board graph and any number of colours; the engine stays
the judge of legality.
"""

from __future__ import annotations

import dataclasses
import functools
from typing import Iterable, Mapping

from polygo.rules import Board


@dataclasses.dataclass(frozen=True)
class Chain:
    """Stones of one colour connected through neighbours, and their empty neighbours."""

    colour: int
    stones: frozenset[str]
    liberties: frozenset[str]


@dataclasses.dataclass(frozen=True)
class Effect:
    """What a stone play at one point does, read locally (no repetition rules, no supply)."""

    point: str
    captured: int
    """Opponent stones removed."""
    saved: int
    """Own stones that were in atari and end with two or more liberties."""
    liberties: int
    """Liberties of the chain the new stone belongs to, after captures."""
    ataris: int
    """Opponent stones left in atari by the play (when the new chain is not itself in atari)."""
    eye: bool
    """The point is an eye of the player: every neighbour is one of its stones."""
    own_region: bool
    """The point lies in an empty region bordered by the player's stones only."""


class Snapshot:
    """Chains and regions of one position, from the point of view of any colour."""

    def __init__(self, board: Board, stones: Mapping[str, int]) -> None:
        self.board = board
        self.stones = dict(stones)
        self.neighbours = _neighbours(board)
        self.chain_of: dict[str, Chain] = {}
        for point, colour in self.stones.items():
            if point not in self.chain_of:
                chain = self._flood_chain(point, colour)
                for stone in chain.stones:
                    self.chain_of[stone] = chain
        self.region_owner: dict[str, int | None] = {}
        for point in board.points:
            if point not in self.stones and point not in self.region_owner:
                self._flood_region(point)

    def _flood_chain(self, start: str, colour: int) -> Chain:
        stones, liberties, todo = {start}, set(), [start]
        while todo:
            for n in self.neighbours[todo.pop()]:
                owner = self.stones.get(n)
                if owner is None:
                    liberties.add(n)
                elif owner == colour and n not in stones:
                    stones.add(n)
                    todo.append(n)
        return Chain(colour, frozenset(stones), frozenset(liberties))

    def _flood_region(self, start: str) -> None:
        region, borders, todo = {start}, set(), [start]
        while todo:
            for n in self.neighbours[todo.pop()]:
                owner = self.stones.get(n)
                if owner is not None:
                    borders.add(owner)
                elif n not in region:
                    region.add(n)
                    todo.append(n)
        owner = borders.pop() if len(borders) == 1 else None
        for point in region:
            self.region_owner[point] = owner

    def effect(self, point: str, colour: int) -> Effect:
        """Read what a stone of `colour` at the empty `point` would capture, save and leave."""
        adjacent = [self.chain_of[n] for n in self.neighbours[point] if n in self.chain_of]
        own = _distinct(c for c in adjacent if c.colour == colour)
        others = _distinct(c for c in adjacent if c.colour != colour)
        captured = [c for c in others if c.liberties == {point}]
        freed = set().union(*(c.stones for c in captured)) if captured else set()
        stones = {point}.union(*(c.stones for c in own))
        liberties = {n for n in self.neighbours[point] if n not in self.stones}
        liberties.update(*(c.liberties for c in own))
        liberties.update(n for s in stones for n in self.neighbours[s] if n in freed)
        liberties.discard(point)
        saved = sum(len(c.stones) for c in own if len(c.liberties) == 1) if len(liberties) >= 2 else 0
        ataris = 0
        if len(liberties) >= 2:
            ataris = sum(len(c.stones) for c in others if len(c.liberties) == 2)
        eye = all(self.stones.get(n) == colour for n in self.neighbours[point])
        return Effect(
            point=point,
            captured=len(freed),
            saved=saved,
            liberties=len(liberties),
            ataris=ataris,
            eye=eye,
            own_region=self.region_owner.get(point) == colour,
        )


def _distinct(chains: Iterable[Chain]) -> list[Chain]:
    out: list[Chain] = []
    for chain in chains:
        if all(chain is not c for c in out):
            out.append(chain)
    return out


@functools.lru_cache(maxsize=32)
def _neighbours(board: Board) -> dict[str, tuple[str, ...]]:
    """The board's neighbour lists by name, built once per board."""
    return {p: board.neighbours(p) for p in board.points}
