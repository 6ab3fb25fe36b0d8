"""One client connection: frames in, checked messages to the hub and rooms, replies and events out.

Inbound, every frame passes the rate limit and `protocol`'s checks; whatever is wrong with it
becomes an `error` reply and the connection reads on. Outbound, nothing ever waits for a peer:
frames go straight into the socket's write buffer, and a peer whose buffer grows past
`Config.outbound_limit` is not reading, so it is cut off rather than allowed to hold memory or
slow its rooms down.
"""

from __future__ import annotations

import asyncio
import itertools
import logging
import time
from typing import TYPE_CHECKING, Any, Awaitable, Callable

import msgspec
from websockets.asyncio.server import ServerConnection
from websockets.datastructures import Headers
from websockets.exceptions import ConnectionClosed
from websockets.http11 import Request

from polygo.protocol import (JSON, MSGPACK, PROTOCOL_VERSION, Ack, Analysis, Arena, Challenge, ChallengeReply, Challenges,
                      Chat, ClientMessage, Create, Error, ErrorCode, Events, GetGame, Hello, Leave, ListChallenges,
                      ListGames, ListMyGames, ListPools, ListRooms, Logout, Move, Ok, Pools, ProtocolError, Register,
                      SeatName, Seek, ServerMessage, Sit, Snapshot, Undo, UndoReply, Unseek, Watch, Welcome,
                      decode_client, encode)
from polygo.protocol.names import clean_name
from polygo.rules import describe_presets

from . import VERSION
from .accounts.sessions import Session
from .limits.addresses import Networks, forwarded_address, limit_key
from .limits.ratelimit import TokenBucket
from .net.frames import frame, write
from .net.quick_reading import QuickReading
from .ops.logs import board_label, event
from .rooms.my_games import my_games
from .rooms.resends import ack_from_store
from .store.errors import Unavailable

if TYPE_CHECKING:
    from .hub import Hub
    from .rooms.room import Room

log = logging.getLogger("polygo.connection")

SERVER_NAME = f"polygo {VERSION}"

HANDLERS: dict[type[ClientMessage], str] = {
    Hello: "_hello", Register: "_register", Logout: "_logout", ListRooms: "_list", Create: "_create",
    Sit: "_sit", Watch: "_watch", Leave: "_leave", Move: "_move", Undo: "_undo", UndoReply: "_undo_reply",
    Chat: "_chat", Analysis: "_analysis", SeatName: "_seat_name", ListGames: "_games", GetGame: "_game",
    ListMyGames: "_my_games",
    ListPools: "_pools", Seek: "_seek", Unseek: "_unseek", Challenge: "_challenge", ChallengeReply: "_challenge_reply",
    ListChallenges: "_challenges", Arena: "_arena",
}
"""The method that answers each client message (one table for all connections, to keep them small)."""


