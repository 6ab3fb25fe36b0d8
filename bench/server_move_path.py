"""polygo's own work per move on the event loop, in-process: no socket, no database.

`bench/server_load.py` measures the whole server against a minimal baseline; this one places
polygo's share of it. The same scripted 19x19 games (Black the left half, White the right) are fed
as msgpack frames through `Connection._on_frame`, as a websocket's reader hands them over, with
transports that only count writes and the store's `record` run up to its batch (the batch and its
commit left out, but the move waits for them as in the server: suspended, then resumed), on uvloop when installed, with the collector set as the server sets it
(`collector.GC_THRESHOLDS`: with the default thresholds its passes over every game's state would
swamp a move's time here). It prints the CPU time per move of that path, and of the rules' part of it
alone (`Game.play`, the legal-move view and the ko view on the same games), best and median of the
rounds.

`--cold MB` plays the games' moves in turns, one move of each game in a round, as the server meets
them, and walks MB of memory before each move so that it starts with the caches cold, as it does
in a server where some hundred other moves, the store and the sockets ran since the room's last
one: there each move costs more than here warm, and a change is worth what it saves cold. Only
the moves are timed (`perf_counter`), not the walk.

    python bench/server_move_path.py
    python bench/server_move_path.py --rounds 9 --games 40
    python bench/server_move_path.py --cold 8 --rounds 3 --games 50
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import tempfile
import time
from pathlib import Path

import msgpack
from websockets.protocol import State

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from polygo.protocol import PROTOCOL_VERSION  # noqa: E402
from polygo.server.app import loop_factory  # noqa: E402
from polygo.server.ops.collector import tune_for_serving  # noqa: E402
from polygo.server.config import Config  # noqa: E402
from polygo.server.connection import Connection  # noqa: E402
from polygo.server.rooms.games import ko_view, legal_view, stone_point  # noqa: E402
from polygo.server.hub import Hub  # noqa: E402
from polygo.server.ops.metrics import make_metrics  # noqa: E402
from polygo.server.accounts.sessions import Sessions  # noqa: E402
from polygo.server.store import Store  # noqa: E402

COLUMNS = "ABCDEFGHJKLMNOPQRST"
MOVES = 150
"""Moves per player and game, as server_load.py plays them."""


def script() -> list[str]:
    """Both players' moves in turn order: never a capture, every one legal."""
    black = [f"{COLUMNS[x]}{y}" for y in range(1, 20) for x in range(0, 9)][:MOVES]
    white = [f"{COLUMNS[x]}{y}" for y in range(1, 20) for x in range(10, 19)][:MOVES]
    return [move for pair in zip(black, white) for move in pair]


class CountingTransport:
    """A transport that takes every write and keeps only the last (a refusal's reason)."""

    def __init__(self) -> None:
        self.writes = 0
        self.last = b""

    def write(self, data: bytes) -> None:
        self.writes += 1
        self.last = data

    def is_closing(self) -> bool:
        return False

    def get_write_buffer_size(self) -> int:
        return 0


class OpenProtocol:
    state = State.OPEN
    writes: list[bytes] = []


class FakeWebsocket:
    """What `Connection` reads of a websockets ServerConnection on a move's path."""

    subprotocol = "polygo.msgpack"
    state = State.OPEN
    remote_address = ("127.0.0.1", 1)
    request = None
    response = None

    def __init__(self) -> None:
        self.transport = CountingTransport()
        self.protocol = OpenProtocol()


