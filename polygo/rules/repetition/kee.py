"""Kee rules 11-14: the cycle prohibition, appealing passes and rescission.

The terms are the text's: an *appearance* of a position is the initial position or a position
produced by a stone play; an *appealing pass* names a stone play prohibited by rule 11 alone
(rule 12, checked by ``Game``); a plain pass by the player whose stone play met an opponent's
appeal *rescinds* that play (rule 13), which is then excluded for him at that point (rule 14).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..errors import Reason
from ..moves import Action
from ..position import Probe
from .rule import RepetitionRule

if TYPE_CHECKING:
    from ..view import GameView


class CycleProhibition(RepetitionRule):
    appealable = Reason.CYCLE

    def __init__(self, game: "GameView"):
        super().__init__(game)
        # Rule 14: live index -> points rescinded there; exclusions at one point accumulate,
        # and they outlive the replay a rescission makes.
        self._excluded: dict[int, set[int]] = {}
        self.hot_points: set[int] = set()   # every point excluded at some index

    def reset(self) -> None:
        n = len(self.game.players)
        # the live indices of each position's last appearance (-1: the initial position), and of
        # the first of those that appeared more than once; rule 11 reads no others. A plain
        # play makes a position not seen before: the quick path stores it in ``_last`` itself
        # (``appearances``)
        self._first: dict[int, int] = {}
        self._last: dict[int, int] = {self.game.position.hash: -1}
        self.hot_hashes = self.appearances = self._last
        self._passes: list[list[int]] = [[] for _ in range(n)]        # live indices, both kinds
        self._plain_passes: list[list[int]] = [[] for _ in range(n)]  # without appeal

    def refuse(self, seat: int, p: int, probe: Probe) -> Reason | None:
        if probe.hash in self._last and self.prohibited(seat, probe.hash):
            return Reason.CYCLE
        if self._excluded:
            excluded = self._excluded.get(len(self.game.live))
            if excluded and p in excluded:
                return Reason.RESCINDED
        return None

    def suspects(self, seat: int) -> set[int]:
        """Rule 14: the points rescinded here (a repeated position is the position's to find)."""
        return self._excluded.get(len(self.game.live), set()) if self._excluded else set()

    def prohibited(self, seat: int, position: int) -> bool:
        """Rule 11: may ``seat`` not produce ``position``, which has appeared, by a stone play now?

        It may only if (a) it made a non-appealing pass after the last appearance, and (b) some
        opponent still in the game made no pass of either kind since the first appearance.
        """
        last = self._last[position]
        first = self._first.get(position, last)
        plain = self._plain_passes[seat]
        passed_since_last = bool(plain) and plain[-1] > last
        active, passes = self.game.active, self._passes
        opponent_only_stones = any(
            active[other] and other != seat and (not passes[other] or passes[other][-1] < first)
            for other in range(len(passes)))
        return not (passed_since_last and opponent_only_stones)

    def stone_played(self, index: int, seat: int, p: int) -> None:
        position = self.game.position.hash
        last = self._last.get(position)
        if last is not None:
            self._first.setdefault(position, last)
        self._last[position] = index

    def passed(self, index: int, seat: int, appealing: bool) -> None:
        self._passes[seat].append(index)
        if not appealing:
            self._plain_passes[seat].append(index)

    def rescission_due(self, seat: int) -> bool:
        """Rule 13: since ``seat``'s stone play, the last of the game, an opponent appealed."""
        live = self.game.live
        for i in range(len(live) - 2, -1, -1):   # from the newest back, without copying the game
            entry = live[i]
            if entry.action is Action.STONE:
                return False
            if entry.action is Action.APPEAL and entry.seat != seat:
                return next(e.seat for e in reversed(live) if e.action is Action.STONE) == seat
        return False

    def rescinded(self, index: int, p: int) -> None:
        self._excluded = {k: v for k, v in self._excluded.items() if k <= index}
        self._excluded.setdefault(index, set()).add(p)
        self.hot_points = set().union(*self._excluded.values())

    def explain(self, reason: Reason, point: str, player: str) -> str:
        if reason is Reason.CYCLE:
            return f"{point} would repeat an earlier position (Kee rule 11, the cycle prohibition)"
        if reason is Reason.RESCINDED:
            return f"{point} was rescinded here; {player} must choose another play (Kee rule 14)"
        return super().explain(reason, point, player)

    def copy(self, game: "GameView") -> "CycleProhibition":
        other = object.__new__(CycleProhibition)
        other.game = game
        other._excluded = {k: set(v) for k, v in self._excluded.items()}
        other._first, other._last = dict(self._first), dict(self._last)
        other.hot_hashes = other.appearances = other._last
        other.hot_points = set(self.hot_points)
        other._passes = [list(p) for p in self._passes]
        other._plain_passes = [list(p) for p in self._plain_passes]
        return other
