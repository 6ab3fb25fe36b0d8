"""The entries a game keeps: the record's plays and the live game's entries.

Apart from ``game.py`` so that the quick path (``quick.py``) and the rule modules can name them
without importing the game.
"""

from __future__ import annotations

from typing import NamedTuple

from .moves import Action

SEAT_NAMES = ("black", "white", "red", "blue", "green", "yellow", "purple", "orange")


class Play(NamedTuple):
    """One accepted move of the record (a named tuple: built on every play, it must be cheap)."""

    seat: int
    move: str
    rescinded: bool = False
    captures: tuple[str, ...] = ()


class LiveEntry(NamedTuple):
    """One entry of the live game (the plays that stand), as the rule modules read it. Its index
    in the record is not in it, so that a stone play's entry is a value kept from one play on
    that point to the next."""

    seat: int
    action: Action  # STONE, PASS or APPEAL
    point: int      # the stone's point, -1 for passes


#: the live entries and record plays of passes, per seat: values, built once
PASSED = tuple(LiveEntry(seat, Action.PASS, -1) for seat in range(len(SEAT_NAMES)))
APPEALED = tuple(LiveEntry(seat, Action.APPEAL, -1) for seat in range(len(SEAT_NAMES)))
PASS_PLAYS = tuple(Play(seat, "pass") for seat in range(len(SEAT_NAMES)))
