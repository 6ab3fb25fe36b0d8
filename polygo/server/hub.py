"""Everything above single rooms: the room table, who sits where, creation, listing, records.

The hub is touched only from the event loop's thread and never awaits while it changes its
tables, so it needs no locks either. Memory holds the rooms in play: a room that ends, and a
started game that nobody watches, leave it a while (`Config.evict_after`) after the last watcher
left. An ended room's record stays in the store; an unfinished game is adjourned, and comes back
from the store (clocks as last committed, as after a restart) when someone asks for it. Every room
in memory is charged to whoever brought it there (holdings.py).
"""

from __future__ import annotations

import asyncio
import logging
import secrets
import time
from collections import defaultdict
from datetime import datetime, timezone
from typing import Any

from polygo.rules.sgf import to_sgf
from polygo.protocol import (Created, ErrorCode, GameRecord, Games, ProtocolError, RoomSettings, Rooms,
                      unportable)

from .accounts.bans import Bans
from .accounts.sessions import Session, Sessions
from .cluster.finder import Finder
from .cluster.takeover import Cluster
from .config import Config
from .finding.arena import Arena
from .finding.challenges import Challenges
from .finding.pool_store import PoolQueries
from .finding.pools import Pool, load as load_pools
from .finding.ratings import rated_game, update_step
from .finding.seeks import Seeks
from .house.bots import HouseBots
from .limits.holdings import Bounds, Holdings, weight
from .limits.intake import Intake
from .limits.ratelimit import Buckets, Tally
from .net.peer import broadcast
from .ops.metrics import NullMetrics
from .rooms.games import SettingsError, board_points, effective_options, effective_settings, normalize, replay
from .rooms.house_seats import bot_name
from .rooms.lobby import Lobby, listed
from .rooms.room import CHAT_BURST, CHAT_TAIL, RESTART_RETRY, RESTARTING, Room, Seat
from .store import Store
from .store.values import Step

log = logging.getLogger("polygo.hub")

CODE_LETTERS = "ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz23456789"
"""Letters of room ids and invitation codes: no look-alikes, and no '-' that a command line would
take for an option (`polygo bot --room -x...` failed with token_urlsafe ids)."""


CREATE_BURST = 20
"""Creates one address may send at once before `Config.create_rate` applies."""

ADDRESSES_TRACKED = 10_000
"""Addresses whose create rate is remembered at most (those whose bucket refilled are forgotten
sooner, at the next create)."""


def code(length: int) -> str:
    """A random room id or invitation code (8 letters: about 46 bits; 12: about 69)."""
    return "".join(secrets.choice(CODE_LETTERS) for _ in range(length))


