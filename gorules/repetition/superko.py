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
    """Positional superko; :class:`SituationalSuperko` below puts the player to move in the key."""

    hot_points = ()

    def reset(self) -> None:
        # every position of the history -> the live index of its last appearance (-1: the
        # initial position); the quick path stores a plain play's there itself (``positions``)
        self._seen: dict[int, int] = {self.game._pos.hash: -1}
        self.hot_hashes = self.positions = self._seen

    def refuse(self, seat: int, p: int, probe: Probe) -> Reason | None:
        return Reason.SUPERKO if probe.hash in self._seen else None

    def stone_played(self, index: int, seat: int, p: int) -> None:
        self._seen[self.game._pos.hash] = index

    def explain(self, reason: Reason, point: str, player: str) -> str:
        if reason is Reason.SUPERKO:
            return f"{point} would repeat an earlier position (superko)"
        return super().explain(reason, point, player)

    def copy(self, game: "Game") -> "Superko":
        other = object.__new__(Superko)
        other.game, other._seen = game, dict(self._seen)
        other.hot_hashes = other.positions = other._seen
        return other


class SituationalSuperko(Superko):
    """The same with the player to move in the key (``_seen`` holds situations, ``hot_hashes``
    their boards), so every stone play is told to it (no ``positions``)."""

    positions = None

    def reset(self) -> None:
        self._seen: set[int] = {self.game._pos.hash ^ TURN_KEYS[self.game._turn]}
        # the boards of those positions, without the player to move: only a play that makes
        # one of them can be refused
        self.hot_hashes: set[int] = {self.game._pos.hash}

    def refuse(self, seat: int, p: int, probe: Probe) -> Reason | None:
        key = probe.hash ^ TURN_KEYS[self.game._turn_after_stone(seat)]
        return Reason.SUPERKO if key in self._seen else None

    def stone_played(self, index: int, seat: int, p: int) -> None:
        game = self.game
        self._seen.add(game._pos.hash ^ TURN_KEYS[game._turn])
        self.hot_hashes.add(game._pos.hash)

    def copy(self, game: "Game") -> "SituationalSuperko":
        other = object.__new__(SituationalSuperko)
        other.game, other._seen = game, set(self._seen)
        other.hot_hashes = set(self.hot_hashes)
        return other
