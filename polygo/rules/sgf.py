"""Export a two-player grid game as SGF FF[4], for GNU Go, sgfmill and the usual editors.

SGF knows two colours on a rectangle, so this is the export for two-player grid games; any other
board or player count is a ValueError, and the JSON record (``Game.to_record()``) stays the full
record of every game.

The record is replayed with ``Game.from_record`` first, so the SGF says what the engine decided (whose
turn each move was, which plays were rescinded, the handicap points, the result) instead of
re-deriving the rules here; a record that does not replay is a ValueError naming the move.

Decisions:

- Rescinded plays (Kee rules 13-14) are left out of the moves: SGF cannot take a stone back, and a
  reader replaying them would reach the wrong position. The next node written carries a comment
  listing them (the last node, if none follows), so the SGF still shows they were played.
- An appealing pass is a pass (``B[]``) with the comment ``appeal D4``; a stone given as a prisoner
  in a Nieminen dispute play-out is a pass with the comment ``give`` (the turn went by, no stone
  was placed).
- ``resume`` and ``dispute D4`` are noted in a comment on the next node written (the last node if
  none follows), as ``B resume`` or ``W dispute D4``; the play-out's stones are ordinary moves.
- Handicap: fixed stones are the engine's points (``polygo.rules.handicap``); free ones are Black's first
  consecutive stone plays. Both go in the root as HA and AB followed by PL[W], as GNU Go writes them.
  Set-up stones go in AB/AW.
- Marking, agreement, resignation and timeout (``dead``, ``alive``, ``done``, ``rank``, ``accept``,
  ``reject``, ``resign``, ``timeout``) are not SGF moves; the result they lead to goes in RE, and a
  game ended with no result (Nieminen N12, a move cap) is ``RE[Void]``.
- Agreed dead stones: when the game ended with stones marked dead, a last node (no move) holds the
  final territory as TB/TW (CGoban's and Sabaki's convention: empty points bordered by one colour
  only, the removed dead stones' points included) and a comment naming the dead stones. Readers
  that ignore markup (GNU Go) still replay the moves to the position before the removal.
- AP is ``polygo:`` and the installed package's version.
- RU names the preset: the standard value its parts make (``Japanese``, ``Chinese``, ``AGA``,
  ``NZ``, ``Tromp-Taylor``: ``polygo.rules.describe.sgf_rules``), else its polygo name (``kee``).
  The room's options (a superko changed, ...) are not in it; the JSON record holds them.
- Optional record keys beside the engine's: ``names`` (two player names for PB/PW; a missing one
  is replaced by the seat name), ``date`` (``YYYY-MM-DD`` for DT), ``title`` (GN), ``place`` (PC),
  ``clock`` (the room's clock settings map: TM is the main time, OT the overtime as KGS writes it,
  e.g. ``5x30 byo-yomi``, ``25/300 Canadian``, ``fischer +10``) and ``times`` (history index ->
  ``[seconds, count]``: the mover's time left after that move, BL/WL, and in overtime the byo-yomi
  periods or Canadian stones left, OB/OW). Extra items in a move entry (the store's client sequence
  number and rescinded flag) are ignored.
"""

from __future__ import annotations

from collections.abc import Mapping
from importlib import metadata

from .board import COLUMNS, Board
from .errors import GoRulesError
from .game import Game, Play, Result
from .handicap import fixed_handicap_points
from .describe import sgf_rules
from .ruleset import PRESETS, HandicapMode, Ruleset

_LETTERS = "abcdefghijklmnopqrstuvwxyz"
_COLOURS = ("B", "W")
_TURN_WORDS = ("pass", "appeal", "give")
_NOT_MOVES = ("dead", "alive", "done", "rank", "accept", "reject", "resign", "timeout")
_NOTED = ("resume", "dispute")