class Hub:
    """The rooms of one server and the indexes over them."""

    def __init__(self, config: Config, store: Store, sessions: Sessions,
                 metrics: NullMetrics | None = None) -> None:
        self.config = config
        self.store = store
        self.sessions = sessions
        self.metrics = metrics or NullMetrics()
        self.draining = False
        self.rooms: dict[str, Room] = {}
        self._seats: dict[str, set[tuple[str, int]]] = defaultdict(set)   # "t:token" / "u:user" -> seats
        self._owned: dict[str, set[str]] = defaultdict(set)              # token -> waiting rooms created
        self._closing: set[asyncio.Task[None]] = set()
        self._evictions: dict[str, asyncio.TimerHandle] = {}             # ended room -> its next check
        self._expiries: dict[str, asyncio.TimerHandle] = {}              # unstarted room -> its expiry
        self.waiting_by_address = Tally()                                # IP address -> unstarted rooms made there
        self._made_from: dict[str, str] = {}                             # unstarted room -> that IP address
        self.create_rates = Buckets(config.create_rate, CREATE_BURST, ADDRESSES_TRACKED)  # IP address -> bucket
        self.intake = Intake(config.read_rate, self.create_rates, ADDRESSES_TRACKED)
        self.chat_rates = Buckets(config.chat_rate, CHAT_BURST, ADDRESSES_TRACKED)   # user or token -> bucket
        self.holdings = Holdings(Bounds(config.points_per_address, config.points_per_user,
                                        config.rooms_per_creator))
        self._adjourned: set[str] = set()                                # unfinished games left in the store
        self._returning: dict[str, asyncio.Future[Room]] = {}            # adjourned game -> its load under way
        self.lobby = Lobby(self.rooms.values)
        self.house_bots = HouseBots()
        self.bans = Bans()
        self.cluster: Cluster | None = None if store.lease is None else Cluster(self)
        self.pools: dict[str, Pool] = load_pools(config.pools_file)
        self.pool_queries = PoolQueries(store)
        self.seeks = Seeks(self)
        self.challenges = Challenges(self, lambda: code(10))
        self.arena = Arena(self)
        self.finder: Finder | None = None if self.cluster is None else Finder(self)

    # -- start and stop ----------------------------------------------------------------------------

    async def restore(self) -> int:
        """Serve the store's unfinished rooms again; returns how many are in memory. Rooms waiting
        for players are rebuilt (the lobby lists them and they expire); a started game comes back
        adjourned: its seats count and are listed in `welcome`, and the first request naming it
        rebuilds it (`room`), so a restart costs memory and time for the waiting rooms only. A
        node of a cluster owns no room yet: it claims the orphaned ones (cluster/takeover.py)."""
        if self.cluster is not None:
            await self.cluster.sweep()
            self.cluster.start()
            await self.finder.ask()
            self.finder.start()
            return len(self.rooms)
        waiting = []            # every seat taken is what makes a room's game started (`Room`)
        for row in await self.store.unfinished_seats():
            room_id, seats = row["room_id"], row["seats"]
            if not all(seat in seats for seat in range(row["players"] or 0)):
                waiting.append(room_id)
                continue
            self._adjourned.add(room_id)
            for seat, (token, user) in seats.items():
                self._index(token, user, room_id, seat, add=True)
        for room_id in waiting:
            for stored in await self.store.unfinished_rooms(only=room_id):
                await self.adopt(stored)
        return len(self.rooms)

    @property
    def adjourned(self) -> int:
        """How many unfinished games are left in the store until someone asks for them."""
        return len(self._adjourned)

    async def adopt(self, row: dict[str, Any]) -> Room | None:
        """Rebuild one stored unfinished room and serve it; None (logged) if it cannot be served.
        It is charged to nobody (holdings.py): the caller that brings it back for someone charges it."""
        why = unportable(row["settings"], "settings")
        if why is not None:     # stored before the server checked: it would break every msgpack client
            log.error("room %s cannot be served, left out: %s", row["room_id"], why)
            return None
        try:
            seats: list[Seat | None] = [None] * row["settings"]["players"]
            for seat, token in row["seats"].items():
                if token is None:
                    continue
                house = bot_name(token, row["settings"])
                session = None if house else await self.sessions.lookup(token)
                name = house or (session.name if session else "?")
                seats[int(seat)] = Seat(token, name, session.user if session else None)
            room = Room(self, row["room_id"], row["settings"], owner=row["owner"], invite=row["invite"],
                        rows=row["moves"], version=row["version"], seats=seats)
        except (ValueError, KeyError, TypeError, IndexError) as exc:
            log.error("room %s cannot be rebuilt, left out: %s", row.get("room_id"), exc)
            return None
        room.resume_clocks(row["clocks"], row["deadline"])
        room.chat_tail.extend(await self.store.chat_tail(room.id, CHAT_TAIL))
        self.rooms[room.id] = room
        for i, seat in enumerate(room.seats):
            if seat is not None:
                self._index(seat.token, seat.user, room.id, i, add=True)
        if room.status == "waiting":
            self._owned[room.owner].add(room.id)
            self._expire_later(room.id)
        self.house_bots.changed(room)
        return room

    async def halt(self) -> None:
        """Graceful stop: every room finishes what is queued, stops its clock timer, takes no more."""
        self.draining = True
        await asyncio.gather(*(room.halt() for room in list(self.rooms.values())))

    async def close(self) -> None:
        if self.cluster is not None:
            self.cluster.stop()
            self.finder.stop()
        for timer in [*self._evictions.values(), *self._expiries.values()]:
            timer.cancel()
        self._evictions.clear()
        self._expiries.clear()
        await self.seeks.close()
        self.challenges.close()
        await self.arena.close()
        await self.house_bots.close()
        for room in list(self.rooms.values()):
            await room.close()

    # -- seats and limits ------------------------------------------------------------------------------

    def _index(self, token: str, user: str | None, room_id: str, seat: int, *, add: bool) -> None:
        keys = ["t:" + token] + ([] if user is None else ["u:" + user])
        for key in keys:
            if add:
                self._seats[key].add((room_id, seat))
            else:
                _discard(self._seats, key, (room_id, seat))

    def seated(self, token: str, user: str | None, room_id: str, seat: int) -> None:
        self._index(token, user, room_id, seat, add=True)
        _discard(self._owned, token, room_id)

    def registered(self, session: Session) -> None:
        """A guest session became a registered user's: the seats it holds become the user's too, so
        that the user logging in from elsewhere holds them at once (not only after a restart, which
        rebuilds seats from the stored session). Each room tells its watchers by a `seat` event,
        queued before any request the new login can send there."""
        assert session.user is not None
        for room_id, i in list(self._seats.get("t:" + session.token, ())):
            room = self.rooms.get(room_id)
            if room is None and room_id not in self._adjourned:
                continue
            self._index(session.token, session.user, room_id, i, add=True)
            if room is not None:      # an adjourned game rebinds its seats from the store when it comes back
                self._background(room.call(room.seat_registered, i, session))

    def unseated(self, token: str, user: str | None, room_id: str, seat: int) -> None:
        self._index(token, user, room_id, seat, add=False)

    def seats_of(self, session: Session) -> list[dict[str, Any]]:
        """The seats the session holds in unfinished games."""
        held = set(self._seats.get("t:" + session.token, ()))
        if session.user is not None:
            held |= self._seats.get("u:" + session.user, set())
        return [{"room": r, "seat": s, "last_seq": self.rooms[r].last_seq[s] if r in self.rooms else None}
                for r, s in sorted(held)]

    async def seats_held(self, session: Session) -> list[dict[str, Any]]:
        """`seats_of` for `welcome`: on a node of a cluster from the database, so that a client
        reconnecting at any node is told every seat it holds, whichever node serves the room."""
        seats = self.seats_of(session)
        if self.cluster is None and all(seat["room"] in self.rooms for seat in seats):
            return seats
        return [{"room": room, "seat": seat, "last_seq": last_seq}
                for room, seat, last_seq in await self.store.held_seats(session.token, session.user)]

    def check_room_limit(self, session: Session, room_id: str | None) -> None:
        rooms = {entry["room"] for entry in self.seats_of(session)} | self._owned.get(session.token, set())
        rooms.discard(room_id)
        if len(rooms) >= self.config.rooms_per_session:
            raise ProtocolError(ErrorCode.TOO_MANY_ROOMS,
                                f"you already take part in {len(rooms)} unfinished rooms, the limit")

    def ended(self, room: Room) -> None:
        """A game ended: its seats no longer count, and the room leaves memory in time."""
        for i, seat in enumerate(room.seats):
            if seat is not None:
                self._index(seat.token, seat.user, room.id, i, add=False)
        self.lobby.changed()
        self._schedule_eviction(room.id)
        self.arena.ended(room.id)

    # -- pools, ratings and rooms the server starts (seeks, challenges, the arena) -----------------------

    def finding_here(self) -> None:
        """Nothing on a single server, or on the node that finds games for a cluster; else the
        refusal (`moved`, `unavailable`) that sends the client to it (cluster/finder.py)."""
        if self.finder is not None:
            self.finder.check()

    def pool(self, name: str) -> Pool:
        """The pool named `name`, or the error a client gets for an unknown one."""
        pool = self.pools.get(name)
        if pool is None:
            raise ProtocolError(ErrorCode.NO_SUCH_POOL, f"no pool {name!r}; the pools are "
                                                        f"{', '.join(sorted(self.pools))}", field="pool")
        return pool

    def pool_list(self) -> list[dict[str, Any]]:
        """The pools as the wire and /api/pools list them."""
        return [dict(pool.to_json(), title=pool.title or pool.name, seeking=self.seeks.waiting(name),
                     in_arena=self.arena.members(name))
                for name, pool in sorted(self.pools.items())]

    def rating_step(self, room: Room, result: dict[str, Any]) -> Step | None:
        """The rating update of a game that just ended, for the transaction storing its result;
        None if the game is not rated (ratings.rated_game)."""
        game = rated_game(room.id, room.settings, [seat.user if seat else None for seat in room.seats],
                          [(p.seat, p.move, p.rescinded) for p in room.game.history], result)
        return None if game is None else update_step(game, time.time())

    async def start_matched(self, settings: dict[str, Any], sessions: list[Session],
                            payer: tuple[str, Session] | None = None) -> str:
        """Create a room with stored `settings`, seat `sessions` in order and start its game; the
        room id. The room is public (spectators find it in the lobby). A room of custom settings
        (a seek's or a challenge's) is charged to `payer`, an address and the session that chose
        them (holdings.py); a pool's board is the operator's choice, charged to nobody."""
        if self.draining:
            raise ProtocolError(ErrorCode.INTERNAL, RESTARTING)
        if len(self.rooms) >= self.config.max_rooms:
            raise ProtocolError(ErrorCode.TOO_MANY_ROOMS,
                                f"the server holds {len(self.rooms)} rooms, its limit; try again later")
        room_id = code(8)
        await self.store.create_room(room_id, settings, owner=sessions[0].token, invite=None)
        room = self.rooms[room_id] = Room(self, room_id, settings, owner=sessions[0].token, invite=None)
        if payer is not None:
            address, chooser = payer
            self.holdings.charge(room_id, address, chooser.token, chooser.user, weight(board_points(settings)))
        self.lobby.changed()
        await room.call(room.fill, sessions)
        return room_id

    def _schedule_eviction(self, room_id: str) -> None:
        """Look at the ended room again in `evict_after` seconds (its watchers may keep it then)."""
        pending = self._evictions.pop(room_id, None)
        if pending is not None:
            pending.cancel()
        loop = asyncio.get_running_loop()
        self._evictions[room_id] = loop.call_later(self.config.evict_after, self._evict, room_id)

    def _evict(self, room_id: str) -> None:
        """An ended room nobody watches leaves memory; so does a started game nobody watches
        (adjourned, in its own task, `_adjourn`). A waiting room stays (it expires instead)."""
        self._evictions.pop(room_id, None)
        room = self.rooms.get(room_id)
        if room is None or room.status == "waiting":
            return
        if room.watchers or (room.status == "playing" and (self.cluster is not None or self.draining)):
            self._schedule_eviction(room_id)
            return
        if room.status == "playing":
            self._background(self._call_adjourn(room))
            return
        self._forget(room)

    def _forget(self, room: Room) -> None:
        """The room leaves memory (whatever is stored stays)."""
        del self.rooms[room.id]
        self.holdings.release(room.id)
        self.lobby.forget(room.id)
        self._background(room.close())

    async def _call_adjourn(self, room: Room) -> None:
        try:
            await room.call(self._adjourn, room)
        except ProtocolError:
            pass            # the server began to stop: the game is stored, and comes back after the restart

    async def _adjourn(self, room: Room) -> None:
        """In the room's task: a started game that nobody watches leaves memory, stored as it is;
        its seats still count and are still listed in `welcome`. A request that names it brings
        it back (`room`)."""
        if self.rooms.get(room.id) is not room or room.status != "playing":
            return
        if room.watchers:
            self._schedule_eviction(room.id)
            return
        self._adjourned.add(room.id)
        self._forget(room)
        self.lobby.changed()

    def _background(self, work: Any) -> None:
        task = asyncio.get_running_loop().create_task(work)
        self._closing.add(task)      # the loop keeps only weak references to tasks
        task.add_done_callback(self._closing.discard)

    # -- unstarted rooms expire ------------------------------------------------------------------------

    def _expire_later(self, room_id: str) -> None:
        loop = asyncio.get_running_loop()
        self._expiries[room_id] = loop.call_later(self.config.waiting_expiry, self._expire, room_id)

    def _expire(self, room_id: str) -> None:
        self._expiries.pop(room_id, None)
        room = self.rooms.get(room_id)
        if room is not None and room.status == "waiting" and not self.draining:
            self._background(self._call_drop(room))

    async def _call_drop(self, room: Room) -> None:
        try:
            await room.call(self._drop_unstarted, room)
        except ProtocolError:
            pass            # the server began to stop: the room stays stored and expires after the restart

    async def close_unstarted(self, room: Room, message: str) -> None:
        """An operator closes a room waiting for players: it goes as an expired one does."""
        await room.call(self._drop_unstarted, room, "operator", message)

    async def _drop_unstarted(self, room: Room, reason: str = "expired",
                              message: str = "nobody started this game in time; the room is closed") -> None:
        """In the room's task: a room still waiting for players after `waiting_expiry` is forgotten
        (memory and store), so free guest sessions cannot pile up rooms that come back at every
        restart; also one an operator closes (`reason` "operator"), and one its creator left with
        nobody seated ("left"). Its watchers are told by a `closed` event."""
        if room.status != "waiting" or self.rooms.get(room.id) is not room:
            return
        await self.store.drop_unstarted(room.id)
        for i, seat in enumerate(room.seats):
            if seat is not None:
                self._index(seat.token, seat.user, room.id, i, add=False)
        _discard(self._owned, room.owner, room.id)
        self.no_longer_waiting(room)
        self._forget(room)
        broadcast(room.watchers, {"type": "event", "room": room.id, "version": room.version + 1,
                                  "kind": "closed", "reason": reason, "message": message})

    # -- rooms -------------------------------------------------------------------------------------------

    async def create(self, session: Session, settings: RoomSettings, address: str = "") -> Created:
        """A new room for `session`, connected from IP `address`; the limits are checked before the
        settings, which cost an engine game to check."""
        if self.draining:
            raise ProtocolError(ErrorCode.UNAVAILABLE, RESTARTING, retry_after=RESTART_RETRY)
        self._check_create_rate(address)
        self.check_room_limit(session, None)
        self._check_capacity(address)
        self.holdings.check(address, session.token, session.user, 0)
        try:
            stored = normalize(settings)
        except SettingsError as exc:
            raise ProtocolError(ErrorCode.BAD_SETTINGS, str(exc), field="settings") from None
        points = weight(board_points(stored))
        self.holdings.check(address, session.token, session.user, points)
        room_id = code(8)
        invite = code(12) if settings.private else None
        await self.store.create_room(room_id, stored, owner=session.token, invite=invite)
        self.rooms[room_id] = Room(self, room_id, stored, owner=session.token, invite=invite)
        self.holdings.charge(room_id, address, session.token, session.user, points)
        self._owned[session.token].add(room_id)
        self._made_from[room_id] = address
        self.waiting_by_address.add(address)
        self._expire_later(room_id)
        self.lobby.changed()
        await self.house_bots.seat(self.rooms[room_id])
        return Created(room=room_id, invite=invite)

    def _check_create_rate(self, address: str) -> None:
        """At most `create_rate` creates a second from one address (after a burst of
        `CREATE_BURST`), refused or not: checking a 4,096-point graph costs milliseconds of the
        loop, and a flood of refused creates took another room's p99 to half a second."""
        if not self.create_rates.allow(address, time.monotonic()):
            raise ProtocolError(ErrorCode.RATE_LIMITED, f"over {self.config.create_rate:g} creates a second "
                                                        f"from your address; try again in a moment")

    def _check_capacity(self, address: str) -> None:
        """The server-wide bound on rooms, and the bound on unstarted rooms per IP address (guest
        sessions are free, so the per-session limit alone bounds nothing)."""
        if len(self.rooms) >= self.config.max_rooms:
            raise ProtocolError(ErrorCode.TOO_MANY_ROOMS,
                                f"the server holds {len(self.rooms)} rooms, its limit; try again later")
        mine = self.waiting_by_address[address]
        if mine >= self.config.rooms_per_address:
            raise ProtocolError(ErrorCode.TOO_MANY_ROOMS,
                                f"{mine} rooms created from your address wait for players, the limit; "
                                f"start or leave them first")

    async def creator_left(self, room: Room) -> None:
        """In the room's task: the creator left a room still waiting for players. With nobody
        seated (the house bot aside) the room is closed; else it waits on for the others, no longer
        counted against the creator's address (the refusal of a create says "start or leave
        them first")."""
        if any(seat is not None and not HouseBots.holds(seat) for seat in room.seats):
            address = self._made_from.pop(room.id, None)
            if address is not None:
                self.waiting_by_address.remove(address)
            return
        await self._drop_unstarted(room, "left", "its creator left before the game started; the room is closed")

    def no_longer_waiting(self, room: Room) -> None:
        """The room no longer waits for players (its game started, or it went): it no longer counts
        against the address it was created from, which is forgotten once it has no such room."""
        address = self._made_from.pop(room.id, None)
        if address is not None:
            self.waiting_by_address.remove(address)
        if room.status == "playing" and self.rooms.get(room.id) is room:
            self._schedule_eviction(room.id)

    def chat_dropped(self, through: dict[str, int]) -> None:
        """The store deleted old chat, up to version `through[room]` of each room: a live room
        forgets its window of recent events up to there, so a resync over the gap gets a snapshot
        (as from the store) rather than a deleted line, and its chat tail the lines up to there."""
        for room_id, version in through.items():
            room = self.rooms.get(room_id)
            if room is not None:
                room.forget_events(version)
                room.forget_chat(through=version)

    async def room(self, room_id: str, address: str | None = None, user: str | None = None) -> Room:
        """The room a request names. An adjourned game comes back from the store, charged to the
        asker's `address` and `user` (holdings.py); requests for it arriving together share one
        load. A node of a cluster takes over a room it does not serve, or answers where it is
        served (cluster/takeover.py)."""
        room = self.rooms.get(room_id)
        if room is not None:
            return room
        if self.cluster is not None:
            return await self.cluster.take(room_id)
        if room_id not in self._adjourned:
            raise ProtocolError(ErrorCode.NO_SUCH_ROOM, f"no room {room_id!r}", field="room")
        if self.draining:
            raise ProtocolError(ErrorCode.UNAVAILABLE, RESTARTING, retry_after=RESTART_RETRY)
        pending = self._returning.get(room_id)
        if pending is None:
            pending = self._returning[room_id] = asyncio.ensure_future(self._bring_back(room_id, address, user))
            pending.add_done_callback(lambda _: self._returning.pop(room_id, None))
        return await asyncio.shield(pending)

    async def _bring_back(self, room_id: str, address: str | None, user: str | None) -> Room:
        rows = await self.store.unfinished_rooms(only=room_id)
        if not rows:                      # finished meanwhile (it cannot be, but then `game` serves it)
            self._adjourned.discard(room_id)
            raise ProtocolError(ErrorCode.NO_SUCH_ROOM, f"no room {room_id!r}", field="room")
        points = weight(board_points(rows[0]["settings"]))
        if len(self.rooms) >= self.config.max_rooms:
            raise ProtocolError(ErrorCode.TOO_MANY_ROOMS,
                                f"the server holds {len(self.rooms)} rooms, its limit; try again later")
        self.holdings.check(address, None, user, points)
        room = self.rooms.get(room_id) or await self.adopt(rows[0])
        if room is None:
            raise ProtocolError(ErrorCode.NO_SUCH_ROOM, f"room {room_id!r} cannot be served", field="room")
        self._adjourned.discard(room_id)
        self.holdings.charge(room_id, address, None, user, points)
        self.lobby.changed()
        self._schedule_eviction(room_id)
        return room

    def forget_all(self) -> list[Room]:
        """Drop every room from memory at once (a fenced node: other nodes own them now, and what
        they hold is what was committed); returns them for the caller to stop."""
        for timer in [*self._evictions.values(), *self._expiries.values()]:
            timer.cancel()
        self._evictions.clear()
        self._expiries.clear()
        rooms = list(self.rooms.values())
        self.rooms.clear()
        self.holdings.clear()
        self._seats.clear()
        self._owned.clear()
        self._made_from.clear()
        self.waiting_by_address = Tally()
        self.lobby.changed()
        for room in rooms:
            self.lobby.forget(room.id)
        return rooms

    def forget(self, room_id: str) -> Room | None:
        """Drop one room from memory (a node of a cluster lost it to another); returns it for the
        caller to stop, or None if it was not here."""
        room = self.rooms.pop(room_id, None)
        if room is None:
            return None
        for timer in (self._evictions.pop(room_id, None), self._expiries.pop(room_id, None)):
            if timer is not None:
                timer.cancel()
        for i, seat in enumerate(room.seats):
            if seat is not None:
                self._index(seat.token, seat.user, room_id, i, add=False)
        _discard(self._owned, room.owner, room_id)
        self.no_longer_waiting(room)
        self.lobby.forget(room_id)
        self.lobby.changed()
        return room

    async def list_rooms(self, limit: int, offset: int) -> Rooms:
        """The lobby: from memory on a single server; from the database on a node of a cluster,
        so that every node lists every node's rooms."""
        if self.cluster is None:
            return self.lobby.page(limit, offset)
        rows, total = await self.store.public_rooms(limit, offset)
        return Rooms(rooms=[listed(row) for row in rows], total=total,
                     next=offset + limit if offset + limit < total else None)

    # -- finished games ------------------------------------------------------------------------------------

    async def finished(self, limit: int, offset: int) -> Games:
        rows = await self.store.finished_games(limit, offset, public=True)
        games = [{"room": r["room_id"], "settings": effective_settings(r["settings"]),
                  "seats": _names(r["names"], r["settings"], r["seats"]),
                  "registered": [user is not None for user in _names(r["users"], r["settings"])],
                  "result": r["result"], "moves": r["moves"], "created": r["created_at"],
                  "finished": r["finished_at"]}
                 for r in rows]
        return Games(games=games)

    async def _times_left(self, room_id: str) -> dict[int, list[Any]]:
        """Each move's time left for its mover, by history index, from the stored move events (the last
        event at an index wins: an undone move's is replaced by the move played instead)."""
        times: dict[int, list[Any]] = {}
        for event in await self.store.events_since(room_id, 0):
            if event.get("kind") == "move" and isinstance(event.get("index"), int):
                left = _time_left(event)
                if left is not None:
                    times[event["index"]] = left
        return times

    async def record(self, room_id: str, fmt: str) -> GameRecord:
        if fmt not in ("json", "sgf"):
            raise ProtocolError(ErrorCode.BAD_FIELD, 'format must be "json" or "sgf"', field="format")
        row = await self.store.game(room_id)
        if row is None:
            raise ProtocolError(ErrorCode.NO_SUCH_GAME, f"no game {room_id!r}", field="room")
        game, _ = replay(row["settings"], row["moves"])
        names = _names(row["names"], row["settings"], row["seats"])
        history = game.history
        if fmt == "json":
            engine_record = dict(game.to_record(), options=effective_options(game))
            record = {"room": room_id, "settings": effective_settings(row["settings"]), "seats": names,
                      "record": engine_record,
                      "history": [[p.seat, p.move, p.rescinded] for p in history], "result": row["result"],
                      "created": row["created_at"], "finished": row["finished_at"]}
            return GameRecord(room=room_id, format=fmt, record=record)
        settings = row["settings"]
        sgf_record = dict(game.to_record(), names=names,
                          rescinded=[i for i, p in enumerate(history) if p.rescinded],
                          title=settings.get("title") or f"polygo {room_id}", place=f"polygo room {room_id}",
                          clock=settings.get("clock"), times=await self._times_left(room_id))
        if row["result"] is not None:
            sgf_record["result"] = row["result"]
        stamp = row["finished_at"] or row["created_at"]
        sgf_record["date"] = datetime.fromtimestamp(stamp, timezone.utc).strftime("%Y-%m-%d")
        try:
            text = to_sgf(sgf_record)
        except ValueError as exc:
            raise ProtocolError(ErrorCode.NOT_EXPORTABLE, str(exc)) from None
        return GameRecord(room=room_id, format=fmt, record=text)


