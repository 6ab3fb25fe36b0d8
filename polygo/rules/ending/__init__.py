"""Ending procedures: how play ends and the phases after it, each in a module of its own.

    marking.py   passes, then the marking of dead stones and ``resume`` (Kee, the everyday
                 rulesets); passes alone (Tromp-Taylor)
    phases.py    the Lasker-Maas phases
    dispute.py   marking with Nieminen's play-out of disputed chains and his resumption rule
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..ruleset import Ending
from .dispute import DisputePlayOut
from .marking import PassesEnd, PassesThenMarking
from .phases import LaskerMaasPhases
from .rule import EndingProcedure

if TYPE_CHECKING:
    from ..view import GameView

__all__ = ["EndingProcedure", "ending_procedure", "PassesEnd", "PassesThenMarking", "LaskerMaasPhases",
           "DisputePlayOut"]


def ending_procedure(game: "GameView") -> EndingProcedure:
    """The procedure the game's ruleset names."""
    kind = game.rules.ending
    if kind is Ending.PHASES:
        return LaskerMaasPhases(game)
    if kind is Ending.DISPUTE:
        return DisputePlayOut(game)
    if kind is Ending.IMMEDIATE:
        return PassesEnd(game)
    return PassesThenMarking(game)
