"""One room: its seats, its game, its clocks and its versioned events, one request at a time.

Every request that reads or changes the room (sit, watch, move, undo, chat, a clock's deadline)
runs to completion before the next, in arrival order, under the room's lock: the game itself
needs no other locking, and a snapshot never shows a move that is not yet committed. A request
runs in the task that made it (the connection's), not handed to a task of the room's own: the
hop there and back would cost a queue, a future and two task switches per move. Those tasks
are cancelled only when the server closes (websockets never cancels a connection's handler), so
a request is not cut off halfway while the room lives on. A change becomes an event with the
next version; it is sent to the watchers and acknowledged only after `Store.record` returns, i.e.
after its COMMIT. If the commit fails, the room is rebuilt from the rows it had committed.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections import deque
from dataclasses import dataclass, replace
from typing import Any, Awaitable, Callable, Mapping, Protocol, Sequence

import msgspec

from polygo.rules import IllegalMove, parse_move
from polygo.protocol import MSGPACK, Ack, ErrorCode, Events, Ok, ProtocolError, ServerMessage, Snapshot, encode

from ..accounts.sessions import Session
from ..limits.ratelimit import Buckets, TokenBucket
from ..net.peer import Peer, broadcast
from ..ops import logs
from ..ops.metrics import NullMetrics
from ..store import Store
from ..store.errors import Unavailable
from ..store.values import Step
from .clock import Clocks
from .event_window import EventWindow
from .games import (SERVER_ONLY_MOVES, UNDO, changes, clock_of, clocks_view, dropped, effective_settings,
                    game_view, ko_view, legal_view, new_game, proposal_view, replay, result_view, stone_point)
from .presence import Presence

log = logging.getLogger("polygo.room")

ACTIONS = frozenset({"resign", "dead", "alive", "done", "resume", "dispute", "rank", "accept", "reject"})
"""First words of the moves any seat may send out of turn."""

RESTARTING = "the server is restarting; nothing changed: reconnect and send it again"
"""The refusal (`unavailable`) of a request that reaches a room after the graceful stop began."""

RESTART_RETRY = 1.0
"""The `retry_after` of that refusal: by then another node serves the room, or this one is back."""

CHAT_BURST = 10
"""Chat lines a room takes at once before its rate (`Config.chat_rate`) applies."""

CHAT_TAIL = 50
"""Chat lines a snapshot carries (the room's latest), so that a reload or a late spectator reads
the conversation so far without a second request."""

IDEMPOTENT_MARKS = ("dead", "alive")
"""Moves that change nothing when the chain they name is already marked so (`Room._changes_nothing`)."""

MARK_WORDS = ("dead", "alive", "resume", "dispute")
"""Moves after which an earlier `done` would accept marks its sender had not seen."""


@dataclass
class Seat:
    """Who sits at a colour: the session's token (secret), its name and registered name."""

    token: str
    name: str
    user: str | None = None


def _plain(play: Any) -> bool:
    """A live turn move (a stone, pass or appeal) that an undo may take back."""
    return not play.rescinded and play.move.split()[0].lower() not in ACTIONS and play.move != "timeout"


class HouseSeats(Protocol):
    """The house bot's side of the rooms (polygo.server.house.bots): which seats it holds, and a look
    after every change."""

    def holds(self, seat: Seat | None) -> bool: ...

    def changed(self, room: Room) -> None: ...


class RoomConfig(Protocol):
    """The server's settings a room reads (`Config` holds them with the rest)."""

    resync_events: int
    resync_bytes: int
    presence_interval: float
    chat_rate: float


class RoomHost(Protocol):
    """What a room needs of the server around it (the hub): the store, the settings, the
    per-player tables the room keeps current, and the news of a game's start and end."""

    config: RoomConfig
    store: Store
    metrics: NullMetrics
    chat_rates: Buckets
    house_bots: HouseSeats
    rooms: Mapping[str, Room]

    def check_room_limit(self, session: Session, room_id: str | None) -> None: ...

    def seated(self, token: str, user: str | None, room_id: str, seat: int) -> None: ...

    def unseated(self, token: str, user: str | None, room_id: str, seat: int) -> None: ...

    def no_longer_waiting(self, room: Room) -> None: ...

    async def creator_left(self, room: Room) -> None: ...

    def rating_step(self, room: Room, result: dict[str, Any]) -> Step | None: ...

    def ended(self, room: Room) -> None: ...


class Room:
    """A room and the task that serialises its requests."""

    def __init__(self, hub: RoomHost, room_id: str, settings: dict[str, Any], *, owner: str,
                 invite: str | None, rows: list[Sequence[Any]] | None = None, version: int = 0,
                 seats: list[Seat | None] | None = None) -> None:
        """`rows` are the stored moves, `[seat, move, seq, version]` each, in the order recorded;
        the room's own are tuples (smaller than lists, and a room keeps one a move)."""
        self.hub = hub
        self.id = room_id
        self.owner = owner
        self.invite = invite
        self.rows: list[Sequence[Any]] = rows or []
        self.game, self.row_index = replay(settings, self.rows) if self.rows else (new_game(settings), [])
        self.settings = effective_settings(settings, self.game.board)
        self.players = len(self.game.players)
        self.seats: list[Seat | None] = seats or [None] * self.players
        self.version = version
        self._derive()
        self.events = EventWindow(hub.config.resync_events, hub.config.resync_bytes)
        """The last events for a reconnect's resync, as the bytes their broadcast sent."""
        self.watchers: set[Peer] = set()
        self.presence = Presence(self, hub.config.presence_interval, hub.house_bots.holds)
        self.clock_settings = clock_of(settings.get("clock"))
        self.clocks: Clocks | None = None
        self.undo: dict[str, Any] | None = None
        self.marks_version = version
        """The version of the last change of the dead marks (a restart counts as one: it may have lost it)."""
        self.last_seq: list[int | None] = [None] * self.players
        """Each seat's highest seq; the seqs themselves are in `rows` (`_known_seq`)."""
        for seat, _, seq, _ in self.rows:
            if seq is not None:
                self._remember_seq(seat, seq)
        self.status = "waiting"
        if all(self.seats):
            self.status = "ended" if self.game.result is not None else "playing"
        self._timer: asyncio.TimerHandle | None = None
        self._ticking: asyncio.Task[None] | None = None
        self._halted = False
        self._loop = asyncio.get_running_loop()
        self._chat = TokenBucket(hub.config.chat_rate, CHAT_BURST, self._now())
        self.chat_tail: deque[dict[str, Any]] = deque(maxlen=CHAT_TAIL)
        """The latest chat lines as their events were sent (version, seat, name, user, text); a
        rebuilt room reads them back from the store (`Hub.adopt`)."""
        self._lock = asyncio.Lock()

    # -- one request at a time -----------------------------------------------------------------------

    async def call(self, fn: Callable[..., Awaitable[Any]], *args: Any) -> Any:
        """Run `fn(*args)` once the requests that came before it are done (the lock is first come,
        first served); refused once the graceful stop has begun."""
        if self._halted:
            raise ProtocolError(ErrorCode.UNAVAILABLE, RESTARTING, retry_after=RESTART_RETRY)
        lock = self._lock
        await lock.acquire()    # by hand: `async with` runs coroutines of its own on every request
        try:
            if self._halted:
                raise ProtocolError(ErrorCode.UNAVAILABLE, RESTARTING, retry_after=RESTART_RETRY)
            return await fn(*args)
        finally:
            lock.release()

    def _deadline(self) -> None:
        """The running clock's deadline passed: a task of its own takes its turn at the lock."""
        self._timer = None
        self._ticking = asyncio.get_running_loop().create_task(self._tick_logged(), name=f"room-{self.id}-clock")

    async def _tick_logged(self) -> None:
        """`tick` has no caller to hand a failure to: it is logged."""
        try:
            await self.call(self.tick)
        except ProtocolError:
            pass    # the server is stopping: the flag falls after the restart if it must
        except Unavailable as exc:     # the database is away: look again once it may be back
            if self._timer:
                self._timer.cancel()
            self._timer = self._loop.call_later(exc.retry_after, self._deadline)
        except Exception:
            log.exception("room %s: the clock's deadline failed", self.id)

    async def halt(self) -> None:
        """Graceful stop: once the requests that came before this one are done (and committed),
        cancel the clock timer, so no flag falls while the server drains, and refuse every later
        request. The stored clocks stay as of the last committed change: a restart charges nobody
        the wait."""
        await self.call(self._halt)

    async def _halt(self) -> None:
        self._halted = True
        if self._timer:
            self._timer.cancel()
            self._timer = None

    async def close(self) -> None:
        """Stop the presence timer, the clock timer and a deadline being handled (server shutdown)."""
        self.presence.close()
        if self._timer:
            self._timer.cancel()
            self._timer = None
        ticking, self._ticking = self._ticking, None
        if ticking is not None and not ticking.done():
            ticking.cancel()
            try:
                await ticking
            except asyncio.CancelledError:
                pass

    def resume_clocks(self, saved: dict[str, Any] | None, deadline: float | None = None) -> None:
        """After a restart (or an adjournment, or a takeover): the clocks as last committed, the
        running one restarted now, so the time between is charged to nobody; but a calendar
        clock's running seat keeps its stored `deadline` (a wall-clock instant): the days the
        server was down or the game adjourned count, and a deadline passed meanwhile makes the
        flag fall at once."""
        if self.clock_settings is None or self.status != "playing":
            return
        now = self._now()
        if saved is not None:
            self.clocks = Clocks.from_json(saved, self.clock_settings, now=now)
            running = self.clocks.running
            if self.clock_settings.calendar and running is not None and deadline is not None:
                left = self.clocks.deadline(running) - now
                self.clocks = Clocks.from_json(saved, self.clock_settings, now=self._loop_time(deadline) - left)
        else:
            self.clocks = Clocks(self.clock_settings, self.players)
        self._sync_clocks(now, mover=None)

    # -- views ---------------------------------------------------------------------------------------

    def seat_of(self, session: Session) -> int | None:
        for i, seat in enumerate(self.seats):
            if seat is not None and session.owns(seat.token, seat.user):
                return i
        return None

    def summary(self) -> dict[str, Any]:
        """The room as the lobby lists it."""
        return {"room": self.id, "title": self.settings.get("title", ""), "settings": self.settings,
                "seats": [s.name if s else None for s in self.seats], "status": self.status,
                "version": self.version}

    def snapshot(self, session: Session | None = None) -> Snapshot:
        """The room's state; for a seated `session`, also its seat and last acknowledged seq. A room
        with a clock that waits for players shows the clocks as they will start, none running."""
        colours = self.game.players
        seats = [{"seat": i, "colour": colours[i], "name": s.name if s else None, "user": s.user if s else None}
                 for i, s in enumerate(self.seats)]
        undo = None if self.undo is None else {"seat": self.undo["seat"], "accepted": sorted(self.undo["accepted"])}
        game = game_view(self.game)
        if self.status == "waiting":
            game["to_move"] = game["legal"] = None
        held = None if session is None else self.seat_of(session)
        you = None if held is None else {"seat": held, "last_seq": self.last_seq[held]}
        clocks = self._clocks_view()
        if clocks is None and self.clock_settings is not None and self.status == "waiting":
            clocks = clocks_view(Clocks(self.clock_settings, self.players), self.players, self._now())
        return Snapshot(room=self.id, version=self.version, status=self.status, settings=self.settings,
                        seats=seats, game=game, clocks=clocks, undo=undo, you=you, chat=list(self.chat_tail))

    def _subscribe(self, conn: Peer) -> None:
        if not conn.closed:
            self.watchers.add(conn)
            conn.watching.add(self)
            self.presence.changed()

    def _clocks_view(self, now: float | None = None) -> dict[str, Any] | None:
        if self.clocks is None:
            return None
        view = clocks_view(self.clocks, self.players, self._now() if now is None else now)
        deadline = self.wall_deadline()
        if deadline is not None:
            view["deadline"] = deadline
        return view

    def wall_deadline(self, *, any_clock: bool = False) -> float | None:
        """When the running seat's flag falls, as a time.time(), for a calendar clock (and, with
        `any_clock`, for any running clock while it runs here); else None."""
        clocks = self.clocks
        if clocks is None or clocks.running is None or not (any_clock or clocks.settings.calendar):
            return None
        deadline = clocks.deadline(clocks.running)
        return None if deadline is None else round(time.time() + deadline - self._now(), 3)

    # -- requests (each runs under the room's lock) --------------------------------------------------

    def _check_invite(self, session: Session, invite: str | None) -> None:
        if self.invite is None or session.token == self.owner or self.seat_of(session) is not None:
            return
        if invite != self.invite:
            raise ProtocolError(ErrorCode.BAD_INVITE, "this room is private: ask its creator for the invitation code")

    async def seat_house_bot(self, seat: int, token: str, name: str) -> None:
        """Give `seat` to the house bot (polygo.server.house.bots) before anyone can see the room: stored
        and told as any other seat taken. Run it under the room's lock (`call`)."""
        await self.hub.store.set_seat(self.id, seat, token)
        self.seats[seat] = Seat(token, name)
        await self._commit("seat", {"seat": seat, "name": name, "user": None})

    async def sit(self, conn: Peer, session: Session, seat: int | None, invite: str | None) -> Snapshot:
        self._check_invite(session, invite)
        held = self.seat_of(session)
        if held is not None:
            if seat is not None and seat != held:
                raise ProtocolError(ErrorCode.ALREADY_SEATED, f"you already sit at seat {held} of this room")
            self._subscribe(conn)
            return self.snapshot(session)
        if self.status != "waiting":
            raise ProtocolError(ErrorCode.ROOM_FULL, "every seat of this room is taken")
        if seat is not None:
            if seat >= self.players:
                raise ProtocolError(ErrorCode.BAD_SEAT, f"this room has seats 0 to {self.players - 1}", field="seat")
            if self.seats[seat] is not None:
                raise ProtocolError(ErrorCode.SEAT_TAKEN, f"seat {seat} is taken", field="seat")
        else:
            seat = self.seats.index(None)
        self.hub.check_room_limit(session, self.id)
        await self.hub.store.set_seat(self.id, seat, session.token)
        self.seats[seat] = Seat(session.token, session.name, session.user)
        self.hub.seated(session.token, session.user, self.id, seat)
        await self._commit("seat", {"seat": seat, "name": session.name, "user": session.user})
        if all(self.seats):
            await self._start()
        self._subscribe(conn)
        return self.snapshot(session)

    async def fill(self, sessions: Sequence[Session]) -> None:
        """Seat `sessions` at seats 0, 1, ... and start the game: a room the server made for a
        seek, a challenge or the arena, whose players all asked for it."""
        for seat, session in enumerate(sessions):
            await self.hub.store.set_seat(self.id, seat, session.token)
            self.seats[seat] = Seat(session.token, session.name, session.user)
            self.hub.seated(session.token, session.user, self.id, seat)
            await self._commit("seat", {"seat": seat, "name": session.name, "user": session.user})
        await self._start()

    async def _start(self) -> None:
        now = self._now()
        self.status = "playing"
        self.hub.no_longer_waiting(self)
        if self.clock_settings is not None:
            self.clocks = Clocks(self.clock_settings, self.players)
        self._sync_clocks(now, mover=None)
        await self._commit("start", {"to_move": self.game.to_move, "phase": self.game.phase,
                                     "clocks": self._clocks_view(), "legal": legal_view(self.game)}, clocks=True)
        rules = self.settings["rules"]
        self.hub.metrics.game_started(rules)
        logs.event("game-started", room=self.id, rules=rules, board=logs.board_label(self.settings["board"]),
                   players=self.players, seats=[seat.name if seat else None for seat in self.seats])

    async def watch(self, conn: Peer, session: Session, since: int | None,
                    invite: str | None) -> ServerMessage:
        self._check_invite(session, invite)
        self._subscribe(conn)
        if since is None or since > self.version:
            return self.snapshot(session)
        if since == self.version:
            return Events(room=self.id, events=[])
        window = self.events.since(since)
        if window is not None:
            return Events(room=self.id, events=[_event(packed) for packed in window])
        if self.version - since <= self.hub.config.resync_events:
            events = await self.hub.store.events_since(self.id, since)
            if [e.get("version") for e in events] == list(range(since + 1, self.version + 1)):
                return Events(room=self.id, events=events)   # no gap (chat past its retention leaves one)
        return self.snapshot(session)

    async def close_by_operator(self, message: str) -> None:
        """An operator closed the room (`polygo-server admin close-room`) while its game is played:
        the game ends here, with the result reason `closed` (every seat ranked 1, no scores) in the
        records, the watchers are told by a `closed` event (`reason` "operator"), and nothing more
        can be played. The engine's game is left as it stood: the room is ended, not the game."""
        if self.status != "playing":
            raise ProtocolError(ErrorCode.GAME_OVER if self.status == "ended" else ErrorCode.NOT_STARTED,
                                f"the room is {self.status}, not playing")
        now = self._now()
        if self.clocks is not None and self.clocks.running is not None:
            self.clocks.stop(self.clocks.running, now, credit=False)
        if self._timer:
            self._timer.cancel()
            self._timer = None
        self.status, self.undo = "ended", None
        result = {"reason": "closed", "ranking": [1] * self.players, "score": [0.0] * self.players}
        try:
            await self._commit("closed", {"reason": "operator", "message": message}, clocks=True, result=result,
                               now=now)
        except Exception:
            self.status = "playing"
            self._sync_clocks(self._now(), mover=None)
            raise

    def forget_events(self, through: int) -> None:
        """Drop the window's events up to version `through` (a chat line there passed its retention).
        The window stays a run of consecutive versions, which `watch` serves from without a check."""
        self.events.forget(through)

    def forget_chat(self, *, through: int | None = None, line: int | None = None) -> None:
        """Take out of the chat tail the lines the store deleted: those up to version `through`
        (past their retention), or the one at version `line` (an operator removed it)."""
        gone = (lambda v: v <= through) if through is not None else (lambda v: v == line)
        self.chat_tail = deque((c for c in self.chat_tail if not gone(c["version"])), maxlen=CHAT_TAIL)

    async def leave(self, conn: Peer, session: Session) -> Ok:
        self.watchers.discard(conn)
        conn.watching.discard(self)
        self.presence.changed()
        seat = self.seat_of(session)
        if seat is not None and self.status == "waiting":
            held = self.seats[seat]
            await self.hub.store.set_seat(self.id, seat, None)
            self.seats[seat] = None
            self.hub.unseated(held.token, held.user, self.id, seat)
            await self._commit("seat", {"seat": seat, "name": None, "user": None})
        if self.status == "waiting" and session.token == self.owner:
            await self.hub.creator_left(self)
        return Ok(ref="leave", room=self.id)

    async def chat(self, conn: Peer | None, session: Session, text: str) -> Ok:
        """A chat line from a player or a spectator (anyone else would shout into rooms unseen),
        within the room's chat rate and the session's over all rooms (else a session in many rooms
        would have the rate many times over); a registered user's sessions share one.
        `conn` None: a seated player without a connection (the house bot)."""
        seat = self.seat_of(session)
        if seat is None and conn not in self.watchers:
            if self.invite is not None:
                raise ProtocolError(ErrorCode.NO_SUCH_ROOM, f"no room {self.id!r}")
            raise ProtocolError(ErrorCode.NOT_SEATED, "sit or watch in this room to chat in it")
        now = self._now()
        if not self.hub.chat_rates.allow(session.user or session.token, now):
            raise ProtocolError(ErrorCode.RATE_LIMITED,
                                f"you chat over {self.hub.config.chat_rate:g} lines per second over all your rooms; "
                                f"line dropped")
        if not self._chat.allow(now):
            raise ProtocolError(ErrorCode.RATE_LIMITED,
                                f"this room's chat is over {self.hub.config.chat_rate:g} lines per second; "
                                f"line dropped")
        line = {"seat": seat, "name": session.name, "user": session.user, "text": text}
        await self._commit("chat", line)
        self.chat_tail.append({"version": self.version, **line})
        return Ok(ref="chat", room=self.id)

    async def analysis(self, session: Session, score: float | None, winrate: float | None,
                       pv: list[Any] | None) -> Ok:
        """Relay a player's analysis (a bot's score, win rate, principal variation) to the room."""
        seat = self._playing_seat(session)
        data = {"seat": seat, "name": session.name, "index": len(self.game.history),
                "score": score, "winrate": winrate, "pv": pv}
        await self._commit("analysis", {k: v for k, v in data.items() if v is not None})
        return Ok(ref="analysis", room=self.id)

    async def seat_name(self, session: Session, name: str) -> Ok:
        """Rename the session's seat in this room for the rest of the game (until a restart rebuilds
        the seat from the session); everyone gets a `seat` event as when a seat is taken."""
        seat = self._playing_seat(session)
        held = self.seats[seat]
        assert held is not None
        self.seats[seat] = replace(held, name=name)
        await self._commit("seat", {"seat": seat, "name": name, "user": held.user})
        return Ok(ref="seat_name", room=self.id)

    async def seat_registered(self, seat: int, session: Session) -> None:
        """The guest session at `seat` registered: the seat shows, and belongs to, its user now."""
        held = self.seats[seat]
        if held is None or held.token != session.token:
            return
        self.seats[seat] = replace(held, name=session.name, user=session.user)
        await self._commit("seat", {"seat": seat, "name": session.name, "user": session.user})

    def _held_seat(self, session: Session) -> int:
        seat = self.seat_of(session)
        if seat is None:
            raise ProtocolError(ErrorCode.NOT_SEATED, "you hold no seat in this room")
        return seat

    def _playing_seat(self, session: Session) -> int:
        seat = self._held_seat(session)
        self._check_playing()
        return seat

    def _check_playing(self) -> None:
        if self.status == "waiting":
            raise ProtocolError(ErrorCode.NOT_STARTED, "the game starts when every seat is taken")
        if self.status == "ended":
            raise ProtocolError(ErrorCode.GAME_OVER, "this game is over")

    async def move(self, session: Session, move: str, seq: int, after: int | None = None) -> Ack:
        seat = self._held_seat(session)
        last = self.last_seq[seat]
        if last is not None and seq <= last:
            known = self._known_seq(seat, seq)
            if known is not None:
                return self._resent(seat, seq, move, *known)
            raise ProtocolError(ErrorCode.STALE_SEQ, f"seq {seq} is not above your last move's {last}", field="seq")
        if self.status != "waiting" and self._timed_out(seat):
            raise ProtocolError(ErrorCode.TIMEOUT, "your time ran out before this move")
        if self.status != "playing":
            self._check_playing()
        words = move.split()
        first = words[0].lower() if words else ""     # the move's first word, lowered once for every check
        alone = len(words) == 1
        if alone and first in SERVER_ONLY_MOVES:
            raise ProtocolError(ErrorCode.ILLEGAL_MOVE, f"{move!r} is not a move a player sends", reason="bad-move")
        if after is not None and after < self.marks_version and alone and first == "done":
            raise ProtocolError(ErrorCode.STALE_MARKS, f"the dead marks changed at version {self.marks_version}, "
                                                       f"after the version {after} this acceptance was made at")
        now = self._now()
        running = self.clocks.running if self.clocks is not None else None
        if running is not None and self.clocks.flagged(running, now) and await self._flag_fell(now):
            if running == seat:
                raise ProtocolError(ErrorCode.TIMEOUT, "your time ran out before this move")
            if self.status == "ended":
                raise ProtocolError(ErrorCode.GAME_OVER, "this game is over: a clock ran out")
        if first in IDEMPOTENT_MARKS and self._changes_nothing(move, seat):
            return Ack(room=self.id, seq=seq, version=self.version)
        turn = first not in ACTIONS
        point = stone_point(self.game, move)
        try:
            play = self.game.play(move, seat=seat)
        except IllegalMove as exc:
            raise ProtocolError(ErrorCode.ILLEGAL_MOVE, exc.message, reason=exc.reason.value) from None
        except Exception:
            await self._rebuild()
            raise
        index = len(self.row_index)
        row = len(self.rows)
        data: dict[str, Any] = {"seat": seat, "move": play.move, "seq": seq, "index": index}
        if point is not None and self.game.stone_at(point) == seat:
            for p in play.captures:
                self.stones.pop(p, None)
            self.stones[point] = seat
            data["rescinded"] = []
            data["changes"] = {"clear": list(play.captures), "set": {point: seat}}
            newly: list[int] = []
        else:
            position = self.game.stones()
            data["changes"] = changes(self.stones, position)
            self.stones = position
            newly = [i for i, p in enumerate(self.game.history) if p.rescinded and i not in self.rescinded]
            self.rescinded.update(newly)
            data["rescinded"] = newly
        self._sync_clocks(now, mover=seat if turn else None)
        self._add_state(data, now)
        if point is None:
            data.update(dead=self.game.dead, disputed=self.game.disputed, accepted=self.game.accepted,
                        proposal=proposal_view(self.game), dropped=dropped(self.game))
        result = self._ended()
        if result is not None:
            data["result"] = result
        self.undo = None
        marks = [self.row_index[i] if i < index else row for i in newly] if newly else []
        try:
            await self._commit("move", data, move=(seat, play.move, seq), rescinded=marks,
                               clocks=True, result=result, now=now, plain=True)
        except Exception:
            await self._rebuild()
            raise
        self.rows.append((seat, play.move, seq, self.version))
        self.row_index.append(row)
        self.last_seq[seat] = seq      # above the seat's last: a seq at or below it was answered above
        if first in MARK_WORDS:
            self.marks_version = self.version
        return Ack(room=self.id, seq=seq, version=self.version)

    def _changes_nothing(self, move: str, seat: int) -> bool:
        """Whether a legal `dead`/`alive` mark leaves the marks and the acceptances as they are: it
        is then answered with the room's version and not stored, so a second client sending the
        same mark makes no new version that a `done` sent after the first would be stale against.
        Tried on a copy of the game (marks are a few moves a game); an illegal mark is left to the
        real play, which refuses it."""
        probe = self.game.copy()
        try:
            probe.play(move, seat=seat)
        except IllegalMove:
            return False
        game = self.game
        return probe.dead == game.dead and probe.accepted == game.accepted and probe.phase == game.phase

    def _resent(self, seat: int, seq: int, move: str, version: int, played: str) -> Ack:
        """A seq already applied: the same move again is a resend (acknowledged as the first time),
        another move under it a client's mistake, refused so that nothing is silently dropped."""
        try:
            same = parse_move(move, self.game.board).text == played
        except IllegalMove:
            same = False
        if not same:
            raise ProtocolError(ErrorCode.SEQ_REUSED,
                                f"seq {seq} was your move {played!r} (version {version}), not {move!r}; "
                                f"a new move needs a seq above {self.last_seq[seat]}", field="seq")
        return Ack(room=self.id, seq=seq, version=version)

    def _timed_out(self, seat: int) -> bool:
        """Whether `seat`'s flag fell in this game (it lost, or dropped out of a game of 3+)."""
        if self.status != "ended" and self.game.active[seat]:
            return False
        return any(p.seat == seat and p.move == "timeout" and not p.rescinded for p in self.game.history)

    async def request_undo(self, session: Session) -> Ok:
        seat = self._playing_seat(session)
        history = self.game.history
        if self.undo is not None:
            raise ProtocolError(ErrorCode.NO_UNDO, f"seat {self.undo['seat']} already asked for an undo")
        # The house bot's answers to the move do not stand in the way: they are taken back with it.
        back = 1
        while back < len(history) and history[-back].seat != seat and _plain(history[-back]) \
                and self.hub.house_bots.holds(self.seats[history[-back].seat]):
            back += 1
        last = history[-back] if history else None
        if last is None or last.seat != seat or not _plain(last) or self.game.over:
            raise ProtocolError(ErrorCode.NO_UNDO, "only the player who made the last move (or whose move only "
                                                   "house bots answered) may take it back, before the end of play")
        self.undo = {"seat": seat, "accepted": set(), "moves": back}
        await self._commit("undo-request", {"seat": seat})
        return Ok(ref="undo", room=self.id)

    async def reply_undo(self, session: Session, accept: bool) -> Ok:
        seat = self._playing_seat(session)
        if self.undo is None or self.undo["seat"] == seat:
            raise ProtocolError(ErrorCode.NO_UNDO, "there is no undo request of another player to answer")
        if not self.game.active[seat]:
            raise ProtocolError(ErrorCode.NO_UNDO, "you have dropped out of this game; only the players "
                                                   "still in it answer an undo request")
        if not accept:
            self.undo = None
            await self._commit("undo-reply", {"seat": seat, "accept": False})
            return Ok(ref="undo_reply", room=self.id)
        self.undo["accepted"].add(seat)
        await self._commit("undo-reply", {"seat": seat, "accept": True})
        others = {s for s, active in enumerate(self.game.active) if active and s != self.undo["seat"]}
        if others <= self.undo["accepted"]:
            for _ in range(self.undo["moves"]):
                await self._take_back(self.game.history[-1].seat)
        return Ok(ref="undo_reply", room=self.id)

    async def _take_back(self, seat: int) -> None:
        rows = self.rows + [(seat, UNDO, None, self.version + 1)]
        game, row_index = replay(self.settings, rows)
        after = game.stones()
        data = {"seat": seat, "index": len(self.row_index) - 1, "changes": changes(self.stones, after)}
        self.game = game
        now = self._now()
        if self.clocks is not None and self.clocks.running is not None:
            self.clocks.stop(self.clocks.running, now, credit=False)   # an undo is nobody's move
        self._sync_clocks(now, mover=None)
        self._add_state(data)
        try:
            await self._commit("undo", data, move=(seat, UNDO, None), clocks=True)
        except Exception:
            await self._rebuild()
            raise
        self.rows, self.row_index, self.undo = rows, row_index, None
        self._derive()

    async def tick(self) -> None:
        """A clock's deadline passed (run by the timer, under the lock)."""
        await self._flag_fell(self._now())
        if self.status == "playing":
            self._schedule()

    async def _flag_fell(self, now: float) -> bool:
        """If the running clock's flag fell: the player times out (loses, or drops out with 3+)."""
        if self.clocks is None or self.status != "playing":
            return False
        seat = self.clocks.running
        if seat is None or not self.clocks.flagged(seat, now):
            return False
        self.game.play("timeout", seat=seat)
        index, row = len(self.row_index), len(self.rows)
        self.clocks.stop(seat, now)
        self._sync_clocks(now, mover=None)
        after = self.game.stones()
        data = {"seat": seat, "index": index, "changes": changes(self.stones, after), "dropped": dropped(self.game)}
        self._add_state(data)
        self.stones = after
        result = self._ended()
        if result is not None:
            data["result"] = result
        self.undo = None      # else an accepted undo would take back this timeout, the last live move
        try:
            await self._commit("timeout", data, move=(seat, "timeout", None), clocks=True, result=result)
        except Exception:
            await self._rebuild()
            raise
        self.rows.append((seat, "timeout", None, self.version))
        self.row_index.append(row)
        return True

    # -- the machinery ---------------------------------------------------------------------------------

    def _add_state(self, data: dict[str, Any], now: float | None = None) -> None:
        """Add to a change event's `data` what every change event tells of the game, the clocks as
        of `now` (default: the clock now). Written into the event itself, not into a map of its own
        copied in, which every move would build."""
        game = self.game
        data["to_move"] = game.to_move
        data["phase"] = game.phase
        data["prisoners"] = game.prisoners
        data["clocks"] = self._clocks_view(now)
        data["legal"] = legal_view(game)
        kos = ko_view(game)
        if kos is not None:
            data["kos"] = kos

    def _ended(self) -> dict[str, Any] | None:
        """The result if the last change ended the game (and mark the room ended)."""
        if self.game.result is None or self.status == "ended":
            return None
        self.status = "ended"
        if self._timer:
            self._timer.cancel()
            self._timer = None
        return result_view(self.game)

    def _loop_time(self, wall: float) -> float:
        """The loop's time at the wall-clock instant `wall` (a time.time())."""
        return self._now() + wall - time.time()

    def _now(self) -> float:
        """The loop's clock. The loop is kept: asyncio.get_running_loop() costs a getpid system
        call each time, and a move asks the time."""
        return self._loop.time()

    def _sync_clocks(self, now: float, mover: int | None) -> None:
        """Run the clock of the player to move, and only that one; a turn play restarts the mover's."""
        if self.clocks is None:
            return
        want = self.game.to_move if self.status == "playing" and self.game.result is None else None
        running = self.clocks.running
        if running is not None and (running != want or running == mover):
            self.clocks.stop(running, now)
        if want is not None and self.clocks.running is None:
            self.clocks.start(want, now)
        self._schedule()

    def _schedule(self) -> None:
        if self._timer:
            self._timer.cancel()
            self._timer = None
        if self.clocks is None or self.clocks.running is None:
            return
        deadline = self.clocks.deadline(self.clocks.running)
        if deadline is not None:
            loop = asyncio.get_running_loop()
            self._timer = loop.call_at(deadline + 0.001, self._deadline)

    def _derive(self) -> None:
        """Recompute what the room keeps beside a game it replaced wholesale (built, replayed, undone):
        the stones, which a move's event diffs against, and the rescinded history entries."""
        self.stones = self.game.stones()
        self.rescinded = {i for i, p in enumerate(self.game.history) if p.rescinded}

    def _remember_seq(self, seat: int, seq: int) -> None:
        last = self.last_seq[seat]
        if last is None or seq > last:
            self.last_seq[seat] = seq

    def _known_seq(self, seat: int, seq: int) -> tuple[int, str] | None:
        """The version and the move of `seat`'s committed move `seq`, or None. Every seq of the
        game is kept, in `rows` (and in the store's moves): a resend is recognised however late it
        comes, also after a restart. Asked only of a seq at or below the seat's last, so it reads
        the rows newest first (a resend is mostly of the last move) and stops at a lower seq of the
        seat's: a seat's seqs rise with its rows. Not a map of seqs beside the rows: its insert
        every move reads memory from beyond the L2 (`bench/server_instructions.py --cache`)."""
        for row_seat, move, row_seq, version in reversed(self.rows):
            if row_seat == seat and row_seq is not None:
                if row_seq == seq:
                    return version, move
                if row_seq < seq:
                    return None
        return None

    async def _commit(self, kind: str, data: dict[str, Any], *, move: tuple[int, str, int | None] | None = None,
                      rescinded: Sequence[int] = (), clocks: bool = False, result: dict | None = None,
                      now: float | None = None, plain: bool = False) -> None:
        """Store the change as the next event and, once committed, send it to the watchers; the
        clocks are stored as of `now` (default: the clock now), the time the change was made at.

        A change that ends a rated game carries the rating update, in the same transaction
        (`Hub.rating_step`, polygo/server/finding/ratings.py).

        Raises only if the commit failed, or before it, if the event has no msgpack form: callers
        roll back on an exception, and a change that is in the store must stay in the room, so a
        failure to send it is logged (watchers resync).

        The resync window keeps the event as the msgpack bytes its broadcast sends, encoded once for
        both, not as its map: the maps of 256 events a room (a dozen lists and maps each) held
        alive are work for the collector on every move (`bench/server_move_path.py`).

        `plain`: the event holds only JSON's own values, which a move's does by construction (seats,
        seqs and indexes are ints; moves, points, phases and reasons the engine's strings; the
        views lists and maps with string keys; the clocks' times finite floats): the store keeps
        its text without reading it back (`Store.record`). Every server test checks every such
        event (tests/server/conftest.py, `plain_events_checked`).
        """
        version = self.version + 1
        event = {"version": version, "kind": kind, **data}
        message = {"type": "event", "room": self.id, **event}
        packed = encode(message, MSGPACK)
        saved = deadline = None
        if clocks and self.clocks is not None:
            saved = self.clocks.to_json(self._now() if now is None else now)
            deadline = self.wall_deadline()
        step = None if result is None else self.hub.rating_step(self, result)
        await self.hub.store.record(self.id, version, event, move=move, rescinded=rescinded,
                                    clocks=saved, deadline=deadline, result=result, plain=plain, step=step)
        self.version = version
        self.events.append(version, packed)
        if result is not None:
            self.hub.ended(self)
            rules = self.settings["rules"]
            self.hub.metrics.game_finished(rules)
            logs.event("game-ended", room=self.id, rules=rules, reason=result["reason"], ranking=result["ranking"],
                       score=result["score"], moves=len(self.game.history))
        try:
            broadcast(self.watchers, message, {MSGPACK: packed})
        except Exception:
            log.exception("room %s: event %d is committed but could not be sent", self.id, version)
        self.hub.house_bots.changed(self)

    async def _rebuild(self) -> None:
        """After a failed commit: back to the committed rows (the clock keeps running)."""
        log.error("room %s: commit failed, rebuilding from %d committed rows", self.id, len(self.rows))
        self.game, self.row_index = replay(self.settings, self.rows)
        self._derive()
        self.status = "playing" if self.game.result is None else "ended"
        self._sync_clocks(self._now(), mover=None)


_UNPACK = msgspec.msgpack.Decoder()


def _event(packed: bytes) -> dict[str, Any]:
    """An event of the resync window as the map it was made from (`Room._commit`): msgpack gives
    back its keys in their order and its values as they were sent."""
    message = _UNPACK.decode(packed)
    del message["type"], message["room"]
    return message
