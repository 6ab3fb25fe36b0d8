"""Seeks: players waiting for a game of a pool (or of custom settings), fed to the matcher.

The server's half of seeking: it keeps who waits for what and on which connection, runs
`matching.match` on each new seek and then every `MATCH_EVERY` seconds while anyone waits (the
rating windows widen with time), and starts the rooms it returns with every seat filled
(`Hub.start_matched`), telling each seeker by a `matched` message. A seek belongs to a connection:
it ends when the connection closes, or with `unseek`. One seek per session at a time.

Custom settings make a pool of their own, keyed by the normalized settings: only seeks of exactly
the same game meet, unrated, whatever their ratings.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from dataclasses import dataclass
from typing import Any, Mapping, Protocol

from polygo.protocol import Error, ErrorCode, Matched, ProtocolError, RoomSettings, Seeking

from ..accounts.sessions import Session
from ..limits.holdings import Holdings, weight
from ..net.peer import Peer
from ..rooms.games import SettingsError, board_points, normalize
from ..store import Store
from .matching import Entry, Window, match
from .pool_store import PoolQueries
from .pools import Pool

log = logging.getLogger("polygo.seeks")

MATCH_EVERY = 1.0
"""Seconds between two runs of the matcher while anyone waits (the windows widen meanwhile)."""


class FindingConfig(Protocol):
    """The server's settings finding reads (`Config` holds them with the rest)."""

    challenge_expiry: float


class FindingHost(Protocol):
    """What the seeks, the challenges and the arena need of the server around them (the hub):
    its pools and ratings, its limits, and a room started with every seat taken."""

    config: FindingConfig
    store: Store
    pools: Mapping[str, Pool]
    pool_queries: PoolQueries
    holdings: Holdings

    def pool(self, name: str) -> Pool: ...

    def check_room_limit(self, session: Session, room_id: str | None) -> None: ...

    async def start_matched(self, settings: dict[str, Any], sessions: list[Session],
                            payer: tuple[str, Session] | None = None) -> str: ...

@dataclass
class Waiting:
    """One seek: the matcher's entry and what starting its room needs."""

    entry: Entry
    conn: Peer
    session: Session
    group: str
    settings: dict[str, Any]
    pool: str | None


def player_key(session: Session) -> str:
    """Who a session is for matching: its registered name, or its token for a guest."""
    return session.user if session.user is not None else "t:" + session.token


