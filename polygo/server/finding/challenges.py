"""Challenges: a player invites named registered players to a game; when all accept, it starts.

A challenge names a pool (rated if the pool is) or custom settings (unrated), and the players of
the other seats by their registered names. Each invitee is told at once on every connection of his
that asked for challenges (`challenges`), and finds it there on connecting while it stands; each
accepts or declines. When every invitee has accepted, the room starts with all seats filled
(`Hub.start_matched`, seats as `matching.seat_order` gives them) and every party gets `matched`.
A decline ends it (the challenger may withdraw by declining his own); so does its expiry
(`Config.challenge_expiry`). Every change goes to the parties as a `challenge` message.

Challenges live in the memory of the node the challenger is connected to: a restart drops the
standing ones (they are minutes long), and in cluster mode an invitee sees them on that node only.
"""

from __future__ import annotations

import asyncio
import logging
import time
from dataclasses import dataclass, field
from typing import Any, Callable

from polygo.protocol import ChallengeState, ErrorCode, Matched, ProtocolError, RoomSettings

from ..accounts.sessions import Session
from ..limits.holdings import weight
from ..net.peer import Peer
from ..rooms.games import SettingsError, board_points, effective_settings, normalize
from .matching import Entry, seat_order
from .seeks import FindingHost, player_key


log = logging.getLogger("polygo.challenges")

CLOSED_KEPT = 3600.0
"""Seconds a closed challenge is remembered, so that a late answer hears why it is closed."""


@dataclass
class Open:
    """One challenge and its answers."""

    id: str
    by: Session
    invited: list[str]
    settings: dict[str, Any]
    pool: str | None
    expires: float
    address: str = ""
    """Where the challenger connected from: a room of custom settings is charged there (holdings.py)."""
    answers: dict[str, Session] = field(default_factory=dict)
    """The invitees who accepted, and the session each accepted with (the one seated)."""
    status: str = "open"
    room: str | None = None

    def view(self) -> dict[str, Any]:
        return {"id": self.id, "by": self.by.user or self.by.name,
                "players": [{"name": name, "accepted": True if name in self.answers else None}
                            for name in self.invited],
                "pool": self.pool, "rated": bool(self.settings.get("rated")),
                "settings": effective_settings(self.settings), "status": self.status, "expires": self.expires,
                "room": self.room}


