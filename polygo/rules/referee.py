"""The referee: replay a sequence of moves and say, move by move, what the rules make of it.

Pure: it takes moves and yields JSON-ready dicts; ``python -m polygo.rules`` does the reading and
printing. A refused move is reported and skipped, and the replay goes on, so one command
settles a rules question about a whole sequence.
"""

from __future__ import annotations

from typing import Any, Iterable, Iterator, Mapping

from .board import Board
from .errors import IllegalMove
from .game import Game
from .ruleset import Repetition


def split_seat(text: str, players: tuple[str, ...]) -> tuple[int | None, str]:
    """``"white:accept"`` or ``"1:accept"`` → (1, "accept"); a plain move → (None, move)."""
    head, sep, rest = text.partition(":")
    if sep and rest:
        if head.isdigit() and int(head) < len(players):
            return int(head), rest
        if head in players:
            return players.index(head), rest
    return None, text


def referee(game: Game, moves: Iterable[Any]) -> Iterator[dict[str, Any]]:
    """One report per move, then a summary of the game as it stands.

    ``n`` counts the moves given, from 1, refused ones included (as a reader counts lines);
    ``index`` is an accepted move's place in ``Game.history`` and ``rescinded`` the history entries
    the move took out of the live game, both from 0 as on the wire (docs/protocol.md).
    """
    rescinded = {i for i, p in enumerate(game.history) if p.rescinded}
    for number, item in enumerate(moves, 1):
        if isinstance(item, (list, tuple)) and len(item) == 2:
            seat, move = item
        else:
            seat, move = split_seat(str(item), game.players)
        actor = game.to_move if seat is None else seat
        try:
            play = game.play(move, seat=seat)
        except IllegalMove as exc:
            yield {"n": number, "move": move, "seat": actor, "ok": False,
                   "reason": exc.reason.value, "message": exc.message}
            continue
        history = game.history
        report: dict[str, Any] = {"n": number, "index": len(history) - 1, "move": play.move, "seat": play.seat,
                                  "ok": True}
        if play.captures:
            report["captures"] = list(play.captures)
        if play.rescinded:
            report["rescinded"] = [i for i, p in enumerate(history) if p.rescinded and i not in rescinded]
            rescinded.update(report["rescinded"])
        report["to_move"] = game.to_move
        report["phase"] = game.phase
        if game.disputed:
            report["disputed"] = game.disputed
        if game.rules.repetition is Repetition.NKR:
            report["kos"] = game.ko_analysis()
        yield report
    yield summary(game)


def summary(game: Game) -> dict[str, Any]:
    out: dict[str, Any] = {"over": game.over, "phase": game.phase, "score": game.score(),
                           "ranking": game.ranking(), "stones": game.stones()}
    if game.prisoners and any(game.prisoners):
        out["prisoners"] = game.prisoners
    if game.result is not None:
        out["result"] = game.result.reason
    return out


def game_from_options(board: Any, rules: str, players: Any, options: Mapping[str, Any]) -> Game:
    return Game(board if isinstance(board, Board) else Board.from_spec(board), rules=rules,
                players=players, **dict(options))
