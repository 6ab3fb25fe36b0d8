"""The house bot's choice of move: a quick, sensible player read from `polygo.rules` alone.

The server runs this bot in the seats a room's `bots` setting gives it (`polygo.server.house.bots`), so it
cannot use the client's built-in bot (`polygo.client` and `server` never import each other). It reads
each candidate play one move deep on the chains and liberties of the current position: it captures,
saves its own chains from atari, puts opponents in atari, never fills its own eyes or territory,
never puts itself in atari for nothing, and passes when nothing useful is left. Under the Kee rules
it appeals for a prohibited play that would capture, and answers an appeal against its own last
stone play with an appealing pass rather than a plain one, which would rescind that play. It
accepts every ranking proposal that places it no worse than the board does. The dead marks are
`polygo.server.house.marking`'s.

`choose` is a pure function of the game, the seat and a seeded `random.Random`.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Callable

from polygo.rules import Game

CAPTURE, SAVE, ATARI = 10.0, 8.0, 2.0
WIND_DOWN = 5
"""Moves per point after which the bot only passes (simple ko can cycle for ever)."""


@dataclass(frozen=True)
class _Chain:
    colour: int
    stones: frozenset[str]
    liberties: frozenset[str]


class _Reading:
    """Chains, liberties and the owners of empty regions of one position."""

    def __init__(self, game: Game) -> None:
        self.board = game.board
        self.stones = game.stones()
        self.chain_at: dict[str, _Chain] = {}
        self.region_owner: dict[str, int | None] = {}
        for point in self.board.points:
            if point in self.stones and point not in self.chain_at:
                self._chain(point)
            elif point not in self.stones and point not in self.region_owner:
                self._region(point)

    def _flood(self, start: str, same: Callable[[str], bool]) -> tuple[set[str], set[str]]:
        inside, border, todo = {start}, set(), [start]
        while todo:
            for n in self.board.neighbours(todo.pop()):
                if n in inside or n in border:
                    continue
                if same(n):
                    inside.add(n)
                    todo.append(n)
                else:
                    border.add(n)
        return inside, border

    def _chain(self, point: str) -> None:
        colour = self.stones[point]
        stones, border = self._flood(point, lambda p: self.stones.get(p) == colour)
        chain = _Chain(colour, frozenset(stones), frozenset(p for p in border if p not in self.stones))
        for p in stones:
            self.chain_at[p] = chain

    def _region(self, point: str) -> None:
        empty, border = self._flood(point, lambda p: p not in self.stones)
        colours = {self.stones[p] for p in border}
        owner = colours.pop() if len(colours) == 1 else None
        for p in empty:
            self.region_owner[p] = owner

    def value(self, point: str, seat: int, rng: random.Random) -> float | None:
        """How much `seat` wants a stone at `point`; None when the play is not useful."""
        own, opponents, liberties = set(), set(), set()
        for n in self.board.neighbours(point):
            chain = self.chain_at.get(n)
            if chain is None:
                liberties.add(n)
            elif chain.colour == seat:
                own.add(chain)
            else:
                opponents.add(chain)
        captured = [c for c in opponents if c.liberties == {point}]
        for chain in own:
            liberties |= chain.liberties
        for chain in captured:
            liberties |= {p for p in chain.stones if any(n == point or self.chain_at.get(n) in own
                                                         for n in self.board.neighbours(p))}
        liberties.discard(point)
        taken = sum(len(c.stones) for c in captured)
        if not liberties:
            return None
        saved = sum(len(c.stones) for c in own if len(c.liberties) == 1) if len(liberties) > 1 else 0
        eye = not opponents and all(n in self.stones for n in self.board.neighbours(point))
        if eye and not saved:
            return None
        if len(liberties) == 1 and not taken:
            return None
        ataris = sum(len(c.stones) for c in opponents if len(c.liberties) == 2 and c not in captured)
        tactical = CAPTURE * taken + SAVE * saved + ATARI * ataris
        if self.region_owner.get(point) == seat and tactical <= 0:
            return None
        return tactical + 0.1 * len(liberties) + 0.2 * len(self.board.neighbours(point)) + rng.random()


def choose(game: Game, seat: int, rng: random.Random) -> str | None:
    """The move the house bot sends now for `seat`, or None when it has nothing to do (in the
    marking phase, `polygo.server.house.marking` answers)."""
    if game.result is not None or game.phase == "ended" or not game.active[seat]:
        return None
    if game.proposal is not None and not _answered(game, seat):
        return "accept" if game.proposal[seat] <= game.ranking()[seat] else "reject"
    if game.phase == "scoring" or game.to_move != seat:
        return None
    legal = game.legal_moves()
    idle = _idle(game, seat, legal)
    if len(game.history) > WIND_DOWN * len(game.board.points):
        return idle
    reading = _Reading(game)
    best, best_value = idle, 0.0
    for move in legal:
        point = move.removeprefix("appeal ")
        if point not in game.board:
            continue
        value = reading.value(point, seat, rng)
        if value is None or (point != move and value < CAPTURE):
            continue
        if value > best_value:
            best, best_value = move, value
    return best


def _idle(game: Game, seat: int, legal: list[str]) -> str:
    """The bot's move when no stone play is worth making: a pass, unless a plain pass would rescind
    its own last stone play (Kee rule 13: an opponent appealed since), then an appealing pass,
    which keeps the play and counts as a pass for the end (Kee example I: White's appeal answering
    Black's wins by 2 where a plain pass loses by 2). `give` where a pass is not allowed (the owner
    in a Nieminen play-out)."""
    if "pass" not in legal:
        return "give" if "give" in legal else legal[0]
    if _rescinds(game, seat):
        return next((move for move in legal if move.startswith("appeal ")), "pass")
    return "pass"


def _rescinds(game: Game, seat: int) -> bool:
    """Would a plain pass of `seat` rescind its stone play (the last of the live game, with an
    opponent's appealing pass since)?"""
    appealed = False
    for play in reversed(game.history):
        if play.rescinded or play.move.partition(" ")[0] in ("pass", "rank", "accept", "reject"):
            continue
        if play.move.startswith("appeal "):
            appealed = appealed or play.seat != seat
            continue
        return play.move in game.board and play.seat == seat and appealed
    return False


def _answered(game: Game, seat: int) -> bool:
    """Whether `seat` made or already answered the pending ranking proposal."""
    for play in reversed(game.history):
        if play.seat == seat and play.move in ("accept", "reject"):
            return True
        if play.move.startswith("rank "):
            return play.seat == seat
    return False
