"""Failover benchmark: kill -9 the node that serves every game, and time until each game goes on.

A private PostgreSQL 15 (fsync on; tests/postgres.py makes it) and three `python -m polygo.server` nodes
on it (lease 10 s). Every game is one scripted player against the server's house bot, created at
node a; the player moves as soon as the bot has answered (the bot pauses 0.3 s). After a warm-up,
node a is killed with SIGKILL. Each player reconnects at once to node b or c (as HAProxy would send
it), says hello with its token, resends its unacknowledged move with the same seq, and plays on;
the node it lands on takes the room over (a's advisory lock is free) and the house bot goes on.

Printed: for each game, the seconds from the kill to the first acknowledgment after it, and to
the bot's first move after it (median, max); then a check of the store: every acknowledged move
is stored exactly once, and every game's versions have no gap. Loopback only; bounded loops.

    python bench/cluster_failover.py                  # 24 games
    python bench/cluster_failover.py --games 48
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import signal
import socket
import statistics
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import msgpack
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed, InvalidHandshake

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from polygo.protocol import PROTOCOL_VERSION  # noqa: E402
from tests.postgres import PostgresCluster  # noqa: E402

COLUMNS = "ABCDEFGHJKLMNOPQRST"
WAIT = 20.0


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def start_node(db: str, node: str, port: int) -> subprocess.Popen:
    env = dict(os.environ, PYTHONPATH=str(ROOT), POLYGO_LOG_LEVEL="WARNING")
    return subprocess.Popen([sys.executable, "-m", "polygo.server", "--port", str(port), "--db", db, "--node-id", node,
                             "--lease", "10"], cwd=ROOT, env=env)


async def ready(port: int) -> None:
    for _ in range(600):
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/readyz", timeout=2) as resp:
                if resp.status == 200:
                    return
        except OSError:
            pass
        await asyncio.sleep(0.05)
    raise RuntimeError(f"node on port {port} never became ready")


class Player:
    """One game: a scripted player (seat 0) against the house bot (seat 1)."""

    def __init__(self, index: int, ports: dict[str, int]) -> None:
        self.index = index
        self.ports = ports
        self.rng = random.Random(index)
        self.points = [f"{c}{r}" for c in COLUMNS for r in range(1, 20)]
        self.rng.shuffle(self.points)
        self.token: str | None = None
        self.room = ""
        self.seq = 0
        self.acked: dict[int, int] = {}         # seq -> version
        self.killed_at: float | None = None
        self.first_ack_after: float | None = None
        self.first_bot_after: float | None = None
        self.ws = None
        self.events: asyncio.Queue[dict] = asyncio.Queue()
        self.replies: asyncio.Queue[dict] = asyncio.Queue()

    async def open(self, node: str) -> None:
        if self.ws is not None:
            await self.ws.close()
        self.ws = await connect(f"ws://127.0.0.1:{self.ports[node]}/", subprotocols=["polygo.msgpack"],
                                compression=None)
        self.events, self.replies = asyncio.Queue(), asyncio.Queue()
        asyncio.ensure_future(self._read(self.ws, self.events, self.replies))
        who = {"token": self.token} if self.token else {"name": f"p{self.index}"}
        welcome = await self.request({"type": "hello", "protocol": PROTOCOL_VERSION, **who})
        self.token = welcome["token"]

    @staticmethod
    async def _read(ws, events: asyncio.Queue, replies: asyncio.Queue) -> None:
        try:
            async for frame in ws:
                message = msgpack.unpackb(frame, raw=False)
                (events if message["type"] == "event" else replies).put_nowait(message)
        except ConnectionClosed:
            pass
        replies.put_nowait({"type": "closed"})
        events.put_nowait({"type": "closed"})

    async def request(self, message: dict) -> dict:
        await self.ws.send(msgpack.packb(message))
        reply = await asyncio.wait_for(self.replies.get(), WAIT)
        if reply["type"] == "closed":
            raise ConnectionClosed(None, None)
        return reply

    async def setup(self) -> None:
        await self.open("a")
        await self.create_and_sit()

    async def create_and_sit(self) -> None:
        """A room against the house bot, created (waiting out the create rate) and sat in."""
        while True:         # creates from one address are rate-limited (5 a second after 20)
            created = await self.request({"type": "create", "settings": {"rules": "chinese", "board": "19",
                                                                          "bots": 1}})
            if created.get("code") != "rate-limited":
                break
            await asyncio.sleep(0.25)
        self.room = created["room"]
        await self.request({"type": "sit", "room": self.room, "seat": 0})

    async def play(self, stop: asyncio.Event) -> None:
        move = None
        while not stop.is_set() and self.points:
            if move is None:
                move = self.points.pop()
                self.seq += 1
            try:
                reply = await self.request({"type": "move", "room": self.room, "move": move, "seq": self.seq})
                if reply["type"] == "error" and reply.get("reason") == "not-your-turn":
                    await self._bot_moved()      # after a failover: the bot's answer was not seen yet
                    continue
                if reply["type"] == "error" and reply["code"] == "illegal-move":
                    move = None
                    continue
                if reply["type"] == "error":
                    raise RuntimeError(f"game {self.index}: {reply}")
                self.acked[self.seq] = reply["version"]
                if self.killed_at is not None and self.first_ack_after is None:
                    self.first_ack_after = time.perf_counter() - self.killed_at
                move = None
                await self._bot_moved()
            except (ConnectionClosed, OSError, asyncio.TimeoutError):
                await self.failover()

    async def _bot_moved(self) -> None:
        while True:
            event = await asyncio.wait_for(self.events.get(), WAIT)
            if event["type"] == "closed":
                raise ConnectionClosed(None, None)
            if event.get("kind") == "move" and event.get("seat") == 1:
                if self.killed_at is not None and self.first_bot_after is None:
                    self.first_bot_after = time.perf_counter() - self.killed_at
                return
            if event.get("kind") == "end" or event.get("phase") in ("scoring", "ended"):
                self.points = []
                return

    async def failover(self) -> None:
        """Reconnect where HAProxy would send us (b or c), watch the room (the node takes it over)."""
        node = "b" if self.index % 2 else "c"
        for _ in range(200):
            try:
                await self.open(node)
                reply = await self.request({"type": "watch", "room": self.room})
                if reply["type"] == "snapshot":
                    return
                if reply.get("code") == "moved" and reply["node"] != "a":
                    node = reply["node"]     # the other survivor took it first (a is dead: HAProxy would 503)
                last = reply
            except (ConnectionClosed, InvalidHandshake, OSError, asyncio.TimeoutError) as exc:
                last = exc
            await asyncio.sleep(0.05)
        raise RuntimeError(f"game {self.index}: no node took the room over; last answer {last!r}")


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=24)
    parser.add_argument("--warmup", type=float, default=3.0, help="seconds of play before the kill")
    parser.add_argument("--after", type=float, default=5.0, help="seconds of play after the kill")
    args = parser.parse_args()
    postgres = PostgresCluster.start({"fsync": "on"})
    nodes: dict[str, subprocess.Popen] = {}
    try:
        db = postgres.new_database()
        ports = {node: free_port() for node in "abc"}
        for node, port in ports.items():
            nodes[node] = start_node(db, node, port)
        for port in ports.values():
            await ready(port)
        players = [Player(i, ports) for i in range(args.games)]
        await asyncio.gather(*(p.setup() for p in players))
        stop = asyncio.Event()
        games = [asyncio.create_task(p.play(stop)) for p in players]
        await asyncio.sleep(args.warmup)
        killed_at = time.perf_counter()
        for p in players:
            p.killed_at = killed_at
        nodes["a"].send_signal(signal.SIGKILL)
        nodes["a"].wait()
        await asyncio.sleep(args.after)
        stop.set()
        await asyncio.wait_for(asyncio.gather(*games), 60)
        report(players, postgres, db)
    finally:
        for proc in nodes.values():
            if proc.poll() is None:
                proc.terminate()
                proc.wait(timeout=20)
        postgres.stop()


def report(players: list[Player], postgres: PostgresCluster, db: str) -> None:
    acks = [p.first_ack_after for p in players if p.first_ack_after is not None]
    bots = [p.first_bot_after for p in players if p.first_bot_after is not None]
    print(f"{len(players)} games, node a (serving all) killed with SIGKILL; players reconnect to b or c")
    print(f"first ack after the kill:     median {statistics.median(acks):.3f} s, max {max(acks):.3f} s "
          f"({len(acks)} games)")
    print(f"first bot move after the kill: median {statistics.median(bots):.3f} s, max {max(bots):.3f} s "
          f"({len(bots)} games)")
    name = db.rsplit("/", 1)[1]
    lost = duplicated = gaps = 0
    for p in players:
        rows = postgres.psql(f"SELECT seq FROM moves WHERE room_id = '{p.room}' AND seat = 0", name).split()
        seqs = [int(s) for s in rows]
        duplicated += len(seqs) - len(set(seqs))
        lost += len(set(p.acked) - set(seqs))
        versions = [int(v) for v in postgres.psql(
            f"SELECT version FROM events WHERE room_id = '{p.room}' ORDER BY version", name).split()]
        gaps += versions != list(range(1, len(versions) + 1))
    print(f"acknowledged moves: {sum(len(p.acked) for p in players)}; lost {lost}, stored twice {duplicated}, "
          f"games with a version gap {gaps}")
    owners = postgres.psql("SELECT owner_node, count(*) FROM rooms GROUP BY owner_node ORDER BY 1", name)
    print("rooms per owner now:", " ".join(line.replace("|", ":") for line in owners.split()))


if __name__ == "__main__":
    asyncio.run(main())
