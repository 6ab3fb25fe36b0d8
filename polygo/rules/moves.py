"""Move strings, the interchange form of every move: parsed into typed moves here.

A malformed string is refused with ``bad-move``; a well-formed one naming no point of the
board with ``unknown-point``. The canonical text (``Move.text``) is what the record keeps.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum

from .board import Board
from .errors import IllegalMove, Reason

MAX_MOVE_LENGTH = 256


class Action(str, Enum):
    STONE = "stone"
    PASS = "pass"
    APPEAL = "appeal"
    RESIGN = "resign"
    TIMEOUT = "timeout"
    DEAD = "dead"
    ALIVE = "alive"
    DONE = "done"
    RANK = "rank"
    ACCEPT = "accept"
    REJECT = "reject"
    RESUME = "resume"
    DISPUTE = "dispute"
    GIVE = "give"


#: the move words of the phases after play, which the game's ending procedure rules on
ENDING_ACTIONS = frozenset({Action.DEAD, Action.ALIVE, Action.DONE, Action.RESUME, Action.DISPUTE, Action.GIVE})


@dataclass(frozen=True)
class Move:
    action: Action
    text: str
    point: int = -1
    ranking: tuple[int, ...] = field(default=())


_BARE = {"pass": Action.PASS, "resign": Action.RESIGN, "timeout": Action.TIMEOUT,
         "done": Action.DONE, "accept": Action.ACCEPT, "reject": Action.REJECT, "resume": Action.RESUME,
         "give": Action.GIVE}


_POINT_WORDS = {"appeal": Action.APPEAL, "dead": Action.DEAD, "alive": Action.ALIVE, "dispute": Action.DISPUTE}


def parse_move(text: str, board: Board) -> Move:
    """A move string (``D4``, ``pass``, ``appeal D4``, ``dead D4``, ``dispute D4``, ``give``, ``rank 1 2 2``, ...)."""
    if type(text) is str and text in board.exact_index:   # a point's exact name: most moves
        return Move(Action.STONE, text, board.exact_index[text])
    if not isinstance(text, str):
        raise IllegalMove(Reason.BAD_MOVE, f"a move must be a string, got {type(text).__name__}", repr(text))
    if len(text) > MAX_MOVE_LENGTH:
        raise IllegalMove(Reason.BAD_MOVE, f"a move string has at most {MAX_MOVE_LENGTH} characters", text[:40])
    words = text.split()
    if not words:
        raise IllegalMove(Reason.BAD_MOVE, "an empty move string", text)
    head = words[0].lower()
    if head in _BARE and len(words) == 1:
        return Move(_BARE[head], head)
    if head in _POINT_WORDS:
        if len(words) != 2:
            raise IllegalMove(Reason.BAD_MOVE, f"{head!r} takes one point, as in '{head} D4'", text)
        point = _point(words[1], board, text)
        return Move(_POINT_WORDS[head], f"{head} {board.points[point]}", point)
    if head == "rank":
        try:
            places = tuple(int(w) for w in words[1:])
        except ValueError:
            raise IllegalMove(Reason.BAD_MOVE, "'rank' takes one whole-number place per seat, as in 'rank 1 2 2'",
                              text) from None
        return Move(Action.RANK, "rank " + " ".join(map(str, places)), ranking=places)
    if len(words) != 1 or head in _BARE:
        raise IllegalMove(Reason.BAD_MOVE, f"{text!r} is not a move: use a point, pass, appeal P, resign, "
                          "dead P, alive P, done, resume, dispute P, give, rank ..., accept or reject", text)
    point = _point(words[0], board, text)
    return Move(Action.STONE, board.points[point], point)


def _point(word: str, board: Board, text: str) -> int:
    point = board.find(word)
    if point is None:
        raise IllegalMove(Reason.UNKNOWN_POINT, f"{word!r} is not a point of this board", text)
    return point