def to_sgf(record: Mapping) -> str:
    """The record as one SGF FF[4] game tree; see the module docstring for what is kept and how."""
    board = _grid(record.get("board"))
    players = record.get("players", 2)
    count = players if isinstance(players, int) else len(players)
    if count != 2:
        raise ValueError(f"SGF holds two-player games only; this game has {count} players.")
    game = _replay(record)
    history = game.history
    rules = game.rules
    start = _free_handicap_end(history, rules.handicap) if rules.handicap and _free(rules) else 0
    black = [p for p, s in rules.setup.items() if s == 0]
    white = [p for p, s in rules.setup.items() if s == 1]
    if rules.handicap and not _free(rules):
        black += fixed_handicap_points(board, rules.handicap)
    black += [play.move for play in history[:start]]

    given = list(record.get("names") or ())
    names = [given[i] if i < len(given) and given[i] else game.players[i] for i in (0, 1)]
    root = [("FF", "4"), ("GM", "1"), ("CA", "UTF-8"), ("AP", f"polygo:{_version()}"), ("SZ", _size(board)),
            ("RU", sgf_rules(PRESETS.get(rules.name, rules))), ("PB", str(names[0])), ("PW", str(names[1])),
            ("KM", _number(rules.komi))]
    for key, prop in (("title", "GN"), ("place", "PC"), ("date", "DT")):
        if record.get(key):
            root.append((prop, str(record[key])))
    root += _time_properties(record.get("clock"))
    if game.result is not None:
        root.append(("RE", result_text(game.result)))
    if rules.handicap:
        root.append(("HA", str(rules.handicap)))
    head = "".join(_prop(k, v) for k, v in root) + _stones("AB", black, board) + _stones("AW", white, board)
    if rules.handicap:
        head += "PL[W]"

    nodes: list[str] = []
    rescinded: list[str] = []  # waiting for the next node written
    notes: list[str] = []      # likewise
    times = {int(k): v for k, v in (record.get("times") or {}).items()}
    for index, play in enumerate(history[start:], start):
        word = play.move.split()[0]
        if word in _NOT_MOVES:
            continue
        colour = _COLOURS[play.seat]
        if word in _NOTED:
            notes.append(f"{colour} {play.move}")
            continue
        if play.rescinded:
            rescinded.append(f"{colour} {play.move}")
            continue
        node = f"{colour}[{'' if word in _TURN_WORDS else sgf_point(play.move, board)}]"
        comments = ([_rescinded_note(rescinded)] if rescinded else []) + notes
        rescinded, notes = [], []
        if word in ("appeal", "give"):
            comments.append(play.move)
        if comments:
            node += _prop("C", "; ".join(comments))
        node += _time_left(colour, times.get(index))
        nodes.append(node)
    if rescinded or notes:
        note = _prop("C", "; ".join(([_rescinded_note(rescinded)] if rescinded else []) + notes))
        if nodes:
            nodes[-1] += note
        else:
            head += note
    if game.dead and game.result is not None:
        nodes.append(_final_territory(game, board))
    return "(;" + head + "".join("\n;" + node for node in nodes) + ")\n"


def sgf_point(point: str, board: Board) -> str:
    """GTP "D4" (columns A-Z without I, row 1 at the bottom) -> SGF "dp" on 19x19 (from the top-left)."""
    column = COLUMNS.find(point[:1].upper())
    row = int(point[1:]) if point[1:].isdigit() else 0
    if column < 0 or column >= board.width or not 1 <= row <= board.height:
        raise ValueError(f"{point!r} is not a point of a {board.width}x{board.height} grid.")
    return _LETTERS[column] + _LETTERS[board.height - row]


def result_text(result: Result) -> str:
    """SGF RE: "B+R", "W+T", "B+3.5", "W+" (a win with no margin to give), "0" (a draw) or "Void"
    (no result)."""
    if result.reason == "no-result":
        return "Void"
    first, second = result.ranking
    if first == second:
        return "0"
    winner = 0 if first < second else 1
    colour = _COLOURS[winner]
    if result.reason == "resignation":
        return f"{colour}+R"
    if result.reason == "timeout":
        return f"{colour}+T"
    margin = result.score[winner] - result.score[1 - winner] if len(result.score) == 2 else 0
    return f"{colour}+{_number(margin)}" if margin > 0 else f"{colour}+"


def _version() -> str:
    try:
        return metadata.version("polygo")
    except metadata.PackageNotFoundError:
        return "unknown"


