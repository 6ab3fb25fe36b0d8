"""Two ko rules that forbid bringing back one earlier position.

Nieminen's N7a: no stone play may bring back the board position the player left at his previous
turn. "Previous turn" is his last move of any kind: a pass leaves the board he faced (Nieminen
spec A2). At his first turn there is no previous turn, so nothing is forbidden: a first play may
bring back the starting position, as after a set-up where the opponent's first play is a ko
capture.

The japanese preset's ko (Japanese rules of 1989, Article 6): "A player whose stone has been
captured in a ko cannot recapture in that ko on the next move." The text speaks of the next move,
not of the player's previous turn: the recapture is refused at a first turn too. Bringing back
the position that stood before the opponent's last move is exactly such a recapture; in a game
of two that is the position the player left at his previous turn, or the starting position
before his first.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..errors import Reason
from ..position import Probe
from .rule import RepetitionRule

if TYPE_CHECKING:
    from ..view import GameView


NO_TURN = -1   # in ``left``: the seat has had no turn; no board's hash (64 bits, not negative) equals it


class OwnPreviousPosition(RepetitionRule):
    hot_points = ()
    # a quiet play's record is only the board its seat left, which the quick path stores in
    # ``left`` itself

    def reset(self) -> None:
        self.left = [NO_TURN] * len(self.game.players)   # the board each seat left
        self.hot_hashes = self.left

    def refuse(self, seat: int, p: int, probe: Probe) -> Reason | None:
        return Reason.KO if probe.hash == self.left[seat] else None

    def stone_played(self, index: int, seat: int, p: int) -> None:
        self.left[seat] = self.game.position.hash

    def passed(self, index: int, seat: int, appealing: bool) -> None:
        self.left[seat] = self.game.position.hash

    def explain(self, reason: Reason, point: str, player: str) -> str:
        if reason is Reason.KO:
            return f"{point} would bring back the position {player} left at the previous turn (ko)"
        return super().explain(reason, point, player)

    def copy(self, game: "GameView") -> "OwnPreviousPosition":
        other = object.__new__(type(self))
        other.game, other.left = game, list(self.left)
        other.hot_hashes = other.left
        return other


class BasicKo(OwnPreviousPosition):
    """Article 6's ko: before any turn of his own, a seat "left" the starting position."""

    two_players = True

    def reset(self) -> None:
        super().reset()
        self.left[:] = [self.game.position.hash] * len(self.left)

    def explain(self, reason: Reason, point: str, player: str) -> str:
        if reason is Reason.KO:
            return f"{point} would retake the ko at once, bringing back the position before the last move (ko)"
        return super().explain(reason, point, player)
