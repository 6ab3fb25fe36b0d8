"""The interface every repetition rule offers ``Game``."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any, Callable, Container, Iterable, Sequence

from ..errors import Reason, RulesetError
from ..position import Chain, Probe

if TYPE_CHECKING:
    from ..view import GameView

EVERYWHERE = range(sys.maxsize)
"""Every point: ``hot_points`` of a rule that names none (a range: see docs/performance.md)."""

#: the attributes the quick path reads every play: kept on the instance (docs/performance.md)
QUICK_PATH_ATTRIBUTES = ("hot_points", "hot_hashes", "refuses_captures", "sees_captures", "sees_ataris",
                         "left", "appearances", "situations", "after_quiet_play", "mouth_watch", "walls")


class RepetitionRule:
    """The interface ``Game`` calls; every method but :meth:`refuse` may do nothing.

    A rule is built for one game and reads that game's position and seats; ``copy`` gives an
    independent rule for a copied game. ``reset`` is called when the live game goes back to the
    initial position (at the start, and before a rescission's replay); a rule reads nothing of
    its game before the first ``reset``.

    The readable path of ``Game.play`` asks :meth:`refuse` about every stone play, shows it to
    :meth:`before_stone` (where :attr:`watches_before_stone`) and reports it to
    :meth:`stone_played`. The quick path (``polygo/rules/quick.py``) makes a *quiet* play without
    asking: one on no point of :attr:`hot_points`, making no position of :attr:`hot_hashes`, not
    a capture where :attr:`refuses_captures`. So :meth:`refuse` must allow every quiet play, and
    a quiet play is recorded through the attributes below (docs/engine.md lists who uses each).
    """

    #: the reason a player may appeal against (Kee rule 12), or None where there are no appeals
    appealable: Reason | None = None
    #: the readable path shows every stone play to :meth:`before_stone` before making it
    watches_before_stone = False
    #: the points where :meth:`refuse` may refuse a play (any seat)
    hot_points: Container[int] = EVERYWHERE
    #: the position hashes whose making :meth:`refuse` may refuse (any seat)
    hot_hashes: Container[int] = ()
    #: :meth:`refuse` may refuse a capture on any point
    refuses_captures = False
    #: the quick path shows a quiet capture to :meth:`before_stone` before making it
    sees_captures = False
    #: the quick path shows :meth:`threatens` a quiet play that takes an opponent chain from two
    #: liberties to one and captures nothing
    sees_ataris = False
    #: per seat, the position it left at its last turn: the quick path stores a quiet play's there
    left: list[int] | None = None
    #: position hash -> live index of its last appearance: the quick path stores a quiet play's
    appearances: dict[int, int] | None = None
    #: position hash -> the seat to move when it first stood: the quick path stores a quiet play's
    situations: dict[int, int] | None = None
    #: the function the quick path calls as ``after_quiet_play(rule, index, seat, p)`` after a
    #: quiet play the rule's hooks did not settle; None: the stores above say all
    after_quiet_play: "Callable[[Any, int, int, int], None] | None" = None
    #: per point, the hash of the position the last quiet play there made, where the rule looks
    #: for the mouths quiet plays make: the quick path stores a quiet play's there, shows it to
    #: :meth:`walled` where it is on :attr:`walls` and to :meth:`alone` for each lone stone it
    #: leaves in atari, instead of calling :attr:`after_quiet_play`. None: no such watch
    mouth_watch: list[int] | None = None
    #: the points where a quiet play may wall a mouth (read while :attr:`mouth_watch` is set)
    walls: Container[int] = ()
    #: the rule's text is written for two players (Nieminen, Hansen, Jasiek) and its records
    #: are kept per seat of two; the presets say so with ``max_players``, a ruleset built by
    #: hand may not, and a third seat would be read wrongly or crash mid-game
    two_players = False

    def __init__(self, game: "GameView"):
        if self.two_players and len(game.players) != 2:
            raise RulesetError(f"{game.rules.name}: {game.rules.repetition.value}'s repetition rule is for "
                               f"two players, not {len(game.players)}")
        for name in QUICK_PATH_ATTRIBUTES:
            setattr(self, name, getattr(type(self), name))
        self.game = game

    def reset(self) -> None:
        """Forget the live game: back to the initial position."""

    def refuse(self, seat: int, p: int, probe: Probe) -> Reason | None:
        """Why ``seat`` may not place a stone on empty point ``p`` now (``probe`` is that play)."""
        raise NotImplementedError

    def suspects(self, seat: int) -> Iterable[int]:
        """The points where :meth:`refuse` may refuse ``seat`` a plain play (one with an empty
        neighbour that captures nothing and makes a board never seen): the points the rule names
        itself. Legal-move lists probe only these beside the position's own suspects."""
        return ()

    def before_stone(self, seat: int, p: int, probe: Probe) -> bool | None:
        """``seat`` is about to place a stone on ``p`` (where :attr:`watches_before_stone`, or a
        quiet capture where :attr:`sees_captures`): the chains and liberties are as they were.

        True where this play leaves :meth:`stone_played` nothing to do: the quick path then
        does not call :attr:`after_quiet_play` (the readable path calls stone_played all the
        same, and it must still hold)."""
        return None

    def threatens(self, seat: int, p: int, threatened: list[Chain], own: Sequence[Chain]) -> bool | None:
        """:meth:`before_stone` of a quiet play that captures nothing and takes an opponent chain
        from two liberties to one (where :attr:`sees_ataris`): the quick path builds no probe.
        ``threatened``: the opponent chains it takes from two liberties to one, a chain beside
        ``p`` on two sides listed twice, their liberties already without ``p``; ``own``: the
        player's chains beside it, each once, as they were."""
        return None

    def walled(self, index: int, seat: int, p: int) -> None:
        """A quiet play on ``p``, one of :attr:`walls`, was made (while :attr:`mouth_watch`)."""

    def alone(self, index: int, seat: int, p: int, s: int) -> None:
        """A quiet play on ``p`` left the lone stone on ``s`` in atari, its own (``s`` is ``p``) or
        an opponent's (while :attr:`mouth_watch`); called after :meth:`walled`."""

    def stone_played(self, index: int, seat: int, p: int) -> None:
        """A stone play at live index ``index`` has changed the position and passed the turn."""

    def passed(self, index: int, seat: int, appealing: bool) -> None:
        """A pass (appealing or not) at live index ``index``; the turn has not passed yet."""

    def gave(self, seat: int) -> None:
        """``seat`` gave a stone as a prisoner instead of playing (Nieminen N14b): a turn that
        leaves the board as it was; the turn has not passed yet."""

    def rescission_due(self, seat: int) -> bool:
        """Does this plain pass by ``seat`` rescind its last stone play (Kee rule 13)?"""
        return False

    def rescinded(self, index: int, p: int) -> None:
        """The stone play at live index ``index``, on ``p``, was rescinded (Kee rule 14)."""

    def explain(self, reason: Reason, point: str, player: str) -> str:
        """A sentence saying why ``player`` may not play ``point`` (for ``IllegalMove``)."""
        return f"{point} is not allowed ({reason.value})"

    def ko_analysis(self) -> list[dict]:
        """The ko positions on the board, for rules that analyse kos (Jasiek's NKR); else none."""
        return []

    def copy(self, game: "GameView") -> "RepetitionRule":
        """The same rule and history, for ``game`` (a copy of this rule's game)."""
        raise NotImplementedError
