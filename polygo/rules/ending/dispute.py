"""Nieminen 2004's dead stone removal: marking, and the play-out of a disputed chain (N13-N15),
with resumption (N11) as the spec reads it.

Marking is the everyday one (``dead P``, ``alive P``, ``done``, ``resume``). When the owner of a
chain says it lives and his opponent says it can be captured, either sends ``dispute P`` and the
chain "must be captured explicitly" (N14) on the real board:

- the owner moves first; the ordinary rules of play apply, with the dispute superko (N14a, in
  ``repetition/nieminen.py``);
- for each play of the attacker, the owner plays or ``give``s one stone to him as a prisoner; the
  owner may pass only as his first move or right after an attacker's pass (N14b, spec A9);
- two consecutive passes end the play-out; if no stone of the chain was captured, the chain is
  alive for good: it may not be marked dead or disputed again (N14c, A8), otherwise the
  attacker could dispute it again at no cost. Then back to marking, with the marks cleared.

Resumption (N11, A4): ``resume`` from marking gives the first move to the asker's opponent; if
that opponent also sends ``resume`` as his first action (both want to resume), the turn goes to
the player who did not pass last.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..errors import IllegalMove, Reason
from ..moves import Action, Move
from ..position import EMPTY
from .marking import PassesThenMarking

if TYPE_CHECKING:
    from ..view import GameView


class DisputePlayOut(PassesThenMarking):
    actions = frozenset({Action.DEAD, Action.ALIVE, Action.DONE, Action.RESUME, Action.DISPUTE, Action.GIVE})

    def __init__(self, game: "GameView"):
        super().__init__(game)
        self.proven: set[int] = set()          # points of stones that survived a play-out (A8)
        self.chain: frozenset[int] = frozenset()   # the disputed chain, during a play-out
        self.owner = self.attacker = -1
        self.captured = False
        self.gives = 0
        self.resumed_at = -1                   # live length when play resumed, for A4's second clause

    # --- the play-out ------------------------------------------------------------------------

    def _last_of(self, seat: int) -> Action | None:
        """The last stone play or pass of ``seat`` in this play-out (gives are not in the live game)."""
        live = self.game.live
        for i in range(len(live) - 1, self.game.phase_start - 1, -1):
            if live[i].seat == seat:
                return live[i].action
        return None

    def _owner_may_pass(self) -> bool:
        """N14b: only as the owner's first move, or right after an attacker's pass."""
        first = self.gives == 0 and self._last_of(self.owner) is None
        return first or self._last_of(self.attacker) is Action.PASS

    def _may_give(self, seat: int) -> bool:
        return (self.game.phase == "dispute" and seat == self.owner == self.game.turn
                and self._last_of(self.attacker) is Action.STONE)

    def turn_words(self, seat: int) -> list[str]:
        if self.game.phase != "dispute" or seat != self.owner:
            return ["pass"]
        return (["pass"] if self._owner_may_pass() else []) + (["give"] if self._may_give(seat) else [])

    def check_pass(self, move: Move, seat: int) -> None:
        if self.game.phase == "dispute" and seat == self.owner and not self._owner_may_pass():
            raise IllegalMove(Reason.OWNER_CANNOT_PASS,
                              f"{self.game.players[seat]} owns the disputed chain and must answer "
                              f"{self.game.players[self.attacker]}'s play with a play or 'give' (Nieminen N14b)",
                              move.text)

    def stone_played(self, seat: int) -> None:
        """Proven stones that were captured are proven no more; in a play-out, has a stone of the
        disputed chain been captured? (Watched while there is a play-out or a proven stone.)"""
        stones = self.game.position.stones
        if self.proven:
            self.proven = {p for p in self.proven if stones[p] != EMPTY}
        if self.game.phase == "dispute":
            if not self.captured:
                colour = self.owner + 1
                self.captured = any(stones[p] != colour for p in self.chain)
        else:
            self.watches_stones = bool(self.proven)

    def all_passed(self) -> None:
        game = self.game
        if game.phase == "dispute" and not self.captured:
            pos = game.position
            self.proven |= {q for p in self.chain for q in pos.chain[p].stones}
        self.chain = frozenset()
        self.owner = self.attacker = -1
        game.set_phase("scoring")
        self.clear_marks()
        self.watches_stones = bool(self.proven)

    # --- the moves of the phases after play ----------------------------------------------------

    def check(self, move: Move, seat: int) -> None:
        game, action = self.game, move.action
        if action is Action.GIVE:
            if not self._may_give(seat):
                raise IllegalMove(Reason.NO_GIVE, self._why_no_give(seat), move.text)
            return
        if game.phase == "dispute":
            raise IllegalMove(Reason.NOT_SCORING, "during a dispute play-out the moves are plays, passes and "
                              "'give'; marking resumes when it ends", move.text)
        if action is Action.RESUME and self._both_resume(seat):
            return
        super().check(move, seat)
        if action is Action.DISPUTE and game.position.stones[move.point] == EMPTY:
            raise IllegalMove(Reason.BAD_MOVE, f"there is no stone on {game.board.points[move.point]}", move.text)
        if action in (Action.DEAD, Action.DISPUTE) and self.proven.intersection(game.position.chain[move.point].stones):
            name = game.board.points[move.point]
            raise IllegalMove(Reason.PROVEN_ALIVE, f"the chain at {name} was not captured in a dispute play-out: "
                              f"it is alive for good (Nieminen N14c)", move.text)

    def _why_no_give(self, seat: int) -> str:
        game = self.game
        if game.phase != "dispute":
            return "'give' is the owner's answer to a play in a dispute play-out (Nieminen N14b)"
        if seat != self.owner:
            return f"only {game.players[self.owner]}, the owner of the disputed chain, gives stones"
        if seat != game.turn:
            return f"it is {game.players[game.turn]}'s turn"
        return f"a stone is given only in answer to a play by {game.players[self.attacker]}"

    def _both_resume(self, seat: int) -> bool:
        """A4: the player a ``resume`` has just given the first move asks to resume too."""
        game = self.game
        return game.phase == "play" and len(game.live) == self.resumed_at and seat == game.turn

    def apply(self, seat: int, move: Move) -> None:
        game, action = self.game, move.action
        if action is Action.GIVE:
            game.give_prisoner(seat)
            self.gives += 1
            game.set_turn(self.attacker)
        elif action is Action.DISPUTE:
            self.start(move.point)
        elif action is Action.RESUME and game.phase == "play":
            last_passer = next(e.seat for e in reversed(game.live) if e.action is Action.PASS)
            game.set_turn(game.next_seat(last_passer))
            self.resumed_at = -1
        else:
            super().apply(seat, move)
            if action is Action.RESUME:
                self.resumed_at = len(game.live)

    def start(self, point: int) -> None:
        """The play-out of the chain at ``point``: its owner moves first (N14)."""
        game = self.game
        chain = game.position.chain[point]
        self.chain = frozenset(chain.stones)
        self.owner = chain.colour - 1
        self.attacker = 1 - self.owner
        self.captured = False
        self.gives = 0
        self.clear_marks()
        self.watches_stones = True
        game.start_phase("dispute", self.owner)

    @property
    def disputed(self) -> list[str]:
        names = self.game.board.points
        return sorted(names[p] for p in self.chain)

    def copy(self, game: "GameView") -> "DisputePlayOut":
        other = super().copy(game)
        other.proven = set(self.proven)
        return other
