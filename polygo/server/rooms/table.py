"""The room table: the rooms in memory, who sits where, the games adjourned to the store, and the
limits on rooms coming into memory.

Touched only from the event loop's thread, and never across an await while a change is half
made, so it needs no lock. Every key of its indexes is a session, a user or an IP address, which
cost nothing to make: an entry is forgotten once it holds nothing.
"""

from __future__ import annotations

import secrets
import time
from collections import defaultdict
from typing import TYPE_CHECKING, Any, Protocol

from polygo.protocol import ErrorCode, ProtocolError

from ..limits.holdings import Bounds, Holdings
from ..limits.ratelimit import Buckets, Tally

if TYPE_CHECKING:
    from ..accounts.sessions import Session
    from .room import Room

CODE_LETTERS = "ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz23456789"
"""Letters of room ids and invitation codes: no look-alikes, and no '-' that a command line would
take for an option (`polygo bot --room -x...`)."""

CREATE_BURST = 20
"""Creates one address may send at once before `Config.create_rate` applies."""

ADDRESSES_TRACKED = 10_000
"""Addresses whose create rate is remembered at most (those whose bucket refilled are forgotten
sooner, at the next create)."""


def code(length: int) -> str:
    """A random room id or invitation code (8 letters: about 46 bits; 12: about 69)."""
    return "".join(secrets.choice(CODE_LETTERS) for _ in range(length))


class TableConfig(Protocol):
    """The server's settings the table reads (`Config` holds them with the rest)."""

    max_rooms: int
    rooms_per_address: int
    rooms_per_session: int
    create_rate: float
    points_per_address: int
    points_per_user: int
    rooms_per_creator: int


