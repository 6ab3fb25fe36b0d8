"""The arena: players (bots, and people who opt in) that join a pool's arena are paired by the
server continuously, CGOS style, for as long as their connection stays.

Whenever a member joins or one of the arena's games ends, the free members (joined and not in an
unfinished arena game of that pool) are grouped by `matching.arena_groups` (rating with noise, no
immediate rematch unless nobody else is free, seats by `matching.seat_order`), and each group's
room starts at once; every member of it gets `matched`. A member whose connection closes leaves;
a game it is in goes on (its clock runs).
"""

from __future__ import annotations

import asyncio
import logging
import random
import time
from dataclasses import dataclass

from polygo.protocol import ErrorCode, Matched, ProtocolError

from ..accounts.sessions import Session
from ..net.peer import Peer
from .matching import Entry, arena_groups
from .seeks import FindingHost, player_key

log = logging.getLogger("polygo.arena")


@dataclass
class Member:
    conn: Peer
    session: Session
    joined: float


class Arena:
    """The arenas of one server."""

    def __init__(self, hub: FindingHost, rng: random.Random | None = None) -> None:
        self.hub = hub
        self.rng = rng or random.Random()
        self._members: dict[str, dict[str, Member]] = {}       # pool -> player key -> member
        self._by_conn: dict[Peer, set[tuple[str, str]]] = {}   # a connection -> its (pool, player key)
        self._playing: dict[str, tuple[str, set[str]]] = {}     # room -> (pool, player keys)
        self._last: dict[tuple[str, str], frozenset[str]] = {}  # (pool, player) -> last opponents
        self._tasks: set[asyncio.Task[None]] = set()
        self._pairing: dict[str, asyncio.Lock] = {}             # pool -> held while its groups are made

    def members(self, pool: str) -> int:
        return len(self._members.get(pool, ()))

    def online(self, pool: str) -> set[str]:
        return set(self._members.get(pool, ()))

    def join(self, conn: Peer, session: Session, pool_name: str) -> None:
        pool = self.hub.pool(pool_name)
        if not pool.arena:
            arenas = ", ".join(sorted(name for name, other in self.hub.pools.items() if other.arena))
            raise ProtocolError(ErrorCode.NO_SUCH_POOL, f"pool {pool.name!r} has no arena; the arenas are {arenas}",
                                field="pool")
        if pool.rated and session.user is None:
            raise ProtocolError(ErrorCode.NOT_REGISTERED, f"arena {pool.name!r} is rated: register or log in "
                                                          f"to join it", field="pool")
        key = player_key(session)
        self._leave(pool.name, key)
        self._members.setdefault(pool.name, {})[key] = Member(conn, session, time.time())
        self._by_conn.setdefault(conn, set()).add((pool.name, key))
        self._schedule(pool.name)

    def leave(self, session: Session, pool_name: str) -> None:
        self._leave(self.hub.pool(pool_name).name, player_key(session))

    def dropped(self, conn: Peer) -> None:
        for pool, key in self._by_conn.pop(conn, ()):
            self._members.get(pool, {}).pop(key, None)

    def _leave(self, pool: str, key: str) -> None:
        member = self._members.get(pool, {}).pop(key, None)
        if member is not None:
            held = self._by_conn.get(member.conn)
            if held is not None:
                held.discard((pool, key))
                if not held:
                    del self._by_conn[member.conn]

    def forget_all(self) -> set[Peer]:
        """Drop every member (this node no longer finds games); their connections."""
        conns = set(self._by_conn)
        self._members.clear()
        self._by_conn.clear()
        return conns

    def ended(self, room: str) -> None:
        """A game ended: an arena game's players are free again."""
        playing = self._playing.pop(room, None)
        if playing is not None:
            self._schedule(playing[0])

    def _schedule(self, pool: str) -> None:
        task = asyncio.get_running_loop().create_task(self._pair(pool))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _pair(self, pool_name: str) -> None:
        """One pairing of the pool's free members at a time: a member is in one new game at most."""
        async with self._pairing.setdefault(pool_name, asyncio.Lock()):
            await self._pair_free(pool_name)

    async def _pair_free(self, pool_name: str) -> None:
        pool = self.hub.pools.get(pool_name)
        members = self._members.get(pool_name, {})
        busy = {key for p, keys in self._playing.values() if p == pool_name for key in keys}
        free = {key: m for key, m in members.items() if key not in busy and not m.conn.closed}
        if pool is None or len(free) < pool.players:
            return
        ratings = {key: (await self.hub.pool_queries.rating(pool_name, m.session.user)) if m.session.user else None
                   for key, m in free.items()}
        counts = await self.hub.pool_queries.seat_counts(pool_name, [m.session.user for m in free.values()
                                                                     if m.session.user])
        entries = [Entry(key, key, float(ratings[key].display if ratings[key] else 0), m.joined,
                         tuple(counts.get(m.session.user or "", ())), self._last.get((pool_name, key), frozenset()))
                   for key, m in free.items() if key in members]
        for group in arena_groups(entries, pool.players, self.rng):
            keys = [e.key for e in group]
            for key in keys:
                self._last[(pool_name, key)] = frozenset(k for k in keys if k != key)
            chosen = [free[key] for key in keys]
            try:
                room = await self.hub.start_matched(pool.stored_settings(), [m.session for m in chosen])
            except ProtocolError as exc:      # the server began to stop
                log.info("arena %s: no more games: %s", pool_name, exc.message)
                return
            except Exception:
                log.exception("arena %s: a room could not be started", pool_name)
                continue
            self._playing[room] = (pool_name, set(keys))
            for seat, member in enumerate(chosen):
                member.conn.send(Matched(room=room, seat=seat, via="arena", pool=pool_name))

    async def close(self) -> None:
        for task in list(self._tasks):
            task.cancel()
