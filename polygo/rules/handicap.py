"""Fixed handicap points on grids, placed as GTP's ``fixed_handicap`` places them."""

from __future__ import annotations

from .board import Board, grid_name
from .errors import RulesetError


def fixed_handicap_points(board: Board, stones: int) -> list[str]:
    """The standard points for ``stones`` handicap stones (2..9) on a square-ish grid."""
    if board.kind != "grid" or board.width is None or board.height is None:
        raise RulesetError("fixed handicap needs a grid board; use handicap_mode='free' on other boards")
    w, h = board.width, board.height
    if min(w, h) < 7:
        raise RulesetError("fixed handicap needs a grid of at least 7×7")
    limit = 4 if min(w, h) == 7 or w % 2 == 0 or h % 2 == 0 else 9
    if not 2 <= stones <= limit:
        raise RulesetError(f"fixed handicap on {w}×{h} is 2 to {limit} stones, not {stones}")
    edge = 3 if min(w, h) >= 12 else 2   # as GNU Go places them, so the GTP bridge agrees
    left, right, mid_x = edge, w - 1 - edge, w // 2
    low, high, mid_y = edge, h - 1 - edge, h // 2
    order = [(left, low), (right, high), (left, high), (right, low)]
    if stones in (5, 7, 9):
        centre = [(mid_x, mid_y)]
    else:
        centre = []
    if stones >= 6:
        order += [(left, mid_y), (right, mid_y)]
    if stones >= 8:
        order += [(mid_x, low), (mid_x, high)]
    chosen = order[:stones - len(centre)] + centre
    return [grid_name(x, y) for x, y in chosen]
