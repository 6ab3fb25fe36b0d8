"""The failover test of issue 15 behind the shipped HAProxy config: 24 house-bot games spread over
three nodes, most of them on node a; a is killed with SIGKILL while the games play on. Every
player reconnects to `/` as a client does, follows `moved`, resyncs with `watch since` and resends
its unacknowledged move with the same seq. Checked: a's rooms are taken over (the time it takes is
the benchmark's, bench/cluster_failover.py: no timed assertion on a shared machine), every
acknowledged move is stored exactly once, the versions each player saw have no gap and agree with
the store, every seq acknowledged before the kill is acknowledged again with its first version,
a clocked game is not charged for the outage, and node a started again takes none of the rooms
that live on elsewhere."""

from __future__ import annotations

import asyncio
import json
import random
import time
from typing import Any

from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, InvalidHandshake

from polygo.protocol import PROTOCOL_VERSION

WAIT = 20.0
HOMES = ("a",) * 16 + ("b",) * 4 + ("c",) * 4    # the node each of the 24 games is created at: a owns most
CLOCKED = {0, 5, 10, 15, 20}                       # games with a clock: four at a, one at b
CLOCK = "absolute:600"
HOLD = 1.0
"""Seconds the clocked games wait at their player's turn before the kill: were the time since the
last commit or the outage charged, the move after the kill would cost more than the kill took."""
SWEEP = 1.0                                   # seconds between two sweeps of a node: a third of its 3 s lease
BEFORE, AFTER = 3, 3                          # acknowledged moves of each player before and after the kill
POINTS = [f"{c}{r}" for c in "ABCDEFGHJ" for r in range(1, 10)]


class Lost(Exception):
    """The player's connection ended (its node died or let the room go)."""


