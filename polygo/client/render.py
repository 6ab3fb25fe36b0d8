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

from wcwidth import wcwidth

from polygo.rules import Game

from polygo.client.room import RoomView, result_line

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


@dataclasses.dataclass(frozen=True)
class GridForm:
    """How a grid is drawn: `spaced` puts a space (or the last stone's bracket) between points,
    `frame` repeats the column letters below and the row numbers on the right; `window` (rows at
    most, the column letters included) scrolls a grid taller than the screen."""

    spaced: bool = True
    frame: bool = True
    window: int | None = None


GRID_FORMS = (GridForm(), GridForm(frame=False), GridForm(spaced=False, frame=False))
"""From the most spacious to the most compact; `screen` takes the first that fits."""


def board_lines(game: Game, style: Style, max_rows: int = BOARD_ROWS, max_width: int = 48,
                form: GridForm | None = None) -> list[str]:
    """The board as lines: a grid, a drawing from coordinates, or a list of points."""
    board = game.board
    if _is_grid(game):
        if form is not None:
            return _grid(game, style, form)
        return _grid(game, style, next((f for f in GRID_FORMS if grid_size(game, f)[1] <= max_rows),
                                       GridForm(spaced=False, frame=False, window=max_rows)))
    if board.coords:
        drawn = _drawing(game, style, max_rows, max_width)
        if drawn is not None:
            return drawn
    return _point_list(game, style, max_rows, max_width)


def _is_grid(game: Game) -> bool:
    board = game.board
    return board.kind in ("grid", "torus") and bool(board.width) and bool(board.height)


def grid_size(game: Game, form: GridForm) -> tuple[int, int]:
    """Columns and rows a grid takes in `form`."""
    width, height = game.board.width or 0, game.board.height or 0
    columns = 3 + (2 * width + 1 if form.spaced else width + 1) + (2 if form.frame else 0)
    rows = height + (2 if form.frame else 1)
    return columns, rows if form.window is None else min(rows, form.window)