class RoomTable:
    """The rooms of one server in memory, the indexes over them, and the bounds on them."""

    def __init__(self, config: TableConfig) -> None:
        self.config = config
        self.rooms: dict[str, Room] = {}
        self.adjourned: set[str] = set()                                 # unfinished games left in the store
        self._seats: dict[str, set[tuple[str, int]]] = defaultdict(set)  # "t:token" / "u:user" -> seats
        self._owned: dict[str, set[str]] = defaultdict(set)              # token -> waiting rooms created
        self.waiting_by_address = Tally()                                # IP address -> unstarted rooms made there
        self._made_from: dict[str, str] = {}                             # unstarted room -> that IP address
        self.create_rates = Buckets(config.create_rate, CREATE_BURST, ADDRESSES_TRACKED)  # IP address -> bucket
        self.holdings = Holdings(Bounds(config.points_per_address, config.points_per_user,
                                        config.rooms_per_creator))

    # -- who sits where --------------------------------------------------------------------------------

    def index(self, token: str, user: str | None, room_id: str, seat: int, *, add: bool) -> None:
        keys = ["t:" + token] + ([] if user is None else ["u:" + user])
        for key in keys:
            if add:
                self._seats[key].add((room_id, seat))
            else:
                _discard(self._seats, key, (room_id, seat))

    def seated(self, token: str, user: str | None, room_id: str, seat: int) -> None:
        self.index(token, user, room_id, seat, add=True)
        _discard(self._owned, token, room_id)

    def unseated(self, token: str, user: str | None, room_id: str, seat: int) -> None:
        self.index(token, user, room_id, seat, add=False)

    def index_room(self, room: Room, *, add: bool) -> None:
        """Every taken seat of `room` starts (or stops) counting."""
        for i, seat in enumerate(room.seats):
            if seat is not None:
                self.index(seat.token, seat.user, room.id, i, add=add)

    def hold_adjourned(self, room_id: str, seats: dict[int, tuple[str, str | None]]) -> None:
        """An unfinished game left in the store (`seats`: {seat: (token, user)}): its seats count
        as if it were in memory, until it ends."""
        self.adjourned.add(room_id)
        for seat, (token, user) in seats.items():
            self.index(token, user, room_id, seat, add=True)

    def registered(self, session: Session) -> list[tuple[Room, int]]:
        """A guest session became a registered user's: the seats it holds are indexed under the
        user too. Returns the seats among them of rooms in memory, whose watchers are to be told
        (an adjourned game rebinds its seats from the store when it comes back)."""
        assert session.user is not None
        to_tell = []
        for room_id, i in list(self._seats.get("t:" + session.token, ())):
            room = self.rooms.get(room_id)
            if room is None and room_id not in self.adjourned:
                continue
            self.index(session.token, session.user, room_id, i, add=True)
            if room is not None:
                to_tell.append((room, i))
        return to_tell

    def seats_of(self, session: Session) -> list[dict[str, Any]]:
        """The seats the session holds in unfinished games."""
        held = set(self._seats.get("t:" + session.token, ()))
        if session.user is not None:
            held |= self._seats.get("u:" + session.user, set())
        return [{"room": r, "seat": s, "last_seq": self.rooms[r].last_seq[s] if r in self.rooms else None}
                for r, s in sorted(held)]

    # -- rooms waiting for players -----------------------------------------------------------------------

    def waiting(self, room: Room, address: str | None = None) -> None:
        """`room` waits for players: it counts against its creator's session and, when it was just
        created, against the IP `address` it was created from."""
        self._owned[room.owner].add(room.id)
        if address is not None:
            self._made_from[room.id] = address
            self.waiting_by_address.add(address)

    def no_longer_waiting(self, room_id: str) -> None:
        """The room no longer counts against the address it was created from, which is forgotten
        once it has no such room."""
        address = self._made_from.pop(room_id, None)
        if address is not None:
            self.waiting_by_address.remove(address)

    def uncount(self, room: Room) -> None:
        """The room leaves memory for good (dropped, or served by another node): neither its seats,
        nor its creator, nor its address count it any more."""
        self.index_room(room, add=False)
        _discard(self._owned, room.owner, room.id)
        self.no_longer_waiting(room.id)

    # -- the limits ----------------------------------------------------------------------------------------

    def check_create(self, session: Session, address: str) -> None:
        """Every limit a create from IP `address` meets before its settings are read."""
        self._check_create_rate(address)
        self.check_room_limit(session, None)
        self.check_space()
        mine = self.waiting_by_address[address]
        if mine >= self.config.rooms_per_address:    # guest sessions are free: the session's limit bounds nothing
            raise ProtocolError(ErrorCode.TOO_MANY_ROOMS,
                                f"{mine} rooms created from your address wait for players, the limit; "
                                f"start or leave them first")
        self.holdings.check(address, session.token, session.user, 0)

    def _check_create_rate(self, address: str) -> None:
        """At most `create_rate` creates a second from one address (after a burst of
        `CREATE_BURST`), refused or not: a create's check of its settings is costly on the loop
        (docs/performance.md)."""
        if not self.create_rates.allow(address, time.monotonic()):
            raise ProtocolError(ErrorCode.RATE_LIMITED, f"over {self.config.create_rate:g} creates a second "
                                                        f"from your address; try again in a moment")

    def check_room_limit(self, session: Session, room_id: str | None) -> None:
        """The session's bound on the unfinished rooms it sits in or created (`rooms_per_session`),
        `room_id` aside."""
        rooms = {entry["room"] for entry in self.seats_of(session)} | self._owned.get(session.token, set())
        rooms.discard(room_id)
        if len(rooms) >= self.config.rooms_per_session:
            raise ProtocolError(ErrorCode.TOO_MANY_ROOMS,
                                f"you already take part in {len(rooms)} unfinished rooms, the limit")

    def check_space(self) -> None:
        """The server's bound on rooms in memory (`max_rooms`), for every room that would come in:
        created, started for a match, or an adjourned game brought back."""
        if len(self.rooms) >= self.config.max_rooms:
            raise ProtocolError(ErrorCode.TOO_MANY_ROOMS,
                                f"the server holds {len(self.rooms)} rooms, its limit; try again later")

    # -- leaving memory --------------------------------------------------------------------------------------

    def leave_memory(self, room: Room) -> None:
        """The room leaves memory (whatever is stored stays) and is charged to nobody; its seats
        stay indexed for as long as its game is unfinished."""
        del self.rooms[room.id]
        self.holdings.release(room.id)

    def clear(self) -> list[Room]:
        """Every room and every index at once (a fenced node); returns the rooms."""
        rooms = list(self.rooms.values())
        self.rooms.clear()
        self.holdings.clear()
        self._seats.clear()
        self._owned.clear()
        self._made_from.clear()
        self.waiting_by_address = Tally()
        return rooms


def _discard(table: dict[str, set[Any]], key: str, item: Any) -> None:
    """Take `item` out of `table[key]`, and `key` out once its set is empty: the keys are sessions,
    which guests make for free, so empty entries would pile up without end."""
    held = table.get(key)
    if held is not None:
        held.discard(item)
        if not held:
            del table[key]
