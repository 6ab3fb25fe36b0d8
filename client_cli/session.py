"""A client session: the token, the rooms it watches, its moves until they are acknowledged.

`Client` is what the terminal client, the bot SDK and the GTP bridge share. It says `hello` (with
the token it was given before, kept in a file if asked, so a restarted program gets its seats back),
keeps a `RoomView` per room from the snapshot and events, and survives a dropped connection:
it reconnects, presents its token, asks each room for the events it missed (`watch` with `since`)
and resends every move the server has not acknowledged, with the same `seq` so that none is applied
twice. Whoever uses it reads `changes`, a queue of the room ids whose view just changed.

In a cluster (docs/cluster.md) a room is served by one node: a request answered `moved` makes
the client reconnect at that node's path and ask again (moves are resent with their `seq`), one
answered `unavailable` is asked again after the `retry_after` it names, jittered; after any other
disconnect the client reconnects to the address it was given, where any node may take it. One
connection serves every room of a client, so a client in rooms on two nodes follows the last one.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import random
import time
from pathlib import Path
from typing import Any
from urllib.parse import urljoin

from protocol import (
    MSGPACK,
    PROTOCOL_VERSION,
    Ack,
    Chat,
    Create,
    Created,
    Event,
    Events,
    GameRecord,
    Games,
    GetGame,
    Hello,
    ListGames,
    ListRooms,
    Move,
    Rooms,
    RoomSettings,
    ServerMessage,
    Sit,
    Snapshot,
    Undo,
    UndoReply,
    Watch,
    Welcome,
)

from client_cli.connection import Connection
from client_cli.errors import ConnectionFailed, ServerRefused
from client_cli.room import RoomView
from client_cli.tasks import spawn

DEFAULT_URL = "ws://127.0.0.1:8765/"
RECONNECT_FOR = 60.0
"""Seconds a client keeps trying to reconnect before it gives up (`polygo play` tries for longer)."""
BACKOFF_FIRST, BACKOFF_CAP = 0.2, 10.0
"""Reconnection delays: doubling from the first to the cap, each drawn at random between half and
all of it (jitter), so a server's many clients do not all come back at the same instant."""


CLUSTER_CODES = ("moved", "unavailable")
"""Refusals that say where or when to ask again, not that the request was wrong (protocol 3)."""


def backoff(attempt: int, rng: random.Random) -> float:
    """Seconds to wait before reconnection attempt `attempt` (1, 2, ...)."""
    ceiling = min(BACKOFF_CAP, BACKOFF_FIRST * 2 ** (attempt - 1))
    return rng.uniform(ceiling / 2, ceiling)


def default_token_file() -> Path:
    """Where `polygo` keeps its session tokens: $POLYGO_HOME or ~/.config/polygo, file sessions.json."""
    home = os.environ.get("POLYGO_HOME") or os.path.join(os.path.expanduser("~"), ".config", "polygo")
    return Path(home) / "sessions.json"