def star_points(game: Game) -> frozenset[str]:
    """The star points (hoshi) of a square grid of 9 lines or more, odd, as Go boards draw them:
    the 3rd line on 9x9 and the 4th from 13x13 up, and the centre."""
    board = game.board
    size = board.width
    if board.kind != "grid" or size != board.height or size is None or size < 9 or size % 2 == 0:
        return frozenset()
    edge = 2 if size < 13 else 3
    lines = [edge, size // 2, size - 1 - edge] if size >= 13 else [edge, size - 1 - edge]
    cols = "ABCDEFGHJKLMNOPQRSTUVWXYZ"
    points = {f"{cols[x]}{y + 1}" for x in lines for y in lines}
    return frozenset(points | {f"{cols[size // 2]}{size // 2 + 1}"})


def _cell(game: Game, point: str, style: Style, marks: dict[str, str], letter_of: list[str],
          owner: dict[str, int] | None = None, kos: frozenset[str] = frozenset(),
          stars: frozenset[str] = frozenset()) -> str:
    """One point: a stone's letter, `x` for a stone marked dead, the owner's letter in lower case
    for territory in the marking phase, `*` for a prohibited point, `k` for an empty point of a ko
    position (Jasiek's New Ko Rules), `+` for a star point, `.` for the rest."""
    seat = game.stone_at(point)
    if seat is None:
        if owner and point in owner:
            return style.paint(letter_of[owner[point]].lower(), "2;" + seat_colour_code(game, owner[point]))
        if point in marks:
            return style.paint("*", "2")
        if point in kos:
            return style.paint("k", "2")
        return "+" if point in stars else "."
    if point in game.dead:
        return style.paint("x", seat_colour_code(game, seat))
    return style.paint(letter_of[seat], seat_colour_code(game, seat))


def _owners(game: Game) -> dict[str, int] | None:
    counted = marking_count(game)
    return None if counted is None else counted[1]


def _grid(game: Game, style: Style, form: GridForm = GridForm()) -> list[str]:
    board = game.board
    assert board.width is not None and board.height is not None
    cols = "ABCDEFGHJKLMNOPQRSTUVWXYZ"[: board.width]
    marks = prohibited(game)
    kos = frozenset(p for ko in game.ko_analysis() for p in ko["points"])
    stars = star_points(game)
    letter_of = letters(game.players)
    owner = _owners(game)
    last = game.last_move
    header = "   " + (" ".join(cols) if form.spaced else "".join(cols))
    shown = _window(game, style, form)
    lines = [header]
    for y in shown:
        names = [f"{col}{y}" for col in cols]
        cells = [_cell(game, point, style, marks, letter_of, owner, kos, stars) for point in names]
        if form.spaced:
            row = [f"{y:>2}"]
            for x, cell in enumerate(cells):
                row.append("(" if names[x] == last else (")" if x and names[x - 1] == last else " "))
                row.append(cell)
            row.append(")" if names[-1] == last else " ")
        else:
            # no room for brackets: the last stone in reverse video, its row marked `>`
            row = [f"{y:>2}", ">" if last in names else " "]
            row += [style.paint(_plain(cell), "7") if names[x] == last and style.color else cell
                    for x, cell in enumerate(cells)]
        lines.append("".join(row) + (f"{y}" if form.frame else ""))
    if form.frame:
        lines.append(header)
    return lines


def _window(game: Game, style: Style, form: GridForm) -> list[int]:
    """The row numbers drawn, top down: all of them, or a window round the last stone played
    (the top rows before any), moved on by half a window with each `more`."""
    height = game.board.height or 0
    rows = list(range(height, 0, -1))
    if form.window is None or form.window >= height + (2 if form.frame else 1):
        return rows
    size = max(1, form.window - (2 if form.frame else 1))
    last = game.last_move
    centre = rows.index(int(last[1:])) if last and last[1:].isdigit() and int(last[1:]) <= height else size // 2
    starts = height - size + 1
    first = min(max(0, centre - size // 2), starts - 1)
    first = (first + style.page * max(1, size // 2)) % starts
    return rows[first:first + size]


def _plain(text: str) -> str:
    """`text` without its colour escapes."""
    out, skipping = [], False
    for ch in text:
        if ch == "\x1b":
            skipping = True
        elif skipping:
            skipping = ch != "m"
        else:
            out.append(ch)
    return "".join(out)


def _drawing(game: Game, style: Style, max_rows: int, max_width: int) -> list[str] | None:
    """Points placed by their coordinates on a character canvas, with every connection drawn as a
    line (`-`, `|`, `/`, `\\`) under the points; None when the points do not fit apart.

    An empty point shows its name (dimmed), a stone its player's letter, the last stone in brackets.
    The most spacious scale that fits is used: two rows per step where possible, so that the lines
    between rows can be seen.
    """
    board = game.board
    assert board.coords is not None
    xs = sorted({x for x, _ in board.coords.values()})
    ys = sorted({y for _, y in board.coords.values()})
    step_x, step_y = _min_gap(xs), _min_gap(ys)
    lattice = {p: (round((x - xs[0]) / step_x), round((ys[-1] - y) / step_y)) for p, (x, y) in board.coords.items()}
    name_width = max(_visible_len(p) for p in board.points)
    per_step = max(2, math.ceil((name_width + 1) / 2))
    span_x = max(x for x, _ in lattice.values())
    span_y = max(y for _, y in lattice.values())
    for kx, ky in ((per_step, 2), (2 * per_step, 2), (per_step, 1)):
        rows, width = span_y * ky + 1, span_x * kx + name_width + 2
        if rows > max_rows or width > max_width:
            continue
        drawn = _draw_at(game, style, {p: (x * kx + 1, y * ky) for p, (x, y) in lattice.items()}, rows, width)
        if drawn is not None:
            return drawn
    return None


def _draw_at(game: Game, style: Style, places: dict[str, tuple[int, int]], rows: int,
             width: int) -> list[str] | None:
    board = game.board
    canvas: list[list[str | None]] = [[None] * width for _ in range(rows)]
    labels: dict[str, list[str]] = {}
    marks = prohibited(game)
    letter_of = letters(game.players)
    for point in board.points:
        column, row = places[point]
        seat = game.stone_at(point)
        if seat is None and point not in marks:
            chars = [style.paint(ch, "2") for ch in point]
        else:
            mark = _cell(game, point, style, marks, letter_of)
            chars = ["(", mark, ")"] if point == game.last_move else [mark]
            places[point] = (column - 1, row) if point == game.last_move else (column, row)
        labels[point] = chars
    taken: set[tuple[int, int]] = set()
    for point, chars in labels.items():
        column, row = places[point]
        cells = {(row, c) for c in range(column, column + len(chars))}
        if column + len(chars) > width or cells & taken:
            return None
        taken |= cells
    centre = {p: (places[p][0] + (len(labels[p]) - 1) // 2, places[p][1]) for p in labels}
    for a, b in board.edges:
        _line(canvas, centre[a], centre[b], taken)
    for point, chars in labels.items():
        column, row = places[point]
        for i, ch in enumerate(chars):
            canvas[row][column + i] = ch
    return ["".join(ch or " " for ch in line).rstrip() for line in canvas]


def _line(canvas: list[list[str | None]], start: tuple[int, int], end: tuple[int, int],
          taken: set[tuple[int, int]]) -> None:
    """A straight line of `-|/\\` between two points' cells, leaving the points' labels alone."""
    (c0, r0), (c1, r1) = start, end
    steps = max(abs(c1 - c0), abs(r1 - r0))
    if steps < 2:
        return
    dc, dr = c1 - c0, r1 - r0
    if dr == 0:
        ch = "-"
    elif abs(dc) <= abs(dr) / 3:
        ch = "|"
    elif abs(dr) * 3 <= abs(dc):
        ch = "-"
    else:
        ch = "\\" if (dc > 0) == (dr > 0) else "/"
    for i in range(1, steps):
        cell = (round(r0 + dr * i / steps), round(c0 + dc * i / steps))
        if cell not in taken and canvas[cell[0]][cell[1]] is None:
            canvas[cell[0]][cell[1]] = ch


def _min_gap(values: list[float]) -> float:
    gaps = [b - a for a, b in zip(values, values[1:]) if b - a > 1e-9]
    return min(gaps) if gaps else 1.0


def _point_list(game: Game, style: Style, max_rows: int, max_width: int = 80) -> list[str]:
    """`name stone : neighbours` entries in as many columns of 40 as `max_width` holds, page
    `style.page` of them; a page is exactly what fits in `max_rows`, so `more` skips nothing."""
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
    columns = max(1, max_width // 40)
    per_page = columns * max(1, max_rows - 1)
    pages = max(1, math.ceil(len(entries) / per_page))
    page = style.page % pages
    chunk = entries[page * per_page:(page + 1) * per_page]
    height = math.ceil(len(chunk) / columns)
    lines = [f"points {page * per_page + 1}-{page * per_page + len(chunk)} of {len(entries)}"
             + (" ('more' for the next page)" if pages > 1 else "")]
    for row in range(height):
        cells = [chunk[i] for i in range(row, len(chunk), height)]
        lines.append("".join(_paint_entry(cell, game, style).ljust(40 + _escape_len(cell, game, style))
                             for cell in cells).rstrip())
    return lines


def _paint_entry(entry: tuple[str, int | None], game: Game, style: Style) -> str:
    text, seat = entry
    return style.paint(text, seat_colour_code(game, seat)) if seat is not None else text


def _escape_len(entry: tuple[str, int | None], game: Game, style: Style) -> int:
    return len(_paint_entry(entry, game, style)) - len(entry[0])


def marking_count(game: Game) -> tuple[list[float], dict[str, int]] | None:
    """In the marking phase: the score if the marks were accepted now, and each empty point's owner.

    Computed on a copy where every seat accepts the marks, so it is exactly the count the engine
    will make; None outside the marking phase.
    """
    if game.phase != "scoring":
        return None
    count = game.copy()
    for seat, active in enumerate(count.active):
        if active and seat not in count.accepted and count.phase == "scoring":
            count.play("done", seat=seat)
    return count.score(), territory(count)


def territory(game: Game) -> dict[str, int]:
    """Empty points whose region touches the stones of one seat only, with that seat."""
    stones = game.stones()
    owner: dict[str, int] = {}
    seen: set[str] = set()
    for start in game.board.points:
        if start in stones or start in seen:
            continue
        region, colours, todo = {start}, set(), [start]
        while todo:
            for n in game.board.neighbours(todo.pop()):
                if n in stones:
                    colours.add(stones[n])
                elif n not in region:
                    region.add(n)
                    todo.append(n)
        seen |= region
        if len(colours) == 1:
            colour = colours.pop()
            owner.update(dict.fromkeys(region, colour))
    return owner


def info_lines(view: RoomView, mine: list[int], now: float, style: Style, log_rows: int = 6) -> list[str]:
    """The panel beside the board: room, rules, players with clocks and captures, whose turn, what
    to type now, the move log (every action of every player) and the chat."""
    game = view.game
    letter_of = letters(game.players)
    komi_text = f"  komi {game.rules.komi:g}" if len(game.players) == 2 else ""
    lines = [f"room {view.room}  {game.rules.name}  {game.board.spec or f'{len(game.board)}-point graph'}{komi_text}"]
    lasker = game.rules.name == "lasker-maas"
    for seat, colour in enumerate(game.players):
        tag = style.paint(letter_of[seat], seat_colour_code(game, seat))
        name = _fit(view.seat_name(seat), 12)
        parts = [">" if seat == game.to_move else " ", f"{tag} {colour:<6} {name}"]
        if view.clocks is not None and seat < len(view.clocks.seats):
            parts.append(view.clocks.describe(seat, now))
        parts.append(f"supply {game.prisoners[seat]}" if lasker else f"caps {view.captured[seat]}")
        if not game.active[seat]:
            parts.append("out")
        if seat in mine:
            parts.append("(you)")
        lines.append(" ".join(p for p in parts if p))
    lines.append(f"phase: {game.phase}" + (f", move {len(game.history)}" if game.history else ""))
    lines.extend(_turn_lines(view, mine, style))
    marks = prohibited(game)
    if marks:
        shown = ", ".join(f"{point} {reason}" for point, reason in list(marks.items())[:4])
        lines.append(f"* prohibited: {shown}" + (" ..." if len(marks) > 4 else ""))
        if "cycle" in marks.values():
            lines.append("  (cycle: 'appeal P' asks for it)")
    lines.extend(ko_lines(game))
    counted = marking_count(game)
    if counted is not None:
        score, owner = counted
        lines.append("count now: " + ", ".join(f"{letter_of[s]} {p:g}" for s, p in enumerate(score)))
        per = [sum(1 for o in owner.values() if o == s) for s in range(len(game.players))]
        lines.append("territory (lower case): " + ", ".join(f"{letter_of[s]} {n}" for s, n in enumerate(per)))
        lines.append(f"dead (x): {' '.join(game.dead) or 'none'}; accepted: "
                     f"{', '.join(game.players[s] for s in game.accepted) or 'nobody yet'}")
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
        lines.append(f"GAME OVER: {result_line(game.players, view.result)}")
        if len(game.players) > 2 or view.result.get("reason") == "passes":
            score = ", ".join(f"{game.players[s]} {p:g}" for s, p in enumerate(view.result.get("score", [])))
            lines.append(f"score: {score}")
    if log_rows > 0:
        lines.append("-- moves --")
        lines.extend(log_lines(view, style)[-log_rows:])
    for name, text in view.chat[-3:]:
        lines.append(f"<{_fit(name, 10).rstrip()}> {text}")
    return lines


def _turn_lines(view: RoomView, mine: list[int], style: Style) -> list[str]:
    """Whose turn it is, and for the player exactly what to type now."""
    game = view.game
    if view.status == "waiting":
        free = sum(1 for s in view.seats if not s.get("name"))
        return [f"waiting for {free} more player{'s' if free != 1 else ''}"]
    if view.status == "ended" or game.phase == "ended":
        return []
    if game.phase == "scoring":
        waiting = [s for s, active in enumerate(game.active) if active and s not in game.accepted]
        if any(s in mine for s in waiting):
            return [style.paint("MARKING: type 'done' to accept the count,", "1;7"),
                    "'dead P' marks a chain dead, 'alive P' unmarks it,", "'resume' to dispute and play on"]
        return ["marking: waiting for " + ", ".join(game.players[s] for s in waiting)]
    if game.to_move is None:
        return []
    if game.to_move in mine:
        text = "YOUR TURN: type a point or 'pass'" + (" or 'appeal P'" if game.rules.name == "kee" else "")
        return [style.paint(text, "1;7") if style.color else ">> " + text]
    return [f"to move: {game.players[game.to_move]} ({view.seat_name(game.to_move)})"]


def log_lines(view: RoomView, style: Style) -> list[str]:
    """The move log: `12 W bot1 passes`, one line per action of any player (and the room's own).

    Players are named, also the one at this terminal (the panel marks your seat with "(you)")."""
    game = view.game
    letter_of = letters(game.players)
    out = []
    for entry in view.log:
        number = f"{entry.number:>3} " if entry.number is not None else "    "
        if entry.seat is None:
            out.append(f"{number}{entry.text}")
            continue
        who = _fit(view.seat_name(entry.seat), 10).rstrip()
        tag = style.paint(letter_of[entry.seat], seat_colour_code(game, entry.seat))
        out.append(f"{number}{tag} {who} {entry.text}")
    return out


def _fit(text: str, columns: int) -> str:
    """`text` cut or padded to exactly `columns` terminal columns (wide characters count two)."""
    out, used = [], 0
    for ch in text:
        w = max(0, wcwidth(ch))
        if used + w > columns:
            break
        out.append(ch)
        used += w
    return "".join(out) + " " * (columns - used)


PANEL_MIN = 30
"""Columns the panel needs beside the board; with fewer it goes below the board."""


def screen(view: RoomView, mine: list[int], now: float, style: Style, message: str = "",
           width: int = WIDTH, height: int = HEIGHT) -> list[str]:
    """The whole screen but the prompt, for a terminal of `width` x `height`.

    The board on the left and the panel on the right when both fit, else the panel below the board;
    a grid takes the most spacious form that leaves the panel its place (`GRID_FORMS`), and a grid
    taller than the screen scrolls (`more`). Panel lines too long for their place wrap rather than
    lose their end; the move log takes whatever rows are left, one line an action, and no line is
    wider than `width` columns.
    """
    notice = [line for part in message.split("\n") for line in textwrap.wrap(part, max(10, width - 1))]
    notice = notice[:MESSAGE_LINES] or [""]
    rows = max(4, height - 1 - len(notice))
    board, beside = _board_for(view, mine, now, style, rows, width)
    board_width = max((_visible_len(line) for line in board), default=0) + 2
    scrolled = _scrolled(view.game, board)
    if beside:
        scrolled = [part for line in scrolled for part in _wrap(line, width - board_width)]
        panel = scrolled + _panel(view, mine, now, style, rows - len(scrolled), width - board_width)
        out = []
        for i in range(max(len(board), len(panel))):
            left = board[i] if i < len(board) else ""
            right = panel[i] if i < len(panel) else ""
            out.append(left + " " * (board_width - _visible_len(left)) + right)
    else:
        out = [_clip(line, width) for line in board] + scrolled + _panel(view, mine, now, style,
                                                                         rows - len(board) - 1, width)
    return (out + [""] * rows)[:rows] + notice


def _scrolled(game: Game, board: list[str]) -> list[str]:
    """A line for the panel when a grid does not show all its rows: which ones it shows."""
    height = game.board.height or 0
    if not _is_grid(game) or len(board) - 1 >= height:
        return []
    numbers = [line[:2].strip() for line in board[1:]]
    return [f"rows {numbers[0]}-{numbers[-1]} of {height} shown ('more' scrolls)"]


def _board_for(view: RoomView, mine: list[int], now: float, style: Style, rows: int,
               width: int) -> tuple[list[str], bool]:
    """The board drawn for `rows` x `width`, and whether the panel goes beside it."""
    game = view.game
    if not _is_grid(game):
        board = board_lines(game, style, max_rows=rows, max_width=max(40, width - 32))
        return board, max((_visible_len(line) for line in board), default=0) + 2 + PANEL_MIN <= width
    for form in GRID_FORMS:
        columns, needed = grid_size(game, form)
        if needed <= rows and columns + 2 + PANEL_MIN <= width:
            return _grid(game, style, form), True
    head = len(_panel(view, mine, now, style, rows, width, log=False))
    for form in GRID_FORMS:
        columns, needed = grid_size(game, form)
        if needed + head <= rows and columns <= width:
            return _grid(game, style, form), False
    for form in GRID_FORMS[1:]:
        scrolled = dataclasses.replace(form, window=rows)
        if grid_size(game, scrolled)[0] + 2 + PANEL_MIN <= width:
            return _grid(game, style, scrolled), True
    return _grid(game, style, GridForm(spaced=False, frame=False, window=max(3, rows - head))), False


def _panel(view: RoomView, mine: list[int], now: float, style: Style, rows: int, width: int,
           log: bool = True) -> list[str]:
    """The panel for `rows` x `width`: its lines wrapped to the width, then as many lines of the
    move log as the rows leave (each cut to the width)."""
    head = [part for line in info_lines(view, mine, now, style, log_rows=0) for part in _wrap(line, width)]
    if not log:
        return head
    log_rows = max(0, rows - len(head) - 1)
    if log_rows == 0:
        return head
    lines = info_lines(view, mine, now, style, log_rows=log_rows)
    start = lines.index("-- moves --")
    before = [part for line in lines[:start] for part in _wrap(line, width)]
    moves = [_clip(line, width) for line in lines[start:start + 1 + log_rows]]
    after = [part for line in lines[start + 1 + log_rows:] for part in _wrap(line, width)]
    return before + moves + after


def _wrap(text: str, width: int) -> list[str]:
    """`text` in lines of at most `width` columns, broken at spaces (colour escapes kept whole);
    the lines after the first are indented by two spaces. A word longer than a line is cut."""
    if _visible_len(text) <= width:
        return [text]
    lines: list[str] = []
    current: str | None = None
    for word in text.split(" "):
        candidate = word if current is None else f"{current} {word}"
        if current is None or _visible_len(candidate) <= width or not current.strip():
            current = candidate
            continue
        lines.append(_clip(current, width))
        current = "  " + word
    lines.append(_clip(current or "", width))
    return lines


def _visible_len(text: str) -> int:
    """Terminal columns `text` takes: colour escapes take none, wide (CJK) characters two."""
    return sum(max(0, wcwidth(ch)) for ch in _plain(text))


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
        w = max(0, wcwidth(ch))
        if shown + w > width - 1:
            shown = width
            continue
        out.append(ch)
        shown += w
    return "".join(out) + "…" + ("\x1b[0m" if "\x1b" in text else "")