class Connection:
    """The server's side of one websocket."""

    def __init__(self, hub: Hub, ws: ServerConnection) -> None:
        self.hub = hub
        self.ws = ws
        self.codec = JSON if ws.subprotocol == JSON else MSGPACK
        self.client = address_of(ws, hub.config.trusted_proxies)
        """The client's address, for the log lines; the limits count it as `address`."""
        self.address = limit_key(self.client)
        self.id = next(_IDS)
        """A number for this connection's log lines, so that its events can be followed."""
        self.opened = _now()
        peer = ws.remote_address
        event("connection-opened", conn=self.id, address=self.client, peer=str(peer[0]) if peer else None,
              codec=self.codec)
        forget_handshake(ws)
        self.session: Session | None = None
        self.closed = False
        self.watching: set[Any] = set()
        self._held: list[bytes] | None = None   # frames kept for one write, during a move (`_on_frame`)
        self._greeted = False                   # said a hello that was welcomed (`serve`'s deadline)
        self._closing: asyncio.Task[None] | None = None
        config = hub.config
        self._bucket = TokenBucket(config.rate, config.burst, _now())

    async def serve(self) -> None:
        """Read frames until the peer goes away; one that says no hello in `Config.hello_timeout`
        seconds is closed (1008), or it would hold a connection of its address's quota for ever."""
        ws = self.ws
        message = ws.message if isinstance(ws, QuickReading) else ws.recv
        timeout = self.hub.config.hello_timeout
        deadline = asyncio.get_running_loop().call_later(timeout, self._no_hello, timeout)
        try:
            while True:
                frame = await message()
                await self._on_frame(await ws.recv() if frame is None else frame)
        except ConnectionClosed:
            pass
        finally:
            deadline.cancel()
            self.closed = True
            self._unwatch_all()
            self.hub.seeks.dropped(self)
            self.hub.arena.dropped(self)
            self.hub.challenges.dropped(self)
            session = self.session
            event("connection-closed", conn=self.id, address=self.client, code=self.ws.close_code,
                  seconds=round(_now() - self.opened, 3), name=session.name if session else None,
                  user=session.user if session else None)

    def _no_hello(self, timeout: float) -> None:
        if not self._greeted and not self.closed:
            self._closing = asyncio.get_running_loop().create_task(
                self.ws.close(1008, f"no hello within {timeout:g} s"))

    def _unwatch_all(self) -> None:
        for room in self.watching:
            room.watchers.discard(self)
            room.presence.changed()
        self.watching.clear()

    # -- sending -------------------------------------------------------------------------------------

    def send(self, message: ServerMessage) -> None:
        if isinstance(message, Error):
            self.hub.metrics.refused(message.code)
            event("rate-limited" if message.code == ErrorCode.RATE_LIMITED.value else "error",
                  conn=self.id, address=self.client, code=message.code, ref=message.ref, room=message.room)
        self.send_frame(frame(encode(message.to_wire(), self.codec)))

    def send_frame(self, framed: bytes) -> None:
        """Queue a frame (`frames.frame`) on the socket without waiting; cut off a peer that
        stopped reading.

        During this connection's move the frame is kept for the write that ends the move: the
        mover's own event and its ack then leave in one write (one system call, one segment), not
        two, in the order they were made. Whether the peer may be written to is asked
        once, at that write, not for every frame kept."""
        held = self._held
        if held is not None:
            held.append(framed)
        else:
            self._write(framed)

    def _write(self, frames: bytes) -> None:
        """Queue whole frames on an open socket (`frames.write`); a peer whose buffer is over the
        outbound limit is not reading, and is cut off instead."""
        if self.closed:
            return
        transport = self.ws.transport
        if transport is None or transport.is_closing():
            return
        if transport.get_write_buffer_size() > self.hub.config.outbound_limit:
            log.warning("%s: outbound buffer over %d bytes, disconnecting", self.client,
                        self.hub.config.outbound_limit)
            self.closed = True
            transport.abort()
            return
        write(self.ws, transport, frames, self.client)

    # -- receiving ------------------------------------------------------------------------------------

    async def _on_frame(self, frame: bytes | str) -> None:
        now = _now()
        if not self._bucket.allow(now):
            self.send(Error(code=ErrorCode.RATE_LIMITED.value,
                            message=f"over {self.hub.config.rate:g} messages per second; message dropped"))
            return
        refused = self.hub.intake.refusal(self.address, frame, now)
        if refused is not None:
            self.send(Error(id=refused.request_id, code=refused.code.value, message=refused.message, ref=refused.ref))
            return
        try:
            message = decode_client(frame, max_size=self.hub.config.max_frame,
                                     create_size=self.hub.config.hard_frame)
        except ProtocolError as exc:
            self.send(Error(id=exc.request_id, code=exc.code.value, message=exc.message, field=exc.field,
                            ref=exc.ref))
            return
        move = type(message) is Move
        if move:
            self._held = []
            started = _now()
        try:
            try:
                reply = await self._handler(message)(message)
            except Exception as exc:    # every failure becomes the request's reply
                reply = self._failed(exc, message)
            if move and type(reply) is Ack:
                self.hub.metrics.acked(_now() - started)
            if message.id is not None:
                reply = msgspec.structs.replace(reply, id=message.id)
            self.send(reply)
        finally:
            if move:
                held, self._held = self._held, None
                if held:
                    self._write(b"".join(held))
        if not move and isinstance(reply, (Snapshot, Events)):     # the reply to sit or watch: now a watcher
            room = self.hub.rooms.get(reply.room)
            if room is not None and room in self.watching:
                room.presence.send_to(self)

    def _handler(self, message: ClientMessage) -> Callable[[Any], Awaitable[ServerMessage]]:
        """The method that answers `message` (`HANDLERS`), once the session may send it. Not a
        coroutine: `_on_frame` awaits the handler itself, so no level of coroutine is added to every
        request's way in and out."""
        if self.session is not None and self.session.revoked:
            self._leave_session()
            if not isinstance(message, Hello):
                raise ProtocolError(ErrorCode.NO_SESSION, "your session ended (a logout or its expiry); "
                                                          "say hello again")
        if self.session is None and not isinstance(message, Hello):
            raise ProtocolError(ErrorCode.NO_SESSION, "say hello first")
        return getattr(self, HANDLERS[type(message)])

    def _failed(self, exc: Exception, message: ClientMessage) -> Error:
        """The reply to a request that raised `exc` (called in its `except` block)."""
        if isinstance(exc, ProtocolError):
            reply = _refusal(exc, message)
        elif isinstance(exc, Unavailable):   # the database away, or (cluster) the room lost: nothing committed
            reply = _refusal(ProtocolError(ErrorCode.UNAVAILABLE, f"{exc.message} Ask again.",
                                           retry_after=exc.retry_after), message)
        else:
            log.exception("%s failed on %s", self.client, message.TYPE)
            reply = _refusal(ProtocolError(ErrorCode.INTERNAL, "the server failed on this message; nothing changed"),
                             message)
        forget(exc)
        return reply

    # -- handlers --------------------------------------------------------------------------------------

    async def _hello(self, m: Hello) -> ServerMessage:
        if m.protocol != PROTOCOL_VERSION:
            raise ProtocolError(ErrorCode.UNSUPPORTED_VERSION,
                                f"this server speaks protocol {PROTOCOL_VERSION}, not {m.protocol}", field="protocol")
        ways = [m.name is not None, m.token is not None, m.user is not None or m.password is not None]
        if sum(ways) != 1:
            raise ProtocolError(ErrorCode.BAD_FIELD, "hello needs exactly one of: name, token, user with password")
        sessions = self.hub.sessions
        how = "guest" if m.name is not None else "token" if m.token is not None else "password"
        try:
            if m.name is not None:
                name = clean_name(m.name)
                self._check_ban(name)           # before a session is made and stored for it
                session = await sessions.new(name, self.address)
            elif m.token is not None:
                session = await sessions.resume(m.token)
            else:
                if m.user is None or m.password is None:
                    raise ProtocolError(ErrorCode.MISSING_FIELD, "logging in needs both user and password",
                                        field="password" if m.password is None else "user")
                session = await sessions.login(clean_name(m.user, field="user"), m.password, self.address)
            self._check_ban(session.name, session.user)
        except ProtocolError as exc:
            event("login-refused", conn=self.id, address=self.client, how=how, code=exc.code.value,
                  user=m.user if how == "password" else None)
            raise
        event("login", conn=self.id, address=self.client, how=how, name=session.name, user=session.user)
        if self.session is not None and self.session.token != session.token:
            self._leave_session()
        self.session = session
        self._greeted = True
        for room in self.watching:       # the same connection may now hold other seats
            room.presence.changed()
        return Welcome(protocol=PROTOCOL_VERSION, token=session.token, name=session.name, user=session.user,
                       seats=await self.hub.seats_held(session), limits=self.hub.config.limits(), server=SERVER_NAME,
                       rulesets=describe_presets())

    def _check_ban(self, *names: str | None) -> None:
        """`banned` if the operator banned any of `names` (polygo/server/accounts/bans.py)."""
        ban = self.hub.bans.name(*names)
        if ban is not None:
            raise ProtocolError(ErrorCode.BANNED, f"the name {ban.shown!r} is banned from this server"
                                                  + (f": {ban.reason}" if ban.reason else ""))

    def _leave_session(self) -> None:
        """The connection stops speaking for its session: the rooms it watched were that identity's."""
        self._unwatch_all()
        self.session = None

    async def _register(self, m: Register) -> ServerMessage:
        try:
            await self.hub.sessions.register(self.session, clean_name(m.user, field="user"), m.password, self.address)
        except ProtocolError as exc:
            event("register-refused", conn=self.id, address=self.client, user=m.user, code=exc.code.value)
            raise
        event("register", conn=self.id, address=self.client, user=self.session.user)
        self.hub.registered(self.session)
        return Ok(ref="register")

    async def _logout(self, m: Logout) -> ServerMessage:
        await self.hub.sessions.logout(self.session, m.everywhere)
        self._leave_session()
        return Ok(ref="logout")

    async def _list(self, m: ListRooms) -> ServerMessage:
        return await self.hub.list_rooms(m.limit, m.offset)

    async def _create(self, m: Create) -> ServerMessage:
        created = await self.hub.create(self.session, m.settings, self.address)
        room = self.hub.rooms.get(created.room)
        settings = room.settings if room is not None else {}
        event("room-created", conn=self.id, address=self.client, room=created.room, name=self.session.name,
              rules=settings.get("rules"), board=board_label(settings.get("board")), players=settings.get("players"),
              clock=(settings.get("clock") or {}).get("kind"), private=created.invite is not None)
        return created

    async def _sit(self, m: Sit) -> ServerMessage:
        room = await self.hub.room(m.room, self.address, self.session.user)
        return await room.call(room.sit, self, self.session, m.seat, m.invite)

    async def _watch(self, m: Watch) -> ServerMessage:
        room = await self.hub.room(m.room, self.address, self.session.user)
        return await room.call(room.watch, self, self.session, m.since, m.invite)

    async def _leave(self, m: Leave) -> ServerMessage:
        room = await self._room(m.room)
        return await room.call(room.leave, self, self.session)

    def _move(self, m: Move) -> Awaitable[ServerMessage]:
        """The room's answer to a move, for `_on_frame` to await: not a coroutine of its own where
        the room is in memory and public (no level of its own in a move's chain of coroutines)."""
        room = self.hub.rooms.get(m.room)
        if room is None or room.invite is not None:
            return self._move_away(m)
        return room.call(room.move, self.session, m.move, m.seq, m.after)

    async def _move_away(self, m: Move) -> ServerMessage:
        """A move to a private room, or to one not in memory: brought back, or, gone since,
        its ack read from the store (a resend after the game ended)."""
        try:
            room = await self._room(m.room)
        except ProtocolError as exc:
            if exc.code is not ErrorCode.NO_SUCH_ROOM or m.room in self.hub.rooms:
                raise
            return await ack_from_store(self.hub.store, self.session, m.room, m.seq, m.move, exc)
        return await room.call(room.move, self.session, m.move, m.seq, m.after)

    async def _undo(self, m: Undo) -> ServerMessage:
        room = await self._room(m.room)
        return await room.call(room.request_undo, self.session)

    async def _undo_reply(self, m: UndoReply) -> ServerMessage:
        room = await self._room(m.room)
        return await room.call(room.reply_undo, self.session, m.accept)

    async def _chat(self, m: Chat) -> ServerMessage:
        room = await self._room(m.room)
        return await room.call(room.chat, self, self.session, m.text)

    async def _analysis(self, m: Analysis) -> ServerMessage:
        room = await self._room(m.room)
        return await room.call(room.analysis, self.session, m.score, m.winrate, m.pv)

    async def _seat_name(self, m: SeatName) -> ServerMessage:
        room = await self._room(m.room)
        name = clean_name(m.name)
        await self.hub.sessions.check_name_free(name, mine=self.session.user)
        return await room.call(room.seat_name, self.session, name)

    async def _room(self, room_id: str) -> Room:
        """The room a request names; a private room the session neither sits in, owns nor watches
        answers like a missing one, so its id cannot be confirmed by probing."""
        room = self.hub.rooms.get(room_id)     # the hub's coroutine only for a room not in memory
        if room is None:
            room = await self.hub.room(room_id, self.address, self.session.user)
        session = self.session
        if (room.invite is not None and self not in room.watchers and session is not None
                and session.token != room.owner and room.seat_of(session) is None):
            raise ProtocolError(ErrorCode.NO_SUCH_ROOM, f"no room {room_id!r}", field="room")
        return room

    async def _games(self, m: ListGames) -> ServerMessage:
        return await self.hub.finished(m.limit, m.offset)

    async def _game(self, m: GetGame) -> ServerMessage:
        return await self.hub.record(m.room, m.format)

    async def _my_games(self, m: ListMyGames) -> ServerMessage:
        return await my_games(self.hub, self.session)

    # -- finding games (polygo/server/finding/seeks.py, challenges.py, arena.py; docs/pools.md) ---------------------------

    async def _pools(self, m: ListPools) -> ServerMessage:
        return Pools(pools=self.hub.pool_list())

    async def _seek(self, m: Seek) -> ServerMessage:
        self.hub.finding_here()
        return await self.hub.seeks.seek(self, self.session, m.pool, m.settings)

    async def _unseek(self, m: Unseek) -> ServerMessage:
        self.hub.finding_here()
        self.hub.seeks.cancel(self.session)
        return Ok(ref="unseek")

    async def _challenge(self, m: Challenge) -> ServerMessage:
        self.hub.finding_here()
        return await self.hub.challenges.create(self, self.session, m.players, m.pool, m.settings)

    async def _challenge_reply(self, m: ChallengeReply) -> ServerMessage:
        self.hub.finding_here()
        self.hub.challenges.reply(self, self.session, m.challenge, m.accept)
        return Ok(ref="challenge_reply")

    async def _challenges(self, m: ListChallenges) -> ServerMessage:
        self.hub.finding_here()
        return Challenges(challenges=self.hub.challenges.listen(self, self.session))

    async def _arena(self, m: Arena) -> ServerMessage:
        self.hub.finding_here()
        if m.join:
            self.hub.arena.join(self, self.session, m.pool)
        else:
            self.hub.arena.leave(self.session, m.pool)
        return Ok(ref="arena")


