"""The interface every repetition rule offers ``Game``."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any, Container, Iterable, Sequence

from ..errors import Reason, RulesetError
from ..position import Chain, Probe

if TYPE_CHECKING:
    from ..game import Game

#: :attr:`RepetitionRule.watches` flags: :meth:`RepetitionRule.before_stone` sees plays that
#: capture, plays that take an opponent's chain from two liberties to one; :meth:`refuse` may
#: refuse a capture anywhere
WATCHES_CAPTURES = 1
WATCHES_ATARIS = 2
REFUSES_CAPTURES = 4


EVERYWHERE = range(sys.maxsize)
"""Every point: ``hot_points`` of a rule that names none. A range, not a class of our own that
contains everything: CPython 3.11 does not specialise the read of an instance's attribute whose
name the class holds as an instance of a Python class (a mutable type), and ``Game.play`` reads
``hot_points`` every play (docs/speed.md, issue 13's sixth round)."""


class RepetitionRule:
    """The interface ``Game`` calls; every method but :meth:`refuse` may do nothing.

    A rule is built for one game and reads that game's position and seats; ``copy`` gives an
    independent rule for a copied game. ``reset`` is called when the live game goes back to the
    initial position (at the start, and before a rescission's replay); a rule reads nothing of
    its game before the first ``reset``.
    """

    #: the reason a player may appeal against (Kee rule 12), or None where there are no appeals
    appealable: Reason | None = None
    #: call :meth:`before_stone` before every stone play the careful path makes (off where the
    #: rule reads only the result)
    watches_before_stone = False

    # ``Game.play`` makes most stone plays on a quick path that asks the rule nothing before
    # :meth:`stone_played`. It takes the careful one (:meth:`refuse`, then :meth:`before_stone`
    # where watched) for a play on a point of ``hot_points``, a play whose position's hash is in
    # ``hot_hashes``, and, where ``watches`` has REFUSES_CAPTURES, a play that captures; so
    # :meth:`refuse` must allow every other play, and a rule must keep these up to date as its
    # history grows. A rule that names none is asked about every play. Where ``watches`` has
    # WATCHES_CAPTURES, the quick path calls :meth:`before_stone` for a play that captures;
    # where it has WATCHES_ATARIS, :meth:`threatens` for a play that captures nothing and takes
    # an opponent's chain from two liberties to one (a rule that watches ataris keeps no list in
    # ``quiet``: the quick path leaves it no chains to read); where ``quiet`` is a list, :meth:`alone`
    # after a quiet play that leaves a lone stone in atari and :meth:`walled` after one on a point
    # of the rule's ``walls``; the rule's hooks see no other quick play.
    #: the points where :meth:`refuse` may refuse a play (any seat), or where it must see a play first
    hot_points: Container[int] = EVERYWHERE
    #: the position hashes whose making :meth:`refuse` may refuse (any seat)
    hot_hashes: Container[int] = ()
    #: WATCHES_CAPTURES | WATCHES_ATARIS | REFUSES_CAPTURES (above)
    watches = 0
    #: a dict, for a rule whose :meth:`stone_played` of a play that makes a position not in
    #: ``hot_hashes`` only stores that position's hash -> the play's live index there (positional
    #: superko, Kee), or -> the seat to move after it where :attr:`positions_by_turn` (situational
    #: superko): the quick path then makes the store itself instead of the call, a tenth of a
    #: play's time. None: the quick path calls :meth:`stone_played`
    positions: dict[int, int] | None = None
    positions_by_turn = False
    #: a list, for a rule that keeps the board each seat left at its last turn (N7a, japanese):
    #: the quick path stores a plain play's board at its seat itself
    left: list[int] | None = None
    #: True while :meth:`stone_played` has nothing to do for a play the rule was not shown
    #: before it was made (no :meth:`before_stone` call) beyond the store in ``left``: the quick
    #: path then does not call it. A rule that sets it keeps it up to date (Hansen's: nothing
    #: pending, no cycle set). Or, for a rule that keeps per point the hash of the position a
    #: plain play on it made (Jasiek's R4, deferred), that list, where the quick path stores
    #: it itself for such a play; and the quick path calls the rule's :meth:`alone` after one
    #: that leaves a lone stone in atari, and its :meth:`walled` after one on a point of its
    #: ``walls`` (read only while ``quiet`` is a list). A list and not a flag of its own: the
    #: other rules' quiet plays read nothing more (issue 13's seventh round, docs/speed.md). Or
    #: None, for a rule waiting for the reply to a move (Hansen's H13): the quick path then calls
    #: :meth:`replied` instead of :meth:`stone_played` after a play it did not show the rule
    #: (issue 13's eighth round, docs/speed.md)
    quiet: "bool | None | list[Any]" = False
    #: the rule's text is written for two players (Nieminen, Hansen, Jasiek) and its records
    #: are kept per seat of two; the presets say so with ``max_players``, a ruleset built by
    #: hand may not, and a third seat would be read wrongly or crash mid-game
    two_players = False

    def __init__(self, game: "Game"):
        if self.two_players and len(game.players) != 2:
            raise RulesetError(f"{game.rules.name}: {game.rules.repetition.value}'s repetition rule is for "
                               f"two players, not {len(game.players)}")
        # what Game.play's quick path reads every play, on the instance: CPython 3.11 specialises
        # the read of an instance's value, not of one found on its class (docs/speed.md, issue
        # 13's sixth round); subclasses set their own after this
        cls = type(self)
        self.hot_points, self.hot_hashes, self.watches = cls.hot_points, cls.hot_hashes, cls.watches
        self.positions, self.positions_by_turn = cls.positions, cls.positions_by_turn
        self.left, self.quiet = cls.left, cls.quiet
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
        """``seat`` is about to place a stone on ``p`` (only where :attr:`watches_before_stone`):
        the chains and liberties are still as they were before the play.

        True where this play leaves :meth:`stone_played` nothing to do: the quick path then
        does not call it (the careful path does, and it must still hold)."""
        return None

    def threatens(self, seat: int, p: int, threatened: list[Chain], own: Sequence[Chain]) -> bool | None:
        """:meth:`before_stone` of a quick play that captures nothing and takes an opponent chain
        from two liberties to one (a rule whose ``watches`` has WATCHES_ATARIS defines it): the
        quick path builds no probe for it. ``threatened``: the opponent chains it takes from two
        liberties to one, a chain beside ``p`` on two sides listed twice, their liberties already
        without ``p``; ``own``: the player's chains beside it, each once, as they were."""
        return None

    def alone(self, index: int, seat: int, p: int, s: int) -> None:
        """A quiet play on ``p`` at live index ``index`` (``quiet`` a list) left the lone stone
        on ``s`` in atari: its own (``s`` is ``p``), or an opponent's beside it (once for each
        side of ``p`` it is on). A rule whose ``quiet`` may be a list defines it; the play is
        made, and :meth:`stone_played` was not called."""

    def walled(self, index: int, seat: int, p: int) -> None:
        """A quiet play on ``p`` at live index ``index`` (``quiet`` a list) was on one of the
        rule's ``walls``, called before any :meth:`alone` of the play. A rule whose ``quiet`` may
        be a list defines it, and ``walls``; the play is made, and :meth:`stone_played` was not
        called."""

    def stone_played(self, index: int, seat: int, p: int) -> None:
        """A stone play at live index ``index`` has changed the position and passed the turn."""

    def replied(self, index: int, seat: int, p: int) -> None:
        """:meth:`stone_played` of a quick play made while ``quiet`` was None, not shown to
        :meth:`before_stone` or :meth:`threatens` (a rule whose ``quiet`` may be None defines
        it)."""

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

    def copy(self, game: "Game") -> "RepetitionRule":
        """The same rule and history, for ``game`` (a copy of this rule's game)."""
        raise NotImplementedError
