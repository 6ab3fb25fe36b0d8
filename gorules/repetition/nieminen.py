"""Nieminen 2004's repetition rules: the ko of N7a, the dispute superko of N14a and the "no
result" of N12, all three read from the boards each player left.

- N7a (every phase): no play may repeat "the board position left by the player in his previous
  turn"; a turn is a play, a pass or, in a play-out, a given stone (spec A2). Inherited.
- N14a (dispute play-outs only): no play may repeat "an earlier board position left by the
  player": any board he left at any earlier turn of the whole game (A6), so a play-out cannot
  loop and cannot bring back a board of an earlier play-out either.
- N12 (ordinary play, resumed play included): the text ends the game with no result when
  "neither player is willing to stop the loop". Intentions are not observable; repetition is.
  The situation (board, player to move) is counted after every play and pass, the starting one
  included; its ``no_result_at``-th occurrence (default 3, the chess convention: each player has
  passed up every way out of the cycle twice) ends the game at once (A5). Board and turn only,
  not prisoners: "board positions" is explicit.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..errors import Reason
from ..position import Probe
from .ko import OwnPreviousPosition
from .superko import TURN_KEYS

if TYPE_CHECKING:
    from ..game import Game


class NieminenRepetition(OwnPreviousPosition):
    def reset(self) -> None:
        super().reset()
        game = self.game
        # every board each seat left, in order: N14a reads them as a set, in play-outs only, so
        # the set (``_earlier``) is brought up to date when a play-out asks
        self.boards: list[list[int]] = [[] for _ in game.players]
        self._earlier: list[set[int]] = [set() for _ in game.players]
        self._read = [0] * len(game.players)   # how many of ``boards`` each set holds
        self.seen: dict[int, int] = {game._pos.hash ^ TURN_KEYS[game._turn]: 1}   # situation -> count
        self.no_result_at = game.rules.no_result_at

    def refuse(self, seat: int, p: int, probe: Probe) -> Reason | None:
        position = probe.hash
        if position == self.left[seat]:
            return Reason.KO
        if self.game._phase == "dispute" and position in self.earlier(seat):
            return Reason.SUPERKO
        return None

    def earlier(self, seat: int) -> set[int]:
        """Every board ``seat`` left at an earlier turn of the game (N14a)."""
        known, boards = self._earlier[seat], self.boards[seat]
        if self._read[seat] < len(boards):
            known.update(boards[self._read[seat]:])
            self._read[seat] = len(boards)
        return known

    def stone_played(self, index: int, seat: int, p: int) -> None:
        # _left(seat, game._turn) written out, the count of a situation seen before left to it:
        # every stone play of the game runs this
        game = self.game
        position = self.left[seat] = game._pos.hash
        self.boards[seat].append(position)
        if game._phase == "play":
            key = position ^ TURN_KEYS[game._turn]
            if key in self.seen:
                self._left(seat, game._turn, again=True)
            else:
                self.seen[key] = 1

    def passed(self, index: int, seat: int, appealing: bool) -> None:
        self._left(seat, self.game._next_seat(seat))

    def gave(self, seat: int) -> None:
        self._left(seat, self.game._next_seat(seat))

    def _left(self, seat: int, to_move: int, again: bool = False) -> None:
        """``seat`` ended its turn; ``to_move`` moves next (``again``: the board is noted already)."""
        game = self.game
        position = self.left[seat] = game._pos.hash
        if not again:
            self.boards[seat].append(position)
        if game._phase == "play":
            key = position ^ TURN_KEYS[to_move]
            seen = self.seen
            if key not in seen:
                seen[key] = 1   # a first occurrence ends nothing (no_result_at is at least 2)
            else:
                count = seen[key] = seen[key] + 1
                if count >= self.no_result_at:
                    game._finish("no-result")

    def explain(self, reason: Reason, point: str, player: str) -> str:
        if reason is Reason.SUPERKO:
            return (f"{point} would repeat a board {player} left earlier in the game, which a dispute "
                    f"play-out forbids (Nieminen N14a)")
        return super().explain(reason, point, player)

    def copy(self, game: "Game") -> "NieminenRepetition":
        other = object.__new__(NieminenRepetition)
        other.game, other.left = game, list(self.left)
        other.hot_hashes = other.left
        other.boards = [list(b) for b in self.boards]
        other._earlier = [set(s) for s in self._earlier]
        other._read = list(self._read)
        other.seen = dict(self.seen)
        other.no_result_at = self.no_result_at
        return other
