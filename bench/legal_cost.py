"""What telling the player to move its legal moves costs each move (the `legal` field).

Two measurements over the same seeded random games (19x19, chinese, and kee with 3 players):

1. `polygo.server.rooms.games.legal_view` alone, per position, beside what the room already computed for
   each move without it: `Game.play` of that move (the engine's own work per move).
2. End to end: a client pair plays the games against an in-process server over websockets, one
   move at a time, and the time from sending a move to its `ack` is taken. The peer is the same
   server with `legal_view` replaced by a function that returns None (the events and snapshots
   then carry `legal: null`, as version 1 carried nothing), run alternately in the same process.

    python bench/legal_cost.py                     # 2 games of 200 plays each kind, best of 3
    python bench/legal_cost.py --games 1 --plays 120 --repeat 2

Times are CPU time for (1), wall time for (2) (a websocket round trip and a SQLite commit with
`synchronous=NORMAL`, so the disk's sync rate does not hide the difference); the best of
`--repeat` runs.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from websockets.asyncio.client import connect  # noqa: E402

import polygo.server.rooms.games  # noqa: E402
import polygo.server.rooms.room  # noqa: E402
from polygo.rules import Board, Game  # noqa: E402
from polygo.protocol import PROTOCOL_VERSION  # noqa: E402
from polygo.server.app import Server  # noqa: E402
from polygo.server.config import Config  # noqa: E402

KINDS = {"chinese, 2 players": {"rules": "chinese", "board": "19", "players": 2},
         "kee, 3 players": {"rules": "kee", "board": "19", "players": 3}}


def random_game(settings: dict[str, Any], plays: int, seed: int) -> list[str]:
    """A seeded random game: a random legal point that fills no own eye, else a pass."""
    rng = random.Random(seed)
    game = Game(Board.parse(settings["board"]), rules=settings["rules"], players=settings["players"])
    moves = []
    while len(moves) < plays and game.to_move is not None:
        seat, stones = game.to_move, game.stones()
        points = [m for m in game.legal_moves() if m in game.board.points
                  and not all(stones.get(n) == seat for n in game.board.neighbours(m))]
        move = rng.choice(points) if points else "pass"
        game.play(move)
        moves.append(move)
    return moves


def engine_figures(settings: dict[str, Any], games: list[list[str]], repeat: int) -> tuple[float, float]:
    """CPU µs per position of legal_view, and of Game.play, over the games."""
    best_view = best_play = float("inf")
    for _ in range(repeat):
        view = play = 0.0
        count = 0
        for moves in games:
            game = polygo.server.rooms.games.new_game(settings)
            for move in moves:
                start = time.process_time()
                game.play(move)
                middle = time.process_time()
                polygo.server.rooms.games.legal_view(game)
                view += time.process_time() - middle
                play += middle - start
                count += 1
        best_view, best_play = min(best_view, view / count * 1e6), min(best_play, play / count * 1e6)
    return best_view, best_play


async def served(settings: dict[str, Any], games: list[list[str]], with_legal: bool) -> float:
    """Median milliseconds from sending a move to its ack, over every move of the games."""
    original = polygo.server.rooms.games.legal_view
    if not with_legal:
        polygo.server.rooms.games.legal_view = polygo.server.rooms.room.legal_view = lambda game: None
    try:
        with tempfile.TemporaryDirectory() as tmp:
            srv = await Server(Config(host="127.0.0.1", port=0, db=f"{tmp}/bench.db", synchronous="NORMAL",
                                      rate=1e9, burst=1e9,
                                      read_rate=1e12, guest_rate=1e6, points_per_address=10**9, rooms_per_creator=10**6,
                                      rooms_per_session=10**6)).start()
            try:
                return await _play_all(srv.port, settings, games)
            finally:
                await srv.close()
    finally:
        polygo.server.rooms.games.legal_view = polygo.server.rooms.room.legal_view = original


async def _play_all(port: int, settings: dict[str, Any], games: list[list[str]]) -> float:
    n = settings["players"]
    sockets = [await connect(f"ws://127.0.0.1:{port}/", subprotocols=["polygo.json"]) for _ in range(n)]

    async def ask(ws: Any, **message: Any) -> dict[str, Any]:
        await ws.send(json.dumps(message))
        while True:
            reply = json.loads(await ws.recv())
            if reply["type"] != "event":
                return reply

    for i, ws in enumerate(sockets):
        await ask(ws, type="hello", protocol=PROTOCOL_VERSION, name=f"p{i}")
    latencies = []
    for moves in games:
        room = (await ask(sockets[0], type="create", settings=settings))["room"]
        for seat, ws in enumerate(sockets):
            await ask(ws, type="sit", room=room, seat=seat)
        mirror = polygo.server.rooms.games.new_game(settings)
        for seq, move in enumerate(moves):
            ws = sockets[mirror.to_move]
            start = time.perf_counter()
            reply = await ask(ws, type="move", room=room, move=move, seq=seq)
            latencies.append(time.perf_counter() - start)
            assert reply["type"] == "ack", reply
            mirror.play(move)
        await ask(sockets[0], type="move", room=room, move="resign", seq=len(moves))
    for ws in sockets:
        await ws.close()
    return statistics.median(latencies) * 1e3


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=2)
    parser.add_argument("--plays", type=int, default=200)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    print(f"{'game':<20} {'legal_view':>11} {'Game.play':>10}  {'with legal':>11} {'without':>9}  {'ratio':>6}")
    for name, settings in KINDS.items():
        games = [random_game(settings, args.plays, seed) for seed in range(args.games)]
        view, play = engine_figures(settings, games, args.repeat)
        with_legal, without = [], []
        for _ in range(args.repeat):
            with_legal.append(asyncio.run(served(settings, games, True)))
            without.append(asyncio.run(served(settings, games, False)))
        on, off = min(with_legal), min(without)
        print(f"{name:<20} {view:>8.0f} µs {play:>7.0f} µs  {on:>8.2f} ms {off:>6.2f} ms  {on / off:>5.2f}x")
    print("legal_view and Game.play: CPU per position; with/without: median wall time from a move to its ack,"
          " the peer being the same server with legal_view returning None")


if __name__ == "__main__":
    main()
