"""A player's unfinished games, those where it is his turn first: the `my_games` request.

A correspondence player keeps many games going and comes back now and then to play his turns; he
must see at once every game that waits for him, wherever it is: in memory, adjourned, or (in a
cluster) served by another node. So the list is read from the store, which holds each room's seat
to move and, for a calendar clock, its deadline as of the last committed change (a committed
change is all anyone was told). A room this node serves live adds what only memory knows: the
deadline of a running clock that is not a calendar one (it stands still while the game is out of
memory, so the store keeps none).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Mapping, Protocol

from polygo.protocol import MyGames

from .games import effective_settings
from .house_seats import bot_name

if TYPE_CHECKING:
    from ..accounts.sessions import Session
    from ..store import Store
    from .room import Room

LIMIT = 1000
"""Games listed at most (a player's seats are bounded well below it: `Config.rooms_per_session`)."""


class Games(Protocol):
    """Where the games are (the hub): the store, and the rooms this node serves live."""

    store: Store
    rooms: Mapping[str, Room]


async def my_games(hub: Games, session: Session) -> MyGames:
    """The session's (and its registered user's) unfinished games: those where it is to move
    first, by deadline (none last), then the others by room."""
    games = [_entry(hub, row) for row in await hub.store.held_games(session.token, session.user, LIMIT)]
    games.sort(key=lambda g: (not g["your_turn"], g["deadline"] is None, g["deadline"] or 0, g["room"]))
    return MyGames(games=games, your_turn=sum(g["your_turn"] for g in games))


def _entry(hub: Games, row: dict[str, Any]) -> dict[str, Any]:
    settings = row["settings"]
    taken = {int(seat): held for seat, held in row["seats"].items() if held[0] is not None}
    seats = [None if seat not in taken else bot_name(taken[seat][0], settings) or taken[seat][1] or "?"
             for seat in range(settings["players"])]
    status = "playing" if len(taken) == settings["players"] else "waiting"
    turn, deadline = (row["turn"], row["deadline"]) if status == "playing" else (None, None)
    room = hub.rooms.get(row["room_id"])
    if room is not None and room.status == "playing":
        turn, deadline = room.game.to_move, room.wall_deadline(any_clock=True)
    return {"room": row["room_id"], "title": settings.get("title", ""), "settings": effective_settings(settings),
            "seats": seats, "seat": row["seat"], "status": status, "to_move": turn,
            "your_turn": turn is not None and turn == row["seat"], "deadline": deadline, "version": row["version"]}
