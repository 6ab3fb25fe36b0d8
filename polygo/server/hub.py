"""The hub: the server's rooms and what finds games for them, put together.

The rooms folder holds the parts: the room table with who sits where and the limits on rooms in
memory (rooms/table.py), the evictions and expiries that take rooms out of memory
(rooms/evictions.py), the lists of rooms and games (rooms/listings.py) and the export of records
(rooms/exports.py). The hub builds them with the lobby, the house bot, the seeks, challenges and
arena, and a cluster's takeovers and finder, and is what each of them sees of the others
(`RoomHost`, `FindingHost`, `ClusterHost`, ...): it brings rooms into memory (created, started
for a match, restored, brought back from the store) and passes the news of a room's seats, start
and end to the parts that keep count.

The hub is touched only from the event loop's thread and never awaits while it changes its
tables, so it needs no locks either. Every room in memory is charged to whoever brought it there
(holdings.py).
"""

from __future__ import annotations

import asyncio
import logging
import time
from typing import Any, Coroutine

from polygo.protocol import Created, ErrorCode, GameRecord, Games, ProtocolError, RoomSettings, Rooms, unportable

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
from .limits.holdings import weight
from .limits.intake import Intake
from .limits.ratelimit import Buckets
from .ops.metrics import NullMetrics
from .rooms import exports, listings
from .rooms.evictions import Evictions
from .rooms.games import SettingsError, board_points, normalize
from .rooms.house_seats import bot_name
from .rooms.lobby import Lobby
from .rooms.room import CHAT_BURST, CHAT_TAIL, RESTART_RETRY, RESTARTING, Room, Seat
from .rooms.table import ADDRESSES_TRACKED, RoomTable, code
from .store import Store
from .store.values import Step

log = logging.getLogger("polygo.hub")


