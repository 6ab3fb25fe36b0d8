"""What each IP address, registered user and creator holds in the server's memory: the rooms
charged to them and those rooms' board points.

A started room on a large board holds megabytes, and a bound on waiting rooms alone stops
counting once a game starts: one address could fill memory, and the server's room cap, with games
it plays against itself. So every room in memory is charged, for as long as it is
in memory (waiting, playing, or ended and still watched), to whoever brought it there: the address
and the session or user that created it, or that brought an adjourned game back. The charge is the
board's points, which is what a room's memory grows with; the number of rooms a creator holds is
bounded too. Plain bookkeeping: the hub asks `check` before it builds a room and calls `charge`
and `release`.
"""

from __future__ import annotations

from dataclasses import dataclass

from polygo.protocol import ErrorCode, ProtocolError

from .ratelimit import Tally


LEAST_POINTS = 361
"""The points a room is charged at least: a room's own overhead (its task, clocks, event window,
presence) is about that of a 19x19 board's points, so small boards are not free."""


def weight(points: int) -> int:
    """What a room on a board of `points` points is charged."""
    return max(points, LEAST_POINTS)


@dataclass(frozen=True)
class Bounds:
    """The limits (`Config.points_per_address`, `points_per_user`, `rooms_per_creator`)."""

    points_per_address: int
    points_per_user: int
    rooms_per_creator: int


@dataclass(frozen=True)
class Charge:
    """Who a room in memory is charged to, and how many points."""

    address: str | None
    creators: tuple[str, ...]       # "t:token" and, for a registered user, "u:user"
    user: str | None
    points: int


class Holdings:
    """Rooms in memory by who they are charged to. Keys holding nothing are forgotten."""

    def __init__(self, bounds: Bounds) -> None:
        self.bounds = bounds
        self._charges: dict[str, Charge] = {}
        self._points: dict[str, int] = {}
        self._rooms = Tally()

    def points(self, key: str) -> int:
        """Points held by "a:address" or "u:user"."""
        return self._points.get(key, 0)

    def rooms(self, creator: str) -> int:
        """Rooms held by a creator ("t:token" or "u:user")."""
        return self._rooms[creator]

    def check(self, address: str | None, token: str | None, user: str | None, points: int) -> None:
        """ProtocolError (too-many-rooms) if a room of `points` more would take the address, the
        user or the creator (`token`; None when the room is not being created) over a bound."""
        bounds = self.bounds
        if address is not None:
            held = self.points("a:" + address)
            if held + points > bounds.points_per_address:
                raise ProtocolError(ErrorCode.TOO_MANY_ROOMS,
                                    f"games from your address hold {held} board points in memory and this one "
                                    f"{points} more, over the limit of {bounds.points_per_address}; "
                                    f"finish or leave some first")
        if user is not None:
            held = self.points("u:" + user)
            if held + points > bounds.points_per_user:
                raise ProtocolError(ErrorCode.TOO_MANY_ROOMS,
                                    f"your games hold {held} board points in memory and this one {points} more, "
                                    f"over the limit of {bounds.points_per_user}; finish or leave some first")
        if token is not None:
            for creator in _creators(token, user):
                if self.rooms(creator) >= bounds.rooms_per_creator:
                    raise ProtocolError(ErrorCode.TOO_MANY_ROOMS,
                                        f"you created {self.rooms(creator)} rooms still in memory, the limit "
                                        f"of {bounds.rooms_per_creator}; finish or leave some first")

    def charge(self, room_id: str, address: str | None, token: str | None, user: str | None, points: int) -> None:
        """Charge a room now in memory (`token` None: not a creation, no creator counts it)."""
        self.release(room_id)
        charge = Charge(address, () if token is None else _creators(token, user), user, points)
        self._charges[room_id] = charge
        for key in _point_keys(charge):
            self._points[key] = self._points.get(key, 0) + points
        for creator in charge.creators:
            self._rooms.add(creator)

    def release(self, room_id: str) -> None:
        """The room left memory: whoever it was charged to holds it no more."""
        charge = self._charges.pop(room_id, None)
        if charge is None:
            return
        for key in _point_keys(charge):
            left = self._points[key] - charge.points
            if left:
                self._points[key] = left
            else:
                del self._points[key]
        for creator in charge.creators:
            self._rooms.remove(creator)

    def clear(self) -> None:
        self._charges.clear()
        self._points.clear()
        self._rooms = Tally()

    def __len__(self) -> int:
        return len(self._charges)


def _creators(token: str, user: str | None) -> tuple[str, ...]:
    return ("t:" + token,) if user is None else ("t:" + token, "u:" + user)


def _point_keys(charge: Charge) -> list[str]:
    keys = [] if charge.address is None else ["a:" + charge.address]
    return keys if charge.user is None else keys + ["u:" + charge.user]
