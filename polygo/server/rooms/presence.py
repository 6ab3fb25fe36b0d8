"""Who is in a room: which seats have a connection watching it, and who watches without a seat.

Presence is not a change of the game, so it is not one of the room's versioned events: it is never
stored, never replayed by `watch` with `since`, and takes no version of its own (its event carries
the version of the room's latest event). It is derived from the room's watchers whenever they
change, and sent whole (not as a difference), so a client only ever keeps the latest one. Each
connection gets it right after the reply to its `sit` or `watch`, and every watcher gets it again
when it changes; changes that come close together (everyone reconnecting after a server restart)
go out as one message per `Config.presence_interval`, so a crowded room costs a bounded number of
broadcasts, not one per connection to every connection.
"""

from __future__ import annotations

import asyncio
from typing import Any, Callable, Protocol, Sequence

from ..accounts.sessions import Session
from ..net.peer import Peer, broadcast

NAMES_SHOWN = 32
"""Spectators named in a presence event; `spectators` counts them all."""


class Watched(Protocol):
    """What presence reads of its room (room.py)."""

    id: str
    version: int
    seats: Sequence[Any]
    watchers: set[Peer]

    def seat_of(self, session: Session) -> int | None: ...


class Presence:
    """The presence of one room, and the timer of its next broadcast."""

    def __init__(self, room: Watched, interval: float, always_here: Callable[[Any], bool]) -> None:
        self.room = room
        self.interval = interval
        self.always_here = always_here
        """Whether a seat's player is here without a connection (the house bot's seats)."""
        self._sent: dict[str, Any] | None = None
        """What every watcher was last told (None: not all the same), so an unchanged one is not sent."""
        self._sent_at = float("-inf")
        self._timer: asyncio.TimerHandle | None = None

    def view(self) -> dict[str, Any]:
        """`online`: per seat, whether its player is here (the house bot always is); `spectators`:
        how many people watch without a seat (a registered user's sessions are one); `names`: the
        first NAMES_SHOWN of them, sorted."""
        room = self.room
        online = [self.always_here(seat) for seat in room.seats]
        watching: dict[str, str] = {}
        for conn in room.watchers:
            session = conn.session
            if session is None or conn.closed:
                continue
            seat = room.seat_of(session)
            if seat is None:     # one person: a guest session, or all the sessions of a registered user
                watching[session.token if session.user is None else "u:" + session.user] = session.name
            else:
                online[seat] = True
        names = sorted(watching.values(), key=str.casefold)
        return {"online": online, "spectators": len(names), "names": names[:NAMES_SHOWN]}

    def event(self, view: dict[str, Any] | None = None) -> dict[str, Any]:
        room = self.room
        return {"type": "event", "room": room.id, "version": room.version, "kind": "presence",
                **(view if view is not None else self.view())}

    def send_to(self, conn: Peer) -> None:
        """The presence as it is now, to one connection (after the reply that made it a watcher)."""
        view = self.view()
        if view != self._sent:
            self._sent = None      # watchers now know different things: the next broadcast must go
        broadcast([conn], self.event(view))

    def changed(self) -> None:
        """The watchers or the seats changed: tell every watcher, at most once per interval."""
        if self._timer is not None:
            return
        loop = asyncio.get_running_loop()
        wait = max(0.0, self._sent_at + self.interval - loop.time())
        self._timer = loop.call_later(wait, self._broadcast)

    def _broadcast(self) -> None:
        self._timer = None
        view = self.view()
        if view == self._sent:
            return
        self._sent = view
        self._sent_at = asyncio.get_running_loop().time()
        broadcast(self.room.watchers, self.event(view))

    def close(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
