"""A client session: the token, the rooms it watches, its moves until they are acknowledged.

`Client` is what the terminal client, the bot SDK and the GTP bridge share. It says `hello` (with
the token it was given before, kept in a file if asked, so a restarted program gets its seats back),
keeps a `RoomView` per room from the snapshot and events, and survives a dropped connection:
it reconnects, presents its token, asks each room for the events it missed (`watch` with `since`)
and resends every move the server has not acknowledged, with the same `seq` so that none is applied
twice. Whoever uses it reads `changes`, a queue of the room ids whose view just changed.

In a cluster (docs/cluster.md) a room is served by one node: a request answered `moved` is asked
again at that node's path, on a connection of its own (moves are resent with their `seq`), and
that room's requests go there from then on; the session keeps one connection per node serving
one of its rooms, beside the one to the address it was given (`home`), which answers everything
else. One answered `unavailable` is asked again after the `retry_after` it names, jittered. A lost
connection home is reconnected; a lost connection to a node is let go, and its rooms are asked
for at home again, where any live node may take them (or says where they went).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import random
import time
from pathlib import Path

import msgspec
from typing import Any
from urllib.parse import urljoin

from polygo.protocol import (
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
from polygo.protocol import (Arena, Challenge, Register, ChallengeReply, Challenges, ChallengeState, ListChallenges, ListPools,
                      Matched, Pools, Seek, Seeking, Unseek)

from polygo.client.connection import Connection
from polygo.client.errors import ConnectionFailed, ServerRefused
from polygo.client.room import RoomView
from polygo.client.tasks import spawn

DEFAULT_URL = "ws://127.0.0.1:8765/"
RECONNECT_FOR = 60.0
"""Seconds a client keeps trying to reconnect before it gives up (`polygo play` tries for longer)."""
BACKOFF_FIRST, BACKOFF_CAP = 0.2, 10.0
"""Reconnection delays: doubling from the first to the cap, each drawn at random between half and
all of it (jitter), so a server's many clients do not all come back at the same instant."""

log = logging.getLogger("polygo.session")


NODE_ATTEMPTS = 3
"""Tries at a node's path (backing off) before its rooms are asked for at home again."""

CLUSTER_CODES = ("moved", "unavailable")

FINDING = (Seek, Unseek, Challenge, ChallengeReply, ListChallenges, Arena)
"""Requests a cluster serves at the node that finds games (a `moved` names it), not at a room's."""
"""Refusals that say where or when to ask again, not that the request was wrong (protocol 3)."""

MOVE_RETRIES = 5
"""Times a move refused `internal` (the server failed to store it: nothing changed) is sent again
with its seq, backing off, before the refusal is the caller's."""


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