class Player:
    """Seat 0 of one game against a house bot, over JSON. It records every event it sees by
    version, and its acknowledgments by seq, so the test can hold them against the store."""

    def __init__(self, index: int, base: str) -> None:
        self.base = base
        self.name = f"p{index}"
        self.points = random.Random(index).sample(POINTS, len(POINTS))
        self.token: str | None = None
        self.room = ""
        self.ws: ClientConnection | None = None
        self.reader: asyncio.Task | None = None    # held, so that the loop does not lose it
        self.replies: asyncio.Queue[dict | None] = asyncio.Queue()
        self.changed = asyncio.Event()
        self.seen: dict[int, dict] = {}        # version -> the event as first seen
        self.clocks: dict[int, dict] = {}      # version -> the clocks of that event, where it has them
        self.acked: dict[int, int] = {}        # seq -> version
        self.moves: dict[int, str] = {}        # seq -> the move acknowledged with it
        self.acked_at: dict[int, float] = {}   # seq -> time.monotonic() of its first ack
        self.seq = 0
        self.start = 0                         # the version of the snapshot at `sit`
        self.rejoins = 0
        self.holding = False

    async def open(self, path: str) -> None:
        """Connect at `path` of HAProxy and say hello (with the token after the first time)."""
        if self.ws is not None:
            await self.ws.close()
        self.ws = await connect(f"{self.base}{path}", subprotocols=["polygo.json"])
        self.replies = asyncio.Queue()
        self.reader = asyncio.create_task(self._read(self.ws, self.replies))
        who = {"token": self.token} if self.token else {"name": self.name}
        welcome = await self.request("hello", protocol=PROTOCOL_VERSION, **who)
        assert welcome["type"] == "welcome", welcome
        self.token = welcome["token"]

    async def _read(self, ws: ClientConnection, replies: asyncio.Queue) -> None:
        try:
            async for frame in ws:
                message = json.loads(frame)
                if message["type"] == "event":
                    if message["kind"] != "presence":   # presence carries the latest version, not its own
                        self.see(message)
                else:
                    replies.put_nowait(message)
        except ConnectionClosed:
            pass
        replies.put_nowait(None)
        self.changed.set()

    def see(self, event: dict) -> None:
        """Record an event; a version seen twice must be the same event (no version reused)."""
        body = {k: event.get(k) for k in ("kind", "seat", "move")}
        assert self.seen.setdefault(event["version"], body) == body, (self.name, event, self.seen[event["version"]])
        if event.get("clocks"):
            self.clocks.setdefault(event["version"], event["clocks"])
        self.changed.set()

    @property
    def version(self) -> int:
        """The last version seen with every one before it (from the snapshot at `sit`)."""
        version = self.start
        while version + 1 in self.seen:
            version += 1
        return version

    async def request(self, type: str, **fields: Any) -> dict:
        assert self.ws is not None
        try:
            await self.ws.send(json.dumps({"type": type, **fields}))
        except ConnectionClosed:
            raise Lost from None
        reply = await asyncio.wait_for(self.replies.get(), WAIT)
        if reply is None:
            raise Lost
        return reply

    async def setup(self, node: str, clock: str | None = None) -> None:
        """Create the game at `node` (through its HAProxy path) and sit at seat 0."""
        await self.open(f"/n/{node}/")
        settings = {"rules": "chinese", "board": "9", "bots": 1, **({"clock": clock} if clock else {})}
        created = await self.request("create", settings=settings)
        self.room = created["room"]
        snapshot = await self.request("sit", room=self.room, seat=0)
        assert snapshot["type"] == "snapshot", snapshot
        self.start = snapshot["version"]

    async def play(self, moves: int) -> None:
        """Play `moves` more acknowledged moves, each after the bot's answer to the one before."""
        goal = len(self.acked) + moves
        while len(self.acked) < goal:
            await self._bots_turn_over()
            self.seq += 1
            while not await self._move(self.points.pop()):
                pass

    async def _move(self, move: str) -> bool:
        """Send `move` with the current seq until acknowledged; False if it is illegal."""
        for _ in range(50):
            try:
                reply = await self.request("move", room=self.room, move=move, seq=self.seq)
            except (Lost, asyncio.TimeoutError):
                await self.rejoin()
                continue
            if reply["type"] == "ack":
                self.acked[self.seq] = reply["version"]
                self.moves[self.seq] = move
                self.acked_at[self.seq] = time.monotonic()
                return True
            if reply.get("code") == "illegal-move":
                return False
            assert reply.get("code") in ("moved", "unavailable"), (self.name, reply)
            await self.rejoin(reply)
        raise AssertionError(f"{self.name}: move {move} seq {self.seq} never acknowledged")

    async def hold(self, killed: asyncio.Event) -> None:
        """At the player's turn (the bot has answered), wait for the kill before moving on."""
        await self._bots_turn_over()
        self.holding = True
        await killed.wait()

    async def _bots_turn_over(self) -> None:
        """Until the bot has answered the last acknowledged move (seen live or after a rejoin)."""
        if not self.acked:
            return                              # black, the player, moves first
        mine = max(self.acked.values())
        while not any(v > mine and e["kind"] == "move" and e["seat"] == 1 for v, e in self.seen.items()):
            self.changed.clear()
            if self.ws is not None and self.ws.state.name == "CLOSED":
                await self.rejoin()
                continue
            try:
                await asyncio.wait_for(self.changed.wait(), WAIT)
            except asyncio.TimeoutError:
                raise AssertionError(f"{self.name}: the bot never answered after version {mine}") from None

    async def rejoin(self, refused: dict | None = None) -> None:
        """Reconnect as a client does: to `/` (or where `moved` says), then `watch since` the last
        version seen; the missed events must come back with no gap."""
        self.rejoins += 1
        path = refused["url"] if refused and refused.get("code") == "moved" else "/"
        for _ in range(100):
            if refused and refused.get("code") == "unavailable":
                await asyncio.sleep(min(1.0, refused.get("retry_after", 0.2)))
            try:
                await self.open(path)
                reply = await self.request("watch", room=self.room, since=self.version)
            except (Lost, InvalidHandshake, OSError, asyncio.TimeoutError):
                path, refused = "/", None
                await asyncio.sleep(0.1)
                continue
            if reply["type"] == "events":
                for event in reply["events"]:
                    self.see(event)
                return
            assert reply.get("code") in ("moved", "unavailable"), (self.name, reply)
            refused, path = reply, reply["url"] if reply["code"] == "moved" else "/"
        raise AssertionError(f"{self.name}: no node served room {self.room} again")