class TokenStore:
    """Session tokens per server URL and profile, in a small JSON file readable only by its owner."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def _read(self) -> dict[str, Any]:
        try:
            data = json.loads(self.path.read_text())
        except (OSError, ValueError):
            return {}
        return data if isinstance(data, dict) else {}

    def get(self, key: str) -> str | None:
        token = self._read().get(key)
        return token if isinstance(token, str) else None

    def put(self, key: str, token: str) -> None:
        data = self._read()
        data[key] = token
        self.path.parent.mkdir(parents=True, exist_ok=True)
        tmp = self.path.with_suffix(".tmp")
        tmp.write_text(json.dumps(data, indent=1))
        os.chmod(tmp, 0o600)
        os.replace(tmp, self.path)


class Client:
    """One session on one server, reconnecting as needed. Use as an async context manager."""

    def __init__(self, url: str = DEFAULT_URL, *, name: str = "player", token: str | None = None,
                 tokens: TokenStore | None = None, profile: str | None = None, codec: str = MSGPACK,
                 program: str = "polygo", reconnect_for: float = RECONNECT_FOR) -> None:
        self.url = url                 # where the connection is now (a node's path after a `moved`)
        self.home = url                # where it reconnects after a disconnect
        self._next_url: str | None = None
        self.name = name
        self.codec = codec
        self.program = program
        self.reconnect_for = reconnect_for
        self.tokens = tokens
        self._token_key = f"{url}#{profile or name}"
        self.token = token or (tokens.get(self._token_key) if tokens else None)
        self.welcome: Welcome | None = None
        self.rooms: dict[str, RoomView] = {}
        self.changes: asyncio.Queue[str | None] = asyncio.Queue()
        self._conn: Connection | None = None
        self._connected = asyncio.Event()
        self._closing = False
        self._pump: asyncio.Task[None] | None = None
        self._seq = 0
        self._unacked: dict[tuple[str, int], tuple[str, asyncio.Future[Ack]]] = {}
        self._after: dict[tuple[str, int], int] = {}
        self._resyncing: set[str] = set()
        self.held: set[tuple[str, int]] = set()
        self.status = "connected"      # or what the reconnection is doing, for the screen
        self._rng = random.Random()

    async def __aenter__(self) -> Client:
        await self.connect()
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.close()

    def seats_in(self, room: str) -> list[int]:
        """The seats this session holds in `room`."""
        return sorted(seat for r, seat in self.held if r == room)

    async def connect(self) -> Welcome:
        """Open the connection and say hello (with the known token, else as a new session)."""
        self._conn = await Connection.open(self.url, codec=self.codec)
        welcome = await self._hello()
        self._connected.set()
        self._pump = asyncio.create_task(self._run())
        return welcome

    async def close(self) -> None:
        self._closing = True
        if self._pump is not None:
            self._pump.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._pump
        if self._conn is not None:
            await self._conn.close()
        for _, future in self._unacked.values():
            if not future.done():
                future.set_exception(ConnectionFailed("the client was closed before the server acknowledged"))
        self.changes.put_nowait(None)

    async def _hello(self) -> Welcome:
        assert self._conn is not None
        reply: ServerMessage
        if self.token:
            try:
                reply = await self._conn.request(Hello(protocol=PROTOCOL_VERSION, token=self.token, client=self.program))
            except ServerRefused as exc:
                if exc.code != "bad-token":
                    raise
                self.token = None
        if not self.token:
            reply = await self._conn.request(Hello(protocol=PROTOCOL_VERSION, name=self.name, client=self.program))
        assert isinstance(reply, Welcome)
        self.welcome = reply
        self.held.update((entry["room"], entry["seat"]) for entry in reply.seats)
        self.token = reply.token
        self.name = reply.name
        if self.tokens is not None:
            self.tokens.put(self._token_key, reply.token)
        return reply

    async def request(self, message: Any) -> ServerMessage:
        """Send a request once connected; waits out a reconnection instead of failing at once."""
        deadline = time.monotonic() + self.reconnect_for
        while True:
            try:
                await asyncio.wait_for(self._connected.wait(), max(0.1, deadline - time.monotonic()))
            except asyncio.TimeoutError:
                raise ConnectionFailed(f"no connection to {self.url}") from None
            assert self._conn is not None
            try:
                return await self._conn.request(message)
            except ConnectionFailed:
                if self._closing or time.monotonic() > deadline:
                    raise
                self._connected.clear()
                await asyncio.sleep(0.05)
            except ServerRefused as refused:
                if refused.code not in CLUSTER_CODES or self._closing or time.monotonic() > deadline:
                    raise
                await self._follow(refused)

    async def _follow(self, refused: ServerRefused) -> None:
        """A cluster's answer: `moved`, reconnect at the node's path (the pump does, and resends
        the unacknowledged moves there); `unavailable`, wait the time it names, jittered."""
        if refused.code == "unavailable":
            await asyncio.sleep((refused.retry_after or 1.0) * (1 + self._rng.random() / 2))
            return
        if self._conn is not None and self._connected.is_set():
            self._next_url = urljoin(self.home, refused.url or "/")
            self._connected.clear()
            await self._conn.close()

    # --- rooms ---------------------------------------------------------------------------

    async def list_rooms(self) -> list[dict[str, Any]]:
        reply = await self.request(ListRooms())
        assert isinstance(reply, Rooms)
        return reply.rooms

    async def create(self, settings: RoomSettings) -> Created:
        reply = await self.request(Create(settings=settings))
        assert isinstance(reply, Created)
        return reply

    async def sit(self, room: str, seat: int | None = None, invite: str | None = None) -> RoomView:
        """Take `seat` in `room`, or the first free one; the seat taken is added to `held`."""
        while True:
            chosen = seat
            if chosen is None:
                view = await self.watch(room, invite)
                free = [s["seat"] for s in view.seats if not s.get("name")]
                if not free:
                    raise ServerRefused(f"room {room} has no free seat", code="room-full")
                chosen = free[0]
            try:
                reply = await self.request(Sit(room=room, seat=chosen, invite=invite))
            except ServerRefused as exc:
                if seat is None and exc.code == "seat-taken":
                    continue
                raise
            self.held.add((room, chosen))
            return self._take_snapshot(reply)

    async def watch(self, room: str, invite: str | None = None) -> RoomView:
        reply = await self.request(Watch(room=room, invite=invite))
        return self._take_snapshot(reply)

    async def chat(self, room: str, text: str) -> None:
        await self.request(Chat(room=room, text=text))

    async def undo(self, room: str) -> None:
        await self.request(Undo(room=room))

    async def undo_reply(self, room: str, accept: bool) -> None:
        await self.request(UndoReply(room=room, accept=accept))

    async def games(self, limit: int = 50, offset: int = 0) -> list[dict[str, Any]]:
        reply = await self.request(ListGames(limit=limit, offset=offset))
        assert isinstance(reply, Games)
        return reply.games

    async def game_record(self, room: str, format: str = "json") -> Any:
        reply = await self.request(GetGame(room=room, format=format))
        assert isinstance(reply, GameRecord)
        return reply.record

    def _take_snapshot(self, reply: ServerMessage) -> RoomView:
        assert isinstance(reply, Snapshot)
        view = self.rooms.get(reply.room)
        if view is None:
            view = self.rooms[reply.room] = RoomView(reply, time.monotonic())
        elif reply.version >= view.version:
            view.apply_snapshot(reply, time.monotonic())
        self.changes.put_nowait(reply.room)
        return view

    # --- moves ---------------------------------------------------------------------------

    def next_seq(self) -> int:
        """A move number above every one this session sent before, even from an earlier process."""
        self._seq = max(self._seq + 1, time.time_ns() // 1_000_000)
        return self._seq

    async def move(self, room: str, move: str, *, after: int | None = None) -> Ack:
        """Send a move and wait until the server has stored it (resent after a reconnection).

        `after`: the room version the move was decided at (a `done` is then refused with
        `stale-marks` if the dead marks changed since). A refused move raises `ServerRefused` with
        the engine's `reason`.
        """
        seq = self.next_seq()
        future: asyncio.Future[Ack] = asyncio.get_running_loop().create_future()
        self._unacked[(room, seq)] = (move, future)
        if after is not None:
            self._after[(room, seq)] = after
        spawn(self._send_move(room, seq, move))
        try:
            return await future
        finally:
            self._unacked.pop((room, seq), None)
            self._after.pop((room, seq), None)

    async def _send_move(self, room: str, seq: int, move: str) -> None:
        entry = self._unacked.get((room, seq))
        if entry is None or self._conn is None:
            return
        future = entry[1]
        try:
            reply = await self._conn.request(Move(room=room, move=move, seq=seq, after=self._after.get((room, seq))))
        except ConnectionFailed:
            return
        except ServerRefused as exc:
            if exc.code in CLUSTER_CODES and not self._closing:
                await self._follow(exc)
                if exc.code == "unavailable":
                    spawn(self._send_move(room, seq, move))
                return          # moved: the reconnection resends it at the room's node
            if not future.done():
                future.set_exception(exc)
            return
        if not future.done():
            assert isinstance(reply, Ack)
            future.set_result(reply)

    # --- the event pump and reconnection ----------------------------------------------------

    async def _run(self) -> None:
        while True:
            assert self._conn is not None
            message = await self._conn.events.get()
            if message is None:
                self._connected.clear()
                if self._closing:
                    return
                await self._reconnect()
                continue
            if isinstance(message, Event):
                view = self.rooms.get(message.room)
                if view is None:
                    continue
                if view.apply_event(message, time.monotonic()):
                    self.changes.put_nowait(message.room)
                else:
                    self._resync(message.room)

    def _resync(self, room: str) -> None:
        if room not in self._resyncing:
            self._resyncing.add(room)
            spawn(self._resync_room(room))

    async def _resync_room(self, room: str) -> None:
        """Catch the mirror of `room` up: the missed events, or a snapshot where they do not apply."""
        try:
            view = self.rooms[room]
            for since in ([None] if view.needs_snapshot else [view.version, None]):
                try:
                    reply = await self.request(Watch(room=room, since=since))
                except (ConnectionFailed, ServerRefused, asyncio.TimeoutError):
                    return
                if not isinstance(reply, Events):
                    self._take_snapshot(reply)
                    return
                if view.apply_events(reply, time.monotonic()):
                    self.changes.put_nowait(room)
                    return
        finally:
            self._resyncing.discard(room)

    async def _reconnect(self) -> None:
        """Reconnect with the token (backing off, with jitter), catch up every room, resend the
        unacknowledged moves. `status` says what is going on, and each change wakes `changes`."""
        deadline = time.monotonic() + self.reconnect_for
        attempt = 0
        while True:
            attempt += 1
            self._set_status(f"lost the server; reconnecting… (attempt {attempt})")
            self.url, self._next_url = self._next_url or self.home, None
            try:
                self._conn = await Connection.open(self.url, codec=self.codec)
                await self._hello()
                break
            except (ConnectionFailed, ServerRefused):
                if time.monotonic() > deadline:
                    self._set_status("lost the server")
                    self._fail_all(ConnectionFailed(f"lost the server at {self.url} and could not reconnect"))
                    self.changes.put_nowait(None)
                    raise
                await asyncio.sleep(backoff(attempt, self._rng))
        self._connected.set()
        for room in list(self.rooms):
            await self._resync_room(room)
        self._set_status("connected")
        for (room, seq), (move, _) in list(self._unacked.items()):
            spawn(self._send_move(room, seq, move))

    def _set_status(self, status: str) -> None:
        self.status = status
        for room in self.rooms:
            self.changes.put_nowait(room)

    async def recent_chat(self, room: str, events: int = 200) -> None:
        """Fill the room's chat with what was said in its last `events` events (missed while away)."""
        view = self.rooms[room]
        try:
            reply = await self.request(Watch(room=room, since=max(0, view.version - events)))
        except (ConnectionFailed, ServerRefused):
            return
        if isinstance(reply, Events):
            said = [(e.get("name") or "?", e.get("text", "")) for e in reply.events if e.get("kind") == "chat"
                    and e.get("version", 0) <= view.version]
            view.chat[:0] = said
            self.changes.put_nowait(room)

    def _fail_all(self, error: Exception) -> None:
        for _, future in self._unacked.values():
            if not future.done():
                future.set_exception(error)
