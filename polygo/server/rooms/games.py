"""From room settings to engine games and back to the wire: building, replaying, describing.

Plain synchronous code (no I/O) so the rooms and the tests share it. The room stores every move row
it commits; a game is rebuilt from those rows. One row kind is the server's own: "undo", which takes
back the live move before it (an accepted undo request); the engine never sees it.
"""

from __future__ import annotations

import functools
import json
import re
import weakref
from typing import Any, Sequence

from polygo.rules import Board, Game
from polygo.rules.ruleset import Repetition, preset
from polygo.protocol import RoomSettings, engine_options, unportable
from polygo.protocol.clock_settings import ClockSettings

from .clock import Clocks

UNDO = "undo"
"""The move row of an accepted undo request."""

SERVER_ONLY_MOVES = ("timeout", UNDO)
"""Move strings a client may not send: the server writes them."""

_SPEC = re.compile(r"(?:(?:grid|torus):)?\d{1,2}(?:x\d{1,2})?")


class SettingsError(ValueError):
    """Settings that make no playable game; the message says why."""


_graphs: weakref.WeakValueDictionary[str, Board] = weakref.WeakValueDictionary()
"""Graph boards by their JSON, while a game holds them: rooms on the same graph share one board
(a 1,000-point graph's board is some 200 KiB), and nothing is kept once no game uses it. A board
is filed under the spec it was asked for and under its description (`Board.describe`, what the
rooms' settings store), so that a room made by `create` and one read back from the store find
the same board, and its one description."""


def board_of(spec: str | dict[str, Any]) -> Board:
    """The board a room's settings name. Spec strings never name files on the server."""
    if isinstance(spec, str):
        return _named_board(spec)
    key = _graph_key(spec)
    board = _graphs.get(key)
    if board is None:
        board = Board.from_json(spec)
        board = _graphs[key] = _graphs.setdefault(_graph_key(board.describe()), board)
    return board


def _graph_key(spec: dict[str, Any]) -> str:
    return json.dumps(spec, sort_keys=True, separators=(",", ":"))


@functools.lru_cache(maxsize=64)
def _named_board(spec: str) -> Board:
    """Boards are immutable and costly to build: build each once."""
    if not (_SPEC.fullmatch(spec.strip()) or spec in Board.shipped()):
        raise SettingsError(f"unknown board {spec!r}: use a size like 19 or 9x9, torus:9x9, "
                            f"or one of {', '.join(Board.shipped())}")
    return Board.parse(spec)


def board_points(settings: dict[str, Any]) -> int:
    """How many points the board of stored settings has (a named board is built once, a graph's
    points are counted as stored)."""
    board = settings["board"]
    if isinstance(board, dict):
        return len(board.get("points") or ())
    return len(_named_board(board))


def clock_of(spec: str | dict[str, Any] | None) -> ClockSettings | None:
    """The clock a room's settings ask for, or None for no clock."""
    if spec is None:
        return None
    cs = ClockSettings.parse(spec) if isinstance(spec, str) else ClockSettings.from_json(spec)
    return None if cs.kind == "none" else cs


def new_game(settings: dict[str, Any]) -> Game:
    """A fresh game for stored (normalized) settings."""
    return Game(board_of(settings["board"]), rules=settings["rules"], players=settings["players"],
                **engine_options(settings))


def normalize(settings: RoomSettings) -> dict[str, Any]:
    """Checked settings as stored with the room, or SettingsError with the engine's sentence.

    Every value is the effective one (the preset's komi, superko and no clock written out), so a
    record replays the same even if a preset's default changes later.
    """
    data = settings.to_json()
    why = unportable(data, "settings")
    if why is not None:
        raise SettingsError(why)
    try:
        preset(data["rules"])       # an unknown ruleset is refused before the costly board is built
        clock = clock_of(settings.clock)
        data["clock"] = None if clock is None else clock.to_json()
        game = new_game(data)
    except (ValueError, TypeError, KeyError) as exc:
        raise SettingsError(str(exc) or type(exc).__name__) from None
    if data["bots"] >= data["players"]:
        raise SettingsError(f"{data['bots']} bots in a room of {data['players']} seats leave none for a player")
    if isinstance(data["board"], dict):
        data["board"] = game.board.describe()
    data = _effective(data, game)
    why = unportable(data, "settings")
    if why is not None:
        raise SettingsError(why)
    return data


NO_CLOCK = {"kind": "none"}
"""The stored clock of a room without one."""

_SUPERKO = (Repetition.POSITIONAL, Repetition.SITUATIONAL)


def effective_settings(settings: dict[str, Any], board: Board | None = None) -> dict[str, Any]:
    """Stored settings with every default written out; rooms stored before the server wrote them
    (komi, superko or clock null) get them from the engine's preset. With the `board` they name
    (a room's game's), a graph is that board's own description: the one map the rooms on that
    graph share, not a copy each (the same graph, as `normalize` stored it)."""
    if board is not None and isinstance(settings["board"], dict):
        settings = dict(settings, board=board.describe())
    if settings.get("komi") is not None and settings.get("clock") is not None:
        return settings
    return _effective(dict(settings), new_game(settings))


