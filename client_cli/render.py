"""Drawing a room as text for an 80×24 terminal (pure: a `RoomView` in, lines out).

Grid boards (and tori) are drawn as a grid with column letters and row numbers. Graph boards with
coordinates are drawn on a character grid, each point shown by its name while empty; graph boards
without coordinates (or too crowded to draw) become a list of points with their stones and
neighbours, a page at a time. Each player has a letter and, unless colours are off (NO_COLOR), a
colour; the last stone played is bracketed, stones marked dead are in lower case, and points the
player to move may not play are marked `*` and explained beside the board. Under Jasiek's New Ko
Rules the empty points of ko positions are marked `k` and each ko position is described beside it.
"""

from __future__ import annotations

import dataclasses
import math
import textwrap

from gorules import Game

from client_cli.room import RoomView

WIDTH, HEIGHT = 80, 24
MESSAGE_LINES = 3
BOARD_ROWS = 20
"""Lines the board may take; the rest is for the message and the prompt."""

ANSI = {"black": "1;90", "white": "1;97", "red": "1;31", "blue": "1;34", "green": "1;32",
        "yellow": "1;33", "purple": "1;35", "magenta": "1;35", "cyan": "1;36", "orange": "38;5;208"}
FALLBACK_ANSI = ("1;36", "1;35", "1;33", "1;32")

MARKED_REASONS = ("cycle", "superko", "ko", "suicide", "rescinded", "cycle-set", "disallowed", "tko",
                  "basic-ko", "fighting", "disturber", "prohibition")
"""The reasons a point is marked prohibited on the board (an occupied point needs no mark)."""


def letters(players: list[str] | tuple[str, ...]) -> list[str]:
    """One distinct capital letter per player, taken from its colour name where possible.

    >>> letters(["black", "white", "red", "blue"])
    ['B', 'W', 'R', 'L']
    """
    taken: list[str] = []
    for name in players:
        pick = next((c for c in name.upper() if c.isalpha() and c not in taken and c != "X"), None)
        if pick is None:
            pick = next(c for c in "ABCDEFGHJKLMNOPQRSTUVWYZ" if c not in taken)
        taken.append(pick)
    return taken


@dataclasses.dataclass
class Style:
    """How to draw: colours on or off, and which page of a point list to show."""

    color: bool = True
    page: int = 0

    def paint(self, text: str, code: str | None) -> str:
        if not self.color or not code:
            return text
        return f"\x1b[{code}m{text}\x1b[0m"


def seat_colour_code(game: Game, seat: int) -> str:
    return ANSI.get(game.players[seat], FALLBACK_ANSI[seat % len(FALLBACK_ANSI)])


def prohibited(game: Game) -> dict[str, str]:
    """Empty points the player to move may not play, with the reason code (occupied ones left out)."""
    if game.to_move is None:
        return {}
    stones = game.stones()
    out = {}
    for point in game.board.points:
        if point not in stones:
            reason = game.why_illegal(point)
            if reason in MARKED_REASONS:
                out[point] = reason
    return out


def ko_lines(game: Game) -> list[str]:
    """Jasiek's New Ko Rules: one line per ko position (its type, its disturber, the fighting rule)."""
    lines = []
    for ko in game.ko_analysis()[:3]:
        text = f"ko {'-'.join(ko['points'][:4])}{'...' if len(ko['points']) > 4 else ''}: {ko['type']}"
        if ko["state"]:
            text += f" ({ko['state']})"
        if ko["disturber"] is not None:
            text += f", disturber {game.players[ko['disturber']]}" + (" (barred)" if ko["disturber_barred"] else "")
        if ko["fighting_bar"] is not None:
            text += f", closed to {game.players[ko['fighting_bar']]} this move"
        lines.append(text)
    return lines


def board_lines(game: Game, style: Style, max_rows: int = BOARD_ROWS) -> list[str]:
    """The board as lines: a grid, a drawing from coordinates, or a list of points."""
    board = game.board
    if board.kind in ("grid", "torus") and board.width and board.height and board.height + 2 <= max_rows:
        return _grid(game, style)
    if board.coords:
        drawn = _drawing(game, style, max_rows)
        if drawn is not None:
            return drawn
    return _point_list(game, style, max_rows)


def _cell(game: Game, point: str, style: Style, marks: dict[str, str], letter_of: list[str],
          kos: frozenset[str] = frozenset()) -> str:
    seat = game.stone_at(point)
    if seat is None:
        if point in marks:
            return style.paint("*", "2")
        return style.paint("k", "2") if point in kos else "."
    letter = letter_of[seat]
    if point in game.dead:
        letter = letter.lower()
    return style.paint(letter, seat_colour_code(game, seat))


