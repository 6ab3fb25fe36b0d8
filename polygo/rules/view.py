"""What a repetition rule or an ending procedure sees of its game, and may change.

``Game`` (game.py) implements it; the rule modules are typed against this view, not against
``Game``, so that nothing below game.py imports it. A rule reads the position, the live game,
the seats and the turn; an ending procedure also moves the game between phases and ends it.
"""

from __future__ import annotations

from typing import Container, Protocol, Sequence, runtime_checkable

from .board import Board
from .plays import LiveEntry
from .position import Position
from .ruleset import Ruleset


@runtime_checkable
class GameView(Protocol):
    board: Board
    rules: Ruleset
    players: tuple[str, ...]
    #: the stones, chains and hash now (read, do not change)
    position: Position

    @property
    def live(self) -> Sequence[LiveEntry]: ...
    @property
    def turn(self) -> int: ...
    @property
    def phase(self) -> str: ...
    @property
    def phase_start(self) -> int: ...
    @property
    def active(self) -> list[bool]: ...

    def next_seat(self, seat: int) -> int:
        """The next active seat after ``seat``."""
    def seat_after_stone(self, seat: int) -> int:
        """The seat to move after a stone play by ``seat`` (itself during free handicap)."""
    def all_active_in(self, seats: Container[int]) -> bool:
        """Is every seat still in the game among ``seats``?"""

    # what an ending procedure changes
    def set_phase(self, phase: str) -> None: ...
    def start_phase(self, phase: str, to_move: int | None = None) -> None: ...
    def set_turn(self, seat: int) -> None: ...
    def give_prisoner(self, seat: int) -> None: ...
    def top_up(self) -> None: ...
    def remove_dead(self) -> None: ...
    def finish(self, reason: str) -> None: ...
