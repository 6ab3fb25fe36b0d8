"""Export a finished (or unfinished) two-player grid game as SGF FF[4], for GNU Go, sgfmill and editors.

SGF only knows two colours on a rectangle, so this is the export for two-player grid games; any other
board or player count is a ValueError, and JSON (``Game.to_record()``) remains the full record.

The input is a game record as ``Game.to_record()`` writes it, with optional extra keys the server has:

- ``board``: a grid spec, ``"19"``, ``"9x9"``, ``"7x5"`` (a torus or a graph is refused);
- ``rules``, ``players`` (seat 0 is Black, seat 1 White), ``options`` (``komi``, ``handicap``,
  ``handicap_mode``, ``setup``), ``moves``: ``[[seat, move, ...], ...]`` (items after the move ignored);
- ``rescinded`` (optional): indices into ``moves`` of the rescinded plays;
- ``names`` (optional): the two players' names for PB/PW (else the seat names);
- ``result`` (optional): ``{"reason", "ranking", "score"}`` as in ``gorules.Result``, for RE;
- ``date`` (optional): ``YYYY-MM-DD`` for DT.

Decisions:

- Rescinded plays (Kee rules 13-14) are omitted from the moves, because SGF cannot take a stone back
  and a reader replaying them would reach the wrong position; the node that follows them carries a
  comment listing them, so the record keeps them. When the record has no ``rescinded`` key and the
  ruleset is ``kee``, they are worked out from the move sequence (``kee_rescinded``).
- An appealing pass is a pass (``B[]``) with the comment ``appeal D4``.
- Handicap: ``fixed`` stones are the GTP standard points (those of GNU Go's ``fixed_handicap``),
  ``free`` ones are Black's first consecutive stone plays; both go in the root as HA and AB, as GNU Go
  writes them, with PL[W]. Setup stones go in AB/AW.
- Marking, agreement and resignation moves (``dead``, ``done``, ``rank``, ``accept``, ``reject``,
  ``resign``) are not SGF moves; the result, when given, goes in RE.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence

COLUMNS = "ABCDEFGHJKLMNOPQRSTUVWXYZ"  # GTP: no I
_SGF_LETTERS = "abcdefghijklmnopqrstuvwxyz"
_GRID = re.compile(r"(\d+)(?:x(\d+))?")
_POINT = re.compile(r"([A-HJ-Z])(\d+)")
_COLOURS = ("B", "W")
_NOT_MOVES = ("dead", "done", "rank", "accept", "reject", "resign")
_RULES_NAMES = {"japanese": "Japanese", "chinese": "Chinese", "aga": "AGA", "tromp-taylor": "Tromp-Taylor"}


def to_sgf(record: Mapping) -> str:
    """The record as one SGF FF[4] game tree (see the module docstring for what is kept and how)."""
    width, height = grid_size(record.get("board"))
    players = list(record.get("players", ()))
    if len(players) != 2:
        raise ValueError(f"SGF holds two-player games only; this game has {len(players)} players.")
    options = record.get("options") or {}
    moves = [(int(m[0]), str(m[1])) for m in record.get("moves", ())]
    rescinded = _rescinded_set(record, moves)
    handicap = int(options.get("handicap") or 0)
    black_stones = list(_setup(options, 0))
    white_stones = list(_setup(options, 1))
    start = 0
    if handicap >= 2 and options.get("handicap_mode", "fixed") == "fixed":
        black_stones += fixed_handicap(width, height, handicap)
    elif handicap >= 2:
        start = _free_handicap_end(moves, rescinded, handicap)
        black_stones += [m for _, m in moves[:start]]

    names = record.get("names") or players
    root = [("FF", "4"), ("GM", "1"), ("CA", "UTF-8"), ("AP", "polygo:0.1"),
            ("SZ", str(width) if width == height else f"{width}:{height}"),
            ("RU", _RULES_NAMES.get(str(record.get("rules")), str(record.get("rules", "")))),
            ("PB", str(names[0])), ("PW", str(names[1]))]
    if "komi" in options:
        root.append(("KM", _number(options["komi"])))
    if record.get("date"):
        root.append(("DT", str(record["date"])))
    if record.get("result"):
        root.append(("RE", result_text(record["result"])))
    if handicap >= 2:
        root.append(("HA", str(handicap)))
    root_text = "".join(_prop(k, v) for k, v in root)
    root_text += _stones("AB", black_stones, width, height) + _stones("AW", white_stones, width, height)
    if handicap >= 2:
        root_text += "PL[W]"

    nodes: list[str] = []
    pending: list[str] = []  # rescinded plays waiting for the next written node
    for index in range(start, len(moves)):
        seat, move = moves[index]
        word = move.split()[0] if move.split() else ""
        if word in _NOT_MOVES:
            continue
        if seat not in (0, 1):
            raise ValueError(f"Move {index} is by seat {seat}; SGF has seats 0 (Black) and 1 (White).")
        colour = _COLOURS[seat]
        if index in rescinded:
            pending.append(f"{colour} {move}")
            continue
        comments = []
        if pending:
            comments.append("Rescinded (Kee rules 13-14): " + ", ".join(pending))
            pending = []
        if word == "appeal":
            comments.append(move)
            point = ""
        elif word == "pass":
            point = ""
        else:
            point = sgf_point(move, width, height)
        node = f"{colour}[{point}]" + ("".join(_prop("C", c) for c in comments) if comments else "")
        nodes.append(node)
    if pending:
        note = _prop("C", "Rescinded (Kee rules 13-14): " + ", ".join(pending))
        if nodes:
            nodes[-1] += note
        else:
            root_text += note
    return "(;" + root_text + "".join("\n;" + n for n in nodes) + ")\n"


def grid_size(board: object) -> tuple[int, int]:
    """(width, height) of a grid spec like "19", "9x9" or "7x5"; ValueError for anything else."""
    match = _GRID.fullmatch(board.strip()) if isinstance(board, str) else None
    if match is None:
        raise ValueError(f"SGF holds games on rectangular grids only, not on the board {board!r}.")
    width = int(match.group(1))
    height = int(match.group(2) or width)
    if not (1 <= width <= len(COLUMNS) and 1 <= height <= len(COLUMNS)):
        raise ValueError(f"Grid {width}x{height} is outside 1x1 to 25x25.")
    return width, height


def sgf_point(point: str, width: int, height: int) -> str:
    """GTP "D4" (columns skip I, row 1 at the bottom) -> SGF "dp" on 19x19 (letters from the top-left)."""
    match = _POINT.fullmatch(point.strip().upper())
    if match is None:
        raise ValueError(f"{point!r} is not a point name like D4.")
    column = COLUMNS.index(match.group(1))
    row = int(match.group(2))
    if column >= width or not 1 <= row <= height:
        raise ValueError(f"Point {point!r} is not on a {width}x{height} board.")
    return _SGF_LETTERS[column] + _SGF_LETTERS[height - row]


def fixed_handicap(width: int, height: int, stones: int) -> list[str]:
    """The GTP standard handicap points, as GNU Go's ``fixed_handicap`` places them.

    Stones go on the 4th line (3rd on boards under 12), the corners first, then the centre for an odd
    count, then the side midpoints; 5 or more need odd sides of at least 9.
    """
    xs, ys = _star_lines(width), _star_lines(height)
    limit = 0 if xs is None or ys is None else 9 if len(xs) == 3 and len(ys) == 3 else 4
    if not 2 <= stones <= limit:
        raise ValueError(f"No fixed handicap of {stones} stones on a {width}x{height} board "
                         f"(the most there is {limit}).")
    low_x, high_x, low_y, high_y = xs[0], xs[-1], ys[0], ys[-1]
    points = [(low_x, low_y), (high_x, high_y), (low_x, high_y), (high_x, low_y)][:stones]
    if stones >= 6:
        points += [(low_x, ys[1]), (high_x, ys[1])]
    if stones >= 8:
        points += [(xs[1], low_y), (xs[1], high_y)]
    if stones >= 5 and stones % 2:
        points.append((xs[1], ys[1]))
    return [f"{COLUMNS[x]}{y + 1}" for x, y in points]


def _star_lines(size: int) -> list[int] | None:
    """0-based handicap lines of one side: edge lines, and the middle for odd sizes from 9."""
    if size < 7:
        return None
    edge = 3 if size >= 12 else 2
    lines = [edge, size - 1 - edge]
    if size % 2 and size >= 9:
        lines.insert(1, size // 2)
    return lines


def kee_rescinded(moves: Sequence[tuple[int, str]]) -> set[int]:
    """Indices of the plays rescinded under Kee rules 13-14, worked out from the sequence alone.

    When X passes without appeal and, since X's stone play (the last live stone play), an opponent
    made an appealing pass, that stone play, the passes after it and X's pass leave the live game.
    """
    live: list[int] = []
    rescinded: set[int] = set()
    for index, (seat, move) in enumerate(moves):
        word = move.split()[0] if move.split() else ""
        if word in _NOT_MOVES:
            continue
        if word == "pass":
            last = next((j for j in reversed(live) if _is_stone(moves[j][1])), None)
            if last is not None and moves[last][0] == seat and any(
                moves[j][0] != seat and moves[j][1].startswith("appeal") for j in live if j > last
            ):
                cut = live.index(last)
                rescinded.update(live[cut:])
                rescinded.add(index)
                del live[cut:]
                continue
        live.append(index)
    return rescinded


def result_text(result: Mapping) -> str:
    """SGF RE from a result: "B+R", "W+T", "B+3.5", "W+" (a win without a margin) or "0" (a draw)."""
    ranking = list(result.get("ranking") or ())
    if len(ranking) != 2:
        raise ValueError(f"A two-player result needs a ranking of two places, not {ranking!r}.")
    if ranking[0] == ranking[1]:
        return "0"
    winner = 0 if ranking[0] < ranking[1] else 1
    reason = result.get("reason")
    if reason == "resignation":
        return f"{_COLOURS[winner]}+R"
    if reason == "timeout":
        return f"{_COLOURS[winner]}+T"
    score = result.get("score")
    if score and len(score) == 2 and score[winner] != score[1 - winner]:
        return f"{_COLOURS[winner]}+{_number(abs(score[winner] - score[1 - winner]))}"
    return f"{_COLOURS[winner]}+"


def _is_stone(move: str) -> bool:
    return bool(move) and move.split()[0] not in ("pass", "appeal", *_NOT_MOVES)


def _rescinded_set(record: Mapping, moves: list[tuple[int, str]]) -> set[int]:
    if "rescinded" in record:
        return {int(i) for i in record["rescinded"]}
    return kee_rescinded(moves) if record.get("rules") == "kee" else set()


def _free_handicap_end(moves: list[tuple[int, str]], rescinded: set[int], handicap: int) -> int:
    """Free handicap: Black's first ``handicap`` moves, which must be consecutive live stone plays."""
    head = moves[:handicap]
    if len(head) < handicap or any(s != 0 or not _is_stone(m) for s, m in head) or rescinded & set(range(handicap)):
        raise ValueError(f"The first {handicap} moves are not Black's free handicap stones.")
    return handicap


def _setup(options: Mapping, seat: int) -> Iterable[str]:
    return (point for point, owner in (options.get("setup") or {}).items() if owner == seat)


def _stones(name: str, points: list[str], width: int, height: int) -> str:
    if not points:
        return ""
    return name + "".join(f"[{sgf_point(p, width, height)}]" for p in points)


def _prop(name: str, value: str) -> str:
    escaped = value.replace("\\", "\\\\").replace("]", "\\]")
    return f"{name}[{escaped}]"


def _number(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else str(float(value))
