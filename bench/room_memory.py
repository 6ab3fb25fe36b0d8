"""Memory a game holds on the server, by board: what `tracemalloc` sees allocated for N games of
the same settings, with M random moves each, divided by N, two ways:

- game: the engine's game alone (`polygo.server.rooms.games.new_game`, each from its own copy of the settings,
  as rooms read them from the store, then `Game.play`);
- room: a whole room on a hub, created, sat at and played through two connections' frames as the
  server meets them (a real SQLite store in a temporary directory; the transports count writes
  and keep nothing): the game, the settings, the stored rows, the resync window of events, the
  clocks, the watchers.

Graph boards are shared by the rooms on the same graph (`polygo.server.rooms.games.board_of`); a named board
(19x19) always was. `--detail` prints, for each room figure, where its memory was allocated: the
innermost line of polygo's own code on each allocation's traceback, the largest first.

    python bench/room_memory.py
    python bench/room_memory.py --games 20 --moves 250 --detail
"""

from __future__ import annotations

import argparse
import asyncio
import copy
import gc
import os
import random
import sys
import tempfile
import tracemalloc
from collections import Counter
from pathlib import Path
from typing import Any

import msgpack

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.server_move_path import FakeWebsocket  # noqa: E402
from polygo.rules import Game, IllegalMove  # noqa: E402
from polygo.protocol import PROTOCOL_VERSION, RoomSettings  # noqa: E402
from polygo.server.config import Config  # noqa: E402
from polygo.server.connection import Connection  # noqa: E402
from polygo.server.rooms.games import new_game, normalize  # noqa: E402
from polygo.server.hub import Hub  # noqa: E402
from polygo.server.accounts.sessions import Sessions  # noqa: E402
from polygo.server.store import Store  # noqa: E402
from tests.lattices import triangular_lattice  # noqa: E402

OWN_CODE = tuple(str(ROOT / "polygo" / package) + os.sep for package in ("rules", "protocol", "server"))
"""Where an allocation is charged in `--detail`: the innermost frame in these packages."""

FRAMES = 10
"""Frames tracemalloc keeps a traceback, enough to reach polygo's code from inside a library."""


def per_game(settings: dict, games: int, moves: int) -> float:
    """KiB allocated per game, the games kept alive while measured (and played once before, so
    that what all games on the board share is made before the count)."""
    warm = [played_game(settings, moves, random.Random(g)) for g in range(games)]
    gc.collect()
    tracemalloc.start()
    before = tracemalloc.get_traced_memory()[0]
    kept = [played_game(settings, moves, random.Random(g)) for g in range(games)]
    gc.collect()
    used = tracemalloc.get_traced_memory()[0] - before
    tracemalloc.stop()
    del kept, warm
    return used / games / 1024


def played_game(settings: dict, moves: int, rng: random.Random) -> Game:
    """A game of `moves` random legal plays, made from its own copy of the settings."""
    game = new_game(copy.deepcopy(settings))
    points = list(game.board.points)
    played = 0
    while played < moves:
        try:
            game.play(rng.choice(points))
            played += 1
        except IllegalMove:
            continue
    return game


class Player:
    """One seat's connection and the seq of its next move."""

    def __init__(self, hub: Hub, name: str) -> None:
        self.conn = Connection(hub, FakeWebsocket())
        self.name = name
        self.seq = 0

    async def send(self, message: dict[str, Any]) -> None:
        await self.conn._on_frame(msgpack.packb(message))


async def played_room(hub: Hub, settings: dict[str, Any], moves: int, rng: random.Random,
                      index: int) -> list[Player]:
    """A started room of two players who made `moves` random legal stone plays between them."""
    players = [Player(hub, f"r{index}s{seat}") for seat in range(2)]
    for player in players:
        await player.send({"type": "hello", "protocol": PROTOCOL_VERSION, "name": player.name})
    before = set(hub.rooms)
    await players[0].send({"type": "create", "settings": settings})
    (room_id,) = set(hub.rooms) - before
    room = hub.rooms[room_id]
    for seat, player in enumerate(players):
        await player.send({"type": "sit", "room": room_id, "seat": seat})
    if room.status != "playing":
        raise RuntimeError(f"room {index} did not start: a request was refused")
    points = list(room.game.board.points)
    while len(room.game.history) < moves and room.game.to_move is not None:
        player = players[room.game.to_move]
        prohibited, _ = room.game.legal_turn()
        point = rng.choice(points)
        if point in room.stones or point in prohibited:
            continue
        player.seq += 1
        await player.send({"type": "move", "room": room_id, "move": point, "seq": player.seq})
    return players


async def per_room(settings: dict[str, Any], games: int, moves: int,
                   detail: int) -> tuple[float, list[tuple[str, float]]]:
    """KiB allocated per room, the rooms and their players kept alive while measured, and with
    `detail` the `detail` largest places they were allocated at (KiB per room each)."""
    with tempfile.TemporaryDirectory() as tmp:
        config = Config(port=0, db=os.path.join(tmp, "memory.db"), rate=1e9, burst=1e9, read_rate=1e12,
                        points_per_address=10**9, points_per_user=10**9,
                        rooms_per_creator=10**6, rooms_per_session=10**6, connections_per_address=10**6,
                        rooms_per_address=10**6, create_rate=1e9)
        store = await Store.open(config.db, synchronous="NORMAL")
        hub = Hub(config, store, Sessions(store, guest_rate=1e9))
        for g in range(games):    # the same games before: what all rooms share is made before the count
            await played_room(hub, settings, moves, random.Random(g), -1 - g)
        gc.collect()
        tracemalloc.start(FRAMES if detail else 1)
        before = tracemalloc.get_traced_memory()[0]
        kept = [await played_room(hub, settings, moves, random.Random(g), g) for g in range(games)]
        gc.collect()
        used = tracemalloc.get_traced_memory()[0] - before
        places = where(tracemalloc.take_snapshot(), games, detail) if detail else []
        tracemalloc.stop()
        del kept
        await store.close()
    return used / games / 1024, places


def where(snapshot: tracemalloc.Snapshot, games: int, top: int) -> list[tuple[str, float]]:
    """The `top` lines of polygo's code that the traced memory was allocated under, KiB per room."""
    sizes: Counter[str] = Counter()
    for trace in snapshot.traces:
        place = "elsewhere"
        for frame in reversed(trace.traceback):     # innermost first
            if frame.filename.startswith(OWN_CODE):
                place = f"{os.path.relpath(frame.filename, ROOT)}:{frame.lineno}"
                break
        sizes[place] += trace.size
    return [(place, size / games / 1024) for place, size in sizes.most_common(top)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=10)
    parser.add_argument("--moves", type=int, default=60)
    parser.add_argument("--detail", type=int, nargs="?", const=12, default=0, metavar="LINES",
                        help="print where each room's memory was allocated (default 12 lines)")
    args = parser.parse_args()
    print(f"{args.games} games of {args.moves} random moves each; KiB per game")
    print(f"{'board':30} {'rules':12} {'game':>9} {'room':>9}")
    for name, board in (("19x19", "19"), ("lattice 32x32 (1,024 points)", triangular_lattice(32))):
        for rules in ("chinese", "jasiek-nkr"):
            request = {"rules": rules, "board": board, "players": 2}
            settings = normalize(RoomSettings(**request))
            game = per_game(settings, args.games, args.moves)
            room, places = asyncio.run(per_room(request, args.games, args.moves, args.detail))
            print(f"{name:30} {rules:12} {game:9.1f} {room:9.1f}")
            for place, kib in places:
                print(f"    {kib:8.1f}  {place}")


if __name__ == "__main__":
    main()
