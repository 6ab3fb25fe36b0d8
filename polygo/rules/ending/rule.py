"""The interface every ending procedure offers ``Game``."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..errors import IllegalMove, Reason
from ..moves import Action, Move
from ..position import EMPTY

if TYPE_CHECKING:
    from ..view import GameView


class EndingProcedure:
    """What happens when every player has passed, and the moves of the phases after play.

    ``Game`` stays the state machine: it keeps the phase and the result and calls
    :meth:`all_passed`, :meth:`check` and :meth:`apply`; the procedure decides. The marks of
    dead stones live here, because only the ending reads them.
    """

    #: the phase a game starts in
    first_phase = "play"
    #: the move words this procedure handles (beyond stone plays and passes)
    actions: frozenset[Action] = frozenset()
    #: call :meth:`stone_played` after the next stone play: a procedure turns it on (an
    #: attribute of its own) while a play would change something of its own, and only then
    watches_stones = False

    def __init__(self, game: "GameView"):
        self.watches_stones = False      # on the instance: the quick path reads it every play
        self.game = game
        self.dead: set[int] = set()      # points marked dead
        self.accepted: set[int] = set()  # seats that accepted the marks as they stand

    def all_passed(self) -> None:
        """Every player still in the game has passed since the last stone play of the phase."""
        raise NotImplementedError

    def check_pass(self, move: Move, seat: int) -> None:
        """Raise ``IllegalMove`` if ``seat`` may not pass now (the turn is checked already)."""

    @property
    def disputed(self) -> list[str]:
        """The points of the chain under a dispute play-out (Nieminen), or none."""
        return []

    def turn_words(self, seat: int) -> list[str]:
        """The turn moves other than stone plays that ``seat``, to move, may make now."""
        return ["pass"]

    def check(self, move: Move, seat: int) -> None:
        """Raise ``IllegalMove`` if ``seat`` may not make ``move`` (one of :attr:`actions`) now."""
        raise IllegalMove(Reason.BAD_MOVE, f"{move.text!r} is not a move of {self.game.rules.name}", move.text)

    def apply(self, seat: int, move: Move) -> None:
        """Make ``move``, already checked."""

    def stone_played(self, seat: int) -> None:
        """A stone play changed the position (only while :attr:`watches_stones`)."""

    def copy(self, game: "GameView") -> "EndingProcedure":
        other = object.__new__(type(self))
        other.__dict__.update(self.__dict__)
        other.game = game
        other.dead, other.accepted = set(self.dead), set(self.accepted)
        return other

    # --- the marking of dead stones, shared by the procedures that have it -----------------

    def check_mark(self, move: Move) -> None:
        if move.action in (Action.DEAD, Action.ALIVE) and self.game.position.stones[move.point] == EMPTY:
            raise IllegalMove(Reason.BAD_MOVE, f"there is no stone on {self.game.board.points[move.point]}",
                              move.text)

    def mark(self, move: Move) -> None:
        """``dead P`` marks the chain at P dead, ``alive P`` unmarks it; saying again what
        already stands changes nothing, so two players (or bots) marking at once agree."""
        stones = set(self.game.position.chain[move.point].stones)
        marks = self.dead | stones if move.action is Action.DEAD else self.dead - stones
        if marks != self.dead:
            self.dead = marks
            self.accepted = set()

    def accept(self, seat: int) -> bool:
        """``done`` by ``seat``; True when every player still in the game has accepted."""
        self.accepted.add(seat)
        return self.game.all_active_in(self.accepted)

    def clear_marks(self) -> None:
        self.dead = set()
        self.accepted = set()
