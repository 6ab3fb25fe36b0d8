"""Superko: no stone play may bring back a whole-board position of the game's history.

Positional superko forbids any earlier position; situational superko only one that stood with
the same player to move (the Lasker-Maas August 1995 text, AGA). The history is the initial
position and the position after each stone play: passes add nothing, so in Lasker-Maas the
rule "applies just as if the two passes had never occurred".
"""

from __future__ import annotations

import random
from typing import TYPE_CHECKING

from ..errors import Reason
from ..position import Probe
from .rule import RepetitionRule

if TYPE_CHECKING:
    from ..game import Game

# Situational keys: the position's hash xor a key for the player to move.
TURN_KEYS = [random.Random(7 + seat).getrandbits(64) for seat in range(64)]


class Superko(RepetitionRule):
    hot_points = ()

    def __init__(self, game: "Game", situational: bool):
        super().__init__(game)
        self.situational = situational

    def reset(self) -> None:
        self._seen: set[int] = {self._key(self.game._pos.hash, self.game._turn)}
        # the boards of those positions (situational: without the player to move): only a play
        # that makes one of them can be refused
        self.hot_hashes: set[int] = {self.game._pos.hash} if self.situational else self._seen

    def _key(self, position: int, to_move: int) -> int:
        return position ^ TURN_KEYS[to_move] if self.situational else position

    def refuse(self, seat: int, p: int, probe: Probe) -> Reason | None:
        key = probe.hash
        if self.situational:
            key ^= TURN_KEYS[self.game._turn_after_stone(seat)]
        return Reason.SUPERKO if key in self._seen else None

    def stone_played(self, index: int, seat: int, p: int) -> None:
        self._seen.add(self.game._pos.hash)

    def explain(self, reason: Reason, point: str, player: str) -> str:
        if reason is Reason.SUPERKO:
            return f"{point} would repeat an earlier position (superko)"
        return super().explain(reason, point, player)

    def copy(self, game: "Game") -> "Superko":
        other = object.__new__(type(self))
        other.game, other.situational, other._seen = game, self.situational, set(self._seen)
        other.hot_hashes = set(self.hot_hashes) if self.situational else other._seen
        return other


class SituationalSuperko(Superko):
    """The same with the player to move in the key: a class of its own, so that the stone play of
    positional superko, the commoner rule, tests nothing."""

    def __init__(self, game: "Game"):
        super().__init__(game, situational=True)

    def stone_played(self, index: int, seat: int, p: int) -> None:
        game = self.game
        self._seen.add(game._pos.hash ^ TURN_KEYS[game._turn])
        self.hot_hashes.add(game._pos.hash)
