"""Passes, then the marking of dead stones (Kee rules 15 and 17, the everyday rulesets).

When every player still in the game has passed, play stops and the players mark dead chains
(``dead P`` / ``alive P``) and accept the marks (``done``); when all have accepted, the marked
stones leave the board and the game is scored. A player who disputes the marks may ``resume``:
play goes on with the next seat after him to move (Nieminen's resume rule, as OGS and KGS do),
and the earlier passes no longer count. Tromp-Taylor has no marking: the passes end the game.
"""

from __future__ import annotations

from ..errors import IllegalMove, Reason
from ..moves import Action, Move
from .rule import EndingProcedure


class PassesThenMarking(EndingProcedure):
    actions = frozenset({Action.DEAD, Action.ALIVE, Action.DONE, Action.RESUME})

    def all_passed(self) -> None:
        self.game.set_phase("scoring")

    def check(self, move: Move, seat: int) -> None:
        if self.game.phase != "scoring":
            if move.action is Action.RESUME:
                raise IllegalMove(Reason.NOT_SCORING, "play resumes only from the marking of dead stones", move.text)
            raise IllegalMove(Reason.NOT_SCORING, "dead stones are marked only after the game's end", move.text)
        self.check_mark(move)

    def apply(self, seat: int, move: Move) -> None:
        action = move.action
        if action is Action.RESUME:
            self.resume(seat)
        elif action is Action.DONE:
            if self.accept(seat):
                self.game.remove_dead()
                self.game.finish("passes")
        else:
            self.mark(move)

    def resume(self, seat: int) -> None:
        """Back to play; the seat after the one who asked moves first; earlier passes lapse."""
        game = self.game
        self.clear_marks()
        game.start_phase("play", game.next_seat(seat))


class PassesEnd(EndingProcedure):
    """Tromp-Taylor: every stone on the board is alive; the passes end the game."""

    def all_passed(self) -> None:
        self.game.finish("passes")

    def check(self, move: Move, seat: int) -> None:
        if move.action is Action.RESUME:
            raise IllegalMove(Reason.NOT_SCORING, "play resumes only from the marking of dead stones", move.text)
        raise IllegalMove(Reason.NOT_SCORING, "dead stones are marked only after the game's end", move.text)