async def test_a_killed_nodes_rooms_go_on_with_every_acknowledged_move_once(cluster, postgres):
    players = [Player(i, cluster.url) for i in range(len(HOMES))]
    await asyncio.gather(*(p.setup(node, CLOCK if i in CLOCKED else None)
                           for i, (p, node) in enumerate(zip(players, HOMES))))
    database = cluster.db.rsplit("/", 1)[1]
    assert owners(postgres, database, players) == list(HOMES)
    on_a = [p for p, node in zip(players, HOMES) if node == "a"]
    clocked = [p for i, p in enumerate(players) if i in CLOCKED and HOMES[i] == "a"]

    killed = asyncio.Event()

    async def game(player: Player) -> None:
        await player.play(BEFORE)
        if player in clocked:                   # waits at its turn until the kill, then plays on
            await player.hold(killed)
        while not killed.is_set():              # the others play on through the kill
            await player.play(1)
        await player.play(AFTER)

    games = [asyncio.create_task(game(p)) for p in players]
    while min(len(p.acked) for p in players) < BEFORE or not all(p.holding for p in clocked):
        for task in games:                      # every game under way at the kill
            if task.done():
                task.result()                   # a game that failed says why
        await asyncio.sleep(0.05)
    await asyncio.sleep(HOLD)
    before = {p.name: dict(p.acked) for p in on_a}
    kill_at = time.monotonic()
    cluster.kill("a")
    killed.set()
    await asyncio.wait_for(asyncio.gather(*games), 180)

    now = owners(postgres, database, players)
    assert "a" not in now                                   # a's rooms went on elsewhere
    assert all(p.rejoins for p in on_a)
    for player in players:
        check_store(postgres, database, player)
    for player in on_a:                 # a seq acknowledged before the kill: its first ack again
        for seq, version in before[player.name].items():
            again = await player.request("move", room=player.room, move=player.moves[seq], seq=seq)
            assert again == {"type": "ack", "room": player.room, "seq": seq, "version": version}, player.name
    for player in clocked:
        check_clock(player, kill_at)

    cluster.start("a")                  # a comes back with a new epoch: every room stays where it is
    await cluster.ready("a")
    for player in on_a:
        back = await connect(f"{cluster.url}/n/a/", subprotocols=["polygo.json"])
        await back.send(json.dumps({"type": "hello", "protocol": PROTOCOL_VERSION, "token": player.token}))
        await back.send(json.dumps({"type": "watch", "room": player.room}))
        replies = [json.loads(await asyncio.wait_for(back.recv(), WAIT)) for _ in range(2)]
        assert replies[1]["type"] == "error" and replies[1]["code"] == "moved", (player.name, replies)
        assert replies[1]["node"] == now[players.index(player)]
        await back.close()
    await asyncio.sleep(3 * SWEEP)      # a's sweeper has run: it took none of them either
    assert owners(postgres, database, players) == now
    for player in players:
        await player.ws.close()


def check_clock(player: Player, kill_at: float) -> None:
    """The player's first move after the kill was charged no more than the time from the kill to
    its ack: not the outage's start, nor the HOLD before the kill since the bot's last move."""
    seq = min(s for s, at in player.acked_at.items() if at > kill_at)
    version = player.acked[seq]
    bots = max(v for v, e in player.seen.items() if v < version and e["kind"] == "move")
    charged = player.clocks[bots]["seats"][0]["main"] - player.clocks[version]["seats"][0]["main"]
    assert charged <= player.acked_at[seq] - kill_at + 0.05, (player.name, charged)


def owners(postgres, database: str, players: list[Player]) -> list[str]:
    """The node owning each player's room, in the players' order."""
    rows = dict(line.split("|") for line in postgres.psql(
        "SELECT room_id, owner_node FROM rooms", database).split())
    return [rows[p.room] for p in players]


def check_store(postgres, database: str, player: Player) -> None:
    """Each acknowledged seq stored once with its acknowledged version; the store's versions have
    no gap, and each version the player saw is the stored event of that version."""
    stored = postgres.psql(f"SELECT seq, version FROM moves WHERE room_id = '{player.room}' AND seat = 0",
                           database).split()
    seqs = [tuple(map(int, row.split("|"))) for row in stored]
    assert sorted(seqs) == sorted(player.acked.items()), player.name
    rows = postgres.psql(f"SELECT version, body FROM events WHERE room_id = '{player.room}' ORDER BY version",
                         database).splitlines()
    events = {int(v): json.loads(body) for v, body in (row.split("|", 1) for row in rows)}
    assert list(events) == list(range(1, len(events) + 1)), player.name
    seen = sorted(player.seen)
    assert seen == list(range(player.start + 1, seen[-1] + 1)), player.name
    for version in seen:
        assert player.seen[version] == {k: events[version].get(k) for k in ("kind", "seat", "move")}, \
            (player.name, version)
