"""The interface every repetition rule offers ``Game``."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..errors import Reason
from ..position import Probe

if TYPE_CHECKING:
    from ..game import Game


class RepetitionRule:
    """The interface ``Game`` calls; every method but :meth:`refuse` may do nothing.

    A rule is built for one game and reads that game's position and seats; ``copy`` gives an
    independent rule for a copied game. ``reset`` is called when the live game goes back to the
    initial position (at the start, and before a rescission's replay); a rule reads nothing of
    its game before the first ``reset``.
    """

    #: the reason a player may appeal against (Kee rule 12), or None where there are no appeals
    appealable: Reason | None = None

    def __init__(self, game: "Game"):
        self.game = game

    def reset(self) -> None:
        """Forget the live game: back to the initial position."""

    def refuse(self, seat: int, p: int, probe: Probe) -> Reason | None:
        """Why ``seat`` may not place a stone on empty point ``p`` now (``probe`` is that play)."""
        raise NotImplementedError

    def stone_played(self, index: int, seat: int, p: int) -> None:
        """A stone play at live index ``index`` has changed the position and passed the turn."""

    def passed(self, index: int, seat: int, appealing: bool) -> None:
        """A pass (appealing or not) at live index ``index``; the turn has not passed yet."""

    def rescission_due(self, seat: int) -> bool:
        """Does this plain pass by ``seat`` rescind its last stone play (Kee rule 13)?"""
        return False

    def rescinded(self, index: int, p: int) -> None:
        """The stone play at live index ``index``, on ``p``, was rescinded (Kee rule 14)."""

    def explain(self, reason: Reason, point: str, player: str) -> str:
        """A sentence saying why ``player`` may not play ``point`` (for ``IllegalMove``)."""
        return f"{point} is not allowed ({reason.value})"

    def copy(self, game: "Game") -> "RepetitionRule":
        """The same rule and history, for ``game`` (a copy of this rule's game)."""
        raise NotImplementedError
