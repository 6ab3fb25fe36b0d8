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
    from ..view import GameView

# Situational keys: the position's hash xor a key for the player to move.
TURN_KEYS = [random.Random(7 + seat).getrandbits(64) for seat in range(64)]


class Superko(RepetitionRule):
    """Positional superko; :class:`SituationalSuperko` below puts the player to move in the key."""

    hot_points = ()

    def reset(self) -> None:
        # every position of the history -> the live index of its last appearance (-1: the
        # initial position); the quick path stores a quiet play's there itself
        self._seen: dict[int, int] = {self.game.position.hash: -1}
        self.hot_hashes = self.appearances = self._seen

    def refuse(self, seat: int, p: int, probe: Probe) -> Reason | None:
        return Reason.SUPERKO if probe.hash in self._seen else None

    def stone_played(self, index: int, seat: int, p: int) -> None:
        self._seen[self.game.position.hash] = index

    def explain(self, reason: Reason, point: str, player: str) -> str:
        if reason is Reason.SUPERKO:
            return f"{point} would repeat an earlier position (superko)"
        return super().explain(reason, point, player)

    def copy(self, game: "GameView") -> "Superko":
        other = object.__new__(Superko)
        other.game, other._seen = game, dict(self._seen)
        other.hot_hashes = other.appearances = other._seen
        return other


class SituationalSuperko(Superko):
    """The same with the player to move in the key: a situation (board, player to move) may not
    stand twice."""

    def reset(self) -> None:
        game = self.game
        # every board of the history -> the seat to move when it first stood; the quick path
        # stores a quiet play's there itself, a board that comes back with
        # another seat to move adds that situation to ``_again``
        self._boards: dict[int, int] = {game.position.hash: game.turn}
        self._again: set[int] = set()
        self.hot_hashes = self.situations = self._boards

    def refuse(self, seat: int, p: int, probe: Probe) -> Reason | None:
        to_move = self.game.seat_after_stone(seat)
        board = probe.hash
        if self._boards.get(board) == to_move or board ^ TURN_KEYS[to_move] in self._again:
            return Reason.SUPERKO
        return None

    def stone_played(self, index: int, seat: int, p: int) -> None:
        game = self.game
        board, to_move = game.position.hash, game.turn
        if self._boards.setdefault(board, to_move) != to_move:
            self._again.add(board ^ TURN_KEYS[to_move])

    def copy(self, game: "GameView") -> "SituationalSuperko":
        other = object.__new__(SituationalSuperko)
        other.game, other._boards, other._again = game, dict(self._boards), set(self._again)
        other.hot_hashes = other.situations = other._boards
        return other