def _grid(game: Game, style: Style) -> list[str]:
    board = game.board
    assert board.width is not None and board.height is not None
    cols = "ABCDEFGHJKLMNOPQRSTUVWXYZ"[: board.width]
    marks = prohibited(game)
    kos = frozenset(p for ko in game.ko_analysis() for p in ko["points"])
    letter_of = letters(game.players)
    last = game.last_move
    header = "   " + " ".join(cols)
    lines = [header]
    for y in range(board.height, 0, -1):
        names = [f"{col}{y}" for col in cols]
        row = [f"{y:>2}"]
        for x, point in enumerate(names):
            row.append("(" if point == last else (")" if x and names[x - 1] == last else " "))
            row.append(_cell(game, point, style, marks, letter_of, kos))
        row.append(")" if names[-1] == last else " ")
        lines.append("".join(row) + f"{y}")
    lines.append(header)
    return lines


def _drawing(game: Game, style: Style, max_rows: int) -> list[str] | None:
    """Points placed by their coordinates on a character canvas; None when they do not fit apart.

    An empty point shows its name (dimmed), a stone its player's letter, the last stone in brackets.
    """
    board = game.board
    assert board.coords is not None
    xs = sorted({x for x, _ in board.coords.values()})
    ys = sorted({y for _, y in board.coords.values()})
    step_x, step_y = _min_gap(xs), _min_gap(ys)
    name_width = max(len(p) for p in board.points)
    per_step = max(2, math.ceil((name_width + 1) / 2))
    rows = round((ys[-1] - ys[0]) / step_y) + 1
    width = round((xs[-1] - xs[0]) / step_x) * per_step + name_width + 2
    if rows > max_rows or width > 48:
        return None
    canvas: list[list[str | None]] = [[None] * width for _ in range(rows)]
    marks = prohibited(game)
    letter_of = letters(game.players)
    for point in board.points:
        x, y = board.coords[point]
        column = round((x - xs[0]) / step_x) * per_step + 1
        row = rows - 1 - round((y - ys[0]) / step_y)
        seat = game.stone_at(point)
        if seat is None and point not in marks:
            chars = [style.paint(ch, "2") for ch in point]
        else:
            mark = _cell(game, point, style, marks, letter_of)
            chars = ["(", mark, ")"] if point == game.last_move else [mark]
            column -= 1 if point == game.last_move else 0
        span = range(column, column + len(chars))
        if span.stop > width or any(canvas[row][i] is not None for i in span):
            return None
        for i, ch in zip(span, chars):
            canvas[row][i] = ch
    return ["".join(ch or " " for ch in line).rstrip() for line in canvas]


def _min_gap(values: list[float]) -> float:
    gaps = [b - a for a, b in zip(values, values[1:]) if b - a > 1e-9]
    return min(gaps) if gaps else 1.0


def _point_list(game: Game, style: Style, max_rows: int) -> list[str]:
    """`name stone : neighbours` entries in two columns, page `style.page` of them."""
    board = game.board
    letter_of = letters(game.players)
    marks = prohibited(game)
    entries = []
    for point in board.points:
        seat = game.stone_at(point)
        stone = letter_of[seat] if seat is not None else ("*" if point in marks else ".")
        if point == game.last_move:
            stone += "<"
        text = f"{point} {stone}: {' '.join(board.neighbours(point))}"
        if len(text) > 38:
            text = text[:37] + "…"
        entries.append((text, seat))
    per_page = 2 * (max_rows - 1)
    pages = max(1, math.ceil(len(entries) / per_page))
    page = style.page % pages
    chunk = entries[page * per_page:(page + 1) * per_page]
    half = math.ceil(len(chunk) / 2)
    lines = [f"points {page * per_page + 1}-{page * per_page + len(chunk)} of {len(entries)}"
             + (" ('more' for the next page)" if pages > 1 else "")]
    for left, right in zip(chunk[:half], chunk[half:] + [("", None)] * (half - len(chunk[half:]))):
        lines.append(_paint_entry(left, game, style).ljust(40 + _escape_len(left, game, style))
                     + _paint_entry(right, game, style))
    return lines


def _paint_entry(entry: tuple[str, int | None], game: Game, style: Style) -> str:
    text, seat = entry
    return style.paint(text, seat_colour_code(game, seat)) if seat is not None else text


def _escape_len(entry: tuple[str, int | None], game: Game, style: Style) -> int:
    return len(_paint_entry(entry, game, style)) - len(entry[0])


