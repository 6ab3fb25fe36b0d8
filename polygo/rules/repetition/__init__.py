"""Repetition rules: which stone plays the history forbids, each rule family in a module of its own.

``Game`` asks its rule one question on the hot path, :meth:`RepetitionRule.refuse`, and tells it
what happened after each stone play and pass (and, for a rule that asks for it, what a stone play
is about to do: Hansen's rules read the liberties before the play). A rule keeps whatever history it needs (Kee's
appearances and passes, a superko's positions, the position each player left), so a reader can
hold a rule text beside its module:

    kee.py       Kee rules 11-14: the cycle prohibition, appealing passes, rescission
    superko.py   positional and situational superko
    ko.py        the position the player left at his previous turn (Nieminen N7a); the
                 immediate ko recapture (japanese, 1989 Article 6)
    hansen.py    Hansen's SST ko rules: cycle sets (rule 9), disallowed captures (rule 15), A1', A3'
    nieminen.py  Nieminen's ko, dispute superko (N14a) and "no result" for endless loops (N12)
    jasiek/      Jasiek's New Ko Rules: ko shapes, ko types and the four rules
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..ruleset import Repetition
from .hansen import CycleSets
from .jasiek import NewKoRules
from .kee import CycleProhibition
from .ko import BasicKo, OwnPreviousPosition
from .nieminen import NieminenRepetition
from .rule import RepetitionRule
from .superko import SituationalSuperko, Superko

if TYPE_CHECKING:
    from ..view import GameView

__all__ = ["RepetitionRule", "repetition_rule", "BasicKo", "CycleProhibition", "CycleSets", "NewKoRules",
           "NieminenRepetition", "OwnPreviousPosition", "SituationalSuperko", "Superko"]


def repetition_rule(game: "GameView") -> RepetitionRule:
    """The rule the game's ruleset names."""
    kind = game.rules.repetition
    if kind is Repetition.KEE:
        return CycleProhibition(game)
    if kind is Repetition.KO:
        return BasicKo(game)
    if kind is Repetition.HANSEN:
        return CycleSets(game)
    if kind is Repetition.NIEMINEN:
        return NieminenRepetition(game)
    if kind is Repetition.NKR:
        return NewKoRules(game)
    if kind is Repetition.SITUATIONAL:
        return SituationalSuperko(game)
    return Superko(game)