class Link:
    """One of the session's connections: to the address it was given (`home`), or to the path of
    one node of a cluster that a `moved` named. `ready` is set while `conn` has said hello."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.conn: Connection | None = None
        self.ready = asyncio.Event()
        self.failed = False            # a node's path that could not be reached: ask home again
        self.task: asyncio.Task[None] | None = None


class Client:
    """One session on one server or cluster, reconnecting as needed. Use as an async context manager.

    A request about a room goes to the connection of the node serving it (the one its last `moved`
    named), every other request to `home`; a session seated in rooms on several nodes keeps one
    connection to each of them."""

    def __init__(self, url: str = DEFAULT_URL, *, name: str = "player", token: str | None = None,
                 tokens: TokenStore | None = None, profile: str | None = None, codec: str = MSGPACK,
                 program: str = "polygo", reconnect_for: float = RECONNECT_FOR,
                 user: str | None = None, password: str | None = None) -> None:
        self.home = url                # where requests go that no `moved` sent elsewhere
        self.login = None if user is None or password is None else (user, password)
        """A registered account to log in as (registered on first use), for rated pools and the arena."""
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
        self.notices: asyncio.Queue[Matched | ChallengeState] = asyncio.Queue()
        """What the server sends unasked about finding games: a room started for a seek, a
        challenge or the arena (`Matched`), a challenge's change (`ChallengeState`)."""
        self.generation = 0
        """Grows with every hello and with the loss of the finder's connection: seeks and arena
        membership end with a connection, so a client that sees this grow says them again."""
        self._finder: str | None = None   # cluster: the node that finds games, after a `moved` to it
        self._links: dict[str, Link] = {}
        self._where: dict[str, str] = {}     # room -> the url of the node serving it, after a `moved`
        self._closing = False
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

    def url_of(self, room: str) -> str:
        """Where requests about `room` go: the node a `moved` named, else `home`."""
        return self._where.get(room, self.home)

    @property
    def connections(self) -> dict[str, bool]:
        """Each connection's url and whether it is up (one per node serving a room of the session)."""
        return {url: link.ready.is_set() for url, link in self._links.items()}

    async def connect(self) -> Welcome:
        """Open the connection to `home` and say hello (with the known token, else as a new session)."""
        link = self._links[self.home] = Link(self.home)
        link.conn = await Connection.open(self.home, codec=self.codec)
        welcome = await self._hello(link.conn)
        link.ready.set()
        link.task = spawn(self._pump(link))
        return welcome

    async def close(self) -> None:
        self._closing = True
        for link in list(self._links.values()):
            if link.task is not None and link.task is not asyncio.current_task():
                link.task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await link.task
            if link.conn is not None:
                await link.conn.close()
        for _, future in self._unacked.values():
            if not future.done():
                future.set_exception(ConnectionFailed("the client was closed before the server acknowledged"))
        self.changes.put_nowait(None)

    async def _hello(self, conn: Connection) -> Welcome:
        reply: ServerMessage
        if self.token:
            try:
                reply = await conn.request(Hello(protocol=PROTOCOL_VERSION, token=self.token, client=self.program))
            except ServerRefused as exc:
                if exc.code != "bad-token":
                    raise
                self.token = None
        if not self.token and self.login is not None:
            reply = await self._log_in(conn, *self.login)
        elif not self.token:
            reply = await conn.request(Hello(protocol=PROTOCOL_VERSION, name=self.name, client=self.program))
        assert isinstance(reply, Welcome)
        self.welcome = reply
        self.generation += 1
        self.held.update((entry["room"], entry["seat"]) for entry in reply.seats)
        self.token = reply.token
        self.name = reply.name
        if self.tokens is not None:
            self.tokens.put(self._token_key, reply.token)
        return reply

    async def _log_in(self, conn: Connection, user: str, password: str) -> ServerMessage:
        """Hello as the registered `user`; an unknown user is registered (a bot's account is made
        on its first run), a wrong password stays an error."""
        try:
            return await conn.request(Hello(protocol=PROTOCOL_VERSION, user=user, password=password,
                                            client=self.program))
        except ServerRefused as exc:
            if exc.code != "bad-login":
                raise
        reply = await conn.request(Hello(protocol=PROTOCOL_VERSION, name=user, client=self.program))
        try:
            await conn.request(Register(user=user, password=password))
        except ServerRefused as exc:
            if exc.code == "name-taken":
                raise ServerRefused(f"cannot log in as {user!r}: the name is registered and the password is not "
                                    f"its own", code="bad-login") from None
            raise
        assert isinstance(reply, Welcome)
        return msgspec.structs.replace(reply, user=user, name=user)

    async def request(self, message: Any) -> ServerMessage:
        """Send a request where its room is served, once connected there; waits out a reconnection
        and follows `moved` and `unavailable` instead of failing at once."""
        deadline = time.monotonic() + self.reconnect_for
        room = getattr(message, "room", None)
        finding = isinstance(message, FINDING)
        while True:
            if self._closing:                # no connection is opened for a closed client
                raise ConnectionFailed("the client is closed")
            url = self.url_of(room) if room else (self._finder or self.home) if finding else self.home
            link = await self._link(url, deadline)
            if link.failed:                  # that node's path is gone: its rooms are asked at home
                continue
            assert link.conn is not None
            try:
                return await link.conn.request(message)
            except ConnectionFailed:
                if self._closing or time.monotonic() > deadline:
                    raise
                await asyncio.sleep(0.05)          # until its pump has seen the end and reconnected
            except ServerRefused as refused:
                if refused.code not in CLUSTER_CODES or self._closing or time.monotonic() > deadline:
                    raise
                if finding and refused.code == "moved":
                    finder = urljoin(self.home, refused.url or "/")
                    self._finder = None if finder == self.home else finder
                    continue
                await self._follow(refused, room)

    async def _follow(self, refused: ServerRefused, room: str | None) -> None:
        """A cluster's answer: `moved`, the room's requests go to the node's path from now on (a
        connection is opened there when first needed); `unavailable`, wait the time it names, jittered."""
        if refused.code == "unavailable" or room is None:
            await asyncio.sleep((refused.retry_after or 1.0) * (1 + self._rng.random() / 2))
            return
        url = urljoin(self.home, refused.url or "/")
        if url == self.home:
            self._where.pop(room, None)
        else:
            self._where[room] = url

    async def _link(self, url: str, deadline: float) -> Link:
        """The connection to `url`, opened (with a hello) if there is none yet; waits while it
        reconnects. A node's path that cannot be reached is forgotten (`failed`)."""
        link = self._links.get(url)
        if link is None:
            link = self._links[url] = Link(url)
            link.task = spawn(self._open(link))
        try:
            await asyncio.wait_for(link.ready.wait(), max(0.1, deadline - time.monotonic()))
        except asyncio.TimeoutError:
            raise ConnectionFailed(f"no connection to {url}") from None
        return link

    async def _open(self, link: Link) -> None:
        """Connect a node's path, backing off a few times; then pump its events."""
        for attempt in range(1, NODE_ATTEMPTS + 1):
            try:
                link.conn = await Connection.open(link.url, codec=self.codec)
                await self._hello(link.conn)
            except (ConnectionFailed, ServerRefused):
                await asyncio.sleep(backoff(attempt, self._rng))
                continue
            link.ready.set()
            await self._pump(link)
            return
        self._forget(link)

    def _forget(self, link: Link) -> None:
        """A node's connection is lost for good: its rooms go back to `home`, where a live node
        serves them (or says where), and are caught up there; moves waiting on it are resent."""
        link.failed = True
        link.ready.set()                 # wakes its waiters, who ask home instead
        if self._links.get(link.url) is link:
            del self._links[link.url]
        if link.url == self._finder:     # its seeks and arena membership are gone with it
            self._finder = None
            self.generation += 1
        rooms = [room for room, url in self._where.items() if url == link.url]
        for room in rooms:
            del self._where[room]
            if room in self.rooms:
                self._resync(room)

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

    # --- finding games: pools, seeks, challenges, the arena (docs/pools.md) -------------------

    async def pools(self) -> list[dict[str, Any]]:
        reply = await self.request(ListPools())
        assert isinstance(reply, Pools)
        return reply.pools

    async def seek(self, pool: str | None = None, settings: RoomSettings | None = None) -> Seeking:
        """Wait for a game of `pool` (or of custom `settings`); the room comes as a `Matched` notice."""
        reply = await self.request(Seek(pool=pool, settings=settings))
        assert isinstance(reply, Seeking)
        return reply

    async def unseek(self) -> None:
        await self.request(Unseek())

    async def challenge(self, players: list[str], pool: str | None = None,
                        settings: RoomSettings | None = None) -> dict[str, Any]:
        """Invite registered `players` to a game; the challenge as it stands (changes come as notices)."""
        reply = await self.request(Challenge(players=players, pool=pool, settings=settings))
        assert isinstance(reply, ChallengeState)
        return reply.challenge

    async def challenge_reply(self, challenge: str, accept: bool) -> None:
        await self.request(ChallengeReply(challenge=challenge, accept=accept))

    async def challenges(self) -> list[dict[str, Any]]:
        """The standing challenges to and from this session; their changes come as notices from now on."""
        reply = await self.request(ListChallenges())
        assert isinstance(reply, Challenges)
        return reply.challenges

    async def arena(self, pool: str, join: bool = True) -> None:
        await self.request(Arena(pool=pool, join=join))

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
        """Send the move until the server answers it: after a reconnection, at the node a `moved`
        names, after the wait an `unavailable` names, and (a few times, backing off) after an
        `internal`, it goes again with the same seq (acknowledged once, whatever the count)."""
        entry = self._unacked.get((room, seq))
        if entry is None:
            return
        future = entry[1]
        for attempt in range(1, MOVE_RETRIES + 2):
            try:
                reply = await self.request(Move(room=room, move=move, seq=seq, after=self._after.get((room, seq))))
                break
            except ServerRefused as exc:
                if exc.code != "internal" or attempt > MOVE_RETRIES or self._closing:
                    if not future.done():
                        future.set_exception(exc)
                    return
                await asyncio.sleep(backoff(attempt, self._rng))
            except ConnectionFailed as exc:
                if not future.done():
                    future.set_exception(exc)
                return
        if not future.done():
            assert isinstance(reply, Ack)
            future.set_result(reply)

    # --- the event pumps and reconnection ---------------------------------------------------

    async def _pump(self, link: Link) -> None:
        """Apply the events that arrive on `link`; when it ends, reconnect home or let a node's
        path go (`_forget`)."""
        while True:
            assert link.conn is not None
            message = await link.conn.events.get()
            if message is None:
                link.ready.clear()
                if self._closing:
                    return
                if link.url != self.home:
                    self._forget(link)
                    return
                await self._reconnect(link)
                continue
            if isinstance(message, (Matched, ChallengeState)):
                self.notices.put_nowait(message)
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

    async def _reconnect(self, link: Link) -> None:
        """Reconnect home with the token (backing off, with jitter) and catch up the rooms served
        there; the unacknowledged moves are resent by their own tasks. `status` says what is going
        on, and each change wakes `changes`."""
        started = time.monotonic()
        deadline = started + self.reconnect_for
        attempt = 0
        log.info("lost the server at %s; reconnecting (rooms %s)", link.url, self._rooms_at(link))
        while True:
            attempt += 1
            self._set_status(f"lost the server; reconnecting… (attempt {attempt})")
            try:
                link.conn = await Connection.open(link.url, codec=self.codec)
                await self._hello(link.conn)
                break
            except (ConnectionFailed, ServerRefused):
                if time.monotonic() > deadline:
                    log.warning("lost the server at %s: no answer for %.0f s, giving up", link.url,
                                time.monotonic() - started)
                    self._set_status("lost the server")
                    self._fail_all(ConnectionFailed(f"lost the server at {link.url} and could not reconnect"))
                    self.changes.put_nowait(None)
                    raise
                await asyncio.sleep(backoff(attempt, self._rng))
        link.ready.set()
        for room in list(self.rooms):
            if self.url_of(room) == link.url:
                await self._resync_room(room)
        log.info("reconnected to %s after %d attempt(s) in %.1f s; rooms %s caught up", link.url, attempt,
                 time.monotonic() - started, self._rooms_at(link))
        self._set_status("connected")

    def _rooms_at(self, link: Link) -> str:
        return ", ".join(room for room in self.rooms if self.url_of(room) == link.url) or "none"

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
