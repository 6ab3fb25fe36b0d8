"""Fault drill of cluster mode: PostgreSQL restarted under the games, or a node killed, and what
the players see.

A private PostgreSQL 15 (fsync on; tests/postgres.py makes it) and three `python -m polygo.server` nodes
on it (lease 10 s). Each game is one scripted player against the server's house bot on 19x19,
created at node i mod 3. Players connect straight to the nodes (as HAProxy's /n/<node>/ would):
one answered `moved` goes to the node named, one answered `unavailable` waits its `retry_after`,
one whose connection ends (or whose handshake is refused while its node waits for the database)
reconnects with backoff, to another node if its own was killed; a move not acknowledged is sent
again with its seq. A test-only audit trigger on `moves` records, for every row, the node whose
writing connection committed it (the holder of its advisory lock) and that node's epoch, beside
the room's owner at that moment.

The faults, each on a fresh database and fresh nodes: ``restart:S`` stops PostgreSQL (fast
shutdown: every connection ends) and starts it again S seconds later; ``kill`` sends SIGKILL to
node a. Printed for each: the rooms that accepted a move again, the seconds from the database's
return (or the kill) to each room's first acknowledged move (min/median/max), acknowledged moves
lost and stored twice, rows written by a node that did not own the room at its epoch (the
audit), and `internal` answers after the fault.

    python bench/cluster_drill.py                                  # 60 games; restart:2, restart:10, kill
    python bench/cluster_drill.py --games 30 --faults kill
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import signal
import statistics
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed, InvalidHandshake

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.cluster_failover import Player as FailoverPlayer, free_port  # noqa: E402
from polygo.protocol import PROTOCOL_VERSION  # noqa: E402
from tests.postgres import PostgresCluster  # noqa: E402

NODES = ("a", "b", "c")
WAIT = 5.0
RECOVERY_CAP = 90.0
"""Seconds after the fault by which every room must have acknowledged a move, or the drill says so."""

AUDIT = [
    "CREATE TABLE audit_moves (room_id text, idx bigint, writer text, writer_epoch bigint,"
    " owner_node text, owner_epoch bigint)",
    "CREATE FUNCTION audit_move() RETURNS trigger LANGUAGE plpgsql AS $$"
    " DECLARE w text; we bigint; o text; oe bigint; BEGIN"
    " SELECT n.node_id, n.epoch INTO w, we FROM nodes n JOIN pg_locks l ON l.locktype = 'advisory'"
    " AND l.pid = pg_backend_pid() AND l.granted AND l.objsubid = 1"
    " AND l.classid = ((hashtextextended('polygo-node:' || n.node_id, 0) >> 32) & 4294967295)::oid"
    " AND l.objid = (hashtextextended('polygo-node:' || n.node_id, 0) & 4294967295)::oid;"
    " SELECT owner_node, owner_epoch INTO o, oe FROM rooms WHERE room_id = NEW.room_id;"
    " INSERT INTO audit_moves VALUES (NEW.room_id, NEW.idx, w, we, o, oe); RETURN NEW; END $$",
    "CREATE TRIGGER audit AFTER INSERT ON moves FOR EACH ROW EXECUTE FUNCTION audit_move()",
]
"""Test instrumentation, not part of polygo: who committed each move row, under which epoch."""


def start_node(db: str, node: str, port: int) -> subprocess.Popen:
    env = dict(os.environ, PYTHONPATH=str(ROOT), POLYGO_LOG_LEVEL="ERROR")
    return subprocess.Popen([sys.executable, "-m", "polygo.server", "--port", str(port), "--db", db, "--node-id", node,
                             "--lease", "10"], cwd=ROOT, env=env)


def ready(port: int) -> bool:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/readyz", timeout=2) as resp:
            return resp.status == 200
    except OSError:
        return False


class Player(FailoverPlayer):
    """One game: a scripted player (seat 0) against the house bot (seat 1); its connection, reader
    and requests are the failover benchmark's player's (``_read``, ``request``), at its own node."""

    def __init__(self, index: int, ports: dict[str, int], dead: set[str]) -> None:
        super().__init__(index, ports)
        self.dead = dead
        self.node = self.home = NODES[index % len(NODES)]
        self.fault_at: float | None = None       # when the database came back, or the node died
        self.recovered_after: float | None = None
        self.internal_after = 0
        self.ended = False

    async def open(self) -> None:
        if self.ws is not None:
            await self.ws.close()
        self.ws = await connect(f"ws://127.0.0.1:{self.ports[self.node]}/", subprotocols=["polygo.msgpack"],
                                compression=None, open_timeout=WAIT)
        self.events, self.replies = asyncio.Queue(), asyncio.Queue()
        asyncio.ensure_future(self._read(self.ws, self.events, self.replies))
        who = {"token": self.token} if self.token else {"name": f"p{self.index}"}
        welcome = await self.request({"type": "hello", "protocol": PROTOCOL_VERSION, **who})
        if welcome["type"] != "welcome":
            raise ConnectionClosed(None, None)
        self.token = welcome["token"]

    async def setup(self) -> None:
        await self.open()
        await self.create_and_sit()

    async def play(self, stop: asyncio.Event) -> None:
        move = None
        while not stop.is_set() and self.points and not self.ended:
            try:
                if not await self._my_turn():
                    continue
                if move is None:
                    move = self.points.pop()
                    self.seq += 1
                reply = await self.request({"type": "move", "room": self.room, "move": move, "seq": self.seq})
                code = reply.get("code")
                if reply["type"] == "ack":
                    self.acked[self.seq] = reply["version"]
                    if self.fault_at is not None and self.recovered_after is None:
                        self.recovered_after = time.perf_counter() - self.fault_at
                    move = None
                elif code == "illegal-move" and reply.get("reason") != "not-your-turn":
                    move = None
                elif code == "moved":
                    self.node = reply["node"]
                    await self.open()
                elif code == "unavailable":
                    await asyncio.sleep(reply.get("retry_after") or 1.0)
                elif code == "internal":
                    self.internal_after += self.fault_at is not None
                    await asyncio.sleep(0.2)
                elif code == "game-over":
                    self.ended = True
            except (ConnectionClosed, InvalidHandshake, OSError, asyncio.TimeoutError):
                await self.reconnect()

    async def _my_turn(self) -> bool:
        """Watch the room (where it is served): whether seat 0 is to move, else wait for a change."""
        reply = await self.request({"type": "watch", "room": self.room})
        if reply.get("code") == "moved":
            self.node = reply["node"]
            await self.open()
            return False
        if reply.get("code") == "unavailable":
            await asyncio.sleep(reply.get("retry_after") or 1.0)
            return False
        if reply["type"] != "snapshot":
            raise RuntimeError(f"game {self.index}: watch answered {reply}")
        if reply["status"] == "ended":
            self.ended = True
            return False
        if reply["game"]["to_move"] == 0:
            return True
        try:
            while True:
                event = await asyncio.wait_for(self.events.get(), WAIT)
                if event["type"] == "closed":
                    raise ConnectionClosed(None, None)
                if event.get("to_move") == 0 or event.get("result") is not None:
                    return False
        except asyncio.TimeoutError:
            return False

    async def reconnect(self) -> None:
        for attempt in range(400):
            if self.node in self.dead:
                self.node = NODES[(NODES.index(self.node) + 1 + self.index % 2) % len(NODES)]
            try:
                await self.open()
                return
            except (ConnectionClosed, InvalidHandshake, OSError, asyncio.TimeoutError):
                await asyncio.sleep(min(2.0, 0.05 * 2 ** min(attempt, 6)) * (0.5 + random.random() / 2))
        raise RuntimeError(f"game {self.index}: never reconnected")


async def drill(postgres: PostgresCluster, fault: str, games: int, warmup: float) -> None:
    db = postgres.new_database()
    name = db.rsplit("/", 1)[1]
    ports = {node: free_port() for node in NODES}
    nodes = {node: start_node(db, node, port) for node, port in ports.items()}
    try:
        for port in ports.values():
            for _ in range(600):
                if await asyncio.to_thread(ready, port):
                    break
                await asyncio.sleep(0.05)
        for sql in AUDIT:
            postgres.psql(sql, name)
        dead: set[str] = set()
        players = [Player(i, ports, dead) for i in range(games)]
        await asyncio.gather(*(p.setup() for p in players))
        stop = asyncio.Event()
        tasks = [asyncio.create_task(p.play(stop)) for p in players]
        await asyncio.sleep(warmup)
        if fault == "kill":
            dead.add("a")
            nodes["a"].send_signal(signal.SIGKILL)
            nodes["a"].wait()
            label = "node a killed with SIGKILL; times from the kill"
        else:
            down = float(fault.split(":")[1])
            postgres.stop_server()
            await asyncio.sleep(down)
            await asyncio.to_thread(postgres.start_server)
            label = f"PostgreSQL stopped for {down:g} s, started again; times from its return"
        fault_at = time.perf_counter()
        for p in players:
            p.fault_at = fault_at
        deadline = time.monotonic() + RECOVERY_CAP
        while time.monotonic() < deadline and any(p.recovered_after is None and not p.ended for p in players):
            await asyncio.sleep(0.1)
        await asyncio.sleep(2.0)
        stop.set()
        await asyncio.wait_for(asyncio.gather(*tasks, return_exceptions=True), 60)
        report(label, players, postgres, name)
    finally:
        for proc in nodes.values():
            if proc.poll() is None:
                proc.terminate()
                proc.wait(timeout=30)


def report(label: str, players: list[Player], postgres: PostgresCluster, name: str) -> None:
    times = sorted(p.recovered_after for p in players if p.recovered_after is not None)
    playing = [p for p in players if not p.ended or p.recovered_after is not None]
    print(f"\n{len(players)} games; {label}")
    print(f"  rooms accepting moves again: {len(times)} of {len(playing)}")
    if times:
        print(f"  seconds to a room's first ack: min {times[0]:.2f}, median {statistics.median(times):.2f}, "
              f"max {times[-1]:.2f}")
    taken = sorted(p.recovered_after for p in players if p.home == "a" and p.recovered_after is not None)
    if "killed" in label and taken:
        print(f"  of them node a's {len(taken)} rooms (taken over): min {taken[0]:.2f}, "
              f"median {statistics.median(taken):.2f}, max {taken[-1]:.2f}")
    for p in players:
        if p.recovered_after is None and not p.ended:
            owner = postgres.psql(f"SELECT owner_node, owner_epoch, version FROM rooms WHERE room_id = '{p.room}'",
                                  name).strip()
            print(f"  not recovered: game {p.index}, room {p.room} (owner|epoch|version {owner}), "
                  f"its player at node {p.node}")
    lost = 0
    for p in players:
        seqs = {int(s) for s in postgres.psql(f"SELECT seq FROM moves WHERE room_id = '{p.room}' AND seat = 0",
                                              name).split()}
        lost += len(set(p.acked) - seqs)
    doubled = postgres.psql("SELECT count(*) FROM (SELECT 1 FROM moves WHERE seq IS NOT NULL"
                            " GROUP BY room_id, seat, seq HAVING count(*) > 1) d", name).strip()
    acked = sum(len(p.acked) for p in players)
    foreign = postgres.psql("SELECT count(*) FROM audit_moves WHERE writer IS NULL"
                            " OR (writer, writer_epoch) IS DISTINCT FROM (owner_node, owner_epoch)", name).strip()
    rows = postgres.psql("SELECT count(*) FROM audit_moves", name).strip()
    print(f"  acknowledged moves {acked}: lost {lost}, stored twice {doubled}")
    print(f"  move rows written by a node not owning the room at its epoch: {foreign} of {rows}")
    print(f"  internal answers after the fault: {sum(p.internal_after for p in players)}")


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=60)
    parser.add_argument("--warmup", type=float, default=4.0, help="seconds of play before the fault")
    parser.add_argument("--faults", default="restart:2,restart:10,kill")
    args = parser.parse_args()
    postgres = PostgresCluster.start({"fsync": "on"})
    try:
        for fault in args.faults.split(","):
            await drill(postgres, fault, args.games, args.warmup)
    finally:
        postgres.stop()


if __name__ == "__main__":
    asyncio.run(main())