async def seated_game(hub: Hub, index: int) -> tuple[list[Connection], list[bytes]]:
    """Two connections in a started room, and the move frames of its game."""
    players = [Connection(hub, FakeWebsocket()) for _ in range(2)]
    for seat, conn in enumerate(players):
        await conn._on_frame(msgpack.packb({"type": "hello", "protocol": PROTOCOL_VERSION, "name": f"g{index}s{seat}"}))
    before = set(hub.rooms)
    await players[0]._on_frame(msgpack.packb({"type": "create", "settings": {"rules": "chinese", "board": "19"}}))
    made = set(hub.rooms) - before
    if len(made) != 1:
        raise SystemExit(f"the create made no room; the server said {players[0].ws.transport.last!r}")
    (room,) = made
    for seat, conn in enumerate(players):
        await conn._on_frame(msgpack.packb({"type": "sit", "room": room, "seat": seat}))
    frames = [msgpack.packb({"type": "move", "room": room, "move": move, "seq": i // 2 + 1})
              for i, move in enumerate(script())]
    return players, frames


async def move_path(rounds: int, games: int, cold: Cold | None) -> tuple[list[float], list[float]]:
    """µs per move through the connection (the store's batch left out), and through the rules alone."""
    with tempfile.TemporaryDirectory() as tmp:
        config = Config(port=0, db=os.path.join(tmp, "path.db"), rate=1e9, burst=1e9,
                        read_rate=1e12, guest_rate=1e6, points_per_address=10**9, rooms_per_creator=10**6,
                        rooms_per_session=10**6,
                        connections_per_address=10**6, rooms_per_address=10**6, create_rate=1e9)
        store = await Store.open(config.db)
        try:
            return await rounds_played(store, config, rounds, games, cold)
        finally:
            await store.close()


async def rounds_played(store: Store, config: Config, rounds: int, games: int,
                        cold: Cold | None) -> tuple[list[float], list[float]]:
    """`move_path`'s rounds on an open store, through a hub built as the server builds it."""
    hub = Hub(config, store, Sessions(store, guest_rate=config.guest_rate), metrics=make_metrics(lambda: {}))
    tune_for_serving()
    written, loop = store._write, asyncio.get_running_loop()

    def batched(statements: list, room: str | None = None, step: object = None) -> asyncio.Future:
        """The batch and its commit are server_load.py's to measure; the move still waits for
        them as in the server: suspended, then resumed by the loop."""
        committed = loop.create_future()
        loop.call_soon(committed.set_result, None)
        return committed

    whole, rules = [], []
    for r in range(rounds):
        seated = [await seated_game(hub, r * games + i) for i in range(games)]
        fresh = [(await seated_game(hub, -1 - r * games - i))[0] for i in range(games)]
        store._write = batched
        whole.append(await (cold_moves(seated, cold) if cold else warm_moves(seated)))
        store._write = written
        rules.append(rules_only([next(iter(players[0].watching)).game for players in fresh], cold))
    return whole, rules


async def warm_moves(seated: list[tuple[list[Connection], list[bytes]]]) -> float:
    """µs of CPU per move, each game played through in turn."""
    started = time.process_time()
    for players, frames in seated:
        for i, frame in enumerate(frames):
            await players[i % 2]._on_frame(frame)
    return (time.process_time() - started) / (len(seated) * len(script())) * 1e6


async def cold_moves(seated: list[tuple[list[Connection], list[bytes]]], cold: Cold) -> float:
    """µs per move, one move of each game in a round, the caches walked over before each."""
    spent = 0.0
    for i in range(len(script())):
        for players, frames in seated:
            cold.walk()
            started = time.perf_counter()
            await players[i % 2]._on_frame(frames[i])
            spent += time.perf_counter() - started
    return spent / (len(seated) * len(script())) * 1e6


class Cold:
    """Memory written a byte a cache line, to push what a move uses out of the caches."""

    def __init__(self, megabytes: int) -> None:
        self.memory = bytearray(megabytes << 20)
        self.ones = b"\x01" * (len(self.memory) // 64)

    def walk(self) -> None:
        self.memory[::64] = self.ones


def rules_only(games: list, cold: Cold | None) -> float:
    """µs per move of what the rules do for a move on the server: the play, the legal-move view
    and the ko view sent with every event (with `cold`, in turns and from cold caches as above)."""
    moves = script()
    spent = 0.0
    for i, move in enumerate(moves):
        for game in games:
            if cold:
                cold.walk()
            started = time.perf_counter()
            point = stone_point(game, move)
            game.play(move, seat=i % 2)
            game.stone_at(point)
            legal_view(game)
            ko_view(game)
            spent += time.perf_counter() - started
    return spent / (len(games) * len(moves)) * 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--games", type=int, default=20, help="games per round (300 moves each)")
    parser.add_argument("--cold", type=int, metavar="MB", default=0,
                        help="moves in turns, MB of memory walked before each (0: warm, each game through)")
    args = parser.parse_args()
    factory = loop_factory()
    with asyncio.Runner(loop_factory=factory) as runner:
        whole, rules = runner.run(move_path(args.rounds, args.games, Cold(args.cold) if args.cold else None))
    loop = "asyncio" if factory is None else "uvloop"
    for name, figures in (("move through _on_frame", whole), ("of which the rules", rules)):
        figures.sort()
        print(f"{name:24} best {figures[0]:6.2f} µs, median {figures[len(figures) // 2]:6.2f} µs per move "
              f"({loop}, {args.rounds} rounds of {args.games} games{f', cold: {args.cold} MB walked' if args.cold else ''})")


if __name__ == "__main__":
    main()