class Hub:
    """The rooms of one server, and the parts that keep them."""

    def __init__(self, config: Config, store: Store, sessions: Sessions,
                 metrics: NullMetrics | None = None) -> None:
        self.config = config
        self.store = store
        self.sessions = sessions
        self.metrics = metrics or NullMetrics()
        self.draining = False
        self.table = RoomTable(config)
        self.rooms = self.table.rooms
        self.holdings = self.table.holdings
        self.intake = Intake(config.read_rate, self.table.create_rates, ADDRESSES_TRACKED)
        self.chat_rates = Buckets(config.chat_rate, CHAT_BURST, ADDRESSES_TRACKED)   # user or token -> bucket
        self._returning: dict[str, asyncio.Future[Room]] = {}            # adjourned game -> its load under way
        self._tasks: set[asyncio.Task[None]] = set()
        self.lobby = Lobby(self.rooms.values)
        self.house_bots = HouseBots()
        self.bans = Bans()
        self.evictions = Evictions(self, adjourns=store.lease is None)
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
            self.table.hold_adjourned(room_id, seats)
        for room_id in waiting:
            for stored in await self.store.unfinished_rooms(only=room_id):
                await self.adopt(stored)
        return len(self.rooms)

    @property
    def adjourned(self) -> int:
        """How many unfinished games are left in the store until someone asks for them."""
        return len(self.table.adjourned)

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
        self.table.index_room(room, add=True)
        if room.status == "waiting":
            self.table.waiting(room)
            self.evictions.expire_later(room.id)
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
        self.evictions.cancel_all()
        await self.seeks.close()
        self.challenges.close()
        await self.arena.close()
        await self.house_bots.close()
        for room in list(self.rooms.values()):
            await room.close()

    def background(self, work: Coroutine[Any, Any, None]) -> None:
        """Run `work` in a task of its own, not waited for."""
        task = asyncio.get_running_loop().create_task(work)
        self._tasks.add(task)      # the loop keeps only weak references to tasks
        task.add_done_callback(self._tasks.discard)

    # -- seats: what a room tells the hub (`RoomHost`) ---------------------------------------------------

    def seated(self, token: str, user: str | None, room_id: str, seat: int) -> None:
        self.table.seated(token, user, room_id, seat)

    def unseated(self, token: str, user: str | None, room_id: str, seat: int) -> None:
        self.table.unseated(token, user, room_id, seat)

    def check_room_limit(self, session: Session, room_id: str | None) -> None:
        self.table.check_room_limit(session, room_id)

    def no_longer_waiting(self, room: Room) -> None:
        self.evictions.no_longer_waiting(room)

    async def creator_left(self, room: Room) -> None:
        await self.evictions.creator_left(room)

    def ended(self, room: Room) -> None:
        """A game ended: its seats no longer count, and the room leaves memory in time."""
        self.table.index_room(room, add=False)
        self.lobby.changed()
        self.evictions.schedule(room.id)
        self.arena.ended(room.id)

    def registered(self, session: Session) -> None:
        """A guest session became a registered user's: the seats it holds become the user's too, so
        that the user logging in from elsewhere holds them at once (not only after a restart, which
        rebuilds seats from the stored session). Each room tells its watchers by a `seat` event,
        queued before any request the new login can send there."""
        for room, i in self.table.registered(session):
            self.background(room.call(room.seat_registered, i, session))

    def seats_of(self, session: Session) -> list[dict[str, Any]]:
        """The seats the session holds in unfinished games."""
        return self.table.seats_of(session)

    async def seats_held(self, session: Session) -> list[dict[str, Any]]:
        """`seats_of` for `welcome`: on a node of a cluster from the database, so that a client
        reconnecting at any node is told every seat it holds, whichever node serves the room."""
        seats = self.table.seats_of(session)
        if self.cluster is None and all(seat["room"] in self.rooms for seat in seats):
            return seats
        return [{"room": room, "seat": seat, "last_seq": last_seq}
                for room, seat, last_seq in await self.store.held_seats(session.token, session.user)]

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
        self.table.check_space()
        room_id = code(8)
        await self.store.create_room(room_id, settings, owner=sessions[0].token, invite=None)
        room = self.rooms[room_id] = Room(self, room_id, settings, owner=sessions[0].token, invite=None)
        if payer is not None:
            address, chooser = payer
            self.holdings.charge(room_id, address, chooser.token, chooser.user, weight(board_points(settings)))
        self.lobby.changed()
        await room.call(room.fill, sessions)
        return room_id

    # -- rooms -------------------------------------------------------------------------------------------

    async def create(self, session: Session, settings: RoomSettings, address: str = "") -> Created:
        """A new room for `session`, connected from IP `address`; the limits are checked before the
        settings, which cost an engine game to check."""
        if self.draining:
            raise ProtocolError(ErrorCode.UNAVAILABLE, RESTARTING, retry_after=RESTART_RETRY)
        self.table.check_create(session, address)
        try:
            stored = normalize(settings)
        except SettingsError as exc:
            raise ProtocolError(ErrorCode.BAD_SETTINGS, str(exc), field="settings") from None
        points = weight(board_points(stored))
        self.holdings.check(address, session.token, session.user, points)
        room_id = code(8)
        invite = code(12) if settings.private else None
        await self.store.create_room(room_id, stored, owner=session.token, invite=invite)
        room = self.rooms[room_id] = Room(self, room_id, stored, owner=session.token, invite=invite)
        self.holdings.charge(room_id, address, session.token, session.user, points)
        self.table.waiting(room, address)
        self.evictions.expire_later(room_id)
        self.lobby.changed()
        await self.house_bots.seat(room)
        return Created(room=room_id, invite=invite)

    async def close_unstarted(self, room: Room, message: str) -> None:
        """An operator closes a room waiting for players: it goes as an expired one does."""
        await self.evictions.close_unstarted(room, message)

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
        if room_id not in self.table.adjourned:
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
            self.table.adjourned.discard(room_id)
            raise ProtocolError(ErrorCode.NO_SUCH_ROOM, f"no room {room_id!r}", field="room")
        points = weight(board_points(rows[0]["settings"]))
        self.table.check_space()
        self.holdings.check(address, None, user, points)
        room = self.rooms.get(room_id) or await self.adopt(rows[0])
        if room is None:
            raise ProtocolError(ErrorCode.NO_SUCH_ROOM, f"room {room_id!r} cannot be served", field="room")
        self.table.adjourned.discard(room_id)
        self.holdings.charge(room_id, address, None, user, points)
        self.lobby.changed()
        self.evictions.schedule(room_id)
        return room

    def forget_all(self) -> list[Room]:
        """Drop every room from memory at once (a fenced node: other nodes own them now, and what
        they hold is what was committed); returns them for the caller to stop."""
        self.evictions.cancel_all()
        rooms = self.table.clear()
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
        self.evictions.cancel(room_id)
        self.table.uncount(room)
        self.lobby.forget(room_id)
        self.lobby.changed()
        return room

    # -- lists and records -----------------------------------------------------------------------------

    async def list_rooms(self, limit: int, offset: int) -> Rooms:
        return await listings.rooms_page(self.lobby, self.store, limit, offset, shared=self.cluster is not None)

    async def finished(self, limit: int, offset: int) -> Games:
        return await listings.finished_games(self.store, limit, offset)

    async def record(self, room_id: str, fmt: str) -> GameRecord:
        return await exports.record(self.store, room_id, fmt)
