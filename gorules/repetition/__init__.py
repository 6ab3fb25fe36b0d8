"""Repetition rules: which stone plays the history forbids, each rule family in a module of its own.

``Game`` asks its rule one question on the hot path, :meth:`RepetitionRule.refuse`, and tells it
what happened after each stone play and pass. A rule keeps whatever history it needs (Kee's
appearances and passes, a superko's positions, the position each player left), so a reader can
hold a rule text beside its module:

    kee.py       Kee rules 11-14: the cycle prohibition, appealing passes, rescission
    superko.py   positional and situational superko
    ko.py        the position the player left at his previous turn (Nieminen N7a, japanese)
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..ruleset import Repetition
from .kee import CycleProhibition
from .ko import OwnPreviousPosition
from .rule import RepetitionRule
from .superko import Superko

if TYPE_CHECKING:
    from ..game import Game

__all__ = ["RepetitionRule", "repetition_rule", "CycleProhibition", "OwnPreviousPosition", "Superko"]


def repetition_rule(game: "Game") -> RepetitionRule:
    """The rule the game's ruleset names."""
    kind = game.rules.repetition
    if kind is Repetition.KEE:
        return CycleProhibition(game)
    if kind is Repetition.OWN_PREVIOUS:
        return OwnPreviousPosition(game)
    return Superko(game, situational=kind is Repetition.SITUATIONAL)