def _time_properties(clock: object) -> list[tuple[str, str]]:
    """TM and OT for a clock settings map (nothing for no clock or one that cannot be read)."""
    if not isinstance(clock, Mapping) or clock.get("kind") in (None, "none"):
        return []
    try:
        kind, main = clock["kind"], _number(float(clock.get("main") or 0))
        period = _number(float(clock.get("period") or 0))
        if kind == "byoyomi":
            overtime = f"{int(clock['periods'])}x{period} byo-yomi"
        elif kind == "canadian":
            overtime = f"{int(clock['stones'])}/{period} Canadian"
        elif kind == "fischer":
            cap = float(clock.get("cap") or 0)
            overtime = f"fischer +{_number(float(clock['increment']))}" + (f" max {_number(cap)}" if cap else "")
        elif kind == "absolute":
            return [("TM", main)]
        else:
            return []
    except (KeyError, TypeError, ValueError):
        return []
    return [("TM", main), ("OT", overtime)]


def _time_left(colour: str, left: object) -> str:
    """BL/WL (and OB/OW in overtime) from a ``[seconds, count]`` entry of ``times``."""
    if not isinstance(left, (list, tuple)) or not left or not isinstance(left[0], (int, float)):
        return ""
    text = _prop(f"{colour}L", _number(round(float(left[0]), 1)))
    if len(left) > 1 and isinstance(left[1], int) and not isinstance(left[1], bool) and left[1] > 0:
        text += _prop(f"O{colour}", str(left[1]))
    return text


def _final_territory(game: Game, board: Board) -> str:
    """The last node of a game whose marks were agreed: TB/TW territory and the dead stones named."""
    stones = game.stones()
    owner: dict[str, int | None] = {}
    for point in board.points:
        if point in stones or point in owner:
            continue
        region, borders, todo = {point}, set(), [point]
        while todo:
            for n in board.neighbours(todo.pop()):
                if n in stones:
                    borders.add(stones[n])
                elif n not in region:
                    region.add(n)
                    todo.append(n)
        colour = borders.pop() if len(borders) == 1 else None
        owner.update((p, colour) for p in region)
    black = sorted((p for p, c in owner.items() if c == 0), key=board.points.index)
    white = sorted((p for p, c in owner.items() if c == 1), key=board.points.index)
    dead = ", ".join(sorted(game.dead, key=board.points.index))
    return _stones("TB", black, board) + _stones("TW", white, board) + _prop("C", f"Dead stones: {dead}")


def _grid(spec: object) -> Board:
    try:
        board = Board.from_spec(spec)
    except GoRulesError as exc:
        raise ValueError(f"The record's board {spec!r} is not a board: {exc}") from None
    except TypeError:
        raise ValueError(f"The record's board must be a spec string or a graph, not {spec!r}.") from None
    if board.kind != "grid":
        raise ValueError(f"SGF holds games on rectangular grids only, not on the {board.kind} board {spec!r}.")
    return board


def _replay(record: Mapping) -> Game:
    moves = [list(entry[:2]) for entry in record.get("moves", ())]
    try:
        return Game.from_record({**record, "moves": moves})
    except GoRulesError as exc:
        raise ValueError(f"The record does not replay, so it cannot be exported: {exc}") from None


def _free(rules: Ruleset) -> bool:
    return rules.handicap_mode is HandicapMode.FREE


def _free_handicap_end(history: list[Play], stones: int) -> int:
    """How many leading plays are Black's free handicap stones (live stone plays by seat 0)."""
    end = 0
    while end < min(stones, len(history)):
        play = history[end]
        if play.seat != 0 or play.rescinded or play.move.split()[0] in (*_TURN_WORDS, *_NOT_MOVES, *_NOTED):
            break
        end += 1
    return end


def _size(board: Board) -> str:
    return str(board.width) if board.width == board.height else f"{board.width}:{board.height}"


def _stones(name: str, points: list[str], board: Board) -> str:
    return name + "".join(f"[{sgf_point(p, board)}]" for p in points) if points else ""


def _rescinded_note(plays: list[str]) -> str:
    return "Rescinded (Kee rules 13-14): " + ", ".join(plays)


def _prop(name: str, value: str) -> str:
    return f"{name}[" + value.replace("\\", "\\\\").replace("]", "\\]") + "]"


def _number(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else str(float(value))