class Seeks:
    """The seeks of one server."""

    def __init__(self, hub: FindingHost, window: Window = Window()) -> None:
        self.hub = hub
        self.window = window
        self.groups: dict[str, dict[str, Waiting]] = {}      # pool (or settings key) -> session token -> seek
        self._by_token: dict[str, Waiting] = {}
        self._by_conn: dict[Peer, str] = {}             # a connection -> the session token of its seek
        self._ticker: asyncio.Task[None] | None = None
        self._starting: set[asyncio.Task[None]] = set()

    def waiting(self, pool: str) -> int:
        return len(self.groups.get(pool, ()))

    async def seek(self, conn: Peer, session: Session, pool_name: str | None,
                   settings: RoomSettings | None) -> Seeking:
        if (pool_name is None) == (settings is None):
            raise ProtocolError(ErrorCode.BAD_FIELD, "seek needs exactly one of pool and settings", field="pool")
        if session.token in self._by_token:
            raise ProtocolError(ErrorCode.ALREADY_SEEKING, "you are seeking a game already; unseek first")
        rating = provisional = None
        if pool_name is not None:
            pool = self.hub.pool(pool_name)
            if pool.rated and session.user is None:
                raise ProtocolError(ErrorCode.NOT_REGISTERED, f"pool {pool.name!r} is rated: register or log in "
                                                              f"to seek it", field="pool")
            stored, group = pool.stored_settings(), pool.name
            counts: list[int] = []
            if session.user is not None:
                current = await self.hub.pool_queries.rating(pool.name, session.user)
                rating, provisional = current.display, current.provisional
                counts = (await self.hub.pool_queries.seat_counts(pool.name, [session.user])).get(session.user, [])
        else:
            try:
                stored = normalize(settings)
            except SettingsError as exc:
                raise ProtocolError(ErrorCode.BAD_SETTINGS, str(exc), field="settings") from None
            if stored["bots"]:
                raise ProtocolError(ErrorCode.BAD_SETTINGS, "a seek is for players; create a room to play bots",
                                    field="settings")
            self.hub.holdings.check(conn.address, session.token, session.user, weight(board_points(stored)))
            group, counts = "custom:" + json.dumps(stored, sort_keys=True), []
        self.hub.check_room_limit(session, None)
        if session.token in self._by_token or conn.closed:     # a second seek came in during the awaits
            raise ProtocolError(ErrorCode.ALREADY_SEEKING, "you are seeking a game already; unseek first")
        entry = Entry(session.token, player_key(session), float(rating or 0), time.monotonic(), tuple(counts))
        waiting = Waiting(entry, conn, session, group, stored, pool_name)
        self.groups.setdefault(group, {})[session.token] = waiting
        self._by_token[session.token] = waiting
        self._by_conn[conn] = session.token
        self.run(group)
        if self._ticker is None:
            self._ticker = asyncio.get_running_loop().create_task(self._tick(), name="seeks")
        return Seeking(pool=pool_name, rated=bool(stored.get("rated")), rating=rating, provisional=provisional)

    def cancel(self, session: Session) -> None:
        if not self._drop(session.token):
            raise ProtocolError(ErrorCode.NOT_SEEKING, "you have no seek to stop")

    def dropped(self, conn: Peer) -> None:
        """The connection closed: its seek ends."""
        token = self._by_conn.get(conn)
        if token is not None:
            self._drop(token)

    def forget_all(self) -> set[Peer]:
        """Drop every seek (this node no longer finds games); the seekers' connections."""
        conns = set(self._by_conn)
        self.groups.clear()
        self._by_token.clear()
        self._by_conn.clear()
        return conns

    def _drop(self, token: str) -> bool:
        waiting = self._by_token.pop(token, None)
        if waiting is None:
            return False
        self._by_conn.pop(waiting.conn, None)
        group = self.groups[waiting.group]
        del group[token]
        if not group:
            del self.groups[waiting.group]
        return True

    def run(self, group: str) -> None:
        """Match the group's seeks now, and start the rooms found."""
        seeks = self.groups.get(group)
        if not seeks:
            return
        first = next(iter(seeks.values()))
        players = first.settings["players"]
        for found in match([w.entry for w in seeks.values()], players, time.monotonic(), self.window):
            chosen = [seeks[e.key] for e in found]
            for waiting in chosen:
                self._drop(waiting.session.token)
            task = asyncio.get_running_loop().create_task(self._start(chosen))
            self._starting.add(task)
            task.add_done_callback(self._starting.discard)

    async def _start(self, chosen: list[Waiting]) -> None:
        try:
            first = chosen[0]
            payer = None if first.pool is not None else (first.conn.address, first.session)
            room = await self.hub.start_matched(first.settings, [w.session for w in chosen], payer)
        except ProtocolError as exc:        # the server began to stop
            log.info("a room for %d seekers was not started: %s", len(chosen), exc.message)
            for waiting in chosen:
                waiting.conn.send(Error(code=exc.code.value, message=exc.message, ref="seek"))
            return
        except Exception:
            log.exception("a room for %d seekers could not be started", len(chosen))
            for waiting in chosen:
                waiting.conn.send(Error(code=ErrorCode.INTERNAL.value, ref="seek", message=(
                    "the server could not start the room found for your seek; seek again")))
            return
        for seat, waiting in enumerate(chosen):
            waiting.conn.send(Matched(room=room, seat=seat, via="seek", pool=waiting.pool))

    async def _tick(self) -> None:
        while self.groups:
            await asyncio.sleep(MATCH_EVERY)
            for group in list(self.groups):
                self.run(group)
        self._ticker = None

    async def close(self) -> None:
        if self._ticker is not None:
            self._ticker.cancel()
        for task in list(self._starting):
            task.cancel()

