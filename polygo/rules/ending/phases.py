"""The Lasker-Maas phases: phase 1 from an unlimited supply, phase 2 from the prisoners' place.

Two consecutive passes end phase 1; two *new* consecutive passes end phase 2 and the game,
with every stone on the board alive. At any time before that the players may agree on dead
stones (``dead P``, ``done``: the "early resolution"); marks and acceptances refer to the
position they were made on, so a stone play clears them. The supply itself (paying for each
phase-2 stone and the one-of-each top-up) is in ``Game``'s stone path, where every play runs.
"""

from __future__ import annotations

from ..errors import IllegalMove, Reason
from ..moves import Action, Move
from .rule import EndingProcedure


class LaskerMaasPhases(EndingProcedure):
    first_phase = "phase-1"
    actions = frozenset({Action.DEAD, Action.ALIVE, Action.DONE})

    def all_passed(self) -> None:
        game = self.game
        if game.phase == "phase-1":
            game.start_phase("phase-2")
            game.top_up()
        else:
            game.finish("passes")

    def check(self, move: Move, seat: int) -> None:
        if move.action is Action.RESUME:
            raise IllegalMove(Reason.NOT_SCORING, "play resumes only from the marking of dead stones", move.text)
        if self.game.over:
            raise IllegalMove(Reason.NOT_SCORING, "dead stones are marked only after the game's end", move.text)
        self.check_mark(move)

    def apply(self, seat: int, move: Move) -> None:
        if move.action is Action.DONE:
            if self.accept(seat):
                self.game.remove_dead()
                self.game.finish("agreement")
        else:
            self.mark(move)

    def mark(self, move: Move) -> None:
        super().mark(move)
        self.watches_stones = bool(self.dead or self.accepted)   # a stone play clears the marks

    def accept(self, seat: int) -> bool:
        everyone = super().accept(seat)
        self.watches_stones = True
        return everyone

    def clear_marks(self) -> None:
        super().clear_marks()
        self.watches_stones = False

    def stone_played(self, seat: int) -> None:
        if self.dead or self.accepted:
            self.clear_marks()
