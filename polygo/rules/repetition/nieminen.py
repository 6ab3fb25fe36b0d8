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
    from ..view import GameView

NOT_QUICK = -1   # in ``_boards``: the board first stood other than by a quick play


class NieminenRepetition(OwnPreviousPosition):
    """The three rules from two records: every board that stood, and the boards each seat left.

    A plain play in ordinary play makes a board that never stood (every board is in
    ``hot_hashes``), so its situation occurs for the first time and ends nothing (N12), and the
    quick path records it itself: the board the seat left (``left``, N7a) and the board -> the
    seat to move (``situations``), from which N14a reads who left it: in a game of two (the
    preset's limit) the other seat. Every other turn (a pass, a given stone, a stone play on the
    readable path: a board seen before, a free handicap stone, a play-out) is noted here.
    """

    two_players = True

    def reset(self) -> None:
        super().reset()
        game = self.game
        start = game.position.hash
        # every board that stood -> the seat to move after the quick play that made it first,
        # or NOT_QUICK where it first stood otherwise (the initial board, any other turn)
        self._boards: dict[int, int] = {start: NOT_QUICK}
        self.hot_hashes = self.situations = self._boards
        # N12: the occurrences of each situation (board ^ TURN_KEYS[seat to move]) in ordinary
        # play, but for the first of a board a quick play made (that one is in ``_boards``)
        self._more: dict[int, int] = {start ^ TURN_KEYS[game.turn]: 1}
        # N14a: the boards each seat left at a turn noted here
        self._left_here: list[set[int]] = [set() for _ in game.players]
        self.no_result_at = game.rules.no_result_at

    def refuse(self, seat: int, p: int, probe: Probe) -> Reason | None:
        position = probe.hash
        if position == self.left[seat]:
            return Reason.KO
        if self.game.phase == "dispute" and self.left_earlier(seat, position):
            return Reason.SUPERKO
        return None

    def left_earlier(self, seat: int, position: int) -> bool:
        """Did ``seat`` leave ``position`` at an earlier turn of the game (N14a)?"""
        return position in self._left_here[seat] or self._boards.get(position) == 1 - seat

    def stone_played(self, index: int, seat: int, p: int) -> None:
        self._left(seat, self.game.turn)

    def passed(self, index: int, seat: int, appealing: bool) -> None:
        self._left(seat, self.game.next_seat(seat))

    def gave(self, seat: int) -> None:
        self._left(seat, self.game.next_seat(seat))

    def _left(self, seat: int, to_move: int) -> None:
        """``seat`` ended its turn and ``to_move`` moves next: N7a's board, N14a's, N12's count."""
        game = self.game
        position = self.left[seat] = game.position.hash
        boards = self._boards
        boards.setdefault(position, NOT_QUICK)
        self._left_here[seat].add(position)
        if game.phase == "play":
            key = position ^ TURN_KEYS[to_move]
            count = self._more[key] = self._more.get(key, 0) + 1
            if boards[position] == to_move:
                count += 1   # its first occurrence, made by a quick play
            if count >= self.no_result_at:
                game.finish("no-result")

    def explain(self, reason: Reason, point: str, player: str) -> str:
        if reason is Reason.SUPERKO:
            return (f"{point} would repeat a board {player} left earlier in the game, which a dispute "
                    f"play-out forbids (Nieminen N14a)")
        return super().explain(reason, point, player)

    def copy(self, game: "GameView") -> "NieminenRepetition":
        other = object.__new__(NieminenRepetition)
        other.game, other.left = game, list(self.left)
        other._boards = dict(self._boards)
        other.hot_hashes = other.situations = other._boards
        other._more = dict(self._more)
        other._left_here = [set(s) for s in self._left_here]
        other.no_result_at = self.no_result_at
        return other