def _discard(table: dict[str, set[Any]], key: str, item: Any) -> None:
    """Take `item` out of `table[key]`, and `key` out once its set is empty: the keys are sessions,
    which guests make for free, so empty entries would pile up without end."""
    held = table.get(key)
    if held is not None:
        held.discard(item)
        if not held:
            del table[key]


def _time_left(event: dict[str, Any]) -> list[Any] | None:
    """The mover's [seconds left, periods or stones left in overtime] after a stored move event."""
    clocks = event.get("clocks")
    seat = event.get("seat")
    if not isinstance(clocks, dict) or not isinstance(seat, int) or seat >= len(clocks.get("seats") or []):
        return None
    left = clocks["seats"][seat]
    main = left.get("main")
    if main is None:
        return None
    if main > 0:
        return [main, 0]
    return [left.get("period_left") or 0, left.get("stones_left") or left.get("periods") or 0]


def _names(names: dict[Any, str | None], settings: dict[str, Any],
           tokens: dict[Any, str | None] | None = None) -> list[str | None]:
    """Seat names in seat order (the store's maps may have string or integer keys); with the seats'
    `tokens`, the house bot's seats (which have no session row) get the bot's name."""
    by_seat = {int(k): v for k, v in names.items()}
    for k, token in (tokens or {}).items():
        house = None if token is None else bot_name(token, settings)
        if house is not None:
            by_seat[int(k)] = house
    return [by_seat.get(i) for i in range(settings["players"])]