def info_lines(view: RoomView, mine: list[int], now: float, style: Style) -> list[str]:
    """The panel beside the board: room, rules, players with clocks and prisoners, turn, phase, result."""
    game = view.game
    letter_of = letters(game.players)
    lines = [f"room {view.room}  {game.rules.name}  {game.board.spec or f'{len(game.board)}-point graph'}"]
    for seat, colour in enumerate(game.players):
        tag = style.paint(letter_of[seat], seat_colour_code(game, seat))
        name = view.seat_name(seat)[:12]
        parts = [f"{tag} {colour:<6} {name:<12}"]
        if view.clocks is not None and seat < len(view.clocks.seats):
            parts.append(view.clocks.describe(seat, now))
        parts.append(f"pris {game.prisoners[seat]}")
        if not game.active[seat]:
            parts.append("out")
        if seat == game.to_move:
            parts.insert(0, ">")
        else:
            parts.insert(0, " ")
        if seat in mine:
            parts.append("(you)")
        lines.append(" ".join(parts))
    lines.append(f"phase: {game.phase}" + (f", {len(game.history)} moves" if game.history else ""))
    if view.status == "waiting":
        free = sum(1 for s in view.seats if not s.get("name"))
        lines.append(f"waiting for {free} more player{'s' if free != 1 else ''}")
    elif game.to_move is not None:
        who = "you" if game.to_move in mine else f"{game.players[game.to_move]} ({view.seat_name(game.to_move)})"
        lines.append(f"to move: {who}")
    if game.last_move:
        lines.append(f"last stone: {game.last_move}")
    marks = prohibited(game)
    if marks:
        shown = ", ".join(f"{point} {reason}" for point, reason in list(marks.items())[:4])
        lines.append(f"* prohibited: {shown}" + (" ..." if len(marks) > 4 else ""))
        if "cycle" in marks.values():
            lines.append("  (cycle: 'appeal P' asks for it)")
    lines.extend(ko_lines(game))
    if game.phase == "scoring":
        lines.append(f"mark dead: 'dead P', then 'done'; dead: {' '.join(game.dead) or 'none'}")
        lines.append(f"accepted: {', '.join(game.players[s] for s in game.accepted) or 'nobody yet'}")
    if game.phase == "scoring" and game.rules.ending.value == "dispute":
        lines.append("contest a mark: 'dispute P' plays the chain out")
    if game.phase == "dispute" and game.disputed:
        lines.append(f"dispute of {' '.join(game.disputed[:6])}{' ...' if len(game.disputed) > 6 else ''}")
        lines.append("owner: a play or 'give' after each play")
    if game.proposal is not None:
        lines.append(f"ranking proposed: {' '.join(map(str, game.proposal))} ('accept' / 'reject')")
    if view.undo is not None:
        lines.append(f"{game.players[view.undo['seat']]} asks to undo ('undo yes' / 'undo no')")
    if view.result is not None:
        result = view.result
        score = ", ".join(f"{game.players[s]} {p:g}" for s, p in enumerate(result.get("score", [])))
        ranking = " ".join(f"{game.players[s]}:{place}" for s, place in enumerate(result.get("ranking", [])))
        lines.append(f"GAME OVER ({result.get('reason')})")
        lines.append(f"score: {score}")
        lines.append(f"ranking: {ranking}")
    for name, text in view.chat[-3:]:
        lines.append(f"<{name[:10]}> {text}"[:40])
    return lines


def screen(view: RoomView, mine: list[int], now: float, style: Style, message: str = "",
           width: int = WIDTH, height: int = HEIGHT) -> list[str]:
    """The whole screen but the prompt: the board on the left, the panel on the right, a message."""
    board = board_lines(view.game, style, max_rows=height - 3)
    panel = info_lines(view, mine, now, style)
    board_width = max((_visible_len(line) for line in board), default=0) + 2
    panel_width = max(20, width - board_width - 1)
    out = []
    if board_width + 20 > width:
        out = board[: height - 3 - len(panel)] + [line[: width] for line in panel]
    else:
        for i in range(max(len(board), len(panel))):
            left = board[i] if i < len(board) else ""
            right = _clip(panel[i], panel_width) if i < len(panel) else ""
            out.append(left + " " * (board_width - _visible_len(left)) + right)
    notice = textwrap.wrap(message, width - 1)[:MESSAGE_LINES] or [""]
    return out[: height - 1 - len(notice)] + notice


def _visible_len(text: str) -> int:
    length, skipping = 0, False
    for ch in text:
        if ch == "\x1b":
            skipping = True
        elif skipping:
            skipping = ch != "m"
        else:
            length += 1
    return length


def _clip(text: str, width: int) -> str:
    if _visible_len(text) <= width:
        return text
    out, shown, skipping = [], 0, False
    for ch in text:
        if ch == "\x1b":
            skipping = True
        if skipping:
            out.append(ch)
            skipping = ch != "m"
            continue
        if shown >= width - 1:
            continue
        out.append(ch)
        shown += 1
    return "".join(out) + "…" + ("\x1b[0m" if "\x1b" in text else "")