def _effective(data: dict[str, Any], game: Game) -> dict[str, Any]:
    rules = game.rules
    data["komi"] = rules.komi
    data["superko"] = rules.repetition.value if rules.repetition in _SUPERKO else None
    data["handicap_mode"] = rules.handicap_mode.value
    if data.get("clock") is None:
        data["clock"] = dict(NO_CLOCK)
    return data


def effective_options(game: Game) -> dict[str, Any]:
    """Every ruleset option of `game`, defaults included: a record's `options` that replays the
    same whatever the presets say later (`Game.from_record` takes them back)."""
    rules = game.rules
    options: dict[str, Any] = {"komi": rules.komi, "handicap": rules.handicap,
                               "handicap_mode": rules.handicap_mode.value}
    if rules.repetition in _SUPERKO:
        options["superko"] = rules.repetition.value
    if rules.setup:
        options["setup"] = dict(rules.setup)
    options.update(rules.family_options())
    return options


def live_moves(rows: Sequence[Sequence[Any]]) -> tuple[list[list[Any]], list[int]]:
    """The rows the engine replays (undo rows applied) and, for each, its row index."""
    moves: list[list[Any]] = []
    index: list[int] = []
    for i, row in enumerate(rows):
        if row[1] == UNDO:
            moves.pop()
            index.pop()
        else:
            moves.append([row[0], row[1]])
            index.append(i)
    return moves, index


def replay(settings: dict[str, Any], rows: Sequence[Sequence[Any]]) -> tuple[Game, list[int]]:
    """The game after the stored move rows, and the row index of each entry of its history."""
    moves, index = live_moves(rows)
    board = board_of(settings["board"])
    record = {"rules": settings["rules"], "players": settings["players"],
              "options": engine_options(settings), "moves": moves}
    return Game.from_record(record, board), index


def game_view(game: Game) -> dict[str, Any]:
    """The public state of a game, as the snapshot's `game` field."""
    board = game.board
    view = {
        "rules": game.rules.name,
        "board": board.as_json,
        "players": list(game.players),
        "to_move": game.to_move,
        "phase": game.phase,
        "stones": game.stones(),
        "prisoners": game.prisoners,
        "history": [[p.seat, p.move, p.rescinded] for p in game.history],
        "dead": game.dead,
        "disputed": game.disputed,
        "accepted": game.accepted,
        "proposal": proposal_view(game),
        "dropped": dropped(game),
        "result": result_view(game),
        "legal": legal_view(game),
    }
    if board.spec:
        view["board_spec"] = board.spec
    kos = ko_view(game)
    if kos is not None:
        view["kos"] = kos
    return view


def ko_view(game: Game) -> list[dict[str, Any]] | None:
    """The ko positions on the board (Jasiek's New Ko Rules), None in rooms of other rules: a
    client draws them and knows which ko the fighting rule closes, without a rules engine."""
    return game.ko_analysis() if game.rules.repetition is Repetition.NKR else None


def legal_view(game: Game) -> dict[str, Any] | None:
    """What the player to move may play, so that no client needs a rules engine: the empty points
    it may not play with each one's reason code, the points its appeals may name, and whether it
    may pass. Every other empty point is a legal stone play. None when nobody is to move."""
    seat = game.to_move
    if seat is None:
        return None
    prohibited, words = game.legal_turn()
    # an appeal names a prohibited point, and most turns prohibit none: no comprehension then
    appeals = [m[7:] for m in words if m.startswith("appeal ")] if prohibited else []
    return {"seat": seat, "pass": "pass" in words, "prohibited": prohibited, "appeals": appeals}


def proposal_view(game: Game) -> dict[str, Any] | None:
    proposal = game.proposal
    return None if proposal is None else {"ranking": list(proposal)}


def dropped(game: Game) -> list[int]:
    return [seat for seat, active in enumerate(game.active) if not active]


def result_view(game: Game) -> dict[str, Any] | None:
    """The result as a plain map, or None while the game is undecided."""
    result = game.result
    if result is None:
        return None
    return {"reason": result.reason, "ranking": list(result.ranking), "score": list(result.score)}


def changes(before: dict[str, int], after: dict[str, int]) -> dict[str, Any]:
    """What turns position `before` into `after`: points to clear, then stones to set."""
    return {"clear": [p for p in before if p not in after],
            "set": {p: s for p, s in after.items() if before.get(p) != s}}


def clocks_view(clocks: Clocks | None, seats: int, now: float) -> dict[str, Any] | None:
    """The clocks as clients see them at `now`."""
    if clocks is None:
        return None
    return {"running": clocks.running, "seats": [clocks.remaining(s, now) for s in range(seats)]}


def stone_point(game: Game, move: str) -> str | None:
    """The point `move` names if it is a stone play (None for a pass or an action), spelled as the
    board spells it ("d4" -> "D4"), so the room can update its stones without a second lookup."""
    board = game.board
    i = board.find(move)
    return None if i is None else board.points[i]
