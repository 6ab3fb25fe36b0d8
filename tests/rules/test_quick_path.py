"""The quick path (polygo/rules/quick.py) against the readable path of Game.play, side by side.

Two games take the same moves, one with the quick path and one without it (every move by the
readable path), and after every move everything a caller can observe must agree: whether the
move was refused and why, the record, the captures, the position hash, the stones, whose turn,
the phase, the result, the legal moves with the reasons for the refused points, and Jasiek's
ko analysis. Over the recorded GNU Go games in bench/data and random games of every preset,
on grids, a torus and graphs, with two to four players, random set-ups, free handicap and
option variants of Hansen's rules; some random games go on with copies of both games.
"""

from __future__ import annotations

import random
from itertools import islice
from pathlib import Path

import pytest

import polygo.rules.game
from polygo.rules import PRESETS, Board, Game, IllegalMove

DATA = Path(__file__).resolve().parents[2] / "bench" / "data"


class ReadableGame(Game):
    """A game whose every move takes the readable path."""


_quick = polygo.rules.game.play_quickly


def _quick_unless_readable(game, move, seat):
    return None if type(game) is ReadableGame else _quick(game, move, seat)


@pytest.fixture(autouse=True)
def readable_path(monkeypatch):
    monkeypatch.setattr(polygo.rules.game, "play_quickly", _quick_unless_readable)


def observe(g: Game) -> dict:
    seen = {"history": g.history, "prisoners": g.prisoners, "hash": g.position_hash, "stones": g.stones(),
            "to_move": g.to_move, "phase": g.phase, "result": g.result, "legal": g.legal_turn(),
            "passes": g.consecutive_passes(), "last": g.last_move}
    if g.rules.name == "jasiek-nkr":
        seen["kos"] = g.ko_analysis()
    return seen


def play(g: Game, move: str, seat: int | None):
    try:
        return g.play(move, seat=seat)
    except IllegalMove as exc:
        return ("refused", exc.reason, exc.message)


def side_by_side(board: Board, rules: str, moves, players: int = 2, copy_every: int = 0, **options) -> int:
    """Play ``moves`` ((move, seat) pairs, or a callable choosing them from the quick game) on
    both paths, comparing after every move (and going on with copies of both games every
    ``copy_every`` moves); the number of moves made."""
    games = [Game(board, rules=rules, players=players, **options),
             ReadableGame(board, rules=rules, players=players, **options)]
    assert observe(games[0]) == observe(games[1])
    made = 0
    left: list[tuple[Game, dict]] = []   # games copied and left behind, and what they showed
    for move, seat in moves(games) if callable(moves) else moves:
        quick, readable = games
        assert play(quick, move, seat) == play(readable, move, seat), (made, move, seat)
        assert observe(quick) == observe(readable), (made, move, seat)
        made += 1
        if copy_every and made % copy_every == 0:
            games[:] = [quick.copy(), readable.copy()]
            assert type(games[1]) is ReadableGame
            left += [(quick, observe(quick)), (readable, observe(readable))]
    assert all(observe(g) == seen for g, seen in left), "a copy's moves showed in the game it was copied from"
    return made


def recorded(size: int) -> list[list[str]]:
    return [line.split() for line in (DATA / f"gnugo-{size}.txt").read_text().splitlines()]


@pytest.mark.parametrize("size", [9, 19])
@pytest.mark.parametrize("rules", sorted(PRESETS))
def test_the_recorded_games_play_alike_on_both_paths(rules, size):
    board = Board.grid(size, size)
    for record in recorded(size):
        assert side_by_side(board, rules, [(move, None) for move in record]) == len(record)


def random_moves(rng: random.Random, cap: int):
    """Mostly empty points, some passes, and some moves a game must refuse (an occupied point, a
    seat out of turn, a point of no board), until play ends or ``cap`` moves."""

    def moves(games: list[Game]):
        names = games[0].board.points
        for _ in range(cap):
            g = games[0]
            seat = g.to_move
            if seat is None:
                return
            roll = rng.random()
            if roll < 0.04:
                yield "pass", seat
            elif roll < 0.06:
                yield rng.choice(names), (seat + 1) % len(g.players)
            elif roll < 0.07:
                yield "Z99", None
            else:
                empty = [p for p in names if g.stone_at(p) is None]
                yield (rng.choice(empty) if empty and roll < 0.97 else rng.choice(names)), rng.choice((seat, None))
    return moves


BOARDS = ["5", "7", "9", "torus:6x6", "petersen", "cube4", "village"]


def random_setup(rng: random.Random, board: Board, players: int) -> dict[str, int]:
    """A few stones per seat on points whose chains keep a liberty."""
    while True:
        setup = {p: rng.randrange(players) for p in rng.sample(board.points, rng.randint(0, len(board) // 5))}
        try:
            Game(board, rules="kee", players=players, setup=setup)
            return setup
        except Exception:
            continue


def some_games(count: int):
    """(rules, board spec, players, options, seed) for ``count`` random games over every preset."""
    rng = random.Random(32)
    names = sorted(PRESETS)
    for i in range(count):
        rules = names[i % len(names)]
        limit = PRESETS[rules].max_players or 4
        players = rng.randint(2, limit) if rng.random() < 0.5 else 2
        options: dict = {}
        roll = rng.random()
        if roll < 0.2:
            options["setup"] = "random"
        elif roll < 0.3 and players == 2 and rules != "lasker-maas":
            options.update(handicap=rng.randint(2, 3), handicap_mode="free")
        if rules == "hansen-sst" and rng.random() < 0.5:
            options.update(rng.choice([{"a3": True}, {"counter": "later"}, {"keying": "identity"}, {"a1": "off"}]))
        yield rules, rng.choice(BOARDS), players, options, rng.randrange(1 << 30)


def run_random(count: int, first: int = 0) -> None:
    """Games ``first`` to ``count`` of `some_games`, side by side."""
    played = 0
    for rules, spec, players, options, seed in islice(some_games(count), first, None):
        rng = random.Random(seed)
        board = Board.parse(spec)
        if options.get("setup") == "random":
            options = {**options, "setup": random_setup(rng, board, players)}
        try:
            Game(board, rules=rules, players=players, **options)
        except Exception:
            continue   # an option this board or ruleset refuses: both paths would refuse it alike
        played += side_by_side(board, rules, random_moves(rng, 4 * len(board)), players,
                               copy_every=rng.choice((0, 0, 7, 25)), **options)
    assert played > (count - first) * 10


FAST_GAMES = 180


def test_random_games_of_every_preset_play_alike_on_both_paths():
    run_random(FAST_GAMES)


@pytest.mark.slow
def test_thousands_of_random_games_play_alike_on_both_paths():
    """The 2,000 games in all: the fast test's first ones are not played again."""
    run_random(2000, first=FAST_GAMES)