_IDS = itertools.count(1)


def address_of(ws: ServerConnection, trusted: Networks) -> str:
    """The client's address, as a trusted proxy forwards it (`polygo/server/limits/addresses.py`)."""
    remote = ws.remote_address
    forwarded = ws.request.headers.get("X-Forwarded-For") if ws.request is not None else None
    return forwarded_address(str(remote[0]) if remote else "", forwarded, trusted)


def forget_handshake(ws: ServerConnection) -> None:
    """Drop the handshake's headers once the address is read: the request's and the response's
    header maps and their strings are a large share of an idle connection. websockets
    reads a request of None as a handshake still to come, so the request stays, with its path only."""
    if ws.request is not None:
        ws.request = Request(ws.request.path, NO_HEADERS)
    ws.response = None


NO_HEADERS = Headers()
"""The headers of every handshake request once read (`forget_handshake`); never written to."""


def _refusal(refused: ProtocolError, message: ClientMessage) -> Error:
    return Error(code=refused.code.value, message=refused.message, field=refused.field, reason=refused.reason,
                 node=refused.node, url=refused.url, retry_after=refused.retry_after,
                 ref=message.TYPE, room=getattr(message, "room", None), seq=getattr(message, "seq", None))


def forget(exc: BaseException) -> None:
    """Drop the tracebacks of a handled exception and of those it chains to.

    A traceback holds the frames it passed through, and with them the request (a large board) and
    the room's future that holds the exception again: a reference cycle, freed only by the
    collector, which polygo-server's raised thresholds (collector.GC_THRESHOLDS) make rare. Under a
    flood of refusals they would hold hundreds of megabytes that way; without the tracebacks,
    reference counting frees them at once.
    """
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        following = current.__cause__ or current.__context__
        current.__traceback__ = current.__cause__ = current.__context__ = None
        current = following


_now = time.monotonic