class Challenges:
    """The challenges of one server, and the connections that follow them."""

    def __init__(self, hub: FindingHost, new_id: Callable[[], str]) -> None:
        self.hub = hub
        self._new_id = new_id
        self.open: dict[str, Open] = {}
        self._listeners: dict[str, set[Peer]] = {}    # player key -> connections that asked
        self._listening: dict[Peer, str] = {}          # a connection -> the player key it listens for
        self._timers: dict[str, asyncio.TimerHandle] = {}
        self._tasks: set[asyncio.Task[None]] = set()

    async def create(self, conn: Peer, session: Session, players: list[str], pool_name: str | None,
                     settings: RoomSettings | None) -> ChallengeState:
        if (pool_name is None) == (settings is None):
            raise ProtocolError(ErrorCode.BAD_FIELD, "challenge needs exactly one of pool and settings", field="pool")
        if pool_name is not None:
            pool = self.hub.pool(pool_name)
            if pool.rated and session.user is None:
                raise ProtocolError(ErrorCode.NOT_REGISTERED, f"pool {pool.name!r} is rated: register or log in "
                                                              f"to challenge in it", field="pool")
            stored = pool.stored_settings()
        else:
            try:
                stored = normalize(settings)
            except SettingsError as exc:
                raise ProtocolError(ErrorCode.BAD_SETTINGS, str(exc), field="settings") from None
            self.hub.holdings.check(conn.address, session.token, session.user, weight(board_points(stored)))
        if session.user is not None and session.user in players:
            raise ProtocolError(ErrorCode.BAD_CHALLENGE, "you cannot challenge yourself", field="players")
        if len(set(players)) != len(players):
            raise ProtocolError(ErrorCode.BAD_CHALLENGE, "a player is named twice", field="players")
        if len(players) != stored["players"] - 1 - stored["bots"]:
            raise ProtocolError(ErrorCode.BAD_CHALLENGE, f"this game has {stored['players']} seats: name "
                                                         f"{stored['players'] - 1 - stored['bots']} other players",
                                field="players")
        for name in players:
            if await self.hub.store.get_user(name) is None:
                raise ProtocolError(ErrorCode.NO_SUCH_PLAYER, f"no registered player {name!r}", field="players")
        self.hub.check_room_limit(session, None)
        challenge = Open(self._new_id(), session, list(players), stored, pool_name,
                         time.time() + self.hub.config.challenge_expiry, conn.address)
        self.open[challenge.id] = challenge
        self.listen(conn, session)
        loop = asyncio.get_running_loop()
        self._timers[challenge.id] = loop.call_later(self.hub.config.challenge_expiry, self._expire, challenge.id)
        self._tell(challenge, skip=conn)
        return ChallengeState(challenge=challenge.view())

    def listen(self, conn: Peer, session: Session) -> list[dict[str, Any]]:
        """Send this connection every later change of the session's challenges; the standing ones."""
        key = player_key(session)
        previous = self._listening.get(conn)
        if previous is not None and previous != key:      # the connection said hello as someone else
            self._unlisten(conn, previous)
        self._listeners.setdefault(key, set()).add(conn)
        self._listening[conn] = key
        return [c.view() for c in self.open.values()
                if c.status == "open" and (player_key(c.by) == key or session.user in c.invited)]

    def dropped(self, conn: Peer) -> None:
        key = self._listening.pop(conn, None)
        if key is not None:
            self._unlisten(conn, key)

    def _unlisten(self, conn: Peer, key: str) -> None:
        conns = self._listeners.get(key)
        if conns is not None:
            conns.discard(conn)
            if not conns:
                del self._listeners[key]

    def reply(self, conn: Peer, session: Session, challenge_id: str, accept: bool) -> None:
        self.listen(conn, session)
        challenge = self.open.get(challenge_id)
        mine = challenge is not None and player_key(challenge.by) == player_key(session)
        if challenge is None or not (mine or session.user in challenge.invited):
            raise ProtocolError(ErrorCode.NO_SUCH_CHALLENGE, f"no challenge {challenge_id!r} to you",
                                field="challenge")
        if challenge.status != "open":
            raise ProtocolError(ErrorCode.CHALLENGE_CLOSED, f"challenge {challenge_id!r} is {challenge.status}",
                                field="challenge")
        if not accept:
            self._close(challenge, "withdrawn" if mine and session.user not in challenge.invited else "declined")
            return
        if mine and session.user not in challenge.invited:
            raise ProtocolError(ErrorCode.BAD_CHALLENGE, "you made this challenge; only the invited accept it",
                                field="challenge")
        challenge.answers[session.user] = session
        if all(challenge.answers.get(name) for name in challenge.invited):
            challenge.status = "starting"
            task = asyncio.get_running_loop().create_task(self._start(challenge))
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)
        else:
            self._tell(challenge)

    async def _start(self, challenge: Open) -> None:
        sessions = [challenge.by] + [challenge.answers[name] for name in challenge.invited]
        entries = [Entry(s.token, player_key(s), 0.0, 0.0) for s in sessions]
        by_token = {s.token: s for s in sessions}
        seated = [by_token[e.key] for e in seat_order(entries)]
        try:
            payer = None if challenge.pool is not None else (challenge.address, challenge.by)
            room = await self.hub.start_matched(challenge.settings, seated, payer)
        except Exception:
            log.exception("challenge %s: the room could not be started", challenge.id)
            self._close(challenge, "failed")
            return
        challenge.room = room
        self._close(challenge, "started")
        for seat, session in enumerate(seated):
            for conn in self._listeners.get(player_key(session), ()):
                conn.send(Matched(room=room, seat=seat, via="challenge", pool=challenge.pool, challenge=challenge.id))

    def _expire(self, challenge_id: str) -> None:
        challenge = self.open.get(challenge_id)
        if challenge is not None and challenge.status == "open":
            self._close(challenge, "expired")

    def _close(self, challenge: Open, status: str) -> None:
        challenge.status = status
        timer = self._timers.pop(challenge.id, None)
        if timer is not None:
            timer.cancel()
        self._tell(challenge)
        asyncio.get_running_loop().call_later(CLOSED_KEPT, self.open.pop, challenge.id, None)

    def _tell(self, challenge: Open, skip: Peer | None = None) -> None:
        """Send the challenge as it stands to every party's listening connections."""
        message = ChallengeState(challenge=challenge.view())
        keys = {player_key(challenge.by), *challenge.invited}
        for key in keys:
            for conn in list(self._listeners.get(key, ())):
                if conn is not skip and not conn.closed:
                    conn.send(message)

    def forget_all(self) -> set[Peer]:
        """Drop every challenge and listener (this node no longer finds games); their connections."""
        conns = set(self._listening)
        for timer in self._timers.values():
            timer.cancel()
        self._timers.clear()
        self.open.clear()
        self._listeners.clear()
        self._listening.clear()
        return conns

    def close(self) -> None:
        for timer in self._timers.values():
            timer.cancel()
        self._timers.clear()
        for task in self._tasks:
            task.cancel()

